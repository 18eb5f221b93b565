//! The hint control: a disclosure in the same place on every built step (right
//! under the step heading), closed until the learner opens it.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

#[derive(Properties, PartialEq)]
pub struct HintProps {
    pub lang: Lang,
    pub text: MessageId,
}

#[component(Hint)]
pub fn hint(props: &HintProps) -> Html {
    html! {
        <details class="hint">
            <summary>{ t(props.lang, MessageId::Hint) }</summary>
            <p>{ t(props.lang, props.text) }</p>
        </details>
    }
}
