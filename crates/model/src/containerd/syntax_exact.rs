//! containerd's own verdict on a file's syntax (compiled with the feature
//! `go-toml-syntax`): go-toml v2's parsers decide on 2.x (`gotoml2`, `gotoml24`), and
//! the lab parser's error is reworded and re-placed as go-toml v1 (1.x) or v2 report
//! it. [`super::syntax`] says where this is used and what stands in without it.

use super::gonumbers::V1Reading;
use super::gotoml2::{self, Dialect};
use super::gowords::value_position;
use super::load::{LoadError, LoadErrorCode};
use super::log::LogLine;
use super::parse::{ParseError, ParseErrorKind};
use super::value::{Origin, Table, Value};
use super::version::{Line, Version};

/// What reading `path` (its bytes as the version reads them: `text`, parsed by the
/// lab into `parsed`) fails with, as containerd `version` reports it.
pub fn failure(version: &Version, path: &str, text: &[u8], parsed: &Result<Table, ParseError>) -> Option<LoadError> {
    if let Some(dialect) = go_toml_v2_dialect(version) {
        // go-toml v2 finds (and words) syntax errors its own way: its parser decides.
        if let Some(e) = gotoml2::first_error(text, dialect) {
            return Some(signed_leading_zero_before(version, path, text, (e.row, e.column)).unwrap_or_else(|| go_toml_v2_syntax_error(path, e)));
        }
    }
    match parsed {
        // go-toml v2.2–2.3 let a number's stray underscores through the parser; the
        // decoder refuses them where it reads them (`load`, `gonumbers`).
        Err(_) if super::imports::defers_number_checks(version) && super::gonumbers::read_lenient(path, text, parsed).is_some() => None,
        // go-toml v1 takes a number's leading zero the lab parser refuses (`gonumbers`).
        Err(e) if version.is_1x() => match super::gonumbers::read_v1_leading_zeros(version, path, text, parsed) {
            Some(V1Reading::Table(table)) => v1_local_date_error(path, text, &table),
            Some(V1Reading::Failure(failure)) => Some(failure),
            Some(V1Reading::Then(next)) => Some(syntax_error(version, path, text, &next)),
            None => Some(syntax_error(version, path, text, e)),
        },
        Err(e) => Some(syntax_error(version, path, text, e)),
        Ok(table) if version.is_1x() => v1_local_date_error(path, text, table),
        Ok(_) => None,
    }
}

/// go-toml v1's lexer wants a time after a date: a local date (`Started = 1979-05-27`)
/// followed by anything but a space, `T` or the end of the file is an error at the
/// character after it (printed as is, a newline included). Inside an array the parser
/// meets that error where it wants a comma (`parseArray`): `missing comma` at the same
/// place (measured on 1.6.20, 1.6.38 and 1.7.34: `[1979-05-27]`, `[1979-05-27, 1]`; a
/// space after the date reads). A date in a table inside an array is not looked at.
fn v1_local_date_error(path: &str, text: &[u8], table: &Table) -> Option<LoadError> {
    fn is_local_date(v: &Value) -> bool {
        matches!(v, Value::Datetime(d) if d.len() == 10 && !d.contains([':', 'T', 't', ' ']))
    }
    fn walk_array(items: &[super::value::Node], out: &mut Vec<(Origin, bool)>) {
        for n in items {
            match &n.value {
                Value::Array(inner) => walk_array(inner, out),
                v if is_local_date(v) => out.extend(n.origin.clone().map(|o| (o, true))),
                _ => {}
            }
        }
    }
    fn walk(t: &Table, out: &mut Vec<(Origin, bool)>) {
        for (_, n) in &t.entries {
            match &n.value {
                Value::Table(sub) => walk(sub, out),
                Value::Array(items) => walk_array(items, out),
                v if is_local_date(v) => out.extend(n.origin.clone().map(|o| (o, false))),
                _ => {}
            }
        }
    }
    let mut dates = Vec::new();
    walk(table, &mut dates);
    crate::sort::sort_by(&mut dates, |(a, _), (b, _)| (a.line, a.column).cmp(&(b.line, b.column)));
    for (at, in_array) in dates {
        // An array's element carries its own place; an entry its key's.
        let (line, column) = if in_array { (at.line, at.column) } else { value_position(text, &at) };
        let after = (column as usize).saturating_sub(1) + 10;
        let line_text = String::from_utf8_lossy(text).lines().nth(line.saturating_sub(1) as usize).map(str::to_string).unwrap_or_default();
        let is_last_line = !String::from_utf8_lossy(text).lines().skip(line as usize).any(|_| true) && !text.ends_with(b"\n");
        let next = line_text.as_bytes().get(after).copied().map(char::from).or(if is_last_line { None } else { Some('\n') });
        match next {
            None | Some(' ' | 'T') => continue,
            Some(c) => {
                let message = if in_array {
                    format!("failed to load TOML: {path}: ({line}, {}): missing comma", after + 1)
                } else {
                    format!("failed to load TOML: {path}: ({line}, {}): parsing error: incorrect date/time separation character: {c}", after + 1)
                };
                return Some(LoadError { message, code: LoadErrorCode::Syntax, at: Some(at), dump_ignores: false, log: None });
            }
        }
    }
    None
}

/// go-toml v1 names a key defined twice by its whole path: the parts of the `[table]`
/// it is in (the last header above it), unquoted and joined by dots as go-toml v1
/// joins its current table's key parts, then the key.
fn v1_key_path(text: &[u8], line: u32, key: &str) -> String {
    let text = String::from_utf8_lossy(text);
    let header = text
        .lines()
        .take(line.saturating_sub(1) as usize)
        .filter_map(|l| {
            let t = l.trim_start();
            let inner = t.strip_prefix("[[").or_else(|| t.strip_prefix('['))?;
            let end = inner.find(']')?;
            inner.get(..end).map(str::trim)
        })
        .last();
    match header {
        Some(h) if !h.is_empty() => format!("{}.{key}", unquoted_key_parts(h).join(".")),
        _ => key.to_string(),
    }
}

/// The parts of a dotted key as written (`a."b.c".'d'`), each unquoted: `["a", "b.c", "d"]`
/// (a basic string's `\"` and `\\` unescaped; blanks around the dots dropped).
fn unquoted_key_parts(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut chars = key.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        q => cur.push(q),
                    }
                }
            }
            '\'' => cur.extend(chars.by_ref().take_while(|q| *q != '\'')),
            '.' => parts.push(std::mem::take(&mut cur)),
            ' ' | '\t' => {}
            c => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

/// The go-toml v2 parser a 2.x line reads its files with (`None`: 1.x, go-toml v1).
fn go_toml_v2_dialect(version: &Version) -> Option<Dialect> {
    match version.line {
        Line::V1_6 | Line::V1_7 => None,
        Line::V2_0 | Line::V2_1 | Line::V2_2 => Some(Dialect::V2_2),
        Line::V2_3 => Some(Dialect::V2_3),
        Line::V2_4 | Line::Main => Some(Dialect::V2_4),
    }
}

/// A go-toml v2 syntax error as containerd 2.x logs and returns it.
fn go_toml_v2_syntax_error(path: &str, e: gotoml2::SyntaxError) -> LoadError {
    let log = LogLine::new("error", "Failure unmarshaling TOML")
        .field("column", e.column.to_string())
        .field("error", format!("toml: {}", e.message))
        .field("file", path)
        .field("row", e.row.to_string());
    LoadError {
        message: format!("failed to unmarshal TOML at row {} column {}: toml: {}", e.row, e.column, e.message),
        code: LoadErrorCode::Syntax,
        at: Some(Origin { file: path.into(), line: e.row, column: e.column }),
        dump_ignores: false,
        log: Some(Box::new(log)),
    }
}

/// go-toml v1's wording and position for the syntax errors learners make most
/// (checked against Debian's 1.6.20); anything else keeps `toml_edit`'s text.
fn go_toml_v1_syntax(e: &ParseError, message: &str) -> (u32, u32, String) {
    let line_text = e.line_text.as_str();
    let char_at = |col: u32| line_text.chars().nth(col.saturating_sub(1) as usize);
    if message.starts_with("string values must be quoted") {
        let c = char_at(e.column).map_or(String::new(), |c| c.to_string());
        return (e.line, e.column, format!("no value can start with {c}"));
    }
    if message.starts_with("unclosed table") {
        let indent = line_text.chars().take_while(|c| c.is_whitespace()).count();
        return (e.line, to_u32(indent) + 2, "unexpected token unclosed table key, was expecting a table key".into());
    }
    if message.starts_with("invalid literal string") {
        let upto: String = line_text.chars().take(e.column.saturating_sub(1) as usize).collect();
        let quote = upto.rfind('\'').map_or(0, |b| upto.get(..b).map_or(0, |s| s.chars().count()));
        return (e.line, to_u32(quote) + 2, "unclosed string".into());
    }
    if message.starts_with("unclosed array") {
        return (e.line + 1, 1, "unterminated array".into());
    }
    if message.starts_with("unclosed inline table") {
        return (e.line + 1, 1, "unterminated inline table".into());
    }
    if message.starts_with("key with no value") {
        // `a b = 1`: go-toml v1 lexes `b` as a second key where it wanted `=`.
        let rest: String = line_text.chars().skip(e.column.saturating_sub(1) as usize).collect();
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').collect();
        let then_equals = rest.get(word.len()..).is_some_and(|r| r.trim_start().starts_with('='));
        if !word.is_empty() && then_equals {
            return (e.line, e.column, format!("was expecting token =, but got \"{word}\" instead"));
        }
        // `abc` alone: the first key runs into the line's end, an error token where the
        // parser wanted a key.
        let trimmed = line_text.trim();
        if !trimmed.is_empty() && trimmed.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            let start = line_text.chars().take_while(|c| c.is_whitespace()).count();
            return (e.line, to_u32(start) + 1, "parsing error: keys cannot contain new lines".into());
        }
        return (e.line, e.column, "was expecting token =, but got keys cannot contain new lines instead".into());
    }
    if message.starts_with("`_` may only go between digits") {
        // go-toml v1 lexes the number whole, then refuses it at its first character.
        let upto: Vec<char> = line_text.chars().take(e.column.saturating_sub(1) as usize).collect();
        let start = upto.iter().rposition(|c| c.is_whitespace() || matches!(c, '=' | '[' | ',' | '{')).map_or(0, |i| i + 1);
        return (e.line, to_u32(start) + 1, "invalid use of _ in number".into());
    }
    let in_header = line_text.trim_start().starts_with('[');
    let c = char_at(e.column).map_or(String::new(), |c| c.to_string());
    if message.starts_with("unquoted keys cannot be empty") {
        let text = if in_header { format!("unexpected token \"{c}\", was expecting a table key") } else { format!("unexpected token {c}") };
        return (e.line, e.column, text);
    }
    if message.starts_with("invalid unquoted key") && !in_header {
        // go-toml v1 lexes any character that is not a space, `[` or `=` as the start
        // of a key, then refuses the first one a bare key cannot hold, at the key's start
        // (a byte that is not UTF-8 is read as U+FFFD; measured on 1.6.20, 1.6.38, 1.7.34).
        let start = line_text.chars().take_while(|c| c.is_whitespace()).count();
        return (e.line, to_u32(start) + 1, format!("parsing error: keys cannot contain {c} character"));
    }
    if message.starts_with("invalid boolean") {
        return (e.line, e.column, format!("no value can start with {c}"));
    }
    if message.starts_with("missing escaped value") {
        // go-toml v1 points at the string's first character.
        let upto: String = line_text.chars().take(e.column.saturating_sub(1) as usize).collect();
        let quote = upto.rfind('"').map_or(0, |b| upto.get(..b).map_or(0, |s| s.chars().count()));
        return (e.line, to_u32(quote) + 2, format!("invalid escape sequence: \\{c}"));
    }
    if message.starts_with("unexpected key or value") {
        if in_header {
            return (e.line, e.column, "parsing error: keys cannot contain new lines".into());
        }
        // The lexer stops at the token after the first value: `a = 1 b = 2` → `b`.
        let chars: Vec<char> = line_text.chars().collect();
        let mut i = chars.iter().position(|c| *c == '=').map_or(0, |p| p + 1);
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        while chars.get(i).is_some_and(|c| !c.is_whitespace()) {
            i += 1;
        }
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        let c = chars.get(i).map_or(String::new(), |c| c.to_string());
        return (e.line, to_u32(i) + 1, format!("parsing error: no value can start with {c}"));
    }
    (e.line, e.column, message.to_string())
}

/// The number the error at `column` (1-based, in characters) of `line_text` points
/// into: its first column and its text.
fn number_token(line_text: &str, column: u32) -> (u32, String) {
    let chars: Vec<char> = line_text.chars().collect();
    let part = |c: &char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '+' | '-');
    let at = (column.saturating_sub(1) as usize).min(chars.len());
    let mut start = at;
    while start > 0 && chars.get(start - 1).is_some_and(part) {
        start -= 1;
    }
    let token: String = chars.iter().skip(start).take_while(|c| part(c)).collect();
    (to_u32(start) + 1, token)
}

/// A number toml_edit refuses for its size, as go-toml words it (measured on 1.6.20,
/// 1.7.34, 2.0.11, 2.3.4, 2.4.2): `strconv`'s error with the number's digits (an
/// integer's without its prefix, underscores taken out), at the number's first
/// column. `None` where go-toml v1.9.5 (1.6.38, 1.7.34) takes what the lab parser
/// refuses: a positive integer up to 2^64 − 1, read with `ParseUint`, wraps round.
fn number_range_error(version: &Version, e: &ParseError, message: &str) -> Option<(u32, String)> {
    let integer = message.starts_with("integer number overflowed");
    let float = message.starts_with("floating-point number overflowed");
    if !integer && !float {
        return None;
    }
    let (start, token) = number_token(&e.line_text, e.column);
    let clean: String = token.chars().filter(|c| *c != '_').collect();
    if float {
        let text = format!("strconv.ParseFloat: parsing \"{clean}\": value out of range");
        return Some((start, if version.is_1x() { text } else { format!("unable to parse float: {text}") }));
    }
    let (kind, digits) = match clean.get(..2) {
        Some("0x") => ("hexadecimal", clean.get(2..).unwrap_or("")),
        Some("0o") => ("octal", clean.get(2..).unwrap_or("")),
        Some("0b") => ("binary", clean.get(2..).unwrap_or("")),
        _ => ("decimal", clean.as_str()),
    };
    let text = match version.line {
        // Debian's 1.6.20 has an older go-toml v1 that reads every integer with
        // `ParseInt`; v1.9.5 (the oracle's 1.6.38 and 1.7.34 builds) a positive one with
        // `ParseUint`.
        Line::V1_6 | Line::V1_7 if digits.starts_with('-') || version.recorded() == "1.6.20" => {
            format!("strconv.ParseInt: parsing \"{digits}\": value out of range")
        }
        Line::V1_6 | Line::V1_7 => {
            let radix = match kind {
                "hexadecimal" => 16,
                "octal" => 8,
                "binary" => 2,
                _ => 10,
            };
            let beyond_u64 = !u128::from_str_radix(digits, radix).is_ok_and(|n| n <= u128::from(u64::MAX));
            if !beyond_u64 || digits.starts_with('+') {
                return None;
            }
            format!("strconv.ParseUint: parsing \"{digits}\": value out of range")
        }
        Line::V2_0 | Line::V2_1 | Line::V2_2 | Line::V2_3 => format!("couldn't parse {kind} number: strconv.ParseInt: parsing \"{digits}\": value out of range"),
        Line::V2_4 | Line::Main => format!("{kind} number is too large to fit in a 64-bit signed integer"),
    };
    Some((start, text))
}

/// go-toml v2.2–2.3 (containerd 2.0–2.3) decode each expression as it is parsed, and
/// their decoder refuses a signed number's leading zero (`-01`) that their parser lets
/// through: above a syntax error at `at` (row, byte column), that comes first
/// (measured on 2.0.11, 2.1.9, 2.2.7 and 2.3.4: `-01` on row 3 and `00.5` on row 5 is
/// `leading zero not allowed on decimal number` at row 3's sign). The text before `at`
/// read by the lab parser finds it.
fn signed_leading_zero_before(version: &Version, path: &str, text: &[u8], at: (u32, u32)) -> Option<LoadError> {
    if version.is_1x() || version.line > Line::V2_3 {
        return None;
    }
    let (row, column) = at;
    let prefix = super::parse::text_before(text, row, column)?;
    let e = super::parse::parse(path, prefix).err()?;
    let leading_zero = matches!(&e.kind, ParseErrorKind::Other { message } if message.starts_with("unexpected leading zero"));
    if !leading_zero || (e.line, e.column) >= at {
        return None;
    }
    let err = syntax_error(version, path, prefix, &e);
    err.message.ends_with("leading zero not allowed on decimal number").then_some(err)
}

/// go-toml v1 on a key whose value is missing (`key =` and the end of the line, or a
/// comment): its lexer goes on past the line's end for the value (`lexRvalue`), so the
/// parser takes the next token as the value — the end of the file is `expecting a
/// value` where the file ends; a key or a table header is a token `parseRvalue` has no
/// case for, `unhandled token: "<the key or the header's text>"` without a position
/// (go-toml v1.9.5: 1.6.38, 1.7.34), which Debian's 1.6.20 (an older go-toml v1)
/// re-panics with, as it recovers a panic of an `error` as if it were a `string`
/// (measured on the three). `None` for anything else (a quoted or spaced key, `[[`, an
/// empty header): those keep the general wording.
fn v1_missing_value(version: &Version, path: &str, text: &[u8], e: &ParseError) -> Option<LoadError> {
    if !matches!(e.kind, ParseErrorKind::Other { .. }) {
        return None;
    }
    let line = e.line_text.as_str();
    let eq = line.find('=')?;
    let key = line.get(..eq)?.trim();
    let bare = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let after = line.get(eq + 1..)?.trim_start_matches([' ', '\t']);
    if !bare(key) || !(after.is_empty() || after.starts_with('#')) || (e.column as usize) <= eq {
        return None;
    }
    // The rest of the file after the key's line, as go-toml v1's `lexVoid` reads it.
    let mut at = super::parse::line_start(text, e.line.saturating_add(1)).unwrap_or(text.len());
    loop {
        match text.get(at) {
            Some(b' ' | b'\t' | b'\r' | b'\n') => at += 1,
            Some(b'#') => at = text.iter().skip(at).position(|b| *b == b'\n').map_or(text.len(), |n| at + n),
            _ => break,
        }
    }
    let rest = std::str::from_utf8(text.get(at..)?).ok()?;
    let (token_line, token_column) = position_at(text, at);
    let token = if rest.is_empty() {
        // The end of the file: where it is.
        let message = format!("failed to load TOML: {path}: ({token_line}, {token_column}): expecting a value");
        let at = Some(Origin { file: path.into(), line: token_line, column: token_column });
        return Some(LoadError { message, code: LoadErrorCode::Syntax, at, dump_ignores: false, log: None });
    } else if let Some(header) = rest.strip_prefix('[') {
        let inside = header.get(..header.find(']')?)?;
        if inside.is_empty() || inside.contains(['[', '\n']) {
            return None;
        }
        inside
    } else {
        let end = rest.find(['=', '\n', '\r'])?;
        let key = rest.get(..end)?.trim_end_matches([' ', '\t']);
        if !bare(key) || rest.get(end..)?.starts_with(['\n', '\r']) {
            return None;
        }
        key
    };
    let quoted = go_quote(token)?;
    let at = Some(Origin { file: path.into(), line: token_line, column: token_column });
    if version.recorded() == "1.6.20" {
        let message = format!("unhandled token: {quoted} [recovered]\n\tpanic: interface conversion: interface {{}} is *errors.errorString, not string");
        return Some(super::gowords::go_panic(message, at));
    }
    Some(LoadError { message: format!("failed to load TOML: {path}: unhandled token: {quoted}"), code: LoadErrorCode::Syntax, at, dump_ignores: false, log: None })
}

/// Go's `%q` of printable ASCII text (`None` for anything else).
fn go_quote(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => return None,
        }
    }
    out.push('"');
    Some(out)
}

/// The 1-based line and column (in characters, as go-toml v1 counts) of byte `at`.
fn position_at(text: &[u8], at: usize) -> (u32, u32) {
    let before = text.get(..at).unwrap_or(text);
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(before.get(line_start..).unwrap_or_default()).chars().count() + 1;
    (to_u32(line), to_u32(column))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn syntax_error(version: &Version, path: &str, text: &[u8], e: &ParseError) -> LoadError {
    let at = Some(Origin { file: path.into(), line: e.line, column: e.column });
    if e.kind == ParseErrorKind::TooDeep {
        return super::syntax::lab_error(version, path, e);
    }
    let code = LoadErrorCode::Syntax;
    if version.is_1x() {
        if let Some(missing) = v1_missing_value(version, path, text, e) {
            return missing;
        }
        let (line, col, text) = match &e.kind {
            ParseErrorKind::UnterminatedBasicString { content_column } => {
                (e.line, *content_column, "unescaped control character U+000A".to_string())
            }
            ParseErrorKind::DuplicateTable { header_column, .. } => (e.line, *header_column + 1, "duplicated tables".to_string()),
            ParseErrorKind::DuplicateKey { name } => (e.line, e.column, format!("The following key was defined twice: {}", v1_key_path(text, e.line, name))),
            ParseErrorKind::Other { message } => match number_range_error(version, e, message) {
                Some((col, text)) => (e.line, col, text),
                None => go_toml_v1_syntax(e, message),
            },
            ParseErrorKind::InvalidUtf8 | ParseErrorKind::TooDeep => (e.line, e.column, e.kind.message()),
        };
        return LoadError { message: format!("failed to load TOML: {path}: ({line}, {col}): {text}"), code, at, dump_ignores: false, log: None };
    }
    // go-toml v2 words them as `ParseErrorKind::message` does; a duplicate has no
    // position before v2.4 (containerd 2.4), which points at its key. What the v2.2–2.3
    // parser let through fails when the value is decoded (into `plugins`' interface{}).
    let mut column = e.column;
    let text = match &e.kind {
        ParseErrorKind::Other { message } if message.starts_with("`_` may only go between digits") => {
            "number must have at least one digit between underscores".to_string()
        }
        ParseErrorKind::Other { message } => match number_range_error(version, e, message) {
            Some((start, text)) => {
                column = start;
                text
            }
            // go-toml v2.2–2.3 refuse a signed number's leading zero at its sign
            // (`-01`; an unsigned one ends the value early: `gotoml2`).
            None if message.starts_with("unexpected leading zero") && version.line <= Line::V2_3 => {
                let (start, token) = number_token(&e.line_text, e.column);
                if token.starts_with(['+', '-']) {
                    column = start;
                    "leading zero not allowed on decimal number".to_string()
                } else {
                    e.kind.message()
                }
            }
            None => e.kind.message(),
        },
        kind => kind.message(),
    };
    let (line, column) = match e.kind {
        ParseErrorKind::DuplicateTable { header_column, .. } => (e.line, header_column + 1),
        _ => (e.line, column),
    };
    let duplicate = matches!(e.kind, ParseErrorKind::DuplicateTable { .. } | ParseErrorKind::DuplicateKey { .. });
    let positioned = !duplicate || version.line >= Line::V2_4;
    if positioned {
        LoadError::unmarshal_at(path, line, column, &text, code, at)
    } else {
        LoadError { message: format!("failed to unmarshal TOML: toml: {text}"), code, at, dump_ignores: false, log: None }
    }
}
