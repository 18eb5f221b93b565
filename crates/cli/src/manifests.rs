//! Reading the manifests `gpulab schedule` and `gpulab rollout` are given, as kubectl
//! reads `-f`: a file of YAML documents, or a `kubectl get nodes,pods -A -o yaml|json`
//! dump (`kind: List`), or `-` for stdin. The model parses them
//! ([`gpulab_model::kubernetes::yaml::load`]; the rollout's objects through
//! [`gpulab_model::daemonset::manifests::Manifests::add_yaml`]); this is the I/O and the
//! printing of its findings.

use std::io::Read;
use std::path::Path;

use gpulab_model::daemonset::manifests::ROLLOUT_KINDS;
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

/// `file:line:col: error[code]: …`, the form the companion prints a manifest finding
/// in (`gpulab schedule`, `gpulab rollout`, a scenario's setup).
pub fn diagnostic_line(d: &Diagnostic) -> String {
    let at = d.primary.as_ref().map(|s| format!("{s}: ")).unwrap_or_default();
    format!("{at}{}", finding_message(d))
}

/// `error[code]: …` without the place: a kind the rollout does not model named with
/// the kinds it does; the Kubernetes model's findings in its catalogue's English
/// ([`gpulab_model::kubernetes::messages::message`]: a YAML syntax error in kubectl's
/// words).
pub fn finding_message(d: &Diagnostic) -> String {
    let message = match (d.code.as_str(), d.get("kind")) {
        ("rollout-kind-unmodelled", Some(kind)) => {
            format!("kind {kind:?} is not part of the rollout model ({})", ROLLOUT_KINDS.join(", "))
        }
        _ => gpulab_model::kubernetes::messages::message(d, gpulab_model::Lang::En),
    };
    format!("error[{}]: {message}", d.code)
}
