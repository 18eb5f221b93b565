//! The node of steps 1–2 as the model's inputs: its containerd files (the main
//! config, the NVIDIA drop-in) and version, and its daemon before and after the
//! restart the incident is about.

use gpulab_model::check_runtime::simulated::{self, NodeOp};
use gpulab_model::containerd::{Daemon, Files, Supervisor, Version, MAIN_CONFIG};
use gpulab_view::ContainerdFiles;

/// Where the NVIDIA toolkit writes its drop-in (step 2).
pub const DROPIN: &str = "/etc/containerd/conf.d/99-nvidia.toml";

/// The node's files: the main config, plus the drop-in when `with_dropin`.
pub fn files(input: &ContainerdFiles, with_dropin: bool) -> Files {
    let files = Files::new().with(MAIN_CONFIG, input.main.as_str());
    if with_dropin {
        files.with(DROPIN, input.dropin.as_str())
    } else {
        files
    }
}

/// The containerd version of the request (the lab's default when empty).
pub fn version(input: &ContainerdFiles) -> Result<Version, String> {
    let v = if input.version.is_empty() { "1.7.34" } else { input.version.as_str() };
    Version::parse(v).map_err(|e| e.to_string())
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

/// The node's daemon as step 4 left it: started on the main config, then the
/// learner's operations replayed in order (the replay step 4 shows), and whether it
/// was restarted since the drop-in was written (running, on the files on disk).
pub fn after_step_4(input: &ContainerdFiles, by_hand: bool, ops: &[String]) -> Result<(Daemon, bool), String> {
    let ops = ops.iter().map(|o| op(o)).collect::<Result<Vec<_>, _>>()?;
    let supervisor = if by_hand { Supervisor::ByHand } else { Supervisor::systemd() };
    let daemon = Daemon::new(version(input)?, supervisor, files(input, false));
    let (daemon, _) = simulated::replay(daemon, DROPIN, &input.dropin, &ops, |_| ());
    let restarted = ops.contains(&NodeOp::WriteDropin) && daemon.is_running() && !daemon.loaded_config_is_stale();
    Ok((daemon, restarted))
}

/// The incident's daemon: started on the main config, then the drop-in written;
/// `restarted` adds `systemctl restart containerd`.
pub fn daemon(input: &ContainerdFiles, restarted: bool) -> Result<Daemon, String> {
    let mut d = Daemon::new(version(input)?, Supervisor::systemd(), files(input, false));
    d.start();
    d.write_file(DROPIN, input.dropin.as_str());
    if restarted {
        d.restart();
    }
    Ok(d)
}
