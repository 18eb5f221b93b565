//! TaintToleration Filter: the first untolerated `NoSchedule`/`NoExecute` taint
//! rejects the node. The reason text depends on the version (spec §0): 1.33 and early
//! 1.34 name the taint, 1.35+ do not (PR #134740).

use super::framework::{Plugin, Reason, Rejection};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::Code;
use crate::kubernetes::taints::{find_matching_untolerated_taint, is_do_not_schedule};

/// The 1.35+ reason.
pub const ERR_REASON_UNTOLERATED: &str = "node(s) had untolerated taint(s)";

/// The 1.33 reason for the taint `{key, value}`.
pub fn legacy_reason(key: &str, value: &str) -> String {
    format!("node(s) had untolerated taint {{{key}: {value}}}")
}

/// The Filter.
pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    let index = find_matching_untolerated_taint(node.taints(), pod.tolerations(), is_do_not_schedule)?;
    Some(Rejection::new(
        Plugin::TaintToleration,
        Code::UnschedulableAndUnresolvable,
        Reason::UntoleratedTaint { index },
    ))
}
