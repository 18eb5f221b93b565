//! `FitError.Error()` (pkg/scheduler/framework/types.go): the
//! `0/N nodes are available: …` text, byte-exact (spec §1.2).

use std::collections::BTreeMap;

use super::status::Status;

/// `NoNodeAvailableMsg`.
pub const NO_NODE_AVAILABLE_MSG: &str = "0/{} nodes are available";

/// What the scheduling cycle learned about the nodes (`framework.Diagnosis`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnosis {
    /// Explicit per-node statuses, in node order.
    pub node_to_status: Vec<(String, Status)>,
    /// The status of nodes without an explicit one (`NodeToStatus.AbsentNodesStatus`).
    pub absent_nodes_status: Option<Status>,
    /// A PreFilter rejection text; when set, node statuses are not counted.
    pub pre_filter_msg: String,
    /// The PostFilter (preemption) message, appended as is.
    pub post_filter_msg: String,
}

/// The error of a scheduling cycle that found no node (`framework.FitError`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FitError {
    pub num_all_nodes: usize,
    pub diagnosis: Diagnosis,
}

impl FitError {
    /// The histogram `reason → count` over explicit statuses plus the absent-nodes
    /// status counted `num_all_nodes − explicit` times.
    pub fn histogram(&self) -> BTreeMap<String, usize> {
        let mut h: BTreeMap<String, usize> = BTreeMap::new();
        for (_, status) in &self.diagnosis.node_to_status {
            for r in &status.reasons {
                *h.entry(r.clone()).or_default() += 1;
            }
        }
        let explicit = self.diagnosis.node_to_status.len();
        if let Some(absent) = &self.diagnosis.absent_nodes_status {
            if self.num_all_nodes > explicit {
                for r in &absent.reasons {
                    *h.entry(r.clone()).or_default() += self.num_all_nodes - explicit;
                }
            }
        }
        h
    }

    /// `FitError.Error()`.
    pub fn message(&self) -> String {
        let histogram = if self.diagnosis.pre_filter_msg.is_empty() { self.histogram() } else { BTreeMap::new() };
        fit_error_message(
            self.num_all_nodes,
            &self.diagnosis.pre_filter_msg,
            histogram.iter().map(|(r, c)| (r.as_str(), *c)),
            &self.diagnosis.post_filter_msg,
        )
    }
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// The text of `FitError.Error()` from its parts; `histogram` is `(reason, count)` in
/// any order (it is ignored when `pre_filter_msg` is set). Entries are printed as
/// `"{count} {reason}"` and sorted as whole strings (`sort.Strings`), so `"154 …"`
/// sorts before `"33 …"`.
pub fn fit_error_message<'a>(
    num_all_nodes: usize,
    pre_filter_msg: &str,
    histogram: impl IntoIterator<Item = (&'a str, usize)>,
    post_filter_msg: &str,
) -> String {
    let mut msg = format!("0/{num_all_nodes} nodes are available:");
    if !pre_filter_msg.is_empty() {
        msg.push(' ');
        msg.push_str(pre_filter_msg);
        msg.push('.');
    } else {
        let mut entries: Vec<String> =
            histogram.into_iter().filter(|(_, c)| *c > 0).map(|(r, c)| format!("{c} {r}")).collect();
        entries.sort();
        if !entries.is_empty() {
            msg.push(' ');
            msg.push_str(&entries.join(", "));
            msg.push('.');
        }
    }
    if !post_filter_msg.is_empty() {
        msg.push(' ');
        msg.push_str(post_filter_msg);
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kubernetes/kubernetes#120293: counts sort as text, `154` before `33`.
    #[test]
    fn sorts_entries_as_strings_issue_120293() {
        let m = fit_error_message(
            254,
            "",
            [
                ("Too many pods", 1),
                ("node(s) didn't match the requested hostname", 154),
                ("Insufficient memory", 33),
                ("Insufficient cpu", 69),
            ],
            "",
        );
        assert_eq!(
            m,
            "0/254 nodes are available: 1 Too many pods, 154 node(s) didn't match the requested hostname, 33 Insufficient memory, 69 Insufficient cpu."
        );
    }
}
