//! Step 8, the rollout stall and the incident report: the device-plugin DaemonSet
//! update of the lab's incident (`gpulab_model::daemonset::seed::seed_incident`, the
//! same as `gpulab rollout device-plugin-stall`), one controller sync per click — no
//! motion without the learner. `kubectl get ds`, `rollout status` and `get pods -o
//! wide` are the model's byte-exact texts. The learner names the node and the cause;
//! the app compares their answer with the model's diagnosis and exports the model's
//! incident report, with the artifacts of the earlier steps.

use gpulab_model::daemonset::diagnosis::{diagnose, Diagnosis};
use gpulab_model::daemonset::kubectl::{get_pods_wide, table, GET_DS_HEADER};
use gpulab_model::daemonset::report::{build_report, check_runtime_verdict, Artifacts};
use gpulab_model::daemonset::rollout::{RoundRecord, Rollout};
use gpulab_model::daemonset::seed::seed_incident;
use gpulab_model::daemonset::text::{evidence_text, link_text, Lang as DsLang};
use gpulab_model::daemonset::NodeOrder;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::editor::unique_id;
use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{ContainerdInput, LabAction, RolloutAction, RolloutInput};
use crate::steps::Step;

/// The causes the learner can name (diagnosis link codes) with their labels.
pub const CAUSES: [(&str, MessageId); 6] = [
    ("daemon-not-restarted", MessageId::RoCauseDaemonNotRestarted),
    ("handler-not-loaded", MessageId::RoCauseHandlerNotLoaded),
    ("runtimeclass-missing", MessageId::RoCauseRuntimeclassMissing),
    ("dropin-replaced-table", MessageId::RoCauseDropinReplacedTable),
    ("pod-create-refused", MessageId::RoCausePodCreateRefused),
    ("unavailable-budget-used", MessageId::RoCauseUnavailableBudgetUsed),
];

/// The model's language for the UI language.
pub fn ds_lang(lang: Lang) -> DsLang {
    match lang {
        Lang::Ko => DsLang::Ko,
        Lang::En => DsLang::En,
    }
}

/// The rollout after `syncs` controller syncs (the CLI's default order, `seed:1`).
pub struct Stepped {
    pub rollout: Rollout,
    /// `rollout status` before the first sync.
    pub before: String,
    pub rounds: Vec<RoundRecord>,
}

/// Steps the lab's incident `syncs` times.
pub fn step(syncs: u32) -> Result<Stepped, String> {
    let mut rollout = seed_incident(NodeOrder::Seeded(1), 1)?;
    let before = rollout.rollout_status().map(|s| s.message).unwrap_or_else(|e| format!("error: {e}\n"));
    let rounds = (0..syncs).map(|_| rollout.step()).collect();
    Ok(Stepped { rollout, before, rounds })
}

/// `kubectl get ds` after every sync so far, aligned as kubectl aligns it.
pub fn get_ds(rounds: &[RoundRecord]) -> String {
    let mut text = format!("{GET_DS_HEADER}\n");
    for r in rounds {
        text.push_str(&r.get_ds_row);
        text.push('\n');
    }
    table(&text)
}

/// The latest `rollout status` output.
pub fn status(s: &Stepped) -> String {
    match s.rounds.last().map(|r| &r.rollout_status) {
        Some(Ok(st)) => st.message.clone(),
        Some(Err(e)) => format!("error: {e}\n"),
        None => s.before.clone(),
    }
}

/// The learner's answer against the model's diagnosis.
pub fn judge(d: &Diagnosis, node: &str, cause: &str) -> MessageId {
    match d.stalled_nodes.iter().find(|n| n.node == node) {
        None => MessageId::RoWrongNode,
        Some(n) if n.chain.iter().chain(d.summary.iter()).any(|l| l.code == cause) => MessageId::RoRight,
        Some(_) => MessageId::RoWrongCause,
    }
}

/// The incident report (Markdown) of this run, with the earlier steps' artifacts.
pub fn report(s: &Stepped, containerd: &ContainerdInput, lang: Lang) -> String {
    let d = diagnose(&s.rollout);
    let merge_diagnostics =
        crate::steps::containerd::load(containerd, true).map(|r| r.diagnostics).unwrap_or_default();
    let check_runtime =
        d.stalled_nodes.iter().map(|n| check_runtime_verdict(&s.rollout, &n.node, "nvidia", "before-restart")).collect();
    let artifacts = Artifacts { merge_diagnostics, check_runtime, ..Artifacts::default() };
    build_report(&s.rollout, &s.rollout, artifacts, ds_lang(lang)).to_markdown()
}

#[derive(Properties, PartialEq)]
pub struct RolloutStepProps {
    pub lang: Lang,
    pub input: RolloutInput,
    pub containerd: ContainerdInput,
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

#[component(RolloutStep)]
pub fn rollout_step(props: &RolloutStepProps) -> Html {
    let lang = props.lang;
    let stepped = use_memo(props.input.syncs, |n| step(*n));
    let s = match stepped.as_ref() {
        Ok(s) => s,
        Err(e) => return html! { <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e.as_str())]) }</p> },
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
    let on_reset = {
        let d = props.dispatch.clone();
        Callback::from(move |_| d.emit(LabAction::ResetStep(Step::Rollout)))
    };
    let pods: Vec<_> = s.rollout.controller.pods.values().collect();
    let pods = get_pods_wide(pods.iter().copied(), s.rollout.now());
    let nodes: Vec<(String, String)> = s.rollout.node_names().into_iter().map(|n| (n.clone(), n)).collect();
    let causes: Vec<(String, String)> = CAUSES.iter().map(|(c, id)| (c.to_string(), t(lang, *id).to_string())).collect();
    let input = &props.input;
    let n = input.syncs.to_string();
    let answered = input.answered && !input.node.is_empty() && !input.cause.is_empty();
    let diagnosis = answered.then(|| diagnose(&s.rollout));
    let report_md = report(s, &props.containerd, lang);
    let href = format!("data:text/markdown;charset=utf-8,{}", String::from(js_sys::encode_uri_component(&report_md)));
    html! {
        <div class="step-rollout">
            <p>
                <button type="button" class="ro-sync" onclick={act(RolloutAction::Sync)}>{ t(lang, MessageId::RoSync) }</button>
                { " " }<span class="ro-syncs" aria-live="polite">{ tf(lang, MessageId::RoSyncs, &[("n", n.as_str())]) }</span>
            </p>
            <h3>{ t(lang, MessageId::RoGetDs) }</h3>
            <Upstream {lang} class="ro-get-ds" text={get_ds(&s.rounds)} />
            <h3>{ t(lang, MessageId::RoStatus) }</h3>
            <Upstream {lang} class="ro-status" text={status(s)} />
            <h3>{ t(lang, MessageId::RoPods) }</h3>
            <Upstream {lang} class="ro-pods" text={pods} />
            <fieldset class="ro-answer">
                <legend>{ t(lang, MessageId::RoAnswer) }</legend>
                { select(lang, MessageId::RoNode, "ro-node", &input.node, nodes, on_node) }
                { select(lang, MessageId::RoCause, "ro-cause", &input.cause, causes, on_cause) }
                <button type="button" class="ro-submit" onclick={act(RolloutAction::Answer)}>{ t(lang, MessageId::RoSubmit) }</button>
            </fieldset>
            if let Some(d) = &diagnosis {
                <section class="ro-verdict" aria-live="polite">
                    <p class="ro-judge"><strong>{ tf(lang, judge(d, &input.node, &input.cause), &[("node", input.node.as_str())]) }</strong></p>
                    <h3>{ t(lang, MessageId::RoModel) }</h3>
                    <ul class="ro-diagnosis">
                        { for d.summary.iter().map(|l| html! { <li>{ link_text(l, ds_lang(lang)) }</li> }) }
                        { for d.stalled_nodes.iter().flat_map(|n| n.chain.iter()).map(|l| html! {
                            <li>
                                { link_text(l, ds_lang(lang)) }
                                if let Some(e) = evidence_text(&l.evidence, ds_lang(lang)) {
                                    <br /><span class="evidence">{ e }</span>
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
                    <pre class="ro-report-text">{ report_md }</pre>
                </details>
            </section>
            <p><button type="button" class="reset-step" onclick={on_reset}>{ t(lang, MessageId::ResetStep) }</button></p>
        </div>
    }
}
