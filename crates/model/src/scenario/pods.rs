//! Pods in the model backend's cluster, over the [`kubernetes`](crate::kubernetes)
//! model: a pod is created as the API server does it (defaulting, RuntimeClass
//! admission, validation — a refusal is phase `Rejected` with kubectl's text), then
//! scheduled (the scheduler's exact FailedScheduling text), then the node's kubelet asks
//! that node's *simulated containerd* for the sandbox (FailedCreatePodSandBox with the
//! version's wording). `sync` retries what is Pending, as the scheduler's queue and the
//! kubelet's retries do. A pod with `resourceClaims` takes the DRA path ([`Dra`]): the
//! claim controller, PreEnqueue and the DynamicResources plugin, then the kubelet's
//! `PrepareResources` before the sandbox.

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;

use crate::kubernetes::apply::create_pod;
use crate::kubernetes::kubelet::{create_pod_sandbox, sandbox_id, LoadedCri};
use crate::kubernetes::scheduler::{NodeOutcome, Outcome};
use crate::kubernetes::scheduler::{FilterOptions, Snapshot};
use crate::kubernetes::KubeVersion;

use super::expect::{Field, Observed};
use super::model::ModelNode;

/// One pod and what the cluster did with it.
#[derive(Debug, Clone)]
pub struct PodState {
    pub name: String,
    pub source: String,
    /// As submitted (re-admitted on every retry while unscheduled).
    pub submitted: Pod,
    /// As stored (after admission), once accepted.
    pub stored: Option<Pod>,
    pub phase: String,
    pub reason: String,
    pub node_name: String,
    pub event_reason: String,
    pub message: String,
    pub attempts: u32,
    /// The nodes that passed every filter in the last scheduling cycle, in node order
    /// (the real scheduler's choice among several is its scores' and chance's; a
    /// generated scenario keeps to pods with at most one).
    pub feasible: Vec<String>,
    /// The devices its claims were allocated (`request:pool/device`, sorted).
    pub devices: Vec<String>,
}

/// What a pod with ResourceClaims meets beyond the core path: the cluster's DRA
/// objects (claims made, allocated and reserved as it goes), and whether a DRA
/// driver's kubelet plugin is registered on a node (`registered(node, driver)`).
pub struct Dra<'a> {
    pub state: &'a mut crate::kubernetes::dra::dynamicresources::State,
    pub registered: &'a dyn Fn(&str, &str) -> bool,
}

/// Does the pod name ResourceClaims (`spec.resourceClaims`)?
pub fn has_claims(pod: &Pod) -> bool {
    pod.spec.as_ref().and_then(|s| s.resource_claims.as_ref()).is_some_and(|c| !c.is_empty())
}

/// The kubelet's view of a node's containerd, from the containerd model.
pub fn loaded_cri(node: &ModelNode) -> LoadedCri {
    let d = &node.daemon;
    let cri_loaded = d.cri().is_some_and(|c| c.status() == &crate::containerd::PluginState::Ok);
    let id = if d.version.is_1x() { "io.containerd.grpc.v1.cri" } else { "io.containerd.cri.v1.runtime" };
    let default_runtime_name = d
        .loaded()
        .and_then(|l| l.config.as_ref())
        .and_then(|c| c.decoded.get_path(&[id, "containerd", "default_runtime_name"]))
        .and_then(crate::containerd::value::Node::as_str)
        .map_or_else(|| "runc".to_string(), str::to_string);
    LoadedCri { containerd_version: node.spec.containerd.clone(), cri_loaded, runtimes: d.runtime_handlers(), default_runtime_name }
}

impl PodState {
    pub fn new(source: &str, pod: Pod) -> PodState {
        PodState {
            name: pod.metadata.name.clone().unwrap_or_default(),
            source: source.to_string(),
            submitted: pod,
            stored: None,
            phase: String::new(),
            reason: String::new(),
            node_name: String::new(),
            event_reason: String::new(),
            message: String::new(),
            attempts: 0,
            feasible: Vec::new(),
            devices: Vec::new(),
        }
    }

    /// One pass: admit and schedule if unscheduled, then ask the kubelet for the sandbox.
    /// `retry`: whether a pod the scheduler already found unschedulable is tried again —
    /// the scheduler's queue moves it back only on a cluster event that may make it fit
    /// (an assigned pod deleted, a node added or changed) or after time passes, not
    /// because another pod was created (checked against the real v1.37.2 scheduler by
    /// the generated scenarios).
    #[allow(clippy::too_many_arguments)]
    pub fn reconcile(&mut self, k8s_nodes: &[Node], bound: &[Pod], rcs: &[RuntimeClass], version: KubeVersion, nodes: &[ModelNode], now: i64, retry: bool, dra: Option<&mut Dra<'_>>) {
        if self.phase == "Running" || self.phase == "Rejected" {
            return;
        }
        let tried = self.phase == "Pending" && self.event_reason == "FailedScheduling";
        // A pod with claims, or (DRAExtendedResource, 1.36+) asking for an extended
        // resource a DeviceClass backs, goes through DynamicResources.
        let dra = dra.filter(|d| {
            has_claims(&self.submitted)
                || (version.dra_extended_resource() && crate::kubernetes::dra::extended::asks_backed(&d.state.classes, &self.submitted))
        });
        if let Some(dra) = dra {
            return self.reconcile_dra(k8s_nodes, bound, rcs, version, nodes, now, retry || !tried, dra);
        }
        if self.node_name.is_empty() && (retry || !tried) {
            let snapshot = Snapshot::new(k8s_nodes.iter().cloned(), bound);
            let opts = FilterOptions { version, ..Default::default() };
            match create_pod(self.submitted.clone(), &snapshot, rcs, &opts, now) {
                Err(rejection) => return self.reject(&rejection),
                Ok(s) => self.take_cycle(s, &snapshot),
            }
        }
        if self.node_name.is_empty() {
            return;
        }
        let Some(pod) = self.stored.clone() else { return };
        self.sandbox(&pod, rcs, nodes);
    }

    /// [`Self::reconcile`] for a pod with ResourceClaims: the claim controller,
    /// PreEnqueue and the DynamicResources plugin (`dra::apply::create_pod`), then on
    /// its node the kubelet's `PrepareResources` before the sandbox. The pod keeps
    /// the claims made for it (`status.resourceClaimStatuses`) across retries.
    #[allow(clippy::too_many_arguments)]
    fn reconcile_dra(&mut self, k8s_nodes: &[Node], bound: &[Pod], rcs: &[RuntimeClass], version: KubeVersion, nodes: &[ModelNode], now: i64, schedule: bool, dra: &mut Dra<'_>) {
        use crate::kubernetes::dra::apply::{create_pod as create_dra_pod, Applied};
        if self.node_name.is_empty() && schedule {
            let mut pod = self.submitted.clone();
            if let Some(prev) = &self.stored {
                pod.metadata.uid.clone_from(&prev.metadata.uid);
                let statuses = prev.status.as_ref().and_then(|s| s.resource_claim_statuses.clone());
                if statuses.is_some() {
                    pod.status.get_or_insert_with(Default::default).resource_claim_statuses = statuses;
                }
            }
            let mut snapshot = Snapshot::new(k8s_nodes.iter().cloned(), bound);
            let opts = FilterOptions { version, ..Default::default() };
            match create_dra_pod(dra.state, &mut snapshot, pod, rcs, &opts, now) {
                Err(rejection) => return self.reject(&rejection),
                Ok(Applied::ClaimNotCreated { pod, event }) => {
                    self.phase = "Pending".into();
                    self.reason = String::new();
                    self.event_reason = event.reason.clone();
                    self.message = event.message.clone();
                    self.stored = Some(pod);
                }
                Ok(Applied::Waiting { pod, .. }) => {
                    // PreEnqueue holds it: the scheduler writes no event, no condition.
                    self.phase = "Pending".into();
                    self.reason = String::new();
                    self.event_reason = String::new();
                    self.message = String::new();
                    self.stored = Some(pod);
                }
                Ok(Applied::Cycle { scheduled, .. }) => self.take_cycle(*scheduled, &snapshot),
            }
            self.devices = self.stored.as_ref().map(|p| claim_devices(dra.state, p)).unwrap_or_default();
        }
        if self.node_name.is_empty() {
            return;
        }
        let Some(pod) = self.stored.clone() else { return };
        let mut claims = dra.state.pod_claims(&pod).unwrap_or_default();
        claims.extend(dra.state.extended_claim(&pod));
        let node = self.node_name.clone();
        let registered = |driver: &str| (dra.registered)(&node, driver);
        let prepare = |driver: &str, claim: &k8s_openapi::api::resource::v1::ResourceClaim| {
            if driver == crate::kubernetes::dra::nvidia::DRIVER {
                crate::kubernetes::dra::kubelet::nvidia_prepare(claim)
            } else {
                Ok(())
            }
        };
        if let Err(message) = crate::kubernetes::dra::kubelet::prepare(&claims, &registered, &prepare) {
            self.phase = "Pending".into();
            self.reason = "ContainerCreating".into();
            self.event_reason = crate::kubernetes::dra::kubelet::FAILED_PREPARE_DYNAMIC_RESOURCES.into();
            self.message = message;
            return;
        }
        self.sandbox(&pod, rcs, nodes);
    }

    /// The API server refused the pod: phase `Rejected` with kubectl's text.
    fn reject(&mut self, rejection: &crate::kubernetes::apply::Rejection) {
        self.phase = "Rejected".into();
        self.reason = rejection.reason.to_string();
        self.event_reason = String::new();
        self.message = rejection.kubectl_text(&self.source);
    }

    /// A scheduling cycle's verdict: the feasible nodes, the event, the condition,
    /// the node when bound, the pod as stored.
    fn take_cycle(&mut self, s: crate::kubernetes::apply::Scheduled, snapshot: &Snapshot) {
        self.feasible = s
            .result
            .nodes
            .iter()
            .zip(&snapshot.nodes)
            .filter(|(o, _)| matches!(o, NodeOutcome::Feasible { .. }))
            .map(|(_, n)| n.name.clone())
            .collect();
        self.phase = "Pending".into();
        self.event_reason = s.event.reason.clone();
        self.message = s.event.message.clone();
        self.reason = s.condition.reason.clone();
        if let Outcome::Scheduled { node, .. } = &s.result.outcome {
            self.node_name = node.clone();
            self.reason = String::new();
        }
        self.stored = Some(s.pod);
    }

    /// The kubelet asks the node's containerd for the sandbox and starts the pod.
    fn sandbox(&mut self, pod: &Pod, rcs: &[RuntimeClass], nodes: &[ModelNode]) {
        let Some(node) = nodes.iter().find(|n| n.spec.name == self.node_name) else { return };
        self.attempts += 1;
        let id = sandbox_id(&self.name, self.attempts);
        match create_pod_sandbox(pod, rcs, &loaded_cri(node), &id) {
            Ok(_) => {
                self.phase = "Running".into();
                self.reason = String::new();
                self.event_reason = "Started".into();
                self.message = format!("Started container {}", pod.spec.as_ref().and_then(|s| s.containers.first()).map(|c| c.name.as_str()).unwrap_or(""));
            }
            Err(e) => {
                self.phase = "Pending".into();
                self.reason = "ContainerCreating".into();
                self.event_reason = crate::kubernetes::kubelet::FAILED_CREATE_POD_SANDBOX.into();
                self.message = e.event_message();
            }
        }
    }

    pub fn observe(&self, field: Field) -> Option<Observed> {
        let t = |s: &str| Some(Observed::Text(s.to_string()));
        match field {
            Field::Phase => t(&self.phase),
            Field::Reason => t(&self.reason),
            Field::NodeName => t(&self.node_name),
            Field::Message => t(&self.message),
            Field::EventReason => t(&self.event_reason),
            Field::Devices => Some(Observed::List(self.devices.clone())),
            _ => None,
        }
    }
}

/// `request:pool/device` of every device allocated to the pod's claims and to the
/// claim the scheduler made for its extended resources, sorted (the live comparison
/// reads the real claims the same way).
pub fn claim_devices(state: &crate::kubernetes::dra::dynamicresources::State, pod: &Pod) -> Vec<String> {
    let mut claims = state.pod_claims(pod).unwrap_or_default();
    claims.extend(state.extended_claim(pod));
    let mut out: Vec<String> = claims
        .iter()
        .filter_map(|c| c.status.as_ref()?.allocation.as_ref()?.devices.as_ref()?.results.as_ref())
        .flatten()
        .map(|r| format!("{}:{}/{}", r.request, r.pool, r.device))
        .collect();
    crate::sort::sort(&mut out);
    out
}
