//! Where in `scenario.toml` a finding points. The parser reports a key at column 1,
//! and a step's missing file or unknown node at the step's first line; [`refine`]
//! moves each diagnostic to the text its message names (the first `` `token` `` of
//! the message, on that line or further down the same table), so the page and
//! `gpulab scenario check` point at the same line:column for the same mistake.

use crate::diagnostic::Diagnostic;

/// Moves every diagnostic of a `scenario.toml` (text `text`) to the text it names.
pub fn refine(diags: &mut [Diagnostic], text: &str) {
    diags.iter_mut().for_each(|d| refine_one(d, text));
}

/// The 1-based character column of the first of `needles` found on `line` of `text`.
pub fn column_in(text: &str, line: u32, needles: &[&str]) -> Option<u32> {
    let l = text.lines().nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    needles.iter().filter(|n| !n.is_empty()).find_map(|n| l.find(n)).map(|byte| l.get(..byte).map_or(0, |p| p.chars().count()) as u32 + 1)
}

/// The parser reports keys at column 1 (or at their table's first line); point at the
/// text the message names instead: the first `` `token` `` of the message, found on
/// that line or, failing that, further down the same table.
fn refine_one(d: &mut Diagnostic, text: &str) {
    let Some(span) = d.primary.as_mut() else { return };
    if span.column != 1 {
        return;
    }
    let message = d.args.iter().find(|(k, _)| k == "message").map(|(_, v)| v.clone()).unwrap_or_default();
    let tokens: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    // `do = "x"` may be written `do="x"`: its quoted value is looked for too.
    let mut exact: Vec<String> = Vec::new();
    for t in &tokens {
        match t.split('"').nth(1) {
            Some(v) => exact.push(format!("\"{v}\"")),
            None => exact.push(format!("\"{t}\"")),
        }
        exact.push((*t).to_string());
    }
    // `subject.field`: the field's key.
    let keys: Vec<String> = tokens.iter().filter_map(|t| t.rsplit_once('.')).map(|(_, f)| f.to_string()).filter(|f| !f.contains('/')).collect();
    let exact: Vec<&str> = exact.iter().map(String::as_str).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let start = span.line;
    let mut candidates = vec![start];
    for (i, l) in text.lines().enumerate().skip(usize::try_from(start).unwrap_or(0)) {
        if l.trim_start().starts_with('[') {
            break;
        }
        candidates.extend(u32::try_from(i + 1).ok());
    }
    for needles in [&exact, &keys] {
        for &line in &candidates {
            if let Some(c) = column_in(text, line, needles) {
                span.line = line;
                span.column = c;
                return;
            }
        }
    }
    // Inherited from the top (a node's `containerd` version): where it is written.
    for line in 1..=u32::try_from(text.lines().count()).unwrap_or(0) {
        if let Some(c) = column_in(text, line, &exact) {
            span.line = line;
            span.column = c;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Severity, Span};

    /// A finding reported at a table's first line moves to the key or value its
    /// message names; one already carrying a column stays where it is.
    #[test]
    fn points_at_the_named_text() {
        let text = "title = \"x\"\n[[step]]\nname = \"s\"\ndo = \"jump\"\n";
        let cases = [
            ("unknown action `do = \"jump\"`", 3, 1, (4, 6)),
            ("unknown key `name` in a [[step]]", 3, 1, (3, 1)),
            ("`title` must be a string", 1, 1, (1, 1)),
            ("unknown action `do = \"jump\"`", 3, 2, (3, 2)),
            ("nothing named here", 2, 1, (2, 1)),
        ];
        for (message, line, column, expected) in cases {
            let mut d = [Diagnostic::new("c", Severity::Error).arg("message", message).at(Span::new("f", line, column))];
            refine(&mut d, text);
            let span = d[0].primary.as_ref().unwrap();
            assert_eq!((span.line, span.column), expected, "{message}");
        }
    }

    proptest::proptest! {
        /// Any text, message and position: no panic, and the finding stays on a line of
        /// the text (or where it was) with a column of at least 1.
        #[test]
        fn never_panics(text in "[a-z=\"`\\[\\] \n.é]{0,80}", message in "[a-z=\"` .]{0,30}", line in 0u32..12, column in 0u32..3) {
            let mut d = [Diagnostic::new("c", Severity::Error).arg("message", message).at(Span::new("f", line, column))];
            refine(&mut d, &text);
            let span = d[0].primary.as_ref().unwrap();
            let lines = text.lines().count() as u32;
            proptest::prop_assert!(span.line == line || (1..=lines).contains(&span.line));
            proptest::prop_assert!(span.column == column || span.column >= 1);
        }
    }
}
