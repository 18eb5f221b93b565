//! containerd: a node's config files merged and decoded exactly as each containerd
//! version does, the collision explained, and the daemon as a state machine.
//!
//! The rules, with upstream references, are in `../shared/specs/containerd.md`; the
//! recorded truth is `../shared/goldens/containerd/` (eight real binaries).
//!
//! # Layout
//!
//! - [`version`]: release lines and the patch-level rule changes.
//! - [`files`]: the node's files as a value, with Go's path and glob semantics.
//! - [`parse`]: TOML with line/column spans; syntax errors as values (`parse_events`
//!   builds the tree from the TOML parser's events, as `toml_edit` would).
//! - [`syntax`]: a file's syntax error as each version reports it, and where that
//!   wording comes from; with the feature `go-toml-syntax`, `gotoml2` / `gotoml24`
//!   (go-toml v2's parsers: v2.2–2.3, v2.4) and `syntax_exact` (the rewording).
//! - [`value`]: the value tree every stage shares; each node knows its file:line.
//! - [`schema`]: each version's built-in defaults (embedded data) and struct shapes.
//! - [`load`]: `LoadConfig`'s loop and its result ([`load::Loaded`]); a file walks
//!   forward through [`imports`] (read, parse, resolve `imports`), the decode of its
//!   own fields (in [`load`]), [`migrate`] (`v1Migrate`, `serviceMigrate`, the CRI
//!   plugins' migrations), [`merge`] (`mergeConfig`: 1.x replace-whole, 2.x deep; the
//!   merge events) and the version checks (in [`load`]).
//! - [`gowords`]: how Go and go-toml word what they refuse (type errors v1 and v2 with
//!   the Go field and position, `%v` values, panics), shared by load, decode, syntax.
//! - [`decode`]: plugin tables decoded onto defaults, go-toml v1 vs v2.
//! - [`dump`]: what `config dump` prints; [`encode`]: the two go-toml encoders.
//! - [`cri`]: CRI validation and plugin status at daemon start.
//! - [`explain`]: blame, tables replaced whole, lost keys, unknown keys, changes.
//! - [`daemon`]: files on disk vs the loaded config; restart, SIGHUP, supervisors.
//! - [`log`]: log lines as logrus prints them.
//!
//! **API Boundary:** [`load`](fn@load) (files + version → [`LoadResult`]),
//! [`Containerd`] (the same with defaults parsed once), [`Version::parse`], [`Files`],
//! [`Daemon`]. Everything else is how.
//!
//! **Architecture Invariant:** pure. No I/O (files come in as [`Files`]), no clock, no
//! globals: the embedded defaults are parsed per [`Containerd`] value (shared by its
//! clones), never cached behind the caller's back.

pub mod cri;
pub mod daemon;
pub mod decode;
mod datetime;
pub mod dump;
pub mod encode;
pub mod explain;
pub mod files;
mod goduration;
mod gonames;
mod gonumbers;
pub mod gowords;
#[cfg(feature = "go-toml-syntax")]
mod gotoml2;
#[cfg(feature = "go-toml-syntax")]
mod gotoml24;
pub mod imports;
pub mod load;
pub mod log;
pub mod merge;
pub mod migrate;
pub mod parse;
mod parse_events;
pub mod schema;
pub mod syntax;
#[cfg(feature = "go-toml-syntax")]
mod syntax_exact;
pub mod value;
pub mod version;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use cri::{CriOutcome, PluginState};
pub use daemon::{Daemon, DaemonState, Signal, Supervisor};
pub use explain::Explanation;
pub use files::Files;
pub use version::{Line, Version, VersionError};

use crate::diagnostic::{Diagnostic, Severity, Span};

/// Where containerd reads its main config (`--config`, and the packaged default).
pub const MAIN_CONFIG: &str = "/etc/containerd/config.toml";

/// What a command printed and how it exited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

/// What a daemon start with these files does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Start {
    /// The daemon serves its API; the CRI plugins are as given.
    Serving(CriOutcome),
    /// The daemon exited by itself with `code`; `last_line` is its fatal log line.
    Exited { code: i32, last_line: String, cri_error_line: Option<String> },
}

impl Start {
    /// The `cri_status` of the goldens: the gRPC CRI row, or `daemon-exited`.
    pub fn cri_status(&self) -> &str {
        match self {
            Start::Serving(cri) => cri.status().as_str(),
            Start::Exited { .. } => "daemon-exited",
        }
    }

    /// The first CRI plugin failure line, if any.
    pub fn cri_error_line(&self) -> Option<&str> {
        match self {
            Start::Serving(cri) => cri.error_line.as_deref(),
            Start::Exited { cri_error_line, .. } => cri_error_line.as_deref(),
        }
    }

    /// The runtime handlers the CRI plugin offers (none unless it is `ok`).
    pub fn is_serving(&self) -> bool {
        matches!(self, Start::Serving(_))
    }
}

/// Everything the model computes for one node's files on one version.
#[derive(Debug, Clone)]
pub struct LoadResult {
    pub version: Version,
    /// `containerd --config /etc/containerd/config.toml config dump`.
    pub dump: CommandOutput,
    /// A daemon start with the same files.
    pub start: Start,
    /// The decoded config (absent when loading or decoding failed).
    pub config: Option<dump::Effective>,
    /// The merge as it happened (files, events, log).
    pub loaded: load::Loaded,
    /// Findings with stable codes and file:line spans.
    pub diagnostics: Vec<Diagnostic>,
    /// The step-2 view.
    pub explanation: Explanation,
}

impl LoadResult {
    /// The load stopped at a syntax error that the lab's parser worded, standing in for
    /// containerd's verdict on that file, which the model was not given (only without
    /// `go-toml-syntax`; [`syntax`]): ask for it and load again with it.
    pub fn syntax_pending(&self) -> bool {
        self.loaded.error.as_ref().is_some_and(|e| {
            e.code == load::LoadErrorCode::Syntax && e.at.as_ref().is_some_and(|at| self.loaded.syntax_unjudged.iter().any(|p| *p == *at.file))
        })
    }

    /// The decoded runtime handler names of the CRI plugin (`runc`, `nvidia`, …).
    pub fn runtime_handlers(&self) -> Vec<String> {
        let id = if self.version.is_1x() { "io.containerd.grpc.v1.cri" } else { "io.containerd.cri.v1.runtime" };
        self.config
            .as_ref()
            .and_then(|c| c.decoded.get_path(&[id, "containerd", "runtimes"]))
            .and_then(value::Node::as_table)
            .map(|t| t.keys().map(str::to_string).collect())
            .unwrap_or_default()
    }
}

fn render_log(lines: &[log::LogLine]) -> String {
    lines.iter().map(|l| format!("{}\n", l.render())).collect()
}

/// Loads `files` as containerd `version` does, from [`MAIN_CONFIG`].
pub fn load(files: &Files, version: &Version) -> LoadResult {
    load_from(files, version, MAIN_CONFIG)
}

/// Loads `files` starting at `main`.
pub fn load_from(files: &Files, version: &Version, main: &str) -> LoadResult {
    Containerd::new(version.clone()).load_from(files, main)
}

/// One containerd version with its built-in defaults parsed once: keep it (e.g. in
/// the app's state, a [`Daemon`], a fuzz target) to re-run [`Containerd::load`] on
/// every keystroke without re-reading the embedded defaults. A value, not a global;
/// its clones share the parsed defaults (read-only), so a clone costs a pointer.
#[derive(Debug, Clone)]
pub struct Containerd {
    pub version: Version,
    defaults: Arc<schema::Defaults>,
}

impl Containerd {
    /// `version` with its embedded defaults ([`schema::embedded`]; a build without
    /// the feature `embedded-defaults` uses [`Containerd::with_defaults`]).
    pub fn new(version: Version) -> Self {
        let defaults = Arc::new(schema::Defaults::of(&version));
        Containerd { version, defaults }
    }

    /// `version` with the defaults read from `text`, its `config dump` of an empty
    /// config (as [`schema::embedded`] holds it).
    pub fn with_defaults(version: Version, text: &str) -> Self {
        let defaults = Arc::new(schema::Defaults::from_text(&version, text));
        Containerd { version, defaults }
    }

    /// [`load`](fn@load) with this version.
    pub fn load(&self, files: &Files) -> LoadResult {
        self.load_from(files, MAIN_CONFIG)
    }

    /// [`load_from`] with this version.
    pub fn load_from(&self, files: &Files, main: &str) -> LoadResult {
        run(files, &self.version, &self.defaults, main, &syntax::Verdicts::new())
    }

    /// [`Containerd::load`] with containerd's verdicts on the files' syntax
    /// ([`syntax`]): how a model without `go-toml-syntax` (the app) words a syntax
    /// error exactly as the version does.
    pub fn load_with(&self, files: &Files, verdicts: &syntax::Verdicts) -> LoadResult {
        run(files, &self.version, &self.defaults, MAIN_CONFIG, verdicts)
    }
}

fn run(files: &Files, version: &Version, defaults: &schema::Defaults, main: &str, verdicts: &syntax::Verdicts) -> LoadResult {
    let loaded = load::load(files, version, defaults, main, verdicts);
    let mut stderr = render_log(&loaded.log);
    let mut diagnostics = Vec::new();
    let (dump, start, config) = match &loaded.error {
        Some(err) => {
            if let Some(l) = &err.log {
                stderr.push_str(&l.render());
                stderr.push('\n');
            }
            diagnostics.push(load_error_diagnostic(err));
            // The lab's own limit is not containerd's line.
            let who = if err.code == load::LoadErrorCode::NestingLimit { "gpulab" } else { "containerd" };
            let (last_line, code) = fatal_line(who, err);
            let start = Start::Exited { code, last_line: last_line.clone(), cri_error_line: None };
            if err.dump_ignores {
                // 2.x `config dump` swallows os.IsNotExist and prints what merged so far.
                match dump::effective(version, defaults, &loaded) {
                    Ok(eff) => {
                        diagnostics.extend(approximately_read(&eff.approximate));
                        stderr.push_str(&render_log(&eff.log));
                        let out = CommandOutput { stdout: dump::dump_text(version, &eff), stderr, exit: 0 };
                        (out, start, Some(eff))
                    }
                    Err(dump::Failed { error: e, log, approximate }) => {
                        diagnostics.extend(approximately_read(&approximate));
                        stderr.push_str(&render_log(&log));
                        let (line, code) = fatal_line("containerd", &e);
                        stderr.push_str(&format!("{line}\n"));
                        (CommandOutput { stdout: String::new(), stderr, exit: code }, start, None)
                    }
                }
            } else {
                stderr.push_str(&format!("{last_line}\n"));
                (CommandOutput { stdout: String::new(), stderr, exit: code }, start, None)
            }
        }
        None => match dump::effective(version, defaults, &loaded) {
            Err(dump::Failed { error: e, log, approximate }) => {
                diagnostics.extend(approximately_read(&approximate));
                stderr.push_str(&render_log(&log));
                diagnostics.push(load_error_diagnostic(&e));
                let (last_line, code) = fatal_line("containerd", &e);
                stderr.push_str(&format!("{last_line}\n"));
                let start = Start::Exited { code, last_line, cri_error_line: None };
                (CommandOutput { stdout: String::new(), stderr, exit: code }, start, None)
            }
            Ok(eff) => {
                diagnostics.extend(approximately_read(&eff.approximate));
                stderr.push_str(&render_log(&eff.log));
                let required: Vec<String> = match loaded.top.get("required_plugins").map(|n| &n.value) {
                    Some(value::Value::Array(a)) => a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect(),
                    _ => Vec::new(),
                };
                let cri = cri::cri_outcome(version, &eff, &required);
                let start = match &cri.required_failure {
                    Some(line) => Start::Exited { code: 1, last_line: line.clone(), cri_error_line: cri.error_line.clone() },
                    None => Start::Serving(cri),
                };
                (CommandOutput { stdout: dump::dump_text(version, &eff), stderr, exit: 0 }, start, Some(eff))
            }
        },
    };
    let explanation = explain::explain(version, &loaded, config.as_ref(), &start);
    diagnostics.extend(explanation.diagnostics.iter().cloned());
    LoadResult { version: version.clone(), dump, start, config, loaded, diagnostics, explanation }
}

/// A plugin the model read without go-toml's own rules for some value (a duration, a
/// table, boolean or float where a plain value or map entry belongs: the app's model,
/// without `go-toml-syntax`): containerd's dump or error may differ there, and
/// `gpulab containerd dump` (which has the rules) shows containerd's reading.
fn approximately_read(plugins: &[(String, Option<value::Origin>)]) -> Vec<Diagnostic> {
    plugins
        .iter()
        .map(|(uri, at)| {
            let d = Diagnostic::new("containerd-plugin-read-approximately", Severity::Info).arg("plugin", uri);
            match at {
                Some(o) => d.at(Span::new(&*o.file, o.line, o.column)),
                None => d,
            }
        })
        .collect()
}

/// The last line a fatal error prints and the exit status: `containerd: <message>`
/// and 1, or a Go panic's `panic: <message>` and 2 (its goroutine dump follows in the
/// real binary; addresses vary from run to run, so the lab shows the panic's line).
fn fatal_line(who: &str, err: &load::LoadError) -> (String, i32) {
    if err.code == load::LoadErrorCode::GoPanic {
        (format!("panic: {}", err.message), 2)
    } else {
        (format!("{who}: {}", err.message), 1)
    }
}

fn load_error_diagnostic(err: &load::LoadError) -> Diagnostic {
    let mut d = Diagnostic::new(err.code.as_str(), Severity::Fatal).arg("message", &err.message);
    if err.code == load::LoadErrorCode::NestingLimit {
        d = d.arg("limit", parse::DEPTH_LIMIT.to_string());
    }
    if let Some(at) = &err.at {
        d = d.at(Span::new(&*at.file, at.line, at.column));
    }
    d
}
