//! Steps 5 and 6, RuntimeClass and scheduling, rendered from the on-demand chunk
//! ([`crate::steps::chunk`], `crates/web-k8s`): the learner edits the RuntimeClass,
//! the GPU pod and the cluster, patches a node's status, picks a Kubernetes version,
//! and sees what creating the pod does — admission's refusal as `kubectl apply`
//! prints it, the scheduler's verdict with the Events of `kubectl describe pod` and
//! the per-node, per-plugin table, and the kubelet's sandbox result on the node of
//! steps 1–2. Step 6 takes the same pod to the GPU by one of three paths
//! ([`gpulab_view::PATHS`]): the device plugin's `nvidia.com/gpu`, a ResourceClaim
//! (DRA), or `nvidia.com/gpu` backed by a DeviceClass; the DRA paths add their objects
//! file, whose text (and the DRA pod's) is the chunk's until the learner edits it.
//! Every text is the model's (`gpulab schedule` prints the same); this module only
//! lays them out. The chunk does not judge DRA: a request it answers with
//! [`KubeOutcome::NeedsDra`] goes to the DRA module, imported then (the outcome shows
//! its loading state, or its failure with a retry, while the rest of the step stays).
//! Step 6 ends with the chunk's import panel (`<gpulab-import>`, defined by the chunk:
//! `crates/web-k8s/src/import`), where the learner tries a pod on their own cluster.

use gpulab_view::{api, kube_path, ContainerdFiles, KubeOutcome, KubeRequest, KubeView, NodePatch, Sandbox, PATHS};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::components::diagnostics::DiagItem;
use crate::components::editor::{unique_id, Editor};
use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{ContainerdInput, LabAction, RestartInput, SupervisorChoice};
use crate::steps::chunk::{call, model_error, placeholder, placeholder_with, use_chunk, use_module, Chunk, DRA};
use crate::steps::Step;
use crate::json::{Object, Value};
use crate::work_json::Reader;

/// The file names the editors stand for (diagnostics and `kubectl apply -f` name them).
pub const CLUSTER: &str = "cluster.yaml";
pub const RUNTIMECLASS: &str = "runtimeclass.yaml";
pub const POD: &str = "pod.yaml";

/// Each of [`PATHS`]'s name in the switch and the note on where it stops.
const PATH_TEXTS: [[MessageId; 2]; 3] = [
    [MessageId::K8sPathDevicePlugin, MessageId::K8sPathDevicePluginNote],
    [MessageId::K8sPathDra, MessageId::K8sPathDraNote],
    [MessageId::K8sPathDraExtended, MessageId::K8sPathDraExtendedNote],
];

/// The chunk's request for the learner's inputs: steps 5–6's files, and the node as
/// steps 1–4 left it (its files, and what was done to its containerd in step 4), and
/// the language the chunk words the files' findings in.
pub fn request(input: &KubeInput, containerd: &ContainerdInput, restart: &RestartInput, lang: Lang) -> KubeRequest {
    KubeRequest {
        version: input.version.clone(),
        cluster: input.cluster.clone(),
        runtimeclass: input.runtimeclass.clone(),
        pod: if input.path == "dra" { input.dra_pod.clone() } else { input.pod.clone() },
        patches: input.patches.clone(),
        containerd: ContainerdFiles {
            version: containerd.version.clone(),
            main: containerd.main.clone(),
            dropin: containerd.dropin.clone(),
        },
        kubelet_node: input.kubelet_node.clone(),
        node_ops: restart.ops.iter().map(|op| op.name().to_string()).collect(),
        by_hand: restart.supervisor == SupervisorChoice::ByHand,
        lang: lang.tag().into(),
        path: input.path.clone(),
        objects: match input.path.as_str() {
            "dra" => input.dra_objects.clone(),
            "dra-extended" => input.ext_objects.clone(),
            _ => String::new(),
        },
    }
}

fn diag_items(view: &KubeView, file: &str) -> Vec<DiagItem> {
    let KubeOutcome::BadInput { diagnostics } = &view.outcome else { return Vec::new() };
    let prefix = format!("{file}:");
    diagnostics
        .iter()
        .filter(|d| d.location.as_ref().is_some_and(|l| l.starts_with(&prefix)))
        .map(|d| DiagItem {
            severity: d.severity,
            location: d.location.clone(),
            line: d.line,
            message: d.message.clone(),
            code: d.code.clone(),
        })
        .collect()
}

/// A labelled `<select>` (a version, a path, a node): `options` as (value, text,
/// selected); `english` when the option texts are upstream names.
fn select_html(lang: Lang, label: MessageId, class: &'static str, english: bool, options: Vec<(String, String, bool)>, onchange: Callback<Event>) -> Html {
    let id = unique_id(class);
    html! {
        <div class={classes!("field", class)}>
            <label for={id.clone()}>{ t(lang, label) }</label>
            <select {id} lang={english.then_some("en")} {onchange}>
                { for options.into_iter().map(|(value, text, selected)| html! { <option {value} {selected}>{ text }</option> }) }
            </select>
        </div>
    }
}

fn on_select(f: impl Fn(String) + 'static) -> Callback<Event> {
    Callback::from(move |e: Event| {
        if let Some(s) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok()) {
            f(s.value());
        }
    })
}

#[derive(Properties, PartialEq)]
pub struct KubeStepProps {
    pub lang: Lang,
    pub step: Step,
    pub input: KubeInput,
    pub containerd: ContainerdInput,
    pub restart: RestartInput,
    pub dispatch: Callback<LabAction>,
}

/// The chunk's (or the DRA module's) view of `req`, once the module is there.
fn ask((req, module): &(KubeRequest, Chunk)) -> Option<Result<KubeView, String>> {
    match module {
        Chunk::Ready(m) => Some(call(m, api::KUBE, req, gpulab_view::wire::kube_view)),
        _ => None,
    }
}

/// Steps 5 and 6: the chunk's loading state, its error with a retry, or the step.
/// (One component: the view waits for the chunk, then — for a request it answers
/// `NeedsDra` — for the DRA module, in the outcome only.)
#[component(KubeStep)]
pub fn kube_step(props: &KubeStepProps) -> Html {
    let lang = props.lang;
    let (chunk, retry) = use_chunk();
    // Step 5 is the device plugin's path; step 6 the learner's.
    let mut req = request(&props.input, &props.containerd, &props.restart, lang);
    if props.step == Step::RuntimeClass {
        req = request(&KubeInput { path: String::new(), ..props.input.clone() }, &props.containerd, &props.restart, lang);
    }
    let view = use_memo((req.clone(), chunk.clone()), ask);
    let needs_dra = matches!(*view, Some(Ok(KubeView { outcome: KubeOutcome::NeedsDra {}, .. })));
    let (dra, dra_retry) = use_module(DRA, needs_dra);
    let dra_view = use_memo((req, if needs_dra { dra.clone() } else { Chunk::Loading }), ask);
    let patch_form = use_state(|| NodePatch { node: String::new(), resource: "nvidia.com/gpu".into(), quantity: "1".into() });
    if let Some(html) = placeholder(lang, &chunk, &retry) {
        return html! { <div class="step-kube">{ html }</div> };
    }
    let view = match dra_view.as_ref().as_ref().or(view.as_ref().as_ref()) {
        Some(Ok(v)) => v,
        Some(Err(e)) => return model_error(lang, e),
        None => return html! {},
    };
    let dra_pending = placeholder_with(lang, &dra, &dra_retry, [MessageId::K8sDraLoading, MessageId::K8sDraFailed]);
    let input = &props.input;
    let d = props.dispatch.clone();
    let kube = move |a: KubeAction| d.emit(LabAction::Kube(a));
    let edit = |make: fn(String) -> KubeAction| {
        let kube = kube.clone();
        Callback::from(move |text: String| kube(make(text)))
    };
    let outcome = outcome_html(lang, props.step, view, input, &kube, dra_pending);
    // One Editor in the code for the step's files (each html! of a component is code).
    let editor = |class: &'static str, file: &'static str, text: String, make: fn(String) -> KubeAction| {
        html! { <Editor {lang} {class} label={file.to_string()} {text} on_input={edit(make)} diagnostics={diag_items(view, file)} /> }
    };
    let rc_editor = editor("k8s-runtimeclass", RUNTIMECLASS, input.runtimeclass.clone(), KubeAction::RuntimeClass);
    let path = kube_path(if props.step == Step::RuntimeClass { "" } else { &input.path });
    // The view carries a path's file back only while the learner has not edited it.
    let own_or = |own: &String, echoed: &String| if own.is_empty() { echoed.clone() } else { own.clone() };
    let pod_editor = if path.id == "dra" {
        editor("k8s-pod", path.pod, own_or(&input.dra_pod, &view.pod), KubeAction::DraPod)
    } else {
        editor("k8s-pod", path.pod, input.pod.clone(), KubeAction::Pod)
    };
    let body = if props.step == Step::RuntimeClass {
        html! { <>{ rc_editor }{ pod_editor }{ outcome }</> }
    } else {
        let on = |make: fn(String) -> KubeAction| {
            let kube = kube.clone();
            on_select(move |v| kube(make(v)))
        };
        let versions = view.versions.iter().map(|v| (v.clone(), v.clone(), *v == input.version)).collect();
        let paths = PATHS.iter().zip(PATH_TEXTS).map(|(p, [l, _])| (p.id.to_string(), t(lang, l).to_string(), *p == path)).collect();
        let note = PATHS.iter().zip(PATH_TEXTS).find(|(p, _)| **p == path).map_or(MessageId::K8sPathDevicePluginNote, |(_, [_, n])| n);
        html! {
            <>
                { select_html(lang, MessageId::K8sVersion, "k8s-version", true, versions, on(KubeAction::Version)) }
                { select_html(lang, MessageId::K8sPath, "k8s-path", false, paths, on(KubeAction::Path)) }
                <p class="k8s-path-note">{ t(lang, note) }</p>
                { cluster_view(lang, view) }
                { patch_html(lang, view, &patch_form, &kube) }
                { outcome }
                if !path.objects.is_empty() {
                    { editor("k8s-objects", path.objects, own_or(if path.id == "dra" { &input.dra_objects } else { &input.ext_objects }, &view.objects), KubeAction::Objects) }
                }
                { editor("k8s-cluster", CLUSTER, input.cluster.clone(), KubeAction::Cluster) }
                { pod_editor }
                { rc_editor }
                { crate::steps::import_panel("6", lang) }
            </>
        }
    };
    html! {
        <div class="step-kube">
            { body }
            { crate::steps::reset_step(lang, props.step, &props.dispatch) }
        </div>
    }
}

fn outcome_html(lang: Lang, step: Step, view: &KubeView, input: &KubeInput, kube: &(impl Fn(KubeAction) + Clone + 'static), dra_pending: Option<Html>) -> Html {
    let inner = match &view.outcome {
        KubeOutcome::NeedsDra {} => dra_pending.unwrap_or_default(),
        KubeOutcome::BadInput { .. } => html! { <p>{ t(lang, MessageId::K8sBadInput) }</p> },
        KubeOutcome::Rejected { text } => html! { <Upstream {lang} class="k8s-rejected" text={text.clone()} /> },
        KubeOutcome::Waiting { text } => html! { <Upstream {lang} class="k8s-waiting" text={text.clone()} /> },
        KubeOutcome::Created { verdict, events, nodes, claims, sandboxes } => {
            let scheduling = html! {
                <>
                    <Upstream {lang} class="k8s-verdict" text={verdict.clone()} />
                    <h4>{ t(lang, MessageId::K8sEvents) }</h4>
                    <Upstream {lang} class="k8s-events" text={events.clone()} />
                    <h4>{ t(lang, MessageId::K8sNodes) }</h4>
                    <Upstream {lang} class="k8s-nodes" text={nodes.clone()} />
                    if !claims.is_empty() {
                        <Upstream {lang} class="k8s-claims" text={claims.clone()} />
                    }
                </>
            };
            let kubelet = kubelet_html(lang, view, sandboxes, input, kube);
            if step == Step::RuntimeClass {
                html! { <><p class="k8s-admitted">{ t(lang, MessageId::K8sAdmitted) }</p>{ kubelet }</> }
            } else {
                html! { <>{ scheduling }{ kubelet }</> }
            }
        }
    };
    html! {
        <section class="k8s-outcome" aria-live="polite">
            <h3>{ t(lang, MessageId::K8sOutcome) }</h3>
            { inner }
        </section>
    }
}

fn kubelet_html(lang: Lang, view: &KubeView, sandboxes: &[Sandbox], input: &KubeInput, kube: &(impl Fn(KubeAction) + Clone + 'static)) -> Html {
    let Some(first) = sandboxes.first() else { return html! {} };
    let placement = if first.scheduled {
        html! { <p class="k8s-kubelet-scheduled">{ tf(lang, MessageId::K8sKubeletScheduled, &[("node", first.node.as_str())]) }</p> }
    } else {
        let kube = kube.clone();
        let onchange = on_select(move |v| kube(KubeAction::KubeletNode(v)));
        let nodes = view.cluster.iter().map(|n| (n.name.clone(), n.name.clone(), n.name == first.node || n.name == input.kubelet_node)).collect();
        select_html(lang, MessageId::K8sKubeletNode, "k8s-kubelet-node", true, nodes, onchange)
    };
    html! {
        <section class="k8s-kubelet">
            <h4>{ tf(lang, MessageId::K8sKubelet, &[("node", first.node.as_str())]) }</h4>
            { placement }
            { for sandboxes.iter().map(|s| {
                let when = if s.restarted { MessageId::K8sAfterRestart } else { MessageId::K8sBeforeRestart };
                let class = if s.restarted { "k8s-sandbox after-restart" } else { "k8s-sandbox before-restart" };
                // The node as step 4 left it says what was done to it, not a what-if.
                let heading = if s.ops.is_empty() {
                    t(lang, when).to_string()
                } else {
                    let id = if s.restarted { MessageId::K8sStep4Restarted } else { MessageId::K8sStep4NotRestarted };
                    tf(lang, id, &[("ops", s.ops.join(", ").as_str())])
                };
                html! {
                    <div class={classes!(class, (!s.ops.is_empty()).then_some("from-step-4"))}>
                        <h5>{ heading }</h5>
                        <p class="k8s-sandbox-result"><strong>{ if s.started {
                            tf(lang, MessageId::K8sSandboxStarted, &[("handler", s.handler.as_str())])
                        } else {
                            t(lang, MessageId::K8sSandboxFailed).to_string()
                        } }</strong></p>
                        <Upstream {lang} class="k8s-sandbox-pods" text={s.get_pods.clone()} />
                        <Upstream {lang} class="k8s-sandbox-events" text={s.events.clone()} />
                    </div>
                }
            }) }
        </section>
    }
}

fn cluster_view(lang: Lang, view: &KubeView) -> Html {
    let none = t(lang, MessageId::K8sNoPods);
    html! {
        <section class="k8s-cluster-view">
            <h3>{ t(lang, MessageId::K8sCluster) }</h3>
            <Upstream {lang} class="k8s-get-nodes" text={view.get_nodes.clone()} />
            { for view.cluster.iter().map(|n| {
                let pods = if n.pods.is_empty() { none.to_string() } else { n.pods.join(", ") };
                html! {
                    <div class="table-scroll k8s-node" data-node={n.name.clone()}>
                        <table>
                            <caption>{ tf(lang, MessageId::K8sNodeCaption, &[("node", n.name.as_str())]) }</caption>
                            <thead><tr>
                                <th scope="col">{ t(lang, MessageId::K8sResource) }</th>
                                <th scope="col">{ t(lang, MessageId::K8sCapacity) }</th>
                                <th scope="col">{ t(lang, MessageId::K8sAllocatable) }</th>
                            </tr></thead>
                            <tbody lang="en">
                                { for n.resources.iter().map(|(r, c, a)| html! {
                                    <tr><th scope="row">{ r.clone() }</th><td>{ c.clone() }</td><td>{ a.clone() }</td></tr>
                                }) }
                            </tbody>
                        </table>
                        <p class="k8s-node-pods">{ tf(lang, MessageId::K8sNodePods, &[("node", n.name.as_str()), ("pods", pods.as_str())]) }</p>
                    </div>
                }
            }) }
        </section>
    }
}

fn patch_html(
    lang: Lang,
    view: &KubeView,
    form: &UseStateHandle<NodePatch>,
    kube: &(impl Fn(KubeAction) + Clone + 'static),
) -> Html {
    let node = if form.node.is_empty() { view.cluster.first().map(|n| n.name.clone()).unwrap_or_default() } else { form.node.clone() };
    let text_field = |label: MessageId, class: &'static str, value: String, set: fn(&mut NodePatch, String)| {
        let id = unique_id(class);
        let form = form.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                let mut p = (*form).clone();
                set(&mut p, i.value());
                form.set(p);
            }
        });
        html! {
            <div class={classes!("field", class)}>
                <label for={id.clone()}>{ t(lang, label) }</label>
                <input {id} type="text" lang="en" {value} {oninput} />
            </div>
        }
    };
    let on_node = on_select({
        let form = form.clone();
        move |v| form.set(NodePatch { node: v, ..(*form).clone() })
    });
    let on_apply = {
        let kube = kube.clone();
        let patch = NodePatch { node: node.clone(), ..(**form).clone() };
        Callback::from(move |_| kube(KubeAction::Patch(patch.clone())))
    };
    let on_clear = {
        let kube = kube.clone();
        Callback::from(move |_| kube(KubeAction::ClearPatches))
    };
    let nodes = view.cluster.iter().map(|c| (c.name.clone(), c.name.clone(), c.name == node)).collect();
    // What the API server accepted, not what was sent (a refused patch changes nothing).
    let n = view.patches_applied.to_string();
    html! {
        <fieldset class="k8s-patch">
            <legend>{ t(lang, MessageId::K8sPatch) }</legend>
            { select_html(lang, MessageId::K8sPatchNode, "k8s-patch-node", true, nodes, on_node) }
            { text_field(MessageId::K8sPatchResource, "k8s-patch-resource", form.resource.clone(), |p, v| p.resource = v) }
            { text_field(MessageId::K8sPatchQuantity, "k8s-patch-quantity", form.quantity.clone(), |p, v| p.quantity = v) }
            <p>
                <button type="button" class="k8s-patch-apply" onclick={on_apply}>{ t(lang, MessageId::K8sPatchApply) }</button>
                { " " }
                <button type="button" class="k8s-patch-clear" onclick={on_clear}>{ t(lang, MessageId::K8sPatchClear) }</button>
                { " " }
                <span class="k8s-patches" aria-live="polite">{ tf(lang, MessageId::K8sPatches, &[("n", n.as_str())]) }</span>
            </p>
            if !view.patch_errors.is_empty() {
                <Upstream {lang} class="k8s-patch-errors" text={view.patch_errors.join("\n")} />
            }
        </fieldset>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Steps 5 and 6: the cluster, the RuntimeClass and the GPU pod, as YAML.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct KubeInput {
    /// A Kubernetes minor version (`1.33` … `1.37`).
    pub version: String,
    pub cluster: String,
    pub runtimeclass: String,
    pub pod: String,
    /// Step 6: the node status patches applied, in order.
    pub patches: Vec<gpulab_view::NodePatch>,
    /// Step 5: the node the kubelet result is shown for while the pod is Pending.
    pub kubelet_node: String,
    /// Step 6's path to the GPU (an id of [`PATHS`]; empty: the device plugin's).
    pub path: String,
    /// The DRA path's pod and objects, and the extended-resource path's objects, as
    /// the learner edited them; empty: the path's own (the chunk holds them).
    pub dra_pod: String,
    pub dra_objects: String,
    pub ext_objects: String,
}

impl Default for KubeInput {
    fn default() -> Self {
        KubeInput {
            version: "1.36".into(),
            cluster: include_str!("data/cluster.yaml").into(),
            runtimeclass: include_str!("data/runtimeclass.yaml").into(),
            pod: include_str!("data/pod.yaml").into(),
            patches: Vec::new(),
            kubelet_node: String::new(),
            path: String::new(),
            dra_pod: String::new(),
            dra_objects: String::new(),
            ext_objects: String::new(),
        }
    }
}

/// A change to steps 5–6's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeAction {
    Version(String),
    Cluster(String),
    RuntimeClass(String),
    Pod(String),
    /// `kubectl patch node … --subresource=status` (step 6).
    Patch(gpulab_view::NodePatch),
    ClearPatches,
    KubeletNode(String),
    /// Step 6's path (an id of [`PATHS`]).
    Path(String),
    /// The DRA path's pod.
    DraPod(String),
    /// The current path's objects file.
    Objects(String),
}

impl KubeInput {
    /// The input after `a`.
    pub fn apply(&mut self, a: KubeAction) {
        match a {
            KubeAction::Version(v) => self.version = v,
            KubeAction::Cluster(t) => self.cluster = t,
            KubeAction::RuntimeClass(t) => self.runtimeclass = t,
            KubeAction::Pod(t) => self.pod = t,
            KubeAction::Patch(p) => self.patches.push(p),
            KubeAction::ClearPatches => self.patches.clear(),
            KubeAction::KubeletNode(n) => self.kubelet_node = n,
            KubeAction::Path(p) => self.path = p,
            KubeAction::DraPod(t) => self.dra_pod = t,
            KubeAction::Objects(t) if self.path == "dra" => self.dra_objects = t,
            KubeAction::Objects(t) => self.ext_objects = t,
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> KubeInput {
    let mut k = KubeInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "version" => rd.string(v, &at, &mut k.version),
            "cluster" => rd.string(v, &at, &mut k.cluster),
            "runtimeclass" => rd.string(v, &at, &mut k.runtimeclass),
            "pod" => rd.string(v, &at, &mut k.pod),
            "patches" => k.patches = rd.list(v, &at, |me, item, at| Some(read_patch(me, item, at))),
            "kubelet_node" => rd.string(v, &at, &mut k.kubelet_node),
            "path" => rd.string(v, &at, &mut k.path),
            "dra_pod" => rd.string(v, &at, &mut k.dra_pod),
            "dra_objects" => rd.string(v, &at, &mut k.dra_objects),
            "ext_objects" => rd.string(v, &at, &mut k.ext_objects),
            _ => rd.unknown(path, key, &["version", "cluster", "runtimeclass", "pod", "patches", "kubelet_node", "path", "dra_pod", "dra_objects", "ext_objects"]),
        }
    }
    k
}

fn read_patch(rd: &mut Reader, v: &Value, path: &str) -> NodePatch {
    let mut p = NodePatch::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "node" => rd.string(v, &at, &mut p.node),
            "resource" => rd.string(v, &at, &mut p.resource),
            "quantity" => rd.string(v, &at, &mut p.quantity),
            _ => rd.unknown(path, key, &["node", "resource", "quantity"]),
        }
    }
    p
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, k: &KubeInput) {
    Object::new(out)
        .str("version", &k.version)
        .str("cluster", &k.cluster)
        .str("runtimeclass", &k.runtimeclass)
        .str("pod", &k.pod)
        .with("patches", |out| crate::json::array(out, &k.patches, gpulab_view::wire::write_patch))
        .str("kubelet_node", &k.kubelet_node)
        .str("path", &k.path)
        .str("dra_pod", &k.dra_pod)
        .str("dra_objects", &k.dra_objects)
        .str("ext_objects", &k.ext_objects)
        .end();
}
