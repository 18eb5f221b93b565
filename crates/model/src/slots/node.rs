//! What one node advertises under a device-plugin config: the plugin's device map and
//! replicas (`internal/rm/device_map.go`), the GFD labels (`internal/lm`), the MPS daemon's
//! limits, and whether the plugin serves at all. The Kubernetes model takes its node status
//! from here ([`NodeAdvertisement::node_capacity`]), so there is one source of truth.
//!
//! Rules, all from k8s-device-plugin v0.20.0 as the spec describes them:
//! - count per resource = devices × replicas; a replicated entry whose resource has no device
//!   on the node is skipped silently; `renameByDefault` advertises `<name>.shared`;
//! - `migStrategy: none` advertises a MIG-enabled GPU as one full GPU; `single` advertises every
//!   MIG device as `nvidia.com/gpu` and needs one uniform profile; `mixed` advertises
//!   `nvidia.com/mig-<profile>` and keeps full GPUs as `nvidia.com/gpu`;
//! - label keys keep the original resource name (`nvidia.com/gpu.*` even when renamed);
//!   `-SHARED` is appended to the product when replicated and not renamed;
//! - MPS refuses MIG devices, and the MPS daemon refuses more replicas than the GPU has
//!   clients (48 from CC 7.5, else 16), in which case the plugin waits and advertises nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config::{
    effective_flags, validate_flags, Deployment, DevicePluginConfig, MigStrategy, SharingStrategy, FLAGS_ERROR_PREFIX,
};
use super::gpu::GpuModel;
use super::mig::{mixed_resource_name, Geometry, MigCatalog};
use super::version::PluginVersion;
use crate::diagnostic::{Diagnostic, Severity};

/// The plugin's log line when a replicated MPS resource sits on MIG devices (wrapping read in
/// `main.go` → `GetPlugins` → `plugin.New` → `getMPSOptions`).
pub const MPS_MIG_ERROR: &str =
    "error starting plugins: error getting plugins: unable to create plugins: failed to create plugin: sharing using MPS is not supported for MIG devices";
/// Prefix of a device-map error (`plugin.New` → `rm.NewNVMLResourceManagers` → `deviceMapBuilder.build`).
pub const DEVICE_MAP_ERROR_PREFIX: &str = "error starting plugins: error getting plugins: unable to create plugins: failed to construct resource managers: error building device map: error building device map from config.resources: ";
/// What the plugin logs while the MPS daemon is not healthy.
pub const RETRY_MESSAGE: &str = "Failed to start one or more plugins. Retrying in 30s...";
/// What GFD logs when the MPS labeler meets a MIG-enabled GPU.
pub const GFD_MPS_MIG_ERROR: &str =
    "error creating sharing labeler: failed to check MPS-capable: MPS sharing is not supported for mig devices";
/// Above this many devices per resource on one node the model warns: the plugin lists one
/// device ID per replica in every ListAndWatch response.
pub const HUGE_DEVICE_COUNT: u64 = 10_000;

/// A node's GPUs: one model, and per physical GPU its MIG geometry (`None` = MIG disabled).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSpec {
    pub name: String,
    pub model: GpuModel,
    pub gpus: Vec<Option<Geometry>>,
    /// `nvidia.com/mig.config` as MIG Manager applied it (e.g. `all-balanced`).
    #[serde(default)]
    pub mig_config: Option<String>,
}

impl NodeSpec {
    /// `count` identical GPUs, all with the same MIG geometry (or none).
    pub fn uniform(name: impl Into<String>, model: GpuModel, count: u32, mig: Option<Geometry>) -> Self {
        NodeSpec { name: name.into(), model, gpus: vec![mig; count as usize], mig_config: None }
    }

    fn physical(&self) -> u64 {
        self.gpus.len() as u64
    }
}

/// Whether the plugin serves its resources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum PluginState {
    Serving,
    /// The process exits (the container restarts: CrashLoopBackOff).
    Exited {
        error: String,
    },
    /// The process keeps running and retries, serving nothing (e.g. MPS daemon unhealthy).
    Waiting {
        error: String,
        retry: String,
    },
    /// No GPU on the node: "No devices found. Waiting indefinitely."
    NoDevices,
}

/// What backs a resource's devices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Backing {
    FullGpu,
    Mig { profile: String },
}

/// One extended resource the plugin serves (or would serve).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdvertisedResource {
    /// As advertised (`nvidia.com/gpu.shared` when renamed).
    pub name: String,
    /// Before renaming (the label prefix).
    pub base_name: String,
    pub backing: Backing,
    /// Devices behind it on the node: physical GPUs, or MIG devices.
    pub devices: u64,
    /// Those devices per physical GPU they sit on.
    pub devices_per_gpu: u64,
    pub replicas: u64,
    /// devices × replicas.
    pub count: u64,
    pub sharing: SharingStrategy,
    /// Memory one seat is guaranteed, MiB (see [`guaranteed_memory_mib`]); `None` = not known.
    pub guaranteed_memory_mib: Option<u64>,
    /// Whether Allocate refuses a request for more than one of it.
    pub fail_requests_greater_than_one: bool,
}

/// What the MPS control daemon sets per GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MpsSettings {
    /// `set_default_device_pinned_mem_limit <i> <N>M`, i.e. ⌊⌊bytes / replicas⌋ / 2^20⌋.
    pub pinned_mem_limit_mib: Option<u64>,
    /// `set_default_active_thread_percentage <100 / replicas>`.
    pub active_thread_percentage: u64,
    pub compute_mode: String,
    pub max_clients: Option<u64>,
}

impl MpsSettings {
    /// The argument as the daemon passes it, e.g. `8155M`.
    pub fn pinned_mem_limit_arg(&self) -> Option<String> {
        self.pinned_mem_limit_mib.map(|m| format!("{m}M"))
    }
}

/// Everything one node shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeAdvertisement {
    pub node: String,
    pub physical_gpus: u64,
    pub plugin: PluginState,
    /// Extended resources in node capacity (= allocatable): only while the plugin serves.
    pub resources: BTreeMap<String, u64>,
    /// GFD and operator labels.
    pub labels: BTreeMap<String, String>,
    /// GFD's own failure, if its labeler fails.
    pub gfd_error: Option<String>,
    /// The resources the config asks for, served or not.
    pub planned: Vec<AdvertisedResource>,
    pub mps: Option<MpsSettings>,
    pub diagnostics: Vec<Diagnostic>,
}

impl NodeAdvertisement {
    /// Node capacity as kubelet shows it: a device-plugin resource registered before and no
    /// longer served stays at 0 instead of disappearing (`nodestatus` setter).
    pub fn node_capacity(&self, previously_registered: &[&str]) -> BTreeMap<String, u64> {
        let mut cap = self.resources.clone();
        for r in previously_registered {
            cap.entry((*r).to_string()).or_insert(0);
        }
        cap
    }

    /// Seats actually schedulable on this node (sum of served counts).
    pub fn seats(&self) -> u64 {
        self.resources.values().sum()
    }

    /// Seats per physical GPU, when they divide evenly.
    pub fn seats_per_physical_gpu(&self) -> Option<u64> {
        let gpus = self.physical_gpus;
        let seats = self.seats();
        (gpus > 0 && seats.is_multiple_of(gpus)).then(|| seats / gpus)
    }

    /// The served resource by name.
    pub fn resource(&self, name: &str) -> Option<&AdvertisedResource> {
        if !self.resources.contains_key(name) {
            return None;
        }
        self.planned.iter().find(|r| r.name == name)
    }
}

/// Memory one seat is guaranteed: the whole GPU or MIG instance when not shared, 0 with
/// time-slicing (no memory isolation), the MPS per-client pinned-memory cap with MPS.
pub fn guaranteed_memory_mib(device_memory_mib: Option<u64>, sharing: SharingStrategy, replicas: u64) -> Option<u64> {
    match sharing {
        SharingStrategy::TimeSlicing => Some(0),
        SharingStrategy::None => device_memory_mib,
        SharingStrategy::Mps => device_memory_mib.map(|m| mps_pinned_limit_mib(m, replicas)),
    }
}

/// `totalMemoryBytes / replicas / 1024 / 1024` with Go's integer division.
pub fn mps_pinned_limit_mib(memory_mib: u64, replicas: u64) -> u64 {
    let bytes = u128::from(memory_mib) * 1024 * 1024;
    let per = bytes / u128::from(replicas.max(1));
    u64::try_from(per / 1024 / 1024).unwrap_or(u64::MAX)
}

/// A device-map entry before replicas.
struct MapEntry {
    name: String,
    backing: Backing,
    devices: u64,
    per_gpu: u64,
    memory_mib: Option<u64>,
}

/// Computes what `node` advertises under `config`.
pub fn advertise(
    node: &NodeSpec,
    config: &DevicePluginConfig,
    deployment: &Deployment,
    version: PluginVersion,
    catalog: &MigCatalog,
) -> NodeAdvertisement {
    let mut out = NodeAdvertisement {
        node: node.name.clone(),
        physical_gpus: node.physical(),
        plugin: PluginState::Serving,
        resources: BTreeMap::new(),
        labels: BTreeMap::new(),
        gfd_error: None,
        planned: Vec::new(),
        mps: None,
        diagnostics: Vec::new(),
    };
    operator_labels(node, &mut out.labels);
    let flags = effective_flags(config, deployment);
    let strategy = MigStrategy::parse(&flags.mig_strategy);
    let sharing = config.sharing.strategy();
    let mig_gpu = catalog.find(&node.model.name);

    // GFD labels do not depend on the plugin serving.
    match strategy {
        Some(s) => gfd_labels(node, config, s, catalog, &mut out),
        None => out.gfd_error = Some(format!("unknown MIG strategy: {}", flags.mig_strategy)),
    }

    if let Some(msg) = validate_flags(config, &flags, version) {
        out.plugin = PluginState::Exited { error: format!("{FLAGS_ERROR_PREFIX}{msg}") };
        out.diagnostics.push(Diagnostic::new("nvidia-plugin-flags-invalid", Severity::Fatal).arg("message", msg));
        return out;
    }
    let strategy = strategy.unwrap_or(MigStrategy::None);

    // The device map.
    let entries = match device_map(node, strategy, mig_gpu, &mut out.diagnostics) {
        Ok(e) => e,
        Err(msg) => {
            out.plugin = PluginState::Exited { error: format!("{DEVICE_MAP_ERROR_PREFIX}{msg}") };
            out.diagnostics.push(Diagnostic::new("nvidia-plugin-mig-invalid", Severity::Fatal).arg("message", msg));
            return out;
        }
    };
    let mut fail_default = false;
    if let Some(rr) = config.sharing.replicated() {
        fail_default = rr.fail_requests_greater_than_one.unwrap_or(false);
    }
    for e in entries {
        let replication = config.sharing.replication_for(&e.name);
        // A resource listed twice gets replica IDs `<id>::0…` from each entry; they coincide,
        // so the device ends up with the larger count.
        let most = config
            .sharing
            .replicated()
            .map(|rr| rr.resources.iter().filter(|r| r.name == e.name).map(|r| r.replicas).max().unwrap_or(0))
            .unwrap_or(0);
        let (advertised, replicas, share) = match replication {
            Some(r) if r.replicas > 1 => {
                (r.advertised_name().to_string(), u64::try_from(most.max(r.replicas)).unwrap_or(u64::MAX), sharing)
            }
            _ => (e.name.clone(), 1, SharingStrategy::None),
        };
        let Some(count) = e.devices.checked_mul(replicas) else {
            out.diagnostics.push(
                Diagnostic::new("nvidia-replicas-overflow", Severity::Error)
                    .arg("resource", &advertised)
                    .arg("devices", e.devices)
                    .arg("replicas", replicas),
            );
            continue;
        };
        if count > HUGE_DEVICE_COUNT {
            out.diagnostics.push(
                Diagnostic::new("nvidia-replicas-huge", Severity::Warning)
                    .arg("resource", &advertised)
                    .arg("count", count),
            );
        }
        out.planned.push(AdvertisedResource {
            name: advertised,
            base_name: e.name.clone(),
            backing: e.backing,
            devices: e.devices,
            devices_per_gpu: e.per_gpu,
            replicas,
            count,
            sharing: share,
            guaranteed_memory_mib: guaranteed_memory_mib(e.memory_mib, share, replicas),
            fail_requests_greater_than_one: share != SharingStrategy::None && fail_default,
        });
    }
    for name in &config.sharing.replicated().map(|r| r.resources.clone()).unwrap_or_default() {
        if !out.planned.iter().any(|p| p.base_name == name.name) {
            out.diagnostics
                .push(Diagnostic::new("nvidia-replicated-resource-absent", Severity::Info).arg("resource", &name.name));
        }
    }

    if node.gpus.is_empty() {
        out.plugin = PluginState::NoDevices;
        return out;
    }

    if sharing == SharingStrategy::Mps {
        if out.planned.iter().any(|p| p.sharing == SharingStrategy::Mps && matches!(p.backing, Backing::Mig { .. })) {
            out.plugin = PluginState::Exited { error: MPS_MIG_ERROR.into() };
            out.diagnostics.push(Diagnostic::new("nvidia-mps-mig", Severity::Fatal));
            return out;
        }
        let shared: Vec<&AdvertisedResource> =
            out.planned.iter().filter(|p| p.sharing == SharingStrategy::Mps).collect();
        if let Some(first) = shared.first() {
            let cc = node.model.compute_capability;
            let max = cc.map(|c| c.mps_max_clients());
            out.mps = Some(MpsSettings {
                pinned_mem_limit_mib: node.model.memory_mib.map(|m| mps_pinned_limit_mib(m, first.replicas)),
                active_thread_percentage: 100 / first.replicas.max(1),
                compute_mode: "EXCLUSIVE_PROCESS".into(),
                max_clients: max,
            });
            match max {
                Some(max) => {
                    if let Some(over) = shared.iter().find(|p| p.replicas > max) {
                        let error = format!(
                            "error starting plugins: error getting daemons: invalid MPS configuration: invalid device maximum allowed replicas exceeded: {} > {max}",
                            over.replicas
                        );
                        out.diagnostics.push(
                            Diagnostic::new("nvidia-mps-too-many-replicas", Severity::Error)
                                .arg("replicas", over.replicas)
                                .arg("max", max),
                        );
                        out.plugin = PluginState::Waiting { error, retry: RETRY_MESSAGE.into() };
                        return out;
                    }
                }
                None => out
                    .diagnostics
                    .push(Diagnostic::new("nvidia-mps-limit-unknown", Severity::Info).arg("model", &node.model.name)),
            }
        }
    }

    for p in &out.planned {
        if p.count > 0 {
            *out.resources.entry(p.name.clone()).or_insert(0) += p.count;
        }
    }
    out
}

/// `nvidia.com/gpu.present` and, when MIG Manager applied a config, `mig.config(.state)`.
fn operator_labels(node: &NodeSpec, labels: &mut BTreeMap<String, String>) {
    if node.gpus.is_empty() {
        return;
    }
    labels.insert("nvidia.com/gpu.present".into(), "true".into());
    if let Some(c) = &node.mig_config {
        labels.insert("nvidia.com/mig.config".into(), c.clone());
        labels.insert("nvidia.com/mig.config.state".into(), "success".into());
    }
}

/// The plugin's device map under a MIG strategy, before replicas.
fn device_map(
    node: &NodeSpec,
    strategy: MigStrategy,
    mig_gpu: Option<&super::mig::MigGpu>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Vec<MapEntry>, String> {
    let n = node.physical();
    let full = |count: u64| MapEntry {
        name: "nvidia.com/gpu".into(),
        backing: Backing::FullGpu,
        devices: count,
        per_gpu: 1,
        memory_mib: node.model.memory_mib,
    };
    if strategy == MigStrategy::None {
        return Ok(if n > 0 { vec![full(n)] } else { Vec::new() });
    }
    let non_mig = node.gpus.iter().filter(|g| g.is_none()).count() as u64;
    let mut per_profile: BTreeMap<String, (u64, u64)> = BTreeMap::new(); // profile -> (devices, per gpu)
    for (i, g) in node.gpus.iter().enumerate() {
        let Some(g) = g else { continue };
        // `single` refuses a MIG-enabled GPU without instances; `mixed` only logs a warning
        // (and the GPU serves nothing).
        if g.instances() == 0 && strategy == MigStrategy::Single {
            return Err(format!(
                "invalid MIG configuration: at least one device with migEnabled=true was not configured correctly: error visiting device: device {i} has no MIG devices configured"
            ));
        }
        if g.instances() == 0 {
            diagnostics.push(
                Diagnostic::new("nvidia-mig-device-empty", Severity::Warning)
                    .arg("message", format!("device {i} has no MIG devices configured")),
            );
        }
        for (p, c) in g.0.iter().filter(|(_, c)| **c > 0) {
            let e = per_profile.entry(p.clone()).or_insert((0, 0));
            e.0 += u64::from(*c);
            e.1 = e.1.max(u64::from(*c));
        }
    }
    if strategy == MigStrategy::Single {
        if per_profile.len() > 1 {
            // go-nvlib's visitors wrap the callback's error (derived, not observed).
            return Err(
                "invalid MIG configuration: error visiting device: error visiting MIG device: more than one MIG device type present on node".into(),
            );
        }
        if non_mig > 0 && !per_profile.is_empty() {
            return Err("all devices on the node must be configured with the same migEnabled value".into());
        }
    }
    let mut out = Vec::new();
    if non_mig > 0 {
        out.push(full(non_mig));
    }
    for (p, (devices, per_gpu)) in per_profile {
        let name = if strategy == MigStrategy::Single { "nvidia.com/gpu".to_string() } else { mixed_resource_name(&p) };
        let memory_mib = mig_gpu.and_then(|g| g.profile(&p)).and_then(|pr| pr.memory_mib);
        out.push(MapEntry { name, backing: Backing::Mig { profile: p }, devices, per_gpu, memory_mib });
    }
    Ok(out)
}

/// GFD's labels (`internal/lm`): the full-GPU labeler, the MIG labelers, the strategy labels.
fn gfd_labels(
    node: &NodeSpec,
    config: &DevicePluginConfig,
    strategy: MigStrategy,
    catalog: &MigCatalog,
    out: &mut NodeAdvertisement,
) {
    if node.gpus.is_empty() {
        return;
    }
    let model = &node.model;
    let any_mig = node.gpus.iter().any(Option::is_some);
    let sharing = config.sharing.strategy();
    if sharing == SharingStrategy::Mps && any_mig {
        out.gfd_error = Some(GFD_MPS_MIG_ERROR.into());
        return;
    }
    let labels = &mut out.labels;
    labels.insert("nvidia.com/mig.capable".into(), model.mig_capable.to_string());
    labels.insert("nvidia.com/mps.capable".into(), (sharing == SharingStrategy::Mps).to_string());
    if strategy != MigStrategy::None {
        labels.insert("nvidia.com/mig.strategy".into(), strategy.as_str().into());
    }
    let product = model.product();
    let mig_gpu = catalog.find(&model.name);

    // A resource labeler: product/count/replicas/sharing-strategy under `key`.
    let base = |labels: &mut BTreeMap<String, String>, key: &str, parts: &str, count: u64, with_sharing: bool| {
        let rep = if with_sharing { config.sharing.replication_for(key).filter(|r| r.replicas > 1) } else { None };
        let shared = rep.is_some();
        let renamed = rep.is_some_and(|r| r.rename.is_some());
        let mut product = parts.to_string();
        if shared && !renamed {
            product.push_str("-SHARED");
        }
        labels.insert(format!("{key}.product"), product);
        labels.insert(format!("{key}.count"), count.to_string());
        let replicas = match rep {
            Some(r) => r.replicas.to_string(),
            None if with_sharing => "1".into(),
            None => "0".into(),
        };
        labels.insert(format!("{key}.replicas"), replicas);
        let strat = if shared { sharing.as_str() } else { "none" };
        labels.insert(format!("{key}.sharing-strategy"), strat.into());
    };
    let full_gpu = |labels: &mut BTreeMap<String, String>, with_sharing: bool| {
        base(labels, "nvidia.com/gpu", &product, node.physical(), with_sharing);
        if let Some(m) = model.memory_mib.filter(|m| *m > 0) {
            labels.insert("nvidia.com/gpu.memory".into(), m.to_string());
        }
        if let Some(cc) = model.compute_capability.filter(|c| c.major > 0) {
            labels.insert("nvidia.com/gpu.family".into(), cc.family().into());
            labels.insert("nvidia.com/gpu.compute.major".into(), cc.major.to_string());
            labels.insert("nvidia.com/gpu.compute.minor".into(), cc.minor.to_string());
        }
    };
    let mig_attrs = |labels: &mut BTreeMap<String, String>, key: &str, profile: &str| {
        let p = mig_gpu.and_then(|g| g.profile(profile));
        if let Some(m) = p.and_then(|p| p.memory_mib) {
            labels.insert(format!("{key}.memory"), m.to_string());
        }
        if let Some(sm) = p.and_then(|p| p.multiprocessors) {
            labels.insert(format!("{key}.multiprocessors"), sm.to_string());
        }
        let slices = p.map(|p| p.compute_slices).or_else(|| profile.split('g').next().and_then(|s| s.parse().ok()));
        if let Some(s) = slices {
            labels.insert(format!("{key}.slices.gi"), s.to_string());
            labels.insert(format!("{key}.slices.ci"), s.to_string());
        }
    };
    let mig_product = |profile: &str| super::gpu::sanitise_product(&format!("{} MIG {}", model.name, profile));

    // The full-GPU labeler runs under every strategy (`newGPULabelers`): MIG-enabled GPUs are
    // labelled without sharing (replicas 0), and a GPU without MIG overrides that with sharing.
    // The count is every GPU of the model.
    let any_full = node.gpus.iter().any(Option::is_none);
    full_gpu(labels, any_full);

    match strategy {
        MigStrategy::None => {}
        MigStrategy::Single => {
            if !any_mig {
                // No MIG-enabled GPU: the same as `none` (plus the strategy label).
                return;
            }
            let profiles: Vec<&String> = {
                let mut v: Vec<&String> = node
                    .gpus
                    .iter()
                    .flatten()
                    .flat_map(|g| g.0.iter().filter(|(_, c)| **c > 0).map(|(p, _)| p))
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            // GFD checks in this order: an empty MIG-enabled GPU, a mix of MIG and full GPUs,
            // more than one profile; each gives the `-MIG-INVALID` labels.
            let invalid = node.gpus.iter().flatten().any(|g| g.instances() == 0) || any_full || profiles.len() != 1;
            match profiles.first() {
                Some(profile) if !invalid => {
                    let count: u64 = node.gpus.iter().flatten().map(Geometry::instances).sum();
                    // The MIG labeler overrides the full-GPU keys it writes; a MIG memory we do
                    // not know must not leave the whole GPU's memory behind.
                    labels.remove("nvidia.com/gpu.memory");
                    base(labels, "nvidia.com/gpu", &mig_product(profile), count, true);
                    mig_attrs(labels, "nvidia.com/gpu", profile);
                }
                _ => {
                    labels.insert("nvidia.com/gpu.product".into(), format!("{product}-MIG-INVALID"));
                    labels.insert("nvidia.com/gpu.count".into(), "0".into());
                    labels.insert("nvidia.com/gpu.replicas".into(), "0".into());
                    labels.insert("nvidia.com/gpu.memory".into(), "0".into());
                }
            }
        }
        MigStrategy::Mixed => {
            // MIG-enabled GPUs with no instances are ignored here.
            let mut per_profile: BTreeMap<&String, u64> = BTreeMap::new();
            for g in node.gpus.iter().flatten() {
                for (p, c) in g.0.iter().filter(|(_, c)| **c > 0) {
                    *per_profile.entry(p).or_insert(0) += u64::from(*c);
                }
            }
            for (p, count) in per_profile {
                let key = mixed_resource_name(p);
                base(labels, &key, &mig_product(p), count, true);
                mig_attrs(labels, &key, p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::config::load;
    use crate::slots::gpu::ComputeCapability;

    fn h100() -> GpuModel {
        GpuModel {
            name: "NVIDIA H100 80GB HBM3".into(),
            memory_mib: Some(81559),
            compute_capability: ComputeCapability::parse("9.0"),
            mig_capable: true,
        }
    }

    fn run(config: &str, node: &NodeSpec) -> NodeAdvertisement {
        let loaded = load("c.yaml", config, PluginVersion::REFERENCE);
        let cfg = loaded.config.unwrap();
        advertise(node, &cfg, &Deployment::default(), PluginVersion::REFERENCE, &MigCatalog::embedded().unwrap())
    }

    /// README: 8 GPUs × replicas 10 → `nvidia.com/gpu: 80`, product `-SHARED`, 0 MiB per seat.
    #[test]
    fn time_slicing_multiplies_seats_not_memory() {
        let ad = run(
            "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n",
            &NodeSpec::uniform("n", h100(), 8, None),
        );
        assert_eq!(ad.resources.get("nvidia.com/gpu"), Some(&80));
        assert_eq!(ad.labels.get("nvidia.com/gpu.product").map(String::as_str), Some("NVIDIA-H100-80GB-HBM3-SHARED"));
        assert_eq!(ad.seats_per_physical_gpu(), Some(10));
        assert_eq!(ad.planned[0].guaranteed_memory_mib, Some(0));
    }

    /// MPS caps each client at ⌊81559 / 10⌋ = 8155 MiB and 10 % of the threads.
    #[test]
    fn mps_caps_memory_per_client() {
        let ad = run(
            "sharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n",
            &NodeSpec::uniform("n", h100(), 8, None),
        );
        let mps = ad.mps.unwrap();
        assert_eq!(mps.pinned_mem_limit_arg().as_deref(), Some("8155M"));
        assert_eq!(mps.active_thread_percentage, 10);
        assert_eq!(ad.planned[0].guaranteed_memory_mib, Some(8155));
    }

    /// A previously registered resource that is renamed away stays in capacity at 0.
    #[test]
    fn kubelet_keeps_vanished_resources_at_zero() {
        let ad = run("sharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: gpu\n      replicas: 10\n", &NodeSpec::uniform("n", h100(), 8, None));
        let cap = ad.node_capacity(&["nvidia.com/gpu"]);
        assert_eq!(cap.get("nvidia.com/gpu"), Some(&0));
        assert_eq!(cap.get("nvidia.com/gpu.shared"), Some(&80));
    }

    /// single with two profiles is invalid for the plugin and for GFD.
    #[test]
    fn single_needs_uniform_profiles() {
        let g = Geometry::parse("2x1g.10gb,1x2g.20gb").unwrap();
        let ad = run("flags:\n  migStrategy: single\n", &NodeSpec::uniform("n", h100(), 1, Some(g)));
        assert!(
            matches!(&ad.plugin, PluginState::Exited { error } if error.ends_with("more than one MIG device type present on node"))
        );
        assert_eq!(
            ad.labels.get("nvidia.com/gpu.product").map(String::as_str),
            Some("NVIDIA-H100-80GB-HBM3-MIG-INVALID")
        );
        assert!(ad.resources.is_empty());
    }
}
