//! The golden runner framework, end to end through the `gpulab` binary: an area
//! with no runner fails case by case with "not implemented" (never skipped), a bad
//! path is bad input, and the summary line counts every case.

mod support;

use std::process::Command;

use support::TempDir;

fn gpulab(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A private directory for one test's goldens, removed when the test ends.
fn temp_dir(name: &str) -> TempDir {
    TempDir::new(&format!("goldens-{name}"))
}

/// An area nobody implements is reported per case as failing, and the run exits 1.
#[test]
fn unknown_area_fails_as_not_implemented() {
    let tmp = temp_dir("unknown");
    let dir = &tmp.0;
    std::fs::write(
        dir.join("future.json"),
        r#"{"area":"no_such_area","cases":[{"name":"first"},{"name":"second"}]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("README.md"), "not a golden").unwrap();
    let (code, out) = gpulab(&["goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL  [no_such_area] future.json :: first"), "{out}");
    assert!(out.contains("not implemented"), "{out}");
    assert!(out.trim_end().ends_with("0 passed, 2 failed"), "{out}");
}

/// `--output json` gives the same counts in a machine-readable object.
#[test]
fn json_output_counts() {
    let tmp = temp_dir("json");
    let dir = &tmp.0;
    std::fs::write(dir.join("x.json"), r#"{"area":"no_such_area","cases":[{"name":"a"}]}"#).unwrap();
    let (code, out) = gpulab(&["--output", "json", "goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed"], 1);
    assert_eq!(v["cases"][0]["failure"], "not implemented");
}

/// A path that does not exist is bad input (exit 2), not an empty success.
#[test]
fn missing_path_is_bad_input() {
    let (code, out) = gpulab(&["goldens", "/nonexistent/goldens/dir"]);
    assert_eq!(code, 1, "the unreadable path is itself a failed case: {out}");
    assert!(out.contains("No such file"), "{out}");
    let tmp = temp_dir("empty");
    let dir = &tmp.0;
    let (code, _) = gpulab(&["goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "no cases at all is bad input");
}

/// Malformed golden JSON is reported with file:line:column.
#[test]
fn malformed_json_has_a_location() {
    let tmp = temp_dir("bad");
    let dir = &tmp.0;
    std::fs::write(dir.join("bad.json"), "{\n  \"area\": oops\n}").unwrap();
    let (code, out) = gpulab(&["goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("bad.json:2:"), "{out}");
}
