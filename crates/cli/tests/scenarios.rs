//! The scenario library end to end through the `gpulab` binary: every scenario under
//! `scenarios/` passes on the model (`gpulab scenario run`), every containerd
//! expectation of every scenario agrees with the real containerd (`gpulab parity
//! --backend containerd`: real daemons on private roots and sockets, stopped by PID),
//! and a malformed scenario is refused with exit 2 and `scenario.toml:LINE`.
//!
//! The parity test needs `containerd` and `ctr` on PATH (Debian's package; the README's
//! test command installs it); without them it says so loudly and passes.

use std::path::PathBuf;
use std::process::Command;

const GPULAB: &str = env!("CARGO_BIN_EXE_gpulab");

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn has(bin: &str) -> bool {
    Command::new("sh").args(["-c", &format!("command -v {bin}")]).output().map(|o| o.status.success()).unwrap_or(false)
}

/// Every scenario passes on the model, and the JSON record says so per expectation.
#[test]
fn every_scenario_passes_on_the_model() {
    let out = Command::new(GPULAB).args(["--output", "json", "scenario", "run"]).arg(scenarios_dir()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let records = v["records"].as_array().unwrap();
    assert!(records.len() >= 5, "expected the scenario library, got {}", records.len());
    let mut failed = Vec::new();
    let mut total = 0;
    for r in records {
        for s in r["steps"].as_array().unwrap() {
            for o in s["observations"].as_array().unwrap() {
                total += 1;
                if o["holds"] != true {
                    failed.push(format!("{} step {} {}.{}: {}", r["scenario"], s["index"], o["subject"], o["field"], o));
                }
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    eprintln!("{} scenarios, {total} expectations held on the model", records.len());
}

/// Every containerd expectation agrees between the model and the real daemon.
#[test]
fn every_containerd_step_agrees_with_real_containerd() {
    if !has("containerd") || !has("ctr") {
        eprintln!("\n==================================================================");
        eprintln!("SKIPPED every_containerd_step_agrees_with_real_containerd: no `containerd`/`ctr` on PATH.");
        eprintln!("Install Debian's package (apt-get install containerd) to run scenario parity.");
        eprintln!("==================================================================\n");
        return;
    }
    // Four scenarios at a time: each has its own daemons, and they mostly wait on them.
    let out = Command::new(GPULAB).args(["--output", "json", "parity", "--backend", "containerd", "--jobs", "4"]).arg(scenarios_dir()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    let (mut differ, mut not_compared) = (Vec::new(), Vec::new());
    let (mut agree, mut compared_scenarios) = (0, 0);
    for p in v["scenarios"].as_array().unwrap() {
        assert!(p["errors"].as_array().unwrap().is_empty(), "{}: {}", p["scenario"], p["errors"]);
        if p["agree"].as_u64().unwrap() > 0 {
            compared_scenarios += 1;
        }
        for r in p["rows"].as_array().unwrap() {
            match r["verdict"].as_str().unwrap() {
                "agree" => agree += 1,
                "differ" => differ.push(format!("{} step {} {}.{}: model {} real {}", p["scenario"], r["step"], r["subject"], r["field"], r["model"], r["real"])),
                // Every node runs on the real binary of its version: no containerd row is left out.
                _ if r["domain"] == "containerd" => not_compared.push(format!("{} step {} {}.{}: {}", p["scenario"], r["step"], r["subject"], r["field"], r["why"])),
                _ => {}
            }
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
    assert!(not_compared.is_empty(), "containerd expectations not compared (`scripts/oracle-containerd.sh` builds the missing versions): {not_compared:#?}");
    assert!(agree >= 40 && compared_scenarios >= 2, "too little compared: {agree} rows in {compared_scenarios} scenarios");
    assert_eq!(out.status.code(), Some(0));
    eprintln!("scenario parity: {agree} containerd expectations agree with the real daemons, 0 not compared");
}

/// Malformed scenarios exit 2 and name the file and line.
#[test]
fn malformed_scenarios_exit_2_with_file_and_line() {
    let cases: &[(&str, &str)] = &[
        ("title = \"t\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\n[[step]]\nname = \"x\"\ndo = \"reload\"\n", "scenario.toml:5:1: scenario-unknown-action"),
        ("title = \"t\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\nfiles = { \"/etc/containerd/config.toml\" = \"nope.toml\" }\n[[step]]\nname = \"x\"\ndo = \"observe\"\n", "scenario.toml:5:1: scenario-file-unreadable"),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let dir = std::env::temp_dir().join(format!("gpulab-bad-scenario-{}-{i}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("scenario.toml"), text).unwrap();
        let out = Command::new(GPULAB).args(["scenario", "run"]).arg(&dir).output().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{want} not in {err}");
    }
}
