//! Step 8, the rollout stall and the incident report, rendered from the on-demand
//! chunk ([`crate::steps::chunk`], `crates/web-k8s`): the device-plugin DaemonSet
//! update of the lab's incident (the same as `gpulab rollout device-plugin-stall`),
//! one controller sync per click — no motion without the learner. `kubectl get ds`,
//! `rollout status` and `get pods -o wide` are the model's byte-exact texts. The
//! learner names the node and the cause; the chunk judges the answer against the
//! model's diagnosis and writes the incident report, which downloads as Markdown.
//! The step ends with the chunk's import panel (`<gpulab-import>`, defined by the chunk:
//! `crates/web-k8s/src/import`), where the learner rolls a DaemonSet out on their own cluster.

use gpulab_view::{api, CellView, Judgement, RolloutRequest, RolloutView, TableView};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::editor::unique_id;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::envelope;
use crate::state::{LabAction, Work};
use crate::steps::chunk::{call, model_error, placeholder, use_chunk, Chunk};
use crate::steps::Step;
use crate::json::{Object, Value};
use crate::state::SYNCS;
use crate::work_json::Reader;

/// The label of each cause code the chunk offers (diagnosis link codes).
pub fn cause_label(code: &str) -> Option<MessageId> {
    Some(match code {
        "daemon-not-restarted" => MessageId::RoCauseDaemonNotRestarted,
        "handler-not-loaded" => MessageId::RoCauseHandlerNotLoaded,
        "runtimeclass-missing" => MessageId::RoCauseRuntimeclassMissing,
        "dropin-replaced-table" => MessageId::RoCauseDropinReplacedTable,
        "pod-create-refused" => MessageId::RoCausePodCreateRefused,
        "unavailable-budget-used" => MessageId::RoCauseUnavailableBudgetUsed,
        _ => return None,
    })
}

/// The message for the chunk's judgement of the answer.
pub fn judgement_text(j: Judgement) -> MessageId {
    match j {
        Judgement::Right => MessageId::RoRight,
        Judgement::WrongNode => MessageId::RoWrongNode,
        Judgement::Symptom => MessageId::RoSymptom,
        Judgement::WrongCause => MessageId::RoWrongCause,
    }
}

/// A cause code's label in `lang` (the code itself for one the page has no label for).
fn cause_text(lang: Lang, code: &str) -> String {
    cause_label(code).map_or_else(|| code.to_string(), |id| t(lang, id).to_string())
}

/// The verdict line: the judgement with the node, the named cause and, for a symptom,
/// the roots it is a symptom of.
pub fn judgement_line(lang: Lang, j: Judgement, node: &str, cause: &str, roots: &[String]) -> String {
    let cause = cause_text(lang, cause);
    let roots: Vec<String> = roots.iter().map(|r| cause_text(lang, r)).collect();
    let sep = if lang == Lang::Ko { ", " } else { "; " };
    tf(lang, judgement_text(j), &[("node", node), ("cause", cause.as_str()), ("roots", roots.join(sep).as_str())])
}

/// The chunk's request: the learner's whole work as the progress file export writes
/// it (step 8 runs on their node, RuntimeClass and patches, and the report is the one
/// `gpulab report --work` prints for that file), and whether to break it again.
pub fn request(work: &Work, lang: Lang, broken: bool) -> Result<RolloutRequest, String> {
    let work = envelope::export(work).map_err(|e| crate::share::text::import_reason(lang, &e))?;
    Ok(RolloutRequest { lang: lang.tag().to_string(), work, broken })
}

/// What step 8 says about how the rollout ends on the learner's cluster.
fn ending_line(lang: Lang, v: &RolloutView) -> String {
    let syncs = v.ending_syncs.to_string();
    match v.ending.as_str() {
        "completed" => tf(lang, MessageId::RoEndingCompleted, &[("n", syncs.as_str())]),
        "stalled" => {
            let why = v.stalled_why.join(" ");
            tf(lang, MessageId::RoEndingStalled, &[("n", syncs.as_str()), ("node", v.stalled_on.as_str()), ("why", why.as_str())])
        }
        _ => t(lang, MessageId::RoEndingUnsettled).to_string(),
    }
}

/// A cell's classes: marked by the learner, and (once answered) the model's evidence.
fn cell_class(c: &CellView) -> &'static str {
    match (c.marked, c.evidence) {
        (false, false) => "cell",
        (true, false) => "cell marked",
        (false, true) => "cell evidence",
        (true, true) => "cell marked evidence",
    }
}

/// A kubectl output as kubectl prints it, each cell the learner can mark a toggle
/// button (click, or Enter / Space from the keyboard) named by its table, row and
/// column; the text, padding included, is kubectl's byte for byte.
fn table(lang: Lang, table: &TableView, on_mark: &Callback<String>) -> Html {
    let class = match table.id.as_str() {
        "get-ds" => "upstream ro-table ro-get-ds",
        "status" => "upstream ro-table ro-status",
        _ => "upstream ro-table ro-pods",
    };
    let cell = |c: &CellView| {
        if c.key.is_empty() {
            return html! { <>{ c.text.clone() }{ c.pad.clone() }</> };
        }
        let (key, on) = (c.key.clone(), on_mark.clone());
        html! {
            <>
                <button type="button" class={cell_class(c)} aria-pressed={if c.marked { "true" } else { "false" }}
                    aria-label={c.label.clone()} onclick={Callback::from(move |_| on.emit(key.clone()))}>{ c.text.clone() }</button>
                { c.pad.clone() }
            </>
        }
    };
    html! {
        <pre {class} lang="en" aria-label={t(lang, MessageId::UpstreamNote)}>
            { for table.cells.iter().map(cell) }
        </pre>
    }
}

#[derive(Properties, PartialEq)]
pub struct RolloutStepProps {
    pub lang: Lang,
    pub work: Work,
    pub dispatch: Callback<LabAction>,
}

fn select(lang: Lang, label: MessageId, class: &'static str, current: &str, options: Vec<(String, String)>, on: Callback<String>) -> Html {
    let id = unique_id(class);
    let onchange = Callback::from(move |e: Event| {
        if let Some(s) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
            on.emit(s.value());
        }
    });
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <select {id} {onchange}>
                <option value="" selected={current.is_empty()}>{ t(lang, MessageId::RoChoose) }</option>
                { for options.into_iter().map(|(v, l)| html! { <option value={v.clone()} selected={v == current}>{ l }</option> }) }
            </select>
        </div>
    }
}

/// Step 8: the chunk's loading state, its error with a retry, or the step (one
/// component: its hooks run before the chunk is there, the view once it is).
#[component(RolloutStep)]
pub fn rollout_step(props: &RolloutStepProps) -> Html {
    let lang = props.lang;
    let (chunk, retry) = use_chunk();
    // "Break it again": the same cluster with the seed's broken drop-in on the
    // learner's node (not saved: a look at the stall, not the learner's work).
    let broken = use_state(|| false);
    let view = use_memo((chunk.clone(), request(&props.work, lang, *broken)), |(chunk, req)| match chunk {
        Chunk::Ready(module) => Some(req.as_ref().map_err(Clone::clone).and_then(|req| call(module, api::ROLLOUT, req, gpulab_view::wire::rollout_view))),
        _ => None,
    });
    if let Some(html) = placeholder(lang, &chunk, &retry) {
        return html! { <div class="step-rollout">{ html }</div> };
    }
    let on_break = {
        let broken = broken.clone();
        Callback::from(move |_| broken.set(!*broken))
    };
    let v = match view.as_ref() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return model_error(lang, e),
        None => return html! {},
    };
    let act = |a: RolloutAction| {
        let d = props.dispatch.clone();
        Callback::from(move |_| d.emit(LabAction::Rollout(a.clone())))
    };
    let on_node = {
        let d = props.dispatch.clone();
        Callback::from(move |v: String| d.emit(LabAction::Rollout(RolloutAction::Node(v))))
    };
    let on_cause = {
        let d = props.dispatch.clone();
        Callback::from(move |v: String| d.emit(LabAction::Rollout(RolloutAction::Cause(v))))
    };
    let on_mark = {
        let d = props.dispatch.clone();
        Callback::from(move |k: String| d.emit(LabAction::Rollout(RolloutAction::Mark(k))))
    };
    let on_words = {
        let d = props.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(area) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
                d.emit(LabAction::Rollout(RolloutAction::Words(area.value())));
            }
        })
    };
    let words_id = unique_id("ro-words");
    let nodes: Vec<(String, String)> = v.nodes.iter().map(|n| (n.clone(), n.clone())).collect();
    let causes: Vec<(String, String)> = v
        .causes
        .iter()
        .map(|c| (c.clone(), cause_label(c).map_or_else(|| c.clone(), |id| t(lang, id).to_string())))
        .collect();
    let input = &props.work.rollout;
    let n = input.syncs.to_string();
    let href = format!("data:text/markdown;charset=utf-8,{}", String::from(js_sys::encode_uri_component(&v.report_md)));
    html! {
        <div class="step-rollout">
            <p>
                <button type="button" class="ro-sync" onclick={act(RolloutAction::Sync)}>{ t(lang, MessageId::RoSync) }</button>
                { " " }<span class="ro-syncs" aria-live="polite">{ tf(lang, MessageId::RoSyncs, &[("n", n.as_str())]) }</span>
            </p>
            <section class={match v.ending.as_str() { "completed" => "ro-ending completed", "stalled" => "ro-ending stalled", _ => "ro-ending" }} aria-live="polite">
                if v.broken {
                    <p class="ro-broken-note">{ t(lang, MessageId::RoBrokenNote) }</p>
                }
                <p class="ro-ending-text"><strong>{ ending_line(lang, v) }</strong></p>
                <p>
                    <button type="button" class="ro-break" aria-pressed={if v.broken { "true" } else { "false" }} onclick={on_break}>
                        { t(lang, if v.broken { MessageId::RoBackToMine } else { MessageId::RoBreakAgain }) }
                    </button>
                </p>
            </section>
            <p class="ro-mark-hint">{ t(lang, MessageId::RoMarkHint) }</p>
            { for v.tables.iter().zip([MessageId::RoGetDs, MessageId::RoStatus, MessageId::RoPods]).map(|(tv, title)| html! {
                <>
                    <h3>{ t(lang, title) }</h3>
                    { table(lang, tv, &on_mark) }
                </>
            }) }
            <fieldset class="ro-answer">
                <legend>{ t(lang, MessageId::RoAnswer) }</legend>
                { select(lang, MessageId::RoNode, "ro-node", &input.node, nodes, on_node) }
                { select(lang, MessageId::RoCause, "ro-cause", &input.cause, causes, on_cause) }
                <div class="field ro-words">
                    <label for={words_id.clone()}>{ t(lang, MessageId::RoWords) }</label>
                    <textarea id={words_id} rows="3" value={input.words.clone()} oninput={on_words} />
                </div>
                <button type="button" class="ro-submit" onclick={act(RolloutAction::Answer)}>{ t(lang, MessageId::RoSubmit) }</button>
            </fieldset>
            if let Some(j) = v.judgement {
                <section class="ro-verdict" aria-live="polite">
                    <p class="ro-judge"><strong>{ judgement_line(lang, j, &input.node, &input.cause, &v.roots) }</strong></p>
                    <p class="ro-evidence-note">{ t(lang, MessageId::RoEvidenceNote) }</p>
                    <h3>{ t(lang, MessageId::RoModel) }</h3>
                    <ul class="ro-diagnosis">
                        { for v.diagnosis.iter().map(|l| html! {
                            <li>
                                { l.text.clone() }
                                if let Some(e) = &l.evidence {
                                    <br /><span class="evidence">{ e.clone() }</span>
                                }
                            </li>
                        }) }
                    </ul>
                </section>
            }
            <section class="ro-report">
                <h3>{ t(lang, MessageId::RoReport) }</h3>
                <p><a class="button ro-report-md" {href} download="incident-report.md">{ t(lang, MessageId::RoReportMd) }</a></p>
                <details>
                    <summary>{ t(lang, MessageId::RoReportPreview) }</summary>
                    <pre class="ro-report-text">{ v.report_md.clone() }</pre>
                </details>
            </section>
            { crate::steps::import_panel("8", lang) }
            { crate::steps::reset_step(lang, Step::Rollout, &props.dispatch) }
        </div>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Step 8: how many controller syncs the learner stepped, and their answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct RolloutInput {
    pub syncs: u32,
    /// The node the learner names as holding the rollout.
    pub node: String,
    /// The cause they name (a diagnosis link code, e.g. `daemon-not-restarted`).
    pub cause: String,
    /// Whether they submitted the answer.
    pub answered: bool,
    /// The keys of the cells they marked as read (`get-ds/3/UP-TO-DATE`; the chunk
    /// names them), in the order they marked them, at most [`MAX_MARKS`].
    pub marks: Vec<String>,
    /// The node and the cause in their own words.
    pub words: String,
}

/// The most cells step 8 keeps marked (the three outputs of a stalled rollout hold
/// about a hundred; a mark past this many is refused, as on import).
pub const MAX_MARKS: usize = 200;
/// The longest cell key kept (a pod name is at most 253 bytes).
pub const MAX_MARK_LEN: usize = 300;

/// The most syncs step 8 steps (the seed incident stalls long before).
pub const MAX_SYNCS: u32 = 60;

/// A change to step 8's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RolloutAction {
    Sync,
    Node(String),
    Cause(String),
    Answer,
    /// Marks a cell as read, or unmarks it.
    Mark(String),
    Words(String),
}

impl RolloutInput {
    /// The input after `a`: a new node or cause takes the answer back; a mark
    /// toggles (at most [`MAX_MARKS`] keys of at most [`MAX_MARK_LEN`] bytes).
    pub fn apply(&mut self, a: RolloutAction) {
        match a {
            RolloutAction::Sync => self.syncs = (self.syncs + 1).min(MAX_SYNCS),
            RolloutAction::Node(n) => {
                self.node = n;
                self.answered = false;
            }
            RolloutAction::Cause(c) => {
                self.cause = c;
                self.answered = false;
            }
            RolloutAction::Answer => self.answered = true,
            RolloutAction::Mark(key) => {
                if let Some(i) = self.marks.iter().position(|m| *m == key) {
                    self.marks.remove(i);
                } else if self.marks.len() < MAX_MARKS && key.len() <= MAX_MARK_LEN {
                    self.marks.push(key);
                }
            }
            RolloutAction::Words(w) => self.words = w,
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> RolloutInput {
    let mut r = RolloutInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "syncs" => rd.u32(v, &at, &mut r.syncs, SYNCS),
            "node" => rd.string(v, &at, &mut r.node),
            "cause" => rd.string(v, &at, &mut r.cause),
            "answered" => rd.bool(v, &at, &mut r.answered),
            "marks" => r.marks = rd.list(v, &at, |me, item, at| me.text(item, at)),
            "words" => rd.string(v, &at, &mut r.words),
            _ => rd.unknown(path, key, &["syncs", "node", "cause", "answered", "marks", "words"]),
        }
    }
    r
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, r: &RolloutInput) {
    Object::new(out)
        .num("syncs", r.syncs.into())
        .str("node", &r.node)
        .str("cause", &r.cause)
        .bool("answered", r.answered)
        .strs("marks", r.marks.iter().map(String::as_str))
        .str("words", &r.words)
        .end();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cause the chunk offers has a label (the page never shows a bare code),
    /// and the request carries the page's language to the chunk.
    #[test]
    fn every_cause_has_a_label_and_the_request_its_language() {
        for c in gpu_node_lab_k8s::rollout::CAUSES {
            assert!(cause_label(c).is_some(), "{c}");
        }
        let req = request(&Work::default(), Lang::En, false).unwrap();
        assert_eq!(req.lang, "en");
        assert!(req.work.starts_with("{\"format\":\"gpu-node-lab/progress\""), "{}", req.work);
    }

    /// The model reads the app's work as the app means it: the lab's defaults, exported,
    /// read by the model equal the model's own defaults (what a share link that leaves
    /// sections out gets), and an edited work reads back as edited.
    #[test]
    fn the_model_reads_the_apps_work() {
        use gpulab_model::incident::work::{read_progress, LabWork};
        assert_eq!(read_progress(&envelope::export(&Work::default()).unwrap()), Ok(LabWork::default()));
        for (_, work, _) in walks() {
            let lab = read_progress(&envelope::export(&work).unwrap()).unwrap();
            let ops: Vec<&str> = work.restart.ops.iter().map(|o| o.name()).collect();
            assert_eq!((lab.restart.ops, lab.containerd.dropin, lab.rollout.syncs), (ops.iter().map(|o| o.to_string()).collect(), work.containerd.dropin, work.rollout.syncs));
        }
    }

    /// The two walks of the progress fixtures (`tests/progress/`): the lab's node not
    /// fixed (restarted on the drop-in that replaces the CRI table), and fixed (the
    /// full-table drop-in) and restarted.
    pub fn walks() -> Vec<(&'static str, Work, &'static str)> {
        use crate::state::DaemonOp;
        let ops = |o: &[DaemonOp]| o.to_vec();
        let mut unfixed = Work::default();
        unfixed.restart.ops = ops(&[DaemonOp::WriteDropin, DaemonOp::RunCheck, DaemonOp::Restart, DaemonOp::Wait, DaemonOp::RunCheck]);
        unfixed.kube.patches = vec![
            gpulab_view::NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() },
            gpulab_view::NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "abc".into() },
        ];
        unfixed.rollout.syncs = 12;
        unfixed.rollout.node = "gpu-node-2".into();
        unfixed.rollout.cause = "dropin-replaced-table".into();
        unfixed.rollout.answered = true;
        unfixed.rollout.marks = vec!["get-ds/12/UP-TO-DATE".into(), "status/1".into()];
        unfixed.rollout.words = "gpu-node-2: the drop-in replaced the CRI table,\nand the restart loaded it".into();
        let mut fixed = Work::default();
        fixed.containerd.dropin = gpulab_model::incident::seed::NVIDIA_DROPIN_FULL_TABLE.into();
        fixed.restart.ops = ops(&[DaemonOp::WriteDropin, DaemonOp::Restart, DaemonOp::Wait, DaemonOp::RunCheck]);
        fixed.rollout.syncs = 10;
        vec![("unfixed", unfixed, "stalled"), ("fixed", fixed, "completed")]
    }

    /// The page and the companion give the same report: the request the app sends for
    /// the learner's work, answered by the chunk's exported `rollout`, carries the
    /// report `gpu_node_lab_k8s::report::from_progress` (what `gpulab report --work`
    /// prints, `crates/cli/tests/rollout_cli.rs`) gives for the progress file the app
    /// exports — the fixtures in `tests/progress/`, held equal to the export here
    /// (`UPDATE_SNAPSHOTS=1` rewrites them). Step 8 says how the rollout ends.
    #[test]
    fn page_and_companion_give_the_same_report() {
        use gpu_node_lab_k8s::report::from_progress;
        use gpulab_model::Lang as ModelLang;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/progress");
        for (name, work, ending) in walks() {
            let exported = envelope::export(&work).unwrap();
            let path = format!("{dir}/{name}.json");
            if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
                std::fs::create_dir_all(dir).unwrap();
                std::fs::write(&path, &exported).unwrap();
            }
            assert_eq!(std::fs::read_to_string(&path).unwrap(), exported, "{path}: UPDATE_SNAPSHOTS=1 to rewrite");
            for (lang, model_lang) in [(Lang::Ko, ModelLang::Ko), (Lang::En, ModelLang::En)] {
                let req = request(&work, lang, false).unwrap();
                let reply: gpulab_view::Reply<RolloutView> = serde_json::from_str(&gpu_node_lab_k8s::rollout(&gpulab_view::wire::ToJson::to_json(&req))).unwrap();
                let view = reply.unwrap();
                assert_eq!(view.ending, ending, "{name}");
                assert_eq!(view.report_md, from_progress(&exported, model_lang).unwrap().to_markdown(), "{name} {lang:?}");
                let line = ending_line(lang, &view);
                assert!(!line.contains('{'), "{line}");
                assert_eq!(line.contains("gpu-node-2"), ending == "stalled", "{line}");
            }
        }
    }

    /// A symptom is answered with what it is a symptom of, in both languages.
    #[test]
    fn a_symptom_names_its_roots() {
        let roots = ["daemon-not-restarted".to_string(), "dropin-replaced-table".to_string()];
        let en = judgement_line(Lang::En, Judgement::Symptom, "gpu-node-2", "unavailable-budget-used", &roots);
        assert_eq!(
            en,
            "Node gpu-node-2 is right, but \u{201c}maxUnavailable is used up\u{201d} is a symptom of: containerd was not restarted after its config changed; the drop-in replaced the main config's table. A cause is what, fixed, lets the rollout go on."
        );
        let ko = judgement_line(Lang::Ko, Judgement::Symptom, "gpu-node-2", "unavailable-budget-used", &roots);
        assert!(ko.contains("gpu-node-2") && ko.contains(t(Lang::Ko, MessageId::RoCauseDaemonNotRestarted)), "{ko}");
        assert!(ko.contains(t(Lang::Ko, MessageId::RoCauseDropinReplacedTable)) && ko.contains("증상"), "{ko}");
        assert!(!ko.contains('{'), "{ko}");
    }
}
