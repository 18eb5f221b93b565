//! `gpulab schedule`: read the cluster and the pod from real manifests, create the
//! pod through the model (defaulting, admission, validation, one scheduling cycle)
//! and print what a learner would see — the verdict, the Events table of
//! `kubectl describe pod`, and node × plugin results. Glue only: every rule is the
//! model's ([`gpulab_model::kubernetes::apply::create_pod`]; with DRA objects in the
//! files — DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice —
//! [`gpulab_model::kubernetes::dra::apply::create_pod`], which also prints the
//! devices each claim got).

use std::path::Path;

use gpulab_model::kubernetes::apply::{create_pod, Scheduled};
use gpulab_model::kubernetes::dra::apply::Applied;
use gpulab_model::kubernetes::dra::dynamicresources::State;
use gpulab_model::kubernetes::dra::printed;
use gpulab_model::kubernetes::events::Event;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::{Located, Manifests};
use gpulab_model::kubernetes::KubeVersion;
use gpulab_model::Diagnostic;
use k8s_openapi::api::resource::v1::DeviceClass;
use serde_json::json;

use crate::cli::ScheduleArgs;
use crate::exit::ExitCode;
use crate::manifests::{diagnostic_line, read_source};
use crate::output::OutputFormat;

/// The DRA objects of every file read: the allocator's state, and the DeviceClasses
/// where they were written (a refusal names the class's file:line).
#[derive(Default)]
struct Dra {
    state: State,
    classes: Vec<Located<DeviceClass>>,
}

/// Reads `path` (`-`: stdin, [`crate::manifests::read_source`]), loads it, and types
/// the DRA objects it holds into `dra`.
/// `cluster`: the file is the cluster to schedule on, whose bound pods are kept as
/// the scheduler's accounting only ([`gpulab_model::kubernetes::yaml::load_cluster`]),
/// read on every core ([`crate::manifests::load`]).
fn read(path: &Path, diags: &mut Vec<Diagnostic>, errors: &mut Vec<String>, dra: &mut Dra, cluster: bool) -> Manifests {
    match read_source(path) {
        Ok((file, text)) => {
            let (m, d) = crate::manifests::load(&file, &text, cluster);
            diags.extend(d);
            if !m.deferred.is_empty() {
                let (objects, typed) = gpulab_model::kubernetes::dra::read(&m);
                diags.extend(typed);
                diags.extend(
                    gpulab_model::kubernetes::dra::diagnose(&objects)
                        .into_iter()
                        .filter(|d| d.severity == gpulab_model::diagnostic::Severity::Error),
                );
                dra.classes.extend(objects.device_classes.iter().cloned());
                dra.state.extend(objects);
            }
            m
        }
        Err(e) => {
            errors.push(e);
            Manifests::default()
        }
    }
}

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
    let mut dra = Dra::default();
    let cluster = read(&args.nodes, &mut diags, &mut errors, &mut dra, true);
    let pod_file = read(&args.pod, &mut diags, &mut errors, &mut dra, false);
    let mut runtime_classes: Vec<_> = cluster.runtime_classes.iter().map(|l| l.object.clone()).collect();
    for p in args.runtimeclasses.iter().chain(&args.objects) {
        runtime_classes.extend(read(p, &mut diags, &mut errors, &mut dra, false).runtime_classes.into_iter().map(|l| l.object));
    }
    let Dra { state: mut dra, classes } = dra;
    let has_dra = !(dra.classes.is_empty() && dra.claims.is_empty() && dra.templates.is_empty() && dra.slices.is_empty());
    if let Some(e) = printed::not_served(version).filter(|_| has_dra) {
        errors.push(e);
    }
    let nodes: Vec<_> = cluster.nodes.iter().map(|l| l.object.clone()).collect();
    for pod in &pod_file.pods {
        diags.extend(printed::extended_resource_unmodelled(&classes, &nodes, &pod.object, version));
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
    // The cluster's objects move into the snapshot (its pods were reduced while read).
    let mut snapshot = Snapshot::with_bound(cluster.nodes.into_iter().map(|l| l.object), cluster.bound);
    let opts = FilterOptions { version, ..Default::default() };
    let uses_claims = pod.object.spec.as_ref().and_then(|s| s.resource_claims.as_ref()).is_some_and(|c| !c.is_empty());
    let created = if has_dra || uses_claims {
        gpulab_model::kubernetes::dra::apply::create_pod(&mut dra, &mut snapshot, pod.object.clone(), &runtime_classes, &opts, 0)
    } else {
        create_pod(pod.object.clone(), &snapshot, &runtime_classes, &opts, 0).map(|s| Applied::Cycle {
            scheduled: Box::new(s),
            allocations: Vec::new(),
            deallocated: None,
        })
    };
    let created = match created {
        Ok(Applied::Cycle { scheduled, allocations, deallocated }) => (*scheduled, allocations, deallocated),
        Ok(waiting) => return print_waiting(&waiting, version, output),
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
    let (created, allocations, deallocated): (Scheduled, _, _) = created;
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
            print!("{}", created.printed(&snapshot, version));
            print!("{}", printed::claims(&allocations, deallocated.as_ref()));
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
                    "from": created.event.source, "message": created.event.message,
                },
                "condition": {
                    "type": created.condition.type_, "status": created.condition.status,
                    "reason": created.condition.reason, "message": created.condition.message,
                },
                "nodes": created.explanation,
                "allocations": allocations.iter().map(|(claim, a)| json!({
                    "claim": claim,
                    "devices": a.devices.iter().flat_map(|d| d.results.iter().flatten()).map(|r| json!({
                        "request": r.request, "driver": r.driver, "pool": r.pool, "device": r.device,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
                "deallocated": deallocated.as_ref().map(|(claim, first)| json!({"claim": claim, "firstAttempt": first})),
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

/// A pod the scheduler does not try: its claim could not be made from a template
/// (the controller's warning event) or is missing (PreEnqueue; no event at all).
fn print_waiting(applied: &Applied, version: KubeVersion, output: OutputFormat) -> ExitCode {
    let pod = applied.pod();
    let name = pod.metadata.name.clone().unwrap_or_default();
    let namespace = pod.metadata.namespace.clone().unwrap_or_else(|| "default".into());
    let (event, reason): (Option<&Event>, Option<&str>) = match applied {
        Applied::ClaimNotCreated { event, .. } => (Some(event), None),
        Applied::Waiting { reason, .. } => (None, Some(reason.as_str())),
        Applied::Cycle { .. } => (None, None),
    };
    match output {
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => print!("{}", printed::waiting(applied, version)),
        OutputFormat::Json => {
            let v = json!({
                "verdict": "Pending",
                "kubernetesVersion": version.to_string(),
                "pod": {"namespace": namespace, "name": name},
                "node": null,
                "event": event.map(|e| json!({"type": e.type_, "reason": e.reason, "from": e.source, "message": e.message})),
                "preEnqueue": reason,
            });
            println!("{v:#}");
        }
    }
    ExitCode::CheckFailed
}
