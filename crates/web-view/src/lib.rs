//! The contract between the lab app (the first-load wasm) and the on-demand
//! Kubernetes chunk (`crates/web-k8s`): requests the app sends and views the chunk
//! returns, as JSON strings. Plain serde structs: building them needs the model's
//! Kubernetes code (k8s-openapi, YAML), reading them needs none of it, so the app's
//! first load stays small. The texts inside are the model's output, verbatim; the
//! app renders them and decides nothing.
//!
//! # Layout
//!
//! - this file: the request and view types, and [`api`], the chunk's function names;
//! - [`wire`]: the same types' JSON as the app writes and reads it (the chunk uses
//!   serde on the same types; the tests hold both to the same bytes);
//! - [`json`]: the small JSON reader and writer `wire` and the app's saved work use
//!   instead of serde, which is not in the app's first load.

use gpulab_model::Severity;
use serde::{Deserialize, Serialize};

pub mod json;
pub mod wire;

/// The chunk's exported functions (JSON string in, JSON string out).
pub mod api {
    /// `kube(request: KubeRequest) -> KubeView` (steps 5 and 6).
    pub const KUBE: &str = "kube";
    /// `rollout(request: RolloutRequest) -> RolloutView` (step 8).
    pub const ROLLOUT: &str = "rollout";
    /// `slots(request: SlotsRequest) -> SlotsView` (step 7).
    pub const SLOTS: &str = "slots";
    /// `check(request: CheckRequest) -> CheckView` (steps 3 and 4: check-runtime.sh).
    pub const CHECK: &str = "check";
    /// `scenario(request: ScenarioRequest) -> ScenarioOutcome` (an author's scenario).
    pub const SCENARIO: &str = "scenario";
    /// `scenario_references(scenario.toml text) -> [path]` (the files to fetch next to it).
    pub const SCENARIO_REFERENCES: &str = "scenario_references";
    /// `containerd_syntax(request: SyntaxRequest) -> Option<Failure>` (steps 1, 2 and 4:
    /// containerd's own verdict on a file's syntax, `gpulab_model::containerd::syntax`).
    pub const CONTAINERD_SYNTAX: &str = "containerd_syntax";
}

/// One file the app's model has no syntax verdict for: the chunk answers with
/// containerd's (`Option<gpulab_model::containerd::syntax::Failure>`; `None`: the file
/// reads without a syntax error). The app's first load leaves go-toml's parsers out.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SyntaxRequest {
    /// The containerd version, as `Version::parse` reads it.
    pub version: String,
    pub path: String,
    pub text: String,
}

/// Step 7's inputs (as `gpulab slots --gpu-model M --gpus-per-node G --nodes N
/// --replicas R --config config.yaml --lang L` reads them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SlotsRequest {
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    pub replicas: u32,
    /// The device-plugin config file's text.
    pub config: String,
    /// `ko` or `en`: the language of the model's labels.
    pub lang: String,
    /// The Kubernetes version of the DRA rows (step 6's: `--k8s-version`).
    pub k8s_version: String,
}

/// A finding as the diagnostics panel shows it; the message is the model's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagLine {
    pub severity: Severity,
    /// `file:line:column`, when the finding has a place.
    pub location: Option<String>,
    /// The line of the edited file the editor marks, when it is in that file.
    pub line: Option<u32>,
    pub message: String,
    pub code: String,
}

/// Step 7's view: the slot table with its labels, headline, findings and exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotsView {
    /// The model's table of known GPUs (NVML names), for the picker.
    pub models: Vec<String>,
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    /// Column headers, then one row of cells per compared mode (first cell = the mode).
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub headline: Vec<String>,
    /// The note that MIG reconfiguration drains the node, when it applies.
    pub drain: Option<String>,
    pub diagnostics: Vec<DiagLine>,
    pub markdown: String,
    pub csv: String,
    /// The sentences under the table (the DRA rows').
    pub notes: Vec<String>,
    /// Set by the chunk, which has no DRA code: the DRA module answers the same
    /// request with the DRA rows added.
    pub needs_dra: bool,
}

/// The learner's files for steps 5 and 6 (as `gpulab schedule` reads them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct KubeRequest {
    /// A Kubernetes minor version (`1.33` … `1.37`).
    pub version: String,
    pub cluster: String,
    pub runtimeclass: String,
    pub pod: String,
    /// `kubectl patch node N --subresource=status` the learner applied, in order.
    pub patches: Vec<NodePatch>,
    /// The node files of steps 1–2: the kubelet's view of a node's runtimes.
    pub containerd: ContainerdFiles,
    /// Where the kubelet result is shown when the scheduler left the pod Pending
    /// (the learner's `spec.nodeName` choice; the first node when empty).
    pub kubelet_node: String,
    /// What the learner did to the node's containerd in step 4 (operation names, in
    /// order, as [`CheckRequest::ops`]); empty when they did nothing there.
    pub node_ops: Vec<String>,
    /// Step 4's supervisor: containerd started by hand rather than by systemd.
    pub by_hand: bool,
    /// `ko` or `en`: the language of the files' findings (upstream texts inside them
    /// stay verbatim).
    pub lang: String,
    /// Step 6's path to the GPU: an id of [`PATHS`] (empty: the device plugin's).
    pub path: String,
    /// The path's objects file ([`KubePath::objects`]); empty: the path's own.
    /// On the DRA path an empty `pod` is that path's pod too.
    pub objects: String,
}

/// One of step 6's paths to a GPU for the same pod on the same cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KubePath {
    /// The request's `path`.
    pub id: &'static str,
    /// The file of the path's own objects (DeviceClasses, ResourceSlices, claims), as
    /// diagnostics and `gpulab schedule --objects` name it; empty: none.
    pub objects: &'static str,
    /// The pod's file.
    pub pod: &'static str,
}

/// Step 6's paths: the device plugin's `nvidia.com/gpu`; a ResourceClaim against the
/// NVIDIA DRA driver's ResourceSlices; the same `nvidia.com/gpu` backed by a
/// DeviceClass (`extendedResourceName`).
pub const PATHS: [KubePath; 3] = [
    KubePath { id: "", objects: "", pod: "pod.yaml" },
    KubePath { id: "dra", objects: "dra.yaml", pod: "dra-pod.yaml" },
    KubePath { id: "dra-extended", objects: "dra-extended.yaml", pod: "pod.yaml" },
];

/// The path `id` names (an unknown id: the device plugin's).
pub fn kube_path(id: &str) -> KubePath {
    let [device_plugin, ..] = PATHS;
    PATHS.into_iter().find(|p| p.id == id).unwrap_or(device_plugin)
}

/// The node's containerd files and version (steps 1–2), for the kubelet's sandbox
/// result and the incident report.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ContainerdFiles {
    pub version: String,
    pub main: String,
    pub dropin: String,
}

/// Advertise `quantity` of `resource` in a node's status (capacity and allocatable),
/// as the device plugin's registration would.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct NodePatch {
    pub node: String,
    pub resource: String,
    pub quantity: String,
}

/// What creating the pod gives. (Externally tagged, and every finding a flat
/// [`DiagLine`]: the app's first load pays for each serde shape it reads, and an
/// internally tagged enum or the model's nested `Diagnostic` cost tens of KB.)
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KubeOutcome {
    /// The manifests do not load: findings with file:line (message = the model's
    /// arguments, `key=value; …`).
    BadInput { diagnostics: Vec<DiagLine> },
    /// Admission or validation refused the pod: `kubectl apply` output.
    Rejected { text: String },
    /// The pod was created and the scheduler left it waiting in its queue (DRA:
    /// a claim missing or not made from its template) — `gpulab schedule`'s text.
    Waiting { text: String },
    /// The Kubernetes chunk does not judge DRA (a DRA path, a file holding DRA objects,
    /// a pod with claims): the app asks the DRA module (`crates/web-dra`), loaded on
    /// demand, for this request. The view's other fields are the chunk's.
    NeedsDra {},
    /// The pod was created: the verdict line, the Events table, the per-node table.
    Created {
        verdict: String,
        /// `kubectl describe pod`'s Events section.
        events: String,
        /// The per-node, per-plugin table that explains the verdict.
        nodes: String,
        /// DRA: the devices each claim got (or the claim PostFilter deallocated), as
        /// `gpulab schedule` prints them after the table; empty without claims.
        claims: String,
        /// What the kubelet does with the admitted pod on the node it was bound to
        /// (or the request's `kubelet_node`), with containerd as loaded before and
        /// after the restart.
        sandboxes: Vec<Sandbox>,
    },
}

/// The kubelet's `RunPodSandbox` on the node the pod was bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sandbox {
    /// Whether containerd was restarted after the drop-in was written.
    pub restarted: bool,
    /// The step-4 operations this node's containerd went through (empty for the lab's
    /// two what-ifs: as loaded before the drop-in, and after a restart).
    pub ops: Vec<String>,
    pub node: String,
    /// Whether the scheduler bound the pod there (else the learner placed it).
    pub scheduled: bool,
    /// The runtime handler asked for (containerd's default when empty).
    pub handler: String,
    /// `Ok`: the sandbox started; otherwise the pod stays `ContainerCreating`.
    pub started: bool,
    /// `kubectl get pods -o wide` for the pod after the kubelet's try.
    pub get_pods: String,
    /// `kubectl describe pod`'s Events after the kubelet's try (FailedCreatePodSandBox).
    pub events: String,
}

/// Steps 5 and 6's view: the outcome, the cluster as kubectl shows it, and the
/// choices the controls offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KubeView {
    pub outcome: KubeOutcome,
    /// `kubectl get nodes`.
    pub get_nodes: String,
    /// Capacity / allocatable and bound pods, per node.
    pub cluster: Vec<NodeView>,
    /// The Kubernetes versions the model knows, oldest first.
    pub versions: Vec<String>,
    /// Problems with the learner's patches (unknown node, bad quantity).
    pub patch_errors: Vec<String>,
    /// How many of the learner's patches the API server accepted.
    pub patches_applied: usize,
    /// Step 6 off the device plugin's path: the path's own pod and objects texts the
    /// outcome is for where the request left them empty (the lab's files, which the
    /// app does not hold); empty where the request carried a text — the app shows its
    /// own then (a re-schedule's reply does not carry the learner's files back).
    pub pod: String,
    pub objects: String,
}

/// One node of the cluster view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeView {
    pub name: String,
    /// `(resource, capacity, allocatable)`, as the node status holds them.
    pub resources: Vec<(String, String, String)>,
    /// Pods bound to this node (`namespace/name`).
    pub pods: Vec<String>,
}

/// Step 8's request: the learner's whole work — the progress file's text, exactly as
/// the app exports it (`{"format":"gpu-node-lab/progress","version":1,"work":{…}}`,
/// read by [`gpulab_model::incident::work::read_progress`]), so step 8's rollout runs on
/// the node, RuntimeClass and patches of their steps 1–7 and the report is the one
/// `gpulab report --work` prints for that file. Empty: the lab's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RolloutRequest {
    /// `ko` or `en`: the language of the model's report and diagnosis texts.
    pub lang: String,
    pub work: String,
    /// "Break it again": the learner's node with the seed's broken drop-in written
    /// and containerd not restarted.
    pub broken: bool,
}

/// How the learner's answer compares with the model's diagnosis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Judgement {
    /// The node, and a root cause of its chain.
    Right,
    WrongNode,
    /// The node, and a link of its chain that is a symptom of the roots.
    Symptom,
    WrongCause,
}

/// One link of the model's diagnosis chain, in the request's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkView {
    pub text: String,
    pub evidence: Option<String>,
}

/// One cell of a kubectl output in step 8: its text, the spaces kubectl pads it with,
/// and — for a cell the learner can mark as read — its key and a label naming its
/// table, row and column.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CellView {
    pub text: String,
    pub pad: String,
    /// Empty for a header cell (not markable).
    pub key: String,
    pub label: String,
    /// The learner marked it as read.
    pub marked: bool,
    /// The model's diagnosis rests on it (set once the learner answered).
    pub evidence: bool,
}

/// A kubectl output of step 8 as cells in reading order: `get-ds`, `status` or
/// `pods`. The last cell of each row carries the row's newline in its `pad`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TableView {
    pub id: String,
    pub cells: Vec<CellView>,
}

impl TableView {
    /// The output as kubectl prints it: every cell and its padding.
    pub fn text(&self) -> String {
        self.cells.iter().flat_map(|c| [c.text.as_str(), c.pad.as_str()]).collect()
    }

    /// The number of rows (header included).
    pub fn rows(&self) -> usize {
        self.cells.iter().filter(|c| c.pad.ends_with('\n')).count()
    }
}

/// Step 8's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutView {
    /// `kubectl get ds` after every sync so far, the latest `kubectl rollout status`,
    /// and `kubectl get pods -o wide`, as cells.
    pub tables: Vec<TableView>,
    /// The nodes the learner can name.
    pub nodes: Vec<String>,
    /// The cause codes the learner can name (diagnosis link codes).
    pub causes: Vec<String>,
    /// Set once the learner submitted an answer.
    pub judgement: Option<Judgement>,
    /// The root causes (link codes) of the node the learner named, once answered.
    pub roots: Vec<String>,
    /// The model's diagnosis (summary, then each stalled node's chain), once answered.
    pub diagnosis: Vec<LinkView>,
    /// How the rollout ends on this cluster once every sync it needs is stepped:
    /// `completed`, `stalled` or `unsettled`.
    pub ending: String,
    /// The syncs it takes to get there.
    pub ending_syncs: u32,
    /// The node holding a stalled rollout, and its root causes in the request's language.
    pub stalled_on: String,
    pub stalled_why: Vec<String>,
    /// Whether this view is the "break it again" run.
    pub broken: bool,
    /// The incident report of the learner's run (Markdown), as `gpulab report --work`
    /// prints it.
    pub report_md: String,
}

/// Steps 3 and 4's check: the node (steps 1–2's files, step 4's supervisor and
/// operations) and what the check looks for (step 3).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckRequest {
    pub containerd: ContainerdFiles,
    /// containerd started by hand instead of by systemd.
    pub by_hand: bool,
    /// Step 4's operations in order: `write-dropin`, `sighup`, `restart`, `wait`,
    /// `run-check`.
    pub ops: Vec<String>,
    /// `--handler`.
    pub handler: String,
    /// `--keep`.
    pub keep: String,
    /// `ko` or `en`: the language of the script's output.
    pub lang: String,
}

/// One run of check-runtime.sh on the simulated node.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckRun {
    /// The node's clock (seconds) when it ran.
    pub at: u64,
    pub exit_code: u32,
    /// `pass`, `check-failed`, …
    pub verdict: String,
    /// The verdict line in the output's language.
    pub verdict_text: String,
    /// What the script prints, byte for byte.
    pub output: String,
}

/// Steps 3 and 4's check results.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CheckView {
    /// The check run on the node as step 4 left it (step 3).
    pub now: CheckRun,
    /// Each `run-check` of step 4, in order.
    pub runs: Vec<CheckRun>,
    /// The five checks: (name, what it reads).
    pub looked_at: Vec<(String, String)>,
}

/// An author's scenario as the page gives it: the `scenario.toml` text, the file name
/// errors show, and the files it references (path inside its directory → text).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ScenarioRequest {
    pub file: String,
    pub text: String,
    pub files: std::collections::BTreeMap<String, String>,
}

/// What an author's scenario sets of the learner's starting work (the rest keeps the
/// lab's defaults): the story's node's containerd files, version and supervisor, and
/// the scenario's GPUs and device-plugin config for the slot table.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ScenarioStart {
    pub title: String,
    pub containerd_version: Option<String>,
    pub main: Option<String>,
    pub dropin: Option<String>,
    /// The node's containerd is started by hand (not by systemd).
    pub by_hand: bool,
    pub gpu_model: Option<String>,
    pub gpus_per_node: Option<u32>,
    pub nodes: Option<u32>,
    pub slots_config: Option<String>,
}

/// One of a bad scenario's findings: the model's diagnostic, as
/// `gpulab scenario check` prints it (`text`) and in parts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthorDiag {
    /// `file:line:col: severity: message [code]`.
    pub text: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub code: String,
    pub message: String,
}

/// An author's scenario read: where the lab starts, or why it cannot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScenarioOutcome {
    Started(ScenarioStart),
    Errors(Vec<AuthorDiag>),
}

/// The chunk's answer: a view, or the model's error text.
pub type Reply<T> = Result<T, String>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A view survives the JSON trip between the chunk and the app unchanged.
    #[test]
    fn views_round_trip_through_json() {
        let view = KubeView {
            outcome: KubeOutcome::Created { verdict: "v".into(), events: "e".into(), nodes: "n".into(), claims: String::new(), sandboxes: vec![] },
            get_nodes: String::new(),
            cluster: vec![NodeView { name: "gpu-1".into(), resources: vec![("cpu".into(), "8".into(), "7".into())], pods: vec![] }],
            versions: vec!["1.36".into()],
            patch_errors: vec![],
            patches_applied: 0,
            pod: String::new(),
            objects: String::new(),
        };
        let reply: Reply<KubeView> = Ok(view);
        let json = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply<KubeView>>(&json).unwrap(), reply);
        let req: KubeRequest = serde_json::from_str(r#"{"version":"1.35"}"#).unwrap();
        assert_eq!(req.version, "1.35");
    }
}
