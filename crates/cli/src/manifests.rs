//! Reading the manifests `gpulab schedule` and `gpulab rollout` are given, as kubectl
//! reads `-f`: a file of YAML documents, or a `kubectl get nodes,pods -A -o yaml|json`
//! dump (`kind: List`), or `-` for stdin. The model parses them
//! ([`gpulab_model::kubernetes::yaml::load`]); this is the I/O and the printing of its
//! diagnostics.

use std::io::Read;
use std::path::Path;

use gpulab_model::kubernetes::yaml::{load, Manifests};
use gpulab_model::Diagnostic;

/// The name stdin goes by in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// The text of `path` (`-`: stdin) and the name to report it under.
pub fn read_source(path: &Path) -> Result<(String, String), String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("{STDIN_NAME}: {e}"))?;
        return Ok((STDIN_NAME.to_string(), text));
    }
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    Ok((name, text))
}

/// Reads and loads `path`; I/O errors go to `errors`, the model's findings to `diags`.
pub fn read(path: &Path, diags: &mut Vec<Diagnostic>, errors: &mut Vec<String>) -> Manifests {
    match read_source(path) {
        Ok((name, text)) => {
            let (m, d) = load(&name, &text);
            diags.extend(d);
            m
        }
        Err(e) => {
            errors.push(e);
            Manifests::default()
        }
    }
}

/// `file:line:col: error[code]: …`, the form both commands print a finding in: a
/// YAML syntax error in kubectl's words, other findings as `k=v; …`
/// ([`gpulab_model::kubernetes::yaml::message`]).
pub fn diagnostic_line(d: &Diagnostic) -> String {
    let at = d.primary.as_ref().map(|s| format!("{s}: ")).unwrap_or_default();
    format!("{at}error[{}]: {}", d.code, gpulab_model::kubernetes::yaml::message(d))
}
