//! How the DaemonSet model scales with the cluster (DESIGN §7: 5,000 nodes,
//! Kubernetes' own limit, interactively, cost linear in nodes).
//!
//! - `rollout_to_completion/maxUnavailable=10%/N`: apply the device-plugin update to a
//!   settled N-node cluster and step rounds until `rollout status` is done. The number
//!   of rounds grows slowly (10 % per step, but at most 250 creations per sync).
//! - `sync/N`: one controller sync on a settled cluster (the per-sync cost).
//! - `rollout_to_completion/maxUnavailable=1/N`: the default strategy, for reference:
//!   it needs 2·N rounds of O(N) each, so it is quadratic by nature.
//!
//! Run: `cargo bench -p gpulab-model --bench daemonset_rollout` (figures are the bench
//! thread's CPU time, see `support/clock.rs`; `GPULAB_BENCH_CLOCK=wall` for wall time).
//! Measured 2026-11-29 on the shared 2-core dev machine, after binding got its per-round
//! index (`daemonset::bind_index`); before, each daemon pod's cycle scanned every pod of
//! the cluster (and cloned it into a fresh snapshot on a rejection), so the rollout was
//! quadratic:
//!
//! | nodes | rollout to completion, 10 % (rounds): before | after | one sync (after) |
//! |---|---|---|---|
//! | 500   | 41 ms (25)  | 28 ms (25)  | 0.54 ms |
//! | 1,000 | 135 ms (27) | 68 ms (27)  | 1.6 ms  |
//! | 2,000 | 486 ms (31) | 163 ms (31) | 4.0 ms  |
//! | 5,000 | 3.08 s (44) | 0.64 s (44) | 13.8 ms |
//!
//! Wall time on a quiet machine, 5,000 nodes: 3.89 s before, 0.63 s after. From 500 to
//! 5,000 nodes the rollout grows ×23: the rounds grow ×1.76 (BurstReplicas caps a sync
//! at 250 creations, below 10 % of 5,000) and one controller sync ×25 (super-linear:
//! maps keyed by name, sorts, and allocator churn over 5,000 pods; not optimised here).
//! maxUnavailable 1: 100 → 31 ms, 250 → 177 ms, 500 → 617 ms (2·N rounds of O(N):
//! quadratic, as the algorithm is).
//!
//! Since the controller keeps its pods indexed by node and a verdict per node (issue
//! 19, `daemonset::store`), measured 2026-12-03 with `cargo bench --profile
//! bench-native` (no LTO) on the same loaded machine: rollout to completion, 10 %:
//! 500 → 20.5 ms, 5,000 → 314 ms (×15 for ×10 nodes, was ×23); one sync on a settled
//! cluster is now too short for the thread CPU clock (criterion reports zero time):
//! with `GPULAB_BENCH_CLOCK=wall`, 0.9 ms at 500 and 1.5 ms at 5,000 nodes (noisy; was
//! 13.8 ms at 5,000).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "support/clock.rs"]
mod clock;

use clock::Clock;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use gpulab_model::daemonset::rollout::Rollout;
use gpulab_model::daemonset::manifests::Manifests;
use gpulab_model::incident::seed::{DEVICE_PLUGIN_V1_YAML, DEVICE_PLUGIN_V2_YAML};
use gpulab_model::daemonset::NodeOrder;
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{Node, NodeStatus};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

fn daemon_sets(max_unavailable: IntOrString) -> (DaemonSet, DaemonSet) {
    let mut m = Manifests::default();
    m.add_yaml("v1", DEVICE_PLUGIN_V1_YAML).unwrap();
    m.add_yaml("v2", DEVICE_PLUGIN_V2_YAML).unwrap();
    let mut it = m.daemon_sets.into_iter();
    let (mut v1, mut v2) = (it.next().unwrap(), it.next().unwrap());
    for ds in [&mut v1, &mut v2] {
        let ru = ds.spec.as_mut().unwrap().update_strategy.as_mut().unwrap().rolling_update.as_mut().unwrap();
        ru.max_unavailable = Some(max_unavailable.clone());
    }
    (v1, v2)
}

/// A settled cluster of `n` nodes running v1, and the v2 update to apply.
fn settled(n: usize, max_unavailable: IntOrString) -> (Rollout, DaemonSet) {
    let nodes: Vec<Node> = (0..n)
        .map(|i| {
            let mut node = Node::default();
            node.metadata.name = Some(format!("gpu-node-{i}"));
            // The scheduler model binds daemon pods: a node admits `pods` of them.
            let allocatable = [("pods".to_string(), Quantity("110".into()))].into();
            node.status = Some(NodeStatus { allocatable: Some(allocatable), ..Default::default() });
            node
        })
        .collect();
    let mut rc = RuntimeClass { handler: "nvidia".into(), ..Default::default() };
    rc.metadata.name = Some("nvidia".into());
    let (v1, v2) = daemon_sets(max_unavailable);
    let mut r = Rollout::new(v1, nodes, vec![rc], NodeOrder::Seeded(7), 7, 1_790_000_000);
    assert!(r.run_until_settled(1_000));
    r.rounds.clear();
    (r, v2)
}

/// Applies the update and steps to completion; returns the rollout so that dropping
/// it is not timed.
fn roll(mut r: Rollout, v2: DaemonSet) -> Rollout {
    r.apply_update(v2);
    assert!(r.run_until_settled(100_000), "rollout did not finish");
    r
}

fn bench(c: &mut Criterion<Clock>) {
    let mut g = c.benchmark_group("rollout_to_completion/maxUnavailable=10%");
    g.sample_size(10);
    for n in [500, 1_000, 2_000, 5_000] {
        let (r, v2) = settled(n, IntOrString::String("10%".into()));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched(|| (r.clone(), v2.clone()), |(r, v2)| roll(r, v2), BatchSize::LargeInput)
        });
    }
    g.finish();

    let mut g = c.benchmark_group("sync");
    g.sample_size(20);
    for n in [500, 1_000, 2_000, 5_000] {
        let (r, _) = settled(n, IntOrString::Int(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched(
                || r.clone(),
                |mut r| {
                    let result = r.controller.sync();
                    (r, result)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();

    let mut g = c.benchmark_group("rollout_to_completion/maxUnavailable=1");
    g.sample_size(10);
    for n in [100, 250, 500] {
        let (r, v2) = settled(n, IntOrString::Int(1));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched(|| (r.clone(), v2.clone()), |(r, v2)| roll(r, v2), BatchSize::LargeInput)
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
