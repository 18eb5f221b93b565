//! Reading Kubernetes manifests (multi-document YAML: Nodes, DaemonSets,
//! RuntimeClasses) for the rollout, and a rollout from them: the running DaemonSet
//! settled, then its update applied. The incident's seed ([`crate::incident::seed`]),
//! `gpulab rollout` and the scenario engine start their rollouts here.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::node::v1::RuntimeClass;
use serde::Deserialize;

use super::controller::NodeOrder;
use super::rollout::{NodeRuntime, Rollout};

/// When the lab's cluster's DaemonSet was created (unix seconds, 2026-09-21): the clock
/// the seed's and every scenario's rollout starts from.
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
        for (i, doc) in serde_norway::Deserializer::from_str(yaml).enumerate() {
            let value = serde_json::Value::deserialize(doc).map_err(|e| format!("{source}: document {}: {e}", i + 1))?;
            if value.is_null() {
                continue;
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

