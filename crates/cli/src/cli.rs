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
    /// Talk to a container runtime over CRI (the live, loaded state).
    #[command(subcommand)]
    Cri(CriCommand),
}

#[derive(Debug, Subcommand)]
pub enum CriCommand {
    /// Print the runtime's verbose CRI status as `crictl info` does (the loaded CRI config
    /// with its runtime handlers). Exit 3 when the socket does not answer CRI.
    Info(CriInfoArgs),
}

#[derive(Debug, Args)]
pub struct CriInfoArgs {
    /// The runtime's CRI socket (containerd's own socket serves CRI).
    #[arg(long, value_name = "PATH", default_value = "/run/containerd/containerd.sock")]
    pub address: PathBuf,
    /// Seconds to wait for the answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub timeout: u64,
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

    /// `cri info` defaults to containerd's socket and takes --address / --timeout.
    #[test]
    fn cri_info_arguments() {
        for (args, address, timeout) in [
            (&["gpulab", "cri", "info"][..], "/run/containerd/containerd.sock", 10),
            (&["gpulab", "cri", "info", "--address", "/tmp/c.sock", "--timeout", "3"][..], "/tmp/c.sock", 3),
        ] {
            let cli = Cli::try_parse_from(args).unwrap();
            let Command::Cri(CriCommand::Info(a)) = cli.command else { panic!("not cri info") };
            assert_eq!((a.address, a.timeout), (PathBuf::from(address), timeout));
        }
    }

    /// clap's own consistency checks on the whole definition.
    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
