//! kube-scheduler's default profile, as far as a GPU pod meets it: PreFilter, the
//! Filter plugins in upstream order, PostFilter (DynamicResources, DefaultPreemption),
//! scoring, and the byte-exact `FitError` text.
//!
//! # Layout
//!
//! - [`status`]: `Code` and `Status`.
//! - [`fit_error`] — `FitError.Error()`.
//! - [`snapshot`]: `NodeInfo` / `PodInfo`, precomputed once per cycle.
//! - one file per Filter plugin: [`node_unschedulable`], [`node_name`],
//!   [`taint_toleration`], [`node_affinity`], [`node_ports`], [`noderesources_fit`].
//! - [`framework`]: the filter pipeline, per-node explanation, `RunPostFilterPlugins`.
//! - [`preemption`]: DefaultPreemption's PostFilter and dry run.
//! - [`scoring`]: the score plugins and the tied set.
//! - [`schedule_one`]: one whole cycle.
//! - [`hot`]: [`HotSnapshot`], many cycles on one cluster: a compact per-node table
//!   and the per-node verdicts reused across cycles (the 5,000-node hot path).
//! - [`explain`]: node × plugin results for the learner.

pub mod explain;
pub mod fit_error;
pub mod framework;
pub mod hot;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_unschedulable;
pub mod noderesources_fit;
pub mod preemption;
pub mod schedule_one;
pub mod scoring;
pub mod snapshot;
pub mod status;
pub mod taint_toleration;

pub use fit_error::{fit_error_message, Diagnosis, FitError};
pub use framework::{CycleState, FilterOptions, Plugin, Rejection};
pub use hot::HotSnapshot;
pub use noderesources_fit::FitArgs;
pub use schedule_one::{schedule_one, NodeOutcome, Outcome, ScheduleResult};
pub use snapshot::{NodeInfo, PodInfo, Snapshot};
pub use status::{Code, Status};
