//! The kubelet's pod sandbox step: resolve `runtimeClassName` to a handler, ask the
//! node's containerd (its **loaded** CRI config, as the containerd model reports it)
//! for that runtime, and on failure record `FailedCreatePodSandBox` with the
//! containerd-version-specific text, leaving the pod `ContainerCreating` (spec §3.2–3.4);
//! on success the pod `Running`. The status the kubelet writes for each (phase,
//! container states, Ready, IP) has its one writer here.

use k8s_openapi::api::core::v1::{
    ContainerState, ContainerStateRunning, ContainerStateWaiting, ContainerStatus, Pod, PodCondition, PodStatus,
};
use k8s_openapi::api::node::v1::RuntimeClass;

use super::events::Event;
use super::time;

/// What the kubelet can see of a node's containerd: whether the CRI plugin loaded,
/// the runtime handlers of the loaded config, and the default runtime name. The
/// containerd model (issue 3) produces these from a node's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedCri {
    /// containerd's version, e.g. `1.7.27` or `2.1.3` (the error text differs).
    pub containerd_version: String,
    /// The CRI plugin loaded (else the node is NotReady).
    pub cri_loaded: bool,
    /// Runtime handler names of the loaded config (`runc`, `nvidia`, …).
    pub runtimes: Vec<String>,
    /// `default_runtime_name`.
    pub default_runtime_name: String,
}

impl LoadedCri {
    /// What the kubelet sees of a simulated node's containerd: the CRI plugin and
    /// runtime handlers of the config the daemon *loaded* at its last start (not the
    /// files on disk), and nothing at all while the daemon is down.
    pub fn from_daemon(daemon: &crate::containerd::Daemon) -> LoadedCri {
        let loaded = daemon.is_running().then(|| daemon.loaded()).flatten();
        let serving_ok = loaded.is_some_and(|l| l.start.cri_status() == "ok");
        let default_runtime_name = loaded
            .and_then(|l| {
                let id = if l.version.is_1x() { "io.containerd.grpc.v1.cri" } else { "io.containerd.cri.v1.runtime" };
                l.config.as_ref()?.decoded.get_path(&[id, "containerd", "default_runtime_name"])?.as_str().map(str::to_string)
            })
            .unwrap_or_default();
        LoadedCri {
            containerd_version: daemon.version.to_string(),
            cri_loaded: serving_ok,
            runtimes: if serving_ok { daemon.runtime_handlers() } else { Vec::new() },
            default_runtime_name,
        }
    }
}

/// The kubelet's event reason for a failed sandbox.
pub const FAILED_CREATE_POD_SANDBOX: &str = "FailedCreatePodSandBox";

/// Why the sandbox was not created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxError {
    /// The RuntimeClass is gone (deleted after admission) **[inferred text]**.
    RuntimeClassNotFound { name: String },
    /// containerd has no runtime for the handler.
    NoRuntime { handler: String, message: String },
    /// The CRI plugin is not loaded: the node is NotReady and runs no pods (the
    /// gRPC text is what a CRI client gets from a containerd without the CRI service
    /// **[inferred]**).
    CriNotLoaded,
}

impl SandboxError {
    /// The kubelet event message (`Failed to create pod sandbox: %v`).
    pub fn event_message(&self) -> String {
        match self {
            SandboxError::RuntimeClassNotFound { name } => {
                format!("Failed to create pod sandbox: runtimeclass.node.k8s.io {name:?} not found")
            }
            SandboxError::NoRuntime { message, .. } => {
                format!("Failed to create pod sandbox: rpc error: code = Unknown desc = {message}")
            }
            SandboxError::CriNotLoaded => "Failed to create pod sandbox: rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService".into(),
        }
    }

    /// The Warning event at time `at`.
    pub fn event(&self, at: i64) -> Event {
        Event::once("Warning", FAILED_CREATE_POD_SANDBOX, "kubelet", self.event_message(), at)
    }
}

/// containerd 1.x (`failed to get sandbox runtime: …`) or 2.x (`unable to get OCI
/// runtime for sandbox "<id>": …`).
pub fn is_containerd_1x(version: &str) -> bool {
    version.trim_start_matches('v').starts_with("1.")
}

/// containerd's error for a handler it has no runtime for.
pub fn no_runtime_message(containerd_version: &str, handler: &str, sandbox_id: &str) -> String {
    let inner = format!("no runtime for {handler:?} is configured");
    if is_containerd_1x(containerd_version) {
        format!("failed to get sandbox runtime: {inner}")
    } else {
        format!("unable to get OCI runtime for sandbox {sandbox_id:?}: {inner}")
    }
}

/// A deterministic 64-hex sandbox id for `seed` (e.g. pod uid) and `attempt`
/// (containerd makes a new random one per try; the model takes a seed).
pub fn sandbox_id(seed: &str, attempt: u32) -> String {
    let mut out = String::with_capacity(64);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes().chain(attempt.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    for i in 0..4u64 {
        let mut x = h ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        out.push_str(&format!("{x:016x}"));
    }
    out
}

/// `RunPodSandbox` as the kubelet drives it: `Ok(handler)` when containerd has the
/// runtime (empty handler = containerd's default runtime).
pub fn create_pod_sandbox(
    pod: &Pod,
    runtime_classes: &[RuntimeClass],
    cri: &LoadedCri,
    sandbox_id: &str,
) -> Result<String, SandboxError> {
    create_pod_sandbox_with(pod, runtime_classes, cri, || sandbox_id.to_string())
}

/// [`create_pod_sandbox`] with the sandbox id drawn by `sandbox_id` only when an
/// error text shows it (a rollout starts thousands of pods that never need one).
pub fn create_pod_sandbox_with(
    pod: &Pod,
    runtime_classes: &[RuntimeClass],
    cri: &LoadedCri,
    sandbox_id: impl FnOnce() -> String,
) -> Result<String, SandboxError> {
    if !cri.cri_loaded {
        return Err(SandboxError::CriNotLoaded);
    }
    let handler = match pod.spec.as_ref().and_then(|s| s.runtime_class_name.as_deref()).filter(|n| !n.is_empty()) {
        None => String::new(),
        Some(name) => match runtime_classes.iter().find(|rc| rc.metadata.name.as_deref() == Some(name)) {
            Some(rc) => rc.handler.clone(),
            None => return Err(SandboxError::RuntimeClassNotFound { name: name.to_string() }),
        },
    };
    let runtime = if handler.is_empty() { cri.default_runtime_name.clone() } else { handler.clone() };
    if cri.runtimes.contains(&runtime) {
        Ok(runtime)
    } else {
        Err(SandboxError::NoRuntime {
            message: no_runtime_message(&cri.containerd_version, &runtime, &sandbox_id()),
            handler: runtime,
        })
    }
}

/// A node whose containerd failed to load the CRI plugin is NotReady (the kubelet
/// cannot reach the runtime service), which the advertisement layers start from.
pub fn node_ready(cri: &LoadedCri) -> bool {
    cri.cri_loaded
}

/// The lab's pod network: the `n`th pod started (from 1) gets `10.244.<n/250>.<n%250+2>`,
/// so a cluster's addresses never repeat and never end in `.0` or `.1`.
pub fn pod_ip(n: u32) -> String {
    format!("10.244.{}.{}", n / 250, n % 250 + 2)
}

/// The pod as the kubelet reports it while the sandbox keeps failing: phase
/// Pending, every container waiting with reason `ContainerCreating`, not ready, no
/// IP, so `kubectl get pods` shows `0/N  ContainerCreating` on a set node (spec §3.4).
/// The one writer of that state: the rollout's kubelet and steps 5–6 both call it.
pub fn mark_container_creating(pod: &mut Pod, now: i64) {
    let waiting = ContainerState { waiting: Some(ContainerStateWaiting { reason: Some("ContainerCreating".into()), message: None }), ..Default::default() };
    let statuses = container_statuses(pod, waiting, false);
    let status = pod.status.get_or_insert_with(PodStatus::default);
    status.phase = Some("Pending".into());
    status.container_statuses = Some(statuses);
    status.host_ip = None;
    if status.start_time.is_none() {
        status.start_time = Some(time(now));
    }
    set_pod_ready(pod, false, now);
}

/// The pod once its sandbox and containers started: phase Running, every container
/// running and ready, the pod's IP `ip`, Ready — `kubectl get pods` shows `N/N
/// Running` (the lab's containers have no probes, so started is ready).
pub fn mark_running(pod: &mut Pod, now: i64, ip: String) {
    let running = ContainerState { running: Some(ContainerStateRunning { started_at: Some(time(now)) }), ..Default::default() };
    let statuses = container_statuses(pod, running, true);
    let status = pod.status.get_or_insert_with(PodStatus::default);
    status.phase = Some("Running".into());
    status.container_statuses = Some(statuses);
    status.pod_ip = Some(ip);
    if status.start_time.is_none() {
        status.start_time = Some(time(now));
    }
    set_pod_ready(pod, true, now);
}

/// Sets the pod's Ready condition (and the matching ContainersReady), stamping the
/// transition time only when the status changes, as the kubelet's status manager does.
pub fn set_pod_ready(pod: &mut Pod, ready: bool, now: i64) {
    let status = pod.status.get_or_insert_with(PodStatus::default);
    let value = if ready { "True" } else { "False" };
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    for type_ in ["Ready", "ContainersReady"] {
        match conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(c) if c.status == value => {}
            Some(c) => {
                c.status = value.to_string();
                c.last_transition_time = Some(time(now));
            }
            None => conditions.push(PodCondition {
                type_: type_.to_string(),
                status: value.to_string(),
                last_transition_time: Some(time(now)),
                ..PodCondition::default()
            }),
        }
    }
}

/// One status per container of the spec, all in `state`.
fn container_statuses(pod: &Pod, state: ContainerState, ready: bool) -> Vec<ContainerStatus> {
    // From the slice, so the vector is allocated at its length (a `flat_map` over the
    // `Option` would give it room for four statuses of a few hundred bytes each).
    let containers = pod.spec.as_ref().map_or(&[][..], |s| s.containers.as_slice());
    containers
        .iter()
        .map(|c| ContainerStatus {
            name: c.name.clone(),
            image: c.image.clone().unwrap_or_default(),
            image_id: String::new(),
            ready,
            restart_count: 0,
            started: Some(ready),
            state: Some(state.clone()),
            ..ContainerStatus::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nvidia_pod() -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "cuda"}, "spec": {"runtimeClassName": "nvidia", "containers": []}
        }))
        .unwrap()
    }

    fn nvidia_rc() -> RuntimeClass {
        serde_json::from_value(serde_json::json!({"metadata": {"name": "nvidia"}, "handler": "nvidia"})).unwrap()
    }

    /// NVIDIA/gpu-operator#549 (containerd 1.7) and PR #2168 (containerd 2.x): the
    /// kubelet's event text when the loaded config lacks the `nvidia` runtime.
    #[test]
    fn missing_handler_text_per_containerd_version_gpu_operator_549_2168() {
        let id = "18073b";
        let cases = [
            ("1.7.27", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is configured".to_string()),
            ("2.1.3", "Failed to create pod sandbox: rpc error: code = Unknown desc = unable to get OCI runtime for sandbox \"18073b\": no runtime for \"nvidia\" is configured".to_string()),
        ];
        for (version, want) in cases {
            let cri = LoadedCri {
                containerd_version: version.into(),
                cri_loaded: true,
                runtimes: vec!["runc".into()],
                default_runtime_name: "runc".into(),
            };
            let err = create_pod_sandbox(&nvidia_pod(), &[nvidia_rc()], &cri, id).unwrap_err();
            assert_eq!(err.event_message(), want);
        }
    }

    /// A failing sandbox leaves the pod `0/1 ContainerCreating` on its node
    /// (NVIDIA/k8s-device-plugin#220).
    #[test]
    fn failing_sandbox_shows_container_creating_220() {
        let mut pod = nvidia_pod();
        if let Some(s) = pod.spec.as_mut() {
            s.node_name = Some("xxx".into());
            s.containers.push(serde_json::from_value(serde_json::json!({"name": "ctr"})).unwrap());
        }
        mark_container_creating(&mut pod, 0);
        let text = crate::kubernetes::kubectl::get_pods_wide(&[pod], 0);
        let cols: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
        assert_eq!(cols[1..4], ["0/1", "ContainerCreating", "0"]);
        assert_eq!(cols[6], "xxx");
    }

    /// With the runtime loaded the sandbox is created with the handler.
    #[test]
    fn loaded_handler_creates_sandbox() {
        let cri = LoadedCri {
            containerd_version: "2.0.5".into(),
            cri_loaded: true,
            runtimes: vec!["runc".into(), "nvidia".into()],
            default_runtime_name: "runc".into(),
        };
        assert_eq!(create_pod_sandbox(&nvidia_pod(), &[nvidia_rc()], &cri, "x"), Ok("nvidia".into()));
        assert_eq!(sandbox_id("uid", 1).len(), 64);
        assert_ne!(sandbox_id("uid", 1), sandbox_id("uid", 2));
    }
}
