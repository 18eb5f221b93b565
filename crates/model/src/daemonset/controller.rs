//! The DaemonSet controller's sync (`syncDaemonSet` in `daemon_controller.go`) for one
//! DaemonSet, stepped by the caller: construct the revision history, `manage` (create
//! pods on nodes that should run one and have none, delete surplus, failed and
//! misscheduled pods), `rollingUpdate`, `cleanupHistory`, `updateDaemonSetStatus`.
//!
//! **Architecture Invariant:** pure and deterministic. The clock is `now` (unix seconds),
//! set by the caller; the two things upstream leaves to chance — the order `rollingUpdate`
//! visits nodes in (Go map order) and the 5-character pod name suffix — come from
//! [`NodeOrder`] and a seeded generator.
//!
//! Pod creations and deletions take effect in the store at once and are observed at
//! once, as with the fake pod control of upstream's unit tests; so the controller's
//! expectations are always satisfied, `rollingUpdate` runs in every sync (after
//! `manage`, on the pods `manage` left), and `observedGeneration` follows `generation`.
//!
//! A sync costs the pods it touches, not the cluster: the pods are indexed by target
//! node ([`PodStore`]), and what a look at a node's pods found — what `manage` does
//! there, `findUpdatedPodsOnNode`'s verdict, the node's part of the status — is kept
//! and summed up in a [`Tally`] (the nodes each pass visits, the counts and the status
//! sums of the others). A sync looks again only at the nodes whose pods changed since
//! (the store lists them: [`PodStore::take_touched`]), taking each one's old part out
//! of the tally and putting its new part in; a change of the revision, the template
//! generation, the clock under minReadySeconds or the nodes computes every node again.
//! What is left per sync beyond the pods it touches: the rank of each old available
//! pod's node when rollingUpdate may pick some (SplitMix64 draws are computed
//! directly, not in turn), a sort of the nodes rollingUpdate's decision names (by
//! rank; walked on their kept verdicts, no pod read), and with maxSurge a walk over
//! every node.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, DaemonSetStatus};
use k8s_openapi::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, PodStatus, Volume,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde::Serialize;

use crate::kubernetes::events::{reason, EventLog, DAEMONSET_CONTROLLER};
use crate::kubernetes::time;
use crate::hash::FastMap;
use super::pod::{
    get_target_node_name, is_pod_available, is_pod_ready, is_pod_terminal, is_pod_updated, pod_by_creation_timestamp_and_phase,
    pod_label, pod_name, pod_phase, CONTROLLER_REVISION_HASH_LABEL, DEPRECATED_TEMPLATE_GENERATION_ANNOTATION,
    POD_TEMPLATE_GENERATION_LABEL,
};
use super::predicates::{add_or_update_daemon_pod_tolerations, DaemonPodPredicates, NODE_FIELD_SELECTOR_KEY_NODE_NAME};
use super::rng::SplitMix64;
use super::store::PodStore;
use super::update::{
    allows_surge, cleanup_history, construct_history, desired_node_counts, find_updated_pods_on_node, min_ready_seconds, rolling_update,
    strategy_type, RollingUpdateDecision, RollingUpdateInput,
};

/// `BurstReplicas`: at most this many creations and deletions per sync.
pub const BURST_REPLICAS: usize = 250;
/// `controller.SlowStartInitialBatchSize`.
const SLOW_START_INITIAL_BATCH_SIZE: usize = 1;

/// The order `rollingUpdate` visits nodes in. Upstream ranges over a Go map, so the
/// order is random on every sync; which node's turn comes first decides which of the
/// two `rollout status` messages a stalled rollout shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeOrder {
    /// The node list's order (nodes not in the list last, by name).
    Listed,
    /// A new seeded shuffle on every sync, like Go's randomised map iteration.
    Seeded(u64),
    /// These nodes first, in this order, then the rest in list order: pins one of the
    /// orders Go may pick (e.g. "the broken node's turn comes first").
    Fixed(Vec<String>),
}

/// The pod admission the lab models when the controller creates a pod.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Admission {
    /// RuntimeClass names that exist; `None` skips the RuntimeClass admission plugin
    /// (upstream's unit tests have no API server).
    pub runtime_classes: Option<BTreeSet<String>>,
}

/// What one sync did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncResult {
    /// 1-based sync number.
    pub sync: u64,
    pub now: i64,
    /// The current revision's `controller-revision-hash`.
    pub hash: String,
    /// Pods created, `(pod, node)`.
    pub created: Vec<(String, String)>,
    /// Creations the API server refused, `(node, error)`.
    pub failed_creates: Vec<(String, String)>,
    /// Pods deleted, `(pod, node)`.
    pub deleted: Vec<(String, String)>,
    /// Events the controller itself recorded this sync (not the pod control's
    /// SuccessfulCreate/SuccessfulDelete/FailedCreate) — what upstream's tests count.
    pub controller_events: usize,
    /// The rolling-update decision, when the strategy is RollingUpdate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdateDecision>,
    /// An error `syncDaemonSet` returned (e.g. an invalid maxUnavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub status: DaemonSetStatus,
}

impl SyncResult {
    /// Pod creations attempted (what upstream's fake pod control counts).
    pub fn creates(&self) -> usize {
        self.created.len() + self.failed_creates.len()
    }
}

/// One DaemonSet's controller with its informer caches (nodes, pods, revisions).
#[derive(Debug, Clone)]
pub struct DaemonSetsController {
    pub ds: DaemonSet,
    /// The node lister's contents, in list order (changed through
    /// [`DaemonSetsController::update_nodes`], which keeps the pod index right);
    /// shared with the binding pass's per-node scheduler views, never copied.
    nodes: Vec<Arc<Node>>,
    /// The DaemonSet's pods by name, indexed by target node.
    pub pods: PodStore,
    pub revisions: Vec<ControllerRevision>,
    pub events: EventLog,
    /// The controller's clock, unix seconds.
    pub now: i64,
    pub node_order: NodeOrder,
    pub burst_replicas: usize,
    pub admission: Admission,
    rng: SplitMix64,
    syncs: u64,
    /// Events the controller recorded itself (see [`SyncResult::controller_events`]).
    own_events: usize,
    cache: SyncCache,
    /// Moves on every [`DaemonSetsController::update_nodes`].
    nodes_version: u64,
}

impl DaemonSetsController {
    /// A controller for `ds` over `nodes`; `seed` drives pod names and, with
    /// [`NodeOrder::Seeded`], the node order.
    pub fn new(ds: DaemonSet, nodes: Vec<Node>, node_order: NodeOrder, seed: u64) -> Self {
        let rng_seed = match node_order {
            NodeOrder::Seeded(s) => s ^ seed.rotate_left(32),
            NodeOrder::Listed | NodeOrder::Fixed(_) => seed,
        };
        let nodes = shared_nodes(nodes);
        DaemonSetsController {
            ds,
            pods: PodStore::new(&nodes),
            nodes,
            revisions: Vec::new(),
            events: EventLog::default(),
            now: 0,
            node_order,
            burst_replicas: BURST_REPLICAS,
            admission: Admission::default(),
            rng: SplitMix64::new(rng_seed),
            syncs: 0,
            own_events: 0,
            cache: SyncCache::default(),
            nodes_version: 0,
        }
    }

    /// The node lister's contents, in list order.
    pub fn nodes(&self) -> &[Arc<Node>] {
        &self.nodes
    }

    /// Changes the nodes (a taint, a label, a node added or gone): the pod index is
    /// rebuilt and every per-node verdict computed again at the next sync.
    pub fn update_nodes(&mut self, f: impl FnOnce(&mut Vec<Node>)) {
        let mut nodes: Vec<Node> = self.nodes.iter().map(|n| Node::clone(n)).collect();
        f(&mut nodes);
        self.nodes = shared_nodes(nodes);
        self.pods.set_nodes(&self.nodes);
        self.cache = SyncCache::default();
        self.nodes_version += 1;
    }

    /// Moves whenever the nodes may have changed ([`DaemonSetsController::update_nodes`]):
    /// what is kept per node is valid for one version.
    pub fn nodes_version(&self) -> u64 {
        self.nodes_version
    }

    pub fn name(&self) -> &str {
        self.ds.metadata.name.as_deref().unwrap_or("")
    }

    /// `util.GetTemplateGeneration`: the deprecated annotation the API server keeps.
    pub fn template_generation(&self) -> Option<i64> {
        self.ds
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(DEPRECATED_TEMPLATE_GENERATION_ANNOTATION))
            .and_then(|g| g.parse().ok())
    }

    /// The current revision's hash (creating the revision if needed).
    pub fn current_hash(&mut self) -> String {
        construct_history(&self.ds, &mut self.revisions)
    }

    /// `(shouldRun, shouldContinueRunning)` for every node, in list order.
    pub fn should_run_table(&self) -> Vec<(bool, bool)> {
        let predicates = DaemonPodPredicates::new(&self.ds);
        self.nodes.iter().map(|n| predicates.node_should_run_daemon_pod(n)).collect()
    }

    /// One `syncDaemonSet`.
    pub fn sync(&mut self) -> SyncResult {
        self.syncs += 1;
        let mut result = SyncResult { sync: self.syncs, now: self.now, ..SyncResult::default() };
        let events_before = self.own_events;
        let selects_all = self
            .ds
            .spec
            .as_ref()
            .is_some_and(|s| s.selector.match_labels.as_ref().is_none_or(|m| m.is_empty()) && s.selector.match_expressions.as_ref().is_none_or(|m| m.is_empty()));
        if selects_all {
            let object = format!("DaemonSet/{}", self.name());
            self.events.record(self.now, object, DAEMONSET_CONTROLLER, "Warning", reason::SELECTING_ALL,
                "This daemon set is selecting all pods. A non-empty selector is required.".into());
            self.own_events += 1;
            result.controller_events = self.own_events - events_before;
            result.status = self.ds.status.clone().unwrap_or_default();
            return result;
        }
        let hash = construct_history(&self.ds, &mut self.revisions);
        result.hash = hash.clone();
        self.refresh_should();
        self.refresh_key(&hash);
        // Taken out for the sync (the methods below need `&mut self`), put back after.
        let should = std::mem::take(&mut self.cache.should);

        let (to_delete, to_create) = self.manage_plan(&should);
        self.sync_nodes(&to_delete, &to_create, &hash, &mut result);

        if strategy_type(&self.ds) == "RollingUpdate" {
            match self.rolling_update_plan(&should, &hash) {
                Ok(decision) => {
                    self.sync_nodes(&decision.old_pods_to_delete, &decision.new_nodes_to_create, &hash, &mut result);
                    result.rolling_update = Some(decision);
                }
                Err(e) => result.error = Some(format!("couldn't get unavailable numbers: {e}")),
            }
        }
        // The live revisions are a set: any order (a sync sorts no pod names).
        cleanup_history(&self.ds, &hash, &mut self.revisions, self.pods.values_any_order());
        result.status = self.update_daemon_set_status(&should);
        self.cache.should = should;
        result.controller_events = self.own_events - events_before;
        result
    }

    /// The pods of node `i` as `getNodesToDaemonPods(ds, includeDeletedTerminal=false)`
    /// lists them: terminal pods being deleted left out, in store (name) order.
    fn node_pods(&self, i: usize) -> Vec<&Pod> {
        self.pods.on_node(i).filter(|p| listed(p)).collect()
    }

    /// The same for the pods whose target node is not in the list, by node name
    /// (nodes left with no pod left out).
    fn orphan_pods(&self) -> Vec<(&str, Vec<&Pod>)> {
        self.pods
            .orphans()
            .map(|(node, pods)| (node, pods.into_iter().filter(|p| listed(p)).collect::<Vec<_>>()))
            .filter(|(_, pods)| !pods.is_empty())
            .collect()
    }

    /// The should-run table for the current template, computed again only when the
    /// template's pod spec (all the predicates read) differs from the last one's.
    fn refresh_should(&mut self) {
        let spec = self.ds.spec.as_ref().and_then(|s| s.template.spec.as_ref());
        if self.cache.should_for.as_ref().is_some_and(|cached| cached.as_ref() == spec) && self.cache.should.len() == self.nodes.len() {
            return;
        }
        self.cache.should_for = Some(spec.cloned());
        self.cache.should = self.should_run_table();
        self.cache.key = None;
    }

    /// What the per-node verdicts are computed against; a change drops them all.
    fn refresh_key(&mut self, hash: &str) {
        let min_ready = min_ready_seconds(&self.ds);
        let surge = allows_surge(&self.ds);
        let key = VerdictKey {
            hash: hash.to_string(),
            generation: self.template_generation(),
            min_ready,
            // Availability reads the clock only with minReadySeconds.
            now: (min_ready > 0).then_some(self.now),
            surge,
        };
        if self.cache.key.as_ref() != Some(&key) {
            self.cache.key = Some(key);
            self.cache.epoch += 1;
        }
    }

    /// Node `i`'s verdicts, from its pods and the key.
    fn compute_verdict(&self, i: usize, should: (bool, bool)) -> NodeVerdict {
        let Some(key) = self.cache.key.as_ref() else { return NodeVerdict::default() };
        let pods = self.node_pods(i);
        let name = self.nodes.get(i).and_then(|n| n.metadata.name.as_deref()).unwrap_or("");
        let class = UpdateClass::of(&pods, key, self.now);
        let old_pod = match class {
            UpdateClass::Old { .. } => UpdateClass::old_pod(&pods, key).and_then(|p| self.pods.position_on_node(i, pod_name(p))),
            _ => None,
        };
        NodeVerdict {
            manage: manage_node(name, &pods, should, key, self.now).kind(),
            has_pods: !pods.is_empty(),
            class,
            old_pod,
            status: StatusContrib::of(&pods, key, self.now),
        }
    }

    /// Brings the per-node verdicts and their [`Tally`] up to date: every node when the
    /// key, the should-run table or the nodes changed since the last time, else only
    /// the nodes whose pods changed since ([`PodStore::take_touched`]), each one's old
    /// part of the tally taken out and its new part put in.
    fn refresh_verdicts(&mut self, should: &[(bool, bool)]) {
        let touched = self.pods.take_touched();
        let epoch = self.cache.epoch;
        if self.cache.tally_epoch != Some(epoch) || self.cache.nodes.len() != should.len() {
            let nodes: Vec<NodeVerdict> = should.iter().enumerate().map(|(i, &s)| self.compute_verdict(i, s)).collect();
            let mut tally = Tally::default();
            for (i, (v, &s)) in nodes.iter().zip(should).enumerate() {
                tally.apply(i, s, v, true);
            }
            self.cache.nodes = nodes;
            self.cache.tally = tally;
            self.cache.tally_epoch = Some(epoch);
        } else {
            for i in touched {
                let (Some(&s), Some(&old)) = (should.get(i), self.cache.nodes.get(i)) else { continue };
                let new = self.compute_verdict(i, s);
                self.cache.tally.apply(i, s, &old, false);
                self.cache.tally.apply(i, s, &new, true);
                if let Some(slot) = self.cache.nodes.get_mut(i) {
                    *slot = new;
                }
            }
        }
        #[cfg(test)]
        self.check_tally(should);
    }

    /// The verdicts and the tally kept incrementally equal those computed afresh on
    /// every node.
    #[cfg(test)]
    fn check_tally(&self, should: &[(bool, bool)]) {
        let nodes: Vec<NodeVerdict> = should.iter().enumerate().map(|(i, &s)| self.compute_verdict(i, s)).collect();
        let mut tally = Tally::default();
        for (i, (v, &s)) in nodes.iter().zip(should).enumerate() {
            tally.apply(i, s, v, true);
        }
        assert_eq!(nodes, self.cache.nodes, "sync {}: verdicts", self.syncs);
        assert_eq!(tally, self.cache.tally, "sync {}: tally", self.syncs);
    }

    /// `manage` + `podsShouldBeOnNode` + `getUnscheduledPodsWithoutNode`: what to delete
    /// and which nodes need a pod. Failed-pod deletion is not rate-limited here
    /// (upstream backs off per node). Only the nodes where the tally says there is
    /// something to do are looked at: those where `manage` deletes or records an event,
    /// and the first `burstReplicas` of those that only need a pod.
    fn manage_plan(&mut self, should: &[(bool, bool)]) -> (Vec<String>, Vec<String>) {
        self.refresh_verdicts(should);
        let mut needing: Vec<usize> = Vec::new();
        let mut to_delete = Vec::new();
        let mut failed_events = Vec::new();
        if let Some(key) = self.cache.key.as_ref() {
            for &i in &self.cache.tally.busy {
                let s = should.get(i).copied().unwrap_or_default();
                let name = self.nodes.get(i).and_then(|n| n.metadata.name.as_deref()).unwrap_or("");
                let m = manage_node(name, &self.node_pods(i), s, key, self.now);
                if m.needs_pod {
                    needing.push(i);
                }
                to_delete.extend(m.delete);
                failed_events.extend(m.events);
            }
        }
        // `syncNodes` creates for the first `burstReplicas` of them (in list order) only;
        // the two sets are disjoint.
        needing.extend(self.cache.tally.needing.iter().take(self.burst_replicas));
        needing.sort_unstable();
        needing.truncate(self.burst_replicas);
        let nodes_needing: Vec<String> =
            needing.iter().map(|&i| self.nodes.get(i).and_then(|n| n.metadata.name.as_deref()).unwrap_or("").to_string()).collect();
        // Unscheduled pods whose target node no longer exists.
        for (_, pods) in self.orphan_pods() {
            to_delete.extend(pods.iter().filter(|p| super::pod::pod_node_name(p).is_empty()).map(|p| pod_name(p).to_string()));
        }
        let object = format!("DaemonSet/{}", self.name());
        for (type_, why, message) in failed_events {
            self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, type_, why, message);
            self.own_events += 1;
        }
        (to_delete, nodes_needing)
    }

    /// The rank of node `i` in this sync's visiting order ([`NodeOrder`]); with a
    /// seeded order, node `i` takes the `i`-th draw after `base`.
    fn rank(&self, base: &SplitMix64, fixed: &FastMap<&str, u64>, i: usize) -> u64 {
        match self.node_order {
            NodeOrder::Listed => i as u64,
            NodeOrder::Seeded(_) => base.peek(i as u64) >> 1,
            NodeOrder::Fixed(_) => {
                let name = self.nodes.get(i).and_then(|n| n.metadata.name.as_deref()).unwrap_or("");
                fixed.get(name).copied().unwrap_or(fixed.len() as u64 + i as u64)
            }
        }
    }

    /// `rollingUpdate` over the nodes in this sync's order (a new seeded shuffle every
    /// sync, drawn one number per node). With maxSurge 0 — the common case — a node
    /// whose new pod is available changes nothing, a node with no pod (or two of a
    /// kind, or old and new) only counts as unavailable, and of the old available pods only
    /// the first `maxUnavailable − numUnavailable` in that order can be picked: those
    /// are found by selection, not by sorting every node, and the others are counted
    /// as waiting; the nodes left are walked on their kept verdicts (an old pod named
    /// off the store's index), no pod read, and sorted by rank with names compared only
    /// between equal ranks. The decision is the one [`rolling_update`] makes on every
    /// node.
    fn rolling_update_plan(&mut self, should: &[(bool, bool)], hash: &str) -> Result<RollingUpdateDecision, String> {
        // The draws are made (skipped past) even when the counts are invalid.
        let base = self.rng.clone();
        if matches!(self.node_order, NodeOrder::Seeded(_)) {
            self.rng.skip(self.nodes.len() as u64);
        }
        self.refresh_verdicts(should);
        let desired = usize::try_from(self.cache.tally.desired).unwrap_or(0);
        let counts = desired_node_counts(&self.ds, desired)?;
        let fixed: FastMap<&str, u64> = match &self.node_order {
            NodeOrder::Fixed(names) => names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u64)).collect(),
            _ => FastMap::default(),
        };
        // (rank, node index or orphan index) of the nodes to visit.
        let mut visit: Vec<(u64, Visit)> = Vec::new();
        // Ranked only when some of them can be picked.
        let mut old_available: Vec<Visit> = Vec::new();
        let mut num_unavailable = 0usize;
        // Nodes maxSurge 0 only counts as unavailable (no pod, two of a kind, old and
        // new): counted here, not visited.
        let mut counted_only = 0usize;
        let full = counts.max_surge > 0;
        if full {
            for (i, (v, &s)) in self.cache.nodes.iter().zip(should).enumerate() {
                if s.0 || v.has_pods {
                    visit.push((self.rank(&base, &fixed, i), Visit::Node(i)));
                }
            }
        } else {
            // The tally's sets, in list order (as a walk over every node would push them).
            let tally = &self.cache.tally;
            visit.extend(tally.visit.iter().map(|&i| (self.rank(&base, &fixed, i), Visit::Node(i))));
            num_unavailable += tally.visit.len();
            counted_only += tally.counted_only;
            old_available.extend(tally.old_available.iter().map(|&i| Visit::Node(i)));
        }
        let key = self.cache.key.clone().unwrap_or_default();
        let orphans = self.orphan_pods();
        let orphan_classes: Vec<UpdateClass> = orphans.iter().map(|(_, pods)| UpdateClass::of(pods, &key, self.now)).collect();
        for (o, &class) in orphan_classes.iter().enumerate() {
            match class {
                _ if full => visit.push((u64::MAX, Visit::Orphan(o))),
                UpdateClass::New { available: true } => {}
                UpdateClass::Old { available: true } => old_available.push(Visit::Orphan(o)),
                UpdateClass::Conflict | UpdateClass::Empty | UpdateClass::Both => counted_only += 1,
                class => {
                    num_unavailable += usize::from(class.counts_unavailable());
                    visit.push((u64::MAX, Visit::Orphan(o)));
                }
            }
        }
        let name_of = |v: &Visit| -> &str {
            match *v {
                Visit::Node(i) => self.nodes.get(i).and_then(|n| n.metadata.name.as_deref()).unwrap_or(""),
                Visit::Orphan(o) => orphans.get(o).map_or("", |(n, _)| n),
            }
        };
        // By rank, then name: the names are read only for equal ranks.
        let order = |a: &(u64, Visit), b: &(u64, Visit)| a.0.cmp(&b.0).then_with(|| name_of(&a.1).cmp(name_of(&b.1)));
        let all_old_available = old_available.len();
        let take = counts.max_unavailable.saturating_sub(num_unavailable + counted_only).min(old_available.len());
        if take > 0 {
            let rank = |v: Visit| match v {
                Visit::Node(i) => self.rank(&base, &fixed, i),
                Visit::Orphan(_) => u64::MAX,
            };
            let mut ranked: Vec<(u64, Visit)> = old_available.into_iter().map(|v| (rank(v), v)).collect();
            if take < ranked.len() {
                ranked.select_nth_unstable_by(take - 1, order);
                ranked.truncate(take);
            }
            visit.extend(ranked);
        }
        visit.sort_unstable_by(order);
        if !full {
            // `rollingUpdate`'s maxSurge-0 walk over the visited nodes, on their kept
            // verdicts: no pod is read, an old pod's name comes off the store's index.
            let class_of = |v: Visit| -> (UpdateClass, &str) {
                match v {
                    Visit::Node(i) => {
                        let verdict = self.cache.nodes.get(i).copied().unwrap_or_default();
                        (verdict.class, verdict.old_pod.and_then(|k| self.pods.name_on_node(i, k)).unwrap_or(""))
                    }
                    Visit::Orphan(o) => {
                        let class = orphan_classes.get(o).copied().unwrap_or_default();
                        let old = match class {
                            UpdateClass::Old { .. } => orphans.get(o).and_then(|(_, pods)| UpdateClass::old_pod(pods, &key)).map_or("", pod_name),
                            _ => "",
                        };
                        (class, old)
                    }
                }
            };
            let mut decision = RollingUpdateDecision {
                max_surge: counts.max_surge,
                max_unavailable: counts.max_unavailable,
                desired_number_scheduled: counts.desired_number_scheduled,
                ..Default::default()
            };
            let mut allowed_replacement_pods = Vec::new();
            let mut candidate_pods_to_delete = Vec::new();
            for &(_, v) in &visit {
                match class_of(v) {
                    (UpdateClass::New { available: true }, _) => {}
                    (UpdateClass::New { available: false }, _) => {
                        decision.num_unavailable += 1;
                        decision.unavailable_new_pod_nodes.push(name_of(&v).to_string());
                    }
                    (UpdateClass::Old { available: false }, old) => {
                        allowed_replacement_pods.push(old.to_string());
                        decision.num_unavailable += 1;
                    }
                    (UpdateClass::Old { available: true }, old) => {
                        if decision.num_unavailable >= counts.max_unavailable {
                            decision.waiting_candidates += 1;
                        } else {
                            candidate_pods_to_delete.push(old.to_string());
                        }
                    }
                    (UpdateClass::Conflict | UpdateClass::Empty | UpdateClass::Both, _) => decision.num_unavailable += 1,
                }
            }
            let remaining =
                counts.max_unavailable.saturating_sub(decision.num_unavailable).min(candidate_pods_to_delete.len());
            decision.waiting_candidates += candidate_pods_to_delete.len() - remaining;
            candidate_pods_to_delete.truncate(remaining);
            allowed_replacement_pods.extend(candidate_pods_to_delete);
            decision.old_pods_to_delete = allowed_replacement_pods;
            decision.num_unavailable += counted_only;
            decision.waiting_candidates += all_old_available - take.min(all_old_available);
            #[cfg(test)]
            assert_eq!(decision, self.reference_rolling_update(should, hash, counts, &base, &fixed), "sync {}", self.syncs);
            return Ok(decision);
        }
        let lists: Vec<Vec<&Pod>> = visit
            .iter()
            .map(|(_, v)| match *v {
                Visit::Node(i) => self.node_pods(i),
                Visit::Orphan(o) => orphans.get(o).map(|(_, p)| p.clone()).unwrap_or_default(),
            })
            .collect();
        let should_run: FastMap<&str, bool> =
            if full { self.nodes.iter().zip(should).map(|(n, &(run, _))| (n.metadata.name.as_deref().unwrap_or(""), run)).collect() } else { FastMap::default() };
        let lookup = |n: &str| should_run.get(n).copied().unwrap_or(false);
        let input = RollingUpdateInput {
            ds: &self.ds,
            hash,
            generation: self.template_generation(),
            now: self.now,
            counts,
            node_to_daemon_pods: visit.iter().zip(&lists).map(|((_, v), pods)| (name_of(v), pods.as_slice())).collect(),
            should_run: &lookup,
        };
        let mut decision = rolling_update(&input);
        decision.num_unavailable += counted_only;
        decision.waiting_candidates += all_old_available - take.min(all_old_available);
        #[cfg(test)]
        assert_eq!(decision, self.reference_rolling_update(should, hash, counts, &base, &fixed), "sync {}", self.syncs);
        Ok(decision)
    }

    /// `rollingUpdate` on every node, sorted by rank: what the plan above must equal.
    #[cfg(test)]
    fn reference_rolling_update(
        &self,
        should: &[(bool, bool)],
        hash: &str,
        counts: super::update::DesiredNodeCounts,
        base: &SplitMix64,
        fixed: &FastMap<&str, u64>,
    ) -> RollingUpdateDecision {
        let lists: Vec<Vec<&Pod>> = (0..self.nodes.len()).map(|i| self.node_pods(i)).collect();
        let orphans = self.orphan_pods();
        let mut ranked: Vec<(u64, &str, &[&Pod])> = Vec::new();
        for (i, (node, &(run, _))) in self.nodes.iter().zip(should).enumerate() {
            let pods = lists.get(i).map_or(&[][..], Vec::as_slice);
            if run || !pods.is_empty() {
                ranked.push((self.rank(base, fixed, i), node.metadata.name.as_deref().unwrap_or(""), pods));
            }
        }
        for (node, pods) in &orphans {
            ranked.push((u64::MAX, node, pods.as_slice()));
        }
        ranked.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let should_run: FastMap<&str, bool> =
            self.nodes.iter().zip(should).map(|(n, &(run, _))| (n.metadata.name.as_deref().unwrap_or(""), run)).collect();
        let lookup = |n: &str| should_run.get(n).copied().unwrap_or(false);
        rolling_update(&RollingUpdateInput {
            ds: &self.ds,
            hash,
            generation: self.template_generation(),
            now: self.now,
            counts,
            node_to_daemon_pods: ranked.into_iter().map(|(_, k, v)| (k, v)).collect(),
            should_run: &lookup,
        })
    }

    /// `syncNodes`: deletes, then creates in slow-start batches (1, 2, 4, …) that stop
    /// after a batch with a failure; both capped at `burst_replicas`.
    fn sync_nodes(&mut self, to_delete: &[String], to_create: &[String], hash: &str, result: &mut SyncResult) {
        let create_diff = to_create.len().min(self.burst_replicas);
        let delete_diff = to_delete.len().min(self.burst_replicas);
        let mut template = self.create_pod_template(hash);
        // The template's volumes are kept once for the pods of this sync (see `PodStore`).
        let volumes = template.spec.as_mut().and_then(|s| s.volumes.take()).map(Arc::new);
        let object = format!("DaemonSet/{}", self.name());
        let mut pos = 0;
        let mut batch = create_diff.min(SLOW_START_INITIAL_BATCH_SIZE);
        while pos < create_diff {
            let mut failed = false;
            for node in to_create.iter().skip(pos).take(batch) {
                match self.create_pod(&template, volumes.as_ref(), node) {
                    Ok(name) => {
                        self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, "Normal", reason::SUCCESSFUL_CREATE, ["Created pod: ", &name].concat());
                        result.created.push((name, node.clone()));
                    }
                    Err(e) => {
                        failed = true;
                        self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, "Warning", reason::FAILED_CREATE, format!("Error creating: {e}"));
                        result.failed_creates.push((node.clone(), e));
                    }
                }
            }
            if failed && create_diff > pos + batch {
                break;
            }
            let next_pos = pos + batch;
            batch = (2 * batch).min(create_diff - next_pos);
            pos = next_pos;
        }
        for name in to_delete.iter().take(delete_diff) {
            let Some(node) = self.pods.get(name).map(|pod| get_target_node_name(pod).unwrap_or("").to_string()) else { continue };
            self.pods.discard(name);
            self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, "Normal", reason::SUCCESSFUL_DELETE, ["Deleted pod: ", name.as_str()].concat());
            result.deleted.push((name.clone(), node));
        }
    }

    /// `util.CreatePodTemplate` + `GetPodFromTemplate`: the template with the daemon
    /// tolerations, the hash and generation labels, generateName and the controller ref.
    fn create_pod_template(&self, hash: &str) -> Pod {
        let template = self.ds.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
        let mut pod = Pod { metadata: template.metadata.unwrap_or_default(), spec: template.spec, status: None };
        let spec = pod.spec.get_or_insert_with(Default::default);
        add_or_update_daemon_pod_tolerations(spec);
        let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
        if let Some(generation) = self.template_generation() {
            labels.insert(POD_TEMPLATE_GENERATION_LABEL.into(), generation.to_string());
        }
        if !hash.is_empty() {
            labels.insert(CONTROLLER_REVISION_HASH_LABEL.into(), hash.into());
        }
        pod.metadata.name = None;
        pod.metadata.generate_name = Some(format!("{}-", self.name()));
        pod.metadata.namespace = self.ds.metadata.namespace.clone();
        pod.metadata.owner_references = Some(vec![OwnerReference {
            api_version: "apps/v1".into(),
            kind: "DaemonSet".into(),
            name: self.name().to_string(),
            uid: self.ds.metadata.uid.clone().unwrap_or_default(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]);
        pod
    }

    /// Admission and creation of one pod for `node`; its name on success, the API
    /// error text otherwise. `volumes`: the template's, taken out of `template` and
    /// shared by the pods created from it.
    fn create_pod(&mut self, template: &Pod, volumes: Option<&Arc<Vec<Volume>>>, node: &str) -> Result<String, String> {
        let mut pod = template.clone();
        let generate_name = pod.metadata.generate_name.clone().unwrap_or_default();
        if let (Some(known), Some(rc)) = (
            &self.admission.runtime_classes,
            pod.spec.as_ref().and_then(|s| s.runtime_class_name.as_deref()),
        ) {
            if !known.contains(rc) {
                return Err(format!("pods {generate_name:?} is forbidden: pod rejected: RuntimeClass {rc:?} not found"));
            }
        }
        if let Some(spec) = pod.spec.as_mut() {
            spec.affinity = Some(replace_daemon_set_pod_node_name_node_affinity(spec.affinity.take(), node));
        }
        let name = loop {
            let candidate = [generate_name.as_str(), &self.rng.name_suffix()].concat();
            if !self.pods.contains_key(&candidate) {
                break candidate;
            }
        };
        pod.metadata.name = Some(name.clone());
        pod.metadata.creation_timestamp = Some(time(self.now));
        pod.status = Some(PodStatus { phase: Some("Pending".into()), ..PodStatus::default() });
        match volumes {
            Some(volumes) => self.pods.insert_sharing(name.clone(), pod, volumes),
            None => self.pods.insert(name.clone(), pod),
        }
        Ok(name)
    }

    /// Sets Ready to `ready` (transition time `now`) on up to `count` live pods whose
    /// readiness differs and that `filter` accepts, in store order; returns how many
    /// were changed. (The readiness half of the kubelet, and upstream's test helper
    /// `setPodReadiness`.)
    pub fn set_pod_readiness(&mut self, ready: bool, count: usize, filter: impl Fn(&Pod) -> bool) -> usize {
        let now = self.now;
        let mut changed = 0;
        let names: Vec<String> = self.pods.iter().map(|(n, _)| n.clone()).collect();
        for name in names {
            if changed == count {
                break;
            }
            let Some(pod) = self.pods.get(&name) else { continue };
            if pod.metadata.deletion_timestamp.is_some() || is_pod_ready(pod) == ready || !filter(pod) {
                continue;
            }
            self.pods.update(&name, |pod| crate::kubernetes::kubelet::set_pod_ready(pod, ready, now));
            changed += 1;
        }
        changed
    }

    /// `updateDaemonSetStatus` + `storeDaemonSetStatus` (with `updateObservedGen`),
    /// summed from the per-node verdicts (the tally's sums).
    fn update_daemon_set_status(&mut self, should: &[(bool, bool)]) -> DaemonSetStatus {
        self.refresh_verdicts(should);
        let Tally { desired, current, misscheduled, ready, updated, available, .. } = self.cache.tally;
        let nz = |v: i32| (v != 0).then_some(v);
        let previous = self.ds.status.clone().unwrap_or_default();
        let status = DaemonSetStatus {
            collision_count: previous.collision_count,
            conditions: previous.conditions,
            current_number_scheduled: current,
            desired_number_scheduled: desired,
            number_available: nz(available),
            number_misscheduled: misscheduled,
            number_ready: ready,
            number_unavailable: nz(desired - available),
            observed_generation: self.ds.metadata.generation.or(previous.observed_generation),
            updated_number_scheduled: nz(updated),
        };
        self.ds.status = Some(status.clone());
        status
    }
}

/// The node list held shared. Collected into a new vector: `collect` of
/// `into_iter().map(Arc::new)` reuses the `Vec<Node>`'s buffer in place and keeps
/// all of it (about 1.5 KB a Node for an 8-byte pointer: 30 MB at 20,000 nodes, held
/// for the rollout's life).
fn shared_nodes(nodes: Vec<Node>) -> Vec<Arc<Node>> {
    let mut shared = Vec::with_capacity(nodes.len());
    shared.extend(nodes.into_iter().map(Arc::new));
    shared
}

/// Whether `getNodesToDaemonPods(ds, includeDeletedTerminal=false)` lists the pod:
/// all but terminal pods being deleted.
fn listed(pod: &Pod) -> bool {
    !(is_pod_terminal(pod) && pod.metadata.deletion_timestamp.is_some())
}

/// A node to visit in `rollingUpdate`: of the node list, or an orphan (a target node
/// not in the list) by its index among them.
#[derive(Debug, Clone, Copy)]
enum Visit {
    Node(usize),
    Orphan(usize),
}

/// What the per-node verdicts depend on besides the node's pods.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct VerdictKey {
    hash: String,
    generation: Option<i64>,
    min_ready: i32,
    /// The clock, when availability reads it (minReadySeconds > 0).
    now: Option<i64>,
    surge: bool,
}

/// The controller's memory between syncs: the should-run table and, per node, what
/// the last look at its pods found, summed up in a [`Tally`]. The informer's index and
/// expectations are what let upstream's controller act on what changed; this is the
/// model's equivalent.
#[derive(Debug, Clone, Default)]
struct SyncCache {
    /// The template pod spec the should-run table was computed for.
    should_for: Option<Option<PodSpec>>,
    should: Vec<(bool, bool)>,
    key: Option<VerdictKey>,
    /// Moves when `key` changes.
    epoch: u64,
    /// Per node, for the pods it had at the last [`DaemonSetsController::refresh_verdicts`].
    nodes: Vec<NodeVerdict>,
    /// The epoch `nodes` and `tally` were computed for (`None`: not yet).
    tally_epoch: Option<u64>,
    tally: Tally,
}

/// What a sync reads of every node, summed over the nodes and kept up to date node by
/// node: the nodes each pass has to visit, by index (so in list order), and the counts
/// and status sums of the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Tally {
    /// `manage` only creates a pod there.
    needing: BTreeSet<usize>,
    /// `manage` deletes a pod or records an event there.
    busy: BTreeSet<usize>,
    /// maxSurge 0 visits them: one pod, not available (new or old).
    visit: BTreeSet<usize>,
    /// One old available pod: rollingUpdate's candidates for deletion.
    old_available: BTreeSet<usize>,
    /// Nodes maxSurge 0 only counts as unavailable (no pod, two of a kind, old and new).
    counted_only: usize,
    desired: i32,
    current: i32,
    misscheduled: i32,
    ready: i32,
    updated: i32,
    available: i32,
}

impl Tally {
    /// Adds (`add`) or takes out node `i`'s part, for its verdict `v`.
    fn apply(&mut self, i: usize, (run, _): (bool, bool), v: &NodeVerdict, add: bool) {
        let toggle = |set: &mut BTreeSet<usize>| {
            if add {
                set.insert(i);
            } else {
                set.remove(&i);
            }
        };
        match v.manage {
            ManageKind::Quiet => {}
            ManageKind::NeedsPodOnly => toggle(&mut self.needing),
            ManageKind::Busy => toggle(&mut self.busy),
        }
        let d: i32 = if add { 1 } else { -1 };
        if run || v.has_pods {
            match v.class {
                UpdateClass::New { available: true } => {}
                UpdateClass::Old { available: true } => toggle(&mut self.old_available),
                UpdateClass::Conflict | UpdateClass::Empty | UpdateClass::Both => {
                    self.counted_only = if add { self.counted_only + 1 } else { self.counted_only.saturating_sub(1) };
                }
                UpdateClass::New { available: false } | UpdateClass::Old { available: false } => toggle(&mut self.visit),
            }
        }
        match (run, v.has_pods) {
            (true, false) => self.desired += d,
            (true, true) => {
                self.desired += d;
                self.current += d;
                self.ready += d * i32::from(v.status.ready);
                self.available += d * i32::from(v.status.available);
                self.updated += d * i32::from(v.status.updated);
            }
            (false, true) => self.misscheduled += d,
            (false, false) => {}
        }
    }
}

/// What `manage` does on a node, as the tally sorts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum ManageKind {
    /// Nothing: no pod to create or delete, no event.
    #[default]
    Quiet,
    /// Creates a pod, nothing else.
    NeedsPodOnly,
    /// Deletes a pod or records an event (and may create one).
    Busy,
}

/// One node's verdicts, for the pods it had when they were computed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct NodeVerdict {
    manage: ManageKind,
    /// The node has daemon pods (terminal ones being deleted left out).
    has_pods: bool,
    class: UpdateClass,
    /// With `class` Old: where its old pod is among the node's pods
    /// ([`PodStore::name_on_node`]), so `rollingUpdate` names it without reading pods.
    old_pod: Option<usize>,
    status: StatusContrib,
}

/// `findUpdatedPodsOnNode` and the availability of what it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum UpdateClass {
    /// More than one new or more than one old pod.
    #[default]
    Conflict,
    Empty,
    New { available: bool },
    Old { available: bool },
    Both,
}

impl UpdateClass {
    fn of(pods: &[&Pod], key: &VerdictKey, now: i64) -> UpdateClass {
        let available = |p: &Pod| is_pod_available(p, key.min_ready, now);
        match find_updated_pods_on_node(pods, &key.hash, key.generation) {
            None => UpdateClass::Conflict,
            Some((None, None)) => UpdateClass::Empty,
            Some((Some(new), None)) => UpdateClass::New { available: available(new) },
            Some((None, Some(old))) => UpdateClass::Old { available: available(old) },
            Some((Some(_), Some(_))) => UpdateClass::Both,
        }
    }

    /// The one old pod `findUpdatedPodsOnNode` finds, when it finds no new one.
    fn old_pod<'p>(pods: &[&'p Pod], key: &VerdictKey) -> Option<&'p Pod> {
        match find_updated_pods_on_node(pods, &key.hash, key.generation) {
            Some((None, old)) => old,
            _ => None,
        }
    }

    /// Whether `rollingUpdate` with maxSurge 0 counts the node unavailable.
    fn counts_unavailable(self) -> bool {
        !matches!(self, UpdateClass::New { available: true } | UpdateClass::Old { available: true })
    }
}

/// A node's part of the status: its oldest pod's readiness, availability, revision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct StatusContrib {
    ready: bool,
    available: bool,
    updated: bool,
}

impl StatusContrib {
    fn of(pods: &[&Pod], key: &VerdictKey, now: i64) -> StatusContrib {
        let Some(oldest) = pods.iter().copied().min_by(|a, b| pod_by_creation_timestamp_and_phase(a, b)) else {
            return StatusContrib::default();
        };
        let ready = is_pod_ready(oldest);
        StatusContrib {
            ready,
            available: ready && is_pod_available(oldest, key.min_ready, now),
            updated: is_pod_updated(oldest, &key.hash, key.generation),
        }
    }
}

/// What `manage` does on one node.
#[derive(Debug, Default)]
struct ManageNode {
    needs_pod: bool,
    delete: Vec<String>,
    events: Vec<(&'static str, &'static str, String)>,
}

impl ManageNode {
    fn kind(&self) -> ManageKind {
        match (self.needs_pod, self.delete.is_empty() && self.events.is_empty()) {
            (false, true) => ManageKind::Quiet,
            (true, true) => ManageKind::NeedsPodOnly,
            (_, false) => ManageKind::Busy,
        }
    }
}

/// `podsShouldBeOnNode` for the node `node_name` with its daemon `pods`.
fn manage_node(node_name: &str, pods: &[&Pod], (should_run, should_continue): (bool, bool), key: &VerdictKey, now: i64) -> ManageNode {
    let mut m = ManageNode::default();
    if pods.is_empty() {
        m.needs_pod = should_run;
        return m;
    }
    if !should_continue {
        m.delete.extend(pods.iter().filter(|p| p.metadata.deletion_timestamp.is_none()).map(|p| pod_name(p).to_string()));
        return m;
    }
    let mut running: Vec<&Pod> = Vec::new();
    for &pod in pods {
        if pod.metadata.deletion_timestamp.is_some() {
            continue;
        }
        match pod_phase(pod) {
            "Failed" => {
                m.events.push(("Warning", reason::FAILED_DAEMON_POD, format!(
                    "Found failed daemon pod {}/{} on node {node_name}, will try to kill it",
                    pod.metadata.namespace.as_deref().unwrap_or(""), pod_name(pod))));
                m.delete.push(pod_name(pod).to_string());
            }
            "Succeeded" => {
                m.events.push(("Normal", reason::SUCCEEDED_DAEMON_POD, format!(
                    "Found succeeded daemon pod {}/{} on node {node_name}, will try to delete it",
                    pod.metadata.namespace.as_deref().unwrap_or(""), pod_name(pod))));
                m.delete.push(pod_name(pod).to_string());
            }
            _ => running.push(pod),
        }
    }
    if !key.surge {
        if running.len() > 1 {
            running.sort_by(|a, b| pod_by_creation_timestamp_and_phase(a, b));
            m.delete.extend(running.iter().skip(1).map(|p| pod_name(p).to_string()));
        }
        return m;
    }
    if running.len() <= 1 {
        m.needs_pod = running.is_empty() && should_run;
        return m;
    }
    // Surging: keep the oldest new pod and the oldest old pod only while the old one
    // is ready and the new one is not yet available.
    running.sort_by(|a, b| pod_by_creation_timestamp_and_phase(a, b));
    let (mut oldest_new, mut oldest_old): (Option<&Pod>, Option<&Pod>) = (None, None);
    for &pod in &running {
        let slot = if pod_label(pod, CONTROLLER_REVISION_HASH_LABEL) == Some(key.hash.as_str()) { &mut oldest_new } else { &mut oldest_old };
        if slot.is_none() {
            *slot = Some(pod);
        } else {
            m.delete.push(pod_name(pod).to_string());
        }
    }
    if let (Some(new_pod), Some(old_pod)) = (oldest_new, oldest_old) {
        if !is_pod_ready(old_pod) || is_pod_available(new_pod, key.min_ready, now) {
            m.delete.push(pod_name(old_pod).to_string());
        }
    }
    m
}

/// `util.ReplaceDaemonSetPodNodeNameNodeAffinity`: the required node affinity becomes
/// the single term `matchFields metadata.name In [node]`, which hands the pod to the
/// default scheduler for exactly that node.
pub fn replace_daemon_set_pod_node_name_node_affinity(affinity: Option<Affinity>, node: &str) -> Affinity {
    let term = NodeSelectorTerm {
        match_expressions: None,
        match_fields: Some(vec![NodeSelectorRequirement {
            key: NODE_FIELD_SELECTOR_KEY_NODE_NAME.into(),
            operator: "In".into(),
            values: Some(vec![node.to_string()]),
        }]),
    };
    let mut affinity = affinity.unwrap_or_default();
    let node_affinity = affinity.node_affinity.get_or_insert_with(NodeAffinity::default);
    match node_affinity.required_during_scheduling_ignored_during_execution.as_mut() {
        Some(selector) => selector.node_selector_terms = vec![term],
        None => {
            node_affinity.required_during_scheduling_ignored_during_execution = Some(NodeSelector { node_selector_terms: vec![term] })
        }
    }
    affinity
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemonset::rollout::{NodeRuntime, Rollout};
    use crate::daemonset::manifests::Manifests;
    use crate::incident::seed::{DEVICE_PLUGIN_V1_YAML, DEVICE_PLUGIN_V2_YAML};
    use k8s_openapi::api::core::v1::{NodeSpec, NodeStatus, Taint};
    use k8s_openapi::api::node::v1::RuntimeClass;
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    fn cluster(n: usize) -> Vec<Node> {
        (0..n)
            .map(|i| {
                let mut node = Node::default();
                node.metadata.name = Some(format!("gpu-node-{i:03}"));
                let taint = |key: &str, effect: &str| Taint { key: key.into(), effect: effect.into(), ..Taint::default() };
                let taints = match i % 17 {
                    3 => vec![taint("maintenance", "NoExecute")],
                    5 => vec![taint("dedicated", "NoSchedule")],
                    _ => vec![],
                };
                node.spec = Some(NodeSpec { taints: Some(taints), unschedulable: Some(i % 13 == 4), ..NodeSpec::default() });
                let allocatable = [("pods".to_string(), Quantity("110".into()))].into();
                node.status = Some(NodeStatus { allocatable: Some(allocatable), ..Default::default() });
                node
            })
            .collect()
    }

    /// The maxSurge-0 plan (only the nodes that change the decision, selection instead
    /// of a sort) decides what `rollingUpdate` on every node decides, sync after sync
    /// (the assertion is in `rolling_update_plan` under `cfg(test)`): every node
    /// order, several budgets, surge, a node whose sandbox fails, old pods that turn
    /// unready, nodes that should not run the pod, and a node that leaves the cluster
    /// mid-rollout.
    #[test]
    fn plan_equals_rolling_update_on_every_node() {
        let strategies = [
            (IntOrString::String("10%".into()), IntOrString::Int(0)),
            (IntOrString::Int(1), IntOrString::Int(0)),
            (IntOrString::String("30%".into()), IntOrString::Int(0)),
            (IntOrString::Int(0), IntOrString::Int(3)),
        ];
        let orders = [NodeOrder::Seeded(5), NodeOrder::Listed, NodeOrder::Fixed(vec!["gpu-node-007".into(), "gpu-node-001".into()])];
        for (max_unavailable, max_surge) in &strategies {
            for order in &orders {
                let mut m = Manifests::default();
                m.add_yaml("v1", DEVICE_PLUGIN_V1_YAML).unwrap();
                m.add_yaml("v2", DEVICE_PLUGIN_V2_YAML).unwrap();
                for ds in &mut m.daemon_sets {
                    let ru = ds.spec.as_mut().unwrap().update_strategy.as_mut().unwrap().rolling_update.as_mut().unwrap();
                    ru.max_unavailable = Some(max_unavailable.clone());
                    ru.max_surge = Some(max_surge.clone());
                }
                let mut rc = RuntimeClass { handler: "nvidia".into(), ..Default::default() };
                rc.metadata.name = Some("nvidia".into());
                let (v1, v2) = (m.daemon_sets[0].clone(), m.daemon_sets[1].clone());
                let mut r = Rollout::new(v1, cluster(60), vec![rc], order.clone(), 9, 1_790_000_000);
                r.runtimes.insert("gpu-node-011".into(), NodeRuntime::healthy("1.7.20", &["runc"]));
                assert!(r.run_until_settled(200));
                let old_hash = r.controller.current_hash();
                r.apply_update(v2);
                for round in 0..60 {
                    if round == 1 {
                        // Old pods that are not available: replaced outside the budget.
                        r.controller.set_pod_readiness(false, 4, |p| pod_label(p, CONTROLLER_REVISION_HASH_LABEL) == Some(old_hash.as_str()));
                    }
                    if round == 3 {
                        r.controller.update_nodes(|nodes| {
                            nodes.remove(20);
                        });
                    }
                    let record = r.step();
                    if record.stalled || record.rollout_status.as_ref().is_ok_and(|s| s.done) {
                        break;
                    }
                }
            }
        }
    }
}
