//! DefaultPreemption's PostFilter (`Evaluator.Preempt`): eligibility, candidate
//! nodes (filter code exactly Unschedulable), the dry run per node
//! (`SelectVictimsOnNode`: remove every lower-priority pod, re-filter, reprieve from
//! the most important down), and the FitError suffix when nothing helps (spec §1.4).
//!
//! Deterministic where upstream is not: every candidate is dry-run (upstream stops
//! after `numCandidates` from a random offset), and ties after upstream's criteria
//! go to the first node in snapshot order. PodDisruptionBudgets are not modelled.

use std::cmp::Ordering;

use super::fit_error::{Diagnosis, FitError};
use super::framework::{run_filter_plugins, CycleState, FilterOptions};
use super::snapshot::{BoundPod, NodeInfo, PodInfo, Snapshot};
use super::status::{Code, Status};

/// `"No preemption victims found for incoming pod"`.
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
/// `"Preemption is not helpful for scheduling"`.
pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// The PostFilter prefix.
pub const PREFIX: &str = "preemption: ";

/// The outcome of preemption for one pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreemptionResult {
    /// The PostFilter status (`preemption: …` message when not Success).
    pub status: Status,
    /// The node nominated for the pod (`status.nominatedNodeName`); `None` = cleared.
    pub nominated_node: Option<String>,
    /// The pods to evict, `(namespace, name)`, most important first.
    pub victims: Vec<(String, String)>,
}

/// A node where preemption would make room.
#[derive(Debug, Clone)]
struct Candidate {
    node_index: usize,
    victims: Vec<BoundPod>,
}

/// `util.MoreImportantPod`: higher priority, then earlier start time.
fn more_important(a: &BoundPod, b: &BoundPod) -> Ordering {
    b.priority.cmp(&a.priority).then_with(|| match (&a.start_time, &b.start_time) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    })
}

/// `SelectVictimsOnNode`: `Ok(victims)` or the status explaining why not.
fn select_victims_on_node(
    pod: &PodInfo,
    node: &NodeInfo,
    state: &CycleState,
    opts: &FilterOptions,
) -> Result<Vec<BoundPod>, Status> {
    let mut n = node.clone();
    let mut potential: Vec<BoundPod> = Vec::new();
    let mut i = 0;
    while i < n.pods.len() {
        if n.pods.get(i).is_some_and(|p| p.priority < pod.priority) {
            if let Some(p) = n.remove_pod(i) {
                potential.push(p);
            }
        } else {
            i += 1;
        }
    }
    if potential.is_empty() {
        return Err(Status::new(Code::UnschedulableAndUnresolvable, [NO_VICTIMS]));
    }
    if let Some(r) = run_filter_plugins(pod, &n, state, opts) {
        return Err(r.to_status(pod, &n, opts.version));
    }
    potential.sort_by(more_important);
    let mut victims = Vec::new();
    for p in potential {
        n.add_pod(p.clone());
        if run_filter_plugins(pod, &n, state, opts).is_some() {
            let last = n.pods.len().saturating_sub(1);
            n.remove_pod(last);
            victims.push(p);
        }
    }
    Ok(victims)
}

/// `pickOneNodeForPreemption` without PDBs: lowest highest-victim priority, lowest
/// priority sum, fewest victims, latest earliest start among the top victims, first.
fn pick_one(candidates: &[Candidate]) -> Option<&Candidate> {
    if let Some(c) = candidates.iter().find(|c| c.victims.is_empty()) {
        return Some(c);
    }
    let highest = |c: &Candidate| c.victims.first().map_or(i64::MIN, |v| i64::from(v.priority));
    let sum = |c: &Candidate| c.victims.iter().map(|v| i64::from(v.priority) + i64::from(i32::MAX) + 1).sum::<i64>();
    let earliest_top = |c: &Candidate| {
        let top = c.victims.first().map(|v| v.priority);
        c.victims.iter().filter(|v| Some(v.priority) == top).filter_map(|v| v.start_time.clone()).min()
    };
    let mut best: Option<&Candidate> = None;
    for c in candidates {
        best = match best {
            None => Some(c),
            Some(b) => {
                let ord = highest(c)
                    .cmp(&highest(b))
                    .then_with(|| sum(c).cmp(&sum(b)))
                    .then_with(|| c.victims.len().cmp(&b.victims.len()))
                    .then_with(|| earliest_top(b).cmp(&earliest_top(c)));
                if ord == Ordering::Less {
                    Some(c)
                } else {
                    Some(b)
                }
            }
        };
    }
    best
}

/// `PodEligibleToPreemptOthers`: the text when the pod may not preempt.
pub fn pod_eligible_to_preempt_others(
    pod: &PodInfo,
    snapshot: &Snapshot,
    nominated_code: Option<Code>,
) -> Option<&'static str> {
    let spec = pod.pod.spec.as_ref();
    if spec.and_then(|s| s.preemption_policy.as_deref()) == Some("Never") {
        return Some("not eligible due to preemptionPolicy=Never.");
    }
    let nominated = pod.pod.status.as_ref().and_then(|s| s.nominated_node_name.as_deref()).unwrap_or("");
    if !nominated.is_empty() {
        if nominated_code == Some(Code::UnschedulableAndUnresolvable) {
            return None;
        }
        if let Some(n) = snapshot.index_of(nominated).and_then(|i| snapshot.nodes.get(i)) {
            if n.pods.iter().any(|p| p.priority < pod.priority && p.terminating) {
                return Some("not eligible due to a terminating pod on the nominated node.");
            }
        }
    }
    None
}

/// DefaultPreemption.PostFilter. `filter_codes[i]` is node `i`'s Filter code, `None`
/// when the node has no explicit status (counted as UnschedulableAndUnresolvable).
pub fn post_filter(
    snapshot: &Snapshot,
    pod: &PodInfo,
    filter_codes: &[Option<Code>],
    state: &CycleState,
    opts: &FilterOptions,
) -> PreemptionResult {
    let cleared = |status: Status| PreemptionResult { status, nominated_node: None, victims: Vec::new() };
    let nominated_code = pod
        .pod
        .status
        .as_ref()
        .and_then(|s| s.nominated_node_name.as_deref())
        .and_then(|n| snapshot.index_of(n))
        .and_then(|i| filter_codes.get(i).copied().flatten());
    if let Some(msg) = pod_eligible_to_preempt_others(pod, snapshot, nominated_code) {
        return cleared(Status::new(Code::Unschedulable, [format!("{PREFIX}{msg}")]));
    }
    let mut node_to_status: Vec<(String, Status)> = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    for (i, node) in snapshot.nodes.iter().enumerate() {
        if filter_codes.get(i).copied().flatten() != Some(Code::Unschedulable) {
            continue;
        }
        match select_victims_on_node(pod, node, state, opts) {
            Ok(victims) => candidates.push(Candidate { node_index: i, victims }),
            Err(s) => node_to_status.push((node.name.clone(), s)),
        }
    }
    match pick_one(&candidates) {
        Some(c) => {
            let node = snapshot.nodes.get(c.node_index).map(|n| n.name.clone());
            PreemptionResult {
                status: Status::success(),
                nominated_node: node,
                victims: c.victims.iter().map(|v| (v.namespace.clone(), v.name.clone())).collect(),
            }
        }
        None => {
            let fit_error = FitError {
                num_all_nodes: snapshot.nodes.len(),
                diagnosis: Diagnosis {
                    node_to_status,
                    absent_nodes_status: Some(Status::new(Code::UnschedulableAndUnresolvable, [NOT_HELPFUL])),
                    ..Default::default()
                },
            };
            cleared(Status::new(Code::Unschedulable, [format!("{PREFIX}{}", fit_error.message())]))
        }
    }
}
