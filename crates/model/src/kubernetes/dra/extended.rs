//! Extended resources backed by DRA (KEP-5004, the `DRAExtendedResource` gate: on
//! from 1.36, [`KubeVersion::dra_extended_resource`]): a pod keeps asking for
//! `nvidia.com/gpu: 1`, a DeviceClass names that resource in
//! `spec.extendedResourceName` (every class also stands for
//! `deviceclass.resource.kubernetes.io/<class>`), and on a node that does not
//! advertise the resource in its allocatable the scheduler's DynamicResources
//! plugin allocates devices of that class through a ResourceClaim it makes itself.
//!
//! Ported from kubernetes v1.37.2 (the same in v1.36.3):
//! `dynamic-resource-allocation/deviceclass/extendedresourcecache` (which class a
//! resource name means), `pkg/scheduler/framework/plugins/dynamicresources/
//! extendeddynamicresources.go` (the in-memory claim `<extended-resources>` of
//! PreFilter, the per-node requests and container mappings of Filter, the claim
//! PreBind writes with generateName `<pod>-extended-resources-`, the annotation
//! `resource.kubernetes.io/extended-resource-claim: "true"` and the pod's
//! `status.extendedResourceClaimStatus`).
//!
//! [`KubeVersion::dra_extended_resource`]: crate::kubernetes::KubeVersion::dra_extended_resource

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerExtendedResourceRequest, Pod};
use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceClaim, DeviceRequest, ExactDeviceRequest, ResourceClaim, ResourceClaimSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use crate::kubernetes::resources::{is_extended_resource_name, Resource};

/// The in-memory claim's name until PreBind creates it (`specialClaimInMemName`):
/// not a valid object name, so no real claim can have it.
pub const SPECIAL_CLAIM_IN_MEM_NAME: &str = "<extended-resources>";
/// `resourceapi.ExtendedResourceClaimAnnotation`, set to `"true"` on the claim.
pub const EXTENDED_RESOURCE_CLAIM_ANNOTATION: &str = "resource.kubernetes.io/extended-resource-claim";
/// `resourceapi.ResourceDeviceClassPrefix`: the implicit extended resource of a class.
pub const RESOURCE_DEVICE_CLASS_PREFIX: &str = "deviceclass.resource.kubernetes.io/";
/// `resourceapi.Finalizer`, added when the scheduler writes an allocation.
pub const FINALIZER: &str = "resource.kubernetes.io/delete-protection";

/// `schedutil.IsDRAExtendedResourceName`: an extended resource name, or a class's
/// implicit one.
pub fn is_dra_extended_resource_name(name: &str) -> bool {
    is_extended_resource_name(name) || name.starts_with(RESOURCE_DEVICE_CLASS_PREFIX)
}

/// The `ExtendedResourceCache` after the classes were added in order: which class
/// each extended resource name means. Classes created together share a creation
/// second, so of two naming the same `extendedResourceName` the smaller name wins
/// when added later, and one added after a smaller one is skipped altogether
/// (upstream returns before recording even its implicit name).
#[derive(Debug, Clone, Default)]
pub struct ClassResolver {
    by_resource: BTreeMap<String, String>,
}

impl ClassResolver {
    /// `OnAdd` for every class, in order.
    pub fn new(classes: &[DeviceClass]) -> ClassResolver {
        let mut by_resource: BTreeMap<String, String> = BTreeMap::new();
        for c in classes {
            let name = c.metadata.name.clone().unwrap_or_default();
            let explicit = c.spec.extended_resource_name.as_ref();
            if let Some(holder) = explicit.and_then(|r| by_resource.get(r)) {
                if name >= *holder {
                    continue;
                }
            }
            if let Some(r) = explicit {
                by_resource.insert(r.clone(), name.clone());
            }
            by_resource.insert(format!("{RESOURCE_DEVICE_CLASS_PREFIX}{name}"), name);
        }
        ClassResolver { by_resource }
    }

    /// `GetDeviceClass(resourceName)`: the class's name.
    pub fn class(&self, resource: &str) -> Option<&str> {
        self.by_resource.get(resource).map(String::as_str)
    }

    /// Every resource name some class stands for.
    pub fn resource_names(&self) -> impl Iterator<Item = &String> {
        self.by_resource.keys()
    }

    /// `hasDeviceClassMappedExtendedResource` over the pod's requests.
    pub fn backs_any(&self, request: &Resource) -> bool {
        request.scalars().iter().any(|(n, q)| *q != 0 && is_dra_extended_resource_name(n.as_str()) && self.class(n.as_str()).is_some())
    }
}

/// The resource names `pod` asks for (requests or limits of any container: the API
/// server defaults requests from limits), sorted.
pub fn requested_names(pod: &Pod) -> Vec<String> {
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

/// Whether `pod` (as written, before admission) asks for an extended resource one
/// of `classes` backs.
pub fn asks_backed(classes: &[DeviceClass], pod: &Pod) -> bool {
    let resolver = ClassResolver::new(classes);
    requested_names(pod).iter().any(|n| is_dra_extended_resource_name(n) && resolver.class(n).is_some())
}

/// What `filterExtendedResources` decides for one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnNode {
    /// The node advertises every backed resource (its device plugin serves them):
    /// nothing for DRA to allocate here.
    DevicePlugin,
    /// The resources DRA must allocate here, by name, with their quantities.
    Dra(BTreeMap<String, i64>),
    /// A requested extended resource neither on the node nor backed by a class
    /// (`cannot fit resource`; NodeResourcesFit, which runs first, rejects such a
    /// node already).
    CannotFit,
}

/// `filterExtendedResources` without the claim: the pod's scalar requests against
/// the node's allocatable. A backed resource the node lists as 0 goes to DRA too.
pub fn on_node(request: &Resource, allocatable: &Resource, resolver: &ClassResolver) -> OnNode {
    let mut dra = BTreeMap::new();
    for (rname, q) in request.scalars() {
        let name = rname.as_str();
        if !is_dra_extended_resource_name(name) || *q == 0 {
            continue;
        }
        let advertised = allocatable.scalar_by_name(rname);
        if resolver.class(name).is_some() && advertised.unwrap_or(0) == 0 {
            dra.insert(name.to_string(), *q);
        } else if advertised.is_none() {
            return OnNode::CannotFit;
        }
    }
    if dra.is_empty() {
        OnNode::DevicePlugin
    } else {
        OnNode::Dra(dra)
    }
}

/// `preFilterExtendedResources`' claim: in memory, owned by the pod, annotated,
/// without requests (Filter fills them per node).
pub fn special_claim(pod: &Pod) -> ResourceClaim {
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    ResourceClaim {
        metadata: ObjectMeta {
            namespace: Some(pod.metadata.namespace.clone().unwrap_or_else(|| "default".into())),
            name: Some(SPECIAL_CLAIM_IN_MEM_NAME.into()),
            generate_name: Some(format!("{pod_name}-extended-resources-")),
            owner_references: Some(vec![OwnerReference {
                api_version: "v1".into(),
                kind: "Pod".into(),
                name: pod_name,
                uid: pod.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: None,
            }]),
            annotations: Some([(EXTENDED_RESOURCE_CLAIM_ANNOTATION.to_string(), "true".to_string())].into()),
            ..Default::default()
        },
        spec: ResourceClaimSpec::default(),
        status: None,
    }
}

/// `findExtendedResourceClaim`: the annotated claim the pod controls.
pub fn find_claim<'a>(pod: &Pod, claims: &'a [ResourceClaim]) -> Option<&'a ResourceClaim> {
    let uid = pod.metadata.uid.as_deref().unwrap_or("");
    let name = pod.metadata.name.as_deref().unwrap_or("");
    claims.iter().find(|c| {
        let annotated = c.metadata.annotations.as_ref().and_then(|a| a.get(EXTENDED_RESOURCE_CLAIM_ANNOTATION)).is_some_and(|v| v == "true");
        annotated && c.metadata.owner_references.iter().flatten().any(|o| o.name == name && o.controller == Some(true) && o.uid == uid)
    })
}

/// The special claim for one node: its requests for `dra` (Filter's
/// `nodeExtendedResourceClaim`), and the container mappings PreBind writes to the pod.
pub fn node_claim(
    special: &ResourceClaim,
    pod: &Pod,
    dra: &BTreeMap<String, i64>,
    resolver: &ClassResolver,
) -> (ResourceClaim, Vec<ContainerExtendedResourceRequest>) {
    let (requests, mappings) = requests_and_mappings(pod, dra, resolver);
    let mut claim = special.clone();
    claim.spec.devices = Some(DeviceClaim { requests: Some(requests), ..Default::default() });
    (claim, mappings)
}

/// `partitionContainerIndices`: over init containers then containers, the long
/// lived ones (regular containers and sidecars) and the short lived init containers.
fn partition(containers: &[&Container], init: usize) -> (Vec<usize>, Vec<usize>) {
    let (mut long, mut short) = (Vec::new(), Vec::new());
    for (i, c) in containers.iter().enumerate() {
        let sidecar = c.restart_policy.as_deref() == Some("Always");
        if i < init && !sidecar {
            short.push(i);
        } else {
            long.push(i);
        }
    }
    (long, short)
}

/// A whole request quantity (`Quantity.AsInt64`), `None` when it is not one.
fn as_int64(q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity) -> Option<i64> {
    let q = crate::kubernetes::quantity::parse(q).ok()?;
    let v = q.value();
    (v.checked_mul(1000) == Some(q.milli_value())).then_some(v)
}

/// `createResourceRequestAndMappings`: the request container `index` makes for
/// `resource` beyond what `reusable` requests already give it, and its mappings.
fn request_and_mappings(
    index: usize,
    container: &Container,
    resource: &str,
    class: &str,
    reusable: &[Option<DeviceRequest>],
) -> (Option<DeviceRequest>, Vec<ContainerExtendedResourceRequest>) {
    let mut mappings = Vec::new();
    let Some(requests) = container.resources.as_ref().and_then(|r| r.requests.as_ref()) else { return (None, mappings) };
    let Some(crq) = requests.get(resource).and_then(as_int64).filter(|v| *v != 0) else { return (None, mappings) };
    let mapping = |request: &str| ContainerExtendedResourceRequest {
        container_name: container.name.clone(),
        resource_name: resource.to_string(),
        request_name: request.to_string(),
    };
    let mut sum = 0i64;
    for r in reusable.iter().flatten() {
        sum = sum.wrapping_add(r.exactly.as_ref().and_then(|e| e.count).unwrap_or(0));
        mappings.push(mapping(&r.name));
        if sum >= crq {
            return (None, mappings);
        }
    }
    // The resource's index among the container's request names, sorted.
    let ridx = requests.keys().position(|k| k == resource).unwrap_or(0);
    let name = format!("container-{index}-request-{ridx}");
    let request = DeviceRequest {
        name: name.clone(),
        exactly: Some(ExactDeviceRequest {
            device_class_name: class.to_string(),
            allocation_mode: Some("ExactCount".into()),
            count: Some(crq.wrapping_sub(sum)),
            ..Default::default()
        }),
        ..Default::default()
    };
    mappings.push(mapping(&name));
    (Some(request), mappings)
}

/// `createRequestsAndMappings`: one request per container and resource (a short
/// lived init container reuses what later long lived ones request, and the short
/// lived ones share their largest request), sorted by name; the mappings long lived
/// first.
pub fn requests_and_mappings(
    pod: &Pod,
    dra: &BTreeMap<String, i64>,
    resolver: &ClassResolver,
) -> (Vec<DeviceRequest>, Vec<ContainerExtendedResourceRequest>) {
    let spec = pod.spec.as_ref();
    let init = spec.and_then(|s| s.init_containers.as_deref()).unwrap_or(&[]);
    let regular = spec.map(|s| s.containers.as_slice()).unwrap_or(&[]);
    let containers: Vec<&Container> = init.iter().chain(regular).collect();
    let (long, short) = partition(&containers, init.len());
    let (mut requests, mut mappings) = (Vec::new(), Vec::new());
    // BTreeMap keys: the resource names sorted, as upstream sorts them.
    for resource in dra.keys() {
        let Some(class) = resolver.class(resource) else { continue };
        let mut long_requests: Vec<Option<DeviceRequest>> = vec![None; containers.len()];
        let mut long_mappings = Vec::new();
        for &i in &long {
            let Some(c) = containers.get(i) else { continue };
            let (r, m) = request_and_mappings(i, c, resource, class, &[]);
            if let Some(slot) = long_requests.get_mut(i) {
                *slot = r;
            }
            long_mappings.extend(m);
        }
        let mut max_short: Option<DeviceRequest> = None;
        let mut short_names: Vec<String> = Vec::new();
        let mut short_mappings = Vec::new();
        for &i in &short {
            let Some(c) = containers.get(i) else { continue };
            let (r, m) = request_and_mappings(i, c, resource, class, long_requests.get(i..).unwrap_or(&[]));
            if let Some(r) = r {
                short_names.push(r.name.clone());
                let count = |r: &DeviceRequest| r.exactly.as_ref().and_then(|e| e.count).unwrap_or(0);
                if max_short.as_ref().is_none_or(|m| count(m) < count(&r)) {
                    max_short = Some(r);
                }
            }
            short_mappings.extend(m);
        }
        if let Some(max) = max_short.as_ref().filter(|_| short_names.len() > 1) {
            for m in &mut short_mappings {
                if m.request_name != max.name && short_names.contains(&m.request_name) {
                    m.request_name = max.name.clone();
                }
            }
        }
        requests.extend(max_short);
        requests.extend(long_requests.into_iter().flatten());
        mappings.extend(long_mappings);
        mappings.extend(short_mappings);
    }
    requests.sort_by(|a, b| a.name.cmp(&b.name));
    (requests, mappings)
}

/// The name the API server gives the claim PreBind creates: generateName
/// `<pod>-extended-resources-`, cut to 58 characters, and five characters of its
/// alphabet — random there, derived from `key` here (as for claims from templates).
pub fn generated_name(pod_name: &str, key: &str) -> String {
    let base = format!("{pod_name}-extended-resources-");
    let cut = base.char_indices().nth(58).map_or(base.as_str(), |(i, _)| base.get(..i).unwrap_or(&base));
    format!("{cut}{}", super::dynamicresources::name_suffix(key))
}
