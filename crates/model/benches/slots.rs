//! How long the slot calculator takes for what the app does on every edit: read the MIG
//! catalogue, load a config and advertise an 8-GPU node, and build the whole slot table.
//! Run: `cargo bench -p gpulab-model --bench slots`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gpulab_model::Lang;
use gpulab_model::slots::{
    self,
    table::{default_modes, slot_table, TableRequest},
    Deployment, GpuModel, MigCatalog, NodeSpec, PluginVersion, Scenario,
};

const CONFIG: &str = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n";

fn h100() -> GpuModel {
    GpuModel::known("NVIDIA H100 80GB HBM3").ok().flatten().unwrap_or(GpuModel {
        name: "NVIDIA H100 80GB HBM3".into(),
        memory_mib: Some(81559),
        compute_capability: None,
        mig_capable: true,
    })
}

fn bench(c: &mut Criterion) {
    c.bench_function("mig catalogue: parse embedded YAML", |b| b.iter(|| black_box(MigCatalog::embedded())));
    let Ok(catalog) = MigCatalog::embedded() else { return };
    let scenario = Scenario {
        file: "config.yaml".into(),
        text: CONFIG.into(),
        version: PluginVersion::REFERENCE,
        deployment: Deployment::default(),
        nodes: (0..3).map(|i| NodeSpec::uniform(format!("n{i}"), h100(), 8, None)).collect(),
    };
    c.bench_function("evaluate: load config + advertise 3 nodes x 8 GPUs", |b| {
        b.iter(|| black_box(slots::evaluate(black_box(&scenario), &catalog)))
    });
    let req = TableRequest {
        model: h100(),
        gpus_per_node: 8,
        nodes: 3,
        config: Some(("config.yaml".into(), CONFIG.into())),
        mig: None,
        modes: default_modes(&h100(), &catalog, 10, &[]),
        version: PluginVersion::REFERENCE,
        deployment: Deployment::default(),
    };
    c.bench_function("slot table: 7 modes, markdown", |b| {
        b.iter(|| black_box(slots::table::to_markdown(&slot_table(black_box(&req), &catalog, Lang::En))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
