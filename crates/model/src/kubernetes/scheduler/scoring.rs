//! Scoring among feasible nodes with the default weights: NodeResourcesFit
//! (LeastAllocated, weight 1), NodeResourcesBalancedAllocation (weight 1),
//! TaintToleration (PreferNoSchedule, weight 3), NodeAffinity (preferred terms,
//! weight 2). The real scheduler picks at random among the top; the model returns
//! the whole tied set.

use super::snapshot::{NodeInfo, PodInfo};
use crate::kubernetes::affinity::{preferred_score, NodeFields};
use crate::kubernetes::taints::{tolerates, PREFER_NO_SCHEDULE};

/// `framework.MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

#[inline(always)]
fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    capacity.wrapping_sub(requested).wrapping_mul(MAX_NODE_SCORE).wrapping_div(capacity)
}

/// NodeResourcesFit's LeastAllocated score (cpu and memory, weight 1 each).
pub fn least_allocated(pod: &PodInfo, node: &NodeInfo) -> i64 {
    least_allocated_of(
        (node.allocatable.milli_cpu, node.non_zero_requested.0.wrapping_add(pod.non_zero.0)),
        (node.allocatable.memory, node.non_zero_requested.1.wrapping_add(pod.non_zero.1)),
    )
}

/// [`least_allocated`] from `(allocatable, requested with the pod)` of cpu and memory
/// (a resource with no allocatable is left out of the mean).
#[inline(always)]
pub fn least_allocated_of(cpu: (i64, i64), memory: (i64, i64)) -> i64 {
    match (cpu.0 != 0, memory.0 != 0) {
        (true, true) => least_requested_score(memory.1, memory.0)
            .wrapping_add(least_requested_score(cpu.1, cpu.0))
            .wrapping_div(2),
        (true, false) => least_requested_score(cpu.1, cpu.0),
        (false, true) => least_requested_score(memory.1, memory.0),
        (false, false) => 0,
    }
}

/// NodeResourcesBalancedAllocation: `(1 − std of the cpu/memory fractions) × 100`.
pub fn balanced_allocation(pod: &PodInfo, node: &NodeInfo) -> i64 {
    balanced_allocation_of(
        (node.allocatable.milli_cpu, node.requested.milli_cpu.wrapping_add(pod.request.milli_cpu)),
        (node.allocatable.memory, node.requested.memory.wrapping_add(pod.request.memory)),
    )
}

/// [`balanced_allocation`] from `(allocatable, requested with the pod)` of cpu and memory.
#[inline(always)]
pub fn balanced_allocation_of(cpu: (i64, i64), memory: (i64, i64)) -> i64 {
    // Two fractions: std = |f1 − f2| / 2; fewer: 0.
    let std = if cpu.0 != 0 && memory.0 != 0 {
        let fraction = |(a, r): (i64, i64)| (r as f64 / a as f64).min(1.0);
        ((fraction(cpu) - fraction(memory)) / 2.0).abs()
    } else {
        0.0
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

/// TaintToleration's raw score: PreferNoSchedule taints the pod does not tolerate
/// (tolerations with an empty or PreferNoSchedule effect count).
pub fn intolerable_prefer_no_schedule(pod: &PodInfo, node: &NodeInfo) -> i64 {
    let taints = node.taints();
    if taints.is_empty() {
        return 0;
    }
    let tols = pod.tolerations();
    let counts = |t: &&k8s_openapi::api::core::v1::Toleration| {
        matches!(t.effect.as_deref(), None | Some("") | Some(PREFER_NO_SCHEDULE))
    };
    taints
        .iter()
        .filter(|t| t.effect == PREFER_NO_SCHEDULE && !tols.iter().filter(counts).any(|tol| tolerates(tol, t)))
        .count() as i64
}

/// `DefaultNormalizeScore`.
pub fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().max().unwrap_or(0);
    for s in scores.iter_mut() {
        let mut v = if max == 0 { 0 } else { MAX_NODE_SCORE.wrapping_mul(*s).wrapping_div(max) };
        if reverse {
            v = MAX_NODE_SCORE.wrapping_sub(v);
        }
        *s = v;
    }
}

/// A node's scores before normalisation: LeastAllocated + BalancedAllocation (their
/// weights are 1 and they need no normalising), and the raw TaintToleration and
/// NodeAffinity scores that are normalised over all feasible nodes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawScore {
    pub resources: i64,
    pub intolerable: i64,
    pub preferred: i64,
}

/// Whether the pod has preferred node-affinity terms (else NodeAffinity scores 0).
pub fn has_preferred_affinity(pod: &PodInfo) -> bool {
    pod.pod
        .spec
        .as_ref()
        .and_then(|s| s.affinity.as_ref())
        .and_then(|a| a.node_affinity.as_ref())
        .is_some_and(|na| na.preferred_during_scheduling_ignored_during_execution.is_some())
}

/// The raw scores of one feasible node (computed in the same pass as its filters).
pub fn raw_score(pod: &PodInfo, node: &NodeInfo, has_preferred: bool) -> RawScore {
    RawScore {
        resources: least_allocated(pod, node).wrapping_add(balanced_allocation(pod, node)),
        intolerable: intolerable_prefer_no_schedule(pod, node),
        preferred: match (&pod.pod.spec, has_preferred) {
            (Some(s), true) => preferred_score(s, NodeFields::of(&node.node)),
            _ => 0,
        },
    }
}

/// Normalises and weights raw scores (TaintToleration × 3 reversed, NodeAffinity × 2).
pub fn finish_scores(raw: &[RawScore]) -> Vec<i64> {
    let mut taint: Vec<i64> = raw.iter().map(|r| r.intolerable).collect();
    default_normalize(&mut taint, true);
    let mut affinity: Vec<i64> = raw.iter().map(|r| r.preferred).collect();
    default_normalize(&mut affinity, false);
    raw.iter()
        .zip(taint.iter().zip(affinity.iter()))
        .map(|(r, (t, a))| r.resources.wrapping_add(t.wrapping_mul(3)).wrapping_add(a.wrapping_mul(2)))
        .collect()
}

/// The weighted total per feasible node (same order as `nodes`).
pub fn score_nodes(pod: &PodInfo, nodes: &[&NodeInfo]) -> Vec<i64> {
    let has_preferred = has_preferred_affinity(pod);
    let raw: Vec<RawScore> = nodes.iter().map(|n| raw_score(pod, n, has_preferred)).collect();
    finish_scores(&raw)
}
