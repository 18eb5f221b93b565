//! Golden runner `nodeaffinity`: NodeAffinity's PreFilter (Skip, the node-name
//! result) and Filter.

use std::path::Path;

use gpulab_model::kubernetes::scheduler::node_affinity::{self, NodeAffinityPreFilter};
use gpulab_model::kubernetes::scheduler::{NodeInfo, PodInfo};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::Value;

use super::cases::{expect_eq, node_from, pod_from, run_cases, str_field};
use super::report::CaseResult;

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "nodeaffinity", doc, |case| {
        let input = case.get("input").ok_or("no input")?;
        let node = NodeInfo::new(node_from(input.get("node").ok_or("no node")?)?);
        let pod = PodInfo::new(pod_from(input.get("pod").ok_or("no pod")?)?, true);
        let expected = case.get("expected").ok_or("no expected")?;
        let spec = pod.pod.spec.clone().unwrap_or_default();
        let pre = node_affinity::pre_filter(&spec);
        let pre_code = match pre {
            NodeAffinityPreFilter::Skip => Some("Skip"),
            NodeAffinityPreFilter::Conflict => Some("UnschedulableAndUnresolvable"),
            _ => None,
        };
        if let Some(want) = expected.get("preFilterCode").and_then(Value::as_str) {
            expect_eq("preFilterCode", Some(want), pre_code)?;
        }
        if let Some(want) = expected.get("preFilterResultNodeNames").and_then(Value::as_array) {
            let want: Vec<String> = want.iter().filter_map(Value::as_str).map(str::to_string).collect();
            let got = match &pre {
                NodeAffinityPreFilter::NodeNames(n) => n.clone(),
                _ => vec![],
            };
            expect_eq("preFilterResultNodeNames", want, got)?;
        }
        let got = node_affinity::filter(&pod, &node);
        expect_eq("code", str_field(expected, "code")?, got.map_or("Success", |r| r.code.as_str()))?;
        if let Some(want) = expected.get("reason").and_then(Value::as_str) {
            let reasons = got.map(|r| r.reasons(&pod, &node, KubeVersion::default())).unwrap_or_default();
            expect_eq("reason", vec![want.to_string()], reasons)?;
        }
        Ok(())
    })
}
