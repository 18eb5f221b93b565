//! The node of steps 1–2 as the model's inputs: the request's containerd files and
//! version handed to the model's learner node ([`gpulab_model::incident::node`]), and
//! its daemon before and after the restart the incident is about. The daemons made
//! here load with one loader per containerd version, kept for the chunk's lifetime
//! ([`loader`]): a request no longer parses its version's built-in defaults again.

use std::cell::RefCell;

use gpulab_model::containerd::{Containerd, Daemon, Files, Supervisor, Version};
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

thread_local! {
    /// The loader of every containerd version a request named, its defaults parsed at
    /// the first request (a loader is a pure function of its version: keeping it
    /// changes no reply, as the DRA module's kept readings change none).
    static LOADERS: RefCell<Vec<Containerd>> = const { RefCell::new(Vec::new()) };
}

/// The kept loader of `version` (made and kept at its first use).
pub fn loader(version: &Version) -> Containerd {
    LOADERS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if let Some(m) = kept.iter().find(|m| m.version == *version) {
            return m.clone();
        }
        let m = Containerd::new(version.clone());
        kept.push(m.clone());
        m
    })
}

/// A daemon of `version` that has not started, loading with the kept loader.
pub fn new_daemon(version: Version, supervisor: Supervisor, files: Files) -> Daemon {
    let model = loader(&version);
    Daemon::new(version, supervisor, files).with_model(&model)
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
    let mut d = new_daemon(version(input)?, Supervisor::systemd(), files(input, false));
    d.start();
    d.write_file(DROPIN, input.dropin.as_str());
    if restarted {
        d.restart();
    }
    Ok(d)
}
