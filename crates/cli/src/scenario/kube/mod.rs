//! The kube backend: a scenario replayed against a real cluster through kube-rs
//! (`gpulab scenario replay DIR --backend kube`, `gpulab parity DIR --backend kube`).
//!
//! Safety: the kubeconfig context must start with `kind-`, `kwok-` or `gpulab-` unless
//! `--allow-non-lab-cluster` is given (checked before anything is sent); every run has
//! its own namespace; cluster-scoped objects are written only when the run created them
//! (labelled `gpulab.dev/run=<run>`); everything the run created is removed on success,
//! on failure and on Ctrl-C.
//!
//! # Layout
//!
//! - [`safety`]: the context rule, the run's namespace, who may write what.
//! - [`requests`]: every HTTP request, built sans I/O and unit-tested.
//! - [`exec`]: commands inside a kind node's container (`docker`/`podman exec`), behind
//!   the [`exec::NodeExec`] trait.
//! - [`node_lifecycle`]: the taints the node lifecycle controller would write.
//! - [`stall`]: `stalled_on` read off the API objects (the node whose updated pod is
//!   not available while the rollout is not done).
//! - [`cleanup`]: the undo plan and the Ctrl-C handler.
//! - [`backend`]: the transport — the [`Backend`](gpulab_model::scenario::Backend) that
//!   sends them, the simulated kubelet for nodes without one.

pub mod backend;
pub mod cleanup;
pub mod exec;
pub mod node_lifecycle;
pub mod requests;
pub mod safety;
pub mod stall;

pub use backend::{Connect, KubeBackend};
