//! Shared plumbing of the JSON golden runners: iterate a file's cases, name them as
//! the report does, turn a runner's `Result` into a `CaseResult`, and adapt the
//! tests' partial Kubernetes objects to the API types (fill required fields the
//! upstream test helpers leave empty, e.g. container names).

use std::path::Path;

use serde_json::Value;

use super::areas::json_case_names;
use super::report::CaseResult;

/// Runs `check` on every case of `doc`; `Err(why)` fails the case.
pub fn run_cases(
    path: &Path,
    area: &str,
    doc: &Value,
    mut check: impl FnMut(&Value) -> Result<(), String>,
) -> Vec<CaseResult> {
    let names = json_case_names(path, doc);
    let cases = doc.get("cases").and_then(Value::as_array).cloned().unwrap_or_default();
    if cases.is_empty() {
        return vec![CaseResult::failed(area, names.into_iter().next().unwrap_or_default(), "no cases")];
    }
    cases
        .iter()
        .zip(names)
        .map(|(case, name)| match check(case) {
            Ok(()) => CaseResult::passed(area, name),
            Err(why) => CaseResult::failed(area, name, why),
        })
        .collect()
}

/// `Err("expected … actual …")` unless equal.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, expected: T, actual: T) -> Result<(), String> {
    if expected == actual {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected:?}\n   actual {actual:?}"))
    }
}

/// A string field, or an error naming it.
pub fn str_field<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key).and_then(Value::as_str).ok_or_else(|| format!("missing string field {key:?}"))
}

/// Adds what the API types require and the upstream tests omit: `spec.containers`
/// and a name per container.
pub fn complete_pod_json(pod: &Value) -> Value {
    let mut pod = pod.clone();
    if !pod.is_object() {
        pod = serde_json::json!({});
    }
    if let Some(obj) = pod.as_object_mut() {
        let spec = obj.entry("spec").or_insert_with(|| serde_json::json!({}));
        if let Some(spec) = spec.as_object_mut() {
            spec.entry("containers").or_insert_with(|| serde_json::json!([]));
            for list in ["containers", "initContainers"] {
                if let Some(cs) = spec.get_mut(list).and_then(Value::as_array_mut) {
                    for (i, c) in cs.iter_mut().enumerate() {
                        if let Some(c) = c.as_object_mut() {
                            c.entry("name").or_insert_with(|| Value::String(format!("{list}-{i}")));
                        }
                    }
                }
            }
        }
    }
    pod
}

/// A Pod from a test's partial pod.
pub fn pod_from(v: &Value) -> Result<k8s_openapi::api::core::v1::Pod, String> {
    serde_json::from_value(complete_pod_json(v)).map_err(|e| format!("bad pod: {e}"))
}

/// A Node from a test's partial node.
pub fn node_from(v: &Value) -> Result<k8s_openapi::api::core::v1::Node, String> {
    serde_json::from_value(v.clone()).map_err(|e| format!("bad node: {e}"))
}
