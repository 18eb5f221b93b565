//! The learner's node (steps 1–4): the containerd version and files they edited, and
//! its daemon as step 4 left it — started on the main config, the NVIDIA drop-in
//! written, then the learner's operations (restart, SIGHUP, waits) replayed in order
//! (`check_runtime::simulated::replay`, the replay step 4 shows). The same node gets
//! the RuntimeClass's sandbox in step 5 and runs the device-plugin pod in step 8.

use crate::check_runtime::simulated::{self, NodeOp};
use crate::containerd::{Daemon, Files, Supervisor, Version, MAIN_CONFIG};

use super::work::{defaults, ContainerdWork, LabWork};

/// Where the NVIDIA toolkit writes its drop-in (step 2).
pub const DROPIN: &str = "/etc/containerd/conf.d/99-nvidia.toml";

/// The node's files: the main config, plus the drop-in when `with_dropin`.
pub fn files(input: &ContainerdWork, with_dropin: bool) -> Files {
    let files = Files::new().with(MAIN_CONFIG, input.main.as_str());
    if with_dropin {
        files.with(DROPIN, input.dropin.as_str())
    } else {
        files
    }
}

/// The node's containerd version (the lab's default when empty).
pub fn version(input: &ContainerdWork) -> Result<Version, String> {
    let v = if input.version.is_empty() { defaults::CONTAINERD_VERSION } else { input.version.as_str() };
    Version::parse(v).map_err(|e| format!("containerd version {v:?}: {e}"))
}

/// A step-4 operation by its saved name.
pub fn op(name: &str) -> Result<NodeOp, String> {
    Ok(match name {
        "write-dropin" => NodeOp::WriteDropin,
        "sighup" => NodeOp::Sighup,
        "restart" => NodeOp::Restart,
        "wait" => NodeOp::Wait,
        "run-check" => NodeOp::RunCheck,
        other => return Err(format!("unknown operation {other:?}")),
    })
}

/// `by-hand` or `systemd` (the default).
pub fn supervisor(name: &str) -> Supervisor {
    if name == "by-hand" {
        Supervisor::ByHand
    } else {
        Supervisor::systemd()
    }
}

/// The daemon after step 4's operations as the learner did them (step 4's own view:
/// the drop-in is on disk only after a `write-dropin`), and each `run-check`'s time and
/// `run_check`'s result.
pub fn replay_step_4<R>(work: &LabWork, run_check: impl FnMut(&Daemon) -> R) -> Result<(Daemon, Vec<(u64, R)>), String> {
    let ops = work.restart.ops.iter().map(|o| op(o)).collect::<Result<Vec<_>, _>>()?;
    let daemon = Daemon::new(version(&work.containerd)?, supervisor(&work.restart.supervisor), files(&work.containerd, false));
    Ok(simulated::replay(daemon, DROPIN, &work.containerd.dropin, &ops, run_check))
}

/// The node as the incident meets it after step 4: the toolkit's drop-in is on disk
/// (written before the learner's operations when they did not write it themselves —
/// the incident's premise), then their operations in order.
pub fn after_step_4(work: &LabWork) -> Result<Daemon, String> {
    let mut ops = work.restart.ops.clone();
    if !ops.iter().any(|o| o == "write-dropin") {
        ops.insert(0, "write-dropin".into());
    }
    let mut w = work.clone();
    w.restart.ops = ops;
    replay_step_4(&w, |_| ()).map(|(d, _)| d)
}

/// Whether `daemon` runs on the files on disk (restarted since they changed).
pub fn restarted(daemon: &Daemon) -> bool {
    daemon.is_running() && !daemon.loaded_config_is_stale()
}
