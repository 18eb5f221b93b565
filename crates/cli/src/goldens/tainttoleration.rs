//! Golden runner `tainttoleration`: TaintToleration's Filter, with the 1.35+ reason
//! and the legacy 1.33 reason that names the taint.

use std::path::Path;

use gpulab_model::kubernetes::scheduler::{taint_toleration, NodeInfo, PodInfo};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::Value;

use super::cases::{expect_eq, node_from, pod_from, run_cases, str_field};
use super::report::CaseResult;

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "tainttoleration", doc, check)
}

fn check(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let node = NodeInfo::new(node_from(input.get("node").ok_or("no node")?)?);
    let pod = PodInfo::new(pod_from(input.get("pod").ok_or("no pod")?)?, true);
    let expected = case.get("expected").ok_or("no expected")?;
    let got = taint_toleration::filter(&pod, &node);
    let code = got.map_or("Success", |r| r.code.as_str());
    expect_eq("code", str_field(expected, "code")?, code)?;
    for (key, version) in [("reason", KubeVersion::V1_35), ("reason_legacy", KubeVersion::V1_33)] {
        if let Some(want) = expected.get(key).and_then(Value::as_str) {
            let reasons = got.map(|r| r.reasons(&pod, &node, version)).unwrap_or_default();
            expect_eq(key, vec![want.to_string()], reasons)?;
        }
    }
    Ok(())
}
