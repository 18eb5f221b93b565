//! The TOML/YAML editor: a plain textarea with a line-number gutter, lines with a
//! finding marked in the gutter (a `!` and the severity in words, not colour only),
//! and the findings listed below with their file:line.
//!
//! Keyboard: Tab inserts two spaces, as in a code editor; Esc then Tab leaves the
//! editor (WCAG 2.1.2, no keyboard trap), and the note under the editor says so and
//! changes once Esc was pressed. Shift+Tab always moves focus backwards.
//!
//! An editor holds at most [`MAX_TEXT`] bytes, the limit a progress file and a
//! share link carry per text: a change past it (a 5 MB paste) is not made, the text
//! before it stays, and an alert says why. The work never grows past what the lab
//! can save, export and read back (issue 20).

use std::cell::Cell;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::{severity_word, DiagItem, DiagnosticsPanel};
use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::envelope::MAX_TEXT;

thread_local! {
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

/// A DOM id unique in the page (several labs may share one page).
pub fn unique_id(prefix: &str) -> String {
    let n = NEXT_ID.with(|c| {
        let n = c.get();
        c.set(n.wrapping_add(1));
        n
    });
    format!("{prefix}-{n}")
}

/// For lines `1..=lines`, the severity words of the findings on that line (joined
/// with ", ", in the findings' order), or `None`; findings off the text are ignored.
pub fn gutter_marks<'a>(lines: usize, findings: impl Iterator<Item = (Option<u32>, &'a str)>) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; lines];
    for (line, word) in findings {
        let Some(slot) = line.and_then(|l| (l as usize).checked_sub(1)).and_then(|i| out.get_mut(i)) else { continue };
        match slot {
            Some(s) => {
                s.push_str(", ");
                s.push_str(word);
            }
            None => *slot = Some(word.to_string()),
        }
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub lang: Lang,
    /// The visible label (e.g. the file's path).
    pub label: String,
    pub text: String,
    pub on_input: Callback<String>,
    #[prop_or_default]
    pub diagnostics: Vec<DiagItem>,
    /// Extra class for the wrapper (tests and styles find an editor by it).
    #[prop_or_default]
    pub class: Classes,
}

#[derive(Properties, PartialEq)]
struct GutterProps {
    lang: Lang,
    /// One entry per line: the severity words of its findings, if any.
    marks: Vec<Option<String>>,
}

/// The line numbers with their finding marks: its own component, so a keystroke that
/// changes neither the line count nor the marks does not diff 1,000 items again.
#[component(Gutter)]
fn gutter(props: &GutterProps) -> Html {
    html! {
        <ol class="editor-gutter" aria-label={t(props.lang, MessageId::EditorLines)}>
            { for props.marks.iter().enumerate().map(|(i, mark)| match mark {
                Some(words) => html! {
                    <li class="gutter-line has-diag" title={words.clone()}>
                        <span class="gutter-mark" aria-hidden="true">{ "!" }</span>
                        <span class="visually-hidden">{ words.clone() }</span>
                        { i + 1 }
                    </li>
                },
                None => html! { <li class="gutter-line">{ i + 1 }</li> },
            }) }
        </ol>
    }
}

#[component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let lang = props.lang;
    let id = use_state(|| unique_id("gpulab-editor"));
    let escaped = use_state(|| false);
    let note_id = format!("{}-keys", *id);
    let lines = props.text.split('\n').count().max(1);
    // The textarea is uncontrolled: its value is written only when it differs from
    // what the learner typed (a reset, an import, an undo). Writing `.value` on every
    // keystroke makes the browser re-lay out the whole text (about 100 ms for 1,000
    // lines); typing itself edits the text in place.
    // `typed` is the text this editor last reported: when it comes back as the prop,
    // the textarea already shows it, and reading `.value` back (the whole text, copied
    // into wasm) is skipped.
    let area_ref = use_node_ref();
    let typed = use_mut_ref(|| None::<String>);
    // The size of the last refused change (0: none). A `u32` state, as the chunk's
    // retry count is: each new hook state type costs the first load Yew's hook code.
    let refused = use_state(|| 0u32);
    {
        let area_ref = area_ref.clone();
        let typed = typed.clone();
        use_effect_with(props.text.clone(), move |text| {
            if typed.borrow_mut().take().as_ref() == Some(text) {
                return;
            }
            if let Some(area) = area_ref.cast::<web_sys::HtmlTextAreaElement>() {
                if area.value() != *text {
                    area.set_value(text);
                }
            }
        });
    }

    let oninput = {
        let on_input = props.on_input.clone();
        let typed = typed.clone();
        let refused = refused.clone();
        // The text the lab holds, put back when a change is refused.
        let held = props.text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(area) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                let text = area.value();
                if text.len() > MAX_TEXT {
                    area.set_value(&held);
                    refused.set(u32::try_from(text.len()).unwrap_or(u32::MAX));
                    return;
                }
                if *refused != 0 {
                    refused.set(0);
                }
                *typed.borrow_mut() = Some(text.clone());
                on_input.emit(text);
            }
        })
    };
    let onkeydown = {
        let escaped = escaped.clone();
        let on_input = props.on_input.clone();
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Escape" => escaped.set(true),
            "Tab" if e.shift_key() || *escaped => escaped.set(false),
            "Tab" => {
                e.prevent_default();
                if let Some(area) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                    let value = area.value();
                    let utf16: Vec<u16> = value.encode_utf16().collect();
                    let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
                    let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
                    let (start, end) = (start.min(utf16.len()), end.min(utf16.len()).max(start.min(utf16.len())));
                    let before = String::from_utf16_lossy(utf16.get(..start).unwrap_or_default());
                    let after = String::from_utf16_lossy(utf16.get(end..).unwrap_or_default());
                    let text = format!("{before}  {after}");
                    area.set_value(&text);
                    let caret = (start + 2) as u32;
                    area.set_selection_range(caret, caret).ok();
                    on_input.emit(text);
                }
            }
            _ => {
                if *escaped {
                    escaped.set(false);
                }
            }
        })
    };
    let onblur = {
        let escaped = escaped.clone();
        Callback::from(move |_: FocusEvent| escaped.set(false))
    };

    // The severities on each line, in one pass over the findings (not one pass per
    // line: 1,000 lines × 1,500 findings was most of a keystroke's cost in step 2).
    let marks = gutter_marks(lines, props.diagnostics.iter().map(|d| (d.line, severity_word(lang, d.severity))));

    html! {
        <div class={classes!("editor", props.class.clone())}>
            <label class="editor-label" for={(*id).clone()}>{ props.label.clone() }</label>
            <div class="editor-frame">
                <Gutter {lang} {marks} />
                <textarea id={(*id).clone()} class="editor-text" spellcheck="false" autocomplete="off"
                    autocapitalize="off" wrap="off" rows={(lines + 1).to_string()} lang="en"
                    aria-describedby={note_id.clone()}
                    ref={area_ref} {oninput} {onkeydown} {onblur} />
            </div>
            if *refused != 0 {
                <p class="editor-too-long" role="alert">
                    { tf(lang, MessageId::EditorTooLong, &[("n", refused.to_string().as_str()), ("max", MAX_TEXT.to_string().as_str())]) }
                </p>
            }
            <p id={note_id} class="editor-keys" aria-live="polite">
                { t(lang, if *escaped { MessageId::EditorKeysEscaped } else { MessageId::EditorKeys }) }
            </p>
            <DiagnosticsPanel {lang} items={props.diagnostics.clone()} />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks land on their line in order; lines without findings, findings without a
    /// line and findings past the end are left out.
    #[test]
    fn gutter_marks_by_line() {
        let findings = [(Some(2), "error"), (None, "warning"), (Some(2), "warning"), (Some(9), "error"), (Some(0), "info"), (Some(3), "info")];
        let marks = gutter_marks(3, findings.into_iter());
        assert_eq!(marks, [None, Some("error, warning".to_string()), Some("info".to_string())]);
    }
}
