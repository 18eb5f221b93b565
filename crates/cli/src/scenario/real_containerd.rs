//! The real containerd backend: each node's files written under a private directory
//! that stands for the node's `/` (every `/etc/containerd`, k0s's `/etc/k0s` and
//! `/run/k0s`, and `/usr/bin/nvidia-container-runtime` in the files is rewritten to point there, and
//! mapped back in what is observed), the real `containerd` binary for `config dump`, a
//! real daemon per node on a private `--root`/`--state`/`--address` for start, restart
//! and signals (stopped by its PID), `ctr plugins ls` for the CRI plugin status,
//! `gpulab cri info` (this binary) for the loaded handlers, and the real
//! `scripts/check-runtime.sh` (embedded in this binary) for the check.
//!
//! What is simulated, and said so in the record's notes: systemd. A node with
//! `supervisor = "systemd"` whose daemon died is started again by this backend once the
//! scenario's clock has passed `RestartSec` (5 s), as the shipped unit would; the
//! scenario's `advance` moves that clock, not the wall clock. SIGHUP itself is real: the
//! daemon runs with SIGHUP at its default disposition (`env --default-signal=HUP`), or
//! ignored (`env --ignore-signal=HUP`) for `supervisor = "sighup-ignored"`.
//!
//! Each node runs the real binary of its own version ([`crate::oracle::resolve`]: the
//! installed one, or the build `scripts/oracle-containerd.sh` cached). A node whose
//! version has no real binary is not started; its fields are reported as not
//! observable, with the reason.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gpulab_model::check_runtime::Status;
use gpulab_model::containerd::{CommandOutput, Supervisor};
use gpulab_model::kubernetes::kubelet::LoadedCri;
use gpulab_model::scenario::engine::{Backend, BackendError, Unobservable};
use gpulab_model::scenario::expect::{Domain, Field, Observed};
use gpulab_model::scenario::format::{Action, NodeSpec, Scenario};
use gpulab_model::scenario::model::{check_field, dump_field};

use crate::oracle::{self, Oracle};

/// The real script, shipped inside the companion.
const CHECK_SCRIPT: &str = include_str!("../../../../scripts/check-runtime.sh");

const STUB: &str = "#!/bin/sh\nexec runc \"$@\"\n";

/// The rewritten absolute paths (node path prefixes that move under the node's dir):
/// containerd's, k0s's config and generated CRI config (`scenarios/k0s-two-step-import`),
/// the NVIDIA runtime.
const MOVED: &[&str] = &["/etc/containerd", "/etc/k0s", "/run/k0s", "/usr/bin/nvidia-container-runtime"];

struct RealNode {
    spec: NodeSpec,
    /// The node's `/`.
    dir: PathBuf,
    child: Option<Child>,
    restart_at: Option<u64>,
    /// The real binaries of the node's version.
    oracle: Option<Oracle>,
    /// `PATH` for the check script: the stub runtime, then this version's binaries.
    path_env: String,
    /// Why this node is not replayed (no real binary of its version).
    skipped: Option<String>,
}

impl RealNode {
    fn main_config(&self) -> PathBuf {
        self.dir.join("etc/containerd/config.toml")
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("r/c.sock")
    }

    fn rewrite(&self, text: &str) -> String {
        let root = self.dir.to_string_lossy();
        MOVED.iter().fold(text.to_string(), |t, p| t.replace(p, &format!("{root}{p}")))
    }

    fn unmap(&self, text: &str) -> String {
        text.replace(&*self.dir.to_string_lossy(), "")
    }

    fn real_path(&self, node_path: &str) -> PathBuf {
        self.dir.join(node_path.trim_start_matches('/'))
    }

    fn write(&self, node_path: &str, content: &str) -> Result<(), String> {
        let p = self.real_path(node_path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&p, self.rewrite(content)).map_err(|e| format!("{}: {e}", p.display()))
    }

    fn is_running(&mut self) -> bool {
        match self.child.as_mut().map(Child::try_wait) {
            Some(Ok(None)) => true,
            Some(_) => {
                self.child = None;
                false
            }
            None => false,
        }
    }

    fn ctr(&self, args: &[&str]) -> Option<std::process::Output> {
        Command::new(&self.oracle.as_ref()?.ctr).arg("--address").arg(self.socket()).args(["--connect-timeout", "3s"]).args(args).output().ok()
    }

    /// Starts the daemon; waits until `ctr plugins ls` answers or the daemon exits.
    fn start(&mut self) -> Result<bool, String> {
        if self.is_running() {
            return Ok(true);
        }
        let bin = self.oracle.as_ref().map(|o| o.containerd.clone()).ok_or_else(|| format!("{}: no real containerd", self.spec.name))?;
        let run = self.dir.join("r");
        std::fs::create_dir_all(&run).map_err(|e| e.to_string())?;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(run.join("daemon.log")).map_err(|e| e.to_string())?;
        let disposition = if self.spec.supervisor == Supervisor::SighupIgnored { "--ignore-signal=HUP" } else { "--default-signal=HUP" };
        let child = Command::new("env")
            .arg(disposition)
            .arg(&bin)
            .arg("--config")
            .arg(self.main_config())
            .arg("--root")
            .arg(run.join("root"))
            .arg("--state")
            .arg(run.join("state"))
            .arg("--address")
            .arg(self.socket())
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("start containerd: {e}"))?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if !self.is_running() {
                return Ok(false);
            }
            if self.ctr(&["plugins", "ls"]).is_some_and(|o| o.status.success()) {
                // As the goldens did: a moment for the plugins to settle.
                std::thread::sleep(Duration::from_millis(700));
                return Ok(true);
            }
            if Instant::now() > deadline {
                self.stop(Some("-KILL"));
                return Err(format!("{}: containerd did not answer within 30 s", self.spec.name));
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Sends `signal` (default TERM) to the daemon's PID; waits up to 10 s for it to exit.
    /// Returns whether it exited.
    fn stop(&mut self, signal: Option<&str>) -> bool {
        let Some(child) = self.child.as_mut() else { return true };
        let pid = child.id().to_string();
        let _ = Command::new("kill").args([signal.unwrap_or("-TERM"), &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(Some(_)) = child.try_wait() {
                self.child = None;
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The backend.
pub struct RealContainerd {
    base: PathBuf,
    nodes: Vec<RealNode>,
    now: u64,
    script: PathBuf,
    gpulab: PathBuf,
    notes: Vec<String>,
}

impl RealContainerd {
    pub fn new() -> Result<RealContainerd, String> {
        // One per backend of this process (`gpulab parity --jobs N` runs several at once).
        static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        // Short: the socket path must stay under 108 bytes.
        let base = std::env::temp_dir().join(format!("gl-{}-{nanos}-{seq}", std::process::id()));
        std::fs::create_dir_all(base.join("bin")).map_err(|e| format!("{}: {e}", base.display()))?;
        let script = base.join("check-runtime.sh");
        std::fs::write(&script, CHECK_SCRIPT).map_err(|e| e.to_string())?;
        let stub = base.join("bin/nvidia-container-runtime");
        write_exec(&stub)?;
        let gpulab = std::env::current_exe().map_err(|e| e.to_string())?;
        Ok(RealContainerd { base, nodes: Vec::new(), now: 0, script, gpulab, notes: Vec::new() })
    }

    /// The node's real binaries and the `PATH` the check script sees them on (a
    /// directory of links, so `containerd` and `ctr` are that version's, whatever else
    /// is installed).
    fn binaries(&self, spec: &NodeSpec) -> Result<(Oracle, String), String> {
        let version = spec.version.as_ref().ok_or_else(|| format!("containerd {} is not a version the model knows", spec.containerd))?;
        let o = oracle::resolve(version)?;
        let dir = self.base.join(format!("containerd-{version}"));
        if !dir.is_dir() {
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for (name, target) in [("containerd", &o.containerd), ("ctr", &o.ctr)] {
                std::os::unix::fs::symlink(target, dir.join(name)).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
        }
        let path_env = format!("{}:{}:{}", self.base.join("bin").display(), dir.display(), std::env::var("PATH").unwrap_or_default());
        Ok((o, path_env))
    }

    fn node(&mut self, name: &str) -> Result<&mut RealNode, String> {
        self.nodes.iter_mut().find(|n| n.spec.name == name).ok_or_else(|| format!("no node `{name}`"))
    }

    /// Starts `name`'s daemon; a start that fails is followed by systemd's restart timer.
    fn start_node(&mut self, i: usize) -> Result<(), String> {
        let now = self.now;
        let Some(n) = self.nodes.get_mut(i) else { return Ok(()) };
        if n.skipped.is_some() {
            return Ok(());
        }
        n.restart_at = None;
        if !n.start()? {
            if let Supervisor::Systemd { restart_sec } = n.spec.supervisor {
                n.restart_at = Some(now + restart_sec);
            }
        }
        Ok(())
    }

    fn check(&mut self, name: &str) -> Result<(String, Vec<(Status, String)>), String> {
        let (script, gpulab) = (self.script.clone(), self.gpulab.clone());
        let n = self.node(name)?;
        let out = Command::new("sh")
            .arg(&script)
            .arg("--json")
            .arg("--address")
            .arg(n.socket())
            .arg("--config")
            .arg(n.main_config())
            .env("GPULAB", &gpulab)
            .env("PATH", &n.path_env)
            .env("LANG", "C.UTF-8")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .current_dir("/")
            .output()
            .map_err(|e| format!("run check-runtime.sh: {e}"))?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("check-runtime.sh printed no JSON ({e})"))?;
        let verdict = v["verdict"].as_str().unwrap_or("").to_string();
        let findings = v["findings"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|f| {
                        let status = match f["status"].as_str() {
                            Some("pass") => Status::Pass,
                            Some("restart") => Status::Restart,
                            Some("skip") => Status::Skip,
                            _ => Status::Fail,
                        };
                        (status, f["code"].as_str().unwrap_or("").to_string())
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok((verdict, findings))
    }
}

impl RealContainerd {
    /// What a kubelet finds in node `name`'s real daemon now: whether its CRI plugin
    /// serves, the runtime handlers and the default runtime it loaded (`crictl info`'s
    /// config). `None` when the node is not replayed (no real binary of its version).
    pub fn loaded_cri(&mut self, name: &str) -> Option<LoadedCri> {
        let n = self.node(name).ok()?;
        if n.skipped.is_some() {
            return None;
        }
        let containerd_version = n.spec.containerd.clone();
        let down = LoadedCri { containerd_version: containerd_version.clone(), cri_loaded: false, runtimes: Vec::new(), default_runtime_name: String::new() };
        if !n.is_running() {
            return Some(down);
        }
        let listing = n.ctr(&["plugins", "ls"]).map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
        let cri_ok = listing.lines().any(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.first() == Some(&"io.containerd.grpc.v1") && w.get(1) == Some(&"cri") && w.last() == Some(&"ok")
        });
        if !cri_ok {
            return Some(down);
        }
        let Ok(v) = crate::cri::status_json(&n.socket(), Duration::from_secs(10)) else { return Some(down) };
        let mut runtimes: Vec<String> = v["config"]["containerd"]["runtimes"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
        runtimes.sort();
        let default_runtime_name = v["config"]["containerd"]["defaultRuntimeName"].as_str().unwrap_or("runc").to_string();
        Some(LoadedCri { containerd_version, cri_loaded: true, runtimes, default_runtime_name })
    }
}

fn write_exec(path: &Path) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(path, STUB).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())
}

impl Drop for RealContainerd {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            if n.is_running() && !n.stop(None) {
                n.stop(Some("-KILL"));
            }
        }
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

impl Backend for RealContainerd {
    fn name(&self) -> String {
        "containerd".to_string()
    }

    fn setup(&mut self, scenario: &Scenario) -> Result<(), BackendError> {
        self.notes.push("systemd is simulated: a dead daemon under supervisor = systemd is started again by the companion once the scenario clock passes RestartSec".into());
        for (i, spec) in scenario.nodes.iter().enumerate() {
            let dir = self.base.join(format!("n{i}"));
            let (oracle, path_env, skipped) = match self.binaries(spec) {
                Ok((o, path_env)) => {
                    self.notes.push(format!("{}: containerd {} ({})", spec.name, o.reported, o.shown()));
                    (Some(o), path_env, None)
                }
                Err(why) => {
                    self.notes.push(format!("{}: not replayed ({why})", spec.name));
                    (None, String::new(), Some(why))
                }
            };
            let node = RealNode { spec: spec.clone(), dir, child: None, restart_at: None, oracle, path_env, skipped };
            for (path, f) in &spec.files {
                node.write(path, &f.content)?;
            }
            write_exec(&node.real_path("/usr/bin/nvidia-container-runtime"))?;
            self.nodes.push(node);
        }
        for i in 0..self.nodes.len() {
            self.start_node(i)?;
        }
        Ok(())
    }

    fn act(&mut self, action: &Action) -> Result<(), BackendError> {
        if let Some(name) = action.node() {
            if self.node(name)?.skipped.is_some() {
                return Ok(());
            }
        }
        match action {
            Action::WriteFile { node, path, file } => self.node(node)?.write(path, &file.content)?,
            Action::RemoveFile { node, path } => {
                let p = self.node(node)?.real_path(path);
                std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            }
            Action::Start { node } | Action::Restart { node } => {
                let i = self.nodes.iter().position(|n| &n.spec.name == node).ok_or("no node")?;
                if let Some(n) = self.nodes.get_mut(i) {
                    if matches!(action, Action::Restart { .. }) && n.is_running() && !n.stop(None) {
                        return Err(format!("{node}: containerd did not stop on SIGTERM").into());
                    }
                }
                self.start_node(i)?;
            }
            Action::Signal { node, signal } => {
                let now = self.now;
                let n = self.node(node)?;
                if n.is_running() && n.stop(Some(&format!("-{signal}"))) {
                    if let Supervisor::Systemd { restart_sec } = n.spec.supervisor {
                        n.restart_at = Some(now + restart_sec);
                    }
                }
            }
            Action::Advance { seconds } => {
                let until = self.now + seconds;
                loop {
                    let due = self.nodes.iter().enumerate().filter_map(|(i, n)| n.restart_at.filter(|at| *at <= until).map(|at| (at, i))).min();
                    let Some((at, i)) = due else { break };
                    self.now = at;
                    self.start_node(i)?;
                }
                self.now = until;
            }
            Action::Observe | Action::Check { .. } | Action::Apply { .. } | Action::Delete { .. } | Action::Sync { .. } | Action::NodeLayers { .. } | Action::PluginConfig { .. } | Action::MigGeometry { .. } | Action::DraDriver { .. } => {}
        }
        Ok(())
    }

    fn observe(&mut self, subject: &str, field: Field) -> Result<Observed, Unobservable> {
        if field.domain() != Domain::Containerd {
            return Err("a Kubernetes field: the containerd backend does not observe it".into());
        }
        let n = self.node(subject)?;
        if let Some(why) = &n.skipped {
            return Err(why.clone());
        }
        let bin = n.oracle.as_ref().map(|o| o.containerd.clone()).ok_or("no real containerd")?;
        let text = |s: &str| Ok(Observed::Text(s.to_string()));
        let running = n.is_running();
        match field {
            Field::Daemon => text(if running { "running" } else { "down" }),
            Field::Cri | Field::CriError => {
                if !running {
                    return if field == Field::Cri { text("not-running") } else { text("") };
                }
                let out = n.ctr(&["plugins", "ls"]).ok_or("ctr failed to run")?;
                let listing = String::from_utf8_lossy(&out.stdout).into_owned();
                let status = listing
                    .lines()
                    .find_map(|l| {
                        let w: Vec<&str> = l.split_whitespace().collect();
                        (w.first() == Some(&"io.containerd.grpc.v1") && w.get(1) == Some(&"cri")).then(|| w.last().map(|s| s.to_string()))
                    })
                    .flatten()
                    .unwrap_or_else(|| "absent".into());
                if field == Field::Cri {
                    return text(&status);
                }
                if status != "error" {
                    return text("");
                }
                let d = n.ctr(&["plugins", "ls", "-d", "type==io.containerd.grpc.v1,id==cri"]).ok_or("ctr failed to run")?;
                let detail = String::from_utf8_lossy(&d.stdout).into_owned();
                let msg = detail.lines().find_map(|l| l.trim_start().strip_prefix("Message:").map(|m| m.trim_start().to_string())).unwrap_or_default();
                text(&n.unmap(&msg))
            }
            Field::Handlers => {
                if !running {
                    return Ok(Observed::List(Vec::new()));
                }
                let mut h: Vec<String> = match crate::cri::status_json(&n.socket(), Duration::from_secs(10)) {
                    Ok(v) => v["config"]["containerd"]["runtimes"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default(),
                    Err(_) => Vec::new(),
                };
                h.sort();
                Ok(Observed::List(h))
            }
            Field::DumpExit | Field::DumpDefaultRuntime | Field::DumpRuntimes => {
                let out = Command::new(&bin).arg("--config").arg(n.main_config()).args(["config", "dump"]).current_dir("/").output().map_err(|e| e.to_string())?;
                let dump = CommandOutput {
                    stdout: n.unmap(&String::from_utf8_lossy(&out.stdout)),
                    stderr: n.unmap(&String::from_utf8_lossy(&out.stderr)),
                    exit: out.status.code().unwrap_or(-1),
                };
                Ok(dump_field(&dump, field))
            }
            Field::Check | Field::CheckCodes => {
                let (verdict, findings) = self.check(subject)?;
                Ok(check_field(&verdict, findings.iter().map(|(s, c)| (*s, c.as_str())), field))
            }
            other => Err(format!("`{}` is not a containerd field", other.name())),
        }
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}
