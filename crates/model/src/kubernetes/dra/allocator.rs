//! The structured allocator (`k8s.io/dynamic-resource-allocation/structured`,
//! `internal/stable/allocator_stable.go` and `pools_stable.go`): which devices of
//! which pools a node can reach, and the first solution of the exhaustive search
//! that gives every request of every claim its devices.
//!
//! Modelled: requests `exactly` (count, `allocationMode: All`) and `firstAvailable`
//! (DRAPrioritizedList, on by default since 1.34), the class's and the request's CEL
//! selectors, `matchAttribute` constraints, devices already allocated to other claims,
//! pools by generation, incomplete and invalid pools, the allocation's node selector
//! and configs; partitionable devices (DRAPartitionableDevices: beta and on from
//! 1.36) — a pool's `sharedCounters` from its counter-set slices, each device's
//! `consumesCounters` checked against them less what allocated devices consume
//! (`checkAvailableCounters`); with the gate off a device that consumes counters is
//! not allocatable and counter slices are skipped; consumable capacity
//! (DRAConsumableCapacity: alpha and off in 1.34–1.35, beta and on from 1.36;
//! `internal/incubating/consumable_capacity.go`) — a device with
//! `allowMultipleAllocations` is never "in use", every selectable device's capacity
//! is checked against the request's `capacity.requests` (rounded up by the
//! capacity's `requestPolicy`, its `default` or the whole value when not requested)
//! plus what other claims and this search consume, and its results carry a `shareID`
//! and `consumedCapacity` — with the gate off those fields are ignored, as the API
//! server drops them (`dropDisabledDRAResourceClaimConsumableCapacityFields`). Not
//! modelled: admin access, device taints, `perDeviceNodeSelection`,
//! `distinctAttribute`, fractional ranges (DRAFractionalCapacityRange), binding
//! conditions.
//!
//! Order: upstream visits the pools of a node in Go map order, so with devices of
//! several pools the real pick among equal solutions is random; the model visits
//! them in the order of the slices as given (within one slice both take the devices
//! in order).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
use k8s_openapi::api::resource::v1::{
    AllocationResult, CounterSet, Device, DeviceAllocationConfiguration, DeviceAllocationResult, DeviceAttribute, DeviceClass,
    DeviceRequestAllocationResult, DeviceSelector, ResourceClaim, ResourceSlice,
};

use super::capacity::{self, Consumption};
use super::cel;
use crate::kubernetes::quantity::Quantity;
use crate::kubernetes::affinity::{node_selector_matches, NodeFields};

/// A ResourceSlice as the allocator reads it, shared: the object and each device's
/// CEL input (`DeviceMatches`' maps, [`cel::input`]), made once however many cycles
/// and nodes look at the slice. A clone shares both; it reads as the slice
/// (`Deref`, `Debug`).
#[derive(Clone)]
pub struct Slice(Arc<(ResourceSlice, Vec<Result<cel::interpreter::Value, String>>)>);

impl Slice {
    pub fn new(slice: ResourceSlice) -> Slice {
        let inputs = slice.spec.devices.iter().flatten().map(|d| cel::input(&slice.spec.driver, d)).collect();
        Slice(Arc::new((slice, inputs)))
    }

    /// `spec.devices`, each with its CEL input.
    fn devices(&self) -> impl Iterator<Item = (&Device, Option<&Result<cel::interpreter::Value, String>>)> {
        let inputs = &self.0 .1;
        self.0 .0.spec.devices.iter().flatten().enumerate().map(|(i, d)| (d, inputs.get(i)))
    }

    /// Device `i` of `spec.devices`, with its CEL input.
    fn device(&self, i: usize) -> Option<(&Device, Option<&Result<cel::interpreter::Value, String>>)> {
        Some((self.0 .0.spec.devices.as_ref()?.get(i)?, self.0 .1.get(i)))
    }
}

impl From<ResourceSlice> for Slice {
    fn from(slice: ResourceSlice) -> Slice {
        Slice::new(slice)
    }
}

impl std::ops::Deref for Slice {
    type Target = ResourceSlice;
    fn deref(&self) -> &ResourceSlice {
        &self.0 .0
    }
}

impl std::fmt::Debug for Slice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0 .0.fmt(f)
    }
}

/// `resourceapi.AllocationResultsMaxSize`.
pub const ALLOCATION_RESULTS_MAX_SIZE: usize = 32;

/// A device by driver, pool and name (`DeviceID`, printed `driver/pool/device`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceId {
    pub driver: String,
    pub pool: String,
    pub device: String,
}

impl std::fmt::Display for DeviceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.driver, self.pool, self.device)
    }
}

/// The allocator's feature gates (`structured.Features`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    pub prioritized_list: bool,
    /// DRAPartitionableDevices: shared counters and `consumesCounters`.
    pub partitionable_devices: bool,
    /// DRAConsumableCapacity: `allowMultipleAllocations`, capacity requests.
    pub consumable_capacity: bool,
}

/// What the allocations of other claims consume of one shared device (results with
/// a `shareID`), by capacity name as the results record it (`AggregatedCapacity`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumed {
    pub device: DeviceId,
    pub capacity: Consumption,
}

/// `GatherAllocatedState`'s shared part: every result with a `shareID` and its
/// `consumedCapacity`, one entry per result.
pub fn consumed_by<'c>(claims: impl IntoIterator<Item = &'c ResourceClaim>) -> Vec<Consumed> {
    let mut out = Vec::new();
    for c in claims {
        let results = c.status.as_ref().and_then(|s| s.allocation.as_ref()).and_then(|a| a.devices.as_ref()).and_then(|d| d.results.as_ref());
        for r in results.into_iter().flatten().filter(|r| r.share_id.is_some()) {
            let capacity = r
                .consumed_capacity
                .iter()
                .flatten()
                .filter_map(|(k, v)| crate::kubernetes::quantity::parse(v).ok().map(|q| (k.clone(), q)))
                .collect();
            out.push(Consumed { device: DeviceId { driver: r.driver.clone(), pool: r.pool.clone(), device: r.device.clone() }, capacity });
        }
    }
    out
}

/// Why `Allocate` failed with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllocateError {
    /// Wraps `ErrFailedAllocationOnNode`: only this node is out; the text is the
    /// Filter's reason.
    OnNode(String),
    /// Any other error: the scheduling attempt stops (`statusError`).
    Fatal(String),
}

/// One pool reachable from a node (`Pool`).
#[derive(Debug)]
struct Pool<'a> {
    driver: &'a str,
    name: &'a str,
    generation: i64,
    slices: Vec<&'a Slice>,
    incomplete: bool,
    invalid: bool,
    /// The pool's counter sets (partitionable devices), by name.
    counter_sets: Vec<&'a CounterSet>,
    /// Every slice of the pool at its generation, for the node or not: the counters
    /// allocated devices consume are counted over all of them.
    all_slices: Vec<&'a Slice>,
}

fn node_matches(node: &Node, name: Option<&str>, all: bool, selector: Option<&NodeSelector>) -> bool {
    match (name.filter(|n| !n.is_empty()), all, selector) {
        (Some(n), _, _) => node.metadata.name.as_deref() == Some(n),
        (None, true, _) => true,
        (None, false, Some(s)) => node_selector_matches(s, NodeFields::of(node)),
        _ => false,
    }
}

/// The slices by node and by pool, as indexes into the slices in their order, made
/// once for every node a cycle filters (like [`compile_selectors`]): `GatherPools`
/// then looks at a node's own slices, those for many nodes and its pools' slices,
/// not at every slice of the cluster for every node.
#[derive(Debug, Clone, Default)]
pub struct SliceIndex {
    /// How many slices it was made from: with other slices it is not used.
    len: usize,
    /// The slices with a `nodeName` (and no `sharedCounters`), by node name.
    named: Vec<usize>,
    /// Every other slice: for all nodes, by selector, counter sets, or none.
    everywhere: Vec<usize>,
    /// Every slice, by driver and pool name.
    pools: Vec<usize>,
}

/// A slice's key in [`SliceIndex::named`]: the node it is for alone — its
/// `nodeName`, unless it holds counter sets (which belong to every node's view of
/// their pool).
fn own_node(s: &Slice) -> Option<(&str, &str)> {
    let counters = s.spec.shared_counters.as_ref().is_some_and(|c| !c.is_empty());
    s.spec.node_name.as_deref().filter(|n| !n.is_empty() && !counters).map(|n| (n, ""))
}

/// A slice's key in [`SliceIndex::pools`]: its driver and pool.
fn pool_key(s: &Slice) -> Option<(&str, &str)> {
    Some((&s.spec.driver, &s.spec.pool.name))
}

/// [`own_node`] or [`pool_key`]: one sort and one search serve both.
type Key = for<'s> fn(&'s Slice) -> Option<(&'s str, &'s str)>;

/// The indexes of the slices with a key, ordered by key (then index).
fn sorted_by(slices: &[Slice], key: Key) -> Vec<usize> {
    let mut out: Vec<usize> = (0..slices.len()).filter(|&i| slices.get(i).and_then(key).is_some()).collect();
    out.sort_by_key(|&i| slices.get(i).and_then(key));
    out
}

/// The entries of `sorted` ([`sorted_by`] `key`) whose key is `want`: ascending.
fn run<'i>(slices: &[Slice], sorted: &'i [usize], key: Key, want: (&str, &str)) -> &'i [usize] {
    let want = Some(want);
    let start = sorted.partition_point(|&i| slices.get(i).and_then(key) < want);
    let end = sorted.partition_point(|&i| slices.get(i).and_then(key) <= want);
    sorted.get(start..end).unwrap_or_default()
}

impl SliceIndex {
    pub fn new(slices: &[Slice]) -> SliceIndex {
        let everywhere = (0..slices.len()).filter(|&i| slices.get(i).and_then(own_node).is_none()).collect();
        SliceIndex { len: slices.len(), named: sorted_by(slices, own_node), everywhere, pools: sorted_by(slices, pool_key) }
    }

    /// The slices that may be for `node`, in order: its own and the others merged.
    fn for_node(&self, slices: &[Slice], node: Option<&str>) -> Vec<usize> {
        let mut own = node.map_or(&[][..], |n| run(slices, &self.named, own_node, (n, ""))).iter().peekable();
        let mut rest = self.everywhere.iter().peekable();
        let mut out = Vec::with_capacity(own.len() + rest.len());
        while let Some(&i) = match (own.peek(), rest.peek()) {
            (Some(a), Some(b)) if a < b => own.next(),
            (Some(_), None) => own.next(),
            _ => rest.next(),
        } {
            out.push(i);
        }
        out
    }
}

/// `GatherPools`: the pools with a slice for `node`, the newest generation only;
/// with partitionable devices, slices with `sharedCounters` belong to every node's
/// view of their pool. A pool short of slices is looked at whole
/// (`checkSlicesInPool`): obsolete when a newer generation exists, else complete
/// when all its slices are there. `index`, made from `slices`, spares the scan of
/// every slice.
fn gather_pools<'a>(slices: &'a [Slice], index: Option<&SliceIndex>, node: &Node, features: Features) -> Vec<Pool<'a>> {
    let index = index.filter(|ix| ix.len == slices.len());
    let order = match index {
        Some(ix) => ix.for_node(slices, node.metadata.name.as_deref()),
        None => (0..slices.len()).collect(),
    };
    let mut pools: Vec<Pool<'a>> = Vec::new();
    for slice in order.iter().filter_map(|&i| slices.get(i)) {
        let spec = &slice.spec;
        let per_device = spec.per_device_node_selection.unwrap_or(false);
        let counters = spec.shared_counters.as_ref().is_some_and(|c| !c.is_empty());
        if !features.partitionable_devices && (spec.per_device_node_selection.is_some() || counters) {
            continue;
        }
        let name = spec.node_name.as_deref().filter(|n| !n.is_empty());
        let all = spec.all_nodes.unwrap_or(false);
        // `perDeviceNodeSelection` is not modelled: such slices are skipped.
        if !counters && (per_device || !(name.is_some() || all || spec.node_selector.is_some())) {
            continue;
        }
        if !counters && !node_matches(node, name, all, spec.node_selector.as_ref()) {
            continue;
        }
        let generation = spec.pool.generation;
        match pools.iter_mut().find(|p| p.driver == spec.driver && p.name == spec.pool.name) {
            None => pools.push(Pool {
                driver: &spec.driver,
                name: &spec.pool.name,
                generation,
                slices: vec![slice],
                incomplete: false,
                invalid: false,
                counter_sets: Vec::new(),
                all_slices: Vec::new(),
            }),
            Some(p) if generation < p.generation => {}
            Some(p) => {
                if generation > p.generation {
                    p.slices.clear();
                    p.generation = generation;
                }
                p.slices.push(slice);
            }
        }
    }
    // The pool's slices, for the node or not.
    let members = |p: &Pool<'a>| -> Vec<&'a Slice> {
        match index {
            Some(ix) => run(slices, &ix.pools, pool_key, (p.driver, p.name)).iter().filter_map(|&i| slices.get(i)).collect(),
            None => slices.iter().filter(|s| pool_key(s) == Some((p.driver, p.name))).collect(),
        }
    };
    // Obsolete pools dropped; the others keep their slices at their generation.
    pools.retain_mut(|p| {
        let members = members(p);
        if members.iter().any(|s| s.spec.pool.generation > p.generation) {
            return false;
        }
        p.all_slices = members.into_iter().filter(|s| s.spec.pool.generation == p.generation).collect();
        true
    });
    for p in &mut pools {
        let count = p.slices.first().map_or(0, |s| s.spec.pool.resource_slice_count);
        p.incomplete = p.slices.len() as i64 != count && p.all_slices.len() as i64 != count;
        let mut seen = BTreeSet::new();
        p.invalid = p.slices.iter().flat_map(|s| s.spec.devices.iter().flatten()).any(|d| !seen.insert(d.name.as_str()));
        if features.partitionable_devices && !p.incomplete {
            p.counter_sets = p.slices.iter().flat_map(|s| s.spec.shared_counters.iter().flatten()).collect();
            let mut names = BTreeSet::new();
            let duplicate = p.counter_sets.iter().any(|c| !names.insert(c.name.as_str()));
            // `validateDeviceCounterConsumption`: every consumed counter exists.
            let dangling = p.all_slices.iter().flat_map(|s| s.spec.devices.iter().flatten()).flat_map(|d| d.consumes_counters.iter().flatten()).any(|c| {
                let set = p.counter_sets.iter().find(|s| s.name == c.counter_set);
                set.is_none_or(|set| c.counters.keys().any(|k| !set.counters.contains_key(k)))
            });
            p.invalid |= duplicate || dangling;
        }
    }
    pools
}

/// One request or subrequest as the search sees it.
#[derive(Debug)]
struct RequestData<'a> {
    /// The request's name, or `parent/sub` for a subrequest.
    name: String,
    /// The request the constraints name (the parent for a subrequest).
    base: &'a str,
    sub: Option<&'a str>,
    class: &'a DeviceClass,
    selectors: &'a [DeviceSelector],
    all: bool,
    /// `capacity.requests` (DRAConsumableCapacity).
    capacity: Option<&'a BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    /// For `All`: the devices fixed up front.
    all_devices: Vec<Candidate<'a>>,
    num_devices: usize,
}

#[derive(Debug, Clone)]
struct Candidate<'a> {
    id: DeviceId,
    device: &'a Device,
    slice: &'a Slice,
    /// The device's CEL input ([`Slice::new`]).
    input: Option<&'a Result<cel::interpreter::Value, String>>,
}

/// A request: one [`RequestData`], or the alternatives of `firstAvailable`.
#[derive(Debug)]
enum Request<'a> {
    Exactly(RequestData<'a>),
    FirstAvailable(Vec<RequestData<'a>>),
}

#[derive(Debug)]
struct MatchAttribute<'a> {
    requests: Vec<&'a str>,
    attribute: &'a str,
    value: Option<&'a DeviceAttribute>,
    count: usize,
}

impl<'a> MatchAttribute<'a> {
    fn applies(&self, base: &str, sub: Option<&str>) -> bool {
        self.requests.is_empty()
            || self.requests.contains(&base)
            || sub.is_some_and(|s| self.requests.iter().any(|r| r.split_once('/') == Some((base, s))))
    }

    fn add(&mut self, base: &str, sub: Option<&str>, c: &Candidate<'a>) -> bool {
        if !self.applies(base, sub) {
            return true;
        }
        let Some(attr) = lookup_attribute(c.device, &c.id.driver, self.attribute) else { return false };
        if self.count == 0 {
            self.value = Some(attr);
            self.count = 1;
            return true;
        }
        let Some(first) = self.value else { return false };
        let same = if attr.string.is_some() {
            first.string.is_some() && attr.string == first.string
        } else if attr.int.is_some() {
            first.int.is_some() && attr.int == first.int
        } else if attr.bool.is_some() {
            first.bool.is_some() && attr.bool == first.bool
        } else if attr.version.is_some() {
            first.version.is_some() && attr.version == first.version
        } else {
            false
        };
        if same {
            self.count += 1;
        }
        same
    }

    fn remove(&mut self, base: &str, sub: Option<&str>) {
        if self.applies(base, sub) {
            self.count = self.count.saturating_sub(1);
        }
    }
}

/// `lookupAttribute`: the fully qualified name, or its id when the domain is the
/// device's driver.
fn lookup_attribute<'a>(device: &'a Device, driver: &str, name: &str) -> Option<&'a DeviceAttribute> {
    let attrs = device.attributes.as_ref()?;
    if let Some(a) = attrs.get(name) {
        return Some(a);
    }
    let (domain, id) = name.split_once('/')?;
    if domain != driver {
        return None;
    }
    attrs.get(id)
}

/// What the allocator knows for one `Allocate` call: classes, slices and the
/// devices other claims hold.
#[derive(Debug, Clone, Copy)]
pub struct Allocator<'a> {
    pub features: Features,
    pub classes: &'a [DeviceClass],
    pub slices: &'a [Slice],
    pub allocated: &'a BTreeSet<DeviceId>,
    /// What other claims consume of shared devices ([`consumed_by`]).
    pub consumed: &'a [Consumed],
    /// Selectors compiled beforehand ([`compile_selectors`]: the classes', once for
    /// every node a cycle filters); others are compiled once per call.
    pub compiled: &'a [Compiled],
    /// The slices by node and pool ([`SliceIndex::new`] of `slices`), made once for
    /// every node a cycle filters; without it each call scans every slice.
    pub index: Option<&'a SliceIndex>,
}

/// A CEL selector's expression and its compilation (the error's detail).
pub type Compiled = (String, std::sync::Arc<Result<cel::Selector, String>>);

/// The classes' selectors compiled, each expression once.
pub fn compile_selectors(classes: &[DeviceClass]) -> Vec<Compiled> {
    let mut out: Vec<Compiled> = Vec::new();
    let expressions = classes.iter().flat_map(|c| c.spec.selectors.iter().flatten()).filter_map(|s| s.cel.as_ref());
    for e in expressions.map(|c| c.expression.as_str()) {
        if !out.iter().any(|(x, _)| x == e) {
            out.push((e.to_string(), std::sync::Arc::new(cel::compile(e).map_err(|e| e.detail))));
        }
    }
    out
}

struct Search<'a, 'b> {
    alloc: &'b Allocator<'a>,
    claims: &'b [&'a ResourceClaim],
    pools: Vec<Pool<'a>>,
    requests: Vec<Vec<Request<'a>>>,
    constraints: Vec<Vec<MatchAttribute<'a>>>,
    allocating: BTreeSet<DeviceId>,
    /// Per claim: (request data index path, candidate) in allocation order.
    result: Vec<Vec<(String, Candidate<'a>)>>,
    /// Per claim and request: the chosen subrequest.
    chosen: Vec<Vec<usize>>,
    /// The selectors compiled in this call (beside the allocator's), by expression.
    compiled: Vec<Compiled>,
    steps: u64,
    /// Counters the devices being allocated consume, by (pool, counter set, counter).
    consumed: Vec<((String, String, String), Quantity)>,
    /// Capacity this search takes of shared devices (`allocatingCapacity`): the
    /// claim, the index of its result, and what that result consumes.
    sharing: Vec<(usize, usize, Consumed)>,
}

/// Search steps after which the model gives up (the real one has a filter timeout
/// in later versions; the lab's clusters are far below this).
const MAX_STEPS: u64 = 1_000_000;

/// `klog.KObj(claim)`: `namespace/name`, or the name alone without a namespace.
pub fn claim_key(c: &ResourceClaim) -> String {
    let name = c.metadata.name.as_deref().unwrap_or("");
    match c.metadata.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

impl<'a> Allocator<'a> {
    /// `Allocate(ctx, node, claims)`: `Ok(None)` when no solution exists on the node
    /// (the plugin's `cannot allocate all claims`), the results in claim order, or an
    /// error.
    pub fn allocate(&self, node: &Node, claims: &[&'a ResourceClaim]) -> Result<Option<Vec<AllocationResult>>, AllocateError> {
        let pools = gather_pools(self.slices, self.index, node, self.features);
        let mut s = Search {
            alloc: self,
            claims,
            pools,
            requests: Vec::new(),
            constraints: Vec::new(),
            allocating: BTreeSet::new(),
            result: vec![Vec::new(); claims.len()],
            chosen: Vec::new(),
            compiled: Vec::new(),
            steps: 0,
            consumed: Vec::new(),
            sharing: Vec::new(),
        };
        for claim in claims {
            let key = claim_key(claim);
            let devices = claim.spec.devices.as_ref();
            let mut reqs = Vec::new();
            let mut min_devices = 0usize;
            for r in devices.and_then(|d| d.requests.as_ref()).into_iter().flatten() {
                if let Some(e) = &r.exactly {
                    let mode = e.allocation_mode.as_deref().unwrap_or("ExactCount");
                    let capacity = e.capacity.as_ref().and_then(|c| c.requests.as_ref());
                    let data = s.request_data(&key, (r.name.clone(), &r.name, None), &e.device_class_name, e.selectors.as_deref(), (mode, e.count), capacity)?;
                    min_devices += data.num_devices;
                    reqs.push(Request::Exactly(data));
                } else if let Some(subs) = r.first_available.as_ref().filter(|s| !s.is_empty()) {
                    if !self.features.prioritized_list {
                        return Err(AllocateError::Fatal(format!(
                            "claim {key}, request {}: has subrequests, but the DRAPrioritizedList feature is disabled",
                            r.name
                        )));
                    }
                    let mut alts = Vec::new();
                    for sub in subs {
                        let mode = sub.allocation_mode.as_deref().unwrap_or("ExactCount");
                        let name = format!("{}/{}", r.name, sub.name);
                        let capacity = sub.capacity.as_ref().and_then(|c| c.requests.as_ref());
                        let data = s.request_data(&key, (name, &r.name, Some(&sub.name)), &sub.device_class_name, sub.selectors.as_deref(), (mode, sub.count), capacity)?;
                        alts.push(data);
                    }
                    min_devices += alts.iter().map(|a| a.num_devices).min().unwrap_or(0);
                    reqs.push(Request::FirstAvailable(alts));
                } else {
                    return Err(AllocateError::Fatal(format!("claim {key}, request {}: missing device class name (unsupported request type?)", r.name)));
                }
            }
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE {
                return Err(AllocateError::Fatal(format!(
                    "claim {key}: number of requested devices {min_devices} exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )));
            }
            let mut cons = Vec::new();
            for (i, c) in devices.and_then(|d| d.constraints.as_ref()).into_iter().flatten().enumerate() {
                match &c.match_attribute {
                    Some(a) => cons.push(MatchAttribute {
                        requests: c.requests.iter().flatten().map(String::as_str).collect(),
                        attribute: a,
                        value: None,
                        count: 0,
                    }),
                    // distinctAttribute belongs to consumable capacity (not modelled).
                    None => {
                        return Err(AllocateError::Fatal(format!(
                            "claim {key}, constraint #{i}: empty constraint (unsupported constraint type?)"
                        )))
                    }
                }
            }
            s.chosen.push(vec![0; reqs.len()]);
            s.requests.push(reqs);
            s.constraints.push(cons);
        }
        match s.allocate_one(0, 0) {
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::MaxSize) | Ok(false) => {
                if s.pools.iter().any(|p| p.invalid) {
                    return Err(AllocateError::OnNode("invalid resource pools were encountered".into()));
                }
                Ok(None)
            }
            Ok(true) => Ok(Some(s.results())),
        }
    }
}

enum Stop {
    MaxSize,
    Error(AllocateError),
}

impl<'a, 'b> Search<'a, 'b> {
    /// `validateDeviceRequest`: `names` is the request's (name, base request,
    /// subrequest), `mode` its allocation mode and count.
    fn request_data(
        &mut self,
        key: &str,
        (name, base, sub): (String, &'a str, Option<&'a str>),
        class_name: &'a str,
        selectors: Option<&'a [DeviceSelector]>,
        (mode, count): (&str, Option<i64>),
        capacity: Option<&'a BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    ) -> Result<RequestData<'a>, AllocateError> {
        let request_name = sub.unwrap_or(base);
        for (i, sel) in selectors.into_iter().flatten().enumerate() {
            if sel.cel.is_none() {
                return Err(AllocateError::Fatal(format!(
                    "claim {key}, request {request_name}, selector #{i}: CEL expression empty (unsupported selector type?)"
                )));
            }
        }
        if class_name.is_empty() {
            return Err(AllocateError::Fatal(format!("claim {key}, request {request_name}: missing device class name (unsupported request type?)")));
        }
        let Some(class) = self.alloc.classes.iter().find(|c| c.metadata.name.as_deref() == Some(class_name)) else {
            return Err(AllocateError::Fatal(format!(
                "claim {key}, request {request_name}: could not retrieve device class {class_name}: deviceclass.resource.k8s.io \"{class_name}\" not found"
            )));
        };
        let mut data = RequestData {
            name,
            base,
            sub,
            class,
            selectors: selectors.unwrap_or(&[]),
            all: false,
            // With the gate off the API server drops the field.
            capacity: capacity.filter(|_| self.alloc.features.consumable_capacity),
            all_devices: Vec::new(),
            num_devices: 0,
        };
        match mode {
            "ExactCount" => data.num_devices = usize::try_from(count.unwrap_or(1)).unwrap_or(0),
            "All" => {
                data.all = true;
                let mut found = Vec::new();
                for p in &self.pools {
                    let id = format!("{}/{}", p.driver, p.name);
                    if p.incomplete {
                        return Err(AllocateError::Fatal(format!(
                            "claim {key}, request {request_name}: asks for all devices, but resource pool {id} is currently being updated"
                        )));
                    }
                    if p.invalid {
                        return Err(AllocateError::Fatal(format!(
                            "claim {key}, request {request_name}: asks for all devices, but resource pool {id} is currently invalid"
                        )));
                    }
                    for slice in &p.slices {
                        for (device, input) in slice.devices() {
                            let c = Candidate {
                                id: DeviceId { driver: p.driver.to_string(), pool: p.name.to_string(), device: device.name.clone() },
                                device,
                                slice,
                                input,
                            };
                            found.push(c);
                        }
                    }
                }
                for c in found {
                    if self.selectable(key, data.class, data.selectors, &c)? {
                        data.all_devices.push(c);
                    }
                }
                data.num_devices = data.all_devices.len();
            }
            other => {
                return Err(AllocateError::Fatal(format!("claim {key}, request {request_name}: unsupported count mode {other}")));
            }
        }
        Ok(data)
    }

    fn compiled(&mut self, expression: &str) -> std::sync::Arc<Result<cel::Selector, String>> {
        if let Some((_, r)) = self.alloc.compiled.iter().chain(&self.compiled).find(|(e, _)| e == expression) {
            return r.clone();
        }
        let r = std::sync::Arc::new(cel::compile(expression).map_err(|e| e.detail));
        self.compiled.push((expression.to_string(), r.clone()));
        r
    }

    /// `isSelectable`: the class's selectors, then the request's.
    fn selectable(&mut self, key: &str, class: &'a DeviceClass, request_selectors: &'a [DeviceSelector], c: &Candidate<'a>) -> Result<bool, AllocateError> {
        let class_name = class.metadata.name.as_deref().unwrap_or("");
        let class_selectors = class.spec.selectors.as_deref().unwrap_or(&[]);
        for (who, selectors) in [(format!("class {class_name}"), class_selectors), (format!("claim {key}"), request_selectors)] {
            for (i, sel) in selectors.iter().enumerate() {
                let Some(expr) = sel.cel.as_ref().map(|c| c.expression.as_str()) else { continue };
                let compiled = self.compiled(expr);
                let compiled = match &*compiled {
                    Ok(s) => s,
                    Err(e) => return Err(AllocateError::Fatal(format!("{who}: selector #{i}: CEL compile error: {e}"))),
                };
                let matched = match c.input {
                    Some(Ok(input)) => compiled.matches_input(input),
                    Some(Err(e)) => Err(e.clone()),
                    None => compiled.matches(&c.id.driver, c.device),
                };
                match matched {
                    Ok(true) => {}
                    Ok(false) => return Ok(false),
                    Err(e) => {
                        return Err(AllocateError::Fatal(format!(
                            "{who}: selector #{i} on device {}: CEL runtime error: {e}",
                            c.id
                        )))
                    }
                }
            }
        }
        Ok(true)
    }

    /// `allowMultipleAllocations` under DRAConsumableCapacity (ignored with the gate off).
    fn shareable(&self, d: &Device) -> bool {
        self.alloc.features.consumable_capacity && d.allow_multiple_allocations == Some(true)
    }

    /// `deviceInUse`: held by another claim or by this search; a shareable device
    /// never is (its capacity decides).
    fn in_use(&self, c: &Candidate<'a>) -> bool {
        !self.shareable(c.device) && (self.alloc.allocated.contains(&c.id) || self.allocating.contains(&c.id))
    }

    /// `deviceCapacityInUse`: some of a shared device's capacity is taken already.
    fn capacity_in_use(&self, id: &DeviceId) -> bool {
        self.alloc.consumed.iter().any(|c| c.device == *id) || self.sharing.iter().any(|(_, _, c)| c.device == *id)
    }

    /// `CmpRequestOverCapacity` (every device, the gate on): what the request
    /// consumes of the device, if it serves the request and that fits beside what
    /// others and this search consume.
    fn capacity_for(&self, claim: usize, request: usize, sub: usize, c: &Candidate<'a>) -> Option<Consumption> {
        let requests = self.data(claim, request, sub)?.capacity;
        let wanted = capacity::consumption(requests, &c.id.driver, c.device)?;
        let used = self.alloc.consumed.iter().chain(self.sharing.iter().map(|(_, _, c)| c)).filter(|u| u.device == c.id).map(|u| &u.capacity);
        capacity::fits(c.device, &wanted, used).then_some(wanted)
    }

    fn data(&self, claim: usize, request: usize, sub: usize) -> Option<&RequestData<'a>> {
        match self.requests.get(claim)?.get(request)? {
            Request::Exactly(d) => Some(d),
            Request::FirstAvailable(alts) => alts.get(sub),
        }
    }

    /// `allocateDevice`: in use, counters, constraints; on success the device is
    /// recorded and `true` returned (undo with [`Self::deallocate`]).
    fn allocate_device(&mut self, claim: usize, request: usize, sub: usize, c: &Candidate<'a>, must: bool) -> Result<bool, Stop> {
        if self.in_use(c) {
            return Ok(false);
        }
        let shareable = self.shareable(c.device);
        let consumes = c.device.consumes_counters.as_ref().is_some_and(|v| !v.is_empty());
        if consumes && !self.alloc.features.partitionable_devices {
            return Ok(false);
        }
        // A shared device whose capacity is in use consumed its counters already.
        let counters = consumes && !(shareable && self.capacity_in_use(&c.id));
        let mut wanted = None;
        if self.alloc.features.consumable_capacity {
            match self.capacity_for(claim, request, sub, c) {
                Some(w) => wanted = Some(w).filter(|_| shareable),
                None => return Ok(false),
            }
        }
        if counters && !self.reserve_counters(c) {
            return Ok(false);
        }
        let release = |s: &mut Self| {
            if counters {
                s.release_counters(c);
            }
        };
        let Some(d) = self.data(claim, request, sub) else {
            release(self);
            return Ok(false);
        };
        let (base, subname, name) = (d.base, d.sub, d.name.clone());
        let key = self.claims.get(claim).map(|c| claim_key(c)).unwrap_or_default();
        let Some(cons) = self.constraints.get_mut(claim) else { return Ok(false) };
        for i in 0..cons.len() {
            let added = cons.get_mut(i).is_some_and(|m| m.add(base, subname, c));
            if !added {
                for m in cons.iter_mut().take(i) {
                    m.remove(base, subname);
                }
                release(self);
                if must {
                    let request_name = subname.unwrap_or(base);
                    return Err(Stop::Error(AllocateError::Fatal(format!(
                        "claim {key}, request {request_name}: cannot add device {} because a claim constraint would not be satisfied",
                        c.id
                    ))));
                }
                return Ok(false);
            }
        }
        if let Some(capacity) = wanted {
            let index = self.result.get(claim).map_or(0, Vec::len);
            self.sharing.push((claim, index, Consumed { device: c.id.clone(), capacity }));
        } else {
            self.allocating.insert(c.id.clone());
        }
        if let Some(r) = self.result.get_mut(claim) {
            r.push((name, c.clone()));
        }
        Ok(true)
    }

    /// `checkAvailableCounters`: the device's counters added to what this search
    /// consumes, kept when every counter of its pool stays within the counter set's
    /// value less what allocated devices consume (taken back otherwise).
    fn reserve_counters(&mut self, c: &Candidate<'a>) -> bool {
        let Some(pool) = self.pools.iter().find(|p| p.driver == c.id.driver && p.name == c.id.pool) else { return false };
        let mut wanted: Vec<((String, String, String), Quantity)> = Vec::new();
        for consumption in c.device.consumes_counters.iter().flatten() {
            for (name, counter) in &consumption.counters {
                let Ok(q) = crate::kubernetes::quantity::parse(&counter.value) else { return false };
                wanted.push(((c.id.pool.clone(), consumption.counter_set.clone(), name.clone()), q));
            }
        }
        for (key, q) in &wanted {
            let (_, set_name, name) = key;
            let Some(capacity) = pool.counter_sets.iter().find(|s| &s.name == set_name).and_then(|s| s.counters.get(name)) else { return false };
            let Ok(capacity) = crate::kubernetes::quantity::parse(&capacity.value) else { return false };
            let mut used = q.clone();
            // Devices other claims hold, in every slice of the pool.
            for s in &pool.all_slices {
                for d in s.spec.devices.iter().flatten() {
                    let id = DeviceId { driver: c.id.driver.clone(), pool: c.id.pool.clone(), device: d.name.clone() };
                    if !self.alloc.allocated.contains(&id) {
                        continue;
                    }
                    for other in d.consumes_counters.iter().flatten().filter(|o| &o.counter_set == set_name) {
                        if let Some(v) = other.counters.get(name).and_then(|v| crate::kubernetes::quantity::parse(&v.value).ok()) {
                            used = used.add(&v);
                        }
                    }
                }
            }
            for (k, v) in &self.consumed {
                if k == key {
                    used = used.add(v);
                }
            }
            if used > capacity {
                return false;
            }
        }
        self.consumed.extend(wanted);
        true
    }

    /// Takes back what [`Self::reserve_counters`] added for `c`.
    fn release_counters(&mut self, c: &Candidate<'a>) {
        for consumption in c.device.consumes_counters.iter().flatten() {
            for name in consumption.counters.keys() {
                let key = (c.id.pool.clone(), consumption.counter_set.clone(), name.clone());
                if let Some(i) = self.consumed.iter().rposition(|(k, _)| *k == key) {
                    self.consumed.remove(i);
                }
            }
        }
    }

    fn deallocate(&mut self, claim: usize, request: usize, sub: usize) {
        let Some((_, c)) = self.result.get_mut(claim).and_then(|r| r.pop()) else { return };
        let index = self.result.get(claim).map_or(0, Vec::len);
        if let Some(i) = self.sharing.iter().position(|(ci, ri, _)| *ci == claim && *ri == index) {
            self.sharing.remove(i);
            // Counters stay consumed while the device's capacity is in use.
            if !self.capacity_in_use(&c.id) {
                self.release_counters(&c);
            }
        } else {
            self.allocating.remove(&c.id);
            self.release_counters(&c);
        }
        let Some(d) = self.data(claim, request, sub) else { return };
        let (base, subname) = (d.base, d.sub);
        if let Some(cons) = self.constraints.get_mut(claim) {
            for m in cons.iter_mut() {
                m.remove(base, subname);
            }
        }
    }

    /// `allocateOne` at the start of request `request` of claim `claim`: a request
    /// with alternatives takes the first subrequest that leads to a solution.
    fn allocate_one(&mut self, claim: usize, request: usize) -> Result<bool, Stop> {
        let Some(reqs) = self.requests.get(claim) else { return Ok(true) };
        let Some(req) = reqs.get(request) else {
            return match self.allocate_one(claim + 1, 0) {
                Err(Stop::MaxSize) => Ok(false),
                other => other,
            };
        };
        let n = match req {
            Request::Exactly(_) => return self.allocate_at(claim, request, 0, 0),
            Request::FirstAvailable(alts) => alts.len(),
        };
        let mut all_exceeded = true;
        for i in 0..n {
            match self.allocate_at(claim, request, i, 0) {
                Err(Stop::MaxSize) => continue,
                Err(e) => return Err(e),
                Ok(true) => {
                    if let Some(c) = self.chosen.get_mut(claim).and_then(|c| c.get_mut(request)) {
                        *c = i;
                    }
                    return Ok(true);
                }
                Ok(false) => all_exceeded = false,
            }
        }
        if all_exceeded {
            Err(Stop::MaxSize)
        } else {
            Ok(false)
        }
    }

    /// `allocateOne` for device `device` of request `request` (subrequest `sub`).
    fn allocate_at(&mut self, claim: usize, request: usize, sub: usize, device: usize) -> Result<bool, Stop> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Stop::Error(AllocateError::OnNode("timed out trying to allocate devices".into())));
        }
        let Some(d) = self.data(claim, request, sub) else { return Ok(false) };
        let (all, num) = (d.all, d.num_devices);
        if all && num == 0 {
            return Ok(false);
        }
        if device >= num {
            return self.allocate_one(claim, request + 1);
        }
        let done = self.result.get(claim).map_or(0, Vec::len);
        if done + num - device > ALLOCATION_RESULTS_MAX_SIZE {
            return Err(Stop::MaxSize);
        }
        if all {
            let Some(c) = d.all_devices.get(device).cloned() else { return Ok(false) };
            if !self.allocate_device(claim, request, sub, &c, true)? {
                return Ok(false);
            }
            let r = self.allocate_at(claim, request, sub, device + 1);
            if !matches!(r, Ok(true)) {
                self.deallocate(claim, request, sub);
            }
            return r;
        }
        let key = self.claims.get(claim).map(|c| claim_key(c)).unwrap_or_default();
        // `startLocation`: a request's next device comes after its previous one (a
        // shared device is never picked twice for one request, and no order of the
        // same devices is tried twice).
        let after = if device > 0 { self.result.get(claim).and_then(|r| r.last()).map(|(_, c)| c.id.clone()) } else { None };
        let mut skipping = after.is_some();
        // The devices of the complete, valid pools in order, each made a candidate (its
        // id's strings copied) only when the search gets to it.
        let (mut pool, mut in_pool, mut at) = (0, 0, 0);
        while let Some(p) = self.pools.get(pool) {
            let (driver, name) = (p.driver, p.name);
            let Some(slice) = p.slices.get(in_pool).copied().filter(|_| !p.incomplete && !p.invalid) else {
                (pool, in_pool, at) = (pool + 1, 0, 0);
                continue;
            };
            let Some((dev, input)) = slice.device(at) else {
                (in_pool, at) = (in_pool + 1, 0);
                continue;
            };
            at += 1;
            if skipping {
                skipping = after.as_ref().is_none_or(|a| (a.driver.as_str(), a.pool.as_str(), a.device.as_str()) != (driver, name, dev.name.as_str()));
                continue;
            }
            let c = Candidate { id: DeviceId { driver: driver.to_string(), pool: name.to_string(), device: dev.name.clone() }, device: dev, slice, input };
            if self.in_use(&c) {
                continue;
            }
            if !self.selectable_at(&key, claim, request, sub, &c).map_err(Stop::Error)? {
                continue;
            }
            if !self.allocate_device(claim, request, sub, &c, false)? {
                continue;
            }
            match self.allocate_at(claim, request, sub, device + 1) {
                Ok(true) => return Ok(true),
                Ok(false) => self.deallocate(claim, request, sub),
                Err(e) => {
                    self.deallocate(claim, request, sub);
                    return Err(e);
                }
            }
        }
        Ok(false)
    }

    fn selectable_at(&mut self, key: &str, claim: usize, request: usize, sub: usize, c: &Candidate<'a>) -> Result<bool, AllocateError> {
        match self.data(claim, request, sub).map(|d| (d.class, d.selectors)) {
            Some((class, selectors)) => self.selectable(key, class, selectors, c),
            None => Ok(false),
        }
    }

    /// The allocation results as `Allocate` builds them.
    fn results(&self) -> Vec<AllocationResult> {
        let mut out = Vec::new();
        for (ci, claim) in self.claims.iter().enumerate() {
            let devices = self.result.get(ci).map(Vec::as_slice).unwrap_or(&[]);
            let results = devices
                .iter()
                .enumerate()
                .map(|(i, (name, c))| {
                    let shared = self.sharing.iter().find(|(cj, ri, _)| *cj == ci && *ri == i).map(|(_, _, s)| s);
                    DeviceRequestAllocationResult {
                        request: name.clone(),
                        driver: c.id.driver.clone(),
                        pool: c.id.pool.clone(),
                        device: c.id.device.clone(),
                        share_id: shared.map(|_| share_id(&claim_key(claim), i)),
                        consumed_capacity: shared.map(|s| {
                            s.capacity.iter().map(|(k, v)| (k.clone(), k8s_openapi::apimachinery::pkg::api::resource::Quantity(v.to_string()))).collect()
                        }),
                        ..Default::default()
                    }
                })
                .collect::<Vec<_>>();
            let config = self.configs(ci, claim);
            out.push(AllocationResult {
                devices: Some(DeviceAllocationResult {
                    results: (!results.is_empty()).then_some(results),
                    config: (!config.is_empty()).then_some(config),
                }),
                node_selector: node_selector(devices.iter().map(|(_, c)| c)),
                allocation_timestamp: None,
            });
        }
        out
    }

    /// Class configs once per class (with every request that used it), then the
    /// claim's configs; a config for every request gets an empty `requests`.
    fn configs(&self, ci: usize, claim: &ResourceClaim) -> Vec<DeviceAllocationConfiguration> {
        let mut out: Vec<DeviceAllocationConfiguration> = Vec::new();
        let mut by_class: Vec<(String, usize, usize)> = Vec::new();
        let reqs = self.requests.get(ci).map(Vec::as_slice).unwrap_or(&[]);
        let chosen = self.chosen.get(ci);
        for (ri, r) in reqs.iter().enumerate() {
            let d = match r {
                Request::Exactly(d) => Some(d),
                Request::FirstAvailable(alts) => alts.get(chosen.and_then(|c| c.get(ri)).copied().unwrap_or(0)),
            };
            let Some(d) = d else { continue };
            let class = d.class.metadata.name.clone().unwrap_or_default();
            if let Some((_, start, end)) = by_class.iter().find(|(c, _, _)| *c == class) {
                for cfg in out.iter_mut().take(*end).skip(*start) {
                    cfg.requests.get_or_insert_with(Vec::new).push(d.name.clone());
                }
                continue;
            }
            let start = out.len();
            for cfg in d.class.spec.config.iter().flatten() {
                out.push(DeviceAllocationConfiguration {
                    source: "FromClass".into(),
                    requests: Some(vec![d.name.clone()]),
                    opaque: cfg.opaque.clone(),
                });
            }
            by_class.push((class, start, out.len()));
        }
        let claim_requests = claim.spec.devices.as_ref().and_then(|d| d.requests.as_ref());
        for cfg in claim.spec.devices.as_ref().and_then(|d| d.config.as_ref()).into_iter().flatten() {
            let wanted = cfg.requests.as_deref().unwrap_or(&[]);
            let add = || DeviceAllocationConfiguration {
                source: "FromClaim".into(),
                requests: cfg.requests.clone(),
                opaque: cfg.opaque.clone(),
            };
            if wanted.is_empty() {
                out.push(add());
                continue;
            }
            for (ri, r) in claim_requests.into_iter().flatten().enumerate() {
                if wanted.contains(&r.name) {
                    out.push(add());
                    continue;
                }
                if let Some(Request::FirstAvailable(alts)) = reqs.get(ri) {
                    let sel = chosen.and_then(|c| c.get(ri)).copied().unwrap_or(0);
                    if alts.get(sel).is_some_and(|d| wanted.contains(&d.name)) {
                        out.push(add());
                    }
                }
            }
        }
        let n = claim_requests.map_or(0, Vec::len);
        for cfg in &mut out {
            if cfg.requests.as_ref().is_some_and(|r| r.len() == n) {
                cfg.requests = None;
            }
        }
        out
    }
}

/// Lab's: a result's `shareID` (upstream a random UID, `GenerateShareID`), derived
/// from the claim and the result's index so runs repeat.
fn share_id(claim: &str, index: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in format!("{claim}/{index}").bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", h >> 32, (h >> 16) & 0xffff, h & 0xffff, (h >> 48) & 0xffff, h & 0xffff_ffff_ffff)
}

/// `createNodeSelector`: a device of a slice for one node restricts the claim to
/// that node (`matchFields metadata.name In`); otherwise the one-term selectors of
/// the devices' slices are merged into one term (requirements in device order, each
/// once); slices for all nodes add nothing, and no requirement at all means no
/// restriction.
fn node_selector<'a>(devices: impl Iterator<Item = &'a Candidate<'a>>) -> Option<NodeSelector> {
    let mut expressions: Vec<NodeSelectorRequirement> = Vec::new();
    let mut fields: Vec<NodeSelectorRequirement> = Vec::new();
    let mut whole: Option<NodeSelector> = None;
    for c in devices {
        let spec = &c.slice.spec;
        if let Some(name) = spec.node_name.as_ref().filter(|n| !n.is_empty()) {
            return Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_fields: Some(vec![NodeSelectorRequirement {
                        key: "metadata.name".into(),
                        operator: "In".into(),
                        values: Some(vec![name.clone()]),
                    }]),
                    match_expressions: None,
                }],
            });
        }
        let Some(sel) = &spec.node_selector else { continue };
        match sel.node_selector_terms.as_slice() {
            [term] => {
                for r in term.match_expressions.iter().flatten() {
                    if !expressions.contains(r) {
                        expressions.push(r.clone());
                    }
                }
                for r in term.match_fields.iter().flatten() {
                    if !fields.contains(r) {
                        fields.push(r.clone());
                    }
                }
            }
            _ => whole = whole.or_else(|| Some(sel.clone())),
        }
    }
    if expressions.is_empty() && fields.is_empty() {
        return whole;
    }
    Some(NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: (!expressions.is_empty()).then_some(expressions),
            match_fields: (!fields.is_empty()).then_some(fields),
        }],
    })
}
