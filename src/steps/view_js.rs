//! Reads the chunk's JSON views (`gpulab_view`) through the browser's `JSON.parse`
//! instead of serde: every `#[derive(Deserialize)]` shape the app reads costs it
//! 2–5 KB of first-load wasm (serde_json instantiates a struct visitor per type),
//! while these readers are a few property lookups each. The shapes are serde's
//! default JSON of the view types (a test checks the round trip); a missing or
//! mistyped field reads as empty, never a panic.

use gpulab_model::containerd::load::LoadErrorCode;
use gpulab_model::containerd::log::LogLine;
use gpulab_model::containerd::syntax::Failure;
use gpulab_model::Severity;
use gpulab_view::{CellView, CheckRun, CheckView, DiagLine, Judgement, KubeOutcome, KubeView, LinkView, NodeView, RolloutView, Sandbox, SlotsView, TableView};
use wasm_bindgen::JsValue;

fn get(v: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(v, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn text(v: &JsValue, key: &str) -> String {
    get(v, key).as_string().unwrap_or_default()
}

fn opt_text(v: &JsValue, key: &str) -> Option<String> {
    get(v, key).as_string()
}

fn flag(v: &JsValue, key: &str) -> bool {
    get(v, key).as_bool().unwrap_or(false)
}

fn number(v: &JsValue, key: &str) -> Option<u32> {
    get(v, key).as_f64().filter(|n| *n >= 0.0 && *n <= f64::from(u32::MAX)).map(|n| n as u32)
}

fn items(v: &JsValue) -> Vec<JsValue> {
    if js_sys::Array::is_array(v) {
        js_sys::Array::from(v).to_vec()
    } else {
        Vec::new()
    }
}

fn list<T>(v: &JsValue, key: &str, read: impl Fn(&JsValue) -> T) -> Vec<T> {
    items(&get(v, key)).iter().map(read).collect()
}

fn texts(v: &JsValue, key: &str) -> Vec<String> {
    list(v, key, |x| x.as_string().unwrap_or_default())
}

fn diag_line(v: &JsValue) -> DiagLine {
    let severity = match text(v, "severity").as_str() {
        "info" => Severity::Info,
        "warning" => Severity::Warning,
        "fatal" => Severity::Fatal,
        _ => Severity::Error,
    };
    DiagLine {
        severity,
        location: opt_text(v, "location"),
        line: number(v, "line"),
        message: text(v, "message"),
        code: text(v, "code"),
    }
}

/// `JSON.parse` of the chunk's reply: `{"Ok": view}` or `{"Err": message}`.
pub fn reply(json: &str) -> Result<JsValue, String> {
    let v = js_sys::JSON::parse(json).map_err(|_| "the chunk's reply is not JSON".to_string())?;
    match opt_text(&v, "Err") {
        Some(e) => Err(e),
        None => Ok(get(&v, "Ok")),
    }
}

pub fn kube_view(v: &JsValue) -> KubeView {
    let o = get(v, "outcome");
    let outcome = if !get(&o, "BadInput").is_undefined() {
        KubeOutcome::BadInput { diagnostics: list(&get(&o, "BadInput"), "diagnostics", diag_line) }
    } else if !get(&o, "Rejected").is_undefined() {
        KubeOutcome::Rejected { text: text(&get(&o, "Rejected"), "text") }
    } else {
        let c = get(&o, "Created");
        KubeOutcome::Created {
            verdict: text(&c, "verdict"),
            events: text(&c, "events"),
            nodes: text(&c, "nodes"),
            sandboxes: list(&c, "sandboxes", |s| Sandbox {
                restarted: flag(s, "restarted"),
                ops: texts(s, "ops"),
                node: text(s, "node"),
                scheduled: flag(s, "scheduled"),
                handler: text(s, "handler"),
                started: flag(s, "started"),
                get_pods: text(s, "get_pods"),
                events: text(s, "events"),
            }),
        }
    };
    KubeView {
        outcome,
        get_nodes: text(v, "get_nodes"),
        cluster: list(v, "cluster", |n| NodeView {
            name: text(n, "name"),
            resources: list(n, "resources", |r| {
                let cell = |i: u32| js_sys::Array::from(r).get(i).as_string().unwrap_or_default();
                (cell(0), cell(1), cell(2))
            }),
            pods: texts(n, "pods"),
        }),
        versions: texts(v, "versions"),
        patch_errors: texts(v, "patch_errors"),
        patches_applied: number(v, "patches_applied").unwrap_or(0) as usize,
    }
}

/// The chunk's `containerd_syntax` view: `null`, or a `Failure` (its `log` line's
/// fields are `[name, value]` pairs).
pub fn syntax_failure(v: &JsValue) -> Option<Failure> {
    if v.is_null() || v.is_undefined() {
        return None;
    }
    let code = match text(v, "code").as_str() {
        "NestingLimit" => LoadErrorCode::NestingLimit,
        _ => LoadErrorCode::Syntax,
    };
    let l = get(v, "log");
    let log = (!l.is_null() && !l.is_undefined()).then(|| LogLine {
        level: text(&l, "level"),
        msg: text(&l, "msg"),
        fields: items(&get(&l, "fields")).iter().map(|pair| {
            let cell = |i: u32| js_sys::Array::from(pair).get(i).as_string().unwrap_or_default();
            (cell(0), cell(1))
        }).collect(),
    });
    Some(Failure { message: text(v, "message"), code, line: number(v, "line").unwrap_or(0), column: number(v, "column").unwrap_or(0), log })
}

pub fn rollout_view(v: &JsValue) -> RolloutView {
    let judgement = match opt_text(v, "judgement").as_deref() {
        Some("right") => Some(Judgement::Right),
        Some("wrong-node") => Some(Judgement::WrongNode),
        Some("wrong-cause") => Some(Judgement::WrongCause),
        Some("symptom") => Some(Judgement::Symptom),
        _ => None,
    };
    let cell = |c: &JsValue| CellView {
        text: text(c, "text"),
        pad: text(c, "pad"),
        key: text(c, "key"),
        label: text(c, "label"),
        marked: flag(c, "marked"),
        evidence: flag(c, "evidence"),
    };
    RolloutView {
        tables: list(v, "tables", |t| TableView { id: text(t, "id"), cells: list(t, "cells", cell) }),
        nodes: texts(v, "nodes"),
        causes: texts(v, "causes"),
        judgement,
        roots: texts(v, "roots"),
        diagnosis: list(v, "diagnosis", |l| LinkView { text: text(l, "text"), evidence: opt_text(l, "evidence") }),
        ending: text(v, "ending"),
        ending_syncs: number(v, "ending_syncs").unwrap_or(0),
        stalled_on: text(v, "stalled_on"),
        stalled_why: texts(v, "stalled_why"),
        broken: flag(v, "broken"),
        report_md: text(v, "report_md"),
    }
}

pub fn slots_view(v: &JsValue) -> SlotsView {
    SlotsView {
        models: texts(v, "models"),
        gpu_model: text(v, "gpu_model"),
        gpus_per_node: number(v, "gpus_per_node").unwrap_or(0),
        nodes: number(v, "nodes").unwrap_or(0),
        columns: texts(v, "columns"),
        rows: items(&get(v, "rows")).iter().map(|r| items(r).iter().map(|c| c.as_string().unwrap_or_default()).collect()).collect(),
        headline: texts(v, "headline"),
        drain: opt_text(v, "drain"),
        diagnostics: list(v, "diagnostics", diag_line),
        markdown: text(v, "markdown"),
        csv: text(v, "csv"),
    }
}

fn check_run(v: &JsValue) -> CheckRun {
    CheckRun {
        at: get(v, "at").as_f64().filter(|n| *n >= 0.0).map_or(0, |n| n as u64),
        exit_code: number(v, "exit_code").unwrap_or(0),
        verdict: text(v, "verdict"),
        verdict_text: text(v, "verdict_text"),
        output: text(v, "output"),
    }
}

pub fn check_view(v: &JsValue) -> CheckView {
    CheckView {
        now: check_run(&get(v, "now")),
        runs: list(v, "runs", check_run),
        looked_at: items(&get(v, "looked_at"))
            .iter()
            .map(|pair| {
                let cell = |i: u32| js_sys::Array::from(pair).get(i).as_string().unwrap_or_default();
                (cell(0), cell(1))
            })
            .collect(),
    }
}
