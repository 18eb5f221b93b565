//! The check's inputs gathered from a simulated node: the `containerd` model's daemon
//! stands in for the real one, so the lab runs the same five checks on the node the
//! learner edited, signalled and restarted (steps 3 and 4).
//!
//! What each input is, as the script gathers it on a real node:
//! - check 1–2: `ctr plugins ls` answers only while the daemon runs; its CRI rows are the
//!   model's [`CriOutcome`] rows, and a failed row's `Message:` is containerd's
//!   `invalid plugin config: …` text;
//! - check 3: `crictl info` reads the config the daemon *loaded* (at its last start); a
//!   CRI plugin that failed serves no CRI API (`Unimplemented`);
//! - check 4: `containerd config dump` reads the files on disk now;
//! - the main config's text, and which runtime binaries exist on the node.
//!
//! The texts of a refused connection and of the missing CRI service are the ones the
//! check's own tests use for those situations.

use super::{CheckInputs, Daemon, Dump, Loaded, LoadedRuntime, PluginRow};
use crate::containerd::{self, files::Entry, value::Value, CriOutcome, Daemon as ContainerdDaemon, PluginState};

/// What a client sees on the socket of a containerd that is not running (the socket
/// file stays behind after the process died).
pub const CONNECTION_REFUSED: &str = "connect: connection refused";
/// What `crictl info` reports when the daemon runs but its CRI plugin failed.
pub const CRI_UNIMPLEMENTED: &str = "rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService";

/// What the check is asked to look for, and what the node has besides containerd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeCheck {
    pub address: String,
    /// `--handler`: the runtime handler the GPU pods need (`nvidia`).
    pub handler: String,
    /// `--keep`: the main config's runtime whose settings must survive (`runc`).
    pub keep: String,
    /// Runtime binaries installed on the node (absolute paths or names on PATH).
    pub existing_binaries: Vec<String>,
}

impl Default for NodeCheck {
    fn default() -> Self {
        NodeCheck {
            address: "/run/containerd/containerd.sock".into(),
            handler: "nvidia".into(),
            keep: "runc".into(),
            existing_binaries: vec![
                "/usr/bin/nvidia-container-runtime".into(),
                "/usr/bin/runc".into(),
                "containerd-shim-runc-v2".into(),
            ],
        }
    }
}

/// `ctr plugins ls` CRI rows of a running daemon (rows of disabled plugins are not listed).
pub fn plugin_rows(cri: &CriOutcome) -> Vec<PluginRow> {
    cri.plugins
        .iter()
        .filter(|(_, s)| *s != PluginState::Absent)
        .map(|(full, s)| {
            let (plugin_type, id) = full.rsplit_once('.').unwrap_or((full.as_str(), ""));
            let reason = match (s, &cri.error) {
                (PluginState::Error, Some(e)) => format!("invalid plugin config: {e}"),
                _ => String::new(),
            };
            PluginRow { plugin_type: plugin_type.into(), id: id.into(), status: s.as_str().into(), reason }
        })
        .collect()
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Boolean(b) => Some(b.to_string()),
        Value::Datetime(d) => Some(d.clone()),
        Value::Array(_) | Value::Table(_) => None,
    }
}

/// The CRI runtime config the daemon loaded, as `crictl info` shows it.
pub fn loaded_cri(result: &containerd::LoadResult) -> Loaded {
    let id = if result.version.is_1x() { "io.containerd.grpc.v1.cri" } else { "io.containerd.cri.v1.runtime" };
    let Some(cfg) = &result.config else { return Loaded::Unavailable { detail: CRI_UNIMPLEMENTED.into() } };
    let Some(c) = cfg.decoded.get_path(&[id, "containerd"]).and_then(|n| n.as_table()) else {
        return Loaded::Unavailable { detail: CRI_UNIMPLEMENTED.into() };
    };
    let default_runtime_name = c.get("default_runtime_name").and_then(|n| n.as_str()).unwrap_or_default().to_string();
    let runtimes = c
        .get_table("runtimes")
        .map(|t| {
            t.entries
                .iter()
                .filter_map(|(name, n)| {
                    let r = n.as_table()?;
                    let options = r
                        .get_table("options")
                        .map(|o| o.entries.iter().filter_map(|(k, v)| Some((k.clone(), scalar(&v.value)?))).collect())
                        .unwrap_or_default();
                    let runtime_type = r.get("runtime_type").and_then(|n| n.as_str()).unwrap_or_default().to_string();
                    Some(LoadedRuntime { name: name.clone(), runtime_type, options })
                })
                .collect()
        })
        .unwrap_or_default();
    Loaded::Cri { default_runtime_name, runtimes }
}

/// Everything the five checks look at, gathered from the simulated node.
pub fn inputs(daemon: &ContainerdDaemon, check: &NodeCheck) -> CheckInputs {
    let (state, loaded) = match daemon.cri() {
        Some(cri) => {
            let loaded = match (cri.status(), daemon.loaded()) {
                (PluginState::Ok, Some(result)) => loaded_cri(result),
                _ => Loaded::Unavailable { detail: CRI_UNIMPLEMENTED.into() },
            };
            (Daemon::Running { plugins: plugin_rows(cri) }, loaded)
        }
        None => (Daemon::NotRunning { detail: CONNECTION_REFUSED.into() }, Loaded::Unavailable { detail: CONNECTION_REFUSED.into() }),
    };
    let out = daemon.config_dump();
    let dump = if out.exit == 0 { Dump::Text(out.stdout) } else { Dump::Failed { detail: out.stderr } };
    let main_config = match daemon.files.read(containerd::MAIN_CONFIG) {
        Entry::File(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        _ => None,
    };
    CheckInputs {
        address: check.address.clone(),
        config: containerd::MAIN_CONFIG.into(),
        handler: check.handler.clone(),
        keep: check.keep.clone(),
        daemon: state,
        cri_source: "gpulab cri info".into(),
        loaded,
        dump,
        main_config,
        existing_binaries: check.existing_binaries.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_runtime::{evaluate, Verdict};
    use crate::containerd::{Files, Signal, Supervisor, Version};

    const MAIN: &str = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n[plugins]\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n      default_runtime_name = \"runc\"\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n          runtime_type = \"io.containerd.runc.v2\"\n          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n            SystemdCgroup = true\n";
    const DROPIN: &str = "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n";

    /// The lab's story on 1.7: main config only (the handler is missing: check failed),
    /// drop-in written without restart (restart needed: the files changed), after the
    /// restart the CRI plugin fails on the replaced table (check failed), after SIGHUP
    /// by hand nothing answers (not reachable).
    #[test]
    fn verdicts_along_the_incident() {
        let v = Version::parse("1.7.34").unwrap();
        let mut d = ContainerdDaemon::new(v, Supervisor::ByHand, Files::new().with(containerd::MAIN_CONFIG, MAIN));
        d.start();
        let check = NodeCheck::default();
        let verdict = |d: &ContainerdDaemon| evaluate(&inputs(d, &check)).verdict;
        assert_eq!(verdict(&d), Verdict::CheckFailed);
        d.write_file("/etc/containerd/conf.d/99-nvidia.toml", DROPIN);
        assert_eq!(verdict(&d), Verdict::RestartNeeded);
        d.restart();
        let r = evaluate(&inputs(&d, &check));
        assert_eq!(r.verdict, Verdict::CheckFailed);
        assert!(r.findings.iter().any(|f| f.code == "cri-plugin-error" && f.arg("reason").contains("no corresponding runtime")));
        d.signal(Signal::Hup);
        assert_eq!(verdict(&d), Verdict::NotReachable);
    }
}
