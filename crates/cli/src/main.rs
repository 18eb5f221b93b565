//! `gpulab`, the GPU Node Lab companion. This file is glue: parse what was typed
//! ([`cli`]), run the command, turn its outcome into an exit code ([`exit`]).
//!
//! # Layout
//!
//! - [`cli`]: the clap types — what was typed, testable without I/O.
//! - [`exit`]: the documented exit codes.
//! - [`output`]: text or `--output json`.
//! - [`cri`]: `gpulab cri info`, a minimal CRI client (the live CRI status).
//! - [`containerd`]: `gpulab containerd dump|explain` over a node root.
//! - [`goldens`]: the golden-case runner — walks goldens directories and dispatches
//!   each case to its area's runner.
//! - [`scenario`]: `gpulab scenario run|replay` and `gpulab parity`; the real containerd backend.
//! - [`oracle`]: the real containerd binaries, one per version (installed or built into the cache).
//! - [`slots`]: `gpulab slots` and `gpulab mig` over the model's slot calculator.
//! - [`rollout`]: `gpulab rollout` — the DaemonSet rollout, sync by sync, and its diagnosis.
//! - [`report`]: `gpulab report` — the incident report of a rollout run.
//! - [`schedule`]: `gpulab schedule` — one pod on a modelled cluster.
//! - [`manifests`]: the files (or stdin, or a kubectl dump) both commands read, cut into
//!   documents that load on both cores.
//! - [`cluster_cmd`]: `gpulab cluster up|down` over the library's `gpulab::cluster`.
//! - [`dra`]: `gpulab dra slices` — what NVIDIA's DRA driver publishes for a node.

mod cli;
mod cluster_cmd;
mod cri;
mod dra;
mod containerd;
mod exit;
mod goldens;
mod manifests;
mod oracle;
mod output;
mod scenario;
mod slots;
mod report;
mod rollout;
mod schedule;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let code = match cli.command {
        cli::Command::Goldens(args) => goldens::run(&args.paths, cli.output),
        cli::Command::Slots(args) => slots::run(&args, cli.output),
        cli::Command::Mig(args) => slots::run_mig(&args, cli.output),
        cli::Command::Cri(cli::CriCommand::Info(args)) => {
            cri::info(&args.address, std::time::Duration::from_secs(args.timeout))
        }
        cli::Command::Containerd(cmd) => containerd::run(&cmd, cli.output),
        cli::Command::Scenario(cli::ScenarioCommand::Run(args)) => scenario::run(&args.dirs, cli.output),
        cli::Command::Scenario(cli::ScenarioCommand::Replay(args)) => scenario::replay(&args, cli.output),
        cli::Command::Parity(args) => scenario::parity(&args, cli.output),
        cli::Command::Scenario(cli::ScenarioCommand::New(args)) => scenario::new::run(&args, cli.output),
        cli::Command::Scenario(cli::ScenarioCommand::Check(args)) => scenario::check::run(&args.dirs, cli.output),
        cli::Command::Scenario(cli::ScenarioCommand::Generate(args)) => scenario::generate::run(&args, cli.output),
        cli::Command::Rollout(args) => rollout::run(&args, cli.output),
        cli::Command::Report(args) => report::run(&args, cli.output),
        cli::Command::Schedule(args) => schedule::run(&args, cli.output),
        cli::Command::Cluster(cli::ClusterCommand::Up(args)) => cluster_cmd::up(&args, cli.output),
        cli::Command::Cluster(cli::ClusterCommand::Down(args)) => cluster_cmd::down(&args),
        cli::Command::Dra(cli::DraCommand::Slices(args)) => dra::slices(&args, cli.output),
    };
    std::process::exit(code.into());
}
