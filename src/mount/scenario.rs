//! An author's scenario in the page: the `scenario` mount option (a `scenario.toml`
//! as text, and the files it references) → the work the lab starts from. The model's
//! parser runs in the on-demand chunk (`crates/web-k8s/src/scenario.rs`), so the page
//! reports exactly what `gpulab scenario check` reports for the same file, at the same
//! file:line:column, and the first load of every other page does not carry it; a page
//! that passes a scenario loads the chunk before mounting (`loadChunk()`, which
//! `www/gpu-lab.js` awaits). Here: the request, reading the chunk's reply, and the
//! starting work.

use std::collections::BTreeMap;

use gpulab_view::{AuthorDiag, ScenarioStart};

use crate::json::{self, Object, Value};
use crate::state::{SupervisorChoice, Work, GPUS_PER_NODE, NODES};
use crate::steps::requests::ToJson;

/// The scenario the page gave, with the files it references.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    /// The file name shown in errors (the `scenario-src` URL, or `scenario.toml`).
    pub file: String,
    pub text: String,
    /// Path inside the scenario directory → content.
    pub files: BTreeMap<String, String>,
}

impl ToJson for Source {
    /// As the chunk's `ScenarioRequest`.
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

/// A parsed author scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub title: String,
    pub work: Work,
}

/// Why a scenario did not load.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    /// The scenario has mistakes: the model's findings.
    Scenario(Vec<AuthorDiag>),
    /// The chunk answered something unreadable (a bundle of mixed versions).
    Chunk(String),
}

/// Reads the chunk's `Reply<ScenarioOutcome>`.
pub fn read_reply(text: &str) -> Result<Loaded, LoadError> {
    let bad = |what: &str| LoadError::Chunk(format!("the scenario reply {what}"));
    let v = json::parse(text).map_err(|e| bad(&format!("is not JSON: {e}")))?;
    if let Some(Value::String(e)) = v.get("Err") {
        return Err(LoadError::Chunk(e.clone()));
    }
    let outcome = v.get("Ok").ok_or_else(|| bad("has no Ok"))?;
    if let Some(Value::Array(items)) = outcome.get("Errors") {
        return Err(LoadError::Scenario(items.iter().map(author_diag).collect()));
    }
    let s = outcome.get("Started").ok_or_else(|| bad("has neither Started nor Errors"))?;
    let start = ScenarioStart {
        title: text_of(s, "title").unwrap_or_default(),
        containerd_version: text_of(s, "containerd_version"),
        main: text_of(s, "main"),
        dropin: text_of(s, "dropin"),
        by_hand: s.get("by_hand") == Some(&Value::Bool(true)),
        gpu_model: text_of(s, "gpu_model"),
        gpus_per_node: number_of(s, "gpus_per_node"),
        nodes: number_of(s, "nodes"),
        slots_config: text_of(s, "slots_config"),
    };
    Ok(Loaded { title: start.title.clone(), work: work_from(&start) })
}

fn text_of(v: &Value, key: &str) -> Option<String> {
    match v.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    }
}

fn number_of(v: &Value, key: &str) -> Option<u32> {
    v.get(key).and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok())
}

fn author_diag(v: &Value) -> AuthorDiag {
    AuthorDiag {
        text: text_of(v, "text").unwrap_or_default(),
        file: text_of(v, "file"),
        line: number_of(v, "line"),
        column: number_of(v, "column"),
        code: text_of(v, "code").unwrap_or_default(),
        message: text_of(v, "message").unwrap_or_default(),
    }
}

/// The lab's default work with what the scenario sets.
pub fn work_from(s: &ScenarioStart) -> Work {
    let mut w = Work::default();
    let set = |slot: &mut String, v: &Option<String>| {
        if let Some(v) = v {
            slot.clone_from(v);
        }
    };
    set(&mut w.containerd.version, &s.containerd_version);
    set(&mut w.containerd.main, &s.main);
    set(&mut w.containerd.dropin, &s.dropin);
    if s.by_hand {
        w.restart.supervisor = SupervisorChoice::ByHand;
    }
    set(&mut w.slots.gpu_model, &s.gpu_model);
    set(&mut w.slots.config, &s.slots_config);
    // Step 7 shows what its inputs can hold (`state::Bound`): a scenario node with
    // 64 GPUs starts the calculator at 16.
    w.slots.gpus_per_node = GPUS_PER_NODE.clamp(s.gpus_per_node.unwrap_or(w.slots.gpus_per_node));
    w.slots.nodes = NODES.clamp(s.nodes.unwrap_or(w.slots.nodes));
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    const INCIDENT: &str = include_str!("../../scenarios/incident/scenario.toml");

    fn files(text: &str) -> BTreeMap<String, String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/incident");
        gpu_node_lab_k8s::scenario::references(text).into_iter().filter_map(|r| Some((r.clone(), std::fs::read_to_string(dir.join(&r)).ok()?))).collect()
    }

    /// The request the app writes is the chunk's `ScenarioRequest`, and its reply for
    /// the incident starts the lab on gpu-node-2 (the node the drop-in lands on): its
    /// main config, the drop-in, its containerd version and the GPUs.
    #[test]
    fn incident_through_the_chunk() {
        let files = files(INCIDENT);
        let source = Source { file: "incident/scenario.toml".into(), text: INCIDENT.into(), files: files.clone() };
        let req: gpulab_view::ScenarioRequest = serde_json::from_str(&source.to_json()).unwrap();
        assert_eq!((req.file.as_str(), req.text.as_str(), &req.files), (source.file.as_str(), INCIDENT, &files));
        let loaded = read_reply(&gpu_node_lab_k8s::scenario(&source.to_json())).unwrap();
        let w = &loaded.work;
        assert_eq!(w.containerd.main, files["nodes/config.toml"]);
        assert_eq!(w.containerd.dropin, files["nodes/99-nvidia.toml"]);
        assert_eq!(w.containerd.version, "1.6.20");
        assert_eq!((w.slots.gpu_model.as_str(), w.slots.gpus_per_node, w.slots.nodes), ("NVIDIA A100-SXM4-40GB", 4, 3));
        assert_eq!(w.check, Work::default().check, "what the scenario does not set keeps the defaults");
        assert!(!loaded.title.is_empty());
    }

    /// A bad scenario comes back as the model's findings, each with its
    /// `file:line:col: severity: message [code]` text and its parts.
    #[test]
    fn errors_come_back_whole() {
        let text = "title = \"x\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\n[[step]]\nname = \"s\"\ndo = \"jump\"\n";
        let source = Source { file: "my.toml".into(), text: text.into(), files: BTreeMap::new() };
        let Err(LoadError::Scenario(diags)) = read_reply(&gpu_node_lab_k8s::scenario(&source.to_json())) else { panic!("not refused") };
        let d = diags.iter().find(|d| d.code == "scenario-unknown-action").unwrap();
        assert_eq!((d.file.as_deref(), d.line), (Some("my.toml"), Some(7)));
        assert!(d.text.starts_with("my.toml:7:") && d.text.ends_with("[scenario-unknown-action]"), "{}", d.text);
    }

    /// Replies that are not the chunk's scenario outcome are errors that say so.
    #[test]
    fn unreadable_replies() {
        let cases = [
            ("{", "the scenario reply is not JSON: expected a member name in double quotes, found the end of the text at line 1 column 2"),
            (r#"{"Err":"bad request: x"}"#, "bad request: x"),
            (r#"{"Ok":{}}"#, "the scenario reply has neither Started nor Errors"),
            ("[]", "the scenario reply has no Ok"),
        ];
        for (text, says) in cases {
            assert_eq!(read_reply(text), Err(LoadError::Chunk(says.into())), "{text}");
        }
    }
}
