//! Step 7, time-slicing seats: the slot calculator. The learner picks the GPU model,
//! GPUs per node, nodes and the replicas of the compared rows, and edits the
//! device-plugin config; every number, label, cell and export below is
//! `gpulab_model::slots` output (`slot_table`, `headline_lines`, `cells`,
//! `to_markdown`, `to_csv`) — the same the `gpulab slots` command prints — computed
//! by the on-demand chunk ([`crate::steps::chunk`]), which carries the YAML parser
//! and the MIG catalogue so the first load does not.

use gpulab_view::{api, SlotsRequest, SlotsView};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::DiagItem;
use crate::components::editor::{unique_id, Editor};
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{Bound, LabAction, SlotsAction, SlotsInput, GPUS_PER_NODE, NODES, REPLICAS, SLOTS_CONFIG_FILE};
use crate::steps::chunk::{call, model_error, placeholder, use_chunk, Chunk, Module};

/// The chunk's request for the learner's inputs.
pub fn request(input: &SlotsInput, lang: Lang) -> SlotsRequest {
    SlotsRequest {
        gpu_model: input.gpu_model.clone(),
        gpus_per_node: input.gpus_per_node,
        nodes: input.nodes,
        replicas: input.replicas,
        config: input.config.clone(),
        lang: lang.tag().to_string(),
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
    pub dispatch: Callback<LabAction>,
}

fn data_url(mime: &str, text: &str) -> String {
    format!("data:{mime};charset=utf-8,{}", String::from(js_sys::encode_uri_component(text)))
}

fn number_input(
    lang: Lang,
    label: MessageId,
    class: &'static str,
    value: u32,
    bound: Bound,
    make: fn(u32) -> SlotsAction,
    dispatch: &Callback<LabAction>,
) -> Html {
    let id = unique_id(class);
    let dispatch = dispatch.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        let input = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        // A number outside the bound is not taken (the browser marks the field
        // invalid by its min/max); files and links are held to the same bound.
        if let Some(n) = input.and_then(|i| i.value().trim().parse::<u32>().ok()).filter(|n| bound.contains(u64::from(*n))) {
            dispatch.emit(LabAction::Slots(make(n)));
        }
    });
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <input {id} type="number" inputmode="numeric" min={bound.min.to_string()} max={bound.max.to_string()} step="1"
                value={value.to_string()} {oninput} />
        </div>
    }
}

/// Step 7: the chunk's loading state, its error with a retry, or the calculator.
#[component(SlotsStep)]
pub fn slots_step(props: &SlotsStepProps) -> Html {
    let (chunk, retry) = use_chunk();
    if let Some(html) = placeholder(props.lang, &chunk, &retry) {
        return html! { <div class="step-slots">{ html }</div> };
    }
    let Chunk::Ready(module) = chunk else { return html! {} };
    html! { <SlotsReady lang={props.lang} input={props.input.clone()} dispatch={props.dispatch.clone()} {module} /> }
}

#[derive(Properties, PartialEq)]
struct SlotsReadyProps {
    lang: Lang,
    input: SlotsInput,
    dispatch: Callback<LabAction>,
    module: Module,
}

#[component(SlotsReady)]
fn slots_ready(props: &SlotsReadyProps) -> Html {
    let lang = props.lang;
    let input = props.input.clone();
    let module = props.module.clone();
    let view = use_memo(request(&input, lang), move |req| call(&module, api::SLOTS, req, crate::steps::view_js::slots_view));
    let select_id = use_state(|| unique_id("slots-gpu-model"));
    let table = match view.as_ref() {
        Ok(v) => v,
        Err(e) => return model_error(lang, e),
    };

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
        let dispatch = props.dispatch.clone();
        Callback::from(move |_| dispatch.emit(LabAction::ResetStep(crate::steps::Step::Slots)))
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
                { number_input(lang, MessageId::SlotsGpusPerNode, "slots-gpus-per-node", input.gpus_per_node, GPUS_PER_NODE, SlotsAction::GpusPerNode, &props.dispatch) }
                { number_input(lang, MessageId::SlotsNodes, "slots-nodes", input.nodes, NODES, SlotsAction::Nodes, &props.dispatch) }
                { number_input(lang, MessageId::SlotsReplicas, "slots-replicas", input.replicas, REPLICAS, SlotsAction::Replicas, &props.dispatch) }
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
            <p><button type="button" class="reset-step" onclick={on_reset}>{ t(lang, MessageId::ResetStep) }</button></p>
        </div>
    }
}
