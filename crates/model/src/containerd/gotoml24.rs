//! go-toml v2.4's parser as containerd 2.4 runs it (pelletier/go-toml v2.4.3,
//! `unstable/parser.go`), ported for its syntax errors only: the first error's text and
//! the byte it points at. v2.4 rewrote the parser of v2.2–2.3 (`gotoml2`): it checks
//! numbers while parsing (`1__000` is an error), allows newlines inside inline tables,
//! and words most errors anew (`expected '=' after key`, `unterminated basic string`).
//!
//! Positions: row and byte column of the highlight's first byte; a highlight that is
//! empty at the very end of the text points at its last byte (`NextExpression`).

/// An error at byte `at`.
struct Raw {
    message: String,
    at: usize,
}

type R = Result<usize, Raw>;

fn err(at: usize, message: impl Into<String>) -> Raw {
    Raw { message: message.into(), at }
}

use super::gotoml2::hash_u;

fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

struct Parser<'a> {
    d: &'a [u8],
}

impl Parser<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        self.d.get(i).copied()
    }

    fn byte(&self, i: usize) -> u8 {
        self.at(i).unwrap_or(0)
    }

    fn end(&self) -> usize {
        self.d.len()
    }

    fn follows(&self, i: usize, pattern: &str) -> bool {
        self.d.get(i..).is_some_and(|r| r.starts_with(pattern.as_bytes()))
    }

    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.at(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    }

    fn document(&self) -> Result<(), Raw> {
        let mut i = 0;
        loop {
            i = self.ws(i);
            match self.at(i) {
                None => return Ok(()),
                Some(b'\n') => i += 1,
                Some(b'\r') if self.at(i + 1) == Some(b'\n') => i += 2,
                Some(b'\r') => return Err(err(i, format!("expected newline but got {}", hash_u(b'\r')))),
                Some(b'#') => {
                    i = self.comment(i)?;
                    i = self.eol(i)?;
                }
                Some(b'[') => {
                    i = self.header(i)?;
                    i = self.finish_line(i)?;
                }
                Some(_) => {
                    i = self.keyval(i)?;
                    i = self.finish_line(i)?;
                }
            }
        }
    }

    fn eol(&self, i: usize) -> R {
        match self.at(i) {
            None => Ok(i),
            Some(b'\n') => Ok(i + 1),
            Some(b'\r') if self.at(i + 1) == Some(b'\n') => Ok(i + 2),
            Some(c) => Err(err(i, format!("expected newline but got {}", hash_u(c)))),
        }
    }

    fn finish_line(&self, i: usize) -> R {
        let mut i = self.ws(i);
        if self.at(i) == Some(b'#') {
            i = self.comment(i)?;
        }
        self.eol(i)
    }

    fn header(&self, i: usize) -> R {
        if self.at(i + 1) == Some(b'[') {
            let j = self.key(self.ws(i + 2))?;
            if self.at(j) != Some(b']') || self.at(j + 1) != Some(b']') {
                return Err(err(j, "expected ']]' to close array table name"));
            }
            return Ok(j + 2);
        }
        let j = self.key(self.ws(i + 1))?;
        if self.at(j) != Some(b']') {
            return Err(err(j, "expected ']' to close table name"));
        }
        Ok(j + 1)
    }

    fn keyval(&self, i: usize) -> R {
        let j = self.key(i)?;
        if self.at(j) != Some(b'=') {
            return Err(err(j, "expected '=' after key"));
        }
        self.val(self.ws(j + 1))
    }

    /// Dotted keys; the whitespace after the last one is consumed.
    fn key(&self, mut i: usize) -> R {
        loop {
            i = self.ws(self.simple_key(i)?);
            if self.at(i) == Some(b'.') {
                i = self.ws(i + 1);
                continue;
            }
            return Ok(i);
        }
    }

    fn simple_key(&self, i: usize) -> R {
        match self.at(i) {
            None => Err(err(i, "expected key but reached end of input")),
            Some(b'\'') => self.literal_string(i),
            Some(b'"') => self.basic_string(i),
            Some(c) => {
                let mut j = i;
                while self.at(j).is_some_and(is_key_char) {
                    j += 1;
                }
                if j == i {
                    return Err(err(i, format!("invalid character at start of key: {}", hash_u(c))));
                }
                Ok(j)
            }
        }
    }

    fn val(&self, i: usize) -> R {
        let Some(c) = self.at(i) else { return Err(err(i, "expected value, not end of input")) };
        match c {
            b'"' if self.follows(i, "\"\"\"") => self.ml_basic_string(i),
            b'"' => self.basic_string(i),
            b'\'' if self.follows(i, "'''") => self.ml_literal_string(i),
            b'\'' => self.literal_string(i),
            b't' => self.keyword(i, "true"),
            b'f' => self.keyword(i, "false"),
            b'i' => self.keyword(i, "inf"),
            b'n' => self.keyword(i, "nan"),
            b'[' => self.array(i),
            b'{' => self.inline_table(i),
            b'+' | b'-' => self.int_or_float(i),
            b'0'..=b'9' if self.datetime_start(i) => Ok(self.datetime(i)),
            b'0'..=b'9' => self.int_or_float(i),
            _ => Err(err(i, format!("unexpected character {} at start of value", hash_u(c)))),
        }
    }

    fn keyword(&self, i: usize, kw: &str) -> R {
        if self.follows(i, kw) {
            Ok(i + kw.len())
        } else {
            Err(err(i, format!("expected keyword {kw:?}")))
        }
    }

    fn comment(&self, i: usize) -> R {
        let mut j = i + 1;
        while let Some(c) = self.at(j) {
            match c {
                0x80.. => {
                    let (k, ok) = self.utf8_run(j);
                    if !ok {
                        return Err(err(k, "invalid UTF-8 character in comment"));
                    }
                    j = k;
                }
                0x20..=0x7e | b'\t' => j += 1,
                b'\n' => return Ok(j),
                b'\r' if self.at(j + 1) == Some(b'\n') => return Ok(j),
                b'\r' => return Err(err(j, "carriage returns are not allowed in comments")),
                _ => return Err(err(j, "control characters are not allowed in comments")),
            }
        }
        Ok(j)
    }

    fn literal_string(&self, i: usize) -> R {
        let mut j = i + 1;
        loop {
            let Some(c) = self.at(j) else { return Err(err(self.end(), "unterminated literal string")) };
            match c {
                b'\'' => return Ok(j + 1),
                0x20..=0x7e | b'\t' => j += 1,
                b'\n' | b'\r' => return Err(err(j, "literal strings cannot have new lines")),
                _ if c < 0x80 => return Err(err(j, "literal strings cannot have control characters")),
                _ => {
                    let (k, ok) = self.utf8_run(j);
                    if !ok {
                        return Err(err(k, "invalid UTF-8 character in literal string"));
                    }
                    j = k;
                }
            }
        }
    }

    fn ml_literal_string(&self, i: usize) -> R {
        let mut j = self.ml_content_start(i);
        while let Some(c) = self.at(j) {
            match c {
                b'\'' => {
                    let mut k = j;
                    while self.at(k) == Some(b'\'') {
                        k += 1;
                    }
                    if k - j >= 3 {
                        if k - j > 5 {
                            return Err(err(j, "too many quotes at the end of a multiline literal string"));
                        }
                        return Ok(k);
                    }
                    j = k;
                }
                0x20..=0x7e | b'\t' | b'\n' => j += 1,
                b'\r' if self.at(j + 1) == Some(b'\n') => j += 2,
                b'\r' => return Err(err(j, "carriage returns must be followed by a newline character")),
                _ if c < 0x80 => return Err(err(j, "multiline literal strings cannot have control characters")),
                _ => {
                    let (k, ok) = self.utf8_run(j);
                    if !ok {
                        return Err(err(k, "invalid UTF-8 character in multiline literal string"));
                    }
                    j = k;
                }
            }
        }
        Err(err(self.end(), "multiline literal string not terminated by '''"))
    }

    fn ml_content_start(&self, i: usize) -> usize {
        let j = i + 3;
        if self.at(j) == Some(b'\n') {
            j + 1
        } else if self.at(j) == Some(b'\r') && self.at(j + 1) == Some(b'\n') {
            j + 2
        } else {
            j
        }
    }

    fn basic_string(&self, i: usize) -> R {
        let mut j = i + 1;
        loop {
            let Some(c) = self.at(j) else { return Err(err(self.end(), "unterminated basic string")) };
            match c {
                b'"' => return Ok(j + 1),
                b'\\' => {
                    j += 1;
                    if j >= self.end() {
                        return Err(err(j - 1, "need a character after \\"));
                    }
                    j = self.unescape(j)?;
                }
                0x20..=0x7e | b'\t' => j += 1,
                b'\n' | b'\r' => return Err(err(j, "basic strings cannot have new lines")),
                _ if c < 0x80 => return Err(err(j, "basic strings cannot have control characters")),
                _ => {
                    let (k, ok) = self.utf8_run(j);
                    if !ok {
                        return Err(err(k, "invalid UTF-8 character in basic string"));
                    }
                    j = k;
                }
            }
        }
    }

    /// The escape whose letter is at `i` (the backslash at `i - 1`); returns what follows.
    fn unescape(&self, i: usize) -> R {
        let c = self.byte(i);
        let n = match c {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' | b'e' => return Ok(i + 1),
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return Err(err(i - 1, format!("invalid escape character {}", hash_u(c)))),
        };
        let start = i + 1;
        if start + n > self.end() {
            return Err(err(i - 1, "unicode escape sequence is too short"));
        }
        let mut r: u32 = 0;
        for k in 0..n {
            let Some(d) = char::from(self.byte(start + k)).to_digit(16) else {
                return Err(err(start + k, "invalid hexadecimal digit in unicode escape sequence"));
            };
            r = (r << 4) | d;
        }
        if r > 0x10_ffff || (0xd800..=0xdfff).contains(&r) {
            return Err(err(i - 1, "escape sequence is not a valid unicode code point"));
        }
        Ok(start + n)
    }

    fn ml_basic_string(&self, i: usize) -> R {
        let mut j = self.ml_content_start(i);
        while let Some(c) = self.at(j) {
            match c {
                b'"' => {
                    let mut k = j;
                    while self.at(k) == Some(b'"') {
                        k += 1;
                    }
                    if k - j >= 3 {
                        if k - j > 5 {
                            return Err(err(j, "too many quotes at the end of a multiline basic string"));
                        }
                        return Ok(k);
                    }
                    j = k;
                }
                b'\\' => {
                    j += 1;
                    if j >= self.end() {
                        return Err(err(j - 1, "need a character after \\"));
                    }
                    if matches!(self.byte(j), b' ' | b'\t' | b'\n' | b'\r') {
                        // A line-ending backslash: blanks, one newline, then any blank lines.
                        let mut k = j;
                        while matches!(self.at(k), Some(b' ' | b'\t')) {
                            k += 1;
                        }
                        if self.at(k) == Some(b'\r') {
                            k += 1;
                        }
                        if self.at(k) != Some(b'\n') {
                            return Err(err(j - 1, format!("invalid escape character {}", hash_u(self.byte(j)))));
                        }
                        k += 1;
                        while let Some(b) = self.at(k) {
                            match b {
                                b' ' | b'\t' | b'\n' => k += 1,
                                b'\r' if self.at(k + 1) == Some(b'\n') => k += 2,
                                _ => break,
                            }
                        }
                        j = k;
                        continue;
                    }
                    j = self.unescape(j)?;
                }
                0x20..=0x7e | b'\t' | b'\n' => j += 1,
                b'\r' if self.at(j + 1) == Some(b'\n') => j += 2,
                b'\r' => return Err(err(j, "carriage returns must be followed by a newline character")),
                _ if c < 0x80 => return Err(err(j, "multiline basic strings cannot have control characters")),
                _ => {
                    let (k, ok) = self.utf8_run(j);
                    if !ok {
                        return Err(err(k, "invalid UTF-8 character in multiline basic string"));
                    }
                    j = k;
                }
            }
        }
        Err(err(self.end(), "multiline basic string not terminated by \"\"\""))
    }

    /// `scanUtf8Run`: past a run of multi-byte characters; `false` at a bad byte.
    fn utf8_run(&self, mut i: usize) -> (usize, bool) {
        let cont = |k: usize| self.at(k).is_some_and(|b| b & 0xc0 == 0x80);
        while let Some(c) = self.at(i) {
            let b1 = self.byte(i + 1);
            match c {
                0..=0x7f => return (i, true),
                0x80..=0xc1 => return (i, false),
                0xc2..=0xdf => {
                    if !cont(i + 1) {
                        return (i, false);
                    }
                    i += 2;
                }
                0xe0..=0xef => {
                    if i + 2 >= self.end() || !cont(i + 2) {
                        return (i, false);
                    }
                    let ok = match c {
                        0xe0 => (0xa0..=0xbf).contains(&b1),
                        0xed => (0x80..=0x9f).contains(&b1),
                        _ => b1 & 0xc0 == 0x80,
                    };
                    if !ok {
                        return (i, false);
                    }
                    i += 3;
                }
                0xf0..=0xf4 => {
                    if i + 3 >= self.end() || !cont(i + 2) || !cont(i + 3) {
                        return (i, false);
                    }
                    let ok = match c {
                        0xf0 => (0x90..=0xbf).contains(&b1),
                        0xf4 => (0x80..=0x8f).contains(&b1),
                        _ => b1 & 0xc0 == 0x80,
                    };
                    if !ok {
                        return (i, false);
                    }
                    i += 4;
                }
                _ => return (i, false),
            }
        }
        (i, true)
    }

    fn array(&self, i: usize) -> R {
        let mut j = i + 1;
        let mut after_value = false;
        loop {
            j = self.ws(j);
            let Some(c) = self.at(j) else { return Err(err(j, "array is incomplete")) };
            match c {
                b']' => return Ok(j + 1),
                b'\n' => j += 1,
                b'\r' if self.at(j + 1) == Some(b'\n') => j += 2,
                b'\r' => return Err(err(j, format!("expected newline but got {}", hash_u(c)))),
                b'#' => j = self.comment(j)?,
                b',' if !after_value => return Err(err(j, format!("expected value but got {}", hash_u(c)))),
                b',' => {
                    after_value = false;
                    j += 1;
                }
                _ if after_value => return Err(err(j, "expected ',' or ']' after array value")),
                _ => {
                    j = self.val(j)?;
                    after_value = true;
                }
            }
        }
    }

    fn inline_table(&self, i: usize) -> R {
        let mut j = i + 1;
        let mut after_value = false;
        loop {
            j = self.ws(j);
            let Some(c) = self.at(j) else { return Err(err(j, "inline table is incomplete")) };
            match c {
                b'}' => return Ok(j + 1),
                b'\n' => j += 1,
                b'\r' if self.at(j + 1) == Some(b'\n') => j += 2,
                b'\r' => return Err(err(j, format!("expected newline but got {}", hash_u(c)))),
                b'#' => j = self.comment(j)?,
                b',' if !after_value => return Err(err(j, "unexpected comma in inline table")),
                b',' => {
                    after_value = false;
                    j += 1;
                }
                _ if after_value => return Err(err(j, "expected ',' or '}' after inline table key-value")),
                _ => {
                    j = self.keyval(j)?;
                    after_value = true;
                }
            }
        }
    }

    fn datetime_start(&self, i: usize) -> bool {
        let digit = |k: usize| self.at(k).is_some_and(|c| c.is_ascii_digit());
        (digit(i + 1) && self.at(i + 2) == Some(b':')) || (digit(i + 1) && digit(i + 2) && digit(i + 3) && self.at(i + 4) == Some(b'-'))
    }

    fn datetime(&self, i: usize) -> usize {
        let mut j = i;
        while let Some(c) = self.at(j) {
            let more = c.is_ascii_digit()
                || matches!(c, b':' | b'-' | b'+' | b'.' | b'Z' | b'z' | b'T' | b't')
                || (c == b' ' && self.at(j + 1).is_some_and(|d| d.is_ascii_digit()));
            if !more {
                break;
            }
            j += 1;
        }
        j
    }

    /// `scanDigitsWithUnderscores` from `i`.
    fn digits(&self, mut i: usize, in_range: fn(u8) -> bool) -> R {
        while let Some(c) = self.at(i) {
            if in_range(c) {
                i += 1;
            } else if c == b'_' {
                if !self.at(i + 1).is_some_and(in_range) {
                    return Err(err(i, "number must have at least one digit between underscores"));
                }
                i += 2;
            } else {
                break;
            }
        }
        Ok(i)
    }

    fn int_or_float(&self, start: usize) -> R {
        let digit: fn(u8) -> bool = |c| c.is_ascii_digit();
        let mut i = start;
        if matches!(self.at(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let Some(c) = self.at(i) else { return Err(err(start, "expected number after sign")) };
        if c == b'i' || c == b'n' {
            let kw = if c == b'i' { "inf" } else { "nan" };
            if !self.follows(i, kw) {
                return Err(err(i, format!("expected {kw:?}")));
            }
            return Ok(i + 3);
        }
        if !c.is_ascii_digit() {
            return Err(err(i, format!("expected digit but got {}", hash_u(c))));
        }
        if c == b'0' && matches!(self.at(i + 1), Some(b'x' | b'o' | b'b')) {
            if i != start {
                return Err(err(start, "sign is not allowed on numbers with a radix prefix"));
            }
            let in_range: fn(u8) -> bool = match self.byte(start + 1) {
                b'x' => |c| c.is_ascii_hexdigit(),
                b'o' => |c| (b'0'..=b'7').contains(&c),
                _ => |c| c == b'0' || c == b'1',
            };
            if !self.at(start + 2).is_some_and(in_range) {
                return Err(err(start, "radix prefix must be followed by at least one digit"));
            }
            return self.digits(start + 3, in_range);
        }
        let digits_start = i;
        i = self.digits(i + 1, digit)?;
        if c == b'0' && i > digits_start + 1 {
            return Err(err(digits_start, "integers cannot have leading zeroes"));
        }
        if self.at(i) == Some(b'.') {
            i += 1;
            if !self.at(i).is_some_and(digit) {
                return Err(err(i, "decimal point must be followed by a digit"));
            }
            i = self.digits(i + 1, digit)?;
        }
        if matches!(self.at(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(self.at(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !self.at(i).is_some_and(digit) {
                return Err(err(i, "exponent must contain at least one digit"));
            }
            i = self.digits(i + 1, digit)?;
        }
        if self.at(i).is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(err(i, "strings must be quoted"));
        }
        Ok(i)
    }
}

/// The first syntax error go-toml v2.4 finds in `text`: (message, row, byte column).
pub fn first_error(text: &[u8]) -> Option<(String, u32, u32)> {
    let e = Parser { d: text }.document().err()?;
    // An empty highlight at the very end points at the last byte.
    let at = if e.at >= text.len() && !text.is_empty() { text.len() - 1 } else { e.at };
    let (mut row, mut column) = (1u32, 1u32);
    for &c in text.get(..at).unwrap_or(text) {
        if c == b'\n' {
            row += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    Some((e.message, row, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The errors real containerd 2.4.2 printed for these files.
    #[test]
    fn words_and_places_errors_as_go_toml_2_4() {
        let check = |t: &str| first_error(t.as_bytes()).map(|(m, r, c)| (r, c, m));
        let v = "version = 2\n";
        let cases: &[(&str, (u32, u32, &str))] = &[
            ("root = \"unterminated\n", (2, 21, "basic strings cannot have new lines")),
            ("sandbox = runc\n", (2, 11, "unexpected character U+0072 'r' at start of value")),
            ("  [plugins.\"io.containerd.grpc.v1.cri\"\n", (2, 39, "expected ']' to close table name")),
            ("x = 'unclosed\n", (2, 14, "literal strings cannot have new lines")),
            ("key \"no equals\"\n", (2, 5, "expected '=' after key")),
            ("list = [1, 2\n", (2, 13, "array is incomplete")),
            ("inline = { a = 1\n", (2, 17, "inline table is incomplete")),
            ("path = \"C:\\new\\qfolder\"\n", (2, 15, "invalid escape character U+0071 'q'")),
            ("= \"no key\"\n", (2, 1, "invalid character at start of key: U+003D '='")),
            ("[]\n", (2, 2, "invalid character at start of key: U+005D ']'")),
            ("a = 1 b = 2\n", (2, 7, "expected newline but got U+0062 'b'")),
            ("[table] trailing\n", (2, 9, "expected newline but got U+0074 't'")),
            ("n = 1__000\n", (2, 6, "number must have at least one digit between underscores")),
            ("b = True\n", (2, 5, "unexpected character U+0054 'T' at start of value")),
            ("x = \"abc", (2, 8, "unterminated basic string")),
            ("x", (2, 1, "expected '=' after key")),
            ("[a", (2, 2, "expected ']' to close table name")),
        ];
        for (text, want) in cases {
            let (r, c, m) = want;
            assert_eq!(check(&format!("{v}{text}")), Some((*r, *c, (*m).to_string())), "{text:?}");
        }
        assert_eq!(check("a = { b = 1,\n c = 2 }\nd = 1979-05-27T07:32:00Z\n"), None);
    }
}
