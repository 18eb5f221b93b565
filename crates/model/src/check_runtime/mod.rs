//! The rules of `scripts/check-runtime.sh`, as a pure function: the same five checks, the
//! same finding codes and arguments, the same verdict and exit status, the same Korean and
//! English texts — so step 3/4 in the app shows exactly what the script would print on a
//! real node. A parity test (`crates/cli/tests/check_runtime.rs`) runs the script and
//! [`evaluate`] on the same situations and requires identical results.
//!
//! The inputs are plain values: what `ctr plugins ls` showed (or why the daemon did not
//! answer), the loaded CRI config (live CRI status), the `containerd config dump` text, the
//! main config text, and which runtime binaries exist. The simulated node (the `containerd`
//! model) produces them; on a real node the script gathers them.
//!
//! # Layout
//!
//! - [`toml_runtimes`]: the CRI runtime tables of a dump or main config, read as the script reads them.
//! - [`messages`]: the texts of every finding code and verdict, in Korean and English.
//! - [`simulated`]: the inputs the script would gather, read off a simulated containerd node.
//!
//! **Architecture Invariant:** one rule set. A rule changed here must change in the script
//! too, or the parity test fails.

pub mod messages;
pub mod simulated;
pub mod toml_runtimes;

use serde::{Deserialize, Serialize};

pub use messages::{check_name, looked_at, message, render_text, verdict_text};
pub use toml_runtimes::{toml_runtimes, RuntimeTables};

/// How the daemon answered on its socket (check 1), with the plugin rows when it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Daemon {
    /// `ctr plugins ls` answered; the rows it listed (at least the CRI ones).
    Running { plugins: Vec<PluginRow> },
    /// No socket, or the socket refuses connections (e.g. after SIGHUP, which kills containerd).
    NotRunning { detail: String },
    PermissionDenied { detail: String },
    /// Something answers, or a file is there, but it is not containerd.
    NotContainerd { detail: String },
}

/// One row of `ctr plugins ls`, with the `Message:` of `ctr plugins ls -d` when not ok.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginRow {
    /// e.g. `io.containerd.grpc.v1`
    pub plugin_type: String,
    /// e.g. `cri`
    pub id: String,
    /// `ok`, `error`, `skip`
    pub status: String,
    /// containerd's own reason, verbatim (empty when it gave none).
    pub reason: String,
}

/// One runtime handler of the loaded CRI config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedRuntime {
    pub name: String,
    /// `runtimeType` as loaded, e.g. `io.containerd.runc.v2`.
    pub runtime_type: String,
    /// `options` as loaded: key and value as text (`true`, `0`, a path).
    pub options: Vec<(String, String)>,
}

/// The loaded CRI config (live CRI status, verbose: `crictl info` / `gpulab cri info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    Cri { default_runtime_name: String, runtimes: Vec<LoadedRuntime> },
    /// The client failed (e.g. `Unimplemented` because the CRI plugin did not load).
    Unavailable { detail: String },
    /// The client answered, but not with a CRI status JSON the script understands.
    Unrecognised,
}

/// `containerd config dump`: its stdout, or its stderr when it exited non-zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dump {
    Text(String),
    Failed { detail: String },
}

/// Everything the checks look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckInputs {
    /// `--address` (the socket), `--config`, `--handler`, `--keep`.
    pub address: String,
    pub config: String,
    pub handler: String,
    pub keep: String,
    pub daemon: Daemon,
    /// Which CRI client was used, as the script names it (`crictl info`, `gpulab cri info`).
    pub cri_source: String,
    pub loaded: Loaded,
    pub dump: Dump,
    /// The main config's text; `None` when it cannot be read.
    pub main_config: Option<String>,
    /// Runtime binaries that exist: absolute paths, or names found on PATH.
    pub existing_binaries: Vec<String>,
}

/// A check's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    /// Check 5 only: what runs is not what the files say.
    Restart,
    Skip,
}

/// One finding: which check (1–5), its outcome, a stable code and its named arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub check: u8,
    pub status: Status,
    pub code: String,
    pub args: Vec<(String, String)>,
}

impl Finding {
    fn new(check: u8, status: Status, code: &str, args: &[(&str, String)]) -> Self {
        // The script flattens "key=value" as one string: a value's leading blank survives.
        let args = args
            .iter()
            .map(|(k, v)| {
                let kv = one_line(&format!("{k}={v}"));
                let value = kv.strip_prefix(&format!("{k}=")).unwrap_or_default().to_string();
                (k.to_string(), value)
            })
            .collect();
        Finding { check, status, code: code.to_string(), args }
    }

    pub fn arg(&self, key: &str) -> &str {
        self.args.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
    }
}

/// The overall verdict, with its exit status: 0 pass, 1 check-failed, 2 restart-needed,
/// 3 not-reachable (4, a usage error, is the script's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    CheckFailed,
    RestartNeeded,
    NotReachable,
}

impl Verdict {
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Pass => 0,
            Verdict::CheckFailed => 1,
            Verdict::RestartNeeded => 2,
            Verdict::NotReachable => 3,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::CheckFailed => "check-failed",
            Verdict::RestartNeeded => "restart-needed",
            Verdict::NotReachable => "not-reachable",
        }
    }
}

/// What the script prints, as data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckReport {
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
}

/// The script's `one_line`: newlines, tabs and unit separators become spaces, runs of
/// spaces one space, then one space dropped at either end.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().map(|c| if matches!(c, '\n' | '\t' | '\u{1f}') { ' ' } else { c }) {
        if !(c == ' ' && out.ends_with(' ')) {
            out.push(c);
        }
    }
    let out = out.strip_prefix(' ').unwrap_or(&out);
    out.strip_suffix(' ').unwrap_or(out).to_string()
}

/// At most `n` bytes, cut at a character boundary (the script's `head -c n`).
fn head_bytes(s: &str, n: usize) -> &str {
    let mut end = s.len().min(n);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or_default()
}

const CRI_V1: &str = "io.containerd.grpc.v1.cri";
const NOT_LISTED: &str = "not listed (disabled_plugins, or a containerd without CRI)";

/// The five checks. Never panics; every input is a value.
pub fn evaluate(inp: &CheckInputs) -> CheckReport {
    let mut f: Vec<Finding> = Vec::new();
    let address = inp.address.clone();

    // Check 1.
    let plugins = match &inp.daemon {
        Daemon::Running { plugins } => {
            f.push(Finding::new(1, Status::Pass, "daemon-answers", &[("address", address.clone())]));
            Some(plugins)
        }
        Daemon::NotRunning { detail } => {
            f.push(Finding::new(1, Status::Fail, "daemon-not-running", &[("address", address.clone()), ("detail", one_line(detail))]));
            None
        }
        Daemon::PermissionDenied { detail } => {
            f.push(Finding::new(1, Status::Fail, "daemon-permission-denied", &[("address", address.clone()), ("detail", one_line(detail))]));
            None
        }
        Daemon::NotContainerd { detail } => {
            f.push(Finding::new(1, Status::Fail, "daemon-not-containerd", &[("address", address.clone()), ("detail", one_line(detail))]));
            None
        }
    };

    // Check 2.
    let mut cri_reason = String::new();
    match plugins {
        Some(rows) => {
            let status_of = |full: &str| {
                rows.iter().find(|r| format!("{}.{}", r.plugin_type, r.id) == full)
            };
            let v3 = rows.iter().any(|r| r.plugin_type == "io.containerd.cri.v1" && (r.id == "runtime" || r.id == "images"));
            let expected: &[&str] =
                if v3 { &["io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images", CRI_V1] } else { &[CRI_V1] };
            let (mut all, mut bad, mut first_bad) = (Vec::new(), Vec::new(), None);
            for p in expected {
                let row = status_of(p);
                let status = row.map_or("absent", |r| if r.status.is_empty() { "absent" } else { r.status.as_str() });
                all.push(format!("{p}={status}"));
                if status != "ok" {
                    bad.push(format!("{p}={status}"));
                    first_bad.get_or_insert(row);
                }
            }
            match first_bad {
                None => f.push(Finding::new(2, Status::Pass, "cri-plugins-ok", &[("plugins", all.join(", "))])),
                Some(row) => {
                    cri_reason = match row {
                        None => NOT_LISTED.to_string(),
                        Some(r) => {
                            let first = r.reason.lines().next().unwrap_or_default().trim_start_matches([' ', '\t']);
                            if first.is_empty() { "(containerd gave no reason)".to_string() } else { first.to_string() }
                        }
                    };
                    f.push(Finding::new(2, Status::Fail, "cri-plugin-error", &[("plugins", bad.join(", ")), ("reason", cri_reason.clone())]));
                }
            }
        }
        None => f.push(Finding::new(2, Status::Skip, "skipped-daemon-down", &[])),
    }

    // Check 3.
    let source = inp.cri_source.clone();
    let mut loaded: Option<RuntimeTables> = None;
    if plugins.is_some() {
        match &inp.loaded {
            Loaded::Unavailable { detail } => f.push(Finding::new(
                3,
                Status::Fail,
                "loaded-unavailable",
                &[("source", source.clone()), ("detail", one_line(head_bytes(detail, 400)))],
            )),
            Loaded::Unrecognised => f.push(Finding::new(3, Status::Fail, "loaded-unrecognised", &[("source", source.clone())])),
            Loaded::Cri { default_runtime_name, runtimes } => {
                let tables = loaded_tables(default_runtime_name, runtimes);
                let h = inp.handler.clone();
                if !tables.has_runtime(&h) {
                    f.push(Finding::new(3, Status::Fail, "loaded-handler-missing", &[("handler", h), ("handlers", tables.names().join(" ")), ("source", source.clone())]));
                } else {
                    let mut binary = tables.setting(&h, "BinaryName");
                    if binary.is_empty() {
                        binary = shim_binary(&tables.setting(&h, "@runtime_type"));
                    }
                    let found = !binary.is_empty() && inp.existing_binaries.contains(&binary);
                    if found {
                        f.push(Finding::new(3, Status::Pass, "loaded-handler-ok", &[("handler", h), ("binary", binary), ("source", source.clone())]));
                    } else {
                        let shown = if binary.is_empty() { "(none)".to_string() } else { binary };
                        f.push(Finding::new(3, Status::Fail, "loaded-binary-missing", &[("handler", h), ("binary", shown), ("source", source.clone())]));
                    }
                }
                loaded = Some(tables);
            }
        }
    } else {
        f.push(Finding::new(3, Status::Skip, "skipped-daemon-down", &[]));
    }

    // Check 4.
    let config = inp.config.clone();
    let mut merged: Option<RuntimeTables> = None;
    match &inp.dump {
        Dump::Failed { detail } => {
            f.push(Finding::new(4, Status::Fail, "dump-failed", &[("config", config.clone()), ("detail", one_line(head_bytes(detail, 400)))]))
        }
        Dump::Text(text) if text.trim().is_empty() => f.push(Finding::new(4, Status::Fail, "dump-empty", &[("config", config.clone())])),
        Dump::Text(text) => {
            let version = toml_runtimes::top_version(text).unwrap_or_default();
            let cri_id = match version.as_str() {
                "1" | "2" => Some(CRI_V1),
                "3" | "4" | "5" | "6" | "7" | "8" | "9" => Some("io.containerd.cri.v1.runtime"),
                _ => None,
            };
            match cri_id {
                None => f.push(Finding::new(4, Status::Fail, "dump-unrecognised", &[("config", config.clone()), ("detail", "no top-level version line".into())])),
                Some(id) => {
                    let m = toml_runtimes(text, Some(id));
                    if m.runtimes.is_empty() || m.default_runtime_name.is_none() {
                        let detail = format!("no [plugins.\"{id}\".containerd.runtimes] table with a default_runtime_name");
                        f.push(Finding::new(4, Status::Fail, "dump-unrecognised", &[("config", config.clone()), ("detail", detail)]));
                    } else {
                        check_files(inp, &m, &mut f);
                        merged = Some(m);
                    }
                }
            }
        }
    }

    // Check 5.
    if plugins.is_none() {
        f.push(Finding::new(5, Status::Skip, "skipped-daemon-down", &[]));
    } else if let Some(m) = &merged {
        match &loaded {
            Some(l) => {
                let diffs = differences(l, m);
                if diffs.is_empty() {
                    f.push(Finding::new(5, Status::Pass, "loaded-matches-files", &[]));
                } else {
                    f.push(Finding::new(5, Status::Restart, "restart-needed", &[("differences", diffs)]));
                }
            }
            None => {
                let fd = m.default_runtime_name.clone().unwrap_or_default();
                if cri_reason.contains("no corresponding runtime configured") && m.has_runtime(&fd) {
                    let d = format!("loaded CRI failed: {cri_reason}; files now define default_runtime_name {fd}");
                    f.push(Finding::new(5, Status::Restart, "restart-needed", &[("differences", d)]));
                } else {
                    let reason = if cri_reason.is_empty() { "no loaded CRI config".to_string() } else { cri_reason.clone() };
                    f.push(Finding::new(5, Status::Skip, "cannot-compare", &[("reason", reason)]));
                }
            }
        }
    } else {
        f.push(Finding::new(5, Status::Skip, "skipped-no-dump", &[]));
    }

    let verdict = if f.iter().any(|x| x.check == 1 && x.status == Status::Fail) {
        Verdict::NotReachable
    } else if f.iter().any(|x| x.status == Status::Restart) {
        Verdict::RestartNeeded
    } else if f.iter().any(|x| x.status == Status::Fail) {
        Verdict::CheckFailed
    } else {
        Verdict::Pass
    };
    CheckReport { verdict, findings: f }
}

/// The loaded view in the same shape as a parsed dump, so both compare field by field.
fn loaded_tables(default: &str, runtimes: &[LoadedRuntime]) -> RuntimeTables {
    let mut t = RuntimeTables { default_runtime_name: Some(default.to_string()), ..Default::default() };
    for r in runtimes {
        t.runtimes.push(r.name.clone());
        t.settings.push((r.name.clone(), "@runtime_type".into(), r.runtime_type.clone()));
        for (k, v) in &r.options {
            t.settings.push((r.name.clone(), k.clone(), v.clone()));
        }
    }
    t
}

/// containerd's shim name rule: `io.containerd.runc.v2` → `containerd-shim-runc-v2`.
fn shim_binary(runtime_type: &str) -> String {
    let parts: Vec<&str> = runtime_type.split('.').collect();
    match parts.as_slice() {
        [.., name, version] if parts.len() >= 4 => format!("containerd-shim-{name}-{version}"),
        _ => String::new(),
    }
}

/// Check 4 on a recognised dump: the handler, the default runtime, the --keep settings.
fn check_files(inp: &CheckInputs, m: &RuntimeTables, f: &mut Vec<Finding>) {
    let handlers = m.names().join(" ");
    let mut ok = true;
    if !m.has_runtime(&inp.handler) {
        ok = false;
        f.push(Finding::new(4, Status::Fail, "dump-handler-missing", &[("handler", inp.handler.clone()), ("handlers", handlers.clone())]));
    }
    let default = m.default_runtime_name.clone().unwrap_or_default();
    if !m.has_runtime(&default) {
        ok = false;
        f.push(Finding::new(4, Status::Fail, "dump-default-undefined", &[("default", default), ("handlers", handlers.clone())]));
    }
    let main = inp.main_config.as_deref().map(|t| toml_runtimes(t, None)).unwrap_or_default();
    let want = main.settings_of(&inp.keep);
    let strip = |s: &String| s.strip_prefix('@').unwrap_or(s).to_string();
    if !m.has_runtime(&inp.keep) {
        ok = false;
        let lost = want.iter().map(strip).collect::<Vec<_>>().join(" ");
        let lost = if lost.is_empty() { "(the runtime itself)".to_string() } else { lost };
        f.push(Finding::new(4, Status::Fail, "dump-keep-lost", &[("runtime", inp.keep.clone()), ("lost", lost), ("handlers", handlers.clone())]));
    } else {
        let have = m.settings_of(&inp.keep);
        let lost: Vec<String> = want.iter().filter(|w| !have.contains(w)).map(strip).collect();
        if !lost.is_empty() {
            ok = false;
            f.push(Finding::new(4, Status::Fail, "dump-keep-lost", &[("runtime", inp.keep.clone()), ("lost", lost.join(" ")), ("handlers", handlers.clone())]));
        }
    }
    if ok {
        f.push(Finding::new(4, Status::Pass, "files-ok", &[("handler", inp.handler.clone()), ("runtime", inp.keep.clone()), ("handlers", handlers)]));
    }
}

/// Check 5: what differs between the loaded view and the merged files, as the script words it.
fn differences(l: &RuntimeTables, m: &RuntimeTables) -> String {
    let mut diffs: Vec<String> = Vec::new();
    let (ln, fnames) = (l.names(), m.names());
    if ln != fnames {
        diffs.push(format!("runtimes: loaded [{}] files [{}]", ln.join(" "), fnames.join(" ")));
    }
    let (ld, fd) = (l.default_runtime_name.clone().unwrap_or_default(), m.default_runtime_name.clone().unwrap_or_default());
    if ld != fd {
        diffs.push(format!("default_runtime_name: loaded {ld} files {fd}"));
    }
    for name in ln.iter().filter(|n| fnames.contains(n)) {
        let split = |lines: Vec<String>| -> Vec<(String, String)> {
            lines.into_iter().map(|s| match s.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (s, String::new()),
            }).collect()
        };
        let (ls, fs) = (split(l.settings_of(name)), split(m.settings_of(name)));
        if ls == fs {
            continue;
        }
        let get = |set: &[(String, String)], k: &str| set.iter().find(|(sk, _)| sk == k).map(|(_, v)| v.clone());
        let mut keys: Vec<&String> = ls.iter().chain(fs.iter()).map(|(k, _)| k).collect();
        crate::sort::sort(&mut keys);
        keys.dedup();
        let mut lines: Vec<String> = keys
            .into_iter()
            .filter(|k| get(&ls, k) != get(&fs, k))
            .map(|k| {
                let kk = k.strip_prefix('@').unwrap_or(k);
                let lv = get(&ls, k).unwrap_or_else(|| "-".into());
                let fv = get(&fs, k).unwrap_or_else(|| "-".into());
                format!("{name}.{kk}: loaded {lv} files {fv}")
            })
            .collect();
        crate::sort::sort(&mut lines);
        diffs.push(lines.join("; "));
    }
    diffs.join("; ")
}

#[cfg(test)]
mod tests;
