//! `gpulab cluster up|down` without the real control plane: a stand-in `kube-oracle`
//! (a shell script) and `sleep` processes show the start-up failing cleanly — a missing
//! binary, a component that exits, one never ready — a stale dir removed, a running
//! one refused, and `down` stopping recorded processes by PID while leaving a PID that
//! now runs another command alone. `cluster_live.rs` does the same with the real one.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use gpulab::cluster::dir::Layout;
use gpulab::cluster::process::{write_pidfile, Pidfile};
use gpulab::cluster::{Cluster, Component, ErrorKind, Options};
use support::TempDir;

/// A cache dir holding a stand-in `kube-oracle` for v1.37.2 with this shell body.
fn fake_cache(tmp: &Path, body: &str) -> PathBuf {
    let dir = tmp.join("cache/kube/v1.37.2");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("kube-oracle");
    std::fs::write(&bin, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    tmp.join("cache")
}

fn gpulab(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).env("GPULAB_CACHE", cache).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn running(pid: u32) -> bool {
    gpulab::cluster::process::live_cmdline(pid).is_some()
}

/// `sleep SECONDS` as a child of the test, with the command line /proc shows for it.
fn sleeper(seconds: &str) -> (Child, Vec<String>) {
    let child = Command::new("sleep").arg(seconds).stdin(Stdio::null()).spawn().unwrap();
    (child, vec!["sleep".to_string(), seconds.to_string()])
}

/// A cluster dir as `cluster up` leaves it, its pidfiles naming these processes.
fn recorded_dir(root: &Path, procs: &[(Component, u32, Vec<String>)]) -> Layout {
    let l = Layout::new(root);
    std::fs::create_dir_all(l.pids_dir()).unwrap();
    std::fs::write(l.marker(), "{}").unwrap();
    for (c, pid, cmdline) in procs {
        write_pidfile(&l.pidfile(*c), &Pidfile { pid: *pid, cmdline: cmdline.clone() }).unwrap();
    }
    l
}

/// No binary: exit 2 and the command that builds it; nothing is created.
#[test]
fn missing_binary_names_the_build_command() {
    let tmp = TempDir::new("cluster-nobin");
    let dir = tmp.0.join("c");
    let out = gpulab(&tmp.0.join("empty-cache"), &["cluster", "up", "--k8s-version", "1.36.3", "--dir", dir.to_str().unwrap()]);
    let (_, err) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no control-plane binary for v1.36.3 at ") && err.contains("build it with `./dev.sh setup` (or `scripts/oracle-kube.sh v1.36.3`)"), "{err}");
    assert!(!dir.exists());
    let out = gpulab(&tmp.0, &["cluster", "up", "--k8s-version", "1.37"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("--k8s-version \"1.37\": expected a Kubernetes release such as v1.37.2"));
}

/// A component that exits at once: exit 3, the component named with the end of its
/// log, and the dir gone.
#[test]
fn a_component_that_exits_is_named_with_its_log() {
    let tmp = TempDir::new("cluster-exits");
    let cache = fake_cache(&tmp.0, "echo \"Error: unknown flag: --bogus ($1)\" >&2\nexit 1");
    let dir = tmp.0.join("c");
    let out = gpulab(&cache, &["cluster", "up", "--dir", dir.to_str().unwrap()]);
    let (stdout, err) = text(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("gpulab: etcd exited during start-up (exit status: 1): unknown flag: --bogus (etcd); the end of its log:\n  Error: unknown flag: --bogus (etcd)\n"), "{err}");
    assert!(err.contains(&format!("stopped what had started and removed {}", dir.display())), "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!dir.exists());
}

/// A component that runs but never answers: the time-out names it and its last answer,
/// the process is stopped (its PID is gone) and the dir removed.
#[test]
fn a_component_never_ready_is_stopped() {
    let tmp = TempDir::new("cluster-never");
    let cache = fake_cache(&tmp.0, "echo \"$1 waiting\" >&2\nexec sleep 300");
    let mut opts = Options::new("v1.37.2").unwrap();
    opts.binary = cache.join("kube/v1.37.2/kube-oracle");
    opts.dir = tmp.0.join("c");
    opts.ready_timeout = Duration::from_secs(2);
    let e = Cluster::start(opts.clone()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::External);
    assert!(e.message.starts_with("etcd was not ready within 2 s of the start (its last answer: "), "{}", e.message);
    assert!(e.message.contains("the end of its log:\n  etcd waiting\n"), "{}", e.message);
    let pid: u32 = e.message.split("etcd (pid ").nth(1).and_then(|r| r.split(')').next()).and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{}", e.message));
    assert!(e.message.contains(&format!("etcd (pid {pid}) stopped (SIGTERM)")), "{}", e.message);
    assert!(!running(pid), "etcd's stand-in {pid} still runs");
    assert!(!opts.dir.exists());
}

/// A port already taken: the message names it and who wanted it; nothing is started
/// or created.
#[test]
fn a_taken_port_is_named() {
    let tmp = TempDir::new("cluster-port");
    let cache = fake_cache(&tmp.0, "exec sleep 300");
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let mut opts = Options::new("v1.37.2").unwrap();
    opts.binary = cache.join("kube/v1.37.2/kube-oracle");
    opts.dir = tmp.0.join("c");
    let mut ports = gpulab::cluster::ports::Ports::pick().unwrap();
    ports.apiserver = held.local_addr().unwrap().port();
    opts.ports = Some(ports);
    let e = Cluster::start(opts.clone()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::External);
    assert!(e.message.starts_with(&format!("port 127.0.0.1:{} (kube-apiserver's secure port) is taken: ", ports.apiserver)), "{}", e.message);
    assert!(!opts.dir.exists());
}

/// Ctrl-C while `cluster up` waits: exit 130, the started process stopped by PID, the
/// dir removed.
#[test]
fn ctrl_c_during_up_stops_everything() {
    let tmp = TempDir::new("cluster-int");
    let cache = fake_cache(&tmp.0, "exec sleep 300");
    let dir = tmp.0.join("c");
    let child = Command::new(env!("CARGO_BIN_EXE_gpulab"))
        .args(["cluster", "up", "--dir", dir.to_str().unwrap()])
        .env("GPULAB_CACHE", &cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pidfile = Layout::new(&dir).pidfile(Component::Etcd);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let etcd = loop {
        if let Ok(Some(p)) = gpulab::cluster::process::read_pidfile(&pidfile) {
            break p.pid;
        }
        assert!(std::time::Instant::now() < deadline, "etcd's stand-in never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(running(etcd));
    Command::new("kill").args(["-s", "INT", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    let (_, err) = text(&out);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("gpulab: interrupted: stopping what has started") && err.contains(&format!("etcd (pid {etcd}) stopped (SIGTERM)")), "{err}");
    assert!(!running(etcd), "etcd's stand-in {etcd} still runs");
    assert!(!dir.exists());
}

/// A dir whose recorded processes are gone is removed with a message; one whose
/// process runs is refused (exit 2) and left as it is.
#[test]
fn stale_dir_is_removed_and_running_one_refused() {
    let tmp = TempDir::new("cluster-stale");
    let cache = fake_cache(&tmp.0, "exit 1");
    let dir = tmp.0.join("c");
    let (mut dead, cmdline) = sleeper("0");
    let dead_pid = dead.id();
    dead.wait().unwrap();
    recorded_dir(&dir, &[(Component::Etcd, dead_pid, cmdline)]);
    let out = gpulab(&cache, &["cluster", "up", "--dir", dir.to_str().unwrap()]);
    let (_, err) = text(&out);
    assert!(err.contains(&format!("gpulab: removed the stale cluster directory {} (its processes had exited: etcd pid {dead_pid})", dir.display())), "{err}");
    assert_eq!(out.status.code(), Some(3), "then the stand-in fails: {err}");

    let (mut live, cmdline) = sleeper("300");
    let l = recorded_dir(&dir, &[(Component::KubeApiserver, live.id(), cmdline)]);
    let out = gpulab(&cache, &["cluster", "up", "--dir", dir.to_str().unwrap()]);
    let (_, err) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("a cluster is already running in {} (kube-apiserver pid {}): `gpulab cluster down --dir {}` stops it", dir.display(), live.id(), dir.display())), "{err}");
    assert!(running(live.id()) && l.marker().exists());
    live.kill().unwrap();
    live.wait().unwrap();
}

/// `down` stops each recorded process by PID and removes the dir; a PID whose command
/// line is not the recorded one is not signalled.
#[test]
fn down_stops_by_pid_and_spares_a_reused_pid() {
    let tmp = TempDir::new("cluster-down");
    let dir = tmp.0.join("c");
    let (mut a, a_cmd) = sleeper("300");
    let (mut b, _) = sleeper("301");
    // b's PID, recorded with another command line: as if the kernel had reused it.
    recorded_dir(&dir, &[(Component::Etcd, a.id(), a_cmd), (Component::KubeApiserver, b.id(), vec!["/c/kube-oracle".into(), "kube-apiserver".into()])]);
    let out = gpulab(&tmp.0, &["cluster", "down", "--dir", dir.to_str().unwrap()]);
    let (stdout, err) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        stdout,
        format!("kube-apiserver (pid {}) not signalled: the PID now runs another command\netcd (pid {}) stopped (SIGTERM)\nremoved {}\n", b.id(), a.id(), dir.display())
    );
    assert!(a.try_wait().unwrap().is_some(), "the recorded process was stopped");
    assert!(b.try_wait().unwrap().is_none(), "the other command was left alone");
    assert!(!dir.exists());
    b.kill().unwrap();
    b.wait().unwrap();

    let out = gpulab(&tmp.0, &["cluster", "down", "--dir", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("no cluster in") && text(&out).1.contains("does not exist"));
    let foreign = tmp.0.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let out = gpulab(&tmp.0, &["cluster", "down", "--dir", foreign.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).1.contains("holds no cluster.json: it is not a gpulab cluster directory; not touching it"), "{}", text(&out).1);
    assert!(foreign.join("notes.txt").exists());
}
