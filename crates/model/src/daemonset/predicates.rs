//! `NodeShouldRunDaemonPod` (`pkg/controller/daemon/daemon_controller.go`) and the
//! three predicates it needs: node name, required node affinity (nodeSelector and
//! `requiredDuringSchedulingIgnoredDuringExecution`), and NoSchedule/NoExecute taints
//! against the pod's tolerations plus the daemon tolerations the controller adds
//! (`util.AddOrUpdateDaemonPodTolerations`).
//!
//! Resources and host ports are deliberately *not* checked: upstream leaves them to
//! the scheduler ("we don't care about the resource constraints any more").
//!
//! Toleration and node-affinity matching are the Kubernetes model's
//! ([`crate::kubernetes::taints`], [`crate::kubernetes::affinity`]), the same code the
//! scheduler's filters run; only `NodeShouldRunDaemonPod`'s own rules live here.

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, PodSpec, Taint, Toleration};

use crate::kubernetes::{affinity, taints};

pub const TAINT_NODE_NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const TAINT_NODE_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const TAINT_NODE_DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
pub const TAINT_NODE_MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
pub const TAINT_NODE_PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
pub const TAINT_NODE_NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";
/// `metav1.ObjectNameField`, the only key `matchFields` accepts.
pub const NODE_FIELD_SELECTOR_KEY_NODE_NAME: &str = affinity::OBJECT_NAME_FIELD;

fn exists_toleration(key: &str, effect: &str) -> Toleration {
    Toleration {
        key: Some(key.to_string()),
        operator: Some("Exists".to_string()),
        effect: Some(effect.to_string()),
        ..Toleration::default()
    }
}

/// `util.AddOrUpdateDaemonPodTolerations`: the `Exists` tolerations every daemon pod
/// gets, appended after the template's own (or replacing an identical-identity one).
pub fn add_or_update_daemon_pod_tolerations(spec: &mut PodSpec) {
    let mut wanted = vec![
        exists_toleration(TAINT_NODE_NOT_READY, "NoExecute"),
        exists_toleration(TAINT_NODE_UNREACHABLE, "NoExecute"),
        exists_toleration(TAINT_NODE_DISK_PRESSURE, "NoSchedule"),
        exists_toleration(TAINT_NODE_MEMORY_PRESSURE, "NoSchedule"),
        exists_toleration(TAINT_NODE_PID_PRESSURE, "NoSchedule"),
        exists_toleration(TAINT_NODE_UNSCHEDULABLE, "NoSchedule"),
    ];
    if spec.host_network == Some(true) {
        wanted.push(exists_toleration(TAINT_NODE_NETWORK_UNAVAILABLE, "NoSchedule"));
    }
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for toleration in wanted {
        add_or_update_toleration(tolerations, toleration);
    }
}

/// `v1helper.AddOrUpdateTolerationInPodSpec`: a toleration with the same key, operator,
/// value and effect (`MatchToleration`) is replaced in place; otherwise it is appended.
fn add_or_update_toleration(tolerations: &mut Vec<Toleration>, toleration: Toleration) {
    let same = |t: &Toleration| {
        t.key == toleration.key
            && t.operator == toleration.operator
            && t.value == toleration.value
            && t.effect == toleration.effect
    };
    match tolerations.iter_mut().find(|t| same(t)) {
        Some(existing) => *existing = toleration,
        None => tolerations.push(toleration),
    }
}

/// `Toleration.ToleratesTaint` (the Kubernetes model's [`taints::tolerates`]).
pub use crate::kubernetes::taints::tolerates as tolerates_taint;

/// `v1helper.FindMatchingUntoleratedTaint`: the first taint passing `filter` that no
/// toleration tolerates ([`taints::find_matching_untolerated_taint`]).
pub fn find_matching_untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    filter: impl Fn(&Taint) -> bool,
) -> Option<&'a Taint> {
    taints::find_matching_untolerated_taint(taints, tolerations, filter).and_then(|i| taints.get(i))
}

/// `nodeaffinity.GetRequiredNodeAffinity(pod)`: the pod's `nodeSelector` and its
/// required node-affinity terms; `Match` needs both (matched by the Kubernetes
/// model's [`affinity::node_matches`]).
#[derive(Debug, Clone, Default)]
pub struct RequiredNodeAffinity {
    /// The parts of the pod spec matching reads: `nodeSelector` and `affinity`.
    spec: PodSpec,
}

impl RequiredNodeAffinity {
    pub fn from_pod_spec(spec: &PodSpec) -> Self {
        RequiredNodeAffinity {
            spec: PodSpec { node_selector: spec.node_selector.clone(), affinity: spec.affinity.clone(), ..PodSpec::default() },
        }
    }

    /// `RequiredNodeAffinity.Match`. Terms that do not parse (an unknown operator, a
    /// non-integer `Gt`) never match, as upstream's lazy-error selector does.
    pub fn matches(&self, node: &Node) -> bool {
        affinity::node_matches(&self.spec, affinity::NodeFields::of(node))
    }
}

/// Why a node does (not) run the daemon pod — the first failing predicate, for the
/// views and the diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ShouldRunReason {
    Runs,
    /// `spec.template.spec.nodeName` names another node.
    NodeNameMismatch,
    /// nodeSelector / required node affinity does not match the node's labels.
    NodeAffinity,
    /// An untolerated taint; `continues` is true for NoSchedule (an existing pod stays).
    Taint { key: String, value: String, effect: String, continues: bool },
}

/// The DaemonSet's side of `NodeShouldRunDaemonPod`, computed once per sync: upstream
/// builds `NewPod(ds, node)` for every node, but only `nodeName` differs between those
/// pods, and `fitsNodeName` is then always true — so the tolerations and affinity
/// can be shared, which keeps a sync over 5,000 nodes linear and cheap.
#[derive(Debug, Clone)]
pub struct DaemonPodPredicates {
    template_node_name: String,
    affinity: RequiredNodeAffinity,
    tolerations: Vec<Toleration>,
}

impl DaemonPodPredicates {
    pub fn new(ds: &DaemonSet) -> Self {
        let mut spec = ds
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.clone())
            .unwrap_or_default();
        add_or_update_daemon_pod_tolerations(&mut spec);
        DaemonPodPredicates {
            template_node_name: spec.node_name.clone().unwrap_or_default(),
            affinity: RequiredNodeAffinity::from_pod_spec(&spec),
            tolerations: spec.tolerations.unwrap_or_default(),
        }
    }

    /// `(shouldRun, shouldContinueRunning)`.
    pub fn node_should_run_daemon_pod(&self, node: &Node) -> (bool, bool) {
        match self.reason(node) {
            ShouldRunReason::Runs => (true, true),
            ShouldRunReason::Taint { continues, .. } => (false, continues),
            _ => (false, false),
        }
    }

    /// The first predicate that fails, in upstream's order.
    pub fn reason(&self, node: &Node) -> ShouldRunReason {
        let node_name = node.metadata.name.as_deref().unwrap_or("");
        if !self.template_node_name.is_empty() && self.template_node_name != node_name {
            return ShouldRunReason::NodeNameMismatch;
        }
        if !self.affinity.matches(node) {
            return ShouldRunReason::NodeAffinity;
        }
        let taints = node.spec.as_ref().and_then(|s| s.taints.as_deref()).unwrap_or(&[]);
        let untolerated = find_matching_untolerated_taint(taints, &self.tolerations, |t| {
            t.effect == "NoExecute" || t.effect == "NoSchedule"
        });
        match untolerated {
            None => ShouldRunReason::Runs,
            Some(taint) => {
                let no_execute = find_matching_untolerated_taint(taints, &self.tolerations, |t| t.effect == "NoExecute");
                ShouldRunReason::Taint {
                    key: taint.key.clone(),
                    value: taint.value.clone().unwrap_or_default(),
                    effect: taint.effect.clone(),
                    continues: no_execute.is_none(),
                }
            }
        }
    }
}

/// `NodeShouldRunDaemonPod(node, ds) (shouldRun, shouldContinueRunning bool)`.
pub fn node_should_run_daemon_pod(node: &Node, ds: &DaemonSet) -> (bool, bool) {
    DaemonPodPredicates::new(ds).node_should_run_daemon_pod(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm, NodeSpec};

    fn node(labels: &[(&str, &str)], taints: Vec<Taint>) -> Node {
        let mut n = Node::default();
        n.metadata.name = Some("n1".into());
        n.metadata.labels = Some(labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
        n.spec = Some(NodeSpec { taints: Some(taints), ..NodeSpec::default() });
        n
    }

    fn ds(spec: PodSpec) -> DaemonSet {
        DaemonSet {
            spec: Some(k8s_openapi::api::apps::v1::DaemonSetSpec {
                template: k8s_openapi::api::core::v1::PodTemplateSpec { metadata: None, spec: Some(spec) },
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn taint(key: &str, effect: &str) -> Taint {
        Taint { key: key.into(), effect: effect.into(), ..Taint::default() }
    }

    /// A NoSchedule taint stops new daemon pods but keeps running ones; NoExecute stops both.
    #[test]
    fn no_schedule_keeps_running_no_execute_evicts() {
        let d = ds(PodSpec::default());
        assert_eq!(node_should_run_daemon_pod(&node(&[], vec![taint("gpu", "NoSchedule")]), &d), (false, true));
        assert_eq!(node_should_run_daemon_pod(&node(&[], vec![taint("gpu", "NoExecute")]), &d), (false, false));
        assert_eq!(node_should_run_daemon_pod(&node(&[], vec![taint("gpu", "PreferNoSchedule")]), &d), (true, true));
    }

    /// Unschedulable nodes (and the other condition taints) are tolerated by every daemon pod.
    #[test]
    fn daemon_tolerations_cover_condition_taints() {
        let d = ds(PodSpec::default());
        for key in [TAINT_NODE_UNSCHEDULABLE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_PID_PRESSURE] {
            assert_eq!(node_should_run_daemon_pod(&node(&[], vec![taint(key, "NoSchedule")]), &d), (true, true));
        }
        // network-unavailable only with hostNetwork.
        let n = node(&[], vec![taint(TAINT_NODE_NETWORK_UNAVAILABLE, "NoSchedule")]);
        assert_eq!(node_should_run_daemon_pod(&n, &d), (false, true));
        let d = ds(PodSpec { host_network: Some(true), ..PodSpec::default() });
        assert_eq!(node_should_run_daemon_pod(&n, &d), (true, true));
    }

    /// The GPU taint must be tolerated by the template itself.
    #[test]
    fn template_toleration_for_gpu_taint() {
        let tol = Toleration { key: Some("nvidia.com/gpu".into()), operator: Some("Exists".into()), effect: Some("NoSchedule".into()), ..Default::default() };
        let d = ds(PodSpec { tolerations: Some(vec![tol]), ..PodSpec::default() });
        assert_eq!(node_should_run_daemon_pod(&node(&[], vec![taint("nvidia.com/gpu", "NoSchedule")]), &d), (true, true));
    }

    /// nodeSelector and matchExpressions operators, including NotIn on an absent label.
    #[test]
    fn affinity_operators() {
        let labels = [("gpu", "true"), ("count", "4")];
        let n = node(&labels, vec![]);
        let req = |key: &str, op: &str, values: &[&str]| NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: Some(values.iter().map(|s| s.to_string()).collect()),
        };
        let term = |r: NodeSelectorRequirement| NodeSelectorTerm { match_expressions: Some(vec![r]), match_fields: None };
        let labels_map: std::collections::BTreeMap<String, String> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let term_matches = |t: &NodeSelectorTerm, _: &std::collections::BTreeMap<String, String>, name: &str| {
            affinity::term_matches(t, affinity::NodeFields { labels: Some(&labels_map), name })
        };
        assert!(term_matches(&term(req("gpu", "In", &["true"])), &labels_map, "n1"));
        assert!(term_matches(&term(req("zone", "NotIn", &["a"])), &labels_map, "n1"));
        assert!(term_matches(&term(req("count", "Gt", &["3"])), &labels_map, "n1"));
        assert!(!term_matches(&term(req("count", "Lt", &["x"])), &labels_map, "n1"));
        assert!(term_matches(&term(req("gpu", "Exists", &[])), &labels_map, "n1"));
        assert!(!term_matches(&NodeSelectorTerm::default(), &labels_map, "n1"));
        let fields = NodeSelectorTerm { match_expressions: None, match_fields: Some(vec![req("metadata.name", "In", &["n1"])]) };
        assert!(term_matches(&fields, &labels_map, "n1"));
        assert!(!term_matches(&fields, &labels_map, "n2"));
        let d = ds(PodSpec { node_selector: Some([("gpu".to_string(), "false".to_string())].into()), ..PodSpec::default() });
        assert_eq!(node_should_run_daemon_pod(&n, &d), (false, false));
    }
}
