//! What was typed: the clap definitions of every `gpulab` command, kept free of I/O
//! so that parsing is tested on its own.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::output::OutputFormat;

/// GPU Node Lab companion: runs the lab's model on the command line and checks it
/// against real containerd and Kubernetes.
///
/// Exit codes: 0 success; 1 a check failed (a golden case, a parity difference, a
/// lost setting); 2 bad usage or unreadable input; 3 an external system failed
/// (a daemon did not start, a cluster did not answer).
#[derive(Debug, Parser)]
#[command(name = "gpulab", version, about, long_about)]
pub struct Cli {
    /// Output format for results.
    #[arg(long, global = true, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run golden cases: each PATH is a goldens directory (a whole tree such as
    /// ../shared/goldens, one area, one case directory) or one golden JSON file.
    /// Prints one line per case and `N passed, N failed`; exits 1 if any failed.
    Goldens(GoldensArgs),
    /// Run a DaemonSet rollout (the built-in `device-plugin-stall` incident, or YAML
    /// manifests: Nodes, RuntimeClasses, the running DaemonSet, then its update) and
    /// print each sync's `kubectl get ds` row and `kubectl rollout status` line, the
    /// pods, and the diagnosis. Exits 0 when it rolled out, 1 when it stalled.
    Rollout(RolloutArgs),
    /// Write the incident report (Markdown; JSON with --output json) of a rollout run.
    Report(ReportArgs),
}

#[derive(Debug, Args)]
pub struct RolloutArgs {
    /// `device-plugin-stall`, or YAML manifest files.
    #[arg(required = true, value_name = "SCENARIO_OR_FILES")]
    pub inputs: Vec<String>,
    /// Run until the rollout finishes or stalls (the default).
    #[arg(long, conflicts_with = "syncs")]
    pub until_stalled: bool,
    /// Run exactly N syncs.
    #[arg(long, value_name = "N")]
    pub syncs: Option<usize>,
    /// The order the rolling update visits nodes in (Go map order upstream):
    /// `seed:N` (a seeded shuffle per sync), `listed`, or nodes to visit first (`a,b`).
    #[arg(long, default_value = "seed:1")]
    pub order: String,
    /// With manifests: a node whose running containerd has not loaded the `nvidia`
    /// handler (the drop-in is on disk, the daemon was not restarted). Repeatable.
    #[arg(long = "broken-node", value_name = "NODE[=CONTAINERD_VERSION]")]
    pub broken_nodes: Vec<String>,
    /// After the stall, restart containerd on the broken nodes and go on.
    #[arg(long)]
    pub restart_after_stall: bool,
    /// Language of the diagnosis.
    #[arg(long, default_value = "en", value_parser = ["ko", "en"])]
    pub lang: String,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run to report on: same inputs as `gpulab rollout`.
    #[command(flatten)]
    pub rollout: RolloutArgs,
}

#[derive(Debug, Args)]
pub struct GoldensArgs {
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--output json` is global: it may come after the subcommand.
    #[test]
    fn output_flag_is_global() {
        let cli = Cli::try_parse_from(["gpulab", "goldens", "a", "b", "--output", "json"]).unwrap();
        assert_eq!(cli.output, OutputFormat::Json);
        let Command::Goldens(args) = cli.command else { panic!("not goldens") };
        assert_eq!(args.paths, vec![PathBuf::from("a"), PathBuf::from("b")]);
    }

    /// `goldens` without a path is a usage error, not an empty success.
    #[test]
    fn goldens_needs_a_path() {
        assert!(Cli::try_parse_from(["gpulab", "goldens"]).is_err());
    }

    /// clap's own consistency checks on the whole definition.
    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
