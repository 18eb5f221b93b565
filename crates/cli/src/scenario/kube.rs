//! The kube backend's skeleton, sans I/O (kube-core style): the safety rule for the
//! kubeconfig context, the run's own namespace, and the HTTP requests a replay sends —
//! create the namespace, apply the scenario's objects (namespaced ones into the run's
//! namespace, cluster-scoped ones labelled with the run), write GPU capacity into a
//! node's status with a JSON patch (as the "Advertise Extended Resources for a Node"
//! task does), and delete everything it created. Nothing here talks to a cluster: the
//! transport (kube-rs or a plain HTTPS client) is not built yet, so `--backend kube`
//! refuses to run and says so.

// The transport that will call these is not built yet; the tests exercise them.
#![allow(dead_code)]

use serde_json::{json, Value};

/// The label every object a run creates carries (`gpulab.dev/run=<run id>`).
pub const RUN_LABEL: &str = "gpulab.dev/run";

/// One request to the API server.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: &'static str,
    /// Path and query, e.g. `/api/v1/namespaces`.
    pub path: String,
    pub content_type: Option<&'static str>,
    pub body: Option<Value>,
}

/// Refuses a context that is not a lab cluster unless explicitly allowed.
pub fn check_context(context: &str, allow_non_lab_cluster: bool) -> Result<(), String> {
    if context.starts_with("kind-") || context.starts_with("kwok-") || allow_non_lab_cluster {
        Ok(())
    } else {
        Err(format!("refusing context {context:?}: it does not start with `kind-` or `kwok-`; pass --context {context} --allow-non-lab-cluster to use it anyway"))
    }
}

/// The run's namespace: `gpulab-<scenario>-<run>`, a DNS-1123 label (≤ 63 characters).
pub fn namespace(scenario: &str, run: &str) -> String {
    let clean = |s: &str| s.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
    let mut ns = format!("gpulab-{}-{}", clean(scenario), clean(run));
    ns.truncate(63);
    ns.trim_end_matches('-').to_string()
}

pub fn create_namespace(ns: &str, run: &str) -> Request {
    Request {
        method: "POST",
        path: "/api/v1/namespaces".into(),
        content_type: Some("application/json"),
        body: Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns, "labels": {RUN_LABEL: run}}})),
    }
}

/// Where objects of `kind` are created; `None` for kinds the lab does not apply.
fn collection(kind: &str, ns: &str) -> Option<(String, bool)> {
    Some(match kind {
        "Pod" => (format!("/api/v1/namespaces/{ns}/pods"), true),
        "ConfigMap" => (format!("/api/v1/namespaces/{ns}/configmaps"), true),
        "DaemonSet" => (format!("/apis/apps/v1/namespaces/{ns}/daemonsets"), true),
        "RuntimeClass" => ("/apis/node.k8s.io/v1/runtimeclasses".into(), false),
        _ => return None,
    })
}

/// Creates `object` (a manifest as JSON) for run `run`: namespaced kinds go into `ns`
/// whatever their manifest says; every object gets the run label.
pub fn create(object: &Value, ns: &str, run: &str) -> Result<Request, String> {
    let kind = object["kind"].as_str().unwrap_or_default();
    let (path, namespaced) = collection(kind, ns).ok_or_else(|| format!("kind {kind:?} is not applied by the kube backend"))?;
    let mut body = object.clone();
    let meta = body.as_object_mut().ok_or("a manifest is an object")?.entry("metadata").or_insert_with(|| json!({}));
    if namespaced {
        meta["namespace"] = json!(ns);
    } else if let Some(m) = meta.as_object_mut() {
        m.remove("namespace");
    }
    meta["labels"][RUN_LABEL] = json!(run);
    Ok(Request { method: "POST", path, content_type: Some("application/json"), body: Some(body) })
}

/// JSON-patches `nvidia.com/gpu` into a node's status capacity (and allocatable).
pub fn patch_node_gpus(node: &str, gpus: u32) -> Request {
    let value = gpus.to_string();
    Request {
        method: "PATCH",
        path: format!("/api/v1/nodes/{node}/status"),
        content_type: Some("application/json-patch+json"),
        body: Some(json!([
            {"op": "add", "path": "/status/capacity/nvidia.com~1gpu", "value": value},
            {"op": "add", "path": "/status/allocatable/nvidia.com~1gpu", "value": value},
        ])),
    }
}

/// What a run deletes when it ends (success, failure, Ctrl-C): its namespace (and with it
/// every namespaced object) and the cluster-scoped objects carrying its label.
pub fn cleanup(ns: &str, run: &str) -> Vec<Request> {
    let selector = format!("{RUN_LABEL}%3D{run}");
    vec![
        Request { method: "DELETE", path: format!("/apis/node.k8s.io/v1/runtimeclasses?labelSelector={selector}"), content_type: None, body: None },
        Request { method: "DELETE", path: format!("/api/v1/namespaces/{ns}"), content_type: None, body: None },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only kind-/kwok- contexts are used unless explicitly allowed.
    #[test]
    fn context_safety() {
        let cases = [("kind-lab", false, true), ("kwok-x", false, true), ("prod-eu", false, false), ("prod-eu", true, true), ("kindly", false, false)];
        for (ctx, allow, ok) in cases {
            assert_eq!(check_context(ctx, allow).is_ok(), ok, "{ctx}");
        }
    }

    /// The namespace is a DNS-1123 label derived from scenario and run.
    #[test]
    fn namespace_is_a_dns_label() {
        assert_eq!(namespace("incident", "20261129t1930"), "gpulab-incident-20261129t1930");
        assert_eq!(namespace("Dropin_containerd-1.6", "r1"), "gpulab-dropin-containerd-1-6-r1");
        let long = namespace(&"x".repeat(80), "r");
        assert!(long.len() <= 63 && !long.ends_with('-'));
    }

    /// Namespaced objects are forced into the run's namespace; cluster-scoped ones lose
    /// any namespace; both carry the run label; unknown kinds are refused.
    #[test]
    fn create_requests() {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "dp", "namespace": "kube-system"}});
        let r = create(&ds, "gpulab-incident-r1", "r1").unwrap();
        assert_eq!(r.path, "/apis/apps/v1/namespaces/gpulab-incident-r1/daemonsets");
        assert_eq!(r.body.as_ref().unwrap()["metadata"]["namespace"], "gpulab-incident-r1");
        assert_eq!(r.body.as_ref().unwrap()["metadata"]["labels"][RUN_LABEL], "r1");
        let rc = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia", "namespace": "x"}, "handler": "nvidia"});
        let r = create(&rc, "ns", "r1").unwrap();
        assert_eq!(r.path, "/apis/node.k8s.io/v1/runtimeclasses");
        assert!(r.body.as_ref().unwrap()["metadata"].get("namespace").is_none());
        assert!(create(&json!({"kind": "Node", "metadata": {"name": "n"}}), "ns", "r1").is_err());
    }

    /// The GPU capacity patch escapes the `/` of the resource name (RFC 6901).
    #[test]
    fn node_status_patch() {
        let r = patch_node_gpus("gpu-node-1", 4);
        assert_eq!((r.method, r.path.as_str(), r.content_type), ("PATCH", "/api/v1/nodes/gpu-node-1/status", Some("application/json-patch+json")));
        assert_eq!(r.body.unwrap()[0]["path"], "/status/capacity/nvidia.com~1gpu");
    }

    /// Cleanup deletes the labelled RuntimeClasses and the namespace, nothing else.
    #[test]
    fn cleanup_is_scoped() {
        let reqs = cleanup("gpulab-incident-r1", "r1");
        assert!(reqs.iter().all(|r| r.method == "DELETE"));
        assert!(reqs[0].path.ends_with("labelSelector=gpulab.dev/run%3Dr1"));
        assert_eq!(reqs[1].path, "/api/v1/namespaces/gpulab-incident-r1");
    }
}
