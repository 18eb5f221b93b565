//! JSON text → [`Value`]: a recursive-descent parser with line and column in every
//! error, a nesting limit instead of a stack overflow, and numbers kept as their
//! text (the lab reads only whole numbers, so no float parsing is linked in).

use std::fmt;

/// How deep arrays and objects may nest; deeper input is refused, never a crash.
pub const MAX_DEPTH: usize = 64;

/// A parsed JSON value. Object members keep their order; a repeated key keeps both
/// (readers take the last, as `JSON.parse` does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number's text as written (`3`, `-1.5e3`).
    Number(String),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// What kind of value this is, as an error message names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }

    /// The member `key` of an object (the last one, if repeated).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A whole number that fits in a `u64` (`3`, not `3.0`, `-3` or `1e3`).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            _ => None,
        }
    }
}

/// Why a text is not JSON, and where (1-based line and column, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.message, self.line, self.column)
    }
}

/// Parses one JSON document (whitespace around it allowed, nothing else).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser { s: text.as_bytes(), text, i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        let at = self.i.min(self.s.len());
        // Back to a character boundary: the position may sit inside a multi-byte one.
        let at = (0..=at).rev().find(|&i| self.text.is_char_boundary(i)).unwrap_or(0);
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError { message: message.to_string(), line, column }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8, expected: &str) -> Result<(), ParseError> {
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&self.expected(expected)))
        }
    }

    fn expected(&self, what: &str) -> String {
        match self.peek() {
            None => format!("expected {what}, found the end of the text"),
            Some(_) => format!("expected {what}"),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ParseError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error(&self.expected("a value"))),
        }
    }

    fn nest(&self, depth: usize) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            Err(self.error(&format!("nested deeper than {MAX_DEPTH} levels")))
        } else {
            Ok(())
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.nest(depth)?;
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.error(&self.expected("a member name in double quotes")));
            }
            let key = self.string()?;
            self.ws();
            self.eat(b':', "`:`")?;
            self.ws();
            let v = self.value(depth)?;
            members.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.error(&self.expected("`,` or `}`"))),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, ParseError> {
        self.nest(depth)?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error(&self.expected("`,` or `]`"))),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        if self.digits() == 0 {
            return Err(self.error(&self.expected("a digit")));
        }
        if self.s[int_start] == b'0' && self.i - int_start > 1 {
            self.i = int_start + 1;
            return Err(self.error("a number cannot start with 0"));
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.error(&self.expected("a digit after `.`")));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.error(&self.expected("a digit in the exponent")));
            }
        }
        Ok(Value::Number(self.text[start..self.i].to_string()))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut n = 0;
        for _ in 0..4 {
            let d = self.peek().and_then(|b| (b as char).to_digit(16)).ok_or_else(|| self.error("expected four hex digits after `\\u`"))?;
            n = n * 16 + d;
            self.i += 1;
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, ParseError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // Stops only at ASCII bytes, so the run is whole UTF-8 characters.
            out.push_str(&self.text[start..self.i]);
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.i += 1;
                            let c = self.unicode_escape()?;
                            out.push(c);
                            continue;
                        }
                        _ => return Err(self.error("invalid escape")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.error("control character in a string (escape it)")),
            }
        }
    }

    /// After `\u`: one code point, or a surrogate pair written as two escapes.
    fn unicode_escape(&mut self) -> Result<char, ParseError> {
        let hi = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&hi) {
            if !self.s[self.i..].starts_with(b"\\u") {
                return Err(self.error("lone surrogate in `\\u` escape"));
            }
            self.i += 2;
            let lo = self.hex4()?;
            if !(0xDC00..0xE000).contains(&lo) {
                return Err(self.error("lone surrogate in `\\u` escape"));
            }
            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
        } else {
            hi
        };
        char::from_u32(code).ok_or_else(|| self.error("lone surrogate in `\\u` escape"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    /// Every JSON shape reads to its value; strings unescape, numbers keep their text.
    #[test]
    fn reads_json() {
        let cases: Vec<(&str, Value)> = vec![
            ("null", Value::Null),
            (" true ", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("0", Value::Number("0".into())),
            ("-12.5e+3", Value::Number("-12.5e+3".into())),
            (r#""a\"b\\c\/d\n\t\r\b\f""#, s("a\"b\\c/d\n\t\r\u{8}\u{c}")),
            (r#""\u00e9\uD83D\uDE00 랩""#, s("é😀 랩")),
            ("[]", Value::Array(vec![])),
            ("{}", Value::Object(vec![])),
            (r#"[1, "x", [null]]"#, Value::Array(vec![Value::Number("1".into()), s("x"), Value::Array(vec![Value::Null])])),
            (r#"{"a": {"b": []}, "a": 2}"#, Value::Object(vec![("a".into(), Value::Object(vec![("b".into(), Value::Array(vec![]))])), ("a".into(), Value::Number("2".into()))])),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text), Ok(expected), "{text}");
        }
    }

    /// What is not JSON is refused with a message and the line and column where the
    /// reading stopped (columns count characters, not bytes).
    #[test]
    fn says_where_it_is_not_json() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        let cases: Vec<(&str, &str, usize, usize)> = vec![
            ("", "expected a value, found the end of the text", 1, 1),
            ("{", "expected a member name in double quotes, found the end of the text", 1, 2),
            ("{\"a\" 1}", "expected `:`", 1, 6),
            ("{\"a\":1,}", "expected a member name in double quotes", 1, 8),
            ("[1 2]", "expected `,` or `]`", 1, 4),
            ("{\n  \"랩\": tru}", "expected a value", 2, 8),
            ("01", "a number cannot start with 0", 1, 2),
            ("1.", "expected a digit after `.`, found the end of the text", 1, 3),
            ("-", "expected a digit, found the end of the text", 1, 2),
            ("1e+x", "expected a digit in the exponent", 1, 4),
            ("\"a", "unterminated string", 1, 3),
            ("\"a\nb\"", "control character in a string (escape it)", 1, 3),
            (r#""\x""#, "invalid escape", 1, 3),
            (r#""\uD800x""#, "lone surrogate in `\\u` escape", 1, 8),
            (r#""\u12""#, "expected four hex digits after `\\u`", 1, 6),
            ("{} x", "trailing characters", 1, 4),
            (&deep, "nested deeper than 64 levels", 1, MAX_DEPTH + 1),
        ];
        for (text, message, line, column) in cases {
            assert_eq!(parse(text), Err(ParseError { message: message.into(), line, column }), "{text}");
        }
        assert_eq!(parse("[").unwrap_err().to_string(), "expected a value, found the end of the text at line 1 column 2");
    }

    /// Only plain whole numbers read as `u64`.
    #[test]
    fn whole_numbers() {
        let cases = [("7", Some(7)), ("18446744073709551615", Some(u64::MAX)), ("18446744073709551616", None), ("-1", None), ("1.0", None), ("1e2", None)];
        for (text, n) in cases {
            assert_eq!(parse(text).unwrap().as_u64(), n, "{text}");
        }
        assert_eq!(s("7").as_u64(), None);
    }

    /// Anything at all returns a value or an error, never a panic (arbitrary bytes
    /// made text, cut at every position of a valid document).
    #[test]
    fn never_panics() {
        let doc = r#"{"a":[1,-2.5e3,"\u00e9\uD83D\uDE00랩",true,false,null,{"b":{}}]}"#;
        for end in 0..=doc.len() {
            if let Some(prefix) = doc.get(..end) {
                let _ = parse(prefix);
            }
        }
        const ALPHABET: &[u8] = b"{}[]\",:\\u0123456789abcdefEe.-+ tnrl\xc3\xa9";
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2000 {
            let bytes: Vec<u8> = (0..24)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    ALPHABET[(seed % ALPHABET.len() as u64) as usize]
                })
                .collect();
            let _ = parse(&String::from_utf8_lossy(&bytes));
        }
    }
}
