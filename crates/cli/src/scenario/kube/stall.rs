//! `stalled_on` read off a real cluster: which nodes a DaemonSet rollout is stuck on,
//! from the API objects alone (sans I/O; the backend fetches them).
//!
//! The rule is the one the model's diagnosis states and `kubectl get pods -o wide`
//! shows: while `kubectl rollout status` is not done, a node whose *updated* daemon pod
//! (its `pod-template-generation` is the DaemonSet's template generation, or its
//! `controller-revision-hash` the current one — upstream's `IsPodUpdated`) is not
//! available holds the rollout: with maxSurge 0 it counts against maxUnavailable for as
//! long as that lasts, and the rollout cannot finish without it. The backend asks only
//! once the pods have settled, so "not done" is "stalled", not "still moving".
//!
//! What the API cannot say: which node a pod the API server refused was for (a
//! `FailedCreate` event names no node). The model lists such nodes too, so with a
//! refused create the field is not observed, with that reason.

use gpulab_model::daemonset::kubectl::rollout_status;
use gpulab_model::daemonset::pod::{get_target_node_name, is_pod_available, is_pod_updated, DEPRECATED_TEMPLATE_GENERATION_ANNOTATION};
use gpulab_model::daemonset::update::min_ready_seconds;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;

/// The nodes `ds`'s rollout is stuck on, sorted; empty when `rollout status` is done.
/// `pods` are the namespace's pods (those the DaemonSet does not control are ignored),
/// `hash` the current revision's hash when known (else `""`: the template generation
/// decides), `refused_creates` whether the DaemonSet has `FailedCreate` events, `now`
/// unix seconds (minReadySeconds).
pub fn stalled_on(ds: &DaemonSet, pods: &[Pod], hash: &str, refused_creates: bool, now: i64) -> Result<Vec<String>, String> {
    let status = rollout_status(ds)?;
    if status.done {
        return Ok(Vec::new());
    }
    let uid = ds.metadata.uid.as_deref().unwrap_or("");
    let generation = ds
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DEPRECATED_TEMPLATE_GENERATION_ANNOTATION))
        .and_then(|g| g.parse::<i64>().ok());
    let min_ready = min_ready_seconds(ds);
    let controlled = |p: &Pod| p.metadata.owner_references.iter().flatten().any(|o| o.controller == Some(true) && o.uid == uid);
    let mut nodes: Vec<String> = pods
        .iter()
        .filter(|p| controlled(p) && p.metadata.deletion_timestamp.is_none())
        .filter(|p| is_pod_updated(p, hash, generation) && !is_pod_available(p, min_ready, now))
        .filter_map(|p| get_target_node_name(p).map(str::to_string))
        .collect();
    nodes.sort();
    nodes.dedup();
    if refused_creates {
        return Err("the API server refused some of the DaemonSet's pods (FailedCreate): a refused create names no node, so which nodes hold the rollout is not observed".into());
    }
    Ok(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ds(updated: i64, available: i64) -> DaemonSet {
        serde_json::from_value(json!({
            "metadata": {"name": "plugin", "uid": "u1", "generation": 2,
                         "annotations": {"deprecated.daemonset.template.generation": "2"}},
            "spec": {"selector": {}, "template": {},
                     "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}}},
            "status": {"observedGeneration": 2, "desiredNumberScheduled": 3, "currentNumberScheduled": 3,
                       "numberReady": available, "numberAvailable": available, "updatedNumberScheduled": updated,
                       "numberMisscheduled": 0}
        }))
        .unwrap()
    }

    fn pod(name: &str, node: &str, generation: &str, ready: bool, owner: &str) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"pod-template-generation": generation},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "plugin", "uid": owner, "controller": true}]},
            "spec": {"nodeName": node, "containers": []},
            "status": {"conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]}
        }))
        .unwrap()
    }

    /// A stalled rollout names the node whose updated pod is not Ready — not the node
    /// whose old pod is, nor another DaemonSet's pod; a finished one names none.
    #[test]
    fn the_node_holding_the_rollout() {
        let pods = [
            pod("a", "gpu-node-1", "2", true, "u1"),
            pod("b", "gpu-node-2", "2", false, "u1"),
            pod("c", "gpu-node-3", "1", true, "u1"),
            pod("d", "gpu-node-3", "2", false, "other"),
        ];
        assert_eq!(stalled_on(&ds(2, 2), &pods, "", false, 0), Ok(vec!["gpu-node-2".to_string()]));
        assert_eq!(stalled_on(&ds(3, 3), &pods, "", false, 0), Ok(vec![]));
    }

    /// A refused create is said, not guessed: the field is not observed.
    #[test]
    fn refused_creates_are_not_observed() {
        let e = stalled_on(&ds(2, 2), &[], "", true, 0).unwrap_err();
        assert!(e.contains("FailedCreate"), "{e}");
    }
}
