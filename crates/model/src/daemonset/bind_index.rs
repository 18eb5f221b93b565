//! The cluster as the scheduler sees it during one binding pass of a rollout round,
//! built once per round instead of once per pod: node name → node index, the pods
//! bound to each node (in store order), and — only when a pod does not fit — one
//! scheduler [`Snapshot`] kept up to date as pods are bound in the pass.
//!
//! Without it every daemon pod's cycle scanned every pod of the cluster and cloned
//! the whole cluster into a fresh snapshot on a rejection: O(pods) per bind, so a
//! 5,000-node rollout was quadratic. The index gives the same answers: the pods it
//! lists for a node are exactly those a scan of the store finds, in the same order.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};

use crate::hash::FastMap;
use crate::kubernetes::scheduler::snapshot::BoundPod;
use crate::kubernetes::scheduler::{NodeInfo, Snapshot};

/// `spec.nodeName`, when set.
fn bound_node(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref())
}

/// The binding pass's view of the cluster.
#[derive(Debug, Default)]
pub struct BindIndex {
    /// The first node of the list with each name (what a linear `find` returns).
    nodes: FastMap<String, usize>,
    /// Pod names by `spec.nodeName`, in store (name) order.
    bound: FastMap<String, Vec<String>>,
    /// The whole-cluster snapshot, built on the first rejection of the pass.
    snapshot: Option<Snapshot>,
}

impl BindIndex {
    /// Indexes `nodes` and the pods of `store` that are bound to a node.
    pub fn new(nodes: &[Node], store: &BTreeMap<String, Pod>) -> Self {
        let mut index = BindIndex::default();
        for (i, node) in nodes.iter().enumerate() {
            index.nodes.entry(node.metadata.name.clone().unwrap_or_default()).or_insert(i);
        }
        for (name, pod) in store {
            if let Some(node) = bound_node(pod) {
                index.bound.entry(node.to_string()).or_default().push(name.clone());
            }
        }
        index
    }

    /// The node named `name`, by its index in the node list.
    pub fn node<'a>(&self, nodes: &'a [Node], name: &str) -> Option<&'a Node> {
        self.nodes.get(name).and_then(|&i| nodes.get(i))
    }

    /// The filters' view of `node` with the pods bound to it, leaving out the pod
    /// named `except` (the one being scheduled): as a scan of the store would build it.
    pub fn node_info(&self, node: &Node, store: &BTreeMap<String, Pod>, except: Option<&String>) -> NodeInfo {
        let mut info = NodeInfo::new(node.clone());
        let name = node.metadata.name.as_deref().unwrap_or("");
        for pod in self.bound.get(name).into_iter().flatten().filter_map(|n| store.get(n)) {
            if pod.metadata.name.as_ref() != except && bound_node(pod) == Some(name) {
                info.add_pod(BoundPod::of(pod, true));
            }
        }
        info
    }

    /// The snapshot a full cycle for `pod` runs on: every node, every pod but `pod`.
    /// Kept for the rest of the pass when `pod` is unbound (then leaving it out changes
    /// nothing); built afresh otherwise.
    pub fn snapshot(&mut self, nodes: &[Node], store: &BTreeMap<String, Pod>, pod: &Pod) -> Cow<'_, Snapshot> {
        if bound_node(pod).is_some() {
            let others: Vec<Pod> = store.values().filter(|p| p.metadata.name != pod.metadata.name).cloned().collect();
            return Cow::Owned(Snapshot::new(nodes.iter().cloned(), &others));
        }
        Cow::Borrowed(
            self.snapshot
                .get_or_insert_with(|| Snapshot::new(nodes.iter().cloned(), &store.values().cloned().collect::<Vec<_>>())),
        )
    }

    /// Records that the pod `name` (already updated in `store`) was bound to `node`:
    /// the node's pod list, and the snapshot's node rebuilt in store order as
    /// [`Snapshot::new`] would.
    pub fn bind(&mut self, nodes: &[Node], store: &BTreeMap<String, Pod>, name: &str, node: &str) {
        let list = self.bound.entry(node.to_string()).or_default();
        if let Err(at) = list.binary_search_by(|n| n.as_str().cmp(name)) {
            list.insert(at, name.to_string());
        }
        let Some(snapshot) = self.snapshot.as_mut() else { return };
        let (Some(i), Some(k8s_node)) = (snapshot.index_of(node), self.nodes.get(node).and_then(|&i| nodes.get(i))) else {
            return;
        };
        let mut info = NodeInfo::new(k8s_node.clone());
        for pod in self.bound.get(node).into_iter().flatten().filter_map(|n| store.get(n)) {
            let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
            if bound_node(pod) == Some(node) && !matches!(phase, Some("Succeeded" | "Failed")) {
                info.add_pod(BoundPod::of(pod, snapshot.pod_level_resources));
            }
        }
        if let Some(slot) = snapshot.nodes.get_mut(i) {
            *slot = info;
        }
    }
}
