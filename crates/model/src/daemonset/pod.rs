//! Pod helpers the controller and the views share, with upstream names:
//! `podutil.IsPodReady` / `IsPodAvailable`, `util.IsPodUpdated`,
//! `util.GetTargetNodeName`, `podByCreationTimestampAndPhase`. The clock type is the
//! Kubernetes model's ([`crate::kubernetes::time`]), the Ready condition the kubelet's
//! ([`crate::kubernetes::kubelet::set_pod_ready`]).

use std::cmp::Ordering;

use k8s_openapi::api::core::v1::{Pod, PodCondition};

use super::predicates::NODE_FIELD_SELECTOR_KEY_NODE_NAME;
use crate::kubernetes::unix;

/// `apps.DefaultDaemonSetUniqueLabelKey` (= `ControllerRevisionHashLabelKey`).
pub const CONTROLLER_REVISION_HASH_LABEL: &str = "controller-revision-hash";
/// `extensions.DaemonSetTemplateGenerationKey`.
pub const POD_TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";
/// `apps.DeprecatedTemplateGeneration`: the API server keeps the template generation here.
pub const DEPRECATED_TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";

pub fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or("")
}

pub fn pod_label<'a>(pod: &'a Pod, key: &str) -> Option<&'a str> {
    pod.metadata.labels.as_ref().and_then(|l| l.get(key)).map(String::as_str)
}

pub fn pod_phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

pub fn pod_node_name(pod: &Pod) -> &str {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or("")
}

/// `podutil.GetPodReadyCondition`.
pub fn pod_ready_condition(pod: &Pod) -> Option<&PodCondition> {
    pod.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == "Ready")
}

/// `podutil.IsPodReady`.
pub fn is_pod_ready(pod: &Pod) -> bool {
    pod_ready_condition(pod).is_some_and(|c| c.status == "True")
}

/// `podutil.IsPodAvailable`: Ready, and Ready for more than `minReadySeconds`
/// (strictly: `lastTransitionTime + minReadySeconds` is before `now`).
pub fn is_pod_available(pod: &Pod, min_ready_seconds: i32, now: i64) -> bool {
    let Some(c) = pod_ready_condition(pod).filter(|c| c.status == "True") else {
        return false;
    };
    if min_ready_seconds == 0 {
        return true;
    }
    c.last_transition_time.as_ref().is_some_and(|t| unix(t) + i64::from(min_ready_seconds) < now)
}

/// `util.IsPodUpdated`: the pod's hash label is the current revision's, or its
/// `pod-template-generation` label is the DaemonSet's template generation.
pub fn is_pod_updated(pod: &Pod, hash: &str, template_generation: Option<i64>) -> bool {
    let hash_matches = !hash.is_empty() && pod_label(pod, CONTROLLER_REVISION_HASH_LABEL) == Some(hash);
    hash_matches
        || template_generation.is_some_and(|g| {
            pod_label(pod, POD_TEMPLATE_GENERATION_LABEL).is_some_and(|l| l.parse::<i64>().ok() == Some(g) && l == g.to_string())
        })
}

/// `util.GetTargetNodeName`: `spec.nodeName`, else the single `metadata.name In [..]`
/// value of the pod's required node affinity (`None` when neither is there).
pub fn get_target_node_name(pod: &Pod) -> Option<&str> {
    let spec = pod.spec.as_ref()?;
    if let Some(name) = spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        return Some(name);
    }
    let terms = &spec
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?
        .node_selector_terms;
    terms
        .iter()
        .flat_map(|t| t.match_fields.iter().flatten())
        .find(|r| r.key == NODE_FIELD_SELECTOR_KEY_NODE_NAME && r.operator == "In")
        .and_then(|r| match r.values.as_deref() {
            Some([only]) => Some(only.as_str()),
            _ => None,
        })
}

/// `podutil.IsPodTerminal`.
pub fn is_pod_terminal(pod: &Pod) -> bool {
    matches!(pod_phase(pod), "Failed" | "Succeeded")
}

pub fn creation_unix(pod: &Pod) -> i64 {
    pod.metadata.creation_timestamp.as_ref().map(unix).unwrap_or(0)
}

/// `podByCreationTimestampAndPhase.Less`: scheduled pods first, then older, then by name.
pub fn pod_by_creation_timestamp_and_phase(a: &Pod, b: &Pod) -> Ordering {
    let scheduled = |p: &Pod| !pod_node_name(p).is_empty();
    scheduled(b)
        .cmp(&scheduled(a))
        .then_with(|| creation_unix(a).cmp(&creation_unix(b)))
        .then_with(|| pod_name(a).cmp(pod_name(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubernetes::kubelet::set_pod_ready;

    /// minReadySeconds counts from the Ready transition and is strict.
    #[test]
    fn availability_needs_min_ready_seconds_strictly() {
        let mut pod = Pod::default();
        assert!(!is_pod_available(&pod, 0, 100));
        set_pod_ready(&mut pod, true, 300);
        assert!(is_pod_available(&pod, 0, 300));
        assert!(!is_pod_available(&pod, 15, 315));
        assert!(is_pod_available(&pod, 15, 316));
    }
}
