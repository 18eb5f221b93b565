//! NodeResourcesFit Filter (`fitsRequest`): pod count, then cpu, memory,
//! ephemeral-storage, then scalar resources (by name); all shortfalls in one status.
//! On 1.34+ a request above the node's *allocatable* makes it Unresolvable.
//! Arithmetic wraps like Go's int64 (negative or huge quantities never panic).

use std::collections::BTreeSet;

use super::framework::{FitReasons, Plugin, Reason, Rejection};
use super::snapshot::NodeInfo;
use super::status::Code;
use crate::kubernetes::resources::{is_extended_resource_name, Resource, CPU, EPHEMERAL_STORAGE, MEMORY, PODS};
use crate::kubernetes::version::KubeVersion;

/// `NodeResourcesFitArgs` and the feature gates the plugin reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FitArgs {
    /// `ignoredResources`: extended resources not checked.
    pub ignored_resources: BTreeSet<String>,
    /// `ignoredResourceGroups`: extended-resource domains not checked.
    pub ignored_resource_groups: BTreeSet<String>,
    /// `DRAExtendedResource` gate: `None` off; `Some(names)` on, with the extended
    /// resource names some DeviceClass maps (`dra::extended::ClassResolver`; `Some`
    /// of an empty set = gate on, no mapping for the pod's resources).
    pub dra_extended_resources: Option<BTreeSet<String>>,
}

/// One shortfall (`InsufficientResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsufficientResource {
    pub resource_name: String,
    pub reason: String,
    pub requested: i64,
    pub used: i64,
    pub capacity: i64,
    pub unresolvable: bool,
}

/// Which reason a shortfall is, without allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortfall {
    TooManyPods,
    Cpu,
    Memory,
    EphemeralStorage,
    /// Index into the pod request's `scalar` list.
    Scalar(usize),
}

/// The reason text of a shortfall (`"Too many pods"`, `"Insufficient nvidia.com/gpu"`).
pub fn shortfall_reason(s: Shortfall, pod_request: &Resource) -> String {
    match s {
        Shortfall::TooManyPods => "Too many pods".into(),
        Shortfall::Cpu => "Insufficient cpu".into(),
        Shortfall::Memory => "Insufficient memory".into(),
        Shortfall::EphemeralStorage => "Insufficient ephemeral-storage".into(),
        Shortfall::Scalar(i) => {
            format!("Insufficient {}", pod_request.scalars().get(i).map_or("", |(n, _)| n.as_str()))
        }
    }
}

/// `fitsRequest`, calling `each(shortfall, requested, used, capacity, unresolvable)`
/// in upstream order.
pub fn fits_request_each(
    request: &Resource,
    node: &NodeInfo,
    args: &FitArgs,
    mut each: impl FnMut(Shortfall, i64, i64, i64, bool),
) {
    let allowed = node.allocatable.allowed_pod_number;
    let num_pods = node.pods.len() as i64;
    if num_pods.wrapping_add(1) > allowed {
        each(Shortfall::TooManyPods, 1, num_pods, allowed, false);
    }
    if request.is_empty_request() {
        return;
    }
    let (a, r) = (&node.allocatable, &node.requested);
    if request.milli_cpu > 0 && request.milli_cpu > a.milli_cpu.wrapping_sub(r.milli_cpu) {
        each(Shortfall::Cpu, request.milli_cpu, r.milli_cpu, a.milli_cpu, request.milli_cpu > a.milli_cpu);
    }
    if request.memory > 0 && request.memory > a.memory.wrapping_sub(r.memory) {
        each(Shortfall::Memory, request.memory, r.memory, a.memory, request.memory > a.memory);
    }
    if request.ephemeral_storage > 0
        && request.ephemeral_storage > a.ephemeral_storage.wrapping_sub(r.ephemeral_storage)
    {
        each(
            Shortfall::EphemeralStorage,
            request.ephemeral_storage,
            r.ephemeral_storage,
            a.ephemeral_storage,
            request.ephemeral_storage > a.ephemeral_storage,
        );
    }
    let ignoring = !args.ignored_resources.is_empty() || !args.ignored_resource_groups.is_empty();
    for (i, (rname, q)) in request.scalars().iter().enumerate() {
        if *q == 0 {
            continue;
        }
        let name = if ignoring || args.dra_extended_resources.is_some() { rname.as_str() } else { "" };
        if ignoring && is_extended_resource_name(name) {
            let group = name.split('/').next().unwrap_or("");
            if args.ignored_resources.contains(name) || args.ignored_resource_groups.contains(group) {
                continue;
            }
        }
        let alloc = a.scalar_by_name(rname).unwrap_or(0);
        if let Some(mapped) = &args.dra_extended_resources {
            // `shouldDelegateResourceToDRA`: not advertised (absent or 0) and backed by
            // a DeviceClass: left to DynamicResources.
            if alloc <= 0 && mapped.contains(name) {
                continue;
            }
        }
        let used = r.scalar_by_name(rname).unwrap_or(0);
        if *q > alloc.wrapping_sub(used) {
            each(Shortfall::Scalar(i), *q, used, alloc, *q > alloc);
        }
    }
}

/// `fitsRequest` as upstream returns it.
pub fn fits_request(request: &Resource, node: &NodeInfo, args: &FitArgs) -> Vec<InsufficientResource> {
    let mut out = Vec::new();
    fits_request_each(request, node, args, |s, requested, used, capacity, unresolvable| {
        let resource_name = match s {
            Shortfall::TooManyPods => PODS.to_string(),
            Shortfall::Cpu => CPU.to_string(),
            Shortfall::Memory => MEMORY.to_string(),
            Shortfall::EphemeralStorage => EPHEMERAL_STORAGE.to_string(),
            Shortfall::Scalar(i) => request.scalars().get(i).map(|(n, _)| n.to_string()).unwrap_or_default(),
        };
        out.push(InsufficientResource {
            resource_name,
            reason: shortfall_reason(s, request),
            requested,
            used,
            capacity,
            unresolvable,
        });
    });
    out
}

/// The Filter: all shortfalls in one status; Unresolvable on 1.34+ when any request
/// exceeds allocatable.
pub fn filter(request: &Resource, node: &NodeInfo, args: &FitArgs, version: KubeVersion) -> Option<Rejection> {
    let mut reasons = FitReasons::default();
    let mut unresolvable = false;
    fits_request_each(request, node, args, |s, _, _, _, u| {
        reasons.insert(s);
        unresolvable |= u;
    });
    if reasons.is_empty() {
        return None;
    }
    let code = if unresolvable && version.fit_unresolvable_when_over_allocatable() {
        Code::UnschedulableAndUnresolvable
    } else {
        Code::Unschedulable
    };
    Some(Rejection::new(Plugin::NodeResourcesFit, code, Reason::Fit(reasons)))
}
