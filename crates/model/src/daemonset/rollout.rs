//! The rollout a learner watches: the DaemonSet controller, the scheduler's binding of
//! daemon pods (their `matchFields metadata.name` affinity names the node), and each
//! node's kubelet creating the pod sandbox through that node's containerd — which
//! fails on a node whose *loaded* containerd config lacks the RuntimeClass handler.
//!
//! One [`Rollout::step`] is one round: a controller sync, binding, one kubelet pass,
//! then the clock moves on by `interval` seconds. Each round's record holds the
//! `kubectl get ds` row and `kubectl rollout status` line as they read after the sync,
//! so the UI can show every sync. A rollout *stalls* when a round changes nothing
//! (no pod created, deleted, started) and `rollout status` is not done: the DaemonSet
//! has no progress deadline, so it would wait forever.
//!
//! The containerd side is an input per node ([`NodeRuntime`]): which handlers the
//! running daemon has loaded, which ones the files on disk would give after a restart,
//! and the containerd model's findings on why they differ (carried into the diagnosis).
//! Binding runs the scheduler model's filters ([`crate::kubernetes::scheduler`]) for
//! the pod's node: a daemon pod that does not fit (resources, a taint it does not
//! tolerate) stays Pending with the scheduler's `FailedScheduling` text and is retried
//! every round. The sandbox step is the kubelet model's
//! ([`crate::kubernetes::kubelet::create_pod_sandbox`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use serde::{Deserialize, Serialize};

use super::controller::{Admission, DaemonSetsController, NodeOrder, SyncResult};
use crate::kubernetes::events::{reason, DEFAULT_SCHEDULER, KUBELET};
use crate::kubernetes::events::scheduling_event;
use crate::kubernetes::kubelet::{create_pod_sandbox_with, mark_container_creating, mark_running, pod_ip, LoadedCri, SandboxError};
use crate::kubernetes::scheduler::framework::run_filter_plugins;
use crate::kubernetes::scheduler::node_affinity::{pre_filter, NodeAffinityPreFilter};
use crate::kubernetes::scheduler::{schedule_one, CycleState, FilterOptions, Outcome, PodInfo};
use crate::kubernetes::scheduler::snapshot::PodInfoMemo;
use super::bind_index::{BindIndex, NodeBases};
use super::kubectl::{get_ds_row, rollout_status, RolloutStatus};
use crate::kubernetes::time;
use super::pod::{get_target_node_name, is_pod_available, is_pod_ready, pod_node_name, DEPRECATED_TEMPLATE_GENERATION_ANNOTATION};
use super::rng::SplitMix64;
use crate::Span;

/// A finding of the containerd model about a node, passed through to the diagnosis:
/// a stable code, its arguments, and where in the config it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeFinding {
    /// e.g. `dropin-replaced-table`, `daemon-not-restarted`.
    pub code: String,
    #[serde(default)]
    pub args: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
}

/// A node's container runtime as the kubelet meets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRuntime {
    /// The running containerd's version: `1.7.x` and `2.x` word the sandbox error differently.
    pub containerd_version: String,
    /// Runtime handlers of the config the daemon has *loaded* (what CRI resolves).
    pub loaded_handlers: Vec<String>,
    /// Handlers the config files on disk define: what a restart would load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_handlers: Option<Vec<String>>,
    /// Why the loaded handlers are what they are (from the containerd model).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<RuntimeFinding>,
}

impl NodeRuntime {
    /// A runtime that has every handler it is asked for.
    pub fn healthy(version: &str, handlers: &[&str]) -> Self {
        NodeRuntime {
            containerd_version: version.into(),
            loaded_handlers: handlers.iter().map(|h| h.to_string()).collect(),
            file_handlers: None,
            findings: Vec::new(),
        }
    }

    /// A node's runtime read off the containerd model: the handlers the daemon loaded
    /// at its last start, and the handlers its files on disk would give on a restart.
    pub fn from_daemon(daemon: &crate::containerd::Daemon) -> Self {
        let serving = daemon.is_running().then(|| daemon.loaded()).flatten().filter(|l| l.start.cri_status() == "ok");
        let loaded_handlers = if serving.is_some() { daemon.runtime_handlers() } else { Vec::new() };
        let on_disk = daemon.on_disk();
        let file_handlers = if on_disk.start.cri_status() == "ok" { on_disk.runtime_handlers() } else { Vec::new() };
        NodeRuntime {
            containerd_version: daemon.version.to_string(),
            loaded_handlers,
            file_handlers: Some(file_handlers),
            findings: Vec::new(),
        }
    }

    /// `systemctl restart containerd`: the daemon loads the files on disk.
    pub fn restart(&mut self) {
        if let Some(files) = &self.file_handlers {
            self.loaded_handlers = files.clone();
            self.findings.retain(|f| f.code != "daemon-not-restarted");
        }
    }

    /// What the kubelet sees of this runtime ([`LoadedCri`]): the loaded handlers; a
    /// runtime with no handler at all is a daemon whose CRI plugin is not serving
    /// (containerd always has its default `runc`). The default runtime is `runc`.
    pub fn loaded_cri(&self) -> LoadedCri {
        LoadedCri {
            containerd_version: self.containerd_version.clone(),
            cri_loaded: !self.loaded_handlers.is_empty(),
            runtimes: self.loaded_handlers.clone(),
            default_runtime_name: DEFAULT_RUNTIME_NAME.into(),
        }
    }
}

/// containerd's `default_runtime_name` when the config does not set it.
pub const DEFAULT_RUNTIME_NAME: &str = "runc";

/// One round, as the UI and `gpulab rollout` show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoundRecord {
    pub round: u64,
    pub now: i64,
    /// Shared: [`Rollout::step`] keeps the record and hands out a copy, and a sync's
    /// lists (the pods created and deleted, the rolling update's nodes) are the bulk
    /// of it at a cluster's size.
    #[serde(serialize_with = "serialize_shared")]
    pub sync: Arc<SyncResult>,
    /// The `get ds` row (tab-separated cells) after the sync.
    pub get_ds_row: String,
    /// `rollout status` after the sync, or its error.
    pub rollout_status: Result<RolloutStatus, String>,
    /// Pods the kubelet started (sandbox created) this round.
    pub started: Vec<String>,
    /// Pods whose sandbox failed this round, `(pod, event message)`.
    pub sandbox_failures: Vec<(String, String)>,
    /// Nothing changed and the rollout is not done.
    pub stalled: bool,
}

/// Serializes a shared value as the value.
fn serialize_shared<T: Serialize, S: serde::Serializer>(value: &Arc<T>, serializer: S) -> Result<S::Ok, S::Error> {
    T::serialize(value, serializer)
}

/// The cluster of one rollout: controller, RuntimeClasses, node runtimes, clock.
#[derive(Debug, Clone)]
pub struct Rollout {
    pub controller: DaemonSetsController,
    pub runtime_classes: Vec<RuntimeClass>,
    /// Per node; a node of the cluster without an entry runs [`Rollout::default_runtime`].
    pub runtimes: BTreeMap<String, NodeRuntime>,
    /// The runtime of every node of the cluster without an entry in `runtimes`, kept
    /// once (a cluster of 5,000 identical healthy nodes holds one copy, not 5,000);
    /// `None`: such a node has every handler.
    pub default_runtime: Option<NodeRuntime>,
    /// Seconds between rounds.
    pub interval: i64,
    pub rounds: Vec<RoundRecord>,
    rng: SplitMix64,
    ip_counter: u32,
    /// Bound pods the kubelet has not started yet (so a pass is not a scan of every pod).
    pending: BTreeSet<String>,
    /// Created pods the scheduler could not bind yet (FailedScheduling), retried each round.
    unscheduled: BTreeSet<String>,
    /// Each node's scheduler view without pods, kept for the binding passes.
    node_bases: NodeBases,
}

/// `SetDefaults_DaemonSet` for the fields the controller reads: RollingUpdate with
/// maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10, namespace `default`.
pub fn set_defaults_daemon_set(ds: &mut DaemonSet) {
    use k8s_openapi::api::apps::v1::{DaemonSetUpdateStrategy, RollingUpdateDaemonSet};
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    ds.metadata.namespace.get_or_insert_with(|| "default".into());
    let spec = ds.spec.get_or_insert_with(Default::default);
    spec.revision_history_limit.get_or_insert(10);
    let strategy = spec.update_strategy.get_or_insert_with(DaemonSetUpdateStrategy::default);
    let type_ = strategy.type_.get_or_insert_with(|| "RollingUpdate".into());
    if type_ == "RollingUpdate" {
        let ru = strategy.rolling_update.get_or_insert_with(RollingUpdateDaemonSet::default);
        ru.max_unavailable.get_or_insert(IntOrString::Int(1));
        ru.max_surge.get_or_insert(IntOrString::Int(0));
    }
}

impl Rollout {
    /// A cluster where `ds` is created at `now`; pods do not exist yet.
    pub fn new(mut ds: DaemonSet, nodes: Vec<Node>, runtime_classes: Vec<RuntimeClass>, order: NodeOrder, seed: u64, now: i64) -> Self {
        set_defaults_daemon_set(&mut ds);
        ds.metadata.generation = Some(1);
        ds.metadata.creation_timestamp = Some(time(now));
        ds.metadata.uid.get_or_insert_with(|| format!("uid-{}", ds.metadata.name.as_deref().unwrap_or("")));
        ds.metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(DEPRECATED_TEMPLATE_GENERATION_ANNOTATION.into(), "1".into());
        let mut controller = DaemonSetsController::new(ds, nodes, order, seed);
        controller.now = now;
        controller.admission = Admission {
            runtime_classes: Some(runtime_classes.iter().filter_map(|rc| rc.metadata.name.clone()).collect()),
        };
        Rollout {
            controller,
            runtime_classes,
            runtimes: BTreeMap::new(),
            default_runtime: None,
            interval: 10,
            rounds: Vec::new(),
            rng: SplitMix64::new(seed ^ 0x5eed),
            ip_counter: 0,
            pending: BTreeSet::new(),
            unscheduled: BTreeSet::new(),
            node_bases: NodeBases::default(),
        }
    }

    pub fn now(&self) -> i64 {
        self.controller.now
    }

    /// `kubectl apply` of a changed DaemonSet: the API server bumps `generation` on a
    /// spec change and the template generation annotation on a template change.
    pub fn apply_update(&mut self, mut new: DaemonSet) {
        set_defaults_daemon_set(&mut new);
        let old = &self.controller.ds;
        let old_spec = old.spec.clone().unwrap_or_default();
        let new_spec = new.spec.clone().unwrap_or_default();
        let template_changed = old_spec.template != new_spec.template;
        let mut ds = old.clone();
        if old_spec != new_spec {
            ds.metadata.generation = Some(old.metadata.generation.unwrap_or(1) + 1);
        }
        if template_changed {
            let g = self.controller.template_generation().unwrap_or(1) + 1;
            ds.metadata
                .annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(DEPRECATED_TEMPLATE_GENERATION_ANNOTATION.into(), g.to_string());
        }
        ds.spec = Some(new_spec);
        self.controller.ds = ds;
    }

    /// `kubectl rollout status` as it reads now.
    pub fn rollout_status(&self) -> Result<RolloutStatus, String> {
        rollout_status(&self.controller.ds)
    }

    /// One round: sync, bind, kubelet pass, advance the clock.
    pub fn step(&mut self) -> RoundRecord {
        let record = self.play_round();
        self.rounds.push(record.clone());
        record
    }

    /// A round's work and its record, which the caller keeps in `rounds`.
    fn play_round(&mut self) -> RoundRecord {
        let sync = self.controller.sync();
        self.bind_new_pods(&sync);
        let (started, sandbox_failures) = self.kubelet_pass();
        let status = rollout_status(&self.controller.ds);
        let done = status.as_ref().is_ok_and(|s| s.done);
        // Progress: a pod created, deleted or started, or the status moved. Failed
        // creations and sandbox retries repeat every sync without progress. A pod that is
        // Ready but not yet available (minReadySeconds) is progress still to come.
        let status_moved = self.rounds.last().map(|r| &r.sync.status) != Some(&sync.status);
        let min_ready = super::update::min_ready_seconds(&self.controller.ds);
        let now = self.controller.now;
        let ripening = min_ready > 0
            && self.controller.pods.values_any_order().any(|p| is_pod_ready(p) && !is_pod_available(p, min_ready, now));
        let no_progress = sync.created.is_empty() && sync.deleted.is_empty() && started.is_empty() && !status_moved && !ripening;
        let record = RoundRecord {
            round: self.rounds.len() as u64 + 1,
            now: self.controller.now,
            get_ds_row: get_ds_row(&self.controller.ds, self.controller.now),
            rollout_status: status,
            started,
            sandbox_failures,
            stalled: !done && no_progress && sync.error.is_none(),
            sync: Arc::new(sync),
        };
        self.controller.now += self.interval;
        record
    }

    /// Steps until `rollout status` is done or a round stalls, at most `max` rounds;
    /// returns whether it finished.
    pub fn run_until_settled(&mut self, max: usize) -> bool {
        for _ in 0..max {
            // The record is kept, not copied (as `step` must for its caller).
            let r = self.play_round();
            let (stalled, done) = (r.stalled, r.rollout_status.as_ref().is_ok_and(|s| s.done));
            self.rounds.push(r);
            if stalled || done {
                return !stalled;
            }
        }
        false
    }

    /// The scheduler's part for daemon pods: a cycle for each new (or still
    /// unscheduled) pod. Its `matchFields` affinity narrows the candidates to one node
    /// (NodeAffinity PreFilter), so the Filter plugins run on that node alone; if they
    /// pass the pod is bound (event `Scheduled`), else the whole cycle is run on the
    /// cluster for the `FitError` text (event `FailedScheduling`, condition
    /// `PodScheduled=False`) and the pod stays Pending.
    fn bind_new_pods(&mut self, sync: &SyncResult) {
        let now = self.controller.now;
        let namespace = self.controller.ds.metadata.namespace.clone().unwrap_or_default();
        let pods = &self.controller.pods;
        self.unscheduled.retain(|name| pods.get(name).is_some_and(|p| p.metadata.deletion_timestamp.is_none()));
        let mut queue: Vec<String> = self.unscheduled.iter().cloned().collect();
        queue.extend(sync.created.iter().map(|(pod, _)| pod.clone()));
        if queue.is_empty() {
            return;
        }
        let opts = FilterOptions::default();
        let mut index = BindIndex::default();
        // The pass's pods mostly share one template: their requests are computed once.
        let mut memo = PodInfoMemo::default();
        // Out of `self` for the pass (the cycles read `&self`), put back after.
        let mut bases = std::mem::take(&mut self.node_bases);
        for name in queue {
            // Lent out of the store while its cycle runs (the cycle leaves it out of
            // the node's pods by name anyway), so that the pod is moved, not copied,
            // and the store's map and index are not touched.
            let Some(pod) = self.controller.pods.lend(&name) else { continue };
            let info = PodInfo::new_memo(pod, true, &mut memo);
            let verdict = self.cycle_on_target(&info, &opts, &mut index, &mut bases);
            self.controller.pods.give_back(&name, info.pod);
            match verdict {
                Ok(node) => {
                    self.controller.pods.update(&name, |p| {
                        if let Some(spec) = p.spec.as_mut() {
                            spec.node_name = Some(node.clone());
                        }
                        set_pod_scheduled(p, None, now);
                    });
                    index.bind(self.controller.nodes(), &self.controller.pods, &node);
                    self.unscheduled.remove(&name);
                    self.pending.insert(name.clone());
                    // Per pod: the strings are joined at their length (`format!` grows them).
                    self.controller.events.record(now, ["Pod/", &name].concat(), DEFAULT_SCHEDULER, "Normal", reason::SCHEDULED,
                        ["Successfully assigned ", &namespace, "/", &name, " to ", &node].concat());
                }
                Err((message, condition_message)) => {
                    self.controller.pods.update(&name, |p| set_pod_scheduled(p, Some(condition_message), now));
                    self.unscheduled.insert(name.clone());
                    self.controller.events.record_similar(now, format!("Pod/{name}"), DEFAULT_SCHEDULER, "Warning", FAILED_SCHEDULING, message);
                }
            }
        }
        self.node_bases = bases;
    }

    /// One scheduling cycle for a daemon pod: `Ok(node)` to bind, or the
    /// FailedScheduling event note and the condition message. `index` is the pass's
    /// view of the cluster (built once per round, see [`BindIndex`]).
    fn cycle_on_target(
        &self,
        info: &PodInfo,
        opts: &FilterOptions,
        index: &mut BindIndex,
        bases: &mut NodeBases,
    ) -> Result<String, (String, String)> {
        let spec = info.pod.spec.as_ref();
        let pre = spec.map_or(NodeAffinityPreFilter::Skip, pre_filter);
        let target = match &pre {
            NodeAffinityPreFilter::NodeNames(names) if names.len() == 1 => names.first().cloned(),
            _ => None,
        };
        let nodes = self.controller.nodes();
        let position = target.as_deref().and_then(|t| self.controller.pods.node_position(t));
        let base = position.and_then(|i| bases.base(nodes, self.controller.nodes_version(), i));
        if let (Some(target), Some(base)) = (&target, base) {
            let node_info = index.node_info(base, &self.controller.pods, info.pod.metadata.name.as_ref());
            let state = CycleState { skip_node_affinity: false, skip_node_ports: info.host_ports.is_empty(), dra: None };
            if run_filter_plugins(info, &node_info, &state, opts).is_none() {
                return Ok(target.clone());
            }
        }
        // Rejected (or no single target): the full cycle gives the upstream text.
        let snapshot = index.snapshot(nodes, &self.controller.pods, &info.pod);
        let result = schedule_one(&snapshot, info, opts);
        if let Outcome::Scheduled { node, .. } = &result.outcome {
            return Ok(node.clone());
        }
        let (event, condition) = scheduling_event("", "", &result, self.controller.now);
        Err((event.message, condition.message))
    }

    /// Each kubelet, once: start bound pods that are not running, or record why the
    /// sandbox cannot be created.
    fn kubelet_pass(&mut self) -> (Vec<String>, Vec<(String, String)>) {
        let now = self.controller.now;
        let mut started = Vec::new();
        let mut failures = Vec::new();
        let pods = &self.controller.pods;
        self.pending.retain(|name| pods.get(name).is_some_and(|p| p.metadata.deletion_timestamp.is_none()));
        let names: Vec<String> = self.pending.iter().cloned().collect();
        // What the kubelet sees of the runtime every node without its own runs, and of
        // no runtime at all: once per pass, not per pod.
        let default_cri = self.default_runtime.as_ref().map(NodeRuntime::loaded_cri);
        let every_handler = LoadedCri {
            containerd_version: String::new(),
            cri_loaded: true,
            runtimes: self.runtime_classes.iter().map(|rc| rc.handler.clone()).chain([DEFAULT_RUNTIME_NAME.to_string()]).collect(),
            default_runtime_name: DEFAULT_RUNTIME_NAME.into(),
        };
        for name in names {
            let Some(pod) = self.controller.pods.get(&name) else { continue };
            let node = pod_node_name(pod);
            // A node without a runtime has every handler the RuntimeClasses name.
            let own;
            let cri = match (self.runtimes.get(node), &default_cri) {
                (Some(rt), _) => {
                    own = rt.loaded_cri();
                    &own
                }
                (None, Some(default)) if self.controller.pods.node_position(node).is_some() => default,
                _ => &every_handler,
            };
            // containerd draws a new sandbox id per attempt; the seeded generator only
            // moves when the id shows up in an error text (and is drawn only then).
            let mut next = self.rng.clone();
            let error = match create_pod_sandbox_with(pod, &self.runtime_classes, cri, || next.hex(64)) {
                Ok(_) => None,
                Err(e) => {
                    if matches!(e, SandboxError::NoRuntime { .. }) {
                        self.rng = next;
                    }
                    Some(e.event_message())
                }
            };
            match error {
                Some(message) => {
                    self.controller.pods.update(&name, |pod| mark_container_creating(pod, now));
                    self.controller.events.record_similar(now, format!("Pod/{name}"), KUBELET, "Warning", reason::FAILED_CREATE_POD_SANDBOX, message.clone());
                    failures.push((name, message));
                }
                None => {
                    self.ip_counter += 1;
                    let ip = pod_ip(self.ip_counter);
                    self.controller.pods.update(&name, |pod| mark_running(pod, now, ip));
                    let containers: Vec<String> = self
                        .controller
                        .pods
                        .get(&name)
                        .and_then(|p| p.spec.as_ref())
                        .map(|s| s.containers.iter().map(|c| c.name.clone()).collect())
                        .unwrap_or_default();
                    for container in containers {
                        self.controller.events.record(now, ["Pod/", &name].concat(), KUBELET, "Normal", reason::STARTED, ["Started container ", &container].concat());
                    }
                    self.pending.remove(&name);
                    started.push(name);
                }
            }
        }
        (started, failures)
    }

    /// The runtime of `node`: its own entry, else the default one when `node` is a
    /// node of the cluster.
    pub fn runtime(&self, node: &str) -> Option<&NodeRuntime> {
        self.runtimes
            .get(node)
            .or_else(|| self.default_runtime.as_ref().filter(|_| self.controller.pods.node_position(node).is_some()))
    }

    /// The daemon pods on `node` (live ones).
    pub fn pods_on(&self, node: &str) -> Vec<&Pod> {
        match self.controller.pods.node_position(node) {
            Some(i) => self.controller.pods.on_node(i).filter(|p| get_target_node_name(p) == Some(node)).collect(),
            None => self.controller.pods.values().filter(|p| get_target_node_name(p) == Some(node)).collect(),
        }
    }

    /// Nodes of the cluster, by name.
    pub fn node_names(&self) -> BTreeSet<String> {
        self.controller.nodes().iter().filter_map(|n| n.metadata.name.clone()).collect()
    }
}

/// The scheduler's event reason when a pod does not fit.
pub const FAILED_SCHEDULING: &str = "FailedScheduling";

/// The `PodScheduled` condition: `True`, or `False` / `Unschedulable` with the
/// FitError text.
fn set_pod_scheduled(pod: &mut Pod, unschedulable: Option<String>, now: i64) {
    use k8s_openapi::api::core::v1::PodCondition;
    let status = pod.status.get_or_insert_with(Default::default);
    if unschedulable.is_some() {
        status.phase = Some("Pending".into());
    }
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let (value, reason) = match &unschedulable {
        Some(_) => ("False", Some("Unschedulable".to_string())),
        None => ("True", None),
    };
    let condition = PodCondition {
        type_: "PodScheduled".into(),
        status: value.into(),
        reason,
        message: unschedulable,
        last_transition_time: Some(time(now)),
        ..Default::default()
    };
    match conditions.iter_mut().find(|c| c.type_ == "PodScheduled") {
        Some(c) if c.status == condition.status && c.message == condition.message => {}
        Some(c) => *c = condition,
        None => conditions.push(condition),
    }
}

