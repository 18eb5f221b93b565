//! `gpulab report SCENARIO_OR_FILES [--lang ko|en]`: runs the rollout like `gpulab
//! rollout` until it stalls, restarts containerd on the stalled nodes when
//! `--restart-after-stall` is given, and prints the incident report as Markdown (the
//! model's JSON form with `--output json`).

use gpulab_model::daemonset::report::{build_report, run_incident, Artifacts};
use gpulab_model::daemonset::text::Lang;

use crate::cli::ReportArgs;
use crate::exit::ExitCode;
use crate::output::OutputFormat;

pub fn run(args: &ReportArgs, output: OutputFormat) -> ExitCode {
    let lang: Lang = match args.rollout.lang.parse() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("gpulab report: {e}");
            return ExitCode::BadInput;
        }
    };
    let rollout = match crate::rollout::build(&args.rollout) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpulab report: {e}");
            return ExitCode::BadInput;
        }
    };
    let max = args.rollout.syncs.unwrap_or(500);
    let (rollout, at_stall, checks) = run_incident(rollout, args.rollout.restart_after_stall, max);
    let report = build_report(&rollout, &at_stall, Artifacts { check_runtime: checks, ..Artifacts::default() }, lang);
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
