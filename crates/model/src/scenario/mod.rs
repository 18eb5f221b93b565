//! Scenarios: one story of a GPU node incident as data, run by the model and replayed
//! against real systems. A scenario is a directory (`scenarios/NAME/`) holding a
//! `scenario.toml` and the real files it references (containerd TOML per node,
//! Kubernetes YAML, device-plugin config). The engine runs it on a [`Backend`] and
//! writes a [`Record`]: per step, the observed value of every expectation. The model is
//! one backend ([`ModelBackend`]); the companion (`gpulab`) adds a real containerd
//! backend, and [`parity::diff`] compares two records field by field.
//!
//! # The format (`scenario.toml`)
//!
//! The JSON Schema is `docs/scenario.schema.json` (a test keeps it in step with
//! [`Field::ALL`] and [`ACTIONS`]). In short:
//!
//! ```toml
//! title = "scenario.incident.title"      # text keys (the app translates them)
//! teaching = "scenario.incident.teaching"
//! source = "the seed"                     # optional: where the story comes from
//! kubernetes = "1.33"
//! containerd = "1.6.20"                   # default for every node
//! manifests = ["k8s/runtimeclass.yaml"]   # applied before step 1
//!
//! [[node]]
//! name = "gpu-1"
//! gpus = 4
//! gpu_model = "NVIDIA A100-SXM4-40GB"
//! supervisor = "systemd"                  # systemd | by-hand | sighup-ignored
//! files = { "/etc/containerd/config.toml" = "nodes/config.toml" }
//!
//! [[step]]
//! name = "the NVIDIA drop-in lands on gpu-2"
//! do = "write-file"                       # see ACTIONS
//! node = "gpu-2"
//! path = "/etc/containerd/conf.d/99-nvidia.toml"
//! file = "nodes/99-nvidia.toml"
//! [step.expect.gpu-2]                     # subject: a node name, pod/NAME, daemonset/NAME, node/NAME
//! cri = "ok"
//! check = "restart-needed"
//! dump_runtimes = ["nvidia"]
//! ```
//!
//! Every node's daemon starts before step 1. Actions and their keys: `observe`;
//! `write-file` (node, path, file); `remove-file` (node, path); `start`, `restart`,
//! `check` (node); `signal` (node, signal = HUP|TERM|KILL); `advance` (seconds);
//! `apply` (file); `delete` (kind, object); `sync` (count); `node-layers` (node, and any
//! of `kubelet`, `device_plugin`, `socket_mount` = true|false, `devices` = N);
//! `plugin-config` (file: the device plugin's config, e.g. time-slicing); `mig-geometry`
//! (node, geometry = e.g. `"7x1g.5gb"`: MIG Manager repartitions every GPU of the node,
//! refused while GPU pods run there); `dra-driver` (node, and any of `running`,
//! `registered` = true|false: NVIDIA's DRA driver on a node with `dra_driver = true`
//! publishes its ResourceSlices while it runs; its kubelet plugin is registered or
//! not). `delete` removes a pod (an eviction, `kubectl delete pod`) or a
//! RuntimeClass. DRA objects (DeviceClass, ResourceClaim, ResourceClaimTemplate) come
//! in through `manifests` and `apply`; a pod with `resourceClaims` goes through the
//! DynamicResources plugin, and on its node the kubelet prepares its claims first
//! (`FailedPrepareDynamicResources`). On a DRA node, `mig-geometry` is refused while
//! a claim holds one of its devices, else the driver republishes (next generation).
//!
//! Expected values are exact: a string, an integer, a boolean or a list of strings. For
//! what reality makes nondeterministic: `{{any}}` inside a string matches any text;
//! `{ one_of = [...] }` accepts any listed value; `{ set = [...] }` a list in any order
//! (see [`expect`]). The fields and their meaning: [`Field`].
//!
//! A bad scenario is a list of [`Diagnostic`](crate::Diagnostic)s (codes
//! `scenario-*`) at `scenario.toml:LINE`.
//!
//! # Layout
//!
//! - [`format`]: `scenario.toml` → [`Scenario`], errors with file:line.
//! - [`expect`]: the field catalogue, expected and observed values, placeholders.
//! - [`engine`]: the [`Backend`] trait, [`run`], the [`Record`]; a backend's setup and
//!   step errors are [`BackendError`]s: the model's findings on the scenario's files stay
//!   diagnostics (code, arguments, file:line) all the way to the companion, which words them.
//! - [`model`]: the model backend (containerd daemons, the check); [`cluster`]: its
//!   Kubernetes side.
//! - [`pods`]: pods through admission, the scheduler and the kubelet's sandbox.
//! - [`parity`]: two records diffed.
//! - [`locate`]: where a finding points (line:column of the text it names).
//!
//! **Architecture Invariant:** pure, like the rest of the model: files come in through
//! a reader closure; time is the scenario's clock.

pub mod cluster;
pub mod engine;
pub mod expect;
pub mod format;
pub mod locate;
pub mod model;
pub mod parity;
pub mod pods;

pub use engine::{run, run_with_progress, Backend, Observation, Record, BackendError, StepRecord};
pub use expect::{Domain, Expected, Field, Observed};
pub use format::{parse, Action, Expectation, FileRef, NodeSpec, Scenario, Step, SCENARIO_FILE};
pub use model::ModelBackend;
pub use parity::{diff, Parity, ParityRow};

/// The `do = "…"` words.
pub const ACTIONS: &[&str] =
    &["observe", "write-file", "remove-file", "start", "restart", "signal", "advance", "check", "apply", "delete", "sync", "node-layers", "plugin-config", "mig-geometry", "dra-driver"];

/// Parses and runs a scenario on the model.
pub fn run_on_model(scenario: &Scenario) -> Record {
    run(scenario, &mut ModelBackend::new())
}

/// [`run_on_model`], the nodes of a version in `loaders` loading with that loader
/// (its defaults parsed once by the caller for many runs).
pub fn run_on_model_with(scenario: &Scenario, loaders: &[crate::containerd::Containerd]) -> Record {
    run(scenario, &mut ModelBackend::with_loaders(loaders))
}

#[cfg(test)]
mod tests;
