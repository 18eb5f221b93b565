//! Reading the Kubernetes objects of the k8s goldens into k8s-openapi types. The
//! goldens hold "only the fields the test sets", but k8s-openapi requires the fields
//! the API requires (a container's `name`, a port's `containerPort`, a DaemonSet's
//! `selector` and `template`, the always-present status counters); those are filled
//! with their zero values first.

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, PodSpec};
use serde_json::{json, Value};

fn default_field(obj: &mut Value, key: &str, value: Value) {
    if let Some(map) = obj.as_object_mut() {
        map.entry(key.to_string()).or_insert(value);
    }
}

/// Fills a pod spec's required fields.
pub fn fill_pod_spec(spec: &mut Value) {
    default_field(spec, "containers", json!([]));
    for list in ["containers", "initContainers"] {
        for c in spec.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            default_field(c, "name", json!(""));
            for p in c.get_mut("ports").and_then(Value::as_array_mut).into_iter().flatten() {
                default_field(p, "containerPort", json!(0));
            }
        }
    }
}

pub fn pod_spec(value: &Value) -> Result<PodSpec, String> {
    let mut v = value.clone();
    fill_pod_spec(&mut v);
    serde_json::from_value(v).map_err(|e| format!("pod spec: {e}"))
}

pub fn node(value: &Value) -> Result<Node, String> {
    serde_json::from_value(value.clone()).map_err(|e| format!("node: {e}"))
}

/// A node that is only a name (`"node-0"`) or a whole Node object.
pub fn node_or_name(value: &Value) -> Result<Node, String> {
    match value.as_str() {
        Some(name) => node(&json!({ "metadata": { "name": name } })),
        None => node(value),
    }
}

pub fn daemon_set(value: &Value) -> Result<DaemonSet, String> {
    let mut v = value.clone();
    default_field(&mut v, "spec", json!({}));
    if let Some(spec) = v.get_mut("spec") {
        default_field(spec, "selector", json!({}));
        default_field(spec, "template", json!({}));
        if let Some(pod) = spec.get_mut("template").and_then(|t| t.get_mut("spec")) {
            fill_pod_spec(pod);
        }
    }
    if let Some(status) = v.get_mut("status") {
        for key in ["currentNumberScheduled", "desiredNumberScheduled", "numberMisscheduled", "numberReady"] {
            default_field(status, key, json!(0));
        }
    }
    serde_json::from_value(v).map_err(|e| format!("daemon set: {e}"))
}
