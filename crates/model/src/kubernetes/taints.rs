//! Taints and tolerations: `Toleration.ToleratesTaint`,
//! `FindMatchingUntoleratedTaint`, and `tolerations.MergeTolerations` (used by
//! RuntimeClass admission).

use k8s_openapi::api::core::v1::{Taint, Toleration};

/// `NoSchedule`.
pub const NO_SCHEDULE: &str = "NoSchedule";
/// `NoExecute`.
pub const NO_EXECUTE: &str = "NoExecute";
/// `PreferNoSchedule`.
pub const PREFER_NO_SCHEDULE: &str = "PreferNoSchedule";
/// The taint equivalent of `spec.unschedulable: true`.
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// `Toleration.ToleratesTaint`: an empty effect matches every effect, an empty key
/// matches every key, `Exists` ignores the value, an empty operator means `Equal`,
/// any other operator tolerates nothing.
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    let effect = toleration.effect.as_deref().unwrap_or("");
    if !effect.is_empty() && effect != taint.effect {
        return false;
    }
    let key = toleration.key.as_deref().unwrap_or("");
    if !key.is_empty() && key != taint.key {
        return false;
    }
    match toleration.operator.as_deref().unwrap_or("") {
        "" | "Equal" => toleration.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""),
        "Exists" => true,
        _ => false,
    }
}

/// `TolerationsTolerateTaint`: some toleration tolerates `taint`.
pub fn tolerations_tolerate_taint(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| tolerates(t, taint))
}

/// `DoNotScheduleTaintsFilterFunc`: the taints Filter looks at.
pub fn is_do_not_schedule(taint: &Taint) -> bool {
    taint.effect == NO_SCHEDULE || taint.effect == NO_EXECUTE
}

/// `FindMatchingUntoleratedTaint`: the index of the first taint (in `spec.taints`
/// order) that passes `filter` and is not tolerated.
pub fn find_matching_untolerated_taint(
    taints: &[Taint],
    tolerations: &[Toleration],
    filter: impl Fn(&Taint) -> bool,
) -> Option<usize> {
    taints.iter().position(|t| filter(t) && !tolerations_tolerate_taint(tolerations, t))
}

/// `tolerations.MergeTolerations`: `first` then `second`, dropping any toleration
/// that another one (kept, or later and different) already covers.
pub fn merge_tolerations(first: &[Toleration], second: &[Toleration]) -> Vec<Toleration> {
    let all: Vec<&Toleration> = first.iter().chain(second.iter()).collect();
    let mut merged: Vec<Toleration> = Vec::new();
    for (i, t) in all.iter().enumerate() {
        if merged.iter().any(|m| is_superset(m, t)) {
            continue;
        }
        let later = all.get(i + 1..).unwrap_or(&[]);
        if later.iter().any(|t2| *t2 != *t && is_superset(t2, t)) {
            continue;
        }
        merged.push((*t).clone());
    }
    merged
}

/// `isSuperset`: `ss` tolerates everything `t` tolerates.
pub fn is_superset(ss: &Toleration, t: &Toleration) -> bool {
    if ss == t {
        return true;
    }
    let s = |o: &Option<String>| o.as_deref().unwrap_or("").to_string();
    let (ss_key, t_key) = (s(&ss.key), s(&t.key));
    let ss_op = s(&ss.operator);
    if t_key != ss_key && (!ss_key.is_empty() || ss_op != "Exists") {
        return false;
    }
    let (ss_eff, t_eff) = (s(&ss.effect), s(&t.effect));
    if t_eff != ss_eff && !ss_eff.is_empty() {
        return false;
    }
    if ss_eff == NO_EXECUTE {
        if let Some(ss_secs) = ss.toleration_seconds {
            match t.toleration_seconds {
                None => return false,
                Some(t_secs) if t_secs > ss_secs => return false,
                _ => {}
            }
        }
    }
    match ss_op.as_str() {
        "" | "Equal" => s(&t.operator) == "Equal" && s(&t.value) == s(&ss.value),
        "Exists" => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
        let o = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Toleration { key: o(key), operator: o(op), value: o(value), effect: o(effect), toleration_seconds: None }
    }

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint { key: key.into(), value: Some(value.into()), effect: effect.into(), time_added: None }
    }

    /// The matching rules of `ToleratesTaint`, one row per rule.
    #[test]
    fn toleration_rules() {
        let t = taint("nvidia.com/gpu", "present", NO_SCHEDULE);
        let cases = [
            (tol("nvidia.com/gpu", "Exists", "", ""), true),
            (tol("nvidia.com/gpu", "", "present", NO_SCHEDULE), true),
            (tol("nvidia.com/gpu", "Equal", "absent", NO_SCHEDULE), false),
            (tol("nvidia.com/gpu", "Exists", "", PREFER_NO_SCHEDULE), false),
            (tol("", "Exists", "", ""), true),
            (tol("other", "Exists", "", ""), false),
            (tol("nvidia.com/gpu", "Gt", "1", ""), false),
        ];
        for (toleration, want) in cases {
            assert_eq!(tolerates(&toleration, &t), want, "{toleration:?}");
        }
    }

    /// A broader toleration absorbs a narrower one; equal ones keep the first.
    #[test]
    fn merge_drops_covered_tolerations() {
        let a = tol("foo", "Equal", "bar", NO_SCHEDULE);
        let b = tol("foo", "Exists", "", "");
        assert_eq!(merge_tolerations(std::slice::from_ref(&a), std::slice::from_ref(&b)), vec![b.clone()]);
        assert_eq!(merge_tolerations(std::slice::from_ref(&a), std::slice::from_ref(&a)), vec![a]);
    }
}
