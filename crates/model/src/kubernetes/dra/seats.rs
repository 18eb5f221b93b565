//! Step 7's DRA rows beside the device plugin's seats (issue 17, item 6): for the
//! learner's GPU model and count, how many pods get a GPU on each DRA path, every
//! number found by the structured allocator ([`super::allocator`]) allocating
//! claims one after another — as the scheduler does, pod by pod — against the
//! ResourceSlices NVIDIA's DRA driver publishes for such a node
//! ([`super::nvidia::resource_slices`]), under the Kubernetes version's gates
//! ([`super::dynamicresources::features`]); a claim's opaque sharing config goes
//! through the driver's strict decoding at the kubelet ([`super::kubelet`]).
//!
//! The paths: a whole GPU per claim (`gpu.nvidia.com`, a ResourceClaimTemplate per
//! pod); MIG partitions of the smallest profile — from the GPUs' counters where
//! DRAPartitionableDevices is on (1.36+), else the static MIG devices of the
//! `all-<profile>` geometry; one claim with time-slicing, or with MPS, named by
//! several pods (`resourceClaimName`: the pods share the claim's GPU, at most
//! `ResourceClaimReservedForMaxSize` of them, and for MPS the MPS server's client
//! limit); the same time-slicing config with the device plugin's `replicas`,
//! which the driver refuses; and the driver's consumable shares
//! (`--consumable-shares=N`) where DRAConsumableCapacity is on (1.36+) — off
//! before, where the API server drops `allowMultipleAllocations` and the rows say
//! so. The rows are [`crate::slots::table::SlotRow`]s of [`Mode::Dra`], appended to
//! the device plugin's table, so one printer prints both (`gpulab slots`, step 7).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::resource::v1::{
    CELDeviceSelector, DeviceClaim, DeviceClaimConfiguration, DeviceClass, DeviceRequest, DeviceSelector, ExactDeviceRequest,
    OpaqueDeviceConfiguration, ResourceClaim, ResourceClaimSpec, ResourceClaimStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;

use super::allocator::{consumed_by, Allocator, DeviceId, Slice};
use super::dynamicresources::{features, RESERVED_FOR_MAX_SIZE};
use super::nvidia::{self, ConsumableShares, Mig, NodeGpus, CONFIG_API_VERSION, DRIVER};
use super::{kubelet, printed};
use crate::kubernetes::version::KubeVersion;
use crate::Lang;
use crate::slots::mig::{MigCatalog, MigGpu, MigProfile};
use crate::slots::table::{DraPath, Mode, SlotRow, SlotTable};
use crate::slots::GpuModel;

/// What the DRA rows are about: the table's GPUs and the cluster's version.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub model: &'a GpuModel,
    pub gpus_per_node: u32,
    pub nodes: u32,
    /// The compared rows' replicas (the MPS limits, the shares, the trap).
    pub replicas: u32,
    pub version: KubeVersion,
}

/// At most this many claims are allocated on one node for one row (a safety bound;
/// the lab's largest node, 16 GPUs × 110 shares, is far below it).
const MAX_CLAIMS: usize = 4096;

/// The node the rows allocate on (the table's nodes are alike).
const NODE: &str = "gpu-node";

/// Appends the DRA rows and their notes to `table` (in its language).
pub fn add_rows(table: &mut SlotTable, req: &Request<'_>, catalog: &MigCatalog) {
    let lang = table.lang;
    if let Some(why) = printed::not_served(req.version) {
        table.rows.push(error_row(DraPath::NotServed, lang, why));
        return;
    }
    let f = features(req.version);
    let rows = Rows { req, catalog, lang };
    table.rows.push(rows.whole_gpu());
    let mut mig_note = None;
    if let Some((gpu, profile)) = smallest_profile(req.model, catalog) {
        let (row, note) = rows.mig(gpu, profile, f.partitionable_devices);
        table.rows.push(row);
        mig_note = Some(note);
    }
    table.rows.push(rows.shared(DraPath::TimeSlicing));
    table.rows.push(rows.shared(DraPath::TimeSlicingReplicas { replicas: req.replicas }));
    table.rows.push(rows.shared(DraPath::Mps { replicas: req.replicas }));
    table.rows.push(rows.consumable(f.consumable_capacity));
    table.notes.extend(notes(req, f.partitionable_devices, f.consumable_capacity, lang));
    table.notes.extend(mig_note);
}

/// The profile the device plugin's `all-<profile>` rows use: most instances per
/// GPU, then the least memory, without media extensions.
fn smallest_profile<'c>(model: &GpuModel, catalog: &'c MigCatalog) -> Option<(&'c MigGpu, &'c MigProfile)> {
    if !model.mig_capable {
        return None;
    }
    let gpu = catalog.find(&model.name)?;
    let p = gpu.profiles.iter().filter(|p| !p.media_extensions).max_by_key(|p| (p.max_count, std::cmp::Reverse(p.memory_gib)))?;
    Some((gpu, p))
}

fn error_row(path: DraPath, lang: Lang, error: String) -> SlotRow {
    SlotRow::failed(Mode::Dra { path }, lang, "n/a", Some(error))
}

/// A claim `name` in `default` for one device of `class` (`count` of them),
/// optionally with a CEL selector and the driver's opaque config.
fn claim(name: &str, class: &str, count: i64, selector: Option<String>, config: Option<serde_json::Value>) -> ResourceClaim {
    let request = ExactDeviceRequest {
        device_class_name: class.into(),
        count: Some(count),
        selectors: selector.map(|expression| vec![DeviceSelector { cel: Some(CELDeviceSelector { expression }) }]),
        ..Default::default()
    };
    let config = config.map(|parameters| {
        vec![DeviceClaimConfiguration {
            requests: None,
            opaque: Some(OpaqueDeviceConfiguration { driver: DRIVER.into(), parameters: RawExtension(parameters) }),
        }]
    });
    ResourceClaim {
        metadata: ObjectMeta { name: Some(name.into()), namespace: Some("default".into()), ..Default::default() },
        spec: ResourceClaimSpec {
            devices: Some(DeviceClaim {
                requests: Some(vec![DeviceRequest { name: "gpu".into(), exactly: Some(request), ..Default::default() }]),
                config,
                ..Default::default()
            }),
        },
        status: None,
    }
}

/// The driver's `GpuConfig` with `sharing`.
fn gpu_config(sharing: serde_json::Value) -> serde_json::Value {
    serde_json::json!({ "apiVersion": CONFIG_API_VERSION, "kind": "GpuConfig", "sharing": sharing })
}

fn node() -> Node {
    Node { metadata: ObjectMeta { name: Some(NODE.into()), ..Default::default() }, ..Default::default() }
}

/// Claims made by `make(i)` allocated one after another on the node until one does
/// not fit: the allocated claims (status written), or the allocator's error.
fn fill(version: KubeVersion, slices: &[Slice], classes: &[DeviceClass], make: &dyn Fn(usize) -> ResourceClaim) -> Result<Vec<ResourceClaim>, String> {
    let mut done: Vec<ResourceClaim> = Vec::new();
    let mut allocated: BTreeSet<DeviceId> = BTreeSet::new();
    let node = node();
    while done.len() < MAX_CLAIMS {
        let mut c = make(done.len());
        let consumed = consumed_by(&done);
        let alloc = Allocator { features: features(version), classes, slices, allocated: &allocated, consumed: &consumed, compiled: &[], index: None };
        let result = match alloc.allocate(&node, &[&c]) {
            Ok(Some(mut r)) => r.pop(),
            Ok(None) => None,
            Err(super::allocator::AllocateError::OnNode(e) | super::allocator::AllocateError::Fatal(e)) => return Err(e),
        };
        let Some(result) = result else { break };
        for r in result.devices.iter().flat_map(|d| d.results.iter().flatten()).filter(|r| r.share_id.is_none()) {
            allocated.insert(DeviceId { driver: r.driver.clone(), pool: r.pool.clone(), device: r.device.clone() });
        }
        c.status = Some(ResourceClaimStatus { allocation: Some(result), ..Default::default() });
        done.push(c);
    }
    Ok(done)
}

/// A claim for two devices on an empty node: two devices, one device twice, or none.
fn request_two(version: KubeVersion, slices: &[Slice], classes: &[DeviceClass], c: ResourceClaim) -> &'static str {
    let node = node();
    let allocated = BTreeSet::new();
    let alloc = Allocator { features: features(version), classes, slices, allocated: &allocated, consumed: &[], compiled: &[], index: None };
    match alloc.allocate(&node, &[&c]) {
        Ok(Some(r)) => {
            let devices: BTreeSet<&str> = r.iter().flat_map(|a| a.devices.iter().flat_map(|d| d.results.iter().flatten())).map(|r| r.device.as_str()).collect();
            if devices.len() >= 2 {
                "two-devices"
            } else {
                "same-device-twice"
            }
        }
        _ => "n/a",
    }
}

/// The devices of `slices` a class selects, as the row's resources cell.
fn offered(slices: &[Slice], class: &str) -> Vec<(String, u64)> {
    let ty = if class == "mig.nvidia.com" { "mig" } else { "gpu" };
    let n = slices
        .iter()
        .flat_map(|s| s.spec.devices.iter().flatten())
        .filter(|d| d.attributes.as_ref().and_then(|a| a.get("type")).and_then(|t| t.string.as_deref()) == Some(ty))
        .count();
    vec![(class.to_string(), n as u64)]
}

struct Rows<'r, 'a> {
    req: &'r Request<'a>,
    catalog: &'r MigCatalog,
    lang: Lang,
}

impl Rows<'_, '_> {
    fn gpus(&self, mig: Mig) -> NodeGpus {
        NodeGpus { mig, ..NodeGpus::new(NODE, self.req.model.clone(), self.req.gpus_per_node) }
    }

    fn slices(&self, mig: Mig) -> Result<Vec<Slice>, String> {
        Ok(nvidia::resource_slices(&self.gpus(mig), None, self.catalog)?.into_iter().map(Slice::new).collect())
    }

    /// A row from the claims that fit one node and the pods each claim serves.
    #[allow(clippy::too_many_arguments)]
    fn row(&self, path: DraPath, resources: Vec<(String, u64)>, claims: usize, pods_per_claim: u64, memory: Option<u64>, compute: (&str, String), isolation: &str, two: &str) -> SlotRow {
        let mode = Mode::Dra { path };
        let per_node = (claims as u64).saturating_mul(pods_per_claim);
        let gpus = u64::from(self.req.gpus_per_node);
        SlotRow {
            label: crate::slots::table::mode_label(&mode, self.lang),
            mode,
            resources,
            seats_per_gpu: (gpus > 0).then(|| per_node / gpus),
            seats_per_node: per_node,
            seats_cluster: per_node.saturating_mul(u64::from(self.req.nodes)),
            guaranteed_memory_mib: vec![(DRIVER.to_string(), memory)],
            compute: (compute.0.to_string(), compute.1),
            isolation: isolation.into(),
            request_two: two.into(),
            error: None,
        }
    }

    fn whole_gpu(&self) -> SlotRow {
        let path = DraPath::WholeGpu;
        let v = self.req.version;
        let slices = match self.slices(Mig::Disabled) {
            Ok(s) => s,
            Err(e) => return error_row(path, self.lang, e),
        };
        let classes = nvidia::device_classes();
        match fill(v, &slices, &classes, &|i| claim(&format!("gpu-{i}"), "gpu.nvidia.com", 1, None, None)) {
            Ok(done) => {
                let two = request_two(v, &slices, &classes, claim("two", "gpu.nvidia.com", 2, None, None));
                self.row(path, offered(&slices, "gpu.nvidia.com"), done.len(), 1, self.req.model.memory_mib, ("whole-gpu", String::new()), "exclusive", two)
            }
            Err(e) => error_row(path, self.lang, e),
        }
    }

    /// MIG partitions of `p`: the row, and the note on what a re-partition needs —
    /// with one partition taken on every GPU, whether a whole-GPU claim still fits.
    fn mig(&self, gpu: &MigGpu, p: &MigProfile, partitionable: bool) -> (SlotRow, String) {
        let path = DraPath::Mig { profile: p.name.clone(), partitionable };
        let v = self.req.version;
        let layout = format!("all-{}", p.name);
        let mig = if partitionable {
            Mig::Partitionable
        } else {
            match gpu.named_layouts().into_iter().find(|(n, _)| *n == layout) {
                Some((_, g)) => Mig::Static(g),
                None => return (error_row(path, self.lang, format!("no layout {layout}")), String::new()),
            }
        };
        let slices = match self.slices(mig) {
            Ok(s) => s,
            Err(e) => return (error_row(path, self.lang, e), String::new()),
        };
        let classes = nvidia::device_classes();
        let selector = format!("device.attributes['{DRIVER}'].profile == '{}'", p.name);
        let make = |i: usize| claim(&format!("mig-{i}"), "mig.nvidia.com", 1, Some(selector.clone()), None);
        let done = match fill(v, &slices, &classes, &make) {
            Ok(d) => d,
            Err(e) => return (error_row(path, self.lang, e), String::new()),
        };
        let two = request_two(v, &slices, &classes, claim("two", "mig.nvidia.com", 2, Some(selector.clone()), None));
        let memory = p.memory_mib.or(Some(u64::from(p.memory_gib) * 1024));
        let compute = ("mig-slices", format!("{}/{}", p.compute_slices, gpu.compute_slices));
        let row = self.row(path, offered(&slices, "mig.nvidia.com"), done.len(), 1, memory, compute, "mig-hardware", two);
        (row, self.repartition(v, &slices, &classes, p, partitionable))
    }

    /// One `p` partition allocated on every GPU (the first per GPU), then a claim
    /// for a whole GPU: does it fit?
    fn repartition(&self, v: KubeVersion, slices: &[Slice], classes: &[DeviceClass], p: &MigProfile, partitionable: bool) -> String {
        let mut allocated = BTreeSet::new();
        let per_gpu = |i: u32| format!("gpu-{i}-mig-");
        for i in 0..self.req.gpus_per_node {
            let first = slices.iter().flat_map(|s| s.spec.devices.iter().flatten()).find(|d| {
                d.name.starts_with(&per_gpu(i)) && d.attributes.as_ref().and_then(|a| a.get("profile")).and_then(|x| x.string.as_deref()) == Some(p.name.as_str())
            });
            if let Some(d) = first {
                allocated.insert(DeviceId { driver: DRIVER.into(), pool: NODE.into(), device: d.name.clone() });
            }
        }
        let whole = claim("whole", "gpu.nvidia.com", 1, None, None);
        let alloc = Allocator { features: features(v), classes, slices, allocated: &allocated, consumed: &[], compiled: &[], index: None };
        let fits = matches!(alloc.allocate(&node(), &[&whole]), Ok(Some(_)));
        let ko = self.lang == Lang::Ko;
        match (partitionable, fits, ko) {
            (true, false, false) => format!("MIG from counters: the scheduler picks each partition from the GPU's free memory slices — no MIG Manager, no drain; with one {} claim on every GPU, a whole-GPU claim does not fit until those claims end.", p.name),
            (true, false, true) => format!("카운터로 나눈 MIG: 스케줄러가 GPU의 빈 메모리 슬라이스에서 클레임마다 파티션을 고릅니다 — MIG Manager도 drain도 필요 없습니다. 모든 GPU에 {} 클레임이 하나씩 있으면, 그 클레임들이 끝날 때까지 GPU 전체 클레임은 들어가지 않습니다.", p.name),
            (false, false, false) => "Static MIG devices: the slices hold only the MIG devices of the geometry MIG Manager made, so a whole-GPU claim finds no device; another geometry needs MIG Manager and a drain, then the driver republishes.".to_string(),
            (false, false, true) => "고정 MIG 장치: 슬라이스에는 MIG Manager가 만든 구성의 MIG 장치만 있어 GPU 전체 클레임은 장치를 찾지 못합니다. 다른 구성은 MIG Manager와 drain이 필요하고, 그다음 드라이버가 다시 게시합니다.".to_string(),
            (_, true, false) => format!("With one {} claim on every GPU, a whole-GPU claim still fits.", p.name),
            (_, true, true) => format!("모든 GPU에 {} 클레임이 하나씩 있어도 GPU 전체 클레임이 들어갑니다.", p.name),
        }
    }

    /// One claim with the driver's sharing config, named by several pods: the
    /// claims that fit a node, each through the kubelet's prepare (the driver's
    /// strict decoding), and the pods one claim serves.
    fn shared(&self, path: DraPath) -> SlotRow {
        let v = self.req.version;
        let r = self.req.replicas.max(1);
        let memory_mib = self.req.model.memory_mib;
        let sharing = match &path {
            DraPath::TimeSlicingReplicas { replicas } => {
                serde_json::json!({ "strategy": "TimeSlicing", "timeSlicingConfig": { "replicas": replicas } })
            }
            DraPath::Mps { .. } => {
                let mut mps = serde_json::Map::new();
                mps.insert("defaultActiveThreadPercentage".into(), (100 / r).into());
                if let Some(m) = memory_mib {
                    mps.insert("defaultPinnedDeviceMemoryLimit".into(), format!("{}Mi", m / u64::from(r)).into());
                }
                serde_json::json!({ "strategy": "MPS", "mpsConfig": mps })
            }
            _ => serde_json::json!({ "strategy": "TimeSlicing", "timeSlicingConfig": { "interval": "Default" } }),
        };
        let config = gpu_config(sharing);
        let slices = match self.slices(Mig::Disabled) {
            Ok(s) => s,
            Err(e) => return error_row(path, self.lang, e),
        };
        let classes = nvidia::device_classes();
        let done = match fill(v, &slices, &classes, &|i| claim(&format!("shared-{i}"), "gpu.nvidia.com", 1, None, Some(config.clone()))) {
            Ok(d) => d,
            Err(e) => return error_row(path, self.lang, e),
        };
        // The kubelet prepares the first claim for its first pod.
        if let Some(first) = done.first() {
            if let Err(e) = kubelet::prepare(&[first], &|_| true, &|_, c| kubelet::nvidia_prepare(c)) {
                let mut row = error_row(path, self.lang, format!("{} {e}", kubelet::FAILED_PREPARE_DYNAMIC_RESOURCES));
                row.resources = offered(&slices, "gpu.nvidia.com");
                return row;
            }
        }
        let resources = offered(&slices, "gpu.nvidia.com");
        let two = "n/a";
        match path {
            DraPath::Mps { .. } => {
                let clients = self.req.model.compute_capability.map_or(RESERVED_FOR_MAX_SIZE as u64, |cc| cc.mps_max_clients());
                let pods = clients.min(RESERVED_FOR_MAX_SIZE as u64);
                let memory = memory_mib.map(|m| m / u64::from(r));
                self.row(path, resources, done.len(), pods, memory, ("mps-threads", format!("{}%", 100 / r)), "mps-limits", two)
            }
            _ => self.row(path, resources, done.len(), RESERVED_FOR_MAX_SIZE as u64, Some(0), ("time-share", String::new()), "none", two),
        }
    }

    /// The driver's `--consumable-shares=N` (N = replicas): a claim per pod, one
    /// share each. With DRAConsumableCapacity off the API server drops
    /// `allowMultipleAllocations` and the policies: the slices are the plain ones.
    fn consumable(&self, gate_on: bool) -> SlotRow {
        let n = self.req.replicas.max(1);
        let path = DraPath::ConsumableShares { shares: n, gate_on };
        let v = self.req.version;
        let mut slices = match nvidia::resource_slices(&self.gpus(Mig::Disabled), None, self.catalog) {
            Ok(s) => s,
            Err(e) => return error_row(path, self.lang, e),
        };
        if gate_on {
            nvidia::with_consumable_shares(&mut slices, ConsumableShares::Shares(n));
        }
        let slices: Vec<Slice> = slices.into_iter().map(Slice::new).collect();
        let classes = nvidia::device_classes();
        match fill(v, &slices, &classes, &|i| claim(&format!("share-{i}"), "gpu.nvidia.com", 1, None, None)) {
            Ok(done) => {
                let two = request_two(v, &slices, &classes, claim("two", "gpu.nvidia.com", 2, None, None));
                let (memory, compute, isolation) = if gate_on {
                    (Some(0), ("time-share", String::new()), "none")
                } else {
                    (self.req.model.memory_mib, ("whole-gpu", String::new()), "exclusive")
                };
                self.row(path, offered(&slices, "gpu.nvidia.com"), done.len(), 1, memory, compute, isolation, two)
            }
            Err(e) => error_row(path, self.lang, e),
        }
    }
}

/// The notes under the rows: the version and its gates, how a claim is shared,
/// the trap, consumable capacity.
fn notes(req: &Request<'_>, partitionable: bool, consumable: bool, lang: Lang) -> Vec<String> {
    let v = req.version;
    let on_off = |on: bool| match (on, lang) {
        (true, Lang::En) => "beta, on",
        (false, Lang::En) => "alpha, off",
        (true, Lang::Ko) => "베타, 켜짐",
        (false, Lang::Ko) => "알파, 꺼짐",
    };
    let reserved = RESERVED_FOR_MAX_SIZE;
    match lang {
        Lang::En => vec![
            format!(
                "DRA rows: Kubernetes {v} with NVIDIA's DRA driver (gpu.nvidia.com); DRAPartitionableDevices {}, DRAConsumableCapacity {}. Each number is the structured allocator's, claim after claim on one node.",
                on_off(partitionable),
                on_off(consumable)
            ),
            format!("A ResourceClaimTemplate gives every pod its own claim and device; one ResourceClaim named by several pods (resourceClaimName) is shared by them — at most {reserved} pods (reservedFor), and with MPS the MPS server's client limit."),
            "DRA time-slicing has no replicas: the driver decodes its GpuConfig strictly, and how many pods share the GPU is how many name the claim.".to_string(),
            if consumable {
                "Consumable capacity: the driver's --consumable-shares=N (its ConsumableShares gate, alpha) publishes each GPU with allowMultipleAllocations and N shares; each claim takes one. Capacity is scheduling accounting, not isolation.".to_string()
            } else {
                format!("Consumable capacity: DRAConsumableCapacity is alpha and off in Kubernetes {v} (on from 1.36): the API server drops allowMultipleAllocations and capacity requests, so each claim gets a whole GPU.")
            },
        ],
        Lang::Ko => vec![
            format!(
                "DRA 행: Kubernetes {v}, NVIDIA DRA 드라이버(gpu.nvidia.com). DRAPartitionableDevices {}, DRAConsumableCapacity {}. 모든 수는 구조화 할당기가 한 노드에 클레임을 하나씩 할당해 얻은 값입니다.",
                on_off(partitionable),
                on_off(consumable)
            ),
            format!("ResourceClaimTemplate은 파드마다 자기 클레임과 장치를 줍니다. 여러 파드가 이름으로 가리키는(resourceClaimName) ResourceClaim 하나는 그 파드들이 공유합니다 — 최대 {reserved}개 파드(reservedFor), MPS라면 MPS 서버의 클라이언트 상한까지."),
            "DRA 타임 슬라이싱에는 replicas가 없습니다: 드라이버는 GpuConfig를 엄격하게 디코딩하고, GPU를 공유하는 파드 수는 그 클레임을 가리키는 파드 수입니다.".to_string(),
            if consumable {
                "Consumable capacity: 드라이버의 --consumable-shares=N(드라이버의 ConsumableShares 게이트, 알파)은 각 GPU를 allowMultipleAllocations와 shares N개로 게시하고, 클레임마다 하나를 씁니다. 용량은 스케줄링 회계일 뿐 격리가 아닙니다.".to_string()
            } else {
                format!("Consumable capacity: Kubernetes {v}에서 DRAConsumableCapacity는 알파이고 꺼져 있습니다(1.36부터 켜짐). API 서버가 allowMultipleAllocations와 용량 요청을 지우므로 클레임마다 GPU 전체를 받습니다.")
            },
        ],
    }
}
