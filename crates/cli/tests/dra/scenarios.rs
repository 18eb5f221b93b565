//! The DRA scenarios of `scenarios/` on the real control plane (see the module doc
//! of `dra_live.rs`): the real side of each step, and the comparison of the pods'
//! scheduling fields with the model's record of the same scenario.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use gpulab_model::kubernetes::dra::nvidia::{resource_slices, Mig, NodeGpus};
use gpulab_model::kubernetes::yaml::load;
use gpulab_model::scenario::{self, Action, Field, Observed, Scenario};
use gpulab_model::slots::{Geometry, GpuModel, MigCatalog};
use serde_json::{json, Value};

use crate::support::kube_api::Api;
use crate::{api_path, devices, poll};

/// The scenarios with a node that runs NVIDIA's DRA driver.
fn dra_scenarios() -> Vec<Scenario> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().filter_map(|e| Some(e.ok()?.path())).filter(|p| p.join("scenario.toml").is_file()).collect();
    dirs.sort();
    let mut out = Vec::new();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(dir.join("scenario.toml")).unwrap();
        let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).map_err(|e| e.to_string());
        let s = scenario::parse(&name, "scenario.toml", &text, &read).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        if s.nodes.iter().any(|n| n.dra_driver) {
            out.push(s);
        }
    }
    out
}

/// NVIDIA's driver on one node, as the scenario's steps leave it.
struct Driver {
    gpus: NodeGpus,
    running: bool,
}

/// The real side of one scenario in namespace `ns`.
struct Real<'a> {
    api: &'a Api,
    ns: String,
    drivers: BTreeMap<String, Driver>,
}

impl Real<'_> {
    /// Every document of a file: Nodes made Ready, DRA objects and pods created.
    fn apply(&self, source: &str, text: &str) {
        let text = text.replace("namespace: default", &format!("namespace: {}", self.ns));
        let (m, diags) = load(source, &text);
        assert!(diags.is_empty(), "{source}: {diags:?}");
        for n in &m.nodes {
            let name = n.object.metadata.name.clone().unwrap();
            self.api.call("POST", "/api/v1/nodes", Some(serde_json::to_value(&n.object).unwrap())).unwrap();
            self.api.call("PATCH", &format!("/api/v1/nodes/{name}"), Some(json!({"spec": {"taints": null}}))).unwrap();
            let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status"}]}});
            self.api.call("PATCH", &format!("/api/v1/nodes/{name}/status"), Some(ready)).unwrap();
        }
        for kind in ["DeviceClass", "ResourceClaimTemplate", "ResourceClaim"] {
            for d in m.deferred.iter().filter(|d| d.kind == kind) {
                self.api.call("POST", &api_path(kind, &self.ns), Some(d.value.clone())).unwrap_or_else(|e| panic!("{kind}: {e:?}"));
            }
        }
        for p in &m.pods {
            self.api.call("POST", &api_path("Pod", &self.ns), Some(serde_json::to_value(&p.object).unwrap())).unwrap();
        }
    }

    /// The slices of `node`'s pool replaced by what its driver publishes now.
    fn publish(&self, node: &str) {
        let d = &self.drivers[node];
        let all = self.api.get("/apis/resource.k8s.io/v1/resourceslices");
        for s in all["items"].as_array().unwrap().iter().filter(|s| s["spec"]["pool"]["name"] == node) {
            let name = s["metadata"]["name"].as_str().unwrap();
            self.api.call("DELETE", &format!("/apis/resource.k8s.io/v1/resourceslices/{name}"), None).unwrap();
        }
        if d.running {
            let catalog = MigCatalog::embedded().unwrap();
            for s in resource_slices(&d.gpus, None, &catalog).unwrap() {
                self.api.call("POST", "/apis/resource.k8s.io/v1/resourceslices", Some(serde_json::to_value(&s).unwrap())).unwrap_or_else(|e| panic!("slice: {e:?}"));
            }
        }
    }

    /// Do the devices of `node`'s pool appear in a claim's allocation (MIG Manager
    /// finds the GPU busy)?
    fn busy(&self, node: &str) -> bool {
        let claims = self.api.get(&format!("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims", self.ns));
        claims["items"].as_array().unwrap().iter().any(|c| {
            c["status"]["allocation"]["devices"]["results"].as_array().is_some_and(|r| r.iter().any(|r| r["pool"] == node))
        })
    }

    fn act(&mut self, s: &Scenario, action: &Action) {
        match action {
            Action::Apply { file } => self.apply(&file.source, &file.content),
            Action::Delete { kind, name } if kind.starts_with("pod") => {
                let path = format!("/api/v1/namespaces/{}/pods/{name}", self.ns);
                self.api.call("DELETE", &format!("{path}?gracePeriodSeconds=0"), None).unwrap();
                assert!(poll(20, || self.api.call("GET", &path, None).err().map(|_| ())).is_some(), "pod {name} not deleted");
            }
            Action::DraDriver { node, running, .. } => {
                if let (Some(r), Some(d)) = (running, self.drivers.get_mut(node)) {
                    d.running = *r;
                    self.publish(node);
                }
            }
            Action::MigGeometry { node, geometry } if self.drivers.contains_key(node) => {
                // The real GC deletes a deleted pod's claims; wait for it before asking.
                std::thread::sleep(Duration::from_secs(2));
                if !self.busy(node) {
                    let d = self.drivers.get_mut(node).unwrap();
                    d.gpus.mig = Mig::Static(Geometry::parse(geometry).unwrap());
                    d.gpus.generation += 1;
                    self.publish(node);
                }
            }
            // The nodes written here never advertise nvidia.com/gpu (no device plugin
            // runs): stopping the device plugin has nothing to undo.
            Action::NodeLayers { device_plugin: Some(false), kubelet: None, socket_mount: None, devices: None, .. } => {}
            other => panic!("{}: step `{}` has no real side in this test", s.name, other.verb()),
        }
    }

    /// Waits for the control plane's first word on a pod — bound, a PodScheduled
    /// condition, or the claim controller's warning (a pod PreEnqueue holds has none:
    /// 10 s) — and 2 s more for the scheduler to settle.
    fn settle(&self, pod: &str) {
        let path = format!("/api/v1/namespaces/{}/pods/{pod}", self.ns);
        poll(10, || {
            let p = self.api.get(&path);
            let bound = p["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty());
            let condition = p["status"]["conditions"].as_array().is_some_and(|c| c.iter().any(|c| c["type"] == "PodScheduled"));
            let events = self.api.get(&format!("/api/v1/namespaces/{}/events?fieldSelector=involvedObject.name={pod}", self.ns));
            let warned = events["items"].as_array().is_some_and(|e| e.iter().any(|e| e["reason"] == "FailedResourceClaimCreation"));
            (bound || condition || warned).then_some(())
        });
        std::thread::sleep(Duration::from_secs(2));
    }

    /// The real value of a pod's scheduling field, or `None` when it has no real
    /// counterpart here.
    fn observe(&self, pod: &str, field: Field, model: &Observed) -> Option<Observed> {
        let p = self.api.get(&format!("/api/v1/namespaces/{}/pods/{pod}", self.ns));
        let node = p["spec"]["nodeName"].as_str().unwrap_or("").to_string();
        let condition = p["status"]["conditions"].as_array().and_then(|c| c.iter().find(|c| c["type"] == "PodScheduled").cloned());
        let unschedulable = condition.as_ref().is_some_and(|c| c["reason"] == "Unschedulable");
        let claim_event = || {
            let events = self.api.get(&format!("/api/v1/namespaces/{}/events?fieldSelector=involvedObject.name={pod}", self.ns));
            events["items"].as_array().unwrap().iter().rev().find(|e| e["reason"] == "FailedResourceClaimCreation").map(|e| e["message"].as_str().unwrap_or("").to_string())
        };
        let scheduler_side = |reason: &str| reason == "FailedScheduling" || reason == "FailedResourceClaimCreation";
        match field {
            Field::NodeName => Some(Observed::Text(node)),
            Field::Devices => {
                let statuses = p["status"]["resourceClaimStatuses"].as_array().cloned().unwrap_or_default();
                // The pod's own claims, and the scheduler's claim for its extended resources.
                let extended = p["status"]["extendedResourceClaimStatus"]["resourceClaimName"].as_str();
                let claims: Vec<Value> = statuses
                    .iter()
                    .filter_map(|s| s["resourceClaimName"].as_str())
                    .chain(extended)
                    .map(|n| self.api.get(&format!("/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims/{n}", self.ns)))
                    .collect();
                let d = devices(claims.iter());
                Some(Observed::List(if d.is_empty() { Vec::new() } else { d.split(',').map(str::to_string).collect() }))
            }
            Field::EventReason => match model {
                Observed::Text(r) if scheduler_side(r) => Some(Observed::Text(if unschedulable {
                    "FailedScheduling".into()
                } else if claim_event().is_some() && node.is_empty() {
                    "FailedResourceClaimCreation".into()
                } else {
                    String::new()
                })),
                _ => None,
            },
            Field::Message => match model {
                Observed::Text(m) if m.starts_with("0/") => Some(Observed::Text(
                    condition.filter(|_| unschedulable).and_then(|c| c["message"].as_str().map(str::to_string)).unwrap_or_default(),
                )),
                Observed::Text(m) if m.starts_with("PodResourceClaim ") => Some(Observed::Text(claim_event().unwrap_or_default())),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Every pod object, DRA object and node the scenario left, removed.
fn clean(api: &Api, ns: &str) {
    let _ = api.call("DELETE", &format!("/api/v1/namespaces/{ns}/pods?gracePeriodSeconds=0"), None);
    let _ = api.call("DELETE", "/apis/resource.k8s.io/v1/resourceslices", None);
    let _ = api.call("DELETE", "/apis/resource.k8s.io/v1/deviceclasses", None);
    let _ = api.call("DELETE", "/api/v1/nodes", None);
    let gone = poll(20, || {
        let empty = |p: &str| api.get(p)["items"].as_array().is_some_and(Vec::is_empty);
        (empty("/api/v1/nodes") && empty("/apis/resource.k8s.io/v1/deviceclasses") && empty("/apis/resource.k8s.io/v1/resourceslices")).then_some(())
    });
    assert!(gone.is_some(), "{ns}: nodes, classes or slices are not gone");
}

/// Each DRA scenario on the real control plane and on the model at the cluster's
/// release (1.37): (fields that agree, the ones that differ, scenarios compared).
pub fn compare_all(api: &Api) -> (usize, Vec<String>, usize) {
    let (mut agree, mut differ) = (0, Vec::new());
    let all = dra_scenarios();
    for s in &all {
        let mut s = s.clone();
        s.kubernetes = "1.37".into();
        let record = scenario::run_on_model(&s);
        assert!(record.passed(), "{}: the model does not pass its own scenario", s.name);
        let ns = format!("sc-{}", s.name);
        api.call("POST", "/api/v1/namespaces", Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))).unwrap();
        api.wait_for("the namespace's default service account", &format!("/api/v1/namespaces/{ns}/serviceaccounts/default"), |_| true);
        let mut drivers = BTreeMap::new();
        for n in s.nodes.iter().filter(|n| n.dra_driver) {
            let model = GpuModel::known(&n.gpu_model).unwrap().unwrap();
            let mig = match n.dra_mig.as_deref() {
                None => Mig::Disabled,
                Some("partitionable") => Mig::Partitionable,
                Some(g) => Mig::Static(Geometry::parse(g).unwrap()),
            };
            drivers.insert(n.name.clone(), Driver { gpus: NodeGpus { mig, ..NodeGpus::new(&n.name, model, n.gpus) }, running: true });
        }
        let mut real = Real { api, ns: ns.clone(), drivers };
        for m in &s.manifests {
            real.apply(&m.source, &m.content);
        }
        for node in s.nodes.iter().filter(|n| n.dra_driver) {
            real.publish(&node.name);
        }
        std::thread::sleep(Duration::from_secs(1)); // the scheduler's informers
        for (step, rec) in s.steps.iter().zip(&record.steps) {
            real.act(&s, &step.action);
            let mut settled = Vec::new();
            for o in &rec.observations {
                let (Some(pod), Some(model)) = (o.subject.strip_prefix("pod/"), o.observed.as_ref()) else { continue };
                if real.observe(pod, o.field, model).is_none() {
                    continue;
                }
                if !settled.contains(&pod) {
                    real.settle(pod);
                    settled.push(pod);
                }
                // Wait for the real side to settle on the model's value (queues,
                // backoff, the garbage collector), then take what it says.
                let got = poll(45, || real.observe(pod, o.field, model).filter(|v| v == model)).or_else(|| real.observe(pod, o.field, model));
                let label = format!("{}/{} step {} pod/{pod}.{}", s.name, ns, rec.index, o.field.name());
                if got.as_ref() == Some(model) {
                    agree += 1;
                    eprintln!("agree  {label}: {model}");
                } else {
                    eprintln!("DIFFER {label}:\n  model: {model}\n  real:  {}", got.map_or_else(|| "-".into(), |g| g.to_string()));
                    differ.push(label);
                }
            }
        }
        clean(api, &ns);
    }
    (agree, differ, all.len())
}
