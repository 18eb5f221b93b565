//! Step 8 on the model: the lab's incident on the learner's cluster
//! ([`gpulab_model::incident::lab`]: their node of steps 1–4, their RuntimeClass and
//! patches) stepped one controller sync per learner click, `kubectl get ds` /
//! `rollout status` / `get pods -o wide` as the model prints them, how the rollout
//! ends once every sync is stepped (completed, or stalled on a node and why), the
//! learner's answer against the model's diagnosis, and their incident report
//! ([`crate::report`]). "Break it again" runs the same cluster with the seed's broken
//! drop-in on their node.

use gpulab_model::daemonset::diagnosis::{diagnose, Diagnosis, Evidence};
use gpulab_model::daemonset::kubectl::{get_ds_column, table, GET_DS_HEADER};
use gpulab_model::kubernetes::kubectl::get_pods_wide;
use gpulab_model::daemonset::rollout::{RoundRecord, Rollout};
use gpulab_model::incident::text::{evidence_text, link_text};
use gpulab_model::incident::lab::{self, Variant};
use gpulab_model::incident::work::{read_progress, LabWork};
use gpulab_view::{Judgement, LinkView, RolloutRequest, RolloutView, TableView};

use crate::cells;

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

/// Steps `rollout` (before its first sync after the update) `syncs` times.
pub fn stepped(mut rollout: Rollout, syncs: u32) -> Stepped {
    let before = rollout.rollout_status().map(|s| s.message).unwrap_or_else(|e| format!("error: {e}\n"));
    let rounds = (0..syncs.min(MAX_SYNCS)).map(|_| rollout.step()).collect();
    Stepped { rollout, before, rounds }
}

/// The learner's work in a request (the lab's defaults when it carries none).
pub fn work(req: &RolloutRequest) -> Result<LabWork, String> {
    if req.work.trim().is_empty() {
        Ok(LabWork::default())
    } else {
        read_progress(&req.work)
    }
}

/// Steps the incident on the learner's cluster (`variant`) the syncs of their work.
pub fn step(work: &LabWork, variant: Variant) -> Result<Stepped, lab::LabError> {
    let (incident, _) = lab::incident(work, variant)?;
    Ok(stepped(incident.rollout, work.rollout.syncs))
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

/// Step 8's three outputs as cells ([`cells`]): `get ds` (rows by sync), `rollout
/// status`, `get pods -o wide` (rows by pod).
pub fn tables(s: &Stepped) -> Vec<TableView> {
    let pods: Vec<_> = s.rollout.controller.pods.values().collect();
    vec![
        cells::table(cells::GET_DS, "get ds", &get_ds(&s.rounds), |i, _| i.to_string()),
        cells::lines(cells::STATUS, "rollout status", &status(s)),
        cells::table(cells::PODS, "get pods", &get_pods_wide(pods.iter().copied(), s.rollout.now()), |_, name| name.to_string()),
    ]
}

/// The cells the model's diagnosis rests on, as keys: the `rollout status` line it
/// quotes; the latest `get ds` row's column of each DaemonSet status field its links
/// cite; each stalled node's pod's STATUS (and the pod of any link citing a pod's
/// status) and NODE.
pub fn evidence(d: &Diagnosis, get_ds_rows: usize) -> Vec<String> {
    let mut keys = vec![cells::key(cells::STATUS, "1", "")];
    let mut add = |k: String| {
        if !keys.contains(&k) {
            keys.push(k);
        }
    };
    let row = get_ds_rows.to_string();
    for l in d.summary.iter().chain(d.stalled_nodes.iter().flat_map(|n| n.chain.iter())) {
        if let Evidence::StatusField { object, field, .. } = &l.evidence {
            match object.split_once('/') {
                Some(("DaemonSet", _)) if get_ds_rows > 0 => {
                    if let Some(col) = get_ds_column(field) {
                        add(cells::key(cells::GET_DS, &row, col));
                    }
                }
                Some(("Pod", pod)) => add(cells::key(cells::PODS, pod, "STATUS")),
                _ => {}
            }
        }
    }
    for pod in d.stalled_nodes.iter().filter_map(|n| n.pod.as_deref()) {
        add(cells::key(cells::PODS, pod, "STATUS"));
        add(cells::key(cells::PODS, pod, "NODE"));
    }
    keys
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

/// A judgement's name in the report (its JSON name).
pub fn judgement_name(j: Judgement) -> &'static str {
    match j {
        Judgement::Right => "right",
        Judgement::WrongNode => "wrong-node",
        Judgement::Symptom => "symptom",
        Judgement::WrongCause => "wrong-cause",
    }
}

/// The root causes (link codes) of `node`'s chain; none for a node that does not hold
/// the rollout.
pub fn roots(d: &Diagnosis, node: &str) -> Vec<String> {
    d.stalled_nodes.iter().filter(|n| n.node == node).flat_map(|n| n.root_causes()).map(|l| l.code.clone()).collect()
}

/// Step 8's view for the request.
pub fn view(req: &RolloutRequest) -> Result<RolloutView, String> {
    let work = work(req)?;
    let variant = if req.broken { Variant::BrokenAgain } else { Variant::Learner };
    let lang = crate::slots::model_lang(&req.lang);
    let (incident, _) = lab::incident(&work, variant).map_err(|e| e.text(lang))?;
    let (ending, ending_syncs, stalled_on, stalled_why) = crate::report::ending_parts(&lab::ending(&incident, lang));
    let s = stepped(incident.rollout, work.rollout.syncs);
    let r = &work.rollout;
    let answered = r.answered && !r.node.is_empty() && !r.cause.is_empty();
    let mut tables = tables(&s);
    let (judgement, diagnosis, roots, evidence) = if answered {
        let d = diagnose(&s.rollout);
        let links = d
            .summary
            .iter()
            .chain(d.stalled_nodes.iter().flat_map(|n| n.chain.iter()))
            .map(|l| LinkView { text: link_text(l, lang), evidence: evidence_text(&l.evidence, lang) })
            .collect();
        (Some(judge(&d, &r.node, &r.cause)), links, roots(&d, &r.node), evidence(&d, s.rounds.len()))
    } else {
        (None, Vec::new(), Vec::new(), Vec::new())
    };
    cells::mark(&mut tables, &r.marks, &evidence);
    Ok(RolloutView {
        tables,
        nodes: s.rollout.node_names().into_iter().collect(),
        causes: CAUSES.iter().map(ToString::to_string).collect(),
        judgement,
        roots,
        diagnosis,
        ending,
        ending_syncs,
        stalled_on,
        stalled_why,
        broken: req.broken,
        report_md: crate::report::gather(&work, lang)?.to_markdown(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulab_model::incident::seed::NVIDIA_DROPIN_FULL_TABLE;

    /// The progress file the app exports for `work`.
    fn progress(work: &LabWork) -> String {
        serde_json::json!({ "format": "gpu-node-lab/progress", "version": 1, "work": work }).to_string()
    }

    fn request(syncs: u32, node: &str, cause: &str) -> RolloutRequest {
        let mut w = LabWork::default();
        w.rollout.syncs = syncs;
        w.rollout.node = node.into();
        w.rollout.cause = cause.into();
        w.rollout.answered = !node.is_empty();
        RolloutRequest { lang: "en".into(), work: progress(&w), broken: false }
    }

    /// Stepping changes `get ds` (one row per sync); the model's stalled node with a
    /// cause in its chain is judged right, another node wrong.
    #[test]
    fn syncs_and_judgement() {
        let v0 = view(&RolloutRequest { lang: "en".into(), ..Default::default() }).unwrap();
        let v3 = view(&request(3, "", "")).unwrap();
        assert_eq!(v0.tables[0].rows(), 1);
        assert_eq!(v3.tables[0].rows(), 4);
        assert_eq!(v3.tables.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [cells::GET_DS, cells::STATUS, cells::PODS]);
        let s = step(&work(&request(20, "", "")).unwrap(), Variant::Learner).unwrap();
        let d = diagnose(&s.rollout);
        let stalled = d.stalled_nodes.first().unwrap();
        let cause = stalled.root_causes().first().unwrap().code.clone();
        assert_eq!(judge(&d, &stalled.node, &cause), Judgement::Right);
        assert_eq!(judge(&d, "no-such-node", &cause), Judgement::WrongNode);
        let v = view(&request(20, &stalled.node, &cause)).unwrap();
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
        let s = step(&LabWork { rollout: gpulab_model::incident::work::RolloutWork { syncs: 20, ..Default::default() }, ..LabWork::default() }, Variant::Learner).unwrap();
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
        let v = view(&request(20, "gpu-node-2", "unavailable-budget-used")).unwrap();
        assert_eq!(v.judgement, Some(Judgement::Symptom));
        assert_eq!(v.roots, ["daemon-not-restarted", "dropin-replaced-table"]);
    }

    /// Step 8 follows the learner's node: fixed (full-table drop-in) and restarted, the
    /// rollout completes and `get ds` ends with every pod updated and available; not
    /// restarted, or "break it again", it stalls on gpu-node-2 with the model's
    /// root causes.
    #[test]
    fn the_learners_node_decides_step_8() {
        let cases: [(&str, bool, &[&str], bool, &str, &[&str]); 4] = [
            ("fixed and restarted", true, &["write-dropin", "restart"], false, "completed", &[]),
            ("fixed, not restarted", true, &["write-dropin"], false, "stalled", &["not restarted"]),
            ("fixed and restarted, broken again", true, &["write-dropin", "restart"], true, "stalled", &["not restarted", "replaces the table"]),
            ("the lab's files restarted", false, &["write-dropin", "restart"], false, "stalled", &["invalid plugin config"]),
        ];
        for (name, fixed, ops, broken, ending, why) in cases {
            let mut w = LabWork::default();
            if fixed {
                w.containerd.dropin = NVIDIA_DROPIN_FULL_TABLE.into();
            }
            w.restart.ops = ops.iter().map(|o| o.to_string()).collect();
            w.rollout.syncs = 30;
            let v = view(&RolloutRequest { lang: "en".into(), work: progress(&w), broken }).unwrap();
            assert_eq!(v.ending, ending, "{name}: {v:?}");
            assert_eq!(v.broken, broken);
            if ending == "completed" {
                let status = v.tables[1].text();
                assert!(status.contains("successfully rolled out"), "{name}: {status}");
                assert!(v.stalled_on.is_empty() && v.stalled_why.is_empty());
            } else {
                assert_eq!(v.stalled_on, "gpu-node-2", "{name}");
                let all = v.stalled_why.join(" ");
                for w in why {
                    assert!(all.contains(w), "{name}: {all}");
                }
            }
        }
    }

    /// The cells are the model's outputs byte for byte; the learner's marks come back
    /// marked; once answered, the model's evidence on the stalled node is its pod's
    /// STATUS and NODE, the `rollout status` line and the latest `get ds` row's column
    /// its summary cites — and not a cell such as the pod's AGE.
    #[test]
    fn marked_cells_and_the_models_evidence() {
        let mut w = LabWork::default();
        w.rollout.syncs = 20;
        let s = step(&w, Variant::Learner).unwrap();
        let pods: Vec<_> = s.rollout.controller.pods.values().collect();
        let t = tables(&s);
        assert_eq!(t[0].text(), get_ds(&s.rounds));
        assert_eq!(t[1].text(), status(&s));
        assert_eq!(t[2].text(), get_pods_wide(pods.iter().copied(), s.rollout.now()));
        let d = diagnose(&s.rollout);
        let pod = d.stalled_nodes[0].pod.clone().unwrap();
        let ev = evidence(&d, s.rounds.len());
        // Every pod is updated by then; the summary cites AVAILABLE, short of DESIRED.
        for k in ["status/1".to_string(), format!("pods/{pod}/STATUS"), format!("pods/{pod}/NODE"), "get-ds/20/AVAILABLE".into()] {
            assert!(ev.contains(&k), "{k} in {ev:?}");
        }
        assert!(!ev.contains(&"get-ds/20/UP-TO-DATE".to_string()));
        assert!(!ev.contains(&format!("pods/{pod}/AGE")));
        assert!(ev.iter().all(|k| cells::find(&t, k).is_some()), "every evidence cell is in the tables: {ev:?}");

        w.rollout.marks = vec![format!("pods/{pod}/STATUS"), format!("pods/{pod}/AGE"), "get-ds/99/READY".into()];
        let before = view(&RolloutRequest { lang: "en".into(), work: progress(&w), broken: false }).unwrap();
        let c = cells::find(&before.tables, &format!("pods/{pod}/STATUS")).unwrap();
        assert!(c.marked && !c.evidence, "evidence is shown once answered");
        (w.rollout.node, w.rollout.cause, w.rollout.answered) = ("gpu-node-2".into(), "daemon-not-restarted".into(), true);
        let after = view(&RolloutRequest { lang: "en".into(), work: progress(&w), broken: false }).unwrap();
        assert!(cells::find(&after.tables, &format!("pods/{pod}/STATUS")).is_some_and(|c| c.marked && c.evidence));
        assert!(cells::find(&after.tables, &format!("pods/{pod}/AGE")).is_some_and(|c| c.marked && !c.evidence));
        assert!(cells::find(&after.tables, &format!("pods/{pod}/NODE")).is_some_and(|c| !c.marked && c.evidence));
    }
}
