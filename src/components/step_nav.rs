//! The eight steps as navigation: an ordered list of buttons, the current step
//! marked with `aria-current="step"` for screen readers.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};
use crate::steps::Step;

#[derive(Properties, PartialEq)]
pub struct StepNavProps {
    pub lang: Lang,
    pub current: Step,
    pub on_select: Callback<Step>,
}

#[component(StepNav)]
pub fn step_nav(props: &StepNavProps) -> Html {
    html! {
        <nav class="step-nav" aria-label={t(props.lang, MessageId::StepsNav)}>
            <ol>
                { for Step::ALL.iter().map(|&step| {
                    let on_select = props.on_select.clone();
                    let current = (step == props.current).then_some("step");
                    html! {
                        <li>
                            <button type="button" class="step-link" data-step={step.number().to_string()}
                                aria-current={current}
                                onclick={Callback::from(move |_| on_select.emit(step))}>
                                <span class="step-number">{ step.number() }</span>
                                <span class="step-title">{ t(props.lang, step.title()) }</span>
                            </button>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}
