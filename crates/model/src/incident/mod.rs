//! One incident, on one node, carried through the lab's eight steps: the learner's
//! work (what the app saves and exports) is the input, and step 8's rollout runs on
//! the cluster it describes.
//!
//! # Layout
//!
//! - [`seed`]: the lab's own incident (3 GPU nodes on containerd 1.6.20, one never
//!   restarted after the NVIDIA drop-in replaced its CRI table): manifests, files, fix.
//! - [`run`]: an incident as one value ([`Incident`]: rollout + every node's containerd
//!   daemon + check options + fix + device-plugin config) and a run of it: roll until
//!   the stall, gather the evidence, fix the stalled nodes, roll on.
//! - [`scenario`]: a scenario's steps run on the model backend as an incident
//!   (`gpulab report scenarios/NAME`).
//! - [`artifacts`]: the earlier steps' artifacts computed by their models — the merge
//!   explanation, check-runtime verdicts, scheduler verdicts, the slot table.
//! - [`report`]: the incident report (Markdown and JSON, Korean and English).
//! - [`labels`]: the report's labels and sentences, each with its English and Korean.
//! - [`text`]: Korean and English sentences for the diagnosis codes.
//! - [`transcript`]: what `gpulab rollout` prints for a rollout of manifests, and its
//!   loop of syncs (the companion and step 8's import of a learner's cluster).
//! - [`work`]: the learner's lab state as the progress file holds it, read with serde
//!   (the companion's `gpulab report --work` and the chunk read the same text).
//! - [`node`]: the learner's node (steps 1–4): files, version, the daemon after their
//!   step-4 operations.
//! - [`lab`]: step 8 on the learner's cluster — the seed's rollout with their node,
//!   RuntimeClass, node patches and check options — and how it ends (completed, or
//!   stalled on a node with its root causes); "break it again".
//!
//! This module sits above [`crate::daemonset`] and [`crate::scenario`]: it uses them,
//! they do not use it.

pub mod artifacts;
pub mod lab;
pub mod labels;
pub mod node;
pub mod report;
pub mod run;
pub mod scenario;
pub mod seed;
pub mod text;
pub mod transcript;
pub mod work;

pub use run::{Incident, IncidentRun};
