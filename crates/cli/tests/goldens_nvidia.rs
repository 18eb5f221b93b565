//! The nvidia goldens through the real binary: `gpulab goldens ../shared/goldens/nvidia` must
//! pass every case (the slot calculator's acceptance bar, issue 7). `../shared` sits beside the
//! repository for developers and CI alike; without it this test fails rather than passing empty.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::PathBuf;
use std::process::Command;

fn goldens_dir() -> PathBuf {
    shared_dir::goldens("nvidia")
}

/// Every case of sharing-cases.json and mig-profiles.json passes, and there are some.
#[test]
fn nvidia_goldens_all_pass() {
    let dir = goldens_dir();
    assert!(dir.is_dir(), "{} missing: the shared goldens are needed", dir.display());
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).arg("goldens").arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default().to_string();
    assert!(out.status.success(), "gpulab goldens failed:\n{stdout}");
    assert!(last.ends_with("passed, 0 failed") && !last.starts_with("0 passed"), "{last}");
    assert!(stdout.contains("[nvidia_sharing]") && stdout.contains("[nvidia_mig_profiles]"), "{stdout}");
}

/// The repository's own extra cases (same schema, rules the shared cases do not pin).
#[test]
fn extra_nvidia_cases_pass() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/goldens-extra");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).arg("goldens").arg(&dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "gpulab goldens failed:\n{stdout}");
}
