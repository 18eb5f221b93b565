//! The incident report (issue 6) generated from the seed incident, in English and
//! Korean: the rollout stalls on gpu-node-2 (its turn last), the drop-in is fixed and
//! containerd restarted there, the rollout finishes. Snapshots pin the whole text;
//! the other tests prove it is computed from the models, not pasted: change a model
//! input (a config line, the containerd version) and the report follows.
//! Regenerate the snapshots with `UPDATE_SNAPSHOTS=1 cargo test -p gpulab-model --test incident_report`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::path::PathBuf;

mod common;
use common::check_snapshot;

use gpulab_model::containerd::{self, Daemon, Files, Supervisor, Version, MAIN_CONFIG};
use gpulab_model::incident::run::IncidentRun;
use gpulab_model::incident::report::{build_report, IncidentReport};
use gpulab_model::incident::seed::{
    incident_from_manifests, seed_incident_full, seed_manifests, BROKEN_NODE, MAIN_CONFIG_BROKEN_NODE, MAIN_CONFIG_WITH_NVIDIA,
    NVIDIA_DROPIN, NVIDIA_DROPIN_FULL_TABLE, NVIDIA_DROPIN_PATH, TIME_SLICING_YAML,
};
use gpulab_model::Lang;
use gpulab_model::daemonset::NodeOrder;

fn last() -> NodeOrder {
    NodeOrder::Fixed(vec!["gpu-node-1".into(), "gpu-node-3".into(), BROKEN_NODE.into()])
}

fn seed_run(lang: Lang) -> IncidentRun {
    seed_incident_full(last(), 1).unwrap().run(true, 50, lang)
}

fn report_of(run: IncidentRun, lang: Lang) -> IncidentReport {
    build_report(&run.rollout, &run.at_stall, run.artifacts, lang)
}

fn report(lang: Lang) -> IncidentReport {
    report_of(seed_run(lang), lang)
}

/// The seed with the broken node's main config `main` on containerd `version`.
fn variant(main: &str, version: &str) -> IncidentReport {
    let v = Version::parse(version).unwrap();
    let mut d = Daemon::new(v.clone(), Supervisor::systemd(), Files::new().with(MAIN_CONFIG, main));
    d.start();
    d.write_file(NVIDIA_DROPIN_PATH, NVIDIA_DROPIN);
    let daemons: BTreeMap<String, Daemon> = [(BROKEN_NODE.to_string(), d)].into();
    let incident = incident_from_manifests(&seed_manifests().unwrap(), daemons, &v, last(), 1).unwrap();
    report_of(incident.run(true, 50, Lang::En), Lang::En)
}


/// The English report, byte for byte.
#[test]
fn report_en_snapshot() {
    check_snapshot("incident_report.en.md", &report(Lang::En).to_markdown());
}

/// The Korean report, byte for byte.
#[test]
fn report_ko_snapshot() {
    check_snapshot("incident_report.ko.md", &report(Lang::Ko).to_markdown());
}

/// The report names the stalled node, the root causes with file:line, the fix, the
/// verdicts before and after, the slot table, and says it was resolved.
#[test]
fn report_content() {
    let r = report(Lang::En);
    assert!(r.resolved);
    assert_eq!(r.diagnosis.stalled_nodes[0].node, BROKEN_NODE);
    let md = r.to_markdown();
    for needle in [
        "2 of 3 updated pods are available...",
        "no runtime handler \"nvidia\"",
        // The chain's roots, with file:line:col.
        "`/etc/containerd/conf.d/99-nvidia.toml:14:11`",
        "`/etc/containerd/conf.d/99-nvidia.toml:7:3`",
        // The merge: which table, which keys, where.
        "| `plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options.SystemdCgroup` | `true` | `/etc/containerd/config.toml:19` | `/etc/containerd/conf.d/99-nvidia.toml:7` |",
        "level=warning msg=\"failed to load plugin io.containerd.grpc.v1.cri\" error=\"invalid plugin config: no corresponding runtime configured",
        // The check before, if restarted as is, after.
        "| gpu-node-2 | at the stall, before the restart | restart-needed (2) | loaded-handler-missing, dump-default-undefined, dump-keep-lost, restart-needed |",
        "| gpu-node-2 | if restarted with the files as they are (simulated on a copy, not applied) | check-failed (1) |",
        "| gpu-node-2 | after the fix and the restart | pass (0) | - |",
        "Fix applied on gpu-node-2: `/etc/containerd/conf.d/99-nvidia.toml` rewritten",
        "| gpu-node-2 | NVIDIA A100-SXM4-40GB | 4 | 4 | 16 | 0 |",
        "successfully rolled out",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["diagnosis"]["stalledNodes"][0]["node"], BROKEN_NODE);
    assert_eq!(json["artifacts"]["checkRuntime"][0]["verdict"], "restart-needed");
    assert_eq!(json["artifacts"]["merge"][0]["replaced"][0]["table"], "plugins.\"io.containerd.grpc.v1.cri\"");
}

/// Upstream texts stay English, byte for byte, in the Korean report.
#[test]
fn korean_report_keeps_upstream_texts() {
    let (en, ko) = (report(Lang::En).to_markdown(), report(Lang::Ko).to_markdown());
    for upstream in [
        "Waiting for daemon set \"nvidia-device-plugin-daemonset\" rollout to finish: 2 of 3 updated pods are available...",
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is configured",
        "invalid plugin config: no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"runc\"",
        "daemon set \"nvidia-device-plugin-daemonset\" successfully rolled out",
    ] {
        assert!(en.contains(upstream) && ko.contains(upstream), "{upstream:?} missing");
    }
}

/// The merge section is the containerd model's explanation: every key the model says
/// is lost appears with its file:line, and a key removed from the main config
/// disappears from the report (the report is computed, not pasted).
#[test]
fn merge_section_follows_the_containerd_model() {
    let files = Files::new().with(MAIN_CONFIG, MAIN_CONFIG_BROKEN_NODE).with(NVIDIA_DROPIN_PATH, NVIDIA_DROPIN);
    let explained = containerd::load(&files, &Version::parse("1.6.20").unwrap()).explanation;
    let md = report(Lang::En).to_markdown();
    let lost = &explained.replaced[0].lost;
    assert_eq!(lost.len(), 5);
    for k in lost {
        let row = format!("| `{}` | `{}` | `{}` | `{}` |", k.key, k.value, k.defined_at.clone().unwrap(), k.lost_at.clone().unwrap());
        assert!(md.contains(&row), "missing {row}");
    }

    let without_sandbox_image = MAIN_CONFIG_BROKEN_NODE.replace("    sandbox_image = \"registry.k8s.io/pause:3.9\"\n", "");
    assert_ne!(without_sandbox_image, MAIN_CONFIG_BROKEN_NODE);
    let changed = variant(&without_sandbox_image, "1.6.20").to_markdown();
    assert_ne!(changed, md);
    assert!(!changed.contains("sandbox_image"), "{changed}");
    assert!(changed.contains("4 setting(s) of the earlier file are lost"), "{changed}");
}

/// The containerd version is a model input: on 2.0.11 the same drop-in merges per key
/// (no table replaced, runc kept), a restart alone is the fix; on 1.7.34 the table is
/// replaced as on 1.6 and the drop-in must be rewritten.
#[test]
fn containerd_version_changes_the_story() {
    let v2 = variant(MAIN_CONFIG_BROKEN_NODE, "2.0.11");
    assert!(v2.resolved);
    assert!(v2.artifacts.fix[0].files_written.is_empty(), "{:?}", v2.artifacts.fix);
    assert!(v2.artifacts.merge[0].replaced.is_empty());
    let md = v2.to_markdown();
    assert!(md.contains("containerd 2.0.11") && md.contains("No table is replaced whole."), "{md}");
    let codes: Vec<&str> = v2.diagnosis.stalled_nodes[0].chain.iter().map(|l| l.code.as_str()).collect();
    assert!(codes.contains(&"restart-would-load") && !codes.contains(&"restart-would-fail"), "{codes:?}");

    let v17 = variant(MAIN_CONFIG_BROKEN_NODE, "1.7.34");
    assert!(v17.resolved);
    assert_eq!(v17.artifacts.fix[0].files_written, [NVIDIA_DROPIN_PATH]);
    assert!(v17.to_markdown().contains("containerd 1.7.34's CRI plugin would fail"));
}

/// The seed's files are the `incident` scenario's (one story, one set of files).
#[test]
fn seed_files_are_the_incident_scenarios() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    for (seed, file) in [
        (MAIN_CONFIG_BROKEN_NODE, "incident/nodes/config.toml"),
        (MAIN_CONFIG_WITH_NVIDIA, "incident/nodes/config-with-nvidia.toml"),
        (NVIDIA_DROPIN, "incident/nodes/99-nvidia.toml"),
        (NVIDIA_DROPIN_FULL_TABLE, "incident/nodes/99-nvidia-full-table.toml"),
        (TIME_SLICING_YAML, "timeslicing-no-isolation/nvidia/time-slicing.yaml"),
        (TIME_SLICING_YAML, "incident/nvidia/time-slicing.yaml"),
    ] {
        assert_eq!(seed, std::fs::read_to_string(root.join(file)).unwrap(), "{file}");
    }
}

/// Whatever Go's map order does (seeded orders), the seed's report names gpu-node-2,
/// ends resolved, and its Markdown and JSON build without a panic.
#[test]
fn any_node_order_gives_a_resolved_report() {
    for seed in 0..12 {
        let run = seed_incident_full(NodeOrder::Seeded(seed), seed).unwrap().run(true, 50, Lang::En);
        let r = report_of(run, Lang::En);
        assert!(r.resolved, "seed {seed}");
        assert_eq!(r.diagnosis.stalled_nodes.iter().map(|n| n.node.as_str()).collect::<Vec<_>>(), [BROKEN_NODE], "seed {seed}");
        assert!(r.to_markdown().contains("## Stalled node: gpu-node-2"));
        serde_json::to_string(&r).unwrap();
    }
}

/// The report of the `incident` scenario's own run (its checks by step name, the merge
/// at the stall, the scheduler's verdicts, the fix the scenario applied, the slot table
/// of its plugin-config step), byte for byte in both languages.
#[test]
fn scenario_report_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/incident");
    let text = std::fs::read_to_string(dir.join("scenario.toml")).unwrap();
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).map_err(|e| e.to_string());
    let scenario = gpulab_model::scenario::parse("incident", "scenario.toml", &text, &read).unwrap();
    for (lang, name) in [(Lang::En, "incident_scenario_report.en.md"), (Lang::Ko, "incident_scenario_report.ko.md")] {
        let run = gpulab_model::incident::scenario::incident_run(&scenario, lang).unwrap();
        let r = report_of(run, lang);
        assert!(r.resolved);
        check_snapshot(name, &r.to_markdown());
    }
}
