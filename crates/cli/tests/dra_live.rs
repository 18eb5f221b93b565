//! DRA against the real control plane (`--features real-kube`; the `kube-oracle`
//! binary must exist): each case of `tests/dra/cases/` — Nodes, a DeviceClass,
//! ResourceSlices, claims and templates, then pods in order — is written through the
//! API (no driver, no kubelet: the slices are written as a driver would, the nodes made
//! Ready as a kubelet would), and every pod's end — the node and the devices its claims
//! got, every FailedScheduling text, the claim controller's warning, or waiting unseen in
//! the queue — is compared with `gpulab_model::kubernetes::dra::apply::create_pod` on
//! the same files. A difference fails the test.
//!
//! Then every DRA scenario of `scenarios/` (those with a `dra_driver` node): its
//! files written through the API, the ResourceSlices the model's NVIDIA driver
//! publishes (`dra::nvidia::resource_slices`) written as the driver would — and
//! withdrawn, or republished at the next generation after a MIG re-partition, as the
//! scenario's steps say — and after each step every scheduling field the scenario
//! expects of a pod (`node_name`, `devices`, and `message` / `event_reason` where
//! the model's event is the scheduler's or the claim controller's) compared with the
//! model's run of the same scenario. The kubelet's side (`phase`,
//! `FailedPrepareDynamicResources`) has no real counterpart here (no kubelet).
#![cfg(feature = "real-kube")]

mod support;
#[path = "dra/scenarios.rs"]
mod scenarios;

use std::path::Path;
use std::time::{Duration, Instant};

use gpulab::cluster::{Cluster, Options, DEFAULT_RELEASE};
use gpulab_model::kubernetes::dra::apply::{create_pod, Applied};
use gpulab_model::kubernetes::dra::dynamicresources::State;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::{load, Manifests};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::{json, Value};
use support::kube_api::Api;
use support::TempDir;

fn cases_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dra/cases")
}

/// A case's file read for namespace `ns`.
fn read_case(name: &str, ns: &str) -> (Manifests, String) {
    let path = cases_dir().join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap().replace("namespace: default", &format!("namespace: {ns}"));
    let (m, diags) = load(&path.display().to_string(), &text);
    assert!(diags.is_empty(), "{diags:?}");
    (m, text)
}

/// The claim the scheduler made for a pod's extended resources (DRAExtendedResource):
/// its generateName, annotation, requests (`name:class×count`) and the pod's
/// request mappings (`container/resource->request`); empty without one.
fn extended(claim: Option<&Value>, pod_status: &Value) -> String {
    let Some(c) = claim else { return String::new() };
    let requests: Vec<String> = c["spec"]["devices"]["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| format!("{}:{}x{}", r["name"].as_str().unwrap_or(""), r["exactly"]["deviceClassName"].as_str().unwrap_or(""), r["exactly"]["count"]))
        .collect();
    let mappings: Vec<String> = pod_status["extendedResourceClaimStatus"]["requestMappings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| format!("{}/{}->{}", m["containerName"].as_str().unwrap_or(""), m["resourceName"].as_str().unwrap_or(""), m["requestName"].as_str().unwrap_or("")))
        .collect();
    let annotation = &c["metadata"]["annotations"]["resource.kubernetes.io/extended-resource-claim"];
    format!(
        " extended={} {annotation} requests={} mappings={} finalizers={}",
        c["metadata"]["generateName"].as_str().unwrap_or(""),
        requests.join(","),
        mappings.join(","),
        c["metadata"]["finalizers"]
    )
}

/// `request:pool/device` of every allocated device of `claims`, sorted.
fn devices<'a>(claims: impl Iterator<Item = &'a Value>) -> String {
    let mut out: Vec<String> = claims
        .flat_map(|c| c["status"]["allocation"]["devices"]["results"].as_array().cloned().unwrap_or_default())
        .map(|r| format!("{}:{}/{}", r["request"].as_str().unwrap_or(""), r["pool"].as_str().unwrap_or(""), r["device"].as_str().unwrap_or("")))
        .collect();
    out.sort();
    out.join(",")
}

/// The model's end for every pod of the case, in order.
fn model(m: &Manifests, version: KubeVersion) -> Vec<(String, String)> {
    let (objects, diags) = gpulab_model::kubernetes::dra::read(m);
    assert!(diags.is_empty(), "{diags:?}");
    let mut state = State::from(objects);
    let mut snapshot = Snapshot::new(m.nodes.iter().map(|n| n.object.clone()), &[]);
    let opts = FilterOptions { version, ..Default::default() };
    let mut out = Vec::new();
    for p in &m.pods {
        let name = p.object.metadata.name.clone().unwrap();
        let applied = create_pod(&mut state, &mut snapshot, p.object.clone(), &[], &opts, 0).unwrap();
        let end = match &applied {
            Applied::ClaimNotCreated { event, .. } => format!("event={}", event.message),
            Applied::Waiting { .. } => "waiting".to_string(),
            Applied::Cycle { scheduled, deallocated: Some((_, first)), .. } => match &scheduled.result.outcome {
                Outcome::Unschedulable { message, .. } => format!("failed={first} | {message}"),
                _ => panic!("{name}: a pod bound after a deallocation is not among the cases"),
            },
            Applied::Cycle { scheduled, .. } => match &scheduled.result.outcome {
                Outcome::Scheduled { node, .. } => {
                    let pod = applied.pod();
                    let mut claims: Vec<Value> = state.pod_claims(pod).unwrap().into_iter().map(|c| serde_json::to_value(c).unwrap()).collect();
                    let ext = state.extended_claim(pod).map(|c| serde_json::to_value(c).unwrap());
                    claims.extend(ext.clone());
                    let status = serde_json::to_value(&pod.status).unwrap();
                    format!("node={node} devices={}{}", devices(claims.iter()), extended(ext.as_ref(), &status))
                }
                Outcome::Unschedulable { message, .. } | Outcome::Error { message } => format!("failed={message}"),
            },
        };
        out.push((name, end));
    }
    out
}

fn api_path(kind: &str, ns: &str) -> String {
    match kind {
        "Node" => "/api/v1/nodes".into(),
        "Pod" => format!("/api/v1/namespaces/{ns}/pods"),
        "DeviceClass" => "/apis/resource.k8s.io/v1/deviceclasses".into(),
        "ResourceSlice" => "/apis/resource.k8s.io/v1/resourceslices".into(),
        "ResourceClaim" => format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims"),
        "ResourceClaimTemplate" => format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates"),
        other => panic!("no path for {other}"),
    }
}

/// Polls `f` every 200 ms until it returns `Some` or `secs` pass.
fn poll<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The real end of one pod just created.
fn real_end(api: &Api, ns: &str, pod: &str) -> String {
    let path = format!("/api/v1/namespaces/{ns}/pods/{pod}");
    let condition = |p: &Value| {
        p["status"]["conditions"].as_array().and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled").cloned())
    };
    let first = poll(8, || {
        let p = api.get(&path);
        (p["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty()) || condition(&p).is_some()).then_some(p)
    });
    let Some(mut p) = first else {
        let events = api.get(&format!("/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name={pod}"));
        let warning = events["items"].as_array().unwrap().iter().find(|e| e["reason"] == "FailedResourceClaimCreation").cloned();
        return match warning {
            Some(e) => format!("event={}", e["message"].as_str().unwrap()),
            None => "waiting".into(),
        };
    };
    if let Some(node) = p["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        let statuses = p["status"]["resourceClaimStatuses"].as_array().cloned().unwrap_or_default();
        let mut claims: Vec<Value> = p["spec"]["resourceClaims"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| {
                let name = c["resourceClaimName"].as_str().map(str::to_string).or_else(|| {
                    statuses.iter().find(|s| s["name"] == c["name"]).and_then(|s| s["resourceClaimName"].as_str().map(str::to_string))
                })?;
                Some(api.get(&format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/{name}")))
            })
            .collect();
        // The scheduler's extended-resource claim, named in the pod's status by PreBind.
        let ext = p["status"]["extendedResourceClaimStatus"]["resourceClaimName"]
            .as_str()
            .map(|name| api.get(&format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims/{name}")));
        claims.extend(ext.clone());
        return format!("node={node} devices={}{}", devices(claims.iter()), extended(ext.as_ref(), &p["status"]));
    }
    // Unschedulable: the last text once it has stayed 2 s (a deallocation retries at once).
    let mut last = condition(&p).unwrap()["message"].as_str().unwrap_or("").to_string();
    let mut since = Instant::now();
    while since.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(200));
        p = api.get(&path);
        let now = condition(&p).map(|c| c["message"].as_str().unwrap_or("").to_string()).unwrap_or_default();
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
    // Every distinct FailedScheduling text in the order last seen (a deallocation leaves
    // two); the last is the condition's. The scheduler's recorder (client-go
    // `tools/events`) writes an event once and folds a repeat into its series; its key
    // is the type, action, reason, reporter and the `regarding` reference — not the
    // note, so when the pod's second attempt sees the same resourceVersion (its first
    // status update not yet in the scheduler's informer, as on a loaded machine), the
    // second text is recorded as `series.count` 2 of the first and its note is never
    // written. The condition carries the last attempt's text either way. So: the texts
    // in the order of their last observation (`series.lastObservedTime`), read again
    // until they end with the condition's text (the recorder writes after the
    // condition); and if an event's series shows that the last attempt was folded into
    // it, the condition's text is the last attempt's.
    let read = || -> (Vec<String>, bool) {
        let events = api.get(&format!("/api/v1/namespaces/{ns}/events?fieldSelector=involvedObject.name={pod}"));
        let mut items: Vec<Value> = events["items"].as_array().unwrap().iter().filter(|e| e["reason"] == "FailedScheduling").cloned().collect();
        let seen = |e: &Value| {
            e["series"]["lastObservedTime"].as_str().or(e["eventTime"].as_str()).or(e["lastTimestamp"].as_str()).unwrap_or("").to_string()
        };
        items.sort_by_key(seen);
        let folded = items.iter().any(|e| e["series"]["count"].as_i64().unwrap_or(0) >= 2);
        let mut texts: Vec<String> = Vec::new();
        for e in &items {
            let m = e["message"].as_str().unwrap_or("").to_string();
            texts.retain(|t| *t != m);
            texts.push(m);
        }
        (texts, folded)
    };
    let (mut texts, folded) = poll(15, || Some(read()).filter(|(t, _)| t.last() == Some(&last))).unwrap_or_else(read);
    if texts.last() != Some(&last) && folded {
        texts.retain(|t| *t != last);
        texts.push(last.clone());
    }
    assert_eq!(texts.last(), Some(&last), "{pod}: the last FailedScheduling event is the condition's text (events: {texts:?})");
    format!("failed={}", texts.join(" | "))
}

/// The case written through the API; each pod's real end.
fn real(api: &Api, m: &Manifests, ns: &str) -> Vec<(String, String)> {
    api.call("POST", "/api/v1/namespaces", Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))).unwrap();
    api.wait_for("the namespace's default service account", &format!("/api/v1/namespaces/{ns}/serviceaccounts/default"), |_| true);
    for n in &m.nodes {
        let name = n.object.metadata.name.clone().unwrap();
        api.call("POST", "/api/v1/nodes", Some(serde_json::to_value(&n.object).unwrap())).unwrap();
        // As a kubelet and the node lifecycle controller would: Ready, no not-ready taint.
        api.call("PATCH", &format!("/api/v1/nodes/{name}"), Some(json!({"spec": {"taints": null}}))).unwrap();
        let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}]}});
        api.call("PATCH", &format!("/api/v1/nodes/{name}/status"), Some(ready)).unwrap();
    }
    for kind in ["DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim"] {
        for d in m.deferred.iter().filter(|d| d.kind == kind) {
            let created = api.call("POST", &api_path(kind, ns), Some(d.value.clone())).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
            if kind == "ResourceClaim" && !d.value["status"].is_null() {
                let name = created["metadata"]["name"].as_str().unwrap();
                api.call("PATCH", &format!("{}/{name}/status", api_path(kind, ns)), Some(json!({"status": d.value["status"]}))).unwrap();
            }
        }
    }
    std::thread::sleep(Duration::from_secs(1)); // the scheduler's informers
    let mut out = Vec::new();
    for p in &m.pods {
        let name = p.object.metadata.name.clone().unwrap();
        api.call("POST", &api_path("Pod", ns), Some(serde_json::to_value(&p.object).unwrap())).unwrap();
        out.push((name.clone(), real_end(api, ns, &name)));
    }
    out
}

/// What a case leaves, removed so the next one sees only its own nodes and devices.
fn clean(api: &Api, m: &Manifests, ns: &str) {
    for p in &m.pods {
        let name = p.object.metadata.name.clone().unwrap();
        let _ = api.call("DELETE", &format!("/api/v1/namespaces/{ns}/pods/{name}?gracePeriodSeconds=0"), None);
    }
    for n in &m.nodes {
        let _ = api.call("DELETE", &format!("/api/v1/nodes/{}", n.object.metadata.name.clone().unwrap()), None);
    }
    for d in m.deferred.iter().filter(|d| d.kind == "DeviceClass" || d.kind == "ResourceSlice") {
        let _ = api.call("DELETE", &format!("{}/{}", api_path(&d.kind, ns), d.value["metadata"]["name"].as_str().unwrap()), None);
    }
    let gone = poll(20, || {
        let nodes = api.get("/api/v1/nodes");
        let classes = api.get("/apis/resource.k8s.io/v1/deviceclasses");
        (nodes["items"].as_array().unwrap().is_empty() && classes["items"].as_array().unwrap().is_empty()).then_some(())
    });
    assert!(gone.is_some(), "the case's nodes and classes are not gone");
    std::thread::sleep(Duration::from_secs(1));
}

/// Every case on the real v1.37.2 scheduler, controller manager and API server, and
/// on the model at 1.37: the same end for every pod.
#[test]
fn dra_cases_agree_with_the_real_control_plane() {
    let tmp = TempDir::new("dra-live");
    let mut o = Options::new(DEFAULT_RELEASE).unwrap();
    assert!(o.binary.is_file(), "no {}: `scripts/oracle-kube.sh {DEFAULT_RELEASE}` builds it", o.binary.display());
    o.dir = tmp.0.join("c");
    let c = Cluster::start(o).unwrap_or_else(|e| panic!("{e}"));
    let api = Api::new(&c.kubeconfig());
    let version: KubeVersion = c.release().parse().unwrap();
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.path().file_stem()?.to_str().map(str::to_string))
        .collect();
    names.sort();
    let (mut agree, mut differ) = (0, Vec::new());
    for name in &names {
        let ns = format!("dra-{name}");
        let (m, _) = read_case(name, &ns);
        let want = model(&m, version);
        let got = real(&api, &m, &ns);
        for ((pod, model), (_, real)) in want.iter().zip(&got) {
            if model == real {
                agree += 1;
                eprintln!("agree  {name}/{pod}: {real}");
            } else {
                eprintln!("DIFFER {name}/{pod}:\n  model: {model}\n  real:  {real}");
                differ.push(format!("{name}/{pod}"));
            }
        }
        assert_eq!(want.len(), got.len(), "{name}");
        clean(&api, &m, &ns);
    }
    eprintln!("{} cases, {agree} pods agree, {} differ", names.len(), differ.len());
    let (fields_agree, scenario_differ, compared) = scenarios::compare_all(&api);
    eprintln!("{compared} DRA scenarios, {fields_agree} scheduling fields agree, {} differ", scenario_differ.len());
    differ.extend(scenario_differ);
    let lines = c.stop();
    assert!(lines.iter().all(|l| l.contains("stopped (SIGTERM)")), "{lines:?}");
    assert!(differ.is_empty(), "model and real differ: {differ:?}");
}
