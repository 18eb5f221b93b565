//! The hint control: a disclosure in the same place on every built step (right
//! under the step heading), closed until the learner opens it.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

/// The step's hint, folded. A plain function, not a component: it has no state, and a
/// component type costs about 1 KB of the first load.
/// Nothing until its text is here (steps 3–8's hints come with the chunk, `ftl::LATE`).
pub fn hint(lang: Lang, text: MessageId) -> Html {
    let text = t(lang, text);
    if text.is_empty() {
        return Html::default();
    }
    html! {
        <details class="hint">
            <summary>{ t(lang, MessageId::Hint) }</summary>
            <p>{ text }</p>
        </details>
    }
}
