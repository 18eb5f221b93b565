//! Step 7, time-slicing seats: the slot calculator. The learner picks the GPU model,
//! GPUs per node, nodes and the replicas of the compared rows, and edits the
//! device-plugin config; every number, label, cell and export below is
//! `gpulab_model::slots` output (`slot_table`, `headline_lines`, `cells`,
//! `to_markdown`, `to_csv`) — the same the `gpulab slots` command prints — computed
//! by the on-demand chunk ([`crate::steps::chunk`]), which carries the YAML parser
//! and the MIG catalogue so the first load does not. The DRA rows (and the notes
//! under the table) come from the DRA module, imported when the chunk's view says
//! `needs_dra`: the chunk's table shows meanwhile, with the module's loading state
//! or its failure and a retry under it. Their Kubernetes version is step 6's.

use std::cell::RefCell;
use std::rc::Rc;

use gpulab_view::{api, SlotsRequest, SlotsView};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::DiagItem;
use crate::components::editor::{unique_id, Editor};
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{Bound, LabAction};
use crate::steps::chunk::{call, model_error, placeholder, placeholder_with, use_chunk, use_module, Chunk, DRA};
use crate::json::{Object, Value};
use crate::state::{GPUS_PER_NODE, NODES, REPLICAS};
use crate::work_json::Reader;

/// The chunk's request for the learner's inputs; `k8s_version` is step 6's.
pub fn request(input: &SlotsInput, lang: Lang, k8s_version: &str) -> SlotsRequest {
    SlotsRequest {
        gpu_model: input.gpu_model.clone(),
        gpus_per_node: input.gpus_per_node,
        nodes: input.nodes,
        replicas: input.replicas,
        config: input.config.clone(),
        lang: lang.tag().to_string(),
        k8s_version: k8s_version.to_string(),
    }
}

/// The view's config findings as panel items (texts from the model).
pub fn diag_items(view: &SlotsView) -> Vec<DiagItem> {
    view.diagnostics
        .iter()
        .map(|d| DiagItem {
            severity: d.severity,
            location: d.location.clone(),
            line: d.line,
            message: d.message.clone(),
            code: d.code.clone(),
        })
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct SlotsStepProps {
    pub lang: Lang,
    pub input: SlotsInput,
    /// Step 6's Kubernetes version: the DRA rows'.
    pub k8s_version: String,
    pub dispatch: Callback<LabAction>,
}

fn data_url(mime: &str, text: &str) -> String {
    format!("data:{mime};charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)))
}

/// The whole number a count field holds within `bound`, or why not (the bounds the
/// reducer and saved work keep to), in `lang`, naming the field and the value kept.
pub fn parse_count(lang: Lang, field: MessageId, text: &str, bound: Bound, kept: u32) -> Result<u32, String> {
    text.trim().parse::<u32>().ok().filter(|n| bound.contains(u64::from(*n))).ok_or_else(|| {
        let (min, max, kept) = (bound.min.to_string(), bound.max.to_string(), kept.to_string());
        tf(
            lang,
            MessageId::SlotsNumberInvalid,
            &[("field", t(lang, field)), ("min", &min), ("max", &max), ("found", text.trim()), ("kept", &kept)],
        )
    })
}

/// Step 7's count fields, in order: label, class, bound and action.
const COUNTS: [(MessageId, &str, Bound, fn(u32) -> SlotsAction); 3] = [
    (MessageId::SlotsGpusPerNode, "slots-gpus-per-node", GPUS_PER_NODE, SlotsAction::GpusPerNode),
    (MessageId::SlotsNodes, "slots-nodes", NODES, SlotsAction::Nodes),
    (MessageId::SlotsReplicas, "slots-replicas", REPLICAS, SlotsAction::Replicas),
];

/// The text each count field holds while it is not a count (by [`COUNTS`] index).
type Rejected = Rc<RefCell<[Option<String>; 3]>>;

/// Count field `i` of [`COUNTS`]: a whole number within its bound is the table's;
/// anything else (`-3`, `2.5`, `99999999999`, past the bound) is said so beside the
/// field, in the current language and naming the value the table keeps, and the
/// table keeps the last one. `rejected` holds the fields' texts while they are
/// not counts; `shown` re-renders the step when that changes. (Hook state of types the app
/// already has, not a component per field: each new component or state type costs
/// the first load Yew's generic code.)
fn count_field(lang: Lang, i: usize, value: u32, rejected: &Rejected, shown: &UseStateHandle<u32>, dispatch: &Callback<LabAction>) -> Html {
    let Some(&(label, class, bound, make)) = COUNTS.get(i) else { return html! {} };
    let id = unique_id(class);
    let oninput = {
        let (rejected, shown, dispatch) = (rejected.clone(), shown.clone(), dispatch.clone());
        Callback::from(move |e: InputEvent| {
            let Some(input) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
            let text = input.value();
            let ok = parse_count(lang, label, &text, bound, 0).ok();
            if let Some(slot) = rejected.borrow_mut().get_mut(i) {
                *slot = ok.is_none().then_some(text);
            }
            shown.set(shown.wrapping_add(1));
            if let Some(n) = ok {
                dispatch.emit(LabAction::Slots(make(n)));
            }
        })
    };
    let typed = rejected.borrow().get(i).cloned().flatten();
    let error = typed.as_deref().and_then(|text| parse_count(lang, label, text, bound, value).err());
    // A text that is not a count stays in the field (the browser marks it out of range
    // too); the table keeps the last count, which the message names.
    let shown_value = typed.unwrap_or_else(|| value.to_string());
    let error_id = format!("{id}-error");
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <input {id} type="number" inputmode="numeric" min={bound.min.to_string()} max={bound.max.to_string()} step="1"
                value={shown_value} {oninput}
                aria-invalid={error.is_some().then_some("true")}
                aria-describedby={error.is_some().then(|| error_id.clone())} />
            if let Some(message) = error {
                <p id={error_id} class="field-error" role="alert">{ message }</p>
            }
        </div>
    }
}

/// Step 7: the chunk's loading state, its error with a retry, or the calculator (one
/// component: its hooks run before the chunk is there, the view once it is).
#[component(SlotsStep)]
pub fn slots_step(props: &SlotsStepProps) -> Html {
    let lang = props.lang;
    let input = props.input.clone();
    let (chunk, retry) = use_chunk();
    let req = request(&input, lang, &props.k8s_version);
    let ask = |(module, req): &(Chunk, SlotsRequest)| match module {
        Chunk::Ready(module) => Some(call(module, api::SLOTS, req, gpulab_view::wire::slots_view)),
        _ => None,
    };
    let view = use_memo((chunk.clone(), req.clone()), ask);
    // The DRA rows: the same request to the DRA module, once the chunk says so.
    let needs_dra = matches!(*view, Some(Ok(SlotsView { needs_dra: true, .. })));
    let (dra, dra_retry) = use_module(DRA, needs_dra);
    let dra_view = use_memo((if needs_dra { dra.clone() } else { Chunk::Loading }, req), ask);
    let select_id = use_state(|| unique_id("slots-gpu-model"));
    let rejected = use_mut_ref(<[Option<String>; 3]>::default);
    let shown = use_state(|| 0u32);
    if let Some(html) = placeholder(lang, &chunk, &retry) {
        return html! { <div class="step-slots">{ html }</div> };
    }
    let table = match dra_view.as_ref().as_ref().or(view.as_ref().as_ref()) {
        Some(Ok(v)) => v,
        Some(Err(e)) => return model_error(lang, e),
        None => return html! {},
    };
    let dra_pending = if needs_dra { placeholder_with(lang, &dra, &dra_retry, [MessageId::K8sDraLoading, MessageId::K8sDraFailed]) } else { None };

    let on_model = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                dispatch.emit(LabAction::Slots(SlotsAction::GpuModel(s.value())));
            }
        })
    };
    let on_config = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |text: String| dispatch.emit(LabAction::Slots(SlotsAction::Config(text))))
    };
    let on_reset = {
        let (dispatch, rejected) = (props.dispatch.clone(), rejected.clone());
        Callback::from(move |_| {
            *rejected.borrow_mut() = Default::default();
            dispatch.emit(LabAction::ResetStep(crate::steps::Step::Slots));
        })
    };
    let markdown = table.markdown.clone();
    let csv = table.csv.clone();
    let gpus = table.gpus_per_node.to_string();
    let nodes = table.nodes.to_string();
    let caption = tf(lang, MessageId::SlotsCaption, &[("gpu", &table.gpu_model), ("gpus", &gpus), ("nodes", &nodes)]);
    let unknown_model = !table.models.contains(&input.gpu_model);

    html! {
        <div class="step-slots">
            <fieldset class="slots-inputs">
                <legend>{ t(lang, MessageId::SlotsInputs) }</legend>
                <div class="field slots-gpu-model">
                    <label for={(*select_id).clone()}>{ t(lang, MessageId::SlotsGpuModel) }</label>
                    <select id={(*select_id).clone()} lang="en" onchange={on_model}>
                        if unknown_model {
                            <option value={input.gpu_model.clone()} selected=true>{ input.gpu_model.clone() }</option>
                        }
                        { for table.models.iter().map(|m| html! {
                            <option value={m.clone()} selected={*m == input.gpu_model}>{ m.clone() }</option>
                        }) }
                    </select>
                </div>
                { count_field(lang, 0, input.gpus_per_node, &rejected, &shown, &props.dispatch) }
                { count_field(lang, 1, input.nodes, &rejected, &shown, &props.dispatch) }
                { count_field(lang, 2, input.replicas, &rejected, &shown, &props.dispatch) }
            </fieldset>
            <Editor {lang} class="slots-config" label={tf(lang, MessageId::SlotsConfig, &[("file", SLOTS_CONFIG_FILE)])}
                text={input.config.clone()} on_input={on_config} diagnostics={diag_items(table)} />
            <section class="slots-headline" aria-label={t(lang, MessageId::SlotsHeadline)}>
                <h3>{ t(lang, MessageId::SlotsHeadline) }</h3>
                <ul>
                    { for table.headline.iter().map(|l| html! { <li><strong>{ l.clone() }</strong></li> }) }
                </ul>
            </section>
            <div class="table-scroll" tabindex="0" role="region" aria-label={caption.clone()}>
                <table class="slot-table">
                    <caption>{ caption.clone() }</caption>
                    <thead>
                        <tr>{ for table.columns.iter().map(|c| html! { <th scope="col">{ c.clone() }</th> }) }</tr>
                    </thead>
                    <tbody>
                        { for table.rows.iter().map(|row| {
                            let mut it = row.iter().cloned();
                            let first = it.next().unwrap_or_default();
                            html! {
                                <tr>
                                    <th scope="row">{ first }</th>
                                    { for it.map(|c| html! { <td>{ c }</td> }) }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            if let Some(drain) = &table.drain {
                <p class="slots-drain">{ drain.clone() }</p>
            }
            { dra_pending.unwrap_or_default() }
            if !table.notes.is_empty() {
                <ul class="slots-notes">
                    { for table.notes.iter().map(|n| html! { <li>{ n.clone() }</li> }) }
                </ul>
            }
            <section class="slots-export" aria-label={t(lang, MessageId::SlotsExport)}>
                <h3>{ t(lang, MessageId::SlotsExport) }</h3>
                <p>
                    <a class="button export-md" href={data_url("text/markdown", &markdown)} download="slots.md">{ t(lang, MessageId::SlotsExportMd) }</a>
                    { " " }
                    <a class="button export-csv" href={data_url("text/csv", &csv)} download="slots.csv">{ t(lang, MessageId::SlotsExportCsv) }</a>
                </p>
                <details>
                    <summary>{ t(lang, MessageId::SlotsExportPreview) }</summary>
                    <pre class="export-preview">{ markdown }</pre>
                </details>
            </section>
            { crate::steps::reset_button(lang, on_reset) }
        </div>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Step 7: the slot calculator's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct SlotsInput {
    /// An NVML name of the model's table of known GPUs.
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    /// Replicas of the compared time-slicing and MPS rows.
    pub replicas: u32,
    /// The device-plugin config file's text (the table's "config file" row).
    pub config: String,
}

/// The config file's name, as diagnostics and the CLI name it.
pub const SLOTS_CONFIG_FILE: &str = "config.yaml";

impl Default for SlotsInput {
    fn default() -> Self {
        SlotsInput {
            gpu_model: "NVIDIA H100 80GB HBM3".into(),
            gpus_per_node: 8,
            nodes: 2,
            replicas: 4,
            // The time-slicing config of NVIDIA's device-plugin documentation.
            config: "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
                .into(),
        }
    }
}

/// `config` with every `replicas: N` line set to `n` (indentation and the rest kept):
/// step 7's replicas field is the config's replicas, so the config row and the
/// headline follow it as the compared rows do. A line with anything after the number
/// (a comment) is left as written.
pub fn with_replicas(config: &str, n: u32) -> String {
    let mut out = String::with_capacity(config.len());
    for line in config.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.strip_suffix(body.trim_start()).unwrap_or("");
        let value = body.trim_start().strip_prefix("replicas:").map(str::trim);
        match value {
            Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str(indent);
                out.push_str("replicas: ");
                out.push_str(&n.to_string());
                out.push_str(line.get(body.len()..).unwrap_or(""));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// A change to step 7's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotsAction {
    GpuModel(String),
    GpusPerNode(u32),
    Nodes(u32),
    Replicas(u32),
    Config(String),
}

impl SlotsInput {
    /// The input after `a` (numbers kept within their [`crate::state::Bound`]).
    pub fn apply(&mut self, a: SlotsAction) {
        match a {
            SlotsAction::GpuModel(m) => self.gpu_model = m,
            SlotsAction::GpusPerNode(n) => self.gpus_per_node = GPUS_PER_NODE.clamp(n),
            SlotsAction::Nodes(n) => self.nodes = NODES.clamp(n),
            SlotsAction::Replicas(n) => {
                self.replicas = REPLICAS.clamp(n);
                self.config = with_replicas(&self.config, self.replicas);
            }
            SlotsAction::Config(text) => self.config = text,
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> SlotsInput {
    let mut s = SlotsInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "gpu_model" => rd.string(v, &at, &mut s.gpu_model),
            "gpus_per_node" => rd.u32(v, &at, &mut s.gpus_per_node, GPUS_PER_NODE),
            "nodes" => rd.u32(v, &at, &mut s.nodes, NODES),
            "replicas" => rd.u32(v, &at, &mut s.replicas, REPLICAS),
            "config" => rd.string(v, &at, &mut s.config),
            _ => rd.unknown(path, key, &["gpu_model", "gpus_per_node", "nodes", "replicas", "config"]),
        }
    }
    s
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, s: &SlotsInput) {
    Object::new(out)
        .str("gpu_model", &s.gpu_model)
        .num("gpus_per_node", s.gpus_per_node.into())
        .num("nodes", s.nodes.into())
        .num("replicas", s.replicas.into())
        .str("config", &s.config)
        .end();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `-3`, `2.5`, `99999999999`, 0 and 5001 are not node counts: each is said so,
    /// with the bounds and the value the table keeps, in both languages; the bounds
    /// themselves are.
    #[test]
    fn bad_counts_are_said_so() {
        for bad in ["-3", "2.5", "99999999999", "", "0", "5001"] {
            let en = parse_count(Lang::En, MessageId::SlotsNodes, bad, NODES, 2).unwrap_err();
            assert_eq!(en, format!("Nodes: expected a whole number from 1 to 5000, found “{bad}”. The table keeps 2."));
            let ko = parse_count(Lang::Ko, MessageId::SlotsNodes, bad, NODES, 2).unwrap_err();
            assert_eq!(ko, format!("노드 수: 1부터 5000까지의 정수를 넣으세요(입력값 “{bad}”). 표는 마지막 올바른 값을 씁니다: 2."));
        }
        assert_eq!(parse_count(Lang::En, MessageId::SlotsNodes, " 1 ", NODES, 2), Ok(1));
        assert_eq!(parse_count(Lang::En, MessageId::SlotsNodes, "5000", NODES, 2), Ok(5000));
        let replicas = parse_count(Lang::En, MessageId::SlotsReplicas, "111", REPLICAS, 4).unwrap_err();
        assert!(replicas.contains("from 1 to 110"), "{replicas}");
    }
}
