//! go-toml v2.2–2.3 (containerd 2.0–2.3) check a number's underscores only when the
//! number is decoded (pelletier/go-toml v2.2.3, v2.2.4, v2.3.0: `decode.go`,
//! `checkAndRemoveUnderscoresIntegers` / `…Floats`; the parser's `scanIntOrFloat`
//! takes any run of digits, letters, `_`, `.`, `+` and `-`). So `n = 1__000` under a
//! key the config struct does not have is skipped with the other unknown keys (a
//! warning, exit 0), while the same number under `plugins` (an `interface{}`), in a
//! map or in a known field fails at its first misplaced `_`. v2.4 (containerd 2.4)
//! and go-toml v1 (1.x) refuse it while parsing (`syntax_exact`).
//!
//! The lab parser refuses such a number outright, so [`read_lenient`] reads the file
//! again with each one's underscores taken out (the same length, padded with spaces,
//! so every position stays), and returns the numbers with the error go-toml gives
//! when it decodes them; `load` decides which are decoded. Compiled in with the
//! feature `go-toml-syntax` (the companion and the chunk): the app's first load has
//! no room for it, and there such a number stays the lab parser's syntax error.
//!
//! go-toml v1 (1.x) is lenient the other way: it takes a number's leading zeros
//! (`00`, `-01`, `01.5`) that TOML and the lab parser refuse, and stops on `000` with
//! a panic's `invalid base`: [`read_v1_leading_zeros`], the same rewrite-in-place.

use super::load::{LoadError, LoadErrorCode};
#[cfg(feature = "go-toml-syntax")]
use super::parse::{parse, ParseError, ParseErrorKind};
#[cfg(feature = "go-toml-syntax")]
use super::value::Table;
#[cfg(feature = "go-toml-syntax")]
use super::version::Version;
use super::value::Origin;

/// A number whose underscores go-toml v2.2–2.3 refuse once it is decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LazyNumber {
    /// 1-based row and byte column of the number's first character.
    pub row: u32,
    pub column: u32,
    /// go-toml's message and the byte column its highlight starts at.
    pub message: &'static str,
    pub error_column: u32,
}

impl LazyNumber {
    /// The error go-toml returns when this number is decoded, as containerd 2.x logs
    /// and returns a decode error with a position.
    pub fn error(&self, path: &str) -> LoadError {
        let (row, column) = (self.row, self.error_column);
        LoadError::unmarshal_at(path, row, column, self.message, LoadErrorCode::Syntax, Some(Origin { file: path.into(), line: row, column }))
    }
}

#[cfg(feature = "go-toml-syntax")]
/// How many misplaced-underscore numbers one file may hold before the lab stops
/// reading it leniently (each costs a parse of the file).
const MAX_LAZY: usize = 64;

#[cfg(feature = "go-toml-syntax")]
/// `parsed` (the lab parser's reading of `text`) again, with every number whose only
/// fault is its underscores read as if it had none; `None` when anything else is
/// wrong (the first error stands).
pub fn read_lenient(path: &str, text: &[u8], parsed: &Result<Table, ParseError>) -> Option<(Table, Vec<LazyNumber>)> {
    let mut patched = text.to_vec();
    let mut lazy = Vec::new();
    let mut current = parsed.clone();
    loop {
        let e = match current {
            Ok(table) => return Some((table, lazy)),
            Err(e) => e,
        };
        if lazy.len() >= MAX_LAZY || !is_underscore_error(&e) {
            return None;
        }
        let (start, end) = token_at(&patched, &e)?;
        let token = patched.get(start..end)?;
        let (offset, message) = underscore_error(token)?;
        let line_start = patched.get(..start)?.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = u32::try_from(start - line_start + 1).ok()?;
        lazy.push(LazyNumber { row: e.line, column, message, error_column: column.saturating_add(u32::try_from(offset).ok()?) });
        let cleaned: Vec<u8> = token.iter().copied().filter(|b| *b != b'_').collect();
        let pad = token.len() - cleaned.len();
        patched.splice(start..end, cleaned.into_iter().chain(std::iter::repeat_n(b' ', pad)));
        current = parse(path, &patched);
    }
}

#[cfg(feature = "go-toml-syntax")]
fn is_underscore_error(e: &ParseError) -> bool {
    matches!(&e.kind, ParseErrorKind::Other { message } if message.starts_with("`_` may only go between digits"))
}

#[cfg(feature = "go-toml-syntax")]
/// The byte range of the number the error at `e` (1-based line, column in characters)
/// points into.
fn token_at(text: &[u8], e: &ParseError) -> Option<(usize, usize)> {
    let line_start = super::parse::line_start(text, e.line)?;
    let line_end = text.get(line_start..)?.iter().position(|b| *b == b'\n').map_or(text.len(), |i| line_start + i);
    let line = std::str::from_utf8(text.get(line_start..line_end)?).ok()?;
    let at = line.char_indices().nth(e.column.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i);
    let b = line.as_bytes();
    let part = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-');
    let mut start = at.min(b.len());
    while start > 0 && b.get(start - 1).copied().is_some_and(part) {
        start -= 1;
    }
    let mut end = at.min(b.len());
    while b.get(end).copied().is_some_and(part) {
        end += 1;
    }
    (start < end).then_some((line_start + start, line_start + end))
}

#[cfg(feature = "go-toml-syntax")]
/// go-toml v2.2's `checkAndRemoveUnderscoresIntegers` / `…Floats` on a number as
/// written: the byte offset its highlight starts at and its message, or `None` when
/// the underscores are fine.
pub fn underscore_error(token: &[u8]) -> Option<(usize, &'static str)> {
    let prefixed = token.len() > 2 && token.first() == Some(&b'0') && matches!(token.get(1), Some(b'x' | b'o' | b'b'));
    let float = !prefixed && token.iter().any(|c| matches!(c, b'.' | b'e' | b'E'));
    if float {
        return float_error(token);
    }
    let (base, b) = if prefixed { (2, token.get(2..)?) } else { (0, token) };
    integer_error(b).map(|(i, m)| (base + i, m))
}

#[cfg(feature = "go-toml-syntax")]
fn integer_error(b: &[u8]) -> Option<(usize, &'static str)> {
    let start = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if b.len() == start {
        return None;
    }
    if b.get(start) == Some(&b'_') {
        return Some((start, "number cannot start with underscore"));
    }
    if b.last() == Some(&b'_') {
        return Some((b.len() - 1, "number cannot end with underscore"));
    }
    let first = b.iter().position(|c| *c == b'_')?;
    let mut before = false;
    for (i, c) in b.iter().enumerate().skip(first + 1) {
        if *c == b'_' {
            if !before {
                return Some((i - 1, "number must have at least one digit between underscores"));
            }
            before = false;
        } else {
            before = true;
        }
    }
    None
}

#[cfg(feature = "go-toml-syntax")]
fn float_error(b: &[u8]) -> Option<(usize, &'static str)> {
    if b.first() == Some(&b'_') {
        return Some((0, "number cannot start with underscore"));
    }
    if b.last() == Some(&b'_') {
        return Some((b.len() - 1, "number cannot end with underscore"));
    }
    b.iter().position(|c| *c == b'_')?;
    let mut before = false;
    for (i, c) in b.iter().enumerate() {
        let next = b.get(i + 1).copied();
        match c {
            b'_' => {
                if !before {
                    return Some((i.saturating_sub(1), "number must have at least one digit between underscores"));
                }
                if matches!(next, Some(b'e' | b'E')) {
                    return Some((i + 1, "cannot have underscore before exponent"));
                }
                before = false;
            }
            b'+' | b'-' => before = false,
            b'e' | b'E' => {
                if next == Some(b'_') {
                    return Some((i + 1, "cannot have underscore after exponent"));
                }
            }
            b'.' => {
                if next == Some(b'_') {
                    return Some((i + 1, "cannot have underscore after decimal point"));
                }
                if i > 0 && b.get(i - 1) == Some(&b'_') {
                    return Some((i - 1, "cannot have underscore before decimal point"));
                }
            }
            _ => before = true,
        }
    }
    None
}

#[cfg(feature = "go-toml-syntax")]
/// What go-toml v1 (containerd 1.x: v1.9.5 in the 1.6.38 and 1.7.34 builds, Debian's
/// 1.6.20 alike, measured on all three) makes of a file the lab parser refused for a
/// number's leading zero. Its lexer takes any run of digits, `_`, a sign, `.` and an
/// exponent; its parser (`parseRvalue`) takes the underscores out and then:
/// - an integer of three or more characters starting with `0` and not `0x`/`0o`/`0b`
///   panics `invalid base`, which `LoadBytes` returns without a position (`000`,
///   `00_1`); a shorter one or a signed one is `strconv.ParseInt`'s (`00` is 0, `-01`
///   is −1, `+007` is 7);
/// - a float is `strconv.ParseFloat`'s (`01.5` is 1.5).
///
/// Each such number is written back in place by its value (no longer than it was,
/// padded with spaces, so every position stays) and the file read again.
pub enum V1Reading {
    /// The file as go-toml v1 reads it.
    Table(Table),
    /// Where go-toml v1 stops on one of those numbers.
    Failure(LoadError),
    /// The next error after the numbers go-toml v1 takes (for the caller to word).
    Then(ParseError),
}

#[cfg(feature = "go-toml-syntax")]
/// [`V1Reading`] of `text` (parsed by the lab into `parsed`); `None` when the lab
/// parser's first error is not a number's leading zero, or after [`MAX_LAZY`] of them.
pub fn read_v1_leading_zeros(version: &Version, path: &str, text: &[u8], parsed: &Result<Table, ParseError>) -> Option<V1Reading> {
    // v1.9.5 reads a positive integer `ParseInt` refuses again with `ParseUint`;
    // Debian's 1.6.20 has an older go-toml v1 that does not (`syntax_exact`).
    let parse_uint = version.recorded() != "1.6.20";
    let mut patched = text.to_vec();
    let mut current = parsed.clone();
    let mut read = 0;
    loop {
        let e = match current {
            Ok(table) if read > 0 => return Some(V1Reading::Table(table)),
            Ok(_) => return None,
            Err(e) if !matches!(&e.kind, ParseErrorKind::Other { message } if message.starts_with("unexpected leading zero")) => {
                return (read > 0).then_some(V1Reading::Then(e));
            }
            Err(e) => e,
        };
        if read >= MAX_LAZY {
            return None;
        }
        read += 1;
        let (start, end) = token_at(&patched, &e)?;
        let token = std::str::from_utf8(patched.get(start..end)?).ok()?.to_string();
        if !token.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'_' | b'+' | b'-' | b'.' | b'e' | b'E')) {
            return None;
        }
        let line_start = patched.get(..start)?.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = u32::try_from(String::from_utf8_lossy(patched.get(line_start..start)?).chars().count() + 1).ok()?;
        let at = Origin { file: path.into(), line: e.line, column };
        let fail = |message: String| Some(V1Reading::Failure(LoadError { message, code: LoadErrorCode::Syntax, at: Some(at.clone()), dump_ignores: false, log: None }));
        let positioned = |text: &str| fail(format!("failed to load TOML: {path}: ({}, {column}): {text}", e.line));
        let cleaned: String = token.chars().filter(|c| *c != '_').collect();
        let float = token.contains(['.', 'e', 'E']);
        if !float && cleaned.len() >= 3 && cleaned.starts_with('0') {
            return fail(format!("failed to load TOML: {path}: invalid base"));
        }
        if v1_invalid_underscore(&token) {
            return positioned("invalid use of _ in number");
        }
        let value = if float {
            match cleaned.parse::<f64>() {
                Ok(f) if f.is_finite() => v1_float_without_leading_zeros(&cleaned),
                Ok(_) => return positioned(&format!("strconv.ParseFloat: parsing \"{cleaned}\": value out of range")),
                Err(_) => return None,
            }
        } else {
            match cleaned.parse::<i64>() {
                Ok(n) => n.to_string(),
                // `ParseUint` refuses a sign.
                Err(_) if cleaned.starts_with('+') && parse_uint => return positioned(&format!("strconv.ParseUint: parsing \"{cleaned}\": invalid syntax")),
                Err(_) => return positioned(&format!("strconv.ParseInt: parsing \"{cleaned}\": value out of range")),
            }
        };
        let pad = token.len().checked_sub(value.len())?;
        patched.splice(start..end, value.bytes().chain(std::iter::repeat_n(b' ', pad)));
        current = parse(path, &patched);
    }
}

#[cfg(feature = "go-toml-syntax")]
/// go-toml v1's `numberContainsInvalidUnderscore`: an `_` not after a digit, or last.
fn v1_invalid_underscore(token: &str) -> bool {
    let b = token.as_bytes();
    b.iter().enumerate().any(|(i, c)| *c == b'_' && !(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_digit) && i + 1 < b.len()))
}

#[cfg(feature = "go-toml-syntax")]
/// A float's text with its whole part's leading zeros dropped (`-00.5` → `-0.5`,
/// `01e1` → `1e1`): the same value, as the lab parser takes it.
fn v1_float_without_leading_zeros(cleaned: &str) -> String {
    let (sign, rest) = match cleaned.strip_prefix(['+', '-']) {
        Some(rest) => cleaned.split_at(cleaned.len() - rest.len()),
        None => ("", cleaned),
    };
    let digits = rest.len() - rest.trim_start_matches('0').len();
    let keep = rest.get(digits..).filter(|r| r.starts_with(|c: char| c.is_ascii_digit())).unwrap_or_else(|| rest.get(digits.saturating_sub(1)..).unwrap_or(rest));
    format!("{sign}{keep}")
}

#[cfg(all(test, feature = "go-toml-syntax"))]
mod tests {
    use super::*;

    /// go-toml v2.2.3's own cases (`unmarshaler_test.go`: double underscore, starts and
    /// ends with one; floats around the point and the exponent).
    #[test]
    fn underscores_as_go_toml_checks_them() {
        let cases: &[(&str, Option<(usize, &str)>)] = &[
            ("1__000", Some((1, "number must have at least one digit between underscores"))),
            ("1_000", None),
            ("1_", Some((1, "number cannot end with underscore"))),
            ("+_1", Some((1, "number cannot start with underscore"))),
            ("0x_1", Some((2, "number cannot start with underscore"))),
            ("0xdead__beef", Some((6, "number must have at least one digit between underscores"))),
            ("1_.5", Some((1, "cannot have underscore before decimal point"))),
            ("1._5", Some((2, "cannot have underscore after decimal point"))),
            ("1_e5", Some((2, "cannot have underscore before exponent"))),
            ("1e_5", Some((2, "cannot have underscore after exponent"))),
            ("1.5_5e1_0", None),
        ];
        for (token, want) in cases {
            assert_eq!(underscore_error(token.as_bytes()), *want, "{token}");
        }
    }

    /// go-toml v1 on a number with a leading zero, as containerd 1.6.20, 1.6.38 and
    /// 1.7.34 printed it for `max_concurrent_downloads = …` (line 3, the value at
    /// column 30); `None` where they differ (1.6.20 has no `ParseUint`).
    #[test]
    fn go_toml_v1_reads_leading_zeros_as_containerd_1x_did() {
        use super::super::value::Value;
        let cases: &[(&str, Result<Value, &str>, Option<&str>)] = &[
            ("00", Ok(Value::Integer(0)), None),
            ("-01", Ok(Value::Integer(-1)), None),
            ("+007", Ok(Value::Integer(7)), None),
            ("0_0", Ok(Value::Integer(0)), None),
            ("-0_1", Ok(Value::Integer(-1)), None),
            ("01.5", Ok(Value::Float(1.5)), None),
            ("-00.5", Ok(Value::Float(-0.5)), None),
            ("01e1", Ok(Value::Float(10.0)), None),
            ("000", Err("failed to load TOML: /f: invalid base"), None),
            ("0_01", Err("failed to load TOML: /f: invalid base"), None),
            ("01e999", Err("failed to load TOML: /f: (3, 30): strconv.ParseFloat: parsing \"01e999\": value out of range"), None),
            ("-09223372036854775809", Err("failed to load TOML: /f: (3, 30): strconv.ParseInt: parsing \"-09223372036854775809\": value out of range"), None),
            (
                "+09223372036854775808",
                Err("failed to load TOML: /f: (3, 30): strconv.ParseUint: parsing \"+09223372036854775808\": invalid syntax"),
                Some("failed to load TOML: /f: (3, 30): strconv.ParseInt: parsing \"+09223372036854775808\": value out of range"),
            ),
        ];
        for (number, want, on_1_6_20) in cases {
            let text = format!("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  max_concurrent_downloads = {number}\n");
            let parsed = parse("/f", text.as_bytes());
            for v in ["1.6.20", "1.6.38", "1.7.34"] {
                let version = Version::parse(v).unwrap();
                let got = match read_v1_leading_zeros(&version, "/f", text.as_bytes(), &parsed) {
                    Some(V1Reading::Table(t)) => Ok(t.get_path(&["plugins", "io.containerd.grpc.v1.cri", "max_concurrent_downloads"]).unwrap().value.clone()),
                    Some(V1Reading::Failure(f)) => Err(f.message),
                    other => panic!("{number} on {v}: {}", if other.is_none() { "not read" } else { "another error" }),
                };
                let want = match (v, on_1_6_20) {
                    ("1.6.20", Some(m)) => Err((*m).to_string()),
                    _ => want.clone().map_err(str::to_string),
                };
                assert_eq!(got, want, "{number} on {v}");
            }
        }
        // A later error is the caller's to word; other errors are not this reading's.
        let text = b"a = 00\nb = \n";
        assert!(matches!(read_v1_leading_zeros(&Version::parse("1.7.34").unwrap(), "/f", text, &parse("/f", text)), Some(V1Reading::Then(e)) if e.line == 2));
        let text = b"a = 1\nb = \n";
        assert!(read_v1_leading_zeros(&Version::parse("1.7.34").unwrap(), "/f", text, &parse("/f", text)).is_none());
    }

    /// A file with such numbers reads with each number's value and position; the
    /// numbers come back with go-toml's error.
    #[test]
    fn reads_leniently_and_keeps_positions() {
        let text = b"a = 1__000 # c\n[t]\n  b = [2__0, 3]\n  c = 4\n";
        let parsed = parse("/f", text);
        assert!(parsed.is_err());
        let (table, lazy) = read_lenient("/f", text, &parsed).unwrap();
        assert_eq!(table.get("a").and_then(|n| n.as_int()), Some(1000));
        assert_eq!(table.get_path(&["t", "c"]).and_then(|n| n.as_int()), Some(4));
        let at: Vec<(u32, u32, u32)> = lazy.iter().map(|l| (l.row, l.column, l.error_column)).collect();
        assert_eq!(at, vec![(1, 5, 6), (3, 8, 9)]);
        // Anything else wrong: the first error stands.
        let bad = b"a = 1__000\nb = \n";
        assert!(read_lenient("/f", bad, &parse("/f", bad)).is_none());
    }
}
