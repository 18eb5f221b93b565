//! Finding golden units: a `*.json` file with an `"area"` field (the k8s and nvidia
//! layouts) or a containerd case directory (one holding `input/`, or `phase-a/` for
//! the restart-vs-SIGHUP case). Directories are walked in sorted order, so output is
//! stable; other files (READMEs, dumps) are not units.

use std::path::{Path, PathBuf};

/// One thing an area runner runs.
#[derive(Debug)]
pub enum Unit {
    /// A golden JSON file: its `area` field names the runner.
    Json { path: PathBuf, area: String, doc: serde_json::Value },
    /// A containerd case directory (`input/` + one folder per version).
    ContainerdCase { path: PathBuf },
}

/// The units under `path`, or why `path` cannot be read.
pub fn discover(path: &Path) -> Result<Vec<Unit>, String> {
    let mut units = Vec::new();
    walk(path, &mut units)?;
    Ok(units)
}

fn walk(path: &Path, units: &mut Vec<Unit>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        if path.extension().is_some_and(|e| e == "json") {
            units.push(read_json(path)?);
        }
        return Ok(());
    }
    if is_containerd_case(path) {
        units.push(Unit::ContainerdCase { path: path.to_path_buf() });
        return Ok(());
    }
    let mut children: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    children.sort();
    for child in children {
        walk(&child, units)?;
    }
    Ok(())
}

fn is_containerd_case(dir: &Path) -> bool {
    dir.join("input").is_dir() || dir.join("phase-a").is_dir()
}

fn read_json(path: &Path) -> Result<Unit, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}:{}:{}: {e}", path.display(), e.line(), e.column()))?;
    let area = doc
        .get("area")
        .and_then(|a| a.as_str())
        .ok_or_else(|| format!("{}: no \"area\" field: not a golden file", path.display()))?
        .to_string();
    Ok(Unit::Json { path: path.to_path_buf(), area, doc })
}
