//! Kubernetes: objects from YAML, quantities, API validation of GPU requests,
//! RuntimeClass admission, the scheduler's verdicts (byte-exact FailedScheduling
//! text), events and conditions, the device-plugin advertisement layers, the
//! kubelet's sandbox errors, and kubectl's text views. Behaviour: spec
//! `../shared/specs/kubernetes.md`; issue 5.
//!
//! # Layout
//!
//! - [`version`]: the 1.33–1.37 knob and what each version changes.
//! - [`quantity`]: `resource.Quantity` parsing, rounding and printing.
//! - [`yaml`]: multi-document manifests into k8s-openapi types, errors with file:line.
//! - [`resources`]: resource-name classes and a pod's effective request.
//! - [`taints`]: tolerations against taints, `MergeTolerations`.
//! - [`affinity`]: nodeSelector and required node affinity matching.
//! - [`validation`]: the API server's checks of extended-resource requests; defaulting.
//! - [`runtimeclass`]: the RuntimeClass admission plugin.
//! - [`admission`]: the default mutating admission plugins before it.
//! - [`scheduler`]: filters, preemption, scoring, `FitError`.
//! - [`events`]: the one event type and its log with the correlator's `(xN over …)`
//!   aggregation; FailedScheduling / Scheduled events and the PodScheduled condition.
//! - [`advertisement`]: device plugin → kubelet → node status, layer by layer.
//! - [`kubelet`]: sandbox creation against the node's loaded containerd config, and the
//!   pod status it writes (`ContainerCreating`, `Running`, Ready).
//! - [`patch`]: `kubectl patch node --subresource=status` and the API server's refusals.
//! - [`messages`]: the words of the loader's and DRA's findings, Korean and English.
//! - [`kubectl`]: `get pods -o wide`, `get nodes`, `describe pod`, `describe node`.
//! - [`tabwriter`]: Go's tabwriter, which kubectl prints through.
//! - [`apply`]: creating a pod end to end: defaulting, admission, validation, a cycle.
//! - [`dra`]: Dynamic Resource Allocation: its objects' validation and CEL device selectors.
//!
//! **API Boundary:** functions take k8s-openapi objects (or text) and return values;
//! nothing here reads files or clocks — ages and times are passed in ([`time`] and
//! [`unix`] convert the lab clock's seconds).

pub mod admission;
pub mod advertisement;
pub mod affinity;
pub mod apply;
pub mod block_yaml;
pub mod dra;
pub mod events;
pub mod kubectl;
pub mod kubelet;
pub mod messages;
pub mod patch;
pub mod quantity;
pub mod resources;
pub mod runtimeclass;
pub mod scheduler;
pub mod tabwriter;
pub mod taints;
pub mod validation;
pub mod version;
pub mod yaml;

pub use quantity::Quantity;
pub use version::KubeVersion;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// Unix seconds → API time (the lab clock is seconds; out of range is the epoch).
pub fn time(unix: i64) -> Time {
    Time(k8s_openapi::jiff::Timestamp::from_second(unix).unwrap_or(k8s_openapi::jiff::Timestamp::UNIX_EPOCH))
}

/// API time → unix seconds.
pub fn unix(t: &Time) -> i64 {
    t.0.as_second()
}
