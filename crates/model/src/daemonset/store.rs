//! The DaemonSet controller's pod cache, as its informer keeps it: the DaemonSet's
//! pods by name, and an index by target node (`util.GetTargetNodeName`: `spec.nodeName`,
//! else the pod's `matchFields metadata.name` affinity) kept up to date on every
//! change, so a sync, a binding pass or a kubelet pass reads the pods of the nodes it
//! touches instead of scanning every pod of the cluster.
//!
//! Each pod has a place in a table for as long as it is stored (a removed pod's place
//! is reused), found by name through a hash map; a node's slot lists its pods' places
//! (in name order, the store's order), so reading a node's pods looks no name up.
//! Every node of the list has a slot and a version that moves on every change to one
//! of its pods; the nodes whose version moved are listed until
//! [`PodStore::take_touched`] takes the list, which is how the controller finds the
//! per-node verdicts it has to compute again ([`super::controller`]). Reading every
//! pod in name order sorts the places once after a change (readers the order does not
//! matter to take [`PodStore::values_any_order`], which sorts nothing). Pods are boxed: a
//! k8s-openapi `Pod` is a few hundred bytes, and the table moves its entries when it
//! grows.
//!
//! The pods the controller creates from one template keep that template's volumes
//! once, shared ([`PodStore::insert_sharing`]): a k8s-openapi `Volume` holds every
//! volume source inline (about 3 KB each), so two volumes copied into each of 20,000
//! pods were 127 MB. Such a pod is stored, and read through [`PodStore::get`] and the
//! other borrowing readers, with `spec.volumes` left empty; [`PodStore::pod`] and
//! [`PodStore::remove`] give it whole. (No reader of the store's pods — the
//! controller, the scheduler's binding pass, the kubelet pass, the kubectl views, the
//! diagnosis — reads a pod's volumes.)
//!
//! **Architecture Invariant:** a pod changes only through [`PodStore::insert`],
//! [`PodStore::remove`] and [`PodStore::update`], which keep the index and the
//! versions right; there is no `&mut Pod` into the store otherwise. ([`PodStore::lend`]
//! moves a pod out for a scheduling cycle and [`PodStore::give_back`] returns it
//! unchanged: no change, so the index and the versions stay as they are.)

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use k8s_openapi::api::core::v1::{Node, Pod, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::pod::get_target_node_name;
use crate::hash::FastMap;

/// One node's pods.
#[derive(Debug, Clone, Default)]
struct Slot {
    /// The places of its pods (in `PodStore::entries`), in name order.
    pods: Vec<usize>,
    /// Moves on every change to the node's pods (unique across the store's life).
    version: u64,
    /// Listed in `PodStore::touched` since the last [`PodStore::take_touched`].
    touched: bool,
}

/// A stored pod: its name, the pod, and the volumes its spec shares with the other
/// pods of its template (then its own `spec.volumes` is `None`).
#[derive(Debug, Clone)]
struct Entry {
    name: String,
    pod: Box<Pod>,
    volumes: Option<Arc<Vec<Volume>>>,
}

impl Entry {
    /// The pod whole: its shared volumes copied back into its spec.
    fn whole(self) -> Pod {
        let mut pod = *self.pod;
        if let (Some(volumes), Some(spec)) = (self.volumes, pod.spec.as_mut()) {
            spec.volumes = Some(Arc::unwrap_or_clone(volumes));
        }
        pod
    }
}

/// The DaemonSet's pods (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct PodStore {
    /// Each stored pod at its place; `None` at a free place.
    entries: Vec<Option<Entry>>,
    /// Free places, reused first.
    free: Vec<usize>,
    /// Pod name → its place.
    by_name: FastMap<String, usize>,
    /// Every place in use, in name order: built by the first read in order after a change.
    order: OnceLock<Vec<usize>>,
    /// Node name → its index in the node list (the first node with that name).
    node_index: FastMap<String, usize>,
    slots: Vec<Slot>,
    /// Places of pods whose target node is not in the node list, by that node's name.
    orphans: BTreeMap<String, Vec<usize>>,
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

/// The entry at place `at`.
fn entry_at(entries: &[Option<Entry>], at: usize) -> Option<&Entry> {
    entries.get(at).and_then(Option::as_ref)
}

/// The name of the pod at place `at` ("" for a free place).
fn name_at(entries: &[Option<Entry>], at: usize) -> &str {
    entry_at(entries, at).map_or("", |e| e.name.as_str())
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
        let places = self.order().to_vec();
        for at in places {
            self.index(at);
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

    /// Every place in use, in name order.
    fn order(&self) -> &[usize] {
        self.order.get_or_init(|| {
            let mut places: Vec<usize> = self.by_name.values().copied().collect();
            places.sort_unstable_by(|&a, &b| name_at(&self.entries, a).cmp(name_at(&self.entries, b)));
            places
        })
    }

    /// Lists the pod at place `at` under its target node.
    fn index(&mut self, at: usize) {
        let Some(entry) = entry_at(&self.entries, at) else { return };
        let list = match Self::place(&self.node_index, &entry.pod) {
            Place::Nowhere => return,
            Place::Node(i) => {
                let Some(slot) = self.slots.get_mut(i) else { return };
                Self::bump(&mut self.clock, &mut self.touched, slot, i);
                &mut slot.pods
            }
            Place::Orphan(node) => self.orphans.entry(node.to_string()).or_default(),
        };
        let name = entry.name.as_str();
        let entries = &self.entries;
        if let Err(k) = list.binary_search_by(|&other| name_at(entries, other).cmp(name)) {
            list.insert(k, at);
        }
    }

    /// Takes the pod at place `at` off its target node's list.
    fn unindex(&mut self, at: usize) {
        let Some(entry) = entry_at(&self.entries, at) else { return };
        match Self::place(&self.node_index, &entry.pod) {
            Place::Nowhere => {}
            Place::Node(i) => {
                if let Some(slot) = self.slots.get_mut(i) {
                    Self::bump(&mut self.clock, &mut self.touched, slot, i);
                    slot.pods.retain(|&other| other != at);
                }
            }
            Place::Orphan(node) => {
                if let Some(list) = self.orphans.get_mut(node) {
                    list.retain(|&other| other != at);
                    if list.is_empty() {
                        let node = node.to_string();
                        self.orphans.remove(&node);
                    }
                }
            }
        }
    }

    /// Adds (or replaces) the pod `name`.
    pub fn insert(&mut self, name: String, pod: Pod) {
        self.insert_entry(Entry { name, pod: Box::new(pod), volumes: None });
    }

    /// Adds (or replaces) the pod `name`, whose spec's volumes are `volumes` (shared
    /// with the other pods of its template; the pod's own `spec.volumes` is dropped):
    /// see the module doc.
    pub fn insert_sharing(&mut self, name: String, mut pod: Pod, volumes: &Arc<Vec<Volume>>) {
        let shared = pod.spec.as_mut().map(|spec| {
            spec.volumes = None;
            Arc::clone(volumes)
        });
        self.insert_entry(Entry { name, pod: Box::new(pod), volumes: shared });
    }

    fn insert_entry(&mut self, entry: Entry) {
        if let Some(&at) = self.by_name.get(&entry.name) {
            self.unindex(at);
            if let Some(slot) = self.entries.get_mut(at) {
                *slot = Some(entry);
            }
            self.index(at);
            return;
        }
        let at = match self.free.pop() {
            Some(at) => at,
            None => {
                self.entries.push(None);
                self.entries.len() - 1
            }
        };
        self.by_name.insert(entry.name.clone(), at);
        if let Some(slot) = self.entries.get_mut(at) {
            *slot = Some(entry);
        }
        self.order = OnceLock::new();
        self.index(at);
    }

    /// Takes the pod `name` out of the store.
    fn take(&mut self, name: &str) -> Option<Entry> {
        let at = *self.by_name.get(name)?;
        self.unindex(at);
        self.by_name.remove(name);
        self.order = OnceLock::new();
        let entry = self.entries.get_mut(at).and_then(Option::take);
        self.free.push(at);
        entry
    }

    /// Removes the pod `name`, returning it whole.
    pub fn remove(&mut self, name: &str) -> Option<Pod> {
        self.take(name).map(Entry::whole)
    }

    /// Removes the pod `name`; whether it was there (no copy of shared volumes made).
    pub fn discard(&mut self, name: &str) -> bool {
        self.take(name).is_some()
    }

    /// Changes the pod `name` with `f`; its node's version moves (and the pod is
    /// re-indexed if its target node changed).
    pub fn update<R>(&mut self, name: &str, f: impl FnOnce(&mut Pod) -> R) -> Option<R> {
        let at = *self.by_name.get(name)?;
        let before = match Self::place(&self.node_index, &entry_at(&self.entries, at)?.pod) {
            Place::Node(i) => Some(i),
            Place::Orphan(_) | Place::Nowhere => None,
        };
        if let Some(i) = before {
            // The common case (a status written, a pod bound to the node it targets):
            // it stays at its node, where it is already listed in order, and only the
            // node's version moves.
            let pod = &mut *self.entries.get_mut(at)?.as_mut()?.pod;
            let out = f(pod);
            let stays = Self::place(&self.node_index, pod) == Place::Node(i);
            if let Some(slot) = self.slots.get_mut(i) {
                Self::bump(&mut self.clock, &mut self.touched, slot, i);
                if !stays {
                    slot.pods.retain(|&other| other != at);
                }
            }
            if !stays {
                self.index(at);
            }
            return Some(out);
        }
        self.unindex(at);
        let out = self.entries.get_mut(at).and_then(Option::as_mut).map(|e| f(&mut e.pod));
        self.index(at);
        out
    }

    /// Lends the pod `name` out by value (a scheduling cycle takes its pod by value),
    /// without a copy and without touching the index: its entry keeps an empty pod
    /// with the same name — no spec, so bound to no node and targeting none — until
    /// [`PodStore::give_back`] returns it. Nothing has changed, so no version moves.
    /// While it is out, readers find that empty pod in the lent pod's place (the
    /// binding pass leaves the pod being scheduled out of its views by name anyway).
    /// The lent pod is the stored one: without shared volumes, which stay here.
    pub fn lend(&mut self, name: &str) -> Option<Pod> {
        let at = *self.by_name.get(name)?;
        let pod = &mut self.entries.get_mut(at)?.as_mut()?.pod;
        let empty = Pod { metadata: ObjectMeta { name: pod.metadata.name.clone(), ..ObjectMeta::default() }, spec: None, status: None };
        Some(std::mem::replace(&mut **pod, empty))
    }

    /// Returns a pod [`PodStore::lend`] lent out, unchanged (it keeps its index entry;
    /// a pod that changed goes through [`PodStore::update`] after).
    pub fn give_back(&mut self, name: &str, pod: Pod) {
        match self.by_name.get(name).and_then(|&at| self.entries.get_mut(at)).and_then(Option::as_mut) {
            Some(entry) => *entry.pod = pod,
            None => self.insert(name.to_string(), pod),
        }
    }

    fn entry(&self, name: &str) -> Option<&Entry> {
        entry_at(&self.entries, *self.by_name.get(name)?)
    }

    /// The pod `name` as stored (shared volumes left out: see the module doc).
    pub fn get(&self, name: &str) -> Option<&Pod> {
        self.entry(name).map(|e| &*e.pod)
    }

    /// The pod `name` whole (a copy, its shared volumes in its spec).
    pub fn pod(&self, name: &str) -> Option<Pod> {
        self.entry(name).cloned().map(Entry::whole)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Every pod, in name order.
    pub fn values(&self) -> impl Iterator<Item = &Pod> + '_ {
        self.iter().map(|(_, p)| p)
    }

    /// Every pod, in no particular order (the table's): for a reader the order does
    /// not matter to, which then sorts nothing after a change.
    pub fn values_any_order(&self) -> impl Iterator<Item = &Pod> + '_ {
        self.entries.iter().flatten().map(|e| &*e.pod)
    }

    /// Every pod with its name, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Pod)> + '_ {
        self.order().iter().filter_map(|&at| entry_at(&self.entries, at)).map(|e| (&e.name, &*e.pod))
    }

    /// The index in the node list of the node named `name`.
    pub fn node_position(&self, name: &str) -> Option<usize> {
        self.node_index.get(name).copied()
    }

    /// The pods whose target is node `i` of the list, in name order.
    pub fn on_node(&self, i: usize) -> impl Iterator<Item = &Pod> + '_ {
        self.slots.get(i).into_iter().flat_map(|s| s.pods.iter()).filter_map(|&at| entry_at(&self.entries, at)).map(|e| &*e.pod)
    }

    /// Where the pod `name` is among node `i`'s pods (name order), if it is there.
    pub fn position_on_node(&self, i: usize, name: &str) -> Option<usize> {
        self.slots.get(i)?.pods.binary_search_by(|&at| name_at(&self.entries, at).cmp(name)).ok()
    }

    /// The name of the `k`-th of node `i`'s pods (name order): read off the index, no
    /// pod looked up. A position stays right until the node's version moves.
    pub fn name_on_node(&self, i: usize, k: usize) -> Option<&str> {
        let at = *self.slots.get(i)?.pods.get(k)?;
        entry_at(&self.entries, at).map(|e| e.name.as_str())
    }

    /// The version of node `i`'s pods (0 for a node not in the list).
    pub fn version(&self, i: usize) -> u64 {
        self.slots.get(i).map_or(0, |s| s.version)
    }

    /// Pods whose target node is not in the list, by node name (in name order).
    pub fn orphans(&self) -> impl Iterator<Item = (&str, Vec<&Pod>)> + '_ {
        self.orphans
            .iter()
            .map(|(node, places)| (node.as_str(), places.iter().filter_map(|&at| entry_at(&self.entries, at)).map(|e| &*e.pod).collect()))
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

    /// A pod stored with shared volumes reads without them, and comes back whole from
    /// `pod` and `remove`, through updates and a lend.
    #[test]
    fn shared_volumes_are_kept_once_and_given_back_whole() {
        use k8s_openapi::api::core::v1::HostPathVolumeSource;
        let volume = Volume { name: "v".into(), host_path: Some(HostPathVolumeSource { path: "/x".into(), type_: None }), ..Volume::default() };
        let volumes = Arc::new(vec![volume]);
        let mut whole = pod("p", Some("a"));
        if let Some(spec) = whole.spec.as_mut() {
            spec.volumes = Some(volumes.to_vec());
        }
        let mut s = PodStore::new(&[node("a")]);
        s.insert_sharing("p".into(), whole.clone(), &volumes);
        s.insert_sharing("q".into(), pod("q", Some("a")), &volumes);
        assert_eq!(Arc::strong_count(&volumes), 3);
        assert!(s.get("p").and_then(|p| p.spec.as_ref()).is_some_and(|spec| spec.volumes.is_none()));
        assert_eq!(s.pod("p").as_ref(), Some(&whole));
        let lent = s.lend("p");
        if let Some(p) = lent {
            s.give_back("p", p);
        }
        s.update("p", |p| p.status = Some(Default::default()));
        whole.status = Some(Default::default());
        assert_eq!(s.remove("p"), Some(whole));
        assert!(s.discard("q") && !s.discard("q"));
        assert_eq!(Arc::strong_count(&volumes), 1);
    }
}
