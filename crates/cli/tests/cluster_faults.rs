//! Faults on the real control plane (`--features real-kube`; the `kube-oracle` binary
//! `scripts/oracle-kube.sh` builds must exist), each a clear message, no process left
//! behind and nothing written outside the test's own dirs:
//!
//! - a port taken before the start (refused before anything runs) and one taken between
//!   the check and the component's bind (the component named with its own words);
//! - a stale dir — a cluster whose processes were all killed — replaced, with a note, by
//!   a fresh cluster (its old etcd data gone); a dir that is not a cluster's left alone;
//! - the API server killed while `gpulab parity --backend kube` replays the scenarios;
//! - SIGINT and SIGTERM of `gpulab cluster up` while it starts.
//!
//! `cluster_cli.rs` proves the same paths on a stand-in binary; `cluster_live.rs` the
//! working cluster and a component that fails to start.
#![cfg(feature = "real-kube")]

mod support;
#[path = "support/live_cluster.rs"]
mod live;

use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use gpulab::cluster::dir::Layout;
use gpulab::cluster::ports::Ports;
use gpulab::cluster::process::live_cmdline;
use gpulab::cluster::{Cluster, Component, ErrorKind, DEFAULT_RELEASE};
use live::{assert_nothing_left, one_at_a_time, options, processes_naming, signal, wait_exit, Api, Lines, Private};
use serde_json::json;
use support::TempDir;

/// The `  COMPONENT (pid N) …` line of a failed start's undo list: N.
fn stopped_pid(message: &str, c: Component) -> u32 {
    let rest = message.split(&format!("\n  {c} (pid ")).nth(1).unwrap_or_else(|| panic!("{c} not in the stop list: {message}"));
    rest.split(')').next().unwrap().parse().unwrap()
}

/// A port taken before the start: refused with the port and who wanted it, nothing
/// started, no dir. A port taken after the check (here: the component told to bind a
/// port this test holds, as a process grabbing it in between would): the component
/// exits, the message names it with the kernel's words from its log, and what had
/// started is stopped.
#[test]
fn a_taken_port_is_named() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-port-live");
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();

    let mut o = options(&tmp.0.join("c"));
    let ports = Ports { apiserver: port, ..Ports::pick().unwrap() };
    o.ports = Some(ports);
    let e = Cluster::start(o.clone()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::External);
    assert!(e.message.starts_with(&format!("port 127.0.0.1:{port} (kube-apiserver's secure port) is taken: ")), "{}", e.message);
    assert!(!o.dir.exists() && processes_naming(&o.dir).is_empty());

    // The component, its flag, and the components started before it.
    let cases: [(Component, String, &[Component]); 3] = [
        (Component::Etcd, format!("--listen-client-urls=http://127.0.0.1:{port}"), &[]),
        (Component::KubeApiserver, format!("--secure-port={port}"), &[Component::Etcd]),
        (Component::KubeScheduler, format!("--secure-port={port}"), &[Component::Etcd, Component::KubeApiserver, Component::KubeControllerManager]),
    ];
    for (c, flag, before) in cases {
        let mut o = options(&tmp.0.join("c"));
        let ports = Ports::pick().unwrap();
        o.ports = Some(ports);
        o.extra_args = vec![(c, flag.clone())];
        let e = Cluster::start(o.clone()).unwrap_err();
        eprintln!("{c} {flag}:\n{}", e.message);
        assert_eq!(e.kind, ErrorKind::External, "{}", e.message);
        let headline = e.message.lines().next().unwrap();
        assert!(headline.starts_with(&format!("{c} exited during start-up (exit status: 1): ")), "{c}: {}", e.message);
        assert!(headline.contains(&format!("127.0.0.1:{port}")) && headline.contains("address already in use"), "{c}: the headline should say why: {}", e.message);
        assert!(headline.ends_with("; the end of its log:"), "{}", e.message);
        let pids: Vec<(Component, u32)> = before.iter().map(|b| (*b, stopped_pid(&e.message, *b))).collect();
        for (b, pid) in &pids {
            assert!(e.message.contains(&format!("\n  {b} (pid {pid}) stopped (SIGTERM)")), "{}", e.message);
        }
        assert_nothing_left(&pids, &ports, &o.dir);
    }
    drop(held);
}

/// A cluster whose four processes were killed (a crash, a reboot) leaves a stale dir:
/// the next start removes it — saying so, with the PIDs that had exited — and comes up
/// fresh (the old etcd data is gone with it). A dir that is not a cluster's (here:
/// someone's etcd data without gpulab's marker) is refused and left as it was.
#[test]
fn a_stale_dir_is_replaced_and_a_foreign_one_left_alone() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-stale-live");
    let dir = tmp.0.join("c");
    let c = Cluster::start(options(&dir)).unwrap_or_else(|e| panic!("{e}"));
    let api = Api::new(&c.kubeconfig());
    api.call("POST", "/api/v1/namespaces", Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "before-the-crash"}}))).unwrap();
    drop(api);
    let old = c.pids();
    c.detach();
    for (_, pid) in &old {
        signal(*pid, "KILL");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while old.iter().any(|(_, p)| live_cmdline(*p).is_some()) {
        assert!(Instant::now() < deadline, "SIGKILL did not end {old:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(Layout::new(&dir).marker().exists(), "the crash leaves the dir");

    let c = Cluster::start(options(&dir)).unwrap_or_else(|e| panic!("the start over a stale dir: {e}"));
    let gone: Vec<String> = old.iter().map(|(c, p)| format!("{c} pid {p}")).collect();
    assert_eq!(c.notes(), [format!("removed the stale cluster directory {} (its processes had exited: {})", dir.display(), gone.join(", "))]);
    let api = Api::new(&c.kubeconfig());
    assert_eq!(api.get("/version")["gitVersion"], DEFAULT_RELEASE);
    assert_eq!(api.call("GET", "/api/v1/namespaces/before-the-crash", None).unwrap_err().0, 404, "the old etcd data should be gone");
    drop(api);
    let (pids, ports) = (c.pids(), *c.ports());
    c.stop();
    assert_nothing_left(&pids, &ports, &dir);

    let foreign = tmp.0.join("foreign");
    std::fs::create_dir_all(foreign.join("etcd/member")).unwrap();
    std::fs::write(foreign.join("etcd/member/wal"), "someone's data").unwrap();
    let e = Cluster::start(options(&foreign)).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Usage);
    assert_eq!(e.message, format!("{} is not empty and holds no cluster.json: it is not a gpulab cluster directory; pass --dir with a new or empty directory", foreign.display()));
    assert_eq!(std::fs::read_to_string(foreign.join("etcd/member/wal")).unwrap(), "someone's data");
    assert!(processes_naming(&foreign).is_empty());
}

/// The API server killed (SIGKILL) while `gpulab parity scenarios --backend kube`
/// replays: the run ends at once with exit 3 and a message that names the API server
/// and says it did not answer, not a hang on the 60 s settle; the rest of the control
/// plane stops by PID; nothing is left and nothing was written outside the test's dirs.
#[test]
fn the_api_server_killed_mid_replay() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-kill-live");
    let private = Private::new(&tmp.0);
    let dir = tmp.0.join("c");
    let c = Cluster::start(options(&dir)).unwrap_or_else(|e| panic!("{e}"));
    let (pids, ports) = (c.pids(), *c.ports());
    let apiserver = pids.iter().find(|(c, _)| *c == Component::KubeApiserver).unwrap().1;
    let scenarios = support::repo_root().join("scenarios");
    let mut child = private
        .gpulab(&["parity", scenarios.to_str().unwrap(), "--backend", "kube", "--context", c.context()])
        .env("GPULAB_KUBECONFIG", c.kubeconfig())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = Lines::of(&mut child);
    let at = err.wait_for("the replay's second step", Duration::from_secs(180), |l| l.contains("] step 2: "));
    eprintln!("killing kube-apiserver (pid {apiserver}) at: {at}");
    let t0 = Instant::now();
    signal(apiserver, "KILL");
    let status = wait_exit(&mut child, Duration::from_secs(90));
    let ended = t0.elapsed();
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    let err = err.rest();
    eprintln!("ended {:.1} s after the kill; stderr's end:\n{}", ended.as_secs_f64(), err.lines().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n"));
    assert_eq!(status.code(), Some(3), "exit 3 (a component of the machine failed):\n{out}\n{err}");
    let said = format!("the API server at https://127.0.0.1:{} did not answer (it stopped or cannot be reached): ", ports.apiserver);
    assert!(err.contains(&said) || out.contains(&said), "no message naming the API server:\n{out}\n{err}");
    assert!(ended < Duration::from_secs(60), "the replay should end at once, not after the settle time-outs ({ended:?})");

    let lines = c.stop();
    assert!(lines.contains(&format!("kube-apiserver (pid {apiserver}) had already exited")), "{lines:?}");
    assert_nothing_left(&pids, &ports, &dir);
    private.assert_untouched();
}

/// SIGINT (Ctrl-C) and SIGTERM of `gpulab cluster up` while it starts — once while the
/// API server comes up, once while the scheduler does: exit 130, every component
/// started so far stopped by PID, the dir removed, the ports free, nothing written
/// outside the test's dirs.
#[test]
fn interrupting_cluster_up_stops_everything() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-int-live");
    let private = Private::new(&tmp.0);
    for (sig, during) in [("INT", Component::KubeApiserver), ("TERM", Component::KubeScheduler)] {
        let dir = tmp.0.join(format!("c-{sig}"));
        let mut child = private.gpulab(&["cluster", "up", "--dir", dir.to_str().unwrap()]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut err = Lines::of(&mut child);
        err.wait_for(&format!("{during} started"), Duration::from_secs(60), |l| l.starts_with(&format!("gpulab: started {during} (pid ")));
        let marker = std::fs::read_to_string(Layout::new(&dir).marker()).unwrap();
        let ports: Ports = serde_json::from_value(serde_json::from_str::<serde_json::Value>(&marker).unwrap()["ports"].clone()).unwrap();
        signal(child.id(), sig);
        let status = wait_exit(&mut child, Duration::from_secs(60));
        let err = err.rest();
        eprintln!("SIG{sig} while {during} started:\n{err}");
        assert_eq!(status.code(), Some(130), "{err}");
        let started: Vec<(Component, u32)> = err
            .lines()
            .filter_map(|l| l.strip_prefix("gpulab: started "))
            .map(|l| {
                let (name, pid) = l.split_once(" (pid ").unwrap();
                (*Component::ALL.iter().find(|c| c.name() == name).unwrap(), pid.trim_end_matches(')').parse().unwrap())
            })
            .collect();
        assert!(started.iter().any(|(c, _)| *c == during), "{err}");
        assert!(err.contains("gpulab: interrupted: stopping what has started"), "{err}");
        assert!(err.contains(&format!("gpulab: interrupted\nstopped what had started and removed {}:", dir.display())), "{err}");
        for (c, pid) in &started {
            assert!(err.contains(&format!("  {c} (pid {pid}) stopped (SIGTERM)")) || err.contains(&format!("  {c} (pid {pid}) killed")), "{c}: {err}");
        }
        assert_nothing_left(&started, &ports, &dir);
    }
    private.assert_untouched();
}
