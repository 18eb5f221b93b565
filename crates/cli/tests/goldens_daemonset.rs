//! The DaemonSet goldens (`../shared/goldens/k8s/`) through `gpulab goldens`, as a
//! cargo test: every case of the three DaemonSet / rollout areas must pass (issue 6).

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::PathBuf;
use std::process::Command;

fn golden(file: &str) -> PathBuf {
    shared_dir::goldens("k8s").join(file)
}

/// Runs `gpulab goldens FILE` and returns (exit code, stdout).
fn run(file: &str) -> (i32, String) {
    let path = golden(file);
    assert!(path.is_file(), "{} is missing: the goldens live in ../shared beside the project", path.display());
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).arg("goldens").arg(&path).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn assert_all_pass(file: &str) {
    let (code, stdout) = run(file);
    let summary = stdout.lines().last().unwrap_or_default().to_string();
    assert!(code == 0 && summary.ends_with(" passed, 0 failed") && !summary.starts_with("0 "), "{file}:\n{stdout}");
}

/// NodeShouldRunDaemonPod cases (TestNodeShouldRunDaemonPod), both strategies.
#[test]
fn daemonset_node_should_run_all_pass() {
    assert_all_pass("daemonset_node_should_run.json");
}

/// Rolling-update sequences (TestDaemonSetUpdates*) under four node orders, and
/// TestGetUnavailableNumbers.
#[test]
fn daemonset_rolling_update_all_pass() {
    assert_all_pass("daemonset_rolling_update.json");
}

/// `kubectl rollout status` messages (TestDaemonSetStatusViewerStatus*).
#[test]
fn rollout_status_all_pass() {
    assert_all_pass("rollout_status.json");
}
