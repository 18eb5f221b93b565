//! The learner's lab state as the app saves it: the `work` member of the progress
//! file (`{"format":"gpu-node-lab/progress","version":1,"work":{…}}`, written by the
//! app's `src/work_json.rs` and `src/share/envelope.rs`). Same members and names, read
//! with serde; a member left out takes the lab's default (a share link leaves out what
//! the learner did not change), so the companion reads the file the app exports and
//! the chunk reads the same text the app sends it. The app's own reader stays strict
//! about unknown members; the app's tests hold its defaults and these together.

use serde::{Deserialize, Serialize};

/// `format` of every progress file.
pub const FORMAT: &str = "gpu-node-lab/progress";
/// The format version this model reads.
pub const VERSION: u64 = 1;

/// The lab's default node files (steps 1–2) and Kubernetes files (steps 5–6): the
/// app's own defaults (`src/steps/data/`).
pub mod defaults {
    pub const CONTAINERD_VERSION: &str = "1.7.34";
    pub const MAIN: &str = include_str!("../../../../src/steps/data/incident-main.toml");
    pub const DROPIN: &str = include_str!("../../../../src/steps/data/incident-99-nvidia.toml");
    pub const KUBE_VERSION: &str = "1.36";
    pub const CLUSTER: &str = include_str!("../../../../src/steps/data/cluster.yaml");
    pub const RUNTIMECLASS: &str = include_str!("../../../../src/steps/data/runtimeclass.yaml");
    pub const POD: &str = include_str!("../../../../src/steps/data/pod.yaml");
    pub const GPU_MODEL: &str = "NVIDIA H100 80GB HBM3";
    /// The time-slicing config of NVIDIA's device-plugin documentation.
    pub const SLOTS_CONFIG: &str = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n";
}

/// Everything the learner typed or chose, step by step.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LabWork {
    pub slots: SlotsWork,
    pub containerd: ContainerdWork,
    pub restart: RestartWork,
    pub check: CheckWork,
    pub rollout: RolloutWork,
    pub kube: KubeWork,
}

/// Step 7.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SlotsWork {
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    pub replicas: u32,
    pub config: String,
}

impl Default for SlotsWork {
    fn default() -> Self {
        SlotsWork { gpu_model: defaults::GPU_MODEL.into(), gpus_per_node: 8, nodes: 2, replicas: 4, config: defaults::SLOTS_CONFIG.into() }
    }
}

/// Steps 1–2: the node's containerd version and files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerdWork {
    pub version: String,
    /// `/etc/containerd/config.toml`.
    pub main: String,
    /// `/etc/containerd/conf.d/99-nvidia.toml`.
    pub dropin: String,
}

impl Default for ContainerdWork {
    fn default() -> Self {
        ContainerdWork { version: defaults::CONTAINERD_VERSION.into(), main: defaults::MAIN.into(), dropin: defaults::DROPIN.into() }
    }
}

/// Step 4: `systemd` or `by-hand`, and the operations in order (`write-dropin`,
/// `sighup`, `restart`, `wait`, `run-check`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RestartWork {
    pub supervisor: String,
    pub ops: Vec<String>,
}

impl Default for RestartWork {
    fn default() -> Self {
        RestartWork { supervisor: "systemd".into(), ops: Vec::new() }
    }
}

/// Step 3: `--handler` and `--keep`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckWork {
    pub handler: String,
    pub keep: String,
}

impl Default for CheckWork {
    fn default() -> Self {
        CheckWork { handler: "nvidia".into(), keep: "runc".into() }
    }
}

/// Step 8: the syncs stepped and the learner's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RolloutWork {
    pub syncs: u32,
    pub node: String,
    pub cause: String,
    pub answered: bool,
    /// The cells of `kubectl get ds` / `rollout status` / `get pods` the learner marked
    /// as read, by key (`get-ds/3/UP-TO-DATE`, `pods/<pod>/STATUS`, `status/1`; the
    /// chunk's `rollout::cells` names them), in the order they marked them.
    pub marks: Vec<String>,
    /// The node and the cause in the learner's own words.
    pub words: String,
}

/// Steps 5–6.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct KubeWork {
    pub version: String,
    pub cluster: String,
    pub runtimeclass: String,
    pub pod: String,
    pub patches: Vec<NodePatchWork>,
    pub kubelet_node: String,
}

impl Default for KubeWork {
    fn default() -> Self {
        KubeWork {
            version: defaults::KUBE_VERSION.into(),
            cluster: defaults::CLUSTER.into(),
            runtimeclass: defaults::RUNTIMECLASS.into(),
            pod: defaults::POD.into(),
            patches: Vec::new(),
            kubelet_node: String::new(),
        }
    }
}

/// Step 6: `kubectl patch node NODE --subresource=status` advertising `quantity` of
/// `resource`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NodePatchWork {
    pub node: String,
    pub resource: String,
    pub quantity: String,
}

#[derive(Deserialize)]
struct Envelope {
    format: Option<String>,
    version: Option<u64>,
    work: Option<LabWork>,
}

/// Reads a progress file's text: its format and version checked, then its work.
/// The errors name what is wrong (and serde's line and column for bad JSON).
pub fn read_progress(text: &str) -> Result<LabWork, String> {
    let env: Envelope = serde_json::from_str(text).map_err(|e| format!("not a progress file: {e}"))?;
    match env.format.as_deref() {
        Some(FORMAT) => {}
        Some(other) => return Err(format!("not a progress file: format is {other:?}, expected {FORMAT:?}")),
        None => return Err(format!("not a progress file: no \"format\" member (expected {FORMAT:?})")),
    }
    match env.version {
        Some(VERSION) => {}
        Some(v) => return Err(format!("progress file version {v}: this gpulab reads version {VERSION}")),
        None => return Err("progress file without a whole-number \"version\"".into()),
    }
    env.work.ok_or_else(|| "progress file without \"work\"".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file with only what changed reads with the defaults for the rest; another
    /// program's file, a newer version and bad JSON are refused with the reason.
    #[test]
    fn progress_files() {
        let w = read_progress(r#"{"format":"gpu-node-lab/progress","version":1,"work":{"restart":{"ops":["restart"]}}}"#).unwrap();
        assert_eq!(w.restart.ops, ["restart"]);
        assert_eq!(w.restart.supervisor, "systemd");
        assert_eq!(w.containerd, ContainerdWork::default());
        let cases = [
            (r#"{"format":"other","version":1,"work":{}}"#, "format is \"other\""),
            (r#"{"format":"gpu-node-lab/progress","version":2,"work":{}}"#, "version 2"),
            (r#"{"format":"gpu-node-lab/progress","version":1}"#, "without \"work\""),
            ("{", "not a progress file: EOF while parsing an object at line 1 column 1"),
        ];
        for (text, says) in cases {
            let e = read_progress(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
