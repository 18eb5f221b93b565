//! Issue 5 benchmark: 10,000 GPU pods scheduled one after another on 5,000 GPU nodes,
//! each cycle filtering every node with full per-node reasons (no early stop) and
//! binding the pod; and one unschedulable GPU pod (FitError + preemption dry run) on
//! 1,000 vs 5,000 nodes to show cost linear in nodes.
//!
//! Run: `cargo bench -p gpulab-model --bench schedule`.

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
