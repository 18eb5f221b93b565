//! The slot calculator: time-slicing seats vs guaranteed memory, side by side with MPS and
//! MIG, computed from the real NVIDIA device-plugin config (k8s-device-plugin v0.20.0, GPU
//! Feature Discovery, mig-parted; `../shared/specs/nvidia.md`).
//!
//! # Layout
//!
//! - [`config`]: the config file (`version: v1`, YAML) decoded as the plugin decodes it, with
//!   its error texts and a file:line:column for each, the ignored fields' warnings, the
//!   precedence rules (MPS over time-slicing, `MIG_STRATEGY` over the file), flag validation.
//! - [`config_map`]: the plugin ConfigMap and per-node selection by the
//!   `nvidia.com/device-plugin.config` label (default, fallbacks, unknown label).
//! - [`node`]: what a node advertises — extended resources and counts, GFD labels, MPS limits,
//!   whether the plugin serves — and the seats and guaranteed memory that follow.
//! - [`allocate`]: what a request for 2 does (Allocate error and kubelet event, or two
//!   replicas that give no more compute).
//! - [`messages`]: the diagnostic codes' texts in Korean and English.
//! - [`mig`]: MIG profiles per GPU model (embedded `data/mig-profiles.yaml`) and the geometry
//!   planner; changing geometry needs a drain.
//! - [`table`]: the slot table, mode by mode, per node and cluster; Markdown and CSV, English
//!   and Korean.
//! - [`gpu`], [`version`], [`yaml`]: GPU model facts, plugin versions, YAML as Go reads it.
//!
//! **Architecture Invariant:** pure. The MIG and GPU data are compiled in; nothing here reads
//! `../shared` or any file at run time.

pub mod allocate;
pub mod config;
pub mod config_map;
pub mod gpu;
pub mod messages;
pub mod mig;
pub mod node;
pub mod table;
pub mod version;
pub mod yaml;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use allocate::{allocate, AllocateOutcome, PodRequest};
pub use config::{load as load_config, Deployment, DevicePluginConfig, LoadedConfig};
pub use gpu::{ComputeCapability, GpuModel};
pub use mig::{check_geometry, Geometry, MigCatalog};
pub use node::{advertise, NodeAdvertisement, NodeSpec, PluginState};
pub use table::{slot_table, SlotTable, TableRequest};
pub use version::PluginVersion;

/// A cluster under one config: the file, the plugin version, the deployment's env, the nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub file: String,
    pub text: String,
    pub version: PluginVersion,
    pub deployment: Deployment,
    pub nodes: Vec<NodeSpec>,
}

/// The config as read, and every node's advertisement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub loaded: LoadedConfig,
    pub nodes: Vec<NodeAdvertisement>,
}

impl Evaluation {
    /// Served extended resources summed over the nodes.
    pub fn cluster_total(&self) -> BTreeMap<String, u64> {
        let mut total = BTreeMap::new();
        for n in &self.nodes {
            for (k, v) in &n.resources {
                let slot: &mut u64 = total.entry(k.clone()).or_insert(0);
                *slot = slot.saturating_add(*v);
            }
        }
        total
    }

    /// Seats in the cluster (a single pod still only ever uses one node's).
    pub fn cluster_seats(&self) -> u64 {
        self.cluster_total().values().fold(0u64, |a, b| a.saturating_add(*b))
    }
}

/// Reads the config and advertises every node. A config the plugin refuses leaves every
/// node's plugin exited with the plugin's log line, and GFD (which reads the same file)
/// writes no labels.
pub fn evaluate(scenario: &Scenario, catalog: &MigCatalog) -> Evaluation {
    let loaded = config::load(&scenario.file, &scenario.text, scenario.version);
    let nodes = scenario
        .nodes
        .iter()
        .map(|node| match (&loaded.config, &loaded.error) {
            (Some(cfg), _) => advertise(node, cfg, &scenario.deployment, scenario.version, catalog),
            (None, error) => {
                let error = error.as_ref().map(config::ConfigError::startup_error).unwrap_or_default();
                let mut labels = BTreeMap::new();
                if !node.gpus.is_empty() {
                    labels.insert("nvidia.com/gpu.present".to_string(), "true".to_string());
                }
                NodeAdvertisement {
                    node: node.name.clone(),
                    physical_gpus: node.gpus.len() as u64,
                    plugin: PluginState::Exited { error },
                    resources: BTreeMap::new(),
                    labels,
                    gfd_error: None,
                    planned: Vec::new(),
                    mps: None,
                    diagnostics: Vec::new(),
                }
            }
        })
        .collect();
    Evaluation { loaded, nodes }
}
