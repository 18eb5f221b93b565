//! The language switcher: one button per language, the current one pressed.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

#[derive(Properties, PartialEq)]
pub struct LangSwitchProps {
    pub lang: Lang,
    pub on_change: Callback<Lang>,
}

#[component(LangSwitch)]
pub fn lang_switch(props: &LangSwitchProps) -> Html {
    html! {
        <div class="lang-switch" role="group" aria-label={t(props.lang, MessageId::LangSwitch)}>
            { for Lang::ALL.iter().map(|&lang| {
                let on_change = props.on_change.clone();
                html! {
                    <button type="button" lang={lang.tag()} data-lang={lang.tag()}
                        aria-pressed={(lang == props.lang).to_string()}
                        onclick={Callback::from(move |_| on_change.emit(lang))}>
                        { lang.own_name() }
                    </button>
                }
            }) }
        </div>
    }
}
