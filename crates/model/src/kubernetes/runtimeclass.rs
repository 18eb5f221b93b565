//! The RuntimeClass admission plugin (`plugin/pkg/admission/runtimeclass`): lookup
//! (informer cache, then a live GET), `setOverhead` and `setScheduling` on Admit,
//! `validateOverhead` on Validate — with the API server's Forbidden texts (spec §3.1).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::quantity::Quantity;
use super::taints::merge_tolerations;

/// An error the API server returns for the pod (`apierrors.StatusError`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// `metav1.StatusReason`, e.g. `Forbidden`.
    pub reason: &'static str,
    /// The full message, e.g. `pods "x" is forbidden: pod rejected: …`.
    pub message: String,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// `admission.NewForbidden` for a pod: the name is the pod's name, else its
/// `generateName` (DaemonSet pods), else `Unknown`.
pub fn forbidden(pod: &Pod, err: &str) -> ApiError {
    let name = pod
        .metadata
        .name
        .as_deref()
        .filter(|n| !n.is_empty())
        .or(pod.metadata.generate_name.as_deref().filter(|n| !n.is_empty()))
        .unwrap_or("Unknown");
    ApiError { reason: "Forbidden", message: format!("pods {name:?} is forbidden: {err}") }
}

/// Text of a missing RuntimeClass.
pub fn not_found_message(name: &str) -> String {
    format!("pod rejected: RuntimeClass {name:?} not found")
}

/// `pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`.
pub const ERR_OVERHEAD_MISMATCH: &str = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
/// `pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`.
pub const ERR_OVERHEAD_WITHOUT_RC: &str =
    "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead";

/// Where admission looks a RuntimeClass up: the informer cache, then the API server.
pub trait RuntimeClassSource {
    fn get_cached(&self, name: &str) -> Option<RuntimeClass>;
    fn get_live(&self, name: &str) -> Option<RuntimeClass>;
}

/// A plain list is both cache and API server (a settled cluster).
impl RuntimeClassSource for [RuntimeClass] {
    fn get_cached(&self, name: &str) -> Option<RuntimeClass> {
        self.iter().find(|rc| rc.metadata.name.as_deref() == Some(name)).cloned()
    }
    fn get_live(&self, name: &str) -> Option<RuntimeClass> {
        self.get_cached(name)
    }
}

/// `prepareObjects`: the pod's RuntimeClass (`None` when it names none).
pub fn lookup(pod: &Pod, source: &(impl RuntimeClassSource + ?Sized)) -> Result<Option<RuntimeClass>, ApiError> {
    let Some(name) = pod.spec.as_ref().and_then(|s| s.runtime_class_name.as_deref()) else { return Ok(None) };
    match source.get_cached(name).or_else(|| source.get_live(name)) {
        Some(rc) => Ok(Some(rc)),
        None => Err(forbidden(pod, &not_found_message(name))),
    }
}

/// `apiequality.Semantic.DeepEqual` of two resource lists: same keys, equal values.
fn resource_lists_equal(a: &BTreeMap<String, ApiQuantity>, b: &BTreeMap<String, ApiQuantity>) -> bool {
    a.len() == b.len()
        && a.iter().all(|(k, v)| {
            b.get(k).is_some_and(|w| match (Quantity::parse(&v.0), Quantity::parse(&w.0)) {
                (Ok(x), Ok(y)) => x == y,
                _ => v.0 == w.0,
            })
        })
}

/// `setOverhead`: copy `overhead.podFixed` into `spec.overhead`; a different,
/// non-empty overhead already on the pod is Forbidden.
pub fn set_overhead(pod: &mut Pod, rc: Option<&RuntimeClass>) -> Result<(), ApiError> {
    let Some(fixed) = rc.and_then(|rc| rc.overhead.as_ref()).map(|o| o.pod_fixed.clone().unwrap_or_default()) else {
        return Ok(());
    };
    let current = pod.spec.as_ref().and_then(|s| s.overhead.as_ref());
    if let Some(cur) = current.filter(|c| !c.is_empty()) {
        if !resource_lists_equal(cur, &fixed) {
            return Err(forbidden(pod, ERR_OVERHEAD_MISMATCH));
        }
    }
    pod.spec.get_or_insert_with(Default::default).overhead = Some(fixed);
    Ok(())
}

/// `setScheduling`: merge `scheduling.nodeSelector` (a different value for the same
/// key is Forbidden) and `scheduling.tolerations` (`MergeTolerations`) into the pod.
pub fn set_scheduling(pod: &mut Pod, rc: Option<&RuntimeClass>) -> Result<(), ApiError> {
    let Some(scheduling) = rc.and_then(|rc| rc.scheduling.as_ref()) else { return Ok(()) };
    let spec = pod.spec.clone().unwrap_or_default();
    let mut selector = spec.node_selector.clone();
    if let Some(rc_sel) = &scheduling.node_selector {
        match &mut selector {
            None => selector = Some(rc_sel.clone()),
            Some(sel) => {
                for (key, rc_value) in rc_sel {
                    if let Some(pod_value) = sel.get(key) {
                        if pod_value != rc_value {
                            let msg = format!(
                                "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {rc_value}; pod.spec.nodeSelector[{key}] = {pod_value}"
                            );
                            return Err(forbidden(pod, &msg));
                        }
                    }
                    sel.insert(key.clone(), rc_value.clone());
                }
            }
        }
    }
    let merged =
        merge_tolerations(spec.tolerations.as_deref().unwrap_or(&[]), scheduling.tolerations.as_deref().unwrap_or(&[]));
    let s = pod.spec.get_or_insert_with(Default::default);
    s.node_selector = selector;
    // MergeTolerations returns a nil slice when nothing is kept.
    s.tolerations = (!merged.is_empty()).then_some(merged);
    Ok(())
}

/// `validateOverhead`: a pod with a non-empty overhead needs a RuntimeClass whose
/// `overhead.podFixed` equals it.
pub fn validate_overhead(pod: &Pod, rc: Option<&RuntimeClass>) -> Result<(), ApiError> {
    let overhead = pod.spec.as_ref().and_then(|s| s.overhead.as_ref()).filter(|o| !o.is_empty());
    let Some(overhead) = overhead else { return Ok(()) };
    match rc.and_then(|rc| rc.overhead.as_ref()) {
        Some(o) => {
            if resource_lists_equal(&o.pod_fixed.clone().unwrap_or_default(), overhead) {
                Ok(())
            } else {
                Err(forbidden(pod, ERR_OVERHEAD_MISMATCH))
            }
        }
        None => Err(forbidden(pod, ERR_OVERHEAD_WITHOUT_RC)),
    }
}

/// `Admit` on pod CREATE: lookup, then `setOverhead`, then `setScheduling`.
pub fn admit(pod: &mut Pod, source: &(impl RuntimeClassSource + ?Sized)) -> Result<(), ApiError> {
    let rc = lookup(pod, source)?;
    set_overhead(pod, rc.as_ref())?;
    set_scheduling(pod, rc.as_ref())
}

/// `Validate` on pod CREATE: lookup, then `validateOverhead`.
pub fn validate(pod: &Pod, source: &(impl RuntimeClassSource + ?Sized)) -> Result<(), ApiError> {
    let rc = lookup(pod, source)?;
    validate_overhead(pod, rc.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// canonical/microk8s#2359: the Forbidden text for a missing RuntimeClass.
    #[test]
    fn missing_runtime_class_text_microk8s_2359() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "nginx-runc"}, "spec": {"containers": [], "runtimeClassName": "native"}
        }))
        .unwrap();
        let err = admit(&mut pod.clone(), &[][..]).unwrap_err();
        assert_eq!(err.message, r#"pods "nginx-runc" is forbidden: pod rejected: RuntimeClass "native" not found"#);
    }

    /// A DaemonSet pod has only `generateName`; the text uses it (spec §3.1).
    #[test]
    fn daemonset_pod_uses_generate_name() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"generateName": "nvidia-device-plugin-daemonset-"},
            "spec": {"containers": [], "runtimeClassName": "nvidia"}
        }))
        .unwrap();
        let err = validate(&pod, &[][..]).unwrap_err();
        assert_eq!(
            err.message,
            r#"pods "nvidia-device-plugin-daemonset-" is forbidden: pod rejected: RuntimeClass "nvidia" not found"#
        );
    }
}
