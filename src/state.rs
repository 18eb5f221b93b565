//! The lab's state as a pure reducer (Yew's function_todomvc pattern): [`LabState`]
//! changes only through [`LabAction`]s. No storage, timers or messaging here; those
//! live at the edge ([`crate::mount`]).

use std::rc::Rc;

use yew::Reducible;

use crate::i18n::Lang;
use crate::steps::Step;

/// What the learner has chosen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LabState {
    pub lang: Lang,
    pub step: Step,
}

/// Everything that can change [`LabState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabAction {
    SetLang(Lang),
    Go(Step),
    Next,
    Prev,
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
        }
    }
}

impl Reducible for LabState {
    type Action = LabAction;

    fn reduce(self: Rc<Self>, action: LabAction) -> Rc<Self> {
        Rc::new((*self).apply(action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Next and Prev stop at the ends instead of wrapping or failing.
    #[test]
    fn next_and_prev_stop_at_the_ends() {
        let first = LabState::default();
        assert_eq!(first.apply(LabAction::Prev).step, Step::MainConfig);
        assert_eq!(first.apply(LabAction::Next).step, Step::DropIn);
        let last = first.apply(LabAction::Go(Step::Rollout));
        assert_eq!(last.apply(LabAction::Next).step, Step::Rollout);
    }

    /// Changing the language keeps the learner on the same step.
    #[test]
    fn language_switch_keeps_the_step() {
        let s = LabState::default().apply(LabAction::Go(Step::Slots)).apply(LabAction::SetLang(Lang::En));
        assert_eq!(s, LabState { lang: Lang::En, step: Step::Slots });
    }
}
