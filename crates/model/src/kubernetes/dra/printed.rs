//! What `gpulab schedule` prints about DRA, beside the verdict, the Events and the
//! per-node table every pod gets — the devices each claim got, a claim the
//! scheduler's PostFilter deallocated, a pod the scheduler never tried — and what it
//! refuses before scheduling: DRA objects on a release that does not serve them, and
//! an extended resource a DeviceClass backs where the model does not follow it. One
//! home for the companion and step 6 of the app (the chunk), so both print the same
//! bytes.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::resource::v1::{AllocationResult, DeviceClass};

use super::apply::Applied;
use crate::diagnostic::{Diagnostic, Severity};
use crate::kubernetes::kubectl::describe_events;
use crate::kubernetes::yaml::Located;
use crate::kubernetes::KubeVersion;

/// The refusal of DRA objects on a release without `resource.k8s.io/v1` (before 1.34).
pub fn not_served(version: KubeVersion) -> Option<String> {
    (!version.dynamic_resources_enabled()).then(|| {
        format!("resource.k8s.io/v1 (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice) is served from Kubernetes 1.34; not by {version}")
    })
}

/// The name a DeviceClass gives the extended resource it backs without
/// `extendedResourceName` (`deviceclass.resource.kubernetes.io/<class>`, KEP-5004).
fn implicit_name(class: &DeviceClass) -> String {
    format!("deviceclass.resource.kubernetes.io/{}", class.metadata.name.as_deref().unwrap_or(""))
}

/// The extended resources `pod` asks for (requests or limits of any container).
fn requested(pod: &Pod) -> Vec<String> {
    let spec = pod.spec.as_ref();
    let containers = spec.into_iter().flat_map(|s| s.containers.iter().chain(s.init_containers.iter().flatten()));
    let mut names: Vec<String> = containers
        .filter_map(|c| c.resources.as_ref())
        .flat_map(|r| r.requests.iter().flatten().chain(r.limits.iter().flatten()).map(|(k, _)| k.clone()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// `DRAExtendedResource` (KEP-5004: alpha, off, in 1.34 and 1.35; beta and on from
/// 1.36; GA in 1.37) hands an extended resource a DeviceClass backs to DRA: the
/// scheduler allocates a device for it through a claim of its own. The model does
/// not follow that path, so from 1.36 a pod asking for such a resource is refused
/// here, at the DeviceClass's line, rather than given the device plugin's verdict.
/// Before 1.36 the gate is off and the resource is checked against the node's
/// allocatable like any other (the scheduler's `NodeResourcesFit`).
pub fn extended_resource_unmodelled(classes: &[Located<DeviceClass>], pod: &Pod, version: KubeVersion) -> Vec<Diagnostic> {
    if version < KubeVersion::V1_36 {
        return Vec::new();
    }
    let wanted = requested(pod);
    classes
        .iter()
        .filter_map(|c| {
            let names = [c.object.spec.extended_resource_name.clone(), Some(implicit_name(&c.object))];
            let name = names.into_iter().flatten().find(|n| wanted.contains(n))?;
            Some(
                Diagnostic::new("dra-extended-resource-unmodelled", Severity::Error)
                    .arg("resource", name)
                    .arg("deviceClass", c.object.metadata.name.clone().unwrap_or_default())
                    .arg("version", version.to_string())
                    .at(c.span.clone()),
            )
        })
        .collect()
}

/// The lines after the per-node table: each allocated claim with its devices, and a
/// claim PostFilter deallocated with the first attempt's text.
pub fn claims(allocations: &[(String, AllocationResult)], deallocated: Option<&(String, String)>) -> String {
    let mut out = String::new();
    for (claim, a) in allocations {
        out.push_str(&format!("\nResourceClaim {claim}: allocated\n"));
        for r in a.devices.iter().flat_map(|d| d.results.iter().flatten()) {
            out.push_str(&format!("  {}: {} {} {}\n", r.request, r.driver, r.pool, r.device));
        }
    }
    if let Some((claim, first)) = deallocated {
        out.push_str(&format!("\nResourceClaim {claim}: deallocated by the scheduler's PostFilter; the first attempt said:\n  {first}\n"));
    }
    out
}

/// A pod the scheduler does not try: its claim could not be made from a template
/// (the controller's warning event), or one is missing (PreEnqueue; no event).
pub fn waiting(applied: &Applied, version: KubeVersion) -> String {
    let pod = applied.pod();
    let name = pod.metadata.name.as_deref().unwrap_or("");
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    let mut out = format!("{namespace}/{name}: Pending (Kubernetes {version}), not tried by the scheduler\n");
    match applied {
        Applied::ClaimNotCreated { event, .. } => out.push_str(&describe_events(std::slice::from_ref(event), 0)),
        Applied::Waiting { reason, .. } => {
            out.push_str(&format!("Events:  <none>\nWaiting in the scheduling queue (DynamicResources PreEnqueue): {reason}\n"))
        }
        Applied::Cycle { .. } => {}
    }
    out
}
