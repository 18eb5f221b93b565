//! Snapshot of the incident report (issue 6) generated from the seed incident, in
//! English and Korean: the rollout stalls on gpu-node-2 (its turn last), containerd is
//! restarted there, the rollout finishes. Regenerate with `UPDATE_SNAPSHOTS=1 cargo test`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;

use gpulab_model::daemonset::report::{build_report, run_incident, Artifacts};
use gpulab_model::daemonset::seed::{seed_incident, BROKEN_NODE};
use gpulab_model::daemonset::text::Lang;
use gpulab_model::daemonset::NodeOrder;

fn report(lang: Lang) -> gpulab_model::daemonset::report::IncidentReport {
    let order = NodeOrder::Fixed(vec!["gpu-node-1".into(), "gpu-node-3".into(), BROKEN_NODE.into()]);
    let (rollout, at_stall, checks) = run_incident(seed_incident(order, 1).unwrap(), true, 50);
    build_report(&rollout, &at_stall, Artifacts { check_runtime: checks, ..Artifacts::default() }, lang)
}

fn check_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} missing: run with UPDATE_SNAPSHOTS=1", path.display()));
    if expected != actual {
        let first = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{name} differs from the snapshot at line {}:\n  expected: {:?}\n  actual:   {:?}\n(UPDATE_SNAPSHOTS=1 to accept)",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
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

/// The report names the stalled node, the root cause and the fix, and says it was resolved.
#[test]
fn report_content() {
    let r = report(Lang::En);
    assert!(r.resolved);
    assert_eq!(r.diagnosis.stalled_nodes[0].node, BROKEN_NODE);
    let md = r.to_markdown();
    for needle in [
        "2 of 3 updated pods are available...",
        "no runtime handler \"nvidia\"",
        "/etc/containerd/conf.d/99-nvidia.toml:2:1",
        "sudo systemctl restart containerd",
        "| gpu-node-2 | before-restart | FAIL |",
        "| gpu-node-2 | after-restart | PASS |",
        "successfully rolled out",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["diagnosis"]["stalledNodes"][0]["node"], BROKEN_NODE);
}
