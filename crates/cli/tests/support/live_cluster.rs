//! Shared by the real-control-plane tests (`cluster_live`, `cluster_faults`): the
//! options for the cached `kube-oracle`, the check that nothing is left (no PID, no
//! bound port, no dir, no process naming the dir), a kube-rs client for raw calls, the
//! private `HOME`/`TMPDIR`/`XDG_RUNTIME_DIR` a spawned `gpulab` gets, and a child's
//! stderr read line by line while it runs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gpulab::cluster::ports::Ports;
use gpulab::cluster::process::live_cmdline;
use gpulab::cluster::{Component, Options, DEFAULT_RELEASE};

/// One control plane at a time: two at once on a small machine would race the 60 s.
pub static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn options(dir: &Path) -> Options {
    let mut o = Options::new(DEFAULT_RELEASE).unwrap();
    assert!(o.binary.is_file(), "no {}: `scripts/oracle-kube.sh {DEFAULT_RELEASE}` (or `./dev.sh setup`) builds it", o.binary.display());
    o.dir = dir.to_path_buf();
    o
}

/// The cache root holding the binary (`…/kube/<release>/kube-oracle` → `…`), for a
/// spawned `gpulab` whose `HOME` is private.
pub fn cache_root() -> PathBuf {
    let b = options(Path::new("/")).binary;
    b.ancestors().nth(3).unwrap().to_path_buf()
}

/// The PIDs of processes whose command line names `dir` (every component's does).
pub fn processes_naming(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        if let Some(cmd) = live_cmdline(pid) {
            if cmd.iter().any(|a| a.contains(&needle)) {
                out.push(format!("pid {pid}: {}", cmd.join(" ")));
            }
        }
    }
    out
}

/// Nothing left: no PID runs, every port binds again, the dir is gone, no process
/// names it.
pub fn assert_nothing_left(pids: &[(Component, u32)], ports: &Ports, dir: &Path) {
    for (c, pid) in pids {
        assert!(live_cmdline(*pid).is_none(), "{c} (pid {pid}) still runs");
    }
    for (who, port) in ports.named() {
        TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap_or_else(|e| panic!("{who} 127.0.0.1:{port} still bound: {e}"));
    }
    assert!(!dir.exists(), "{} is left", dir.display());
    let left = processes_naming(dir);
    assert!(left.is_empty(), "still running: {left:?}");
}

/// The private places a spawned `gpulab` may write to by default: `HOME`, `TMPDIR` and
/// `XDG_RUNTIME_DIR`, each empty before; [`Private::assert_untouched`] proves each is
/// still empty after (nothing outside the dirs a test names was written).
pub struct Private {
    pub home: PathBuf,
    pub tmp: PathBuf,
    pub run: PathBuf,
}

impl Private {
    pub fn new(root: &Path) -> Private {
        let p = Private { home: root.join("home"), tmp: root.join("tmp"), run: root.join("run") };
        for d in [&p.home, &p.tmp, &p.run] {
            std::fs::create_dir_all(d).unwrap();
        }
        p
    }

    /// `gpulab ARGS` with the private environment (the binary from the real cache).
    pub fn gpulab(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_gpulab"));
        c.args(args).env("HOME", &self.home).env("TMPDIR", &self.tmp).env("XDG_RUNTIME_DIR", &self.run).env("GPULAB_CACHE", cache_root()).env_remove("KUBECONFIG");
        c
    }

    pub fn assert_untouched(&self) {
        for d in [&self.home, &self.tmp, &self.run] {
            let left: Vec<PathBuf> = std::fs::read_dir(d).unwrap().flatten().map(|e| e.path()).collect();
            assert!(left.is_empty(), "written outside the test's dirs: {left:?}");
        }
    }
}

/// A running child's stderr, line by line (a thread reads it; the lines also kept).
pub struct Lines {
    rx: Receiver<String>,
    pub seen: Vec<String>,
}

impl Lines {
    pub fn of(child: &mut Child) -> Lines {
        let err = child.stderr.take().expect("stderr piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Lines { rx, seen: Vec::new() }
    }

    /// Waits for a line `want` holds for; returns it. Fails after `within` or at EOF.
    pub fn wait_for(&mut self, what: &str, within: Duration, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + within;
        loop {
            match self.rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if want(&l) {
                        return l;
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("{what}: not within {} s; stderr so far:\n{}", within.as_secs(), self.seen.join("\n")),
                Err(RecvTimeoutError::Disconnected) => panic!("{what}: stderr ended; it said:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// Everything up to the end of the stream.
    pub fn rest(mut self) -> String {
        self.seen.extend(self.rx.iter());
        self.seen.join("\n")
    }
}

/// Waits up to `within` for `child` to exit; kills it (by its handle) and fails if not.
pub fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pid {} did not exit within {} s", child.id(), within.as_secs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Sends `signal` to `pid` (a process this test started) with the system's `kill`.
pub fn signal(pid: u32, signal: &str) {
    let s = Command::new("kill").args(["-s", signal, &pid.to_string()]).status().unwrap();
    assert!(s.success(), "kill -s {signal} {pid}");
}

/// The API client the live tests share (one home: `support/kube_api.rs`).
pub use crate::support::kube_api::Api;
