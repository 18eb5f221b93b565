//! Starting a control plane: [`Cluster::start`] — used by `gpulab cluster up` and by
//! the tests alike. It takes over the private dir (refusing a running or a foreign one,
//! removing a stale one), writes the PKI and the kubeconfigs, starts etcd, the API
//! server, then the scheduler and the controller manager, each waited for until ready.
//! Any failure — a component that exits, one not ready in time, Ctrl-C — stops every
//! process already started and removes the dir; the error names the component and
//! shows the tail of its log.

use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::component::Component;
use super::dir::{self, Found, Layout};
use super::kubeconfig::{context_name, Kubeconfig};
use super::pki::{Pki, ADMIN_USER};
use super::ports::Ports;
use super::process::{self, Proc, Spawn};
use super::ready::Probes;
use super::{flags, log, Error};

/// How long a component has to stop after SIGTERM before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// How to start a control plane.
#[derive(Debug, Clone)]
pub struct Options {
    /// The release, `v1.37.2`.
    pub release: String,
    /// The private dir.
    pub dir: PathBuf,
    /// The multi-call binary (`kube-oracle etcd|kube-apiserver|…`).
    pub binary: PathBuf,
    /// Own process groups: the processes outlive this one (`gpulab cluster up`).
    pub detach: bool,
    /// Fixed ports instead of free ones picked now.
    pub ports: Option<Ports>,
    /// Extra arguments appended to a component's command line (tests use it to make a
    /// component fail).
    pub extra_args: Vec<(Component, String)>,
    /// The whole start-up must be ready within this.
    pub ready_timeout: Duration,
    /// Set by a signal handler: the start stops, undoes itself and says so.
    pub interrupted: Option<Arc<AtomicBool>>,
    /// Progress lines on stderr.
    pub verbose: bool,
}

impl Options {
    /// The defaults for `release` (`v1.37.2` or `1.37.2`): the cached binary
    /// (`$GPULAB_CACHE`, else `~/.cache/gpulab`), the user's private dir, 60 s.
    pub fn new(release: &str) -> Result<Options, Error> {
        let release = dir::release(release).map_err(Error::usage)?;
        let uid = dir::current_uid().map_err(Error::external)?;
        let env = |k| std::env::var_os(k);
        Ok(Options {
            binary: dir::binary_path(env("GPULAB_CACHE").as_deref(), env("HOME").as_deref(), &release),
            dir: dir::default_dir(env("XDG_RUNTIME_DIR").as_deref(), uid),
            release,
            detach: false,
            ports: None,
            extra_args: Vec::new(),
            ready_timeout: Duration::from_secs(60),
            interrupted: None,
            verbose: false,
        })
    }
}

/// What `cluster.json` records.
#[derive(Debug, Serialize)]
struct Marker<'a> {
    release: &'a str,
    binary: &'a Path,
    context: &'a str,
    ports: &'a Ports,
}

/// A running control plane. Dropping it stops it (unless [`Cluster::detach`]ed).
#[derive(Debug)]
pub struct Cluster {
    layout: Layout,
    release: String,
    context: String,
    ports: Ports,
    procs: Vec<Proc>,
    startup: Duration,
    notes: Vec<String>,
    detached: bool,
}

/// Writes `text` to a new file readable by its owner only.
fn write_private(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    f.write_all(text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
}

fn mkdir_private(path: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new().mode(0o700).create(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The shell's spelling of `s` (single quotes when needed).
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:,=@%".contains(&b)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// How `gpulab cluster down` is typed for this dir.
fn down_command(dir: &Path) -> String {
    format!("gpulab cluster down --dir {}", shell_quote(&dir.to_string_lossy()))
}

impl Cluster {
    /// Starts a control plane as `opts` says. Blocking; call it from a thread without a
    /// tokio runtime (it runs its own for the readiness probes).
    pub fn start(opts: Options) -> Result<Cluster, Error> {
        let t0 = Instant::now();
        if !opts.binary.is_file() {
            return Err(Error::usage(format!(
                "no control-plane binary for {} at {}: build it with `./dev.sh setup` (or `scripts/oracle-kube.sh {}`)",
                opts.release,
                opts.binary.display(),
                opts.release
            )));
        }
        let layout = Layout::new(&opts.dir);
        let mut notes = Vec::new();
        match dir::inspect(&layout).map_err(Error::external)? {
            Found::Absent | Found::Empty => {}
            Found::Foreign(why) => return Err(Error::usage(format!("{why}; pass --dir with a new or empty directory"))),
            Found::Cluster(recorded) => {
                let running: Vec<String> = recorded.iter().filter(|r| r.running).map(|r| format!("{} pid {}", r.component, r.pidfile.pid)).collect();
                if !running.is_empty() {
                    let exited: Vec<String> = recorded.iter().filter(|r| !r.running).map(|r| format!("{} pid {}", r.component, r.pidfile.pid)).collect();
                    let partly = if exited.is_empty() { String::new() } else { format!("; exited: {}", exited.join(", ")) };
                    return Err(Error::usage(format!(
                        "a cluster is already running in {} ({}{partly}): `{}` stops it",
                        layout.root.display(),
                        running.join(", "),
                        down_command(&layout.root)
                    )));
                }
                let gone: Vec<String> = recorded.iter().map(|r| format!("{} pid {}", r.component, r.pidfile.pid)).collect();
                dir::remove(&layout).map_err(Error::external)?;
                let why = if gone.is_empty() { "no process recorded".to_string() } else { format!("its processes had exited: {}", gone.join(", ")) };
                notes.push(format!("removed the stale cluster directory {} ({why})", layout.root.display()));
            }
        }
        let ports = match opts.ports {
            Some(p) => {
                p.check_free().map_err(Error::external)?;
                p
            }
            None => Ports::pick_free(5).map_err(Error::external)?,
        };
        let context = context_name(&opts.release);
        let mut cluster = Cluster { layout, release: opts.release.clone(), context, ports, procs: Vec::new(), startup: Duration::ZERO, notes, detached: false };
        if opts.verbose {
            for n in &cluster.notes {
                eprintln!("gpulab: {n}");
            }
        }
        dir::create_private(&cluster.layout.root).map_err(Error::external)?;
        // From here on a failure undoes everything: the marker goes first, so the dir is
        // ours to remove.
        let marker = Marker { release: &opts.release, binary: &opts.binary, context: &cluster.context, ports: &cluster.ports };
        let written = serde_json::to_string_pretty(&marker).map_err(|e| e.to_string()).and_then(|m| write_private(&cluster.layout.marker(), &m));
        if let Err(e) = written {
            let _ = std::fs::remove_dir(&cluster.layout.root);
            return Err(Error::external(e));
        }
        match cluster.boot(&opts) {
            Ok(()) => {
                cluster.startup = t0.elapsed();
                Ok(cluster)
            }
            Err(e) => {
                let lines = cluster.shut_down();
                let undone = if lines.is_empty() { String::new() } else { format!("\n{}", lines.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")) };
                Err(Error { kind: e.kind, message: format!("{}\nstopped what had started and removed {}:{undone}", e.message, cluster.layout.root.display()) })
            }
        }
    }

    /// Files, then the components in order, each until ready.
    fn boot(&mut self, opts: &Options) -> Result<(), Error> {
        let l = self.layout.clone();
        for d in [l.pki_dir(), l.logs_dir(), l.pids_dir()] {
            mkdir_private(&d).map_err(Error::external)?;
        }
        let pki = Pki::generate().map_err(Error::external)?;
        for (name, text) in pki.files() {
            write_private(&l.pki(&name), text).map_err(Error::external)?;
        }
        let server = format!("https://127.0.0.1:{}", self.ports.apiserver);
        let kc = |user, cert: &crate::cluster::pki::CertPem| {
            Kubeconfig { context: &self.context, server: &server, ca_pem: &pki.ca.cert, user, cert_pem: &cert.cert, key_pem: &cert.key }.render()
        };
        let admin = kc(ADMIN_USER, &pki.admin);
        write_private(&l.kubeconfig(), &admin).map_err(Error::external)?;
        write_private(&l.component_kubeconfig(Component::KubeScheduler), &kc("system:kube-scheduler", &pki.scheduler)).map_err(Error::external)?;
        write_private(&l.component_kubeconfig(Component::KubeControllerManager), &kc("system:kube-controller-manager", &pki.controller_manager))
            .map_err(Error::external)?;
        let probes = Probes::new(&admin, &self.ports).map_err(Error::external)?;
        let deadline = Instant::now() + opts.ready_timeout;
        for group in [&[Component::Etcd][..], &[Component::KubeApiserver], &[Component::KubeScheduler, Component::KubeControllerManager]] {
            for c in group {
                self.spawn(*c, opts)?;
            }
            for c in group {
                self.wait_ready(*c, &probes, deadline, opts)?;
            }
        }
        Ok(())
    }

    fn spawn(&mut self, c: Component, opts: &Options) -> Result<(), Error> {
        interrupted(opts)?;
        let mut args = flags::args(c, &self.layout, &self.ports);
        args.extend(opts.extra_args.iter().filter(|(x, _)| *x == c).map(|(_, a)| a.clone()));
        let spawn = Spawn {
            component: c,
            program: &opts.binary,
            args: &args,
            cwd: &self.layout.root,
            log: self.layout.log(c),
            pidfile: self.layout.pidfile(c),
            detach: opts.detach,
        };
        let p = Proc::spawn(&spawn).map_err(Error::external)?;
        if opts.verbose {
            eprintln!("gpulab: started {c} (pid {})", p.pid);
        }
        self.procs.push(p);
        Ok(())
    }

    fn wait_ready(&mut self, c: Component, probes: &Probes, deadline: Instant, opts: &Options) -> Result<(), Error> {
        let t0 = Instant::now();
        loop {
            interrupted(opts)?;
            let Some(p) = self.procs.iter_mut().find(|p| p.component == c) else { return Err(Error::external(format!("{c} was not started"))) };
            if let Some(how) = p.exited() {
                let log = log::read_end(&p.log);
                let why = log::failure(&log).map(|w| format!(": {w}")).unwrap_or_default();
                return Err(Error::external(format!("{c} exited during start-up ({how}){why}; the end of its log:\n{}", indent(&log::tail(&log, 20)))));
            }
            let last = match probes.check(c, &self.ports) {
                Ok(()) => {
                    if opts.verbose {
                        eprintln!("gpulab: {c} ready after {:.1} s", t0.elapsed().as_secs_f64());
                    }
                    return Ok(());
                }
                Err(answer) => answer,
            };
            if Instant::now() >= deadline {
                let log = log::tail(&log::read_end(&p.log), 20);
                return Err(Error::external(format!(
                    "{c} was not ready within {} s of the start (its last answer: {last}); the end of its log:\n{}",
                    opts.ready_timeout.as_secs(),
                    indent(&log)
                )));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops every process (reverse order) and removes the dir; what happened, by line.
    fn shut_down(&mut self) -> Vec<String> {
        let mut lines = process::stop_all(&mut self.procs, STOP_GRACE);
        self.procs.clear();
        if self.layout.marker().exists() {
            if let Err(e) = dir::remove(&self.layout) {
                lines.push(e);
            }
        }
        lines
    }

    /// Stops the control plane and removes its dir.
    pub fn stop(mut self) -> Vec<String> {
        self.shut_down()
    }

    /// Leaves the processes running after this value is gone (`gpulab cluster up`;
    /// `gpulab cluster down` stops them by their pidfiles).
    pub fn detach(mut self) {
        self.detached = true;
    }

    /// The admin kubeconfig (for kube-rs and kubectl).
    pub fn kubeconfig(&self) -> PathBuf {
        self.layout.kubeconfig()
    }
    pub fn context(&self) -> &str {
        &self.context
    }
    pub fn release(&self) -> &str {
        &self.release
    }
    pub fn dir(&self) -> &Path {
        &self.layout.root
    }
    pub fn ports(&self) -> &Ports {
        &self.ports
    }
    /// Each component's PID, in start order.
    pub fn pids(&self) -> Vec<(Component, u32)> {
        self.procs.iter().map(|p| (p.component, p.pid)).collect()
    }
    /// From the call to every component ready.
    pub fn startup(&self) -> Duration {
        self.startup
    }
    /// What the start did besides starting (a stale dir removed).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if !self.detached {
            self.shut_down();
        }
    }
}

fn interrupted(opts: &Options) -> Result<(), Error> {
    match &opts.interrupted {
        Some(flag) if flag.load(Ordering::SeqCst) => Err(Error { kind: super::ErrorKind::Interrupted, message: "interrupted".to_string() }),
        _ => Ok(()),
    }
}

fn indent(text: &str) -> String {
    if text.trim().is_empty() {
        return "  (the log is empty)".to_string();
    }
    text.lines().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths go into `export KUBECONFIG=…` as the shell reads them.
    #[test]
    fn shell_quoting() {
        assert_eq!(shell_quote("/run/user/1000/gpulab-cluster-1000/kubeconfig"), "/run/user/1000/gpulab-cluster-1000/kubeconfig");
        assert_eq!(shell_quote("/tmp/my dir/kubeconfig"), "'/tmp/my dir/kubeconfig'");
        assert_eq!(shell_quote("/tmp/it's"), r"'/tmp/it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    /// A missing binary names the command that builds it, before anything is touched.
    #[test]
    fn missing_binary_says_how_to_build_it() {
        let mut o = Options::new("1.37.2").unwrap();
        o.binary = PathBuf::from("/nonexistent/kube-oracle");
        o.dir = PathBuf::from("/nonexistent/dir");
        let e = Cluster::start(o).unwrap_err();
        assert_eq!(e.kind, super::super::ErrorKind::Usage);
        assert_eq!(e.message, "no control-plane binary for v1.37.2 at /nonexistent/kube-oracle: build it with `./dev.sh setup` (or `scripts/oracle-kube.sh v1.37.2`)");
    }
}
