//! The eight lab steps (../shared/DESIGN.md §3): their order, titles and hints, and
//! one module per step's view. Steps 5 to 8 render the on-demand chunk's views
//! ([`chunk`]), so the Kubernetes model and the YAML parser are not in the first load.

pub mod check;
pub mod chunk;
pub mod containerd;
pub mod kubernetes;
pub mod restart;
pub mod rollout;
pub mod slots;
pub mod syntax;

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};
use crate::state::{LabAction, Work};
use check::CheckStep;
use containerd::ContainerdStep;
use kubernetes::KubeStep;
use restart::RestartStep;
use rollout::RolloutStep;
use slots::SlotsStep;

/// A step of the lab, in the order the learner walks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Step {
    #[default]
    MainConfig,
    DropIn,
    CheckScript,
    Restart,
    RuntimeClass,
    Scheduling,
    Slots,
    Rollout,
}

impl Step {
    /// All steps in lab order.
    pub const ALL: [Step; 8] = [
        Step::MainConfig,
        Step::DropIn,
        Step::CheckScript,
        Step::Restart,
        Step::RuntimeClass,
        Step::Scheduling,
        Step::Slots,
        Step::Rollout,
    ];

    /// 1-based position, as shown to the learner.
    pub fn number(self) -> usize {
        Step::ALL.iter().position(|s| *s == self).map_or(1, |i| i + 1)
    }

    /// The step at 1-based `n`, if there is one.
    pub fn from_number(n: usize) -> Option<Step> {
        n.checked_sub(1).and_then(|i| Step::ALL.get(i)).copied()
    }

    pub fn title(self) -> MessageId {
        match self {
            Step::MainConfig => MessageId::Step1Title,
            Step::DropIn => MessageId::Step2Title,
            Step::CheckScript => MessageId::Step3Title,
            Step::Restart => MessageId::Step4Title,
            Step::RuntimeClass => MessageId::Step5Title,
            Step::Scheduling => MessageId::Step6Title,
            Step::Slots => MessageId::Step7Title,
            Step::Rollout => MessageId::Step8Title,
        }
    }

    /// The hint under the step's heading (steps 3–8: a late message, `ftl::LATE`, which
    /// comes with the chunk their views need).
    pub fn hint(self) -> MessageId {
        match self {
            Step::MainConfig => MessageId::Hint1,
            Step::DropIn => MessageId::Hint2,
            Step::CheckScript => MessageId::LateHint3,
            Step::Restart => MessageId::LateHint4,
            Step::RuntimeClass => MessageId::LateHint5,
            Step::Scheduling => MessageId::LateHint6,
            Step::Slots => MessageId::LateHint7,
            Step::Rollout => MessageId::LateHint8,
        }
    }

    /// Whether the step's view comes from the on-demand Kubernetes chunk.
    pub fn needs_chunk(self) -> bool {
        matches!(self, Step::RuntimeClass | Step::Scheduling | Step::Slots | Step::Rollout)
    }
}

/// The view of `step` over the learner's work: each step module renders its own
/// input (steps 3 to 8 through the on-demand chunk, with a loading state and a retry
/// on failure).
pub fn view(step: Step, lang: Lang, work: &Work, dispatch: Callback<LabAction>) -> Html {
    match step {
        Step::Slots => html! { <SlotsStep {lang} input={work.slots.clone()} k8s_version={work.kube.version.clone()} {dispatch} /> },
        Step::MainConfig | Step::DropIn => {
            html! { <ContainerdStep {lang} {step} input={work.containerd.clone()} {dispatch} /> }
        }
        Step::Restart => html! {
            <RestartStep {lang} input={work.containerd.clone()} restart={work.restart.clone()}
                check={work.check.clone()} {dispatch} />
        },
        Step::RuntimeClass | Step::Scheduling => html! {
            <KubeStep {lang} {step} input={work.kube.clone()} containerd={work.containerd.clone()}
                restart={work.restart.clone()} {dispatch} />
        },
        Step::Rollout => html! {
            <RolloutStep {lang} work={work.clone()} {dispatch} />
        },
        Step::CheckScript => html! {
            <CheckStep {lang} input={work.containerd.clone()} restart={work.restart.clone()}
                check={work.check.clone()} {dispatch} />
        },
    }
}

/// The "reset this step" button every step ends with (one home: each `html!` is code
/// in the first load).
pub fn reset_button(lang: Lang, onclick: Callback<MouseEvent>) -> Html {
    html! { <p><button type="button" class="reset-step" {onclick}>{ t(lang, MessageId::ResetStep) }</button></p> }
}

/// [`reset_button`] for a step whose reset is only [`LabAction::ResetStep`].
pub fn reset_step(lang: Lang, step: Step, dispatch: &Callback<LabAction>) -> Html {
    let dispatch = dispatch.clone();
    reset_button(lang, Callback::from(move |_| dispatch.emit(LabAction::ResetStep(step))))
}

/// The learner's own cluster in steps 6 and 8: the chunk's import panel
/// (`crates/web-k8s/src/import`), a custom element the chunk defines when it loads.
pub fn import_panel(step: &'static str, lang: Lang) -> Html {
    html! { <gpulab-import {step} lang={lang.tag()} /> }
}

impl Step {
    /// Puts the step's input back to its module's defaults (steps 1 and 2 share the
    /// node's files, each resets its own file; steps 5 and 6 share theirs).
    pub fn reset(self, work: &mut Work) {
        match self {
            Step::MainConfig => work.containerd.main = containerd::ContainerdInput::default().main,
            Step::DropIn => work.containerd.dropin = containerd::ContainerdInput::default().dropin,
            Step::CheckScript => work.check = Default::default(),
            Step::Restart => work.restart = Default::default(),
            Step::RuntimeClass | Step::Scheduling => work.kube = Default::default(),
            Step::Slots => work.slots = Default::default(),
            Step::Rollout => work.rollout = Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers and positions agree both ways, and there is no step 0 or 9.
    #[test]
    fn numbering_round_trips() {
        for (i, step) in Step::ALL.iter().enumerate() {
            assert_eq!(step.number(), i + 1);
            assert_eq!(Step::from_number(i + 1), Some(*step));
        }
        assert_eq!(Step::from_number(0), None);
        assert_eq!(Step::from_number(9), None);
    }
}
