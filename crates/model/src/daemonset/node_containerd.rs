//! A node's container runtime as the rollout meets it, read off the containerd model's
//! [`Daemon`] — never asserted: the handlers the running daemon *loaded* at its last
//! start ([`NodeRuntime::from_daemon`]), and the containerd model's findings on why,
//! each with its file:line:
//!
//! - `config-defines-handler`: a file on disk defines a handler the daemon has not loaded
//!   (where its `runtime_type` is set);
//! - `daemon-not-restarted`: the files changed after the daemon's last start;
//! - `loaded-cri-error`: the daemon started, but its CRI plugin failed (containerd's text);
//! - `dropin-replaced-table`: a later file replaced a table of an earlier one whole
//!   (the merge's `containerd-table-replaced`, with both locations);
//! - `restart-would-fail`: a restart with the files as they are would fail the CRI
//!   plugin, with containerd's own error.
//!
//! These become the last links of the diagnosis chain (the root causes).

use std::collections::BTreeMap;

use crate::containerd::{self, Daemon, LoadResult};
use crate::Span;

use super::rollout::{NodeRuntime, RuntimeFinding};

/// The unit systemd runs containerd as.
pub const CONTAINERD_UNIT: &str = "containerd.service";

fn finding(code: &str, args: &[(&str, String)], span: Option<Span>) -> RuntimeFinding {
    RuntimeFinding { code: code.into(), args: args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(), span }
}

/// The CRI runtime plugin id of a version (where `containerd.runtimes` lives once decoded).
fn cri_runtime_id(version: &containerd::Version) -> &'static str {
    if version.is_1x() {
        "io.containerd.grpc.v1.cri"
    } else {
        "io.containerd.cri.v1.runtime"
    }
}

/// Where a handler's `runtime_type` is set in `result`'s files.
pub fn handler_span(result: &LoadResult, handler: &str) -> Option<Span> {
    let id = cri_runtime_id(&result.version);
    let config = result.config.as_ref()?;
    let node = config.decoded.get_path(&[id, "containerd", "runtimes", handler])?;
    let table = node.as_table()?;
    let origin = table.get("runtime_type").and_then(|n| n.origin.clone()).or_else(|| node.origin.clone())?;
    Some(Span::new(&*origin.file, origin.line, origin.column))
}

/// The files written since the daemon last started (from its event log), in order.
pub fn changed_since_start(daemon: &Daemon) -> Vec<String> {
    let last_start = daemon.events.iter().rposition(|e| e.code == "started" || e.code == "start-failed");
    let mut out: Vec<String> = Vec::new();
    for e in daemon.events.iter().skip(last_start.map_or(0, |i| i + 1)) {
        if e.code == "files-changed" && !out.contains(&e.detail) {
            out.push(e.detail.clone());
        }
    }
    out
}

/// The containerd model's findings about `daemon`, for the RuntimeClass `handlers` the
/// cluster uses.
pub fn runtime_findings(daemon: &Daemon, handlers: &[String]) -> Vec<RuntimeFinding> {
    let mut out = Vec::new();
    let on_disk = daemon.on_disk();
    let loaded = daemon.runtime_handlers();
    for h in handlers {
        if loaded.contains(h) {
            continue;
        }
        if let Some(span) = handler_span(&on_disk, h) {
            out.push(finding("config-defines-handler", &[("handler", h.clone()), ("file", span.file.clone())], Some(span)));
        }
    }
    if daemon.loaded_config_is_stale() {
        let changed = changed_since_start(daemon);
        // No span: the finding is about the process, not a place in a file.
        out.push(finding("daemon-not-restarted", &[("unit", CONTAINERD_UNIT.into()), ("changed", changed.join(", "))], None));
    }
    if let Some(error) = daemon.is_running().then(|| daemon.cri()).flatten().and_then(|c| c.error.clone()) {
        out.push(finding(
            "loaded-cri-error",
            &[("containerdVersion", daemon.version.to_string()), ("error", format!("invalid plugin config: {error}"))],
            None,
        ));
    }
    for d in on_disk.diagnostics.iter().filter(|d| d.code == "containerd-table-replaced") {
        let earlier = d.related.iter().find(|r| r.label == "defined-here").map(|r| r.span.to_string()).unwrap_or_default();
        let file = d.primary.as_ref().map(|s| s.file.clone()).unwrap_or_default();
        out.push(finding(
            "dropin-replaced-table",
            &[
                ("file", file),
                ("table", d.get("table").unwrap_or_default().to_string()),
                ("lost", d.get("lost").unwrap_or_default().to_string()),
                ("earlier", earlier),
            ],
            d.primary.clone(),
        ));
    }
    if on_disk.start.cri_status() != "ok" {
        let error = match &on_disk.start {
            containerd::Start::Serving(cri) => cri.error.clone().map(|e| format!("invalid plugin config: {e}")),
            containerd::Start::Exited { last_line, .. } => Some(last_line.clone()),
        };
        out.push(finding(
            "restart-would-fail",
            &[("containerdVersion", daemon.version.to_string()), ("error", error.unwrap_or_else(|| on_disk.start.cri_status().to_string()))],
            None,
        ));
    }
    out
}

/// A node's runtime read off its daemon, with the containerd model's findings.
pub fn node_runtime(daemon: &Daemon, handlers: &[String]) -> NodeRuntime {
    let mut rt = NodeRuntime::from_daemon(daemon);
    rt.findings = runtime_findings(daemon, handlers);
    rt
}
