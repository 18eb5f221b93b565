//! The diagnostics panel: every finding of the model with its file:line:column, a
//! severity written out in words (never by colour alone) and its stable code, in the
//! `gpulab` CLI's line format: `file:line:col: severity: message [code]`.
//!
//! A long list (a 1,000-line config can give well over a thousand findings) shows the
//! first [`SHOWN`] and a button for the rest: rendering every one on each keystroke
//! costs the page its 16 ms per keystroke, and the editor's gutter still marks every line.

use yew::prelude::*;

use crate::i18n::{t, tf, Lang, MessageId};
use gpulab_model::Severity;

/// One finding as the panel shows it; the message is the model's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiagItem {
    pub severity: Severity,
    /// `file:line:column`, when the finding has a place.
    pub location: Option<String>,
    /// The line the editor marks (1-based), when the finding is in the edited file.
    pub line: Option<u32>,
    pub message: String,
    pub code: String,
}

/// The word for a severity in the UI language.
pub fn severity_word(lang: Lang, s: Severity) -> &'static str {
    t(
        lang,
        match s {
            Severity::Info => MessageId::SeverityInfo,
            Severity::Warning => MessageId::SeverityWarning,
            Severity::Error => MessageId::SeverityError,
            Severity::Fatal => MessageId::SeverityFatal,
        },
    )
}

fn severity_class(s: Severity) -> &'static str {
    match s {
        Severity::Info => "diag diag-info",
        Severity::Warning => "diag diag-warning",
        Severity::Error => "diag diag-error",
        Severity::Fatal => "diag diag-fatal",
    }
}

/// How many findings are listed before "show all".
pub const SHOWN: usize = 100;

#[derive(Properties, PartialEq)]
pub struct DiagnosticsProps {
    pub lang: Lang,
    pub items: Vec<DiagItem>,
}

#[component(DiagnosticsPanel)]
pub fn diagnostics_panel(props: &DiagnosticsProps) -> Html {
    let lang = props.lang;
    let show_all = use_state(|| false);
    let total = props.items.len();
    let listed = if *show_all { total } else { total.min(SHOWN) };
    let on_show_all = {
        let show_all = show_all.clone();
        Callback::from(move |_: MouseEvent| show_all.set(true))
    };
    let (n, shown) = (total.to_string(), listed.to_string());
    // The listed findings are their own component: a keystroke that changes only
    // findings past the first hundred (or none) does not diff the hundred again.
    let visible: Vec<DiagItem> = props.items.iter().take(listed).cloned().collect();
    html! {
        <section class="diagnostics" aria-label={t(lang, MessageId::Diagnostics)}>
            <h3>{ t(lang, MessageId::Diagnostics) }</h3>
            if props.items.is_empty() {
                <p class="diag-none">{ t(lang, MessageId::DiagnosticsNone) }</p>
            } else {
                <DiagList {lang} items={visible} />
                if listed < total {
                    <p class="diag-more">
                        { tf(lang, MessageId::DiagnosticsShown, &[("shown", shown.as_str()), ("n", n.as_str())]) }
                        { " " }
                        <button type="button" class="diag-show-all" onclick={on_show_all}>
                            { tf(lang, MessageId::DiagnosticsShowAll, &[("n", n.as_str())]) }
                        </button>
                    </p>
                }
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct DiagListProps {
    lang: Lang,
    items: Vec<DiagItem>,
}

#[component(DiagList)]
fn diag_list(props: &DiagListProps) -> Html {
    let lang = props.lang;
    html! {
        <ul>
            { for props.items.iter().map(|d| html! {
                <li class={severity_class(d.severity)} data-code={d.code.clone()}>
                    if let Some(at) = &d.location {
                        <code class="diag-location">{ at.clone() }</code>{ ": " }
                    }
                    <span class="diag-severity">{ severity_word(lang, d.severity) }</span>
                    { ": " }<span class="diag-message">{ d.message.clone() }</span>
                    { " " }<code class="diag-code">{ format!("[{}]", d.code) }</code>
                </li>
            }) }
        </ul>
    }
}
