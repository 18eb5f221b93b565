//! Creating a pod in the modelled cluster, end to end, in the API server's order:
//! defaulting (requests from limits), the default mutating admission plugins
//! (ServiceAccount, Priority, DefaultTolerationSeconds), RuntimeClass Admit (overhead, scheduling),
//! field validation, RuntimeClass Validate — then one scheduling cycle with its
//! event, condition and per-node explanation. This is what `gpulab schedule` and the
//! app's scheduling step call.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;

use super::events::{scheduling_event, Condition, Event};
use super::runtimeclass;
use super::kubectl::describe_events;
use super::scheduler::explain::{explain_cycle, table, NodeExplanation};
use super::version::KubeVersion;
use super::scheduler::{schedule_one, FilterOptions, Outcome, PodInfo, ScheduleResult, Snapshot};
use super::validation::{default_requests_from_limits, invalid_message, validate_pod_resources};

/// Why the API server refused the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// `Forbidden` (admission) or `Invalid` (validation).
    pub reason: &'static str,
    /// The API error message.
    pub message: String,
}

impl Rejection {
    /// What `kubectl apply -f FILE` prints for it.
    pub fn kubectl_text(&self, file: &str) -> String {
        match self.reason {
            "Invalid" => format!("The {}", self.message),
            reason => format!("Error from server ({reason}): error when creating {file:?}: {}", self.message),
        }
    }
}

/// A pod the API server accepted, and what the scheduler did with it.
#[derive(Debug, Clone)]
pub struct Scheduled {
    /// The pod as stored (defaulted and mutated by admission).
    pub pod: Pod,
    pub result: ScheduleResult,
    pub event: Event,
    pub condition: Condition,
    pub explanation: Vec<NodeExplanation>,
}

impl Scheduled {
    /// What `gpulab schedule` prints for the pod (its text output, before any claims'
    /// devices): where it went — with the nodes it tied with, or Pending and the node
    /// preemption nominated — then the Events of `kubectl describe pod`, a blank line and
    /// the node × plugin table. `snapshot` is the cluster it was scheduled on.
    pub fn printed(&self, snapshot: &Snapshot, version: KubeVersion) -> String {
        let mut out = self.verdict(snapshot, version);
        out.push('\n');
        out.push_str(&describe_events(std::slice::from_ref(&self.event), 0));
        out.push('\n');
        out.push_str(&table(&self.explanation));
        out
    }

    /// The first lines of [`Scheduled::printed`], without the last newline: where the
    /// pod went (and the nominated node when preemption found room).
    pub fn verdict(&self, snapshot: &Snapshot, version: KubeVersion) -> String {
        let name = self.pod.metadata.name.as_deref().unwrap_or_default();
        let namespace = self.pod.metadata.namespace.as_deref().unwrap_or("default");
        match &self.result.outcome {
            Outcome::Scheduled { node, .. } => {
                let tied = self.result.tied_names(snapshot);
                if tied.len() > 1 {
                    format!("{namespace}/{name}: Scheduled to {node} (tied with: {})", tied.join(", "))
                } else {
                    format!("{namespace}/{name}: Scheduled to {node}")
                }
            }
            Outcome::Unschedulable { nominated_node: Some(n), .. } => {
                format!("{namespace}/{name}: Pending (Kubernetes {version})\nNominated node (preemption): {n}")
            }
            Outcome::Unschedulable { .. } | Outcome::Error { .. } => format!("{namespace}/{name}: Pending (Kubernetes {version})"),
        }
    }
}

/// Creates `pod` at time `at` and schedules it once.
pub fn create_pod(
    pod: Pod,
    snapshot: &Snapshot,
    runtime_classes: &[RuntimeClass],
    opts: &FilterOptions,
    at: i64,
) -> Result<Scheduled, Rejection> {
    let mut pod = admit(pod, runtime_classes)?;
    // The API server stamps what it stores (`FillObjectMetaSystemFields`), so kubectl
    // prints the pod's AGE from `at`, never `<unknown>`.
    pod.metadata.creation_timestamp = Some(super::time(at));
    Ok(schedule(pod, snapshot, opts, at))
}

/// What the API server does on create: defaulting, mutating admission, validation.
pub fn admit(mut pod: Pod, runtime_classes: &[RuntimeClass]) -> Result<Pod, Rejection> {
    default_requests_from_limits(&mut pod);
    super::admission::default_mutating(&mut pod);
    runtimeclass::admit(&mut pod, runtime_classes).map_err(|e| Rejection { reason: e.reason, message: e.message })?;
    let errs = validate_pod_resources(&pod);
    if !errs.is_empty() {
        let name = pod.metadata.name.clone().unwrap_or_default();
        return Err(Rejection { reason: "Invalid", message: invalid_message("Pod", &name, &errs) });
    }
    runtimeclass::validate(&pod, runtime_classes).map_err(|e| Rejection { reason: e.reason, message: e.message })?;
    Ok(pod)
}

/// One scheduling cycle for a pod the API server stored.
pub fn schedule(mut pod: Pod, snapshot: &Snapshot, opts: &FilterOptions, at: i64) -> Scheduled {
    let info = PodInfo::new(pod.clone(), snapshot.pod_level_resources);
    let result = schedule_one(snapshot, &info, opts);
    let (namespace, name) = info.key();
    let (event, condition) = scheduling_event(&namespace, &name, &result, at);
    let explanation = explain_cycle(snapshot, &info, &result, opts.version);
    record_status(&mut pod, &result, &condition);
    Scheduled { pod, result, event, condition, explanation }
}

/// What the scheduler writes back: the binding (`spec.nodeName`), or phase Pending
/// with the PodScheduled condition and `status.nominatedNodeName`.
fn record_status(pod: &mut Pod, result: &ScheduleResult, condition: &Condition) {
    use k8s_openapi::api::core::v1::{PodCondition, PodStatus};
    if let Outcome::Scheduled { node, .. } = &result.outcome {
        pod.spec.get_or_insert_with(Default::default).node_name = Some(node.clone());
    }
    let status = pod.status.get_or_insert_with(PodStatus::default);
    status.phase = Some("Pending".into());
    if let Outcome::Unschedulable { nominated_node, .. } = &result.outcome {
        status.nominated_node_name = nominated_node.clone();
    }
    let cond = PodCondition {
        type_: condition.type_.clone(),
        status: condition.status.clone(),
        reason: (!condition.reason.is_empty()).then(|| condition.reason.clone()),
        message: (!condition.message.is_empty()).then(|| condition.message.clone()),
        ..Default::default()
    };
    let conds = status.conditions.get_or_insert_with(Vec::new);
    conds.retain(|c| c.type_ != cond.type_);
    conds.push(cond);
}
