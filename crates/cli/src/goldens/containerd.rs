//! The containerd golden runner: one case directory (`input/` + one folder per
//! recorded binary, see `../shared/goldens/containerd/README.md`) run through the
//! model for every version folder, comparing `config dump` (stdout byte for byte, exit
//! code, stderr), the CRI plugin rows and first CRI error line, and the daemon's own
//! exit; and the `restart-vs-sighup` case through the daemon state machine.

use std::path::Path;

use gpulab_model::containerd::{self, Daemon, Files, Signal, Start, Supervisor, Version};
use serde_json::Value as Json;

use super::report::CaseResult;

const AREA: &str = "containerd";

/// Reads a case's `input/` tree as the node's files: `main.toml` is
/// `/etc/containerd/config.toml`, everything else lands under `/etc/containerd/`.
pub fn read_input(dir: &Path) -> Result<Files, String> {
    let mut files = Files::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(dir).map_err(|e| e.to_string())?.to_string_lossy().replace('\\', "/");
            let target = if rel == "main.toml" { containerd::MAIN_CONFIG.to_string() } else { format!("/etc/containerd/{rel}") };
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            files.insert(&target, bytes);
        }
    }
    Ok(files)
}

fn version_dirs(case: &Path) -> Vec<(String, std::path::PathBuf)> {
    let mut out: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(case)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("result.json").is_file())
        .map(|p| (p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(), p))
        .collect();
    out.sort();
    out
}

/// Runs one case directory.
pub fn run_case(case: &Path) -> Vec<CaseResult> {
    let name = case.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    if case.join("phase-a").is_dir() {
        return run_restart_vs_sighup(case, &name);
    }
    let files = match read_input(&case.join("input")) {
        Ok(f) => f,
        Err(e) => return vec![CaseResult::failed(AREA, name, e)],
    };
    version_dirs(case)
        .into_iter()
        .map(|(vname, dir)| {
            let label = format!("{name} @ {vname}");
            match check_version(&files, &vname, &dir) {
                Ok(()) => CaseResult::passed(AREA, label),
                Err(why) => CaseResult::failed(AREA, label, why),
            }
        })
        .collect()
}

fn read_json(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The first line where two texts differ, readably.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.split('\n').collect(), actual.split('\n').collect());
    for i in 0..e.len().max(a.len()) {
        let (x, y) = (e.get(i), a.get(i));
        if x != y {
            return format!("line {}:\n  expected {:?}\n    actual {:?}", i + 1, x.unwrap_or(&"<end>"), y.unwrap_or(&"<end>"));
        }
    }
    "texts differ".to_string()
}

fn check_version(files: &Files, vname: &str, dir: &Path) -> Result<(), String> {
    let version = Version::parse(vname).map_err(|e| e.to_string())?;
    let result = read_json(&dir.join("result.json"))?;
    let expected_dump = std::fs::read_to_string(dir.join("dump.toml")).unwrap_or_default();
    let got = containerd::load(files, &version);
    let mut problems = Vec::new();
    if got.dump.stdout != expected_dump {
        problems.push(format!("dump differs at {}", first_difference(&expected_dump, &got.dump.stdout)));
    }
    if result.get("exit").and_then(Json::as_i64) != Some(i64::from(got.dump.exit)) {
        problems.push(format!("exit: expected {:?}, actual {}", result.get("exit"), got.dump.exit));
    }
    let stderr = result.get("stderr").and_then(Json::as_str).unwrap_or("");
    if stderr != got.dump.stderr {
        problems.push(format!("stderr differs at {}", first_difference(stderr, &got.dump.stderr)));
    }
    let status = result.get("cri_status").and_then(Json::as_str).unwrap_or("");
    if status != got.start.cri_status() {
        problems.push(format!("cri_status: expected {status}, actual {}", got.start.cri_status()));
    }
    if let (Some(Json::Object(rows)), Start::Serving(cri)) = (result.get("cri_plugins"), &got.start) {
        for (id, want) in rows {
            let have = cri.plugins.iter().find(|(k, _)| k == id).map_or("absent", |(_, s)| s.as_str());
            if want.as_str() != Some(have) {
                problems.push(format!("cri_plugins[{id}]: expected {want}, actual {have}"));
            }
        }
    }
    let want_error = result.get("cri_error").and_then(Json::as_str);
    if want_error != got.start.cri_error_line() {
        problems.push(format!("cri_error:\n  expected {want_error:?}\n    actual {:?}", got.start.cri_error_line()));
    }
    let daemon = result.get("daemon");
    if daemon.and_then(|d| d.get("exited_on_its_own")).and_then(Json::as_bool) == Some(true) {
        let want = daemon.and_then(|d| d.get("last_log_line")).and_then(Json::as_str);
        match &got.start {
            Start::Exited { last_line, code, .. } => {
                if want != Some(last_line.as_str()) {
                    problems.push(format!("daemon last line:\n  expected {want:?}\n    actual {last_line:?}"));
                }
                let want_code = daemon.and_then(|d| d.get("exit_code")).and_then(Json::as_i64);
                if want_code != Some(i64::from(*code)) {
                    problems.push(format!("daemon exit code: expected {want_code:?}, actual {code}"));
                }
            }
            Start::Serving(_) => problems.push(format!("daemon: expected it to exit with {want:?}, it serves")),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn rows(cri: Option<&containerd::CriOutcome>) -> Json {
    match cri {
        None => Json::Null,
        Some(c) => Json::Object(c.plugins.iter().map(|(k, s)| (k.clone(), Json::String(s.as_str().into()))).collect()),
    }
}

fn run_restart_vs_sighup(case: &Path, name: &str) -> Vec<CaseResult> {
    let (a, b) = match (read_input(&case.join("phase-a/input")), read_input(&case.join("phase-b/input"))) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return vec![CaseResult::failed(AREA, name, e)],
    };
    version_dirs(case)
        .into_iter()
        .map(|(vname, dir)| {
            let label = format!("{name} @ {vname}");
            match check_restart(&a, &b, &vname, &dir) {
                Ok(()) => CaseResult::passed(AREA, label),
                Err(why) => CaseResult::failed(AREA, label, why),
            }
        })
        .collect()
}

fn check_restart(a: &Files, b: &Files, vname: &str, dir: &Path) -> Result<(), String> {
    let version = Version::parse(vname).map_err(|e| e.to_string())?;
    let want = read_json(&dir.join("result.json"))?;
    let mut problems = Vec::new();
    let mut check = |what: &str, expected: Option<&Json>, actual: Json| {
        if expected != Some(&actual) {
            problems.push(format!("{what}: expected {expected:?}, actual {actual}"));
        }
    };
    // Started by hand with the default SIGHUP disposition, as recorded.
    let mut d = Daemon::new(version.clone(), Supervisor::ByHand, a.clone());
    d.start();
    check("a_initial_cri", want.get("a_initial_cri"), rows(d.cri()));
    d.files = b.clone();
    d.advance(5);
    check("b_after_file_change_no_restart_cri", want.get("b_after_file_change_no_restart_cri"), rows(d.cri()));
    check("b_log_lines_after_file_change", want.get("b_log_lines_after_file_change"), Json::Array(Vec::new()));
    d.signal(Signal::Hup);
    let c = want.get("c_sighup");
    let killed = matches!(&d.state, containerd::DaemonState::Down { by_signal: Some(s), .. } if s == "SIGHUP");
    check("c_sighup.process_exited_within_10s", c.and_then(|c| c.get("process_exited_within_10s")), Json::Bool(!d.is_running()));
    check(
        "c_sighup.terminated_by_signal",
        c.and_then(|c| c.get("terminated_by_signal")),
        if killed { Json::String("SIGHUP".into()) } else { Json::Null },
    );
    check("c_sighup.log_lines_after_sighup", c.and_then(|c| c.get("log_lines_after_sighup")), Json::Array(Vec::new()));
    d.start();
    check("d_after_restart_cri", want.get("d_after_restart_cri"), rows(d.cri()));
    let err = d.cri().and_then(|c| c.error_line.clone()).map_or(Json::Null, Json::String);
    check("d_after_restart_cri_error", want.get("d_after_restart_cri_error"), err);
    let mut e = Daemon::new(version, Supervisor::SighupIgnored, a.clone());
    e.start();
    e.signal(Signal::Hup);
    e.advance(3);
    check(
        "e_sighup_when_started_with_sighup_ignored.process_alive_3s_after_sighup",
        want.get("e_sighup_when_started_with_sighup_ignored").and_then(|e| e.get("process_alive_3s_after_sighup")),
        Json::Bool(e.is_running()),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
