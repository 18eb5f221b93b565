//! The lab shell: header with the language switch, the eight-step navigation, and
//! the current step's view. Props carry what the host page controls (through
//! `mount` options and `LabHandle::update`); the rest is the reducer's state.

use std::rc::Rc;

use yew::prelude::*;

use crate::components::hint::hint;
use crate::components::notice::{Notice, NoticeChoice};
use crate::components::work_panel::{self, Confirm, Ui, UiAction, UiEvent, UndoPoint};
use crate::components::lang_switch::lang_switch;
use crate::components::step_nav::step_nav;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::link::{self as share_link, LinkError};
use crate::state::{LabAction, LabState, Work};
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
    /// The work the lab starts from (an author's scenario, `mount.rs`); `None` = the
    /// learner's saved work. A lab started from a scenario does not save over it.
    #[prop_or_default]
    pub work: Option<crate::state::Work>,
    /// The `storageKey` mount option: this lab's own saved work (`storage::key`).
    #[prop_or_default]
    pub storage_key: Option<String>,
    /// Set when this lab replaces one whose module trapped (`mount`'s internal
    /// `trapped` option): the step it was showing and the error. The lab starts with
    /// a notice instead of that step's view.
    #[prop_or_default]
    pub trapped: Option<(Step, String)>,
    /// The element the lab is mounted in (its saves stop once the loader marks it
    /// dead, `storage.rs`).
    #[prop_or_default]
    pub host: Option<web_sys::Element>,
    /// Asks the host's loader for a language whose messages are not here yet (the
    /// learner picked it); the loader fetches them and then updates the lab.
    #[prop_or_default]
    pub ask_lang: Option<Callback<Lang>>,
}

/// The current step's view: each renders model results (steps 5, 6, 7 and 8 through
/// the on-demand Kubernetes chunk, with a loading state and a retry on failure).
fn step_view(state: &UseReducerHandle<LabState>, lang: Lang, step: Step, undoable: &Callback<(LabAction, Notice)>) -> Html {
    let dispatcher = state.dispatcher();
    let undoable = undoable.clone();
    // A step's own reset button is undoable like the work panel's.
    let dispatch = Callback::from(move |a: LabAction| match a {
        LabAction::ResetStep(s) => undoable.emit((LabAction::ResetStep(s), Notice::ResetStep(s))),
        a => dispatcher.dispatch(a),
    });
    crate::steps::view(step, lang, &state.work, dispatch)
}

/// Reads the page's share link, if it has one, and hands its work (or why it was
/// refused) to `done`. Nothing happens for a hash that is not a share link.
fn read_share_link(done: impl FnOnce(Result<Work, LinkError>) + 'static) {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    match share_link::payload(&hash) {
        None => {}
        Some(Err(e)) => done(Err(e)),
        Some(Ok(bytes)) => crate::share::compress::deflate_raw(&bytes, false, move |r| {
            done(r.map_err(|_| LinkError::Damaged).and_then(|b| share_link::content(&b)));
        }),
    }
}

/// Takes the share link out of the address once it was handled (opened, kept or
/// refused), so a reload does not ask again. Only our own hash is removed.
fn forget_share_link() {
    let Some(w) = web_sys::window() else { return };
    let loc = w.location();
    if share_link::payload(&loc.hash().unwrap_or_default()).is_none() {
        return;
    }
    let href = loc.href().unwrap_or_default();
    let without = href.split('#').next().unwrap_or_default();
    if let Ok(h) = w.history() {
        h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(without)).ok();
    }
}

#[component(App)]
pub fn app(props: &AppProps) -> Html {
    // Saved work is read once, here at the edge; the reducer stays pure.
    let key = storage::key(props.storage_key.as_deref());
    // A language whose messages are not here yet is switched to once they are.
    let first_lang = if crate::i18n::ready(props.lang) { props.lang } else { Lang::default() };
    let state = use_reducer_eq(|| LabState { lang: first_lang, step: props.step, work: props.work.clone().or_else(|| storage::load(&key)).unwrap_or_default() });
    // A lab that replaces a trapped one starts with the notice (`AppProps::trapped`).
    let ui = use_reducer_eq(|| Ui { notice: props.trapped.clone().map(|(s, d)| Notice::Trapped(s, d)), ..Ui::default() });
    {
        // Save on every change of the work (not on mount: unreadable saved data is left
        // alone until the learner changes something).
        let first = use_mut_ref(|| true);
        let authored = props.work.is_some();
        let key = key.clone();
        let (host, ui) = (props.host.clone(), ui.clone());
        use_effect_with(state.work.clone(), move |work| {
            if std::mem::replace(&mut *first.borrow_mut(), false) || authored {
                return;
            }
            // How the write went lands in the UI state (re-rendered only on a change).
            storage::save_soon(&key, work, host, Callback::from(move |why| ui.dispatch(UiAction::Saved(why))));
        });
    }
    // The Kubernetes chunk (steps 5, 6, 8) downloads with low priority once idle.
    use_effect_with((), |_| crate::steps::chunk::prefetch_when_idle());
    {
        let dispatcher = state.dispatcher();
        // The host's loader switches a lab to a language only once its messages are here.
        use_effect_with(props.lang, move |lang| {
            if crate::i18n::ready(*lang) {
                dispatcher.dispatch(LabAction::SetLang(*lang));
            }
        });
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
    let panel_id = use_state(|| crate::components::editor::unique_id("gpulab-work"));
    // Replaces work undoably: the reducer is pure, so the work after is known here.
    let undoable = {
        let (state, ui) = (state.clone(), ui.clone());
        Callback::from(move |(action, n): (LabAction, Notice)| {
            let before = state.work.clone();
            let after = (*state).clone().apply(action.clone()).work;
            state.dispatch(action);
            ui.dispatch(UiAction::Replaced(n, UndoPoint { before, after }));
        })
    };
    {
        // A share link is read at mount and whenever the hash changes (a link pasted
        // into an open tab). It opens at once only when there is nothing of the
        // learner's to lose (no saved work, the starting point, or the same work);
        // otherwise the learner chooses. A bad link changes nothing.
        let (dispatcher, ui, key) = (state.dispatcher(), ui.clone(), key.clone());
        use_effect_with((), move |_| {
            let open = move || {
                let (dispatcher, ui, key) = (dispatcher.clone(), ui.clone(), key.clone());
                read_share_link(move |r| match r {
                Err(e) => {
                    forget_share_link();
                    ui.dispatch(UiAction::Notice(Some(Notice::ShareRejected(e))))
                }
                Ok(shared) => {
                    let saved = storage::load(&key);
                    match saved {
                        Some(w) if w != shared && w != Work::default() => {
                            ui.dispatch(UiAction::Notice(Some(Notice::ShareOffer(Box::new(shared)))))
                        }
                        saved => {
                            forget_share_link();
                            let before = saved.unwrap_or_default();
                            dispatcher.dispatch(LabAction::ReplaceWork(Box::new(shared.clone())));
                            ui.dispatch(UiAction::Replaced(Notice::ShareOpened, UndoPoint { before, after: shared }));
                        }
                    }
                }
                })
            };
            open();
            let on_hash = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(open);
            let window = web_sys::window();
            if let Some(w) = &window {
                w.add_event_listener_with_callback("hashchange", wasm_bindgen::JsCast::unchecked_ref(on_hash.as_ref())).ok();
            }
            move || {
                if let Some(w) = &window {
                    w.remove_event_listener_with_callback("hashchange", wasm_bindgen::JsCast::unchecked_ref(on_hash.as_ref())).ok();
                }
                drop(on_hash);
            }
        });
    }
    let on_ui = {
        let (state, ui, undoable) = (state.clone(), ui.clone(), undoable.clone());
        Callback::from(move |e: UiEvent| match e {
            UiEvent::Share => {
                let ui = ui.clone();
                work_panel::make_link(&state.work, move |l| ui.dispatch(UiAction::Link(l)));
            }
            UiEvent::Export => match crate::share::envelope::export(&state.work) {
                Ok(text) => work_panel::download(crate::share::envelope::FILE_NAME, &text),
                Err(e) => ui.dispatch(UiAction::Notice(Some(Notice::NotWritten(e)))),
            },
            UiEvent::Import(file) => {
                let (ui, undoable) = (ui.clone(), undoable.clone());
                work_panel::read_file(file, move |r| match r {
                    Ok((name, w)) => undoable.emit((LabAction::ReplaceWork(Box::new(w)), Notice::Imported(name))),
                    Err(n) => ui.dispatch(UiAction::Notice(Some(n))),
                });
            }
            UiEvent::Ask(c) => ui.dispatch(UiAction::Confirm(c)),
            UiEvent::Confirmed => match ui.confirm {
                Some(Confirm::Step) => undoable.emit((LabAction::ResetStep(state.step), Notice::ResetStep(state.step))),
                Some(Confirm::All) => undoable.emit((LabAction::ResetAll, Notice::ResetAll)),
                None => {}
            },
            UiEvent::Choice(NoticeChoice::OpenShared) => {
                if let Some(Notice::ShareOffer(w)) = ui.notice.clone() {
                    forget_share_link();
                    undoable.emit((LabAction::ReplaceWork(w), Notice::ShareOpened));
                }
            }
            UiEvent::Choice(NoticeChoice::Undo) => {
                if let Some(u) = ui.undo.clone() {
                    state.dispatch(LabAction::ReplaceWork(Box::new(u.before)));
                    ui.dispatch(UiAction::Undone);
                }
            }
            UiEvent::Choice(NoticeChoice::TrapDiscard) => {
                if let Some(Notice::Trapped(s, _)) = &ui.notice {
                    undoable.emit((LabAction::ResetStep(*s), Notice::ResetStep(*s)));
                }
            }
            UiEvent::Choice(NoticeChoice::KeepMine | NoticeChoice::Close | NoticeChoice::TrapRetry) => {
                forget_share_link();
                ui.dispatch(UiAction::Notice(None))
            }
        })
    };
    let on_lang = {
        let d = state.dispatcher();
        let ask = props.ask_lang.clone();
        Callback::from(move |l: Lang| match &ask {
            Some(ask) if !crate::i18n::ready(l) => ask.emit(l),
            _ => d.dispatch(LabAction::SetLang(l)),
        })
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
                { lang_switch(lang, &on_lang) }
            </header>
            { work_panel::notice_at(lang, &ui, &state.work, true, &on_ui) }
            if let Some(why) = &ui.not_saved {
                <p class="lab-not-saved" role="alert">{ work_panel::not_saved_text(lang, why) }</p>
            }
            <div class="lab-body">
                { step_nav(lang, step, &on_step) }
                <main class="step-view" aria-live="polite">
                    <p class="step-position">{ tf(lang, MessageId::StepPosition, &[("n", position.as_str())]) }</p>
                    <h2 class="step-heading">{ t(lang, step.title()) }</h2>
                    { hint(lang, step.hint()) }
                    // A step whose view trapped is not rendered again until the learner
                    // chooses (the notice above): rendering it could trap again.
                    if !matches!(&ui.notice, Some(Notice::Trapped(s, _)) if *s == step) {
                        { step_view(&state, lang, step, &undoable) }
                    }
                    { work_panel::view(lang, step, &panel_id, &ui, &state.work, &on_ui) }
                </main>
            </div>
        </div>
    }
}
