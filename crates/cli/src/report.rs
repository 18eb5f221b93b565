//! `gpulab report`: the incident report of a rollout run (not built yet).

use crate::cli::ReportArgs;
use crate::exit::ExitCode;
use crate::output::OutputFormat;

pub fn run(_args: &ReportArgs, _output: OutputFormat) -> ExitCode {
    eprintln!("gpulab report: not implemented yet");
    ExitCode::BadInput
}
