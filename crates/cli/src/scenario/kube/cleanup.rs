//! What a run must undo, and undoing it: on success, on failure (the backend's
//! [`Drop`](super::backend::KubeBackend) and the replay's explicit call) and on Ctrl-C (a
//! tokio signal handler). The [`Plan`] is shared between the replay and the handler and
//! grows as the run creates things, so an interruption at any moment undoes exactly what
//! was done.

use std::sync::{Arc, Mutex};

use kube::Client;

use super::exec::{commands, run_ok, NodeExec};
use super::requests;

/// What the current run created or changed.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The run's namespace, once the run starts creating it.
    pub ns: Option<String>,
    pub run: String,
    /// Nodes the run did not create whose status it gave `nvidia.com/gpu`.
    pub patched_nodes: Vec<String>,
    /// Node containers whose `/etc/containerd` the run changed (a backup was kept).
    pub touched_containers: Vec<String>,
}

/// The plan shared with the Ctrl-C handler; `None` when no run is in progress.
pub type SharedPlan = Arc<Mutex<Option<Plan>>>;

fn status_text(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => format!("{} ({})", s.message, s.code),
        kube::Error::HyperError(_) | kube::Error::Service(_) => super::backend::no_answer(e, ""),
        other => other.to_string(),
    }
}

/// Undoes `plan`: the labelled cluster-scoped objects and the namespace are deleted, the
/// GPU capacity written into other nodes is removed, node containers get their
/// `/etc/containerd` back. Returns one line per thing undone (or failed to undo).
pub async fn undo(client: &Client, plan: &Plan, exec: Option<&dyn NodeExec>) -> Vec<String> {
    let mut lines = Vec::new();
    for c in &plan.touched_containers {
        match exec.map(|e| run_ok(e, c, &commands::restore())) {
            Some(Ok(_)) => lines.push(format!("restored /etc/containerd in node container {c} and restarted containerd")),
            Some(Err(e)) => lines.push(format!("could not restore /etc/containerd in {c}: {e}")),
            None => lines.push(format!("could not restore /etc/containerd in {c}: no container engine")),
        }
    }
    for n in &plan.patched_nodes {
        match requests::unpatch_node_gpus(n) {
            Ok(r) => match client.request_text(r).await {
                Ok(_) => lines.push(format!("removed nvidia.com/gpu from node {n}'s status")),
                Err(e) => lines.push(format!("could not remove nvidia.com/gpu from node {n}: {}", status_text(&e))),
            },
            Err(e) => lines.push(e),
        }
    }
    if let Some(ns) = &plan.ns {
        match requests::cleanup(ns, &plan.run) {
            Ok(reqs) => {
                for r in reqs {
                    let what = format!("{} {}", r.method(), r.uri());
                    match client.request_text(r).await {
                        Ok(_) => lines.push(format!("deleted: {what}")),
                        Err(kube::Error::Api(s)) if s.code == 404 => lines.push(format!("already gone: {what}")),
                        Err(e) => lines.push(format!("could not delete ({what}): {}", status_text(&e))),
                    }
                }
            }
            Err(e) => lines.push(e),
        }
    }
    lines
}

/// Takes the plan out (so it is undone once) and undoes it.
pub async fn undo_shared(client: &Client, shared: &SharedPlan, exec: Option<&dyn NodeExec>) -> Vec<String> {
    let plan = shared.lock().ok().and_then(|mut p| p.take());
    match plan {
        Some(p) => undo(client, &p, exec).await,
        None => Vec::new(),
    }
}

/// Installs the Ctrl-C handler on `rt`: it undoes the shared plan, says what it did on
/// stderr and exits with 130 (the shell's code for SIGINT).
pub fn on_ctrl_c(rt: &tokio::runtime::Runtime, client: Client, shared: SharedPlan, exec: Option<Arc<dyn NodeExec>>) {
    rt.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("gpulab: interrupted: removing what this run created");
            for l in undo_shared(&client, &shared, exec.as_deref()).await {
                eprintln!("gpulab: cleanup: {l}");
            }
            std::process::exit(130);
        }
    });
}
