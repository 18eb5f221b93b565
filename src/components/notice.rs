//! The lab's notices about the learner's work as a whole: a share link that was
//! opened, offered or refused; a file imported or refused; a reset, with Undo while
//! nothing has changed since; work export would not write; the lab restarted after
//! a trap in a step. Refusals use `role="alert"`, the rest
//! `role="status"`; the words say what happened (never colour alone). A plain
//! function, not a component: every component costs the first load wasm code.

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
    /// Export or a share link refused to write work the lab could not read back
    /// (a text over its limit, the file over its size): why.
    NotWritten(ImportError),
    /// The lab's module trapped (or panicked) while showing this step and was
    /// restarted by the loader: the step and the error's details.
    Trapped(Step, String),
}

/// What the learner chose in a notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeChoice {
    OpenShared,
    KeepMine,
    Undo,
    Close,
    /// After a trap: reset the step's saved input (the rest is kept).
    TrapDiscard,
    /// After a trap: keep the input and open the step again.
    TrapRetry,
}

impl Notice {
    /// Notices about the share link sit at the top of the lab; the rest by the
    /// work controls.
    pub fn is_share(&self) -> bool {
        matches!(self, Notice::ShareOffer(_) | Notice::ShareRejected(_) | Notice::ShareOpened | Notice::Trapped(..))
    }

    /// Whether it reports something refused (an alert rather than a status).
    pub fn is_refusal(&self) -> bool {
        matches!(self, Notice::ShareRejected(_) | Notice::ImportFailed(..) | Notice::NotWritten(_) | Notice::Trapped(..))
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
            Notice::NotWritten(e) => tf(lang, MessageId::WorkNotWritten, &[("reason", import_reason(lang, e).as_str())]),
            Notice::Trapped(s, d) => tf(lang, MessageId::LabTrapped, &[("n", s.number().to_string().as_str()), ("details", d)]),
        }
    }

    /// The choices the notice offers.
    pub fn choices(&self, can_undo: bool) -> Vec<NoticeChoice> {
        match self {
            Notice::ShareOffer(_) => vec![NoticeChoice::OpenShared, NoticeChoice::KeepMine],
            Notice::Trapped(..) => vec![NoticeChoice::TrapDiscard, NoticeChoice::TrapRetry],
            _ if can_undo => vec![NoticeChoice::Undo, NoticeChoice::Close],
            _ => vec![NoticeChoice::Close],
        }
    }
}

/// The notice with its buttons; `on` receives the choice.
pub fn notice_view(lang: Lang, n: &Notice, can_undo: bool, on: &Callback<NoticeChoice>) -> Html {
    let role = if n.is_refusal() { "alert" } else { "status" };
    html! {
        <div class={classes!("lab-notice", n.is_refusal().then_some("lab-notice-refused"))} {role}>
            <p class="notice-text">{ n.text(lang) }</p>
            <p class="notice-actions">
                { for n.choices(can_undo).into_iter().map(|c| {
                    let (class, id) = match c {
                        NoticeChoice::OpenShared => ("share-open", MessageId::ShareOpen),
                        NoticeChoice::KeepMine => ("share-keep", MessageId::ShareKeep),
                        NoticeChoice::Undo => ("work-undo", MessageId::WorkUndo),
                        NoticeChoice::Close => ("notice-close", MessageId::NoticeClose),
                        NoticeChoice::TrapDiscard => ("trap-discard", MessageId::TrapDiscard),
                        NoticeChoice::TrapRetry => ("trap-retry", MessageId::TrapRetry),
                    };
                    html! { <button type="button" {class} onclick={on.reform(move |_| c)}>{ t(lang, id) }</button> }
                }) }
            </p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A share offer asks open-or-keep; other notices offer Undo only while possible.
    #[test]
    fn choices_follow_the_notice() {
        use NoticeChoice::*;
        let cases = [
            (Notice::ShareOffer(Box::default()), true, vec![OpenShared, KeepMine]),
            (Notice::ResetAll, true, vec![Undo, Close]),
            (Notice::ResetAll, false, vec![Close]),
            (Notice::ShareRejected(LinkError::Damaged), false, vec![Close]),
            (Notice::Trapped(Step::DropIn, "unreachable".into()), true, vec![TrapDiscard, TrapRetry]),
        ];
        for (n, can_undo, expected) in cases {
            assert_eq!(n.choices(can_undo), expected, "{n:?}");
        }
        assert!(Notice::ShareRejected(LinkError::Damaged).is_refusal() && Notice::ShareOpened.is_share());
    }
}
