//! The RollingUpdate strategy (`pkg/controller/daemon/update.go`): how many pods may
//! be unavailable or surged (`updatedDesiredNodeCounts`, `util.UnavailableCount`,
//! `util.SurgeCount`), which old pods to delete and which nodes get a new pod this sync
//! (`rollingUpdate`, both the maxSurge = 0 and the maxSurge > 0 paths), and the
//! ControllerRevision history (`constructHistory`, `ComputeHash`, `cleanupHistory`).
//!
//! `rollingUpdate` ranges over a Go map, so upstream visits nodes in random order; here
//! the caller passes the order (see [`super::NodeOrder`]).

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{ControllerRevision, DaemonSet};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::pod::{is_pod_available, is_pod_updated, pod_label, pod_name, CONTROLLER_REVISION_HASH_LABEL};

/// `intstr.GetScaledValueFromIntOrPercent`: an int as is, a percentage of `total`
/// rounded up (`round_up`) or down.
pub fn get_scaled_value_from_int_or_percent(
    value: Option<&IntOrString>,
    total: usize,
    round_up: bool,
) -> Result<usize, String> {
    let value = value.ok_or_else(|| "nil value for IntOrString".to_string())?;
    match value {
        IntOrString::Int(i) => Ok(usize::try_from(*i).unwrap_or(0)),
        IntOrString::String(s) => {
            let Some(number) = s.strip_suffix('%') else {
                return Err("invalid value for IntOrString: invalid type: string is not a percentage".into());
            };
            let pct: i64 = number
                .parse()
                .map_err(|_| format!("invalid value for IntOrString: invalid value {s:?}"))?;
            let scaled = pct.max(0) as u128 * total as u128;
            let v = if round_up { scaled.div_ceil(100) } else { scaled / 100 };
            Ok(usize::try_from(v).unwrap_or(usize::MAX))
        }
    }
}

fn rolling(ds: &DaemonSet) -> Option<&k8s_openapi::api::apps::v1::RollingUpdateDaemonSet> {
    let strategy = ds.spec.as_ref()?.update_strategy.as_ref()?;
    if strategy.type_.as_deref() != Some("RollingUpdate") {
        return None;
    }
    strategy.rolling_update.as_ref()
}

/// The update strategy type, `""` when unset.
pub fn strategy_type(ds: &DaemonSet) -> &str {
    ds.spec
        .as_ref()
        .and_then(|s| s.update_strategy.as_ref())
        .and_then(|u| u.type_.as_deref())
        .unwrap_or("")
}

/// `util.UnavailableCount`: 0 unless RollingUpdate; maxUnavailable scaled, rounded up.
pub fn unavailable_count(ds: &DaemonSet, number_to_schedule: usize) -> Result<usize, String> {
    match rolling(ds) {
        None => Ok(0),
        Some(r) => get_scaled_value_from_int_or_percent(r.max_unavailable.as_ref(), number_to_schedule, true),
    }
}

/// `util.SurgeCount`: 0 unless RollingUpdate with maxSurge set; scaled, rounded up.
pub fn surge_count(ds: &DaemonSet, number_to_schedule: usize) -> Result<usize, String> {
    match rolling(ds).and_then(|r| r.max_surge.as_ref()) {
        None => Ok(0),
        Some(v) => get_scaled_value_from_int_or_percent(Some(v), number_to_schedule, true),
    }
}

/// `util.AllowsSurge`.
pub fn allows_surge(ds: &DaemonSet) -> bool {
    surge_count(ds, 1).is_ok_and(|n| n != 0)
}

pub fn min_ready_seconds(ds: &DaemonSet) -> i32 {
    ds.spec.as_ref().and_then(|s| s.min_ready_seconds).unwrap_or(0)
}

/// `(maxSurge, maxUnavailable, desiredNumberScheduled)` as `updatedDesiredNodeCounts`
/// returns them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DesiredNodeCounts {
    pub max_surge: usize,
    pub max_unavailable: usize,
    pub desired_number_scheduled: usize,
}

/// `updatedDesiredNodeCounts`: counts the nodes that should run the pod, gives each of
/// them an (empty) entry in `node_to_daemon_pods`, and resolves maxSurge and
/// maxUnavailable against that count; both 0 with desired > 0 → maxUnavailable 1.
pub fn updated_desired_node_counts<T>(
    ds: &DaemonSet,
    should_run_nodes: impl IntoIterator<Item = String>,
    node_to_daemon_pods: &mut BTreeMap<String, Vec<T>>,
) -> Result<DesiredNodeCounts, String> {
    let mut desired = 0usize;
    for node in should_run_nodes {
        desired += 1;
        node_to_daemon_pods.entry(node).or_default();
    }
    desired_node_counts(ds, desired)
}

/// The counting half of [`updated_desired_node_counts`], for a known desired count.
pub fn desired_node_counts(ds: &DaemonSet, desired: usize) -> Result<DesiredNodeCounts, String> {
    let mut max_unavailable =
        unavailable_count(ds, desired).map_err(|e| format!("invalid value for MaxUnavailable: {e}"))?;
    let max_surge = surge_count(ds, desired).map_err(|e| format!("invalid value for MaxSurge: {e}"))?;
    if desired > 0 && max_unavailable == 0 && max_surge == 0 {
        max_unavailable = 1;
    }
    Ok(DesiredNodeCounts { max_surge, max_unavailable, desired_number_scheduled: desired })
}

/// `findUpdatedPodsOnNode`: the node's one new and one old pod (deleted ones skipped),
/// or `None` when there is more than one of either.
pub fn find_updated_pods_on_node<'a>(
    pods: &[&'a Pod],
    hash: &str,
    generation: Option<i64>,
) -> Option<(Option<&'a Pod>, Option<&'a Pod>)> {
    let (mut new_pod, mut old_pod) = (None, None);
    for &pod in pods {
        if pod.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let slot = if is_pod_updated(pod, hash, generation) { &mut new_pod } else { &mut old_pod };
        if slot.is_some() {
            return None;
        }
        *slot = Some(pod);
    }
    Some((new_pod, old_pod))
}

/// What one `rollingUpdate` call decided, and the counters it decided with (shown in
/// the sync view and used by the stall diagnosis).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollingUpdateDecision {
    pub max_surge: usize,
    pub max_unavailable: usize,
    pub desired_number_scheduled: usize,
    /// maxSurge = 0: nodes counted unavailable (`numUnavailable`); maxSurge > 0: `numSurge`.
    pub num_unavailable: usize,
    pub num_surge: usize,
    /// Nodes whose *new* pod is not available: they hold the unavailability budget.
    pub unavailable_new_pod_nodes: Vec<String>,
    pub old_pods_to_delete: Vec<String>,
    pub new_nodes_to_create: Vec<String>,
    /// Old available pods that would be replaced next if the budget allowed.
    pub waiting_candidates: usize,
}

/// The inputs `rollingUpdate` reads: the node → daemon pods map (already filled with
/// an entry per node that should run the pod), in the order to visit it.
pub struct RollingUpdateInput<'a, 'p> {
    pub ds: &'a DaemonSet,
    pub hash: &'a str,
    pub generation: Option<i64>,
    pub now: i64,
    pub counts: DesiredNodeCounts,
    /// `(node name, its daemon pods)` in visiting order (Go map order upstream).
    pub node_to_daemon_pods: Vec<(&'a str, &'a [&'p Pod])>,
    /// Whether the node (by name) should run the pod; unknown nodes are `false`.
    pub should_run: &'a dyn Fn(&str) -> bool,
}

/// `rollingUpdate`: the decision, without performing it.
pub fn rolling_update(input: &RollingUpdateInput<'_, '_>) -> RollingUpdateDecision {
    let counts = input.counts;
    let min_ready = min_ready_seconds(input.ds);
    let available = |p: &Pod| is_pod_available(p, min_ready, input.now);
    let mut d = RollingUpdateDecision {
        max_surge: counts.max_surge,
        max_unavailable: counts.max_unavailable,
        desired_number_scheduled: counts.desired_number_scheduled,
        ..Default::default()
    };

    if counts.max_surge == 0 {
        let mut allowed_replacement_pods = Vec::new();
        let mut candidate_pods_to_delete = Vec::new();
        for &(node, pods) in &input.node_to_daemon_pods {
            let Some((new_pod, old_pod)) = find_updated_pods_on_node(pods, input.hash, input.generation) else {
                d.num_unavailable += 1;
                continue;
            };
            match (new_pod, old_pod) {
                (None, None) | (Some(_), Some(_)) => d.num_unavailable += 1,
                (Some(new_pod), None) => {
                    if !available(new_pod) {
                        d.num_unavailable += 1;
                        d.unavailable_new_pod_nodes.push(node.to_string());
                    }
                }
                (None, Some(old_pod)) => {
                    if !available(old_pod) {
                        allowed_replacement_pods.push(pod_name(old_pod).to_string());
                        d.num_unavailable += 1;
                    } else if d.num_unavailable >= counts.max_unavailable {
                        d.waiting_candidates += 1;
                    } else {
                        candidate_pods_to_delete.push(pod_name(old_pod).to_string());
                    }
                }
            }
        }
        let remaining = counts.max_unavailable.saturating_sub(d.num_unavailable).min(candidate_pods_to_delete.len());
        d.waiting_candidates += candidate_pods_to_delete.len() - remaining;
        candidate_pods_to_delete.truncate(remaining);
        allowed_replacement_pods.extend(candidate_pods_to_delete);
        d.old_pods_to_delete = allowed_replacement_pods;
        return d;
    }

    let mut old_pods_to_delete = Vec::new();
    let mut should_not_run_pods_to_delete = Vec::new();
    let mut candidate_new_nodes = Vec::new();
    let mut allowed_new_nodes = Vec::new();
    let mut num_available = 0usize;
    for &(node, pods) in &input.node_to_daemon_pods {
        let Some((new_pod, old_pod)) = find_updated_pods_on_node(pods, input.hash, input.generation) else {
            d.num_surge += 1;
            continue;
        };
        match (old_pod, new_pod) {
            (Some(old), _) if available(old) => num_available += 1,
            (None, Some(new)) if available(new) => num_available += 1,
            _ => {}
        }
        match (old_pod, new_pod) {
            (None, _) => {}
            (Some(old_pod), None) => {
                if !available(old_pod) {
                    if !(input.should_run)(node) {
                        old_pods_to_delete.push(pod_name(old_pod).to_string());
                        continue;
                    }
                    allowed_new_nodes.push(node.to_string());
                } else {
                    if !(input.should_run)(node) {
                        should_not_run_pods_to_delete.push(pod_name(old_pod).to_string());
                        continue;
                    }
                    if d.num_surge >= counts.max_surge {
                        d.waiting_candidates += 1;
                        continue;
                    }
                    candidate_new_nodes.push(node.to_string());
                }
            }
            (Some(old_pod), Some(new_pod)) => {
                if !available(new_pod) {
                    d.num_surge += 1;
                    d.unavailable_new_pod_nodes.push(node.to_string());
                    continue;
                }
                old_pods_to_delete.push(pod_name(old_pod).to_string());
            }
        }
    }
    let remaining_surge = counts.max_surge.saturating_sub(d.num_surge);
    // With maxSurge the owner expects full availability: a pod on a node that no longer
    // matches is deleted only once the others are available.
    let deletable = num_available.saturating_sub(counts.desired_number_scheduled).min(should_not_run_pods_to_delete.len());
    old_pods_to_delete.extend(should_not_run_pods_to_delete.into_iter().take(deletable));
    let remaining_surge = remaining_surge.min(candidate_new_nodes.len());
    d.waiting_candidates += candidate_new_nodes.len() - remaining_surge;
    allowed_new_nodes.extend(candidate_new_nodes.into_iter().take(remaining_surge));
    d.old_pods_to_delete = old_pods_to_delete;
    d.new_nodes_to_create = allowed_new_nodes;
    d
}

// ---- ControllerRevision history -------------------------------------------------

/// `getPatch`: the revision data, `{"spec":{"template":{…,"$patch":"replace"}}}`.
pub fn get_patch(ds: &DaemonSet) -> serde_json::Value {
    let mut template = ds
        .spec
        .as_ref()
        .and_then(|s| serde_json::to_value(&s.template).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    if let Some(obj) = template.as_object_mut() {
        obj.insert("$patch".into(), "replace".into());
    }
    serde_json::json!({ "spec": { "template": template } })
}

/// `rand.SafeEncodeString`: digits mapped onto consonants and digits that cannot spell words.
pub fn safe_encode_string(s: &str) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    s.bytes()
        .map(|b| ALPHANUMS.get(usize::from(b) % ALPHANUMS.len()).copied().map(char::from).unwrap_or('b'))
        .collect()
}

/// `controller.ComputeHash`: FNV-32a of the pod template and the collision count,
/// safe-encoded. Upstream hashes a Go struct dump (`DeepHashObject`), which cannot be
/// reproduced outside Go, so this hashes the template's JSON instead: same shape
/// (`7854d65948`-like), same properties (stable, changes when the template changes),
/// different digits than a real cluster.
pub fn compute_hash(ds: &DaemonSet, collision_count: Option<i32>) -> String {
    let bytes = ds
        .spec
        .as_ref()
        .and_then(|s| serde_json::to_vec(&s.template).ok())
        .unwrap_or_default();
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    };
    bytes.iter().copied().for_each(&mut feed);
    if let Some(c) = collision_count {
        c.to_le_bytes().iter().copied().for_each(&mut feed);
    }
    safe_encode_string(&h.to_string())
}

fn revision_hash(r: &ControllerRevision) -> &str {
    r.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(CONTROLLER_REVISION_HASH_LABEL))
        .map(String::as_str)
        .unwrap_or("")
}

/// `constructHistory`: the current revision (found by data, or created with revision
/// max(old)+1, or bumped to it on a rollback) and its hash label.
pub fn construct_history(ds: &DaemonSet, revisions: &mut Vec<ControllerRevision>) -> String {
    let patch = get_patch(ds);
    let matches = |r: &ControllerRevision| r.data.as_ref().is_some_and(|d| d.0 == patch);
    let max_old = revisions.iter().filter(|r| !matches(r)).map(|r| r.revision).max().unwrap_or(0);
    if let Some(cur) = revisions.iter_mut().filter(|r| matches(r)).max_by_key(|r| r.revision) {
        if cur.revision < max_old + 1 {
            cur.revision = max_old + 1;
        }
        return revision_hash(cur).to_string();
    }
    let collision_count = ds.status.as_ref().and_then(|s| s.collision_count);
    let hash = compute_hash(ds, collision_count);
    let name = format!("{}-{hash}", ds.metadata.name.as_deref().unwrap_or(""));
    let mut labels = ds
        .spec
        .as_ref()
        .and_then(|s| s.template.metadata.as_ref())
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    labels.insert(CONTROLLER_REVISION_HASH_LABEL.into(), hash.clone());
    let mut revision = ControllerRevision { data: Some(RawExtension(patch)), revision: max_old + 1, ..Default::default() };
    revision.metadata.name = Some(name);
    revision.metadata.namespace = ds.metadata.namespace.clone();
    revision.metadata.labels = Some(labels);
    revisions.push(revision);
    hash
}

/// `cleanupHistory`: deletes the oldest revisions beyond `revisionHistoryLimit` that
/// no live pod still carries.
pub fn cleanup_history<'p>(ds: &DaemonSet, hash: &str, revisions: &mut Vec<ControllerRevision>, pods: impl Iterator<Item = &'p Pod>) {
    let limit = ds.spec.as_ref().and_then(|s| s.revision_history_limit).unwrap_or(10);
    let old = revisions.iter().filter(|r| revision_hash(r) != hash).count();
    let mut to_kill = old.saturating_sub(usize::try_from(limit).unwrap_or(0));
    if to_kill == 0 {
        return;
    }
    let live: std::collections::BTreeSet<&str> = pods.filter_map(|p| pod_label(p, CONTROLLER_REVISION_HASH_LABEL)).collect();
    let mut order: Vec<(i64, String)> = revisions
        .iter()
        .filter(|r| revision_hash(r) != hash && !live.contains(revision_hash(r)))
        .map(|r| (r.revision, r.metadata.name.clone().unwrap_or_default()))
        .collect();
    order.sort();
    let mut doomed = std::collections::BTreeSet::new();
    for (_, name) in order {
        if to_kill == 0 {
            break;
        }
        doomed.insert(name);
        to_kill -= 1;
    }
    revisions.retain(|r| !doomed.contains(r.metadata.name.as_deref().unwrap_or("")));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Percentages round up (50% of 3 = 2) and bad strings are errors, not panics.
    #[test]
    fn scaled_values() {
        let p = |s: &str| IntOrString::String(s.into());
        assert_eq!(get_scaled_value_from_int_or_percent(Some(&p("50%")), 3, true), Ok(2));
        assert_eq!(get_scaled_value_from_int_or_percent(Some(&p("10%")), 5000, true), Ok(500));
        assert_eq!(get_scaled_value_from_int_or_percent(Some(&p("1%")), 3, true), Ok(1));
        assert_eq!(get_scaled_value_from_int_or_percent(Some(&IntOrString::Int(2)), 3, true), Ok(2));
        assert!(get_scaled_value_from_int_or_percent(Some(&p("x")), 3, true).is_err());
        assert!(get_scaled_value_from_int_or_percent(None, 3, true).is_err());
    }

    /// SafeEncodeString maps each digit onto the upstream alphabet.
    #[test]
    fn safe_encode() {
        assert_eq!(safe_encode_string("0123456789"), "456789bcdf");
    }
}
