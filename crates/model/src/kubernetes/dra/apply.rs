//! A pod with ResourceClaims through the control plane, in the order the real one
//! goes: the API server admits it, the resource claim controller makes its claims
//! from templates, the scheduler's PreEnqueue holds it while a claim is missing,
//! one scheduling cycle with DynamicResources, and on success the claims'
//! allocation and `reservedFor` as PreBind writes them (or PostFilter's
//! deallocation). `gpulab schedule` and the live comparison call this; the pods of
//! a sequence see each other's claims and devices.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::resource::v1::AllocationResult;

use super::dynamicresources::{Plugin, State, DEALLOCATED, DELETED};
use crate::kubernetes::apply::{admit, schedule, Rejection, Scheduled};
use crate::kubernetes::events::Event;
use crate::kubernetes::scheduler::{FilterOptions, NodeOutcome, Outcome, PodInfo, Snapshot};

/// What became of one pod.
#[derive(Debug, Clone)]
pub enum Applied {
    /// The resource claim controller could not make a claim
    /// (`FailedResourceClaimCreation`); the scheduler never tries the pod.
    ClaimNotCreated { pod: Pod, event: Event },
    /// PreEnqueue holds the pod: the reason (the scheduler writes no event for it).
    Waiting { pod: Pod, reason: String },
    /// The scheduling cycle's verdict, and the claims it allocated (by claim name)
    /// when the pod was bound. When PostFilter deallocated a claim (or deleted the
    /// pod's extended-resource claim of an earlier cycle), the claim's change requeues
    /// the pod at once and this is the second cycle; `deallocated` names the claim and
    /// gives the first cycle's FailedScheduling text.
    Cycle { scheduled: Box<Scheduled>, allocations: Vec<(String, AllocationResult)>, deallocated: Option<(String, String)> },
}

impl Applied {
    /// The pod as stored after this step.
    pub fn pod(&self) -> &Pod {
        match self {
            Applied::ClaimNotCreated { pod, .. } | Applied::Waiting { pod, .. } => pod,
            Applied::Cycle { scheduled, .. } => &scheduled.pod,
        }
    }
}

/// Creates `pod` at `at` in a cluster with the DRA objects `state` (updated: new
/// claims, allocations, reservations) and the nodes of `snapshot` (updated: the pod
/// once bound). `opts.dra` is set here, and from 1.36 NodeResourcesFit's extended
/// resources that DeviceClasses back (`DRAExtendedResource`).
pub fn create_pod(
    state: &mut State,
    snapshot: &mut Snapshot,
    pod: Pod,
    runtime_classes: &[RuntimeClass],
    opts: &FilterOptions,
    at: i64,
) -> Result<Applied, Rejection> {
    let mut pod = admit(pod, runtime_classes)?;
    if pod.metadata.uid.is_none() {
        let ns = pod.metadata.namespace.clone().unwrap_or_else(|| "default".into());
        pod.metadata.uid = Some(format!("{ns}/{}", pod.metadata.name.clone().unwrap_or_default()));
    }
    if let Some(event) = state.create_claims_for(&mut pod, at) {
        return Ok(Applied::ClaimNotCreated { pod, event });
    }
    let plugin = Plugin::new(Arc::new(state.clone()), opts.version);
    if opts.version.dynamic_resources_enabled() {
        if let Err(reason) = plugin.pre_enqueue(&pod) {
            return Ok(Applied::Waiting { pod, reason });
        }
    }
    let mut opts = opts.clone();
    opts.dra = Some(Arc::new(plugin.clone()));
    opts.fit_args.dra_extended_resources = plugin.backed_resources();
    let scheduled = schedule(pod, snapshot, &opts, at);
    if let Outcome::Unschedulable { message, .. } = &scheduled.result.outcome {
        // PostFilter deleted the pod's extended-resource claim of an earlier cycle:
        // the claim's deletion requeues the pod at once.
        if let Some((ns, name)) = plugin.claim_to_delete(&scheduled.pod).filter(|_| message.contains(DELETED)) {
            state.delete(&ns, &name);
            return Ok(again(state, snapshot, &mut opts, &scheduled.pod, at, (name, message.clone())));
        }
        if message.contains(DEALLOCATED) {
            let rejected: Vec<_> = snapshot
                .nodes
                .iter()
                .zip(&scheduled.result.nodes)
                .filter(|(_, o)| matches!(o, NodeOutcome::Rejected(r) if r.plugin == crate::kubernetes::scheduler::Plugin::DynamicResources))
                .map(|(n, _)| n)
                .collect();
            if let Some((ns, name)) = plugin.claim_to_deallocate(&scheduled.pod, &rejected) {
                state.deallocate(&ns, &name);
                return Ok(again(state, snapshot, &mut opts, &scheduled.pod, at, (name, message.clone())));
            }
        }
    }
    let mut scheduled = scheduled;
    let allocations = bind(state, snapshot, &plugin, &mut scheduled);
    let deallocated = None;
    Ok(Applied::Cycle { scheduled: Box::new(scheduled), allocations, deallocated })
}

/// The cycle that follows at once when PostFilter freed or deleted a claim
/// (`changed`: that claim and the first cycle's text), bound if it finds a node.
fn again(state: &mut State, snapshot: &mut Snapshot, opts: &mut FilterOptions, pod: &Pod, at: i64, changed: (String, String)) -> Applied {
    let plugin = Plugin::new(Arc::new(state.clone()), opts.version);
    opts.dra = Some(Arc::new(plugin.clone()));
    let mut scheduled = schedule(pod.clone(), snapshot, opts, at);
    let allocations = bind(state, snapshot, &plugin, &mut scheduled);
    Applied::Cycle { scheduled: Box::new(scheduled), allocations, deallocated: Some(changed) }
}

/// PreBind and binding for a cycle that found a node: the claims' allocations and
/// reservations, the claim for extended resources and the pod's status naming it,
/// the pod on its node.
fn bind(state: &mut State, snapshot: &mut Snapshot, plugin: &Plugin, scheduled: &mut Scheduled) -> Vec<(String, AllocationResult)> {
    let Outcome::Scheduled { node_index, .. } = &scheduled.result.outcome else { return Vec::new() };
    let info = PodInfo::new(scheduled.pod.clone(), snapshot.pod_level_resources);
    let allocations = snapshot.nodes.get(*node_index).map(|n| plugin.allocations(&info, n)).unwrap_or_default();
    let allocated = state.bind(&mut scheduled.pod, &allocations);
    let info = PodInfo::new(scheduled.pod.clone(), snapshot.pod_level_resources);
    if let Some(node) = snapshot.nodes.get_mut(*node_index) {
        node.add_pod(info.as_bound());
    }
    allocated
}
