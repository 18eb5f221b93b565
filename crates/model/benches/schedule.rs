//! Issue 5 benchmark: 10,000 GPU pods scheduled one after another on 5,000 GPU nodes,
//! each cycle filtering every node with full per-node verdicts (no early stop; every
//! node's `NodeOutcome` is in the result) and binding the pod, through
//! [`HotSnapshot`] (the hot table and the per-node verdicts reused across cycles);
//! the same on 1,000 nodes for the growth; pods alternating 1 and 2 GPUs, so that no
//! verdict is reused and every cycle evaluates every node; and one unschedulable GPU
//! pod (FitError + preemption dry run, the straightforward `schedule_one`) on 1,000 vs
//! 5,000 nodes.
//!
//! Run: `cargo bench -p gpulab-model --bench schedule` (figures are the bench thread's
//! CPU time, see `support/clock.rs`; `GPULAB_BENCH_CLOCK=wall` for wall time).
//! Measured 2026-11-29 on the shared 2-core dev machine (criterion's middle estimate):
//!
//! | bench | before (`schedule_one` per cycle) | after (`HotSnapshot`) |
//! |---|---|---|
//! | 10k pods on 5,000 nodes | 4.54 s CPU (4.55 s wall, quiet machine) | 0.138 s CPU (0.145 s wall) |
//! | 10k pods on 1,000 nodes | — | 0.045 s |
//! | 10k mixed pods on 5,000 nodes (no reuse) | — | 1.48 s |
//! | unschedulable pod, 1,000 / 5,000 nodes | 2.5 / 11.6 ms | 1.8 / 11.3 ms (unchanged path) |
//!
//! Growth with nodes: 1,000 → 5,000 nodes is 0.045 → 0.138 s (×3.0 for ×5 nodes: the
//! per-node part is linear, plus a per-cycle constant); the unschedulable cycle is ×4.5–4.8.
//! Without reuse (mixed requests) a node costs ≈ 30 ns per cycle (fit check, two
//! integer and two float divisions for the scores), so 5,000 nodes × 10,000 cycles
//! take 1.5 s; the release profile is `opt-level = "z"` (for the wasm size budget).

#[path = "support/clock.rs"]
mod clock;

use std::collections::BTreeMap;
use std::hint::black_box;

use clock::Clock;
use criterion::{criterion_group, criterion_main, Criterion};
use gpulab_model::kubernetes::scheduler::{schedule_one, FilterOptions, HotSnapshot, Outcome, PodInfo, Snapshot};
use k8s_openapi::api::core::v1::{Container, Node, NodeStatus, Pod, PodSpec, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

fn res(pairs: &[(&str, &str)]) -> BTreeMap<String, Quantity> {
    pairs.iter().map(|(k, v)| (k.to_string(), Quantity(v.to_string()))).collect()
}

fn gpu_node(i: usize, gpus: &str) -> Node {
    let r = res(&[("cpu", "64"), ("memory", "512Gi"), ("pods", "110"), ("nvidia.com/gpu", gpus)]);
    Node {
        metadata: ObjectMeta { name: Some(format!("gpu-{i:05}")), ..Default::default() },
        status: Some(NodeStatus { capacity: Some(r.clone()), allocatable: Some(r), ..Default::default() }),
        ..Default::default()
    }
}

fn gpu_pod(i: usize) -> Pod {
    gpu_pod_with(i, "1")
}

fn gpu_pod_with(i: usize, gpus: &str) -> Pod {
    let r = res(&[("cpu", "1"), ("memory", "4Gi"), ("nvidia.com/gpu", gpus)]);
    Pod {
        metadata: ObjectMeta {
            name: Some(format!("train-{i}")),
            namespace: Some("default".into()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "cuda".into(),
                resources: Some(ResourceRequirements {
                    limits: Some(r.clone()),
                    requests: Some(r),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Schedules `pods` pods in turn on the hot snapshot, binding each; returns how many
/// were bound. Every cycle returns the verdict of every node (`ScheduleResult.nodes`).
fn schedule_all(base: &HotSnapshot, pods: &[PodInfo], opts: &FilterOptions) -> usize {
    let mut snapshot = base.clone();
    let mut bound = 0;
    for p in pods {
        let result = snapshot.schedule_one(p, opts);
        assert_eq!(result.nodes.len(), snapshot.snapshot().nodes.len());
        if let Outcome::Scheduled { node_index, .. } = result.outcome {
            if snapshot.add_pod(node_index, p.as_bound()) {
                bound += 1;
            }
        }
    }
    bound
}

fn bench(c: &mut Criterion<Clock>) {
    let opts = FilterOptions::default();
    let pods: Vec<PodInfo> = (0..10_000).map(|i| PodInfo::new(gpu_pod(i), true)).collect();
    let mut g = c.benchmark_group("schedule");
    g.sample_size(10);
    // 8 GPUs per node on 5,000 nodes, 16 on 1,000: room for the 10,000 pods either way.
    for (nodes, gpus, name) in [(5_000, "8", "10k_gpu_pods_on_5k_nodes"), (1_000, "16", "10k_gpu_pods_on_1k_nodes")] {
        let cluster = HotSnapshot::new(Snapshot::new((0..nodes).map(|i| gpu_node(i, gpus)), &[]));
        g.bench_function(name, |b| {
            b.iter(|| {
                let n = schedule_all(&cluster, black_box(&pods), &opts);
                assert_eq!(n, 10_000);
            })
        });
    }
    // Pods alternating 1 and 2 GPUs: no two consecutive cycles share requests, so no
    // verdict is reused and every cycle evaluates every node from the hot table.
    let mixed: Vec<PodInfo> =
        (0..10_000).map(|i| PodInfo::new(gpu_pod_with(i, if i.is_multiple_of(2) { "1" } else { "2" }), true)).collect();
    let cluster = HotSnapshot::new(Snapshot::new((0..5_000).map(|i| gpu_node(i, "8")), &[]));
    g.bench_function("10k_mixed_gpu_pods_on_5k_nodes", |b| {
        b.iter(|| {
            let n = schedule_all(&cluster, black_box(&mixed), &opts);
            assert_eq!(n, 10_000);
        })
    });
    // A cluster whose GPUs are all taken: the worst case, FitError over every node
    // plus a preemption dry run on every node.
    let lone = PodInfo::new(gpu_pod(0), true);
    for nodes in [1_000usize, 5_000] {
        let full: Vec<Pod> = (0..nodes)
            .map(|i| {
                let mut p = gpu_pod(100_000 + i);
                if let Some(s) = p.spec.as_mut() {
                    s.node_name = Some(format!("gpu-{i:05}"));
                }
                p
            })
            .collect();
        let snapshot = Snapshot::new((0..nodes).map(|i| gpu_node(i, "1")), &full);
        g.bench_function(format!("unschedulable_gpu_pod_on_{nodes}_nodes"), |b| {
            b.iter(|| {
                let r = schedule_one(black_box(&snapshot), &lone, &opts);
                assert!(!r.is_scheduled());
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = clock::criterion();
    targets = bench
}
criterion_main!(benches);
