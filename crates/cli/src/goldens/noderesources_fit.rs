//! Golden runner `noderesources_fit`: NodeResourcesFit's Filter and `fitsRequest` on
//! one node with existing pods, on 1.34+ and (for `code_before_1_34`) on 1.33.

use std::collections::BTreeSet;
use std::path::Path;

use gpulab_model::kubernetes::scheduler::noderesources_fit::{filter, fits_request};
use gpulab_model::kubernetes::scheduler::snapshot::BoundPod;
use gpulab_model::kubernetes::scheduler::{FitArgs, NodeInfo, PodInfo};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::{json, Value};

use super::cases::{expect_eq, node_from, pod_from, run_cases, str_field};
use super::report::CaseResult;

/// The DeviceClass fixture of upstream's fit_test.go DRA cases maps this name.
const DRA_FIXTURE_RESOURCE: &str = "extended.resource.dra.io/something";

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "noderesources_fit", doc, check)
}

fn strings(v: Option<&Value>) -> BTreeSet<String> {
    v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

fn check(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let mut node = NodeInfo::new(node_from(input.get("node").ok_or("no node")?)?);
    for (i, p) in input.get("existingPods").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let pod = pod_from(&json!({
            "metadata": {"name": format!("existing-{i}")},
            "spec": {"containers": [{"name": "c", "resources": {"requests": p.get("requests").cloned().unwrap_or(json!({}))}}]}
        }))?;
        node.add_pod(BoundPod::of(&pod, true));
    }
    let pod = PodInfo::new(pod_from(input.get("pod").ok_or("no pod")?)?, true);
    let args_v = input.get("args");
    let dra_on =
        input.get("features").and_then(|f| f.get("DRAExtendedResource")).and_then(Value::as_bool) == Some(true);
    let args = FitArgs {
        ignored_resources: strings(args_v.and_then(|a| a.get("ignoredResources"))),
        ignored_resource_groups: strings(args_v.and_then(|a| a.get("ignoredResourceGroups"))),
        dra_extended_resources: dra_on.then(|| {
            let mut s = strings(input.get("deviceClassExtendedResources"));
            if s.is_empty() {
                s.insert(DRA_FIXTURE_RESOURCE.to_string());
            }
            s
        }),
    };
    let expected = case.get("expected").ok_or("no expected")?;

    let verdict = |v: KubeVersion| -> (String, Vec<String>) {
        match filter(&pod.request, &node, &args, v) {
            None => ("Success".into(), vec![]),
            Some(r) => (r.code.as_str().into(), r.reasons(&pod, &node, v)),
        }
    };
    let (code, reasons) = verdict(KubeVersion::V1_35);
    expect_eq("code", str_field(expected, "code")?, code.as_str())?;
    let want: Vec<String> = strings_vec(expected.get("reasons"));
    expect_eq("reasons", want.clone(), reasons)?;
    if let Some(before) = expected.get("code_before_1_34").and_then(Value::as_str) {
        let (code, reasons) = verdict(KubeVersion::V1_33);
        expect_eq("code on 1.33", before, code.as_str())?;
        expect_eq("reasons on 1.33", want, reasons)?;
    }
    if let Some(list) = expected.get("insufficientResources").and_then(Value::as_array) {
        let got = fits_request(&pod.request, &node, &args);
        let want: Vec<(String, String, i64, i64, i64, bool)> = list
            .iter()
            .map(|r| {
                (
                    r.get("resourceName").and_then(Value::as_str).unwrap_or("").to_string(),
                    r.get("reason").and_then(Value::as_str).unwrap_or("").to_string(),
                    r.get("requested").and_then(Value::as_i64).unwrap_or(0),
                    r.get("used").and_then(Value::as_i64).unwrap_or(0),
                    r.get("capacity").and_then(Value::as_i64).unwrap_or(0),
                    r.get("unresolvable").and_then(Value::as_bool).unwrap_or(false),
                )
            })
            .collect();
        let got: Vec<_> = got
            .into_iter()
            .map(|r| (r.resource_name, r.reason, r.requested, r.used, r.capacity, r.unresolvable))
            .collect();
        expect_eq("insufficientResources", want, got)?;
    }
    Ok(())
}

fn strings_vec(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}
