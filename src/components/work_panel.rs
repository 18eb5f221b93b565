//! "Your work": the controls for the work as a whole — a share link (made on
//! demand, compressed by the browser, refused by name when too long), export and
//! import of the progress file, and resets (this step, all steps), each asking
//! for confirmation first and undoable afterwards. The note says why export matters
//! in an embedded lab (partitioned third-party storage).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::editor::unique_id;
use crate::components::notice::Notice;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::envelope;
use crate::state::{LabAction, Work};
use crate::steps::Step;

/// What the panel asks the shell to do.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkEvent {
    /// Apply an action that replaces work (kept for Undo), then show the notice.
    Apply(LabAction, Notice),
    /// Show a notice only (a refused file).
    Notice(Notice),
}

#[derive(Properties, PartialEq)]
pub struct WorkPanelProps {
    pub lang: Lang,
    pub step: Step,
    pub work: Rc<Work>,
    pub on_event: Callback<WorkEvent>,
    /// The notice shown by the controls (resets, imports), if any.
    #[prop_or_default]
    pub children: Html,
}

/// A share link attempt's outcome.
#[derive(Debug, Clone, PartialEq)]
enum Link {
    Made(String),
    TooBig(usize),
    Failed(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Confirm {
    Step,
    All,
}

#[component(WorkPanel)]
pub fn work_panel(props: &WorkPanelProps) -> Html {
    let lang = props.lang;
    let ids = use_state(|| (unique_id("gpulab-share"), unique_id("gpulab-import")));
    let link = use_state(|| None::<Link>);
    let confirm = use_state(|| None::<Confirm>);
    let n = props.step.number().to_string();

    let on_share = {
        let link = link.clone();
        let work = props.work.clone();
        Callback::from(move |_: MouseEvent| make_link(&work, link.clone()))
    };
    let on_export = {
        let work = props.work.clone();
        Callback::from(move |_: MouseEvent| download(envelope::FILE_NAME, &envelope::export(&work)))
    };
    let on_import = {
        let on_event = props.on_event.clone();
        Callback::from(move |e: Event| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            read_file(file, on_event.clone());
        })
    };
    let ask = |what: Confirm| {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(Some(what)))
    };
    let on_cancel = {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(None))
    };
    let on_yes = {
        let confirm = confirm.clone();
        let on_event = props.on_event.clone();
        let step = props.step;
        Callback::from(move |_: MouseEvent| {
            match *confirm {
                Some(Confirm::Step) => on_event.emit(WorkEvent::Apply(LabAction::ResetStep(step), Notice::ResetStep(step))),
                Some(Confirm::All) => on_event.emit(WorkEvent::Apply(LabAction::ResetAll, Notice::ResetAll)),
                None => {}
            }
            confirm.set(None);
        })
    };
    let (share_id, import_id) = (*ids).clone();
    let max = envelope_limit();
    html! {
        <section class="work-panel" aria-labelledby={format!("{share_id}-h")}>
            <h2 id={format!("{share_id}-h")} class="work-title">{ t(lang, MessageId::WorkTitle) }</h2>
            <p class="work-note">{ t(lang, MessageId::WorkSavedNote) }</p>
            { props.children.clone() }
            <div class="work-row">
                <button type="button" class="work-share" onclick={on_share}>{ t(lang, MessageId::WorkShare) }</button>
                <button type="button" class="work-export" onclick={on_export}>{ t(lang, MessageId::WorkExport) }</button>
            </div>
            <div class="field work-import-field">
                <label for={import_id.clone()}>{ t(lang, MessageId::WorkImport) }</label>
                <input id={import_id} class="work-import" type="file" accept=".json,application/json" onchange={on_import} />
            </div>
            { match &*link {
                None => html! {},
                Some(Link::Made(url)) => html! {
                    <div class="field work-link">
                        <label for={share_id.clone()}>{ t(lang, MessageId::WorkShareLabel) }</label>
                        <input id={share_id.clone()} class="work-share-url" type="text" readonly=true value={url.clone()} lang="en" />
                        <p class="work-share-note" role="status">{ tf(lang, MessageId::WorkShareMade, &[("n", url.len().to_string().as_str())]) }</p>
                    </div>
                },
                Some(Link::TooBig(len)) => html! {
                    <p class="work-share-too-big" role="alert">{ tf(lang, MessageId::WorkShareTooBig, &[("n", len.to_string().as_str()), ("max", max.as_str())]) }</p>
                },
                Some(Link::Failed(why)) => html! {
                    <p class="work-share-failed" role="alert">{ tf(lang, MessageId::WorkShareFailed, &[("details", why.as_str())]) }</p>
                },
            } }
            <div class="work-row work-resets">
                <button type="button" class="work-reset-step" onclick={ask(Confirm::Step)}>{ tf(lang, MessageId::WorkResetStep, &[("n", n.as_str())]) }</button>
                <button type="button" class="work-reset-all" onclick={ask(Confirm::All)}>{ t(lang, MessageId::WorkResetAll) }</button>
            </div>
            if let Some(what) = *confirm {
                <div class="work-confirm" role="alertdialog" aria-label={t(lang, MessageId::WorkResetAll)}>
                    <p>{ match what {
                        Confirm::Step => tf(lang, MessageId::WorkConfirmStep, &[("n", n.as_str())]),
                        Confirm::All => t(lang, MessageId::WorkConfirmAll).into(),
                    } }</p>
                    <button type="button" class="work-confirm-yes" onclick={on_yes}>{ t(lang, MessageId::WorkConfirmYes) }</button>
                    <button type="button" class="work-confirm-cancel" onclick={on_cancel}>{ t(lang, MessageId::WorkCancel) }</button>
                </div>
            }
        </section>
    }
}

fn envelope_limit() -> String {
    crate::share::link::MAX_PAYLOAD.to_string()
}

/// The page's URL without its hash (the link's base).
fn base_url() -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

fn make_link(work: &Work, link: UseStateHandle<Option<Link>>) {
    use crate::share::{compress, link as share_link};
    let text = envelope::compact(work);
    compress::deflate_raw(text.as_bytes(), true, move |result| {
        link.set(Some(match result {
            Ok(bytes) => match share_link::hash(&bytes) {
                Ok(hash) => Link::Made(format!("{}{hash}", base_url())),
                Err(len) => Link::TooBig(len),
            },
            Err(e) => Link::Failed(e),
        }));
    });
}

/// Saves `text` as a file by clicking a detached `<a download>`.
fn download(name: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let href = format!("data:application/json;charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)));
    a.set_attribute("href", &href).ok();
    a.set_attribute("download", name).ok();
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// Reads and validates a chosen file; nothing is applied unless all of it is valid.
fn read_file(file: web_sys::File, on_event: Callback<WorkEvent>) {
    let name = file.name();
    let size = file.size() as usize;
    if size > envelope::MAX_FILE {
        on_event.emit(WorkEvent::Notice(Notice::ImportFailed(name, envelope::ImportError::TooLarge(size))));
        return;
    }
    crate::share::compress::settle(&file.text(), move |text| {
        let text = text.ok().and_then(|t| t.as_string()).unwrap_or_default();
        on_event.emit(match envelope::import(&text) {
            Ok(work) => WorkEvent::Apply(LabAction::ReplaceWork(Box::new(work)), Notice::Imported(name)),
            Err(e) => WorkEvent::Notice(Notice::ImportFailed(name, e)),
        });
    });
}
