//! The lab's notices about the learner's work as a whole: a share link that was
//! opened, offered or refused; a file imported or refused; a reset, with Undo while
//! nothing has changed since. Status messages use `role="status"`, refusals
//! `role="alert"`; the words say what happened (never colour alone).

use yew::prelude::*;

use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::envelope::ImportError;
use crate::share::link::LinkError;
use crate::share::text::{import_reason, link_reason};
use crate::state::Work;
use crate::steps::Step;

/// Something that happened to the work as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A valid share link, while this browser holds other saved work: ask.
    ShareOffer(Box<Work>),
    ShareRejected(LinkError),
    ShareOpened,
    Imported(String),
    ImportFailed(String, ImportError),
    ResetStep(Step),
    ResetAll,
    Undone,
}

impl Notice {
    /// Notices about the share link sit at the top of the lab; the rest by the
    /// work controls.
    pub fn is_share(&self) -> bool {
        matches!(self, Notice::ShareOffer(_) | Notice::ShareRejected(_) | Notice::ShareOpened)
    }

    /// The notice's text in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Notice::ShareOffer(_) => t(lang, MessageId::ShareOffer).into(),
            Notice::ShareRejected(e) => tf(lang, MessageId::ShareRejected, &[("reason", link_reason(lang, e).as_str())]),
            Notice::ShareOpened => t(lang, MessageId::ShareOpened).into(),
            Notice::Imported(f) => tf(lang, MessageId::WorkImported, &[("file", f)]),
            Notice::ImportFailed(f, e) => {
                tf(lang, MessageId::WorkImportError, &[("file", f), ("reason", import_reason(lang, e).as_str())])
            }
            Notice::ResetStep(s) => tf(lang, MessageId::WorkWasResetStep, &[("n", s.number().to_string().as_str())]),
            Notice::ResetAll => t(lang, MessageId::WorkWasResetAll).into(),
            Notice::Undone => t(lang, MessageId::WorkUndone).into(),
        }
    }

    fn is_refusal(&self) -> bool {
        matches!(self, Notice::ShareRejected(_) | Notice::ImportFailed(..))
    }
}

/// What the learner chose in a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeChoice {
    OpenShared,
    KeepMine,
    Undo,
    Close,
}

#[derive(Properties, PartialEq)]
pub struct NoticeProps {
    pub lang: Lang,
    pub notice: Notice,
    /// Whether Undo is offered (the work is still what the reset or import left).
    pub can_undo: bool,
    pub on_choice: Callback<NoticeChoice>,
}

#[component(NoticeView)]
pub fn notice_view(props: &NoticeProps) -> Html {
    let lang = props.lang;
    let n = &props.notice;
    let button = |class: &'static str, id: MessageId, choice: NoticeChoice| {
        let cb = props.on_choice.clone();
        html! { <button type="button" class={class} onclick={Callback::from(move |_| cb.emit(choice.clone()))}>{ t(lang, id) }</button> }
    };
    let role = if n.is_refusal() { "alert" } else { "status" };
    html! {
        <div class={classes!("lab-notice", n.is_refusal().then_some("lab-notice-refused"))} {role}>
            <p class="notice-text">{ n.text(lang) }</p>
            <p class="notice-actions">
                if let Notice::ShareOffer(_) = n {
                    { button("share-open", MessageId::ShareOpen, NoticeChoice::OpenShared) }
                    { button("share-keep", MessageId::ShareKeep, NoticeChoice::KeepMine) }
                } else {
                    if props.can_undo {
                        { button("work-undo", MessageId::WorkUndo, NoticeChoice::Undo) }
                    }
                    { button("notice-close", MessageId::NoticeClose, NoticeChoice::Close) }
                }
            </p>
        </div>
    }
}
