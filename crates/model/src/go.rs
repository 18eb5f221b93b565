//! Go's formatting rules that upstream texts depend on, shared by every area that
//! reproduces a Go program's output (containerd's log lines, kubectl's messages).

/// Go's `strconv.Quote` (and `%q`): the named escapes, `\x..` for other ASCII
/// controls and DEL, `\u....` for other non-printable code points (C1 controls);
/// printable Unicode stays as it is.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::quote;

    /// The escapes `strconv.Quote` documents, one per row.
    #[test]
    fn quotes_like_go() {
        for (input, expected) in [
            ("runc", "\"runc\""),
            ("a\"b\\c", "\"a\\\"b\\\\c\""),
            ("\n\r\t\u{7}\u{8}\u{c}\u{b}", "\"\\n\\r\\t\\a\\b\\f\\v\""),
            ("\u{1}\u{7f}", "\"\\x01\\x7f\""),
            ("\u{85}", "\"\\u0085\""),
            ("엔비디아", "\"엔비디아\""),
        ] {
            assert_eq!(quote(input), expected, "{input:?}");
        }
    }
}
