//! The check run on the simulated node: turns a [`containerd::Daemon`] (files on disk,
//! the config loaded at its last start, whether it runs) into the [`CheckInputs`] the
//! script would gather on a real node — `ctr plugins ls` rows, the live CRI status,
//! `containerd config dump`, the main config — so [`evaluate`](super::evaluate) gives
//! the lab exactly the verdict the script prints (steps 3 and 4).

use crate::containerd::cri::PluginState;
use crate::containerd::value::{Node, Value};
use crate::containerd::{self, Start, MAIN_CONFIG};

use super::{CheckInputs, Daemon, Dump, Loaded, LoadedRuntime, PluginRow};

/// The script's options and what exists on the simulated node besides containerd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeCheck {
    pub address: String,
    pub config: String,
    pub handler: String,
    pub keep: String,
    /// Runtime binaries installed on the node (absolute paths, or names on PATH).
    pub existing_binaries: Vec<String>,
}

impl Default for NodeCheck {
    /// The script's defaults on a GPU node with the NVIDIA container toolkit installed.
    fn default() -> Self {
        NodeCheck {
            address: "/run/containerd/containerd.sock".into(),
            config: MAIN_CONFIG.into(),
            handler: "nvidia".into(),
            keep: "runc".into(),
            existing_binaries: vec![
                "runc".into(),
                "containerd-shim-runc-v2".into(),
                "nvidia-container-runtime".into(),
                "/usr/bin/nvidia-container-runtime".into(),
            ],
        }
    }
}

/// One thing the lab's step 4 does to the node, in the learner's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeOp {
    /// Write the drop-in to disk (as the NVIDIA toolkit does).
    WriteDropin,
    Sighup,
    Restart,
    /// Let five seconds pass.
    Wait,
    /// Run the check on the node as it is now.
    RunCheck,
}

/// Starts `daemon`, applies `ops` in order (the drop-in is `dropin` at `dropin_path`)
/// and calls `run_check` at each [`NodeOp::RunCheck`]: the daemon after them all, and
/// each check's time and result. The app replays the daemon with a no-op check (its
/// first load has no check code); the chunk runs [`super::evaluate`] on [`inputs`].
pub fn replay<R>(
    mut daemon: containerd::Daemon,
    dropin_path: &str,
    dropin: &str,
    ops: &[NodeOp],
    mut run_check: impl FnMut(&containerd::Daemon) -> R,
) -> (containerd::Daemon, Vec<(u64, R)>) {
    daemon.start();
    let mut runs = Vec::new();
    for op in ops {
        match op {
            NodeOp::WriteDropin => daemon.write_file(dropin_path, dropin),
            NodeOp::Sighup => daemon.signal(containerd::Signal::Hup),
            NodeOp::Restart => daemon.restart(),
            NodeOp::Wait => daemon.advance(5),
            NodeOp::RunCheck => runs.push((daemon.now(), run_check(&daemon))),
        }
    }
    (daemon, runs)
}

/// What the script would see on this simulated node now.
pub fn inputs(daemon: &containerd::Daemon, node: &NodeCheck) -> CheckInputs {
    let serving = daemon.is_running().then(|| daemon.loaded()).flatten();
    let (daemon_view, loaded) = match serving.map(|l| (&l.start, l)) {
        Some((Start::Serving(cri), result)) => {
            let plugins = cri
                .plugins
                .iter()
                .filter(|(_, state)| *state != PluginState::Absent)
                .map(|(uri, state)| {
                    let (plugin_type, id) = uri.rsplit_once('.').unwrap_or((uri.as_str(), ""));
                    let reason = match (state, &cri.error) {
                        (PluginState::Error, Some(e)) => format!("invalid plugin config: {e}"),
                        _ => String::new(),
                    };
                    PluginRow { plugin_type: plugin_type.into(), id: id.into(), status: state.as_str().into(), reason }
                })
                .collect();
            let loaded = if matches!(cri.status(), PluginState::Ok) {
                loaded_cri(result)
            } else {
                // What `gpulab cri info` / crictl answer when the CRI service is not registered.
                Loaded::Unavailable {
                    detail: "rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService".into(),
                }
            };
            (Daemon::Running { plugins }, loaded)
        }
        _ => {
            let detail = format!("connect: connection refused: dial unix {}", node.address);
            (Daemon::NotRunning { detail: detail.clone() }, Loaded::Unavailable { detail })
        }
    };
    let dump = daemon.config_dump();
    let dump = if dump.exit == 0 { Dump::Text(dump.stdout) } else { Dump::Failed { detail: dump.stderr } };
    let main_config = match daemon.files.read(&node.config) {
        containerd::files::Entry::File(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        _ => None,
    };
    CheckInputs {
        address: node.address.clone(),
        config: node.config.clone(),
        handler: node.handler.clone(),
        keep: node.keep.clone(),
        daemon: daemon_view,
        cri_source: "gpulab cri info".into(),
        loaded,
        dump,
        main_config,
        existing_binaries: node.existing_binaries.clone(),
    }
}

/// The loaded CRI runtime handlers, as the live CRI status lists them.
fn loaded_cri(result: &containerd::LoadResult) -> Loaded {
    let id = if result.version.is_1x() { "io.containerd.grpc.v1.cri" } else { "io.containerd.cri.v1.runtime" };
    let cri = result.config.as_ref().and_then(|c| c.decoded.get_path(&[id, "containerd"])).and_then(Node::as_table);
    let Some(cri) = cri else {
        return Loaded::Unrecognised;
    };
    let default_runtime_name = cri.get("default_runtime_name").and_then(Node::as_str).unwrap_or("").to_string();
    let runtimes = cri
        .get("runtimes")
        .and_then(Node::as_table)
        .map(|t| {
            t.entries
                .iter()
                .filter_map(|(name, node)| {
                    let table = node.as_table()?;
                    let runtime_type = table.get("runtime_type").and_then(Node::as_str).unwrap_or("").to_string();
                    let options = table
                        .get("options")
                        .and_then(Node::as_table)
                        .map(|o| o.entries.iter().filter_map(|(k, v)| Some((k.clone(), scalar(v)?))).collect())
                        .unwrap_or_default();
                    Some(LoadedRuntime { name: name.clone(), runtime_type, options })
                })
                .collect()
        })
        .unwrap_or_default();
    Loaded::Cri { default_runtime_name, runtimes }
}

/// A scalar option as text, the way the CRI status JSON prints it.
fn scalar(node: &Node) -> Option<String> {
    match &node.value {
        Value::String(s) | Value::Datetime(s) => Some(s.clone()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Float(f) => Some(f.to_string()),
        Value::Boolean(b) => Some(b.to_string()),
        Value::Array(_) | Value::Table(_) => None,
    }
}
