//! The eight steps as navigation: an ordered list of buttons, the current step
//! marked with `aria-current="step"` for screen readers.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};
use crate::steps::Step;

/// The eight steps' buttons. A plain function, not a component: it has no state, its
/// callback is new on every render of the lab anyway, and a component type costs about
/// 1 KB of the first load.
pub fn step_nav(lang: Lang, now: Step, on_select: &Callback<Step>) -> Html {
    html! {
        <nav class="step-nav" aria-label={t(lang, MessageId::StepsNav)}>
            <ol>
                { for Step::ALL.iter().map(|&step| {
                    let on_select = on_select.clone();
                    let current = (step == now).then_some("step");
                    html! {
                        <li>
                            <button type="button" class="step-link" data-step={step.number().to_string()}
                                aria-current={current}
                                onclick={Callback::from(move |_| on_select.emit(step))}>
                                <span class="step-number">{ step.number() }</span>
                                <span class="step-title">{ t(lang, step.title()) }</span>
                            </button>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}
