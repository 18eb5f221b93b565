//! Side by side (issue 15, item 7): the same cluster — N nodes with 8 `nvidia.com/gpu`
//! each, P pods asking for one GPU each — scheduled by the model and by the real
//! kube-scheduler of the cached `kube-oracle`, from one run; prints pods per second of
//! each and the ratio. A benchmark, not a test: `scripts/bench-scheduler.sh` runs it.
//!
//! - **Model**: `Snapshot` → `HotSnapshot` (the app's path), then P cycles, each
//!   binding its pod; also the plain `schedule_one` per cycle, for scale. Timed on
//!   the wall clock, snapshot building included.
//! - **Real**: `gpulab cluster up`'s [`Cluster::start`] in a private temp dir; the N
//!   Node objects created with their status (capacity, allocatable, Ready) and the
//!   admission's not-ready taint removed, as the node lifecycle controller would — no
//!   kubelet, as in the parity runs; the scheduler is paused (SIGSTOP, by PID) while
//!   the P pods are created, then resumed (SIGCONT): the clock runs from the resume to
//!   the moment no pod is left without `spec.nodeName` (a list every 50 ms). That span
//!   holds the scheduler's informer catching up on P pods, P cycles and P bindings
//!   through its client's rate limit (upstream's default: 50 requests/s, burst 100).
//!   `--scheduler-qps Q` raises that limit (`--kube-api-qps/--kube-api-burst`).
//!
//! Both must bind every pod; the pods-per-node spread of each is printed too.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use gpulab::cluster::{Cluster, Component, Options, DEFAULT_RELEASE};
use gpulab_model::kubernetes::scheduler::{schedule_one, FilterOptions, HotSnapshot, Outcome, PodInfo, Snapshot};
use gpulab_model::kubernetes::version::KubeVersion;
use k8s_openapi::api::core::v1::{Container, Node, NodeStatus, Pod, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde_json::{json, Value};

const NODE: [(&str, &str); 4] = [("cpu", "64"), ("memory", "512Gi"), ("pods", "110"), ("nvidia.com/gpu", "8")];
const POD: [(&str, &str); 3] = [("cpu", "1"), ("memory", "4Gi"), ("nvidia.com/gpu", "1")];

fn node_name(i: usize) -> String {
    format!("gpu-{i:05}")
}

fn pod_name(i: usize) -> String {
    format!("train-{i:05}")
}

fn res(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    pairs.iter().map(|(k, v)| (k.to_string(), Quantity(v.to_string()))).collect()
}

fn res_json(pairs: &[(&str, &str)]) -> Value {
    pairs.iter().map(|(k, v)| (k.to_string(), json!(v))).collect::<serde_json::Map<_, _>>().into()
}

/// The node as the model reads it and as the API server stores it.
fn node(i: usize) -> (Node, Value) {
    let name = node_name(i);
    let model = Node {
        metadata: ObjectMeta { name: Some(name.clone()), labels: Some([("kubernetes.io/hostname".to_string(), name.clone())].into()), ..Default::default() },
        status: Some(NodeStatus { capacity: Some(res(&NODE)), allocatable: Some(res(&NODE)), ..Default::default() }),
        ..Default::default()
    };
    let api = json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": res_json(&NODE), "allocatable": res_json(&NODE),
                   "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "gpulab bench: no kubelet"}]}
    });
    (model, api)
}

/// The pod as the model reads it and as it is POSTed.
fn pod(i: usize) -> (Pod, Value) {
    let model = Pod {
        metadata: ObjectMeta { name: Some(pod_name(i)), namespace: Some("default".into()), ..Default::default() },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "cuda".into(),
                image: Some("busybox".into()),
                resources: Some(ResourceRequirements { limits: Some(res(&POD)), requests: Some(res(&POD)), ..Default::default() }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let api = json!({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": pod_name(i)},
        "spec": {"containers": [{"name": "cuda", "image": "busybox", "resources": {"limits": res_json(&POD), "requests": res_json(&POD)}}]}
    });
    (model, api)
}

/// min..max pods per node over all `nodes` nodes.
fn spread(per_node: &BTreeMap<String, usize>, nodes: usize) -> String {
    let min = if per_node.len() < nodes { 0 } else { per_node.values().copied().min().unwrap_or(0) };
    format!("{min}..{} pods per node", per_node.values().copied().max().unwrap_or(0))
}

struct Run {
    label: String,
    seconds: f64,
    pods: usize,
    spread: String,
}

impl Run {
    fn rate(&self) -> f64 {
        self.pods as f64 / self.seconds
    }
}

/// The model: P cycles on the hot snapshot (or plain `schedule_one`), each binding.
fn model(nodes: usize, pods: usize, hot: bool, version: KubeVersion) -> Result<Run, String> {
    let opts = FilterOptions { version, ..FilterOptions::default() };
    let node_objs: Vec<Node> = (0..nodes).map(|i| node(i).0).collect();
    let pod_objs: Vec<PodInfo> = (0..pods).map(|i| PodInfo::new(pod(i).0, true)).collect();
    let t0 = Instant::now();
    let mut snap = HotSnapshot::new(Snapshot::new(node_objs, &[]));
    let mut per_node: BTreeMap<String, usize> = BTreeMap::new();
    for p in &pod_objs {
        let r = if hot { snap.schedule_one(p, &opts) } else { schedule_one(snap.snapshot(), p, &opts) };
        let Outcome::Scheduled { node_index, .. } = r.outcome else { return Err(format!("the model left {} unscheduled", p.key().1)) };
        if !snap.add_pod(node_index, p.as_bound()) {
            return Err(format!("the model could not bind {}", p.key().1));
        }
        let name = snap.snapshot().nodes.get(node_index).map(|n| n.name.clone()).unwrap_or_default();
        *per_node.entry(name).or_default() += 1;
    }
    let seconds = t0.elapsed().as_secs_f64();
    let label = if hot { "model, HotSnapshot (the app's path)" } else { "model, schedule_one per cycle" };
    Ok(Run { label: label.into(), seconds, pods, spread: spread(&per_node, nodes) })
}

struct Api {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Api {
    fn new(kubeconfig: &std::path::Path) -> Result<Api, String> {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(|e| e.to_string())?;
        let kc = kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| e.to_string())?;
        let config = rt.block_on(kube::Config::from_custom_kubeconfig(kc, &Default::default())).map_err(|e| e.to_string())?;
        let client = {
            let _g = rt.enter();
            kube::Client::try_from(config).map_err(|e| e.to_string())?
        };
        Ok(Api { rt, client })
    }

    fn request(method: &str, path: &str, body: Option<&Value>) -> Result<http::Request<Vec<u8>>, String> {
        let content_type = if method == "PATCH" { "application/merge-patch+json" } else { "application/json" };
        http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", content_type)
            .body(body.map(|b| b.to_string().into_bytes()).unwrap_or_default())
            .map_err(|e| e.to_string())
    }

    fn get(&self, path: &str) -> Result<Value, String> {
        self.rt.block_on(self.client.request::<Value>(Self::request("GET", path, None)?)).map_err(|e| format!("GET {path}: {e}"))
    }

    /// Sends every `(path, body)` with `method`, `workers` requests in flight.
    fn send_all(&self, method: &'static str, requests: Vec<(String, Value)>, workers: usize) -> Result<(), String> {
        let requests = std::sync::Arc::new(requests);
        self.rt.block_on(async {
            let tasks: Vec<_> = (0..workers)
                .map(|w| {
                    let (client, requests) = (self.client.clone(), requests.clone());
                    tokio::spawn(async move {
                        for (path, body) in requests.iter().skip(w).step_by(workers) {
                            client.request_text(Api::request(method, path, Some(body))?).await.map_err(|e| format!("{method} {path}: {e}"))?;
                        }
                        Ok::<(), String>(())
                    })
                })
                .collect();
            for t in tasks {
                t.await.map_err(|e| e.to_string())??;
            }
            Ok(())
        })
    }
}

fn kill(signal: &str, pid: u32) -> Result<(), String> {
    let ok = Command::new("kill").args(["-s", signal, &pid.to_string()]).status().map_err(|e| e.to_string())?.success();
    if ok { Ok(()) } else { Err(format!("kill -s {signal} {pid} failed")) }
}

/// The real scheduler on a fresh control plane.
fn real(nodes: usize, pods: usize, qps: Option<u32>) -> Result<Run, String> {
    let mut o = Options::new(DEFAULT_RELEASE).map_err(|e| e.message)?;
    o.dir = std::env::temp_dir().join(format!("gpulab-bench-{}", std::process::id()));
    if let Some(q) = qps {
        o.extra_args = vec![(Component::KubeScheduler, format!("--kube-api-qps={q}")), (Component::KubeScheduler, format!("--kube-api-burst={q}"))];
    }
    let c = Cluster::start(o).map_err(|e| e.message)?;
    let scheduler = c.pids().iter().find(|(comp, _)| *comp == Component::KubeScheduler).map(|(_, p)| *p).ok_or("no scheduler")?;
    let api = Api::new(&c.kubeconfig())?;
    let t = Instant::now();
    api.send_all("POST", (0..nodes).map(|i| ("/api/v1/nodes".to_string(), node(i).1)).collect(), 16)?;
    // The API server's TaintNodesByCondition admission gives a new node the
    // `node.kubernetes.io/not-ready` NoSchedule taint; the node lifecycle controller (not
    // run here) removes it once the node is Ready: so does this.
    api.send_all("PATCH", (0..nodes).map(|i| (format!("/api/v1/nodes/{}", node_name(i)), json!({"spec": {"taints": null}}))).collect(), 16)?;
    eprintln!("created {nodes} Ready, untainted nodes in {:.1} s", t.elapsed().as_secs_f64());
    // The scheduler's client rate limit: upstream's KubeSchedulerConfiguration defaults
    // (pkg/scheduler/apis/config/v1/defaults.go: "Scheduler has an opinion about
    // QPS/Burst"), or the flags given.
    let limit = match qps {
        None => "its default client limit: qps 50, burst 100".to_string(),
        Some(q) => format!("client limit raised: --kube-api-qps={q} --kube-api-burst={q}"),
    };
    // The service-account controller's `default` account: pods are refused without it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while api.get("/api/v1/namespaces/default/serviceaccounts/default").is_err() {
        if Instant::now() > deadline {
            return Err("no default service account within 30 s".into());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    kill("STOP", scheduler)?;
    let created = api.send_all("POST", (0..pods).map(|i| ("/api/v1/namespaces/default/pods".to_string(), pod(i).1)).collect(), 16);
    let t0 = Instant::now();
    kill("CONT", scheduler)?;
    created?;
    let pending = "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3D";
    loop {
        let v = api.get(pending)?;
        if v["items"].as_array().is_some_and(Vec::is_empty) {
            break;
        }
        if t0.elapsed() > Duration::from_secs(300) {
            let items = v["items"].as_array().cloned().unwrap_or_default();
            let why = items.first().and_then(|p| p["status"]["conditions"].as_array().and_then(|cs| cs.iter().find(|c| c["type"] == "PodScheduled")).map(|c| c["message"].to_string()));
            return Err(format!("{} pods still unscheduled after 300 s (the first: {})", items.len(), why.unwrap_or_else(|| "no PodScheduled condition".into())));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let seconds = t0.elapsed().as_secs_f64();
    let all = api.get("/api/v1/namespaces/default/pods")?;
    let mut per_node: BTreeMap<String, usize> = BTreeMap::new();
    for p in all["items"].as_array().into_iter().flatten() {
        *per_node.entry(p["spec"]["nodeName"].as_str().unwrap_or_default().to_string()).or_default() += 1;
    }
    let bound: usize = per_node.values().sum();
    if bound != pods {
        return Err(format!("{bound} pods listed, {pods} created"));
    }
    drop(api);
    let label = format!("real kube-scheduler {} ({limit})", c.release());
    for l in c.stop() {
        eprintln!("{l}");
    }
    Ok(Run { label, seconds, pods, spread: spread(&per_node, nodes) })
}

fn arg(args: &[String], name: &str) -> Result<Option<usize>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).map(Some).ok_or_else(|| format!("{name} takes a number")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = || -> Result<(), String> {
        let nodes = arg(&args, "--nodes")?.unwrap_or(500);
        let pods = arg(&args, "--pods")?.unwrap_or(1000);
        let qps = arg(&args, "--scheduler-qps")?.map(|q| q as u32);
        if pods > nodes * 8 {
            return Err(format!("{pods} pods do not fit {nodes} nodes of 8 GPUs"));
        }
        let version: KubeVersion = DEFAULT_RELEASE.parse().map_err(|e| format!("{e}"))?;
        println!("{pods} pods (1 nvidia.com/gpu, 1 cpu, 4Gi each) on {nodes} nodes (8 GPUs, 64 cpu, 512Gi each); Kubernetes {DEFAULT_RELEASE}");
        let mut runs = vec![model(nodes, pods, true, version)?, model(nodes, pods, false, version)?];
        runs.push(real(nodes, pods, qps)?);
        for r in &runs {
            println!("{:<62} {:>5} pods in {:>8.3} s = {:>10.1} pods/s  ({})", r.label, r.pods, r.seconds, r.rate(), r.spread);
        }
        let real = runs.last().map_or(1.0, Run::rate);
        for r in &runs[..2] {
            println!("ratio {}: {:.0}x the real scheduler", r.label, r.rate() / real);
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("scheduler_side_by_side: {e}");
        std::process::exit(1);
    }
}
