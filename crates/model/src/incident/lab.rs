//! Step 8 on the learner's cluster: the lab's incident (the seed's three GPU nodes and
//! the device-plugin update, [`crate::incident::seed`]) with the learner's work in
//! it — their node (steps 1–4: version, files, restart or SIGHUP) is
//! [`LEARNER_NODE`], whose daemon the rollout's kubelet reads; their RuntimeClass
//! (step 5) is the cluster's; their node status patches (step 6) are applied to the
//! nodes of this cluster they name; check-runtime.sh runs with their options
//! (step 3). The other nodes are healthy on the same containerd version. Whether the
//! rollout completes or stalls — and where, and why — is then the models' answer,
//! never asserted: a fixed and restarted node lets it finish, anything else stalls
//! where the files say.
//!
//! [`Variant::BrokenAgain`] runs the same cluster with the seed's broken drop-in
//! written on the learner's node and not restarted, to see the stall again.

use std::collections::BTreeMap;

use crate::check_runtime::simulated::NodeCheck;
use crate::containerd::{Daemon, MAIN_CONFIG};
use crate::daemonset::diagnosis::{diagnose, Verdict};
use crate::incident::run::Incident;
use crate::incident::seed::{incident_from_manifests, seed_manifests, BROKEN_NODE, NVIDIA_DROPIN};
use crate::incident::text::link_text;
use crate::Lang;
use crate::daemonset::NodeOrder;
use crate::kubernetes::{messages, patch, yaml};
use crate::{Diagnostic, Severity};

use super::node::{self, DROPIN};
use super::work::LabWork;

/// The node of step 8's cluster that is the learner's node of steps 1–4.
pub const LEARNER_NODE: &str = BROKEN_NODE;
/// The RuntimeClass file of step 5, as its errors name it.
pub const RUNTIMECLASS_FILE: &str = "runtimeclass.yaml";
/// The most controller syncs the settled run takes (the seed settles in about 10).
pub const MAX_ROUNDS: usize = 200;
/// The Go-map node order and the seed of the lab's incident (as `gpulab rollout
/// device-plugin-stall`'s defaults).
pub const ORDER: NodeOrder = NodeOrder::Seeded(1);
pub const SEED: u64 = 1;

/// Which node the learner's node is in step 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Variant {
    /// The node as the learner left it in step 4.
    #[default]
    Learner,
    /// The learner's main config with the seed's broken drop-in written and not
    /// restarted ("break it again").
    BrokenAgain,
}

/// What step 8's cluster took from the learner's work besides their node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken {
    /// The RuntimeClasses of their step 5 file (`name → handler`).
    pub runtime_classes: Vec<(String, String)>,
    /// Their step 6 patches this cluster refused (kubectl's text), e.g. a node it
    /// does not have.
    pub patches_refused: Vec<String>,
    pub patches_applied: usize,
}

/// The learner's node for `variant`.
pub fn learner_daemon(work: &LabWork, variant: Variant) -> Result<Daemon, String> {
    match variant {
        Variant::Learner => node::after_step_4(work),
        Variant::BrokenAgain => {
            let files = crate::containerd::Files::new().with(MAIN_CONFIG, work.containerd.main.as_str());
            let mut d = Daemon::new(node::version(&work.containerd)?, node::supervisor(&work.restart.supervisor), files);
            d.start();
            d.write_file(DROPIN, NVIDIA_DROPIN);
            Ok(d)
        }
    }
}

/// Why step 8's cluster cannot be set up from the learner's work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabError {
    /// Their RuntimeClass file (step 5) does not read: its findings, as data.
    Findings(Vec<Diagnostic>),
    /// Their node (an unknown containerd version, a file the model refuses) or the
    /// seed: the containerd model's sentence.
    Text(String),
}

impl LabError {
    /// The error in `lang`, one line per finding as the companion prints them
    /// (`runtimeclass.yaml:2:3: error: … [k8s-yaml-invalid]`).
    pub fn text(&self, lang: Lang) -> String {
        match self {
            LabError::Findings(ds) => ds.iter().map(|d| d.line_with(&messages::message(d, lang))).collect::<Vec<_>>().join("\n"),
            LabError::Text(t) => t.clone(),
        }
    }
}

impl From<String> for LabError {
    fn from(t: String) -> Self {
        LabError::Text(t)
    }
}

/// The incident on the learner's cluster, before the update's first sync.
pub fn incident(work: &LabWork, variant: Variant) -> Result<(Incident, Taken), LabError> {
    let mut manifests = seed_manifests()?;
    let (rcs, diags) = yaml::load(RUNTIMECLASS_FILE, &work.kube.runtimeclass);
    let errors: Vec<Diagnostic> = diags.into_iter().filter(|d| matches!(d.severity, Severity::Error | Severity::Fatal)).collect();
    if !errors.is_empty() {
        return Err(LabError::Findings(errors));
    }
    manifests.runtime_classes = rcs.runtime_classes.into_iter().map(|l| l.object).collect();
    let mut taken = Taken {
        runtime_classes: manifests
            .runtime_classes
            .iter()
            .map(|rc| (rc.metadata.name.clone().unwrap_or_default(), rc.handler.clone()))
            .collect(),
        ..Taken::default()
    };
    for p in &work.kube.patches {
        match patch::apply(&mut manifests.nodes, &p.node, &p.resource, &p.quantity) {
            Ok(()) => taken.patches_applied += 1,
            Err(e) => taken.patches_refused.push(e.to_string()),
        }
    }
    let version = node::version(&work.containerd)?;
    // Before the update every node ran the device plugin (the v1 DaemonSet settles on
    // healthy nodes); then the learner's node became what their steps 1–4 made it.
    let learner = learner_daemon(work, variant)?;
    let mut incident = incident_from_manifests(&manifests, BTreeMap::new(), &version, ORDER, SEED)?;
    incident.daemons.insert(LEARNER_NODE.into(), learner);
    incident.sync_runtimes();
    incident.check = NodeCheck { handler: work.check.handler.clone(), keep: work.check.keep.clone(), ..NodeCheck::default() };
    Ok((incident, taken))
}

/// How the rollout ends on the learner's cluster, once every sync it needs is stepped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// `rollout status` says done after `syncs` syncs.
    Completed { syncs: usize },
    /// No progress after `syncs` syncs: the nodes holding it, each with its root causes
    /// (diagnosis link codes and their texts in the asked language).
    Stalled { syncs: usize, nodes: Vec<StalledOn> },
    /// Neither within [`MAX_ROUNDS`].
    Unsettled,
}

/// A node holding the rollout and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StalledOn {
    pub node: String,
    pub roots: Vec<String>,
    pub texts: Vec<String>,
}

/// Steps a copy of `incident` until the rollout settles and says how it ended.
pub fn ending(incident: &Incident, lang: Lang) -> Ending {
    let mut rollout = incident.rollout.clone();
    let start = rollout.rounds.len();
    let finished = rollout.run_until_settled(MAX_ROUNDS);
    let syncs = rollout.rounds.len() - start;
    if finished {
        return Ending::Completed { syncs };
    }
    let d = diagnose(&rollout);
    if d.verdict != Verdict::Stalled {
        return Ending::Unsettled;
    }
    let nodes = d
        .stalled_nodes
        .iter()
        .map(|n| {
            let roots = n.root_causes();
            StalledOn {
                node: n.node.clone(),
                roots: roots.iter().map(|l| l.code.clone()).collect(),
                texts: roots.iter().map(|l| link_text(l, lang)).collect(),
            }
        })
        .collect();
    Ending::Stalled { syncs, nodes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::incident::seed::NVIDIA_DROPIN_FULL_TABLE;

    fn work(version: &str, dropin: Option<&str>, ops: &[&str]) -> LabWork {
        let mut w = LabWork::default();
        w.containerd.version = version.into();
        if let Some(d) = dropin {
            w.containerd.dropin = d.into();
        }
        w.restart.ops = ops.iter().map(|o| o.to_string()).collect();
        w
    }

    /// The learner's work decides step 8: a fixed and restarted gpu-node-2 lets the
    /// rollout finish; the lab's files as they are, a SIGHUP, the partial drop-in
    /// restarted, a renamed RuntimeClass or "break it again" stall it on gpu-node-2
    /// with the model's root cause.
    #[test]
    fn the_learners_node_decides_the_rollout() {
        let full = Some(NVIDIA_DROPIN_FULL_TABLE);
        let renamed = |mut w: LabWork| {
            w.kube.runtimeclass = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: gpu\nhandler: nvidia\n".into();
            w
        };
        // (case, work, variant, Some((node, its root causes)) or None = completes)
        let n2 = LEARNER_NODE;
        type Case<'a> = (&'a str, LabWork, Variant, Option<(&'a str, Vec<&'a str>)>);
        let cases: Vec<Case> = vec![
            ("lab files, nothing done", work("1.7.34", None, &[]), Variant::Learner, Some((n2, vec!["daemon-not-restarted", "dropin-replaced-table"]))),
            ("lab files restarted (1.7 replaces the table)", work("1.7.34", None, &["write-dropin", "restart"]), Variant::Learner, Some((n2, vec!["loaded-cri-error", "dropin-replaced-table"]))),
            ("full-table drop-in restarted", work("1.7.34", full, &["write-dropin", "restart", "wait"]), Variant::Learner, None),
            // The full table still replaces the main config's CRI table (one setting of the
            // lab's main config is lost), but the handler loads once restarted.
            ("full-table drop-in, no restart", work("1.7.34", full, &["write-dropin", "run-check"]), Variant::Learner, Some((n2, vec!["daemon-not-restarted", "dropin-replaced-table"]))),
            ("full-table drop-in, restarted, broken again", work("1.7.34", full, &["write-dropin", "restart"]), Variant::BrokenAgain, Some((n2, vec!["daemon-not-restarted", "dropin-replaced-table"]))),
            ("2.0 merges deep: the lab's drop-in restarted", work("2.0.11", None, &["write-dropin", "restart"]), Variant::Learner, None),
            // No RuntimeClass `nvidia`: every node refuses the pod; the first node the
            // update reaches (gpu-node-3 in the seeded order) holds the rollout.
            ("full table restarted, RuntimeClass renamed", renamed(work("1.7.34", full, &["write-dropin", "restart"])), Variant::Learner, Some(("gpu-node-3", vec!["runtimeclass-missing"]))),
        ];
        for (name, w, variant, expect) in cases {
            let (incident, _) = incident(&w, variant).unwrap();
            match (ending(&incident, Lang::En), expect) {
                (Ending::Completed { .. }, None) => {}
                (Ending::Stalled { nodes, .. }, Some((node, roots))) => {
                    let [on] = nodes.as_slice() else { panic!("{name}: {nodes:?}") };
                    assert_eq!(on.node, node, "{name}");
                    assert_eq!(on.roots, roots, "{name}: {on:?}");
                    assert_eq!(on.texts.len(), roots.len(), "{name}");
                }
                (got, want) => panic!("{name}: got {got:?}, want stall roots {want:?}"),
            }
        }
    }

    /// A RuntimeClass file that does not read is an error at its file:line; a patch on
    /// a node this cluster lacks is refused as kubectl says, the others applied.
    #[test]
    fn bad_runtimeclass_and_foreign_patches() {
        let mut w = LabWork::default();
        w.kube.runtimeclass = "kind: RuntimeClass\n  : [".into();
        let e = incident(&w, Variant::Learner).unwrap_err();
        let LabError::Findings(ds) = &e else { panic!("{e:?}") };
        assert_eq!(ds.iter().map(|d| d.code.as_str()).collect::<Vec<_>>(), ["k8s-yaml-invalid"]);
        // Worded in the asker's language by the one catalogue: kubectl's words here.
        for lang in [Lang::En, Lang::Ko] {
            let text = e.text(lang);
            assert!(text.starts_with("runtimeclass.yaml:2:") && text.contains(": error parsing runtimeclass.yaml: error converting YAML to JSON: yaml: line 1: did not find expected key [k8s-yaml-invalid]"), "{text}");
            assert!(!text.contains("message="), "{text}");
        }
        let mut w = LabWork::default();
        for (node, q) in [("gpu-node-1", "8"), ("cpu-node-1", "1"), ("gpu-node-3", "abc")] {
            w.kube.patches.push(super::super::work::NodePatchWork { node: node.into(), resource: "nvidia.com/gpu".into(), quantity: q.into() });
        }
        let (_, taken) = incident(&w, Variant::Learner).unwrap();
        assert_eq!(taken.patches_applied, 1);
        assert_eq!(taken.patches_refused.len(), 2, "{:?}", taken.patches_refused);
        assert!(taken.patches_refused[0].contains("\"cpu-node-1\" not found"));
        assert_eq!(taken.runtime_classes, [("nvidia".to_string(), "nvidia".to_string())]);
    }
}
