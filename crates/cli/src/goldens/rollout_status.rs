//! Runner for `rollout_status.json`: `DaemonSetStatusViewer.Status` on each input
//! DaemonSet, compared with the expected message and done flag, or the error.

use std::path::Path;

use gpulab_model::daemonset::rollout_status;
use serde_json::Value;

use super::cases::run_cases;
use super::k8s_objects::daemon_set;
use super::report::CaseResult;

const AREA: &str = "rollout_status";

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, AREA, doc, check)
}

fn check(case: &Value) -> Result<(), String> {
    let ds = daemon_set(&case["input"]["daemonSet"])?;
    let expected = &case["expected"];
    let actual = rollout_status(&ds);
    match (expected.get("error").and_then(Value::as_str), actual) {
        (Some(want), Err(got)) if want == got => Ok(()),
        (Some(want), other) => Err(format!("expected error {want:?}\n   actual {other:?}")),
        (None, Err(e)) => Err(format!("unexpected error {e:?}")),
        (None, Ok(status)) => {
            let want_message = expected["message"].as_str().unwrap_or_default();
            let want_done = expected["done"].as_bool().unwrap_or(false);
            if status.message == want_message && status.done == want_done {
                Ok(())
            } else {
                Err(format!("expected {want_message:?} done={want_done}\n   actual {:?} done={}", status.message, status.done))
            }
        }
    }
}
