//! go-toml v2's parser as containerd 2.0–2.3 run it (pelletier/go-toml v2.2.3, v2.2.4
//! and v2.3.0: `unstable/parser.go`, `unstable/scanner.go`, `internal/characters`),
//! ported for its syntax errors only: the first error's text and the byte it points at.
//!
//! Why a port and not `toml_edit`'s errors reworded: go-toml v2 finds errors elsewhere.
//! It reads values lazily (`sandbox = runc` is an "incomplete number" at the `r`;
//! `1__000` is only checked when a field decodes it), stops at different bytes, and
//! words everything its own way. The tree itself still comes from [`super::parse`]:
//! for a file this parser accepts, both read the same tables.
//!
//! Positions: go-toml reports the row and column (in bytes) of the error's highlight.
//! An empty highlight (the document ended) points at the end of the text on v2.2, and
//! at row 1 column 1 on v2.3 (its `subsliceOffset` returns 0 for an empty slice).

/// Which go-toml v2 release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// v2.2.3 (containerd 2.0), v2.2.4 (2.1, 2.2).
    V2_2,
    /// v2.3.0 (containerd 2.3).
    V2_3,
    /// v2.4.3 (containerd 2.4): a new parser, `gotoml24`.
    V2_4,
}

/// The first syntax error: go-toml's message (without `toml: `) and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub message: String,
    /// 1-based row and byte column of the highlight.
    pub row: u32,
    pub column: u32,
}

/// An error at byte `at`; `empty`: its highlight is an empty slice.
struct Raw {
    message: String,
    at: usize,
    empty: bool,
}

type R = Result<usize, Raw>;

fn err(at: usize, message: impl Into<String>) -> Raw {
    Raw { message: message.into(), at, empty: false }
}

fn err_empty(at: usize, message: impl Into<String>) -> Raw {
    Raw { message: message.into(), at, empty: true }
}

/// Go's `%#U` of a byte: `U+0062 'b'`, or `U+0009` when not printable.
pub(super) fn hash_u(c: u8) -> String {
    let printable = (0x20..0x7f).contains(&c) || (c >= 0xa1 && c != 0xad);
    if printable {
        format!("U+{:04X} '{}'", c, char::from(c))
    } else {
        format!("U+{c:04X}")
    }
}

fn invalid_ascii(c: u8) -> bool {
    matches!(c, 0x00..=0x08 | 0x0b | 0x0c | 0x0e..=0x1f | 0x7f)
}

/// `characters.Utf8ValidNext`: the size of the valid character at the start of `p`
/// (0 for an invalid byte or a control character TOML forbids).
fn utf8_valid_next(p: &[u8]) -> usize {
    let Some(&c) = p.first() else { return 0 };
    if c < 0x80 {
        return usize::from(!invalid_ascii(c));
    }
    let size = match c {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 0,
    };
    match p.get(..size) {
        Some(s) if std::str::from_utf8(s).is_ok() => size,
        _ => 0,
    }
}

/// `characters.Utf8TomlValidAlreadyEscaped`: the offset of the first invalid byte.
fn first_invalid(p: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < p.len() {
        let n = utf8_valid_next(p.get(i..).unwrap_or(&[]));
        if n == 0 {
            return Some(i);
        }
        i += n;
    }
    None
}

struct Parser<'a> {
    d: &'a [u8],
    dialect: Dialect,
}

impl Parser<'_> {
    fn at(&self, i: usize) -> Option<u8> {
        self.d.get(i).copied()
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

    fn end(&self) -> usize {
        self.d.len()
    }

    fn rest(&self, i: usize) -> &[u8] {
        self.d.get(i..).unwrap_or(&[])
    }

    fn byte(&self, i: usize) -> u8 {
        self.at(i).unwrap_or(0)
    }

    fn document(&self) -> Result<(), Raw> {
        let mut i = 0;
        let mut first = true;
        loop {
            if i >= self.end() {
                return Ok(());
            }
            if !first {
                i = self.newline(i)?;
            }
            if i >= self.end() {
                return Ok(());
            }
            i = self.expression(i)?;
            first = false;
        }
    }

    fn newline(&self, i: usize) -> R {
        match self.at(i) {
            Some(b'\n') => Ok(i + 1),
            Some(b'\r') => {
                if self.end() - i < 2 {
                    return Err(err(i, "windows new line expected"));
                }
                if self.at(i + 1) != Some(b'\n') {
                    return Err(err(i, "windows new line should be \\r\\n"));
                }
                Ok(i + 2)
            }
            Some(c) => Err(err(i, format!("expected newline but got {}", hash_u(c)))),
            None => Ok(i),
        }
    }

    fn comment(&self, i: usize) -> R {
        let mut j = i + 1;
        while j < self.end() {
            match self.at(j) {
                Some(b'\n') => return Ok(j),
                Some(b'\r') => {
                    if self.at(j + 1) == Some(b'\n') {
                        return Ok(j + 1);
                    }
                    return Err(err(j, "invalid character in comment"));
                }
                _ => {}
            }
            let n = utf8_valid_next(self.rest(j));
            if n == 0 {
                return Err(err(j, "invalid character in comment"));
            }
            j += n;
        }
        Ok(self.end())
    }

    fn expression(&self, i: usize) -> R {
        let mut i = self.ws(i);
        match self.at(i) {
            None => return Ok(i),
            Some(b'#') => return self.comment(i),
            Some(b'\n' | b'\r') => return Ok(i),
            Some(b'[') => i = self.table(i)?,
            Some(_) => i = self.keyval(i)?,
        }
        i = self.ws(i);
        if self.at(i) == Some(b'#') {
            return self.comment(i);
        }
        Ok(i)
    }

    fn expect(&self, i: usize, x: u8) -> R {
        match self.at(i) {
            None => Err(err_empty(i, format!("expected character {} but the document ended here", char::from(x)))),
            Some(c) if c != x => Err(err(i, format!("expected character {}", char::from(x)))),
            Some(_) => Ok(i + 1),
        }
    }

    fn table(&self, i: usize) -> R {
        if self.at(i + 1) == Some(b'[') {
            let mut j = self.ws(i + 2);
            j = self.key(j)?;
            j = self.ws(j);
            j = self.expect(j, b']')?;
            return self.expect(j, b']');
        }
        let mut j = self.ws(i + 1);
        j = self.key(j)?;
        j = self.ws(j);
        self.expect(j, b']')
    }

    fn keyval(&self, start: usize) -> R {
        let mut i = self.key(start)?;
        i = self.ws(i);
        if i >= self.end() {
            let message = "expected = after a key, but the document ends there";
            return Err(match self.dialect {
                Dialect::V2_2 | Dialect::V2_4 => err_empty(i, message),
                Dialect::V2_3 => err(start, message),
            });
        }
        i = self.expect(i, b'=')?;
        i = self.ws(i);
        self.val(i)
    }

    fn key(&self, i: usize) -> R {
        let mut i = self.simple_key(i)?;
        loop {
            i = self.ws(i);
            if self.at(i) == Some(b'.') {
                i = self.ws(i + 1);
                i = self.simple_key(i)?;
            } else {
                return Ok(i);
            }
        }
    }

    fn simple_key(&self, i: usize) -> R {
        match self.at(i) {
            None => Err(err_empty(i, "expected key but found none")),
            Some(b'\'') => self.literal_string(i),
            Some(b'"') => self.basic_string(i),
            Some(c) if c.is_ascii_alphanumeric() || c == b'-' || c == b'_' => {
                let mut j = i;
                while self.at(j).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
                    j += 1;
                }
                Ok(j)
            }
            Some(c) => Err(err(i, format!("invalid character at start of key: {}", char::from(c)))),
        }
    }

    fn val(&self, i: usize) -> R {
        let Some(c) = self.at(i) else { return Err(err_empty(i, "expected value, not eof")) };
        match c {
            b'"' if self.follows(i, "\"\"\"") => self.ml_basic_string(i),
            b'"' => self.basic_string(i),
            b'\'' if self.follows(i, "'''") => self.ml_literal_string(i),
            b'\'' => self.literal_string(i),
            b't' if self.follows(i, "true") => Ok(i + 4),
            b't' => Err(err(i, "expected 'true'")),
            b'f' if self.follows(i, "false") => Ok(i + 5),
            b'f' => Err(err(i, "expected 'false'")),
            b'[' => self.array(i),
            b'{' => self.inline_table(i),
            _ => self.int_float_datetime(i),
        }
    }

    fn literal_string(&self, i: usize) -> R {
        let mut j = i + 1;
        while j < self.end() {
            match self.at(j) {
                Some(b'\'') => return Ok(j + 1),
                Some(b'\n' | b'\r') => return Err(err(j, "literal strings cannot have new lines")),
                _ => {}
            }
            let n = utf8_valid_next(self.rest(j));
            if n == 0 {
                return Err(err(j, "invalid character"));
            }
            j += n;
        }
        Err(err_empty(self.end(), "unterminated literal string"))
    }

    fn ml_literal_string(&self, i: usize) -> R {
        let mut j = i + 3;
        while j < self.end() {
            match self.at(j) {
                Some(b'\'') if self.follows(j, "'''") => {
                    j += 3;
                    if self.at(j) != Some(b'\'') {
                        return Ok(j);
                    }
                    j += 1;
                    if self.at(j) != Some(b'\'') {
                        return Ok(j);
                    }
                    j += 1;
                    if self.at(j) == Some(b'\'') {
                        return Err(err(j - 3, "''' not allowed in multiline literal string"));
                    }
                    return Ok(j);
                }
                Some(b'\r') => {
                    if self.end() < j + 2 {
                        return Err(err_empty(self.end(), "need a \\n after \\r"));
                    }
                    if self.at(j + 1) != Some(b'\n') {
                        return Err(err(j, "need a \\n after \\r"));
                    }
                    j += 2;
                    continue;
                }
                _ => {}
            }
            let n = utf8_valid_next(self.rest(j));
            if n == 0 {
                return Err(err(j, "invalid character"));
            }
            j += n;
        }
        Err(err_empty(self.end(), "multiline literal string not terminated by '''"))
    }

    /// `scanBasicString` then `parseBasicString`.
    fn basic_string(&self, i: usize) -> R {
        let mut j = i + 1;
        let mut escaped = false;
        let close = loop {
            match self.at(j) {
                None => return Err(err_empty(self.end(), "basic string not terminated by \"")),
                Some(b'"') => break j,
                Some(b'\n' | b'\r') => return Err(err(j, "basic strings cannot have new lines")),
                Some(b'\\') => {
                    if self.end() < j + 2 {
                        return Err(err(j, "need a character after \\"));
                    }
                    escaped = true;
                    j += 1;
                }
                _ => {}
            }
            j += 1;
        };
        let body = self.d.get(i + 1..close).unwrap_or(&[]);
        if !escaped {
            return match first_invalid(body) {
                None => Ok(close + 1),
                Some(k) => Err(err(i + 1 + k, "invalid UTF-8")),
            };
        }
        let mut k = i + 1;
        while k < close {
            let c = self.byte(k);
            if c == b'\\' {
                k += 1;
                let c = self.byte(k);
                match c {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' | b'e' => {}
                    b'u' | b'U' => {
                        let len = if c == b'u' { 4 } else { 8 };
                        self.hex_rune(k + 1, close, len)?;
                        k += len;
                    }
                    _ => return Err(err(k, format!("invalid escaped character {}", hash_u(c)))),
                }
                k += 1;
            } else {
                let n = utf8_valid_next(self.rest(k));
                if n == 0 {
                    return Err(err(k, format!("invalid character {}", hash_u(c))));
                }
                k += n;
            }
        }
        Ok(close + 1)
    }

    /// `hexToRune` over `d[from..to]`.
    fn hex_rune(&self, from: usize, to: usize, length: usize) -> Result<(), Raw> {
        let avail = to.saturating_sub(from);
        if avail < length {
            return Err(Raw { message: format!("unicode point needs {length} character, not {avail}"), at: from, empty: avail == 0 });
        }
        let mut r: u32 = 0;
        for (n, c) in self.d.get(from..from + length).unwrap_or(&[]).iter().enumerate() {
            let Some(v) = char::from(*c).to_digit(16) else { return Err(err(from + n, "non-hex character")) };
            r = r.wrapping_mul(16).wrapping_add(v);
        }
        if r > 0x10_ffff || (0xd800..0xe000).contains(&r) {
            return Err(err(from, "escape sequence is invalid Unicode code point"));
        }
        Ok(())
    }

    /// `scanMultilineBasicString` then `parseMultilineBasicString`.
    fn ml_basic_string(&self, i: usize) -> R {
        let mut j = i + 3;
        let mut escaped = false;
        let end = loop {
            match self.at(j) {
                None => return Err(err_empty(self.end(), "multiline basic string not terminated by \"\"\"")),
                Some(b'"') if self.follows(j, "\"\"\"") => {
                    j += 3;
                    if self.at(j) != Some(b'"') {
                        break j;
                    }
                    j += 1;
                    if self.at(j) != Some(b'"') {
                        break j;
                    }
                    j += 1;
                    if self.at(j) == Some(b'"') {
                        return Err(err(j - 3, "\"\"\" not allowed in multiline basic string"));
                    }
                    break j;
                }
                Some(b'\\') => {
                    if self.end() < j + 2 {
                        return Err(err_empty(self.end(), "need a character after \\"));
                    }
                    escaped = true;
                    j += 1;
                }
                Some(b'\r') => {
                    if self.end() < j + 2 {
                        return Err(err_empty(self.end(), "need a \\n after \\r"));
                    }
                    if self.at(j + 1) != Some(b'\n') {
                        return Err(err(j, "need a \\n after \\r"));
                    }
                    j += 1;
                }
                _ => {}
            }
            j += 1;
        };
        // token = d[i..end]; its body skips one leading newline and the closing quotes.
        let mut k = i + 3;
        if self.at(k) == Some(b'\n') {
            k += 1;
        } else if self.at(k) == Some(b'\r') && self.at(k + 1) == Some(b'\n') {
            k += 2;
        }
        let stop = end.saturating_sub(3);
        if !escaped {
            return match first_invalid(self.d.get(k..stop).unwrap_or(&[])) {
                None => Ok(end),
                Some(n) => Err(err(k + n, "invalid UTF-8")),
            };
        }
        while k < stop {
            let c = self.byte(k);
            if c == b'\\' {
                // A backslash ending its line swallows the whitespace that follows.
                let mut eol = false;
                let mut n = 1;
                while n < stop - k {
                    match self.byte(k + n) {
                        b' ' | b'\t' => {
                            n += 1;
                            continue;
                        }
                        b'\r' if self.at(k + n + 1) == Some(b'\n') => {
                            n += 1;
                            continue;
                        }
                        b'\n' => eol = true,
                        _ => {}
                    }
                    break;
                }
                if eol {
                    k += n;
                    while k < stop && matches!(self.byte(k), b'\n' | b'\r' | b' ' | b'\t') {
                        k += 1;
                    }
                    continue;
                }
                k += 1;
                let c = self.byte(k);
                match c {
                    b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' | b'e' => {}
                    b'u' | b'U' => {
                        let len = if c == b'u' { 4 } else { 8 };
                        self.hex_rune(k + 1, (k + 1 + len).min(self.end()), len)?;
                        k += len;
                    }
                    _ => return Err(err(k, format!("invalid escaped character {}", hash_u(c)))),
                }
                k += 1;
            } else {
                let n = utf8_valid_next(self.rest(k));
                if n == 0 {
                    return Err(err(k, format!("invalid character {}", hash_u(c))));
                }
                k += n;
            }
        }
        Ok(end)
    }

    /// `parseOptionalWhitespaceCommentNewline`.
    fn blank(&self, mut i: usize) -> R {
        while i < self.end() {
            i = self.ws(i);
            if self.at(i) == Some(b'#') {
                i = self.comment(i)?;
            }
            match self.at(i) {
                None => break,
                Some(b'\n' | b'\r') => i = self.newline(i)?,
                Some(_) => break,
            }
        }
        Ok(i)
    }

    fn array(&self, start: usize) -> R {
        let mut i = start + 1;
        let mut first = true;
        while i < self.end() {
            i = self.blank(i)?;
            match self.at(i) {
                None => return Err(err(start, "array is incomplete")),
                Some(b']') => break,
                Some(b',') => {
                    if first {
                        return Err(err(i, "array cannot start with comma"));
                    }
                    i = self.blank(i + 1)?;
                }
                Some(_) if !first => return Err(err(i, "array elements must be separated by commas")),
                Some(_) => {}
            }
            if self.at(i) == Some(b']') {
                break;
            }
            i = self.val(i)?;
            i = self.blank(i)?;
            first = false;
        }
        self.expect(i, b']')
    }

    fn inline_table(&self, start: usize) -> R {
        let mut i = start + 1;
        let mut first = true;
        while i < self.end() {
            let previous = i;
            i = self.ws(i);
            match self.at(i) {
                None => return Err(err(previous, "inline table is incomplete")),
                Some(b'}') => break,
                Some(_) => {}
            }
            if !first {
                i = self.expect(i, b',')?;
                i = self.ws(i);
            }
            i = self.keyval(i)?;
            first = false;
        }
        self.expect(i, b'}')
    }

    fn int_float_datetime(&self, i: usize) -> R {
        match self.at(i) {
            Some(b'i') if self.follows(i, "inf") => return Ok(i + 3),
            Some(b'i') => return Err(err(i, "expected 'inf'")),
            Some(b'n') if self.follows(i, "nan") => return Ok(i + 3),
            Some(b'n') => return Err(err(i, "expected 'nan'")),
            Some(b'+' | b'-') => return self.int_or_float(i),
            _ => {}
        }
        if self.end() - i < 3 {
            return self.int_or_float(i);
        }
        for idx in 0..5.min(self.end() - i) {
            let c = self.byte(i + idx);
            if c.is_ascii_digit() {
                continue;
            }
            if (idx == 2 && c == b':') || (idx == 4 && c == b'-') {
                return Ok(self.datetime(i));
            }
            break;
        }
        self.int_or_float(i)
    }

    fn datetime(&self, i: usize) -> usize {
        let mut seen_space = false;
        let mut j = i;
        while j < self.end() {
            let c = self.byte(j);
            match c {
                b'0'..=b'9' | b'-' | b'T' | b't' | b':' | b'.' | b'+' | b'Z' | b'z' => {}
                b' ' if !seen_space && self.at(j + 1).is_some_and(|c| c.is_ascii_digit()) => {
                    j += 2;
                    if j >= self.end() {
                        j -= 1;
                    }
                    seen_space = true;
                }
                _ => break,
            }
            j += 1;
        }
        j
    }

    fn int_or_float(&self, i: usize) -> R {
        let b = self.rest(i);
        let at = |n: usize| b.get(n).copied().unwrap_or(0);
        if b.len() > 2 && at(0) == b'0' && !matches!(at(1), b'.' | b'e' | b'E') {
            let valid: Option<fn(u8) -> bool> = match at(1) {
                b'x' => Some(|c: u8| c.is_ascii_hexdigit() || c == b'_'),
                b'o' => Some(|c: u8| (b'0'..=b'7').contains(&c) || c == b'_'),
                b'b' => Some(|c: u8| c == b'0' || c == b'1' || c == b'_'),
                _ => None,
            };
            let mut n = 1;
            if let Some(valid) = valid {
                n = 2;
                while n < b.len() && valid(at(n)) {
                    n += 1;
                }
            }
            return Ok(i + n);
        }
        let mut n = 0;
        while n < b.len() {
            match at(n) {
                b'0'..=b'9' | b'+' | b'-' | b'_' | b'.' | b'e' | b'E' => n += 1,
                b'i' => {
                    return if self.follows(i + n, "inf") { Ok(i + n + 3) } else { Err(err(i + n, "unexpected character 'i' while scanning for a number")) };
                }
                b'n' => {
                    return if self.follows(i + n, "nan") { Ok(i + n + 3) } else { Err(err(i + n, "unexpected character 'n' while scanning for a number")) };
                }
                _ => break,
            }
        }
        if n == 0 {
            return Err(err(i, "incomplete number"));
        }
        Ok(i + n)
    }
}

/// go-toml's `positionAtEnd`: row and byte column of offset `at` in `d`.
fn position(d: &[u8], at: usize) -> (u32, u32) {
    let (mut row, mut column) = (1u32, 1u32);
    for &c in d.get(..at).unwrap_or(d) {
        if c == b'\n' {
            row += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (row, column)
}

/// The first syntax error go-toml v2 finds in `text`, if any.
pub fn first_error(text: &[u8], dialect: Dialect) -> Option<SyntaxError> {
    if dialect == Dialect::V2_4 {
        let (message, row, column) = super::gotoml24::first_error(text)?;
        return Some(SyntaxError { message, row, column });
    }
    let p = Parser { d: text, dialect };
    let e = p.document().err()?;
    let (row, column) = if e.empty && dialect == Dialect::V2_3 { (1, 1) } else { position(text, e.at) };
    Some(SyntaxError { message: e.message, row, column })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, dialect: Dialect) -> Option<(u32, u32, String)> {
        first_error(text.as_bytes(), dialect).map(|e| (e.row, e.column, e.message))
    }

    /// The errors real containerd 2.0.11 and 2.3.4 printed for these lines.
    #[test]
    fn words_and_places_errors_as_go_toml() {
        let v22 = |t: &str| check(t, Dialect::V2_2);
        let v23 = |t: &str| check(t, Dialect::V2_3);
        assert_eq!(v22("version = 2\nroot = \"unterminated\n"), Some((2, 21, "basic strings cannot have new lines".into())));
        assert_eq!(v22("version = 2\nsandbox = runc\n"), Some((2, 11, "incomplete number".into())));
        assert_eq!(v22("  [plugins.\"io.containerd.grpc.v1.cri\"\n"), Some((1, 39, "expected character ]".into())));
        assert_eq!(v22("x = 'unclosed\n"), Some((1, 14, "literal strings cannot have new lines".into())));
        assert_eq!(v22("key \"no equals\"\n"), Some((1, 5, "expected character =".into())));
        assert_eq!(v22("v = 2\nlist = [1, 2\n"), Some((3, 1, "expected character ] but the document ended here".into())));
        assert_eq!(v23("v = 2\nlist = [1, 2\n"), Some((1, 1, "expected character ] but the document ended here".into())));
        assert_eq!(v22("inline = { a = 1\n"), Some((1, 17, "expected character ,".into())));
        assert_eq!(v22("= \"no key\"\n"), Some((1, 1, "invalid character at start of key: =".into())));
        assert_eq!(v22("a = 1 b = 2\n"), Some((1, 7, "expected newline but got U+0062 'b'".into())));
        assert_eq!(v22("v = 2\nx"), Some((2, 2, "expected = after a key, but the document ends there".into())));
        assert_eq!(v23("v = 2\nx"), Some((2, 1, "expected = after a key, but the document ends there".into())));
        assert_eq!(v22("v = 2\nx = \"abc"), Some((2, 9, "basic string not terminated by \"".into())));
        assert_eq!(v22("n = 1__000\nb = 1979-05-27T07:32:00Z\n"), None);
    }
}
