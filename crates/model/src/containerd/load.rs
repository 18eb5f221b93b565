//! Loading a node's config files the way containerd's `LoadConfig` does, per version
//! line: breadth-first imports, each file decoded into the server `Config` struct,
//! migrated (2.x), merged (`mergeConfig`), then validated. Produces the merged server
//! config, the merged (raw) plugin map, the log lines the binary prints, and the
//! merge events the explanation is built from.
//!
//! This file is the loop and what it returns; each stage lives in its own file, in
//! the order a file goes through them: [`super::imports`] (read, parse, resolve
//! `imports`), `decode_file` here (the file onto the server `Config` struct),
//! [`super::migrate`] (older config versions), [`super::merge`] (`mergeConfig`), then
//! `validate_version` here. How Go and go-toml word a refusal is [`super::gowords`].
//!
//! Upstream: `services/server/config/config.go` (1.x), `cmd/containerd/server/config/
//! config.go` (2.x): `LoadConfig`, `loadConfigFile`, `resolveImports`, `mergeConfig`,
//! `MigrateConfigTo`, `v1Migrate`, `serviceMigrate`, `ValidateVersion`/`ValidateV2`.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::files::{Entry, Files};
use super::gonumbers::LazyNumber;
use super::gowords::{file_type_error, fits, go_type, header_key_position, type_error, STRICT};
#[cfg(feature = "go-toml-syntax")]
use super::gowords::value_position;
use super::imports::{read_file, resolve_imports};
use super::log::LogLine;
use super::merge::{merge, MergeEvent};
use super::migrate::migrate_file;
use super::syntax::Verdicts;
use super::schema::{Defaults, EntryType};
use super::value::{Node, Origin, Table, Value};
use super::version::{Line, Version};

/// Why loading stopped. `message` is what follows `containerd: ` on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub message: String,
    /// Log lines printed before the final error line (go-toml v2 logs the position).
    pub code: LoadErrorCode,
    pub at: Option<Origin>,
    /// `config dump` on 2.x swallows a missing file (`os.IsNotExist`); the daemon does not.
    pub dump_ignores: bool,
    /// A log line printed just before (go-toml v2 logs where a syntax error is).
    pub log: Option<Box<LogLine>>,
}

impl LoadError {
    /// A go-toml v2 error with a position, as containerd 2.x logs it
    /// (`Failure unmarshaling TOML` with row and column) and returns it.
    pub(super) fn unmarshal_at(path: &str, row: u32, column: u32, text: &str, code: LoadErrorCode, at: Option<Origin>) -> LoadError {
        let log = LogLine::new("error", "Failure unmarshaling TOML")
            .field("column", column.to_string())
            .field("error", format!("toml: {text}"))
            .field("file", path)
            .field("row", row.to_string());
        LoadError {
            message: format!("failed to unmarshal TOML at row {row} column {column}: toml: {text}"),
            code,
            at,
            dump_ignores: false,
            log: Some(Box::new(log)),
        }
    }
}

/// The stable code of a load failure (for diagnostics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadErrorCode {
    Syntax,
    Type,
    MissingFile,
    NotAFile,
    BadGlob,
    VersionTooHigh,
    DropinVersionAboveRoot,
    BadPluginUri,
    /// The lab's own limit, not containerd's: a file nested deeper than
    /// [`DEPTH_LIMIT`](super::parse::DEPTH_LIMIT).
    NestingLimit,
    /// containerd itself panics (a Go runtime panic: `panic: <message>`, exit 2).
    GoPanic,
}

impl LoadErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            LoadErrorCode::Syntax => "containerd-toml-syntax",
            LoadErrorCode::Type => "containerd-wrong-type",
            LoadErrorCode::MissingFile => "containerd-import-missing",
            LoadErrorCode::NotAFile => "containerd-import-not-a-file",
            LoadErrorCode::BadGlob => "containerd-import-bad-glob",
            LoadErrorCode::VersionTooHigh => "containerd-version-unsupported",
            LoadErrorCode::DropinVersionAboveRoot => "containerd-dropin-version-above-root",
            LoadErrorCode::BadPluginUri => "containerd-plugin-uri-invalid",
            LoadErrorCode::NestingLimit => "containerd-nesting-limit",
            LoadErrorCode::GoPanic => "containerd-panic",
        }
    }
}

/// One file as loaded.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub path: String,
    /// The `version` it declared (0 when none).
    pub version: i64,
    /// The file as parsed (before decoding and migration), with its spans.
    pub raw: Table,
}

/// The outcome of `LoadConfig`.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The merged server config (defaults first), without `plugins`.
    pub top: Table,
    /// The merged plugin map, as written (after migrations).
    pub plugins: Table,
    /// The files merged, in load order.
    pub files: Vec<LoadedFile>,
    /// Log lines in print order.
    pub log: Vec<LogLine>,
    pub events: Vec<MergeEvent>,
    pub error: Option<LoadError>,
    /// 2.0 and 2.1 start with a nil `imports` slice: mergo then takes the first
    /// non-empty list whole (duplicates kept) instead of through the slice transformer.
    pub imports_nil: bool,
    /// The files whose syntax the model judged with the lab's parser for want of
    /// containerd's verdict (never with `go-toml-syntax`; see [`super::syntax`]).
    pub syntax_unjudged: Vec<String>,
}

impl Loaded {
    /// The merged `version`.
    pub fn version(&self) -> i64 {
        self.top.get("version").and_then(Node::as_int).unwrap_or(0)
    }
}

/// Runs the load loop of `version` on `files`, starting at `main`.
pub fn load(files: &Files, version: &Version, defaults: &Defaults, main: &str, given: &Verdicts) -> Loaded {
    let mut top = defaults.top.clone();
    top.insert("version", Node::builtin(Value::Integer(version.default_config_version())));
    if version.is_1x() {
        // 1.x's defaultConfig() has no timeouts (dump fills them) and no imports.
        top.insert("imports", Node::builtin(Value::Array(Vec::new())));
    }
    let imports_nil = matches!(version.line, Line::V2_0 | Line::V2_1);
    let mut st = Loaded { top, plugins: Table::new(), files: Vec::new(), log: Vec::new(), events: Vec::new(), error: None, imports_nil, syntax_unjudged: Vec::new() };
    let mut pending: VecDeque<String> = VecDeque::from([main.to_string()]);
    let mut loaded: Vec<String> = Vec::new();
    let mut last = main.to_string();
    let mut root_version = 0;
    while let Some(path) = pending.pop_front() {
        last.clone_from(&path);
        if loaded.contains(&path) {
            continue;
        }
        let (mut file, lazy) = match read_file(files, version, &path, given, &mut st.syntax_unjudged) {
            Ok(f) => f,
            Err(e) => {
                let text = match files.read(&path) {
                    Entry::File(b) => b,
                    _ => &[],
                };
                // With a verdict given (the app's model), the verdict already is this.
                st.error = Some(if super::decode::EXACT { decoded_before_syntax_error(version, defaults, text, e) } else { e });
                return st;
            }
        };
        let parsed = file.clone();
        let text = match files.read(&path) {
            Entry::File(b) => b,
            _ => &[],
        };
        let raw = match decode_file(version, defaults, &path, text, file, &lazy, &mut st) {
            Ok(t) => t,
            Err(e) => {
                st.error = Some(e);
                return st;
            }
        };
        file = raw;
        let declared = file.get("version").and_then(Node::as_int).unwrap_or(0);
        if !version.is_1x() {
            if let Err(e) = migrate_file(version, &path, &mut file, declared, &mut root_version, &mut st) {
                st.error = Some(e);
                return st;
            }
        }
        let imports: Vec<String> = string_list(file.get("imports"));
        merge(version, &mut st, file);
        st.files.push(LoadedFile { path: path.clone(), version: declared, raw: parsed });
        match resolve_imports(files, version, &path, &imports) {
            Ok(more) => pending.extend(more),
            Err(e) => {
                st.error = Some(e);
                return st;
            }
        }
        loaded.push(path);
    }
    if version.is_1x() {
        let list = loaded.iter().map(|p| Node::builtin(Value::String(p.clone()))).collect();
        st.top.insert("imports", Node::builtin(Value::Array(list)));
    }
    if let Err(e) = validate_version(version, &mut st) {
        // containerd names only the file read last; the lab also points at the setting
        // that fails (the `version` line, the plugin list or table), wherever it was set.
        st.error = Some(LoadError { message: format!("failed to load TOML from {last}: {}", e.0), code: e.1, at: e.2, dump_ignores: false, log: None });
    }
    st
}

/// go-toml v2.2–2.3 (containerd 2.0–2.3) decode each expression as soon as it is
/// parsed: a type error in the file's own fields before a syntax error is reported
/// instead of it (seed 7453586491648913775 node 15: `[timeouts]` then `a = 1 b = 2` is
/// `cannot decode TOML integer` at `1`, not `expected newline` at `b`). The text before
/// the syntax error is decoded on its own; v2.4 parses the whole document first.
pub(super) fn decoded_before_syntax_error(version: &Version, defaults: &Defaults, text: &[u8], e: LoadError) -> LoadError {
    let Some(at) = e.at.as_ref().filter(|_| decodes_before_syntax_error(version, &e)) else { return e };
    let Some(prefix) = super::parse::text_before(text, at.line, at.column) else { return e };
    let Ok(table) = super::parse::parse(&at.file, prefix) else { return e };
    match decode_fields(version, defaults, prefix, table) {
        Err(te) if te.code == LoadErrorCode::Type && te.at.as_ref().is_some_and(|t| (t.line, t.column) < (at.line, at.column)) => te,
        _ => e,
    }
}

/// Whether `e` is a syntax error that a type error earlier in the file may stand in for
/// ([`decoded_before_syntax_error`]).
pub(super) fn decodes_before_syntax_error(version: &Version, e: &LoadError) -> bool {
    !version.is_1x() && version.line <= Line::V2_3 && e.code == LoadErrorCode::Syntax
}

/// The fields of server-config section `name` this version knows.
fn section_fields(version: &Version, defaults: &Defaults, name: &str) -> Table {
    let mut t = defaults.top.get_table(name).cloned().unwrap_or_default();
    if version.migrates_per_file() {
        // 2.3+ hides the deprecated server fields (omitempty) but still reads them.
        let extra: &[(&str, &[&str])] = &[
            ("grpc", &["address", "tcp_address", "tcp_tls_ca", "tcp_tls_cert", "tcp_tls_key", "uid", "gid", "max_recv_message_size", "max_send_message_size", "tcp_tls_common_name"]),
            ("ttrpc", &["address", "uid", "gid"]),
            ("debug", &["address", "uid", "gid"]),
            ("metrics", &["address", "grpc_histogram"]),
        ];
        for (section, fields) in extra {
            if *section == name {
                for f in *fields {
                    if !t.contains(f) {
                        let zero = match *f {
                            "uid" | "gid" | "max_recv_message_size" | "max_send_message_size" => Value::Integer(0),
                            "grpc_histogram" => Value::Boolean(false),
                            _ => Value::String(String::new()),
                        };
                        t.insert(*f, Node::builtin(zero));
                    }
                }
            }
        }
    }
    t
}

fn is_section(version: &Version, defaults: &Defaults, name: &str) -> bool {
    matches!(name, "grpc" | "ttrpc" | "debug" | "metrics" | "cgroup")
        && (defaults.top.contains(name) || version.migrates_per_file())
}

/// Decodes one file into the server `Config` struct: known keys, right types; unknown
/// keys are warned about (2.x) or silently dropped (1.x). `lazy`: the numbers whose
/// underscores go-toml v2.2–2.3 refuse only when it decodes them ([`gonumbers`]).
fn decode_file(version: &Version, defaults: &Defaults, path: &str, text: &[u8], raw: Table, lazy: &[LazyNumber], st: &mut Loaded) -> Result<Table, LoadError> {
    let first_lazy = first_decoded(version, defaults, text, &raw, lazy);
    let (out, unknown) = match decode_fields(version, defaults, text, raw) {
        Ok(decoded) => decoded,
        // go-toml decodes expression by expression: a number decoded on an earlier
        // line fails before a type error below it.
        Err(e) => {
            return Err(match first_lazy {
                Some(l) if e.at.as_ref().is_none_or(|a| l.row <= a.line) => l.error(path),
                _ => e,
            })
        }
    };
    if let Some(l) = first_lazy {
        return Err(l.error(path));
    }
    let file_path = path;
    for (path, at) in unknown {
        if !version.is_1x() {
            let (row, col) = at.as_ref().map_or((0, 0), |o| header_key_position(text, o, path.len().saturating_sub(1)).unwrap_or((o.line, o.column)));
            st.log.push(
                LogLine::new("warning", "Ignoring unknown key in TOML")
                    .field("file", file_path.to_string())
                    .field("row", row.to_string())
                    .field("column", col.to_string())
                    .field("key", path.join(" "))
                    .field("error", STRICT),
            );
        }
        st.events.push(MergeEvent::UnknownKey { path, at });
    }
    Ok(out)
}

#[cfg(feature = "go-toml-syntax")]
/// Is a value at `path` of a file decoded into the server `Config` (2.x)? Keys the
/// struct lacks, and everything under them, are skipped unread (go-toml's strict
/// mode notes them and moves on); `plugins` is an `interface{}`, read whole.
fn is_decoded(version: &Version, defaults: &Defaults, path: &[String]) -> bool {
    let Some(top) = path.first().map(String::as_str) else { return false };
    match top {
        "plugins" | "imports" | "disabled_plugins" | "required_plugins" | "version" | "oom_score" | "timeouts" => true,
        k if defaults.top.get(k).is_some_and(|d| d.as_str().is_some()) => true,
        k if is_section(version, defaults, k) => path.get(1).is_none_or(|f| section_fields(version, defaults, k).contains(f)),
        "proxy_plugins" | "stream_processors" => path.get(2).is_none_or(|f| {
            let entry_type = if top == "proxy_plugins" { EntryType::ProxyPlugin } else { EntryType::StreamProcessor };
            let template = defaults.template(version, entry_type);
            template.as_table().is_some_and(|t| t.contains(f)) || (f == "exports" && top == "proxy_plugins")
        }),
        _ => false,
    }
}

/// The first (in document order) of `lazy` that decoding `raw` reads.
#[cfg(feature = "go-toml-syntax")]
fn first_decoded<'l>(version: &Version, defaults: &Defaults, text: &[u8], raw: &Table, lazy: &'l [LazyNumber]) -> Option<&'l LazyNumber> {
    fn walk(text: &[u8], t: &Table, path: &mut Vec<String>, out: &mut Vec<((u32, u32), Vec<String>)>) {
        for (k, n) in &t.entries {
            path.push(k.clone());
            match &n.value {
                Value::Integer(_) | Value::Float(_) => out.extend(n.origin.as_ref().map(|o| (value_position(text, o), path.clone()))),
                Value::Array(items) => items_walk(text, items, path, out),
                Value::Table(sub) => walk(text, sub, path, out),
                _ => {}
            }
            path.pop();
        }
    }
    fn items_walk(text: &[u8], items: &[Node], path: &mut Vec<String>, out: &mut Vec<((u32, u32), Vec<String>)>) {
        for item in items {
            match &item.value {
                Value::Integer(_) | Value::Float(_) => out.extend(item.origin.as_ref().map(|o| ((o.line, byte_column(text, o)), path.clone()))),
                Value::Array(inner) => items_walk(text, inner, path, out),
                Value::Table(sub) => walk(text, sub, path, out),
                _ => {}
            }
        }
    }
    if lazy.is_empty() {
        return None;
    }
    let mut numbers = Vec::new();
    walk(text, raw, &mut Vec::new(), &mut numbers);
    lazy.iter()
        .filter(|l| numbers.iter().any(|(at, path)| *at == (l.row, l.column) && is_decoded(version, defaults, path)))
        .min_by_key(|l| (l.row, l.column))
}

#[cfg(feature = "go-toml-syntax")]
/// The byte column of `o` (whose column counts characters) in `text`.
fn byte_column(text: &[u8], o: &Origin) -> u32 {
    let line = text.split(|b| *b == b'\n').nth(o.line.saturating_sub(1) as usize).unwrap_or(&[]);
    let line = String::from_utf8_lossy(line);
    let bytes = line.char_indices().nth(o.column.saturating_sub(1) as usize).map_or(line.len(), |(i, _)| i);
    u32::try_from(bytes + 1).unwrap_or(u32::MAX)
}

/// Without `go-toml-syntax` no number is read leniently ([`super::gonumbers`]).
#[cfg(not(feature = "go-toml-syntax"))]
fn first_decoded<'l>(_: &Version, _: &Defaults, _: &[u8], _: &Table, _: &'l [LazyNumber]) -> Option<&'l LazyNumber> {
    None
}

/// The known keys of one file decoded, and the unknown ones with where they are.
type Decoded = (Table, Vec<(Vec<String>, Option<Origin>)>);

fn decode_fields(version: &Version, defaults: &Defaults, text: &[u8], raw: Table) -> Result<Decoded, LoadError> {
    let mut out = Table::new();
    const CONFIG: &str = "config.Config";
    let top_error = |node: &Node, want: &str, key: &str| file_type_error(version, text, node, want, CONFIG, key, defaults.top.get(key));
    let mut unknown: Vec<(Vec<String>, Option<Origin>)> = Vec::new();
    for (key, node) in raw.entries {
        match key.as_str() {
            "plugins" => {
                if !node.is_table() {
                    return Err(top_error(&node, "map[string]toml.Tree(map)", "plugins"));
                }
                if version.is_1x() {
                    if let Some((_, bad)) = node.as_table().and_then(|t| t.entries.iter().find(|(_, v)| !v.is_table())) {
                        return Err(type_error(version, bad, "toml.Tree", false));
                    }
                }
                out.insert(key, node);
            }
            "imports" | "disabled_plugins" | "required_plugins" => {
                let ok = matches!(&node.value, Value::Array(a) if a.iter().all(|e| e.as_str().is_some()));
                if !ok {
                    // go-toml v1 names a slice target with its kind: `[]string(slice)`.
                    return Err(top_error(&node, "[]string(slice)", &key));
                }
                out.insert(key, node);
            }
            "version" | "oom_score" => {
                if node.as_int().is_none() {
                    return Err(file_type_error(version, text, &node, "int", CONFIG, &key, Some(&Node::builtin(Value::Integer(0)))));
                }
                out.insert(key, node);
            }
            k if defaults.top.get(k).is_some_and(|d| d.as_str().is_some()) => {
                if node.as_str().is_none() {
                    return Err(top_error(&node, "string", k));
                }
                out.insert(key, node);
            }
            k if is_section(version, defaults, k) => {
                let fields = section_fields(version, defaults, k);
                let Value::Table(t) = node.value else {
                    return Err(top_error(&node, "struct", k));
                };
                let owner = super::gonames::struct_name("", std::slice::from_ref(&key));
                let mut section = Table::new();
                for (f, v) in t.entries {
                    match fields.get(&f) {
                        Some(d) if fits(d, &v) => section.insert(f, v),
                        Some(d) => return Err(file_type_error(version, text, &v, go_type(d), owner, &f, Some(d))),
                        None => unknown.push((vec![key.clone(), f], v.origin.clone())),
                    }
                }
                out.insert(key, Node::new(Value::Table(section), node.origin));
            }
            "proxy_plugins" | "stream_processors" | "timeouts" => {
                let Value::Table(t) = node.value else {
                    return Err(top_error(&node, "map", &key));
                };
                let entry_type = match key.as_str() {
                    "proxy_plugins" => EntryType::ProxyPlugin,
                    "stream_processors" => EntryType::StreamProcessor,
                    _ => EntryType::String,
                };
                let template = defaults.template(version, entry_type);
                let mut map = Table::new();
                for (name, v) in t.entries {
                    if entry_type == EntryType::String {
                        if v.as_str().is_none() {
                            #[cfg(feature = "go-toml-syntax")]
                            if version.line >= Line::V2_4 {
                                if let Some(e) = super::gowords::timeouts_entry_error_v24(text, node.origin.as_ref(), &v) {
                                    return Err(e);
                                }
                            }
                            return Err(top_error(&v, "string", &key));
                        }
                        map.insert(name, v);
                        continue;
                    }
                    let Value::Table(fields) = &v.value else {
                        return Err(top_error(&v, "struct", &key));
                    };
                    let owner = super::gonames::struct_name("", &[key.clone(), name.clone()]);
                    let mut entry = template.clone();
                    entry.origin.clone_from(&v.origin);
                    if let Some(e) = entry.as_table_mut() {
                        for (f, fv) in &fields.entries {
                            let known = e.get(f).cloned().or_else(|| (f == "exports" && key == "proxy_plugins").then(|| Node::builtin(Value::Table(Table::new()))));
                            match known {
                                Some(d) if fits(&d, fv) => e.insert(f.clone(), fv.clone()),
                                Some(d) => return Err(file_type_error(version, text, fv, go_type(&d), owner, f, Some(&d))),
                                None => unknown.push((vec![key.clone(), name.clone(), f.clone()], fv.origin.clone())),
                            }
                        }
                    }
                    map.insert(name, entry);
                }
                out.insert(key, Node::new(Value::Table(map), node.origin));
            }
            _ => {
                let at = node.origin.clone();
                unknown.push((vec![key], at));
            }
        }
    }
    Ok((out, unknown))
}

// ---- 2.x per-file migration ---------------------------------------------------------

// ---- mergeConfig ----------------------------------------------------------------------

// ---- resolveImports -------------------------------------------------------------------

// ---- ValidateVersion --------------------------------------------------------------------

/// Where the top-level key `key` of the merged config was written.
fn origin_of(st: &Loaded, key: &str) -> Option<Origin> {
    st.top.get(key).and_then(|n| n.origin.clone())
}

/// Where item `item` of the merged list `key` was written (the list's own line when
/// the item carries none).
fn item_origin(st: &Loaded, key: &str, item: &str) -> Option<Origin> {
    let list = st.top.get(key)?;
    let found = match &list.value {
        Value::Array(items) => items.iter().find(|n| n.as_str() == Some(item)).and_then(|n| n.origin.clone()),
        _ => None,
    };
    found.or_else(|| list.origin.clone())
}

/// `ValidateVersion` (2.x) and the 1.x `ValidateV2`: the refusal's text, its code and
/// where the offending setting (the version, a plugin list or table) was written.
fn validate_version(version: &Version, st: &mut Loaded) -> Result<(), (String, LoadErrorCode, Option<Origin>)> {
    let v = st.version();
    let disabled = string_list(st.top.get("disabled_plugins"));
    let required = string_list(st.top.get("required_plugins"));
    let quote = super::log::go_quote;
    if version.is_1x() {
        let v = if v == 0 { 1 } else { v };
        if v < 2 {
            let text = if version.new_v1_deprecation_text() {
                format!("containerd config version `{v}` has been deprecated and will be converted on each startup in containerd v2.0, use `containerd config migrate` after upgrading to containerd 2.0 to avoid conversion on startup")
            } else {
                format!("containerd config version `{v}` has been deprecated and will be removed in containerd v2.0, please switch to version `2`, see https://github.com/containerd/containerd/blob/main/docs/PLUGINS.md#version-header")
            };
            st.log.push(LogLine::new("warning", text));
            return Ok(());
        }
        if version.rejects_version_above_2() && v > 2 {
            st.log.push(LogLine::new("error", format!("containerd config version `{v}` is not supported, the max version is `2`, use `containerd config default` to generate a new config or manually revert to version `2`")));
            return Err((format!("unsupported config version `{v}`"), LoadErrorCode::VersionTooHigh, origin_of(st, "version")));
        }
        let short = |p: &str| p.split('.').count() < 4;
        if let Some(p) = disabled.iter().find(|p| short(p)) {
            return Err((format!("invalid disabled plugin URI {} expect io.containerd.x.vx", quote(p)), LoadErrorCode::BadPluginUri, item_origin(st, "disabled_plugins", p)));
        }
        if let Some(p) = required.iter().find(|p| short(p)) {
            return Err((format!("invalid required plugin URI {} expect io.containerd.x.vx", quote(p)), LoadErrorCode::BadPluginUri, item_origin(st, "required_plugins", p)));
        }
        let mut keys: Vec<&str> = st.plugins.keys().collect();
        crate::sort::sort(&mut keys);
        // 1.7 also wants every plugin key under `io.containerd.`.
        let bad_key = |p: &str| short(p) || (version.line == Line::V1_7 && !p.starts_with("io.containerd."));
        if let Some(p) = keys.into_iter().find(|p| bad_key(p)) {
            let at = st.plugins.get(p).and_then(|n| n.origin.clone());
            return Err((format!("invalid plugin key URI {} expect io.containerd.x.vx", quote(p)), LoadErrorCode::BadPluginUri, at));
        }
        return Ok(());
    }
    let max = version.config_version();
    if v > max {
        return Err((format!("expected containerd config version equal to or less than `{max}`, got `{v}`"), LoadErrorCode::VersionTooHigh, origin_of(st, "version")));
    }
    if let Some(p) = disabled.iter().find(|p| !p.contains('.')) {
        return Err((format!("invalid disabled plugin URI {} expect io.containerd.x.vx", quote(p)), LoadErrorCode::BadPluginUri, item_origin(st, "disabled_plugins", p)));
    }
    if let Some(p) = required.iter().find(|p| !p.contains('.')) {
        return Err((format!("invalid required plugin URI {} expect io.containerd.x.vx", quote(p)), LoadErrorCode::BadPluginUri, item_origin(st, "required_plugins", p)));
    }
    Ok(())
}

fn string_list(n: Option<&Node>) -> Vec<String> {
    match n.map(|n| &n.value) {
        Some(Value::Array(a)) => a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}
