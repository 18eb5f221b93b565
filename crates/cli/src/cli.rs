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
    /// Schedule one pod on a modelled cluster (issue 5): prints the verdict, the
    /// FailedScheduling event as `kubectl describe pod` shows it, and node × plugin
    /// results. Exits 0 when scheduled, 1 when Pending or refused by the API server,
    /// 2 on bad input (with file:line).
    Schedule(ScheduleArgs),
}

#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// Multi-document YAML of Nodes and of the Pods already bound to them
    /// (`spec.nodeName`); RuntimeClasses here count too.
    #[arg(long, value_name = "FILE.yaml")]
    pub nodes: PathBuf,
    /// The Pod to create and schedule.
    #[arg(long, value_name = "FILE.yaml")]
    pub pod: PathBuf,
    /// RuntimeClasses that exist in the cluster.
    #[arg(long, value_name = "FILE.yaml")]
    pub runtimeclasses: Option<PathBuf>,
    /// Kubernetes version whose behaviour to model: 1.33, 1.34, 1.35 or 1.36.
    #[arg(long, value_name = "VERSION", default_value = "1.35")]
    pub k8s_version: String,
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

    /// `schedule` takes its three files and the version knob (issue 5).
    #[test]
    fn schedule_takes_files_and_version() {
        let cli = Cli::try_parse_from([
            "gpulab", "schedule", "--nodes", "n.yaml", "--pod", "p.yaml", "--k8s-version", "1.33",
        ])
        .unwrap();
        let Command::Schedule(args) = cli.command else { panic!("not schedule") };
        assert_eq!((args.nodes, args.k8s_version), (PathBuf::from("n.yaml"), "1.33".to_string()));
        assert!(args.runtimeclasses.is_none());
    }

    /// clap's own consistency checks on the whole definition.
    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
