//! The scheduler's `DynamicResources` plugin
//! (`pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`) over the
//! [structured allocator](super::allocator), and what the control plane does around
//! it for the lab: the resource claim controller making a pod's claims from
//! templates (`pkg/controller/resourceclaim`), and the claim status the scheduler
//! writes when it binds (allocation, `reservedFor`).
//!
//! Texts verbatim from upstream: PreEnqueue's reasons (a pod that waits there is
//! never tried, so it gets no FailedScheduling event), PreFilter's
//! `resourceclaim in use` and `request R: device class C does not exist`, Filter's
//! `cannot allocate all claims` and `resourceclaim not available on the node`,
//! PostFilter's `still not schedulable` (1.34–1.36; 1.37 says nothing there) and
//! `deallocation of ResourceClaim completed`. The plugin is in the default profile
//! from 1.34 (DRA GA).

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ContainerExtendedResourceRequest, Pod, PodExtendedResourceClaimStatus, PodResourceClaimStatus};
use k8s_openapi::api::resource::v1::{
    AllocationResult, DeviceClass, ResourceClaim, ResourceClaimConsumerReference, ResourceClaimStatus,
    ResourceClaimTemplate,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::allocator::{AllocateError, Allocator, DeviceId, Features, Slice};
use super::extended::{self, ClassResolver, OnNode};
use crate::kubernetes::affinity::{node_selector_matches, NodeFields};
use crate::kubernetes::events::Event;
use crate::kubernetes::scheduler::framework::{DraCycle, DraReason, DynamicResources};
use crate::kubernetes::scheduler::{Code, NodeInfo, PodInfo, Status};
use crate::kubernetes::version::KubeVersion;

/// `ResourceClaimReservedForMaxSize`.
pub const RESERVED_FOR_MAX_SIZE: usize = 256;
/// PostFilter when no allocated claim could be freed.
pub const STILL_NOT_SCHEDULABLE: &str = "still not schedulable";
/// PostFilter after it cleared a claim's allocation.
pub const DEALLOCATED: &str = "deallocation of ResourceClaim completed";
/// PostFilter after it deleted the pod's extended-resource claim of an earlier cycle.
pub const DELETED: &str = "deletion of ResourceClaim completed";

/// The DRA objects of the cluster, as the API server holds them. The slices (the
/// drivers', by far the most of it at a cluster's size) are shared one by one
/// ([`Slice`], with their devices' CEL inputs): a clone of the state — each
/// scheduling cycle's plugin takes one — or a state joined from others copies none
/// of them.
#[derive(Debug, Clone, Default)]
pub struct State {
    pub classes: Vec<DeviceClass>,
    pub claims: Vec<ResourceClaim>,
    pub templates: Vec<ResourceClaimTemplate>,
    pub slices: Vec<Slice>,
}

impl State {
    /// Adds the objects [`super::read`] kept, without their file positions.
    pub fn extend(&mut self, objects: super::Objects) {
        self.classes.extend(objects.device_classes.into_iter().map(|o| o.object));
        self.claims.extend(objects.resource_claims.into_iter().map(|o| o.object));
        self.templates.extend(objects.resource_claim_templates.into_iter().map(|o| o.object));
        self.slices.extend(objects.resource_slices.into_iter().map(|o| Slice::new(o.object)));
    }

    /// Adds another state's objects after this one's (the slices shared).
    pub fn merge(&mut self, other: &State) {
        self.classes.extend(other.classes.iter().cloned());
        self.claims.extend(other.claims.iter().cloned());
        self.templates.extend(other.templates.iter().cloned());
        self.slices.extend(other.slices.iter().cloned());
    }
}

impl From<super::Objects> for State {
    fn from(objects: super::Objects) -> Self {
        let mut state = State::default();
        state.extend(objects);
        state
    }
}

fn ns(meta: &ObjectMeta) -> &str {
    meta.namespace.as_deref().unwrap_or("default")
}

fn name(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or("")
}

fn pod_ns(pod: &Pod) -> &str {
    ns(&pod.metadata)
}

/// The allocator's gates for a version (`pkg/features/kube_features.go`):
/// DRAPrioritizedList beta and on from 1.34, DRAPartitionableDevices and
/// DRAConsumableCapacity from 1.36.
pub fn features(version: KubeVersion) -> Features {
    let from_1_36 = version >= KubeVersion::V1_36;
    Features { prioritized_list: version >= KubeVersion::V1_34, partitionable_devices: from_1_36, consumable_capacity: from_1_36 }
}

impl State {
    /// The claim `namespace/name`.
    pub fn claim(&self, namespace: &str, claim: &str) -> Option<&ResourceClaim> {
        self.claims.iter().find(|c| ns(&c.metadata) == namespace && name(&c.metadata) == claim)
    }

    /// `resourceclaim.Name` + the lister: the claims of the pod in
    /// `spec.resourceClaims` order (`None` for a template the controller decided
    /// needs no claim), or the reason the plugin's PreEnqueue gives.
    pub fn pod_claims(&self, pod: &Pod) -> Result<Vec<&ResourceClaim>, String> {
        let namespace = pod_ns(pod);
        let pod_name = name(&pod.metadata);
        let mut out = Vec::new();
        let statuses = pod.status.as_ref().and_then(|s| s.resource_claim_statuses.as_deref()).unwrap_or(&[]);
        for pc in pod.spec.as_ref().and_then(|s| s.resource_claims.as_deref()).unwrap_or(&[]) {
            let (claim_name, must_check_owner) = match (&pc.resource_claim_name, &pc.resource_claim_template_name) {
                (Some(n), _) => (n.clone(), false),
                (None, Some(_)) => match statuses.iter().find(|s| s.name == pc.name) {
                    Some(PodResourceClaimStatus { resource_claim_name: Some(n), .. }) => (n.clone(), true),
                    Some(_) => continue,
                    None => return Err(format!("pod \"{namespace}/{pod_name}\": ResourceClaim not created yet")),
                },
                (None, None) => {
                    return Err(format!(
                        "pod \"{namespace}/{pod_name}\", spec.resourceClaim {:?}: none of the supported fields are set",
                        pc.name
                    ))
                }
            };
            let Some(claim) = self.claim(namespace, &claim_name) else {
                return Err(format!("resourceclaim.resource.k8s.io \"{claim_name}\" not found"));
            };
            if claim.metadata.deletion_timestamp.is_some() {
                return Err(format!("resourceclaim {claim_name:?} is being deleted"));
            }
            // `resourceclaim.IsForPod`: a claim from a template must be controlled by the pod.
            let uid = pod.metadata.uid.as_deref().unwrap_or("");
            let owned = claim.metadata.owner_references.iter().flatten().any(|o| o.controller == Some(true) && o.uid == uid);
            if must_check_owner && !owned {
                return Err(format!(
                    "ResourceClaim {}/{claim_name} was not created for pod {namespace}/{pod_name} (pod is not owner)",
                    ns(&claim.metadata)
                ));
            }
            out.push(claim);
        }
        Ok(out)
    }

    /// The devices of every allocated claim (`ListAllAllocatedDevices`).
    pub fn allocated_devices(&self) -> BTreeSet<DeviceId> {
        let mut out = BTreeSet::new();
        for c in &self.claims {
            let results = c.status.as_ref().and_then(|s| s.allocation.as_ref()).and_then(|a| a.devices.as_ref());
            for r in results.and_then(|d| d.results.as_ref()).into_iter().flatten() {
                if r.admin_access == Some(true) {
                    continue;
                }
                out.insert(DeviceId { driver: r.driver.clone(), pool: r.pool.clone(), device: r.device.clone() });
            }
        }
        out
    }

    /// The resource claim controller for one pod: a claim from each template the pod
    /// names (generateName `<pod>-<claim>-`, owned by the pod) recorded in
    /// `status.resourceClaimStatuses`, or the `FailedResourceClaimCreation` warning
    /// for the first template that does not exist. The five random characters of
    /// the generated name are derived from the pod's name here (the real ones are
    /// random).
    pub fn create_claims_for(&mut self, pod: &mut Pod, at: i64) -> Option<Event> {
        let namespace = pod_ns(pod).to_string();
        let pod_name = name(&pod.metadata).to_string();
        let claims = pod.spec.as_ref().and_then(|s| s.resource_claims.clone()).unwrap_or_default();
        let mut statuses = pod.status.as_ref().and_then(|s| s.resource_claim_statuses.clone()).unwrap_or_default();
        let mut event = None;
        for pc in &claims {
            let Some(template_name) = &pc.resource_claim_template_name else { continue };
            if pc.resource_claim_name.is_some() || statuses.iter().any(|s| s.name == pc.name) {
                continue;
            }
            let found = self.templates.iter().find(|t| ns(&t.metadata) == namespace && name(&t.metadata) == template_name);
            let Some(template) = found else {
                let message = format!(
                    "PodResourceClaim {}: resource claim template {template_name:?}: resourceclaimtemplate.resource.k8s.io {template_name:?} not found",
                    pc.name
                );
                event = Some(Event::once("Warning", "FailedResourceClaimCreation", "resource_claim", message, at));
                break;
            };
            let base = generate_name_base(&pod_name, &pc.name);
            let claim_name = format!("{base}{}", name_suffix(&format!("{namespace}/{pod_name}/{}", pc.name)));
            let mut annotations = template.spec.metadata.as_ref().and_then(|m| m.annotations.clone()).unwrap_or_default();
            annotations.insert("resource.kubernetes.io/pod-claim-name".into(), pc.name.clone());
            let claim = ResourceClaim {
                metadata: ObjectMeta {
                    name: Some(claim_name.clone()),
                    generate_name: Some(base),
                    namespace: Some(namespace.clone()),
                    annotations: Some(annotations),
                    labels: template.spec.metadata.as_ref().and_then(|m| m.labels.clone()),
                    owner_references: Some(vec![OwnerReference {
                        api_version: "v1".into(),
                        kind: "Pod".into(),
                        name: pod_name.clone(),
                        uid: pod.metadata.uid.clone().unwrap_or_default(),
                        controller: Some(true),
                        block_owner_deletion: Some(true),
                    }]),
                    ..Default::default()
                },
                spec: template.spec.spec.clone(),
                status: None,
            };
            self.claims.push(claim);
            statuses.push(PodResourceClaimStatus { name: pc.name.clone(), resource_claim_name: Some(claim_name) });
        }
        if !statuses.is_empty() {
            pod.status.get_or_insert_with(Default::default).resource_claim_statuses = Some(statuses);
        }
        event
    }

    /// What PreBind writes for a pod bound with `allocations`: each of its claims'
    /// allocation and the pod in every claim's `reservedFor`; and the claim for its
    /// extended resources, created (`<pod>-extended-resources-…`, the finalizer, the
    /// allocation, the pod in `reservedFor`) and named in the pod's
    /// `status.extendedResourceClaimStatus`. Returns every claim allocated, by name
    /// (the extended-resource claim last).
    pub fn bind(&mut self, pod: &mut Pod, allocations: &Allocations) -> Vec<(String, AllocationResult)> {
        let mut out = allocations.claims.clone();
        self.bind_own(pod, &allocations.claims);
        if let Some(x) = &allocations.extended {
            let namespace = pod_ns(pod).to_string();
            let pod_name = name(&pod.metadata).to_string();
            let claim_name = extended::generated_name(&pod_name, &format!("{namespace}/{pod_name}/extended-resources"));
            let mut claim = x.claim.clone();
            claim.metadata.name = Some(claim_name.clone());
            claim.metadata.finalizers = Some(vec![extended::FINALIZER.into()]);
            claim.status = Some(ResourceClaimStatus {
                allocation: Some(x.allocation.clone()),
                reserved_for: Some(vec![consumer(pod)]),
                ..Default::default()
            });
            self.claims.push(claim);
            pod.status.get_or_insert_with(Default::default).extended_resource_claim_status =
                Some(PodExtendedResourceClaimStatus { request_mappings: x.mappings.clone(), resource_claim_name: claim_name.clone() });
            out.push((claim_name, x.allocation.clone()));
        }
        out
    }

    /// The claim the scheduler made for `pod`'s extended resources, if any
    /// (`status.extendedResourceClaimStatus`).
    pub fn extended_claim(&self, pod: &Pod) -> Option<&ResourceClaim> {
        let status = pod.status.as_ref().and_then(|s| s.extended_resource_claim_status.as_ref())?;
        self.claim(pod_ns(pod), &status.resource_claim_name)
    }

    /// [`State::bind`] for the pod's own claims.
    fn bind_own(&mut self, pod: &Pod, allocations: &[(String, AllocationResult)]) {
        let namespace = pod_ns(pod).to_string();
        let Ok(claims) = self.pod_claims(pod) else { return };
        let names: Vec<String> = claims.iter().map(|c| name(&c.metadata).to_string()).collect();
        let consumer = consumer(pod);
        for claim in self.claims.iter_mut().filter(|c| ns(&c.metadata) == namespace && names.iter().any(|n| n == name(&c.metadata))) {
            let status = claim.status.get_or_insert_with(ResourceClaimStatus::default);
            if let Some((_, a)) = allocations.iter().find(|(n, _)| n == name(&claim.metadata)) {
                status.allocation = Some(a.clone());
            }
            let reserved = status.reserved_for.get_or_insert_with(Vec::new);
            if !reserved.iter().any(|r| r.resource == "pods" && r.name == consumer.name) {
                reserved.push(consumer.clone());
            }
        }
    }

    /// What PostFilter did when it said [`DELETED`]: the claim gone.
    pub fn delete(&mut self, namespace: &str, claim: &str) {
        self.claims.retain(|c| !(ns(&c.metadata) == namespace && name(&c.metadata) == claim));
    }

    /// What PostFilter did when it said [`DEALLOCATED`]: the claim's allocation and
    /// reservations cleared.
    pub fn deallocate(&mut self, namespace: &str, claim: &str) {
        if let Some(c) = self.claims.iter_mut().find(|c| ns(&c.metadata) == namespace && name(&c.metadata) == claim) {
            if let Some(s) = c.status.as_mut() {
                s.allocation = None;
                s.reserved_for = None;
                s.devices = None;
            }
        }
    }
}

/// The pod as a claim's consumer (`reservedFor`).
fn consumer(pod: &Pod) -> ResourceClaimConsumerReference {
    ResourceClaimConsumerReference {
        api_group: None,
        resource: "pods".into(),
        name: name(&pod.metadata).to_string(),
        uid: pod.metadata.uid.clone().unwrap_or_default(),
    }
}

/// What a pod's claims get on the node it is bound to (Filter's results, which
/// Reserve keeps and PreBind writes).
#[derive(Debug, Clone, Default)]
pub struct Allocations {
    /// The pod's own claims that were allocated, by claim name.
    pub claims: Vec<(String, AllocationResult)>,
    /// The claim for extended resources DRA allocates on the node.
    pub extended: Option<ExtendedAllocation>,
}

/// The scheduler's claim for a pod's extended resources on one node.
#[derive(Debug, Clone)]
pub struct ExtendedAllocation {
    /// The claim as Filter made it for the node (named `<extended-resources>` until
    /// it is created).
    pub claim: ResourceClaim,
    pub allocation: AllocationResult,
    /// `status.extendedResourceClaimStatus.requestMappings`.
    pub mappings: Vec<ContainerExtendedResourceRequest>,
}

/// `<pod>-<claim>-`, both cut in proportion when longer than 57 characters.
fn generate_name_base(pod: &str, claim: &str) -> String {
    let base = format!("{pod}-{claim}-");
    if base.len() <= 57 {
        return base;
    }
    let len = base.len();
    let p = pod.get(..pod.len() * 57 / len).unwrap_or(pod);
    let c = claim.get(..claim.len() * 57 / len).unwrap_or(claim);
    format!("{p}-{c}")
}

/// Five characters of the API server's generateName alphabet, from a hash of `key`.
pub(super) fn name_suffix(key: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    (0..5)
        .map(|i| {
            let n = ALPHABET.len() as u64;
            let idx = usize::try_from((h >> (i * 8)) % n).unwrap_or(0);
            ALPHABET.get(idx).map_or('x', |b| char::from(*b))
        })
        .collect()
}

/// The plugin over a cluster's DRA objects.
#[derive(Debug, Clone)]
pub struct Plugin {
    pub state: Arc<State>,
    pub features: Features,
    pub version: KubeVersion,
    allocated: Arc<BTreeSet<DeviceId>>,
    /// Which class an extended resource name means, when `DRAExtendedResource` is
    /// on (`None` before 1.36).
    resolver: Option<Arc<ClassResolver>>,
    /// What allocated claims consume of shared devices (consumable capacity).
    consumed: Arc<Vec<super::allocator::Consumed>>,
    /// The classes' selectors, compiled once for every node Filter looks at.
    compiled: Arc<Vec<super::allocator::Compiled>>,
    /// The slices by node and pool, made once for every node Filter looks at.
    index: Arc<super::allocator::SliceIndex>,
}

impl Plugin {
    /// The plugin for `version` over `state`.
    pub fn new(state: Arc<State>, version: KubeVersion) -> Plugin {
        let allocated = Arc::new(state.allocated_devices());
        let resolver = version.dra_extended_resource().then(|| Arc::new(ClassResolver::new(&state.classes)));
        let consumed = Arc::new(super::allocator::consumed_by(&state.claims));
        let compiled = Arc::new(super::allocator::compile_selectors(&state.classes));
        let index = Arc::new(super::allocator::SliceIndex::new(&state.slices));
        Plugin { state, features: features(version), version, allocated, resolver, consumed, compiled, index }
    }

    /// The extended resource names DeviceClasses back, for NodeResourcesFit
    /// (`FitArgs::dra_extended_resources`): `None` when the gate is off or no class
    /// exists.
    pub fn backed_resources(&self) -> Option<BTreeSet<String>> {
        let r = self.resolver.as_ref().filter(|_| !self.state.classes.is_empty())?;
        Some(r.resource_names().cloned().collect())
    }

    /// `PreEnqueue`: why the pod waits before any scheduling attempt (no event is
    /// written for it), or `Ok`.
    pub fn pre_enqueue(&self, pod: &Pod) -> Result<(), String> {
        self.state.pod_claims(pod).map(|_| ())
    }

    /// The extended-resource claim of PreFilter for `pod`: the pod's own from an
    /// earlier cycle, or a new one in memory; `None` when no requested extended
    /// resource is backed by a class (or the gate is off).
    fn extended_claim(&self, pod: &PodInfo) -> Option<ResourceClaim> {
        self.resolver.as_ref().filter(|r| r.backs_any(&pod.request))?;
        Some(extended::find_claim(&pod.pod, &self.state.claims).cloned().unwrap_or_else(|| extended::special_claim(&pod.pod)))
    }

    /// What the pod's claims get on `node` (Filter's result, which Reserve keeps):
    /// empty when nothing is to be allocated.
    pub fn allocations(&self, pod: &PodInfo, node: &NodeInfo) -> Allocations {
        let Ok(Some(cycle)) = self.pre_filter_cycle(pod) else { return Allocations::default() };
        cycle.solve(node).ok().flatten().unwrap_or_default()
    }

    fn allocator(&self) -> Allocator<'_> {
        Allocator {
            features: self.features,
            classes: &self.state.classes,
            slices: &self.state.slices,
            allocated: &self.allocated,
            consumed: &self.consumed,
            compiled: &self.compiled,
            index: Some(&self.index),
        }
    }

    /// The claim PostFilter deallocates for `pod` when no node passed, if any
    /// (`namespace`, `name`): the first allocated claim unavailable on a node that
    /// DynamicResources rejected and reserved for no other pod. Upstream picks one at
    /// random among them.
    pub fn claim_to_deallocate(&self, pod: &Pod, rejected: &[&NodeInfo]) -> Option<(String, String)> {
        let claims = self.state.pod_claims(pod).ok()?;
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let pod_name = name(&pod.metadata);
        for c in claims {
            let Some(a) = c.status.as_ref().and_then(|s| s.allocation.as_ref()) else { continue };
            let Some(sel) = &a.node_selector else { continue };
            if !rejected.iter().any(|n| !node_selector_matches(sel, NodeFields::of(&n.node))) {
                continue;
            }
            let reserved = c.status.as_ref().and_then(|s| s.reserved_for.as_deref()).unwrap_or(&[]);
            let only_us = match reserved {
                [] => true,
                [r] => r.uid == uid && (!uid.is_empty() || r.name == pod_name),
                _ => false,
            };
            if only_us {
                return Some((ns(&c.metadata).to_string(), name(&c.metadata).to_string()));
            }
        }
        None
    }

    /// The pod's extended-resource claim of an earlier cycle that PostFilter deletes
    /// (`namespace`, `name`), if it has one.
    pub fn claim_to_delete(&self, pod: &Pod) -> Option<(String, String)> {
        let c = extended::find_claim(pod, &self.state.claims)?;
        Some((ns(&c.metadata).to_string(), name(&c.metadata).to_string()))
    }
}

fn reserved_for_pod(claim: &ResourceClaim, pod: &Pod) -> bool {
    let uid = pod.metadata.uid.as_deref().unwrap_or("");
    let pod_name = name(&pod.metadata);
    claim
        .status
        .as_ref()
        .and_then(|s| s.reserved_for.as_ref())
        .is_some_and(|r| r.iter().any(|c| c.resource == "pods" && if uid.is_empty() { c.name == pod_name } else { c.uid == uid }))
}

impl DynamicResources for Plugin {
    fn pre_filter(&self, pod: &PodInfo) -> Result<Option<Arc<dyn DraCycle>>, Status> {
        Ok(self.pre_filter_cycle(pod)?.map(|c| Arc::new(c) as Arc<dyn DraCycle>))
    }
}

impl Plugin {
    /// PreFilter: `Ok(None)` = Skip (no claims of its own, no extended resource a
    /// class backs).
    fn pre_filter_cycle(&self, pod: &PodInfo) -> Result<Option<Cycle>, Status> {
        let unresolvable = |m: String| Status::new(Code::UnschedulableAndUnresolvable, [m]);
        let claims: Vec<ResourceClaim> = self.state.pod_claims(&pod.pod).map_err(unresolvable)?.into_iter().cloned().collect();
        let special = self.extended_claim(pod);
        if claims.is_empty() && special.is_none() {
            return Ok(None);
        }
        let extended = special.zip(self.resolver.clone()).map(|(claim, resolver)| Extended { claim, request: pod.clone(), resolver });
        let cycle = Cycle { plugin: self.clone(), pod: pod.pod.clone(), claims, extended };
        let special = cycle.extended.as_ref().map(|x| &x.claim);
        for c in cycle.claims.iter().chain(special) {
            let status = c.status.as_ref();
            let allocation = status.and_then(|s| s.allocation.as_ref());
            let reserved = status.and_then(|s| s.reserved_for.as_ref()).map_or(0, Vec::len);
            if allocation.is_some() && reserved >= RESERVED_FOR_MAX_SIZE && !reserved_for_pod(c, &pod.pod) {
                return Err(unresolvable("resourceclaim in use".into()));
            }
            // The extended-resource claim is not validated here (Filter makes its requests).
            if allocation.is_none() && !special.is_some_and(|s| std::ptr::eq(s, c)) {
                let key = super::allocator::claim_key(c);
                for r in c.spec.devices.as_ref().and_then(|d| d.requests.as_ref()).into_iter().flatten() {
                    if let Some(e) = &r.exactly {
                        self.validate_class(&e.device_class_name, &r.name)?;
                    } else if let Some(subs) = r.first_available.as_ref().filter(|s| !s.is_empty()) {
                        if !self.features.prioritized_list {
                            return Err(unresolvable(format!(
                                "resource claim {key}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                                r.name
                            )));
                        }
                        for s in subs {
                            self.validate_class(&s.device_class_name, &format!("{}/{}", r.name, s.name))?;
                        }
                    } else {
                        return Err(unresolvable(format!("resource claim {key}, request {}: unknown request type", r.name)));
                    }
                }
            }
        }
        Ok(Some(cycle))
    }

    fn validate_class(&self, class: &str, request: &str) -> Result<(), Status> {
        if class.is_empty() {
            return Err(Status::new(Code::Error, [format!("request {request}: unsupported request type")]));
        }
        if !self.state.classes.iter().any(|c| c.metadata.name.as_deref() == Some(class)) {
            return Err(Status::new(
                Code::UnschedulableAndUnresolvable,
                [format!("request {request}: device class {class} does not exist")],
            ));
        }
        Ok(())
    }
}

/// The cycle's extended-resource claim and what Filter needs for it.
#[derive(Debug)]
struct Extended {
    /// `<extended-resources>` in memory, or the pod's claim of an earlier cycle.
    claim: ResourceClaim,
    /// The pod's requests (`draExtendedResource.podScalarResources`).
    request: PodInfo,
    resolver: Arc<ClassResolver>,
}

/// One pod's cycle: its claims as PreFilter found them.
#[derive(Debug)]
struct Cycle {
    plugin: Plugin,
    pod: Pod,
    /// The pod's own claims.
    claims: Vec<ResourceClaim>,
    extended: Option<Extended>,
}

/// Filter's rejection of a node, or the allocations the pod would get there.
type Solved = Result<Option<Allocations>, DraReason>;

impl Cycle {
    /// Filter on `node`: `Ok(Ok(Some))` what the claims get, `Ok(Ok(None))` nothing
    /// to allocate, `Ok(Err)` the rejection; `Err` the text of a Filter error.
    fn solve_on(&self, node: &NodeInfo) -> Result<Solved, String> {
        // `filterExtendedResources`.
        let mut node_claim = None;
        if let Some(x) = &self.extended {
            if x.claim.spec.devices.as_ref().and_then(|d| d.requests.as_ref()).is_some() {
                return Ok(Err(DraReason::StaleExtendedClaim));
            }
            match extended::on_node(&x.request.request, &node.allocatable, &x.resolver) {
                OnNode::CannotFit => return Ok(Err(DraReason::CannotFitResource)),
                OnNode::DevicePlugin => {}
                OnNode::Dra(_) if x.claim.status.as_ref().is_some_and(|s| s.allocation.is_some()) => {}
                OnNode::Dra(resources) => node_claim = Some(extended::node_claim(&x.claim, &self.pod, &resources, &x.resolver)),
            }
        }
        if node_claim.is_none() && self.claims.is_empty() {
            return Ok(Ok(None));
        }
        let unavailable = self.claims.iter().any(|c| {
            let sel = c.status.as_ref().and_then(|s| s.allocation.as_ref()).and_then(|a| a.node_selector.as_ref());
            sel.is_some_and(|sel| !node_selector_matches(sel, NodeFields::of(&node.node)))
        });
        let mut to_allocate: Vec<&ResourceClaim> =
            self.claims.iter().filter(|c| c.status.as_ref().and_then(|s| s.allocation.as_ref()).is_none()).collect();
        if let Some((claim, _)) = &node_claim {
            to_allocate.push(claim);
        }
        let mut out = Allocations::default();
        if !to_allocate.is_empty() {
            match self.plugin.allocator().allocate(&node.node, &to_allocate) {
                Ok(Some(results)) if results.len() == to_allocate.len() => {
                    let mut results = results.into_iter();
                    for c in to_allocate.iter().take(to_allocate.len() - usize::from(node_claim.is_some())) {
                        if let Some(a) = results.next() {
                            out.claims.push((name(&c.metadata).to_string(), a));
                        }
                    }
                    if let (Some((claim, mappings)), Some(allocation)) = (node_claim.clone(), results.next()) {
                        out.extended = Some(ExtendedAllocation { claim, allocation, mappings });
                    }
                }
                Ok(_) => return Ok(Err(DraReason::CannotAllocate)),
                Err(AllocateError::OnNode(text)) if text == DraReason::InvalidPools.text() => {
                    return Ok(Err(DraReason::InvalidPools))
                }
                Err(AllocateError::OnNode(_)) => return Ok(Err(DraReason::TimedOut)),
                Err(AllocateError::Fatal(e)) => return Err(e),
            }
        }
        if unavailable {
            return Ok(Err(DraReason::NotAvailable));
        }
        Ok(Ok(Some(out)))
    }

    /// What the claims get on `node`, or why not (`Err` of the outer result: a
    /// Filter error's text).
    fn solve(&self, node: &NodeInfo) -> Result<Option<Allocations>, String> {
        Ok(self.solve_on(node)?.ok().flatten())
    }

    /// Filter's verdict with the error text for [`DraReason::Error`].
    fn verdict(&self, node: &NodeInfo) -> Result<Option<DraReason>, String> {
        Ok(self.solve_on(node)?.err())
    }
}

impl DraCycle for Cycle {
    fn filter(&self, node: &NodeInfo) -> Option<DraReason> {
        self.verdict(node).unwrap_or(Some(DraReason::Error))
    }

    fn filter_error(&self, node: &NodeInfo) -> String {
        self.verdict(node).err().unwrap_or_default()
    }

    fn post_filter(&self, rejected: &[&NodeInfo]) -> Status {
        let dra_rejected: Vec<&NodeInfo> =
            rejected.iter().copied().filter(|n| self.verdict(n) == Ok(Some(DraReason::NotAvailable))).collect();
        if self.plugin.claim_to_deallocate(&self.pod, &dra_rejected).is_some() {
            return Status::new(Code::Unschedulable, [DEALLOCATED]);
        }
        // A claim the scheduler made in an earlier cycle (it has a real name) is deleted.
        let stale = self.extended.as_ref().is_some_and(|x| name(&x.claim.metadata) != extended::SPECIAL_CLAIM_IN_MEM_NAME);
        if stale {
            return Status::new(Code::Unschedulable, [DELETED]);
        }
        let reasons: &[&str] = if self.plugin.version.dra_still_not_schedulable_message() { &[STILL_NOT_SCHEDULABLE] } else { &[] };
        Status::new(Code::Unschedulable, reasons.iter().copied())
    }
}
