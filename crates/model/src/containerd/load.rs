//! Loading a node's config files the way containerd's `LoadConfig` does, per version
//! line: breadth-first imports, each file decoded into the server `Config` struct,
//! migrated (2.x), merged (`mergeConfig`), then validated. Produces the merged server
//! config, the merged (raw) plugin map, the log lines the binary prints, and the
//! merge events the explanation is built from.
//!
//! Upstream: `services/server/config/config.go` (1.x), `cmd/containerd/server/config/
//! config.go` (2.x): `LoadConfig`, `loadConfigFile`, `resolveImports`, `mergeConfig`,
//! `MigrateConfigTo`, `v1Migrate`, `serviceMigrate`, `ValidateVersion`/`ValidateV2`.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::files::{self, Entry, Files};
use super::log::LogLine;
use super::parse::parse;
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

/// Something the merge did that a learner should see.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeEvent {
    /// A later file's table replaced an earlier one whole (1.x plugins; any version's
    /// proxy plugins and stream processors). `lost` are the earlier leaves it dropped.
    TableReplaced { table: Vec<String>, by: Option<Origin>, earlier: Option<Origin>, lost: Vec<Lost> },
    /// A later file changed a value an earlier file had set.
    ValueChanged { path: Vec<String>, old: Node, new: Node },
    /// A zero value (`0`, `""`, `false`) that does not override (server config fields).
    ZeroIgnored { path: Vec<String>, at: Option<Origin> },
    /// A key containerd does not know, dropped while reading a file.
    UnknownKey { path: Vec<String>, at: Option<Origin> },
}

/// An earlier setting a replacement dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct Lost {
    pub path: Vec<String>,
    pub value: Node,
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

const STRICT: &str = "strict mode: fields in the document are missing in the target struct";

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
        let mut file = match read_file(files, version, &path, given, &mut st.syntax_unjudged) {
            Ok(f) => f,
            Err(e) => {
                st.error = Some(e);
                return st;
            }
        };
        let parsed = file.clone();
        let text = match files.read(&path) {
            Entry::File(b) => b,
            _ => &[],
        };
        let raw = match decode_file(version, defaults, &path, text, file, &mut st) {
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

fn read_file(files: &Files, version: &Version, path: &str, given: &Verdicts, pending: &mut Vec<String>) -> Result<Table, LoadError> {
    let not_found = |code, what: &str| {
        let os = format!("open {path}: {what}");
        let message = if version.is_1x() { format!("failed to load TOML: {path}: {os}") } else { os };
        LoadError { message, code, at: None, dump_ignores: !version.is_1x() && code == LoadErrorCode::MissingFile, log: None }
    };
    let bytes = match files.read(path) {
        Entry::File(b) => b,
        Entry::Missing => return Err(not_found(LoadErrorCode::MissingFile, "no such file or directory")),
        Entry::Dir => {
            let message = if version.is_1x() {
                format!("failed to load TOML: {path}: read {path}: is a directory")
            } else {
                format!("failed to unmarshal TOML: read {path}: is a directory")
            };
            return Err(LoadError { message, code: LoadErrorCode::NotAFile, at: None, dump_ignores: false, log: None });
        }
    };
    let original = bytes;
    let lossy;
    // go-toml v1 reads invalid UTF-8 as U+FFFD; go-toml v2 rejects it.
    let bytes = if version.is_1x() && std::str::from_utf8(bytes).is_err() {
        lossy = String::from_utf8_lossy(bytes).into_owned();
        lossy.as_bytes()
    } else {
        bytes
    };
    let parsed = parse(path, bytes);
    // Whether (and how) containerd reports a syntax error is its TOML library's call:
    // `syntax` has the verdict, or the lab parser's error while it has none.
    if let Some(e) = super::syntax::judge(version, path, original, bytes, &parsed, given, pending) {
        return Err(e);
    }
    parsed.map_err(|e| super::syntax::lab_error(version, path, &e))
}

/// Go type names for conversion errors, by the default value's shape.
fn go_type(n: &Node) -> &'static str {
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
        Value::Float(f) => crate::float::display(*f),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => go_time(d),
        Value::Array(a) => format!("[{}]", a.iter().map(go_value).collect::<Vec<_>>().join(" ")),
        Value::Table(t) => {
            format!("map[{}]", t.entries.iter().map(|(k, v)| format!("{k}:{}", go_value(v))).collect::<Vec<_>>().join(" "))
        }
    }
}

/// An offset datetime as Go's `time.Time.String()` prints it
/// (`1979-05-27 07:32:00 +0000 UTC`); other datetimes as written.
fn go_time(d: &str) -> String {
    let Some((date, rest)) = d.split_once(['T', 't', ' ']) else { return d.to_string() };
    let (time, zone) = if let Some(t) = rest.strip_suffix(['Z', 'z']) {
        (t, "+0000 UTC".to_string())
    } else if let Some(i) = rest.rfind(['+', '-']).filter(|i| *i >= 8) {
        let (t, off) = rest.split_at(i);
        let off = off.replace(':', "");
        (t, format!("{off} {off}"))
    } else {
        return d.to_string();
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

/// A conversion error as each go-toml words it.
pub fn type_error(version: &Version, value: &Node, want: &str, in_plugin: bool) -> LoadError {
    let (line, col) = value.origin.as_ref().map_or((1, 1), |o| (o.line, o.column));
    let message = if version.is_1x() {
        let prefix = if in_plugin { String::new() } else { "failed to unmarshal TOML: ".to_string() };
        // go-toml v1 words every array-into-non-slice failure this way.
        let want = if matches!(value.value, Value::Array(_)) { "a slice" } else { want };
        format!("{prefix}({line}, {col}): Can't convert {}({}) to {want}", go_value(value), value.type_name())
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
fn file_type_error(version: &Version, text: &[u8], value: &Node, want_v1: &str, owner: &'static str, key: &str, default: Option<&Node>) -> LoadError {
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

/// The byte at 1-based `row` and byte `column` of `text`.
fn byte_at(text: &[u8], row: u32, column: u32) -> Option<u8> {
    let line = text.split(|b| *b == b'\n').nth(row.checked_sub(1)? as usize)?;
    line.get(column.checked_sub(1)? as usize).copied()
}

/// Where go-toml v2 places an unknown table: at its key inside the `[header]` that
/// `at` points to (the `depth`-th dotted part), not at the `[`. `None` when `at` is
/// not a header.
fn header_key_position(text: &[u8], at: &Origin, depth: usize) -> Option<(u32, u32)> {
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
/// keys are warned about (2.x) or silently dropped (1.x).
fn decode_file(version: &Version, defaults: &Defaults, path: &str, text: &[u8], raw: Table, st: &mut Loaded) -> Result<Table, LoadError> {
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
                    return Err(top_error(&node, "[]string", &key));
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

fn string_list(n: Option<&Node>) -> Vec<String> {
    match n.map(|n| &n.value) {
        Some(Value::Array(a)) => a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

// ---- 2.x per-file migration ---------------------------------------------------------

/// `v1MigratePluginName`: a v1 short plugin ID as the URI 2.x assumes for it.
pub fn v1_plugin_name(name: &str) -> (String, bool) {
    if name.contains('.') {
        return (name.to_string(), false);
    }
    let core = match name {
        "cri" => Some("io.containerd.grpc.v1.cri"),
        "cgroups" => Some("io.containerd.monitor.v1.cgroups"),
        "linux" => Some("io.containerd.runtime.v1.linux"),
        "scheduler" => Some("io.containerd.gc.v1.scheduler"),
        "bolt" => Some("io.containerd.metadata.v1.bolt"),
        "task" => Some("io.containerd.runtime.v2.task"),
        "opt" => Some("io.containerd.internal.v1.opt"),
        "restart" => Some("io.containerd.internal.v1.restart"),
        "tracing" => Some("io.containerd.internal.v1.tracing"),
        "otlp" => Some("io.containerd.tracing.processor.v1.otlp"),
        "aufs" => Some("io.containerd.snapshotter.v1.aufs"),
        "btrfs" => Some("io.containerd.snapshotter.v1.btrfs"),
        "devmapper" => Some("io.containerd.snapshotter.v1.devmapper"),
        "native" => Some("io.containerd.snapshotter.v1.native"),
        "overlayfs" => Some("io.containerd.snapshotter.v1.overlayfs"),
        "zfs" => Some("io.containerd.snapshotter.v1.zfs"),
        _ => None,
    };
    match core {
        Some(uri) => (uri.to_string(), false),
        None if name.ends_with("-service") => (format!("io.containerd.service.v1.{name}"), false),
        None if name == "windows" || name == "windows-lcow" => (format!("io.containerd.snapshotter.v1.{name}"), true),
        None => (format!("io.containerd.grpc.v1.{name}"), true),
    }
}

/// `v1Migrate`: short plugin IDs become URIs, in `plugins`, `disabled_plugins` and
/// `required_plugins`.
fn v1_migrate(file: &mut Table, st: &mut Loaded) {
    if let Some(plugins) = file.get_mut("plugins").and_then(Node::as_table_mut) {
        let entries = std::mem::take(&mut plugins.entries);
        for (k, v) in entries {
            let (uri, ambiguous) = v1_plugin_name(&k);
            if ambiguous {
                st.log.push(LogLine::new("warning", format!("Ambiguous {k} plugin in v1 config, treating as {uri}")));
            }
            plugins.insert(uri, v);
        }
    }
    for list in ["disabled_plugins", "required_plugins"] {
        if let Some(Value::Array(items)) = file.get_mut(list).map(|n| &mut n.value) {
            for item in items {
                if let Value::String(s) = &mut item.value {
                    *s = v1_plugin_name(s).0;
                }
            }
        }
    }
}

/// `serviceMigrate` (3 → 4): the deprecated `[grpc]`, `[ttrpc]`, `[debug]`, `[metrics]`
/// fields move into `io.containerd.server.v1.*` plugin tables. Only the fields a file
/// sets move (the goldens: a drop-in's `[grpc] max_recv_message_size` alone becomes
/// `server.v1.grpc.max_recv_message_size`, the socket address keeps its default).
/// (section, field, plugin field)
type Move = (&'static str, &'static str, &'static str);

fn service_migrate(file: &mut Table) {
    // (plugin, [(section, field, plugin field)])
    let moves: &[(&str, &[Move])] = &[
        ("io.containerd.server.v1.debug", &[("debug", "address", "address"), ("debug", "uid", "uid"), ("debug", "gid", "gid")]),
        (
            "io.containerd.server.v1.grpc",
            &[
                ("grpc", "address", "address"),
                ("grpc", "uid", "uid"),
                ("grpc", "gid", "gid"),
                ("grpc", "max_recv_message_size", "max_recv_message_size"),
                ("grpc", "max_send_message_size", "max_send_message_size"),
            ],
        ),
        (
            "io.containerd.server.v1.grpc-tcp",
            &[
                ("grpc", "tcp_address", "address"),
                ("grpc", "tcp_tls_ca", "tls_ca"),
                ("grpc", "tcp_tls_cert", "tls_cert"),
                ("grpc", "tcp_tls_key", "tls_key"),
                ("grpc", "tcp_tls_common_name", "tls_common_name"),
            ],
        ),
        ("io.containerd.server.v1.ttrpc", &[("ttrpc", "address", "address"), ("ttrpc", "uid", "uid"), ("ttrpc", "gid", "gid")]),
        ("io.containerd.server.v1.metrics", &[("metrics", "address", "address")]),
        ("io.containerd.metrics.v1.grpc-prometheus", &[("metrics", "grpc_histogram", "grpc_histogram")]),
    ];
    let mut add: Vec<(String, Table, Option<Origin>)> = Vec::new();
    let mut clear: Vec<(&str, &str)> = Vec::new();
    for (plugin, fields) in moves {
        if file.get_path(&["plugins", plugin]).is_some() {
            continue;
        }
        let mut t = Table::new();
        let mut origin = None;
        for (section, field, target) in *fields {
            if let Some(v) = file.get_path(&[section, field]).filter(|v| !v.is_zero()) {
                origin = origin.or_else(|| v.origin.clone());
                t.insert(*target, v.clone());
                clear.push((section, field));
            }
        }
        if *plugin == "io.containerd.server.v1.grpc-tcp" && !t.entries.is_empty() {
            for f in ["max_recv_message_size", "max_send_message_size"] {
                if let Some(v) = file.get_path(&["grpc", f]).filter(|v| !v.is_zero()) {
                    t.insert(f, v.clone());
                }
            }
        }
        if *plugin == "io.containerd.server.v1.ttrpc" && !t.contains("address") {
            let grpc = file.get_path(&["grpc", "address"]).filter(|v| !v.is_zero()).cloned();
            if let Some(Node { value: Value::String(a), origin: o }) = grpc {
                origin = origin.or_else(|| o.clone());
                t.insert("address", Node::new(Value::String(format!("{a}.ttrpc")), o));
            }
        }
        if !t.entries.is_empty() {
            add.push(((*plugin).to_string(), t, origin));
        }
    }
    for (section, field) in clear {
        if let Some(t) = file.get_mut(section).and_then(Node::as_table_mut) {
            t.remove(field);
        }
    }
    if add.is_empty() {
        return;
    }
    if let Some(plugins) = file.table_mut("plugins", None) {
        for (id, t, origin) in add {
            plugins.insert(id, Node::new(Value::Table(t), origin));
        }
    }
}

/// The CRI plugins' `ConfigMigration` functions (v2 → v3), in plugin-graph order:
/// images, runtime, then the gRPC CRI plugin trims what the others took.
pub fn migrate_cri_plugins(version: &Version, plugins: &mut Table, config_version: i64) -> Result<(), LoadError> {
    // Each CRI plugin migrates while the version is below the line's own
    // (`configVersion >= version.ConfigVersion`): on 2.3+ (4) a version 3 file's
    // `io.containerd.grpc.v1.cri` table moves too.
    if config_version >= version.config_version() {
        return Ok(());
    }
    // The images plugin's migration asserts these are tables (`v.(map[string]interface{})`)
    // and panics otherwise.
    if let Some(src) = plugins.get("io.containerd.grpc.v1.cri") {
        expect_map(src)?;
        if let Some(c) = src.as_table().and_then(|t| t.get("containerd")) {
            expect_map(c)?;
            if let Some(r) = c.as_table().and_then(|t| t.get("runtimes")) {
                expect_map(r)?;
                for (_, rt) in r.as_table().map_or(&[][..], |t| &t.entries[..]) {
                    expect_map(rt)?;
                }
            }
        }
    }
    migrate_cri_tables(version, plugins);
    Ok(())
}

/// A Go type assertion to `map[string]interface{}`: a panic unless `n` is a table.
fn expect_map(n: &Node) -> Result<(), LoadError> {
    if n.is_table() {
        return Ok(());
    }
    let t = super::gonames::interface_type(n);
    Err(go_panic(format!("interface conversion: interface {{}} is {t}, not map[string]interface {{}}"), n.origin.clone()))
}

fn migrate_cri_tables(version: &Version, plugins: &mut Table) {
    // `cni.bin_dirs` (and the bin_dir → bin_dirs move) arrived in 2.1.
    let has_bin_dirs = version.line >= Line::V2_1;
    let Some(src) = plugins.get_table("io.containerd.grpc.v1.cri").cloned() else {
        return;
    };
    // io.containerd.cri.v1.images
    let mut dst = plugins.get_table("io.containerd.cri.v1.images").cloned().unwrap_or_default();
    let mut pinned = dst.get_table("pinned_images").cloned().unwrap_or_default();
    if let Some(simage) = src.get("sandbox_image") {
        pinned.insert("sandbox", simage.clone());
    }
    if !pinned.entries.is_empty() {
        let origin = src.get("sandbox_image").and_then(|n| n.origin.clone());
        dst.insert("pinned_images", Node::new(Value::Table(pinned), origin));
    }
    for key in ["registry", "image_decryption", "max_concurrent_downloads", "image_pull_progress_timeout", "image_pull_with_sync_fs", "stats_collect_period"] {
        if let Some(v) = src.get(key) {
            dst.insert(key, v.clone());
        }
    }
    // `migrateConfig` returns early when `containerd.runtimes` is missing, before it
    // copies these.
    if let Some(c) = src.get_table("containerd").filter(|c| c.contains("runtimes")) {
        for key in ["snapshotter", "disable_snapshot_annotations", "discard_unpacked_layers"] {
            if let Some(v) = c.get(key) {
                dst.insert(key, v.clone());
            }
        }
    }
    let images_origin = src_origin(plugins);
    plugins.insert("io.containerd.cri.v1.images", Node::new(Value::Table(dst), images_origin.clone()));

    // io.containerd.cri.v1.runtime
    let mut dst = plugins.get_table("io.containerd.cri.v1.runtime").cloned().unwrap_or_default();
    for (k, v) in &src.entries {
        let skip = matches!(
            k.as_str(),
            "cni" | "containerd" | "sandbox_image" | "registry" | "image_decryption" | "max_concurrent_downloads"
                | "image_pull_progress_timeout" | "image_pull_with_sync_fs" | "stats_collect_period"
                | "disable_tcp_service" | "stream_server_address" | "stream_server_port" | "stream_idle_timeout"
                | "enable_tls_streaming" | "x509_key_pair_streaming"
        );
        if !skip && !dst.contains(k) {
            dst.insert(k.clone(), v.clone());
        }
    }
    if let Some(cni) = src.get("cni").and_then(|n| n.as_table().map(|t| (t.clone(), n.origin.clone()))) {
        let (cni, origin) = cni;
        let mut new_cni = dst.get_table("cni").cloned().unwrap_or_default();
        for (k, v) in cni.entries {
            if k == "bin_dir" && has_bin_dirs {
                let has_dirs = matches!(new_cni.get("bin_dirs").map(|n| &n.value), Some(Value::Array(a)) if !a.is_empty());
                if !has_dirs {
                    let origin = v.origin.clone();
                    new_cni.insert("bin_dirs", Node::new(Value::Array(vec![v]), origin));
                }
            } else if !new_cni.contains(&k) {
                new_cni.insert(k, v);
            }
        }
        dst.insert("cni", Node::new(Value::Table(new_cni), origin));
    }
    if let Some(c) = src.get("containerd").and_then(|n| n.as_table().map(|t| (t.clone(), n.origin.clone()))) {
        let (c, origin) = c;
        let mut new_c = dst.get_table("containerd").cloned().unwrap_or_default();
        for (k, v) in c.entries {
            if !matches!(k.as_str(), "snapshotter" | "disable_snapshot_annotations" | "discard_unpacked_layers") && !new_c.contains(&k) {
                new_c.insert(k, v);
            }
        }
        if let Some(runtimes) = new_c.get_mut("runtimes").and_then(Node::as_table_mut) {
            for (_, rt) in &mut runtimes.entries {
                if let Some(rt) = rt.as_table_mut() {
                    if let Some(mode) = rt.get("sandbox_mode").cloned() {
                        if !rt.contains("sandboxer") {
                            rt.insert("sandboxer", mode);
                            rt.remove("sandbox_mode");
                        }
                    }
                }
            }
        }
        dst.insert("containerd", Node::new(Value::Table(new_c), origin));
    }
    plugins.insert("io.containerd.cri.v1.runtime", Node::new(Value::Table(dst), images_origin.clone()));

    // io.containerd.grpc.v1.cri keeps only the streaming server settings.
    let mut kept = Table::new();
    for key in ["disable_tcp_service", "stream_server_address", "stream_server_port", "stream_idle_timeout", "enable_tls_streaming", "x509_key_pair_streaming"] {
        if let Some(v) = src.get(key) {
            kept.insert(key, v.clone());
        }
    }
    // Written back even when empty (`pluginConfigs[pluginName] = dst`): a disabled CRI
    // plugin's table is then printed as `[plugins.'io.containerd.grpc.v1.cri']`.
    plugins.insert("io.containerd.grpc.v1.cri", Node::new(Value::Table(kept), images_origin));
}

fn src_origin(plugins: &Table) -> Option<Origin> {
    plugins.get("io.containerd.grpc.v1.cri").and_then(|n| n.origin.clone())
}

fn migrate_file(version: &Version, path: &str, file: &mut Table, declared: i64, root_version: &mut i64, st: &mut Loaded) -> Result<(), LoadError> {
    let current = st.version();
    if !version.migrates_per_file() {
        // 2.0–2.2: only version-less and v1 files, up to the merged version, without
        // plugin migrations.
        if declared <= 1 {
            // `MigrateConfigTo(out.Version)` indexes `migrations` (versions 0–2): a
            // merged version above 3 runs past its end.
            if current > 3 {
                return Err(go_panic("runtime error: index out of range [3] with length 3".to_string(), file.get("version").and_then(|n| n.origin.clone())));
            }
            if declared < 2 && current >= 2 {
                v1_migrate(file, st);
            }
            file.insert("version", Node::builtin(Value::Integer(current.max(declared))));
        }
        return Ok(());
    }
    if *root_version == 0 {
        *root_version = declared;
    }
    if version.rejects_dropin_above_root() && declared > *root_version {
        return Err(LoadError {
            message: format!("drop-in config version {declared} higher than root config version {root_version}"),
            code: LoadErrorCode::DropinVersionAboveRoot,
            at: file.get("version").and_then(|n| n.origin.clone()),
            dump_ignores: false,
            log: None,
        });
    }
    if declared < current {
        for v in declared..current {
            match v {
                1 => v1_migrate(file, st),
                3 => service_migrate(file),
                _ => {}
            }
            if let Some(plugins) = file.get_mut("plugins").and_then(Node::as_table_mut) {
                migrate_cri_plugins(version, plugins, v)?;
            }
        }
        file.insert("version", Node::builtin(Value::Integer(current)));
        st.log.push(
            LogLine::new("warning", format!("Configuration migrated from version {declared}, use `containerd config migrate` to avoid migration"))
                .field("t", "<dur>"),
        );
    }
    let _ = path;
    Ok(())
}

// ---- mergeConfig ----------------------------------------------------------------------

/// Visits the leaves of `n` (values other than non-empty tables) with their path.
fn for_each_leaf<'n>(prefix: &mut Vec<&'n str>, n: &'n Node, visit: &mut impl FnMut(&[&'n str], &'n Node)) {
    match &n.value {
        Value::Table(t) if !t.entries.is_empty() => {
            for (k, v) in &t.entries {
                prefix.push(k);
                for_each_leaf(prefix, v, visit);
                prefix.pop();
            }
        }
        _ => visit(prefix, n),
    }
}

/// Leaves of `old` that `new` drops: absent from it, or there only as an unwritten
/// zero value. Only the lost ones are copied (a replaced table can hold thousands).
pub fn lost_leaves(old: &Node, new: &Node) -> Vec<Lost> {
    let new_table = new.as_table();
    let mut lost = Vec::new();
    for_each_leaf(&mut Vec::new(), old, &mut |path, value| {
        if value.origin.is_none() && value.is_zero() {
            return;
        }
        let dropped = match new_table.and_then(|t| t.get_path(path)) {
            None => value.origin.is_some() || !value.is_zero(),
            Some(n) => n.origin.is_none() && n != value,
        };
        if dropped {
            lost.push(Lost { path: path.iter().map(|k| (*k).to_string()).collect(), value: value.clone() });
        }
    });
    lost
}

fn merge(version: &Version, st: &mut Loaded, file: Table) {
    for (key, node) in file.entries {
        match key.as_str() {
            "plugins" => {
                let Value::Table(plugins) = node.value else { continue };
                for (id, table) in plugins.entries {
                    if version.is_1x() {
                        let by = table.origin.clone();
                        if let Some(old) = st.plugins.get(&id) {
                            let events = &mut st.events;
                            for_each_leaf(&mut Vec::new(), old, &mut |p, ov| {
                                if let Some(nv) = table.as_table().and_then(|t| t.get_path(p)) {
                                    if nv != ov && !nv.is_table() {
                                        let mut full = vec!["plugins".to_string(), id.clone()];
                                        full.extend(p.iter().map(|k| (*k).to_string()));
                                        events.push(MergeEvent::ValueChanged { path: full, old: ov.clone(), new: nv.clone() });
                                    }
                                }
                            });
                            st.events.push(MergeEvent::TableReplaced {
                                table: vec!["plugins".into(), id.clone()],
                                by,
                                earlier: old.origin.clone(),
                                lost: lost_leaves(old, &table),
                            });
                        }
                        st.plugins.insert(id, table);
                    } else {
                        let path = vec!["plugins".to_string(), id.clone()];
                        match st.plugins.get_mut(&id) {
                            Some(existing) => deep_merge(existing, table, &path, &mut st.events),
                            None => st.plugins.insert(id, table),
                        }
                    }
                }
            }
            "imports" | "disabled_plugins" | "required_plugins" => {
                let Value::Array(items) = node.value else { continue };
                if key == "imports" && st.imports_nil && !items.is_empty() {
                    st.imports_nil = false;
                    st.top.insert(key.clone(), Node::new(Value::Array(items), node.origin));
                    continue;
                }
                let target = match st.top.get_mut(&key) {
                    Some(Node { value: Value::Array(a), .. }) => a,
                    _ => {
                        st.top.insert(key.clone(), Node::builtin(Value::Array(Vec::new())));
                        match st.top.get_mut(&key) {
                            Some(Node { value: Value::Array(a), .. }) => a,
                            _ => continue,
                        }
                    }
                };
                for item in items {
                    if version.is_1x() || !target.iter().any(|t| t == &item) {
                        target.push(item);
                    }
                }
            }
            "proxy_plugins" | "stream_processors" | "timeouts" => {
                let Value::Table(map) = node.value else { continue };
                let origin = node.origin.clone();
                if !st.top.contains(&key) {
                    // go-toml v2 prints struct fields in order: proxy_plugins follows cgroup.
                    let at = st.top.entries.iter().position(|(k, _)| k == "cgroup").map_or(st.top.entries.len(), |i| i + 1);
                    st.top.entries.insert(at, (key.clone(), Node::new(Value::Table(Table::new()), origin.clone())));
                }
                let Some(target) = st.top.table_mut(&key, origin) else { continue };
                for (name, entry) in map.entries {
                    if let Some(old) = target.get(&name) {
                        if key == "timeouts" {
                            if old != &entry {
                                st.events.push(MergeEvent::ValueChanged { path: vec![key.clone(), name.clone()], old: old.clone(), new: entry.clone() });
                            }
                        } else {
                            st.events.push(MergeEvent::TableReplaced {
                                table: vec![key.clone(), name.clone()],
                                by: entry.origin.clone(),
                                earlier: old.origin.clone(),
                                lost: lost_leaves(old, &entry),
                            });
                        }
                    }
                    target.insert(name, entry);
                }
            }
            _ if node.is_table() => {
                // A server section: field by field, non-zero wins.
                let Value::Table(fields) = node.value else { continue };
                let origin = node.origin.clone();
                for (f, v) in fields.entries {
                    let path = vec![key.clone(), f.clone()];
                    let Some(target) = st.top.table_mut(&key, origin.clone()) else { continue };
                    override_scalar(target, &f, v, path, &mut st.events);
                }
            }
            _ => {
                let path = vec![key.clone()];
                override_scalar(&mut st.top, &key, node, path, &mut st.events);
            }
        }
    }
}

fn override_scalar(target: &mut Table, key: &str, v: Node, path: Vec<String>, events: &mut Vec<MergeEvent>) {
    if v.is_zero() {
        if target.get(key).is_some_and(|old| old != &v) {
            events.push(MergeEvent::ZeroIgnored { path, at: v.origin.clone() });
        }
        return;
    }
    if let Some(old) = target.get(key) {
        if old.origin.is_some() && old != &v && path != ["version"] {
            events.push(MergeEvent::ValueChanged { path, old: old.clone(), new: v.clone() });
        }
    }
    target.insert(key, v);
}

/// 2.x `mergo` deep merge of plugin tables: tables merge key by key, any other value
/// (zero or not, arrays included) replaces.
fn deep_merge(dst: &mut Node, src: Node, path: &[String], events: &mut Vec<MergeEvent>) {
    match (&mut dst.value, src.value) {
        (Value::Table(d), Value::Table(s)) => {
            for (k, v) in s.entries {
                let mut p = path.to_vec();
                p.push(k.clone());
                match d.get_mut(&k) {
                    Some(existing) => deep_merge(existing, v, &p, events),
                    None => d.insert(k, v),
                }
            }
        }
        (_, value) => {
            let new = Node::new(value, src.origin);
            if dst.origin.is_some() && *dst != new {
                events.push(MergeEvent::ValueChanged { path: path.to_vec(), old: dst.clone(), new: new.clone() });
            }
            *dst = new;
        }
    }
}

// ---- resolveImports -------------------------------------------------------------------

fn resolve_imports(files: &Files, version: &Version, parent: &str, imports: &[String]) -> Result<Vec<String>, LoadError> {
    let mut out = Vec::new();
    let bad = |_| LoadError {
        message: "syntax error in pattern".to_string(),
        code: LoadErrorCode::BadGlob,
        at: None,
        dump_ignores: false,
        log: None,
    };
    for raw in imports {
        let relative_to_parent = |p: &str| {
            let p = files::clean(p);
            if p.starts_with('/') {
                p
            } else {
                files::join(&files::dir(parent), &p)
            }
        };
        if version.relative_glob_uses_cwd() {
            if raw.contains('*') {
                out.extend(files.glob(raw).map_err(bad)?);
            } else {
                out.push(relative_to_parent(raw));
            }
        } else {
            let p = relative_to_parent(raw);
            if p.contains('*') {
                out.extend(files.glob(&p).map_err(bad)?);
            } else {
                out.push(p);
            }
        }
    }
    Ok(out)
}

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
