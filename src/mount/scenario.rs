//! An author's scenario in the page: the `scenario` mount option (a `scenario.toml`
//! as text, and the files it references) → the work the lab starts from. Parsing is
//! the model's own (`scenario::parse`), so the page reports exactly what
//! `gpulab scenario check` reports for the same file, at the same file:line:column.
//! Only the parse runs here: the engine (and with it the Kubernetes model) stays out
//! of the first-load wasm; expectations are checked by `gpulab scenario check`.
//!
//! The lab starts from the story's node: the first node a step writes a containerd
//! drop-in to (else the first node) — its containerd version, main config, drop-in and
//! supervisor — and the scenario's GPUs and device-plugin config for the slot table.

use std::cell::RefCell;
use std::collections::BTreeMap;

use gpulab_model::containerd::Supervisor;
use gpulab_model::diagnostic::Diagnostic;
use gpulab_model::scenario::{self, Action, Scenario};

use crate::state::{SupervisorChoice, Work};

/// The scenario the page gave, with the files it references.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    /// The file name shown in errors (the `scenario-src` URL, or `scenario.toml`).
    pub file: String,
    pub text: String,
    /// Path inside the scenario directory → content.
    pub files: BTreeMap<String, String>,
}

/// A parsed author scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub title: String,
    pub work: Work,
}

/// The scenario's name: the file name without directory and `.toml`
/// (`course/gpu/scenario.toml` → `gpu`).
fn name_of(file: &str) -> String {
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    match parts.as_slice() {
        [.., dir, last] if *last == scenario::SCENARIO_FILE => (*dir).to_string(),
        [.., last] => last.trim_end_matches(".toml").to_string(),
        [] => "scenario".to_string(),
    }
}

/// The files `text` references (node files, manifests, step files), in the order the
/// parser reads them; the loader fetches them before mounting. A scenario that does
/// not parse references what was read before the error.
pub fn references(text: &str) -> Vec<String> {
    let seen = RefCell::new(Vec::<String>::new());
    let read = |rel: &str| {
        let mut s = seen.borrow_mut();
        if !s.iter().any(|p| p == rel) {
            s.push(rel.to_string());
        }
        Ok(String::new())
    };
    let _ = scenario::parse("scenario", scenario::SCENARIO_FILE, text, &read);
    seen.into_inner()
}

/// Parses the scenario; errors are the model's diagnostics (codes `scenario-*`).
pub fn load(source: &Source) -> Result<Loaded, Vec<Diagnostic>> {
    let read = |rel: &str| source.files.get(rel).cloned().ok_or_else(|| "not given to the lab (not found next to the scenario)".to_string());
    let s = scenario::parse(&name_of(&source.file), &source.file, &source.text, &read).map_err(|mut diags| {
        scenario::locate::refine(&mut diags, &source.text);
        diags
    })?;
    Ok(Loaded { title: s.title.clone(), work: work_from(&s) })
}

/// The work the lab starts from (see the module doc).
pub fn work_from(s: &Scenario) -> Work {
    let mut work = Work::default();
    let dropin_step = s.steps.iter().find_map(|st| match &st.action {
        Action::WriteFile { node, path, file } if path.contains("/conf.d/") => Some((node.as_str(), file.content.clone())),
        _ => None,
    });
    let node = dropin_step.as_ref().and_then(|(n, _)| s.nodes.iter().find(|x| x.name == *n)).or_else(|| s.nodes.first());
    if let Some(node) = node {
        if let Some(v) = &node.version {
            work.containerd.version = v.recorded().to_string();
        }
        if let Some((_, f)) = node.files.iter().find(|(p, _)| p == "/etc/containerd/config.toml") {
            work.containerd.main = f.content.clone();
        }
        let own_dropin = node.files.iter().find(|(p, _)| p.contains("/conf.d/")).map(|(_, f)| f.content.clone());
        work.containerd.dropin = dropin_step.map(|(_, c)| c).or(own_dropin).unwrap_or_default();
        work.restart.supervisor = match node.supervisor {
            Supervisor::ByHand => SupervisorChoice::ByHand,
            _ => SupervisorChoice::Systemd,
        };
        if !node.gpu_model.is_empty() {
            work.slots.gpu_model = node.gpu_model.clone();
        }
        if node.gpus > 0 {
            work.slots.gpus_per_node = node.gpus;
        }
    }
    let gpu_nodes = s.nodes.iter().filter(|n| n.gpus > 0).count();
    if let Ok(n @ 1..) = u32::try_from(gpu_nodes) {
        work.slots.nodes = n;
    }
    if let Some(config) = s.steps.iter().find_map(|st| match &st.action {
        Action::PluginConfig { file } => Some(file.content.clone()),
        _ => None,
    }) {
        work.slots.config = config;
    }
    work
}

#[cfg(test)]
mod tests {
    use super::*;

    const INCIDENT: &str = include_str!("../../scenarios/incident/scenario.toml");

    fn incident_files() -> BTreeMap<String, String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/incident");
        references(INCIDENT).into_iter().map(|r| (r.clone(), std::fs::read_to_string(dir.join(&r)).unwrap())).collect()
    }

    /// The references are the files the incident names, each once.
    #[test]
    fn references_of_the_incident() {
        let refs = references(INCIDENT);
        for f in ["nodes/config.toml", "nodes/99-nvidia.toml", "k8s/cluster.yaml"] {
            assert!(refs.iter().any(|r| r == f), "{f} not in {refs:?}");
        }
        let mut dedup = refs.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), refs.len());
    }

    /// The incident starts the lab on gpu-node-2 (the node the drop-in lands on): its
    /// main config, the drop-in, its containerd version and the GPUs.
    #[test]
    fn incident_work() {
        let files = incident_files();
        let loaded = load(&Source { file: "incident/scenario.toml".into(), text: INCIDENT.into(), files: files.clone() }).unwrap();
        let w = &loaded.work;
        assert_eq!(w.containerd.main, files["nodes/config.toml"]);
        assert_eq!(w.containerd.dropin, files["nodes/99-nvidia.toml"]);
        assert_eq!(w.containerd.version, "1.6.20");
        assert_eq!((w.slots.gpu_model.as_str(), w.slots.gpus_per_node, w.slots.nodes), ("NVIDIA A100-SXM4-40GB", 4, 3));
        assert_eq!(name_of("incident/scenario.toml"), "incident");
        assert_eq!(name_of("my-lab.toml"), "my-lab");
    }

    /// A bad scenario is the model's diagnostics at the page's file name, with line
    /// and column; a file not given is reported at the line that references it.
    #[test]
    fn errors_name_file_and_line() {
        let cases: [(&str, BTreeMap<String, String>, &str); 3] = [
            ("title = \"x\"\n[[node]\n", BTreeMap::new(), "my.toml:2:"),
            (
                "title = \"x\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\nfiles = { \"/etc/containerd/config.toml\" = \"nodes/c.toml\" }\n[[step]]\nname = \"s\"\ndo = \"observe\"\n",
                BTreeMap::new(),
                // Column 43: the quoted path on line 5, where `gpulab scenario check` points too.
                "my.toml:5:43: error: cannot read `nodes/c.toml`",
            ),
            ("title = \"x\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\n[[step]]\nname = \"s\"\ndo = \"jump\"\n", BTreeMap::new(), "[scenario-unknown-action]"),
        ];
        for (text, files, says) in cases {
            let errs = load(&Source { file: "my.toml".into(), text: text.into(), files }).unwrap_err();
            let lines: Vec<String> = errs.iter().map(Diagnostic::line).collect();
            assert!(lines.iter().any(|l| l.contains(says)), "{says:?} not in {lines:#?}");
        }
    }
}
