//! Step 3, check-runtime.sh: the learner picks what the check looks for (the handler
//! GPU pods need, the main config's runtime whose settings must survive) and sees what
//! each of the five checks reads (`ctr plugins ls`, the loaded CRI config, `config
//! dump`), then the script's output on the simulated node — the node as step 4 left
//! it. The verdict and every line are `gpulab_model::check_runtime` output
//! (`evaluate`, `render_text`), the same rules and texts as the real script, which
//! downloads from here.

use gpulab_model::check_runtime::{self, looked_at, render_text, simulated as node, CheckReport};
use gpulab_model::containerd::MAIN_CONFIG;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::editor::unique_id;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{CheckAction, CheckInput, ContainerdInput, LabAction, RestartInput};
use crate::steps::restart::{node_check, replay, state_text};
use crate::steps::Step;

/// The script itself, for download: a file of the bundle (index.html copies
/// `scripts/check-runtime.sh` into dist/), not 30 KB of the first-load wasm.
pub const SCRIPT_FILE: &str = "check-runtime.sh";

/// The check's language for the UI language.
pub fn model_lang(lang: Lang) -> check_runtime::Lang {
    match lang {
        Lang::Ko => check_runtime::Lang::Ko,
        Lang::En => check_runtime::Lang::En,
    }
}

/// What the script prints for `report` (its text output, byte for byte).
pub fn render(report: &CheckReport, check: &CheckInput, lang: Lang) -> String {
    let nc = node_check(check);
    render_text(report, &nc.address, &nc.config, &check.handler, model_lang(lang))
}

/// The report on the node as the learner's operations left it.
pub fn run_now(input: &ContainerdInput, restart: &RestartInput, check: &CheckInput) -> Result<CheckReport, String> {
    let r = replay(input, restart, check)?;
    Ok(check_runtime::evaluate(&node::inputs(&r.daemon, &node_check(check))))
}

#[derive(Properties, PartialEq)]
pub struct CheckStepProps {
    pub lang: Lang,
    pub input: ContainerdInput,
    pub restart: RestartInput,
    pub check: CheckInput,
    pub dispatch: Callback<LabAction>,
}

fn text_field(lang: Lang, label: MessageId, class: &'static str, value: &str, make: fn(String) -> CheckAction, dispatch: &Callback<LabAction>) -> Html {
    let id = unique_id(class);
    let dispatch = dispatch.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        if let Some(i) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
            dispatch.emit(LabAction::Check(make(i.value())));
        }
    });
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <input {id} type="text" lang="en" spellcheck="false" value={value.to_string()} {oninput} />
        </div>
    }
}

#[component(CheckStep)]
pub fn check_step(props: &CheckStepProps) -> Html {
    let lang = props.lang;
    let replayed = use_memo((props.input.clone(), props.restart.clone(), props.check.clone()), |(i, r, c)| {
        replay(i, r, c).map(|r| {
            let report = check_runtime::evaluate(&node::inputs(&r.daemon, &node_check(c)));
            (r.daemon.state.clone(), report)
        })
    });
    let (state, report) = match replayed.as_ref() {
        Ok(x) => x,
        Err(e) => return html! { <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e.as_str())]) }</p> },
    };
    let nc = node_check(&props.check);
    let on_reset = {
        let d = props.dispatch.clone();
        Callback::from(move |_| d.emit(LabAction::ResetStep(Step::CheckScript)))
    };
    let script_href = crate::steps::chunk::asset_url(SCRIPT_FILE);
    let state = state_text(lang, state);
    let code = report.verdict.exit_code().to_string();
    html! {
        <div class="step-check">
            <fieldset class="ck-choose">
                <legend>{ t(lang, MessageId::CkChoose) }</legend>
                { text_field(lang, MessageId::CkHandler, "ck-handler", &props.check.handler, CheckAction::Handler, &props.dispatch) }
                { text_field(lang, MessageId::CkKeep, "ck-keep", &props.check.keep, CheckAction::Keep, &props.dispatch) }
            </fieldset>
            <p class="ck-node">{ tf(lang, MessageId::CkNode, &[("version", props.input.version.as_str()), ("state", state.as_str())]) }</p>
            <section class="ck-looks-at">
                <h3>{ t(lang, MessageId::CkLooksAt) }</h3>
                <ol lang="en">
                    { for (1u8..=5).map(|c| html! {
                        <li><code>{ check_runtime::check_name(c) }</code>{ ": " }<code>{ looked_at(c, &nc.address, MAIN_CONFIG) }</code></li>
                    }) }
                </ol>
            </section>
            <section class="ck-result" aria-live="polite">
                <h3>{ t(lang, MessageId::CkOutput) }</h3>
                <p class="ck-exit"><strong>{ tf(lang, MessageId::CkExit, &[("code", code.as_str()), ("verdict", report.verdict.as_str())]) }</strong></p>
                <pre class="check-output">{ render(report, &props.check, lang) }</pre>
            </section>
            <p>
                <a class="button ck-download" href={script_href} download="check-runtime.sh">{ t(lang, MessageId::CkDownload) }</a>
                { " " }
                <button type="button" class="reset-step" onclick={on_reset}>{ t(lang, MessageId::ResetStep) }</button>
            </p>
        </div>
    }
}
