//! `gpulab rollout SCENARIO_OR_FILES`: runs the DaemonSet rollout of the built-in
//! incident or of manifests, prints each sync's `kubectl get ds` row and `kubectl
//! rollout status` line, then the pods and the diagnosis. Exits 0 when the rollout
//! finished, 1 when it stalled or did not finish in the syncs given, 2 on bad input.

use std::collections::BTreeMap;

use gpulab_model::daemonset::diagnosis::diagnose;
use gpulab_model::kubernetes::kubectl::get_pods_wide;
use gpulab_model::containerd::Version;
use gpulab_model::incident::run::Incident;
use gpulab_model::daemonset::rollout::RoundRecord;
use gpulab_model::daemonset::manifests::Manifests;
use gpulab_model::incident::seed::{broken_daemon, incident_from_owned_manifests, seed_incident_full, SEED_CONTAINERD_VERSION};
use gpulab_model::incident::transcript;
use gpulab_model::Lang;
use gpulab_model::daemonset::NodeOrder;

use crate::cli::RolloutArgs;
use crate::exit::ExitCode;
use crate::manifests::{diagnostic_line, load, read_source};
use crate::output::OutputFormat;

/// The built-in scenario: the lab's step-8 incident.
pub const SEED_SCENARIO: &str = "device-plugin-stall";

/// `--order`: `seed:N`, `listed`, or nodes to visit first (`gpu-node-2` or `a,b,c`).
pub fn parse_order(s: &str) -> Result<NodeOrder, String> {
    if s == "listed" {
        return Ok(NodeOrder::Listed);
    }
    if let Some(n) = s.strip_prefix("seed:") {
        return n.parse().map(NodeOrder::Seeded).map_err(|_| format!("--order {s:?}: seed:N wants a number"));
    }
    let names: Vec<String> = s.split(',').map(str::trim).filter(|n| !n.is_empty()).map(str::to_string).collect();
    if names.is_empty() {
        return Err(format!("--order {s:?}: give seed:N, listed, or node names"));
    }
    Ok(NodeOrder::Fixed(names))
}

/// Builds the incident the arguments describe (the rollout before its first sync and
/// every node's containerd daemon).
pub fn build_incident(args: &RolloutArgs) -> Result<Incident, String> {
    let order = parse_order(&args.order)?;
    let seed = match order {
        NodeOrder::Seeded(s) => s,
        _ => 1,
    };
    if args.inputs.len() == 1 && args.inputs.first().is_some_and(|i| i == SEED_SCENARIO) {
        if !args.broken_nodes.is_empty() {
            return Err(format!("--broken-node is for manifests; {SEED_SCENARIO} has its own broken node"));
        }
        return seed_incident_full(order, seed);
    }
    let mut manifests = Manifests::default();
    // Every file through the Kubernetes model's one loader, each finding printed at its
    // file:line:col. `-f` is the cluster (its Pods are not the rollout's); a positional
    // file holds only the rollout's kinds.
    let findings = |ds: Vec<gpulab_model::Diagnostic>| ds.iter().map(diagnostic_line).collect::<Vec<_>>().join("\n");
    for path in &args.filenames {
        let (name, text) = read_source(path)?;
        let (cluster, diags) = load(&name, &text, false);
        if !diags.is_empty() {
            return Err(findings(diags));
        }
        manifests.add_from_cluster(cluster);
    }
    for file in &args.inputs {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("{file}: {e} (give YAML manifests, or the built-in scenario {SEED_SCENARIO:?})"))?;
        // `Manifests::add_yaml`, with the file read on every core.
        let (loaded, diags) = load(file, &text, false);
        if !diags.is_empty() {
            return Err(findings(diags));
        }
        manifests.add(loaded).map_err(findings)?;
    }
    let default_version = Version::parse(SEED_CONTAINERD_VERSION).map_err(|e| e.to_string())?;
    let mut daemons = BTreeMap::new();
    for spec in &args.broken_nodes {
        let (node, version) = spec.split_once('=').unwrap_or((spec.as_str(), SEED_CONTAINERD_VERSION));
        if !manifests.nodes.iter().any(|n| n.metadata.name.as_deref() == Some(node)) {
            return Err(format!("--broken-node {node}: no such Node in the manifests"));
        }
        let version = Version::parse(version).map_err(|e| format!("--broken-node {spec}: {e}"))?;
        daemons.insert(node.to_string(), broken_daemon(&version));
    }
    incident_from_owned_manifests(manifests, daemons, &default_version, order, seed)
}

/// Runs the rounds the arguments ask for; returns them
/// ([`gpulab_model::incident::transcript::run_rounds`]).
pub fn run_rounds(incident: &mut Incident, args: &RolloutArgs) -> Vec<RoundRecord> {
    transcript::run_rounds(incident, args.syncs, args.restart_after_stall)
}

pub fn run(args: &RolloutArgs, output: OutputFormat) -> ExitCode {
    if args.work.is_some() {
        eprintln!("gpulab rollout: --work is read by `gpulab report --work progress.json`");
        return ExitCode::BadInput;
    }
    let lang: Lang = match args.lang.parse() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("gpulab rollout: {e}");
            return ExitCode::BadInput;
        }
    };
    let mut incident = match build_incident(args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpulab rollout: {e}");
            return ExitCode::BadInput;
        }
    };
    let start = incident.rollout.now();
    let before = incident.rollout.rollout_status();
    let rounds = run_rounds(&mut incident, args);
    let rollout = incident.rollout;
    let done = transcript::done(&rollout);
    match output {
        OutputFormat::Json => {
            let diagnosis = diagnose(&rollout);
            let ds_pods: Vec<_> = rollout.controller.pods.values().collect();
            let pods = get_pods_wide(ds_pods.iter().copied(), rollout.now());
            let json = serde_json::json!({
                "daemonSet": rollout.controller.name(),
                "rounds": rounds,
                "done": done,
                "diagnosis": diagnosis,
                "getPodsWide": pods,
            });
            println!("{json:#}");
        }
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => {
            print!("{}", transcript::text(&rollout, &before.map(|s| s.message), &rounds, start, lang));
        }
    }
    // The process ends here: freeing a 5,000-node rollout's pods, events and rounds one
    // by one costs more than a tenth of the whole run (callgrind), and the OS takes the
    // memory back at exit anyway.
    std::mem::forget(rollout);
    std::mem::forget(rounds);
    if done {
        ExitCode::Success
    } else {
        ExitCode::CheckFailed
    }
}
