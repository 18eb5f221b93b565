//! Runner for `daemonset_node_should_run.json`: `NodeShouldRunDaemonPod` for the
//! case's node and DaemonSet template, under both update strategies (the upstream test
//! runs every case for OnDelete and RollingUpdate with the same expectation).
//! `podsOnNode` is not read: the controller checks neither resources nor host ports.

use std::path::Path;

use gpulab_model::daemonset::node_should_run_daemon_pod;
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde_json::Value;

use super::cases::run_cases;
use super::k8s_objects::{node, pod_spec};
use super::report::CaseResult;

const AREA: &str = "daemonset_node_should_run";

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, AREA, doc, check)
}

fn check(case: &Value) -> Result<(), String> {
    let input = &case["input"];
    let node = node(&input["node"])?;
    let spec = pod_spec(&input["daemonSetTemplateSpec"])?;
    let want = (
        case["expected"]["shouldRun"].as_bool().ok_or("expected.shouldRun missing")?,
        case["expected"]["shouldContinueRunning"].as_bool().ok_or("expected.shouldContinueRunning missing")?,
    );
    let labels: std::collections::BTreeMap<String, String> =
        [("name", "simple-daemon"), ("type", "production")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    for strategy in ["OnDelete", "RollingUpdate"] {
        let ds = DaemonSet {
            metadata: ObjectMeta { name: Some("simple-daemon".into()), namespace: Some("default".into()), ..Default::default() },
            spec: Some(DaemonSetSpec {
                selector: LabelSelector { match_labels: Some(labels.clone()), match_expressions: None },
                template: PodTemplateSpec {
                    metadata: Some(ObjectMeta { labels: Some(labels.clone()), ..Default::default() }),
                    spec: Some(spec.clone()),
                },
                update_strategy: Some(DaemonSetUpdateStrategy { type_: Some(strategy.into()), rolling_update: None }),
                ..Default::default()
            }),
            status: None,
        };
        let got = node_should_run_daemon_pod(&node, &ds);
        if got != want {
            return Err(format!("{strategy}: expected (shouldRun, shouldContinueRunning) = {want:?}\n   actual {got:?}"));
        }
    }
    Ok(())
}
