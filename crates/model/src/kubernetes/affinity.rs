//! Required node affinity: `nodeSelector` plus
//! `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`, matched as
//! `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)` does (terms ORed,
//! expressions ANDed, a term that fails to parse matches nothing).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec};

use super::resources::{is_qualified_name, is_valid_label_value};

/// The field key DaemonSet pods are pinned with.
pub const OBJECT_NAME_FIELD: &str = "metadata.name";

/// What a node offers to matching: its labels and its name.
#[derive(Debug, Clone, Copy)]
pub struct NodeFields<'a> {
    pub labels: Option<&'a BTreeMap<String, String>>,
    pub name: &'a str,
}

impl<'a> NodeFields<'a> {
    /// The labels and name of a Node object.
    pub fn of(node: &'a Node) -> NodeFields<'a> {
        NodeFields { labels: node.metadata.labels.as_ref(), name: node.metadata.name.as_deref().unwrap_or("") }
    }

    fn label(&self, key: &str) -> Option<&'a str> {
        self.labels.and_then(|l| l.get(key)).map(String::as_str)
    }
}

/// `labels.Requirement.Matches` for one expression; `Err` when the requirement does
/// not parse (unknown operator, wrong number of values, bad key or value).
pub fn requirement_matches(req: &NodeSelectorRequirement, value: Option<&str>) -> Result<bool, String> {
    let values = req.values.as_deref().unwrap_or(&[]);
    if !is_qualified_name(&req.key) {
        return Err(format!("invalid label key {:?}", req.key));
    }
    match req.operator.as_str() {
        "In" | "NotIn" => {
            if values.is_empty() {
                return Err("for 'in', 'notin' operators, values set can't be empty".into());
            }
            if let Some(bad) = values.iter().find(|v| !is_valid_label_value(v)) {
                return Err(format!("invalid label value: {bad:?}"));
            }
            let hit = value.is_some_and(|v| values.iter().any(|x| x == v));
            Ok(if req.operator == "In" { hit } else { !hit })
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                return Err("values set must be empty for exists and does not exist".into());
            }
            Ok((req.operator == "Exists") == value.is_some())
        }
        "Gt" | "Lt" => {
            let [bound] = values else {
                return Err("for 'Gt', 'Lt' operators, exactly one value is required".into());
            };
            let bound: i64 = bound
                .parse()
                .map_err(|_| format!("for 'Gt', 'Lt' operators, the value must be an integer: {bound:?}"))?;
            let Some(v) = value.and_then(|v| v.parse::<i64>().ok()) else { return Ok(false) };
            Ok(if req.operator == "Gt" { v > bound } else { v < bound })
        }
        op => Err(format!("{op:?} is not a valid node selector operator")),
    }
}

/// One `NodeSelectorTerm`: all expressions and fields must match; an empty term
/// matches nothing; a term with a parse error matches nothing.
pub fn term_matches(term: &NodeSelectorTerm, node: NodeFields<'_>) -> bool {
    let exprs = term.match_expressions.as_deref().unwrap_or(&[]);
    let fields = term.match_fields.as_deref().unwrap_or(&[]);
    if exprs.is_empty() && fields.is_empty() {
        return false;
    }
    for r in exprs {
        match requirement_matches(r, node.label(&r.key)) {
            Ok(true) => {}
            _ => return false,
        }
    }
    for f in fields {
        // nodeSelectorRequirementsAsFieldSelector: exactly one value, In or NotIn; the
        // only field a node offers is metadata.name (others read as "").
        let values = f.values.as_deref().unwrap_or(&[]);
        let ([value], "In" | "NotIn") = (values, f.operator.as_str()) else { return false };
        let field = if f.key == OBJECT_NAME_FIELD { node.name } else { "" };
        if (f.operator == "In") != (value == field) {
            return false;
        }
    }
    true
}

/// A `NodeSelector`: the terms are ORed.
pub fn node_selector_matches(sel: &NodeSelector, node: NodeFields<'_>) -> bool {
    sel.node_selector_terms.iter().any(|t| term_matches(t, node))
}

/// `nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)`: the pod's `nodeSelector`
/// (every key equal) and its required node affinity (if any) both hold.
pub fn node_matches(spec: &PodSpec, node: NodeFields<'_>) -> bool {
    if let Some(sel) = &spec.node_selector {
        if !sel.iter().all(|(k, v)| node.label(k) == Some(v.as_str())) {
            return false;
        }
    }
    match required_affinity(spec) {
        Some(req) => node_selector_matches(req, node),
        None => true,
    }
}

/// The pod's `requiredDuringSchedulingIgnoredDuringExecution`, if set.
pub fn required_affinity(spec: &PodSpec) -> Option<&NodeSelector> {
    spec.affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| na.required_during_scheduling_ignored_during_execution.as_ref())
}

/// The weight sum of the pod's preferred node-affinity terms that match (scoring).
pub fn preferred_score(spec: &PodSpec, node: NodeFields<'_>) -> i64 {
    spec.affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|na| na.preferred_during_scheduling_ignored_during_execution.as_ref())
        .map_or(0, |terms| {
            terms
                .iter()
                .filter(|t| t.weight != 0 && term_matches(&t.preference, node))
                .map(|t| i64::from(t.weight))
                .sum()
        })
}

/// The outcome of NodeAffinity's PreFilter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeAffinityPreFilter {
    /// No required affinity and no nodeSelector: the plugin skips the pod.
    Skip,
    /// Every node is a candidate.
    AllNodes,
    /// `matchFields metadata.name In` narrows the candidates (sorted names).
    NodeNames(Vec<String>),
    /// Every term pins conflicting names: `pod affinity terms conflict`.
    Conflict,
}

/// `errReasonConflict`.
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

/// NodeAffinity.PreFilter: which nodes can match at all.
pub fn node_affinity_pre_filter(spec: &PodSpec) -> NodeAffinityPreFilter {
    let req = required_affinity(spec);
    if req.is_none() && spec.node_selector.is_none() {
        return NodeAffinityPreFilter::Skip;
    }
    let Some(req) = req else { return NodeAffinityPreFilter::AllNodes };
    if req.node_selector_terms.is_empty() {
        return NodeAffinityPreFilter::AllNodes;
    }
    let mut names: Option<std::collections::BTreeSet<String>> = None;
    for t in &req.node_selector_terms {
        let mut term_names: Option<std::collections::BTreeSet<String>> = None;
        for r in t.match_fields.iter().flatten() {
            if r.key == OBJECT_NAME_FIELD && r.operator == "In" {
                let s: std::collections::BTreeSet<String> = r.values.iter().flatten().cloned().collect();
                term_names = Some(match term_names {
                    None => s,
                    Some(prev) => prev.intersection(&s).cloned().collect(),
                });
            }
        }
        let Some(term_names) = term_names else { return NodeAffinityPreFilter::AllNodes };
        names.get_or_insert_with(Default::default).extend(term_names);
    }
    match names {
        Some(n) if n.is_empty() => NodeAffinityPreFilter::Conflict,
        Some(n) => NodeAffinityPreFilter::NodeNames(n.into_iter().collect()),
        None => NodeAffinityPreFilter::AllNodes,
    }
}
