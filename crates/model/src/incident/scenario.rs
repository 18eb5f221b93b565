//! A scenario run as an incident: the scenario's steps run on the model backend, and
//! along the way the incident report's inputs are gathered from the models — the
//! check-runtime verdict of every `check` and `restart` step (named by the step), the
//! rollout as it stood when it first stalled, the merge of the stalled nodes' files
//! then (and what a restart with them would do), the scheduler's verdicts, the fix
//! (files written, restarts on the stalled nodes after the stall), and the slot table
//! of a `plugin-config` step. `gpulab report scenarios/NAME` renders the result.

use crate::incident::artifacts::{check_runtime_run, merge_artifact, rollout_scheduler_verdicts, slot_artifact, FixRecord, SchedulerVerdict, SlotInput};
use crate::daemonset::diagnosis::diagnose;
use crate::incident::run::{IncidentRun, IF_RESTARTED_AS_IS};
use crate::incident::report::{Artifacts, CheckRuntimeRun};
use crate::daemonset::rollout::Rollout;
use crate::Lang;

use crate::scenario::engine::{Backend, BackendError};
use crate::scenario::format::{Action, Scenario};
use crate::scenario::model::ModelBackend;

/// Adds a check run gathered automatically unless it repeats the node's previous run
/// (same verdict, same findings): the scenario's own checks already said it.
fn push_new(runs: &mut Vec<CheckRuntimeRun>, run: CheckRuntimeRun) {
    let repeat = runs.iter().rev().find(|r| r.node == run.node).is_some_and(|r| r.verdict == run.verdict && r.findings == run.findings);
    if !repeat {
        runs.push(run);
    }
}

/// Runs `scenario` on the model and gathers the incident report's inputs. An error is a
/// scenario the model cannot set up (its manifests' findings stay data), a step it cannot
/// run, or one without a DaemonSet (nothing to report on).
pub fn incident_run(scenario: &Scenario, lang: Lang) -> Result<IncidentRun, BackendError> {
    let mut b = ModelBackend::new();
    b.setup(scenario)?;
    let mut artifacts = Artifacts::default();
    let mut at_stall: Option<Rollout> = None;
    let mut stalled: Vec<String> = Vec::new();
    let mut slots: Option<SlotInput> = None;
    for step in &scenario.steps {
        // A sentence names its step; findings already name their file:line.
        b.act(&step.action).map_err(|e| match e {
            BackendError::Message(m) => BackendError::Message(format!("step {:?}: {m}", step.name)),
            findings => findings,
        })?;
        match &step.action {
            Action::Check { node } | Action::Restart { node } => {
                if let Some(n) = b.nodes.iter().find(|n| &n.spec.name == node) {
                    artifacts.check_runtime.push(check_runtime_run(node, &step.name, &n.daemon, &n.check));
                }
            }
            Action::PluginConfig { file } => {
                let gpu_nodes: Vec<_> = b.nodes.iter().filter(|n| n.spec.gpus > 0).collect();
                if let Some(first) = gpu_nodes.first() {
                    slots = Some(SlotInput {
                        file: file.source.clone(),
                        text: file.content.clone(),
                        gpu_model: first.spec.gpu_model.clone(),
                        gpus_per_node: first.spec.gpus,
                        nodes: gpu_nodes.iter().map(|n| n.spec.name.clone()).collect(),
                    });
                }
            }
            _ => {}
        }
        if at_stall.is_some() {
            // After the stall: what the learner did to the stalled nodes is the fix.
            let entry = |artifacts: &mut Artifacts, node: &str| -> Option<usize> {
                if !stalled.iter().any(|s| s == node) {
                    return None;
                }
                if let Some(i) = artifacts.fix.iter().position(|f| f.node == node) {
                    return Some(i);
                }
                artifacts.fix.push(FixRecord { node: node.into(), files_written: Vec::new(), restarted: false });
                Some(artifacts.fix.len() - 1)
            };
            match &step.action {
                Action::WriteFile { node, path, .. } => {
                    if let Some(f) = entry(&mut artifacts, node).and_then(|i| artifacts.fix.get_mut(i)) {
                        f.files_written.push(path.clone());
                    }
                }
                Action::Restart { node } => {
                    if let Some(f) = entry(&mut artifacts, node).and_then(|i| artifacts.fix.get_mut(i)) {
                        f.restarted = true;
                    }
                }
                _ => {}
            }
        }
        let cluster = b.cluster.as_ref();
        if let (None, Some(r)) = (&at_stall, cluster.and_then(|c| c.rollout.as_ref())) {
            if r.rounds.last().is_some_and(|l| l.stalled) {
                stalled = diagnose(r).stalled_nodes.into_iter().map(|n| n.node).collect();
                for node in &stalled {
                    let Some(n) = b.nodes.iter().find(|n| &n.spec.name == node) else { continue };
                    artifacts.merge.push(merge_artifact(node, &n.daemon));
                    push_new(&mut artifacts.check_runtime, check_runtime_run(node, &step.name, &n.daemon, &n.check));
                    let mut trial = n.daemon.clone();
                    trial.restart();
                    let as_is = check_runtime_run(node, IF_RESTARTED_AS_IS, &trial, &n.check);
                    if !as_is.passed {
                        push_new(&mut artifacts.check_runtime, as_is);
                    }
                }
                at_stall = Some(r.clone());
            }
        }
        for p in cluster.map(|c| c.pods.as_slice()).unwrap_or_default() {
            if p.event_reason == "FailedScheduling" && !artifacts.scheduler.iter().any(|v| v.pod == p.name && v.message == p.message) {
                artifacts.scheduler.push(SchedulerVerdict {
                    pod: p.name.clone(),
                    reason: p.event_reason.clone(),
                    source: "default-scheduler".into(),
                    message: p.message.clone(),
                    count: 1,
                    stage: None,
                });
            }
        }
    }
    let rollout = b.cluster.as_ref().and_then(|c| c.rollout.clone()).ok_or("the scenario has no DaemonSet: there is no rollout to report on")?;
    for v in rollout_scheduler_verdicts(&rollout) {
        if !artifacts.scheduler.iter().any(|s| s.pod == v.pod && s.message == v.message) {
            artifacts.scheduler.push(v);
        }
    }
    if let Some(input) = &slots {
        match slot_artifact(input, lang) {
            Ok((table, rows)) => {
                artifacts.slots = Some(table);
                artifacts.slot_table = rows;
            }
            Err(e) => artifacts.errors.push(format!("slot table: {e}")),
        }
    }
    let at_stall = at_stall.unwrap_or_else(|| rollout.clone());
    Ok(IncidentRun { rollout, at_stall, artifacts })
}
