//! What `gpulab rollout` prints for a rollout of manifests, as one text: the update
//! applied, every sync's `kubectl get ds` row and `rollout status` line with what
//! changed, the DaemonSet's pods as `kubectl get pods -o wide`, and the diagnosis —
//! and the loop of syncs that produces it ([`run_rounds`]). The companion prints it;
//! step 8's import of a learner's own cluster (the chunk) shows the same bytes.

use crate::daemonset::diagnosis::{diagnose, Diagnosis};
use crate::daemonset::kubectl::{table, GET_DS_HEADER};
use crate::daemonset::rollout::{Rollout, RoundRecord};
use crate::incident::run::Incident;
use crate::incident::text::{evidence_text, link_text};
use crate::kubernetes::kubectl::get_pods_wide;
use crate::Lang;

/// How many syncs [`run_rounds`] steps at most when not told a number.
pub const MAX_SYNCS: usize = 500;

/// Steps the rollout: exactly `syncs` syncs when given, else until it finishes or
/// stalls (at most [`MAX_SYNCS`]). With `restart_after_stall` the stalled nodes are
/// fixed once ([`Incident::fix_nodes`]) and the run goes on.
pub fn run_rounds(
    incident: &mut Incident,
    syncs: Option<usize>,
    restart_after_stall: bool,
) -> Vec<RoundRecord> {
    let mut rounds = Vec::new();
    let max = syncs.unwrap_or(MAX_SYNCS);
    let mut restarted = false;
    while rounds.len() < max {
        let r = incident.rollout.step();
        let (stalled, done) = (r.stalled, r.rollout_status.as_ref().is_ok_and(|s| s.done));
        rounds.push(r);
        if syncs.is_some() {
            continue;
        }
        if done {
            break;
        }
        if stalled {
            if restart_after_stall && !restarted {
                restarted = true;
                let nodes: Vec<String> = diagnose(&incident.rollout)
                    .stalled_nodes
                    .into_iter()
                    .map(|n| n.node)
                    .collect();
                incident.fix_nodes(&nodes);
                continue;
            }
            break;
        }
    }
    rounds
}

/// One sync's changes in a few words (`created … on …; … started`, or `no change`).
fn changes(r: &RoundRecord) -> String {
    let mut parts = Vec::new();
    // Thousands of parts at a cluster's size: joined at their length (`format!` grows).
    for (name, node) in &r.sync.deleted {
        parts.push(["deleted ", name, " on ", node].concat());
    }
    for (name, node) in &r.sync.created {
        parts.push(["created ", name, " on ", node].concat());
    }
    for (node, err) in &r.sync.failed_creates {
        parts.push(format!("create failed for {node}: {err}"));
    }
    for name in &r.started {
        parts.push([name, " started"].concat());
    }
    if !r.sandbox_failures.is_empty() {
        let pods: Vec<&str> = r.sandbox_failures.iter().map(|(p, _)| p.as_str()).collect();
        parts.push(format!("sandbox failed for {}", pods.join(", ")));
    }
    if parts.is_empty() {
        "no change".into()
    } else {
        parts.join("; ")
    }
}

/// The diagnosis as `gpulab rollout` ends with it: the verdict and `rollout status`,
/// the summary, and each stalled node's chain of causes with its evidence.
pub fn diagnosis_text(d: &Diagnosis, lang: Lang) -> String {
    let heading = match lang {
        Lang::En => "Diagnosis",
        Lang::Ko => "진단",
    };
    let mut out = format!("{heading}: {:?} — {}\n", d.verdict, d.rollout_status);
    for l in &d.summary {
        out.push_str(&format!("  - {}\n", link_text(l, lang)));
    }
    for n in &d.stalled_nodes {
        let held = match lang {
            Lang::En => format!("held by node {}", n.node),
            Lang::Ko => format!("막고 있는 노드: {}", n.node),
        };
        out.push_str(&format!("  {held}\n"));
        for (i, l) in n.chain.iter().enumerate() {
            out.push_str(&format!("    {}. {}\n", i + 1, link_text(l, lang)));
            if let Some(e) = evidence_text(&l.evidence, lang) {
                out.push_str(&format!("       ↳ {e}\n"));
            }
        }
    }
    out
}

/// The whole text output of `gpulab rollout`: `rollout` after `rounds`, which started
/// at time `start` with `rollout status` `before`; the diagnosis in `lang`.
pub fn text(
    rollout: &Rollout,
    before: &Result<String, String>,
    rounds: &[RoundRecord],
    start: i64,
    lang: Lang,
) -> String {
    let mut out = format!(
        "$ kubectl apply -f <updated DaemonSet>   # generation {}\n",
        rollout.controller.ds.metadata.generation.unwrap_or(0)
    );
    if let Ok(s) = before {
        out.push_str(s);
    }
    let mut rows = format!("{GET_DS_HEADER}\n");
    for r in rounds {
        rows.push_str(&r.get_ds_row);
        rows.push('\n');
    }
    let aligned = table(&rows);
    let mut lines = aligned.lines();
    let header = lines.next().unwrap_or_default().to_string();
    for (r, row) in rounds.iter().zip(lines) {
        out.push_str(&format!(
            "\n── sync {} (+{}s): {}\n",
            r.round,
            r.now - start,
            changes(r)
        ));
        out.push_str(&format!("{header}\n{row}\n"));
        match &r.rollout_status {
            Ok(s) => out.push_str(&s.message),
            Err(e) => out.push_str(&format!("error: {e}\n")),
        }
    }
    out.push_str("\n$ kubectl get pods -o wide -l <selector>\n");
    let ds_pods: Vec<_> = rollout.controller.pods.values().collect();
    out.push_str(&get_pods_wide(ds_pods.iter().copied(), rollout.now()));
    out.push('\n');
    out.push_str(&diagnosis_text(&diagnose(rollout), lang));
    out
}

/// Whether the rollout is done (`rollout status` says so).
pub fn done(rollout: &Rollout) -> bool {
    rollout.rollout_status().is_ok_and(|s| s.done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::daemonset::NodeOrder;
    use crate::incident::seed::seed_incident_full;

    /// The seed incident stalls on its broken node: the text has every sync, the pods
    /// and the diagnosis naming the node; restarting after the stall completes it.
    #[test]
    fn seed_incident_transcript() {
        for (restart, complete) in [(false, false), (true, true)] {
            let mut incident = seed_incident_full(NodeOrder::Seeded(1), 1).unwrap();
            let start = incident.rollout.now();
            let before = incident.rollout.rollout_status().map(|s| s.message);
            let rounds = run_rounds(&mut incident, None, restart);
            assert!(!rounds.is_empty());
            let out = text(&incident.rollout, &before, &rounds, start, Lang::En);
            assert!(
                out.starts_with("$ kubectl apply -f <updated DaemonSet>   # generation 2\n"),
                "{out}"
            );
            assert_eq!(out.matches("\n── sync ").count(), rounds.len());
            assert!(out.contains("\n$ kubectl get pods -o wide -l <selector>\nNAME"));
            assert_eq!(done(&incident.rollout), complete);
            let verdict = if complete {
                "Diagnosis: Complete — "
            } else {
                "Diagnosis: Stalled — "
            };
            assert!(out.contains(verdict), "{out}");
            assert_eq!(out.contains("held by node gpu-node-2"), !complete, "{out}");
        }
    }
}
