//! Issue 15, item 6: the real control planes' recorded runs (`goldens-kube/V.json`,
//! written by `scripts/record-kube-versions.sh`) replayed against the model on every
//! test run — `gpulab parity scenarios GENERATED --backend recorded --recording FILE`,
//! the model at the recorded release, the 200 generated scenarios of seed 1 as the
//! live tier makes them. 0 differ and no error, or the test fails (a difference is a
//! model bug; a scenario changed since its recording says to re-record).

mod support;

use std::path::PathBuf;
use std::process::Command;

use support::TempDir;

fn recordings() -> Vec<PathBuf> {
    let dir = support::repo_root().join("crates/cli/tests/goldens-kube");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    files
}

/// Every recording agrees with the model, scenario by scenario.
#[test]
fn recorded_real_runs_agree_with_the_model() {
    let files = recordings();
    assert!(!files.is_empty(), "no recordings in crates/cli/tests/goldens-kube (scripts/record-kube-versions.sh writes them)");
    let tmp = TempDir::new("kube-recorded");
    let generated = tmp.0.join("generated");
    let gpulab = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap();
    let out = gpulab(&["scenario", "generate", "--seed", "1", "--count", "200", "--out", generated.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scenarios = support::repo_root().join("scenarios");
    for f in &files {
        let rec: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let recorded = rec["records"].as_array().map_or(0, Vec::len);
        let out = gpulab(&["parity", scenarios.to_str().unwrap(), generated.to_str().unwrap(), "--backend", "recorded", "--recording", f.to_str().unwrap()]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout.lines().last().unwrap_or_default().to_string();
        eprintln!("{} ({}): {last}", f.display(), rec["release"]);
        if let Some(l) = stdout.lines().find(|l| l.starts_with("not recorded (")) {
            eprintln!("  {l}");
        }
        let differing: Vec<&str> = stdout.lines().filter(|l| l.starts_with("DIFFER") || l.contains(" differ  ") || l.starts_with("  error")).collect();
        assert_eq!(out.status.code(), Some(0), "{}: the model differs from the recorded {} run:\n{}\n{last}\n{}", f.display(), rec["release"], differing.join("\n"), String::from_utf8_lossy(&out.stderr));
        assert!(last.starts_with(&format!("{recorded} scenarios: ")) && last.contains(", 0 differ, "), "{last}");
        let agree: usize = last.split(": ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
        assert!(agree > 0, "{last}");
    }
}

/// A recording is the same file whoever made it: no path of the recording machine's
/// home, cache or temporary directories (the cached binaries are named relative to
/// `$GPULAB_CACHE`).
#[test]
fn recordings_carry_no_path_of_the_machine_that_made_them() {
    for f in recordings() {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for machine in ["/root/", "/home/", "/tmp/", ".cache/gpulab"] {
                assert!(!line.contains(machine), "{}:{}: {machine} in {line}", f.display(), n + 1);
            }
        }
    }
}
