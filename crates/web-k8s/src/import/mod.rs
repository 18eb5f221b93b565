//! Steps 6 and 8 on the learner's own cluster: a `kubectl get nodes,pods -A -o yaml`
//! (or `-o json`) dump they pick, drop or paste, and the pod (step 6) or DaemonSet
//! (step 8) to try on it — what `gpulab schedule -f DUMP --pod POD` and `gpulab rollout
//! -f DUMP DAEMONSET` print, byte for byte (the model's
//! [`gpulab_model::kubernetes::apply::Scheduled::printed`] and
//! [`gpulab_model::incident::transcript`]), plus the node × plugin table as rows the
//! panel pages and filters.
//!
//! Nothing here is saved: the dump lives in this module's memory (a [`Session`]) for as
//! long as the instance does — in the page, a worker's instance (`panel.js`) — and is
//! never part of the learner's work, its export or its share link.
//!
//! The dump is read in slices so the panel can show progress and stop: [`open`] cuts
//! it into the pieces that load on their own (`yaml::split`: a List's items, Secrets
//! skipped unread, `managedFields` blanked), [`read`] loads the next few, and
//! [`schedule`] / [`rollout`] run the model on what was read.
//!
//! # Layout
//!
//! - this file: the session and the two runs.
//! - [`text`]: the panel's words in Korean and English.
//! - `panel.js`: the panel (`<gpulab-import step lang>`, a custom element the app's
//!   steps 6 and 8 render) and the worker that runs the above off the page's thread.

pub mod text;

use std::cell::RefCell;
use std::collections::BTreeMap;

use gpulab_model::containerd::Version;
use gpulab_model::daemonset::manifests::Manifests as RolloutManifests;
use gpulab_model::daemonset::NodeOrder;
use gpulab_model::incident::seed::{incident_from_owned_manifests, SEED_CONTAINERD_VERSION};
use gpulab_model::incident::transcript;
use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::scheduler::explain::NodeExplanation;
use gpulab_model::kubernetes::scheduler::framework::Plugin;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Snapshot};
use gpulab_model::kubernetes::yaml::{self, Document, Manifests};
use gpulab_model::kubernetes::KubeVersion;
use gpulab_model::{Diagnostic, Lang};
use serde::Serialize;

/// The Kubernetes version step 6's import schedules for at first (`gpulab schedule`'s
/// default).
pub const DEFAULT_VERSION: &str = "1.35";

/// The pod step 6's import offers to try: one GPU, tolerating the GPU taint.
pub const DEFAULT_POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: gpu-test
  namespace: default
spec:
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  containers:
  - name: cuda
    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
    resources:
      limits:
        nvidia.com/gpu: 1
";

/// The DaemonSet step 8's import offers: the lab's device plugin before and after
/// its update (the seed's two manifests as two documents).
pub fn default_daemonset() -> String {
    format!(
        "{}---\n{}",
        include_str!("../../../model/src/incident/seed/device-plugin-v1.yaml"),
        include_str!("../../../model/src/incident/seed/device-plugin-v2.yaml")
    )
}

/// A dump being read: its pieces, how many are loaded, and what they gave.
pub struct Session {
    file: String,
    /// The pieces (dropped once all are loaded).
    pieces: Vec<Document>,
    /// How many are loaded.
    next: usize,
    /// Read as the cluster to schedule on (bound pods kept as the scheduler's
    /// accounting only, `yaml::load_cluster`) or as the rollout's (`yaml::load`).
    cluster: bool,
    manifests: Manifests,
    diags: Vec<Diagnostic>,
}

thread_local! {
    /// The dump of this instance (one at a time).
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// Starts reading `text`, named `file` in findings: returns how many pieces it has.
/// `cluster`: for step 6's scheduling (else step 8's rollout).
pub fn open(file: &str, text: &str, cluster: bool) -> u32 {
    let pieces = yaml::split(text);
    let n = pieces.len();
    let session = Session {
        file: file.to_string(),
        pieces,
        next: 0,
        cluster,
        manifests: Manifests::default(),
        diags: Vec::new(),
    };
    SESSION.with(|s| *s.borrow_mut() = Some(session));
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Loads up to `count` more pieces; returns how many are loaded so far.
pub fn read(count: u32) -> u32 {
    SESSION.with(|s| {
        let mut s = s.borrow_mut();
        let Some(s) = s.as_mut() else { return 0 };
        let end = s.next.saturating_add(count as usize).min(s.pieces.len());
        if end > s.next {
            let (mut m, d) = yaml::load_pieces(
                &s.file,
                s.pieces.get(s.next..end).unwrap_or_default(),
                s.cluster,
            );
            if !s.cluster {
                // Step 8's rollout never reads the dump's Pods (`gpulab rollout -f`:
                // they are checked, their findings kept, and dropped).
                m.pods = Vec::new();
            }
            s.manifests.extend(m);
            s.diags.extend(d);
            s.next = end;
        }
        if s.next == s.pieces.len() {
            // All loaded: the pieces' copies of the text are not needed again.
            s.pieces = Vec::new();
        }
        u32::try_from(s.next).unwrap_or(u32::MAX)
    })
}

/// What a run answers: the findings that stopped it (each `file:line:col: error[code]:
/// message`), or the companion's text and, for step 6, the table's rows.
#[derive(Serialize, Default, Debug)]
pub struct Outcome {
    /// Findings in the dump or the learner's file; nothing else is set then.
    pub problems: Vec<String>,
    /// A run the chunk does not model here (DRA objects or claims), in the learner's words.
    pub unmodelled: String,
    /// The whole text the companion prints.
    pub text: String,
    /// Step 6: the text before the table (where the pod went, the Events).
    pub head: String,
    /// Step 6: the table's plugin columns, in order.
    pub plugins: Vec<String>,
    /// Step 6: one row per node.
    pub rows: Vec<Row>,
    /// How many Nodes the dump holds, and bound Pods (step 6) or Pods the rollout
    /// leaves out (step 8: always 0, they are not counted).
    pub nodes: usize,
    pub pods: usize,
}

/// A node's row of the node × plugin table.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Row {
    pub node: String,
    /// One cell per plugin column (`-`: the plugin did not run).
    pub cells: Vec<String>,
    pub score: String,
    /// The plugin that rejected the node (`PreFilter` for a pre-filter's verdict);
    /// empty when the node is feasible.
    pub by: String,
}

/// A finding as the companion prints it, worded in `lang`.
fn problem(d: &Diagnostic, lang: Lang) -> String {
    let at = d
        .primary
        .as_ref()
        .map(|s| format!("{s}: "))
        .unwrap_or_default();
    format!(
        "{at}error[{}]: {}",
        d.code,
        gpulab_model::kubernetes::messages::message(d, lang)
    )
}

fn problems(diags: &[Diagnostic], lang: Lang) -> Outcome {
    Outcome {
        problems: diags.iter().map(|d| problem(d, lang)).collect(),
        ..Outcome::default()
    }
}

/// The session's dump, read to the end first (whatever [`read`] left).
fn with_session<T>(f: impl FnOnce(&Session) -> T) -> Result<T, String> {
    read(u32::MAX);
    SESSION
        .with(|s| s.borrow().as_ref().map(f))
        .ok_or_else(|| "no cluster was read".to_string())
}

/// Step 6: `gpulab schedule -f DUMP --pod POD_FILE --runtimeclasses POD_FILE
/// --k8s-version VERSION` (the pod's file may hold the RuntimeClasses it names).
pub fn schedule(
    pod_file: &str,
    pod_text: &str,
    version: &str,
    lang: Lang,
) -> Result<Outcome, String> {
    let version: KubeVersion = version.parse().map_err(|e| format!("{e}"))?;
    with_session(|s| {
        let (pod_m, pod_diags) = yaml::load(pod_file, pod_text);
        let mut diags = s.diags.clone();
        diags.extend(pod_diags);
        if !diags.is_empty() {
            return problems(&diags, lang);
        }
        let claims = pod_m.pods.iter().any(|p| {
            p.object
                .spec
                .as_ref()
                .and_then(|s| s.resource_claims.as_ref())
                .is_some_and(|c| !c.is_empty())
        });
        if !s.manifests.deferred.is_empty() || !pod_m.deferred.is_empty() || claims {
            return Outcome {
                unmodelled: text::text(lang, "dra"),
                ..Outcome::default()
            };
        }
        let [pod] = pod_m.pods.as_slice() else {
            return Outcome {
                problems: vec![format!(
                    "{pod_file}: expected exactly one Pod, found {}",
                    pod_m.pods.len()
                )],
                ..Outcome::default()
            };
        };
        let rcs: Vec<_> = s
            .manifests
            .runtime_classes
            .iter()
            .chain(&pod_m.runtime_classes)
            .map(|l| l.object.clone())
            .collect();
        let snapshot = Snapshot::with_bound(
            s.manifests.nodes.iter().map(|l| l.object.clone()),
            s.manifests.bound.clone(),
        );
        let (nodes, pods) = (s.manifests.nodes.len(), s.manifests.bound.len());
        let opts = FilterOptions {
            version,
            ..Default::default()
        };
        match create_pod(pod.object.clone(), &snapshot, &rcs, &opts, 0) {
            Err(rejection) => {
                let text = format!("{}\n", rejection.kubectl_text(pod_file));
                Outcome {
                    head: text.clone(),
                    text,
                    nodes,
                    pods,
                    ..Outcome::default()
                }
            }
            Ok(created) => {
                let text = created.printed(&snapshot, version);
                let (plugins, rows) = rows(&created.explanation);
                let head = text
                    .get(..text.find("\nNODE").map_or(0, |i| i + 1))
                    .unwrap_or_default()
                    .to_string();
                Outcome {
                    text,
                    head,
                    plugins,
                    rows,
                    nodes,
                    pods,
                    ..Outcome::default()
                }
            }
        }
    })
}

/// The node × plugin table as rows: the columns of
/// [`gpulab_model::kubernetes::scheduler::explain::table`] (this chunk has no DRA,
/// so no `DynamicResources` column), the cells it prints, and which plugin rejected
/// each node.
pub fn rows(explanation: &[NodeExplanation]) -> (Vec<String>, Vec<Row>) {
    let plugins: Vec<String> = Plugin::FILTERS
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    let rows = explanation
        .iter()
        .map(|r| {
            let score = r.score.map_or("-".to_string(), |s| s.to_string());
            if let [(first, msg)] = r.filters.as_slice() {
                if first == "PreFilter" {
                    let cells = std::iter::once(msg.clone())
                        .chain(plugins.iter().skip(1).map(|_| "-".to_string()))
                        .collect();
                    return Row {
                        node: r.node.clone(),
                        cells,
                        score,
                        by: first.clone(),
                    };
                }
            }
            let cells = plugins
                .iter()
                .map(|p| {
                    r.filters
                        .iter()
                        .find(|(n, _)| n == p)
                        .map_or("-", |(_, c)| c.as_str())
                        .to_string()
                })
                .collect();
            let by = match (&r.score, r.filters.last()) {
                (None, Some((p, _))) => p.clone(),
                _ => String::new(),
            };
            Row {
                node: r.node.clone(),
                cells,
                score,
                by,
            }
        })
        .collect();
    (plugins, rows)
}

/// Step 8: `gpulab rollout -f DUMP DS_FILE --lang LANG` — the DaemonSet's first
/// document runs on the dump's nodes, its second (the update) is applied, and the
/// rollout goes on until it finishes or stalls.
pub fn rollout(ds_file: &str, ds_text: &str, lang: Lang) -> Result<Outcome, String> {
    with_session(|s| {
        if !s.diags.is_empty() {
            return problems(&s.diags, lang);
        }
        let mut manifests = RolloutManifests::default();
        manifests.add_copies_from_cluster(&s.manifests);
        let (loaded, diags) = yaml::load(ds_file, ds_text);
        if !diags.is_empty() {
            return problems(&diags, lang);
        }
        if let Err(diags) = manifests.add(loaded) {
            return problems(&diags, lang);
        }
        let nodes = manifests.nodes.len();
        let built = Version::parse(SEED_CONTAINERD_VERSION)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                incident_from_owned_manifests(manifests, BTreeMap::new(), &v, NodeOrder::Seeded(1), 1)
            });
        let mut incident = match built {
            Ok(i) => i,
            Err(e) => {
                return Outcome {
                    problems: vec![e],
                    ..Outcome::default()
                }
            }
        };
        let start = incident.rollout.now();
        let before = incident.rollout.rollout_status().map(|s| s.message);
        let rounds = transcript::run_rounds(&mut incident, None, false);
        let text = transcript::text(&incident.rollout, &before, &rounds, start, lang);
        Outcome {
            text,
            nodes,
            ..Outcome::default()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small dump as kubectl prints it (`-o yaml`): two GPU nodes, one full, a
    /// bound pod, a Secret and managedFields.
    const DUMP: &str = "apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    managedFields:
    - manager: kubelet
      operation: Update
    name: a
  status:
    allocatable: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"1\", pods: \"110\"}
- apiVersion: v1
  kind: Node
  metadata:
    name: b
  status:
    allocatable: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"2\", pods: \"110\"}
- apiVersion: v1
  kind: Secret
  metadata:
    name: token
  data:
    token: c2VjcmV0LXZhbHVl
- apiVersion: v1
  kind: Pod
  metadata:
    name: busy
    namespace: default
  spec:
    nodeName: a
    containers:
    - name: c
      image: x
      resources:
        limits: {nvidia.com/gpu: \"1\"}
  status:
    phase: Running
kind: List
metadata:
  resourceVersion: \"\"
";

    const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: try
spec:
  containers:
  - name: c
    image: x
    resources:
      limits: {nvidia.com/gpu: \"1\"}
";

    /// Read in slices of one piece, the dump schedules the pod where the GPU is free;
    /// the table's rows say which plugin rejected the full node; the Secret is never
    /// in the output.
    #[test]
    fn schedules_a_dump_read_in_slices() {
        assert_eq!(open("cluster.yaml", DUMP, true), 4);
        assert_eq!(read(1), 1);
        assert_eq!(read(2), 3);
        let out = schedule("pod.yaml", POD, "1.35", Lang::En).unwrap();
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        assert!(
            out.text.starts_with("default/try: Scheduled to b\n"),
            "{}",
            out.text
        );
        assert!(out.text[out.head.len()..].starts_with("NODE "));
        assert_eq!((out.nodes, out.pods), (2, 1));
        let by: Vec<(&str, &str)> = out
            .rows
            .iter()
            .map(|r| (r.node.as_str(), r.by.as_str()))
            .collect();
        assert_eq!(by, [("a", "NodeResourcesFit"), ("b", "")]);
        assert_eq!(out.rows[0].cells.len(), out.plugins.len());
        assert!(!out.text.contains("c2VjcmV0") && !out.text.contains("managedFields"));
    }

    /// A bad dump is refused at its file:line, in the learner's language; a pod
    /// file without exactly one Pod says so.
    #[test]
    fn bad_dump_at_file_line() {
        open(
            "mine.yaml",
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: [a\n",
            true,
        );
        let out = schedule("pod.yaml", POD, "1.35", Lang::En).unwrap();
        assert_eq!(out.problems.len(), 1, "{:?}", out.problems);
        assert!(
            out.problems[0].starts_with("mine.yaml:5:1: error[k8s-yaml-invalid]: "),
            "{:?}",
            out.problems
        );
        assert!(out.text.is_empty());
        open("cluster.yaml", DUMP, true);
        let out = schedule("pod.yaml", "", "1.35", Lang::Ko).unwrap();
        assert_eq!(
            out.problems,
            ["pod.yaml: expected exactly one Pod, found 0"]
        );
    }

    /// Step 8 on the dump: the lab's DaemonSet before and after its update rolls out
    /// over the dump's nodes (its Pods are not the rollout's): it stalls on the
    /// RuntimeClass the update names and a `nodes,pods` dump lacks, and completes once
    /// the DaemonSet's file brings it.
    #[test]
    fn rolls_out_on_a_dump() {
        open("cluster.yaml", DUMP, false);
        let out = rollout("daemonset.yaml", &default_daemonset(), Lang::En).unwrap();
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        assert!(
            out.text
                .starts_with("$ kubectl apply -f <updated DaemonSet>"),
            "{}",
            out.text
        );
        assert!(out.text.contains("Diagnosis: Stalled"), "{}", out.text);
        assert!(
            out.text.contains("RuntimeClass \"nvidia\" does not exist."),
            "{}",
            out.text
        );
        assert_eq!(out.nodes, 2);
        let with_rc = format!("{}---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia\n", default_daemonset());
        let out = rollout("daemonset.yaml", &with_rc, Lang::Ko).unwrap();
        assert!(out.text.contains("진단: Complete"), "{}", out.text);
    }
}
