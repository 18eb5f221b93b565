//! The real control plane (`--features real-kube`; the `kube-oracle` binary that
//! `scripts/oracle-kube.sh` builds must exist): `Cluster::start` — the code behind
//! `gpulab cluster up` — then kube-rs lists namespaces, reads `/version` (the binary's
//! release), is `gpulab-admin` in `system:masters`, creates a RuntimeClass and is refused
//! a pod naming a missing one with the API server's own text, sees the scheduler and the
//! DaemonSet, namespace and service-account controllers at work; then the stop leaves no
//! process and no bound port. Also the `gpulab cluster up|down` commands themselves
//! (detached processes, kubectl), and a component that fails after others started.
#![cfg(feature = "real-kube")]

mod support;
#[path = "support/live_cluster.rs"]
mod live;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use gpulab::cluster::ports::Ports;
use gpulab::cluster::process::live_cmdline;
use gpulab::cluster::{Cluster, Component, ErrorKind, DEFAULT_RELEASE};
use live::{assert_nothing_left, one_at_a_time, options, Api};
use serde_json::{json, Value};
use support::TempDir;

/// Up, the API at work, down without a trace.
#[test]
fn up_serves_the_api_and_down_leaves_nothing() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-live");
    let c = Cluster::start(options(&tmp.0.join("c"))).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("control plane {} ready in {:.1} s", c.release(), c.startup().as_secs_f64());
    let api = Api::new(&c.kubeconfig());

    // The release the binary says it holds, the one asked for, and /version agree.
    let held = Command::new(options(Path::new("/")).binary).arg("version").output().unwrap();
    let held = String::from_utf8_lossy(&held.stdout).lines().find_map(|l| l.strip_prefix("kubernetes ").and_then(|v| v.split_whitespace().next()).map(str::to_string));
    assert_eq!(held.as_deref(), Some(c.release()), "`kube-oracle version`");
    let version = api.get("/version");
    assert_eq!(version["gitVersion"], c.release(), "{version}");
    let names: Vec<String> = api.get("/api/v1/namespaces")["items"].as_array().unwrap().iter().map(|n| n["metadata"]["name"].as_str().unwrap().to_string()).collect();
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert!(names.iter().any(|n| n == ns), "{ns} not in {names:?}");
    }
    let me = api.call("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", Some(json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}))).unwrap();
    assert_eq!(me["status"]["userInfo"]["username"], "gpulab-admin", "{me}");
    assert!(me["status"]["userInfo"]["groups"].as_array().unwrap().contains(&json!("system:masters")), "{me}");

    // The service-account controller gives the namespace its `default` account (the
    // ServiceAccount admission plugin needs it before any pod).
    api.wait_for("the default service account", "/api/v1/namespaces/default/serviceaccounts", |v| v["items"].as_array().is_some_and(|a| a.iter().any(|s| s["metadata"]["name"] == "default")));

    api.call("POST", "/apis/node.k8s.io/v1/runtimeclasses", Some(json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia"}, "handler": "nvidia"}))).unwrap();
    let pod = |name: &str, rc: &str| json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"runtimeClassName": rc, "containers": [{"name": "c", "image": "busybox"}]}});
    let refused = api.call("POST", "/api/v1/namespaces/default/pods", Some(pod("gpu-pod", "missing"))).unwrap_err();
    assert_eq!(refused, (403, r#"pods "gpu-pod" is forbidden: pod rejected: RuntimeClass "missing" not found"#.to_string()));

    // Admitted with the RuntimeClass that exists; the scheduler finds no node for it.
    api.call("POST", "/api/v1/namespaces/default/pods", Some(pod("gpu-pod", "nvidia"))).unwrap();
    let p = api.wait_for("the scheduler's verdict", "/api/v1/namespaces/default/pods/gpu-pod", |v| {
        v["status"]["conditions"].as_array().is_some_and(|cs| cs.iter().any(|c| c["type"] == "PodScheduled" && c["reason"] == "Unschedulable"))
    });
    let cond = p["status"]["conditions"].as_array().unwrap().iter().find(|c| c["type"] == "PodScheduled").unwrap().clone();
    assert_eq!(cond["message"], "no nodes available to schedule pods", "{cond}");

    // The DaemonSet controller observes a DaemonSet (no nodes: nothing desired).
    let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "plugin"}, "spec": {"selector": {"matchLabels": {"app": "p"}}, "template": {"metadata": {"labels": {"app": "p"}}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}});
    api.call("POST", "/apis/apps/v1/namespaces/default/daemonsets", Some(ds)).unwrap();
    let ds = api.wait_for("the DaemonSet controller", "/apis/apps/v1/namespaces/default/daemonsets/plugin", |v| v["status"]["observedGeneration"] == 1);
    assert_eq!(ds["status"]["desiredNumberScheduled"], 0, "{ds}");

    // The namespace controller finalises a deleted namespace.
    api.call("POST", "/api/v1/namespaces", Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gone"}}))).unwrap();
    api.call("DELETE", "/api/v1/namespaces/gone", None).unwrap();
    api.wait_for("the namespace controller", "/api/v1/namespaces", |v| v["items"].as_array().is_some_and(|a| !a.iter().any(|n| n["metadata"]["name"] == "gone")));

    let (pids, ports, dir) = (c.pids(), *c.ports(), c.dir().to_path_buf());
    assert_eq!(pids.len(), 4);
    drop(api);
    let lines = c.stop();
    assert!(lines.iter().all(|l| l.contains("stopped (SIGTERM)")), "{lines:?}");
    assert_nothing_left(&pids, &ports, &dir);
}

/// The commands: `gpulab cluster up` returns with the processes running on their own
/// (kubectl reaches them through the printed kubeconfig), `gpulab cluster down` stops
/// them by PID.
#[test]
fn cluster_up_and_down_commands() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-cmd");
    let dir = tmp.0.join("c");
    let gpulab = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap();
    let t0 = Instant::now();
    let out = gpulab(&["cluster", "up", "--dir", dir.to_str().unwrap(), "--output", "json"]);
    let up_wall = t0.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("`gpulab cluster up`: {:.1} s wall (ready after {:.1} s)", up_wall.as_secs_f64(), v["startup_seconds"].as_f64().unwrap());
    let kubeconfig = v["kubeconfig"].as_str().unwrap().to_string();
    assert_eq!(kubeconfig, dir.join("kubeconfig").to_str().unwrap());
    assert_eq!(v["context"], format!("gpulab-{DEFAULT_RELEASE}"));
    let pids: Vec<(Component, u32)> = Component::ALL.iter().map(|c| (*c, v["pids"][c.name()].as_u64().unwrap() as u32)).collect();
    let ports: Ports = serde_json::from_value(v["ports"].clone()).unwrap();
    for (c, pid) in &pids {
        assert!(live_cmdline(*pid).is_some(), "{c} (pid {pid}) did not outlive `cluster up`");
    }
    let again = gpulab(&["cluster", "up", "--dir", dir.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("a cluster is already running in"));

    let api = Api::new(Path::new(&kubeconfig));
    assert_eq!(api.get("/version")["gitVersion"], DEFAULT_RELEASE);
    if let Ok(k) = Command::new("kubectl").args(["--kubeconfig", &kubeconfig, "get", "namespaces", "-o", "name"]).output() {
        assert!(k.status.success(), "kubectl: {}", String::from_utf8_lossy(&k.stderr));
        assert!(String::from_utf8_lossy(&k.stdout).contains("namespace/kube-system"));
    } else {
        eprintln!("kubectl is not on PATH: the kubeconfig was read by kube-rs only");
    }
    drop(api);

    let out = gpulab(&["cluster", "down", "--dir", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    for (c, pid) in &pids {
        assert!(stdout.contains(&format!("{c} (pid {pid}) stopped (SIGTERM)")), "{stdout}");
    }
    assert_nothing_left(&pids, &ports, &dir);
}

/// A component that fails after others are up (the scheduler, with a flag it does not
/// know): the error names it with its log's end, and etcd and the API server, already
/// running, are stopped — no process, no port, no dir left.
#[test]
fn a_failing_component_leaves_nothing_behind() {
    let _one = one_at_a_time();
    let tmp = TempDir::new("cluster-fail");
    let mut o = options(&tmp.0.join("c"));
    let ports = Ports::pick().unwrap();
    o.ports = Some(ports);
    o.extra_args = vec![(Component::KubeScheduler, "--no-such-flag".to_string())];
    let dir = o.dir.clone();
    let e = Cluster::start(o).unwrap_err();
    eprintln!("the error, as `gpulab cluster up` prints it:\n{}", e.message);
    assert_eq!(e.kind, ErrorKind::External);
    assert!(e.message.starts_with("kube-scheduler exited during start-up (exit status: 1): unknown flag: --no-such-flag; the end of its log:\n"), "{}", e.message);
    let pid_of = |c: &str| -> u32 {
        let rest = e.message.split(&format!("\n  {c} (pid ")).nth(1).unwrap_or_else(|| panic!("{c} not stopped: {}", e.message));
        rest.split(')').next().unwrap().parse().unwrap()
    };
    let pids = [(Component::Etcd, pid_of("etcd")), (Component::KubeApiserver, pid_of("kube-apiserver")), (Component::KubeControllerManager, pid_of("kube-controller-manager"))];
    for c in ["etcd", "kube-apiserver", "kube-controller-manager"] {
        assert!(e.message.contains(&format!("\n  {c} (pid {}) stopped (SIGTERM)", pid_of(c))), "{}", e.message);
    }
    assert_nothing_left(&pids, &ports, &dir);

    // The first component failing: etcd's own words (Go's flag package) in the headline.
    let mut o = options(&tmp.0.join("c"));
    o.ports = Some(ports);
    o.extra_args = vec![(Component::Etcd, "--no-such-flag".to_string())];
    let e = Cluster::start(o).unwrap_err();
    assert!(e.message.starts_with("etcd exited during start-up (exit status: "), "{}", e.message);
    assert!(e.message.contains("): flag provided but not defined: -no-such-flag; the end of its log:\n"), "{}", e.message);
    assert_nothing_left(&[], &ports, &dir);
}
