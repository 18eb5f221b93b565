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
            super::nvidia_sharing::AREA => super::nvidia_sharing::run(path, doc),
            super::nvidia_mig_profiles::AREA => super::nvidia_mig_profiles::run(path, doc),
            "daemonset_node_should_run" => super::daemonset_node_should_run::run(path, doc),
            "daemonset_rolling_update" => super::daemonset_rolling_update::run(path, doc),
            "rollout_status" => super::rollout_status::run(path, doc),
            "fit_error" => super::fit_error::run(path, doc),
            "preemption" => super::preemption::run(path, doc),
            "noderesources_fit" => super::noderesources_fit::run(path, doc),
            "tainttoleration" => super::tainttoleration::run(path, doc),
            "nodeunschedulable" => super::nodeunschedulable::run(path, doc),
            "nodeaffinity" => super::nodeaffinity::run(path, doc),
            "runtimeclass_admission" => super::runtimeclass_admission::run(path, doc),
            _ => not_implemented_json(path, area, doc),
        },
        Unit::ContainerdCase { path } => super::containerd::run_case(path),
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
