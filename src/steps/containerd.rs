//! Steps 1 and 2, the node's containerd files: the main config alone (step 1), then
//! with the NVIDIA drop-in (step 2), on the containerd version the learner picks.
//! Everything shown — `config dump` output, diagnostics with file:line, the blame
//! view, tables replaced whole and keys lost, the CRI plugin's status and error — is
//! `gpulab_model::containerd::load` output; upstream texts stay verbatim (`lang="en"`).
//! A syntax error is worded by the lab's parser until the chunk's containerd verdict
//! is there ([`crate::steps::syntax`]); the step says so meanwhile.

use gpulab_model::containerd::{self, version::MODELLED, Containerd, Files, LoadResult, Version};
use gpulab_model::Diagnostic;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use std::rc::Rc;

use crate::components::diagnostics::{DiagItem, DiagnosticsPanel, SHOWN};
use crate::components::editor::{unique_id, Editor};
use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::later::use_memo_later_drop;
use crate::state::LabAction;
use crate::steps::Step;
use crate::json::{Object, Value};
use crate::work_json::Reader;

/// Where the main config lives.
pub const MAIN: &str = containerd::MAIN_CONFIG;
/// Where the NVIDIA toolkit writes its drop-in.
pub const DROPIN: &str = "/etc/containerd/conf.d/99-nvidia.toml";

/// The node's files: the main config, plus the drop-in when `with_dropin`.
pub fn files(input: &ContainerdInput, with_dropin: bool) -> Files {
    let files = Files::new().with(MAIN, input.main.as_str());
    if with_dropin {
        files.with(DROPIN, input.dropin.as_str())
    } else {
        files
    }
}

/// The version the learner picked (the select offers the recorded ones).
pub fn version(input: &ContainerdInput) -> Result<Version, String> {
    Version::parse(&input.version).map_err(|e| e.to_string())
}

/// The built-in defaults of the lab's default version (`ContainerdInput::default`),
/// the only ones the first load carries: the on-demand chunk holds every version's
/// (`containerd_defaults`), asked for when the learner picks another.
const DEFAULT_DEFAULTS: (&str, &str) = ("1.7.34", include_str!("../../crates/model/data/containerd/defaults-1.7.34.toml"));

/// Why there is no model for the version the learner picked.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// Its built-in defaults are in the chunk, which is not there yet.
    Loading(Version),
    /// The version does not read, or the chunk answered with an error.
    Failed(String),
}

/// The built-in defaults of `version`: embedded (the default version's, or every
/// version's in a build with `embedded-defaults`), else asked of the chunk if it is
/// there (a synchronous call; the step keeps the model while the version stays).
fn defaults(version: &Version) -> Result<String, ModelError> {
    let recorded = version.recorded();
    if let Some(text) = containerd::schema::embedded(recorded) {
        return Ok(text.into());
    }
    if recorded == DEFAULT_DEFAULTS.0 {
        return Ok(DEFAULT_DEFAULTS.1.into());
    }
    let m = crate::steps::chunk::ready().ok_or_else(|| ModelError::Loading(version.clone()))?;
    let reply = crate::steps::chunk::call_text(&m, "containerd_defaults", recorded).map_err(ModelError::Failed)?;
    match gpulab_view::wire::reply(&reply).map_err(ModelError::Failed)? {
        crate::json::Value::String(text) => Ok(text),
        _ => Err(ModelError::Failed("containerd_defaults returned no text".into())),
    }
}

/// The model for the version the learner picked, its built-in defaults parsed once
/// (the step keeps it while the version stays, so a keystroke does not re-read them).
pub fn model(input: &ContainerdInput) -> Result<Containerd, ModelError> {
    let v = version(input).map_err(ModelError::Failed)?;
    let text = defaults(&v)?;
    Ok(Containerd::with_defaults(v, &text))
}

/// What the model computes for these files on this version, with containerd's
/// verdicts on their syntax that the chunk gave (it is asked for the texts it has not
/// judged yet, when it is loaded).
pub fn load(model: &Containerd, input: &ContainerdInput, with_dropin: bool) -> LoadResult {
    let mut texts = vec![(MAIN, input.main.as_str())];
    if with_dropin {
        texts.push((DROPIN, input.dropin.as_str()));
    }
    let verdicts = crate::steps::syntax::verdicts(&model.version, &texts);
    model.load_with(&files(input, with_dropin), &verdicts)
}

/// The line that says a syntax error is the lab parser's for now (containerd's own
/// wording comes with the chunk).
pub fn syntax_pending(lang: Lang, result: &LoadResult) -> Html {
    if !result.syntax_pending() {
        return Html::default();
    }
    html! { <p class="ctr-syntax-pending" role="status">{ t(lang, MessageId::CtrSyntaxPending) }</p> }
}

/// A containerd diagnostic's text in the UI language (message id `diag-<code>`; the
/// eight load errors share one text around containerd's own message).
pub fn diag_message(lang: Lang, d: &Diagnostic) -> String {
    let id = match d.code.as_str() {
        "containerd-table-replaced" => MessageId::DiagContainerdTableReplaced,
        "containerd-key-lost" => MessageId::DiagContainerdKeyLost,
        "containerd-value-changed" => MessageId::DiagContainerdValueChanged,
        "containerd-zero-value-ignored" => MessageId::DiagContainerdZeroValueIgnored,
        "containerd-unknown-key" => MessageId::DiagContainerdUnknownKey,
        "containerd-plugin-table-ignored" => MessageId::DiagContainerdPluginTableIgnored,
        "containerd-cri-plugin-error" => MessageId::DiagContainerdCriPluginError,
        "containerd-daemon-exits" => MessageId::DiagContainerdDaemonExits,
        "containerd-plugin-read-approximately" => MessageId::DiagContainerdPluginReadApproximately,
        _ if d.get("message").is_some() => MessageId::DiagContainerdLoadError,
        // No containerd code reaches here without a message id or a `message`.
        _ => return d.uncatalogued(),
    };
    let args: Vec<(&str, &str)> = d.args.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    tf(lang, id, &args)
}

/// The items of `all` (= `diag_items(lang, result, None)`) that concern `file`, with
/// the line the file's editor marks: the same as `diag_items(lang, result,
/// Some(file))`, without wording every message again (step 2 has three lists of
/// hundreds of findings on every keystroke).
pub fn diag_items_in(all: &[DiagItem], result: &LoadResult, file: &str) -> Vec<DiagItem> {
    result
        .diagnostics
        .iter()
        .zip(all)
        .filter_map(|(d, item)| {
            let line = d.primary.iter().chain(d.related.iter().map(|r| &r.span)).find(|s| s.file == file)?.line;
            Some(DiagItem { line: Some(line), ..item.clone() })
        })
        .collect()
}

/// The diagnostics as panel items; `file` limits them to one file (for an editor).
pub fn diag_items(lang: Lang, result: &LoadResult, file: Option<&str>) -> Vec<DiagItem> {
    result
        .diagnostics
        .iter()
        .filter(|d| match file {
            None => true,
            Some(f) => d.primary.as_ref().is_some_and(|s| s.file == f) || d.related.iter().any(|r| r.span.file == f),
        })
        .map(|d| {
            let line = match file {
                Some(f) => d
                    .primary
                    .iter()
                    .chain(d.related.iter().map(|r| &r.span))
                    .find(|s| s.file == f)
                    .map(|s| s.line),
                None => None,
            };
            DiagItem {
                severity: d.severity,
                location: d.primary.as_ref().map(ToString::to_string),
                line,
                message: diag_message(lang, d),
                code: d.code.clone(),
            }
        })
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct ContainerdStepProps {
    pub lang: Lang,
    pub step: Step,
    pub input: ContainerdInput,
    pub dispatch: Callback<LabAction>,
}

/// The version switch (shared with step 4); `id` is the step's own (kept across
/// renders, so a keystroke does not re-label the select).
pub fn version_select(lang: Lang, id: &str, current: &str, dispatch: &Callback<LabAction>) -> Html {
    let id = id.to_string();
    let dispatch = dispatch.clone();
    let onchange = Callback::from(move |e: Event| {
        if let Some(s) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
            dispatch.emit(LabAction::Containerd(ContainerdAction::Version(s.value())));
        }
    });
    html! {
        <div class="field ctr-version">
            <label for={id.clone()}>{ t(lang, MessageId::CtrVersion) }</label>
            <select {id} lang="en" {onchange}>
                { for MODELLED.iter().map(|v| html! { <option value={*v} selected={*v == current}>{ *v }</option> }) }
            </select>
        </div>
    }
}

#[component(ContainerdStep)]
pub fn containerd_step(props: &ContainerdStepProps) -> Html {
    let lang = props.lang;
    let with_dropin = props.step != Step::MainConfig;
    let select_id = use_state(|| unique_id("ctr-version"));
    // Loaded again once the chunk is there: its syntax verdicts may change the result,
    // and it holds the defaults of a version other than the default.
    let chunk_ready = crate::steps::chunk::ready().is_some();
    let model = use_memo((props.input.version.clone(), chunk_ready), |_| model(&props.input));
    let result_rc = use_memo_later_drop((props.input.clone(), with_dropin, chunk_ready), |(input, with, _)| match model.as_ref() {
        Ok(m) => Ok(load(m, input, *with)),
        Err(e) => Err(e.clone()),
    });
    let (pending, unjudged) = match result_rc.as_ref() {
        Ok(r) => (r.syntax_pending(), !r.loaded.syntax_unjudged.is_empty()),
        Err(e) => (matches!(e, ModelError::Loading(_)), false),
    };
    // A syntax error shown in the lab parser's words, or a version whose defaults the
    // chunk holds, asks for the chunk at once; a file without one waits for the idle
    // prefetch (go-toml may still find one).
    crate::steps::chunk::use_chunk_arrival(chunk_ready, pending, unjudged);
    let input = &props.input;
    let (version, result) = match (model.as_ref(), result_rc.as_ref()) {
        (Ok(m), Ok(r)) => (m.version.clone(), r),
        (Err(e), _) | (_, Err(e)) => {
            let shown = match e {
                ModelError::Loading(v) => {
                    let version = v.to_string();
                    match crate::steps::chunk::failed() {
                        false => html! { <p class="chunk-loading" role="status" aria-busy="true">{ tf(lang, MessageId::CtrDefaultsLoading, &[("version", version.as_str())]) }</p> },
                        true => html! {
                            <div class="chunk-failed" role="alert">
                                <p>{ tf(lang, MessageId::CtrDefaultsFailed, &[("version", version.as_str())]) }</p>
                                <p><button type="button" class="chunk-retry" onclick={Callback::from(|_| crate::steps::chunk::retry())}>{ t(lang, MessageId::ChunkRetry) }</button></p>
                            </div>
                        },
                    }
                }
                ModelError::Failed(e) => html! { <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e.as_str())]) }</p> },
            };
            return html! {
                <div class="step-containerd">
                    { version_select(lang, &select_id, &input.version, &props.dispatch) }
                    { shown }
                </div>
            };
        }
    };
    let on_main = {
        let d = props.dispatch.clone();
        Callback::from(move |text: String| d.emit(LabAction::Containerd(ContainerdAction::Main(text))))
    };
    let on_dropin = {
        let d = props.dispatch.clone();
        Callback::from(move |text: String| d.emit(LabAction::Containerd(ContainerdAction::Dropin(text))))
    };
    let e = &result.explanation;
    let all_items = diag_items(lang, result, None);
    let ids = version.cri_plugin_ids().join(", ");
    let exit = result.dump.exit.to_string();
    let status = e.cri_status.clone();
    html! {
        <div class={classes!("step-containerd", if with_dropin { "step-dropin" } else { "step-main" })}>
            { version_select(lang, &select_id, &input.version, &props.dispatch) }
            <p class="ctr-ids">{ tf(lang, MessageId::CtrVersionIds, &[("ids", ids.as_str())]) }</p>
            <Editor {lang} class="ctr-main" label={tf(lang, MessageId::CtrMainFile, &[("file", MAIN)])}
                text={input.main.clone()} on_input={on_main} diagnostics={diag_items_in(&all_items, result, MAIN)} />
            if with_dropin {
                <Editor {lang} class="ctr-dropin" label={tf(lang, MessageId::CtrDropinFile, &[("file", DROPIN)])}
                    text={input.dropin.clone()} on_input={on_dropin} diagnostics={diag_items_in(&all_items, result, DROPIN)} />
            }
            <section class="ctr-cri" aria-label={t(lang, MessageId::CtrCri)}>
                <h3>{ t(lang, MessageId::CtrCri) }</h3>
                <p class="ctr-cri-status"><strong>{ tf(lang, MessageId::CtrCriStatus, &[("status", status.as_str())]) }</strong></p>
                if let Some(line) = result.start.cri_error_line() {
                    <p>{ t(lang, MessageId::CtrCriError) }</p>
                    <Upstream {lang} class="ctr-cri-error" text={line.to_string()} />
                }
                if let Some(l) = &e.daemon_exit {
                    <p>{ t(lang, MessageId::CtrDaemonExit) }</p>
                    <Upstream {lang} class="ctr-daemon-exit" text={l.clone()} />
                }
                { syntax_pending(lang, result) }
            </section>
            if with_dropin {
                <ExplanationView {lang} result={Loaded(result_rc.clone())} />
            }
            <section class="ctr-dump-section">
                <h3>{ tf(lang, MessageId::CtrDump, &[("exit", exit.as_str())]) }</h3>
                <Upstream {lang} class="ctr-dump" text={result.dump.stdout.clone()} />
                if version.is_1x() && several_imports(&result.dump.stdout) {
                    <p class="ctr-imports-order">{ t(lang, MessageId::CtrImportsOrder) }</p>
                }
                if !result.dump.stderr.is_empty() {
                    <h4>{ t(lang, MessageId::CtrDumpStderr) }</h4>
                    <Upstream {lang} class="ctr-stderr" text={result.dump.stderr.clone()} />
                }
            </section>
            <DiagnosticsPanel {lang} items={all_items} />
            { crate::steps::reset_step(lang, props.step, &props.dispatch) }
        </div>
    }
}

/// Does a dump's `imports = [...]` line list more than one file? containerd 1.x builds
/// it from a Go map, so the real order changes from run to run; the model prints it
/// sorted, and the step says so under the dump.
fn several_imports(dump: &str) -> bool {
    dump.lines().any(|l| l.starts_with("imports = [") && gpulab_model::korean::find(l, ", ").is_some())
}

/// The load result as a prop, compared by identity: a new result is a new load.
#[derive(Clone)]
struct Loaded(Rc<Result<LoadResult, ModelError>>);

impl PartialEq for Loaded {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct ExplanationProps {
    lang: Lang,
    result: Loaded,
}

/// The first [`SHOWN`] of `n` rows, or all of them once the learner asked; with the
/// line that says so and the button for the rest.
fn capped(lang: Lang, n: usize, all: &UseStateHandle<bool>, class: &'static str) -> (usize, Html) {
    if **all || n <= SHOWN {
        return (n, Html::default());
    }
    let on_all = {
        let all = all.clone();
        Callback::from(move |_: MouseEvent| all.set(true))
    };
    let (shown, n) = (SHOWN.to_string(), n.to_string());
    let more = html! {
        <p class={classes!("list-more", class)}>
            { tf(lang, MessageId::CtrListShown, &[("shown", shown.as_str()), ("n", n.as_str())]) }
            { " " }
            <button type="button" class="list-show-all" onclick={on_all}>{ tf(lang, MessageId::CtrListShowAll, &[("n", n.as_str())]) }</button>
        </p>
    };
    (SHOWN, more)
}

/// Step 2's explanation: the files in load order, the tables replaced whole with the
/// keys each lost, and the blame table. A drop-in that replaces a big table loses
/// hundreds of keys: like the findings, the long lists show their first [`SHOWN`]
/// rows until the learner asks for all (re-rendering every row on each keystroke
/// would cost the page its frame).
#[component(ExplanationView)]
fn explanation_view(props: &ExplanationProps) -> Html {
    let lang = props.lang;
    let all_lost = use_state(|| false);
    let all_blame = use_state(|| false);
    let Ok(result) = props.result.0.as_ref() else { return Html::default() };
    let e = &result.explanation;
    let builtin = t(lang, MessageId::CtrBuiltin);
    // One list, one count: the settings that do not reach the effective config
    // (`Explanation::lost`), each once, and the bold total is its length.
    let lost = e.lost.len().to_string();
    let (lost_shown, lost_more) = capped(lang, e.lost.len(), &all_lost, "ctr-lost-more");
    let lost_lines: Vec<String> = e
        .lost
        .iter()
        .take(lost_shown)
        .map(|l| {
            let at = l.defined_at.as_deref().unwrap_or(builtin);
            let args = [("key", l.key.as_str()), ("value", l.value.as_str()), ("at", at), ("by", l.lost_at.as_deref().unwrap_or("?"))];
            tf(lang, if l.reason == "replaced" { MessageId::CtrLostLine } else { MessageId::CtrIgnoredLine }, &args)
        })
        .collect();
    let blame: Vec<_> = e.blame.iter().filter(|b| b.from.is_some()).collect();
    let (blame_shown, blame_more) = capped(lang, blame.len(), &all_blame, "ctr-blame-more");
    html! {
        <>
            <section class="ctr-files">
                <h3>{ t(lang, MessageId::CtrFiles) }</h3>
                <ol lang="en">{ for e.files.iter().map(|f| html! { <li><code>{ f.clone() }</code></li> }) }</ol>
            </section>
            <section class="ctr-replaced">
                <h3>{ t(lang, MessageId::CtrReplaced) }</h3>
                if e.replaced.is_empty() {
                    <p>{ t(lang, MessageId::CtrNone) }</p>
                } else {
                    <ul>
                        { for e.replaced.iter().map(|r| html! {
                            <li>
                                { tf(lang, MessageId::CtrReplacedLine, &[
                                    ("table", r.table.as_str()),
                                    ("by", r.by.as_deref().unwrap_or("?")),
                                    ("earlier", r.earlier.as_deref().unwrap_or(builtin)),
                                ]) }
                            </li>
                        }) }
                    </ul>
                }
                if !e.lost.is_empty() {
                    <p class="ctr-lost-count"><strong>{ tf(lang, MessageId::CtrLostCount, &[("n", lost.as_str())]) }</strong></p>
                    <LostKeys lines={lost_lines} />
                    { lost_more }
                }
            </section>
            <div class="table-scroll" tabindex="0" role="region" aria-label={t(lang, MessageId::CtrBlame)}>
                <table class="ctr-blame">
                    <caption>{ t(lang, MessageId::CtrBlame) }</caption>
                    <thead><tr>
                        <th scope="col">{ t(lang, MessageId::CtrBlameKey) }</th>
                        <th scope="col">{ t(lang, MessageId::CtrBlameValue) }</th>
                        <th scope="col">{ t(lang, MessageId::CtrBlameFrom) }</th>
                    </tr></thead>
                    <BlameRows rows={blame.iter().take(blame_shown).map(|b| (*b).clone()).collect::<Vec<_>>()} />
                </table>
            </div>
            { blame_more }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct LostKeysProps {
    lines: Vec<String>,
}

/// The listed lost keys of one replaced table: a component of their own, so a
/// keystroke that leaves them as they were does not diff them again.
#[component(LostKeys)]
fn lost_keys(props: &LostKeysProps) -> Html {
    html! {
        <ul>
            { for props.lines.iter().map(|l| html! { <li class="ctr-lost"><strong>{ l.clone() }</strong></li> }) }
        </ul>
    }
}

#[derive(Properties, PartialEq)]
struct BlameRowsProps {
    rows: Vec<containerd::explain::Blame>,
}

/// The listed blame rows (like [`LostKeys`], re-diffed only when they change).
#[component(BlameRows)]
fn blame_rows(props: &BlameRowsProps) -> Html {
    html! {
        <tbody lang="en">
            { for props.rows.iter().map(|b| html! {
                <tr>
                    <th scope="row"><code>{ b.key.clone() }</code></th>
                    <td><code>{ b.value.clone() }</code></td>
                    <td><code>{ b.from.clone().unwrap_or_default() }</code></td>
                </tr>
            }) }
        </tbody>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Steps 1 and 2: the node's containerd files and the containerd version.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct ContainerdInput {
    /// A recorded version name (`1.7.34`, `2.0.11`, …).
    pub version: String,
    /// `/etc/containerd/config.toml`.
    pub main: String,
    /// `/etc/containerd/conf.d/99-nvidia.toml` (step 2 adds it).
    pub dropin: String,
}

impl Default for ContainerdInput {
    fn default() -> Self {
        ContainerdInput {
            version: "1.7.34".into(),
            main: include_str!("data/incident-main.toml").into(),
            dropin: include_str!("data/incident-99-nvidia.toml").into(),
        }
    }
}

/// A change to steps 1–2's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerdAction {
    Version(String),
    Main(String),
    Dropin(String),
}

impl ContainerdInput {
    /// The input after `a`.
    pub fn apply(&mut self, a: ContainerdAction) {
        match a {
            ContainerdAction::Version(v) => self.version = v,
            ContainerdAction::Main(t) => self.main = t,
            ContainerdAction::Dropin(t) => self.dropin = t,
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> ContainerdInput {
    let mut c = ContainerdInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "version" => rd.string(v, &at, &mut c.version),
            "main" => rd.string(v, &at, &mut c.main),
            "dropin" => rd.string(v, &at, &mut c.dropin),
            _ => rd.unknown(path, key, &["version", "main", "dropin"]),
        }
    }
    c
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, c: &ContainerdInput) {
    Object::new(out).str("version", &c.version).str("main", &c.main).str("dropin", &c.dropin).end();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The imports-order note shows for a dump whose imports line lists several files.
    #[test]
    fn several_imports_reads_the_imports_line() {
        let cases = [
            ("version = 2\nimports = [\"/a.toml\", \"/b.toml\"]\n", true),
            ("imports = [\"/etc/containerd/conf.d/*.toml\"]\nversion = 2\n", false),
            ("imports = []\n", false),
            ("  x = \"imports = [a, b]\"\n", false),
            ("", false),
        ];
        for (dump, want) in cases {
            assert_eq!(several_imports(dump), want, "{dump:?}");
        }
    }

    /// The one version whose defaults the first load carries is the lab's default
    /// version, and its text is that version's embedded dump.
    #[test]
    fn the_first_load_carries_the_default_versions_defaults() {
        assert_eq!(ContainerdInput::default().version, DEFAULT_DEFAULTS.0);
        assert_eq!(containerd::schema::embedded(DEFAULT_DEFAULTS.0), Some(DEFAULT_DEFAULTS.1));
    }

    /// An editor's findings taken from the step's list equal those worded for the file
    /// alone, on every recorded version, for the incident and a main config with a
    /// syntax error.
    #[test]
    fn diag_items_in_equals_diag_items_for_the_file() {
        let mut seen = [0, 0];
        for main in [ContainerdInput::default().main, "version = 2\n[plugins\n".to_string()] {
            for v in MODELLED {
                let input = ContainerdInput { version: (*v).to_string(), main: main.clone(), ..ContainerdInput::default() };
                let result = load(&model(&input).unwrap_or_else(|e| panic!("{e:?}")), &input, true);
                for lang in Lang::ALL {
                    let all = diag_items(lang, &result, None);
                    for (i, file) in [MAIN, DROPIN].into_iter().enumerate() {
                        let items = diag_items_in(&all, &result, file);
                        assert_eq!(items, diag_items(lang, &result, Some(file)), "{v} {file}");
                        seen[i] += items.len();
                    }
                }
            }
        }
        assert!(seen[0] > 0 && seen[1] > 0, "findings in the main config and the drop-in: {seen:?}");
    }
}
