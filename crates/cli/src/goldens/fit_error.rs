//! Golden runner `fit_error`: `FitError.Error()` from explicit per-node statuses, the
//! absent-nodes status and the PreFilter/PostFilter messages.

use std::path::Path;

use gpulab_model::kubernetes::scheduler::{Code, Diagnosis, FitError, Status};
use serde_json::Value;

use super::cases::{expect_eq, run_cases, str_field};
use super::report::CaseResult;

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "fit_error", doc, check)
}

fn status(v: &Value) -> Result<Status, String> {
    let code = Code::parse(str_field(v, "code")?).ok_or("unknown status code")?;
    let reasons = v.get("reasons").and_then(Value::as_array).cloned().unwrap_or_default();
    Ok(Status::new(code, reasons.iter().filter_map(Value::as_str).map(str::to_string)))
}

fn check(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let mut node_to_status = Vec::new();
    for (node, s) in input.get("nodeToStatus").and_then(Value::as_object).into_iter().flatten() {
        node_to_status.push((node.clone(), status(s)?));
    }
    let absent = input.get("absentNodesStatus").map(status).transpose()?;
    let fit_error = FitError {
        num_all_nodes: input.get("numAllNodes").and_then(Value::as_u64).ok_or("no numAllNodes")? as usize,
        diagnosis: Diagnosis {
            node_to_status,
            absent_nodes_status: absent,
            pre_filter_msg: input.get("preFilterMsg").and_then(Value::as_str).unwrap_or("").to_string(),
            post_filter_msg: input.get("postFilterMsg").and_then(Value::as_str).unwrap_or("").to_string(),
        },
    };
    let expected = case.get("expected").ok_or("no expected")?;
    expect_eq("message", str_field(expected, "message")?, fit_error.message().as_str())
}
