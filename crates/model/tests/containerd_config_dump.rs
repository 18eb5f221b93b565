//! The model's `config dump` held to what the real binaries printed, without them:
//! `tests/config_dump/<version>.txt` holds, per real binary, the normalised stdout,
//! stderr and exit status of an empty config, of every golden input and of every
//! generated combination of `tests/config_dump_cases.rs` (recorded by the live tier,
//! `crates/cli/tests/live_config_dump.rs`, with `GPULAB_RECORD_DUMPS=1`). The inputs are
//! not stored: the goldens are read from `../shared`, the combinations regenerated
//! from the same seed. Each difference is shown as a unified diff under the case's files.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

#[path = "../../../tests/config_dump_cases.rs"]
mod cases;

use std::path::Path;

use gpulab_model::containerd::{Containerd, Version};

/// One recording: its summary line and each differing case as a unified diff.
fn check_recording(path: &Path, inputs: &[(String, cases::Node)], goldens: &Path) -> (String, Vec<String>) {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let version = Version::parse(&stem).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = std::fs::read_to_string(path).expect("read recording");
    let rec = cases::Recorded::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let generated = rec.cases.iter().filter(|(n, _)| n.starts_with("generated/")).count();
    assert!(generated >= 240, "{}: only {generated} generated cases", path.display());
    let model = Containerd::new(version.clone());
    let mut failures = Vec::new();
    for (name, want) in &rec.cases {
        let node = &inputs.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{}: no input for case {name} (goldens at {})", path.display(), goldens.display())).1;
        let (files, main) = cases::model_files(node);
        let got = model.load_from(&files, &main);
        let got = cases::Output { stdout: got.dump.stdout, stderr: got.dump.stderr, exit: got.dump.exit };
        let got = cases::normalise(&got, cases::MODEL_ROOT, version.is_1x());
        let label = format!("{stem} {name}");
        let d = cases::differences(want, &got, &label);
        if !d.is_empty() {
            failures.push(format!("== {label}\n{}{d}", cases::describe(node)));
        }
    }
    (format!("{stem} ({}): {} cases, {} differ", rec.binary, rec.cases.len(), failures.len()), failures)
}

/// Every recorded version: the model prints what the binary printed, case by case.
#[test]
fn model_config_dump_equals_the_recorded_binaries() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/config_dump");
    let mut recordings: Vec<_> = std::fs::read_dir(&dir).expect("tests/config_dump").flatten().map(|e| e.path()).collect();
    recordings.sort();
    let goldens = shared_dir::goldens("containerd");
    let mut inputs = vec![("empty".to_string(), vec![(cases::MAIN.to_string(), Vec::new())])];
    inputs.extend(cases::all_cases(&goldens));
    // One thread per recording (the machine has two cores; each version is independent).
    let (inputs, goldens) = (&inputs, &goldens);
    let results: Vec<(String, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = recordings.iter().map(|path| s.spawn(move || check_recording(path, inputs, goldens))).collect();
        handles.into_iter().map(|h| h.join().expect("recording thread")).collect()
    });
    let summary: Vec<String> = results.iter().map(|(s, _)| s.clone()).collect();
    let failures: Vec<String> = results.into_iter().flat_map(|(_, f)| f).collect();
    assert!(recordings.len() >= 7, "only {} recordings in {}", recordings.len(), dir.display());
    eprintln!("{}", summary.join("\n"));
    let report = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("model-config-dump.txt");
    let _ = std::fs::write(&report, failures.join("\n"));
    let shown: Vec<String> = failures.iter().take(10).cloned().collect();
    assert!(failures.is_empty(), "{} cases differ:\n{}\n\n{}", failures.len(), summary.join("\n"), shown.join("\n"));
}
