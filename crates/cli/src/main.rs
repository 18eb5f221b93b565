//! `gpulab`, the GPU Node Lab companion. This file is glue: parse what was typed
//! ([`cli`]), run the command, turn its outcome into an exit code ([`exit`]).
//!
//! # Layout
//!
//! - [`cli`]: the clap types — what was typed, testable without I/O.
//! - [`exit`]: the documented exit codes.
//! - [`output`]: text or `--output json`.
//! - [`goldens`]: the golden-case runner — walks goldens directories and dispatches
//!   each case to its area's runner.
//! - [`schedule`]: `gpulab schedule` — one pod on a modelled cluster.

mod cli;
mod exit;
mod goldens;
mod output;
mod schedule;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let code = match cli.command {
        cli::Command::Goldens(args) => goldens::run(&args.paths, cli.output),
        cli::Command::Schedule(args) => schedule::run(&args, cli.output),
    };
    std::process::exit(code.into());
}
