//! The DaemonSet controller's pod cache, as its informer keeps it: the DaemonSet's
//! pods by name, and an index by target node (`util.GetTargetNodeName`: `spec.nodeName`,
//! else the pod's `matchFields metadata.name` affinity) kept up to date on every
//! change, so a sync, a binding pass or a kubelet pass reads the pods of the nodes it
//! touches instead of scanning every pod of the cluster.
//!
//! Every node of the list has a slot with its pods' names (in name order, the store's
//! order) and a version that moves on every change to one of them; the nodes whose
//! version moved are listed until [`PodStore::take_touched`] takes the list, which is
//! how the controller finds the per-node verdicts it has to compute again
//! ([`super::controller`]). Pods are
//! boxed: a k8s-openapi `Pod` is a few hundred bytes, and the map moves its values
//! on every insert and remove.
//!
//! **Architecture Invariant:** a pod changes only through [`PodStore::insert`],
//! [`PodStore::remove`] and [`PodStore::update`], which keep the index and the
//! versions right; there is no `&mut Pod` into the store otherwise. ([`PodStore::lend`]
//! moves a pod out for a scheduling cycle and [`PodStore::give_back`] returns it
//! unchanged: no change, so the index and the versions stay as they are.)

use std::borrow::Borrow;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::pod::get_target_node_name;
use crate::hash::FastMap;

/// One node's pods.
#[derive(Debug, Clone, Default)]
struct Slot {
    /// Pod names, sorted.
    names: Vec<String>,
    /// Moves on every change to the node's pods (unique across the store's life).
    version: u64,
    /// Listed in `PodStore::touched` since the last [`PodStore::take_touched`].
    touched: bool,
}

/// The DaemonSet's pods (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct PodStore {
    pods: BTreeMap<String, Box<Pod>>,
    /// Node name → its index in the node list (the first node with that name).
    node_index: FastMap<String, usize>,
    slots: Vec<Slot>,
    /// Pods whose target node is not in the node list, by that node's name.
    orphans: BTreeMap<String, Vec<String>>,
    /// The last version handed out.
    clock: u64,
    /// Nodes whose version moved since the last [`PodStore::take_touched`], each once,
    /// in the order they first moved.
    touched: Vec<usize>,
}

/// Where a pod is indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place<'a> {
    Node(usize),
    Orphan(&'a str),
    Nowhere,
}

impl PodStore {
    /// An empty store over `nodes`.
    pub fn new<N: Borrow<Node>>(nodes: &[N]) -> Self {
        let mut store = PodStore::default();
        store.set_nodes(nodes);
        store
    }

    /// The node list changed: rebuilds the index (every slot gets a new version).
    pub fn set_nodes<N: Borrow<Node>>(&mut self, nodes: &[N]) {
        self.node_index.clear();
        for (i, node) in nodes.iter().enumerate() {
            self.node_index.entry(node.borrow().metadata.name.clone().unwrap_or_default()).or_insert(i);
        }
        self.slots = vec![Slot::default(); nodes.len()];
        self.touched = (0..nodes.len()).collect();
        for slot in &mut self.slots {
            self.clock += 1;
            slot.version = self.clock;
            slot.touched = true;
        }
        self.orphans.clear();
        let names: Vec<String> = self.pods.keys().cloned().collect();
        for name in names {
            self.index(&name);
        }
    }

    fn place<'a>(node_index: &FastMap<String, usize>, pod: &'a Pod) -> Place<'a> {
        match get_target_node_name(pod) {
            None => Place::Nowhere,
            Some(node) => node_index.get(node).map_or(Place::Orphan(node), |&i| Place::Node(i)),
        }
    }

    /// Moves node `i`'s version and lists it as touched.
    fn bump(clock: &mut u64, touched: &mut Vec<usize>, slot: &mut Slot, i: usize) {
        *clock += 1;
        slot.version = *clock;
        if !slot.touched {
            slot.touched = true;
            touched.push(i);
        }
    }

    /// The nodes whose version moved since the last call (each once), emptying the
    /// list: what a reader that keeps something per node version has to look at again.
    pub fn take_touched(&mut self) -> Vec<usize> {
        let touched = std::mem::take(&mut self.touched);
        for &i in &touched {
            if let Some(slot) = self.slots.get_mut(i) {
                slot.touched = false;
            }
        }
        touched
    }

    fn index(&mut self, name: &str) {
        let Some(pod) = self.pods.get(name) else { return };
        let list = match Self::place(&self.node_index, pod) {
            Place::Nowhere => return,
            Place::Node(i) => {
                let Some(slot) = self.slots.get_mut(i) else { return };
                Self::bump(&mut self.clock, &mut self.touched, slot, i);
                &mut slot.names
            }
            Place::Orphan(node) => self.orphans.entry(node.to_string()).or_default(),
        };
        if let Err(at) = list.binary_search_by(|n| n.as_str().cmp(name)) {
            list.insert(at, name.to_string());
        }
    }

    fn unindex(&mut self, name: &str) {
        let Some(pod) = self.pods.get(name) else { return };
        match Self::place(&self.node_index, pod) {
            Place::Nowhere => {}
            Place::Node(i) => {
                if let Some(slot) = self.slots.get_mut(i) {
                    Self::bump(&mut self.clock, &mut self.touched, slot, i);
                    slot.names.retain(|n| n != name);
                }
            }
            Place::Orphan(node) => {
                let node = node.to_string();
                if let Some(list) = self.orphans.get_mut(&node) {
                    list.retain(|n| n != name);
                    if list.is_empty() {
                        self.orphans.remove(&node);
                    }
                }
            }
        }
    }

    /// Adds (or replaces) the pod `name`.
    pub fn insert(&mut self, name: String, pod: Pod) {
        self.unindex(&name);
        self.pods.insert(name.clone(), Box::new(pod));
        self.index(&name);
    }

    /// Removes the pod `name`.
    pub fn remove(&mut self, name: &str) -> Option<Pod> {
        self.unindex(name);
        self.pods.remove(name).map(|p| *p)
    }

    /// Changes the pod `name` with `f`; its node's version moves (and the pod is
    /// re-indexed if its target node changed).
    pub fn update<R>(&mut self, name: &str, f: impl FnOnce(&mut Pod) -> R) -> Option<R> {
        let before = match Self::place(&self.node_index, self.pods.get(name)?) {
            Place::Node(i) => Some(i),
            Place::Orphan(_) | Place::Nowhere => None,
        };
        if let Some(i) = before {
            // The common case (a status written, a pod bound to the node it targets):
            // it stays at its node, where its name is already listed in order, and only
            // the node's version moves.
            let pod = self.pods.get_mut(name)?;
            let out = f(pod);
            if Self::place(&self.node_index, pod) == Place::Node(i) {
                if let Some(slot) = self.slots.get_mut(i) {
                    Self::bump(&mut self.clock, &mut self.touched, slot, i);
                }
            } else {
                if let Some(slot) = self.slots.get_mut(i) {
                    Self::bump(&mut self.clock, &mut self.touched, slot, i);
                    slot.names.retain(|n| n != name);
                }
                self.index(name);
            }
            return Some(out);
        }
        self.unindex(name);
        let out = self.pods.get_mut(name).map(|p| f(p));
        self.index(name);
        out
    }

    /// Lends the pod `name` out by value (a scheduling cycle takes its pod by value),
    /// without a copy and without touching the index: its entry keeps an empty pod
    /// with the same name — no spec, so bound to no node and targeting none — until
    /// [`PodStore::give_back`] returns it. Nothing has changed, so no version moves.
    /// While it is out, readers find that empty pod in the lent pod's place (the
    /// binding pass leaves the pod being scheduled out of its views by name anyway).
    pub fn lend(&mut self, name: &str) -> Option<Pod> {
        let pod = self.pods.get_mut(name)?;
        let empty = Pod { metadata: ObjectMeta { name: pod.metadata.name.clone(), ..ObjectMeta::default() }, spec: None, status: None };
        Some(std::mem::replace(&mut **pod, empty))
    }

    /// Returns a pod [`PodStore::lend`] lent out, unchanged (it keeps its index entry;
    /// a pod that changed goes through [`PodStore::update`] after).
    pub fn give_back(&mut self, name: &str, pod: Pod) {
        match self.pods.get_mut(name) {
            Some(slot) => **slot = pod,
            None => self.insert(name.to_string(), pod),
        }
    }

    pub fn get(&self, name: &str) -> Option<&Pod> {
        self.pods.get(name).map(|p| &**p)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.pods.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.pods.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pods.is_empty()
    }

    /// Every pod, in name order.
    pub fn values(&self) -> impl Iterator<Item = &Pod> + '_ {
        self.pods.values().map(|p| &**p)
    }

    /// Every pod with its name, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Pod)> + '_ {
        self.pods.iter().map(|(n, p)| (n, &**p))
    }

    /// The index in the node list of the node named `name`.
    pub fn node_position(&self, name: &str) -> Option<usize> {
        self.node_index.get(name).copied()
    }

    /// The pods whose target is node `i` of the list, in name order.
    pub fn on_node(&self, i: usize) -> impl Iterator<Item = &Pod> + '_ {
        self.slots.get(i).into_iter().flat_map(|s| s.names.iter()).filter_map(|n| self.get(n))
    }

    /// Where the pod `name` is among node `i`'s pods (name order), if it is there.
    pub fn position_on_node(&self, i: usize, name: &str) -> Option<usize> {
        self.slots.get(i)?.names.binary_search_by(|n| n.as_str().cmp(name)).ok()
    }

    /// The name of the `k`-th of node `i`'s pods (name order): read off the index, no
    /// pod looked up. A position stays right until the node's version moves.
    pub fn name_on_node(&self, i: usize, k: usize) -> Option<&str> {
        self.slots.get(i)?.names.get(k).map(String::as_str)
    }

    /// The version of node `i`'s pods (0 for a node not in the list).
    pub fn version(&self, i: usize) -> u64 {
        self.slots.get(i).map_or(0, |s| s.version)
    }

    /// Pods whose target node is not in the list, by node name (in name order).
    pub fn orphans(&self) -> impl Iterator<Item = (&str, Vec<&Pod>)> + '_ {
        self.orphans.iter().map(|(node, names)| (node.as_str(), names.iter().filter_map(|n| self.get(n)).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::PodSpec;

    fn node(name: &str) -> Node {
        let mut n = Node::default();
        n.metadata.name = Some(name.into());
        n
    }

    fn pod(name: &str, node: Option<&str>) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = Some(name.into());
        p.spec = Some(PodSpec { node_name: node.map(str::to_string), ..PodSpec::default() });
        p
    }

    fn names<'a>(pods: impl Iterator<Item = &'a Pod>) -> Vec<&'a str> {
        pods.map(|p| p.metadata.name.as_deref().unwrap_or("")).collect()
    }

    /// The index follows inserts, removes and updates that move a pod; every change
    /// to a node's pods moves its version; pods on unknown nodes are orphans.
    #[test]
    fn index_follows_every_change() {
        let mut s = PodStore::new(&[node("a"), node("b")]);
        s.insert("p2".into(), pod("p2", Some("a")));
        s.insert("p1".into(), pod("p1", Some("a")));
        s.insert("q".into(), pod("q", Some("gone")));
        s.insert("u".into(), pod("u", None));
        assert_eq!((names(s.on_node(0)), names(s.on_node(1))), (vec!["p1", "p2"], vec![]));
        assert_eq!(s.orphans().map(|(n, p)| (n, names(p.into_iter()))).collect::<Vec<_>>(), vec![("gone", vec!["q"])]);
        let (a, b) = (s.version(0), s.version(1));
        s.update("p1", |p| p.spec = Some(PodSpec { node_name: Some("b".into()), ..PodSpec::default() }));
        assert_eq!((names(s.on_node(0)), names(s.on_node(1))), (vec!["p2"], vec!["p1"]));
        assert!(s.version(0) != a && s.version(1) != b);
        let (a, b) = (s.version(0), s.version(1));
        s.update("p2", |p| p.status = Some(Default::default()));
        assert_eq!((names(s.on_node(0)), names(s.on_node(1))), (vec!["p2"], vec!["p1"]));
        assert!(s.version(0) != a && s.version(1) == b);
        assert_eq!(s.take_touched(), vec![0, 1]);
        assert!(s.take_touched().is_empty());
        assert!(s.remove("p1").is_some());
        assert!(s.on_node(1).next().is_none() && s.version(1) != b);
        assert_eq!(s.take_touched(), vec![1]);
        let lent = s.lend("p2");
        assert!(lent.is_some());
        if let Some(p) = lent {
            s.give_back("p2", p);
        }
        assert!(s.take_touched().is_empty());
        s.set_nodes(&[node("gone")]);
        assert_eq!((names(s.on_node(0)), s.orphans().count()), (vec!["q"], 1));
        assert_eq!(s.take_touched(), vec![0]);
        assert_eq!(s.len(), 3);
    }
}
