//! `gpulab scenario new PATH`: scaffolds a scenario directory at PATH from the incident
//! (`scenarios/incident`, embedded at build time so the command works from any
//! directory), as `cargo new PATH` creates a package: the last component of PATH names
//! the scenario. The copy is valid as written — `gpulab scenario run PATH` passes
//! on it — so an author starts from a green scenario and changes one thing at a time,
//! with `gpulab scenario check` after each change.

use std::path::{Path, PathBuf};

use gpulab_model::scenario;
use serde_json::json;

use crate::cli::ScenarioNewArgs;
use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// The incident's files: path inside the scenario directory, content.
pub const TEMPLATE: &[(&str, &str)] = &[
    ("scenario.toml", include_str!("../../../../scenarios/incident/scenario.toml")),
    ("nodes/config.toml", include_str!("../../../../scenarios/incident/nodes/config.toml")),
    ("nodes/config-with-nvidia.toml", include_str!("../../../../scenarios/incident/nodes/config-with-nvidia.toml")),
    ("nodes/99-nvidia.toml", include_str!("../../../../scenarios/incident/nodes/99-nvidia.toml")),
    ("nodes/99-nvidia-full-table.toml", include_str!("../../../../scenarios/incident/nodes/99-nvidia-full-table.toml")),
    ("k8s/cluster.yaml", include_str!("../../../../scenarios/incident/k8s/cluster.yaml")),
    ("k8s/runtimeclass.yaml", include_str!("../../../../scenarios/incident/k8s/runtimeclass.yaml")),
    ("k8s/device-plugin-v1.yaml", include_str!("../../../../scenarios/incident/k8s/device-plugin-v1.yaml")),
    ("k8s/device-plugin-v2.yaml", include_str!("../../../../scenarios/incident/k8s/device-plugin-v2.yaml")),
    ("k8s/cuda-pod.yaml", include_str!("../../../../scenarios/incident/k8s/cuda-pod.yaml")),
    ("k8s/cuda-pod-8gpu.yaml", include_str!("../../../../scenarios/incident/k8s/cuda-pod-8gpu.yaml")),
    ("nvidia/time-slicing.yaml", include_str!("../../../../scenarios/incident/nvidia/time-slicing.yaml")),
];

/// Whether `name` can be a scenario directory name: 1–64 of `[A-Za-z0-9_-]`, not
/// starting with `-` (it would read as an option).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('-')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The scaffolded `scenario.toml`: the incident's, with a header saying where it came
/// from and the title and teaching text of the new scenario (plain text, not app keys).
pub fn scenario_toml(name: &str, incident: &str) -> String {
    let mut out = format!(
        "# {name}: scaffolded by `gpulab scenario new` from scenarios/incident (the seed's incident).\n\
         # Change the nodes, their files and the steps; `gpulab scenario check` after each change\n\
         # lints it and runs every expectation on the model. Format: docs/scenarios.md.\n"
    );
    for line in incident.lines() {
        let line = match line {
            l if l.starts_with("title = ") => format!("title = \"{name}\""),
            l if l.starts_with("teaching = ") => format!("teaching = \"{name}: what the learner should take away\""),
            l if l.starts_with("source = ") => "source = \"scaffolded from scenarios/incident\"".to_string(),
            l => l.to_string(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Writes the scaffold into the new directory `target` (its last component is the
/// scenario's name); the files written, or what went wrong.
pub fn scaffold(target: &Path) -> Result<Vec<PathBuf>, String> {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if !valid_name(&name) {
        return Err(format!(
            "{}: the last component {name:?} names the scenario: use letters, digits, `-` and `_`",
            target.display()
        ));
    }
    let name = name.as_str();
    if target.exists() {
        return Err(format!("{}: already exists (choose another NAME or remove it)", target.display()));
    }
    let mut written = Vec::new();
    for (rel, content) in TEMPLATE {
        let path = target.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let text = if *rel == scenario::SCENARIO_FILE { scenario_toml(name, content) } else { (*content).to_string() };
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// `gpulab scenario new`.
pub fn run(args: &ScenarioNewArgs, output: OutputFormat) -> ExitCode {
    match scaffold(&args.path) {
        Ok(files) => {
            let dir = &args.path;
            match output {
                OutputFormat::Json => {
                    let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                    println!("{}", json!({ "created": dir.display().to_string(), "files": files }));
                }
                _ => {
                    println!("created {} ({} files) from scenarios/incident", dir.display(), files.len());
                    println!("next: edit {}/scenario.toml, then `gpulab scenario check {}`", dir.display(), dir.display());
                }
            }
            ExitCode::Success
        }
        Err(e) => {
            eprintln!("gpulab: {e}");
            ExitCode::BadInput
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names that become directories are accepted; paths, options and empty names are not.
    #[test]
    fn names() {
        let cases = [("my-lab", true), ("lab_2", true), ("", false), ("../x", false), ("a/b", false), ("-x", false), ("a b", false)];
        for (name, ok) in cases {
            assert_eq!(valid_name(name), ok, "{name:?}");
        }
    }

    /// The scaffold refuses to overwrite, and its scenario.toml carries the new name.
    #[test]
    fn scaffold_writes_every_file_once() {
        let tmp = std::env::temp_dir().join(format!("gpulab-new-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let files = scaffold(&tmp.join("labs/mine")).unwrap();
        assert_eq!(files.len(), TEMPLATE.len());
        let toml = std::fs::read_to_string(tmp.join("labs/mine/scenario.toml")).unwrap();
        assert!(toml.contains("title = \"mine\""), "{toml}");
        assert!(scaffold(&tmp.join("labs/mine")).unwrap_err().contains("already exists"));
        // A path whose last component is not a plain name is refused, naming it.
        let bad = scaffold(&tmp.join("a b")).unwrap_err();
        assert!(bad.contains("\"a b\" names the scenario"), "{bad}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    /// The embedded template is the whole incident directory: a file added to
    /// scenarios/incident and forgotten here fails this test.
    #[test]
    fn template_covers_the_incident() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/incident");
        // Walk every subdirectory (a new one, like `nvidia/`, must not escape the test).
        let mut on_disk = Vec::new();
        let mut dirs = vec![String::new()];
        while let Some(sub) = dirs.pop() {
            for e in std::fs::read_dir(root.join(&sub)).unwrap() {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                let rel = if sub.is_empty() { name } else { format!("{sub}/{name}") };
                if e.file_type().unwrap().is_dir() {
                    dirs.push(rel);
                } else {
                    on_disk.push(rel);
                }
            }
        }
        let mut embedded: Vec<String> = TEMPLATE.iter().map(|(p, _)| (*p).to_string()).collect();
        on_disk.sort();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }
}
