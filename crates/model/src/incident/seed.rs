//! The lab's own incident: three GPU nodes, the device-plugin DaemonSet (maxUnavailable 1)
//! updated to run under the `nvidia` RuntimeClass with time-slicing, and `gpu-node-2`,
//! whose containerd 1.6.20 has the NVIDIA drop-in on disk but was never restarted, so its
//! loaded config has no `nvidia` handler — and the drop-in replaced the main config's CRI
//! table, so a restart alone would fail the CRI plugin. Every node's containerd is a
//! [`Daemon`] of the containerd model over real files (`seed/containerd/`, the same
//! files as the `incident` scenario's).

use std::collections::BTreeMap;

use super::artifacts::SlotInput;
use super::run::{node_runtimes, Incident};
use crate::daemonset::manifests::{rollout_from_owned_manifests, Manifests, SEED_EPOCH};
use crate::daemonset::node_containerd::node_runtime;
use crate::daemonset::rollout::{NodeRuntime, Rollout};
use crate::daemonset::NodeOrder;
use crate::containerd::{Containerd, Daemon, Files, Supervisor, Version, MAIN_CONFIG};

pub const CLUSTER_YAML: &str = include_str!("seed/cluster.yaml");
pub const DEVICE_PLUGIN_V1_YAML: &str = include_str!("seed/device-plugin-v1.yaml");
pub const DEVICE_PLUGIN_V2_YAML: &str = include_str!("seed/device-plugin-v2.yaml");
/// The drop-in the broken node has on disk (what its findings point into).
pub const NVIDIA_DROPIN_PATH: &str = "/etc/containerd/conf.d/99-nvidia.toml";
/// The broken node's main config: runc only (the same file as `scenarios/incident/nodes/config.toml`).
pub const MAIN_CONFIG_BROKEN_NODE: &str = include_str!("seed/containerd/config.toml");
/// The healthy nodes' main config: runc and nvidia.
pub const MAIN_CONFIG_WITH_NVIDIA: &str = include_str!("seed/containerd/config-with-nvidia.toml");
/// What `nvidia-ctk runtime configure --drop-in` writes: only the runtimes it adds.
pub const NVIDIA_DROPIN: &str = include_str!("seed/containerd/99-nvidia.toml");
/// The fix: the drop-in carrying the whole runtimes table (runc kept, nvidia added).
pub const NVIDIA_DROPIN_FULL_TABLE: &str = include_str!("seed/containerd/99-nvidia-full-table.toml");
/// The containerd the seed's nodes run (the incident scenario's, a recorded binary).
pub const SEED_CONTAINERD_VERSION: &str = "1.6.20";
/// The device plugin's time-slicing config the update rolls out (ConfigMap `time-slicing-config`).
pub const TIME_SLICING_YAML: &str = include_str!("seed/time-slicing.yaml");
/// Where the device plugin reads it (`--config-file`).
pub const TIME_SLICING_FILE: &str = "/config/time-slicing.yaml";
/// The seed's GPUs: four of this model per node.
pub const SEED_GPU_MODEL: &str = "NVIDIA A100-SXM4-40GB";
pub const SEED_GPUS_PER_NODE: u32 = 4;
/// The node whose containerd is broken in the seed incident.
pub const BROKEN_NODE: &str = "gpu-node-2";
/// The seed's broken node as the containerd model runs it: started on the main config
/// (runc only), then the NVIDIA toolkit's drop-in — which on 1.6/1.7 replaces the main
/// config's CRI plugin table whole — written under the running daemon, which was not
/// restarted. Its loaded state is the daemon's, read by [`node_runtime`].
pub fn broken_daemon(version: &Version) -> Daemon {
    broken_daemon_on(&Containerd::new(version.clone()))
}

/// [`broken_daemon`] loading with `model` (defaults parsed once for many nodes).
fn broken_daemon_on(model: &Containerd) -> Daemon {
    let files = Files::new().with(MAIN_CONFIG, MAIN_CONFIG_BROKEN_NODE);
    let mut daemon = Daemon::new(model.version.clone(), Supervisor::systemd(), files).with_model(model);
    daemon.start();
    daemon.write_file(NVIDIA_DROPIN_PATH, NVIDIA_DROPIN);
    daemon
}

/// A healthy GPU node: a main config with both `runc` and `nvidia`, loaded.
pub fn healthy_daemon(version: &Version) -> Daemon {
    healthy_daemon_on(&Containerd::new(version.clone()))
}

/// [`healthy_daemon`] loading with `model`.
fn healthy_daemon_on(model: &Containerd) -> Daemon {
    let files = Files::new().with(MAIN_CONFIG, MAIN_CONFIG_WITH_NVIDIA);
    let mut daemon = Daemon::new(model.version.clone(), Supervisor::systemd(), files).with_model(model);
    daemon.start();
    daemon
}

/// The broken node's runtime on `containerd_version`, read off [`broken_daemon`].
pub fn broken_runtime(containerd_version: &str) -> Result<NodeRuntime, String> {
    let version = Version::parse(containerd_version).map_err(|e| e.to_string())?;
    Ok(node_runtime(&broken_daemon(&version), &["nvidia".to_string()]))
}

/// The seed's daemons: [`BROKEN_NODE`] broken, every other node of `nodes` healthy.
pub fn seed_daemons(nodes: &[String], version: &Version) -> BTreeMap<String, Daemon> {
    let model = Containerd::new(version.clone());
    nodes
        .iter()
        .map(|n| (n.clone(), if n == BROKEN_NODE { broken_daemon_on(&model) } else { healthy_daemon_on(&model) }))
        .collect()
}

/// The seed's manifests (cluster, device plugin v1 then v2).
pub fn seed_manifests() -> Result<Manifests, String> {
    let mut manifests = Manifests::default();
    for (file, text) in [("cluster.yaml", CLUSTER_YAML), ("device-plugin-v1.yaml", DEVICE_PLUGIN_V1_YAML), ("device-plugin-v2.yaml", DEVICE_PLUGIN_V2_YAML)] {
        // The seed is the lab's own text, held valid by its tests: a finding here is a
        // bug of the lab, reported (in English, for its developers) as the companion
        // prints findings.
        let worded = |d: &crate::Diagnostic| d.line_with(&crate::kubernetes::messages::message(d, crate::Lang::En));
        manifests.add_yaml(file, text).map_err(|ds| ds.iter().map(worded).collect::<Vec<_>>().join("\n"))?;
    }
    Ok(manifests)
}

/// An incident over `manifests` whose nodes run `daemons` (nodes without a daemon get a
/// healthy one on `version`), with the seed's fix (the full-table drop-in).
pub fn incident_from_manifests(
    manifests: &Manifests,
    daemons: BTreeMap<String, Daemon>,
    version: &Version,
    order: NodeOrder,
    seed: u64,
) -> Result<Incident, String> {
    incident_from_owned_manifests(manifests.clone(), daemons, version, order, seed)
}

/// [`incident_from_manifests`] taking the manifests: their Nodes become the rollout's
/// without a copy.
pub fn incident_from_owned_manifests(
    manifests: Manifests,
    daemons: BTreeMap<String, Daemon>,
    version: &Version,
    order: NodeOrder,
    seed: u64,
) -> Result<Incident, String> {
    let mut names = manifests.nodes.iter().filter_map(|n| n.metadata.name.as_deref());
    // One healthy daemon for every node without its own (loaded once, not per node),
    // and its runtime read once: the rollout keeps it as its default runtime.
    let default = names.any(|n| !daemons.contains_key(n)).then(|| healthy_daemon(version));
    let handlers: Vec<String> = manifests.runtime_classes.iter().map(|rc| rc.handler.clone()).collect();
    let (runtimes, default_runtime) = node_runtimes(&daemons, default.as_ref(), &handlers);
    let rollout = rollout_from_owned_manifests(manifests, runtimes, default_runtime, order, seed, SEED_EPOCH)?;
    let mut incident = Incident::with_default_daemon(rollout, daemons, default);
    incident.fix_files = vec![(NVIDIA_DROPIN_PATH.to_string(), NVIDIA_DROPIN_FULL_TABLE.to_string())];
    Ok(incident)
}

/// The lab's incident with its daemons, ready for its first round after the update.
pub fn seed_incident_full(order: NodeOrder, seed: u64) -> Result<Incident, String> {
    let manifests = seed_manifests()?;
    let version = Version::parse(SEED_CONTAINERD_VERSION).map_err(|e| e.to_string())?;
    let names: Vec<String> = manifests.nodes.iter().filter_map(|n| n.metadata.name.clone()).collect();
    let mut incident = incident_from_manifests(&manifests, seed_daemons(&names, &version), &version, order, seed)?;
    incident.slots = Some(SlotInput {
        file: TIME_SLICING_FILE.into(),
        text: TIME_SLICING_YAML.into(),
        gpu_model: SEED_GPU_MODEL.into(),
        gpus_per_node: SEED_GPUS_PER_NODE,
        nodes: names,
    });
    Ok(incident)
}

/// The lab's incident, ready for its first round after the update (the rollout of
/// [`seed_incident_full`]; the nodes' runtimes are read off their daemons).
pub fn seed_incident(order: NodeOrder, seed: u64) -> Result<Rollout, String> {
    seed_incident_full(order, seed).map(|i| i.rollout)
}
