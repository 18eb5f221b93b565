//! `gpulab goldens PATH…`: walks goldens directories (the `../shared/goldens/<area>`
//! layouts), dispatches every golden JSON file and every case directory to its
//! area's runner ([`areas`]), prints one line per case and `N passed, N failed`.
//!
//! An area whose runner is not built yet is reported as failing with
//! "not implemented" — never skipped — so a green run means every case ran.
//!
//! # Layout
//!
//! - [`discover`]: which golden units a path holds (JSON files, case directories).
//! - [`areas`]: the registry of area runners.
//! - [`containerd`]: the containerd case-directory runner.
//! - [`report`]: the per-case result type and how results are printed.
//! - [`nvidia_sharing`], [`nvidia_mig_profiles`]: the nvidia areas (slot calculator).
//! - [`k8s_objects`]: reading golden Kubernetes objects into k8s-openapi types.
//! - Area runners: [`daemonset_node_should_run`], [`daemonset_rolling_update`],
//!   [`rollout_status`].
//! - [`cases`]: shared plumbing of the JSON runners.
//! - Kubernetes area runners (issue 5): [`fit_error`], [`preemption`],
//!   [`noderesources_fit`], [`tainttoleration`], [`nodeunschedulable`],
//!   [`nodeaffinity`], [`runtimeclass_admission`].

pub mod areas;
pub mod cases;
pub mod containerd;
pub mod daemonset_node_should_run;
pub mod daemonset_rolling_update;
pub mod discover;
pub mod fit_error;
pub mod k8s_objects;
pub mod nodeaffinity;
pub mod noderesources_fit;
pub mod nodeunschedulable;
pub mod nvidia_mig_profiles;
pub mod nvidia_sharing;
pub mod preemption;
pub mod report;
pub mod rollout_status;
pub mod runtimeclass_admission;
pub mod tainttoleration;

use std::path::PathBuf;

use crate::exit::ExitCode;
use crate::output::OutputFormat;
use report::{CaseResult, Report};

/// Runs every golden unit under `paths` and prints the report.
pub fn run(paths: &[PathBuf], output: OutputFormat) -> ExitCode {
    let mut report = Report::default();
    for path in paths {
        match discover::discover(path) {
            Ok(units) => {
                for unit in units {
                    report.extend(areas::run_unit(&unit));
                }
            }
            Err(err) => report.push(CaseResult::failed("goldens", path.display().to_string(), err)),
        }
    }
    report.print(output);
    if report.is_empty() {
        // Nothing ran: a wrong path must not look like success.
        eprintln!("gpulab goldens: no golden cases found under the given paths");
        return ExitCode::BadInput;
    }
    if report.failed() > 0 {
        ExitCode::CheckFailed
    } else {
        ExitCode::Success
    }
}
