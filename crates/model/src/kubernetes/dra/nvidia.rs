//! The node side of NVIDIA's GPU DRA driver (kubernetes-sigs/dra-driver-nvidia-gpu,
//! formerly NVIDIA/k8s-dra-driver-gpu): the ResourceSlices its kubelet plugin
//! publishes for a node's GPUs, the DeviceClasses its chart installs, and the opaque
//! sharing config (`resource.nvidia.com/v1beta1` `GpuConfig`) it decodes when it
//! prepares a claim. Issue 17 item 5.
//!
//! **Whose facts.** The driver's source is not in this repository and was not read
//! for this module; what is the driver's is written from its published objects and
//! docs as the lab knows them, and every value that is the lab's own choice says so
//! where it is made:
//!
//! - the driver's: the driver name `gpu.nvidia.com`, one pool per node named after
//!   the node, devices `gpu-<index>`, the attribute names (`type`, `uuid`, `index`,
//!   `minor`, `productName`, `brand`, `architecture`, `cudaComputeCapability`,
//!   `driverVersion`, `cudaDriverVersion`; for MIG also `parentUUID`, `profile`),
//!   versions as semver, the `memory` capacity in bytes, the DeviceClass selectors,
//!   the `GpuConfig` fields and strategies (`TimeSlicing`, `MPS`), the intervals;
//! - the lab's: UUIDs (derived from node and index), `minor` = index, `brand` by
//!   name, the default driver and CUDA versions, the MIG device name's numbers
//!   where the embedded MIG data lacks them, the partitionable form's counter names
//!   (`memory-slice-<k>`) and slice layout, the slices' generated names, and the
//!   driver's error text around the strict decoder's (see [`decode_config`]).
//!
//! The strict decoder's text itself is apimachinery's (`runtime.strictDecodingError`,
//! sigs.k8s.io/json `strictError`), read in their v0.37.2 source.

use std::collections::BTreeMap;

use k8s_openapi::api::resource::v1::{
    CELDeviceSelector, CapacityRequestPolicy, CapacityRequestPolicyRange, Counter, CounterSet, Device, DeviceAttribute, DeviceCapacity, DeviceClass, DeviceClassSpec,
    DeviceCounterConsumption, DeviceSelector, ResourcePool, ResourceSlice, ResourceSliceSpec,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::slots::gpu::ComputeCapability;
use crate::slots::mig::{check_geometry, Geometry, MigCatalog, MigGpu, MigProfile};
use crate::slots::GpuModel;

/// The driver name: `spec.driver` of its slices, the attribute domain, a DeviceClass.
pub const DRIVER: &str = "gpu.nvidia.com";
/// The API version of its opaque configs.
pub const CONFIG_API_VERSION: &str = "resource.nvidia.com/v1beta1";
/// Lab default: the driver version NVML reports (the GPU Operator doc's H100 node).
pub const DEFAULT_DRIVER_VERSION: &str = "550.54.15";
/// Lab default: the CUDA driver version that driver line reports.
pub const DEFAULT_CUDA_DRIVER_VERSION: &str = "12.4";

/// How a node's GPUs are partitioned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mig {
    /// MIG off: one device per GPU.
    Disabled,
    /// MIG on with a geometry MIG Manager created (every GPU alike): the MIG
    /// devices only, no whole GPU, no counters.
    Static(Geometry),
    /// The partitionable form (KEP-4815, DRAPartitionableDevices, beta from 1.36):
    /// the whole GPU and every MIG placement, each consuming the GPU's memory-slice
    /// counters, so the scheduler picks the partition. Slice layout and counter
    /// names are the lab's.
    Partitionable,
}

/// One node's GPUs as the kubelet plugin finds them through NVML.
#[derive(Debug, Clone)]
pub struct NodeGpus {
    pub node: String,
    pub model: GpuModel,
    pub count: u32,
    pub mig: Mig,
    pub driver_version: String,
    pub cuda_driver_version: String,
    /// `spec.pool.generation`: the plugin bumps it when it republishes.
    pub generation: i64,
}

impl NodeGpus {
    /// `count` GPUs of `model` on `node`, MIG off, the lab's default versions.
    pub fn new(node: &str, model: GpuModel, count: u32) -> NodeGpus {
        NodeGpus {
            node: node.into(),
            model,
            count,
            mig: Mig::Disabled,
            driver_version: DEFAULT_DRIVER_VERSION.into(),
            cuda_driver_version: DEFAULT_CUDA_DRIVER_VERSION.into(),
            generation: 1,
        }
    }
}

/// `major.minor` or `major.minor.patch` as the semver string the driver publishes.
fn semver(v: &str) -> Result<String, String> {
    let parts: Vec<&str> = v.trim().split('.').collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty() || !p.chars().all(|c| c.is_ascii_digit())) {
        return Err(format!("version {v:?}: expected MAJOR.MINOR[.PATCH]"));
    }
    let get = |i: usize| parts.get(i).map_or("0", |p| *p).trim_start_matches('0').to_string();
    let n = |s: String| if s.is_empty() { "0".to_string() } else { s };
    Ok(format!("{}.{}.{}", n(get(0)), n(get(1)), n(get(2))))
}

/// The architecture name for a compute capability (NVIDIA's names, as the driver's
/// `architecture` attribute carries them): GFD's family ([`ComputeCapability::family`])
/// capitalised, `ada-lovelace` as `Ada Lovelace`.
pub fn architecture(cc: ComputeCapability) -> String {
    match cc.family() {
        "ada-lovelace" => "Ada Lovelace".into(),
        "undefined" => "Unknown".into(),
        f => {
            let mut c = f.chars();
            c.next().map(|first| first.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        }
    }
}

/// Lab's assumption: NVML's brand for the model — `Tesla` for the names that
/// carry it (T4, V100), else `Nvidia` (the data-centre brand of A100 and later).
fn brand(name: &str) -> &'static str {
    if name.starts_with("Tesla") {
        "Tesla"
    } else {
        "Nvidia"
    }
}

/// Lab's assumption: a stable GPU UUID in NVML's `GPU-8-4-4-4-12` shape, derived
/// from the node and index (FNV-1a), so slices are the same on every run.
pub fn gpu_uuid(node: &str, index: u32) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in format!("{node}/{index}").bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    let x = format!("{h:032x}");
    let part = |a: usize, b: usize| x.get(a..b).unwrap_or("0").to_string();
    format!("GPU-{}-{}-{}-{}-{}", part(0, 8), part(8, 12), part(12, 16), part(16, 20), part(20, 32))
}

fn string(s: &str) -> DeviceAttribute {
    DeviceAttribute { string: Some(s.into()), ..Default::default() }
}

fn int(i: i64) -> DeviceAttribute {
    DeviceAttribute { int: Some(i), ..Default::default() }
}

fn version(v: String) -> DeviceAttribute {
    DeviceAttribute { version: Some(v), ..Default::default() }
}

fn bytes_mib(mib: u64) -> DeviceCapacity {
    DeviceCapacity { value: Quantity(format!("{mib}Mi")), request_policy: None }
}

/// The attributes a GPU and its MIG devices share.
fn common_attributes(gpus: &NodeGpus) -> Result<BTreeMap<String, DeviceAttribute>, String> {
    let cc = gpus.model.compute_capability.ok_or_else(|| format!("{}: the compute capability is not known", gpus.model.name))?;
    let mut a = BTreeMap::new();
    a.insert("productName".into(), string(&gpus.model.name));
    a.insert("brand".into(), string(brand(&gpus.model.name)));
    a.insert("architecture".into(), string(&architecture(cc)));
    a.insert("cudaComputeCapability".into(), version(semver(&cc.to_string())?));
    a.insert("driverVersion".into(), version(semver(&gpus.driver_version)?));
    a.insert("cudaDriverVersion".into(), version(semver(&gpus.cuda_driver_version)?));
    Ok(a)
}

/// The whole GPU `index`.
fn gpu_device(gpus: &NodeGpus, index: u32, memory_mib: u64) -> Result<Device, String> {
    let mut a = common_attributes(gpus)?;
    a.insert("type".into(), string("gpu"));
    a.insert("uuid".into(), string(&gpu_uuid(&gpus.node, index)));
    a.insert("index".into(), int(i64::from(index)));
    a.insert("minor".into(), int(i64::from(index)));
    let capacity = BTreeMap::from([("memory".to_string(), bytes_mib(memory_mib))]);
    Ok(Device { name: format!("gpu-{index}"), attributes: Some(a), capacity: Some(capacity), ..Default::default() })
}

/// Lab's assumption where the embedded data has no GI profile id: NVML's ids by
/// profile shape as the H100 data records them (7g 0, 4g 5, 3g 9, 2g 14, 1g with
/// double memory 15, 1g 19, 1g+me 20) — the same family on A100 and H100.
fn gi_profile_id(gpu: &MigGpu, p: &MigProfile) -> u32 {
    if let Some(id) = p.gi_profile_id {
        return id;
    }
    let smallest_1g = gpu.profiles.iter().filter(|q| q.compute_slices == 1).map(|q| q.memory_gib).min().unwrap_or(0);
    match (p.compute_slices, p.media_extensions, p.memory_gib > smallest_1g) {
        (7, ..) | (8, ..) => 0,
        (4, ..) => 5,
        (3, ..) => 9,
        (2, ..) => 14,
        (1, true, _) => 20,
        (1, false, true) => 15,
        _ => 19,
    }
}

/// Where a profile may start, in memory slices: the data's placements, else the
/// A100 table the data infers for its family (starts at multiples of the size;
/// 1-slice profiles 0–6, 2-slice 2g at 0, 2, 4, 4g at 0 only).
fn starts(gpu: &MigGpu, p: &MigProfile) -> (Vec<u32>, u32) {
    if let Some(pl) = &p.placements {
        return (pl.starts.clone(), pl.size);
    }
    let size = gpu.memory_slices_of(p).max(1);
    let last = gpu.memory_slices.saturating_sub(size);
    let mut s: Vec<u32> = (0..=last).step_by(size as usize).collect();
    if size == 1 || (size == 2 && p.compute_slices == 2) {
        s.retain(|x| *x < gpu.memory_slices.saturating_sub(size));
    }
    if p.compute_slices == 4 {
        s.retain(|x| *x == 0);
    }
    if s.is_empty() {
        s.push(0);
    }
    (s, size)
}

/// A MIG device: `gpu-<index>-mig-<giProfileId>-<start>-<size>`.
fn mig_device(gpus: &NodeGpus, gpu: &MigGpu, index: u32, p: &MigProfile, start: u32, size: u32) -> Result<Device, String> {
    let mut a = common_attributes(gpus)?;
    let id = gi_profile_id(gpu, p);
    a.insert("type".into(), string("mig"));
    a.insert("profile".into(), string(&p.name));
    a.insert("parentUUID".into(), string(&gpu_uuid(&gpus.node, index)));
    a.insert("index".into(), int(i64::from(index)));
    a.insert("minor".into(), int(i64::from(index)));
    let memory = p.memory_mib.unwrap_or(u64::from(p.memory_gib) * 1024);
    let mut capacity = BTreeMap::from([("memory".to_string(), bytes_mib(memory))]);
    if let Some(sm) = p.multiprocessors {
        capacity.insert("multiprocessors".into(), DeviceCapacity { value: Quantity(sm.to_string()), request_policy: None });
    }
    let name = format!("gpu-{index}-mig-{id}-{start}-{size}");
    Ok(Device { name, attributes: Some(a), capacity: Some(capacity), ..Default::default() })
}

fn counter_set_name(index: u32) -> String {
    format!("gpu-{index}-counter-set")
}

fn consumes(index: u32, start: u32, size: u32) -> Vec<DeviceCounterConsumption> {
    let counters = (start..start + size).map(|k| (format!("memory-slice-{k}"), Counter { value: Quantity("1".into()) })).collect();
    vec![DeviceCounterConsumption { counter_set: counter_set_name(index), counters }]
}

/// Places a static geometry on one GPU: the data's placement where NVML's was
/// read, else first fit over [`starts`], biggest first.
fn place(gpu: &MigGpu, geometry: &Geometry) -> Result<Vec<(MigProfile, u32, u32)>, String> {
    let check = check_geometry(gpu, geometry);
    if !check.valid {
        let why: Vec<String> = check.errors.iter().map(|e| format!("{e:?}")).collect();
        return Err(format!("geometry {geometry} does not fit a {}: {}", gpu.model, why.join(", ")));
    }
    let mut out = Vec::new();
    if let Some(placement) = check.placement {
        for (name, start) in placement {
            let p = gpu.profile(&name).ok_or_else(|| format!("profile {name} not in the MIG data"))?;
            out.push((p.clone(), start, gpu.memory_slices_of(p)));
        }
        out.sort_by_key(|(_, st, _)| *st);
        return Ok(out);
    }
    let mut instances: Vec<&MigProfile> = Vec::new();
    for (name, count) in &geometry.0 {
        let p = gpu.profile(name).ok_or_else(|| format!("profile {name} not in the MIG data"))?;
        instances.extend(std::iter::repeat_n(p, *count as usize));
    }
    instances.sort_by_key(|p| std::cmp::Reverse(gpu.memory_slices_of(p)));
    let options: Vec<(Vec<u32>, u32)> = instances.iter().map(|p| starts(gpu, p)).collect();
    let mut chosen = Vec::new();
    if !fill(&options, 0, gpu.memory_slices, &mut chosen) {
        return Err(format!("geometry {geometry}: no placement on a {}", gpu.model));
    }
    for (p, (st, size)) in instances.iter().zip(chosen) {
        out.push(((*p).clone(), st, size));
    }
    out.sort_by_key(|(_, st, _)| *st);
    Ok(out)
}

/// The memory slices `start..start + size` as bits (`None` beyond 64).
fn slice_mask(start: u32, size: u32) -> Option<u64> {
    let ones = 1u64.checked_shl(size).map_or(u64::MAX, |b| b - 1);
    (start.checked_add(size)? <= 64).then(|| ones.checked_shl(start).unwrap_or(0))
}

/// Backtracking over the allowed starts: one (start, size) per instance, none
/// overlapping (at most 8 memory slices, 7 instances).
fn fill(options: &[(Vec<u32>, u32)], used: u64, slices: u32, chosen: &mut Vec<(u32, u32)>) -> bool {
    let Some(((starts, size), rest)) = options.split_first() else { return true };
    for &st in starts {
        if st + size > slices {
            continue;
        }
        let Some(mask) = slice_mask(st, *size) else { continue };
        if used & mask != 0 {
            continue;
        }
        chosen.push((st, *size));
        if fill(rest, used | mask, slices, chosen) {
            return true;
        }
        chosen.pop();
    }
    false
}

fn slice(gpus: &NodeGpus, n: usize, count: usize, spec: ResourceSliceSpec) -> ResourceSlice {
    ResourceSlice {
        metadata: ObjectMeta {
            // The plugin's slices are `generateName: <node>-gpu.nvidia.com-`; the
            // random suffix is the lab's counter.
            name: Some(format!("{}-{DRIVER}-{n}", gpus.node)),
            ..Default::default()
        },
        spec: ResourceSliceSpec {
            driver: DRIVER.into(),
            node_name: Some(gpus.node.clone()),
            pool: ResourcePool { name: gpus.node.clone(), generation: gpus.generation, resource_slice_count: count as i64 },
            ..spec
        },
    }
}

/// The ResourceSlices the kubelet plugin publishes for `gpus`: one slice of whole
/// GPUs or static MIG devices; for [`Mig::Partitionable`], one slice of counter
/// sets (one set per GPU, `memory-slice-0`… = 1) and one slice of devices per GPU (the
/// whole GPU consuming every memory slice, each MIG placement its own), since the
/// API server keeps counters and devices in separate slices and caps a slice with
/// counters at 64 devices and 8 counter sets. `memory_mib` overrides the model's
/// memory (needed where the embedded data has none). `catalog` is the MIG data.
pub fn resource_slices(gpus: &NodeGpus, memory_mib: Option<u64>, catalog: &MigCatalog) -> Result<Vec<ResourceSlice>, String> {
    let memory = memory_mib
        .or(gpus.model.memory_mib)
        .ok_or_else(|| format!("{}: the GPU memory is not known; give it (MiB)", gpus.model.name))?;
    let mig_gpu = || -> Result<&MigGpu, String> {
        if !gpus.model.mig_capable {
            return Err(format!("{} is not MIG-capable", gpus.model.name));
        }
        catalog.find(&gpus.model.name).ok_or_else(|| format!("{}: no MIG profiles in the embedded data", gpus.model.name))
    };
    // One slice holds at most 128 devices (`ResourceSliceMaxDevices`); no node has
    // that many GPUs, and the lab publishes whole GPUs and static MIG devices in one.
    if gpus.count > 64 {
        return Err(format!("{} GPUs on one node: the lab publishes at most 64", gpus.count));
    }
    match &gpus.mig {
        Mig::Disabled => {
            let devices = (0..gpus.count).map(|i| gpu_device(gpus, i, memory)).collect::<Result<Vec<_>, _>>()?;
            Ok(vec![slice(gpus, 0, 1, ResourceSliceSpec { devices: Some(devices), ..Default::default() })])
        }
        Mig::Static(geometry) => {
            let gpu = mig_gpu()?;
            let placed = place(gpu, geometry)?;
            if placed.len() * gpus.count as usize > 128 {
                return Err(format!("{} MIG devices on one node: a slice holds at most 128", placed.len() * gpus.count as usize));
            }
            let mut devices = Vec::new();
            for i in 0..gpus.count {
                for (p, start, size) in &placed {
                    devices.push(mig_device(gpus, gpu, i, p, *start, *size)?);
                }
            }
            Ok(vec![slice(gpus, 0, 1, ResourceSliceSpec { devices: Some(devices), ..Default::default() })])
        }
        Mig::Partitionable => {
            let gpu = mig_gpu()?;
            if gpus.count > 8 {
                return Err("the partitionable form puts every GPU's counter set in one slice: at most 8 GPUs".into());
            }
            let count = gpus.count as usize + 1;
            let sets = (0..gpus.count)
                .map(|i| CounterSet {
                    name: counter_set_name(i),
                    counters: (0..gpu.memory_slices).map(|k| (format!("memory-slice-{k}"), Counter { value: Quantity("1".into()) })).collect(),
                })
                .collect();
            let mut out = vec![slice(gpus, 0, count, ResourceSliceSpec { shared_counters: Some(sets), ..Default::default() })];
            for i in 0..gpus.count {
                let mut whole = gpu_device(gpus, i, memory)?;
                whole.consumes_counters = Some(consumes(i, 0, gpu.memory_slices));
                let mut devices = vec![whole];
                for p in &gpu.profiles {
                    let (s, size) = starts(gpu, p);
                    for start in s {
                        let mut d = mig_device(gpus, gpu, i, p, start, size)?;
                        d.consumes_counters = Some(consumes(i, start, size));
                        devices.push(d);
                    }
                }
                out.push(slice(gpus, i as usize + 1, count, ResourceSliceSpec { devices: Some(devices), ..Default::default() }));
            }
            Ok(out)
        }
    }
}

/// The kubelet plugin's `--consumable-shares` (`consumableShares` in the chart,
/// behind the driver's `ConsumableShares` feature gate, alpha and off by default):
/// how it lets independent claims share a GPU through Kubernetes' consumable
/// capacity (DRAConsumableCapacity). From the driver's docs ("Share GPUs with
/// consumable capacity", `demo/specs/consumable-shares/README.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumableShares {
    /// `disabled`: no multi-allocation, no policies (the default).
    Disabled,
    /// `memory`: a claim consumes the memory it requests, all of it by default.
    Memory,
    /// `unlimited`: a claim consumes no memory unless it requests some.
    Unlimited,
    /// A positive integer N: N `shares` per device, one per claim by default.
    Shares(u32),
}

fn policy(default: &str, min: &str, max: Option<String>, step: &str) -> Option<CapacityRequestPolicy> {
    Some(CapacityRequestPolicy {
        default: Some(Quantity(default.into())),
        valid_range: Some(CapacityRequestPolicyRange { min: Quantity(min.into()), max: max.map(Quantity), step: Some(Quantity(step.into())) }),
        valid_values: None,
    })
}

/// `slices` as the kubelet plugin publishes them in `mode`: every device
/// `allowMultipleAllocations: true`, its `memory` with a request policy — `memory`:
/// default the whole memory, min `1Mi`, step `1Mi`; `unlimited` and N: default `0`,
/// min `0`, step `1Mi`, max the whole memory — and for N a `shares` capacity of N
/// (default 1, min 1, max N, step 1). The docs give no max for `memory` mode: the
/// lab leaves it unset. The lab publishes memory in whole MiB, so "rounded down to
/// 1 MiB" is the value itself.
pub fn with_consumable_shares(slices: &mut [ResourceSlice], mode: ConsumableShares) {
    if mode == ConsumableShares::Disabled {
        return;
    }
    for d in slices.iter_mut().flat_map(|s| s.spec.devices.iter_mut().flatten()) {
        d.allow_multiple_allocations = Some(true);
        let capacity = d.capacity.get_or_insert_with(BTreeMap::new);
        if let Some(memory) = capacity.get_mut("memory") {
            let total = memory.value.0.clone();
            memory.request_policy = match mode {
                ConsumableShares::Memory => policy(&total, "1Mi", None, "1Mi"),
                _ => policy("0", "0", Some(total), "1Mi"),
            };
        }
        if let ConsumableShares::Shares(n) = mode {
            let value = DeviceCapacity { value: Quantity(n.to_string()), request_policy: policy("1", "1", Some(n.to_string()), "1") };
            capacity.insert("shares".into(), value);
        }
    }
}

/// The DeviceClasses the driver's chart installs for GPUs: `gpu.nvidia.com` (whole
/// GPUs) and `mig.nvidia.com` (MIG devices), each selecting its `type`.
pub fn device_classes() -> Vec<DeviceClass> {
    [("gpu.nvidia.com", "gpu"), ("mig.nvidia.com", "mig")]
        .into_iter()
        .map(|(name, ty)| DeviceClass {
            metadata: ObjectMeta { name: Some(name.into()), ..Default::default() },
            spec: DeviceClassSpec {
                selectors: Some(vec![DeviceSelector {
                    cel: Some(CELDeviceSelector {
                        expression: format!("device.driver == '{DRIVER}' && device.attributes['{DRIVER}'].type == '{ty}'"),
                    }),
                }]),
                ..Default::default()
            },
        })
        .collect()
}

/// How a claim's devices are shared, as the driver decoded its config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sharing {
    /// No config, or a config without `sharing`: the driver's default (time-slicing
    /// at the default interval).
    Default,
    /// `strategy: TimeSlicing` with its interval (`Default`, `Short`, `Medium`,
    /// `Long`). There is no `replicas`: every pod that holds the claim shares it.
    TimeSlicing { interval: String },
    /// `strategy: MPS` with the limits given (raw JSON texts).
    Mps { active_thread_percentage: Option<i64>, pinned_memory_limit: Option<String> },
}

/// The kinds the driver's config group registers for GPUs.
const KINDS: &[&str] = &["GpuConfig", "MigDeviceConfig"];

/// The fields the strict decoder knows, by path (`*`: any key).
fn known(path: &str) -> &'static [&'static str] {
    match path {
        "" => &["apiVersion", "kind", "sharing"],
        "sharing" => &["strategy", "timeSlicingConfig", "mpsConfig"],
        "sharing.timeSlicingConfig" => &["interval"],
        "sharing.mpsConfig" => &["defaultActiveThreadPercentage", "defaultPinnedDeviceMemoryLimit", "defaultPerDevicePinnedMemoryLimit"],
        "sharing.mpsConfig.defaultPerDevicePinnedMemoryLimit" => &["*"],
        _ => &[],
    }
}

fn unknown_fields(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    let Some(map) = v.as_object() else { return };
    let fields = known(path);
    for (k, child) in map {
        let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
        if fields.contains(&"*") {
            continue;
        }
        if fields.contains(&k.as_str()) {
            unknown_fields(child, &p, out);
        } else {
            out.push(format!("unknown field {p:?}"));
        }
    }
}

/// The driver's decoding of one opaque config for `gpu.nvidia.com`: the strict
/// decoder (unknown fields are errors — so `timeSlicingConfig.replicas`, the
/// device plugin's knob, is refused), then the config's own checks. The error is
/// what the driver returns from NodePrepareResources for the claim.
///
/// Verbatim: `strict decoding error: unknown field "…"` (apimachinery v0.37.2;
/// several at one level come in key order here, in document order there). The
/// lab's, not verified against the driver's source: the `error decoding config
/// parameters: ` prefix, the unknown-kind text, and the texts for a bad strategy
/// or interval.
pub fn decode_config(parameters: &serde_json::Value) -> Result<Sharing, String> {
    let prefix = "error decoding config parameters";
    let api = parameters.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
    let kind = parameters.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if api != CONFIG_API_VERSION || !KINDS.contains(&kind) {
        return Err(format!("{prefix}: no kind {kind:?} is registered for version {api:?}"));
    }
    let mut unknown = Vec::new();
    unknown_fields(parameters, "", &mut unknown);
    if !unknown.is_empty() {
        return Err(format!("{prefix}: strict decoding error: {}", unknown.join(", ")));
    }
    let Some(sharing) = parameters.get("sharing") else { return Ok(Sharing::Default) };
    let strategy = sharing.get("strategy").and_then(|s| s.as_str()).unwrap_or("");
    match strategy {
        "TimeSlicing" => {
            let interval = sharing.pointer("/timeSlicingConfig/interval").and_then(|i| i.as_str()).unwrap_or("Default");
            if !["Default", "Short", "Medium", "Long"].contains(&interval) {
                return Err(format!("unknown time-slice interval: {interval}"));
            }
            Ok(Sharing::TimeSlicing { interval: interval.into() })
        }
        "MPS" => Ok(Sharing::Mps {
            active_thread_percentage: sharing.pointer("/mpsConfig/defaultActiveThreadPercentage").and_then(serde_json::Value::as_i64),
            pinned_memory_limit: sharing.pointer("/mpsConfig/defaultPinnedDeviceMemoryLimit").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
        }),
        other => Err(format!("unknown GPU sharing strategy: {other}")),
    }
}
