//! Decoding a plugin's merged table onto its built-in default, as each go-toml does:
//!
//! - go-toml v1 (1.x, `Tree.Unmarshal`): struct fields absent from the table keep their
//!   defaults, but a map present in the table is rebuilt from the table alone, each
//!   entry from its zero value (the default `runc` disappears). Unknown keys vanish.
//! - go-toml v2 (2.x): maps are decoded into the existing ones (entries merge into
//!   their defaults), and keys that fit no field are reported in the order go-toml's
//!   strict mode finds them in the re-encoded table (keys, then sub-tables, sorted),
//!   then dropped.
//!
//! go-toml's own rules for some values — a duration field, a table or a boolean or
//! float where a plain value or a map entry belongs — and their exact error texts are
//! compiled in with the feature `go-toml-syntax` ([`EXACT`]; the companion, the chunk,
//! the tests). The app leaves them out of its first load: it reads such a value as the
//! field's default's shape says and names the plugin in [`Decoded::approximate`], which
//! the step shows (`containerd-plugin-read-approximately`).

use std::borrow::Cow;
use std::cell::Cell;

use super::gonames;
use super::gowords::{fits, go_value, type_error, type_error_go, v1_type_name, GoField};
use super::load::LoadError;
use super::goduration;
use super::schema::{duration_field, hidden_fields, is_duration_key, kind_at, omitempty_fields, Defaults, DurationField, EntryType, HiddenKind, Kind};
use super::value::{Node, Origin, Table, Value};
use super::version::Version;

/// A key a plugin's config struct does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// Path inside the plugin table.
    pub path: Vec<String>,
    pub at: Option<Origin>,
    /// Reported by 2.x's strict mode (a log line); 1.x drops such keys silently.
    pub logged: bool,
}

/// Whether go-toml's own rules for durations and misplaced tables, booleans and floats
/// are compiled in (the feature `go-toml-syntax`).
pub const EXACT: bool = cfg!(feature = "go-toml-syntax");

struct Ctx<'a> {
    version: &'a Version,
    defaults: &'a Defaults,
    plugin: &'a str,
    /// A value met that only the [`EXACT`] rules read as containerd does.
    approximate: Cell<bool>,
}

/// A plugin's decoded config.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub node: Node,
    pub unknown: Vec<UnknownKey>,
    /// Some value of the plugin's table was read without go-toml's own rule for it
    /// (only without [`EXACT`]): containerd's dump or error may differ.
    pub approximate: bool,
}

/// Decodes `raw` (the merged table for `plugin`) onto `default`. The error comes with
/// whether the decode reached it without go-toml's own rules ([`Decoded::approximate`]).
pub fn decode_plugin(version: &Version, defaults: &Defaults, plugin: &str, default: &Node, raw: &Node) -> Result<Decoded, (LoadError, bool)> {
    let ctx = Ctx { version, defaults, plugin, approximate: Cell::new(false) };
    let out = ctx.plugin(default, raw);
    let approximate = ctx.approximate.get();
    match out {
        Ok((node, unknown)) => Ok(Decoded { node, unknown, approximate }),
        Err(e) => Err((e, approximate)),
    }
}

impl Ctx<'_> {
    /// Notes a value read without go-toml's own rule for it (never when [`EXACT`]).
    fn approximated(&self) {
        self.approximate.set(true);
    }

    fn plugin(&self, default: &Node, raw: &Node) -> Result<(Node, Vec<UnknownKey>), LoadError> {
        let (ctx, version, plugin) = (self, self.version, self.plugin);
        let (Some(d), Some(r)) = (default.as_table(), raw.as_table()) else {
            #[cfg(feature = "go-toml-syntax")]
            if default.as_table().is_some() {
                // An array of one element re-encodes as a `[key]` header: an unknown table
                // to strict mode, the plugin keeps its defaults (v2.2–2.3).
                if let Some(Ok(path)) = array_as_header(version, raw) {
                    return Ok((default.clone(), vec![UnknownKey { path, at: raw.origin.clone(), logged: true }]));
                }
                if let Some(e) = not_a_table(version, raw) {
                    return Err(e);
                }
            }
            if !EXACT && !version.is_1x() && default.as_table().is_some() {
                ctx.approximated();
            }
            return Err(type_error(version, raw, "struct", true));
        };
        let mut path = Vec::new();
        let table = if version.is_1x() { ctx.v1_struct(&mut path, d, r)? } else { ctx.v2_struct(&mut path, d, r)? };
        let table = if EXACT { omit_empty(version, plugin, table) } else { table };
        if !EXACT && !r.entries.is_empty() && matches!(plugin, "io.containerd.tracing.processor.v1.otlp" | "io.containerd.internal.v1.tracing") {
            ctx.approximated();
        }
        let mut unknown = Vec::new();
        ctx.strict_walk(&mut Vec::new(), r, Some(Scope::Struct(Cow::Borrowed(d))), &mut unknown);
        Ok((Node::new(Value::Table(table), raw.origin.clone()), unknown))
    }
}

#[cfg(feature = "go-toml-syntax")]
/// A plugin's config that is not a table (`[plugins] "io.containerd.gc.v1.scheduler" = 1`)
/// on 2.x: `Config.Decode` re-encodes it with `toml.Marshal` and decodes that. go-toml
/// v2.4 (containerd 2.4) refuses to encode it (`cannot encode a int64 as a document
/// root`); v2.2–2.3 write the bare value with no newline and then read it as a
/// document, where it is a key with no `=`. Measured on 2.0.11, 2.2.7, 2.3.4 and 2.4.2
/// for integers, floats, booleans, strings, dates, datetimes and arrays; `None` for
/// what was not measured (an array of one element or of strings first reads as a
/// `[table]` header, a string with a newline as a multi-line one).
fn not_a_table(version: &Version, raw: &Node) -> Option<LoadError> {
    if version.is_1x() {
        return None;
    }
    let message = if version.line >= super::version::Line::V2_4 {
        let go = match &raw.value {
            Value::Integer(_) => "int64",
            Value::Float(_) => "float64",
            Value::Boolean(_) => "bool",
            Value::String(_) => "string",
            Value::Array(_) => "[]interface {}",
            Value::Datetime(d) => gonames::datetime_type(d),
            Value::Table(_) => return None,
        };
        format!("toml: cannot encode a {go} as a document root")
    } else {
        let text = match &raw.value {
            Value::Integer(_) | Value::Float(_) | Value::Boolean(_) => "expected = after a key, but the document ends there",
            Value::String(s) if !s.chars().any(char::is_control) => "expected = after a key, but the document ends there",
            Value::Datetime(d) if gonames::datetime_type(d) == "toml.LocalDate" => "expected = after a key, but the document ends there",
            Value::Datetime(d) if d.contains(':') && d.len() > 10 => "expected character =",
            Value::Array(_) => match array_as_header(version, raw)? {
                Err(text) => text,
                Ok(_) => return None,
            },
            _ => return None,
        };
        format!("toml: {text}")
    };
    Some(LoadError { message, code: super::load::LoadErrorCode::Type, at: raw.origin.clone(), dump_ignores: false, log: None })
}

#[cfg(feature = "go-toml-syntax")]
/// An array as a plugin's whole config on 2.0–2.3: `toml.Marshal` writes it bare
/// (`[1]`, `['a']`, `[[1]]`), which the decoder reads as a table header — one element
/// is a table named by it (the key's parts: a float `1.5` is `1` and `5`), more are a
/// header that does not close, a table element or none a key that does not start.
/// Measured on 2.0.11 and 2.3.4 for each kind; `None` for a string with a control
/// character (go-toml v2.2.3 panics on it, v2.3.0 takes it) and an empty inner array.
fn array_as_header(version: &Version, raw: &Node) -> Option<Result<Vec<String>, &'static str>> {
    if version.is_1x() || version.line >= super::version::Line::V2_4 {
        return None;
    }
    let Value::Array(items) = &raw.value else { return None };
    let first = match items.first() {
        None => return Some(Err("invalid character at start of key: ]")),
        Some(f) => f,
    };
    let key = match &first.value {
        Value::Table(_) => return Some(Err("invalid character at start of key: ]")),
        Value::Integer(i) => Ok(vec![i.to_string()]),
        Value::Float(_) => Ok(super::encode::v2_scalar(first).split('.').map(str::to_string).collect()),
        Value::Boolean(b) => Ok(vec![b.to_string()]),
        Value::String(s) if s.chars().any(char::is_control) => return None,
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Datetime(d) if gonames::datetime_type(d) == "toml.LocalDate" => Ok(vec![d.clone()]),
        Value::Datetime(_) => Err("expected character ]"),
        Value::Array(_) => array_as_header(version, first)?,
    };
    Some(match key {
        Ok(_) if items.len() > 1 => Err("expected character ]"),
        other => other,
    })
}

/// What a table in the re-encoded document maps to.
#[derive(Clone)]
enum Scope<'a> {
    Struct(Cow<'a, Table>),
    Map(EntryType),
    Any,
}

impl Ctx<'_> {
    fn kind(&self, path: &[String]) -> Option<Kind> {
        kind_at(self.version, self.plugin, path)
    }

    fn hidden(&self, path: &[String], key: &str) -> Option<(Node, Option<&'static str>)> {
        let h = hidden_fields(self.version, self.plugin, path).into_iter().find(|h| h.name == key)?;
        let node = match h.kind {
            HiddenKind::Map(_) | HiddenKind::Any => Node::builtin(Value::Table(Table::new())),
            HiddenKind::Struct(t) => self.defaults.template(self.version, t),
            HiddenKind::String => Node::builtin(Value::String(String::new())),
            HiddenKind::Bool => Node::builtin(Value::Boolean(false)),
            HiddenKind::Float => Node::builtin(Value::Float(0.0)),
        };
        Some((node, h.after))
    }

    /// The default of field `key` of the struct at `path`, and where a hidden one goes.
    fn field<'t>(&self, path: &[String], default: &'t Table, key: &str) -> Option<(Cow<'t, Node>, Option<&'static str>, bool)> {
        if let Some(d) = default.get(key) {
            return Some((Cow::Borrowed(d), None, false));
        }
        self.hidden(path, key).map(|(n, after)| (Cow::Owned(n), after, true))
    }

    fn v1_struct(&self, path: &mut Vec<String>, default: &Table, raw: &Table) -> Result<Table, LoadError> {
        let mut out = default.clone();
        for (k, v) in &raw.entries {
            path.push(k.clone());
            let decoded = match self.kind(path) {
                Some(Kind::Map(entry)) => Some(self.map(path, entry, None, v)?),
                Some(Kind::Any) => Some(any_value(v, false)),
                _ => match self.field(parent(path), default, k) {
                    Some((d, _, _)) => Some(self.field_value(path, &d, v)?),
                    None => None,
                },
            };
            if let Some(n) = decoded {
                out.insert(k.clone(), n);
            }
            path.pop();
        }
        Ok(out)
    }

    fn v2_struct(&self, path: &mut Vec<String>, default: &Table, raw: &Table) -> Result<Table, LoadError> {
        let mut out = default.clone();
        // go-toml v2.4 decodes the re-encoded table in its order: the keys, sorted, then
        // the sub-tables, sorted — so of two type errors it reports the first in that
        // order (seed 7453586491648913787 node 32: `enable_selinux = "yes"` before
        // `[containerd] default_runtime_name = ["runc"]`).
        // Without the rules the file's order stands; an error there may then not be the
        // one 2.4 reports first ([`Ctx::approximated`], below).
        let mut entries: Vec<&(String, Node)> = raw.entries.iter().collect();
        fn order<'a>(e: &&'a (String, Node)) -> (bool, &'a str) {
            (e.1.is_table() || e.1.is_array_of_tables(), e.0.as_str())
        }
        let v24 = self.version.line >= super::version::Line::V2_4;
        if EXACT && v24 {
            crate::sort::sort_by(&mut entries, |a, b| order(a).cmp(&order(b)));
        }
        // (`is_sorted_by` with `<=`, not `is_sorted_by_key`: 76 B less of the first load.)
        let reordered = !EXACT && v24 && !entries.is_sorted_by(|a, b| order(a) <= order(b));
        let mark = |e: LoadError| {
            if reordered {
                self.approximated();
            }
            e
        };
        for (k, v) in entries {
            path.push(k.clone());
            let parent = parent(path);
            let field = self.field(parent, default, k);
            // go-toml v2 leaves a nil map nil for an empty table (nothing is printed).
            let nil_map = !out.contains(k) && v.as_table().is_some_and(|t| t.entries.is_empty());
            let decoded = match self.kind(path) {
                Some(Kind::Map(_) | Kind::Any) if nil_map => None,
                Some(Kind::Map(entry)) => Some(self.map(path, entry, out.get(k), v).map_err(mark)?),
                Some(Kind::Any) => Some(merge_any(out.get(k), v)),
                _ => match &field {
                    Some((d, _, _)) => Some(self.field_value(path, d, v).map_err(mark)?),
                    None => None,
                },
            };
            if let Some(n) = decoded {
                match field {
                    Some((_, after, true)) if !out.contains(k) => insert_after(&mut out, k, n, after),
                    _ => out.insert(k.clone(), n),
                }
            }
            path.pop();
        }
        Ok(out)
    }

    fn field_value(&self, path: &mut Vec<String>, default: &Node, v: &Node) -> Result<Node, LoadError> {
        if EXACT {
            if let Some(kind) = duration_field(self.version, self.plugin, path) {
                return self.duration_value(kind, path, default, v);
            }
        } else if is_duration_key(path) {
            self.approximated();
        }
        let misplaced_table = matches!(v.value, Value::Table(_)) && !matches!(default.value, Value::Table(_));
        if misplaced_table && !EXACT {
            self.approximated();
        }
        if self.version.is_1x() && misplaced_table && EXACT {
            return Err(v1_tree_error(v));
        }
        match (&default.value, &v.value) {
            (Value::Table(d), Value::Table(r)) => {
                let t = if self.version.is_1x() { self.v1_struct(path, d, r)? } else { self.v2_struct(path, d, r)? };
                Ok(Node::new(Value::Table(t), v.origin.clone()))
            }
            _ if fits(default, v) => Ok(v.clone()),
            // go-toml v2 stores an integer in a float field.
            (Value::Float(_), Value::Integer(i)) if !self.version.is_1x() => {
                #[allow(clippy::cast_precision_loss)]
                let f = *i as f64;
                Ok(Node::new(Value::Float(f), v.origin.clone()))
            }
            (_, Value::Table(t)) if !self.version.is_1x() && EXACT => self.v2_table_into_value(path, default, t, v),
            _ => Err(self.field_error(path, default, v)),
        }
    }

    /// 2.x given a table where a plain value or a list belongs (measured on 2.0.11,
    /// 2.3.4 and 2.4.2): go-toml v2.2–2.3 leave the field as it was for an empty table
    /// and fail inside for any other (`unhandled kv part: int`, a list by its element
    /// type); v2.4 refuses both (`cannot store a table in a int`).
    fn v2_table_into_value(&self, path: &[String], default: &Node, t: &Table, v: &Node) -> Result<Node, LoadError> {
        let owner = gonames::struct_name(self.plugin, parent(path));
        let key = path.last().map_or("", String::as_str);
        let go = gonames::go_type(owner, key, Some(default));
        let go = go.strip_prefix("[]").unwrap_or(&go).to_string();
        let message = if self.version.line >= super::version::Line::V2_4 {
            format!("toml: cannot store a table in a {go}")
        } else if t.entries.is_empty() {
            return Ok(default.clone());
        } else {
            format!("unhandled kv part: {go}")
        };
        Err(LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None })
    }

    /// A duration field ([`DurationField`]): what each go-toml hands the type and what
    /// the type makes of it, measured on every version for every TOML kind.
    fn duration_value(&self, kind: DurationField, path: &[String], default: &Node, v: &Node) -> Result<Node, LoadError> {
        use DurationField as D;
        let ok = |d: i64| Ok(Node::new(Value::String(goduration::format(d)), v.origin.clone()));
        let fail = |message: String| Err(LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None });
        let (line, col) = v.origin.as_ref().map_or((1, 1), |o| (o.line, o.column));
        let v1_text = |text: &str| match goduration::parse(text) {
            Ok(d) => ok(d),
            Err(e) => fail(format!("({line}, {col}): unmarshal text: {e}")),
        };
        match (kind, &v.value) {
            (D::V1TextStruct | D::V1TextInt | D::V1Std, Value::Array(_)) => Err(type_error(self.version, v, "a slice", true)),
            // go-toml v1 decodes a table into the struct's embedded `time.Duration`
            // (keys it tries in turn; anything else is ignored, the default kept).
            (D::V1TextStruct, Value::Table(t)) => match ["Duration", "duration", "DURATION"].iter().find_map(|k| t.get(k)) {
                Some(inner) => self.duration_value(D::V1Std, path, default, inner),
                None => Ok(default.clone()),
            },
            (D::V1TextInt | D::V1Std, Value::Table(_)) => Err(v1_tree_error(v)),
            // `UnmarshalText` gets the value as `fmt.Fprint` prints it.
            (D::V1TextStruct | D::V1TextInt, _) => v1_text(&go_value(v)),
            (D::V1Std, Value::Integer(i)) => ok(*i),
            (D::V1Std, Value::String(s)) => match goduration::parse(s) {
                Ok(d) => ok(d),
                Err(e) => fail(format!("({line}, {col}): Can't convert {s}(string) to time.Duration. {e}")),
            },
            (D::V1Std, _) => fail(format!("({line}, {col}): Can't convert {}({}) to time.Duration", go_value(v), v1_type_name(v))),
            (D::TomlExt, _) => self.tomlext_value(path, default, v),
        }
    }

    /// `tomlext.Duration` under go-toml v2, which decodes a re-encoded copy of the
    /// plugin's table: v2.2–2.3 (containerd 2.0–2.3) hand `UnmarshalText` the raw text
    /// of any scalar (an array's is empty; an empty table leaves the default, another
    /// fails inside go-toml); v2.4 does so for strings, stores an integer as
    /// nanoseconds, calls `UnmarshalText` on a float's or boolean's text without
    /// wrapping its error, and refuses the other kinds by the field's type.
    fn tomlext_value(&self, path: &[String], default: &Node, v: &Node) -> Result<Node, LoadError> {
        let fail = |message: String| Err(LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None });
        let parsed = |text: &str, prefix: &str| match goduration::parse(text) {
            Ok(d) => Ok(Node::new(Value::String(goduration::format(d)), v.origin.clone())),
            Err(e) => fail(format!("{prefix}{e}")),
        };
        let by_type = || {
            let owner = gonames::struct_name(self.plugin, parent(path));
            let key = path.last().map_or("", String::as_str);
            let go = GoField { owner, field: gonames::field_name(owner, key), go_type: "tomlext.Duration".into(), at: None };
            Err(type_error_go(self.version, v, go))
        };
        let v24 = self.version.line >= super::version::Line::V2_4;
        match &v.value {
            Value::String(s) => parsed(s, "toml: "),
            Value::Integer(i) if v24 => Ok(Node::new(Value::String(goduration::format(*i)), v.origin.clone())),
            Value::Integer(i) => parsed(&i.to_string(), "toml: "),
            Value::Float(_) | Value::Boolean(_) => parsed(&super::encode::v2_scalar(v), if v24 { "" } else { "toml: " }),
            Value::Datetime(d) if !v24 => parsed(d, "toml: "),
            Value::Array(_) if self.version.line <= super::version::Line::V2_2 => fail("toml: time: invalid duration \"\"".into()),
            Value::Datetime(_) | Value::Array(_) => by_type(),
            Value::Table(_) if v24 => fail("toml: cannot store a table in a int64".into()),
            Value::Table(t) if t.entries.is_empty() => Ok(default.clone()),
            Value::Table(_) => fail("unhandled kv part: int64".into()),
        }
    }

    /// A plugin field of the wrong type: go-toml v1's words on 1.x, v2's (the Go field,
    /// no position: 2.x decodes a re-encoded copy of the table) on 2.x.
    fn field_error(&self, path: &[String], default: &Node, v: &Node) -> LoadError {
        if self.version.is_1x() {
            return type_error(self.version, v, go_type_name(default), true);
        }
        let owner = gonames::struct_name(self.plugin, parent(path));
        let key = path.last().map_or("", String::as_str);
        let go_type = gonames::go_type(owner, key, Some(default));
        // go-toml v2.2–2.3 word a boolean or a float by the target's kind before naming
        // the field (as in a file's own fields: `gowords::file_type_error`).
        if self.version.line <= super::version::Line::V2_3 && matches!(v.value, Value::Boolean(_) | Value::Float(_)) {
            if EXACT {
                let message = match &v.value {
                    Value::Boolean(b) => format!("toml: cannot assign boolean to a {b}"),
                    _ => format!("toml: float cannot be assigned to {}", gonames::go_kind(&go_type)),
                };
                return LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None };
            }
            self.approximated();
        }
        let go = GoField { owner, field: gonames::field_name(owner, key), go_type, at: None };
        type_error_go(self.version, v, go)
    }

    /// A map entry of the wrong type (`path` ends at the entry): v2.2–2.3 name the map
    /// field, v2.4 the entry's type alone.
    fn entry_error(&self, path: &[String], entry_type: &str, v1_want: &str, v: &Node) -> LoadError {
        if self.version.is_1x() {
            return type_error(self.version, v, v1_want, true);
        }
        // A string or list entry given a boolean, a float or a table (measured on
        // 2.0.11, 2.3.4, 2.4.2): v2.2–2.3 word the first two by the entry's kind; a
        // table is `unhandled kv part` in a string, refused by a list (v2.4: by the
        // list's element).
        let kind = if entry_type.starts_with("[]") { "slice" } else { entry_type };
        let simple = matches!(entry_type, "string" | "[]string");
        let early_kind = match &v.value {
            Value::Boolean(_) | Value::Float(_) => simple && self.v2_early(),
            Value::Table(_) => simple,
            _ => false,
        };
        if early_kind && !EXACT {
            self.approximated();
        }
        let early = match &v.value {
            _ if !EXACT => None,
            Value::Boolean(b) if simple && self.v2_early() => Some(format!("toml: cannot assign boolean to a {b}")),
            Value::Float(_) if simple && self.v2_early() => Some(format!("toml: float cannot be assigned to {kind}")),
            Value::Table(_) if entry_type == "string" && self.v2_early() => Some("unhandled kv part: string".to_string()),
            Value::Table(_) if entry_type == "[]string" && self.v2_early() => Some("toml: cannot store a table in a slice".to_string()),
            Value::Table(_) if simple => Some("toml: cannot store a table in a string".to_string()),
            _ => None,
        };
        if let Some(message) = early {
            return LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None };
        }
        if self.version.line >= super::version::Line::V2_4 {
            let message = format!("toml: cannot decode TOML {} into {entry_type}", gonames::toml_kind(v));
            return LoadError { message, code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None };
        }
        let map_path = parent(path);
        let owner = gonames::struct_name(self.plugin, parent(map_path));
        let key = map_path.last().map_or("", String::as_str);
        let go = GoField { owner, field: gonames::field_name(owner, key), go_type: format!("map[string]{entry_type}"), at: None };
        type_error_go(self.version, v, go)
    }

    /// A Go map: 1.x rebuilds it from the table; 2.x decodes into the existing one.
    fn map(&self, path: &mut Vec<String>, entry: EntryType, existing: Option<&Node>, v: &Node) -> Result<Node, LoadError> {
        let Value::Table(raw) = &v.value else {
            return Err(type_error(self.version, v, "map", true));
        };
        let mut out = match existing.and_then(Node::as_table) {
            Some(t) if !self.version.is_1x() => t.clone(),
            _ => Table::new(),
        };
        for (name, ev) in &raw.entries {
            path.push(name.clone());
            let decoded = match entry {
                EntryType::String => match &ev.value {
                    Value::String(_) => ev.clone(),
                    // go-toml v2.2–2.3 decode an empty table into the entry as it is
                    // (the existing string, or "" for a new one).
                    Value::Table(t) if EXACT && t.entries.is_empty() && self.v2_early() => {
                        out.get(name).cloned().unwrap_or_else(|| Node::new(Value::String(String::new()), ev.origin.clone()))
                    }
                    _ => return Err(self.entry_error(path, "string", "string", ev)),
                },
                EntryType::StringArray => {
                    if !matches!(ev.value, Value::Array(_)) {
                        return Err(self.entry_error(path, "[]string", "[]string", ev));
                    }
                    ev.clone()
                }
                EntryType::Any => match out.get(name) {
                    Some(old) => merge_any(Some(old), ev),
                    None => any_value(ev, !self.version.is_1x()),
                },
                _ => {
                    let base = match out.get(name) {
                        Some(old) => old.clone(),
                        None => self.defaults.template(self.version, entry),
                    };
                    let (Some(d), Some(r)) = (base.as_table(), ev.as_table()) else {
                        return Err(self.entry_error(path, &struct_name(entry), &struct_name(entry), ev));
                    };
                    let t = if self.version.is_1x() { self.v1_struct(path, d, r)? } else { self.v2_struct(path, d, r)? };
                    Node::new(Value::Table(t), ev.origin.clone())
                }
            };
            out.insert(name.clone(), decoded);
            path.pop();
        }
        crate::sort::sort_by(&mut out.entries, |a, b| a.0.cmp(&b.0));
        Ok(Node::new(Value::Table(out), v.origin.clone()))
    }

    /// go-toml v2.2–2.3 (containerd 2.0–2.3), which word some type errors before
    /// naming the field.
    fn v2_early(&self) -> bool {
        !self.version.is_1x() && self.version.line <= super::version::Line::V2_3
    }

    /// go-toml v2 strict mode over the re-encoded table: in each table, its keys then
    /// its sub-tables, sorted; an unknown key is reported, and so is every table
    /// header below an unknown table (but not the keys inside it).
    fn strict_walk<'s>(&'s self, path: &mut Vec<String>, t: &Table, scope: Option<Scope<'s>>, out: &mut Vec<UnknownKey>) {
        let logged = !self.version.is_1x();
        let mut kvs: Vec<&(String, Node)> = t.entries.iter().filter(|(_, n)| !n.is_table()).collect();
        let mut tables: Vec<&(String, Node)> = t.entries.iter().filter(|(_, n)| n.is_table()).collect();
        crate::sort::sort_by(&mut kvs, |a, b| a.0.cmp(&b.0));
        crate::sort::sort_by(&mut tables, |a, b| a.0.cmp(&b.0));
        for (k, n) in kvs {
            path.push(k.clone());
            if let Some(Scope::Struct(d)) = &scope {
                if self.field(parent(path), d, k).is_none() && self.kind(path).is_none() {
                    out.push(UnknownKey { path: path.clone(), at: n.origin.clone(), logged });
                }
            }
            path.pop();
        }
        for (k, n) in tables {
            path.push(k.clone());
            let child = match &scope {
                None => None,
                Some(Scope::Any) => Some(Scope::Any),
                Some(Scope::Map(entry)) => match entry {
                    EntryType::Any => Some(Scope::Any),
                    EntryType::String | EntryType::StringArray => Some(Scope::Any),
                    e => self.defaults.template_ref(*e).and_then(Node::as_table).map(|t| Scope::Struct(Cow::Borrowed(t))),
                },
                Some(Scope::Struct(d)) => match self.kind(path) {
                    Some(Kind::Map(e)) => Some(Scope::Map(e)),
                    Some(Kind::Any) => Some(Scope::Any),
                    _ => {
                        // Stay borrowed from the defaults where possible: no subtree copies.
                        let borrowed = match d {
                            Cow::Borrowed(t) => t.get(k),
                            Cow::Owned(_) => None,
                        };
                        match borrowed {
                            Some(Node { value: Value::Table(dt), .. }) => Some(Scope::Struct(Cow::Borrowed(dt))),
                            Some(_) => Some(Scope::Any),
                            None => match self.field(parent(path), d, k) {
                                Some((f, _, _)) => match f.into_owned() {
                                    Node { value: Value::Table(dt), .. } => Some(Scope::Struct(Cow::Owned(dt))),
                                    _ => Some(Scope::Any),
                                },
                                None => None,
                            },
                        }
                    }
                },
            };
            if child.is_none() {
                out.push(UnknownKey { path: path.clone(), at: n.origin.clone(), logged });
            }
            if let Some(sub) = n.as_table() {
                self.strict_walk(path, sub, child, out);
            }
            path.pop();
        }
    }
}

/// go-toml v1 given a table where a plain value belongs (measured on 1.6.20 and
/// 1.7.34): the table as its `String()` prints it (the go-toml v1 encoder's text), at
/// the table's position — a `[header]`'s, or `(0, 0)` for an inline table, which go-toml
/// v1 gives none. The tree keeps no mark of the form, so it is told by where the
/// entries sit: an inline table's on its own line after it, a header's on later lines,
/// a dotted key's table where its first key is. An empty table is taken for an
/// inline `{}` (an empty `[header]` would be at its header).
fn v1_tree_error(v: &Node) -> LoadError {
    let (text, first) = match &v.value {
        Value::Table(t) => (super::encode::encode(t, super::encode::Flavor::GoTomlV1), t.entries.iter().filter_map(|(_, n)| n.origin.as_ref()).min_by_key(|o| (o.line, o.column))),
        _ => (String::new(), None),
    };
    let (line, col) = match (v.origin.as_ref(), first) {
        (Some(o), Some(f)) if f.line > o.line || f == o => (o.line, o.column),
        _ => (0, 0),
    };
    LoadError { message: format!("({line}, {col}): Can't convert {text}(*toml.Tree) to a tree"), code: super::load::LoadErrorCode::Type, at: v.origin.clone(), dump_ignores: false, log: None }
}

/// A plugin config whose fields are all `omitempty` ([`omitempty_fields`]): the
/// zero values left out, the rest in struct order (go-toml v1 sorts them anyway).
fn omit_empty(version: &Version, plugin: &str, mut table: Table) -> Table {
    let fields = omitempty_fields(version, plugin);
    if fields.is_empty() {
        return table;
    }
    table.entries.retain(|(_, n)| match &n.value {
        Value::String(s) => !s.is_empty(),
        Value::Boolean(b) => *b,
        Value::Float(f) => *f != 0.0,
        _ => true,
    });
    let rank = |k: &str| fields.iter().position(|(name, _)| *name == k).unwrap_or(usize::MAX);
    crate::sort::sort_by(&mut table.entries, |a, b| rank(&a.0).cmp(&rank(&b.0)));
    table
}

/// `path` without its last element.
fn parent(path: &[String]) -> &[String] {
    path.split_last().map_or(&[], |(_, p)| p)
}

fn struct_name(entry: EntryType) -> String {
    match entry {
        EntryType::Runtime => "config.Runtime".into(),
        EntryType::Mirror => "config.Mirror".into(),
        EntryType::AuthConfig => "config.AuthConfig".into(),
        EntryType::RegistryConfig => "config.RegistryConfig".into(),
        EntryType::ImagePlatform => "config.ImagePlatform".into(),
        EntryType::ProxyPlugin => "config.ProxyPlugin".into(),
        EntryType::StreamProcessor => "config.StreamProcessor".into(),
        _ => "struct".into(),
    }
}

fn go_type_name(d: &Node) -> &'static str {
    match &d.value {
        Value::String(_) => "string",
        Value::Integer(_) => "int",
        Value::Float(_) => "float64",
        Value::Boolean(_) => "bool",
        // go-toml v1 names a slice target with its type and kind (`[]string(slice)`);
        // 1.x's plugin configs hold lists of strings (an empty default is one too).
        Value::Array(a) if a.iter().all(|e| e.as_str().is_some()) => "[]string(slice)",
        Value::Array(_) => "a slice",
        _ => "struct",
    }
}

fn insert_after(t: &mut Table, key: &str, n: Node, after: Option<&str>) {
    let at = after.and_then(|a| t.entries.iter().position(|(k, _)| k == a)).map_or(t.entries.len(), |i| i + 1);
    t.entries.insert(at, (key.to_string(), n));
}

/// An `interface{}` value as decoded: as written; 2.x's encoder sorts map keys.
fn any_value(v: &Node, sorted: bool) -> Node {
    let mut n = v.clone();
    if sorted {
        sort_maps(&mut n);
    }
    n
}

/// Sorts every table under `n` by key (go-toml v2 marshals Go maps sorted).
pub fn sort_maps(n: &mut Node) {
    match &mut n.value {
        Value::Table(t) => {
            crate::sort::sort_by(&mut t.entries, |a, b| a.0.cmp(&b.0));
            t.entries.iter_mut().for_each(|(_, v)| sort_maps(v));
        }
        Value::Array(a) => a.iter_mut().for_each(sort_maps),
        _ => {}
    }
}

/// go-toml v2 decoding into an existing `map[string]interface{}`: keys merge.
fn merge_any(existing: Option<&Node>, v: &Node) -> Node {
    match (existing.map(|e| &e.value), &v.value) {
        (Some(Value::Table(old)), Value::Table(new)) => {
            let mut out = old.clone();
            for (k, nv) in &new.entries {
                let merged = merge_any(out.get(k), nv);
                out.insert(k.clone(), merged);
            }
            crate::sort::sort_by(&mut out.entries, |a, b| a.0.cmp(&b.0));
            Node::new(Value::Table(out), v.origin.clone())
        }
        _ => any_value(v, true),
    }
}

/// `%v` of a value, for messages.
pub fn show(n: &Node) -> String {
    go_value(n)
}
