//! Every HTTP request the kube backend sends, built sans I/O with kube-core's
//! [`kube::core::Request`] (kube-rs' own request builder) on the paths kube-core derives
//! from the typed k8s-openapi objects ([`kube::Resource::url_path`]): no URL table of our
//! own. A pure function returns an `http::Request<Vec<u8>>` and the tests assert its
//! method, path, query and body. The transport ([`super::backend`]) only sends what is
//! built here.
//!
//! - the run's namespace (a typed `Namespace`), labelled `gpulab.dev/run=<run>`;
//! - server-side apply (`PATCH …?force=true&fieldManager=gpulab`,
//!   `application/apply-patch+yaml`) of the scenario's objects: namespaced kinds forced
//!   into the run's namespace, cluster-scoped kinds (RuntimeClass, Node) labelled with the
//!   run;
//! - GPU capacity written into a node's status with a JSON patch on the `status`
//!   subresource, as the "Advertise Extended Resources for a Node" task does;
//! - the simulated kubelet's writes for nodes with no kubelet: node Ready condition, pod
//!   status, and the kubelet's Events (typed `Event`s);
//! - reads (get, list pods, the events of one pod) and deletes;
//! - cleanup: the run's labelled cluster-scoped objects, then the namespace.
//!
//! Patch bodies (a node's status, a pod's status, taints) stay JSON: a patch is a partial
//! object, which a typed object would fill with its `apiVersion`, `kind` and an empty
//! `metadata`.

use std::any::TypeId;

use http::Request;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
use k8s_openapi::api::core::v1::{ConfigMap, Event, EventSource, Namespace, Node, ObjectReference, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::NamespaceResourceScope;
use kube::core::params::{DeleteParams, GetParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy};
use kube::Resource;
use serde_json::{json, Value};

/// The label every object a run creates carries (`gpulab.dev/run=<run id>`).
pub const RUN_LABEL: &str = "gpulab.dev/run";
/// Server-side apply's field manager.
pub const FIELD_MANAGER: &str = "gpulab";

/// One kind the lab applies, reads or deletes: its names and where it lives, all read
/// off its k8s-openapi type.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    /// [`kube::Resource::url_path`] of the type: its collection, in a namespace or not.
    url_path: fn(Option<&str>) -> String,
}

impl PartialEq for Kind {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

fn kind_of<K>() -> Kind
where
    K: k8s_openapi::Resource + Resource<DynamicType = ()> + 'static,
{
    Kind {
        kind: <K as k8s_openapi::Resource>::KIND,
        plural: <K as k8s_openapi::Resource>::URL_PATH_SEGMENT,
        namespaced: TypeId::of::<<K as k8s_openapi::Resource>::Scope>() == TypeId::of::<NamespaceResourceScope>(),
        url_path: |ns| K::url_path(&(), ns),
    }
}

/// The kinds the lab applies, reads or deletes.
pub fn kinds() -> [Kind; 8] {
    [
        kind_of::<Pod>(),
        kind_of::<ConfigMap>(),
        kind_of::<Event>(),
        kind_of::<DaemonSet>(),
        kind_of::<Deployment>(),
        kind_of::<RuntimeClass>(),
        kind_of::<Node>(),
        kind_of::<Namespace>(),
    ]
}

/// A kind by its name (`DaemonSet`) or its lower-case plural or singular (`daemonsets`,
/// `daemonset`, as `kubectl delete` takes it).
pub fn kind(name: &str) -> Result<Kind, String> {
    let lower = name.to_ascii_lowercase();
    let all = kinds();
    all.iter()
        .find(|k| k.kind == name || k.plural == lower || k.kind.to_ascii_lowercase() == lower)
        .copied()
        .ok_or_else(|| format!("kind {name:?} is not handled by the kube backend (known: {})", all.iter().map(|k| k.kind).collect::<Vec<_>>().join(", ")))
}

/// kube-core's request builder on `kind`'s collection (in `ns` when namespaced).
fn on(kind: &Kind, ns: &str) -> kube::core::Request {
    kube::core::Request::new((kind.url_path)(kind.namespaced.then_some(ns)))
}

/// What kube-core built, as the backend always sent it: `Accept: application/json` on
/// every request, and the query without the empty pairs kube-core's serializer leaves
/// (`…/pods?` when its parameters added nothing, `?&force=true…` before the first pair).
fn finish(r: Result<Request<Vec<u8>>, kube::core::request::Error>) -> Result<Request<Vec<u8>>, String> {
    let mut r = r.map_err(|e| format!("request: {e}"))?;
    if let Some(query) = r.uri().query().filter(|q| q.is_empty() || q.starts_with('&')) {
        let pairs = query.trim_start_matches('&');
        let uri = if pairs.is_empty() { r.uri().path().to_string() } else { format!("{}?{pairs}", r.uri().path()) };
        *r.uri_mut() = uri.parse().map_err(|e| format!("request {uri}: {e}"))?;
    }
    r.headers_mut().insert(http::header::ACCEPT, http::HeaderValue::from_static("application/json"));
    Ok(r)
}

fn bytes(v: &impl serde::Serialize) -> Result<Vec<u8>, String> {
    serde_json::to_vec(v).map_err(|e| e.to_string())
}

fn labels(run: &str) -> Option<std::collections::BTreeMap<String, String>> {
    Some([(RUN_LABEL.to_string(), run.to_string())].into())
}

/// The run's namespace, labelled with the run.
pub fn create_namespace(ns: &str, run: &str) -> Result<Request<Vec<u8>>, String> {
    let namespace = Namespace { metadata: ObjectMeta { name: Some(ns.into()), labels: labels(run), ..ObjectMeta::default() }, ..Namespace::default() };
    finish(on(&kind_of::<Namespace>(), "").create(&PostParams::default(), bytes(&namespace)?))
}

/// `object` (a manifest as JSON) prepared for run `run`: namespaced kinds go into `ns`
/// whatever their manifest says; every object gets the run label; `status` is dropped
/// (apply does not write it). Returns the kind, the name and the object.
pub fn prepare(object: &Value, ns: &str, run: &str) -> Result<(Kind, String, Value), String> {
    let k = kind(object["kind"].as_str().unwrap_or_default())?;
    let name = object["metadata"]["name"].as_str().ok_or("a manifest without metadata.name")?.to_string();
    let mut body = object.clone();
    let obj = body.as_object_mut().ok_or("a manifest is a mapping")?;
    obj.remove("status");
    let meta = obj.entry("metadata").or_insert_with(|| json!({}));
    let meta = meta.as_object_mut().ok_or("metadata is a mapping")?;
    if k.namespaced {
        meta.insert("namespace".into(), json!(ns));
    } else {
        meta.remove("namespace");
    }
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    labels.as_object_mut().ok_or("metadata.labels is a mapping")?.insert(RUN_LABEL.into(), json!(run));
    Ok((k, name, body))
}

/// Server-side apply of a prepared object (see [`prepare`]).
pub fn apply(kind: &Kind, name: &str, ns: &str, object: &Value) -> Result<Request<Vec<u8>>, String> {
    finish(on(kind, ns).patch(name, &PatchParams::apply(FIELD_MANAGER).force(), &Patch::Apply(object)))
}

/// `GET` one object.
pub fn get(kind: &Kind, name: &str, ns: &str) -> Result<Request<Vec<u8>>, String> {
    finish(on(kind, ns).get(name, &GetParams::default()))
}

/// `DELETE` one object (`kubectl delete KIND NAME`), in the foreground with no grace
/// period, as a lab wants it gone now.
pub fn delete(kind: &Kind, name: &str, ns: &str) -> Result<Request<Vec<u8>>, String> {
    let now = DeleteParams { grace_period_seconds: Some(0), propagation_policy: Some(PropagationPolicy::Background), ..DeleteParams::default() };
    finish(on(kind, ns).delete(name, &now))
}

/// Every pod of the run's namespace.
pub fn list_pods(ns: &str) -> Result<Request<Vec<u8>>, String> {
    finish(on(&kind_of::<Pod>(), ns).list(&ListParams::default()))
}

/// The events whose involved object is pod `pod`.
pub fn list_events(ns: &str, pod: &str) -> Result<Request<Vec<u8>>, String> {
    list_events_of(ns, "Pod", pod)
}

/// The events whose involved object is the `kind` named `name` (e.g. a DaemonSet's
/// `FailedCreate`).
pub fn list_events_of(ns: &str, kind: &str, name: &str) -> Result<Request<Vec<u8>>, String> {
    let selector = format!("involvedObject.kind={kind},involvedObject.name={name}");
    finish(on(&kind_of::<Event>(), ns).list(&ListParams::default().fields(&selector)))
}

/// A JSON patch (RFC 6902) of a node's `status` subresource.
fn patch_node_status(node: &str, ops: Value) -> Result<Request<Vec<u8>>, String> {
    let ops = Patch::<()>::Json(serde_json::from_value(ops).map_err(|e| e.to_string())?);
    finish(on(&kind_of::<Node>(), "").patch_subresource("status", node, &PatchParams::default(), &ops))
}

/// JSON-patches `nvidia.com/gpu` into a node's status capacity and allocatable (`0`
/// when the device plugin advertises nothing, as the kubelet leaves it).
pub fn patch_node_gpus(node: &str, gpus: i64) -> Result<Request<Vec<u8>>, String> {
    let value = gpus.to_string();
    patch_node_status(
        node,
        json!([
            {"op": "add", "path": "/status/capacity/nvidia.com~1gpu", "value": value},
            {"op": "add", "path": "/status/allocatable/nvidia.com~1gpu", "value": value},
        ]),
    )
}

/// Takes `nvidia.com/gpu` out of a node's status again (cleanup of a node the run did not
/// create).
pub fn unpatch_node_gpus(node: &str) -> Result<Request<Vec<u8>>, String> {
    patch_node_status(
        node,
        json!([
            {"op": "remove", "path": "/status/capacity/nvidia.com~1gpu"},
            {"op": "remove", "path": "/status/allocatable/nvidia.com~1gpu"},
        ]),
    )
}

/// The simulated kubelet's node status: capacity and allocatable of the manifest, and the
/// Ready condition (heartbeat `now`, RFC 3339).
pub fn node_status(node: &str, capacity: &Value, allocatable: &Value, ready: bool, now: &str) -> Result<Request<Vec<u8>>, String> {
    let (status, reason, message) = if ready {
        ("True", "KubeletReady", "kubelet is posting ready status (simulated by gpulab)")
    } else {
        ("False", "KubeletNotReady", "container runtime is down (simulated by gpulab from the node's containerd)")
    };
    let body = json!({"status": {
        "capacity": capacity,
        "allocatable": allocatable,
        "conditions": [
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "message": "kubelet has sufficient memory available", "lastHeartbeatTime": now, "lastTransitionTime": now},
            {"type": "DiskPressure", "status": "False", "reason": "KubeletHasNoDiskPressure", "message": "kubelet has no disk pressure", "lastHeartbeatTime": now, "lastTransitionTime": now},
            {"type": "PIDPressure", "status": "False", "reason": "KubeletHasSufficientPID", "message": "kubelet has sufficient PID available", "lastHeartbeatTime": now, "lastTransitionTime": now},
            {"type": "Ready", "status": status, "reason": reason, "message": message, "lastHeartbeatTime": now, "lastTransitionTime": now},
        ],
    }});
    finish(on(&kind_of::<Node>(), "").patch_subresource("status", node, &PatchParams::default(), &Patch::Strategic(body)))
}

/// Replaces a node's taints (a JSON merge patch of `spec.taints`): the simulated node
/// lifecycle controller's write (see [`super::node_lifecycle`]).
pub fn node_taints(node: &str, taints: &[Value]) -> Result<Request<Vec<u8>>, String> {
    let body = json!({"spec": {"taints": taints}});
    finish(on(&kind_of::<Node>(), "").patch(node, &PatchParams::default(), &Patch::Merge(body)))
}

/// What the simulated kubelet reports for a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodReport {
    /// The sandbox and the containers started.
    Running { containers: Vec<String> },
    /// The sandbox could not be created: the containers wait in `ContainerCreating`.
    ContainerCreating { containers: Vec<String> },
}

/// The simulated kubelet's pod status patch.
pub fn pod_status(ns: &str, pod: &str, report: &PodReport, now: &str) -> Result<Request<Vec<u8>>, String> {
    let (phase, ready, statuses): (&str, &str, Vec<Value>) = match report {
        PodReport::Running { containers } => (
            "Running",
            "True",
            containers.iter().map(|c| json!({"name": c, "ready": true, "restartCount": 0, "image": "", "imageID": "", "started": true, "state": {"running": {"startedAt": now}}})).collect(),
        ),
        PodReport::ContainerCreating { containers } => (
            "Pending",
            "False",
            containers.iter().map(|c| json!({"name": c, "ready": false, "restartCount": 0, "image": "", "imageID": "", "started": false, "state": {"waiting": {"reason": "ContainerCreating"}}})).collect(),
        ),
    };
    let body = json!({"status": {
        "phase": phase,
        "startTime": now,
        "conditions": [
            {"type": "Initialized", "status": "True", "lastTransitionTime": now},
            {"type": "Ready", "status": ready, "lastTransitionTime": now},
            {"type": "ContainersReady", "status": ready, "lastTransitionTime": now},
        ],
        "containerStatuses": statuses,
    }});
    finish(on(&kind_of::<Pod>(), ns).patch_subresource("status", pod, &PatchParams::default(), &Patch::Strategic(body)))
}

/// The simulated kubelet finalises a terminating pod: its containers are gone, so it
/// deletes the pod with no grace period, on the condition that it is still the same pod
/// (`preconditions.uid`), as the kubelet's status manager does.
pub fn finalize_pod(ns: &str, pod: &str, uid: &str) -> Result<Request<Vec<u8>>, String> {
    let same = DeleteParams {
        grace_period_seconds: Some(0),
        preconditions: Some(Preconditions { uid: Some(uid.into()), resource_version: None }),
        ..DeleteParams::default()
    };
    finish(on(&kind_of::<Pod>(), ns).delete(pod, &same))
}

/// An Event the simulated kubelet records for a pod.
#[derive(Debug, Clone, Copy)]
pub struct PodEvent<'a> {
    pub ns: &'a str,
    pub pod: &'a str,
    pub uid: &'a str,
    pub node: &'a str,
    /// `FailedCreatePodSandBox`, `Started`.
    pub reason: &'a str,
    pub message: &'a str,
    pub warning: bool,
    pub run: &'a str,
    pub now: &'a str,
    /// Makes the Event's name unique within the run.
    pub seq: u32,
}

/// Creates the Event `e` (labelled with the run).
pub fn pod_event(e: &PodEvent<'_>) -> Result<Request<Vec<u8>>, String> {
    let PodEvent { ns, pod, uid, node, reason, message, warning, run, now, seq } = *e;
    let at = Time(now.parse().map_err(|err| format!("event time {now:?}: {err}"))?);
    let event = Event {
        metadata: ObjectMeta { name: Some(format!("{pod}.gpulab{seq}")), namespace: Some(ns.into()), labels: labels(run), ..ObjectMeta::default() },
        involved_object: ObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some(pod.into()),
            namespace: Some(ns.into()),
            uid: Some(uid.into()),
            ..ObjectReference::default()
        },
        reason: Some(reason.into()),
        message: Some(message.into()),
        type_: Some(if warning { "Warning" } else { "Normal" }.into()),
        source: Some(EventSource { component: Some("kubelet".into()), host: Some(node.into()) }),
        reporting_component: Some("kubelet".into()),
        reporting_instance: Some(node.into()),
        first_timestamp: Some(at.clone()),
        last_timestamp: Some(at),
        count: Some(1),
        ..Event::default()
    };
    finish(on(&kind_of::<Event>(), ns).create(&PostParams::default(), bytes(&event)?))
}

/// What a run deletes when it ends (success, failure, Ctrl-C), in order: the
/// cluster-scoped objects carrying its label (RuntimeClasses, the Nodes it created),
/// its pods with no grace period (no kubelet would finalise the pods of a simulated node:
/// they would stay Terminating and keep their node's GPUs), then its namespace and with
/// it every namespaced object.
pub fn cleanup(ns: &str, run: &str) -> Result<Vec<Request<Vec<u8>>>, String> {
    let mine = ListParams::default().labels(&format!("{RUN_LABEL}={run}"));
    let now = DeleteParams { grace_period_seconds: Some(0), ..DeleteParams::default() };
    Ok(vec![
        finish(on(&kind_of::<RuntimeClass>(), "").delete_collection(&DeleteParams::default(), &mine))?,
        finish(on(&kind_of::<Node>(), "").delete_collection(&DeleteParams::default(), &mine))?,
        finish(on(&kind_of::<Pod>(), ns).delete_collection(&now, &ListParams::default()))?,
        finish(on(&kind_of::<Namespace>(), "").delete(ns, &DeleteParams::default()))?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(r: &Request<Vec<u8>>) -> Value {
        serde_json::from_slice(r.body()).unwrap()
    }

    fn head(r: &Request<Vec<u8>>) -> (String, String, Option<String>, Option<String>) {
        let ct = r.headers().get("Content-Type").map(|v| v.to_str().unwrap().to_string());
        (r.method().to_string(), r.uri().path().to_string(), r.uri().query().map(str::to_string), ct)
    }

    /// The paths kube-core derives from the k8s-openapi types are the ones the backend's
    /// own URL table had (pinned here from it), in a namespace and cluster-wide.
    #[test]
    fn kinds_live_where_they_did() {
        let table = [
            ("Pod", "/api/v1/namespaces/ns/pods", true),
            ("ConfigMap", "/api/v1/namespaces/ns/configmaps", true),
            ("Event", "/api/v1/namespaces/ns/events", true),
            ("DaemonSet", "/apis/apps/v1/namespaces/ns/daemonsets", true),
            ("Deployment", "/apis/apps/v1/namespaces/ns/deployments", true),
            ("RuntimeClass", "/apis/node.k8s.io/v1/runtimeclasses", false),
            ("Node", "/api/v1/nodes", false),
            ("Namespace", "/api/v1/namespaces", false),
        ];
        let got: Vec<(&str, String, bool)> = kinds().iter().map(|k| (k.kind, get(k, "x", "ns").unwrap().uri().path().to_string(), k.namespaced)).collect();
        let want: Vec<(&str, String, bool)> = table.iter().map(|(k, p, n)| (*k, format!("{p}/x"), *n)).collect();
        assert_eq!(got, want);
    }

    /// The typed bodies are, as JSON values, the ones the backend wrote by hand before
    /// (pinned here from it); only their keys' order differs (k8s-openapi's, not sorted).
    #[test]
    fn typed_bodies_equal_the_former_json() {
        let ns = create_namespace("gpulab-incident-r1", "r1").unwrap();
        assert_eq!(body(&ns), json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "gpulab-incident-r1", "labels": {RUN_LABEL: "r1"}}}));
        let now = "2026-11-29T21:00:00Z";
        let e = PodEvent { ns: "ns", pod: "p", uid: "uid-1", node: "gpu-node-2", reason: "FailedCreatePodSandBox", message: "m", warning: true, run: "r1", now, seq: 3 };
        assert_eq!(
            body(&pod_event(&e).unwrap()),
            json!({
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": "p.gpulab3", "namespace": "ns", "labels": {RUN_LABEL: "r1"}},
                "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": "ns", "uid": "uid-1"},
                "reason": "FailedCreatePodSandBox",
                "message": "m",
                "type": "Warning",
                "source": {"component": "kubelet", "host": "gpu-node-2"},
                "reportingComponent": "kubelet",
                "reportingInstance": "gpu-node-2",
                "firstTimestamp": now,
                "lastTimestamp": now,
                "count": 1,
            })
        );
    }

    /// Every request asks for JSON, and none has an empty query (`…?`) or an empty first
    /// pair (`?&…`).
    #[test]
    fn every_request_accepts_json_without_an_empty_query() {
        let pod = kind("Pod").unwrap();
        let e = PodEvent { ns: "ns", pod: "p", uid: "u", node: "n", reason: "Started", message: "m", warning: false, run: "r1", now: "2026-11-29T21:00:00Z", seq: 1 };
        let mut all = vec![
            create_namespace("ns", "r1"),
            get(&pod, "p", "ns"),
            delete(&pod, "p", "ns"),
            list_pods("ns"),
            list_events("ns", "p"),
            patch_node_gpus("n", 1),
            unpatch_node_gpus("n"),
            node_taints("n", &[]),
            pod_status("ns", "p", &PodReport::Running { containers: vec!["c".into()] }, "t"),
            finalize_pod("ns", "p", "u"),
            pod_event(&e),
        ];
        all.extend(cleanup("ns", "r1").unwrap().into_iter().map(Ok));
        for r in all {
            let r = r.unwrap();
            assert_eq!(r.headers().get("Accept").map(|v| v.to_str().unwrap()), Some("application/json"), "{}", r.uri());
            assert!(!r.uri().to_string().ends_with('?') && !r.uri().to_string().contains("?&"), "{}", r.uri());
        }
    }

    /// The namespace is created with the run label.
    #[test]
    fn namespace_request() {
        let r = create_namespace("gpulab-incident-r1", "r1").unwrap();
        assert_eq!(head(&r), ("POST".into(), "/api/v1/namespaces".into(), None, Some("application/json".into())));
        assert_eq!(body(&r)["metadata"], json!({"name": "gpulab-incident-r1", "labels": {RUN_LABEL: "r1"}}));
    }

    /// Apply is server-side apply with the lab's field manager and force; namespaced
    /// objects are forced into the run's namespace, cluster-scoped ones lose any
    /// namespace; both carry the run label and lose `status`; unknown kinds are refused.
    #[test]
    fn apply_requests() {
        let ds = json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "dp", "namespace": "kube-system"}, "status": {"numberReady": 3}});
        let (k, name, obj) = prepare(&ds, "gpulab-incident-r1", "r1").unwrap();
        let r = apply(&k, &name, "gpulab-incident-r1", &obj).unwrap();
        assert_eq!(
            head(&r),
            (
                "PATCH".into(),
                "/apis/apps/v1/namespaces/gpulab-incident-r1/daemonsets/dp".into(),
                Some("force=true&fieldManager=gpulab".into()),
                Some("application/apply-patch+yaml".into())
            )
        );
        let b = body(&r);
        assert_eq!(b["metadata"]["namespace"], "gpulab-incident-r1");
        assert_eq!(b["metadata"]["labels"][RUN_LABEL], "r1");
        assert!(b.get("status").is_none());
        let rc = json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "nvidia", "namespace": "x"}, "handler": "nvidia"});
        let (k, name, obj) = prepare(&rc, "ns", "r1").unwrap();
        let r = apply(&k, &name, "ns", &obj).unwrap();
        assert_eq!(r.uri().path(), "/apis/node.k8s.io/v1/runtimeclasses/nvidia");
        assert!(body(&r)["metadata"].get("namespace").is_none());
        assert_eq!(body(&r)["handler"], "nvidia");
        assert!(prepare(&json!({"kind": "Secret", "metadata": {"name": "s"}}), "ns", "r1").is_err());
        assert!(prepare(&json!({"kind": "Pod", "metadata": {}}), "ns", "r1").is_err());
    }

    /// Kinds are found by kind, plural or singular, as `kubectl delete` takes them.
    #[test]
    fn kinds_by_any_name() {
        for (name, plural) in [("Pod", "pods"), ("pod", "pods"), ("daemonsets", "daemonsets"), ("RuntimeClass", "runtimeclasses")] {
            assert_eq!(kind(name).unwrap().plural, plural, "{name}");
        }
        assert!(kind("Secret").unwrap_err().contains("not handled"));
    }

    /// Get and delete address one object; delete sends DeleteOptions with no grace.
    #[test]
    fn get_and_delete() {
        let pod = kind("Pod").unwrap();
        let r = get(&pod, "p", "ns").unwrap();
        assert_eq!(head(&r), ("GET".into(), "/api/v1/namespaces/ns/pods/p".into(), None, None));
        let r = delete(&pod, "p", "ns").unwrap();
        assert_eq!(head(&r).0, "DELETE");
        assert_eq!(r.uri().path(), "/api/v1/namespaces/ns/pods/p");
        assert_eq!(body(&r)["gracePeriodSeconds"], 0);
        let r = delete(&kind("RuntimeClass").unwrap(), "nvidia", "ns").unwrap();
        assert_eq!(r.uri().path(), "/apis/node.k8s.io/v1/runtimeclasses/nvidia");
    }

    /// The events of one pod (or of another object, e.g. a DaemonSet) are selected by involvedObject, escaped.
    #[test]
    fn events_of_a_pod() {
        let r = list_events("ns", "gpu-pod").unwrap();
        assert_eq!(r.uri().path(), "/api/v1/namespaces/ns/events");
        assert_eq!(r.uri().query(), Some("fieldSelector=involvedObject.kind%3DPod%2CinvolvedObject.name%3Dgpu-pod"));
        assert_eq!(list_pods("ns").unwrap().uri().path(), "/api/v1/namespaces/ns/pods");
        let ds = list_events_of("ns", "DaemonSet", "plugin").unwrap();
        assert_eq!(ds.uri().query(), Some("fieldSelector=involvedObject.kind%3DDaemonSet%2CinvolvedObject.name%3Dplugin"));
    }

    /// The GPU capacity patch is a JSON patch on the status subresource and escapes the
    /// `/` of the resource name (RFC 6901); the cleanup patch removes both keys.
    #[test]
    fn node_status_patches() {
        let r = patch_node_gpus("gpu-node-1", 4).unwrap();
        assert_eq!(head(&r), ("PATCH".into(), "/api/v1/nodes/gpu-node-1/status".into(), None, Some("application/json-patch+json".into())));
        assert_eq!(
            body(&r),
            json!([{"op": "add", "path": "/status/capacity/nvidia.com~1gpu", "value": "4"}, {"op": "add", "path": "/status/allocatable/nvidia.com~1gpu", "value": "4"}])
        );
        let r = unpatch_node_gpus("gpu-node-1").unwrap();
        assert_eq!(body(&r)[1], json!({"op": "remove", "path": "/status/allocatable/nvidia.com~1gpu"}));
        let r = node_status("n", &json!({"cpu": "4"}), &json!({"cpu": "4"}), false, "2026-11-29T21:00:00Z").unwrap();
        assert_eq!(head(&r).3.as_deref(), Some("application/strategic-merge-patch+json"));
        let c = &body(&r)["status"]["conditions"][3];
        assert_eq!((c["type"].as_str(), c["status"].as_str(), c["reason"].as_str()), (Some("Ready"), Some("False"), Some("KubeletNotReady")));
    }

    /// The simulated kubelet's pod status: Running with ready containers, or Pending with
    /// every container waiting in ContainerCreating; its events name the kubelet.
    #[test]
    fn simulated_kubelet_writes() {
        let r = pod_status("ns", "p", &PodReport::Running { containers: vec!["c".into()] }, "t").unwrap();
        assert_eq!(r.uri().path(), "/api/v1/namespaces/ns/pods/p/status");
        let b = body(&r);
        assert_eq!(b["status"]["phase"], "Running");
        assert!(b["status"]["containerStatuses"][0]["state"]["running"].is_object());
        let b = body(&pod_status("ns", "p", &PodReport::ContainerCreating { containers: vec!["c".into()] }, "t").unwrap());
        assert_eq!(b["status"]["phase"], "Pending");
        assert_eq!(b["status"]["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
        let e = PodEvent { ns: "ns", pod: "p", uid: "uid-1", node: "gpu-node-2", reason: "FailedCreatePodSandBox", message: "Failed to create pod sandbox: x", warning: true, run: "r1", now: "2026-11-29T21:00:00Z", seq: 3 };
        let r = pod_event(&e).unwrap();
        assert_eq!(head(&r).0, "POST");
        let b = body(&r);
        assert_eq!((b["type"].as_str(), b["source"]["component"].as_str(), b["metadata"]["name"].as_str()), (Some("Warning"), Some("kubelet"), Some("p.gpulab3")));
        assert_eq!(b["involvedObject"]["uid"], "uid-1");
    }

    /// A terminating pod is finalised with no grace period and the uid as precondition.
    #[test]
    fn finalize_request() {
        let r = finalize_pod("ns", "p", "uid-7").unwrap();
        assert_eq!(head(&r), ("DELETE".into(), "/api/v1/namespaces/ns/pods/p".into(), None, Some("application/json".into())));
        assert_eq!(body(&r)["gracePeriodSeconds"], 0);
        assert_eq!(body(&r)["preconditions"]["uid"], "uid-7");
        let r = node_taints("n", &[json!({"key": "k", "effect": "NoSchedule"})]).unwrap();
        assert_eq!(head(&r), ("PATCH".into(), "/api/v1/nodes/n".into(), None, Some("application/merge-patch+json".into())));
        assert_eq!(body(&r)["spec"]["taints"][0]["key"], "k");
    }

    /// Cleanup deletes the labelled RuntimeClasses and Nodes, the run's pods, then the namespace, nothing else.
    #[test]
    fn cleanup_is_scoped() {
        let reqs = cleanup("gpulab-incident-r1", "r1").unwrap();
        assert!(reqs.iter().all(|r| r.method() == http::Method::DELETE));
        let paths: Vec<String> = reqs.iter().map(|r| r.uri().to_string()).collect();
        assert_eq!(
            paths,
            [
                "/apis/node.k8s.io/v1/runtimeclasses?labelSelector=gpulab.dev%2Frun%3Dr1",
                "/api/v1/nodes?labelSelector=gpulab.dev%2Frun%3Dr1",
                "/api/v1/namespaces/gpulab-incident-r1/pods",
                "/api/v1/namespaces/gpulab-incident-r1"
            ]
        );
    }
}
