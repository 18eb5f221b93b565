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

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet, DaemonSetStatus};
use k8s_openapi::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde::Serialize;

use super::events::{reason, EventLog, DAEMONSET_CONTROLLER};
use crate::hash::FastMap;
use super::pod::{
    get_target_node_name, is_pod_available, is_pod_ready, is_pod_terminal, is_pod_updated, pod_by_creation_timestamp_and_phase,
    pod_label, pod_name, pod_phase, time, CONTROLLER_REVISION_HASH_LABEL, DEPRECATED_TEMPLATE_GENERATION_ANNOTATION,
    POD_TEMPLATE_GENERATION_LABEL,
};
use super::predicates::{add_or_update_daemon_pod_tolerations, DaemonPodPredicates, NODE_FIELD_SELECTOR_KEY_NODE_NAME};
use super::rng::SplitMix64;
use super::update::{
    allows_surge, cleanup_history, construct_history, desired_node_counts, min_ready_seconds, rolling_update,
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
    /// The node lister's contents, in list order.
    pub nodes: Vec<Node>,
    /// The DaemonSet's pods by name.
    pub pods: BTreeMap<String, Pod>,
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
}

impl DaemonSetsController {
    /// A controller for `ds` over `nodes`; `seed` drives pod names and, with
    /// [`NodeOrder::Seeded`], the node order.
    pub fn new(ds: DaemonSet, nodes: Vec<Node>, node_order: NodeOrder, seed: u64) -> Self {
        let rng_seed = match node_order {
            NodeOrder::Seeded(s) => s ^ seed.rotate_left(32),
            NodeOrder::Listed | NodeOrder::Fixed(_) => seed,
        };
        DaemonSetsController {
            ds,
            nodes,
            pods: BTreeMap::new(),
            revisions: Vec::new(),
            events: EventLog::default(),
            now: 0,
            node_order,
            burst_replicas: BURST_REPLICAS,
            admission: Admission::default(),
            rng: SplitMix64::new(rng_seed),
            syncs: 0,
            own_events: 0,
        }
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
        let should = self.should_run_table();

        let (to_delete, to_create) = self.manage_plan(&should, &hash);
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
        cleanup_history(&self.ds, &hash, &mut self.revisions, self.pods.values());
        result.status = self.update_daemon_set_status(&should, &hash);
        result.controller_events = self.own_events - events_before;
        result
    }

    /// `getNodesToDaemonPods(ds, includeDeletedTerminal=false)`.
    pub fn node_to_daemon_pods(&self) -> NodePods<'_> {
        NodePods::new(&self.nodes, self.pods.values())
    }

    /// `manage` + `podsShouldBeOnNode` + `getUnscheduledPodsWithoutNode`: what to delete
    /// and which nodes need a pod. Failed-pod deletion is not rate-limited here
    /// (upstream backs off per node).
    fn manage_plan(&mut self, should: &[(bool, bool)], hash: &str) -> (Vec<String>, Vec<String>) {
        let surge = allows_surge(&self.ds);
        let min_ready = min_ready_seconds(&self.ds);
        let mut nodes_needing = Vec::new();
        let mut to_delete = Vec::new();
        let mut failed_events = Vec::new();
        {
            let map = self.node_to_daemon_pods();
            for (i, (node, &(should_run, should_continue))) in self.nodes.iter().zip(should).enumerate() {
                let node_name = node.metadata.name.as_deref().unwrap_or("");
                let pods = Some(map.of(i)).filter(|p| !p.is_empty());
                match pods {
                    None if should_run => nodes_needing.push(node_name.to_string()),
                    _ if should_continue => {
                        let mut running: Vec<&Pod> = Vec::new();
                        for &pod in pods.into_iter().flatten() {
                            if pod.metadata.deletion_timestamp.is_some() {
                                continue;
                            }
                            match pod_phase(pod) {
                                "Failed" => {
                                    failed_events.push(("Warning", reason::FAILED_DAEMON_POD, format!(
                                        "Found failed daemon pod {}/{} on node {node_name}, will try to kill it",
                                        pod.metadata.namespace.as_deref().unwrap_or(""), pod_name(pod))));
                                    to_delete.push(pod_name(pod).to_string());
                                }
                                "Succeeded" => {
                                    failed_events.push(("Normal", reason::SUCCEEDED_DAEMON_POD, format!(
                                        "Found succeeded daemon pod {}/{} on node {node_name}, will try to delete it",
                                        pod.metadata.namespace.as_deref().unwrap_or(""), pod_name(pod))));
                                    to_delete.push(pod_name(pod).to_string());
                                }
                                _ => running.push(pod),
                            }
                        }
                        if !surge {
                            if running.len() > 1 {
                                running.sort_by(|a, b| pod_by_creation_timestamp_and_phase(a, b));
                                to_delete.extend(running.iter().skip(1).map(|p| pod_name(p).to_string()));
                            }
                            continue;
                        }
                        if running.len() <= 1 {
                            if running.is_empty() && should_run {
                                nodes_needing.push(node_name.to_string());
                            }
                            continue;
                        }
                        // Surging: keep the oldest new pod and the oldest old pod only while
                        // the old one is ready and the new one is not yet available.
                        running.sort_by(|a, b| pod_by_creation_timestamp_and_phase(a, b));
                        let (mut oldest_new, mut oldest_old): (Option<&Pod>, Option<&Pod>) = (None, None);
                        for &pod in &running {
                            let slot = if pod_label(pod, CONTROLLER_REVISION_HASH_LABEL) == Some(hash) { &mut oldest_new } else { &mut oldest_old };
                            if slot.is_none() {
                                *slot = Some(pod);
                            } else {
                                to_delete.push(pod_name(pod).to_string());
                            }
                        }
                        if let (Some(new_pod), Some(old_pod)) = (oldest_new, oldest_old) {
                            if !is_pod_ready(old_pod) || is_pod_available(new_pod, min_ready, self.now) {
                                to_delete.push(pod_name(old_pod).to_string());
                            }
                        }
                    }
                    Some(pods) if !should_continue => {
                        to_delete.extend(pods.iter().filter(|p| p.metadata.deletion_timestamp.is_none()).map(|p| pod_name(p).to_string()));
                    }
                    _ => {}
                }
            }
            // Unscheduled pods whose target node no longer exists.
            for pods in map.orphans.values() {
                to_delete.extend(pods.iter().filter(|p| super::pod::pod_node_name(p).is_empty()).map(|p| pod_name(p).to_string()));
            }
        }
        let object = format!("DaemonSet/{}", self.name());
        for (type_, why, message) in failed_events {
            self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, type_, why, message);
            self.own_events += 1;
        }
        (to_delete, nodes_needing)
    }

    /// Ranks (by node index) for visiting nodes in [`NodeOrder`]; drawn anew every
    /// sync when seeded.
    fn node_ranks(&mut self) -> Vec<u64> {
        let first: FastMap<&str, u64> = match &self.node_order {
            NodeOrder::Fixed(names) => names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u64)).collect(),
            _ => FastMap::default(),
        };
        let offset = first.len() as u64;
        let mut ranks = Vec::with_capacity(self.nodes.len());
        for (i, node) in self.nodes.iter().enumerate() {
            ranks.push(match self.node_order {
                NodeOrder::Listed => i as u64,
                NodeOrder::Seeded(_) => self.rng.next_u64() >> 1,
                NodeOrder::Fixed(_) => first.get(node.metadata.name.as_deref().unwrap_or("")).copied().unwrap_or(offset + i as u64),
            });
        }
        ranks
    }

    fn rolling_update_plan(&mut self, should: &[(bool, bool)], hash: &str) -> Result<RollingUpdateDecision, String> {
        let ranks = self.node_ranks();
        let generation = self.template_generation();
        let map = self.node_to_daemon_pods();
        let desired = should.iter().filter(|(run, _)| *run).count();
        let counts = desired_node_counts(&self.ds, desired)?;
        // The map upstream ranges over: nodes with pods, and (from
        // updatedDesiredNodeCounts) every node that should run one.
        let mut ranked: Vec<(u64, &str, &[&Pod])> = Vec::with_capacity(self.nodes.len() + map.orphans.len());
        for (i, (node, &(run, _))) in self.nodes.iter().zip(should).enumerate() {
            let pods = map.of(i);
            if run || !pods.is_empty() {
                ranked.push((ranks.get(i).copied().unwrap_or(u64::MAX), node.metadata.name.as_deref().unwrap_or(""), pods));
            }
        }
        for (node, pods) in &map.orphans {
            ranked.push((u64::MAX, node, pods.as_slice()));
        }
        ranked.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        let should_run: FastMap<&str, bool> = self
            .nodes
            .iter()
            .zip(should)
            .map(|(n, &(run, _))| (n.metadata.name.as_deref().unwrap_or(""), run))
            .collect();
        let lookup = |n: &str| should_run.get(n).copied().unwrap_or(false);
        let input = RollingUpdateInput {
            ds: &self.ds,
            hash,
            generation,
            now: self.now,
            counts,
            node_to_daemon_pods: ranked.into_iter().map(|(_, k, v)| (k, v)).collect(),
            should_run: &lookup,
        };
        Ok(rolling_update(&input))
    }

    /// `syncNodes`: deletes, then creates in slow-start batches (1, 2, 4, …) that stop
    /// after a batch with a failure; both capped at `burst_replicas`.
    fn sync_nodes(&mut self, to_delete: &[String], to_create: &[String], hash: &str, result: &mut SyncResult) {
        let create_diff = to_create.len().min(self.burst_replicas);
        let delete_diff = to_delete.len().min(self.burst_replicas);
        let template = self.create_pod_template(hash);
        let object = format!("DaemonSet/{}", self.name());
        let mut pos = 0;
        let mut batch = create_diff.min(SLOW_START_INITIAL_BATCH_SIZE);
        while pos < create_diff {
            let mut failed = false;
            for node in to_create.iter().skip(pos).take(batch) {
                match self.create_pod(&template, node) {
                    Ok(name) => {
                        self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, "Normal", reason::SUCCESSFUL_CREATE, format!("Created pod: {name}"));
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
            if let Some(pod) = self.pods.remove(name) {
                self.events.record(self.now, object.clone(), DAEMONSET_CONTROLLER, "Normal", reason::SUCCESSFUL_DELETE, format!("Deleted pod: {name}"));
                result.deleted.push((name.clone(), get_target_node_name(&pod).unwrap_or("").to_string()));
            }
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
    /// error text otherwise.
    fn create_pod(&mut self, template: &Pod, node: &str) -> Result<String, String> {
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
            let candidate = format!("{generate_name}{}", self.rng.name_suffix());
            if !self.pods.contains_key(&candidate) {
                break candidate;
            }
        };
        pod.metadata.name = Some(name.clone());
        pod.metadata.creation_timestamp = Some(time(self.now));
        pod.status = Some(PodStatus { phase: Some("Pending".into()), ..PodStatus::default() });
        self.pods.insert(name.clone(), pod);
        Ok(name)
    }

    /// Sets Ready to `ready` (transition time `now`) on up to `count` live pods whose
    /// readiness differs and that `filter` accepts, in store order; returns how many
    /// were changed. (The readiness half of the kubelet, and upstream's test helper
    /// `setPodReadiness`.)
    pub fn set_pod_readiness(&mut self, ready: bool, count: usize, filter: impl Fn(&Pod) -> bool) -> usize {
        let now = self.now;
        let mut changed = 0;
        for pod in self.pods.values_mut() {
            if changed == count {
                break;
            }
            if pod.metadata.deletion_timestamp.is_some() || is_pod_ready(pod) == ready || !filter(pod) {
                continue;
            }
            super::pod::set_pod_ready(pod, ready, now);
            changed += 1;
        }
        changed
    }

    /// `updateDaemonSetStatus` + `storeDaemonSetStatus` (with `updateObservedGen`).
    fn update_daemon_set_status(&mut self, should: &[(bool, bool)], hash: &str) -> DaemonSetStatus {
        let generation = self.template_generation();
        let min_ready = min_ready_seconds(&self.ds);
        let (mut desired, mut current, mut misscheduled, mut ready, mut updated, mut available) = (0, 0, 0, 0, 0, 0);
        {
            let map = self.node_to_daemon_pods();
            for (i, &(should_run, _)) in should.iter().enumerate() {
                let pods = Some(map.of(i)).filter(|p| !p.is_empty());
                match (should_run, pods) {
                    (true, None) => desired += 1,
                    (true, Some(pods)) => {
                        desired += 1;
                        current += 1;
                        let oldest = pods.iter().copied().min_by(|a, b| pod_by_creation_timestamp_and_phase(a, b));
                        if let Some(pod) = oldest {
                            if is_pod_ready(pod) {
                                ready += 1;
                                if is_pod_available(pod, min_ready, self.now) {
                                    available += 1;
                                }
                            }
                            if is_pod_updated(pod, hash, generation) {
                                updated += 1;
                            }
                        }
                    }
                    (false, Some(_)) => misscheduled += 1,
                    (false, None) => {}
                }
            }
        }
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

/// `getNodesToDaemonPods`, laid out for a 5,000-node cluster: the pods of node `i`
/// of the node list are `of(i)`; pods whose target node is not in the list are in
/// `orphans`, by node name.
pub struct NodePods<'a> {
    ranges: Vec<Range<usize>>,
    flat: Vec<&'a Pod>,
    pub orphans: BTreeMap<&'a str, Vec<&'a Pod>>,
}

impl<'a> NodePods<'a> {
    /// Groups `pods` (terminal pods being deleted are left out) by target node.
    pub fn new(nodes: &'a [Node], pods: impl Iterator<Item = &'a Pod>) -> Self {
        let index: FastMap<&str, usize> =
            nodes.iter().enumerate().map(|(i, n)| (n.metadata.name.as_deref().unwrap_or(""), i)).collect();
        let mut keyed: Vec<(usize, &'a Pod)> = Vec::new();
        let mut orphans: BTreeMap<&'a str, Vec<&'a Pod>> = BTreeMap::new();
        for pod in pods {
            if is_pod_terminal(pod) && pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let Some(node) = get_target_node_name(pod) else { continue };
            match index.get(node) {
                Some(&i) => keyed.push((i, pod)),
                None => orphans.entry(node).or_default().push(pod),
            }
        }
        // Stable: pods keep the store's (name) order within a node.
        keyed.sort_by_key(|(i, _)| *i);
        let mut ranges = vec![0..0; nodes.len()];
        let mut start = 0;
        while start < keyed.len() {
            let node = keyed.get(start).map_or(0, |(i, _)| *i);
            let end = keyed.iter().skip(start).position(|(i, _)| *i != node).map_or(keyed.len(), |p| start + p);
            if let Some(r) = ranges.get_mut(node) {
                *r = start..end;
            }
            start = end;
        }
        NodePods { ranges, flat: keyed.into_iter().map(|(_, p)| p).collect(), orphans }
    }

    /// The daemon pods of node `i` of the node list.
    pub fn of(&self, i: usize) -> &[&'a Pod] {
        self.ranges.get(i).and_then(|r| self.flat.get(r.clone())).unwrap_or(&[])
    }
}
