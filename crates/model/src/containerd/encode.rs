//! The two TOML encoders `containerd config dump` prints with: go-toml v1 (1.x: keys
//! sorted, `"` strings, a blank line before every header) and go-toml v2 (2.x: the
//! order given — struct order, maps sorted by the decoder — `'` strings where
//! possible, blank lines only between sibling tables). `main` uses a newer go-toml v2
//! that prints no blank line after a table with nothing in it.

use super::value::{Node, Table, Value};

/// Which encoder, and which of its revisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    GoTomlV1,
    /// `compact_empty_tables`: no blank line after a table with nothing in it (v2.4);
    /// `tab_in_literal`: a tab may stand in a `'literal'` string (v2.2–2.3; v2.4
    /// writes such a string `"basic"`, with `\t`).
    GoTomlV2 { compact_empty_tables: bool, tab_in_literal: bool },
}

/// Encodes `root` as `config dump` prints it.
pub fn encode(root: &Table, flavor: Flavor) -> String {
    let mut out = String::new();
    match flavor {
        Flavor::GoTomlV1 => v1_table(&mut out, &mut Vec::new(), root),
        Flavor::GoTomlV2 { compact_empty_tables, tab_in_literal } => {
            let style = V2 { compact: compact_empty_tables, tab_in_literal };
            let _ = v2_table(&mut out, &mut Vec::new(), root, style);
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push_str("  ");
    }
}

fn is_table_like(n: &Node) -> bool {
    n.is_table() || n.is_array_of_tables()
}

// ---- go-toml v1 -------------------------------------------------------------------

fn v1_table<'t>(out: &mut String, path: &mut Vec<&'t str>, t: &'t Table) {
    let depth = path.len();
    let mut kvs: Vec<&(String, Node)> = t.entries.iter().filter(|(_, n)| !is_table_like(n)).collect();
    let mut tables: Vec<&(String, Node)> = t.entries.iter().filter(|(_, n)| is_table_like(n)).collect();
    crate::sort::sort_by(&mut kvs, |a, b| a.0.cmp(&b.0));
    crate::sort::sort_by(&mut tables, |a, b| a.0.cmp(&b.0));
    for (k, n) in kvs {
        indent(out, depth);
        push_v1_key(out, k);
        out.push_str(" = ");
        v1_value(out, n);
        out.push('\n');
    }
    for (k, n) in tables {
        path.push(k);
        match &n.value {
            Value::Table(sub) => {
                out.push('\n');
                indent(out, depth);
                v1_header(out, path, "[", "]\n");
                v1_table(out, path, sub);
            }
            Value::Array(items) => {
                for item in items {
                    if let Some(sub) = item.as_table() {
                        out.push('\n');
                        indent(out, depth);
                        v1_header(out, path, "[[", "]]\n");
                        v1_table(out, path, sub);
                    }
                }
            }
            _ => {}
        }
        path.pop();
    }
}

/// `[a."b.c".d]`, written straight into `out` (a dump has hundreds of headers).
fn v1_header(out: &mut String, path: &[&str], open: &str, close: &str) {
    out.push_str(open);
    for (i, p) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_v1_key(out, p);
    }
    out.push_str(close);
}

fn push_v1_key(out: &mut String, k: &str) {
    if is_bare(k) {
        out.push_str(k);
    } else {
        out.push('"');
        push_v1_escaped(out, k);
        out.push('"');
    }
}

fn is_bare(k: &str) -> bool {
    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn v1_key(k: &str) -> String {
    let mut out = String::with_capacity(k.len() + 2);
    push_v1_key(&mut out, k);
    out
}

fn push_v1_escaped(b: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\u{8}' => b.push_str("\\b"),
            '\t' => b.push_str("\\t"),
            '\n' => b.push_str("\\n"),
            '\u{c}' => b.push_str("\\f"),
            '\r' => b.push_str("\\r"),
            '"' => b.push_str("\\\""),
            '\\' => b.push_str("\\\\"),
            c if (c as u32) < 0x1f => b.push_str(&format!("\\u{:04X}", c as u32)),
            c => b.push(c),
        }
    }
}

fn v1_value(out: &mut String, n: &Node) {
    match &n.value {
        Value::String(s) => {
            out.push('"');
            push_v1_escaped(out, s);
            out.push('"');
        }
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&v1_float(*f)),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Datetime(d) => out.push_str(d),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                v1_value(out, item);
            }
            out.push(']');
        }
        Value::Table(t) => inline_table(out, t, v1_key, v1_value),
    }
}

/// go-toml v1 formats floats at float32 precision (`strconv.FormatFloat(v, 'f', -1, 32)`).
fn v1_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+inf".into() } else { "-inf".into() };
    }
    #[allow(clippy::cast_possible_truncation)]
    let f32v = f as f32;
    if f.trunc() == f {
        crate::float::integral_one_decimal(f64::from(f32v))
    } else {
        crate::float::display_f32(f32v)
    }
}

fn inline_table(out: &mut String, t: &Table, key: fn(&str) -> String, value: fn(&mut String, &Node)) {
    out.push('{');
    for (i, (k, n)) in t.entries.iter().enumerate() {
        out.push_str(if i > 0 { ", " } else { " " });
        out.push_str(&key(k));
        out.push_str(" = ");
        value(out, n);
    }
    out.push_str(if t.entries.is_empty() { "}" } else { " }" });
}

// ---- go-toml v2 -------------------------------------------------------------------

/// The go-toml v2 revision's choices.
#[derive(Clone, Copy)]
struct V2 {
    compact: bool,
    tab_in_literal: bool,
}

/// Writes `t`'s keys and sub-tables; returns whether the last table written (the
/// deepest, last one) had nothing in it, which v2.4 follows with no blank line.
/// Keys, headers and strings are written straight into `out` (a dump has hundreds).
fn v2_table<'t>(out: &mut String, path: &mut Vec<&'t str>, t: &'t Table, style: V2) -> bool {
    let compact = style.compact;
    let depth = path.len();
    let mut has_kv = false;
    for (k, n) in t.entries.iter().filter(|(_, n)| !is_table_like(n)) {
        has_kv = true;
        indent(out, depth);
        push_v2_key(out, k, style);
        out.push_str(" = ");
        v2_value(out, n, style);
        out.push('\n');
    }
    let mut first = true;
    let mut prev_empty = false;
    let mut header = String::new();
    for (k, n) in t.entries.iter().filter(|(_, n)| is_table_like(n)) {
        let items: Vec<&Table> = match &n.value {
            Value::Table(sub) => vec![sub],
            Value::Array(items) => items.iter().filter_map(Node::as_table).collect(),
            _ => Vec::new(),
        };
        let (open, close) = if n.is_table() { ("[", "]\n") } else { ("[[", "]]\n") };
        path.push(k);
        header.clear();
        for (i, p) in path.iter().enumerate() {
            if i > 0 {
                header.push('.');
            }
            push_v2_key(&mut header, p, style);
        }
        for sub in items {
            if first {
                first = false;
                if has_kv {
                    out.push('\n');
                }
            } else if !(compact && prev_empty) {
                out.push('\n');
            }
            indent(out, depth);
            out.push_str(open);
            out.push_str(&header);
            out.push_str(close);
            prev_empty = v2_table(out, path, sub, style);
        }
        path.pop();
    }
    if first {
        // No sub-table: this table is the last one written.
        return t.entries.is_empty();
    }
    prev_empty
}

/// go-toml v2 quotes a string when it holds a `'` or a control character (a tab is
/// fine in a literal string before v2.4).
fn v2_needs_quoting(s: &str, style: V2) -> bool {
    s.chars().any(|c| c == '\'' || ((c as u32) < 0x20 && !(c == '\t' && style.tab_in_literal)) || c == '\u{7f}')
}

fn push_v2_key(out: &mut String, k: &str, style: V2) {
    if is_bare(k) {
        out.push_str(k);
    } else if !v2_needs_quoting(k, style) {
        out.push('\'');
        out.push_str(k);
        out.push('\'');
    } else {
        out.push('"');
        push_v2_escaped(out, k);
        out.push('"');
    }
}

/// A TOML basic string's body as go-toml v2 writes it (also how the step-2 view shows
/// a string value, [`super::explain::show`]).
pub(crate) fn v2_escape(s: &str) -> String {
    let mut b = String::with_capacity(s.len());
    push_v2_escaped(&mut b, s);
    b
}

/// [`v2_escape`] written onto `b`.
fn push_v2_escaped(b: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => b.push_str("\\\""),
            '\\' => b.push_str("\\\\"),
            '\u{8}' => b.push_str("\\b"),
            '\u{c}' => b.push_str("\\f"),
            '\n' => b.push_str("\\n"),
            '\r' => b.push_str("\\r"),
            '\t' => b.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => b.push_str(&format!("\\u{:04X}", c as u32)),
            c => b.push(c),
        }
    }
}

fn v2_value(out: &mut String, n: &Node, style: V2) {
    match &n.value {
        Value::String(s) => {
            if v2_needs_quoting(s, style) {
                out.push('"');
                push_v2_escaped(out, s);
                out.push('"');
            } else {
                out.push('\'');
                out.push_str(s);
                out.push('\'');
            }
        }
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&v2_float(*f)),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Datetime(d) => out.push_str(d),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                v2_value(out, item, style);
            }
            out.push(']');
        }
        Value::Table(t) => {
            out.push('{');
            for (i, (k, n)) in t.entries.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { " " });
                push_v2_key(out, k, style);
                out.push_str(" = ");
                v2_value(out, n, style);
            }
            out.push_str(if t.entries.is_empty() { "}" } else { " }" });
        }
    }
}

/// A scalar as go-toml v2 writes it (what 2.x's `Config.Decode` re-encodes).
pub(super) fn v2_scalar(n: &Node) -> String {
    let mut out = String::new();
    v2_value(&mut out, n, V2 { compact: false, tab_in_literal: false });
    out
}

fn v2_float(f: f64) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { "inf".into() } else { "-inf".into() }
    } else if f.trunc() == f {
        crate::float::integral_one_decimal(f)
    } else {
        crate::float::display(f)
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::*;

    /// v1 sorts, double-quotes and puts a blank line before every header.
    #[test]
    fn v1_layout() {
        let t = parse("f", b"b = 'x'\na = 1\n[t.'k.v']\nz = [\"a\"]\n[s]\n").unwrap();
        let s = encode(&t, Flavor::GoTomlV1);
        assert_eq!(s, "a = 1\nb = \"x\"\n\n[s]\n\n[t]\n\n  [t.\"k.v\"]\n    z = [\"a\"]\n");
    }

    /// v2 keeps the given order, single-quotes, and separates only sibling tables.
    #[test]
    fn v2_layout() {
        let t = parse("f", b"b = \"x\"\na = 0.5\n[t.'k.v']\nz = [\"it's\"]\n[t.w]\n[s]\n").unwrap();
        let s = encode(&t, Flavor::GoTomlV2 { compact_empty_tables: false, tab_in_literal: true });
        assert_eq!(s, "b = 'x'\na = 0.5\n\n[t]\n  [t.'k.v']\n    z = [\"it's\"]\n\n  [t.w]\n\n[s]\n");
        let t = parse("f", b"[t.e]\n[t.f]\nx = 1\n").unwrap();
        let s = encode(&t, Flavor::GoTomlV2 { compact_empty_tables: true, tab_in_literal: false });
        assert_eq!(s, "[t]\n  [t.e]\n  [t.f]\n    x = 1\n");
    }
}
