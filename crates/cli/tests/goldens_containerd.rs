//! The containerd goldens (`../shared/goldens/containerd`, 22 cases × 8 recorded
//! binaries + restart-vs-SIGHUP) through `gpulab goldens`, exactly as a developer
//! runs them: every case must pass, and the summary must count them all.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::PathBuf;
use std::process::Command;

fn goldens_dir() -> PathBuf {
    shared_dir::goldens("containerd")
}

/// Every recorded case × version passes: dump bytes, exit, stderr, CRI rows, CRI
/// error line, daemon exit, and the restart-vs-SIGHUP sequence.
#[test]
fn all_containerd_goldens_pass() {
    let dir = goldens_dir();
    assert!(dir.is_dir(), "goldens not found at {} (CI lays ../shared beside the repo)", dir.display());
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).arg("goldens").arg(&dir).output().expect("run gpulab");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failures: Vec<&str> = stdout.lines().filter(|l| l.starts_with("FAIL") || l.starts_with("        ")).collect();
    assert!(out.status.success(), "goldens failed:\n{}", failures.join("\n"));
    let summary = stdout.lines().last().unwrap_or("");
    let passed: usize = summary.split(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    // 21 config cases and restart-vs-SIGHUP, each on 8 binaries.
    assert!(passed >= 22 * 8, "too few cases ran: {summary}");
    assert!(summary.ends_with(" 0 failed"), "{summary}");
}
