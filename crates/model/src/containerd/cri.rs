//! The CRI plugin at daemon start: its config validated as each version does, the
//! resulting `ctr plugins ls` rows, the first CRI failure log line, and whether the
//! daemon exits (a required plugin failed). Upstream: 1.x `pkg/cri/config/config.go`
//! `ValidatePluginConfig`; 2.x `internal/cri/config/config.go` `ValidateRuntimeConfig`,
//! `ValidateImageConfig`, and `plugins/cri/cri.go` `initCRIService`.

use serde::{Deserialize, Serialize};

use super::dump::Effective;
use super::log::LogLine;
use super::value::{Node, Table, Value};
use super::version::Version;

/// The STATUS column of one `ctr plugins ls` row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginState {
    Ok,
    Error,
    /// Not listed (the plugin is disabled).
    Absent,
}

impl PluginState {
    pub fn as_str(&self) -> &'static str {
        match self {
            PluginState::Ok => "ok",
            PluginState::Error => "error",
            PluginState::Absent => "absent",
        }
    }
}

/// The CRI plugins after a daemon start with a config that loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CriOutcome {
    /// `<type>.<id>` → state, for every CRI row of this version.
    pub plugins: Vec<(String, PluginState)>,
    /// The validation error of the failing CRI plugin (the text after `invalid plugin config: `).
    pub error: Option<String>,
    /// The first CRI plugin failure line of the daemon log.
    pub error_line: Option<String>,
    /// Set when a failing plugin is in `required_plugins`: the daemon's last line.
    pub required_failure: Option<String>,
}

impl CriOutcome {
    /// The `io.containerd.grpc.v1 cri` row.
    pub fn status(&self) -> &PluginState {
        self.plugins.iter().find(|(k, _)| k == "io.containerd.grpc.v1.cri").map_or(&PluginState::Absent, |(_, s)| s)
    }
}

fn get_str<'a>(t: &'a Table, path: &[&str]) -> &'a str {
    t.get_path(path).and_then(Node::as_str).unwrap_or("")
}

fn get_bool(t: &Table, path: &[&str]) -> bool {
    matches!(t.get_path(path).map(|n| &n.value), Some(Value::Boolean(true)))
}

fn non_empty_table(t: &Table, path: &[&str]) -> bool {
    t.get_path(path).and_then(Node::as_table).is_some_and(|t| !t.entries.is_empty())
}

/// Go's `time.ParseDuration` acceptance (the value is not needed, only validity).
pub fn valid_go_duration(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    if s == "0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    let mut rest = s;
    while !rest.is_empty() {
        let num_len = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let num = rest.get(..num_len).unwrap_or("");
        if num.is_empty() || num == "." || num.matches('.').count() > 1 {
            return false;
        }
        rest = rest.get(num_len..).unwrap_or("");
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = rest.get(..unit_len).unwrap_or("");
        if !matches!(unit, "ns" | "us" | "µs" | "μs" | "ms" | "s" | "m" | "h") {
            return false;
        }
        rest = rest.get(unit_len..).unwrap_or("");
    }
    true
}

/// 1.x `ValidatePluginConfig` on the decoded `io.containerd.grpc.v1.cri` config.
fn validate_1x(c: &Table) -> Result<(), String> {
    const LINUX_V1: &str = "io.containerd.runtime.v1.linux";
    let mut runtimes: Vec<(String, Table)> = c
        .get_path(&["containerd", "runtimes"])
        .and_then(Node::as_table)
        .map(|t| t.entries.iter().filter_map(|(k, v)| v.as_table().map(|t| (k.clone(), t.clone()))).collect())
        .unwrap_or_default();
    let mut default_name = get_str(c, &["containerd", "default_runtime_name"]).to_string();
    if !get_str(c, &["containerd", "untrusted_workload_runtime", "runtime_type"]).is_empty() {
        if runtimes.iter().any(|(k, _)| k == "untrusted") {
            return Err("conflicting definitions: configuration includes both `untrusted_workload_runtime` and `runtimes[\"untrusted\"]`".into());
        }
        if let Some(t) = c.get_path(&["containerd", "untrusted_workload_runtime"]).and_then(Node::as_table) {
            runtimes.push(("untrusted".into(), t.clone()));
        }
    }
    if !get_str(c, &["containerd", "default_runtime", "runtime_type"]).is_empty() {
        if let Some(t) = c.get_path(&["containerd", "default_runtime"]).and_then(Node::as_table) {
            runtimes.retain(|(k, _)| k != "default");
            runtimes.push(("default".into(), t.clone()));
        }
        default_name = "default".into();
    }
    if default_name.is_empty() {
        return Err("`default_runtime_name` is empty".into());
    }
    let Some((_, default_rt)) = runtimes.iter().find(|(k, _)| *k == default_name) else {
        return Err(format!("no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"{default_name}\""));
    };
    if get_bool(c, &["systemd_cgroup"]) && get_str(default_rt, &["runtime_type"]) != LINUX_V1 {
        return Err(format!("`systemd_cgroup` only works for runtime {LINUX_V1}"));
    }
    if get_bool(c, &["containerd", "no_pivot"]) && get_str(default_rt, &["runtime_type"]) != LINUX_V1 {
        return Err(format!("`no_pivot` only works for runtime {LINUX_V1}"));
    }
    for (_, r) in &runtimes {
        if !get_str(r, &["runtime_engine"]).is_empty() && get_str(r, &["runtime_type"]) != LINUX_V1 {
            return Err(format!("`runtime_engine` only works for runtime {LINUX_V1}"));
        }
        if !get_str(r, &["runtime_root"]).is_empty() && get_str(r, &["runtime_type"]) != LINUX_V1 {
            return Err(format!("`runtime_root` only works for runtime {LINUX_V1}"));
        }
        if !get_bool(r, &["privileged_without_host_devices"]) && get_bool(r, &["privileged_without_host_devices_all_devices_allowed"]) {
            return Err("`privileged_without_host_devices_all_devices_allowed` requires `privileged_without_host_devices` to be enabled".into());
        }
    }
    registry_checks(c)?;
    let idle = get_str(c, &["stream_idle_timeout"]);
    if !idle.is_empty() && !valid_go_duration(idle) {
        return Err(format!("invalid stream idle timeout: time: invalid duration {}", super::log::go_quote(idle)));
    }
    Ok(())
}

fn registry_checks(c: &Table) -> Result<(), String> {
    let use_config_path = !get_str(c, &["registry", "config_path"]).is_empty();
    if non_empty_table(c, &["registry", "mirrors"]) && use_config_path {
        return Err("`mirrors` cannot be set when `config_path` is provided".into());
    }
    if non_empty_table(c, &["registry", "configs"]) && use_config_path {
        let has_tls = c
            .get_path(&["registry", "configs"])
            .and_then(Node::as_table)
            .is_some_and(|t| t.entries.iter().any(|(_, v)| v.as_table().is_some_and(|e| e.contains("tls"))));
        if has_tls {
            return Err("`configs.tls` cannot be set when `config_path` is provided".into());
        }
    }
    Ok(())
}

/// 2.x `ValidateRuntimeConfig` on `io.containerd.cri.v1.runtime`.
fn validate_runtime_2x(version: &Version, c: &Table) -> Result<(), String> {
    let default_name = get_str(c, &["containerd", "default_runtime_name"]);
    if default_name.is_empty() {
        return Err("`default_runtime_name` is empty".into());
    }
    let runtimes = c.get_path(&["containerd", "runtimes"]).and_then(Node::as_table).cloned().unwrap_or_default();
    if !runtimes.contains(default_name) {
        return Err(format!("no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"{default_name}\""));
    }
    for (_, r) in &runtimes.entries {
        let Some(r) = r.as_table() else { continue };
        if !get_bool(r, &["privileged_without_host_devices"]) && get_bool(r, &["privileged_without_host_devices_all_devices_allowed"]) {
            return Err("`privileged_without_host_devices_all_devices_allowed` requires `privileged_without_host_devices` to be enabled".into());
        }
        let io = get_str(r, &["io_type"]);
        if !io.is_empty() && io != "fifo" && io != "streaming" {
            return Err("`io_type` can only be `streaming` or `named_pipe`".into());
        }
    }
    if version.line >= super::version::Line::V2_2 {
        let bin_dir = get_str(c, &["cni", "bin_dir"]);
        let has_dirs = matches!(c.get_path(&["cni", "bin_dirs"]).map(|n| &n.value), Some(Value::Array(a)) if !a.is_empty());
        let default_dirs = matches!(c.get_path(&["cni", "bin_dirs"]).map(|n| &n.value), Some(Value::Array(a)) if a.len() == 1 && a.first().and_then(Node::as_str) == Some("/opt/cni/bin"));
        if !bin_dir.is_empty() && has_dirs && !default_dirs {
            return Err("`cni.bin_dir` and `cni.bin_dirs` cannot be set at the same time".into());
        }
    }
    let drain = get_str(c, &["drain_exec_sync_io_timeout"]);
    if !drain.is_empty() && !valid_go_duration(drain) {
        return Err(format!("invalid `drain_exec_sync_io_timeout`: time: invalid duration {}", super::log::go_quote(drain)));
    }
    Ok(())
}

/// The CRI plugins after a start with `effective`, given `required_plugins`.
pub fn cri_outcome(version: &Version, effective: &Effective, required: &[String]) -> CriOutcome {
    let required_failure = |id: &str, err: &str| {
        required.iter().any(|r| r == id).then(|| format!("containerd: load required plugin {id}: {err}"))
    };
    if version.is_1x() {
        let id = "io.containerd.grpc.v1.cri";
        let Some(c) = effective.decoded.get_table(id) else {
            return CriOutcome {
                plugins: vec![(id.into(), PluginState::Absent)],
                error: None,
                error_line: None,
                required_failure: None,
            };
        };
        return match validate_1x(c) {
            Ok(()) => CriOutcome { plugins: vec![(id.into(), PluginState::Ok)], error: None, error_line: None, required_failure: None },
            Err(e) => {
                let full = format!("invalid plugin config: {e}");
                let line = LogLine::new("warning", format!("failed to load plugin {id}")).field("error", full.clone()).render();
                CriOutcome {
                    plugins: vec![(id.into(), PluginState::Error)],
                    error: Some(e),
                    error_line: Some(line),
                    required_failure: required_failure(id, &full),
                }
            }
        };
    }
    let runtime_id = "io.containerd.cri.v1.runtime";
    let images_id = "io.containerd.cri.v1.images";
    let grpc_id = "io.containerd.grpc.v1.cri";
    let mut plugins = Vec::new();
    let mut error = None;
    let mut error_line = None;
    let mut required_fail = None;
    let runtime = match effective.decoded.get_table(runtime_id) {
        None => Err(None),
        Some(c) => validate_runtime_2x(version, c).map_err(Some),
    };
    let images = match effective.decoded.get_table(images_id) {
        None => Err(None),
        Some(c) => registry_checks(c).map_err(Some),
    };
    let mut note = |id: &str, ty: &str, state: Result<(), Option<String>>, wrap: &str| match state {
        Ok(()) => plugins.push((id.to_string(), PluginState::Ok)),
        Err(None) => plugins.push((id.to_string(), PluginState::Absent)),
        Err(Some(e)) => {
            let full = format!("{wrap}{e}");
            if error_line.is_none() {
                error_line = Some(
                    LogLine::new("warning", "failed to load plugin").field("error", full.clone()).field("id", id).field("type", ty).render(),
                );
                error = Some(e);
            }
            if required_fail.is_none() {
                required_fail = required_failure(id, &full);
            }
            plugins.push((id.to_string(), PluginState::Error));
        }
    };
    note(images_id, "io.containerd.cri.v1", images.clone(), "invalid cri image config: ");
    note(runtime_id, "io.containerd.cri.v1", runtime.clone(), "invalid plugin config: ");
    let grpc = if effective.decoded.get(grpc_id).is_none() {
        Err(None)
    } else {
        match (&runtime, &images) {
            (Err(Some(e)), _) => Err(Some(format!("unable to load CRI runtime service plugin dependency: invalid plugin config: {e}"))),
            (Err(None), _) => Err(Some("unable to load CRI runtime service plugin dependency: no plugins registered for io.containerd.cri.v1: not found".to_string())),
            (_, Err(Some(e))) => Err(Some(format!("unable to load CRI image service plugin dependency: invalid cri image config: {e}"))),
            (_, Err(None)) => Err(Some("unable to load CRI image service plugin dependency: no plugins registered for io.containerd.cri.v1: not found".to_string())),
            _ => Ok(()),
        }
    };
    note(grpc_id, "io.containerd.grpc.v1", grpc, "");
    crate::sort::sort_by(&mut plugins, |a, b| a.0.cmp(&b.0));
    CriOutcome { plugins, error, error_line, required_failure: required_fail }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go duration syntax.
    #[test]
    fn durations() {
        for ok in ["4h0m0s", "0", "1.5s", "300ms", "-2m"] {
            assert!(valid_go_duration(ok), "{ok}");
        }
        for bad in ["", "4", "abc", "1x", "h"] {
            assert!(!valid_go_duration(bad), "{bad}");
        }
    }
}
