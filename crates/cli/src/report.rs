//! `gpulab report SCENARIO [--lang ko|en] [--output json]`: the incident report of a
//! run, as Markdown (the model's JSON form with `--output json`). SCENARIO is
//!
//! - a scenario directory (`scenarios/incident`, holding `scenario.toml`): its steps run
//!   on the model and the report is built from that run
//!   ([`gpulab_model::incident::scenario::incident_run`]);
//! - the built-in `device-plugin-stall`, or YAML manifests (as `gpulab rollout`): the
//!   rollout runs until it stalls; with `--restart-after-stall` the stalled nodes are
//!   fixed and the run goes on ([`gpulab_model::incident::run::Incident::run`]).
//!
//! - with `--work progress.json` (the file the lab exports): the learner's own run —
//!   step 8 on their cluster and every step's results — as the lab's step 8 shows it
//!   (`gpu_node_lab_k8s::report::from_progress`, the function the chunk calls).
//!
//! Either way the artifacts (merge explanation, check-runtime verdicts, scheduler
//! verdicts, slot table) are computed by the models during the run.

use std::path::Path;

use gpulab_model::incident::run::IncidentRun;
use gpulab_model::incident::report::build_report;
use gpulab_model::Lang;
use gpulab_model::scenario::SCENARIO_FILE;

use crate::cli::ReportArgs;
use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// The run the arguments name.
fn incident_run(args: &ReportArgs, lang: Lang) -> Result<IncidentRun, String> {
    let max = args.rollout.syncs.unwrap_or(500);
    if let [only] = args.rollout.inputs.as_slice() {
        let dir = Path::new(only);
        if dir.join(SCENARIO_FILE).is_file() {
            if !args.rollout.broken_nodes.is_empty() || args.rollout.restart_after_stall {
                return Err(format!("{only} is a scenario directory: it runs its own steps (no --broken-node, no --restart-after-stall)"));
            }
            let scenario = crate::scenario::load(dir).map_err(|e| e.join("\n"))?;
            return gpulab_model::incident::scenario::incident_run(&scenario, lang)
                .map_err(|e| crate::scenario::backend_error_lines(&e).join("\n"));
        }
    }
    let incident = crate::rollout::build_incident(&args.rollout)?;
    Ok(incident.run(args.rollout.restart_after_stall, max, lang))
}

pub fn run(args: &ReportArgs, output: OutputFormat) -> ExitCode {
    let lang: Lang = match args.rollout.lang.parse() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("gpulab report: {e}");
            return ExitCode::BadInput;
        }
    };
    if let Some(path) = &args.rollout.work {
        return lab_report(path, lang, output);
    }
    let run = match incident_run(args, lang) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpulab report: {e}");
            return ExitCode::BadInput;
        }
    };
    let report = build_report(&run.rollout, &run.at_stall, run.artifacts, lang);
    match output {
        // The report is Markdown already; md and text print it as is.
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => print!("{}", report.to_markdown()),
        OutputFormat::Json => match serde_json::to_string_pretty(&report) {
            Ok(json) => println!("{json}"),
            Err(e) => {
                eprintln!("gpulab report: {e}");
                return ExitCode::BadInput;
            }
        },
    }
    ExitCode::Success
}

/// The learner's report of a progress file.
fn lab_report(path: &Path, lang: Lang, output: OutputFormat) -> ExitCode {
    let report = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|text| gpu_node_lab_k8s::report::from_progress(&text, lang).map_err(|e| format!("{}: {e}", path.display())));
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpulab report: {e}");
            return ExitCode::BadInput;
        }
    };
    match output {
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => print!("{}", report.to_markdown()),
        OutputFormat::Json => match report.to_json() {
            Ok(json) => println!("{json}"),
            Err(e) => {
                eprintln!("gpulab report: {e}");
                return ExitCode::BadInput;
            }
        },
    }
    ExitCode::Success
}
