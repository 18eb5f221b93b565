//! Golden runner `preemption`: DefaultPreemption.PostFilter on a small cluster
//! (`TestPostFilter`) and the PostFilter plugin runner (`TestPostFilterPlugins`).

use std::path::Path;

use gpulab_model::kubernetes::scheduler::framework::run_post_filter_plugins;
use gpulab_model::kubernetes::scheduler::preemption::post_filter;
use gpulab_model::kubernetes::scheduler::snapshot::BoundPod;
use gpulab_model::kubernetes::scheduler::{Code, CycleState, FilterOptions, NodeInfo, PodInfo, Snapshot, Status};
use serde_json::{json, Value};

use super::cases::{expect_eq, node_from, pod_from, run_cases, str_field};
use super::report::CaseResult;

/// The value the upstream test injects as the reason of a failing plugin.
const INJECT_REASON: &str = "<injectReason>";

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "preemption", doc, |case| {
        let input = case.get("input").ok_or("no input")?;
        if input.get("postFilterPlugins").is_some() {
            check_plugins(case)
        } else {
            check_post_filter(case)
        }
    })
}

fn check_plugins(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let mut results = Vec::new();
    for p in input.get("postFilterPlugins").and_then(Value::as_array).into_iter().flatten() {
        let code = Code::parse(str_field(p, "returns")?).ok_or("unknown code")?;
        let reasons: Vec<&str> = if code == Code::Success { vec![] } else { vec![INJECT_REASON] };
        results.push((str_field(p, "name")?.to_string(), Status::new(code, reasons)));
    }
    let got = run_post_filter_plugins(results);
    let expected = case.get("expected").ok_or("no expected")?;
    expect_eq("code", str_field(expected, "code")?, got.code.as_str())?;
    if let Some(plugin) = expected.get("plugin").and_then(Value::as_str) {
        expect_eq("plugin", Some(plugin), got.plugin.as_deref())?;
    }
    if let Some(reasons) = expected.get("reasons").and_then(Value::as_array) {
        let want: Vec<&str> = reasons.iter().filter_map(Value::as_str).collect();
        expect_eq("reasons", want, got.reasons.iter().map(String::as_str).collect())?;
    }
    if let Some(msg) = expected.get("message").and_then(Value::as_str) {
        expect_eq("message", msg, got.message().as_str())?;
    }
    Ok(())
}

/// A pod of the test helper: name, priority, one container with the requests.
fn test_pod(v: &Value) -> Result<k8s_openapi::api::core::v1::Pod, String> {
    let requests = v.get("requests").cloned().unwrap_or(json!({}));
    pod_from(&json!({
        "metadata": {"name": v.get("name").cloned().unwrap_or(json!("")), "namespace": "default"},
        "spec": {
            "priority": v.get("priority").cloned().unwrap_or(json!(0)),
            "nodeName": v.get("nodeName").cloned().unwrap_or(Value::Null),
            "containers": [{"name": "c", "resources": {"requests": requests}}]
        }
    }))
}

fn check_post_filter(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let mut nodes = Vec::new();
    for n in input.get("nodes").and_then(Value::as_array).into_iter().flatten() {
        let mut res = n.get("capacityAndAllocatable").cloned().unwrap_or(json!({}));
        if let Some(m) = res.as_object_mut() {
            m.entry("pods").or_insert(json!("32"));
        }
        nodes.push(node_from(&json!({
            "metadata": {"name": n.get("name").cloned().unwrap_or(json!(""))},
            "status": {"capacity": res.clone(), "allocatable": res}
        }))?);
    }
    let mut snapshot = Snapshot { nodes: nodes.into_iter().map(NodeInfo::new).collect(), pod_level_resources: true };
    for p in input.get("existingPods").and_then(Value::as_array).into_iter().flatten() {
        let pod = test_pod(p)?;
        let node = str_field(p, "nodeName")?;
        let i = snapshot.index_of(node).ok_or_else(|| format!("unknown node {node}"))?;
        let bound = BoundPod::of(&pod, true);
        if let Some(n) = snapshot.nodes.get_mut(i) {
            n.add_pod(bound);
        }
    }
    let pod = PodInfo::new(test_pod(input.get("pod").ok_or("no pod")?)?, true);
    let statuses = input.get("filteredNodesStatuses").and_then(Value::as_object);
    let codes: Vec<Option<Code>> = snapshot
        .nodes
        .iter()
        .map(|n| statuses.and_then(|s| s.get(&n.name)).and_then(Value::as_str).and_then(Code::parse))
        .collect();
    let state = CycleState { skip_node_affinity: true, skip_node_ports: true, dra: None };
    let got = post_filter(&snapshot, &pod, &codes, &state, &FilterOptions::default());
    let expected = case.get("expected").ok_or("no expected")?;
    expect_eq("code", str_field(expected, "code")?, got.status.code.as_str())?;
    expect_eq("message", str_field(expected, "message")?, got.status.message().as_str())?;
    let nominated = expected.get("nominatedNodeName").and_then(Value::as_str).filter(|s| !s.is_empty());
    expect_eq("nominatedNodeName", nominated, got.nominated_node.as_deref())
}
