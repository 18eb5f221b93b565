//! The language switcher: one button per language, the current one pressed.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

/// The language buttons. A plain function, not a component: it has no state, its
/// callback is new on every render of the lab anyway, and a component type costs about
/// 1 KB of the first load.
pub fn lang_switch(current: Lang, on_change: &Callback<Lang>) -> Html {
    html! {
        <div class="lang-switch" role="group" aria-label={t(current, MessageId::LangSwitch)}>
            { for Lang::ALL.iter().map(|&lang| {
                let on_change = on_change.clone();
                html! {
                    <button type="button" lang={lang.tag()} data-lang={lang.tag()}
                        aria-pressed={(lang == current).to_string()}
                        onclick={Callback::from(move |_| on_change.emit(lang))}>
                        { lang.own_name() }
                    </button>
                }
            }) }
        </div>
    }
}
