//! The node of steps 1–2 as the model's inputs: the request's containerd files and
//! version handed to the model's learner node ([`gpulab_model::incident::node`]), and
//! its daemon before and after the restart the incident is about.

use gpulab_model::containerd::{Daemon, Files, Supervisor, Version};
use gpulab_model::incident::node as model;
use gpulab_model::incident::work::{ContainerdWork, LabWork};
use gpulab_view::ContainerdFiles;

pub use model::{op, DROPIN};

fn work(input: &ContainerdFiles) -> ContainerdWork {
    ContainerdWork { version: input.version.clone(), main: input.main.clone(), dropin: input.dropin.clone() }
}

/// The node's files: the main config, plus the drop-in when `with_dropin`.
pub fn files(input: &ContainerdFiles, with_dropin: bool) -> Files {
    model::files(&work(input), with_dropin)
}

/// The containerd version of the request (the lab's default when empty).
pub fn version(input: &ContainerdFiles) -> Result<Version, String> {
    model::version(&work(input))
}

/// The node's daemon as step 4 left it: started on the main config, then the
/// learner's operations replayed in order (the replay step 4 shows), and whether it
/// was restarted since the drop-in was written (running, on the files on disk).
pub fn after_step_4(input: &ContainerdFiles, by_hand: bool, ops: &[String]) -> Result<(Daemon, bool), String> {
    let mut lab = LabWork { containerd: work(input), ..LabWork::default() };
    lab.restart.supervisor = if by_hand { "by-hand" } else { "systemd" }.into();
    lab.restart.ops = ops.to_vec();
    let (daemon, _) = model::replay_step_4(&lab, |_| ())?;
    let restarted = ops.iter().any(|o| o == "write-dropin") && model::restarted(&daemon);
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
