//! An author's scenario in the page: the `scenario` mount option (a `scenario.toml`
//! as text, and the files it references) → the work the lab starts from. The model's
//! parser runs in the on-demand chunk (`crates/web-k8s/src/scenario.rs`), so the page
//! reports exactly what `gpulab scenario check` reports for the same file, at the same
//! file:line:column, and the first load of every other page does not carry it; a page
//! that passes a scenario loads the chunk before mounting (`loadChunk()`, which
//! `www/gpu-lab.js` awaits). Here: the reply's outcome and the starting work (the
//! request and the reply's JSON are `gpulab_view::wire`'s).

use gpulab_view::wire;
use gpulab_view::{AuthorDiag, ScenarioOutcome, ScenarioStart};

use crate::state::{SupervisorChoice, Work, GPUS_PER_NODE, NODES};

/// The scenario the page gave, with the files it references: the chunk's
/// `ScenarioRequest` (`file` is the name errors show, `files` path → content).
pub use gpulab_view::ScenarioRequest as Source;

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
    let outcome = wire::reply(text).map_err(LoadError::Chunk)?;
    match wire::scenario_outcome(&outcome) {
        Some(ScenarioOutcome::Started(start)) => Ok(Loaded { title: start.title.clone(), work: work_from(&start) }),
        Some(ScenarioOutcome::Errors(diags)) => Err(LoadError::Scenario(diags)),
        None => Err(LoadError::Chunk("the scenario reply has neither Started nor Errors".into())),
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
    use gpulab_view::wire::ToJson;
    use std::collections::BTreeMap;

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
            ("{", "the chunk's reply is not JSON: expected a member name in double quotes, found the end of the text at line 1 column 2"),
            (r#"{"Err":"bad request: x"}"#, "bad request: x"),
            (r#"{"Ok":{}}"#, "the scenario reply has neither Started nor Errors"),
            ("[]", "the chunk's reply is an array, not an object"),
            (r#"{"Ok":null}"#, "the scenario reply has neither Started nor Errors"),
        ];
        for (text, says) in cases {
            assert_eq!(read_reply(text), Err(LoadError::Chunk(says.into())), "{text}");
        }
    }
}
