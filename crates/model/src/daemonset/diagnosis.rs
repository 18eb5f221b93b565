//! The diagnosis of a stalled rollout: which node(s) hold it and the cause chain from
//! the status columns down to the root, every link with its evidence (a status field,
//! an event, a runtime fact, a config location). Links are data — a stable `code` and
//! `args` — and the report and the app put them into Korean or English.
//!
//! The rule it follows is the controller's own: with maxSurge 0 an old pod is replaced
//! only while `numUnavailable < maxUnavailable`, and a node whose *new* pod is not
//! available counts as unavailable for as long as that lasts. Those nodes hold the
//! budget; the diagnosis follows each one through its pod, the kubelet's event, and
//! the node's container runtime.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::kubernetes::events::{reason, Event};
use crate::kubernetes::kubectl::pod_row;
use super::pod::{get_target_node_name, pod_name};
use super::rollout::Rollout;
use crate::Span;

/// What a link rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Evidence {
    /// A field of an API object, e.g. `DaemonSet/x` `status.updatedNumberScheduled` = `1`.
    #[serde(rename_all = "camelCase")]
    StatusField { object: String, field: String, value: String },
    /// An event as `kubectl describe` shows it.
    #[serde(rename_all = "camelCase")]
    Event { object: String, type_: String, reason: String, source: String, message: String, count: u32 },
    /// A fact about a node's running container runtime.
    #[serde(rename_all = "camelCase")]
    Runtime { node: String, field: String, value: String },
    /// A place in a config file.
    #[serde(rename_all = "camelCase")]
    Config { span: Span },
    /// Nothing beyond the arguments (a finding without a location).
    None,
}

/// One link of a cause chain: `code` with `args`, resting on `evidence`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CauseLink {
    pub code: String,
    pub args: BTreeMap<String, String>,
    pub evidence: Evidence,
}

fn link(code: &str, args: &[(&str, String)], evidence: Evidence) -> CauseLink {
    CauseLink { code: code.into(), args: args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(), evidence }
}

/// A node holding the rollout, with its chain (symptom first, root last).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StalledNode {
    pub node: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    pub chain: Vec<CauseLink>,
}

/// The link codes that are root causes: facts that, once fixed, end the chain above
/// them — the daemon not restarted since its files changed, the drop-in that broke the
/// merged config, the config the running daemon failed on, the missing RuntimeClass.
/// Every other link (the budget used up, the pod not ready, the sandbox error, the
/// handler not loaded, the API server's refusal) is a symptom of one of them.
pub const ROOT_CAUSES: [&str; 4] = ["daemon-not-restarted", "dropin-replaced-table", "loaded-cri-error", "runtimeclass-missing"];

impl StalledNode {
    /// The root causes of this node's chain ([`ROOT_CAUSES`], in chain order); when the
    /// model found none, the chain's last link (the deepest fact it has).
    pub fn root_causes(&self) -> Vec<&CauseLink> {
        let roots: Vec<&CauseLink> = self.chain.iter().filter(|l| ROOT_CAUSES.contains(&l.code.as_str())).collect();
        if roots.is_empty() {
            self.chain.last().into_iter().collect()
        } else {
            roots
        }
    }
}

/// The columns of `kubectl get ds` the learner reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusColumns {
    pub desired: i32,
    pub current: i32,
    pub ready: i32,
    pub up_to_date: i32,
    pub available: i32,
    pub unavailable: i32,
}

/// Complete, progressing, or stalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Complete,
    Progressing,
    Stalled,
}

/// The whole diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    pub daemon_set: String,
    pub verdict: Verdict,
    /// The `rollout status` line (without its newline).
    pub rollout_status: String,
    pub columns: StatusColumns,
    pub max_unavailable: usize,
    pub max_surge: usize,
    /// Nodes still waiting for their turn (old pod available, budget used up).
    pub waiting_nodes: usize,
    /// The rollout-level link every stalled node shares (the budget is used up).
    pub summary: Vec<CauseLink>,
    pub stalled_nodes: Vec<StalledNode>,
}

/// Diagnoses the rollout as it stands after its last round.
pub fn diagnose(rollout: &Rollout) -> Diagnosis {
    let ctl = &rollout.controller;
    let ds_name = ctl.name().to_string();
    let ds_object = format!("DaemonSet/{ds_name}");
    let status = ctl.ds.status.clone().unwrap_or_default();
    let columns = StatusColumns {
        desired: status.desired_number_scheduled,
        current: status.current_number_scheduled,
        ready: status.number_ready,
        up_to_date: status.updated_number_scheduled.unwrap_or(0),
        available: status.number_available.unwrap_or(0),
        unavailable: status.number_unavailable.unwrap_or(0),
    };
    let rs = rollout.rollout_status();
    let rollout_line = match &rs {
        Ok(s) => s.message.trim_end().to_string(),
        Err(e) => format!("error: {e}"),
    };
    let last = rollout.rounds.last();
    let stalled = last.is_some_and(|r| r.stalled);
    let done = rs.as_ref().is_ok_and(|s| s.done);
    let verdict = if done { Verdict::Complete } else if stalled { Verdict::Stalled } else { Verdict::Progressing };
    let decision = last.and_then(|r| r.sync.rolling_update.clone()).unwrap_or_default();

    let mut summary = Vec::new();
    if !done {
        let (field, value) = if columns.up_to_date < columns.desired {
            ("status.updatedNumberScheduled", columns.up_to_date)
        } else {
            ("status.numberAvailable", columns.available)
        };
        summary.push(link(
            "rollout-waiting",
            &[("daemonSet", ds_name.clone()), ("desired", columns.desired.to_string()), ("field", field.into()), ("value", value.to_string())],
            Evidence::StatusField { object: ds_object.clone(), field: field.into(), value: value.to_string() },
        ));
        // The budget holds the rollout only when it is used up: with maxUnavailable 2 and
        // one broken node every other node is updated, and nothing waits for a turn.
        let budget_used = decision.max_surge > 0 || decision.num_unavailable >= decision.max_unavailable;
        if stalled && budget_used {
            summary.push(link(
                "unavailable-budget-used",
                &[
                    ("maxUnavailable", decision.max_unavailable.to_string()),
                    ("numUnavailable", decision.num_unavailable.to_string()),
                    ("waiting", decision.waiting_candidates.to_string()),
                ],
                Evidence::StatusField { object: ds_object.clone(), field: "status.numberUnavailable".into(), value: columns.unavailable.to_string() },
            ));
        }
        if stalled {
            summary.push(link("no-progress-deadline", &[("daemonSet", ds_name.clone())], Evidence::None));
        }
    }

    let mut stalled_nodes = Vec::new();
    if !done {
        let mut nodes: Vec<String> = decision.unavailable_new_pod_nodes.clone();
        if let Some(r) = last {
            for (node, _) in &r.sync.failed_creates {
                if !nodes.contains(node) {
                    nodes.push(node.clone());
                }
            }
        }
        for node in nodes {
            stalled_nodes.push(node_chain(rollout, &node, &ds_object, last.map(|r| r.sync.failed_creates.as_slice()).unwrap_or(&[])));
        }
    }
    Diagnosis {
        daemon_set: ds_name,
        verdict,
        rollout_status: rollout_line,
        columns,
        max_unavailable: decision.max_unavailable,
        max_surge: decision.max_surge,
        waiting_nodes: decision.waiting_candidates,
        summary,
        stalled_nodes,
    }
}

fn event_evidence(e: &Event) -> Evidence {
    Evidence::Event {
        object: e.involved_object.clone(),
        type_: e.type_.clone(),
        reason: e.reason.clone(),
        source: e.source.clone(),
        message: e.message.clone(),
        count: e.count,
    }
}

fn node_chain(rollout: &Rollout, node: &str, ds_object: &str, failed_creates: &[(String, String)]) -> StalledNode {
    let ctl = &rollout.controller;
    let mut chain = Vec::new();
    // No pod could be created: the API server refused it.
    if let Some((_, error)) = failed_creates.iter().find(|(n, _)| n == node) {
        let event = ctl.events.about(ds_object).filter(|e| e.reason == reason::FAILED_CREATE).last();
        chain.push(link("pod-create-refused", &[("node", node.into()), ("error", error.clone())],
            event.map(event_evidence).unwrap_or(Evidence::None)));
        if let Some(rc) = error.split("RuntimeClass \"").nth(1).and_then(|s| s.split('"').next()) {
            chain.push(link("runtimeclass-missing", &[("runtimeClass", rc.into())],
                Evidence::StatusField { object: format!("RuntimeClass/{rc}"), field: "metadata.name".into(), value: "<not found>".into() }));
        }
        return StalledNode { node: node.into(), pod: None, chain };
    }
    let hash = rollout.rounds.last().map(|r| r.sync.hash.clone()).unwrap_or_default();
    let pod = rollout
        .pods_on(node)
        .into_iter()
        .find(|p| super::pod::pod_label(p, super::pod::CONTROLLER_REVISION_HASH_LABEL) == Some(hash.as_str()))
        .or_else(|| rollout.pods_on(node).into_iter().next());
    let Some(pod) = pod else {
        chain.push(link("node-without-pod", &[("node", node.into())], Evidence::None));
        return StalledNode { node: node.into(), pod: None, chain };
    };
    let name = pod_name(pod).to_string();
    let object = format!("Pod/{name}");
    let row = pod_row(pod, rollout.now());
    let (ready, status) = (row.ready, row.status);
    let field = if status == "ContainerCreating" { "status.containerStatuses[0].state.waiting.reason" } else { "status.phase" };
    chain.push(link(
        "new-pod-not-ready",
        &[("pod", name.clone()), ("node", get_target_node_name(pod).unwrap_or(node).into()), ("ready", ready), ("status", status.clone())],
        Evidence::StatusField { object: object.clone(), field: field.into(), value: status },
    ));
    let sandbox = ctl.events.about(&object).filter(|e| e.reason == reason::FAILED_CREATE_POD_SANDBOX).last();
    let Some(sandbox) = sandbox else {
        return StalledNode { node: node.into(), pod: Some(name), chain };
    };
    chain.push(link("sandbox-create-failed", &[("pod", name.clone())], event_evidence(sandbox)));
    let handler = sandbox.message.split("no runtime for \"").nth(1).and_then(|s| s.split('"').next()).map(str::to_string);
    if let (Some(handler), Some(rt)) = (handler, rollout.runtime(node)) {
        chain.push(link(
            "handler-not-loaded",
            &[("node", node.into()), ("handler", handler.clone()), ("containerdVersion", rt.containerd_version.clone()), ("loaded", rt.loaded_handlers.join(", "))],
            Evidence::Runtime { node: node.into(), field: "loadedHandlers".into(), value: format!("[{}]", rt.loaded_handlers.join(", ")) },
        ));
        if rt.file_handlers.as_ref().is_some_and(|f| f.contains(&handler)) {
            chain.push(link("restart-would-load", &[("node", node.into()), ("handler", handler.clone())],
                Evidence::Runtime { node: node.into(), field: "fileHandlers".into(), value: format!("[{}]", rt.file_handlers.clone().unwrap_or_default().join(", ")) }));
        }
        push_findings(&mut chain, rt, node);
    } else if let (true, Some(rt)) = (sandbox.message.contains("unknown service runtime.v1.RuntimeService"), rollout.runtime(node)) {
        // The CRI plugin is not serving at all (e.g. it failed to load after a restart).
        chain.push(link(
            "cri-not-serving",
            &[("node", node.into()), ("containerdVersion", rt.containerd_version.clone())],
            Evidence::Runtime { node: node.into(), field: "loadedHandlers".into(), value: format!("[{}]", rt.loaded_handlers.join(", ")) },
        ));
        push_findings(&mut chain, rt, node);
    } else if let Some(rc) = sandbox.message.split("runtimeclass.node.k8s.io \"").nth(1).and_then(|s| s.split('"').next()) {
        chain.push(link("runtimeclass-missing", &[("runtimeClass", rc.into())],
            Evidence::StatusField { object: format!("RuntimeClass/{rc}"), field: "metadata.name".into(), value: "<not found>".into() }));
    }
    StalledNode { node: node.into(), pod: Some(name), chain }
}

/// The containerd model's findings about the node, as the chain's last links (the roots).
fn push_findings(chain: &mut Vec<CauseLink>, rt: &super::rollout::NodeRuntime, node: &str) {
    for f in &rt.findings {
        let mut l = link(&f.code, &[], f.span.clone().map(|span| Evidence::Config { span }).unwrap_or(Evidence::None));
        l.args = f.args.clone();
        l.args.entry("node".into()).or_insert_with(|| node.into());
        chain.push(l);
    }
}
