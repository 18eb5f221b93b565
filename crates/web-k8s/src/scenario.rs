//! An author's scenario in the page (the `scenario` mount option): the model's own
//! parser (`scenario::parse`), so the page reports exactly what `gpulab scenario
//! check` reports for the same file, at the same file:line:column, and where the lab
//! starts from it. It lives in the chunk because only pages that pass a scenario need
//! it (about 20 KB of wasm the first load no longer carries). Only the parse runs
//! here: expectations are checked by `gpulab scenario check`.
//!
//! The lab starts from the story's node: the first node a step writes a containerd
//! drop-in to (else the first node) — its containerd version, main config, drop-in and
//! supervisor — and the scenario's GPUs and device-plugin config for the slot table.

use std::cell::RefCell;

use gpulab_model::containerd::Supervisor;
use gpulab_model::diagnostic::Diagnostic;
use gpulab_model::scenario::{self, Action, Scenario};
use gpulab_view::{AuthorDiag, ScenarioOutcome, ScenarioRequest, ScenarioStart};

/// The scenario's name: the file name without directory and `.toml`
/// (`course/gpu/scenario.toml` → `gpu`).
pub fn name_of(file: &str) -> String {
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

/// Parses the scenario: where the lab starts, or the model's diagnostics (codes
/// `scenario-*`) at the page's file name.
pub fn outcome(req: &ScenarioRequest) -> ScenarioOutcome {
    let read = |rel: &str| req.files.get(rel).cloned().ok_or_else(|| "not given to the lab (not found next to the scenario)".to_string());
    match scenario::parse(&name_of(&req.file), &req.file, &req.text, &read) {
        Ok(s) => ScenarioOutcome::Started(start_of(&s)),
        Err(mut diags) => {
            scenario::locate::refine(&mut diags, &req.text);
            ScenarioOutcome::Errors(diags.iter().map(author_diag).collect())
        }
    }
}

fn author_diag(d: &Diagnostic) -> AuthorDiag {
    let span = d.primary.as_ref();
    AuthorDiag {
        text: d.line(),
        file: span.map(|s| s.file.clone()),
        line: span.map(|s| s.line),
        column: span.map(|s| s.column),
        code: d.code.clone(),
        message: d.get("message").unwrap_or("").to_string(),
    }
}

/// Where the lab starts (see the module doc).
pub fn start_of(s: &Scenario) -> ScenarioStart {
    let mut start = ScenarioStart { title: s.title.clone(), ..ScenarioStart::default() };
    let dropin_step = s.steps.iter().find_map(|st| match &st.action {
        Action::WriteFile { node, path, file } if path.contains("/conf.d/") => Some((node.as_str(), file.content.clone())),
        _ => None,
    });
    let node = dropin_step.as_ref().and_then(|(n, _)| s.nodes.iter().find(|x| x.name == *n)).or_else(|| s.nodes.first());
    if let Some(node) = node {
        start.containerd_version = node.version.as_ref().map(|v| v.recorded().to_string());
        start.main = node.files.iter().find(|(p, _)| p == "/etc/containerd/config.toml").map(|(_, f)| f.content.clone());
        let own_dropin = node.files.iter().find(|(p, _)| p.contains("/conf.d/")).map(|(_, f)| f.content.clone());
        start.dropin = Some(dropin_step.map(|(_, c)| c).or(own_dropin).unwrap_or_default());
        start.by_hand = matches!(node.supervisor, Supervisor::ByHand);
        start.gpu_model = Some(node.gpu_model.clone()).filter(|m| !m.is_empty());
        start.gpus_per_node = Some(node.gpus).filter(|n| *n > 0);
    }
    let gpu_nodes = s.nodes.iter().filter(|n| n.gpus > 0).count();
    start.nodes = u32::try_from(gpu_nodes).ok().filter(|n| *n > 0);
    start.slots_config = s.steps.iter().find_map(|st| match &st.action {
        Action::PluginConfig { file } => Some(file.content.clone()),
        _ => None,
    });
    start
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const INCIDENT: &str = include_str!("../../../scenarios/incident/scenario.toml");

    fn incident_files() -> BTreeMap<String, String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/incident");
        references(INCIDENT).into_iter().filter_map(|r| Some((r.clone(), std::fs::read_to_string(dir.join(&r)).ok()?))).collect()
    }

    /// The references are the files the incident names, each once.
    #[test]
    fn references_of_the_incident() {
        let refs = references(INCIDENT);
        for f in ["nodes/config.toml", "nodes/99-nvidia.toml", "k8s/cluster.yaml"] {
            assert!(refs.iter().any(|r| r == f), "{f} not in {refs:?}");
        }
        let mut dedup = refs.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(dedup.len(), refs.len());
    }

    /// The incident starts the lab on gpu-node-2 (the node the drop-in lands on): its
    /// main config, the drop-in, its containerd version and the GPUs.
    #[test]
    fn incident_start() {
        let files = incident_files();
        let req = ScenarioRequest { file: "incident/scenario.toml".into(), text: INCIDENT.into(), files: files.clone() };
        let ScenarioOutcome::Started(s) = outcome(&req) else { panic!("the incident does not parse") };
        assert_eq!(s.main.as_ref(), files.get("nodes/config.toml"));
        assert_eq!(s.dropin.as_ref(), files.get("nodes/99-nvidia.toml"));
        assert_eq!(s.containerd_version.as_deref(), Some("1.6.20"));
        assert_eq!((s.gpu_model.as_deref(), s.gpus_per_node, s.nodes), (Some("NVIDIA A100-SXM4-40GB"), Some(4), Some(3)));
        assert_eq!(name_of("incident/scenario.toml"), "incident");
        assert_eq!(name_of("my-lab.toml"), "my-lab");
    }

    /// A bad scenario is the model's diagnostics at the page's file name, with line
    /// and column; a file not given is reported at the line that references it.
    #[test]
    fn errors_name_file_and_line() {
        let cases: [(&str, &str); 3] = [
            ("title = \"x\"\n[[node]\n", "my.toml:2:"),
            (
                "title = \"x\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\nfiles = { \"/etc/containerd/config.toml\" = \"nodes/c.toml\" }\n[[step]]\nname = \"s\"\ndo = \"observe\"\n",
                // Column 43: the quoted path on line 5, where `gpulab scenario check` points too.
                "my.toml:5:43: error: cannot read `nodes/c.toml`",
            ),
            ("title = \"x\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\n[[step]]\nname = \"s\"\ndo = \"jump\"\n", "[scenario-unknown-action]"),
        ];
        for (text, says) in cases {
            let ScenarioOutcome::Errors(errs) = outcome(&ScenarioRequest { file: "my.toml".into(), text: text.into(), files: BTreeMap::new() }) else {
                panic!("{text} parsed")
            };
            assert!(errs.iter().any(|e| e.text.contains(says)), "{says:?} not in {errs:#?}");
            assert!(errs.iter().all(|e| e.file.as_deref() == Some("my.toml") && e.line.is_some() && !e.code.is_empty()), "{errs:#?}");
        }
    }
}
