//! Steps 5 and 6, RuntimeClass and scheduling: the learner edits the cluster (nodes),
//! the RuntimeClass and the GPU pod, picks a Kubernetes version, and sees what
//! creating the pod does — admission's refusal as `kubectl apply` prints it, or the
//! scheduler's verdict with the Events of `kubectl describe pod` and the per-node,
//! per-plugin table. Every text is `gpulab_model::kubernetes` output
//! (`apply::create_pod`, `kubectl::describe_events`, `scheduler::explain::table`), the
//! same as `gpulab schedule` prints.

use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::kubectl::describe_events;
use gpulab_model::kubernetes::scheduler::explain::table;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::{load, Manifests};
use gpulab_model::kubernetes::KubeVersion;
use gpulab_model::Diagnostic;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::DiagItem;
use crate::components::editor::{unique_id, Editor};
use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{KubeAction, KubeInput, LabAction};
use crate::steps::Step;

/// The file names the editors stand for (diagnostics and `kubectl apply -f` name them).
pub const CLUSTER: &str = "cluster.yaml";
pub const RUNTIMECLASS: &str = "runtimeclass.yaml";
pub const POD: &str = "pod.yaml";

/// What creating the pod gives, as texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeOutcome {
    /// The manifests do not load: diagnostics with file:line.
    BadInput(Vec<Diagnostic>),
    /// Admission or validation refused the pod: `kubectl apply` output.
    Rejected(String),
    /// The pod was created: the verdict line, the Events table, the per-node table.
    Created { verdict: String, events: String, nodes: String },
}

/// Runs the model on the learner's files (as `gpulab schedule --nodes cluster.yaml
/// --runtimeclasses runtimeclass.yaml --pod pod.yaml --k8s-version V`).
pub fn outcome(input: &KubeInput) -> KubeOutcome {
    let version: KubeVersion = match input.version.parse() {
        Ok(v) => v,
        Err(e) => return KubeOutcome::Rejected(format!("{e}")),
    };
    let mut diags = Vec::new();
    let mut read = |file: &str, text: &str| -> Manifests {
        let (m, d) = load(file, text);
        diags.extend(d);
        m
    };
    let cluster = read(CLUSTER, &input.cluster);
    let rcs = read(RUNTIMECLASS, &input.runtimeclass);
    let pods = read(POD, &input.pod);
    if !diags.is_empty() {
        return KubeOutcome::BadInput(diags);
    }
    let runtime_classes: Vec<_> =
        cluster.runtime_classes.iter().chain(rcs.runtime_classes.iter()).map(|l| l.object.clone()).collect();
    let [pod] = pods.pods.as_slice() else {
        return KubeOutcome::Rejected(format!("{POD}: expected exactly one Pod, found {}", pods.pods.len()));
    };
    let snapshot = Snapshot::new(
        cluster.nodes.iter().map(|l| l.object.clone()),
        &cluster.pods.iter().map(|l| l.object.clone()).collect::<Vec<_>>(),
    );
    let opts = FilterOptions { version, ..Default::default() };
    match create_pod(pod.object.clone(), &snapshot, &runtime_classes, &opts, 0) {
        Err(rejection) => KubeOutcome::Rejected(rejection.kubectl_text(POD)),
        Ok(created) => {
            let name = created.pod.metadata.name.clone().unwrap_or_default();
            let ns = created.pod.metadata.namespace.clone().unwrap_or_else(|| "default".into());
            let verdict = match &created.result.outcome {
                Outcome::Scheduled { node, .. } => {
                    let tied = created.result.tied_names(&snapshot);
                    if tied.len() > 1 {
                        format!("{ns}/{name}: Scheduled to {node} (tied with: {})", tied.join(", "))
                    } else {
                        format!("{ns}/{name}: Scheduled to {node}")
                    }
                }
                Outcome::Unschedulable { .. } | Outcome::Error { .. } => format!("{ns}/{name}: Pending (Kubernetes {version})"),
            };
            KubeOutcome::Created {
                verdict,
                events: describe_events(std::slice::from_ref(&created.event), 0),
                nodes: table(&created.explanation),
            }
        }
    }
}

fn diag_items(diags: &[Diagnostic], file: Option<&str>) -> Vec<DiagItem> {
    diags
        .iter()
        .filter(|d| file.is_none_or(|f| d.primary.as_ref().is_some_and(|s| s.file == f)))
        .map(|d| DiagItem {
            severity: d.severity,
            location: d.primary.as_ref().map(ToString::to_string),
            line: d.primary.as_ref().map(|s| s.line),
            message: d.args.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; "),
            code: d.code.clone(),
        })
        .collect()
}

#[derive(Properties, PartialEq)]
pub struct KubeStepProps {
    pub lang: Lang,
    pub step: Step,
    pub input: KubeInput,
    pub dispatch: Callback<LabAction>,
}

#[component(KubeStep)]
pub fn kube_step(props: &KubeStepProps) -> Html {
    let lang = props.lang;
    let out = use_memo(props.input.clone(), outcome);
    let input = &props.input;
    let edit = |make: fn(String) -> KubeAction| {
        let d = props.dispatch.clone();
        Callback::from(move |text: String| d.emit(LabAction::Kube(make(text))))
    };
    let version_id = unique_id("k8s-version");
    let on_version = {
        let d = props.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
                d.emit(LabAction::Kube(KubeAction::Version(s.value())));
            }
        })
    };
    let on_reset = {
        let d = props.dispatch.clone();
        let step = props.step;
        Callback::from(move |_| d.emit(LabAction::ResetStep(step)))
    };
    let diags: &[Diagnostic] = match out.as_ref() {
        KubeOutcome::BadInput(d) => d,
        _ => &[],
    };
    html! {
        <div class="step-kube">
            <div class="field k8s-version">
                <label for={version_id.clone()}>{ t(lang, MessageId::K8sVersion) }</label>
                <select id={version_id} lang="en" onchange={on_version}>
                    { for KubeVersion::ALL.iter().map(|v| { let v = v.to_string(); html! {
                        <option value={v.clone()} selected={v == input.version}>{ v.clone() }</option>
                    }}) }
                </select>
            </div>
            <Editor {lang} class="k8s-runtimeclass" label={RUNTIMECLASS.to_string()} text={input.runtimeclass.clone()}
                on_input={edit(KubeAction::RuntimeClass)} diagnostics={diag_items(diags, Some(RUNTIMECLASS))} />
            <Editor {lang} class="k8s-pod" label={POD.to_string()} text={input.pod.clone()}
                on_input={edit(KubeAction::Pod)} diagnostics={diag_items(diags, Some(POD))} />
            <Editor {lang} class="k8s-cluster" label={CLUSTER.to_string()} text={input.cluster.clone()}
                on_input={edit(KubeAction::Cluster)} diagnostics={diag_items(diags, Some(CLUSTER))} />
            <section class="k8s-outcome" aria-live="polite">
                <h3>{ t(lang, MessageId::K8sOutcome) }</h3>
                { match out.as_ref() {
                    KubeOutcome::BadInput(_) => html! { <p>{ t(lang, MessageId::K8sBadInput) }</p> },
                    KubeOutcome::Rejected(text) => html! { <Upstream {lang} class="k8s-rejected" text={text.clone()} /> },
                    KubeOutcome::Created { verdict, events, nodes } => html! {
                        <>
                            <Upstream {lang} class="k8s-verdict" text={verdict.clone()} />
                            <h4>{ t(lang, MessageId::K8sEvents) }</h4>
                            <Upstream {lang} class="k8s-events" text={events.clone()} />
                            <h4>{ tf(lang, MessageId::K8sNodes, &[]) }</h4>
                            <Upstream {lang} class="k8s-nodes" text={nodes.clone()} />
                        </>
                    },
                } }
            </section>
            <p><button type="button" class="reset-step" onclick={on_reset}>{ t(lang, MessageId::ResetStep) }</button></p>
        </div>
    }
}
