//! A GPU model as the plugin and GFD see it through NVML: name, total memory, compute
//! capability, MIG capability; and the few rules that depend on them (the product label,
//! the architecture family, the MPS client limit).

use serde::{Deserialize, Serialize};

/// Compute capability `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ComputeCapability {
    pub major: u32,
    pub minor: u32,
}

impl ComputeCapability {
    /// Parses `9.0`, `7.5`, `10.0`.
    pub fn parse(s: &str) -> Option<Self> {
        let (a, b) = s.trim().split_once('.').unwrap_or((s.trim(), "0"));
        Some(ComputeCapability { major: a.parse().ok()?, minor: b.parse().ok()? })
    }

    /// GFD's `nvidia.com/gpu.family` (`getArchFamily`).
    pub fn family(self) -> &'static str {
        match (self.major, self.minor) {
            (1, _) => "tesla",
            (2, _) => "fermi",
            (3, _) => "kepler",
            (5, _) => "maxwell",
            (6, _) => "pascal",
            (7, m) if m < 5 => "volta",
            (7, _) => "turing",
            (8, m) if m < 9 => "ampere",
            (8, _) => "ada-lovelace",
            (9, _) => "hopper",
            (10, _) | (12, _) => "blackwell",
            _ => "undefined",
        }
    }

    /// Most MPS clients per GPU: 48 from CC 7.5, else 16 (`maxClients()` in the MPS control
    /// daemon; the helper is named `isAtLeastVolta` but compares with 7.5, so a V100 gets 16).
    pub fn mps_max_clients(self) -> u64 {
        if self >= (ComputeCapability { major: 7, minor: 5 }) {
            48
        } else {
            16
        }
    }
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// One GPU model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuModel {
    /// The NVML device name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// NVML total memory in MiB (`nvidia.com/gpu.memory`); `None` when not known.
    pub memory_mib: Option<u64>,
    pub compute_capability: Option<ComputeCapability>,
    pub mig_capable: bool,
}

impl GpuModel {
    /// GFD's product label value for this model (see [`sanitise_product`]).
    pub fn product(&self) -> String {
        sanitise_product(&self.name)
    }

    /// A model from the embedded table of known models, by NVML name (case-insensitive).
    pub fn known(name: &str) -> Result<Option<GpuModel>, String> {
        let wanted = normalise_name(name);
        Ok(GpuModel::all_known()?.into_iter().find(|m| normalise_name(&m.name) == wanted))
    }

    /// Every model of the embedded table, in its order (the app's GPU model picker).
    pub fn all_known() -> Result<Vec<GpuModel>, String> {
        let table: KnownModels =
            serde_norway::from_str(KNOWN_MODELS_YAML).map_err(|e| format!("data/gpu-models.yaml: {e}"))?;
        Ok(table
            .models
            .into_iter()
            .map(|m| GpuModel {
                name: m.name,
                memory_mib: m.memory_mib,
                compute_capability: m.compute_capability.as_deref().and_then(ComputeCapability::parse),
                mig_capable: m.mig_capable,
            })
            .collect())
    }
}

const KNOWN_MODELS_YAML: &str = include_str!("../../data/gpu-models.yaml");

#[derive(Deserialize)]
struct KnownModels {
    models: Vec<KnownModel>,
}

#[derive(Deserialize)]
struct KnownModel {
    name: String,
    #[serde(default)]
    memory_mib: Option<u64>,
    #[serde(default)]
    compute_capability: Option<String>,
    #[serde(default)]
    mig_capable: bool,
}

/// Lower-case, `NVIDIA ` prefix dropped, spaces and underscores as dashes: how names are
/// compared across NVML spellings (`NVIDIA A100-SXM4-40GB` = `A100-SXM4-40GB`).
pub fn normalise_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let lower = lower.strip_prefix("nvidia ").unwrap_or(&lower);
    lower.chars().map(|c| if c == ' ' || c == '_' { '-' } else { c }).collect()
}

/// GFD's product label: characters outside `[A-Za-z0-9-_. ]` dropped, whitespace runs as
/// `-` (`Tesla T4` → `Tesla-T4`, `NVIDIA H100 80GB HBM3` → `NVIDIA-H100-80GB-HBM3`).
pub fn sanitise_product(name: &str) -> String {
    let kept: String =
        name.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ' | '\t')).collect();
    let mut out = String::with_capacity(kept.len());
    let mut in_space = false;
    for c in kept.trim().chars() {
        if c == ' ' || c == '\t' {
            if !in_space {
                out.push('-');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Product labels as the docs show them.
    #[test]
    fn product_labels() {
        assert_eq!(sanitise_product("Tesla T4"), "Tesla-T4");
        assert_eq!(sanitise_product("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3");
        assert_eq!(sanitise_product("NVIDIA A100-SXM4-40GB (rev 2)"), "NVIDIA-A100-SXM4-40GB-rev-2");
    }

    /// Families and the MPS client limit by compute capability (CC 7.0 gets 16).
    #[test]
    fn capability_rules() {
        let cc = |s| ComputeCapability::parse(s).unwrap();
        assert_eq!(cc("9.0").family(), "hopper");
        assert_eq!(cc("7.5").family(), "turing");
        assert_eq!(cc("8.0").family(), "ampere");
        assert_eq!(cc("10.0").family(), "blackwell");
        assert_eq!(cc("7.0").mps_max_clients(), 16);
        assert_eq!(cc("7.5").mps_max_clients(), 48);
    }

    /// The embedded table parses and knows the spec's two pinned memory sizes.
    #[test]
    fn known_models() {
        let h100 = GpuModel::known("nvidia h100 80gb hbm3").unwrap().unwrap();
        assert_eq!(h100.memory_mib, Some(81559));
        assert_eq!(GpuModel::known("Tesla T4").unwrap().unwrap().memory_mib, Some(15360));
        assert_eq!(GpuModel::known("Radeon").unwrap(), None);
        let all = GpuModel::all_known().unwrap();
        assert_eq!(all.first().map(|m| m.name.as_str()), Some("NVIDIA H100 80GB HBM3"));
        assert!(all.iter().any(|m| m.name == "Tesla T4"));
    }
}
