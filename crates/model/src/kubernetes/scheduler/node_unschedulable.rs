//! NodeUnschedulable Filter: a cordoned node (`spec.unschedulable`) rejects pods that
//! do not tolerate `node.kubernetes.io/unschedulable:NoSchedule`.

use k8s_openapi::api::core::v1::Taint;

use super::framework::{Plugin, Reason, Rejection};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::Code;
use crate::kubernetes::taints::{tolerations_tolerate_taint, NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE};

/// `ErrReasonUnschedulable`.
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";
/// `ErrReasonUnknownCondition`: the node object is missing.
pub const ERR_REASON_UNKNOWN_CONDITION: &str = "node(s) had unknown conditions";

/// The Filter.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    if !node.unschedulable() {
        return None;
    }
    let taint =
        Taint { key: TAINT_NODE_UNSCHEDULABLE.into(), effect: NO_SCHEDULE.into(), value: None, time_added: None };
    if tolerations_tolerate_taint(pod.tolerations(), &taint) {
        return None;
    }
    Some(Rejection::new(Plugin::NodeUnschedulable, Code::UnschedulableAndUnresolvable, Reason::Unschedulable))
}
