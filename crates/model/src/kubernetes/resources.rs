//! Resource names and pod requests: which names are scalar resources, a pod's
//! effective request (`resourcehelper.PodRequests`: containers summed, init containers
//! as a max with sidecars, pod overhead added) and the scheduler's `Resource` sums.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::quantity::Quantity;

/// A resource list with parsed quantities; unparsable values are left out (the
/// loader reports them with their line).
pub type ResourceList = BTreeMap<String, Quantity>;

/// `cpu`.
pub const CPU: &str = "cpu";
/// `memory`.
pub const MEMORY: &str = "memory";
/// `ephemeral-storage`.
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// `pods`.
pub const PODS: &str = "pods";
/// The GPU resource the NVIDIA device plugin advertises.
pub const NVIDIA_GPU: &str = "nvidia.com/gpu";

/// Default CPU request used for scoring a container without one (100m).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Default memory request used for scoring a container without one (200Mi).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// `IsPrefixedNativeResource`: the name contains `kubernetes.io/`.
pub fn is_prefixed_native_resource(name: &str) -> bool {
    name.contains("kubernetes.io/")
}

/// `IsNativeResource`: no domain, or a `kubernetes.io/` one.
pub fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || is_prefixed_native_resource(name)
}

/// `IsHugePageResourceName`.
pub fn is_hugepage_resource_name(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `IsAttachableVolumeResourceName`.
pub fn is_attachable_volume_resource_name(name: &str) -> bool {
    name.starts_with("attachable-volumes-")
}

/// `IsExtendedResourceName`: not native, not `requests.`-prefixed, and
/// `requests.<name>` is a qualified name (`nvidia.com/gpu`, `example.com/dongle`).
pub fn is_extended_resource_name(name: &str) -> bool {
    if is_native_resource(name) || name.starts_with("requests.") {
        return false;
    }
    is_qualified_name(&format!("requests.{name}"))
}

/// `IsScalarResourceName`: extended, hugepages, prefixed native or attachable volume.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || is_hugepage_resource_name(name)
        || is_prefixed_native_resource(name)
        || is_attachable_volume_resource_name(name)
}

/// `IsIntegerResourceName`: extended resources must be whole numbers.
pub fn is_integer_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
}

/// `helper.IsOvercommitAllowed`: only native, non-hugepage resources may have a
/// request below the limit.
pub fn is_overcommit_allowed(name: &str) -> bool {
    is_native_resource(name) && !is_hugepage_resource_name(name)
}

/// `validation.IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63
/// characters of `[A-Za-z0-9_.-]` beginning and ending alphanumeric.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    if name.contains('/') {
        return false;
    }
    if let Some(p) = prefix {
        if !is_dns1123_subdomain(p) {
            return false;
        }
    }
    is_label_name_part(name)
}

fn is_label_name_part(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.first().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                && b.last().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

/// `validation.IsValidLabelValue`: empty, or ≤ 63 of `[A-Za-z0-9_.-]` with
/// alphanumeric ends.
pub fn is_valid_label_value(v: &str) -> bool {
    v.is_empty() || is_label_name_part(v)
}

/// Parses a k8s-openapi resource map, skipping values that are not quantities.
pub fn parse_resource_list(m: Option<&BTreeMap<String, ApiQuantity>>) -> ResourceList {
    m.map(|m| m.iter().filter_map(|(k, v)| Quantity::parse(&v.0).ok().map(|q| (k.clone(), q))).collect())
        .unwrap_or_default()
}

fn add_into(into: &mut ResourceList, add: &ResourceList) {
    for (k, v) in add {
        let sum = match into.get(k) {
            Some(cur) => cur.add(v),
            None => v.clone(),
        };
        into.insert(k.clone(), sum);
    }
}

fn max_into(into: &mut ResourceList, other: &ResourceList) {
    for (k, v) in other {
        match into.get(k) {
            Some(cur) if cur >= v => {}
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

fn container_requests(c: &Container, non_missing: Option<&ResourceList>) -> ResourceList {
    let mut reqs = parse_resource_list(c.resources.as_ref().and_then(|r| r.requests.as_ref()));
    if let Some(defaults) = non_missing {
        for (k, v) in defaults {
            reqs.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    reqs
}

/// Options of [`pod_requests`] (`PodResourcesOptions`).
#[derive(Debug, Clone, Default)]
pub struct PodResourcesOptions {
    /// Leave `spec.overhead` out.
    pub exclude_overhead: bool,
    /// Use `spec.resources.requests` (PodLevelResources, beta and on from 1.34) for
    /// cpu, memory and hugepages when set.
    pub pod_level_resources: bool,
    /// Per-container defaults for missing requests (scoring's 100m / 200Mi).
    pub non_missing_container_requests: Option<ResourceList>,
}

/// `resourcehelper.PodRequests`: the pod's effective request.
pub fn pod_requests(spec: &PodSpec, opts: &PodResourcesOptions) -> ResourceList {
    let nm = opts.non_missing_container_requests.as_ref();
    let mut reqs = ResourceList::new();
    for c in &spec.containers {
        add_into(&mut reqs, &container_requests(c, nm));
    }
    let mut restartable = ResourceList::new();
    let mut init_reqs = ResourceList::new();
    for c in spec.init_containers.iter().flatten() {
        let creqs = container_requests(c, nm);
        let effective = if c.restart_policy.as_deref() == Some("Always") {
            add_into(&mut reqs, &creqs);
            add_into(&mut restartable, &creqs);
            restartable.clone()
        } else {
            let mut tmp = creqs;
            add_into(&mut tmp, &restartable);
            tmp
        };
        max_into(&mut init_reqs, &effective);
    }
    max_into(&mut reqs, &init_reqs);
    if opts.pod_level_resources {
        let pod_level = parse_resource_list(spec.resources.as_ref().and_then(|r| r.requests.as_ref()));
        for (k, v) in pod_level {
            if k == CPU || k == MEMORY || is_hugepage_resource_name(&k) {
                reqs.insert(k, v);
            }
        }
    }
    if !opts.exclude_overhead {
        add_into(&mut reqs, &parse_resource_list(spec.overhead.as_ref()));
    }
    reqs
}

/// A resource name, stored inline when short (`nvidia.com/gpu` is 14 bytes) so the
/// scheduler's per-node lookups on 5,000 nodes do not chase a heap pointer per name.
#[derive(Clone)]
pub enum ResourceName {
    Inline { len: u8, bytes: [u8; 30] },
    Heap(Box<str>),
}

impl ResourceName {
    pub fn new(s: &str) -> ResourceName {
        let b = s.as_bytes();
        if b.len() <= 30 {
            let mut bytes = [0u8; 30];
            if let Some(dst) = bytes.get_mut(..b.len()) {
                dst.copy_from_slice(b);
            }
            ResourceName::Inline { len: b.len() as u8, bytes }
        } else {
            ResourceName::Heap(s.into())
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        match self {
            ResourceName::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or(&[]),
            ResourceName::Heap(s) => s.as_bytes(),
        }
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl PartialEq for ResourceName {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl Eq for ResourceName {}

impl std::fmt::Debug for ResourceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::fmt::Display for ResourceName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The scheduler's `framework.Resource`: cpu in millicores, memory and
/// ephemeral-storage in bytes, pod count, and scalar resources by name (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resource {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub allowed_pod_number: i64,
    /// Sorted by name; read with [`Resource::scalars`].
    scalar: Vec<(ResourceName, i64)>,
    /// A copy of the only entry when there is exactly one (the common GPU case), so
    /// a lookup reads this struct and not the vector's heap buffer — on 5,000 nodes
    /// that buffer is a cache miss per node.
    single: Option<(ResourceName, i64)>,
}

impl Resource {
    /// `NewResource(rl)` / `Resource.Add(rl)`.
    pub fn from_list(rl: &ResourceList) -> Resource {
        let mut r = Resource::default();
        r.add_list(rl);
        r
    }

    /// `Resource.Add`: unknown names (no domain, not cpu/memory/…) are ignored.
    pub fn add_list(&mut self, rl: &ResourceList) {
        for (name, q) in rl {
            match name.as_str() {
                CPU => self.milli_cpu = self.milli_cpu.wrapping_add(q.milli_value()),
                MEMORY => self.memory = self.memory.wrapping_add(q.value()),
                PODS => self.allowed_pod_number = self.allowed_pod_number.wrapping_add(q.value()),
                EPHEMERAL_STORAGE => self.ephemeral_storage = self.ephemeral_storage.wrapping_add(q.value()),
                _ if is_scalar_resource_name(name) => self.add_scalar(name, q.value()),
                _ => {}
            }
        }
    }

    /// The scalar resources, sorted by name.
    pub fn scalars(&self) -> &[(ResourceName, i64)] {
        &self.scalar
    }

    /// Adds `v` to the scalar resource `name`.
    pub fn add_scalar(&mut self, name: &str, v: i64) {
        self.add_scalar_inner(name, v);
        self.single = match self.scalar.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        };
    }

    fn add_scalar_inner(&mut self, name: &str, v: i64) {
        match self.scalar.binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes())) {
            Ok(i) => {
                if let Some((_, cur)) = self.scalar.get_mut(i) {
                    *cur = cur.wrapping_add(v);
                }
            }
            Err(i) => self.scalar.insert(i, (ResourceName::new(name), v)),
        }
    }

    /// The scalar resource `name`, 0 when absent.
    pub fn scalar(&self, name: &str) -> i64 {
        self.scalar_entry(name).unwrap_or(0)
    }

    /// The scalar resource `name`, `None` when absent (not even 0).
    pub fn scalar_entry(&self, name: &str) -> Option<i64> {
        self.scalar_entry_bytes(name.as_bytes())
    }

    /// [`Resource::scalar_entry`] by a [`ResourceName`] (no UTF-8 check on the hot path).
    pub fn scalar_by_name(&self, name: &ResourceName) -> Option<i64> {
        self.scalar_entry_bytes(name.as_bytes())
    }

    fn scalar_entry_bytes(&self, name: &[u8]) -> Option<i64> {
        if self.scalar.is_empty() {
            return None;
        }
        if let Some((n, v)) = &self.single {
            return (n.as_bytes() == name).then_some(*v);
        }
        self.scalar
            .binary_search_by(|(n, _)| n.as_bytes().cmp(name))
            .ok()
            .and_then(|i| self.scalar.get(i))
            .map(|(_, v)| *v)
    }

    /// Whether the scalar resource `name` is present (even as 0).
    pub fn has_scalar(&self, name: &str) -> bool {
        self.scalar_entry(name).is_some()
    }

    /// Adds another resource (`pods` excluded: it counts pods, not requests).
    pub fn add(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.wrapping_add(other.milli_cpu);
        self.memory = self.memory.wrapping_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_add(other.ephemeral_storage);
        for (n, v) in &other.scalar {
            self.add_scalar(n.as_str(), *v);
        }
    }

    /// Subtracts another resource (a pod leaving the node).
    pub fn sub(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.wrapping_sub(other.milli_cpu);
        self.memory = self.memory.wrapping_sub(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_sub(other.ephemeral_storage);
        for (n, v) in &other.scalar {
            self.add_scalar(n.as_str(), v.wrapping_neg());
        }
    }

    /// Nothing requested at all (`len(ScalarResources) == 0` counts zero entries).
    pub fn is_empty_request(&self) -> bool {
        self.milli_cpu == 0 && self.memory == 0 && self.ephemeral_storage == 0 && self.scalar.is_empty()
    }
}

/// The scheduler's view of a pod's request (`computePodResourceRequest`).
pub fn pod_resource_request(pod: &Pod, pod_level_resources: bool) -> Resource {
    match &pod.spec {
        Some(spec) => {
            Resource::from_list(&pod_requests(spec, &PodResourcesOptions { pod_level_resources, ..Default::default() }))
        }
        None => Resource::default(),
    }
}

/// [`pod_resource_request`] and [`pod_non_zero_request`] of one pod. When every
/// container and init container states its cpu and memory requests (and no pod-level
/// request replaces them), scoring's defaults fill nothing: both sum the same lists,
/// so the second is read off the first instead of parsing the pod again.
pub fn pod_request_and_non_zero(pod: &Pod, pod_level_resources: bool) -> (Resource, (i64, i64)) {
    let request = pod_resource_request(pod, pod_level_resources);
    let Some(spec) = &pod.spec else { return (request, (0, 0)) };
    let states_both = |c: &Container| {
        c.resources.as_ref().and_then(|r| r.requests.as_ref()).is_some_and(|r| r.contains_key(CPU) && r.contains_key(MEMORY))
    };
    let pod_level = pod_level_resources && spec.resources.as_ref().is_some_and(|r| r.requests.is_some());
    let non_zero = if !pod_level && spec.containers.iter().chain(spec.init_containers.iter().flatten()).all(states_both) {
        (request.milli_cpu, request.memory)
    } else {
        pod_non_zero_request(pod)
    };
    (request, non_zero)
}

/// The request used for scoring: missing cpu/memory per container count as 100m/200Mi.
pub fn pod_non_zero_request(pod: &Pod) -> (i64, i64) {
    let Some(spec) = &pod.spec else { return (0, 0) };
    let mut defaults = ResourceList::new();
    defaults.insert(CPU.into(), Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST));
    defaults.insert(MEMORY.into(), Quantity::from_i64(DEFAULT_MEMORY_REQUEST));
    let r = Resource::from_list(&pod_requests(
        spec,
        &PodResourcesOptions { non_missing_container_requests: Some(defaults), ..Default::default() },
    ));
    (r.milli_cpu, r.memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which names the scheduler treats as scalar resources.
    #[test]
    fn scalar_names() {
        let cases = [
            ("nvidia.com/gpu", true),
            ("example.com/aaa", true),
            ("kubernetes.io/something", true),
            ("hugepages-2Mi", true),
            ("cpu", false),
            ("foo", false),
            ("requests.nvidia.com/gpu", false),
        ];
        for (n, want) in cases {
            assert_eq!(is_scalar_resource_name(n), want, "{n}");
        }
    }
}
