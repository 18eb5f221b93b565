//! What the node lifecycle controller does to a node's taints, for the nodes the
//! companion simulates (a bare control plane runs no node lifecycle controller, and the
//! API server's `TaintNodesByCondition` admission gives every new Node
//! `node.kubernetes.io/not-ready:NoSchedule`, which nobody would take away).
//!
//! Upstream (`pkg/controller/nodelifecycle`): a node whose Ready condition is `False`
//! gets `node.kubernetes.io/not-ready` with effect `NoSchedule` (the condition-taint
//! pass) and `NoExecute` (the eviction pass, `timeAdded` set); a Ready node loses both
//! (and `node.kubernetes.io/unreachable`, which only an `Unknown` condition gives); a
//! node with `spec.unschedulable` gets `node.kubernetes.io/unschedulable:NoSchedule`.
//! Every other taint is the manifest's: the node keeps exactly those (a re-applied
//! manifest without a taint removes it, as `kubectl apply` would).

use serde_json::{json, Value};

/// `node.kubernetes.io/not-ready`.
pub const NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `node.kubernetes.io/unreachable`.
pub const UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `node.kubernetes.io/unschedulable`.
pub const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

fn identity(t: &Value) -> (String, String, String) {
    let f = |k: &str| t[k].as_str().unwrap_or_default().to_string();
    (f("key"), f("value"), f("effect"))
}

/// The taints a node should carry: its manifest's `manifest` taints (the scenario's
/// own), then the lifecycle taints for its readiness and `spec.unschedulable`, keeping
/// the `timeAdded` of those it already has in `current`. `None` when `current` already
/// is that set (by key, value and effect), so nothing is written.
pub fn taints(manifest: &[Value], current: &[Value], ready: bool, unschedulable: bool, now: &str) -> Option<Vec<Value>> {
    let mut want: Vec<Value> = manifest.iter().filter(|t| ![NOT_READY, UNREACHABLE, UNSCHEDULABLE].contains(&t["key"].as_str().unwrap_or_default())).cloned().collect();
    let mut add = |key: &str, effect: &str, timed: bool| {
        let kept = current.iter().find(|t| t["key"] == key && t["effect"] == effect).cloned();
        want.push(kept.unwrap_or_else(|| if timed { json!({"key": key, "effect": effect, "timeAdded": now}) } else { json!({"key": key, "effect": effect}) }));
    };
    if unschedulable {
        add(UNSCHEDULABLE, "NoSchedule", true);
    }
    if !ready {
        add(NOT_READY, "NoSchedule", false);
        add(NOT_READY, "NoExecute", true);
    }
    let set = |v: &[Value]| {
        let mut s: Vec<(String, String, String)> = v.iter().map(identity).collect();
        s.sort();
        s
    };
    (set(&want) != set(current)).then_some(want)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-12-02T08:00:00Z";

    /// A new Node's admission taint goes once it is Ready; a NotReady node gets both
    /// not-ready effects; a cordoned node the unschedulable taint; the manifest's own
    /// taints stay, and go when the manifest drops them; an unchanged set writes nothing.
    #[test]
    fn lifecycle_taints() {
        let admission = json!({"key": NOT_READY, "effect": "NoSchedule"});
        let gpu = json!({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"});
        let m = [gpu.clone()];
        assert_eq!(taints(&m, &[admission.clone(), gpu.clone()], true, false, NOW), Some(vec![gpu.clone()]));
        assert_eq!(taints(&m, &[gpu.clone()], true, false, NOW), None);
        assert_eq!(taints(&[], &[gpu.clone()], true, false, NOW), Some(vec![]));
        let down = taints(&m, &[gpu.clone()], false, false, NOW).unwrap();
        let ids: Vec<_> = down.iter().map(identity).map(|(k, _, e)| (k, e)).collect();
        assert_eq!(ids, [("nvidia.com/gpu".into(), "NoSchedule".into()), (NOT_READY.into(), "NoSchedule".into()), (NOT_READY.into(), "NoExecute".into())]);
        assert_eq!(down[2]["timeAdded"], NOW);
        assert_eq!(taints(&m, &down, false, false, "later"), None);
        let cordoned = taints(&[], &[], true, true, NOW).unwrap();
        assert_eq!(cordoned, [json!({"key": UNSCHEDULABLE, "effect": "NoSchedule", "timeAdded": NOW})]);
        assert_eq!(taints(&[], &cordoned, true, false, NOW), Some(vec![]));
    }
}
