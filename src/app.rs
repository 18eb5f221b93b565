//! The lab shell: header with the language switch, the eight-step navigation, and
//! the current step's view. Props carry what the host page controls (through
//! `mount` options and `LabHandle::update`); the rest is the reducer's state.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::hint::Hint;
use crate::components::lang_switch::LangSwitch;
use crate::components::step_nav::StepNav;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{LabAction, LabState};
use crate::steps::check::CheckStep;
use crate::steps::containerd::ContainerdStep;
use crate::steps::restart::RestartStep;
use crate::steps::kubernetes::KubeStep;
use crate::steps::rollout::RolloutStep;
use crate::steps::slots::SlotsStep;
use crate::steps::Step;
use crate::storage;

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

/// The current step's view: each renders model results (steps 5, 6 and 8 through
/// the on-demand Kubernetes chunk, with a loading state and a retry on failure).
fn step_view(state: &UseReducerHandle<LabState>, lang: Lang, step: Step) -> Html {
    let dispatcher = state.dispatcher();
    let dispatch = Callback::from(move |a: LabAction| dispatcher.dispatch(a));
    match step {
        Step::Slots => html! { <SlotsStep {lang} input={state.work.slots.clone()} {dispatch} /> },
        Step::MainConfig | Step::DropIn => {
            html! { <ContainerdStep {lang} {step} input={state.work.containerd.clone()} {dispatch} /> }
        }
        Step::Restart => html! {
            <RestartStep {lang} input={state.work.containerd.clone()} restart={state.work.restart.clone()}
                check={state.work.check.clone()} {dispatch} />
        },
        Step::RuntimeClass | Step::Scheduling => html! {
            <KubeStep {lang} {step} input={state.work.kube.clone()} containerd={state.work.containerd.clone()} {dispatch} />
        },
        Step::Rollout => html! {
            <RolloutStep {lang} input={state.work.rollout.clone()} containerd={state.work.containerd.clone()} {dispatch} />
        },
        Step::CheckScript => html! {
            <CheckStep {lang} input={state.work.containerd.clone()} restart={state.work.restart.clone()}
                check={state.work.check.clone()} {dispatch} />
        },
    }
}

#[component(App)]
pub fn app(props: &AppProps) -> Html {
    // Saved work is read once, here at the edge; the reducer stays pure.
    let state = use_reducer_eq(|| LabState { lang: props.lang, step: props.step, work: storage::load().unwrap_or_default() });
    {
        // Save on every change of the work (not on mount: unreadable saved data is left
        // alone until the learner changes something).
        let first = use_mut_ref(|| true);
        use_effect_with(state.work.clone(), move |work| {
            if std::mem::replace(&mut *first.borrow_mut(), false) {
                return;
            }
            storage::save(work);
        });
    }
    // The Kubernetes chunk (steps 5, 6, 8) downloads with low priority once idle.
    use_effect_with((), |_| crate::steps::chunk::prefetch_when_idle());
    {
        let dispatcher = state.dispatcher();
        use_effect_with(props.lang, move |lang| dispatcher.dispatch(LabAction::SetLang(*lang)));
    }
    {
        let dispatcher = state.dispatcher();
        use_effect_with(props.step, move |step| dispatcher.dispatch(LabAction::Go(*step)));
    }
    {
        // The host hears about the language and the step, not about every keystroke.
        let observer = props.observer.clone();
        let current = (*state).clone();
        use_effect_with((state.lang, state.step), move |_| {
            if let Some(o) = observer {
                (o.0)(current);
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
                    <Hint {lang} text={step.hint()} />
                    { step_view(&state, lang, step) }
                </main>
            </div>
        </div>
    }
}
