//! The components' processes: spawned with their output in a log file of the private
//! dir and their PID and command line in a pidfile; stopped by PID only — SIGTERM, a
//! wait, then SIGKILL — and never before `/proc/PID/cmdline` shows the very command line
//! the pidfile recorded, so a PID the kernel gave to another process since is left alone.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::component::Component;

/// What a pidfile holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pidfile {
    pub pid: u32,
    /// The command line as spawned (program, then arguments).
    pub cmdline: Vec<String>,
}

/// A component's process: spawned by this process (with its [`Child`], so it is reaped)
/// or read back from its pidfile by a later `gpulab cluster down`.
#[derive(Debug)]
pub struct Proc {
    pub component: Component,
    pub pid: u32,
    pub cmdline: Vec<String>,
    pub log: PathBuf,
    child: Option<Child>,
}

/// How a stop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// It had already exited.
    AlreadyGone,
    /// It exited on SIGTERM.
    Terminated,
    /// It ignored SIGTERM for the grace period and was killed.
    Killed,
    /// The PID now belongs to another command line: not signalled.
    NotOurs,
}

/// The arguments of a `/proc/PID/cmdline` (NUL-separated, NUL-terminated).
pub fn parse_cmdline(bytes: &[u8]) -> Vec<String> {
    let bytes = bytes.strip_suffix(&[0]).unwrap_or(bytes);
    if bytes.is_empty() {
        return Vec::new();
    }
    bytes.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect()
}

/// The state letter of a `/proc/PID/stat` line (`R`, `S`, `Z`, …): the field after the
/// command name's closing parenthesis (the name itself may hold spaces and parentheses).
pub fn parse_stat_state(stat: &str) -> Option<char> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

/// The live command line of `pid`; `None` when no such process runs (gone, or a zombie
/// waiting to be reaped: it has exited).
pub fn live_cmdline(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    if matches!(parse_stat_state(&stat), Some('Z' | 'X') | None) {
        return None;
    }
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(parse_cmdline(&bytes))
}

/// Is `pid` running the command line a pidfile recorded?
pub fn is_ours(p: &Pidfile) -> bool {
    live_cmdline(p.pid).is_some_and(|c| c == p.cmdline)
}

/// Sends `signal` (`TERM`, `KILL`) to `pid` with the system's `kill` — this crate has
/// no unsafe code, and std only knows SIGKILL for its own children.
fn signal(pid: u32, signal: &str) {
    let _ = Command::new("kill").args(["-s", signal, &pid.to_string()]).stdout(Stdio::null()).stderr(Stdio::null()).status();
}

/// Writes `p` to `path` (through a temporary file and a rename: never half a pidfile).
pub fn write_pidfile(path: &Path, p: &Pidfile) -> Result<(), String> {
    let tmp = path.with_extension("pid.tmp");
    let text = serde_json::to_string(p).map_err(|e| e.to_string())?;
    std::fs::write(&tmp, text).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads a pidfile; `Ok(None)` when there is none.
pub fn read_pidfile(path: &Path) -> Result<Option<Pidfile>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| format!("{}:{}: not a gpulab pidfile: {e}", path.display(), e.line())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// How to spawn one component.
#[derive(Debug, Clone)]
pub struct Spawn<'a> {
    pub component: Component,
    pub program: &'a Path,
    /// Everything after the program (the component's name first, for the multi-call binary).
    pub args: &'a [String],
    pub cwd: &'a Path,
    pub log: PathBuf,
    pub pidfile: PathBuf,
    /// In its own process group, so the terminal's Ctrl-C and hang-up after `cluster up`
    /// returned do not reach it (`gpulab cluster up`); otherwise it shares the caller's.
    pub detach: bool,
}

impl Proc {
    /// Starts the process (stdin closed, stdout and stderr appended to the log) and
    /// writes its pidfile.
    pub fn spawn(s: &Spawn) -> Result<Proc, String> {
        use std::os::unix::process::CommandExt;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&s.log).map_err(|e| format!("{}: {e}", s.log.display()))?;
        let err = log.try_clone().map_err(|e| format!("{}: {e}", s.log.display()))?;
        let mut cmd = Command::new(s.program);
        cmd.args(s.args).current_dir(s.cwd).stdin(Stdio::null()).stdout(log).stderr(err);
        if s.detach {
            cmd.process_group(0);
        }
        let child = cmd.spawn().map_err(|e| format!("{}: cannot start {}: {e}", s.component, s.program.display()))?;
        let mut cmdline = vec![s.program.to_string_lossy().into_owned()];
        cmdline.extend(s.args.iter().cloned());
        let mut proc = Proc { component: s.component, pid: child.id(), cmdline, log: s.log.clone(), child: Some(child) };
        if let Err(e) = write_pidfile(&s.pidfile, &proc.pidfile()) {
            proc.stop(Duration::from_secs(5));
            return Err(e);
        }
        Ok(proc)
    }

    /// A process recorded in a pidfile by an earlier `gpulab` (no [`Child`]: its exit is
    /// seen through `/proc`).
    pub fn from_pidfile(component: Component, p: Pidfile, log: PathBuf) -> Proc {
        Proc { component, pid: p.pid, cmdline: p.cmdline, log, child: None }
    }

    pub fn pidfile(&self) -> Pidfile {
        Pidfile { pid: self.pid, cmdline: self.cmdline.clone() }
    }

    /// `Some(how)` once the process has exited (`exit status: 1`, `signal: 9: SIGKILL`,
    /// or `exited` when it is not our child); a PID now running another command line
    /// counts as exited too (ours is gone).
    pub fn exited(&mut self) -> Option<String> {
        match self.life() {
            Life::Running => None,
            Life::Exited(how) => Some(how),
            Life::Reused => Some("exited (its PID now runs another command)".to_string()),
        }
    }

    fn life(&mut self) -> Life {
        match self.child.as_mut() {
            // Our unreaped child: its PID cannot have been reused.
            Some(c) => match c.try_wait() {
                Ok(Some(status)) => Life::Exited(status.to_string()),
                Ok(None) => Life::Running,
                Err(e) => Life::Exited(e.to_string()),
            },
            None => match live_cmdline(self.pid) {
                None => Life::Exited("exited".to_string()),
                Some(c) if c == self.cmdline => Life::Running,
                Some(_) => Life::Reused,
            },
        }
    }

    fn wait_exit(&mut self, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.life() != Life::Running {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, up to `grace` for it to exit, then SIGKILL — each signal sent only while
    /// the process is our unreaped child or its live command line is the recorded one.
    pub fn stop(&mut self, grace: Duration) -> Stopped {
        match self.life() {
            Life::Exited(_) => return Stopped::AlreadyGone,
            Life::Reused => return Stopped::NotOurs,
            Life::Running => {}
        }
        signal(self.pid, "TERM");
        if self.wait_exit(grace) {
            return Stopped::Terminated;
        }
        if self.life() != Life::Running {
            return Stopped::Terminated;
        }
        signal(self.pid, "KILL");
        self.wait_exit(Duration::from_secs(5));
        Stopped::Killed
    }
}

/// Where a process is in its life.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Life {
    Running,
    Exited(String),
    /// Not our child, and its PID runs another command line now.
    Reused,
}

/// Stops `procs` in reverse order (the controller manager first, etcd last); one line
/// per process saying what happened.
pub fn stop_all(procs: &mut [Proc], grace: Duration) -> Vec<String> {
    procs
        .iter_mut()
        .rev()
        .map(|p| {
            let how = match p.stop(grace) {
                Stopped::AlreadyGone => "had already exited",
                Stopped::Terminated => "stopped (SIGTERM)",
                Stopped::Killed => "killed (SIGKILL after the grace period)",
                Stopped::NotOurs => "not signalled: the PID now runs another command",
            };
            format!("{} (pid {}) {how}", p.component, p.pid)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/PID/cmdline` is NUL-separated with a trailing NUL; a zombie's is empty.
    #[test]
    fn cmdline_parsing() {
        assert_eq!(parse_cmdline(b"/c/kube-oracle\0etcd\0--name=x\0"), ["/c/kube-oracle", "etcd", "--name=x"]);
        assert_eq!(parse_cmdline(b"a\0\0b\0"), ["a", "", "b"]);
        assert!(parse_cmdline(b"").is_empty());
    }

    /// The state comes after the last `)`: a command name may hold `) S (`.
    #[test]
    fn stat_state_parsing() {
        assert_eq!(parse_stat_state("42 (etcd) S 1 42 42 0"), Some('S'));
        assert_eq!(parse_stat_state("42 (a) Z (b)) Z 1 2"), Some('Z'));
        assert_eq!(parse_stat_state("garbage"), None);
    }

    /// A pidfile round-trips; a broken one names the file and line.
    #[test]
    fn pidfile_text() {
        let p = Pidfile { pid: 7, cmdline: vec!["/bin/x".into(), "etcd".into()] };
        let text = serde_json::to_string(&p).unwrap();
        assert_eq!(text, r#"{"pid":7,"cmdline":["/bin/x","etcd"]}"#);
        assert_eq!(serde_json::from_str::<Pidfile>(&text).unwrap(), p);
    }
}
