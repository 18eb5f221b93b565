//! Step 7, time-slicing seats: the slot calculator. The learner picks the GPU model,
//! GPUs per node, nodes and the replicas of the compared rows, and edits the
//! device-plugin config; every number, label, cell and export below is
//! `gpulab_model::slots` output (`slot_table`, `headline_lines`, `cells`,
//! `to_markdown`, `to_csv`) — the same the `gpulab slots` command prints.

use std::rc::Rc;

use gpulab_model::slots::{
    self,
    table::{self, default_modes, headline_lines, SlotTable, TableRequest},
    Deployment, GpuModel, MigCatalog, PluginVersion,
};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::DiagItem;
use crate::components::editor::{unique_id, Editor};
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{LabAction, SlotsAction, SlotsInput, SLOTS_CONFIG_FILE};

/// The model's label language for the UI language.
pub fn model_lang(lang: Lang) -> table::Lang {
    match lang {
        Lang::Ko => table::Lang::Ko,
        Lang::En => table::Lang::En,
    }
}

/// Built-in data of the model, read once per step view.
pub struct SlotsData {
    pub catalog: MigCatalog,
    pub models: Vec<GpuModel>,
}

/// Reads the model's embedded MIG catalog and GPU table.
pub fn load_data() -> Result<SlotsData, String> {
    Ok(SlotsData { catalog: MigCatalog::embedded()?, models: GpuModel::all_known()? })
}

/// The table for `input`, as `gpulab slots --gpu-model M --gpus-per-node G --nodes N
/// --replicas R --config config.yaml` computes it (all comparison modes).
pub fn compute(input: &SlotsInput, data: &SlotsData, lang: Lang) -> SlotTable {
    let known = data.models.iter().find(|m| m.name == input.gpu_model);
    let model = GpuModel {
        name: input.gpu_model.clone(),
        memory_mib: known.and_then(|k| k.memory_mib),
        compute_capability: known.and_then(|k| k.compute_capability),
        mig_capable: known.is_some_and(|k| k.mig_capable) || data.catalog.find(&input.gpu_model).is_some(),
    };
    let modes = default_modes(&model, &data.catalog, input.replicas, &[]);
    let req = TableRequest {
        model,
        gpus_per_node: input.gpus_per_node,
        nodes: input.nodes,
        config: Some((SLOTS_CONFIG_FILE.to_string(), input.config.clone())),
        mig: None,
        modes,
        version: PluginVersion::default(),
        deployment: Deployment::default(),
    };
    slots::slot_table(&req, &data.catalog, model_lang(lang))
}

/// The table's config diagnostics as panel items, texts from the model.
pub fn diag_items(table: &SlotTable) -> Vec<DiagItem> {
    table
        .diagnostics
        .iter()
        .map(|d| DiagItem {
            severity: d.severity,
            location: d.primary.as_ref().map(ToString::to_string),
            line: d.primary.as_ref().filter(|s| s.file == SLOTS_CONFIG_FILE).map(|s| s.line),
            message: slots::messages::message(d, table.lang),
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
    min: u32,
    make: fn(u32) -> SlotsAction,
    dispatch: &Callback<LabAction>,
) -> Html {
    let id = unique_id(class);
    let dispatch = dispatch.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        let input = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
        if let Some(n) = input.and_then(|i| i.value().trim().parse::<u32>().ok()) {
            dispatch.emit(LabAction::Slots(make(n)));
        }
    });
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <input {id} type="number" inputmode="numeric" min={min.to_string()} step="1"
                value={value.to_string()} {oninput} />
        </div>
    }
}

#[component(SlotsStep)]
pub fn slots_step(props: &SlotsStepProps) -> Html {
    let lang = props.lang;
    let data = use_memo((), |_| load_data());
    let input = props.input.clone();
    let table = use_memo((input.clone(), lang, data.is_ok()), {
        let data = data.clone();
        move |(input, lang, _)| match data.as_ref() {
            Ok(d) => Some(compute(input, d, *lang)),
            Err(_) => None,
        }
    });
    let select_id = use_state(|| unique_id("slots-gpu-model"));
    let d = match data.as_ref() {
        Ok(d) => d,
        Err(e) => {
            return html! {
                <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e.as_str())]) }</p>
            }
        }
    };
    let Some(table) = Rc::clone(&table).as_ref().clone() else { return html! {} };
    let mlang = table.lang;

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
    let markdown = table::to_markdown(&table);
    let csv = table::to_csv(&table);
    let gpus = table.gpus_per_node.to_string();
    let nodes = table.nodes.to_string();
    let caption = tf(lang, MessageId::SlotsCaption, &[("gpu", &table.gpu_model), ("gpus", &gpus), ("nodes", &nodes)]);
    let unknown_model = !d.models.iter().any(|m| m.name == input.gpu_model);

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
                        { for d.models.iter().map(|m| html! {
                            <option value={m.name.clone()} selected={m.name == input.gpu_model}>{ m.name.clone() }</option>
                        }) }
                    </select>
                </div>
                { number_input(lang, MessageId::SlotsGpusPerNode, "slots-gpus-per-node", input.gpus_per_node, 1, SlotsAction::GpusPerNode, &props.dispatch) }
                { number_input(lang, MessageId::SlotsNodes, "slots-nodes", input.nodes, 1, SlotsAction::Nodes, &props.dispatch) }
                { number_input(lang, MessageId::SlotsReplicas, "slots-replicas", input.replicas, 1, SlotsAction::Replicas, &props.dispatch) }
            </fieldset>
            <Editor {lang} class="slots-config" label={tf(lang, MessageId::SlotsConfig, &[("file", SLOTS_CONFIG_FILE)])}
                text={input.config.clone()} on_input={on_config} diagnostics={diag_items(&table)} />
            <section class="slots-headline" aria-label={t(lang, MessageId::SlotsHeadline)}>
                <h3>{ t(lang, MessageId::SlotsHeadline) }</h3>
                <ul>
                    { for headline_lines(&table).into_iter().map(|l| html! { <li><strong>{ l }</strong></li> }) }
                </ul>
            </section>
            <div class="table-scroll" tabindex="0" role="region" aria-label={caption.clone()}>
                <table class="slot-table">
                    <caption>{ caption.clone() }</caption>
                    <thead>
                        <tr>{ for table::COLUMNS.iter().map(|c| html! { <th scope="col">{ table::text(c, mlang) }</th> }) }</tr>
                    </thead>
                    <tbody>
                        { for table.rows.iter().map(|row| {
                            let cells = table::cells(row, mlang);
                            let mut it = cells.into_iter();
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
            if table.mig_reconfiguration_requires_drain {
                <p class="slots-drain">{ table::text("drain", mlang) }</p>
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
