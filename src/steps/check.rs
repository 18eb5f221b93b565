//! Step 3, check-runtime.sh: the learner picks what the check looks for (the handler
//! GPU pods need, the main config's runtime whose settings must survive) and sees what
//! each of the five checks reads (`ctr plugins ls`, the loaded CRI config, `config
//! dump`), then the script's output on the simulated node — the node as step 4 left
//! it. The verdict and every line are `gpulab_model::check_runtime` output
//! (`evaluate`, `render_text`), the same rules and texts as the real script, which
//! downloads from here. The check's rules run in the on-demand chunk
//! (`crates/web-k8s/src/check.rs`, also step 4's check runs); this step shows a
//! loading state until it is here.

use gpulab_view::{api, CheckRequest, CheckView, ContainerdFiles};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::editor::unique_id;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{ContainerdInput, LabAction, RestartInput};
use crate::steps::chunk::{call, model_error, placeholder, use_chunk, Chunk};
use crate::steps::restart::{replay, state_text};
use gpulab_view::wire::check_view;
use crate::steps::Step;
use crate::json::{Object, Value};
use crate::work_json::Reader;

/// The script itself, for download: a file of the bundle (index.html copies
/// `scripts/check-runtime.sh` into dist/), not 30 KB of the first-load wasm.
pub const SCRIPT_FILE: &str = "check-runtime.sh";

/// The chunk's request: the node (steps 1–2's files, step 4's operations) and what
/// the check looks for.
pub fn check_request(input: &ContainerdInput, restart: &RestartInput, check: &CheckInput, lang: Lang) -> CheckRequest {
    CheckRequest {
        containerd: ContainerdFiles { version: input.version.clone(), main: input.main.clone(), dropin: input.dropin.clone() },
        by_hand: restart.supervisor == crate::state::SupervisorChoice::ByHand,
        ops: restart.ops.iter().map(|op| op.name().to_string()).collect(),
        handler: check.handler.clone(),
        keep: check.keep.clone(),
        lang: lang.tag().to_string(),
    }
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
    let daemon = use_memo((props.input.clone(), props.restart.clone()), |(i, r)| replay(i, r).map(|d| d.state.clone()));
    let (chunk, retry) = use_chunk();
    let view = use_memo((chunk.clone(), check_request(&props.input, &props.restart, &props.check, lang)), |(chunk, req)| match chunk {
        Chunk::Ready(m) => Some(call(m, api::CHECK, req, check_view)),
        _ => None,
    });
    let state = match daemon.as_ref() {
        Ok(state) => state_text(lang, state),
        Err(e) => return model_error(lang, e),
    };
    let script_href = crate::steps::chunk::asset_url(SCRIPT_FILE);
    let result = match (placeholder(lang, &chunk, &retry), view.as_ref()) {
        (Some(wait), _) => wait,
        (None, Some(Ok(v))) => result(lang, v),
        (None, Some(Err(e))) => model_error(lang, e),
        (None, None) => Html::default(),
    };
    html! {
        <div class="step-check">
            <fieldset class="ck-choose">
                <legend>{ t(lang, MessageId::CkChoose) }</legend>
                { text_field(lang, MessageId::CkHandler, "ck-handler", &props.check.handler, CheckAction::Handler, &props.dispatch) }
                { text_field(lang, MessageId::CkKeep, "ck-keep", &props.check.keep, CheckAction::Keep, &props.dispatch) }
            </fieldset>
            <p class="ck-node">{ tf(lang, MessageId::CkNode, &[("version", props.input.version.as_str()), ("state", state.as_str())]) }</p>
            { result }
            <p>
                <a class="button ck-download" href={script_href} download="check-runtime.sh">{ t(lang, MessageId::CkDownload) }</a>
            </p>
            { crate::steps::reset_step(lang, Step::CheckScript, &props.dispatch) }
        </div>
    }
}

/// What the five checks read, and the script's output on the node now.
fn result(lang: Lang, v: &CheckView) -> Html {
    let code = v.now.exit_code.to_string();
    html! {
        <>
            <section class="ck-looks-at">
                <h3>{ t(lang, MessageId::CkLooksAt) }</h3>
                <ol lang="en">
                    { for v.looked_at.iter().map(|(name, reads)| html! {
                        <li><code>{ name.clone() }</code>{ ": " }<code>{ reads.clone() }</code></li>
                    }) }
                </ol>
            </section>
            <section class="ck-result" aria-live="polite">
                <h3>{ t(lang, MessageId::CkOutput) }</h3>
                <p class="ck-exit"><strong>{ tf(lang, MessageId::CkExit, &[("code", code.as_str()), ("verdict", v.now.verdict.as_str())]) }</strong></p>
                <pre class="check-output">{ v.now.output.clone() }</pre>
            </section>
        </>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Step 3: what the check is asked to look for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct CheckInput {
    /// `--handler`: the runtime handler GPU pods need.
    pub handler: String,
    /// `--keep`: the main config's runtime whose settings must survive the drop-in.
    pub keep: String,
}

impl Default for CheckInput {
    fn default() -> Self {
        CheckInput { handler: "nvidia".into(), keep: "runc".into() }
    }
}

/// A change to step 3's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckAction {
    Handler(String),
    Keep(String),
}

impl CheckInput {
    /// The input after `a`.
    pub fn apply(&mut self, a: CheckAction) {
        match a {
            CheckAction::Handler(h) => self.handler = h,
            CheckAction::Keep(k) => self.keep = k,
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> CheckInput {
    let mut c = CheckInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "handler" => rd.string(v, &at, &mut c.handler),
            "keep" => rd.string(v, &at, &mut c.keep),
            _ => rd.unknown(path, key, &["handler", "keep"]),
        }
    }
    c
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, c: &CheckInput) {
    Object::new(out).str("handler", &c.handler).str("keep", &c.keep).end();
}
