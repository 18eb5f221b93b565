//! Decoding a plugin's merged table onto its built-in default, as each go-toml does:
//!
//! - go-toml v1 (1.x, `Tree.Unmarshal`): struct fields absent from the table keep their
//!   defaults, but a map present in the table is rebuilt from the table alone, each
//!   entry from its zero value (the default `runc` disappears). Unknown keys vanish.
//! - go-toml v2 (2.x): maps are decoded into the existing ones (entries merge into
//!   their defaults), and keys that fit no field are reported in the order go-toml's
//!   strict mode finds them in the re-encoded table (keys, then sub-tables, sorted),
//!   then dropped.

use std::borrow::Cow;

use super::gonames;
use super::gowords::{fits, go_value, type_error, type_error_go, GoField};
use super::load::LoadError;
use super::schema::{hidden_fields, kind_at, Defaults, EntryType, HiddenKind, Kind};
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

struct Ctx<'a> {
    version: &'a Version,
    defaults: &'a Defaults,
    plugin: &'a str,
}

/// Decodes `raw` (the merged table for `plugin`) onto `default`.
pub fn decode_plugin(version: &Version, defaults: &Defaults, plugin: &str, default: &Node, raw: &Node) -> Result<(Node, Vec<UnknownKey>), LoadError> {
    let ctx = Ctx { version, defaults, plugin };
    let (Some(d), Some(r)) = (default.as_table(), raw.as_table()) else {
        #[cfg(feature = "go-toml-syntax")]
        if default.as_table().is_some() {
            if let Some(e) = not_a_table(version, raw) {
                return Err(e);
            }
        }
        return Err(type_error(version, raw, "struct", true));
    };
    let mut path = Vec::new();
    let table = if version.is_1x() { ctx.v1_struct(&mut path, d, r)? } else { ctx.v2_struct(&mut path, d, r)? };
    let mut unknown = Vec::new();
    ctx.strict_walk(&mut Vec::new(), r, Some(Scope::Struct(Cow::Borrowed(d))), &mut unknown);
    Ok((Node::new(Value::Table(table), raw.origin.clone()), unknown))
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
            Value::Array(a) if a.is_empty() => "invalid character at start of key: ]",
            Value::Array(a) if a.len() > 1 && a.first().is_some_and(|e| matches!(e.value, Value::Integer(_))) => "expected character ]",
            _ => return None,
        };
        format!("toml: {text}")
    };
    Some(LoadError { message, code: super::load::LoadErrorCode::Type, at: raw.origin.clone(), dump_ignores: false, log: None })
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
        for (k, v) in &raw.entries {
            path.push(k.clone());
            let parent = parent(path);
            let field = self.field(parent, default, k);
            // go-toml v2 leaves a nil map nil for an empty table (nothing is printed).
            let nil_map = !out.contains(k) && v.as_table().is_some_and(|t| t.entries.is_empty());
            let decoded = match self.kind(path) {
                Some(Kind::Map(_) | Kind::Any) if nil_map => None,
                Some(Kind::Map(entry)) => Some(self.map(path, entry, out.get(k), v)?),
                Some(Kind::Any) => Some(merge_any(out.get(k), v)),
                _ => match &field {
                    Some((d, _, _)) => Some(self.field_value(path, d, v)?),
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
            _ => Err(self.field_error(path, default, v)),
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
        let go = GoField { owner, field: gonames::field_name(owner, key), go_type: gonames::go_type(owner, key, Some(default)), at: None };
        type_error_go(self.version, v, go)
    }

    /// A map entry of the wrong type (`path` ends at the entry): v2.2–2.3 name the map
    /// field, v2.4 the entry's type alone.
    fn entry_error(&self, path: &[String], entry_type: &str, v1_want: &str, v: &Node) -> LoadError {
        if self.version.is_1x() {
            return type_error(self.version, v, v1_want, true);
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
                EntryType::String => {
                    if ev.as_str().is_none() {
                        return Err(self.entry_error(path, "string", "string", ev));
                    }
                    ev.clone()
                }
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
