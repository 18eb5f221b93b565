//! Upstream text (scheduler, kubectl, containerd, the device plugin) shown verbatim,
//! marked `lang="en"` inside the Korean UI, with a visually hidden note saying so.

use yew::prelude::*;

use crate::i18n::{t, Lang, MessageId};

#[derive(Properties, PartialEq)]
pub struct UpstreamProps {
    pub lang: Lang,
    pub text: String,
    #[prop_or_default]
    pub class: Classes,
}

#[component(Upstream)]
pub fn upstream(props: &UpstreamProps) -> Html {
    html! {
        <pre class={classes!("upstream", props.class.clone())} lang="en"
            aria-label={t(props.lang, MessageId::UpstreamNote)}>{ props.text.clone() }</pre>
    }
}
