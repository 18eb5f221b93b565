//! The kube backend's transport: a [`Backend`] that replays a scenario against a real
//! cluster through kube-rs, sending only the requests built in [`super::requests`].
//!
//! Per scenario: its own namespace; the manifests applied for real (server-side apply,
//! labelled); a scenario node that exists in the cluster and was not created by the lab
//! is a **real** node (its kubelet is real; on kind its containerd files are written and
//! containerd restarted in its container through [`NodeExec`]); any other node is created
//! from its manifest, labelled, and is a **simulated** node: it has no kubelet, so the
//! companion writes its Ready condition and the status and events of the pods bound to
//! it from the node's simulated containerd (the model's daemon) — said so in the record.
//! The device plugin is simulated on every node: the `nvidia.com/gpu` the advertisement
//! layers give is written into the node's status with a JSON patch.
//!
//! After every action the backend waits until the pods settle (two identical polls, each
//! pod Running or with an event), at most `GPULAB_KUBE_SETTLE_SECONDS` (default 60).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gpulab_model::check_runtime::Status;
use gpulab_model::containerd::CommandOutput;
use gpulab_model::kubernetes::advertisement::advertise;
use gpulab_model::kubernetes::kubelet::{create_pod_sandbox, node_ready, sandbox_id, LoadedCri, FAILED_CREATE_POD_SANDBOX};
use gpulab_model::scenario::engine::{Backend, BackendError, Unobservable};
use gpulab_model::scenario::expect::{Domain, Field, Observed};
use gpulab_model::scenario::format::{Action, FileRef, Scenario};
use gpulab_model::scenario::model::{check_field, dump_field};
use gpulab_model::scenario::pods::loaded_cri;
use gpulab_model::scenario::ModelBackend;
use http::Request;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::node::v1::RuntimeClass;
use kube::Client;
use serde::Deserialize;
use serde_json::{json, Value};

use super::cleanup::{on_ctrl_c, undo_shared, Plan, SharedPlan};
use super::exec::{self, commands, ContainerExec, NodeExec};
use super::node_lifecycle;
use super::requests::{self, PodReport, RUN_LABEL};
use super::safety::{check_context, may_write_cluster_object, namespace, run_id};
use crate::scenario::real_containerd::RealContainerd;

/// The real script, shipped inside the companion (as the containerd backend does).
const CHECK_SCRIPT: &str = include_str!("../../../../../scripts/check-runtime.sh");

/// How the backend reaches the cluster.
#[derive(Debug, Clone, Default)]
pub struct Connect {
    /// The kubeconfig context; the kubeconfig's current context when `None`.
    pub context: Option<String>,
    pub allow_non_lab_cluster: bool,
    /// `GPULAB_KUBECONFIG`, else `KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Scenario node → cluster node (`--node gpu-node-1=kind-worker`).
    pub node_map: BTreeMap<String, String>,
    /// Run each simulated node's containerd as a real daemon here (`--real-containerd`).
    pub real_containerd: bool,
}

/// One scenario node in the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// An existing node with a real kubelet; `exec` when its container can be entered.
    Real { cluster: String, exec: bool },
    /// A node the run created (or none): no kubelet, simulated by the companion.
    Simulated { cluster: String, created: bool },
}

impl Place {
    fn cluster(&self) -> &str {
        match self {
            Place::Real { cluster, .. } | Place::Simulated { cluster, .. } => cluster,
        }
    }
}

/// A text for an API error, as kubectl shows its reason and message; a transport error
/// (no answer at all: the API server stopped, a refused connection, a time-out) says so
/// and names the server (`server`, the kubeconfig's URL; empty when unknown).
fn api_error(e: &kube::Error, server: &str) -> String {
    match e {
        kube::Error::Api(s) => format!("{} ({} {})", s.message, s.code, s.reason),
        kube::Error::HyperError(_) | kube::Error::Service(_) => no_answer(e, server),
        other => other.to_string(),
    }
}

/// Whether the scheduler bound `pod` (the binding sets `PodScheduled=True`; a pod
/// created with `spec.nodeName` has no such condition until a kubelet writes one).
fn bound_by_scheduler(pod: &Value) -> bool {
    pod["status"]["conditions"].as_array().is_some_and(|cs| cs.iter().any(|c| c["type"] == "PodScheduled" && c["status"] == "True"))
}

/// `the API server at URL did not answer (it stopped or cannot be reached): …` with the
/// error's whole chain of causes (kube-rs's own text, `ServiceError: client error
/// (Connect)`, hides the refused connection in its sources).
pub fn no_answer(e: &(dyn std::error::Error + 'static), server: &str) -> String {
    let mut chain: Vec<String> = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let t = s.to_string();
        if !chain.iter().any(|c| c.contains(&t)) {
            chain.push(t);
        }
        source = s.source();
    }
    let at = if server.is_empty() { String::new() } else { format!(" at {server}") };
    format!("the API server{at} did not answer (it stopped or cannot be reached): {}", chain.join(": "))
}

fn rfc3339_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The YAML documents of a manifest file, as JSON.
pub fn documents(file: &FileRef) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for d in serde_norway::Deserializer::from_str(&file.content) {
        let v = Value::deserialize(d).map_err(|e| format!("{}: {e}", file.source))?;
        if !v.is_null() {
            out.push(v);
        }
    }
    Ok(out)
}

/// The kube backend.
/// Why a DRA scenario is not replayed here: its scheduling fields are compared with
/// the real scheduler by `crates/cli/tests/dra_live.rs`, which writes the driver's
/// ResourceSlices through the API as the model publishes them.
pub const DRA_NOT_REPLAYED: &str =
    "a DRA scenario: the kube backend writes no ResourceSlices; crates/cli/tests/dra_live.rs compares its scheduling fields with the real scheduler: not compared";

/// Does the scenario use DRA: a node with NVIDIA's DRA driver, or DRA objects or pods
/// with `resourceClaims` among its files?
pub fn uses_dra(scenario: &Scenario) -> bool {
    let dra_text = |t: &str| t.contains("resource.k8s.io/") || t.contains("resourceClaims:");
    scenario.nodes.iter().any(|n| n.dra_driver)
        || scenario.manifests.iter().any(|m| dra_text(&m.content))
        || scenario.steps.iter().any(|s| matches!(&s.action, Action::Apply { file } if dra_text(&file.content)))
}

pub struct KubeBackend {
    rt: tokio::runtime::Runtime,
    client: Client,
    exec: Option<Arc<dyn NodeExec>>,
    plan: SharedPlan,
    node_map: BTreeMap<String, String>,
    pub context: String,
    settle: Duration,
    /// How long the settle loop waits between two looks (`GPULAB_KUBE_POLL_MS`, default
    /// 1000): the pods have settled when two looks in a row see the same.
    poll: Duration,
    // Per scenario:
    run: String,
    ns: String,
    places: BTreeMap<String, Place>,
    sim: ModelBackend,
    /// Node manifests by cluster name (capacity and allocatable of simulated nodes).
    node_manifests: BTreeMap<String, Value>,
    runtime_classes: Vec<RuntimeClass>,
    /// Pods the API server refused: (reason, kubectl's text).
    rejected: BTreeMap<String, (String, String)>,
    /// What the simulated kubelet last reported per pod uid: (running, message, attempts).
    reported: BTreeMap<String, (bool, String, u32)>,
    gpus_written: BTreeMap<String, i64>,
    event_seq: u32,
    /// Whether the last wait ended with the pods settled (not at the deadline).
    settled: bool,
    /// Run each simulated node's containerd as a real daemon (see [`Connect`]).
    pub real_containerd: bool,
    /// Those daemons, for the current scenario.
    real: Option<RealContainerd>,
    /// What each node's kubelet found in its containerd at the last refresh.
    cri_now: BTreeMap<String, LoadedCri>,
    /// The scenario uses DRA (a node with `dra_driver`, or DRA objects): this backend
    /// writes no ResourceSlices, so it does not replay it (see [`DRA_NOT_REPLAYED`]).
    dra: bool,
    notes: Vec<String>,
    /// The API server's URL as the kubeconfig gives it (for error texts).
    server: String,
}

impl KubeBackend {
    /// Reads the kubeconfig, applies the context safety rule before anything is sent,
    /// and builds the client and the Ctrl-C handler.
    pub fn connect(c: &Connect) -> Result<KubeBackend, String> {
        if let Some(ctx) = &c.context {
            check_context(ctx, c.allow_non_lab_cluster)?;
        }
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(|e| format!("tokio: {e}"))?;
        let path = c.kubeconfig.clone().or_else(|| std::env::var_os("GPULAB_KUBECONFIG").map(Into::into));
        let kc = match &path {
            Some(p) => kube::config::Kubeconfig::read_from(p).map_err(|e| format!("kubeconfig {}: {e}", p.display()))?,
            None => kube::config::Kubeconfig::read().map_err(|e| format!("kubeconfig: {e}"))?,
        };
        let context = c.context.clone().or_else(|| kc.current_context.clone()).ok_or("the kubeconfig names no current context: pass --context NAME")?;
        check_context(&context, c.allow_non_lab_cluster)?;
        if !kc.contexts.iter().any(|n| n.name == context) {
            return Err(format!("kubeconfig has no context {context:?}"));
        }
        let opts = kube::config::KubeConfigOptions { context: Some(context.clone()), ..Default::default() };
        let (client, server) = rt.block_on(async {
            let config = kube::Config::from_custom_kubeconfig(kc, &opts).await.map_err(|e| format!("kubeconfig context {context}: {e}"))?;
            let server = config.cluster_url.to_string();
            Client::try_from(config).map(|c| (c, server)).map_err(|e| format!("kube client: {e}"))
        })?;
        let exec: Option<Arc<dyn NodeExec>> = ContainerExec::find().map(|e| Arc::new(e) as Arc<dyn NodeExec>);
        let mut backend = Self::with_client(rt, client, exec, context, c.node_map.clone());
        backend.real_containerd = c.real_containerd;
        backend.server = server.trim_end_matches('/').to_string();
        Ok(backend)
    }

    /// The backend over a given client (the tests pass one to a fake API server).
    pub fn with_client(rt: tokio::runtime::Runtime, client: Client, exec: Option<Arc<dyn NodeExec>>, context: String, node_map: BTreeMap<String, String>) -> KubeBackend {
        let plan: SharedPlan = Arc::new(Mutex::new(None));
        on_ctrl_c(&rt, client.clone(), plan.clone(), exec.clone());
        let settle = std::env::var("GPULAB_KUBE_SETTLE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
        KubeBackend {
            rt,
            client,
            exec,
            plan,
            node_map,
            context,
            settle: Duration::from_secs(settle),
            poll: Duration::from_millis(std::env::var("GPULAB_KUBE_POLL_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(1000).clamp(50, 5000)),
            run: String::new(),
            ns: String::new(),
            places: BTreeMap::new(),
            sim: ModelBackend::new(),
            node_manifests: BTreeMap::new(),
            runtime_classes: Vec::new(),
            rejected: BTreeMap::new(),
            reported: BTreeMap::new(),
            gpus_written: BTreeMap::new(),
            event_seq: 0,
            settled: false,
            real_containerd: false,
            real: None,
            cri_now: BTreeMap::new(),
            dra: false,
            notes: Vec::new(),
            server: String::new(),
        }
    }

    /// The API server's `/version` (`v1.37.2`).
    pub fn server_version(&self) -> Result<String, String> {
        self.rt.block_on(self.client.apiserver_version()).map(|i| i.git_version).map_err(|e| format!("GET /version: {}", api_error(&e, &self.server)))
    }

    /// Removes everything the current run created; one line per thing undone.
    pub fn cleanup(&mut self) -> Vec<String> {
        let exec = self.exec.clone();
        self.rt.block_on(undo_shared(&self.client, &self.plan, exec.as_deref()))
    }

    fn send(&self, r: Request<Vec<u8>>) -> Result<String, kube::Error> {
        self.rt.block_on(self.client.request_text(r))
    }

    fn send_ok(&self, r: Result<Request<Vec<u8>>, String>) -> Result<String, String> {
        let r = r?;
        let what = format!("{} {}", r.method(), r.uri().path());
        self.send(r).map_err(|e| format!("{what}: {}", api_error(&e, &self.server)))
    }

    /// `GET`; `None` on 404.
    fn get(&self, r: Result<Request<Vec<u8>>, String>) -> Result<Option<Value>, String> {
        let r = r?;
        let what = r.uri().path().to_string();
        match self.send(r) {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| format!("{what}: {e}")),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
            Err(e) => Err(format!("GET {what}: {}", api_error(&e, &self.server))),
        }
    }

    fn with_plan(&self, f: impl FnOnce(&mut Plan)) {
        if let Ok(mut p) = self.plan.lock() {
            if let Some(p) = p.as_mut() {
                f(p);
            }
        }
    }

    fn cluster_name(&self, scenario_node: &str) -> String {
        self.node_map.get(scenario_node).cloned().unwrap_or_else(|| scenario_node.to_string())
    }

    /// The scenario node placed on cluster node `cluster`.
    fn scenario_node_of(&self, cluster: &str) -> Option<String> {
        self.places.iter().find(|(_, p)| p.cluster() == cluster).map(|(n, _)| n.clone())
    }

    fn exec_in(&self, container: &str, c: &exec::NodeCommand) -> Result<exec::ExecOutput, String> {
        let e = self.exec.as_deref().ok_or("no container engine (docker or podman) on PATH")?;
        exec::run(e, container, c)
    }

    /// Applies one manifest document.
    fn apply_doc(&mut self, doc: &Value, source: &str) -> Result<(), String> {
        let mut doc = doc.clone();
        if doc["kind"] == "Node" {
            let name = doc["metadata"]["name"].as_str().unwrap_or_default().to_string();
            let cluster = self.cluster_name(&name);
            doc["metadata"]["name"] = json!(cluster);
            self.node_manifests.insert(cluster.clone(), doc.clone());
            if matches!(self.places.get(&name), Some(Place::Real { .. })) {
                return Ok(());
            }
            self.places.insert(name, Place::Simulated { cluster: cluster.clone(), created: true });
        }
        let (kind, name, obj) = requests::prepare(&doc, &self.ns, &self.run)?;
        if !kind.namespaced {
            let existing = self.get(requests::get(&kind, &name, &self.ns))?;
            if !may_write_cluster_object(existing.as_ref(), &self.run) {
                return Err(format!("{} {name} already exists and was not created by this run: the kube backend does not change it (delete it, or use a fresh cluster)", kind.kind));
            }
        }
        if kind.kind == "RuntimeClass" {
            if let Ok(rc) = serde_json::from_value::<RuntimeClass>(doc.clone()) {
                self.runtime_classes.retain(|r| r.metadata.name != rc.metadata.name);
                self.runtime_classes.push(rc);
            }
        }
        match self.send(requests::apply(&kind, &name, &self.ns, &obj)?) {
            Ok(_) => {
                self.rejected.remove(&name);
                Ok(())
            }
            // The API server refused the pod (admission, validation): kubectl's text.
            Err(kube::Error::Api(s)) if kind.kind == "Pod" && matches!(s.code, 400 | 403 | 422) => {
                let text = if s.reason == "Invalid" { format!("The {}", s.message) } else { format!("Error from server ({}): error when creating {source:?}: {}", s.reason, s.message) };
                self.rejected.insert(name, (s.reason.clone(), text));
                Ok(())
            }
            Err(e) => Err(format!("apply {} {name} ({source}): {}", kind.kind, api_error(&e, &self.server))),
        }
    }

    fn apply_file(&mut self, file: &FileRef) -> Result<(), String> {
        for d in documents(file)? {
            self.apply_doc(&d, &file.source)?;
        }
        Ok(())
    }

    /// The node's kubelet (simulated nodes) and device plugin (every GPU node): Ready
    /// condition from the node's simulated containerd, `nvidia.com/gpu` from its layers.
    fn refresh_nodes(&mut self) -> Result<(), String> {
        let now = rfc3339_now();
        let places: Vec<(String, Place)> = self.places.iter().map(|(n, p)| (n.clone(), p.clone())).collect();
        self.cri_now.clear();
        for (name, _) in &places {
            let real = self.real.as_mut().and_then(|r| r.loaded_cri(name));
            let cri = real.or_else(|| self.sim.nodes.iter().find(|n| &n.spec.name == name).map(loaded_cri));
            if let Some(cri) = cri {
                self.cri_now.insert(name.clone(), cri);
            }
        }
        for (name, place) in places {
            let ready = self.cri_now.get(&name).is_none_or(node_ready);
            let layers = self.sim.cluster.as_ref().and_then(|c| c.layers.get(&name)).cloned();
            if let Place::Simulated { cluster, created: true } = &place {
                let m = self.node_manifests.get(cluster).cloned().unwrap_or_default();
                let layers_ready = layers.as_ref().is_none_or(|l| l.kubelet_running || ready);
                let node_ready = ready && layers_ready;
                self.send_ok(requests::node_status(cluster, &m["status"]["capacity"], &m["status"]["allocatable"], node_ready, &now))?;
                self.lifecycle(cluster, node_ready, &now)?;
            }
            if matches!(place, Place::Simulated { created: false, .. }) {
                // No Node of that name (the scenario has no manifest for it): nothing to write.
                continue;
            }
            if let Some(mut l) = layers {
                l.node_ready = ready;
                let gpus = advertise(&l).gpus.unwrap_or(0);
                let cluster = place.cluster().to_string();
                if self.gpus_written.get(&cluster) != Some(&gpus) || matches!(place, Place::Simulated { .. }) {
                    self.send_ok(requests::patch_node_gpus(&cluster, gpus))?;
                    if matches!(place, Place::Real { .. }) {
                        self.with_plan(|p| {
                            if !p.patched_nodes.contains(&cluster) {
                                p.patched_nodes.push(cluster.clone());
                            }
                        });
                    }
                    self.gpus_written.insert(cluster, gpus);
                }
            }
        }
        Ok(())
    }

    /// The simulated node lifecycle controller for one node the run created: its taints
    /// follow its Ready condition and `spec.unschedulable` (see [`node_lifecycle`]).
    fn lifecycle(&mut self, cluster: &str, ready: bool, now: &str) -> Result<(), String> {
        let Some(n) = self.get(requests::get(&requests::kind("Node")?, cluster, ""))? else { return Ok(()) };
        let current = n["spec"]["taints"].as_array().cloned().unwrap_or_default();
        let manifest = self.node_manifests.get(cluster).and_then(|m| m["spec"]["taints"].as_array().cloned()).unwrap_or_default();
        let unschedulable = n["spec"]["unschedulable"].as_bool().unwrap_or(false);
        if let Some(t) = node_lifecycle::taints(&manifest, &current, ready, unschedulable, now) {
            self.send_ok(requests::node_taints(cluster, &t))?;
        }
        Ok(())
    }

    /// The simulated kubelet for one pod bound to a simulated node.
    fn simulate_kubelet(&mut self, pod_json: &Value, scenario_node: &str) -> Result<(), String> {
        let Ok(pod) = serde_json::from_value::<Pod>(pod_json.clone()) else { return Ok(()) };
        let name = pod.metadata.name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().unwrap_or_else(|| name.clone());
        let prev = self.reported.get(&uid).cloned();
        if prev.as_ref().is_some_and(|p| p.0) {
            return Ok(());
        }
        // The node's containerd as the kubelet finds it: the real daemon's loaded CRI
        // config with --real-containerd, else the model's daemon.
        let Some(cri) = self.cri_now.get(scenario_node).cloned() else { return Ok(()) };
        // The sandbox id is random per attempt in containerd; the companion's kubelet
        // takes the model's deterministic one for the model's attempt at this step.
        let modelled = self.sim.cluster.as_ref().and_then(|c| c.pods.iter().find(|p| p.name == name)).map(|p| p.attempts).filter(|a| *a > 0);
        let attempts = modelled.unwrap_or_else(|| prev.as_ref().map_or(0, |p| p.2) + 1);
        let containers: Vec<String> = pod.spec.as_ref().map(|s| s.containers.iter().map(|c| c.name.clone()).collect()).unwrap_or_default();
        let cluster = self.cluster_name(scenario_node);
        let (report, reason, message, warning) = match create_pod_sandbox(&pod, &self.runtime_classes, &cri, &sandbox_id(&name, attempts)) {
            Ok(_) => (PodReport::Running { containers: containers.clone() }, "Started", format!("Started container {}", containers.first().map_or("", String::as_str)), false),
            Err(e) => (PodReport::ContainerCreating { containers }, FAILED_CREATE_POD_SANDBOX, e.event_message(), true),
        };
        let running = matches!(report, PodReport::Running { .. });
        if prev.as_ref().is_some_and(|p| !running && p.1 == message) {
            return Ok(());
        }
        let now = rfc3339_now();
        self.send_ok(requests::pod_status(&self.ns, &name, &report, &now))?;
        self.event_seq += 1;
        let event = requests::PodEvent { ns: &self.ns, pod: &name, uid: &uid, node: &cluster, reason, message: &message, warning, run: &self.run, now: &now, seq: self.event_seq };
        self.send_ok(requests::pod_event(&event))?;
        self.reported.insert(uid, (running, message, attempts));
        Ok(())
    }

    /// The events of a pod, oldest write first (by resourceVersion).
    fn pod_events(&self, pod: &str) -> Result<Vec<Value>, String> {
        let list = self.get(requests::list_events(&self.ns, pod))?.unwrap_or_default();
        let mut items: Vec<Value> = list["items"].as_array().cloned().unwrap_or_default();
        items.sort_by_key(|e| e["metadata"]["resourceVersion"].as_str().and_then(|v| v.parse::<u64>().ok()).unwrap_or(0));
        Ok(items)
    }

    /// Waits until the pods settle (see the module doc), simulating kubelets meanwhile.
    fn settle(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + self.settle;
        let mut last: Option<Vec<(String, String, String, String)>> = None;
        loop {
            self.refresh_nodes()?;
            let pods = self.get(requests::list_pods(&self.ns))?.unwrap_or_default();
            let items = pods["items"].as_array().cloned().unwrap_or_default();
            let mut snapshot = Vec::new();
            let mut waiting = false;
            for p in &items {
                let name = p["metadata"]["name"].as_str().unwrap_or_default().to_string();
                let node = p["spec"]["nodeName"].as_str().unwrap_or_default().to_string();
                if let Some(sn) = self.scenario_node_of(&node) {
                    if matches!(self.places.get(&sn), Some(Place::Simulated { .. })) {
                        if !p["metadata"]["deletionTimestamp"].is_null() {
                            // Terminating: the simulated kubelet finalises it.
                            let uid = p["metadata"]["uid"].as_str().unwrap_or_default();
                            match self.send(requests::finalize_pod(&self.ns, &name, uid)?) {
                                Ok(_) => {}
                                Err(kube::Error::Api(s)) if matches!(s.code, 404 | 409) => {}
                                Err(e) => return Err(format!("finalising pod {name}: {}", api_error(&e, &self.server))),
                            }
                            waiting = true;
                            continue;
                        }
                        if bound_by_scheduler(p) && !self.pod_events(&name)?.iter().any(|e| e["reason"] == "Scheduled") {
                            // A kubelet acts on a pod after the scheduler has recorded the
                            // binding: its `Scheduled` event is written asynchronously (the
                            // event broadcaster), so on a loaded machine the companion could
                            // otherwise write `Started` first and the last event would read
                            // `Scheduled` (seen on gen-1-0189 under load). Wait for it.
                            waiting = true;
                            continue;
                        }
                        self.simulate_kubelet(p, &sn)?;
                    }
                }
                let phase = p["status"]["phase"].as_str().unwrap_or_default().to_string();
                let events = self.pod_events(&name)?;
                let last_event = events.last().map(|e| format!("{} {}", e["reason"].as_str().unwrap_or(""), e["message"].as_str().unwrap_or(""))).unwrap_or_default();
                waiting |= phase != "Running" && events.is_empty();
                snapshot.push((name, phase, node, last_event));
            }
            if !waiting && last.as_ref() == Some(&snapshot) {
                self.settled = true;
                return Ok(());
            }
            if Instant::now() >= deadline {
                self.settled = false;
                let note = format!("the pods had not always settled within {} s (GPULAB_KUBE_SETTLE_SECONDS): some observations were taken while they still moved", self.settle.as_secs());
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
                return Ok(());
            }
            last = Some(snapshot);
            std::thread::sleep(self.poll);
        }
    }

    fn containerd_action(&mut self, action: &Action, node: &str) -> Result<(), String> {
        let place = self.places.get(node).cloned().ok_or_else(|| format!("no node `{node}`"))?;
        match place {
            Place::Real { cluster, .. } => {
                let c = match action {
                    Action::WriteFile { path, file, .. } => commands::write_file(path, file.content.as_bytes()),
                    Action::RemoveFile { path, .. } => commands::remove_file(path),
                    Action::Start { .. } => commands::systemctl("start"),
                    Action::Restart { .. } => commands::systemctl("restart"),
                    Action::Signal { signal, .. } => commands::signal(signal),
                    _ => return Ok(()),
                };
                let e = self.exec.clone().ok_or("no container engine")?;
                exec::run_ok(e.as_ref(), &cluster, &c).map(|_| ())
            }
            Place::Simulated { .. } => Ok(()),
        }
    }

    fn observe_containerd(&mut self, subject: &str, field: Field) -> Result<Observed, Unobservable> {
        let place = self.places.get(subject).cloned().ok_or_else(|| format!("no node `{subject}`"))?;
        let Place::Real { cluster, exec: true } = place else {
            if let Some(real) = self.real.as_mut() {
                return real.observe(subject, field);
            }
            return Err("a simulated node: its containerd is the model's daemon (`--real-containerd` runs a real one; `gpulab parity --backend containerd` compares it)".into());
        };
        let text = |s: &str| Ok(Observed::Text(s.to_string()));
        let active = self.exec_in(&cluster, &commands::is_active())?.stdout.trim() == "active";
        match field {
            Field::Daemon => text(if active { "running" } else { "down" }),
            Field::Cri if !active => text("not-running"),
            Field::CriError if !active => text(""),
            Field::Cri => text(&exec::cri_status(&self.exec_in(&cluster, &commands::plugins(false))?.stdout)),
            Field::CriError => {
                let out = self.exec_in(&cluster, &commands::plugins(true))?.stdout;
                text(&out.lines().find_map(|l| l.trim_start().strip_prefix("Message:").map(|m| m.trim_start().to_string())).unwrap_or_default())
            }
            Field::Handlers => {
                let out = self.exec_in(&cluster, &commands::crictl_info())?.stdout;
                let v: Value = serde_json::from_str(&out).unwrap_or_default();
                let mut h: Vec<String> = v["config"]["containerd"]["runtimes"].as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
                h.sort();
                Ok(Observed::List(h))
            }
            Field::DumpExit | Field::DumpDefaultRuntime | Field::DumpRuntimes => {
                let out = self.exec_in(&cluster, &commands::config_dump())?;
                Ok(dump_field(&CommandOutput { stdout: out.stdout, stderr: out.stderr, exit: out.exit }, field))
            }
            Field::Check | Field::CheckCodes => {
                let out = self.exec_in(&cluster, &commands::check(CHECK_SCRIPT))?;
                let v: Value = serde_json::from_str(&out.stdout).map_err(|e| format!("check-runtime.sh in {cluster} printed no JSON ({e})"))?;
                let findings: Vec<(Status, String)> = v["findings"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|f| {
                                let s = match f["status"].as_str() {
                                    Some("pass") => Status::Pass,
                                    Some("restart") => Status::Restart,
                                    Some("skip") => Status::Skip,
                                    _ => Status::Fail,
                                };
                                (s, f["code"].as_str().unwrap_or("").to_string())
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(check_field(v["verdict"].as_str().unwrap_or(""), findings.iter().map(|(s, c)| (*s, c.as_str())), field))
            }
            other => Err(format!("`{}` is not a containerd field", other.name())),
        }
    }

    fn observe_pod(&self, name: &str, field: Field) -> Result<Observed, Unobservable> {
        let text = |s: &str| Ok(Observed::Text(s.to_string()));
        if let Some((reason, message)) = self.rejected.get(name) {
            return match field {
                Field::Phase => text("Rejected"),
                Field::Reason => text(reason),
                Field::Message => text(message),
                _ => text(""),
            };
        }
        let pod = self.get(requests::get(&requests::kind("Pod")?, name, &self.ns))?.ok_or_else(|| format!("no pod {name} in namespace {}", self.ns))?;
        match field {
            Field::Phase => text(pod["status"]["phase"].as_str().unwrap_or("")),
            Field::NodeName => text(pod["spec"]["nodeName"].as_str().unwrap_or("")),
            Field::Reason => {
                let waiting = pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"].as_str();
                let unscheduled = pod["status"]["conditions"]
                    .as_array()
                    .and_then(|cs| cs.iter().find(|c| c["type"] == "PodScheduled" && c["status"] == "False"))
                    .and_then(|c| c["reason"].as_str());
                text(waiting.or(unscheduled).unwrap_or(""))
            }
            Field::Message | Field::EventReason => {
                let events = self.pod_events(name)?;
                let key = if field == Field::Message { "message" } else { "reason" };
                text(events.last().and_then(|e| e[key].as_str()).unwrap_or(""))
            }
            other => Err(format!("`{}` is not a pod field", other.name())),
        }
    }

    fn observe_daemonset(&self, name: &str, field: Field) -> Result<Observed, Unobservable> {
        let v = self.get(requests::get(&requests::kind("DaemonSet")?, name, &self.ns))?.ok_or_else(|| format!("no DaemonSet {name} in namespace {}", self.ns))?;
        let ds: DaemonSet = serde_json::from_value(v).map_err(|e| format!("DaemonSet {name}: {e}"))?;
        let st = ds.status.clone().unwrap_or_default();
        let int = |i: i32| Ok(Observed::Int(i64::from(i)));
        match field {
            Field::Desired => int(st.desired_number_scheduled),
            Field::Current => int(st.current_number_scheduled),
            Field::Ready => int(st.number_ready),
            Field::UpToDate => int(st.updated_number_scheduled.unwrap_or(0)),
            Field::Available => int(st.number_available.unwrap_or(0)),
            Field::RolloutStatus => {
                let s = gpulab_model::daemonset::kubectl::rollout_status(&ds).map_or_else(|e| e, |s| s.message);
                Ok(Observed::Text(s.trim_end().to_string()))
            }
            Field::StalledOn => {
                if !self.settled {
                    return Err("the pods had not settled when observed: whether the rollout is stalled is not known".into());
                }
                let pods = self.get(requests::list_pods(&self.ns))?.unwrap_or_default();
                let pods: Vec<Pod> = pods["items"].as_array().into_iter().flatten().filter_map(|p| serde_json::from_value(p.clone()).ok()).collect();
                let events = self.get(requests::list_events_of(&self.ns, "DaemonSet", name))?.unwrap_or_default();
                let refused = events["items"].as_array().into_iter().flatten().any(|e| e["reason"] == "FailedCreate");
                let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
                super::stall::stalled_on(&ds, &pods, "", refused, now).map(Observed::List)
            }
            other => Err(format!("`{}` is not a DaemonSet field", other.name())),
        }
    }

    fn observe_node(&self, name: &str, field: Field) -> Result<Observed, Unobservable> {
        match field {
            Field::Gpus => {
                let n = self.get(requests::get(&requests::kind("Node")?, &self.cluster_name(name), ""))?.ok_or_else(|| format!("no Node {name}"))?;
                let q = n["status"]["allocatable"]["nvidia.com/gpu"].as_str().and_then(|q| q.parse::<i64>().ok()).unwrap_or(0);
                Ok(Observed::Int(q))
            }
            Field::SeatMemory => Err("seat memory is the device plugin's config read by the model; not observed on a cluster".into()),
            Field::MigConfigState => Err("MIG Manager is simulated by the companion (no GPUs here): not compared".into()),
            Field::BrokenLayer => Err("the advertisement layers are simulated by the companion (no device plugin here): not compared".into()),
            other => Err(format!("`{}` is not a node field", other.name())),
        }
    }
}

impl Drop for KubeBackend {
    fn drop(&mut self) {
        for l in self.cleanup() {
            eprintln!("gpulab: cleanup: {l}");
        }
    }
}

impl Backend for KubeBackend {
    fn name(&self) -> String {
        "kube".into()
    }

    fn setup(&mut self, scenario: &Scenario) -> Result<(), BackendError> {
        for l in self.cleanup() {
            eprintln!("gpulab: cleanup: {l}");
        }
        let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.run = run_id(secs, std::process::id());
        self.ns = namespace(&scenario.name, &self.run);
        self.places.clear();
        self.node_manifests.clear();
        self.runtime_classes.clear();
        self.rejected.clear();
        self.reported.clear();
        self.gpus_written.clear();
        self.notes.clear();
        self.sim = ModelBackend::new();
        self.sim.setup(scenario)?;
        self.dra = uses_dra(scenario);
        if self.dra {
            self.notes.push(DRA_NOT_REPLAYED.to_string());
            return Ok(());
        }
        if let Ok(mut p) = self.plan.lock() {
            *p = Some(Plan { ns: Some(self.ns.clone()), run: self.run.clone(), ..Plan::default() });
        }
        eprintln!("[{}] context {}: namespace {} (run {})", scenario.name, self.context, self.ns, self.run);
        self.send_ok(requests::create_namespace(&self.ns, &self.run))?;
        let node_kind = requests::kind("Node")?;
        for spec in &scenario.nodes {
            let cluster = self.cluster_name(&spec.name);
            let existing = self.get(requests::get(&node_kind, &cluster, ""))?;
            let place = match existing {
                Some(n) if n["metadata"]["labels"][RUN_LABEL].is_null() => Place::Real { cluster, exec: self.exec.is_some() },
                _ => Place::Simulated { cluster, created: false },
            };
            self.places.insert(spec.name.clone(), place);
        }
        // Real daemons for the simulated nodes (dropping the last scenario's stops its).
        self.real = None;
        if self.real_containerd {
            let mut s = scenario.clone();
            s.nodes.retain(|n| matches!(self.places.get(&n.name), Some(Place::Simulated { .. })));
            let mut real = RealContainerd::new()?;
            real.setup(&s)?;
            self.notes.extend(real.notes().into_iter().map(|n| format!("real containerd: {n}")));
            self.notes.push("the companion's kubelet reads each simulated node's real daemon: its CRI plugin status and the runtime handlers it loaded (`crictl info`) decide the node's Ready condition and the pods' sandbox errors".into());
            self.real = Some(real);
        }
        for m in scenario.manifests.clone() {
            self.apply_file(&m)?;
        }
        for spec in &scenario.nodes {
            if let Some(Place::Real { cluster, exec: true }) = self.places.get(&spec.name).cloned() {
                let e = self.exec.clone().ok_or("no container engine")?;
                exec::run_ok(e.as_ref(), &cluster, &commands::backup())?;
                self.with_plan(|p| p.touched_containers.push(cluster.clone()));
                for (path, f) in &spec.files {
                    exec::run_ok(e.as_ref(), &cluster, &commands::write_file(path, f.content.as_bytes()))?;
                }
                exec::run_ok(e.as_ref(), &cluster, &commands::systemctl("restart"))?;
                let v = exec::run(e.as_ref(), &cluster, &exec::NodeCommand { args: vec!["containerd".into(), "--version".into()], stdin: None })?.stdout;
                self.notes.push(format!("{}: a real node ({cluster}); the scenario says containerd {}, its container runs `{}`", spec.name, spec.containerd, v.trim()));
            }
        }
        let simulated: Vec<&str> = self.places.iter().filter(|(_, p)| matches!(p, Place::Simulated { .. })).map(|(n, _)| n.as_str()).collect();
        if !simulated.is_empty() {
            self.notes.push(format!(
                "simulated kubelet: no kubelet runs for {} here; gpulab wrote the Ready condition and the status and events of the pods bound there from each node's containerd ({})",
                simulated.join(", "),
                if self.real.is_some() { "the real daemon where its version has a binary, else the model's" } else { "the model's daemon" }
            ));
        }
        self.notes.push("simulated device plugin: nvidia.com/gpu was written into node status with a JSON patch from each node's advertisement layers".into());
        Ok(self.settle()?)
    }

    fn act(&mut self, action: &Action) -> Result<(), BackendError> {
        // The model follows every step too: it is the simulated containerd of nodes with
        // no container to enter, and the simulated device plugin and MIG Manager.
        let sim = self.sim.act(action);
        if self.dra {
            return sim;
        }
        match action {
            Action::Observe | Action::Check { .. } | Action::Sync { .. } => {}
            Action::WriteFile { node, .. } | Action::RemoveFile { node, .. } | Action::Start { node } | Action::Restart { node } | Action::Signal { node, .. } => {
                if matches!(self.places.get(node), Some(Place::Real { exec: true, .. })) {
                    self.containerd_action(action, node)?;
                } else {
                    sim?;
                    if let Some(real) = self.real.as_mut() {
                        real.act(action)?;
                    }
                }
            }
            Action::Advance { seconds } => {
                if self.places.values().any(|p| matches!(p, Place::Real { exec: true, .. })) {
                    std::thread::sleep(Duration::from_secs((*seconds).min(30)));
                }
                // The real daemons' systemd is the companion's, on the scenario clock.
                if let Some(real) = self.real.as_mut() {
                    real.act(action)?;
                }
            }
            Action::Apply { file } => self.apply_file(file)?,
            Action::Delete { kind, name } => {
                let k = requests::kind(kind)?;
                let name = if k.kind == "Node" { self.cluster_name(name) } else { name.clone() };
                if !k.namespaced {
                    let existing = self.get(requests::get(&k, &name, &self.ns))?;
                    if existing.is_some() && !may_write_cluster_object(existing.as_ref(), &self.run) {
                        return Err(format!("{} {name} was not created by this run: the kube backend does not delete it", k.kind).into());
                    }
                }
                self.rejected.remove(&name);
                self.send_ok(requests::delete(&k, &name, &self.ns))?;
                let deadline = Instant::now() + self.settle;
                while self.get(requests::get(&k, &name, &self.ns))?.is_some() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(500));
                }
            }
            Action::NodeLayers { .. } | Action::PluginConfig { .. } | Action::MigGeometry { .. } | Action::DraDriver { .. } => sim?,
        }
        Ok(self.settle()?)
    }

    fn observe(&mut self, subject: &str, field: Field) -> Result<Observed, Unobservable> {
        if self.dra {
            return Err(DRA_NOT_REPLAYED.into());
        }
        if field.domain() == Domain::Containerd {
            return self.observe_containerd(subject, field);
        }
        if let Some(n) = subject.strip_prefix("pod/") {
            return self.observe_pod(n, field);
        }
        if let Some(n) = subject.strip_prefix("daemonset/") {
            return self.observe_daemonset(n, field);
        }
        if let Some(n) = subject.strip_prefix("node/") {
            return self.observe_node(n, field);
        }
        Err(format!("`{subject}`: unknown subject"))
    }

    fn notes(&self) -> Vec<String> {
        self.notes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heartbeat time is RFC 3339 in UTC.
    #[test]
    fn now_is_rfc3339() {
        let s = rfc3339_now();
        assert_eq!(s.len(), 20, "{s}");
        assert!(s.ends_with('Z') && s.as_bytes()[10] == b'T', "{s}");
    }

    /// A transport error names the server and every cause once (kube-rs's top line,
    /// `ServiceError: client error (Connect)`, alone does not say the connection was
    /// refused); an API error stays the API server's own text.
    #[test]
    fn no_answer_names_the_server_and_the_causes() {
        #[derive(Debug)]
        struct Client(std::io::Error);
        impl std::fmt::Display for Client {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("client error (Connect)")
            }
        }
        impl std::error::Error for Client {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "tcp connect error: Connection refused (os error 111)");
        let e = kube::Error::Service(Box::new(Client(refused)));
        assert_eq!(
            api_error(&e, "https://127.0.0.1:6443"),
            "the API server at https://127.0.0.1:6443 did not answer (it stopped or cannot be reached): ServiceError: client error (Connect): tcp connect error: Connection refused (os error 111)"
        );
        let flat = kube::Error::Service(Box::new(std::io::Error::other("timed out")));
        assert_eq!(api_error(&flat, ""), "the API server did not answer (it stopped or cannot be reached): ServiceError: timed out");
        let status = kube::core::Status::failure("pods \"x\" not found", "NotFound").with_code(404);
        assert_eq!(api_error(&kube::Error::Api(Box::new(status)), "https://h"), "pods \"x\" not found (404 NotFound)");
    }

    /// Multi-document YAML becomes one JSON value per non-empty document.
    #[test]
    fn manifest_documents() {
        let f = FileRef { source: "k8s/x.yaml".into(), content: "# c\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\n---\nkind: Pod\nmetadata: {name: b}\n".into() };
        let docs = documents(&f).unwrap();
        assert_eq!(docs.iter().map(|d| d["metadata"]["name"].as_str().unwrap()).collect::<Vec<_>>(), ["a", "b"]);
        assert!(documents(&FileRef { source: "bad.yaml".into(), content: "a: [".into() }).unwrap_err().starts_with("bad.yaml:"));
    }
}
