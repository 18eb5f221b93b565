//! The lab shell: header with the language switch, the eight-step navigation, and
//! the current step's view. Props carry what the host page controls (through
//! `mount` options and `LabHandle::update`); the rest is the reducer's state.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::lang_switch::LangSwitch;
use crate::components::step_nav::StepNav;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{LabAction, LabState};
use crate::steps::not_built::NotBuilt;
use crate::steps::Step;

/// Told about every state change, so the handle can answer `state()` and the host
/// page gets `gpulab:statechange` events. Compared by identity.
#[derive(Clone)]
pub struct StateObserver(pub Rc<dyn Fn(LabState)>);

impl PartialEq for StateObserver {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq, Clone)]
pub struct AppProps {
    /// The language the host asks for; a change re-applies it.
    #[prop_or_default]
    pub lang: Lang,
    /// The step the host asks for; a change re-applies it.
    #[prop_or_default]
    pub step: Step,
    #[prop_or_default]
    pub observer: Option<StateObserver>,
}

#[component(App)]
pub fn app(props: &AppProps) -> Html {
    let state = use_reducer_eq(|| LabState { lang: props.lang, step: props.step });
    {
        let dispatcher = state.dispatcher();
        use_effect_with(props.lang, move |lang| dispatcher.dispatch(LabAction::SetLang(*lang)));
    }
    {
        let dispatcher = state.dispatcher();
        use_effect_with(props.step, move |step| dispatcher.dispatch(LabAction::Go(*step)));
    }
    {
        let observer = props.observer.clone();
        use_effect_with(*state, move |s| {
            if let Some(o) = observer {
                (o.0)(*s);
            }
        });
    }
    let lang = state.lang;
    let on_lang = {
        let d = state.dispatcher();
        Callback::from(move |l: Lang| d.dispatch(LabAction::SetLang(l)))
    };
    let on_step = {
        let d = state.dispatcher();
        Callback::from(move |s: Step| d.dispatch(LabAction::Go(s)))
    };
    let step = state.step;
    let position = step.number().to_string();
    html! {
        <div class="gpu-lab" lang={lang.tag()}>
            <header class="lab-header">
                <div>
                    <h1 class="lab-title">{ t(lang, MessageId::AppTitle) }</h1>
                    <p class="lab-subtitle">{ t(lang, MessageId::AppSubtitle) }</p>
                </div>
                <LangSwitch {lang} on_change={on_lang} />
            </header>
            <div class="lab-body">
                <StepNav {lang} current={step} on_select={on_step} />
                <main class="step-view" aria-live="polite">
                    <p class="step-position">{ tf(lang, MessageId::StepPosition, &[("n", position.as_str())]) }</p>
                    <h2 class="step-heading">{ t(lang, step.title()) }</h2>
                    <NotBuilt {lang} {step} />
                </main>
            </div>
        </div>
    }
}
