//! How Go and go-toml word what they refuse, and where they point: type conversion
//! errors as go-toml v1 (1.x) and v2 (2.x, with the Go struct field and the value's
//! row and byte column) print them, values as `%v` prints them, Go runtime panics, and
//! the positions go-toml v2 reports (a value past its key, an unknown table at its key
//! inside the header). Used by every stage that decodes: [`super::load`] (a file's own
//! fields), [`super::decode`] (plugin tables), [`super::syntax`].

use super::load::{LoadError, LoadErrorCode};
use super::log::LogLine;
use super::value::{Node, Origin, Value};
use super::version::{Line, Version};

pub(super) const STRICT: &str = "strict mode: fields in the document are missing in the target struct";

/// Go type names for conversion errors, by the default value's shape.
pub(super) fn go_type(n: &Node) -> &'static str {
    match &n.value {
        Value::String(_) => "string",
        Value::Integer(_) => "int",
        Value::Float(_) => "float64",
        Value::Boolean(_) => "bool",
        Value::Array(_) => "a slice",
        Value::Table(_) => "map",
        Value::Datetime(_) => "time.Time",
    }
}

/// go-toml's rendering of a value in a conversion error (`%v`).
pub fn go_value(n: &Node) -> String {
    match &n.value {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => go_float(*f),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => go_time(d),
        Value::Array(a) => format!("[{}]", a.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Table(t) => {
            format!("map[{}]", t.entries.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect::<Vec<_>>().join(" "))
        }
    }
}

/// A float as Go's `%v` prints it (`strconv`'s shortest `'g'`, which switches to an
/// exponent below 1e-4 and from 1e6 on: `1e-05`, `1e+06`), `+Inf`, `-Inf`, `NaN`.
fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let a = f.abs();
    if a != 0.0 && !(1e-4..1e6).contains(&a) {
        let e = crate::float::lower_exp(f);
        if let Some((m, x)) = e.split_once('e') {
            let (sign, digits) = x.strip_prefix('-').map_or(("+", x), |d| ("-", d));
            return format!("{m}e{sign}{digits:0>2}");
        }
    }
    crate::float::display(f)
}

/// An offset datetime as Go's `time.Time.String()` prints it
/// (`1979-05-27 07:32:00 +0000 UTC`); other datetimes as written.
fn go_time(d: &str) -> String {
    // go-toml v1's `LocalTime.String()` writes a fraction with all nine digits.
    let local = |t: &str| match t.split_once('.') {
        Some((hms, frac)) => format!("{hms}.{:0<9}", frac.get(..9).unwrap_or(frac)),
        None => t.to_string(),
    };
    let Some((date, rest)) = d.split_once(['T', 't', ' ']) else { return local(d) };
    let (time, zone) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, "+0000 UTC".to_string())
    } else if let Some(i) = rest.rfind(['+', '-']).filter(|i| *i >= 8) {
        let (t, off) = rest.split_at(i);
        let off = off.replace(':', "");
        (t, format!("{off} {off}"))
    } else {
        return format!("{date}T{}", local(rest));
    };
    // `time.Time.String()` trims a fraction's trailing zeros.
    let time = match time.split_once('.') {
        Some((hms, frac)) if frac.trim_end_matches('0').is_empty() => hms.to_string(),
        Some((hms, frac)) => format!("{hms}.{}", frac.trim_end_matches('0')),
        None => time.to_string(),
    };
    format!("{date} {time} {zone}")
}

/// Does `value` fit a field whose default is `default`? (go-toml converts int→int,
/// string→string; it refuses int→float, float→int, anything→bool but bool.)
pub fn fits(default: &Node, value: &Node) -> bool {
    matches!(
        (&default.value, &value.value),
        (Value::String(_), Value::String(_))
            | (Value::Integer(_), Value::Integer(_))
            | (Value::Float(_), Value::Float(_))
            | (Value::Boolean(_), Value::Boolean(_))
            | (Value::Array(_), Value::Array(_))
            | (Value::Table(_), Value::Table(_))
    )
}

/// go-toml v1's `%T` of a value: a datetime by its kind (`toml.LocalTime`,
/// `toml.LocalDateTime`, `time.Time`; measured on 1.6.20 and 1.7.34).
pub(super) fn v1_type_name(v: &Node) -> &'static str {
    match &v.value {
        Value::Datetime(d) => super::gonames::datetime_type(d),
        _ => v.type_name(),
    }
}

/// A conversion error as each go-toml words it.
pub fn type_error(version: &Version, value: &Node, want: &str, in_plugin: bool) -> LoadError {
    let (line, col) = value.origin.as_ref().map_or((1, 1), |o| (o.line, o.column));
    let message = if version.is_1x() {
        let prefix = if in_plugin { String::new() } else { "failed to unmarshal TOML: ".to_string() };
        // go-toml v1 words every array-into-non-slice failure this way.
        let want = if matches!(value.value, Value::Array(_)) { "a slice" } else { want };
        format!("{prefix}({line}, {col}): Can't convert {}({}) to {want}", go_value(value), v1_type_name(value))
    } else {
        format!("failed to unmarshal TOML at row {line} column {col}: toml: cannot decode TOML {} into a Go value of type {want}", super::gonames::toml_kind(value))
    };
    LoadError { message, code: LoadErrorCode::Type, at: value.origin.clone(), dump_ignores: false, log: None }
}

/// Where a 2.x type error happened: the Go struct field, and for a file's own
/// fields (not a plugin's: those are decoded from a re-encoded copy) the row and byte
/// column of the value.
pub struct GoField {
    pub owner: &'static str,
    pub field: String,
    pub go_type: String,
    pub at: Option<(u32, u32)>,
}

/// A Go runtime panic as the model reports it (stderr `panic: <message>`, exit 2).
pub fn go_panic(message: String, at: Option<Origin>) -> LoadError {
    LoadError { message, code: LoadErrorCode::GoPanic, at, dump_ignores: false, log: None }
}

/// A conversion error as go-toml v2 (containerd 2.x) words it; a datetime into a
/// field of another type panics inside go-toml v2.2 (`reflect.Set`, 2.0–2.2).
pub fn type_error_go(version: &Version, value: &Node, go: GoField) -> LoadError {
    if let Value::Datetime(d) = &value.value {
        if version.line <= Line::V2_2 {
            let t = super::gonames::datetime_type(d);
            return go_panic(format!("reflect.Set: value of type {t} is not assignable to type {}", go.go_type), value.origin.clone());
        }
    }
    let text = format!(
        "toml: cannot decode TOML {} into struct field {}.{} of type {}",
        super::gonames::toml_kind(value),
        go.owner,
        go.field,
        go.go_type
    );
    match go.at {
        Some(at) => positioned_type_error(value, text, at),
        None => LoadError { message: text, code: LoadErrorCode::Type, at: value.origin.clone(), dump_ignores: false, log: None },
    }
}

/// A go-toml v2 decode error with its position, as containerd 2.x logs and returns it.
fn positioned_type_error(value: &Node, text: String, (row, column): (u32, u32)) -> LoadError {
    let file = value.origin.as_ref().map_or_else(String::new, |o| o.file.to_string());
    let log = LogLine::new("error", "Failure unmarshaling TOML")
        .field("column", column.to_string())
        .field("error", text.clone())
        .field("file", file)
        .field("row", row.to_string());
    LoadError {
        message: format!("failed to unmarshal TOML at row {row} column {column}: {text}"),
        code: LoadErrorCode::Type,
        at: value.origin.clone(),
        dump_ignores: false,
        log: Some(Box::new(log)),
    }
}

/// A type error in a file's own (server config) fields: go-toml v1's words on 1.x,
/// v2's with the Go field and the value's position on 2.x.
pub(super) fn file_type_error(version: &Version, text: &[u8], value: &Node, want_v1: &str, owner: &'static str, key: &str, default: Option<&Node>) -> LoadError {
    if version.is_1x() {
        return type_error(version, value, want_v1, false);
    }
    let field = super::gonames::field_name(owner, key);
    let go_type = super::gonames::go_type(owner, key, default);
    let at = value.origin.as_ref().map(|o| value_position(text, o));
    let inline = at.is_some_and(|(row, column)| byte_at(text, row, column) == Some(b'{'));
    if version.line <= Line::V2_3 {
        // The go-toml v2 of 2.0–2.3 words these before naming the field (measured on
        // 2.0.11–2.3.4): a boolean or float by the target's Go kind, an inline table
        // likewise; an array without a position; a datetime (2.3; 2.0–2.2 panic) at
        // row 1 column 1 whatever its line.
        let kind = super::gonames::go_kind(&go_type);
        let early = match &value.value {
            Value::Boolean(b) => Some(format!("toml: cannot assign boolean to a {b}")),
            Value::Float(_) => Some(format!("toml: float cannot be assigned to {kind}")),
            Value::Table(_) if inline => Some(format!("toml: cannot store inline table in Go type {kind}")),
            _ => None,
        };
        if let (Some(text), Some(at)) = (early, at) {
            return positioned_type_error(value, text, at);
        }
        if matches!(value.value, Value::Array(_)) {
            let go = GoField { owner, field, go_type, at: None };
            let mut e = type_error_go(version, value, go);
            e.message = format!("failed to unmarshal TOML: {}", e.message);
            return e;
        }
        if matches!(value.value, Value::Datetime(_)) && version.line == Line::V2_3 {
            return type_error_go(version, value, GoField { owner, field, go_type, at: Some((1, 1)) });
        }
    } else if inline {
        let text = format!("toml: cannot decode TOML inline table into struct field {owner}.{field} of type {go_type}");
        if let Some(at) = at {
            return positioned_type_error(value, text, at);
        }
    }
    type_error_go(version, value, GoField { owner, field, go_type, at })
}

#[cfg(feature = "go-toml-syntax")]
/// go-toml v2.4 (containerd 2.4) on a `timeouts` entry that is not a string: under a
/// `[timeouts]` header its decoder starts at the map, so it names the element type
/// alone (`cannot decode TOML array into string`); through a dotted key or an inline
/// table from the root it names the struct field with the element type (`… into
/// struct field config.Config.Timeouts of type string`; v2.2–2.3 name the map type).
/// `timeouts_at` is where the `timeouts` table was written. `None` for a table value
/// (its own wordings).
pub(super) fn timeouts_entry_error_v24(text: &[u8], timeouts_at: Option<&Origin>, value: &Node) -> Option<LoadError> {
    let at = value_position(text, value.origin.as_ref()?);
    let inline = byte_at(text, at.0, at.1) == Some(b'{');
    if matches!(value.value, Value::Table(_)) && !inline {
        return None;
    }
    let kind = if inline { "inline table" } else { super::gonames::toml_kind(value) };
    let header = timeouts_at.is_some_and(|o| {
        let line = text.split(|b| *b == b'\n').nth(o.line.saturating_sub(1) as usize).unwrap_or(&[]);
        line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
    });
    let message = if header {
        format!("toml: cannot decode TOML {kind} into string")
    } else {
        format!("toml: cannot decode TOML {kind} into struct field config.Config.Timeouts of type string")
    };
    Some(positioned_type_error(value, message, at))
}

/// The byte at 1-based `row` and byte `column` of `text`.
fn byte_at(text: &[u8], row: u32, column: u32) -> Option<u8> {
    let line = text.split(|b| *b == b'\n').nth(row.checked_sub(1)? as usize)?;
    line.get(column.checked_sub(1)? as usize).copied()
}

/// Where go-toml v2 places an unknown table: at its key inside the `[header]` that
/// `at` points to (the `depth`-th dotted part), not at the `[`. `None` when `at` is
/// not a header.
pub(super) fn header_key_position(text: &[u8], at: &Origin, depth: usize) -> Option<(u32, u32)> {
    let text = std::str::from_utf8(text).ok()?;
    let line = text.split('\n').nth(at.line.saturating_sub(1) as usize)?;
    let (open, _) = line.char_indices().nth(at.column.saturating_sub(1) as usize)?;
    let b = line.as_bytes();
    if b.get(open) != Some(&b'[') {
        return None;
    }
    let mut i = open + 1;
    if b.get(i) == Some(&b'[') {
        i += 1;
    }
    let skip_ws = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        i
    };
    for part in 0..=depth {
        i = skip_ws(i);
        if part == depth {
            return Some((at.line, u32::try_from(i + 1).unwrap_or(u32::MAX)));
        }
        match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                i += 1;
                while let Some(&c) = b.get(i) {
                    i += if c == b'\\' && q == b'"' { 2 } else { 1 };
                    if c == q {
                        break;
                    }
                }
            }
            _ => {
                while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'_') {
                    i += 1;
                }
            }
        }
        i = skip_ws(i);
        if b.get(i) != Some(&b'.') {
            return None;
        }
        i += 1;
    }
    None
}

/// The row and byte column of the value whose key starts at `key` (go-toml v2 points
/// a type error at the value, in bytes): past the (dotted, quoted) key, `=` and blanks.
pub(super) fn value_position(text: &[u8], key: &Origin) -> (u32, u32) {
    let fallback = (key.line, key.column);
    let Ok(text) = std::str::from_utf8(text) else { return fallback };
    let Some(line) = text.split('\n').nth(key.line.saturating_sub(1) as usize) else { return fallback };
    let Some((start, _)) = line.char_indices().nth(key.column.saturating_sub(1) as usize) else { return fallback };
    let b = line.as_bytes();
    let at = |i: usize| b.get(i).copied();
    let mut i = start;
    loop {
        match at(i) {
            Some(b'"') => {
                i += 1;
                while let Some(c) = at(i) {
                    i += if c == b'\\' { 2 } else { 1 };
                    if c == b'"' {
                        break;
                    }
                }
            }
            Some(b'\'') => {
                i += 1;
                while let Some(c) = at(i) {
                    i += 1;
                    if c == b'\'' {
                        break;
                    }
                }
            }
            _ => {
                while at(i).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
                    i += 1;
                }
            }
        }
        while matches!(at(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        if at(i) == Some(b'.') {
            i += 1;
            while matches!(at(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            continue;
        }
        break;
    }
    if at(i) == Some(b'=') {
        i += 1;
        while matches!(at(i), Some(b' ' | b'\t')) {
            i += 1;
        }
    }
    (key.line, u32::try_from(i + 1).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `%v` of a float64 (`%g` with the shortest digits): an exponent of at least
    /// two digits below 1e-4 and from 1e6 on.
    #[test]
    fn floats_print_as_go_prints_them() {
        for (f, go) in [
            (1e6, "1e+06"), (1.5e-5, "1.5e-05"), (123456789.0, "1.23456789e+08"), (0.0001, "0.0001"), (999999.0, "999999"), (-2.5e10, "-2.5e+10"),
            (1e21, "1e+21"), (5e-324, "5e-324"), (0.5, "0.5"), (-0.00001, "-1e-05"), (1.7976931348623157e308, "1.7976931348623157e+308"), (0.0, "0"),
            (f64::INFINITY, "+Inf"), (f64::NAN, "NaN"),
        ] {
            assert_eq!(go_float(f), go, "{f}");
        }
    }
}
