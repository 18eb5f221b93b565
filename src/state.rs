//! The lab's state as a pure reducer (Yew's function_todomvc pattern): [`LabState`]
//! changes only through [`LabAction`]s. No storage, timers or messaging here; those
//! live at the edge ([`crate::mount`], [`crate::storage`]).
//!
//! [`LabState::work`] is what the learner typed or chose in the steps; it is what is
//! saved and restored. The language and the step belong to the host page (mount
//! options) and are not saved. Each step's input, its actions, defaults and saved
//! form are its step module's (`crate::steps::*`); this reducer routes each action to
//! its step's `apply` and each reset to [`Step::reset`].

use std::rc::Rc;

use yew::Reducible;

use crate::i18n::Lang;
use crate::steps::Step;

// Each step's input, actions and defaults live in its module (`crate::steps`); the
// names stay reachable here, beside the state that holds them.
pub use crate::steps::check::{CheckAction, CheckInput};
pub use crate::steps::containerd::{ContainerdAction, ContainerdInput};
pub use crate::steps::kubernetes::{KubeAction, KubeInput};
pub use crate::steps::restart::{DaemonOp, RestartAction, RestartInput, SupervisorChoice, MAX_OPS};
pub use crate::steps::rollout::{RolloutAction, RolloutInput, MAX_MARKS, MAX_MARK_LEN, MAX_SYNCS};
pub use crate::steps::slots::{with_replicas, SlotsAction, SlotsInput, SLOTS_CONFIG_FILE};

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
                s.work.slots.apply(a);
                s
            }
            LabAction::Containerd(a) => {
                let mut s = self;
                s.work.containerd.apply(a);
                s
            }
            LabAction::Restart(a) => {
                let mut s = self;
                s.work.restart.apply(a);
                s
            }
            LabAction::Check(a) => {
                let mut s = self;
                s.work.check.apply(a);
                s
            }
            LabAction::Rollout(a) => {
                let mut s = self;
                s.work.rollout.apply(a);
                s
            }
            LabAction::Kube(a) => {
                let mut s = self;
                s.work.kube.apply(a);
                s
            }
            LabAction::ResetAll => LabState { work: Work::default(), ..self },
            LabAction::ReplaceWork(work) => LabState { work: *work, ..self },
            LabAction::ResetStep(step) => {
                let mut s = self;
                step.reset(&mut s.work);
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
