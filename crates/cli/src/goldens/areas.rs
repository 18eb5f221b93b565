//! The registry of golden area runners. Each area's runner lives in its own module
//! and is registered here by the `area` name its golden files carry (or, for the
//! containerd layout, by the case-directory shape). An area with no runner yet is
//! reported case by case as failing with "not implemented".

use std::path::Path;

use super::discover::Unit;
use super::report::CaseResult;

/// Runs one unit with its area's runner, or reports every case in it as not implemented.
pub fn run_unit(unit: &Unit) -> Vec<CaseResult> {
    match unit {
        Unit::Json { path, area, doc } => match area.as_str() {
            "fit_error" => super::fit_error::run(path, doc),
            "preemption" => super::preemption::run(path, doc),
            "noderesources_fit" => super::noderesources_fit::run(path, doc),
            "tainttoleration" => super::tainttoleration::run(path, doc),
            "nodeunschedulable" => super::nodeunschedulable::run(path, doc),
            "nodeaffinity" => super::nodeaffinity::run(path, doc),
            "runtimeclass_admission" => super::runtimeclass_admission::run(path, doc),
            _ => not_implemented_json(path, area, doc),
        },
        Unit::ContainerdCase { path } => not_implemented_dir(path, "containerd"),
    }
}

/// Names of the cases of a JSON golden file, `file :: case`.
pub fn json_case_names(path: &Path, doc: &serde_json::Value) -> Vec<String> {
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    match doc.get("cases").and_then(|c| c.as_array()) {
        Some(cases) => cases
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let name = c.get("name").and_then(|n| n.as_str()).map(str::to_string);
                format!("{file} :: {}", name.unwrap_or_else(|| format!("case #{i}")))
            })
            .collect(),
        None => vec![file],
    }
}

fn not_implemented_json(path: &Path, area: &str, doc: &serde_json::Value) -> Vec<CaseResult> {
    json_case_names(path, doc)
        .into_iter()
        .map(|case| CaseResult::failed(area, case, "not implemented"))
        .collect()
}

fn not_implemented_dir(path: &Path, area: &str) -> Vec<CaseResult> {
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let mut versions: Vec<String> = std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("result.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    versions.sort();
    if versions.is_empty() {
        versions.push(String::from("-"));
    }
    versions
        .into_iter()
        .map(|v| CaseResult::failed(area, format!("{name} @ {v}"), "not implemented"))
        .collect()
}
