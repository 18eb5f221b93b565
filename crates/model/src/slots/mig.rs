//! MIG: the GPU-instance profiles of each GPU model (embedded data, `data/mig-profiles.yaml`)
//! and the geometry planner.
//!
//! A geometry (profile → count on one GPU) is valid when every profile exists on the model,
//! no count exceeds the profile's maximum, the instances fit the model's compute slices and
//! memory slices, and — where NVML placements were read (A100, A30) — there is a placement:
//! each instance on one of its allowed starts, none overlapping. Elsewhere placements were not
//! read, so the planner checks the counts and sums only and says so (`placements_checked`).
//!
//! Changing a geometry is not free: MIG Manager needs the GPUs free of workloads, so the node's
//! GPU pods must be drained first ([`reconfiguration_steps`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::gpu::normalise_name;
use crate::diagnostic::{Diagnostic, Severity};

const MIG_PROFILES_YAML: &str = include_str!("../../data/mig-profiles.yaml");

/// Where NVML lets an instance start, in memory slices, and how many slices it spans.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placements {
    pub starts: Vec<u32>,
    pub size: u32,
}

/// One GPU-instance profile, e.g. `1g.10gb`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigProfile {
    pub name: String,
    /// Nominal, from the name (`1g.10gb` → 10); not the usable memory.
    pub memory_gib: u32,
    pub compute_slices: u32,
    pub max_count: u32,
    #[serde(default)]
    pub media_extensions: bool,
    /// Observed usable memory (GFD `mig-<p>.memory`), when read.
    #[serde(default)]
    pub memory_mib: Option<u64>,
    #[serde(default)]
    pub multiprocessors: Option<u32>,
    #[serde(default)]
    pub gi_profile_id: Option<u32>,
    #[serde(default)]
    pub placements: Option<Placements>,
}

impl MigProfile {
    /// The resource under `migStrategy: mixed`: `nvidia.com/mig-` + name with `+` → `.`.
    pub fn mixed_resource(&self) -> String {
        mixed_resource_name(&self.name)
    }
}

/// `nvidia.com/mig-<profile>` with `+` replaced by `.` (`AddDefaultResourcesToConfig`).
pub fn mixed_resource_name(profile: &str) -> String {
    format!("nvidia.com/mig-{}", profile.replace('+', "."))
}

/// The MIG facts of one GPU model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigGpu {
    /// The catalogue's name for the model, e.g. `H100-80GB`.
    pub model: String,
    /// NVML names and variants this entry matches.
    pub names: Vec<String>,
    #[serde(default)]
    pub pci_device_ids: Vec<String>,
    pub compute_slices: u32,
    pub memory_slices: u32,
    pub max_instances: u32,
    pub placements_known: bool,
    pub all_balanced: BTreeMap<String, u32>,
    pub profiles: Vec<MigProfile>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub placements_note: Option<String>,
    #[serde(default)]
    pub sources: Vec<String>,
}

impl MigGpu {
    /// A profile by name; `1g.10gb.me` (resource spelling) finds `1g.10gb+me`.
    pub fn profile(&self, name: &str) -> Option<&MigProfile> {
        self.profiles.iter().find(|p| p.name == name || p.name.replace('+', ".") == name)
    }

    /// Nominal memory of the whole GPU: the largest profile's.
    pub fn memory_gib(&self) -> u32 {
        self.profiles.iter().map(|p| p.memory_gib).max().unwrap_or(0)
    }

    /// Memory slices a profile spans: its placement size where read, else its share of the
    /// largest profile's nominal memory, rounded (`3g.47gb` of 94 GB → 4 of 8 slices).
    pub fn memory_slices_of(&self, profile: &MigProfile) -> u32 {
        if let Some(pl) = &profile.placements {
            return pl.size;
        }
        let total = u64::from(self.memory_gib().max(1));
        let share = u64::from(profile.memory_gib) * u64::from(self.memory_slices);
        u32::try_from((share + total / 2) / total).unwrap_or(u32::MAX).max(1)
    }

    /// The layouts mig-parted ships for this GPU: `all-balanced` and `all-<profile>` for each
    /// profile at its maximum count (`+me` profiles as `all-<name with .me>`).
    pub fn named_layouts(&self) -> Vec<(String, Geometry)> {
        let mut out = vec![("all-balanced".to_string(), Geometry(self.all_balanced.clone()))];
        for p in &self.profiles {
            let mut g = BTreeMap::new();
            g.insert(p.name.clone(), p.max_count);
            out.push((format!("all-{}", p.name.replace('+', ".")), Geometry(g)));
        }
        out
    }
}

/// All GPU models with MIG.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MigCatalog {
    pub gpus: Vec<MigGpu>,
}

impl MigCatalog {
    /// The embedded catalogue (`data/mig-profiles.yaml`, derived from the spec).
    pub fn embedded() -> Result<MigCatalog, String> {
        serde_norway::from_str(MIG_PROFILES_YAML).map_err(|e| format!("data/mig-profiles.yaml: {e}"))
    }

    /// The entry for an NVML device name or catalogue model name, if the model has MIG.
    pub fn find(&self, name: &str) -> Option<&MigGpu> {
        let wanted = normalise_name(name);
        self.gpus
            .iter()
            .find(|g| normalise_name(&g.model) == wanted || g.names.iter().any(|n| normalise_name(n) == wanted))
    }
}

/// Instances per GPU by profile name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry(pub BTreeMap<String, u32>);

impl Geometry {
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, u32)>) -> Self {
        let mut map = BTreeMap::new();
        for (p, c) in pairs {
            *map.entry(p.to_string()).or_insert(0) += c;
        }
        Geometry(map)
    }

    /// Parses `2x1g.10gb,1x2g.20gb` or `1g.10gb:2,2g.20gb` (count 1 when omitted).
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut map = BTreeMap::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (profile, count) = if let Some((c, p)) = part
                .split_once(['x', '×', '*'])
                .filter(|(c, _)| c.chars().all(|ch| ch.is_ascii_digit()) && !c.is_empty())
            {
                (p, c.parse::<u32>().map_err(|e| format!("{part}: {e}"))?)
            } else if let Some((p, c)) = part.split_once(':') {
                (p, c.trim().parse::<u32>().map_err(|e| format!("{part}: {e}"))?)
            } else {
                (part, 1)
            };
            let slot: &mut u32 = map.entry(profile.trim().to_string()).or_insert(0);
            *slot = slot.saturating_add(count);
        }
        Ok(Geometry(map))
    }

    /// Instances on one GPU.
    pub fn instances(&self) -> u64 {
        self.0.values().map(|c| u64::from(*c)).sum()
    }
}

impl std::fmt::Display for Geometry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.0.iter().filter(|(_, c)| **c > 0).map(|(p, c)| format!("{c}x{p}")).collect();
        write!(f, "{}", parts.join(" + "))
    }
}

/// Why a geometry does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum GeometryError {
    Empty,
    UnknownProfile { profile: String },
    OverMaxCount { profile: String, count: u32, max: u32 },
    TooManyInstances { count: u64, max: u32 },
    ComputeSlices { used: u64, total: u32 },
    MemorySlices { used: u64, total: u32 },
    NoPlacement,
}

impl GeometryError {
    /// The diagnostic code (message id `diag-<code>`).
    pub fn code(&self) -> &'static str {
        match self {
            GeometryError::Empty => "mig-geometry-empty",
            GeometryError::UnknownProfile { .. } => "mig-geometry-unknown-profile",
            GeometryError::OverMaxCount { .. } => "mig-geometry-over-max-count",
            GeometryError::TooManyInstances { .. } => "mig-geometry-too-many-instances",
            GeometryError::ComputeSlices { .. } => "mig-geometry-compute-slices",
            GeometryError::MemorySlices { .. } => "mig-geometry-memory-slices",
            GeometryError::NoPlacement => "mig-geometry-no-placement",
        }
    }
}

impl std::fmt::Display for GeometryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GeometryError::Empty => {
                write!(f, "no MIG instances: a MIG-enabled GPU with no instances is refused by the device plugin")
            }
            GeometryError::UnknownProfile { profile } => write!(f, "profile {profile} does not exist on this GPU"),
            GeometryError::OverMaxCount { profile, count, max } => {
                write!(f, "{count} x {profile}: at most {max} per GPU")
            }
            GeometryError::TooManyInstances { count, max } => write!(f, "{count} instances: at most {max} per GPU"),
            GeometryError::ComputeSlices { used, total } => write!(f, "{used} compute slices: the GPU has {total}"),
            GeometryError::MemorySlices { used, total } => write!(f, "{used} memory slices: the GPU has {total}"),
            GeometryError::NoPlacement => {
                write!(f, "no placement fits: the instances overlap on the GPU's memory slices")
            }
        }
    }
}

/// The planner's verdict on a geometry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GeometryCheck {
    pub valid: bool,
    pub errors: Vec<GeometryError>,
    /// Whether NVML placements were checked (known only for some models).
    pub placements_checked: bool,
    /// One placement that fits: (profile, start slot), when checked and valid.
    pub placement: Option<Vec<(String, u32)>>,
    /// Warnings that do not make the geometry invalid (e.g. mig-parted's `+me` rule).
    pub warnings: Vec<String>,
}

/// Checks a geometry against a GPU model's profiles.
pub fn check_geometry(gpu: &MigGpu, geometry: &Geometry) -> GeometryCheck {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut instances: Vec<&MigProfile> = Vec::new();
    for (name, count) in geometry.0.iter().filter(|(_, c)| **c > 0) {
        match gpu.profile(name) {
            None => errors.push(GeometryError::UnknownProfile { profile: name.clone() }),
            Some(p) => {
                if *count > p.max_count {
                    errors.push(GeometryError::OverMaxCount {
                        profile: p.name.clone(),
                        count: *count,
                        max: p.max_count,
                    });
                }
                // Bounded: counts beyond the model's instance limit are already an error.
                for _ in 0..(*count).min(gpu.max_instances.saturating_add(1)) {
                    instances.push(p);
                }
            }
        }
    }
    let count = geometry.instances();
    if count == 0 {
        errors.push(GeometryError::Empty);
    }
    if count > u64::from(gpu.max_instances) {
        errors.push(GeometryError::TooManyInstances { count, max: gpu.max_instances });
    }
    let compute: u64 = geometry
        .0
        .iter()
        .filter_map(|(n, c)| gpu.profile(n).map(|p| u64::from(p.compute_slices) * u64::from(*c)))
        .sum();
    if compute > u64::from(gpu.compute_slices) {
        errors.push(GeometryError::ComputeSlices { used: compute, total: gpu.compute_slices });
    }
    let memory: u64 = geometry
        .0
        .iter()
        .filter_map(|(n, c)| gpu.profile(n).map(|p| u64::from(gpu.memory_slices_of(p)) * u64::from(*c)))
        .sum();
    if memory > u64::from(gpu.memory_slices) {
        errors.push(GeometryError::MemorySlices { used: memory, total: gpu.memory_slices });
    }
    let me = instances.iter().any(|p| p.media_extensions);
    let ones = instances.iter().filter(|p| p.compute_slices == 1).count();
    if me && ones > 1 {
        warnings.push(
            "mig-parted's known-config list rejects more than one 1g instance next to a +me profile (pkg/mig/config/known_configs.go)"
                .to_string(),
        );
    }
    let placements_checked = gpu.placements_known && instances.iter().all(|p| p.placements.is_some());
    let mut placement = None;
    if placements_checked && errors.is_empty() {
        placement = place(&instances, gpu.memory_slices);
        if placement.is_none() {
            errors.push(GeometryError::NoPlacement);
        }
    }
    GeometryCheck { valid: errors.is_empty(), errors, placements_checked, placement, warnings }
}

/// Backtracking over allowed starts, biggest instances first; at most 8 slices, 7 instances.
fn place(instances: &[&MigProfile], slices: u32) -> Option<Vec<(String, u32)>> {
    let mut order: Vec<&MigProfile> = instances.to_vec();
    order.sort_by_key(|p| std::cmp::Reverse(p.placements.as_ref().map(|pl| pl.size).unwrap_or(0)));
    let mut chosen = Vec::with_capacity(order.len());
    if fill(&order, 0, slices, &mut chosen) {
        Some(chosen)
    } else {
        None
    }
}

fn fill(order: &[&MigProfile], used: u64, slices: u32, chosen: &mut Vec<(String, u32)>) -> bool {
    let Some((first, rest)) = order.split_first() else { return true };
    let Some(pl) = first.placements.as_ref() else { return false };
    for &start in &pl.starts {
        let end = start.saturating_add(pl.size);
        if end > slices || end > 64 {
            continue;
        }
        let mask = ((1u64 << pl.size) - 1) << start;
        if used & mask != 0 {
            continue;
        }
        chosen.push((first.name.clone(), start));
        if fill(rest, used | mask, slices, chosen) {
            return true;
        }
        chosen.pop();
    }
    false
}

/// The resources a MIG-enabled GPU with `geometry` advertises under a strategy, before
/// replicas: `single` → all `nvidia.com/gpu` (one profile only); `mixed` → one resource per
/// profile. `Err` carries the plugin's text for a non-uniform `single` node.
pub fn resources_for(geometry: &Geometry, strategy: super::config::MigStrategy) -> Result<Vec<(String, u64)>, String> {
    use super::config::MigStrategy;
    let present: Vec<(&String, u64)> =
        geometry.0.iter().filter(|(_, c)| **c > 0).map(|(p, c)| (p, u64::from(*c))).collect();
    match strategy {
        MigStrategy::None => Ok(vec![("nvidia.com/gpu".into(), 1)]),
        MigStrategy::Single => match present.as_slice() {
            [] => Err("at least one MIG device is enabled but empty".into()),
            [(_, c)] => Ok(vec![("nvidia.com/gpu".into(), *c)]),
            _ => Err("more than one MIG device type present on node".into()),
        },
        MigStrategy::Mixed => Ok(present.into_iter().map(|(p, c)| (mixed_resource_name(p), c)).collect()),
    }
}

/// What changing a node's MIG geometry takes, in order, as diagnostics (codes + args): the
/// GPU workloads must go first, because MIG Manager refuses to repartition busy GPUs.
pub fn reconfiguration_steps(node: &str, from: &str, to: &str) -> Vec<Diagnostic> {
    let step = |code: &str| Diagnostic::new(code, Severity::Info).arg("node", node).arg("from", from).arg("to", to);
    vec![
        Diagnostic::new("mig-reconfigure-requires-drain", Severity::Warning)
            .arg("node", node)
            .arg("from", from)
            .arg("to", to)
            .arg("quote", "MIG Manager requires that no user workloads are running on the GPUs being configured."),
        step("mig-reconfigure-cordon-drain")
            .arg("command", format!("kubectl drain {node} --ignore-daemonsets --pod-selector=<gpu workloads>")),
        step("mig-reconfigure-label")
            .arg("command", format!("kubectl label node {node} nvidia.com/mig.config={to} --overwrite")),
        step("mig-reconfigure-paused").arg("label", "nvidia.com/gpu.deploy.device-plugin=paused-for-mig-change"),
        step("mig-reconfigure-state").arg("label", "nvidia.com/mig.config.state=pending → success | failed"),
        step("mig-reconfigure-uncordon").arg("command", format!("kubectl uncordon {node}")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::config::MigStrategy;

    fn catalog() -> MigCatalog {
        MigCatalog::embedded().unwrap()
    }

    fn check(model: &str, text: &str) -> GeometryCheck {
        let c = catalog();
        check_geometry(c.find(model).unwrap(), &Geometry::parse(text).unwrap())
    }

    /// The embedded data has the spec's ten models, and NVML names find them.
    #[test]
    fn catalogue_is_embedded() {
        let c = catalog();
        assert_eq!(c.gpus.len(), 10);
        assert_eq!(c.find("NVIDIA H100 80GB HBM3").unwrap().model, "H100-80GB");
        assert_eq!(c.find("NVIDIA A100-SXM4-40GB").unwrap().model, "A100-40GB");
        assert_eq!(c.find("A30").unwrap().compute_slices, 4);
        assert!(c.find("Tesla T4").is_none());
    }

    /// Classic A100 geometries fit with a real placement.
    #[test]
    fn valid_a100_geometries() {
        for g in [
            "2x1g.5gb,1x2g.10gb,1x3g.20gb",
            "4g.20gb,3g.20gb",
            "2x3g.20gb",
            "3g.20gb,2x2g.10gb",
            "7x1g.5gb",
            "4x1g.10gb",
            "7g.40gb",
            "4g.20gb,3x1g.5gb",
        ] {
            let r = check("A100-SXM4-40GB", g);
            assert!(r.valid && r.placements_checked && r.placement.is_some(), "{g}: {r:?}");
        }
    }

    /// Invalid geometries say why.
    #[test]
    fn invalid_geometries() {
        assert_eq!(
            check("A100-SXM4-40GB", "8x1g.5gb").errors.first(),
            Some(&GeometryError::OverMaxCount { profile: "1g.5gb".into(), count: 8, max: 7 })
        );
        assert!(check("A100-SXM4-40GB", "2x4g.20gb")
            .errors
            .contains(&GeometryError::ComputeSlices { used: 8, total: 7 }));
        assert!(check("A100-SXM4-40GB", "3g.20gb,4g.20gb,1g.5gb")
            .errors
            .iter()
            .any(|e| matches!(e, GeometryError::ComputeSlices { .. })));
        assert!(check("A100-SXM4-40GB", "3x1g.10gb,3g.20gb")
            .errors
            .iter()
            .any(|e| matches!(e, GeometryError::MemorySlices { .. })));
        assert!(check("A100-SXM4-40GB", "1g.5gb+me,1g.5gb").warnings.len() == 1);
        assert!(check("A100-SXM4-40GB", "9g.99gb")
            .errors
            .contains(&GeometryError::UnknownProfile { profile: "9g.99gb".into() }));
        assert!(check("A100-SXM4-40GB", "").errors.contains(&GeometryError::Empty));
        // Models without read placements are checked on counts and sums only.
        let h = check("NVIDIA H100 80GB HBM3", "4x1g.20gb");
        assert!(h.valid && !h.placements_checked);
        assert!(!check("NVIDIA H100 80GB HBM3", "4x1g.20gb,1g.10gb").valid);
    }

    /// single needs one profile; mixed names one resource per profile with `+` as `.`.
    #[test]
    fn strategies_name_resources() {
        let g = Geometry::parse("2x1g.10gb,1g.10gb+me").unwrap();
        assert_eq!(resources_for(&g, MigStrategy::Single), Err("more than one MIG device type present on node".into()));
        assert_eq!(
            resources_for(&g, MigStrategy::Mixed).unwrap(),
            vec![("nvidia.com/mig-1g.10gb".into(), 2), ("nvidia.com/mig-1g.10gb.me".into(), 1)]
        );
    }

    /// Each model's all-balanced and all-<profile> layouts are valid geometries.
    #[test]
    fn shipped_layouts_are_valid() {
        for gpu in &catalog().gpus {
            for (name, g) in gpu.named_layouts() {
                let r = check_geometry(gpu, &g);
                assert!(r.valid, "{} {name}: {r:?}", gpu.model);
            }
        }
    }
}
