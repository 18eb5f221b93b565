//! Issue 19: what `gpulab schedule` costs on a real cluster's size, in the model — a
//! cluster read from YAML (nodes and their bound pods), and one pod scheduled on it
//! with the full node × plugin table — and its growth with the nodes.
//!
//! - `read/cluster.yaml/N`: `yaml::load_cluster` of N GPU nodes and 4 bound GPU pods per
//!   node, written as `scripts/gen-cluster.sh` writes `cluster.yaml` (block documents
//!   with one-line flow maps of quantities).
//! - `read/dump.yaml/N`: the same cluster as `kubectl get nodes,pods -A -o yaml` prints
//!   it (one `kind: List`, block style, the server's fields and managedFields).
//! - `schedule/N`: read `cluster.yaml`, build the snapshot from the bound pods'
//!   accounting, create and schedule a 4-GPU pod with every node's reasons and the
//!   table text (what `gpulab schedule` does between reading the files and printing).
//!
//! Run: `cargo bench -p gpulab-model --bench cluster_read` (the bench thread's CPU time,
//! see `support/clock.rs`; `GPULAB_BENCH_CLOCK=wall` for wall time). The CLI itself, as
//! a user runs it and at 20,000 nodes too: `scripts/bench-scale.sh` (ARCHITECTURE.md
//! "Scale" has the figures of both).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "support/clock.rs"]
mod clock;

use std::fmt::Write;
use std::hint::black_box;

use clock::Clock;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::scheduler::explain::table;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Snapshot};
use gpulab_model::kubernetes::yaml;

/// A node's GPUs and its pods' (1 or 2 each), drawn from a fixed sequence.
fn shape(i: usize) -> (u32, [u32; 4]) {
    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    let gpus = if h % 4 == 0 { 4 } else { 8 };
    (gpus, [0, 1, 2, 3].map(|k| if (h >> (k + 2)) % 3 == 0 { 2 } else { 1 }))
}

/// `cluster.yaml` as `scripts/gen-cluster.sh` writes it.
fn cluster_yaml(n: usize) -> String {
    let mut s = String::new();
    for i in 1..=n {
        let (gpus, _) = shape(i);
        let cordon = if i % 33 == 0 { "\n  unschedulable: true" } else { "" };
        write!(s, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-{i:05}\n  labels:\n    kubernetes.io/hostname: gpu-node-{i:05}\n    nvidia.com/gpu.present: \"true\"\n    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\nspec:{cordon}\n  taints:\n  - key: nvidia.com/gpu\n    effect: NoSchedule\nstatus:\n  capacity: {{cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"{gpus}\", pods: \"110\"}}\n  allocatable: {{cpu: \"63\", memory: 500Gi, nvidia.com/gpu: \"{gpus}\", pods: \"110\"}}\n").unwrap();
    }
    s.push_str("---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia\n");
    for i in 1..=n {
        for (k, g) in shape(i).1.iter().enumerate() {
            write!(s, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: train-{i:05}-{k}\n  namespace: team-a\nspec:\n  nodeName: gpu-node-{i:05}\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule\n  containers:\n  - name: cuda\n    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n    resources:\n      requests: {{cpu: \"4\", memory: 32Gi, nvidia.com/gpu: \"{g}\"}}\n      limits: {{nvidia.com/gpu: \"{g}\"}}\nstatus:\n  phase: Running\n").unwrap();
        }
    }
    s
}

/// The same cluster as `kubectl get nodes,pods -A -o yaml` prints it.
fn dump_yaml(n: usize) -> String {
    let mut s = String::from("apiVersion: v1\nitems:\n");
    for i in 1..=n {
        let (gpus, _) = shape(i);
        write!(s, "- apiVersion: v1\n  kind: Node\n  metadata:\n    creationTimestamp: \"2026-09-01T00:00:00Z\"\n    labels:\n      kubernetes.io/hostname: gpu-node-{i:05}\n      nvidia.com/gpu.present: \"true\"\n    managedFields:\n    - apiVersion: v1\n      fieldsType: FieldsV1\n      fieldsV1:\n        f:metadata:\n          f:labels:\n            .: {{}}\n      manager: kubelet\n      operation: Update\n    name: gpu-node-{i:05}\n    resourceVersion: \"{}\"\n    uid: 00000000-0000-4000-8000-{i:012}\n  spec:\n    taints:\n    - effect: NoSchedule\n      key: nvidia.com/gpu\n  status:\n    allocatable:\n      cpu: \"63\"\n      memory: 500Gi\n      nvidia.com/gpu: \"{gpus}\"\n      pods: \"110\"\n    capacity:\n      cpu: \"64\"\n      memory: 512Gi\n      nvidia.com/gpu: \"{gpus}\"\n      pods: \"110\"\n", 1000 + i).unwrap();
    }
    for i in 1..=n {
        for (k, g) in shape(i).1.iter().enumerate() {
            write!(s, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: train-{i:05}-{k}\n    namespace: team-a\n    uid: 10000000-0000-4000-8000-{i:08}{k:04}\n  spec:\n    containers:\n    - image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n      name: cuda\n      resources:\n        limits:\n          nvidia.com/gpu: \"{g}\"\n        requests:\n          cpu: \"4\"\n          memory: 32Gi\n          nvidia.com/gpu: \"{g}\"\n    nodeName: gpu-node-{i:05}\n    tolerations:\n    - effect: NoSchedule\n      key: nvidia.com/gpu\n      operator: Exists\n  status:\n    phase: Running\n").unwrap();
        }
    }
    s.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
    s
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-4gpu\n  namespace: default\nspec:\n  runtimeClassName: nvidia\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule\n  containers:\n  - name: cuda\n    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n    resources:\n      requests: {cpu: \"8\", memory: 64Gi}\n      limits:\n        nvidia.com/gpu: 4\n";

/// Reads the cluster and schedules [`POD`] on it; the table's length.
fn schedule(cluster: &str) -> usize {
    let (m, diags) = yaml::load_cluster("cluster.yaml", cluster);
    assert!(diags.is_empty());
    let (p, _) = yaml::load("pod.yaml", POD);
    let runtime_classes: Vec<_> = m.runtime_classes.iter().map(|l| l.object.clone()).collect();
    let snapshot = Snapshot::with_bound(m.nodes.into_iter().map(|l| l.object), m.bound);
    let pod = p.pods.into_iter().next().unwrap().object;
    let created = create_pod(pod, &snapshot, &runtime_classes, &FilterOptions::default(), 0).ok().unwrap();
    table(&created.explanation).len()
}

fn bench(c: &mut Criterion<Clock>) {
    let mut g = c.benchmark_group("read");
    g.sample_size(10);
    for n in [500, 5_000] {
        let (cluster, dump) = (cluster_yaml(n), dump_yaml(n));
        g.bench_with_input(BenchmarkId::new("cluster.yaml", n), &cluster, |b, text| {
            b.iter(|| black_box(yaml::load_cluster("cluster.yaml", text)))
        });
        g.bench_with_input(BenchmarkId::new("dump.yaml", n), &dump, |b, text| {
            b.iter(|| black_box(yaml::load_cluster("dump.yaml", text)))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("schedule");
    g.sample_size(10);
    for n in [500, 5_000] {
        let cluster = cluster_yaml(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &cluster, |b, text| b.iter(|| black_box(schedule(text))));
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = clock::criterion();
    targets = bench
}
criterion_main!(benches);
