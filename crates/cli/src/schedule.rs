//! `gpulab schedule`: read the cluster and the pod from real manifests, create the
//! pod through the model (defaulting, admission, validation, one scheduling cycle)
//! and print what a learner would see — the verdict, the Events table of
//! `kubectl describe pod`, and node × plugin results. Glue only: every rule is the
//! model's ([`gpulab_model::kubernetes::apply::create_pod`]).

use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::kubectl::describe_events;
use gpulab_model::kubernetes::scheduler::explain::table;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::KubeVersion;
use serde_json::json;

use crate::cli::ScheduleArgs;
use crate::exit::ExitCode;
use crate::manifests::{diagnostic_line, read};
use crate::output::OutputFormat;

/// Runs the command.
pub fn run(args: &ScheduleArgs, output: OutputFormat) -> ExitCode {
    let version: KubeVersion = match args.k8s_version.parse() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("gpulab schedule: {e}");
            return ExitCode::BadInput;
        }
    };
    let (mut diags, mut errors) = (Vec::new(), Vec::new());
    let cluster = read(&args.nodes, &mut diags, &mut errors);
    let pod_file = read(&args.pod, &mut diags, &mut errors);
    let mut runtime_classes: Vec<_> = cluster.runtime_classes.iter().map(|l| l.object.clone()).collect();
    if let Some(p) = &args.runtimeclasses {
        runtime_classes.extend(read(p, &mut diags, &mut errors).runtime_classes.into_iter().map(|l| l.object));
    }
    for e in &errors {
        eprintln!("gpulab schedule: {e}");
    }
    for d in &diags {
        eprintln!("{}", diagnostic_line(d));
    }
    if !errors.is_empty() || !diags.is_empty() {
        return ExitCode::BadInput;
    }
    let [pod] = pod_file.pods.as_slice() else {
        eprintln!("{}: expected exactly one Pod, found {}", args.pod.display(), pod_file.pods.len());
        return ExitCode::BadInput;
    };
    let snapshot = Snapshot::new(
        cluster.nodes.iter().map(|l| l.object.clone()),
        &cluster.pods.iter().map(|l| l.object.clone()).collect::<Vec<_>>(),
    );
    let opts = FilterOptions { version, ..Default::default() };
    let created = match create_pod(pod.object.clone(), &snapshot, &runtime_classes, &opts, 0) {
        Ok(c) => c,
        Err(rejection) => {
            let text = rejection.kubectl_text(&args.pod.display().to_string());
            match output {
                OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => println!("{text}"),
                OutputFormat::Json => println!(
                    "{:#}",
                    json!({"verdict": "Rejected", "reason": rejection.reason, "message": rejection.message, "kubectl": text})
                ),
            }
            return ExitCode::CheckFailed;
        }
    };
    let name = created.pod.metadata.name.clone().unwrap_or_default();
    let namespace = created.pod.metadata.namespace.clone().unwrap_or_else(|| "default".into());
    let (verdict, node, tied, nominated) = match &created.result.outcome {
        Outcome::Scheduled { node, .. } => {
            ("Scheduled", Some(node.clone()), created.result.tied_names(&snapshot), None)
        }
        Outcome::Unschedulable { nominated_node, .. } => ("Pending", None, vec![], nominated_node.clone()),
        Outcome::Error { .. } => ("Pending", None, vec![], None),
    };
    match output {
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => {
            match &node {
                Some(n) if tied.len() > 1 => {
                    println!("{namespace}/{name}: Scheduled to {n} (tied with: {})", tied.join(", "))
                }
                Some(n) => println!("{namespace}/{name}: Scheduled to {n}"),
                None => println!("{namespace}/{name}: Pending (Kubernetes {version})"),
            }
            if let Some(n) = &nominated {
                println!("Nominated node (preemption): {n}");
            }
            print!("{}", describe_events(std::slice::from_ref(&created.event), 0));
            println!();
            print!("{}", table(&created.explanation));
        }
        OutputFormat::Json => {
            let v = json!({
                "verdict": verdict,
                "kubernetesVersion": version.to_string(),
                "pod": {"namespace": namespace, "name": name},
                "node": node,
                "tied": tied,
                "nominatedNodeName": nominated,
                "event": {
                    "type": created.event.type_, "reason": created.event.reason,
                    "from": created.event.from, "message": created.event.message,
                },
                "condition": {
                    "type": created.condition.type_, "status": created.condition.status,
                    "reason": created.condition.reason, "message": created.condition.message,
                },
                "nodes": created.explanation,
            });
            println!("{v:#}");
        }
    }
    if node.is_some() {
        ExitCode::Success
    } else {
        ExitCode::CheckFailed
    }
}
