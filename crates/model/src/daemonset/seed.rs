//! Reading Kubernetes manifests (multi-document YAML) into k8s-openapi types, and the
//! lab's own incident: three GPU nodes, the device-plugin DaemonSet (maxUnavailable 1)
//! updated to run under the `nvidia` RuntimeClass with time-slicing, and `gpu-node-2`,
//! whose containerd 1.6.20 has the NVIDIA drop-in on disk but was never restarted, so its
//! loaded config has no `nvidia` handler — and the drop-in replaced the main config's CRI
//! table, so a restart alone would fail the CRI plugin. Every node's containerd is a
//! [`Daemon`] of the containerd model over real files (`seed/containerd/`, the same
//! files as the `incident` scenario's).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::node::v1::RuntimeClass;
use serde::Deserialize;

use super::artifacts::SlotInput;
use super::controller::NodeOrder;
use super::incident::{node_runtimes, Incident};
use super::node_containerd::node_runtime;
use super::rollout::{NodeRuntime, Rollout};
use crate::containerd::{Daemon, Files, Supervisor, Version, MAIN_CONFIG};

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
/// When the seed cluster's DaemonSet was created (unix seconds, 2026-09-21).
pub const SEED_EPOCH: i64 = 1_790_000_000;

/// The objects of one or more manifests, by kind, in file order.
#[derive(Debug, Clone, Default)]
pub struct Manifests {
    pub nodes: Vec<Node>,
    pub daemon_sets: Vec<DaemonSet>,
    pub runtime_classes: Vec<RuntimeClass>,
}

impl Manifests {
    /// Adds every document of `yaml` (`source` names it in errors). Kinds the lab
    /// does not model are an error, not silently dropped.
    pub fn add_yaml(&mut self, source: &str, yaml: &str) -> Result<(), String> {
        // Plain block YAML is read by the fast path; anything else, or any error, is read
        // again by serde_norway from the start, so values and messages are its own.
        if let Some(values) = crate::kubernetes::fast_yaml::values(yaml) {
            let mut fast = Manifests::default();
            let read = values.into_iter().try_for_each(|value| fast.add_value(source, 0, value));
            if read.is_ok() {
                self.nodes.append(&mut fast.nodes);
                self.daemon_sets.append(&mut fast.daemon_sets);
                self.runtime_classes.append(&mut fast.runtime_classes);
                return Ok(());
            }
        }
        for (i, doc) in serde_norway::Deserializer::from_str(yaml).enumerate() {
            let value = serde_json::Value::deserialize(doc).map_err(|e| format!("{source}: document {}: {e}", i + 1))?;
            self.add_value(source, i, value)?;
        }
        Ok(())
    }

    /// Document `i` (0-based) of `source`, read as a JSON value.
    fn add_value(&mut self, source: &str, i: usize, value: serde_json::Value) -> Result<(), String> {
        if value.is_null() {
            return Ok(());
        }
        let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("").to_string();
        let err = |e: serde_json::Error| format!("{source}: document {} ({kind}): {e}", i + 1);
        match kind.as_str() {
            "Node" => self.nodes.push(serde_json::from_value(value).map_err(err)?),
            "DaemonSet" => self.daemon_sets.push(serde_json::from_value(value).map_err(err)?),
            "RuntimeClass" => self.runtime_classes.push(serde_json::from_value(value).map_err(err)?),
            "List" => {
                for item in value.get("items").and_then(|v| v.as_array()).into_iter().flatten() {
                    let text = serde_json::to_string(item).map_err(err)?;
                    self.add_yaml(source, &text)?;
                }
            }
            other => return Err(format!("{source}: document {}: kind {other:?} is not part of the rollout model (Node, DaemonSet, RuntimeClass)", i + 1)),
        }
        Ok(())
    }
}

/// A rollout from manifests: the first DaemonSet runs (and is settled first, every pod
/// Ready), then the second one — the same DaemonSet, changed — is applied. `runtimes`
/// gives the nodes' containerd state. The rollout is returned before its first round.
pub fn rollout_from_manifests(
    manifests: &Manifests,
    runtimes: BTreeMap<String, NodeRuntime>,
    order: NodeOrder,
    seed: u64,
    now: i64,
) -> Result<Rollout, String> {
    let mut daemon_sets = manifests.daemon_sets.iter();
    let first = daemon_sets.next().ok_or("no DaemonSet in the manifests")?;
    let update = daemon_sets.next().ok_or("one DaemonSet only: give the running version and the updated one")?;
    if first.metadata.name != update.metadata.name {
        return Err(format!(
            "the two DaemonSets differ in name ({:?} vs {:?}): the second must be an update of the first",
            first.metadata.name.as_deref().unwrap_or(""),
            update.metadata.name.as_deref().unwrap_or("")
        ));
    }
    if manifests.nodes.is_empty() {
        return Err("no Node in the manifests".into());
    }
    let mut rollout = Rollout::new(first.clone(), manifests.nodes.clone(), manifests.runtime_classes.clone(), order, seed, now);
    rollout.runtimes = runtimes;
    if !rollout.run_until_settled(200) {
        return Err("the running DaemonSet does not roll out cleanly before the update".into());
    }
    // The cluster has been running for a while when the update comes.
    rollout.controller.now += 14 * 60 - rollout.interval;
    rollout.rounds.clear();
    rollout.apply_update(update.clone());
    Ok(rollout)
}

/// The seed's broken node as the containerd model runs it: started on the main config
/// (runc only), then the NVIDIA toolkit's drop-in — which on 1.6/1.7 replaces the main
/// config's CRI plugin table whole — written under the running daemon, which was not
/// restarted. Its loaded state is the daemon's, read by [`node_runtime`].
pub fn broken_daemon(version: &Version) -> Daemon {
    let files = Files::new().with(MAIN_CONFIG, MAIN_CONFIG_BROKEN_NODE);
    let mut daemon = Daemon::new(version.clone(), Supervisor::systemd(), files);
    daemon.start();
    daemon.write_file(NVIDIA_DROPIN_PATH, NVIDIA_DROPIN);
    daemon
}

/// A healthy GPU node: a main config with both `runc` and `nvidia`, loaded.
pub fn healthy_daemon(version: &Version) -> Daemon {
    let files = Files::new().with(MAIN_CONFIG, MAIN_CONFIG_WITH_NVIDIA);
    let mut daemon = Daemon::new(version.clone(), Supervisor::systemd(), files);
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
    nodes
        .iter()
        .map(|n| (n.clone(), if n == BROKEN_NODE { broken_daemon(version) } else { healthy_daemon(version) }))
        .collect()
}

/// The seed's manifests (cluster, device plugin v1 then v2).
pub fn seed_manifests() -> Result<Manifests, String> {
    let mut manifests = Manifests::default();
    manifests.add_yaml("cluster.yaml", CLUSTER_YAML)?;
    manifests.add_yaml("device-plugin-v1.yaml", DEVICE_PLUGIN_V1_YAML)?;
    manifests.add_yaml("device-plugin-v2.yaml", DEVICE_PLUGIN_V2_YAML)?;
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
    let names = || manifests.nodes.iter().filter_map(|n| n.metadata.name.as_deref());
    // One healthy daemon for every node without its own (loaded once, not per node).
    let default = names().any(|n| !daemons.contains_key(n)).then(|| healthy_daemon(version));
    let handlers: Vec<String> = manifests.runtime_classes.iter().map(|rc| rc.handler.clone()).collect();
    let runtimes = node_runtimes(names(), &daemons, default.as_ref(), &handlers);
    let rollout = rollout_from_manifests(manifests, runtimes, order, seed, SEED_EPOCH)?;
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
