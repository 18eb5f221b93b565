//! The cluster side of the model backend: the scenario's Kubernetes objects (Nodes,
//! the RuntimeClass, the device-plugin DaemonSet) and the DaemonSet rollout over the
//! [`daemonset`](crate::daemonset) model, with each node's kubelet meeting that node's
//! *simulated containerd* — the handlers its daemon loaded at its last start, not the
//! files on disk — so a node whose containerd lost `nvidia` stalls the rollout with the
//! kubelet's real sandbox error.
//!
//! The first DaemonSet of the initial manifests is created and settled before step 1
//! (every pod Ready); an `apply` of a DaemonSet with the same name is its update;
//! `sync` runs controller rounds (sync, bind, kubelet pass). The node order the
//! controller walks is the node list's (Go's is random: expectations that depend on it
//! use `one_of`).

use std::collections::BTreeMap;

use crate::daemonset::diagnosis::diagnose;
use crate::daemonset::rollout::{NodeRuntime, Rollout};
use crate::daemonset::seed::{Manifests, SEED_EPOCH};
use crate::daemonset::NodeOrder;

use super::engine::Unobservable;
use super::expect::{Field, Observed};
use super::format::{Action, Scenario};
use super::model::ModelNode;

/// The modelled cluster.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    pub manifests: Manifests,
    pub rollout: Option<Rollout>,
}

/// What each node's kubelet finds in its containerd now.
fn runtimes(nodes: &[ModelNode]) -> BTreeMap<String, NodeRuntime> {
    nodes
        .iter()
        .map(|n| {
            let files = crate::containerd::load(&n.daemon.files, &n.daemon.version).runtime_handlers();
            let rt = NodeRuntime {
                containerd_version: n.spec.containerd.clone(),
                loaded_handlers: n.daemon.runtime_handlers(),
                file_handlers: Some(files),
                findings: Vec::new(),
            };
            (n.spec.name.clone(), rt)
        })
        .collect()
}

impl Cluster {
    pub fn new(scenario: &Scenario, nodes: &[ModelNode]) -> Result<Cluster, String> {
        let mut manifests = Manifests::default();
        for m in &scenario.manifests {
            manifests.add_yaml(&m.source, &m.content)?;
        }
        let mut cluster = Cluster { manifests, rollout: None };
        if let Some(ds) = cluster.manifests.daemon_sets.first().cloned() {
            let mut rollout = Rollout::new(ds, cluster.manifests.nodes.clone(), cluster.manifests.runtime_classes.clone(), NodeOrder::Listed, 1, SEED_EPOCH);
            rollout.runtimes = runtimes(nodes);
            if !rollout.run_until_settled(200) {
                return Err("the initial DaemonSet does not roll out cleanly on the initial nodes".into());
            }
            rollout.rounds.clear();
            cluster.rollout = Some(rollout);
        }
        Ok(cluster)
    }

    pub fn act(&mut self, action: &Action, nodes: &[ModelNode]) -> Result<(), String> {
        match action {
            Action::Apply { file } => {
                let mut m = Manifests::default();
                m.add_yaml(&file.source, &file.content)?;
                for ds in m.daemon_sets {
                    match self.rollout.as_mut() {
                        Some(r) if r.controller.ds.metadata.name == ds.metadata.name => r.apply_update(ds),
                        _ => return Err("applying a second DaemonSet is not modelled: apply an update of the scenario's DaemonSet".into()),
                    }
                }
                for rc in m.runtime_classes {
                    if let Some(r) = self.rollout.as_mut() {
                        if let (Some(known), Some(name)) = (r.controller.admission.runtime_classes.as_mut(), rc.metadata.name.clone()) {
                            known.insert(name);
                        }
                        r.runtime_classes.push(rc.clone());
                    }
                    self.manifests.runtime_classes.push(rc);
                }
                if !m.nodes.is_empty() {
                    return Err("Node objects come with the scenario's initial manifests".into());
                }
            }
            Action::Sync { count } => {
                if let Some(r) = self.rollout.as_mut() {
                    for _ in 0..*count {
                        r.runtimes = runtimes(nodes);
                        r.step();
                    }
                }
            }
            Action::Delete { kind, name } => return Err(format!("delete {kind}/{name}: not modelled yet")),
            _ => {}
        }
        Ok(())
    }

    pub fn observe(&self, subject: &str, field: Field, _nodes: &[ModelNode]) -> Result<Observed, Unobservable> {
        if let Some(name) = subject.strip_prefix("daemonset/") {
            let r = self.rollout.as_ref().filter(|r| r.controller.ds.metadata.name.as_deref() == Some(name)).ok_or_else(|| format!("no DaemonSet {name}"))?;
            let status = r.controller.ds.status.clone().unwrap_or_default();
            let int = |i: i32| Ok(Observed::Int(i64::from(i)));
            return match field {
                Field::Desired => int(status.desired_number_scheduled),
                Field::Current => int(status.current_number_scheduled),
                Field::Ready => int(status.number_ready),
                Field::UpToDate => int(status.updated_number_scheduled.unwrap_or(0)),
                Field::Available => int(status.number_available.unwrap_or(0)),
                Field::RolloutStatus => {
                    let s = r.rollout_status().map_or_else(|e| e, |s| s.message);
                    Ok(Observed::Text(s.trim_end().to_string()))
                }
                Field::StalledOn => {
                    let stalled = r.rounds.last().is_some_and(|l| l.stalled);
                    let mut nodes: Vec<String> = if stalled { diagnose(r).stalled_nodes.into_iter().map(|n| n.node).collect() } else { Vec::new() };
                    nodes.sort();
                    Ok(Observed::List(nodes))
                }
                other => Err(format!("`{}` is not a DaemonSet field", other.name())),
            };
        }
        if let Some(name) = subject.strip_prefix("node/") {
            let node = self.manifests.nodes.iter().find(|n| n.metadata.name.as_deref() == Some(name)).ok_or_else(|| format!("no Node {name} in the manifests"))?;
            let gpus = node
                .status
                .as_ref()
                .and_then(|s| s.allocatable.as_ref())
                .and_then(|a| a.get("nvidia.com/gpu"))
                .and_then(|q| q.0.parse::<i64>().ok())
                .unwrap_or(0);
            return match field {
                Field::Gpus => Ok(Observed::Int(gpus)),
                other => Err(format!("`{}` is not a node field", other.name())),
            };
        }
        Err(format!("`{subject}.{}`: pods are observed once the Kubernetes model is merged into scenarios", field.name()))
    }
}
