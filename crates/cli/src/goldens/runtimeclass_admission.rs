//! Golden runner `runtimeclass_admission`: the RuntimeClass admission plugin's
//! Admit / Validate and their parts (`setOverhead`, `setScheduling`,
//! `validateOverhead`).

use std::path::Path;

use gpulab_model::kubernetes::runtimeclass::{self, ApiError, RuntimeClassSource};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;
use serde_json::Value;

use super::cases::{complete_pod_json, expect_eq, pod_from, run_cases, str_field};
use super::report::CaseResult;

pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    run_cases(path, "runtimeclass_admission", doc, check)
}

/// A RuntimeClass from a test's partial object (`handler` is required by the type).
fn runtime_class(v: &Value) -> Result<Option<RuntimeClass>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let mut v = v.clone();
    if let Some(m) = v.as_object_mut() {
        m.entry("handler").or_insert(Value::String(String::new()));
    }
    serde_json::from_value(v).map(Some).map_err(|e| format!("bad runtimeClass: {e}"))
}

fn runtime_classes(v: Option<&Value>) -> Result<Vec<RuntimeClass>, String> {
    let mut out = Vec::new();
    for rc in v.and_then(Value::as_array).into_iter().flatten() {
        out.extend(runtime_class(rc)?);
    }
    Ok(out)
}

/// The informer cache and the API server of TestAdmit.
struct Sources {
    cache: Vec<RuntimeClass>,
    api_server: Vec<RuntimeClass>,
}

impl RuntimeClassSource for Sources {
    fn get_cached(&self, name: &str) -> Option<RuntimeClass> {
        self.cache.get_cached(name)
    }
    fn get_live(&self, name: &str) -> Option<RuntimeClass> {
        self.api_server.get_live(name)
    }
}

/// A pod as JSON after a round trip through the API type, so that expected and
/// actual are compared in one shape.
fn normalized(pod: &Pod) -> Value {
    let mut v = serde_json::to_value(pod).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.remove("apiVersion");
        m.remove("kind");
    }
    v
}

fn check(case: &Value) -> Result<(), String> {
    let input = case.get("input").ok_or("no input")?;
    let expected = case.get("expected").ok_or("no expected")?;
    let step = str_field(input, "step")?;
    let mut pod = pod_from(input.get("pod").ok_or("no pod")?)?;
    let rc = runtime_class(input.get("runtimeClass").unwrap_or(&Value::Null))?;
    let listed = runtime_class(input.get("runtimeClassListedInTest").unwrap_or(&Value::Null))?;
    let mut sources = Sources {
        cache: runtime_classes(input.get("informerCache"))?,
        api_server: runtime_classes(input.get("apiServer"))?,
    };
    for r in rc.iter().chain(listed.iter()) {
        sources.cache.push(r.clone());
        sources.api_server.push(r.clone());
    }
    let result: Result<(), ApiError> = match step.split_whitespace().next().unwrap_or("") {
        "setOverhead" => runtimeclass::set_overhead(&mut pod, rc.as_ref()),
        "setScheduling" => runtimeclass::set_scheduling(&mut pod, rc.as_ref()),
        "validateOverhead" => runtimeclass::validate_overhead(&pod, rc.as_ref()),
        "Admit" => runtimeclass::admit(&mut pod, &sources),
        "Validate" => runtimeclass::validate(&pod, &sources),
        other => return Err(format!("unknown step {other:?}")),
    };
    let want_error = expected.get("error").and_then(Value::as_bool).unwrap_or(false);
    expect_eq("error", want_error, result.is_err())?;
    if let Err(e) = &result {
        if let Some(msg) = expected.get("errorMessage").and_then(Value::as_str) {
            expect_eq("errorMessage", msg, e.message.as_str())?;
        }
        if let Some(reason) = expected.get("errorReason").and_then(Value::as_str) {
            expect_eq("errorReason", reason, e.reason)?;
        }
    }
    if let Some(want) = expected.get("pod") {
        let want: Pod =
            serde_json::from_value(complete_pod_json(want)).map_err(|e| format!("bad expected pod: {e}"))?;
        expect_eq("pod", normalized(&want), normalized(&pod))?;
    }
    if let Some(want) = expected.get("pod_spec_overhead") {
        let got =
            pod.spec.as_ref().and_then(|s| s.overhead.as_ref()).map(|o| serde_json::to_value(o).unwrap_or(Value::Null));
        expect_eq("spec.overhead", Some(want.clone()), got)?;
    }
    Ok(())
}
