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
    /// containerd config files through the model: what `config dump` prints, and
    /// the explanation of how the main config and its drop-ins merged.
    #[command(subcommand)]
    Containerd(ContainerdCommand),
}

#[derive(Debug, Subcommand)]
pub enum ContainerdCommand {
    /// Print what `containerd --config /etc/containerd/config.toml config dump`
    /// prints for the files under DIR: same stdout, stderr and exit code.
    Dump(NodeArgs),
    /// Explain the merge: where each effective setting came from, tables replaced
    /// whole, settings lost, unknown keys, and the CRI plugin's status.
    /// Exit 0: CRI loads with every main-config setting intact; 1: settings lost or
    /// the plugin (or daemon) fails; 2: unreadable input.
    Explain(NodeArgs),
}

#[derive(Debug, Args)]
pub struct NodeArgs {
    /// The node's root: DIR stands for `/` (the config is DIR/etc/containerd/config.toml).
    #[arg(long, value_name = "DIR")]
    pub root: PathBuf,
    /// A recorded version (1.6.20, 1.6.39, 1.7.34, 2.0.11, 2.1.9, 2.2.7, 2.3.4, main)
    /// or any patch release of those lines.
    #[arg(long = "containerd-version", value_name = "V")]
    pub containerd_version: String,
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

    /// `containerd explain` takes the root and version; `--output json` may follow.
    #[test]
    fn containerd_explain_args() {
        let cli = Cli::try_parse_from(["gpulab", "containerd", "explain", "--root", "/n", "--containerd-version", "1.6.20", "--output", "json"]).unwrap();
        assert_eq!(cli.output, OutputFormat::Json);
        let Command::Containerd(ContainerdCommand::Explain(a)) = cli.command else { panic!("not explain") };
        assert_eq!((a.root, a.containerd_version.as_str()), (PathBuf::from("/n"), "1.6.20"));
        assert!(Cli::try_parse_from(["gpulab", "containerd", "dump", "--root", "/n"]).is_err());
    }

    /// clap's own consistency checks on the whole definition.
    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
