//! NodeAffinity PreFilter and Filter: `nodeSelector` and required node affinity; the
//! PreFilter narrows the candidates when terms pin `metadata.name` (DaemonSet pods).

use super::framework::{Plugin, Reason, Rejection};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::Code;
use crate::kubernetes::affinity::{node_matches, NodeFields};

/// `ErrReasonPod`.
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
/// `errReasonEnforced` (the profile's `addedAffinity`).
pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";

pub use crate::kubernetes::affinity::{
    node_affinity_pre_filter as pre_filter, NodeAffinityPreFilter, ERR_REASON_CONFLICT,
};

/// The Filter.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let spec = pod.pod.spec.as_ref()?;
    let fields = NodeFields::of(&node.node);
    (!node_matches(spec, fields))
        .then(|| Rejection::new(Plugin::NodeAffinity, Code::UnschedulableAndUnresolvable, Reason::NodeAffinity))
}
