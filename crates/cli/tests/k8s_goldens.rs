//! Issue 5: every case of the seven Kubernetes golden files this model owns passes
//! through `gpulab goldens`, exactly as the README's test command runs them.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::PathBuf;
use std::process::Command;

/// `../shared/goldens/k8s` from the project root.
fn goldens_dir() -> PathBuf {
    shared_dir::goldens("k8s")
}

/// Each owned area's file runs green, case by case (a failing case prints its diff).
#[test]
fn issue_5_k8s_goldens_pass() {
    let areas = [
        "fit_error",
        "preemption",
        "noderesources_fit",
        "tainttoleration",
        "nodeunschedulable",
        "nodeaffinity",
        "runtimeclass_admission",
    ];
    for area in areas {
        let file = goldens_dir().join(format!("{area}.json"));
        let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).arg("goldens").arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{area}:\n{stdout}");
        let summary = stdout.lines().last().unwrap_or("");
        assert!(summary.ends_with(" passed, 0 failed") && !summary.starts_with("0 passed"), "{area}: {summary}");
    }
}
