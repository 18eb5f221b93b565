//! The lab's state as a pure reducer (Yew's function_todomvc pattern): [`LabState`]
//! changes only through [`LabAction`]s. No storage, timers or messaging here; those
//! live at the edge ([`crate::mount`], [`crate::storage`]).
//!
//! [`LabState::work`] is what the learner typed or chose in the steps; it is what is
//! saved and restored. The language and the step belong to the host page (mount
//! options) and are not saved.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Work {
    pub slots: SlotsInput,
}

/// Step 7: the slot calculator's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
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

/// A change to step 7's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotsAction {
    GpuModel(String),
    GpusPerNode(u32),
    Nodes(u32),
    Replicas(u32),
    Config(String),
}

/// Everything that can change [`LabState`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabAction {
    SetLang(Lang),
    Go(Step),
    Next,
    Prev,
    Slots(SlotsAction),
    /// Puts a step's inputs back to their defaults.
    ResetStep(Step),
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
                    SlotsAction::GpusPerNode(n) => slots.gpus_per_node = n,
                    SlotsAction::Nodes(n) => slots.nodes = n,
                    SlotsAction::Replicas(n) => slots.replicas = n,
                    SlotsAction::Config(text) => slots.config = text,
                }
                s
            }
            LabAction::ResetStep(step) => {
                let mut s = self;
                if step == Step::Slots {
                    s.work.slots = SlotsInput::default();
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

    /// Saved work round-trips through JSON, and missing fields take their defaults.
    #[test]
    fn work_round_trips_and_fills_defaults() {
        let w = LabState::default().apply(LabAction::Slots(SlotsAction::Nodes(7))).work;
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(serde_json::from_str::<Work>(&json).unwrap(), w);
        let partial: Work = serde_json::from_str(r#"{"slots":{"nodes":3}}"#).unwrap();
        assert_eq!((partial.slots.nodes, partial.slots.gpus_per_node), (3, SlotsInput::default().gpus_per_node));
    }
}
