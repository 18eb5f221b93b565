//! One source of truth for a node's runtime: the kubelet's view (`LoadedCri`) and the
//! DaemonSet rollout's view (`NodeRuntime`) are read off the containerd model's daemon,
//! so a drop-in written without a restart gives the sandbox error until the restart.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;


use gpulab_model::containerd::{Daemon, Files, Supervisor, Version};
use gpulab_model::daemonset::rollout::NodeRuntime;
use gpulab_model::kubernetes::kubelet::{create_pod_sandbox, LoadedCri, SandboxError};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;

fn golden_input(case: &str, file: &str) -> String {
    let path = shared_dir::goldens("containerd").join(case).join("input").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn gpu_pod() -> Pod {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": "cuda", "namespace": "default"},
        "spec": {"runtimeClassName": "nvidia", "nodeName": "gpu-node-2", "containers": [{"name": "c", "image": "cuda"}]}
    }))
    .unwrap()
}

fn nvidia_class() -> RuntimeClass {
    serde_json::from_value(serde_json::json!({"metadata": {"name": "nvidia"}, "handler": "nvidia"})).unwrap()
}

/// Before the restart the kubelet sees the old handlers (no `nvidia`) and the sandbox
/// fails; the rollout's view says the files would give `nvidia`; after the restart
/// the sandbox is created. Both containerd lines whose error texts differ.
#[test]
fn dropin_without_restart_then_restart() {
    let main = golden_input("nvidia-ctk-v2-dropin-copied-cri", "main.toml");
    let dropin = golden_input("nvidia-ctk-v2-dropin-copied-cri", "conf.d/99-nvidia.toml");
    for version in ["1.7.34", "1.6.20"] {
        let files = Files::new().with("/etc/containerd/config.toml", main.as_str());
        let mut daemon = Daemon::new(Version::parse(version).unwrap(), Supervisor::systemd(), files);
        daemon.start();
        daemon.write_file("/etc/containerd/conf.d/99-nvidia.toml", dropin.as_str());

        let cri = LoadedCri::from_daemon(&daemon);
        assert!(cri.cri_loaded, "{version}");
        assert!(!cri.runtimes.contains(&"nvidia".to_string()), "{version}: {cri:?}");
        assert_eq!(cri.default_runtime_name, "runc");
        let err = create_pod_sandbox(&gpu_pod(), &[nvidia_class()], &cri, "0123").unwrap_err();
        assert!(matches!(&err, SandboxError::NoRuntime { handler, .. } if handler == "nvidia"), "{version}: {err:?}");

        let node = NodeRuntime::from_daemon(&daemon);
        assert!(!node.loaded_handlers.contains(&"nvidia".to_string()));
        assert!(node.file_handlers.as_ref().unwrap().contains(&"nvidia".to_string()), "{version}: {node:?}");

        daemon.restart();
        let cri = LoadedCri::from_daemon(&daemon);
        assert!(cri.runtimes.contains(&"nvidia".to_string()), "{version}: {cri:?}");
        assert!(create_pod_sandbox(&gpu_pod(), &[nvidia_class()], &cri, "0123").is_ok(), "{version}");
    }
}

/// A daemon that is down offers no CRI at all (SIGHUP under a by-hand start).
#[test]
fn daemon_down_offers_nothing() {
    let main = golden_input("nvidia-ctk-v2-dropin-copied-cri", "main.toml");
    let mut daemon = Daemon::new(Version::parse("1.7.34").unwrap(), Supervisor::ByHand, Files::new().with("/etc/containerd/config.toml", main.as_str()));
    daemon.start();
    daemon.signal(gpulab_model::containerd::Signal::Hup);
    let cri = LoadedCri::from_daemon(&daemon);
    assert!(!cri.cri_loaded);
    assert!(cri.runtimes.is_empty());
    assert!(NodeRuntime::from_daemon(&daemon).loaded_handlers.is_empty());
}
