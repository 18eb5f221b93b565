//! Many scheduling cycles on one cluster: [`HotSnapshot`] is a [`Snapshot`] with a
//! compact per-node hot table — integer allocatable / requested / pod count, scalar
//! resources in columns by an interned name, `spec.unschedulable` and taints reduced
//! to one flag — kept up to date by [`HotSnapshot::add_pod`] and
//! [`HotSnapshot::remove_pod`], and the per-node verdicts of the last cycle, which the
//! next cycle of a pod with the same requests reuses on every node that has not
//! changed since (binding a pod changes one node).
//!
//! [`HotSnapshot::schedule_one`] returns exactly what [`schedule_one`] returns on
//! [`HotSnapshot::snapshot`]: the same outcome, FitError text and per-node verdicts (a
//! property test compares them on random clusters). Per-node reasons stay compact
//! ([`Rejection`]) and are rendered to upstream text only when a FitError or an
//! explanation is. Pods outside the fast path (node affinity or nodeSelector, host
//! ports, `spec.nodeName`, preferred affinity, NodeResourcesFit arguments) take
//! [`schedule_one`] itself; tainted or cordoned nodes take the plugin functions.

use super::framework::{run_filter_plugins, CycleState, FilterOptions, FitReasons, Plugin, Reason, Rejection};
use super::node_affinity::{self, NodeAffinityPreFilter};
use super::noderesources_fit::Shortfall;
use super::schedule_one::{fail, schedule_one, NodeOutcome, Outcome, ScheduleResult};
use super::scoring::{
    balanced_allocation_of, finish_scores, has_preferred_affinity, least_allocated_of, raw_score, RawScore, MAX_NODE_SCORE,
};
use super::snapshot::{BoundPod, NodeInfo, PodInfo, Snapshot};
use super::status::Code;
use crate::kubernetes::resources::Resource;
use crate::kubernetes::version::KubeVersion;

/// One node's hot row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Row {
    /// Schedulable and untainted: for a fast-path pod only NodeResourcesFit can
    /// reject it, and its TaintToleration score is 0.
    plain: bool,
    pods: i64,
    allowed_pods: i64,
    /// cpu (millicores), memory, ephemeral-storage.
    alloc: [i64; 3],
    req: [i64; 3],
    /// Scoring requests (cpu, memory).
    non_zero: [i64; 2],
}

impl Row {
    fn of(node: &NodeInfo) -> Row {
        let (a, r) = (&node.allocatable, &node.requested);
        Row {
            plain: !node.unschedulable() && node.taints().is_empty(),
            pods: node.pods.len() as i64,
            allowed_pods: a.allowed_pod_number,
            alloc: [a.milli_cpu, a.memory, a.ephemeral_storage],
            req: [r.milli_cpu, r.memory, r.ephemeral_storage],
            non_zero: [node.non_zero_requested.0, node.non_zero_requested.1],
        }
    }
}

/// What a cached verdict depends on besides the node: the pod's requests and the
/// version (the Unresolvable rule).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    request: Resource,
    non_zero: (i64, i64),
    version: KubeVersion,
}

/// The last fast-path cycle's verdict per node (meaningful on plain nodes): the
/// rejection, or the LeastAllocated + BalancedAllocation score.
#[derive(Debug, Clone, Default)]
struct Verdicts {
    key: Option<Key>,
    per_node: Vec<Result<i64, Rejection>>,
    /// Nodes changed since `per_node` was computed, once each.
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
}

/// A [`Snapshot`] with its hot table; see the module documentation.
#[derive(Debug, Clone)]
pub struct HotSnapshot {
    snapshot: Snapshot,
    rows: Vec<Row>,
    /// Interned scalar resource names; column `c` is `columns[c]`.
    columns: Vec<String>,
    /// `[column][node]`: allocatable and requested of each scalar resource (0 when absent).
    scalar_alloc: Vec<Vec<i64>>,
    scalar_req: Vec<Vec<i64>>,
    verdicts: Verdicts,
    /// Every node is plain (no node is cordoned or tainted).
    all_plain: bool,
}

impl HotSnapshot {
    /// Builds the hot table of `snapshot`.
    pub fn new(snapshot: Snapshot) -> HotSnapshot {
        let n = snapshot.nodes.len();
        let mut hot = HotSnapshot {
            rows: snapshot.nodes.iter().map(Row::of).collect(),
            snapshot,
            columns: Vec::new(),
            scalar_alloc: Vec::new(),
            scalar_req: Vec::new(),
            verdicts: Verdicts { key: None, per_node: Vec::new(), dirty: Vec::new(), is_dirty: vec![false; n] },
            all_plain: false,
        };
        hot.all_plain = hot.rows.iter().all(|r| r.plain);
        for i in 0..n {
            hot.load_scalars(i);
        }
        hot
    }

    /// The snapshot, read-only: change it through [`HotSnapshot::add_pod`] and
    /// [`HotSnapshot::remove_pod`] so the hot table follows.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The snapshot, giving up the hot table.
    pub fn into_snapshot(self) -> Snapshot {
        self.snapshot
    }

    /// `NodeInfo.AddPod` on node `node_index`; false when there is no such node.
    pub fn add_pod(&mut self, node_index: usize, pod: BoundPod) -> bool {
        let Some(node) = self.snapshot.nodes.get_mut(node_index) else { return false };
        node.add_pod(pod);
        self.reload(node_index);
        true
    }

    /// `NodeInfo.RemovePod` of the pod at `pod_index` on node `node_index`.
    pub fn remove_pod(&mut self, node_index: usize, pod_index: usize) -> Option<BoundPod> {
        let pod = self.snapshot.nodes.get_mut(node_index)?.remove_pod(pod_index)?;
        self.reload(node_index);
        Some(pod)
    }

    /// Rereads node `i`'s row and scalar columns and marks its verdict stale.
    fn reload(&mut self, i: usize) {
        let Some(node) = self.snapshot.nodes.get(i) else { return };
        if let Some(row) = self.rows.get_mut(i) {
            *row = Row::of(node);
        }
        for column in self.scalar_req.iter_mut() {
            if let Some(v) = column.get_mut(i) {
                *v = 0;
            }
        }
        self.load_scalars(i);
        if let Some(flag) = self.verdicts.is_dirty.get_mut(i) {
            if !*flag {
                *flag = true;
                self.verdicts.dirty.push(i);
            }
        }
    }

    /// Writes node `i`'s scalar allocatable and requested into their columns.
    fn load_scalars(&mut self, i: usize) {
        let Some(node) = self.snapshot.nodes.get(i) else { return };
        for (is_req, list) in [(false, node.allocatable.scalars()), (true, node.requested.scalars())] {
            for (name, v) in list {
                let c = match self.columns.iter().position(|c| c.as_str() == name.as_str()) {
                    Some(c) => c,
                    None => {
                        let n = self.snapshot.nodes.len();
                        self.columns.push(name.as_str().to_string());
                        self.scalar_alloc.push(vec![0; n]);
                        self.scalar_req.push(vec![0; n]);
                        self.columns.len() - 1
                    }
                };
                let table = if is_req { &mut self.scalar_req } else { &mut self.scalar_alloc };
                if let Some(slot) = table.get_mut(c).and_then(|col| col.get_mut(i)) {
                    *slot = *v;
                }
            }
        }
    }

    /// Whether `pod` takes the fast path: only NodeResourcesFit (and the taint and
    /// cordon filters of non-plain nodes) can reject it, and it scores without
    /// node affinity.
    fn fast_path(&self, pod: &PodInfo, opts: &FilterOptions) -> bool {
        let spec = pod.pod.spec.as_ref();
        let pre = spec.map_or(NodeAffinityPreFilter::Skip, node_affinity::pre_filter);
        !self.snapshot.nodes.is_empty()
            && pre == NodeAffinityPreFilter::Skip
            && spec.and_then(|s| s.node_name.as_deref()).is_none_or(str::is_empty)
            && pod.host_ports.is_empty()
            && !has_preferred_affinity(pod)
            && opts.fit_args.ignored_resources.is_empty()
            && opts.fit_args.ignored_resource_groups.is_empty()
            && opts.fit_args.dra_extended_resources.is_none()
            // A pod with claims runs DynamicResources on every node.
            && (opts.dra.is_none() || spec.and_then(|s| s.resource_claims.as_ref()).is_none_or(Vec::is_empty))
    }

    /// One cycle for `pod`: what [`schedule_one`] on [`HotSnapshot::snapshot`] returns.
    pub fn schedule_one(&mut self, pod: &PodInfo, opts: &FilterOptions) -> ScheduleResult {
        if !self.fast_path(pod, opts) {
            return schedule_one(&self.snapshot, pod, opts);
        }
        self.refresh_verdicts(pod, opts.version);
        let state = CycleState { skip_node_affinity: true, skip_node_ports: true, dra: None };
        if self.all_plain {
            return self.plain_cycle(pod, opts, state);
        }
        let n = self.snapshot.nodes.len();
        // One pass writing every node's verdict in place; a feasible node holds its raw
        // resource score until the scores are finished. Non-plain nodes run the plugins.
        let mut nodes: Vec<NodeOutcome> = vec![NodeOutcome::NotInPreFilterResult; n];
        let mut feasible = 0usize;
        let mut slow: Vec<(usize, RawScore)> = Vec::new();
        let cached = self.verdicts.per_node.iter();
        for (i, (((slot, node), row), verdict)) in nodes.iter_mut().zip(&self.snapshot.nodes).zip(&self.rows).zip(cached).enumerate() {
            *slot = if row.plain {
                match verdict {
                    Ok(resources) => {
                        feasible += 1;
                        NodeOutcome::Feasible { score: *resources }
                    }
                    Err(r) => NodeOutcome::Rejected(*r),
                }
            } else {
                match run_filter_plugins(pod, node, &state, opts) {
                    Some(r) => NodeOutcome::Rejected(r),
                    None => {
                        let score = raw_score(pod, node, false);
                        slow.push((i, score));
                        feasible += 1;
                        NodeOutcome::Feasible { score: score.resources }
                    }
                }
            };
        }
        let mut result = ScheduleResult {
            outcome: Outcome::Error { message: String::new() },
            nodes,
            state,
            pre_filter_status: None,
        };
        if feasible == 0 {
            result.outcome = fail(&self.snapshot, pod, &result.nodes, &result.state, opts);
            return result;
        }
        if slow.iter().all(|(_, s)| s.intolerable == 0 && s.preferred == 0) {
            // Every raw TaintToleration and NodeAffinity score is 0: normalised they
            // are 100 (reversed) and 0, as `finish_scores` computes.
            for outcome in result.nodes.iter_mut() {
                if let NodeOutcome::Feasible { score } = outcome {
                    *score = score.wrapping_add(MAX_NODE_SCORE.wrapping_mul(3));
                }
            }
        } else {
            let mut extra = slow.iter().peekable();
            let mut indices = Vec::with_capacity(feasible);
            let mut raw = Vec::with_capacity(feasible);
            for (i, outcome) in result.nodes.iter().enumerate() {
                if let NodeOutcome::Feasible { score } = outcome {
                    indices.push(i);
                    raw.push(match extra.next_if(|(j, _)| *j == i) {
                        Some((_, s)) => *s,
                        None => RawScore { resources: *score, intolerable: 0, preferred: 0 },
                    });
                }
            }
            for (i, s) in indices.into_iter().zip(finish_scores(&raw)) {
                if let Some(NodeOutcome::Feasible { score }) = result.nodes.get_mut(i) {
                    *score = s;
                }
            }
        }
        let (mut best, mut ties) = (i64::MIN, 0usize);
        for outcome in &result.nodes {
            if let NodeOutcome::Feasible { score } = *outcome {
                if score > best {
                    (best, ties) = (score, 1);
                } else if score == best {
                    ties += 1;
                }
            }
        }
        self.finish(result, best, ties)
    }

    /// A cycle on a cluster of plain nodes: the cached verdicts are the result; every
    /// raw TaintToleration and NodeAffinity score is 0, so each feasible node's score is
    /// its resource score + 3 × 100 (as `finish_scores` computes), in the same pass.
    fn plain_cycle(&self, pod: &PodInfo, opts: &FilterOptions, state: CycleState) -> ScheduleResult {
        let (mut best, mut ties) = (i64::MIN, 0usize);
        let nodes: Vec<NodeOutcome> = self
            .verdicts
            .per_node
            .iter()
            .map(|v| match v {
                Ok(resources) => {
                    let score = resources.wrapping_add(MAX_NODE_SCORE.wrapping_mul(3));
                    if score > best {
                        (best, ties) = (score, 1);
                    } else if score == best {
                        ties += 1;
                    }
                    NodeOutcome::Feasible { score }
                }
                Err(r) => NodeOutcome::Rejected(*r),
            })
            .collect();
        let mut result =
            ScheduleResult { outcome: Outcome::Error { message: String::new() }, nodes, state, pre_filter_status: None };
        if ties == 0 {
            result.outcome = fail(&self.snapshot, pod, &result.nodes, &result.state, opts);
            return result;
        }
        self.finish(result, best, ties)
    }

    /// The tied set (`ties` feasible nodes scoring `best`) and the chosen node.
    fn finish(&self, mut result: ScheduleResult, best: i64, ties: usize) -> ScheduleResult {
        let top = result
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, o)| matches!(o, NodeOutcome::Feasible { score } if *score == best))
            .map(|(i, _)| i);
        let mut tied = vec![0usize; ties];
        for (slot, i) in tied.iter_mut().zip(top) {
            *slot = i;
        }
        let node_index = tied.first().copied().unwrap_or(0);
        let node = self.snapshot.nodes.get(node_index).map(|n| n.name.clone()).unwrap_or_default();
        result.outcome = Outcome::Scheduled { node, node_index, tied, score: best };
        result
    }

    /// Brings the cached verdicts up to date for `pod`: all nodes when the pod's
    /// requests differ from the last cycle's, else the nodes changed since.
    fn refresh_verdicts(&mut self, pod: &PodInfo, version: KubeVersion) {
        let n = self.rows.len();
        let same = self.verdicts.key.as_ref().is_some_and(|k| {
            k.request == pod.request && k.non_zero == pod.non_zero && k.version == version
        });
        let all = !same || self.verdicts.per_node.len() != n;
        let load = PodLoad::new(pod, version, &self.columns, &self.scalar_alloc, &self.scalar_req);
        let rows = &self.rows;
        let eval = |i: usize| rows.get(i).map_or(Ok(0), |row| load.verdict(row, i));
        if all {
            self.verdicts.per_node = (0..n).map(eval).collect();
        } else {
            for &i in &self.verdicts.dirty {
                if let Some(slot) = self.verdicts.per_node.get_mut(i) {
                    *slot = eval(i);
                }
            }
        }
        for &i in &self.verdicts.dirty {
            if let Some(flag) = self.verdicts.is_dirty.get_mut(i) {
                *flag = false;
            }
        }
        self.verdicts.dirty.clear();
        if !same {
            self.verdicts.key = Some(Key { request: pod.request.clone(), non_zero: pod.non_zero, version });
        }
    }
}

/// The pod's side of a plain node's verdict, resolved once per cycle.
struct PodLoad<'a> {
    /// cpu, memory, ephemeral-storage requested.
    wanted: [i64; 3],
    empty_request: bool,
    non_zero: (i64, i64),
    /// `(index in the pod's scalar requests, allocatable column, requested column,
    /// quantity)` of each non-zero scalar request; columns are empty for a resource
    /// no node has (0 on every node).
    scalars: Vec<(usize, &'a [i64], &'a [i64], i64)>,
    /// 1.34+: a request above allocatable is UnschedulableAndUnresolvable.
    unresolvable_rule: bool,
}

impl<'a> PodLoad<'a> {
    fn new(pod: &PodInfo, version: KubeVersion, columns: &[String], alloc: &'a [Vec<i64>], req: &'a [Vec<i64>]) -> Self {
        let r = &pod.request;
        let scalars = r
            .scalars()
            .iter()
            .enumerate()
            .filter(|(_, (_, q))| *q != 0)
            .map(|(k, (name, q))| {
                let c = columns.iter().position(|c| c.as_str() == name.as_str());
                let column = |t: &'a [Vec<i64>]| c.and_then(|c| t.get(c)).map_or(&[][..], Vec::as_slice);
                (k, column(alloc), column(req), *q)
            })
            .collect();
        PodLoad {
            wanted: [r.milli_cpu, r.memory, r.ephemeral_storage],
            empty_request: r.is_empty_request(),
            non_zero: pod.non_zero,
            scalars,
            unresolvable_rule: version.fit_unresolvable_when_over_allocatable(),
        }
    }

    /// NodeResourcesFit (`fitsRequest`) and the LeastAllocated + BalancedAllocation
    /// score of plain node `i` from its hot row (`Ok(0)` for a node that is not plain).
    fn verdict(&self, row: &Row, i: usize) -> Result<i64, Rejection> {
        if !row.plain {
            return Ok(0);
        }
        let mut reasons = FitReasons::default();
        let mut unresolvable = false;
        if row.pods.wrapping_add(1) > row.allowed_pods {
            reasons.insert(Shortfall::TooManyPods);
        }
        let ([want_cpu, want_memory, want_storage], [alloc_cpu, alloc_memory, alloc_storage], [req_cpu, req_memory, req_storage]) =
            (self.wanted, row.alloc, row.req);
        if !self.empty_request {
            if want_cpu > 0 && want_cpu > alloc_cpu.wrapping_sub(req_cpu) {
                reasons.insert(Shortfall::Cpu);
                unresolvable |= want_cpu > alloc_cpu;
            }
            if want_memory > 0 && want_memory > alloc_memory.wrapping_sub(req_memory) {
                reasons.insert(Shortfall::Memory);
                unresolvable |= want_memory > alloc_memory;
            }
            if want_storage > 0 && want_storage > alloc_storage.wrapping_sub(req_storage) {
                reasons.insert(Shortfall::EphemeralStorage);
                unresolvable |= want_storage > alloc_storage;
            }
            for &(k, alloc, used, q) in &self.scalars {
                let (alloc, used) = (alloc.get(i).copied().unwrap_or(0), used.get(i).copied().unwrap_or(0));
                if q > alloc.wrapping_sub(used) {
                    reasons.insert(Shortfall::Scalar(k));
                    unresolvable |= q > alloc;
                }
            }
        }
        if !reasons.is_empty() {
            let code = if unresolvable && self.unresolvable_rule {
                Code::UnschedulableAndUnresolvable
            } else {
                Code::Unschedulable
            };
            return Err(Rejection::new(Plugin::NodeResourcesFit, code, Reason::Fit(reasons)));
        }
        let [non_zero_cpu, non_zero_memory] = row.non_zero;
        let least = least_allocated_of(
            (alloc_cpu, non_zero_cpu.wrapping_add(self.non_zero.0)),
            (alloc_memory, non_zero_memory.wrapping_add(self.non_zero.1)),
        );
        let balanced = balanced_allocation_of(
            (alloc_cpu, req_cpu.wrapping_add(want_cpu)),
            (alloc_memory, req_memory.wrapping_add(want_memory)),
        );
        Ok(least.wrapping_add(balanced))
    }
}
