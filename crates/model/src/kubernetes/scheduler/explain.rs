//! The per-node explanation a learner reads next to the FailedScheduling text:
//! node × plugin → `passed`, `skipped` or the plugin's own message (the shape
//! kube-scheduler-simulator shows), plus the score of feasible nodes.

use super::framework::{explain, Plugin};
use super::schedule_one::{NodeOutcome, ScheduleResult};
use super::snapshot::{PodInfo, Snapshot};
use crate::kubernetes::tabwriter;
use crate::kubernetes::version::KubeVersion;

/// One node's row.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeExplanation {
    pub node: String,
    /// `(plugin, result)` in filter order; plugins after the rejecting one did not run.
    pub filters: Vec<(String, String)>,
    /// The weighted score when the node is feasible.
    pub score: Option<i64>,
}

/// The explanation of every node of a cycle, in snapshot order.
pub fn explain_cycle(
    snapshot: &Snapshot,
    pod: &PodInfo,
    result: &ScheduleResult,
    version: KubeVersion,
) -> Vec<NodeExplanation> {
    snapshot
        .nodes
        .iter()
        .zip(result.nodes.iter())
        .map(|(node, outcome)| {
            let (filters, score) = match outcome {
                NodeOutcome::Feasible { score } => (explain(None, pod, node, &result.state, version), Some(*score)),
                NodeOutcome::Rejected(r) => (explain(Some(r), pod, node, &result.state, version), None),
                NodeOutcome::NotInPreFilterResult => {
                    (vec![("PreFilter", "node(s) didn't satisfy plugin(s) [NodeAffinity]".to_string())], None)
                }
                NodeOutcome::PreFilterRejected => (
                    vec![("PreFilter", result.pre_filter_status.as_ref().map(|s| s.message()).unwrap_or_default())],
                    None,
                ),
            };
            NodeExplanation {
                node: node.name.clone(),
                filters: filters.into_iter().map(|(p, r)| (p.to_string(), r)).collect(),
                score,
            }
        })
        .collect()
}

/// The explanation as a table (kubectl `get` layout): one row per node, one column
/// per filter plugin (DynamicResources when the pod has claims), then SCORE; cells of
/// plugins that did not run are `-`.
pub fn table(rows: &[NodeExplanation]) -> String {
    let dra = rows.iter().any(|r| r.filters.iter().any(|(p, _)| p == Plugin::DynamicResources.name()));
    let mut plugins: Vec<Plugin> = Plugin::FILTERS.to_vec();
    if dra {
        plugins.push(Plugin::DynamicResources);
    }
    let mut text = String::from("NODE");
    for p in &plugins {
        text.push('\t');
        text.push_str(p.name());
    }
    text.push_str("\tSCORE\n");
    for row in rows {
        text.push_str(&row.node);
        if let [(first, msg)] = row.filters.as_slice() {
            if first == "PreFilter" {
                text.push('\t');
                text.push_str(msg);
                for _ in 1..plugins.len() {
                    text.push_str("\t-");
                }
                text.push_str("\t-\n");
                continue;
            }
        }
        for p in &plugins {
            let cell = row.filters.iter().find(|(n, _)| n == p.name()).map_or("-", |(_, r)| r.as_str());
            text.push('\t');
            text.push_str(cell);
        }
        text.push('\t');
        text.push_str(&row.score.map_or("-".to_string(), |s| s.to_string()));
        text.push('\n');
    }
    tabwriter::GET.format(&text)
}
