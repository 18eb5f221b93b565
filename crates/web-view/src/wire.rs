//! The protocol's JSON as the app writes and reads it: the requests written as
//! serde_json writes them, the chunk's replies (`Reply<View>`: `{"Ok":view}` or
//! `{"Err":message}`) read into the view types — with [`crate::json`], not serde,
//! because every `#[derive(Deserialize)]` shape the app read would cost its first
//! load 2–5 KB of wasm (serde_json instantiates a struct visitor per type) and serde
//! is not in the first load at all. The chunk reads and writes the same types with
//! serde; the tests below hold the two forms together, so a field added to a type
//! here and not to its JSON form fails them. A missing or mistyped field of a reply
//! reads as empty, never a panic.

use gpulab_model::containerd::load::LoadErrorCode;
use gpulab_model::containerd::log::LogLine;
use gpulab_model::containerd::syntax::Failure;
use gpulab_model::Severity;

use crate::json::{self, Object, Value};
use crate::{
    CellView, CheckRequest, CheckRun, CheckView, ContainerdFiles, DiagLine, Judgement, KubeOutcome, KubeRequest, KubeView, LinkView,
    AuthorDiag, NodePatch, NodeView, RolloutRequest, RolloutView, Sandbox, ScenarioOutcome, ScenarioRequest, ScenarioStart, SlotsRequest,
    SlotsView, SyntaxRequest, TableView,
};

/// A request the chunk reads as JSON.
pub trait ToJson {
    fn to_json(&self) -> String;
}

/// A node status patch (step 6), as the requests and the saved work write it.
pub fn write_patch(out: &mut String, p: &NodePatch) {
    Object::new(out).str("node", &p.node).str("resource", &p.resource).str("quantity", &p.quantity).end();
}

fn containerd(out: &mut String, c: &ContainerdFiles) {
    Object::new(out).str("version", &c.version).str("main", &c.main).str("dropin", &c.dropin).end();
}

impl ToJson for SlotsRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .str("gpu_model", &self.gpu_model)
            .num("gpus_per_node", self.gpus_per_node.into())
            .num("nodes", self.nodes.into())
            .num("replicas", self.replicas.into())
            .str("config", &self.config)
            .str("lang", &self.lang)
            .str("k8s_version", &self.k8s_version)
            .end();
        out
    }
}

impl ToJson for KubeRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .str("version", &self.version)
            .str("cluster", &self.cluster)
            .str("runtimeclass", &self.runtimeclass)
            .str("pod", &self.pod)
            .with("patches", |out| json::array(out, &self.patches, write_patch))
            .with("containerd", |out| containerd(out, &self.containerd))
            .str("kubelet_node", &self.kubelet_node)
            .strs("node_ops", self.node_ops.iter().map(String::as_str))
            .bool("by_hand", self.by_hand)
            .str("lang", &self.lang)
            .str("path", &self.path)
            .str("objects", &self.objects)
            .end();
        out
    }
}

impl ToJson for RolloutRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out).str("lang", &self.lang).str("work", &self.work).bool("broken", self.broken).end();
        out
    }
}

impl ToJson for CheckRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .with("containerd", |out| containerd(out, &self.containerd))
            .bool("by_hand", self.by_hand)
            .strs("ops", self.ops.iter().map(String::as_str))
            .str("handler", &self.handler)
            .str("keep", &self.keep)
            .str("lang", &self.lang)
            .end();
        out
    }
}

impl ToJson for SyntaxRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out).str("version", &self.version).str("path", &self.path).str("text", &self.text).end();
        out
    }
}


impl ToJson for ScenarioRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .str("file", &self.file)
            .str("text", &self.text)
            .with("files", |out| {
                let mut o = Object::new(out);
                for (path, text) in &self.files {
                    o.str(path, text);
                }
                o.end();
            })
            .end();
        out
    }
}

// Reading.

fn get<'v>(v: &'v Value, key: &str) -> &'v Value {
    v.get(key).unwrap_or(&Value::Null)
}

fn text(v: &Value, key: &str) -> String {
    opt_text(v, key).unwrap_or_default()
}

fn opt_text(v: &Value, key: &str) -> Option<String> {
    match v.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key) == Some(&Value::Bool(true))
}

fn number(v: &Value, key: &str) -> Option<u32> {
    v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok())
}

fn items(v: &Value) -> &[Value] {
    match v {
        Value::Array(items) => items,
        _ => &[],
    }
}

fn string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

fn list<T>(v: &Value, key: &str, read: impl Fn(&Value) -> T) -> Vec<T> {
    items(get(v, key)).iter().map(read).collect()
}

fn texts(v: &Value, key: &str) -> Vec<String> {
    list(v, key, string)
}

/// The `i`th string of an array (`[name, value]` pairs, table rows).
fn cell(v: &Value, i: usize) -> String {
    items(v).get(i).map(string).unwrap_or_default()
}

/// The chunk's reply text: its `Ok` value, or its `Err` message.
pub fn reply(text: &str) -> Result<Value, String> {
    let v = json::parse(text).map_err(|e| format!("the chunk's reply is not JSON: {e}"))?;
    let Value::Object(members) = v else { return Err(format!("the chunk's reply is {}, not an object", v.kind())) };
    let mut ok = Value::Null;
    for (key, value) in members {
        match (key.as_str(), value) {
            ("Err", Value::String(e)) => return Err(e),
            ("Ok", value) => ok = value,
            _ => {}
        }
    }
    Ok(ok)
}

fn diag_line(v: &Value) -> DiagLine {
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

pub fn kube_view(v: &Value) -> KubeView {
    let o = get(v, "outcome");
    let outcome = if let Some(b) = o.get("BadInput") {
        KubeOutcome::BadInput { diagnostics: list(b, "diagnostics", diag_line) }
    } else if let Some(r) = o.get("Rejected") {
        KubeOutcome::Rejected { text: text(r, "text") }
    } else if let Some(w) = o.get("Waiting") {
        KubeOutcome::Waiting { text: text(w, "text") }
    } else if o.get("NeedsDra").is_some() {
        KubeOutcome::NeedsDra {}
    } else {
        let c = get(o, "Created");
        KubeOutcome::Created {
            verdict: text(c, "verdict"),
            events: text(c, "events"),
            nodes: text(c, "nodes"),
            claims: text(c, "claims"),
            sandboxes: list(c, "sandboxes", |s| Sandbox {
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
            resources: list(n, "resources", |r| (cell(r, 0), cell(r, 1), cell(r, 2))),
            pods: texts(n, "pods"),
        }),
        versions: texts(v, "versions"),
        patch_errors: texts(v, "patch_errors"),
        patches_applied: number(v, "patches_applied").unwrap_or(0) as usize,
        pod: text(v, "pod"),
        objects: text(v, "objects"),
    }
}

/// The chunk's `containerd_syntax` view: `null`, or a `Failure` (its `log` line's
/// fields are `[name, value]` pairs).
pub fn syntax_failure(v: &Value) -> Option<Failure> {
    if *v == Value::Null {
        return None;
    }
    let code = match text(v, "code").as_str() {
        "NestingLimit" => LoadErrorCode::NestingLimit,
        _ => LoadErrorCode::Syntax,
    };
    let l = get(v, "log");
    let log = (*l != Value::Null).then(|| LogLine {
        level: text(l, "level"),
        msg: text(l, "msg"),
        fields: items(get(l, "fields")).iter().map(|pair| (cell(pair, 0), cell(pair, 1))).collect(),
    });
    Some(Failure { message: text(v, "message"), code, line: number(v, "line").unwrap_or(0), column: number(v, "column").unwrap_or(0), log })
}

pub fn rollout_view(v: &Value) -> RolloutView {
    let judgement = match opt_text(v, "judgement").as_deref() {
        Some("right") => Some(Judgement::Right),
        Some("wrong-node") => Some(Judgement::WrongNode),
        Some("wrong-cause") => Some(Judgement::WrongCause),
        Some("symptom") => Some(Judgement::Symptom),
        _ => None,
    };
    let cell_view = |c: &Value| CellView {
        text: text(c, "text"),
        pad: text(c, "pad"),
        key: text(c, "key"),
        label: text(c, "label"),
        marked: flag(c, "marked"),
        evidence: flag(c, "evidence"),
    };
    RolloutView {
        tables: list(v, "tables", |t| TableView { id: text(t, "id"), cells: list(t, "cells", cell_view) }),
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

pub fn slots_view(v: &Value) -> SlotsView {
    SlotsView {
        models: texts(v, "models"),
        gpu_model: text(v, "gpu_model"),
        gpus_per_node: number(v, "gpus_per_node").unwrap_or(0),
        nodes: number(v, "nodes").unwrap_or(0),
        columns: texts(v, "columns"),
        rows: items(get(v, "rows")).iter().map(|r| items(r).iter().map(string).collect()).collect(),
        headline: texts(v, "headline"),
        drain: opt_text(v, "drain"),
        diagnostics: list(v, "diagnostics", diag_line),
        markdown: text(v, "markdown"),
        csv: text(v, "csv"),
        notes: texts(v, "notes"),
        needs_dra: flag(v, "needs_dra"),
    }
}

fn check_run(v: &Value) -> CheckRun {
    CheckRun {
        at: get(v, "at").as_u64().unwrap_or(0),
        exit_code: number(v, "exit_code").unwrap_or(0),
        verdict: text(v, "verdict"),
        verdict_text: text(v, "verdict_text"),
        output: text(v, "output"),
    }
}

pub fn check_view(v: &Value) -> CheckView {
    CheckView {
        now: check_run(get(v, "now")),
        runs: list(v, "runs", check_run),
        looked_at: items(get(v, "looked_at")).iter().map(|pair| (cell(pair, 0), cell(pair, 1))).collect(),
    }
}

/// The chunk's `scenario` view: the scenario's start, or its findings; `None` when
/// the reply is neither.
pub fn scenario_outcome(v: &Value) -> Option<ScenarioOutcome> {
    if let Some(Value::Array(diags)) = v.get("Errors") {
        return Some(ScenarioOutcome::Errors(diags.iter().map(author_diag).collect()));
    }
    let s = v.get("Started")?;
    Some(ScenarioOutcome::Started(ScenarioStart {
        title: text(s, "title"),
        containerd_version: opt_text(s, "containerd_version"),
        main: opt_text(s, "main"),
        dropin: opt_text(s, "dropin"),
        by_hand: flag(s, "by_hand"),
        gpu_model: opt_text(s, "gpu_model"),
        gpus_per_node: number(s, "gpus_per_node"),
        nodes: number(s, "nodes"),
        slots_config: opt_text(s, "slots_config"),
    }))
}

fn author_diag(v: &Value) -> AuthorDiag {
    AuthorDiag {
        text: text(v, "text"),
        file: opt_text(v, "file"),
        line: number(v, "line"),
        column: number(v, "column"),
        code: text(v, "code"),
        message: text(v, "message"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRICKY: &str = "a \"quoted\" \\ line\n\ttab \u{1} 한국어";

    fn files() -> ContainerdFiles {
        ContainerdFiles { version: "1.7.34".into(), main: TRICKY.into(), dropin: String::new() }
    }

    /// Each request is written byte for byte as serde_json writes it, so the chunk
    /// (which reads with serde) gets exactly what it got before.
    #[test]
    fn same_json_as_serde() {
        let slots = SlotsRequest { gpu_model: "Tesla T4".into(), gpus_per_node: 4, nodes: u32::MAX, replicas: 0, config: TRICKY.into(), lang: "ko".into(), k8s_version: "1.36".into() };
        assert_eq!(slots.to_json(), serde_json::to_string(&slots).unwrap());
        let patch = NodePatch { node: "gpu-node-1".into(), resource: "nvidia.com/gpu".into(), quantity: "8".into() };
        for (patches, node_ops) in [(vec![], vec![]), (vec![patch.clone(), patch], vec!["write-dropin".to_string(), "restart".to_string()])] {
            let kube = KubeRequest {
                version: "1.36".into(),
                cluster: TRICKY.into(),
                runtimeclass: "x".into(),
                pod: String::new(),
                patches,
                containerd: files(),
                kubelet_node: "n".into(),
                by_hand: !node_ops.is_empty(),
                path: if node_ops.is_empty() { String::new() } else { "dra".into() },
                objects: TRICKY.into(),
                node_ops,
                lang: "ko".into(),
            };
            assert_eq!(kube.to_json(), serde_json::to_string(&kube).unwrap());
        }
        for ops in [vec![], vec!["write-dropin".to_string(), "run-check".to_string()]] {
            let c = CheckRequest { containerd: files(), by_hand: true, ops, handler: "nvidia".into(), keep: "runc".into(), lang: "ko".into() };
            assert_eq!(c.to_json(), serde_json::to_string(&c).unwrap());
        }
        let syntax = SyntaxRequest { version: "2.3.4".into(), path: "/etc/containerd/config.toml".into(), text: TRICKY.into() };
        assert_eq!(syntax.to_json(), serde_json::to_string(&syntax).unwrap());
        for broken in [false, true] {
            let r = RolloutRequest { lang: "en".into(), work: TRICKY.into(), broken };
            assert_eq!(r.to_json(), serde_json::to_string(&r).unwrap());
        }
        let files = [("containerd/main.toml".to_string(), TRICKY.to_string()), ("a \"b\"".to_string(), String::new())];
        for files in [Default::default(), files.into_iter().collect()] {
            let r = ScenarioRequest { file: "scenario.toml".into(), text: TRICKY.into(), files };
            assert_eq!(r.to_json(), serde_json::to_string(&r).unwrap());
        }
    }

    /// Reads `value` back through serde's JSON of its `Reply`, as the app reads the
    /// chunk's reply.
    fn round_trip<T: serde::Serialize + PartialEq + std::fmt::Debug>(value: T, read: fn(&Value) -> T) {
        let json = serde_json::to_string(&crate::Reply::<&T>::Ok(&value)).unwrap();
        assert_eq!(reply(&json).map(|v| read(&v)).as_ref(), Ok(&value), "{json}");
    }

    fn run(at: u64, verdict: &str) -> CheckRun {
        CheckRun { at, exit_code: 2, verdict: verdict.into(), verdict_text: TRICKY.into(), output: TRICKY.into() }
    }

    /// Every reader reads back what serde wrote for every field, in every variant the
    /// views carry (the chunk's own replies are read in the browser tier too:
    /// `tests/web.rs` `view_readers_agree_with_serde`).
    #[test]
    fn readers_read_what_serde_writes() {
        round_trip(CheckView { now: run(5, "pass"), runs: vec![run(0, "restart-needed"), run(7, "check-failed")], looked_at: vec![("ctr".into(), TRICKY.into())] }, check_view);
        let log = LogLine { level: "error".into(), msg: TRICKY.into(), fields: vec![("line".into(), "3".into())] };
        for (code, log) in [(LoadErrorCode::Syntax, Some(log)), (LoadErrorCode::NestingLimit, None)] {
            round_trip(Some(Failure { message: TRICKY.into(), code, line: 3, column: 9, log }), syntax_failure);
        }
        round_trip(None, syntax_failure);
        let diag = DiagLine { severity: Severity::Warning, location: Some("pod.yaml:1:2".into()), line: Some(1), message: TRICKY.into(), code: "c".into() };
        let sandbox = Sandbox { restarted: true, ops: vec!["restart".into()], node: "gpu-node-1".into(), scheduled: true, handler: "nvidia".into(), started: true, get_pods: TRICKY.into(), events: "e".into() };
        for outcome in [
            KubeOutcome::BadInput { diagnostics: vec![diag.clone()] },
            KubeOutcome::Rejected { text: TRICKY.into() },
            KubeOutcome::Waiting { text: TRICKY.into() },
            KubeOutcome::NeedsDra {},
            KubeOutcome::Created { verdict: "v".into(), events: "e".into(), nodes: "n".into(), claims: TRICKY.into(), sandboxes: vec![sandbox] },
        ] {
            let cluster = vec![NodeView { name: "gpu-node-1".into(), resources: vec![("cpu".into(), "4".into(), "4".into())], pods: vec!["p".into()] }];
            let (pod, objects) = ("p".into(), TRICKY.into());
            round_trip(KubeView { outcome, get_nodes: TRICKY.into(), cluster, versions: vec!["1.36".into()], patch_errors: vec!["x".into()], patches_applied: 2, pod, objects }, kube_view);
        }
        round_trip(
            SlotsView {
                models: vec!["Tesla T4".into()],
                gpu_model: "Tesla T4".into(),
                gpus_per_node: 4,
                nodes: 5000,
                columns: vec!["mode".into()],
                rows: vec![vec!["a".into(), TRICKY.into()]],
                headline: vec!["seats: 8".into()],
                drain: Some("d".into()),
                diagnostics: vec![diag],
                markdown: TRICKY.into(),
                csv: "c".into(),
                notes: vec![TRICKY.into()],
                needs_dra: true,
            },
            slots_view,
        );
        let start = ScenarioStart {
            title: TRICKY.into(),
            containerd_version: Some("2.1.9".into()),
            main: Some("m".into()),
            dropin: None,
            by_hand: true,
            gpu_model: Some("Tesla T4".into()),
            gpus_per_node: Some(4),
            nodes: None,
            slots_config: Some(TRICKY.into()),
        };
        let diag = AuthorDiag { text: TRICKY.into(), file: Some("scenario.toml".into()), line: Some(3), column: None, code: "c".into(), message: "m".into() };
        for outcome in [ScenarioOutcome::Started(start), ScenarioOutcome::Errors(vec![diag]), ScenarioOutcome::Errors(vec![])] {
            round_trip(Some(outcome), scenario_outcome);
        }
        for judgement in [None, Some(Judgement::Right), Some(Judgement::WrongNode), Some(Judgement::WrongCause), Some(Judgement::Symptom)] {
            let cells = vec![CellView { text: "2".into(), pad: "  ".into(), key: "get-ds/1/READY".into(), label: TRICKY.into(), marked: true, evidence: true }];
            round_trip(
                RolloutView {
                    tables: vec![TableView { id: "get-ds".into(), cells }],
                    nodes: vec!["gpu-node-2".into()],
                    causes: vec!["c".into()],
                    judgement,
                    roots: vec!["r".into()],
                    diagnosis: vec![LinkView { text: TRICKY.into(), evidence: Some("e".into()) }, LinkView { text: "t".into(), evidence: None }],
                    ending: "stalled".into(),
                    ending_syncs: 7,
                    stalled_on: "gpu-node-2".into(),
                    stalled_why: vec![TRICKY.into()],
                    broken: true,
                    report_md: TRICKY.into(),
                },
                rollout_view,
            );
        }
    }

    /// A reply that is not the protocol's says so; an `Err` is the chunk's message.
    #[test]
    fn bad_replies() {
        assert_eq!(reply(r#"{"Err":"boom"}"#), Err("boom".to_string()));
        assert_eq!(reply("[]"), Err("the chunk's reply is an array, not an object".to_string()));
        assert!(reply("{").is_err_and(|e| e.starts_with("the chunk's reply is not JSON: ")));
    }
}
