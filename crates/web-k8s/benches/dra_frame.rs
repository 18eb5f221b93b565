//! Issue 17's 1,000-device frame, natively: the DRA module's `kube` call
//! (`gpu_node_lab_k8s::kube_dra`, what `crates/web-dra` exports) on the input
//! `tests/e2e/bench/dra.test.mjs` builds — the lab's cluster with 125 GPU nodes in
//! place of gpu-node-2, dra.yaml with the NVIDIA driver's slices of every node (8 H100s
//! each: 1,000 devices in 125 ResourceSlices, as `gpulab dra slices` writes them) —
//! every call an edit: a comment line added to the pod, or to the objects file. The
//! first call of each case reads every file and is not counted, as in the browser bench.
//!
//! Run: `cargo bench -p gpu-node-lab-k8s --bench dra_frame` (prints the median wall
//! time per call of each case; `RUNS=N`, default 20; `CASE=pod|objects|small` for one
//! case). For instruction counts (stable on a loaded machine): build it with
//! `cargo bench -p gpu-node-lab-k8s --bench dra_frame --profile bench-native --no-run`
//! and run the binary under `valgrind --tool=callgrind` with `CASE=pod RUNS=0` and
//! `RUNS=10`: the difference over 10 is one re-schedule (ARCHITECTURE.md, "The
//! 1,000-device frame").

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::time::Instant;

use gpulab_model::kubernetes::dra::nvidia::{resource_slices, NodeGpus};
use gpulab_model::slots::{GpuModel, MigCatalog};

const NODES: usize = 125;
const GPUS: u32 = 8;

fn data(file: &str) -> &'static str {
    match file {
        "cluster.yaml" => include_str!("../../../src/steps/data/cluster.yaml"),
        "dra.yaml" => include_str!("../../../src/steps/data/dra.yaml"),
        "dra-pod.yaml" => include_str!("../../../src/steps/data/dra-pod.yaml"),
        "runtimeclass.yaml" => include_str!("../../../src/steps/data/runtimeclass.yaml"),
        "incident-main.toml" => include_str!("../../../src/steps/data/incident-main.toml"),
        "incident-99-nvidia.toml" => include_str!("../../../src/steps/data/incident-99-nvidia.toml"),
        _ => "",
    }
}

/// The lab's cluster with `NODES` GPU nodes in place of gpu-node-2 (cpu-node-1 kept).
fn big_cluster() -> String {
    let (gpu_node, rest) = data("cluster.yaml").split_once("\n---\n").unwrap_or_default();
    let mut docs: Vec<String> = (0..NODES).map(|i| gpu_node.replace("gpu-node-2", &format!("gpu-node-{}", i + 2))).collect();
    docs.push(rest.to_string());
    docs.join("\n---\n")
}

/// `gpulab dra slices --node N --gpu-model "NVIDIA H100 80GB HBM3" --gpus 8`.
fn slices(node: &str) -> String {
    let model = GpuModel::known("NVIDIA H100 80GB HBM3").ok().flatten().expect("the H100 is known");
    let catalog = MigCatalog::embedded().expect("the MIG catalogue reads");
    let slices = resource_slices(&NodeGpus::new(node, model, GPUS), None, &catalog).expect("the slices");
    slices.iter().map(|s| serde_norway::to_string(&serde_json::to_value(s).expect("json")).expect("yaml")).collect::<Vec<_>>().join("---\n")
}

/// dra.yaml with the driver's slices of every GPU node instead of gpu-node-2's.
fn big_objects() -> String {
    let own = data("dra.yaml");
    let keep = own.find("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice").map_or(own, |at| &own[..at]);
    let slices: Vec<String> = (0..NODES).map(|i| slices(&format!("gpu-node-{}", i + 2))).collect();
    format!("{keep}{}", slices.join("---\n"))
}

fn request(cluster: &str, objects: &str, pod: &str) -> String {
    serde_json::json!({
        "version": "1.36", "cluster": cluster, "runtimeclass": data("runtimeclass.yaml"), "pod": pod, "patches": [],
        "containerd": { "version": "1.7.34", "main": data("incident-main.toml"), "dropin": data("incident-99-nvidia.toml") },
        "kubelet_node": "", "node_ops": [], "by_hand": false, "path": "dra", "objects": objects,
    })
    .to_string()
}

fn edited(text: &str, i: usize) -> String {
    format!("{text}# edit {i}\n")
}

fn main() {
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(20);
    let only = std::env::var("CASE").ok();
    let (cluster, objects, pod) = (big_cluster(), big_objects(), data("dra-pod.yaml"));
    let cases: [(&str, &str, Box<dyn Fn(usize) -> String>); 3] = [
        ("small", "the lab's 2 nodes, 4 devices, the pod edited", Box::new(|i| request(data("cluster.yaml"), "", &edited(pod, i)))),
        ("pod", "125 GPU nodes, 1000 devices, the pod edited", Box::new(|i| request(&cluster, &objects, &edited(pod, i)))),
        ("objects", "125 GPU nodes, 1000 devices, the objects file edited", Box::new(|i| request(&cluster, &edited(&objects, i), pod))),
    ];
    for (name, what, make) in &cases {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let requests: Vec<String> = (0..=runs).map(make).collect();
        let mut reply = gpu_node_lab_k8s::kube_dra(&requests[0]);
        let mut times = Vec::new();
        for r in &requests[1..] {
            let t0 = Instant::now();
            reply = gpu_node_lab_k8s::kube_dra(r);
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        assert!(reply.contains("Scheduled to gpu-node-2"), "{}", &reply[..reply.len().min(500)]);
        assert!(reply.contains("gpu: gpu.nvidia.com gpu-node-2 gpu-0"), "{}", &reply[..reply.len().min(500)]);
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
        println!("dra_frame: {name} ({what}): median {median:.2} ms wall per re-schedule ({runs} runs)");
    }
}
