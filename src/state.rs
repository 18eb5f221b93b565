//! The lab's state as a pure reducer (Yew's function_todomvc pattern): [`LabState`]
//! changes only through [`LabAction`]s. No storage, timers or messaging here; those
//! live at the edge ([`crate::mount`], [`crate::storage`]).
//!
//! [`LabState::work`] is what the learner typed or chose in the steps; it is what is
//! saved and restored. The language and the step belong to the host page (mount
//! options) and are not saved.

use std::rc::Rc;

use yew::Reducible;

use crate::i18n::Lang;
use crate::steps::Step;

/// What the learner has chosen so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabState {
    pub lang: Lang,
    pub step: Step,
    pub work: Work,
}

/// The learner's inputs, step by step (saved to localStorage at the edge).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct Work {
    pub slots: SlotsInput,
    pub containerd: ContainerdInput,
    pub restart: RestartInput,
    pub check: CheckInput,
    pub rollout: RolloutInput,
    pub kube: KubeInput,
}

/// Steps 5 and 6: the cluster, the RuntimeClass and the GPU pod, as YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct KubeInput {
    /// A Kubernetes minor version (`1.33` … `1.37`).
    pub version: String,
    pub cluster: String,
    pub runtimeclass: String,
    pub pod: String,
    /// Step 6: the node status patches applied, in order.
    pub patches: Vec<gpulab_view::NodePatch>,
    /// Step 5: the node the kubelet result is shown for while the pod is Pending.
    pub kubelet_node: String,
}

impl Default for KubeInput {
    fn default() -> Self {
        KubeInput {
            version: "1.36".into(),
            cluster: include_str!("steps/data/cluster.yaml").into(),
            runtimeclass: include_str!("steps/data/runtimeclass.yaml").into(),
            pod: include_str!("steps/data/pod.yaml").into(),
            patches: Vec::new(),
            kubelet_node: String::new(),
        }
    }
}

/// A change to steps 5–6's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeAction {
    Version(String),
    Cluster(String),
    RuntimeClass(String),
    Pod(String),
    /// `kubectl patch node … --subresource=status` (step 6).
    Patch(gpulab_view::NodePatch),
    ClearPatches,
    KubeletNode(String),
}

/// Step 8: how many controller syncs the learner stepped, and their answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct RolloutInput {
    pub syncs: u32,
    /// The node the learner names as holding the rollout.
    pub node: String,
    /// The cause they name (a diagnosis link code, e.g. `daemon-not-restarted`).
    pub cause: String,
    /// Whether they submitted the answer.
    pub answered: bool,
    /// The keys of the cells they marked as read (`get-ds/3/UP-TO-DATE`; the chunk
    /// names them), in the order they marked them, at most [`MAX_MARKS`].
    pub marks: Vec<String>,
    /// The node and the cause in their own words.
    pub words: String,
}

/// The most cells step 8 keeps marked (the three outputs of a stalled rollout hold
/// about a hundred; a mark past this many is refused, as on import).
pub const MAX_MARKS: usize = 200;
/// The longest cell key kept (a pod name is at most 253 bytes).
pub const MAX_MARK_LEN: usize = 300;

/// The most syncs step 8 steps (the seed incident stalls long before).
pub const MAX_SYNCS: u32 = 60;

/// A change to step 8's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RolloutAction {
    Sync,
    Node(String),
    Cause(String),
    Answer,
    /// Marks a cell as read, or unmarks it.
    Mark(String),
    Words(String),
}

/// Step 3: what the check is asked to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct CheckInput {
    /// `--handler`: the runtime handler GPU pods need.
    pub handler: String,
    /// `--keep`: the main config's runtime whose settings must survive the drop-in.
    pub keep: String,
}

impl Default for CheckInput {
    fn default() -> Self {
        CheckInput { handler: "nvidia".into(), keep: "runc".into() }
    }
}

/// A change to step 3's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckAction {
    Handler(String),
    Keep(String),
}

/// Steps 1 and 2: the node's containerd files and the containerd version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct ContainerdInput {
    /// A recorded version name (`1.7.34`, `2.0.11`, …).
    pub version: String,
    /// `/etc/containerd/config.toml`.
    pub main: String,
    /// `/etc/containerd/conf.d/99-nvidia.toml` (step 2 adds it).
    pub dropin: String,
}

impl Default for ContainerdInput {
    fn default() -> Self {
        ContainerdInput {
            version: "1.7.34".into(),
            main: include_str!("steps/data/incident-main.toml").into(),
            dropin: include_str!("steps/data/incident-99-nvidia.toml").into(),
        }
    }
}

/// Step 4: who supervises the daemon, and what the learner did to it, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct RestartInput {
    pub supervisor: SupervisorChoice,
    pub ops: Vec<DaemonOp>,
}

/// How containerd was started on the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(rename_all = "kebab-case"))]
pub enum SupervisorChoice {
    /// The shipped `containerd.service` (`Restart=always`).
    #[default]
    Systemd,
    ByHand,
}

/// One thing done to the node in step 4; the model replays them on its daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(rename_all = "kebab-case"))]
pub enum DaemonOp {
    /// Write step 2's drop-in to disk (as the NVIDIA toolkit does).
    WriteDropin,
    Sighup,
    Restart,
    /// Let five seconds pass.
    Wait,
    /// Run the check on the node as it is now.
    RunCheck,
}

impl SupervisorChoice {
    /// Each choice and its name in saved work (kebab-case).
    pub const NAMES: [(&'static str, SupervisorChoice); 2] = [("systemd", SupervisorChoice::Systemd), ("by-hand", SupervisorChoice::ByHand)];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, c)| *c == self).map_or("", |(n, _)| n)
    }
}

impl DaemonOp {
    /// Each operation and its name in saved work (kebab-case).
    pub const NAMES: [(&'static str, DaemonOp); 5] = [
        ("write-dropin", DaemonOp::WriteDropin),
        ("sighup", DaemonOp::Sighup),
        ("restart", DaemonOp::Restart),
        ("wait", DaemonOp::Wait),
        ("run-check", DaemonOp::RunCheck),
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, op)| *op == self).map_or("", |(n, _)| n)
    }
}

/// The most operations step 4 keeps (older ones are dropped first).
pub const MAX_OPS: usize = 50;

/// Step 7: the slot calculator's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct SlotsInput {
    /// An NVML name of the model's table of known GPUs.
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    /// Replicas of the compared time-slicing and MPS rows.
    pub replicas: u32,
    /// The device-plugin config file's text (the table's "config file" row).
    pub config: String,
}

/// The range a number of the lab's work may take: the page's input offers it
/// (`min`/`max`), the reducer keeps to it, and a file or link with a number outside
/// it is refused by name ([`crate::work_json`]). One constant per number, so the
/// three never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub min: u32,
    pub max: u32,
}

impl Bound {
    pub fn contains(self, n: u64) -> bool {
        (u64::from(self.min)..=u64::from(self.max)).contains(&n)
    }

    /// `n` moved into the range.
    pub fn clamp(self, n: u32) -> u32 {
        n.clamp(self.min, self.max)
    }
}

/// Step 7's GPUs per node: the largest GPU servers carry 16 (HGX-2, DGX-2).
pub const GPUS_PER_NODE: Bound = Bound { min: 1, max: 16 };
/// Step 7's nodes: Kubernetes' documented largest cluster ("no more than 5,000 nodes").
pub const NODES: Bound = Bound { min: 1, max: 5000 };
/// Step 7's replicas of the compared rows: a node runs at most 110 pods by default
/// (kubelet `--max-pods`), so more seats per GPU than that are never all used.
pub const REPLICAS: Bound = Bound { min: 1, max: 110 };
/// Step 8's syncs ([`MAX_SYNCS`]).
pub const SYNCS: Bound = Bound { min: 0, max: MAX_SYNCS };

/// The config file's name, as diagnostics and the CLI name it.
pub const SLOTS_CONFIG_FILE: &str = "config.yaml";

impl Default for SlotsInput {
    fn default() -> Self {
        SlotsInput {
            gpu_model: "NVIDIA H100 80GB HBM3".into(),
            gpus_per_node: 8,
            nodes: 2,
            replicas: 4,
            // The time-slicing config of NVIDIA's device-plugin documentation.
            config: "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
                .into(),
        }
    }
}

/// `config` with every `replicas: N` line set to `n` (indentation and the rest kept):
/// step 7's replicas field is the config's replicas, so the config row and the
/// headline follow it as the compared rows do. A line with anything after the number
/// (a comment) is left as written.
pub fn with_replicas(config: &str, n: u32) -> String {
    let mut out = String::with_capacity(config.len());
    for line in config.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.strip_suffix(body.trim_start()).unwrap_or("");
        let value = body.trim_start().strip_prefix("replicas:").map(str::trim);
        match value {
            Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str(indent);
                out.push_str("replicas: ");
                out.push_str(&n.to_string());
                out.push_str(line.get(body.len()..).unwrap_or(""));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// A change to step 7's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotsAction {
    GpuModel(String),
    GpusPerNode(u32),
    Nodes(u32),
    Replicas(u32),
    Config(String),
}

/// A change to steps 1–2's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerdAction {
    Version(String),
    Main(String),
    Dropin(String),
}

/// A change to step 4's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartAction {
    Do(DaemonOp),
    Supervisor(SupervisorChoice),
}

/// Everything that can change [`LabState`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabAction {
    SetLang(Lang),
    Go(Step),
    Next,
    Prev,
    Slots(SlotsAction),
    Containerd(ContainerdAction),
    Restart(RestartAction),
    Check(CheckAction),
    Rollout(RolloutAction),
    Kube(KubeAction),
    /// Puts a step's inputs back to their defaults.
    ResetStep(Step),
    /// Puts every step's inputs back to their defaults.
    ResetAll,
    /// Replaces all the work (an imported file, a share link, or an undo).
    ReplaceWork(Box<Work>),
}

impl LabState {
    /// The state after `action` — the whole rule set, testable without a browser.
    pub fn apply(self, action: LabAction) -> LabState {
        match action {
            LabAction::SetLang(lang) => LabState { lang, ..self },
            LabAction::Go(step) => LabState { step, ..self },
            LabAction::Next => {
                let step = Step::from_number(self.step.number() + 1).unwrap_or(self.step);
                LabState { step, ..self }
            }
            LabAction::Prev => {
                let step = Step::from_number(self.step.number() - 1).unwrap_or(self.step);
                LabState { step, ..self }
            }
            LabAction::Slots(a) => {
                let mut s = self;
                let slots = &mut s.work.slots;
                match a {
                    SlotsAction::GpuModel(m) => slots.gpu_model = m,
                    SlotsAction::GpusPerNode(n) => slots.gpus_per_node = GPUS_PER_NODE.clamp(n),
                    SlotsAction::Nodes(n) => slots.nodes = NODES.clamp(n),
                    SlotsAction::Replicas(n) => {
                        slots.replicas = REPLICAS.clamp(n);
                        slots.config = with_replicas(&slots.config, slots.replicas);
                    }
                    SlotsAction::Config(text) => slots.config = text,
                }
                s
            }
            LabAction::Containerd(a) => {
                let mut s = self;
                let c = &mut s.work.containerd;
                match a {
                    ContainerdAction::Version(v) => c.version = v,
                    ContainerdAction::Main(t) => c.main = t,
                    ContainerdAction::Dropin(t) => c.dropin = t,
                }
                s
            }
            LabAction::Restart(a) => {
                let mut s = self;
                let r = &mut s.work.restart;
                match a {
                    RestartAction::Do(op) => {
                        r.ops.push(op);
                        let extra = r.ops.len().saturating_sub(MAX_OPS);
                        r.ops.drain(..extra);
                    }
                    RestartAction::Supervisor(sup) => {
                        r.supervisor = sup;
                        r.ops.clear();
                    }
                }
                s
            }
            LabAction::Check(a) => {
                let mut s = self;
                match a {
                    CheckAction::Handler(h) => s.work.check.handler = h,
                    CheckAction::Keep(k) => s.work.check.keep = k,
                }
                s
            }
            LabAction::Rollout(a) => {
                let mut s = self;
                let r = &mut s.work.rollout;
                match a {
                    RolloutAction::Sync => r.syncs = (r.syncs + 1).min(MAX_SYNCS),
                    RolloutAction::Node(n) => {
                        r.node = n;
                        r.answered = false;
                    }
                    RolloutAction::Cause(c) => {
                        r.cause = c;
                        r.answered = false;
                    }
                    RolloutAction::Answer => r.answered = true,
                    RolloutAction::Mark(key) => {
                        if let Some(i) = r.marks.iter().position(|m| *m == key) {
                            r.marks.remove(i);
                        } else if r.marks.len() < MAX_MARKS && key.len() <= MAX_MARK_LEN {
                            r.marks.push(key);
                        }
                    }
                    RolloutAction::Words(w) => r.words = w,
                }
                s
            }
            LabAction::Kube(a) => {
                let mut s = self;
                let k = &mut s.work.kube;
                match a {
                    KubeAction::Version(v) => k.version = v,
                    KubeAction::Cluster(t) => k.cluster = t,
                    KubeAction::RuntimeClass(t) => k.runtimeclass = t,
                    KubeAction::Pod(t) => k.pod = t,
                    KubeAction::Patch(p) => k.patches.push(p),
                    KubeAction::ClearPatches => k.patches.clear(),
                    KubeAction::KubeletNode(n) => k.kubelet_node = n,
                }
                s
            }
            LabAction::ResetAll => LabState { work: Work::default(), ..self },
            LabAction::ReplaceWork(work) => LabState { work: *work, ..self },
            LabAction::ResetStep(step) => {
                let mut s = self;
                match step {
                    Step::Slots => s.work.slots = SlotsInput::default(),
                    Step::MainConfig => s.work.containerd.main = ContainerdInput::default().main,
                    Step::DropIn => s.work.containerd.dropin = ContainerdInput::default().dropin,
                    Step::Restart => s.work.restart = RestartInput::default(),
                    Step::CheckScript => s.work.check = CheckInput::default(),
                    Step::Rollout => s.work.rollout = RolloutInput::default(),
                    Step::RuntimeClass | Step::Scheduling => s.work.kube = KubeInput::default(),
                }
                s
            }
        }
    }
}

impl Reducible for LabState {
    type Action = LabAction;

    fn reduce(self: Rc<Self>, action: LabAction) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Next and Prev stop at the ends instead of wrapping or failing.
    #[test]
    fn next_and_prev_stop_at_the_ends() {
        let first = LabState::default();
        assert_eq!(first.clone().apply(LabAction::Prev).step, Step::MainConfig);
        assert_eq!(first.clone().apply(LabAction::Next).step, Step::DropIn);
        let last = first.apply(LabAction::Go(Step::Rollout));
        assert_eq!(last.apply(LabAction::Next).step, Step::Rollout);
    }

    /// Changing the language keeps the learner on the same step and their work.
    #[test]
    fn language_switch_keeps_the_step_and_work() {
        let s = LabState::default()
            .apply(LabAction::Go(Step::Slots))
            .apply(LabAction::Slots(SlotsAction::Nodes(5)))
            .apply(LabAction::SetLang(Lang::En));
        assert_eq!((s.lang, s.step, s.work.slots.nodes), (Lang::En, Step::Slots, 5));
    }

    /// Each slot input lands in its own field; resetting step 7 restores the defaults.
    #[test]
    fn slot_inputs_and_reset() {
        let cases = [
            (SlotsAction::GpuModel("Tesla T4".into()), "gpu_model"),
            (SlotsAction::GpusPerNode(4), "gpus_per_node"),
            (SlotsAction::Nodes(3), "nodes"),
            (SlotsAction::Replicas(10), "replicas"),
            (SlotsAction::Config("version: v1\n".into()), "config"),
        ];
        for (action, field) in cases {
            let s = LabState::default().apply(LabAction::Slots(action));
            let d = SlotsInput::default();
            let changed = match field {
                "gpu_model" => s.work.slots.gpu_model == "Tesla T4",
                "gpus_per_node" => s.work.slots.gpus_per_node == 4,
                "nodes" => s.work.slots.nodes == 3,
                "replicas" => s.work.slots.replicas == 10,
                _ => s.work.slots.config == "version: v1\n",
            };
            assert!(changed, "{field}");
            assert_eq!(s.apply(LabAction::ResetStep(Step::Slots)).work.slots, d, "{field}");
        }
    }

    /// The replicas field is the config's replicas: changing it rewrites each
    /// `replicas: N` line of the config (so the headline, which reads the config,
    /// follows), and leaves a commented line and the rest of the file as written.
    #[test]
    fn replicas_field_sets_the_config() {
        let s = LabState::default().apply(LabAction::Slots(SlotsAction::Replicas(10)));
        assert_eq!(s.work.slots.config, SlotsInput::default().config.replace("replicas: 4", "replicas: 10"));
        let two = "sharing:\n  mps:\n    resources:\n    - name: a\n      replicas: 2\r\n    - name: b\n      replicas: 3 # keep\n";
        assert_eq!(with_replicas(two, 8), "sharing:\n  mps:\n    resources:\n    - name: a\n      replicas: 8\r\n    - name: b\n      replicas: 3 # keep\n");
    }

    /// Step 4 keeps the operations in order, at most MAX_OPS; switching the supervisor
    /// starts over; resets touch only their own step.
    #[test]
    fn daemon_ops_and_resets() {
        let mut s = LabState::default();
        for _ in 0..MAX_OPS + 3 {
            s = s.apply(LabAction::Restart(RestartAction::Do(DaemonOp::Wait)));
        }
        s = s.apply(LabAction::Restart(RestartAction::Do(DaemonOp::Sighup)));
        assert_eq!(s.work.restart.ops.len(), MAX_OPS);
        assert_eq!(s.work.restart.ops.last(), Some(&DaemonOp::Sighup));
        let edited = s.clone().apply(LabAction::Containerd(ContainerdAction::Dropin(String::new())));
        let reset = edited.clone().apply(LabAction::ResetStep(Step::Restart));
        assert_eq!(reset.work.restart, RestartInput::default());
        assert_eq!(reset.work.containerd.dropin, "", "resetting step 4 keeps step 2's edit");
        let back = reset.apply(LabAction::ResetStep(Step::DropIn));
        assert_eq!(back.work.containerd, ContainerdInput::default());
        let sup = s.apply(LabAction::Restart(RestartAction::Supervisor(SupervisorChoice::ByHand)));
        assert_eq!(sup.work.restart, RestartInput { supervisor: SupervisorChoice::ByHand, ops: Vec::new() });
    }

    /// Step 7's numbers stay within the bounds the page's inputs show (issue 20: the
    /// reader refuses what the reducer could never hold).
    #[test]
    fn slot_numbers_stay_within_their_bounds() {
        let cases = [(0, 1), (1, 1), (16, 16), (17, 16), (4_000_000_000, 16)];
        for (typed, held) in cases {
            let s = LabState::default().apply(LabAction::Slots(SlotsAction::GpusPerNode(typed)));
            assert_eq!(s.work.slots.gpus_per_node, held, "{typed}");
        }
        let s = LabState::default()
            .apply(LabAction::Slots(SlotsAction::Nodes(4_000_000_000)))
            .apply(LabAction::Slots(SlotsAction::Replicas(0)));
        assert_eq!((s.work.slots.nodes, s.work.slots.replicas), (NODES.max, REPLICAS.min));
        let d = SlotsInput::default();
        assert!([(GPUS_PER_NODE, d.gpus_per_node), (NODES, d.nodes), (REPLICAS, d.replicas)].iter().all(|(b, n)| b.contains(u64::from(*n))));
    }

    /// Syncs stop at MAX_SYNCS; changing the answer un-submits it.
    #[test]
    fn rollout_syncs_and_answer() {
        let mut s = LabState::default();
        for _ in 0..MAX_SYNCS + 5 {
            s = s.apply(LabAction::Rollout(RolloutAction::Sync));
        }
        assert_eq!(s.work.rollout.syncs, MAX_SYNCS);
        let s = s.apply(LabAction::Rollout(RolloutAction::Answer));
        assert!(s.work.rollout.answered);
        let s = s.apply(LabAction::Rollout(RolloutAction::Node("gpu-node-1".into())));
        assert!(!s.work.rollout.answered);
        let mark = |s: LabState, k: &str| s.apply(LabAction::Rollout(RolloutAction::Mark(k.into())));
        let s = mark(mark(mark(s, "pods/p/STATUS"), "get-ds/1/READY"), "pods/p/STATUS");
        assert_eq!(s.work.rollout.marks, ["get-ds/1/READY"], "a second mark unmarks");
        let s = mark(s, &"x".repeat(MAX_MARK_LEN + 1));
        assert_eq!(s.work.rollout.marks.len(), 1, "a key longer than any cell's is not kept");
        let mut full = s.clone();
        for i in 0..MAX_MARKS + 5 {
            full = mark(full, &format!("get-ds/{i}/READY"));
        }
        assert_eq!(full.work.rollout.marks.len(), MAX_MARKS);
        let s = s.apply(LabAction::Rollout(RolloutAction::Words("gpu-node-2: not restarted".into())));
        assert_eq!(s.work.rollout.words, "gpu-node-2: not restarted");
        assert_eq!(s.apply(LabAction::ResetStep(Step::Rollout)).work.rollout, RolloutInput::default());
    }

    /// Reset all and replacing the work touch only the work, never the language or step.
    #[test]
    fn reset_all_and_replace_keep_lang_and_step() {
        let edited = LabState::default()
            .apply(LabAction::Go(Step::Slots))
            .apply(LabAction::SetLang(Lang::En))
            .apply(LabAction::Slots(SlotsAction::Nodes(9)))
            .apply(LabAction::Restart(RestartAction::Do(DaemonOp::Restart)));
        let reset = edited.clone().apply(LabAction::ResetAll);
        assert_eq!((reset.lang, reset.step, &reset.work), (Lang::En, Step::Slots, &Work::default()));
        let back = reset.apply(LabAction::ReplaceWork(Box::new(edited.work.clone())));
        assert_eq!(back, edited);
    }

    /// Saved work round-trips through JSON, and missing fields take their defaults.
    #[test]
    fn work_round_trips_and_fills_defaults() {
        let w = LabState::default().apply(LabAction::Slots(SlotsAction::Nodes(7))).work;
        assert_eq!(crate::work_json::read_saved(&crate::work_json::to_string(&w)), Some(w));
        let partial = crate::work_json::read_saved(r#"{"slots":{"nodes":3}}"#).unwrap();
        assert_eq!((partial.slots.nodes, partial.slots.gpus_per_node), (3, SlotsInput::default().gpus_per_node));
    }

    /// The enum names saved work uses are serde's kebab-case names.
    #[test]
    fn enum_names_are_serdes() {
        for (name, op) in DaemonOp::NAMES {
            assert_eq!((op.name(), serde_json::to_string(&op).unwrap()), (name, format!("{name:?}")));
        }
        for (name, s) in SupervisorChoice::NAMES {
            assert_eq!((s.name(), serde_json::to_string(&s).unwrap()), (name, format!("{name:?}")));
        }
    }
}
