//! Runner for `daemonset_rolling_update.json`.
//!
//! Sequence cases (`TestDaemonSetUpdates*`) replay upstream's test: the DaemonSet of
//! `newDaemonSet("foo")`, the first sync, the template/strategy change, then the steps,
//! comparing each sync's creations, deletions and controller events. Because upstream
//! visits nodes in Go map order, every sequence case is run in list order and under
//! three seeded orders, and must pass in all of them.
//!
//! `TestGetUnavailableNumbers` cases call `updatedDesiredNodeCounts` directly.

use std::collections::BTreeMap;
use std::path::Path;

use gpulab_model::daemonset::pod::{get_target_node_name, pod_label, CONTROLLER_REVISION_HASH_LABEL};
use gpulab_model::daemonset::{updated_desired_node_counts, DaemonPodPredicates, DaemonSetsController, NodeOrder};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy};
use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;

use super::cases::run_cases;
use super::k8s_objects::node_or_name;
use super::report::CaseResult;

const AREA: &str = "daemonset_rolling_update";

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, AREA, doc, check)
}

fn check(case: &Value) -> Result<(), String> {
    let input = &case["input"];
    if input.get("steps").is_some() {
        for order in [NodeOrder::Listed, NodeOrder::Seeded(1), NodeOrder::Seeded(2), NodeOrder::Seeded(3)] {
            run_sequence(input, order.clone()).map_err(|e| format!("node order {order:?}: {e}"))?;
        }
        Ok(())
    } else {
        check_unavailable_numbers(input, &case["expected"])
    }
}

/// `newDaemonSet(name)` of `daemon_controller_test.go`.
fn new_daemon_set(name: &str) -> DaemonSet {
    let labels: BTreeMap<String, String> =
        [("name", "simple-daemon"), ("type", "production")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    DaemonSet {
        metadata: ObjectMeta { name: Some(name.into()), namespace: Some("default".into()), uid: Some(format!("uid-{name}")), ..Default::default() },
        spec: Some(DaemonSetSpec {
            revision_history_limit: Some(2),
            update_strategy: Some(DaemonSetUpdateStrategy { type_: Some("OnDelete".into()), rolling_update: None }),
            selector: LabelSelector { match_labels: Some(labels.clone()), match_expressions: None },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta { labels: Some(labels), ..Default::default() }),
                spec: Some(PodSpec {
                    containers: vec![Container { name: String::new(), image: Some("foo/bar".into()), ..Default::default() }],
                    dns_policy: Some("Default".into()),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        status: None,
    }
}

/// The case's nodes: names or Node objects; taints may also come as
/// `nodeTaints: {node: [taint…]}` (upstream's `setNodeTaint`).
fn nodes(input: &Value) -> Result<Vec<k8s_openapi::api::core::v1::Node>, String> {
    let mut nodes: Vec<k8s_openapi::api::core::v1::Node> =
        input["nodes"].as_array().into_iter().flatten().map(node_or_name).collect::<Result<_, _>>()?;
    for (name, taints) in input["nodeTaints"].as_object().into_iter().flatten() {
        let taints = serde_json::from_value(taints.clone()).map_err(|e| format!("nodeTaints.{name}: {e}"))?;
        let node = nodes.iter_mut().find(|n| n.metadata.name.as_deref() == Some(name)).ok_or(format!("nodeTaints: no node {name}"))?;
        node.spec.get_or_insert_with(Default::default).taints = Some(taints);
    }
    Ok(nodes)
}

/// Applies an `update` / `updateDaemonSet` object to the DaemonSet.
fn apply_update(ds: &mut DaemonSet, update: &Value) -> Result<(), String> {
    let spec = ds.spec.get_or_insert_with(Default::default);
    for (key, value) in update.as_object().into_iter().flatten() {
        match key.as_str() {
            "action" => {}
            "template.containers[0].image" => {
                let image = value.as_str().ok_or("image is not a string")?.to_string();
                let pod = spec.template.spec.get_or_insert_with(Default::default);
                match pod.containers.first_mut() {
                    Some(c) => c.image = Some(image),
                    None => return Err("template has no container".into()),
                }
            }
            "template.tolerations" | "tolerations" => {
                let pod = spec.template.spec.get_or_insert_with(Default::default);
                pod.tolerations = serde_json::from_value(value.clone()).map_err(|e| format!("tolerations: {e}"))?;
            }
            "updateStrategy" => {
                spec.update_strategy = Some(serde_json::from_value(value.clone()).map_err(|e| format!("updateStrategy: {e}"))?);
            }
            "minReadySeconds" => spec.min_ready_seconds = value.as_i64().and_then(|v| i32::try_from(v).ok()),
            other => return Err(format!("unsupported update key {other:?}")),
        }
    }
    Ok(())
}

fn expect_sync(ctl: &mut DaemonSetsController, expect: &Value, what: &str) -> Result<(), String> {
    let result = ctl.sync();
    if let Some(e) = &result.error {
        return Err(format!("{what}: sync error {e}"));
    }
    let want = |k: &str| expect[k].as_u64().unwrap_or(0) as usize;
    let got = (result.creates(), result.deleted.len(), result.controller_events);
    let wanted = (want("creates"), want("deletes"), want("events"));
    if got != wanted {
        return Err(format!("{what}: expected (creates, deletes, events) = {wanted:?}\n   actual {got:?}"));
    }
    Ok(())
}

/// The pods a `which` phrase selects (the closures upstream's test passes to
/// `setPodReadiness`).
type PodFilter = Box<dyn Fn(&Pod) -> bool>;

fn pod_filter(ctl: &mut DaemonSetsController, which: &str) -> Result<PodFilter, String> {
    let hash = ctl.current_hash();
    if which == "all" {
        return Ok(Box::new(|_| true));
    }
    if which.contains("current revision hash") {
        return Ok(Box::new(move |p| pod_label(p, CONTROLLER_REVISION_HASH_LABEL) == Some(hash.as_str())));
    }
    if which.contains("old pod") && which.contains("no updated pod") {
        let updated_nodes: std::collections::BTreeSet<String> = ctl
            .pods
            .values()
            .filter(|p| pod_label(p, CONTROLLER_REVISION_HASH_LABEL) == Some(hash.as_str()))
            .filter_map(|p| get_target_node_name(p).map(str::to_string))
            .collect();
        return Ok(Box::new(move |p| {
            pod_label(p, CONTROLLER_REVISION_HASH_LABEL) != Some(hash.as_str())
                && get_target_node_name(p).is_some_and(|n| !updated_nodes.contains(n))
        }));
    }
    Err(format!("unsupported pod selection {which:?}"))
}

fn run_sequence(input: &Value, order: NodeOrder) -> Result<(), String> {
    let mut ds = new_daemon_set("foo");
    // Upstream sets some cases up before the first sync (`setDaemonSetToleration`,
    // a surge strategy from the start): `input.daemonSet` holds those changes.
    if input["daemonSet"].is_object() {
        apply_update(&mut ds, &input["daemonSet"])?;
    }
    let mut ctl = DaemonSetsController::new(ds, nodes(input)?, order, 42);
    let initial = &input["initial"];
    expect_sync(&mut ctl, &initial["sync"], "initial sync")?;
    if initial["markAllPodsReady"].as_bool() == Some(true) {
        ctl.set_pod_readiness(true, usize::MAX, |_| true);
    }
    apply_update(&mut ctl.ds, &input["update"])?;
    for (i, step) in input["steps"].as_array().into_iter().flatten().enumerate() {
        let what = format!("step {i} ({})", step["action"].as_str().unwrap_or("?"));
        match step["action"].as_str().unwrap_or("") {
            "sync" => expect_sync(&mut ctl, &step["expect"], &what)?,
            "markAllPodsReady" => {
                ctl.set_pod_readiness(true, usize::MAX, |_| true);
            }
            action @ ("markPodsReady" | "markPodsNotReady") => {
                let ready = action == "markPodsReady";
                let count = step["count"].as_u64().unwrap_or(0) as usize;
                let filter = pod_filter(&mut ctl, step["which"].as_str().unwrap_or("all"))?;
                let saved = ctl.now;
                if let Some(t) = step["readySinceUnix"].as_i64() {
                    ctl.now = t;
                }
                let changed = ctl.set_pod_readiness(ready, count, filter);
                ctl.now = saved;
                if changed != count {
                    return Err(format!("{what}: could not mark {} pods ready={ready}", count - changed));
                }
            }
            "setClock" => ctl.now = step["unix"].as_i64().ok_or(format!("{what}: unix missing"))?,
            "updateDaemonSet" => apply_update(&mut ctl.ds, step)?,
            other => return Err(format!("{what}: unsupported action {other:?}")),
        }
    }
    Ok(())
}

fn check_unavailable_numbers(input: &Value, expected: &Value) -> Result<(), String> {
    let mut ds = new_daemon_set("x");
    if let Some(spec) = ds.spec.as_mut() {
        spec.update_strategy = Some(serde_json::from_value(input["updateStrategy"].clone()).map_err(|e| format!("updateStrategy: {e}"))?);
    }
    let nodes = nodes(input)?;
    let predicates = DaemonPodPredicates::new(&ds);
    let should_run: Vec<String> = nodes
        .iter()
        .filter(|n| predicates.node_should_run_daemon_pod(n).0)
        .map(|n| n.metadata.name.clone().unwrap_or_default())
        .collect();
    let mut node_to_pods: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (node, pods) in input["nodeToPods"].as_object().into_iter().flatten() {
        let names = pods.as_array().into_iter().flatten().filter_map(|p| p["name"].as_str().map(str::to_string)).collect();
        node_to_pods.insert(node.clone(), names);
    }
    let counts = updated_desired_node_counts(&ds, should_run, &mut node_to_pods)?;
    let empty = node_to_pods.values().filter(|p| p.is_empty()).count();
    let want = |k: &str| expected[k].as_u64().map(|v| v as usize);
    let mut diffs = Vec::new();
    for (key, got) in [("maxSurge", counts.max_surge), ("maxUnavailable", counts.max_unavailable), ("emptyNodes", empty), ("desiredNumberScheduled", counts.desired_number_scheduled)] {
        if let Some(w) = want(key) {
            if w != got {
                diffs.push(format!("{key}: expected {w}, actual {got}"));
            }
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("\n"))
    }
}
