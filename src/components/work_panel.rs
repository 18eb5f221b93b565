//! "Your work": the controls for the work as a whole — a share link (made on
//! demand, compressed by the browser, refused by name when too long), export and
//! import of the progress file, and resets (this step, all steps), each asking for
//! confirmation first and undoable afterwards. The note says why export matters in
//! an embedded lab (partitioned third-party storage).
//!
//! The panel's own state is the small pure reducer [`Ui`]; the view is a plain
//! function and every control reports one [`UiEvent`] to the shell (one callback
//! type instead of a component and a closure per button keeps the wasm small).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::notice::{notice_view, Notice, NoticeChoice};
use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::{envelope, link as share_link};
use crate::state::Work;
use crate::steps::Step;

/// A share link attempt's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    Made(String),
    TooBig(usize),
    Failed(String),
    /// The work holds what the link's reader refuses (a text over its limit).
    Refused(envelope::ImportError),
}

/// Which reset awaits confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    Step,
    All,
}

/// The work before and after the last reset / import / opened link: Undo is
/// offered while the work is still `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPoint {
    pub before: Work,
    pub after: Work,
}

/// The panel's and the notices' state.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ui {
    pub notice: Option<Notice>,
    pub undo: Option<UndoPoint>,
    pub link: Option<Link>,
    pub confirm: Option<Confirm>,
    /// Why the last save to this browser failed, while it did.
    pub not_saved: Option<String>,
}

/// A change to [`Ui`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UiAction {
    /// The work was replaced (reset, import, link): remember how to undo it.
    Replaced(Notice, UndoPoint),
    /// Undo was used: the undo point is spent.
    Undone,
    Notice(Option<Notice>),
    Link(Link),
    Confirm(Option<Confirm>),
    /// How the last save went (`storage::save_soon`).
    Saved(Option<String>),
}

impl Ui {
    /// The state after `a`.
    pub fn apply(self, a: UiAction) -> Ui {
        match a {
            UiAction::Replaced(n, u) => Ui { notice: Some(n), undo: Some(u), confirm: None, ..self },
            UiAction::Undone => Ui { notice: Some(Notice::Undone), undo: None, ..self },
            UiAction::Notice(notice) => Ui { notice, ..self },
            UiAction::Link(l) => Ui { link: Some(l), ..self },
            UiAction::Confirm(confirm) => Ui { confirm, ..self },
            UiAction::Saved(not_saved) => Ui { not_saved, ..self },
        }
    }

    /// Whether Undo is on offer for `work` (nothing changed since the replacement).
    pub fn can_undo(&self, work: &Work) -> bool {
        self.undo.as_ref().is_some_and(|u| u.after == *work)
    }
}

impl Reducible for Ui {
    type Action = UiAction;

    fn reduce(self: Rc<Self>, action: UiAction) -> Rc<Self> {
        Rc::new((*self).clone().apply(action))
    }
}

/// What the learner did in the panel or a notice; the shell carries it out.
#[derive(Debug, Clone, PartialEq)]
pub enum UiEvent {
    Share,
    Export,
    Import(web_sys::File),
    Ask(Option<Confirm>),
    Confirmed,
    Choice(NoticeChoice),
}

/// The notice, where it belongs (`share`: the top of the lab; else the panel).
pub fn notice_at(lang: Lang, ui: &Ui, work: &Work, share: bool, on: &Callback<UiEvent>) -> Html {
    match &ui.notice {
        Some(n) if n.is_share() == share => notice_view(lang, n, ui.can_undo(work), &on.reform(UiEvent::Choice)),
        _ => html! {},
    }
}

/// The panel; `id` makes its element ids unique in the page.
/// The panel; `id` makes its element ids unique in the page. While a save failed
/// the note says so instead of "saved as you go".
pub fn view(lang: Lang, step: Step, id: &str, ui: &Ui, work: &Work, on: &Callback<UiEvent>) -> Html {
    let n = step.number().to_string();
    let on_import = {
        let on = on.clone();
        Callback::from(move |e: Event| {
            let input = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
            if let Some((input, file)) = input.and_then(|i| i.files().and_then(|f| f.get(0)).map(|f| (i, f))) {
                input.set_value("");
                on.emit(UiEvent::Import(file));
            }
        })
    };
    let ev = |e: UiEvent| on.reform(move |_: MouseEvent| e.clone());
    html! {
        <section class="work-panel" aria-labelledby={format!("{id}-h")}>
            <h2 id={format!("{id}-h")} class="work-title">{ t(lang, MessageId::WorkTitle) }</h2>
            <p class={classes!("work-note", ui.not_saved.is_some().then_some("work-not-saved"))}>{ match &ui.not_saved {
                None => t(lang, MessageId::WorkSavedNote).to_string(),
                Some(why) => not_saved_text(lang, why),
            } }</p>
            { notice_at(lang, ui, work, false, on) }
            <div class="work-row">
                <button type="button" class="work-share" onclick={ev(UiEvent::Share)}>{ t(lang, MessageId::WorkShare) }</button>
                <button type="button" class="work-export" onclick={ev(UiEvent::Export)}>{ t(lang, MessageId::WorkExport) }</button>
            </div>
            { match &ui.link {
                None => html! {},
                Some(Link::Made(url)) => html! {
                    <div class="field work-link">
                        <label for={format!("{id}-url")}>{ t(lang, MessageId::WorkShareLabel) }</label>
                        <input id={format!("{id}-url")} class="work-share-url" type="text" readonly=true value={url.clone()} lang="en" />
                        <p class="work-share-note" role="status">{ tf(lang, MessageId::WorkShareMade, &[("n", url.len().to_string().as_str())]) }</p>
                    </div>
                },
                Some(Link::TooBig(len)) => html! {
                    <p class="work-share-too-big" role="alert">{ tf(lang, MessageId::WorkShareTooBig, &[("n", len.to_string().as_str()), ("max", share_link::MAX_PAYLOAD.to_string().as_str())]) }</p>
                },
                Some(Link::Failed(why)) => html! {
                    <p class="work-share-failed" role="alert">{ tf(lang, MessageId::WorkShareFailed, &[("details", why.as_str())]) }</p>
                },
                Some(Link::Refused(e)) => html! {
                    <p class="work-share-refused" role="alert">{ crate::components::notice::Notice::NotWritten(e.clone()).text(lang) }</p>
                },
            } }
            <div class="field work-import-field">
                <label for={format!("{id}-file")}>{ t(lang, MessageId::WorkImport) }</label>
                <input id={format!("{id}-file")} class="work-import" type="file" accept=".json,application/json" onchange={on_import} />
            </div>
            <div class="work-row">
                <button type="button" class="work-reset-step" onclick={ev(UiEvent::Ask(Some(Confirm::Step)))}>{ tf(lang, MessageId::WorkResetStep, &[("n", n.as_str())]) }</button>
                <button type="button" class="work-reset-all" onclick={ev(UiEvent::Ask(Some(Confirm::All)))}>{ t(lang, MessageId::WorkResetAll) }</button>
            </div>
            if let Some(what) = ui.confirm {
                <div class="work-confirm" role="group" aria-label={t(lang, MessageId::WorkResetAll)}>
                    <p>{ match what {
                        Confirm::Step => tf(lang, MessageId::WorkConfirmStep, &[("n", n.as_str())]),
                        Confirm::All => t(lang, MessageId::WorkConfirmAll).into(),
                    } }</p>
                    <button type="button" class="work-confirm-yes" onclick={ev(UiEvent::Confirmed)}>{ t(lang, MessageId::WorkConfirmYes) }</button>
                    <button type="button" class="work-confirm-cancel" onclick={ev(UiEvent::Ask(None))}>{ t(lang, MessageId::WorkCancel) }</button>
                </div>
            }
        </section>
    }
}

/// What the lab says while its work is not saved in this browser.
pub fn not_saved_text(lang: Lang, why: &str) -> String {
    tf(lang, MessageId::WorkNotSaved, &[("details", why)])
}

/// The page's URL without its hash (the link's base).
fn base_url() -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// Makes the share link for `work`; `done` receives the outcome. Work the link's
/// reader would refuse is refused here, by the same check, before compressing.
pub fn make_link(work: &Work, done: impl FnOnce(Link) + 'static) {
    let text = match envelope::compact(work) {
        Ok(text) => text,
        Err(e) => return done(Link::Refused(e)),
    };
    crate::share::compress::deflate_raw(text.as_bytes(), true, move |result| {
        done(match result {
            Ok(bytes) => match share_link::hash(&bytes) {
                Ok(hash) => Link::Made(format!("{}{hash}", base_url())),
                Err(len) => Link::TooBig(len),
            },
            Err(e) => Link::Failed(e),
        })
    });
}

/// Saves `text` as a file by clicking a detached `<a download>`.
pub fn download(name: &str, text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let href = format!("data:application/json;charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)));
    a.set_attribute("href", &href).ok();
    a.set_attribute("download", name).ok();
    if let Ok(a) = a.dyn_into::<web_sys::HtmlElement>() {
        a.click();
    }
}

/// Reads and validates a chosen file; `done` gets its name and work, or why it was
/// refused.
pub fn read_file(file: web_sys::File, done: impl FnOnce(Result<(String, Work), Notice>) + 'static) {
    let name = file.name();
    let size = file.size() as usize;
    if size > envelope::MAX_FILE {
        done(Err(Notice::ImportFailed(name, envelope::ImportError::TooLarge(size))));
        return;
    }
    crate::share::compress::settle(&file.text(), move |text| {
        let text = text.as_string().unwrap_or_default();
        done(match envelope::import(&text) {
            Ok(w) => Ok((name, w)),
            Err(e) => Err(Notice::ImportFailed(name, e)),
        })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Undo is offered only while the work is what the replacement left; using it
    /// spends it; a replacement closes a pending confirmation.
    #[test]
    fn undo_and_confirm() {
        let after = Work::default();
        let mut before = Work::default();
        before.slots.nodes = 9;
        let ui = Ui::default()
            .apply(UiAction::Confirm(Some(Confirm::All)))
            .apply(UiAction::Replaced(Notice::ResetAll, UndoPoint { before: before.clone(), after: after.clone() }));
        assert_eq!(ui.confirm, None);
        assert!(ui.can_undo(&after));
        assert!(!ui.can_undo(&before), "an edit since the reset ends the offer");
        let ui = ui.apply(UiAction::Undone);
        assert_eq!((ui.notice, ui.undo), (Some(Notice::Undone), None));
    }
}
