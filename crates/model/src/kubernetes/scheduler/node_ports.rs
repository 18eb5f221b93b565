//! NodePorts Filter: a wanted host port already bound on the node (same protocol and
//! port, overlapping IP) rejects it — resolvable by preemption.

use super::framework::{Plugin, Reason, Rejection};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::Code;

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// The Filter.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let conflict = pod.host_ports.iter().any(|w| node.used_ports.iter().any(|u| w.conflicts_with(u)));
    conflict.then(|| Rejection::new(Plugin::NodePorts, Code::Unschedulable, Reason::NodePorts))
}
