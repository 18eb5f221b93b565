//! The cluster side of the model backend: RuntimeClass, pods and their scheduling, the
//! kubelet's sandbox errors from each node's loaded containerd config, and the
//! device-plugin DaemonSet rollout — over the `kubernetes` and `daemonset` models.
//! Until those models are on this branch, the cluster observes nothing and says so.

use super::engine::Unobservable;
use super::expect::{Field, Observed};
use super::format::{Action, Scenario};
use super::model::ModelNode;

/// The modelled cluster.
#[derive(Debug, Clone, Default)]
pub struct Cluster {}

impl Cluster {
    pub fn new(_scenario: &Scenario, _nodes: &[ModelNode]) -> Result<Cluster, String> {
        Ok(Cluster {})
    }

    pub fn act(&mut self, _action: &Action, _nodes: &[ModelNode]) -> Result<(), String> {
        Ok(())
    }

    pub fn observe(&self, _subject: &str, field: Field, _nodes: &[ModelNode]) -> Result<Observed, Unobservable> {
        Err(format!("`{}`: the Kubernetes model is not wired into scenarios yet", field.name()))
    }
}
