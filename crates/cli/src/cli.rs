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

// Parsed once per run; boxing the big variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run golden cases: each PATH is a goldens directory (a whole tree such as
    /// ../shared/goldens, one area, one case directory) or one golden JSON file.
    /// Prints one line per case and `N passed, N failed`; exits 1 if any failed.
    Goldens(GoldensArgs),
    /// The slot table: seats per GPU, node and cluster and the memory each seat is
    /// guaranteed, from a real device-plugin config file, side by side with MPS and MIG.
    /// `--output md|csv` exports the table; exits 1 when the plugin would refuse the config.
    Slots(SlotsArgs),
    /// The MIG planner: a GPU model's profiles and shipped layouts, and whether a geometry
    /// (e.g. `2x1g.10gb,1x2g.20gb,1x3g.40gb`) fits; exits 1 when it does not.
    Mig(MigArgs),
    /// containerd config files through the model: what `config dump` prints, and
    /// the explanation of how the main config and its drop-ins merged.
    #[command(subcommand)]
    Containerd(ContainerdCommand),
    /// Run a DaemonSet rollout (the built-in `device-plugin-stall` incident, or YAML
    /// manifests: Nodes, RuntimeClasses, the running DaemonSet, then its update) and
    /// print each sync's `kubectl get ds` row and `kubectl rollout status` line, the
    /// pods, and the diagnosis. Exits 0 when it rolled out, 1 when it stalled.
    Rollout(RolloutArgs),
    /// Write the incident report (Markdown; JSON with --output json) of a rollout run.
    Report(ReportArgs),
    /// Schedule one pod on a modelled cluster: prints the verdict, the
    /// FailedScheduling event as `kubectl describe pod` shows it, and node × plugin
    /// results. Exits 0 when scheduled, 1 when Pending or refused by the API server,
    /// 2 on bad input (with file:line).
    Schedule(ScheduleArgs),
    /// Talk to a container runtime over CRI (the live, loaded state).
    #[command(subcommand)]
    Cri(CriCommand),
    /// Scenarios (`scenarios/NAME/scenario.toml`): run on the model, replay on a real backend.
    #[command(subcommand)]
    Scenario(ScenarioCommand),
    /// Replay scenarios on a real backend and diff every expectation against the model:
    /// model value, real value, agree/differ. Exit 0 only when all compared values agree.
    Parity(ParityArgs),
    /// A real Kubernetes control plane on this machine — etcd, kube-apiserver,
    /// kube-scheduler and kube-controller-manager of one release, built from upstream
    /// source — on free 127.0.0.1 ports with its own certificates, in a private
    /// directory. No kubelet: `gpulab parity --backend kube` plays it.
    #[command(subcommand)]
    Cluster(ClusterCommand),
    /// Dynamic Resource Allocation on the node side: what NVIDIA's DRA driver
    /// publishes for a node's GPUs, and how it reads its opaque config.
    #[command(subcommand)]
    Dra(DraCommand),
}

#[derive(Debug, Subcommand)]
pub enum DraCommand {
    /// Print, as YAML, the ResourceSlices NVIDIA's DRA driver (`gpu.nvidia.com`)
    /// publishes for one node's GPUs — whole GPUs, static MIG devices, or the
    /// partitionable MIG form with counters — ready for `kubectl apply -f -` on a
    /// cluster without the driver (the lab's UUIDs and slice names; see the model's
    /// `dra::nvidia` for which values are the driver's). Exits 2 on a model or
    /// geometry it cannot publish.
    Slices(DraSlicesArgs),
}

/// `gpulab dra slices`: what was typed.
#[derive(Debug, Args)]
pub struct DraSlicesArgs {
    /// The node's name (the slice's `nodeName` and pool).
    #[arg(long, value_name = "NAME")]
    pub node: String,
    /// NVML device name, e.g. "NVIDIA H100 80GB HBM3".
    #[arg(long, value_name = "NAME")]
    pub gpu_model: String,
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub gpus: u32,
    /// MIG: a geometry MIG Manager made on every GPU (e.g. 7x1g.10gb), or
    /// `partitionable` (every placement, consuming memory-slice counters).
    #[arg(long, value_name = "GEOMETRY|partitionable")]
    pub mig: Option<String>,
    /// NVML total memory per GPU, when the model is not in the built-in table.
    #[arg(long, value_name = "MIB")]
    pub gpu_memory_mib: Option<u64>,
    #[arg(long, value_name = "X.Y.Z")]
    pub driver_version: Option<String>,
    #[arg(long, value_name = "X.Y")]
    pub cuda_driver_version: Option<String>,
    /// The pool's generation (a republished pool has a higher one).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub generation: i64,
    /// Print the driver's GPU DeviceClasses (gpu.nvidia.com, mig.nvidia.com) first.
    #[arg(long)]
    pub classes: bool,
}

#[derive(Debug, Subcommand)]
pub enum ClusterCommand {
    /// Start the control plane and leave it running; print its kubeconfig.
    ///
    /// Prints the admin kubeconfig's path (context `gpulab-<release>`) and an `export
    /// KUBECONFIG=…` line (`--output json`: dir, kubeconfig, context, pids, ports). Ready
    /// within 60 s, or an error naming the component with the end of its log, and
    /// everything already started is stopped (also on Ctrl-C). A directory whose processes
    /// have exited is removed first. Exit 2: a cluster already runs in the directory, the
    /// directory is not a gpulab cluster's, or the binary is missing (the message says how
    /// to build it); 3: a port is taken or a component failed.
    Up(ClusterUpArgs),
    /// Stop every process of the cluster by its PID and remove its directory.
    ///
    /// SIGTERM, then SIGKILL after 10 s; a PID that now runs another command than the one
    /// recorded is left alone. Exit 2 when the directory holds no gpulab cluster.
    Down(ClusterDirArgs),
}

#[derive(Debug, Args)]
pub struct ClusterUpArgs {
    /// The Kubernetes release; its binary is
    /// ${GPULAB_CACHE:-~/.cache/gpulab}/kube/<release>/kube-oracle (`scripts/oracle-kube.sh
    /// <release>` builds it).
    #[arg(long, value_name = "V", default_value = gpulab::cluster::DEFAULT_RELEASE)]
    pub k8s_version: String,
    #[command(flatten)]
    pub dir: ClusterDirArgs,
}

#[derive(Debug, Args)]
pub struct ClusterDirArgs {
    /// The cluster's private directory (0700) [default: $XDG_RUNTIME_DIR/gpulab-cluster-<uid>,
    /// else /tmp/gpulab-cluster-<uid>].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ScenarioCommand {
    /// Run scenarios on the model; exit 0 when every expectation holds, 1 otherwise,
    /// 2 when a scenario is malformed (errors name scenario.toml:LINE).
    Run(ScenarioRunArgs),
    /// Run scenarios on a real backend and check the expectations against what it observed.
    Replay(ParityArgs),
    /// Scaffold a new scenario directory at PATH from the incident, as `cargo new`
    /// does (its last component names the scenario); it passes `scenario run` as
    /// written. Exit 2 when that name is not a plain name or PATH already exists.
    New(ScenarioNewArgs),
    /// Lint a scenario: TOML syntax and schema, referenced files, versions the model
    /// covers, and every expectation run on the model; `file:line:col: severity: message
    /// [code]`. Exit 0 clean (warnings allowed), 1 an expectation the model cannot
    /// satisfy, 2 a malformed scenario.
    Check(ScenarioCheckArgs),
    /// Write random scheduling scenarios (nodes, taints, cordons, RuntimeClasses, pods
    /// with selectors, affinity and tolerations) with the model's expectations, for
    /// `gpulab parity --backend kube` to replay; the same seed writes the same files.
    Generate(ScenarioGenerateArgs),
}

#[derive(Debug, Args)]
pub struct ScenarioGenerateArgs {
    /// The seed: the same seed and count write the same scenarios.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many scenarios.
    #[arg(long, default_value_t = 200)]
    pub count: u32,
    /// Where to write them (`OUT/gen-SEED-NNNN/`).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct ScenarioNewArgs {
    /// The directory to create, e.g. `scenarios/my-lab`; its last component (letters,
    /// digits, `-`, `_`) is the scenario's name.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

#[derive(Debug, Args)]
pub struct ScenarioCheckArgs {
    /// Scenario directories (each holds a scenario.toml), or a directory of them.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScenarioRunArgs {
    /// Scenario directories (each holds a scenario.toml), or a directory of them.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

/// The real system a replay runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendKind {
    /// The real `containerd` binary and daemons on private roots and sockets.
    Containerd,
    /// A Kubernetes cluster through a kubeconfig context (`GPULAB_KUBECONFIG`, else the
    /// usual kubeconfig); kind-, kwok- or gpulab- contexts only unless allowed.
    Kube,
    /// A real run recorded earlier (`--recording FILE`, written by `--record`): the real
    /// side read from the file, the model at the recorded release (`gpulab parity` only).
    Recorded,
}

#[derive(Debug, Args)]
pub struct ParityArgs {
    /// Scenario directories (each holds a scenario.toml), or a directory of them.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    #[arg(long, value_enum)]
    pub backend: BackendKind,
    /// kubeconfig context (kube backend).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Allow a context whose name does not start with `kind-`, `kwok-` or `gpulab-`.
    #[arg(long)]
    pub allow_non_lab_cluster: bool,
    /// Place a scenario node on a cluster node (kube backend), e.g.
    /// `--node gpu-node-1=kind-worker`; repeatable. Unplaced nodes are created, simulated.
    #[arg(long = "node", value_name = "SCENARIO=CLUSTER")]
    pub node_map: Vec<String>,
    /// Kube backend: run each simulated node's containerd as a real daemon here (private
    /// root, state and socket, as `--backend containerd` does; needs root and the node's
    /// version installed or cached); its containerd fields are then compared, and the
    /// companion's kubelet reads that daemon's loaded CRI config.
    #[arg(long)]
    pub real_containerd: bool,
    /// Kube backend (`gpulab parity`): also write each scenario's real side into FILE (a
    /// recording, JSON; a scenario already in it is replaced), for `--backend recorded`.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// The recording `--backend recorded` reads.
    #[arg(long, value_name = "FILE")]
    pub recording: Option<PathBuf>,
    /// Containerd backend (`gpulab parity`): replay up to N scenarios side by side, each
    /// with its own daemons (the output stays in scenario order).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
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

/// `gpulab slots`: what was typed.
#[derive(Debug, Args)]
pub struct SlotsArgs {
    /// The device-plugin config (the value of one key of the plugin's ConfigMap), or the
    /// ConfigMap manifest itself (then --node-label / --default-config pick the key).
    #[arg(long, value_name = "FILE.yaml")]
    pub config: Option<PathBuf>,
    /// The node's nvidia.com/device-plugin.config label (selects a ConfigMap key).
    #[arg(long, value_name = "KEY")]
    pub node_label: Option<String>,
    /// The deployment's default config key (GPU Operator devicePlugin.config.default).
    #[arg(long, value_name = "KEY")]
    pub default_config: Option<String>,
    /// NVML device name, e.g. "NVIDIA H100 80GB HBM3".
    #[arg(long, value_name = "NAME")]
    pub gpu_model: String,
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub gpus_per_node: u32,
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub nodes: u32,
    /// Modes to compare with the config: none, ts, mps, mig, dra, all (default: all).
    #[arg(long, value_delimiter = ',', value_name = "MODES")]
    pub compare: Vec<String>,
    /// Kubernetes version of the DRA rows: 1.33, 1.34, 1.35, 1.36 or 1.37.
    #[arg(long, value_name = "VERSION", default_value = "1.36")]
    pub k8s_version: String,
    /// Replicas for the compared time-slicing and MPS modes (default: the config's, else 4).
    #[arg(long, value_name = "N")]
    pub replicas: Option<u32>,
    /// NVML total memory per GPU, when the model is not in the built-in table.
    #[arg(long, value_name = "MIB")]
    pub gpu_memory_mib: Option<u64>,
    /// Compute capability, e.g. 9.0 (decides the MPS client limit).
    #[arg(long, value_name = "X.Y")]
    pub compute_capability: Option<String>,
    /// MIG geometry of every GPU for the config row: a layout name (all-balanced,
    /// all-1g.10gb) or profiles (2x1g.10gb,1x3g.40gb).
    #[arg(long, value_name = "LAYOUT")]
    pub mig: Option<String>,
    /// The operator's MIG_STRATEGY (beats flags.migStrategy in the file).
    #[arg(long, value_name = "none|single|mixed")]
    pub mig_strategy: Option<String>,
    #[arg(long, default_value = "v0.20.0", value_name = "VERSION")]
    pub plugin_version: String,
    /// Language of the table's labels: en or ko.
    #[arg(long, default_value = "en", value_name = "en|ko")]
    pub lang: String,
    /// A pod request to run through Allocate, e.g. nvidia.com/gpu=2.
    #[arg(long, value_name = "RESOURCE=N")]
    pub request: Option<String>,
}

/// `gpulab mig`: what was typed.
#[derive(Debug, Args)]
pub struct MigArgs {
    /// NVML device name or catalogue model, e.g. "NVIDIA A100-SXM4-40GB" or H100-80GB.
    #[arg(long, value_name = "NAME")]
    pub gpu_model: String,
    /// A geometry to check: a layout name or profiles (2x1g.5gb,1x2g.10gb,1x3g.20gb).
    #[arg(long, value_name = "GEOMETRY")]
    pub geometry: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum ContainerdCommand {
    /// Print what `containerd --config /etc/containerd/config.toml config dump`
    /// prints for the files under DIR: same stdout, stderr and exit code. One line
    /// aside: containerd 1.x prints the `imports = [...]` line in Go map order, which
    /// changes from run to run (four orders in 30 runs of the same files, measured on
    /// 1.6.20); this prints it sorted.
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
    /// A modelled version (1.6.20, 1.6.39, 1.7.34, 2.0.11, 2.1.9, 2.2.7, 2.3.4, 2.4.2,
    /// main) or any patch release of those lines.
    #[arg(long = "containerd-version", value_name = "V")]
    pub containerd_version: String,
}

#[derive(Debug, Args)]
pub struct RolloutArgs {
    /// `device-plugin-stall`, or YAML manifest files.
    #[arg(required_unless_present = "work", value_name = "SCENARIO_OR_FILES")]
    pub inputs: Vec<String>,
    /// The cluster as kubectl prints it (`kubectl get nodes,pods -A -o yaml` or `-o
    /// json`, or any manifests; `-` reads stdin): its Nodes, RuntimeClasses and
    /// DaemonSets are read before SCENARIO_OR_FILES; its Pods are not (the rollout
    /// models the DaemonSet's own pods only). Repeatable.
    #[arg(short = 'f', long = "filename", value_name = "FILE")]
    pub filenames: Vec<PathBuf>,
    /// `gpulab report` only: the progress file the lab exports (its work: the node's
    /// files, step 4's operations, the RuntimeClass, patches, slot config and step 8's
    /// syncs); the report is the one the lab's step 8 shows for it.
    #[arg(long, value_name = "progress.json", conflicts_with_all = ["inputs", "filenames", "restart_after_stall", "syncs", "until_stalled"])]
    pub work: Option<PathBuf>,
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
    /// handler (the NVIDIA drop-in is on disk, the daemon was not restarted; default
    /// version 1.6.20, where the drop-in replaces the CRI table). Repeatable.
    #[arg(long = "broken-node", value_name = "NODE[=CONTAINERD_VERSION]")]
    pub broken_nodes: Vec<String>,
    /// After the stall, fix the stalled nodes (rewrite the drop-in when a restart alone
    /// would fail the CRI plugin), restart their containerd and go on.
    #[arg(long)]
    pub restart_after_stall: bool,
    /// Language of the diagnosis.
    #[arg(long, default_value = "en", value_parser = ["ko", "en"])]
    pub lang: String,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run to report on: a scenario directory (`scenarios/incident`), or the same
    /// inputs as `gpulab rollout`.
    #[command(flatten)]
    pub rollout: RolloutArgs,
}

#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// The cluster: Nodes and the Pods already bound to them (`spec.nodeName`);
    /// RuntimeClasses here count too. Multi-document YAML, or what `kubectl get
    /// nodes,pods -A -o yaml` (or `-o json`) prints; `-` reads stdin.
    #[arg(long, short = 'f', visible_alias = "filename", value_name = "FILE")]
    pub nodes: PathBuf,
    /// The Pod to create and schedule.
    #[arg(long, value_name = "FILE.yaml")]
    pub pod: PathBuf,
    /// RuntimeClasses that exist in the cluster.
    #[arg(long, value_name = "FILE.yaml")]
    pub runtimeclasses: Option<PathBuf>,
    /// More objects that exist in the cluster — DeviceClasses, ResourceClaims,
    /// ResourceClaimTemplates, ResourceSlices (DRA), RuntimeClasses; repeatable.
    #[arg(long, value_name = "FILE.yaml")]
    pub objects: Vec<PathBuf>,
    /// Kubernetes version whose behaviour to model: 1.33, 1.34, 1.35, 1.36 or 1.37.
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

    /// The issue's example command line parses, `--compare` split on commas.
    #[test]
    fn slots_example_parses() {
        let cli = Cli::try_parse_from([
            "gpulab", "slots", "--config", "ts.yaml", "--gpu-model", "NVIDIA H100 80GB HBM3", "--gpus-per-node", "8",
            "--nodes", "3", "--compare", "mps,mig", "--output", "md",
        ])
        .unwrap();
        assert_eq!(cli.output, OutputFormat::Md);
        let Command::Slots(args) = cli.command else { panic!("not slots") };
        assert_eq!((args.gpus_per_node, args.nodes), (8, 3));
        assert_eq!(args.compare, vec!["mps", "mig"]);
        assert_eq!(args.config, Some(PathBuf::from("ts.yaml")));
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

    /// `containerd explain` takes the root and version; `--output json` may follow.
    #[test]
    fn containerd_explain_args() {
        let cli = Cli::try_parse_from(["gpulab", "containerd", "explain", "--root", "/n", "--containerd-version", "1.6.20", "--output", "json"]).unwrap();
        assert_eq!(cli.output, OutputFormat::Json);
        let Command::Containerd(ContainerdCommand::Explain(a)) = cli.command else { panic!("not explain") };
        assert_eq!((a.root, a.containerd_version.as_str()), (PathBuf::from("/n"), "1.6.20"));
        assert!(Cli::try_parse_from(["gpulab", "containerd", "dump", "--root", "/n"]).is_err());
    }

    /// `schedule` takes its three files and the version knob.
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

    /// `parity --backend kube` takes the context and, opt-in, real containerd daemons
    /// for the simulated nodes.
    #[test]
    fn parity_kube_arguments() {
        let cli = Cli::try_parse_from(["gpulab", "parity", "scenarios", "--backend", "kube", "--context", "gpulab-v1.37.2", "--real-containerd"]).unwrap();
        let Command::Parity(a) = cli.command else { panic!("not parity") };
        assert_eq!((a.context.as_deref(), a.real_containerd), (Some("gpulab-v1.37.2"), true));
        let cli = Cli::try_parse_from(["gpulab", "parity", "scenarios", "--backend", "kube"]).unwrap();
        let Command::Parity(a) = cli.command else { panic!("not parity") };
        assert!(!a.real_containerd);
        assert_eq!(a.jobs, 1);
    }

    /// `parity --jobs N` takes 1 to 64 replays side by side.
    #[test]
    fn parity_jobs() {
        let cli = Cli::try_parse_from(["gpulab", "parity", "scenarios", "--backend", "containerd", "--jobs", "4"]).unwrap();
        let Command::Parity(a) = cli.command else { panic!("not parity") };
        assert_eq!(a.jobs, 4);
        for bad in ["0", "65", "x"] {
            assert!(Cli::try_parse_from(["gpulab", "parity", "scenarios", "--backend", "containerd", "--jobs", bad]).is_err(), "{bad}");
        }
    }

    /// `cluster up` defaults to the newest release; `--dir` is optional on both.
    #[test]
    fn cluster_arguments() {
        let cli = Cli::try_parse_from(["gpulab", "cluster", "up"]).unwrap();
        let Command::Cluster(ClusterCommand::Up(a)) = cli.command else { panic!("not cluster up") };
        assert_eq!((a.k8s_version.as_str(), a.dir.dir), ("v1.37.2", None));
        let cli = Cli::try_parse_from(["gpulab", "cluster", "down", "--dir", "/tmp/c"]).unwrap();
        let Command::Cluster(ClusterCommand::Down(a)) = cli.command else { panic!("not cluster down") };
        assert_eq!(a.dir, Some(PathBuf::from("/tmp/c")));
        assert!(Cli::try_parse_from(["gpulab", "cluster", "down", "--k8s-version", "v1.34.0"]).is_err());
    }

    /// clap's own consistency checks on the whole definition.
    #[test]
    fn definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// The help of every command is for users: no tracker references ("issue 5").
    #[test]
    fn help_names_no_issue() {
        use clap::CommandFactory;
        let mut stack = vec![Cli::command()];
        let mut seen = 0;
        while let Some(mut cmd) = stack.pop() {
            let help = cmd.render_long_help().to_string();
            let lower = help.to_lowercase();
            let at = lower.match_indices("issue").find(|(i, _)| {
                lower.get(i + 5..).is_some_and(|r| r.trim_start_matches([' ', '#']).starts_with(|c: char| c.is_ascii_digit()))
            });
            assert!(at.is_none(), "`{}` help names an issue:\n{help}", cmd.get_name());
            stack.extend(cmd.get_subcommands().cloned());
            seen += 1;
        }
        assert!(seen > 10, "{seen} commands");
    }
}
