//! Step 8 on the model: the lab's incident (`daemonset::seed::seed_incident`, the
//! same as `gpulab rollout device-plugin-stall`) stepped one controller sync per
//! learner click, `kubectl get ds` / `rollout status` / `get pods -o wide` as the
//! model prints them, the learner's answer against the model's diagnosis, and the
//! incident report with the earlier steps' artifacts.

use gpulab_model::containerd;
use gpulab_model::daemonset::diagnosis::{diagnose, Diagnosis};
use gpulab_model::daemonset::kubectl::{get_pods_wide, table, GET_DS_HEADER};
use gpulab_model::daemonset::report::{build_report, check_runtime_verdict, Artifacts};
use gpulab_model::daemonset::rollout::{RoundRecord, Rollout};
use gpulab_model::daemonset::seed::seed_incident;
use gpulab_model::daemonset::text::{evidence_text, link_text, Lang};
use gpulab_model::daemonset::NodeOrder;
use gpulab_view::{ContainerdFiles, Judgement, LinkView, RolloutRequest, RolloutView};

use crate::node;

/// The causes the learner can name (diagnosis link codes).
pub const CAUSES: [&str; 6] = [
    "daemon-not-restarted",
    "handler-not-loaded",
    "runtimeclass-missing",
    "dropin-replaced-table",
    "pod-create-refused",
    "unavailable-budget-used",
];

/// The most syncs a request steps (the seed incident stalls long before).
pub const MAX_SYNCS: u32 = 60;

/// The rollout after some controller syncs (the CLI's default order, `seed:1`).
pub struct Stepped {
    pub rollout: Rollout,
    /// `rollout status` before the first sync.
    pub before: String,
    pub rounds: Vec<RoundRecord>,
}

/// Steps the lab's incident `syncs` times.
pub fn step(syncs: u32) -> Result<Stepped, String> {
    let mut rollout = seed_incident(NodeOrder::Seeded(1), 1)?;
    let before = rollout.rollout_status().map(|s| s.message).unwrap_or_else(|e| format!("error: {e}\n"));
    let rounds = (0..syncs.min(MAX_SYNCS)).map(|_| rollout.step()).collect();
    Ok(Stepped { rollout, before, rounds })
}

/// `kubectl get ds` after every sync so far, aligned as kubectl aligns it.
pub fn get_ds(rounds: &[RoundRecord]) -> String {
    let mut text = format!("{GET_DS_HEADER}\n");
    for r in rounds {
        text.push_str(&r.get_ds_row);
        text.push('\n');
    }
    table(&text)
}

/// The latest `rollout status` output.
pub fn status(s: &Stepped) -> String {
    match s.rounds.last().map(|r| &r.rollout_status) {
        Some(Ok(st)) => st.message.clone(),
        Some(Err(e)) => format!("error: {e}\n"),
        None => s.before.clone(),
    }
}

/// The learner's answer against the model's diagnosis: only a root cause of the
/// node's chain is right; another link of it (or the rollout's summary) is a symptom.
pub fn judge(d: &Diagnosis, node: &str, cause: &str) -> Judgement {
    match d.stalled_nodes.iter().find(|n| n.node == node) {
        None => Judgement::WrongNode,
        Some(n) if n.root_causes().iter().any(|l| l.code == cause) => Judgement::Right,
        Some(n) if n.chain.iter().chain(d.summary.iter()).any(|l| l.code == cause) => Judgement::Symptom,
        Some(_) => Judgement::WrongCause,
    }
}

/// The root causes (link codes) of `node`'s chain; none for a node that does not hold
/// the rollout.
pub fn roots(d: &Diagnosis, node: &str) -> Vec<String> {
    d.stalled_nodes.iter().filter(|n| n.node == node).flat_map(|n| n.root_causes()).map(|l| l.code.clone()).collect()
}

fn lang(tag: &str) -> Lang {
    if tag == "en" {
        Lang::En
    } else {
        Lang::Ko
    }
}

/// The incident report (Markdown) of this run, with the earlier steps' artifacts.
pub fn report(s: &Stepped, files: &ContainerdFiles, lang: Lang) -> String {
    let d = diagnose(&s.rollout);
    let merge_diagnostics =
        node::version(files).map(|v| containerd::load(&node::files(files, true), &v).diagnostics).unwrap_or_default();
    let check_runtime =
        d.stalled_nodes.iter().map(|n| check_runtime_verdict(&s.rollout, &n.node, "nvidia", "before-restart")).collect();
    let artifacts = Artifacts { merge_diagnostics, check_runtime, ..Artifacts::default() };
    build_report(&s.rollout, &s.rollout, artifacts, lang).to_markdown()
}

/// Step 8's view for the request.
pub fn view(req: &RolloutRequest) -> Result<RolloutView, String> {
    let s = step(req.syncs)?;
    let lang = lang(&req.lang);
    let pods: Vec<_> = s.rollout.controller.pods.values().collect();
    let answered = req.answered && !req.node.is_empty() && !req.cause.is_empty();
    let (judgement, diagnosis, roots) = if answered {
        let d = diagnose(&s.rollout);
        let links = d
            .summary
            .iter()
            .chain(d.stalled_nodes.iter().flat_map(|n| n.chain.iter()))
            .map(|l| LinkView { text: link_text(l, lang), evidence: evidence_text(&l.evidence, lang) })
            .collect();
        (Some(judge(&d, &req.node, &req.cause)), links, roots(&d, &req.node))
    } else {
        (None, Vec::new(), Vec::new())
    };
    Ok(RolloutView {
        get_ds: get_ds(&s.rounds),
        status: status(&s),
        pods: get_pods_wide(pods.iter().copied(), s.rollout.now()),
        nodes: s.rollout.node_names().into_iter().collect(),
        causes: CAUSES.iter().map(ToString::to_string).collect(),
        judgement,
        roots,
        diagnosis,
        report_md: report(&s, &req.containerd, lang),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stepping changes `get ds` (one row per sync); the model's stalled node with a
    /// cause in its chain is judged right, another node wrong.
    #[test]
    fn syncs_and_judgement() {
        let v0 = view(&RolloutRequest { lang: "en".into(), ..Default::default() }).unwrap();
        let v3 = view(&RolloutRequest { syncs: 3, lang: "en".into(), ..Default::default() }).unwrap();
        assert_eq!(v0.get_ds.lines().count(), 1);
        assert_eq!(v3.get_ds.lines().count(), 4);
        let s = step(20).unwrap();
        let d = diagnose(&s.rollout);
        let stalled = d.stalled_nodes.first().unwrap();
        let cause = stalled.root_causes().first().unwrap().code.clone();
        assert_eq!(judge(&d, &stalled.node, &cause), Judgement::Right);
        assert_eq!(judge(&d, "no-such-node", &cause), Judgement::WrongNode);
        let req = RolloutRequest { syncs: 20, node: stalled.node.clone(), cause, answered: true, lang: "en".into(), ..Default::default() };
        let v = view(&req).unwrap();
        assert_eq!(v.judgement, Some(Judgement::Right));
        assert!(!v.diagnosis.is_empty());
        assert!(v.report_md.starts_with('#'), "{}", v.report_md);
    }

    /// Of the six causes offered for gpu-node-2, only its roots are right: the daemon
    /// not restarted and the drop-in that replaced the CRI table. maxUnavailable used
    /// up and the handler not loaded are symptoms of them; the other two are not in
    /// its chain.
    #[test]
    fn only_root_causes_are_right() {
        let s = step(20).unwrap();
        let d = diagnose(&s.rollout);
        let judged: Vec<(&str, Judgement)> = CAUSES.iter().map(|c| (*c, judge(&d, "gpu-node-2", c))).collect();
        assert_eq!(
            judged,
            [
                ("daemon-not-restarted", Judgement::Right),
                ("handler-not-loaded", Judgement::Symptom),
                ("runtimeclass-missing", Judgement::WrongCause),
                ("dropin-replaced-table", Judgement::Right),
                ("pod-create-refused", Judgement::WrongCause),
                ("unavailable-budget-used", Judgement::Symptom),
            ]
        );
        let req = RolloutRequest { syncs: 20, node: "gpu-node-2".into(), cause: "unavailable-budget-used".into(), answered: true, lang: "en".into(), ..Default::default() };
        let v = view(&req).unwrap();
        assert_eq!(v.judgement, Some(Judgement::Symptom));
        assert_eq!(v.roots, ["daemon-not-restarted", "dropin-replaced-table"]);
    }
}
