//! Golden runner `nodeunschedulable`: NodeUnschedulable's Filter.

use std::path::Path;

use gpulab_model::kubernetes::scheduler::{node_unschedulable, NodeInfo, PodInfo};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::Value;

use super::cases::{expect_eq, node_from, pod_from, run_cases, str_field};
use super::report::CaseResult;

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "nodeunschedulable", doc, |case| {
        let input = case.get("input").ok_or("no input")?;
        let node = NodeInfo::new(node_from(input.get("node").ok_or("no node")?)?);
        let pod = PodInfo::new(pod_from(input.get("pod").ok_or("no pod")?)?, true);
        let expected = case.get("expected").ok_or("no expected")?;
        let got = node_unschedulable::filter(&pod, &node);
        expect_eq("code", str_field(expected, "code")?, got.map_or("Success", |r| r.code.as_str()))?;
        if let Some(want) = expected.get("reason").and_then(Value::as_str) {
            let reasons = got.map(|r| r.reasons(&pod, &node, KubeVersion::default())).unwrap_or_default();
            expect_eq("reason", vec![want.to_string()], reasons)?;
        }
        Ok(())
    })
}
