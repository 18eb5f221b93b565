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

use k8s_openapi::api::core::v1::{Node, Pod};

use super::store::PodStore;
use crate::kubernetes::scheduler::snapshot::BoundPod;
use crate::kubernetes::scheduler::{NodeInfo, Snapshot};

/// `spec.nodeName`, when set.
fn bound_node(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref())
}

/// The binding pass's view of the cluster.
#[derive(Debug, Default)]
pub struct BindIndex {
    /// The whole-cluster snapshot, built on the first rejection of the pass.
    snapshot: Option<Snapshot>,
}

impl BindIndex {
    /// The node named `name` (the first of the list with that name).
    pub fn node<'a>(&self, nodes: &'a [Node], store: &PodStore, name: &str) -> Option<&'a Node> {
        store.node_position(name).and_then(|i| nodes.get(i))
    }

    /// The pods bound to the node `name` (by `spec.nodeName`), in store order.
    fn bound<'s>(store: &'s PodStore, name: &'s str) -> impl Iterator<Item = &'s Pod> + 's {
        let i = store.node_position(name).unwrap_or(usize::MAX);
        store.on_node(i).filter(move |p| bound_node(p) == Some(name))
    }

    /// The filters' view of `node` with the pods bound to it, leaving out the pod
    /// named `except` (the one being scheduled): as a scan of the store would build it.
    pub fn node_info(&self, node: &Node, store: &PodStore, except: Option<&String>) -> NodeInfo {
        let mut info = NodeInfo::new(node.clone());
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
    pub fn snapshot(&mut self, nodes: &[Node], store: &PodStore, pod: &Pod) -> Cow<'_, Snapshot> {
        if bound_node(pod).is_some() {
            let others: Vec<Pod> = store.values().filter(|p| p.metadata.name != pod.metadata.name).cloned().collect();
            return Cow::Owned(Snapshot::new(nodes.iter().cloned(), &others));
        }
        Cow::Borrowed(
            self.snapshot
                .get_or_insert_with(|| Snapshot::new(nodes.iter().cloned(), &store.values().cloned().collect::<Vec<_>>())),
        )
    }

    /// Records that a pod (already updated in `store`) was bound to `node`: the
    /// snapshot's node is rebuilt in store order as [`Snapshot::new`] would.
    pub fn bind(&mut self, nodes: &[Node], store: &PodStore, node: &str) {
        let Some(snapshot) = self.snapshot.as_mut() else { return };
        let (Some(i), Some(k8s_node)) = (snapshot.index_of(node), store.node_position(node).and_then(|i| nodes.get(i))) else {
            return;
        };
        let mut info = NodeInfo::new(k8s_node.clone());
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
