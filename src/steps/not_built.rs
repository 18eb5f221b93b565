//! The honest placeholder for a step whose issue has not landed: it says so and
//! names the issue; it never shows invented content.

use yew::prelude::*;

use crate::i18n::{tf, Lang, MessageId};
use crate::steps::Step;

#[derive(Properties, PartialEq)]
pub struct NotBuiltProps {
    pub lang: Lang,
    pub step: Step,
}

#[component(NotBuilt)]
pub fn not_built(props: &NotBuiltProps) -> Html {
    let issue = props.step.issue().to_string();
    html! {
        <p class="not-built" role="status">
            { tf(props.lang, MessageId::NotBuiltYet, &[("issue", issue.as_str())]) }
        </p>
    }
}
