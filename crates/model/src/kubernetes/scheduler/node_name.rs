//! NodeName Filter: a pod with `spec.nodeName` fits only that node.

use super::framework::{Plugin, Reason, Rejection};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::Code;

/// `ErrReason`.
pub const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// The Filter.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let wanted = pod.pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or("");
    (!wanted.is_empty() && wanted != node.name)
        .then(|| Rejection::new(Plugin::NodeName, Code::UnschedulableAndUnresolvable, Reason::NodeName))
}
