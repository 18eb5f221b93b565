//! The cluster as the scheduler sees it during one binding pass of a rollout round:
//! the pods bound to a node are read off the controller's pod index
//! ([`PodStore`], by target node), and — only when a pod does not fit — one scheduler
//! [`Snapshot`] is built and kept up to date as pods are bound in the pass.
//!
//! Without it every daemon pod's cycle scanned every pod of the cluster and cloned
//! the whole cluster into a fresh snapshot on a rejection: O(pods) per bind, so a
//! 5,000-node rollout was quadratic. The index gives the same answers: the pods it
//! lists for a node are exactly those a scan of the store finds, in the same order.

use std::borrow::Cow;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, Pod};

use super::store::PodStore;
use crate::kubernetes::scheduler::snapshot::BoundPod;
use crate::kubernetes::scheduler::{NodeInfo, Snapshot};

/// `spec.nodeName`, when set.
fn bound_node(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref())
}

/// Each node's [`NodeInfo`] without pods (the Node shared, its allocatable parsed),
/// kept across binding passes for one version of the node list
/// ([`super::controller::DaemonSetsController::nodes_version`]): a bind copies its
/// node's instead of copying the Node and parsing its quantities again.
#[derive(Debug, Clone, Default)]
pub struct NodeBases {
    version: u64,
    infos: Vec<Option<NodeInfo>>,
}

impl NodeBases {
    /// Node `i`'s `NodeInfo` without pods (a copy), for the node list `nodes` at `version`.
    pub fn base(&mut self, nodes: &[Arc<Node>], version: u64, i: usize) -> Option<NodeInfo> {
        if self.version != version || self.infos.len() != nodes.len() {
            self.version = version;
            self.infos = vec![None; nodes.len()];
        }
        let node = nodes.get(i)?;
        let slot = self.infos.get_mut(i)?;
        Some(slot.get_or_insert_with(|| NodeInfo::shared(Arc::clone(node))).clone())
    }
}

/// The binding pass's view of the cluster.
#[derive(Debug, Default)]
pub struct BindIndex {
    /// The whole-cluster snapshot, built on the first rejection of the pass.
    snapshot: Option<Snapshot>,
}

impl BindIndex {
    /// The pods bound to the node `name` (by `spec.nodeName`), in store order.
    fn bound<'s>(store: &'s PodStore, name: &'s str) -> impl Iterator<Item = &'s Pod> + 's {
        let i = store.node_position(name).unwrap_or(usize::MAX);
        store.on_node(i).filter(move |p| bound_node(p) == Some(name))
    }

    /// The filters' view of the node of `base` (its [`NodeInfo`] without pods) with
    /// the pods bound to it, leaving out the pod named `except` (the one being
    /// scheduled): as a scan of the store would build it.
    pub fn node_info(&self, base: NodeInfo, store: &PodStore, except: Option<&String>) -> NodeInfo {
        let mut info = base;
        let node = Arc::clone(&info.node);
        let name = node.metadata.name.as_deref().unwrap_or("");
        for pod in Self::bound(store, name) {
            if pod.metadata.name.as_ref() != except {
                info.add_pod(BoundPod::of(pod, true));
            }
        }
        info
    }

    /// The snapshot a full cycle for `pod` runs on: every node, every pod but `pod`.
    /// Kept for the rest of the pass when `pod` is unbound (then leaving it out changes
    /// nothing); built afresh otherwise.
    pub fn snapshot(&mut self, nodes: &[Arc<Node>], store: &PodStore, pod: &Pod) -> Cow<'_, Snapshot> {
        let copies = || nodes.iter().map(|n| Node::clone(n));
        if bound_node(pod).is_some() {
            let others: Vec<Pod> = store.values().filter(|p| p.metadata.name != pod.metadata.name).cloned().collect();
            return Cow::Owned(Snapshot::new(copies(), &others));
        }
        Cow::Borrowed(
            self.snapshot
                .get_or_insert_with(|| Snapshot::new(copies(), &store.values().cloned().collect::<Vec<_>>())),
        )
    }

    /// Records that a pod (already updated in `store`) was bound to `node`: the
    /// snapshot's node is rebuilt in store order as [`Snapshot::new`] would.
    pub fn bind(&mut self, nodes: &[Arc<Node>], store: &PodStore, node: &str) {
        let Some(snapshot) = self.snapshot.as_mut() else { return };
        let (Some(i), Some(k8s_node)) = (snapshot.index_of(node), store.node_position(node).and_then(|i| nodes.get(i))) else {
            return;
        };
        let mut info = NodeInfo::shared(Arc::clone(k8s_node));
        for pod in Self::bound(store, node) {
            let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
            if !matches!(phase, Some("Succeeded" | "Failed")) {
                info.add_pod(BoundPod::of(pod, snapshot.pod_level_resources));
            }
        }
        if let Some(slot) = snapshot.nodes.get_mut(i) {
            *slot = info;
        }
    }
}
