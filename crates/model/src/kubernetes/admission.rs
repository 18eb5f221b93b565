//! The default mutating admission plugins every lab pod meets before RuntimeClass:
//! ServiceAccount (`serviceAccountName: default`), Priority (priority 0 and
//! `PreemptLowerPriority` without a PriorityClass), DefaultTolerationSeconds (the
//! 300 s `not-ready` / `unreachable` NoExecute tolerations). They are why a real
//! `kubectl describe pod` shows `Service Account: default` and those tolerations.
//!
//! The model keeps a `spec.priority` the manifest sets (the real Priority plugin
//! rejects it without a matching PriorityClass); PriorityClasses are not modelled.

use k8s_openapi::api::core::v1::{Pod, Toleration};

/// `node.kubernetes.io/not-ready`.
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";
/// `node.kubernetes.io/unreachable`.
pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
/// `--default-not-ready-toleration-seconds` / `--default-unreachable-toleration-seconds`.
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// ServiceAccount admission: the `default` service account when none is named.
pub fn service_account(pod: &mut Pod) {
    let spec = pod.spec.get_or_insert_with(Default::default);
    if spec.service_account_name.as_deref().unwrap_or("").is_empty() {
        spec.service_account_name = Some("default".into());
    }
}

/// Priority admission without PriorityClasses: priority 0, `PreemptLowerPriority`.
pub fn priority(pod: &mut Pod) {
    let spec = pod.spec.get_or_insert_with(Default::default);
    if spec.priority.is_none() {
        spec.priority = Some(0);
    }
    if spec.preemption_policy.is_none() {
        spec.preemption_policy = Some("PreemptLowerPriority".into());
    }
}

/// DefaultTolerationSeconds: adds the two NoExecute tolerations unless already
/// tolerated (a toleration with that key or no key, and NoExecute or no effect).
pub fn default_toleration_seconds(pod: &mut Pod) {
    let spec = pod.spec.get_or_insert_with(Default::default);
    let tols = spec.tolerations.get_or_insert_with(Vec::new);
    let covers = |key: &str| {
        tols.iter().any(|t| {
            let k = t.key.as_deref().unwrap_or("");
            let e = t.effect.as_deref().unwrap_or("");
            (k == key || k.is_empty()) && (e == "NoExecute" || e.is_empty())
        })
    };
    let (not_ready, unreachable) = (covers(TAINT_NOT_READY), covers(TAINT_UNREACHABLE));
    for (key, covered) in [(TAINT_NOT_READY, not_ready), (TAINT_UNREACHABLE, unreachable)] {
        if !covered {
            tols.push(Toleration {
                key: Some(key.into()),
                operator: Some("Exists".into()),
                effect: Some("NoExecute".into()),
                toleration_seconds: Some(DEFAULT_TOLERATION_SECONDS),
                value: None,
            });
        }
    }
}

/// All three, in the API server's plugin order.
pub fn default_mutating(pod: &mut Pod) {
    service_account(pod);
    priority(pod);
    default_toleration_seconds(pod);
}
