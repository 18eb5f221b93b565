//! What a pod's request does once the scheduler has placed it: the device plugin's
//! `Allocate` (`ValidateRequest` in `internal/rm/rm.go`) and the event kubelet records.
//!
//! A request for more than one replica of a shared resource fails when
//! `failRequestsGreaterThanOne` is set (time-slicing: only when set to true; MPS: true unless
//! v0.20.0+ is told `false`). When it is allowed, the pod gets two replicas and no more
//! compute: CUDA gives every process an equal share of time.

use serde::{Deserialize, Serialize};

use super::config::SharingStrategy;
use super::node::NodeAdvertisement;
use super::version::PluginVersion;

/// What the pod's outcome text says when Allocate fails (README wording).
pub const FAILED_POD_OUTCOME: &str =
    "Pod fails with UnexpectedAdmissionError and must be deleted, updated and redeployed manually";

/// A container's request for one extended resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PodRequest {
    pub resource: String,
    pub count: u64,
}

/// An event on the pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    #[serde(rename = "type")]
    pub kind: String,
    pub reason: String,
    pub message: String,
}

/// The outcome of a request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocateOutcome {
    /// Some node's allocatable covers the request (the scheduler only sees counts).
    pub scheduled: bool,
    /// The node the scheduler would pick (the first that fits).
    pub node: Option<String>,
    /// kubelet admitted the pod (Allocate succeeded).
    pub admitted: bool,
    pub plugin_error: Option<String>,
    pub kubelet_event: Option<Event>,
    pub pod_outcome: Option<String>,
    pub replicas_allocated: Option<u64>,
    /// Whether more replicas mean more guaranteed compute (never, for shared resources).
    pub extra_compute_guaranteed: Option<bool>,
    /// With the `distributed` policy on an empty node, replicas come from this many GPUs.
    pub distinct_gpus_preferred: Option<u64>,
}

/// The plugin's error text for a rejected multi-replica request, by version.
pub fn allocate_error(resource: &str, count: u64, version: PluginVersion) -> String {
    if version >= PluginVersion::MPS_INTRODUCED {
        format!("invalid allocation request for {resource:?}: invalid request: maximum request size for shared resources is 1; found {count}")
    } else {
        format!("request for '{resource}: {count}' too large: maximum request size for shared resources is 1")
    }
}

/// kubelet's event around a failed Allocate.
pub fn admission_event(plugin_error: &str) -> Event {
    Event {
        kind: "Warning".into(),
        reason: "UnexpectedAdmissionError".into(),
        message: format!("Allocate failed due to rpc error: code = Unknown desc = {plugin_error}, which is unexpected"),
    }
}

/// Runs a request against the nodes' advertisements.
pub fn allocate(nodes: &[NodeAdvertisement], request: &PodRequest, version: PluginVersion) -> AllocateOutcome {
    let mut out = AllocateOutcome {
        scheduled: false,
        node: None,
        admitted: false,
        plugin_error: None,
        kubelet_event: None,
        pod_outcome: None,
        replicas_allocated: None,
        extra_compute_guaranteed: None,
        distinct_gpus_preferred: None,
    };
    let Some(node) = nodes.iter().find(|n| n.resources.get(&request.resource).is_some_and(|c| *c >= request.count))
    else {
        return out;
    };
    out.scheduled = true;
    out.node = Some(node.node.clone());
    let Some(res) = node.resource(&request.resource) else {
        return out;
    };
    let shared = res.sharing != SharingStrategy::None && res.replicas > 1;
    if shared && request.count > 1 && res.fail_requests_greater_than_one {
        let err = allocate_error(&request.resource, request.count, version);
        out.kubelet_event = Some(admission_event(&err));
        out.plugin_error = Some(err);
        out.pod_outcome = Some(FAILED_POD_OUTCOME.into());
        return out;
    }
    out.admitted = true;
    out.replicas_allocated = Some(request.count);
    out.extra_compute_guaranteed = Some(!shared);
    if shared {
        out.distinct_gpus_preferred = Some(request.count.min(res.devices));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two texts the plugin has used, and kubelet's wrapping.
    #[test]
    fn error_texts_by_version() {
        let e = allocate_error("nvidia.com/gpu", 2, PluginVersion::REFERENCE);
        assert_eq!(e, "invalid allocation request for \"nvidia.com/gpu\": invalid request: maximum request size for shared resources is 1; found 2");
        assert_eq!(
            allocate_error("nvidia.com/gpu", 2, PluginVersion::new(0, 14, 5)),
            "request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1"
        );
        assert!(admission_event(&e).message.ends_with("found 2, which is unexpected"));
    }
}
