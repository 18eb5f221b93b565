//! The golden runner framework, end to end through the `gpulab` binary: an area
//! with no runner fails case by case with "not implemented" (never skipped), a bad
//! path is bad input, and the summary line counts every case.

use std::process::Command;

fn gpulab(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gpulab-goldens-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An area nobody implements is reported per case as failing, and the run exits 1.
#[test]
fn unknown_area_fails_as_not_implemented() {
    let dir = temp_dir("unknown");
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
    let dir = temp_dir("json");
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
    let dir = temp_dir("empty");
    let (code, _) = gpulab(&["goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "no cases at all is bad input");
}

/// Malformed golden JSON is reported with file:line:column.
#[test]
fn malformed_json_has_a_location() {
    let dir = temp_dir("bad");
    std::fs::write(dir.join("bad.json"), "{\n  \"area\": oops\n}").unwrap();
    let (code, out) = gpulab(&["goldens", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("bad.json:2:"), "{out}");
}
