//! One scheduling cycle (`schedule_one.go`): PreFilter, Filter on every node, then
//! PostFilter (DynamicResources on 1.34+, DefaultPreemption) and the FitError text on
//! failure, or scoring and the chosen node (with its tied set) on success.

use super::fit_error::fit_error_message;
use super::framework::{run_filter_plugins, run_post_filter_plugins, CycleState, FilterOptions, Rejection};
use super::node_affinity::{self, NodeAffinityPreFilter};
use super::preemption;
use super::scoring::{finish_scores, has_preferred_affinity, raw_score, RawScore};
use super::snapshot::{PodInfo, Snapshot};
use super::status::{Code, Status};

/// `ErrNoNodesAvailable`.
pub const ERR_NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";
/// DynamicResources' PostFilter reason for a pod without claims (1.34+).
pub const NO_NEW_CLAIMS: &str = "no new claims to deallocate";

/// What happened to one node in the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeOutcome {
    /// Every filter passed; the weighted score.
    Feasible { score: i64 },
    /// A filter rejected it.
    Rejected(Rejection),
    /// Outside the PreFilter result (`node(s) didn't satisfy plugin(s) [NodeAffinity]`).
    NotInPreFilterResult,
    /// PreFilter rejected the pod before any node was looked at.
    PreFilterRejected,
}

/// The verdict of a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Bound to `node` (at `node_index` in the snapshot); `tied` are the snapshot
    /// indices of all nodes with the top score (the real scheduler picks one of them
    /// at random; the model picks the first).
    Scheduled { node: String, node_index: usize, tied: Vec<usize>, score: i64 },
    /// No node fits: the FailedScheduling text (`FitError.Error()`), the nominated
    /// node if preemption found room, and the victims.
    Unschedulable { message: String, nominated_node: Option<String>, victims: Vec<(String, String)> },
    /// Not a FitError (`SchedulerError`), e.g. `no nodes available to schedule pods`.
    Error { message: String },
}

/// The result of [`schedule_one`].
#[derive(Debug, Clone)]
pub struct ScheduleResult {
    pub outcome: Outcome,
    /// One entry per snapshot node, in snapshot order.
    pub nodes: Vec<NodeOutcome>,
    pub state: CycleState,
    /// PreFilter's rejection, if any.
    pub pre_filter_status: Option<Status>,
}

impl ScheduleResult {
    /// The names of the tied top-scoring nodes.
    pub fn tied_names(&self, snapshot: &Snapshot) -> Vec<String> {
        match &self.outcome {
            Outcome::Scheduled { tied, .. } => {
                tied.iter().filter_map(|&i| snapshot.nodes.get(i).map(|n| n.name.clone())).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Whether the pod was bound.
    pub fn is_scheduled(&self) -> bool {
        matches!(self.outcome, Outcome::Scheduled { .. })
    }
}

/// Runs one cycle for `pod` on `snapshot`.
pub fn schedule_one(snapshot: &Snapshot, pod: &PodInfo, opts: &FilterOptions) -> ScheduleResult {
    let n = snapshot.nodes.len();
    let mut result = ScheduleResult {
        outcome: Outcome::Error { message: ERR_NO_NODES_AVAILABLE.into() },
        nodes: Vec::with_capacity(n),
        state: CycleState::default(),
        pre_filter_status: None,
    };
    if n == 0 {
        return result;
    }
    let pre = match &pod.pod.spec {
        Some(spec) => node_affinity::pre_filter(spec),
        None => NodeAffinityPreFilter::Skip,
    };
    result.state.skip_node_affinity = pre == NodeAffinityPreFilter::Skip;
    result.state.skip_node_ports = pod.host_ports.is_empty();

    // PreFilter in profile order: NodeAffinity, …, DynamicResources; the first
    // UnschedulableAndUnresolvable ends it.
    let mut rejected = None;
    if pre == NodeAffinityPreFilter::Conflict {
        rejected = Some(
            Status::new(Code::UnschedulableAndUnresolvable, [node_affinity::ERR_REASON_CONFLICT]).with_plugin("NodeAffinity"),
        );
    } else if let Some(dra) = opts.dra.as_ref().filter(|_| opts.version.dynamic_resources_enabled()) {
        match dra.pre_filter(pod) {
            Ok(cycle) => result.state.dra = cycle,
            Err(status) if status.code == Code::Error => {
                result.outcome = Outcome::Error {
                    message: format!("running PreFilter plugin \"DynamicResources\": {}", status.message()),
                };
                result.nodes = vec![NodeOutcome::PreFilterRejected; n];
                result.pre_filter_status = Some(status);
                return result;
            }
            Err(status) => rejected = Some(status.with_plugin("DynamicResources")),
        }
    }
    if let Some(status) = rejected {
        result.nodes = vec![NodeOutcome::PreFilterRejected; n];
        let post = post_filter(snapshot, pod, &vec![Some(status.code); n], &[], &result.state, opts);
        result.outcome = Outcome::Unschedulable {
            message: fit_error_message(n, &status.message(), std::iter::empty(), &post.0),
            nominated_node: post.1,
            victims: post.2,
        };
        result.pre_filter_status = Some(status);
        return result;
    }
    let allowed: Option<&[String]> = match &pre {
        NodeAffinityPreFilter::NodeNames(names) => Some(names),
        _ => None,
    };

    // One pass per node: filters, and the raw scores of a feasible node while its
    // data is in cache.
    let has_preferred = has_preferred_affinity(pod);
    let mut feasible: Vec<usize> = Vec::new();
    let mut raw: Vec<RawScore> = Vec::new();
    for (i, node) in snapshot.nodes.iter().enumerate() {
        if allowed.is_some_and(|a| a.binary_search(&node.name).is_err()) {
            result.nodes.push(NodeOutcome::NotInPreFilterResult);
            continue;
        }
        match run_filter_plugins(pod, node, &result.state, opts) {
            Some(r) if r.code == Code::Error => {
                // A Filter error stops the cycle (`running "DynamicResources" filter plugin: …`).
                let text = result.state.dra.as_ref().map(|d| d.filter_error(node)).unwrap_or_default();
                result.outcome = Outcome::Error { message: format!("running {:?} filter plugin: {text}", r.plugin.name()) };
                result.nodes.push(NodeOutcome::Rejected(r));
                return result;
            }
            Some(r) => result.nodes.push(NodeOutcome::Rejected(r)),
            None => {
                feasible.push(i);
                raw.push(raw_score(pod, node, has_preferred));
                result.nodes.push(NodeOutcome::Feasible { score: 0 });
            }
        }
    }

    if feasible.is_empty() {
        let message_and_post = fail(snapshot, pod, &result.nodes, &result.state, opts);
        result.outcome = message_and_post;
        return result;
    }

    let scores = finish_scores(&raw);
    for (&i, &s) in feasible.iter().zip(scores.iter()) {
        if let Some(slot) = result.nodes.get_mut(i) {
            *slot = NodeOutcome::Feasible { score: s };
        }
    }
    let best = scores.iter().copied().max().unwrap_or(0);
    let tied: Vec<usize> = feasible.iter().zip(scores.iter()).filter(|(_, &s)| s == best).map(|(&i, _)| i).collect();
    let node_index = tied.first().copied().unwrap_or(0);
    let node = snapshot.nodes.get(node_index).map(|n| n.name.clone()).unwrap_or_default();
    result.outcome = Outcome::Scheduled { node, node_index, tied, score: best };
    result
}

/// FitError + PostFilter for a cycle where no node passed Filter.
pub(crate) fn fail(
    snapshot: &Snapshot,
    pod: &PodInfo,
    nodes: &[NodeOutcome],
    state: &CycleState,
    opts: &FilterOptions,
) -> Outcome {
    // Histogram of reasons: few distinct texts, counted without a map.
    let mut hist: Vec<(String, usize)> = Vec::new();
    let mut absent = 0usize;
    let mut codes: Vec<Option<Code>> = Vec::with_capacity(nodes.len());
    for (node, outcome) in snapshot.nodes.iter().zip(nodes.iter()) {
        match outcome {
            NodeOutcome::Rejected(r) => {
                codes.push(Some(r.code));
                r.for_each_reason(pod, node, opts.version, |reason| match hist.iter_mut().find(|(t, _)| t == reason) {
                    Some((_, c)) => *c += 1,
                    None => hist.push((reason.to_string(), 1)),
                });
            }
            NodeOutcome::NotInPreFilterResult => {
                codes.push(Some(Code::UnschedulableAndUnresolvable));
                absent += 1;
            }
            _ => codes.push(None),
        }
    }
    if absent > 0 {
        hist.push(("node(s) didn't satisfy plugin(s) [NodeAffinity]".to_string(), absent));
    }
    let dra_rejected: Vec<&super::snapshot::NodeInfo> = snapshot
        .nodes
        .iter()
        .zip(nodes.iter())
        .filter(|(_, o)| matches!(o, NodeOutcome::Rejected(r) if r.plugin == super::framework::Plugin::DynamicResources))
        .map(|(n, _)| n)
        .collect();
    let (post_msg, nominated_node, victims) = post_filter(snapshot, pod, &codes, &dra_rejected, state, opts);
    Outcome::Unschedulable {
        message: fit_error_message(snapshot.nodes.len(), "", hist.iter().map(|(r, c)| (r.as_str(), *c)), &post_msg),
        nominated_node,
        victims,
    }
}

/// Runs the PostFilter plugins of the version's default profile; returns
/// (PostFilterMsg, nominated node, victims).
fn post_filter(
    snapshot: &Snapshot,
    pod: &PodInfo,
    codes: &[Option<Code>],
    dra_rejected: &[&super::snapshot::NodeInfo],
    state: &CycleState,
    opts: &FilterOptions,
) -> (String, Option<String>, Vec<(String, String)>) {
    let mut results: Vec<(String, Status)> = Vec::new();
    if opts.version.dynamic_resources_enabled() {
        let status = match &state.dra {
            Some(cycle) => cycle.post_filter(dra_rejected),
            None => {
                let reasons: &[&str] = if opts.version.dra_no_claims_message() { &[NO_NEW_CLAIMS] } else { &[] };
                Status::new(Code::Unschedulable, reasons.iter().copied())
            }
        };
        results.push(("DynamicResources".into(), status));
    }
    let pre = preemption::post_filter(snapshot, pod, codes, state, opts);
    results.push(("DefaultPreemption".into(), pre.status.clone()));
    let status = run_post_filter_plugins(results);
    if status.is_success() {
        (String::new(), pre.nominated_node, pre.victims)
    } else {
        (status.message(), None, Vec::new())
    }
}
