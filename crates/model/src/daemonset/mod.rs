//! The DaemonSet step of the lab: the controller's rolling update, its status, the
//! kubectl views a learner reads, and the diagnosis of a stalled rollout (as codes and
//! arguments; the incident's texts word them, [`crate::incident::text`]).
//!
//! # Layout
//!
//! - [`predicates`]: `NodeShouldRunDaemonPod` — node name, node affinity / nodeSelector,
//!   NoSchedule vs NoExecute taints, the daemon tolerations the controller adds.
//! - [`pod`]: pod helpers with upstream names (`IsPodAvailable`, `IsPodUpdated`, …).
//! - [`update`]: `rollingUpdate` (maxUnavailable / maxSurge), `updatedDesiredNodeCounts`,
//!   ControllerRevisions and the template hash.
//! - [`controller`]: one `syncDaemonSet`, stepped by the caller; pod creation
//!   (generateName, labels, tolerations, the `matchFields metadata.name` affinity),
//!   events, status.
//! - [`kubectl`]: `rollout status`, `get ds`, `describe ds`, byte-exact (`get pods -o wide`
//!   is the Kubernetes model's: [`crate::kubernetes::kubectl::get_pods_wide`]).
//! - [`store`]: the controller's pod cache, indexed by target node (what a sync, a
//!   binding pass and a kubelet pass read instead of scanning every pod).
//! - [`bind_index`]: the cluster as one round's binding pass sees it (node and
//!   bound-pod indices, one scheduler snapshot), so binding is not O(pods) per pod.
//! - [`rollout`]: the round loop a learner watches — controller sync, binding, each
//!   node's kubelet and containerd (the sandbox error), stall detection.
//! - [`diagnosis`]: which node holds a stalled rollout and the cause chain down to
//!   the root, each link with its evidence.
//! - [`node_containerd`]: a node's runtime read off its containerd [`Daemon`](crate::containerd::Daemon),
//!   with the containerd model's findings (table replaced, not restarted, restart would fail).
//! - [`manifests`]: Nodes, DaemonSets and RuntimeClasses from YAML, and a rollout from
//!   them (the running DaemonSet settled, then its update applied).
//! - [`rng`]: the seeded generator for what upstream leaves to chance.
//!
//! **Architecture Invariant:** pure and deterministic: time is a value (`now`, unix
//! seconds) and the Go-map node order is an input ([`NodeOrder`]).

pub mod bind_index;
pub mod controller;
pub mod diagnosis;
pub mod kubectl;
pub mod manifests;
pub mod node_containerd;
pub mod pod;
pub mod predicates;
pub mod rng;
pub mod rollout;
pub mod store;
pub mod update;

pub use controller::{Admission, DaemonSetsController, NodeOrder, SyncResult};
pub use kubectl::{rollout_status, RolloutStatus};
pub use predicates::{node_should_run_daemon_pod, DaemonPodPredicates, ShouldRunReason};
pub use update::{updated_desired_node_counts, DesiredNodeCounts, RollingUpdateDecision};
