//! The plugin's ConfigMap and per-node config selection: several named configs (one per key),
//! chosen for each node by its `nvidia.com/device-plugin.config` label, as `config-manager`
//! does it (`cmd/config-manager`, ../shared/specs/nvidia.md §2.2–2.3).
//!
//! - label set to a key → that config;
//! - label set to an unknown key → config-manager fails (`specified config <name> does not
//!   exist`) and the plugin keeps the config it had;
//! - label unset → the default (`DEFAULT_CONFIG`), else the fallback strategies in order:
//!   `named` (a key called `default`), `single` (the only key), `empty` (no config at all).
//!   The Helm chart falls back `named, single`; the GPU Operator sets `empty`.
//!
//! Errors inside one key's config are reported at the ConfigMap file's own line and column
//! (the key's block scalar is mapped back), so a learner can find them in what they applied.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config::{load, LoadedConfig};
use super::version::PluginVersion;
use super::yaml::{Locator, PathSeg};
use crate::diagnostic::{Diagnostic, Severity, Span};

/// The node label that selects a config.
pub const CONFIG_LABEL: &str = "nvidia.com/device-plugin.config";

/// A fallback when the node has no label and no default applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// The key named `default`.
    Named,
    /// The only key, if there is exactly one.
    Single,
    /// No config: the plugin's built-in defaults.
    Empty,
}

/// How a deployment picks the config (`config.default`, `config.fallbackStrategies`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    pub default: Option<String>,
    pub fallbacks: Vec<Fallback>,
}

impl Selection {
    /// The Helm chart's defaults: no default key, fall back `named` then `single`.
    pub fn helm() -> Self {
        Selection { default: None, fallbacks: vec![Fallback::Named, Fallback::Single] }
    }

    /// The GPU Operator: `DEFAULT_CONFIG=<devicePlugin.config.default>`, `FALLBACK_STRATEGIES=empty`.
    pub fn gpu_operator(default: Option<String>) -> Self {
        Selection { default, fallbacks: vec![Fallback::Empty] }
    }
}

/// The ConfigMap's `data`: key → config text, with where each value starts in the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginConfigMap {
    pub file: String,
    pub name: Option<String>,
    pub data: BTreeMap<String, String>,
    /// Per key: (line of the value's first line − 1, its indentation), to map spans back.
    pub offsets: BTreeMap<String, (u32, u32)>,
}

#[derive(Deserialize)]
struct RawConfigMap {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    metadata: Option<RawMeta>,
    #[serde(default)]
    data: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct RawMeta {
    #[serde(default)]
    name: Option<String>,
}

/// Reads a ConfigMap manifest (`kind: ConfigMap`, `data: {key: config}`).
pub fn parse_config_map(file: &str, text: &str) -> Result<PluginConfigMap, Box<Diagnostic>> {
    let raw: RawConfigMap = serde_norway::from_str(text).map_err(|e| {
        let (line, col) = e.location().map(|l| (l.line(), l.column())).unwrap_or((1, 1));
        Box::new(Diagnostic::new("nvidia-configmap-invalid", Severity::Error).arg("message", e.to_string()).at(Span::new(
            file,
            u32::try_from(line).unwrap_or(1),
            u32::try_from(col).unwrap_or(1),
        )))
    })?;
    if raw.kind.as_deref().is_some_and(|k| k != "ConfigMap") {
        return Err(Box::new(Diagnostic::new("nvidia-configmap-invalid", Severity::Error)
            .arg("message", format!("kind is {:?}, not ConfigMap", raw.kind.unwrap_or_default()))
            .at(Span::new(file, 1, 1))));
    }
    let locator = Locator::new(text);
    let lines: Vec<&str> = super::yaml::yaml_lines(text);
    let mut offsets = BTreeMap::new();
    for key in raw.data.keys() {
        let (line, _) = locator.locate(&[PathSeg::key("data"), PathSeg::key(key)]);
        let header = lines.get((line as usize).saturating_sub(1)).copied().unwrap_or("");
        let block =
            header.trim_end().ends_with('|') || header.trim_end().ends_with("|-") || header.trim_end().ends_with("|+");
        if block {
            let indent = lines
                .iter()
                .skip(line as usize)
                .find(|l| !l.trim().is_empty())
                .map(|l| l.len() - l.trim_start_matches(' ').len())
                .unwrap_or(0);
            offsets.insert(key.clone(), (line, u32::try_from(indent).unwrap_or(0)));
        }
    }
    Ok(PluginConfigMap { file: file.to_string(), name: raw.metadata.and_then(|m| m.name), data: raw.data, offsets })
}

/// Which config a node ends up with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Selected {
    /// This key's config.
    Key { key: String, by: String },
    /// No config: the plugin's defaults (the `empty` fallback).
    Empty,
    /// The label names no key: config-manager exits with `error`, the plugin keeps its config.
    Unknown { label: String, error: String },
    /// Nothing matched and no fallback applies.
    NoneApplies { error: String },
}

/// Picks a node's config from its label, the default, then the fallbacks.
pub fn select(cm: &PluginConfigMap, node_label: Option<&str>, selection: &Selection) -> Selected {
    if let Some(label) = node_label.filter(|l| !l.is_empty()) {
        return if cm.data.contains_key(label) {
            Selected::Key { key: label.to_string(), by: "label".into() }
        } else {
            Selected::Unknown { label: label.to_string(), error: format!("specified config {label} does not exist") }
        };
    }
    if let Some(d) = selection.default.as_ref().filter(|d| !d.is_empty()) {
        if cm.data.contains_key(d) {
            return Selected::Key { key: d.clone(), by: "default".into() };
        }
    }
    for f in &selection.fallbacks {
        match f {
            Fallback::Named if cm.data.contains_key("default") => {
                return Selected::Key { key: "default".into(), by: "named".into() }
            }
            Fallback::Single if cm.data.len() == 1 => {
                if let Some(k) = cm.data.keys().next() {
                    return Selected::Key { key: k.clone(), by: "single".into() };
                }
            }
            Fallback::Empty => return Selected::Empty,
            _ => {}
        }
    }
    Selected::NoneApplies { error: "unable to select a default config: no fallback strategy applies".into() }
}

/// Loads one key's config, with every span mapped back onto the ConfigMap file.
pub fn load_key(cm: &PluginConfigMap, key: &str, version: PluginVersion) -> Option<LoadedConfig> {
    let text = cm.data.get(key)?;
    let label = format!("{}#{key}", cm.file);
    let mut loaded = load(&label, text, version);
    if let Some(&(line_offset, indent)) = cm.offsets.get(key) {
        let fix = |span: &mut Span| {
            span.file = cm.file.clone();
            span.line = span.line.saturating_add(line_offset);
            span.column = span.column.saturating_add(indent);
        };
        if let Some(e) = loaded.error.as_mut() {
            fix(&mut e.span);
        }
        for d in &mut loaded.diagnostics {
            if let Some(s) = d.primary.as_mut() {
                fix(s);
            }
        }
    }
    Some(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: time-slicing-config-fine\ndata:\n  a100-40gb: |-\n    version: v1\n    flags:\n      migStrategy: mixed\n    sharing:\n      timeSlicing:\n        resources:\n        - name: nvidia.com/gpu\n          replicas: 8\n  tesla-t4: |-\n    version: v1\n    sharing:\n      timeSlicing:\n        resources:\n        - name: nvidia.com/gpu\n          replicas: 1\n";

    /// The docs' fine-grained ConfigMap: a label picks a key; an unknown label keeps the old config.
    #[test]
    fn label_selects_a_key() {
        let cm = parse_config_map("cm.yaml", CM).unwrap();
        assert_eq!(cm.name.as_deref(), Some("time-slicing-config-fine"));
        let sel = Selection::gpu_operator(None);
        assert_eq!(select(&cm, Some("tesla-t4"), &sel), Selected::Key { key: "tesla-t4".into(), by: "label".into() });
        assert_eq!(
            select(&cm, Some("a100-80gb"), &sel),
            Selected::Unknown { label: "a100-80gb".into(), error: "specified config a100-80gb does not exist".into() }
        );
        assert_eq!(select(&cm, None, &sel), Selected::Empty);
        assert_eq!(
            select(&cm, None, &Selection::gpu_operator(Some("a100-40gb".into()))),
            Selected::Key { key: "a100-40gb".into(), by: "default".into() }
        );
        assert!(matches!(select(&cm, None, &Selection::helm()), Selected::NoneApplies { .. }));
    }

    /// An error inside a key points at the ConfigMap's own line: `replicas: 1` is line 21.
    #[test]
    fn errors_map_back_to_the_configmap_file() {
        let cm = parse_config_map("cm.yaml", CM).unwrap();
        let loaded = load_key(&cm, "tesla-t4", PluginVersion::REFERENCE).unwrap();
        let err = loaded.error.unwrap();
        assert_eq!(err.span.to_string(), "cm.yaml:21:11");
        assert!(err.inner.ends_with("number of replicas must be >= 2"));
    }
}
