//! What `gpulab schedule` prints about DRA, beside the verdict, the Events and the
//! per-node table every pod gets — the devices each claim got, a claim the
//! scheduler's PostFilter deallocated, a pod the scheduler never tried — and what it
//! refuses before scheduling: DRA objects on a release that does not serve them, and
//! the one extended-resource case the model does not follow. One
//! home for the companion and step 6 of the app (the chunk), so both print the same
//! bytes.

use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::resource::v1::{AllocationResult, DeviceClass};

use super::apply::Applied;
use super::extended::{is_dra_extended_resource_name, requested_names, ClassResolver};
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

/// The one case of `DRAExtendedResource` (on from 1.36) the model refuses before
/// scheduling: a pod with ResourceClaims of its own that also asks for an extended
/// resource a DeviceClass backs, when some node advertises that resource itself (a
/// device plugin). On such a node upstream's Filter hands the allocator the
/// extended-resource claim without requests beside the pod's own claims, and
/// PreBind then looks for that node's extended-resource claim, which Filter never
/// made; the model does not follow that path. Every other pod with such a resource
/// is scheduled as upstream does it ([`super::extended`]). The finding is at the
/// class's file:line and names the node.
pub fn extended_resource_unmodelled(classes: &[Located<DeviceClass>], nodes: &[Node], pod: &Pod, version: KubeVersion) -> Vec<Diagnostic> {
    let own_claims = pod.spec.as_ref().and_then(|s| s.resource_claims.as_ref()).is_some_and(|c| !c.is_empty());
    if !version.dra_extended_resource() || !own_claims {
        return Vec::new();
    }
    let plain: Vec<DeviceClass> = classes.iter().map(|c| c.object.clone()).collect();
    let resolver = ClassResolver::new(&plain);
    let mut out = Vec::new();
    for resource in requested_names(pod) {
        let Some(class) = resolver.class(&resource).filter(|_| is_dra_extended_resource_name(&resource)) else { continue };
        let advertised = |n: &&Node| {
            let alloc = n.status.as_ref().and_then(|s| s.allocatable.as_ref()).and_then(|a| a.get(resource.as_str()));
            alloc.and_then(|q| crate::kubernetes::quantity::parse(q).ok()).is_some_and(|q| q.value() > 0)
        };
        let (Some(node), Some(located)) = (nodes.iter().find(advertised), classes.iter().find(|c| c.object.metadata.name.as_deref() == Some(class)))
        else {
            continue;
        };
        out.push(
            Diagnostic::new("dra-extended-resource-unmodelled", Severity::Error)
                .arg("resource", &resource)
                .arg("deviceClass", class)
                .arg("node", node.metadata.name.clone().unwrap_or_default())
                .arg("version", version.to_string())
                .at(located.span.clone()),
        );
    }
    out
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
