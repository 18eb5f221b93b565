//! Stopping a control plane a `gpulab cluster up` left running: every process its
//! pidfiles name, by PID (SIGTERM, a wait, SIGKILL; a PID that now runs another command
//! is not signalled), then its private dir is removed. A dir that is not a gpulab
//! cluster's is not touched.

use super::dir::{self, Found, Layout};
use super::process::{self, Proc};
use super::up::STOP_GRACE;
use super::Error;

/// Stops the cluster in `layout`; one line per process, then the removal.
pub fn down(layout: &Layout) -> Result<Vec<String>, Error> {
    let shown = layout.root.display();
    let recorded = match dir::inspect(layout).map_err(Error::external)? {
        Found::Absent => return Err(Error::usage(format!("no cluster in {shown}: the directory does not exist (nothing to stop)"))),
        Found::Empty => return Err(Error::usage(format!("no cluster in {shown}: the directory is empty (nothing to stop)"))),
        Found::Foreign(why) => return Err(Error::usage(format!("{why}; not touching it"))),
        Found::Cluster(r) => r,
    };
    let mut procs: Vec<Proc> = recorded.into_iter().map(|r| Proc::from_pidfile(r.component, r.pidfile, layout.log(r.component))).collect();
    let mut lines = process::stop_all(&mut procs, STOP_GRACE);
    let left: Vec<String> = procs.iter_mut().filter_map(|p| p.exited().is_none().then(|| format!("{} pid {}", p.component, p.pid))).collect();
    if !left.is_empty() {
        return Err(Error::external(format!("{}\nstill running after SIGKILL: {}; {shown} is kept", lines.join("\n"), left.join(", "))));
    }
    dir::remove(layout).map_err(Error::external)?;
    lines.push(format!("removed {shown}"));
    Ok(lines)
}
