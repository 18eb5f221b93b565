//! `gpulab scenario check DIR…`: lints a scenario so that authors find their mistakes
//! before learners do. In order:
//!
//! 1. `scenario.toml` through the model's parser ([`scenario::parse`]): TOML syntax,
//!    the schema (unknown keys, wrong types, unknown `do = "…"` actions and fields),
//!    references to files that do not exist, containerd versions that do not parse;
//! 2. what the parser accepts but the model does not cover: a Kubernetes version
//!    outside 1.33–1.37 (error), a containerd version that is not a recorded binary
//!    (warning: it runs on the nearest recorded defaults), an unknown GPU model
//!    (warning), a containerd TOML node file that does not parse (error at its own
//!    file:line:col);
//! 3. the scenario run on the model: every expectation the model cannot satisfy, and
//!    every step the model cannot perform, at its `scenario.toml` line.
//!
//! Each finding is one line, `file:line:col: severity: message [code]` (the CLI's
//! diagnostic shape). Exit codes: 0 clean (warnings allowed), 1 an expectation or step
//! fails on the model, 2 a malformed scenario (1 and 2 found: 2).

use std::path::{Path, PathBuf};

use gpulab_model::containerd::version::MODELLED;
use gpulab_model::diagnostic::{Diagnostic, Severity, Span};
use gpulab_model::kubernetes::version::KubeVersion;
use gpulab_model::scenario::{self, Scenario, BackendError, SCENARIO_FILE};
use gpulab_model::slots::gpu::GpuModel;
use serde_json::json;

use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// What the lint found in one scenario directory.
#[derive(Debug, Clone)]
pub struct Lint {
    pub dir: PathBuf,
    pub diagnostics: Vec<Diagnostic>,
    /// The scenario does not parse, references a missing file or a version the model
    /// does not cover (exit 2).
    pub malformed: bool,
    /// Expectations checked on the model, and how many failed (exit 1 when > 0).
    pub expectations: usize,
    pub failed: usize,
}

impl Lint {
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity >= Severity::Error).count()
    }

    pub fn warnings(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count()
    }

    /// The exit code this lint alone would give.
    pub fn exit(&self) -> ExitCode {
        if self.malformed {
            ExitCode::BadInput
        } else if self.failed > 0 || self.errors() > 0 {
            ExitCode::CheckFailed
        } else {
            ExitCode::Success
        }
    }
}

fn diag(code: &str, severity: Severity, file: &str, line: u32, column: u32, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, severity).arg("message", message.into()).at(Span::new(file, line, column))
}

fn column_in(text: &str, line: u32, needles: &[&str]) -> Option<u32> {
    scenario::locate::column_in(text, line, needles)
}

/// The line of `key = …` at the top of the file (before the first table header).
fn top_key_line(text: &str, key: &str) -> Option<u32> {
    key_line_after(text, 0, key)
}

/// The line of `key = …` inside the table that starts at `header` (1-based; 0 = the
/// top of the file).
fn key_line_after(text: &str, header: u32, key: &str) -> Option<u32> {
    let start = usize::try_from(header).ok()?;
    for (i, l) in text.lines().enumerate().skip(start) {
        let t = l.trim_start();
        if t.starts_with('[') {
            return None;
        }
        if t.strip_prefix(key).is_some_and(|r| r.trim_start().starts_with('=')) {
            return u32::try_from(i + 1).ok();
        }
    }
    None
}

/// What the parser accepts but the model does not cover.
fn coverage(s: &Scenario, file: &str, text: &str, dir: &Path, out: &mut Vec<Diagnostic>) -> bool {
    let mut malformed = false;
    if let Err(e) = s.kubernetes.parse::<KubeVersion>() {
        let line = top_key_line(text, "kubernetes").unwrap_or(1);
        let col = column_in(text, line, &[&format!("\"{}\"", s.kubernetes)]).unwrap_or(1);
        out.push(diag("scenario-version-not-modelled", Severity::Error, file, line, col, format!("Kubernetes {}: {e}", s.kubernetes)));
        malformed = true;
    }
    for n in &s.nodes {
        let line = key_line_after(text, n.line, "containerd").or_else(|| top_key_line(text, "containerd")).unwrap_or(n.line);
        if let Some(v) = &n.version {
            if !MODELLED.contains(&n.containerd.as_str()) {
                let col = column_in(text, line, &[&format!("\"{}\"", n.containerd)]).unwrap_or(1);
                out.push(diag(
                    "scenario-version-approximated",
                    Severity::Warning,
                    file,
                    line,
                    col,
                    format!(
                        "containerd {} (node `{}`) is not a recorded binary: the model runs it with the defaults of {} (recorded: {})",
                        n.containerd,
                        n.name,
                        v.recorded(),
                        MODELLED.join(", ")
                    ),
                ));
            }
        }
        if !n.gpu_model.is_empty() && matches!(GpuModel::known(&n.gpu_model), Ok(None)) {
            let line = key_line_after(text, n.line, "gpu_model").unwrap_or(n.line);
            let col = column_in(text, line, &[&format!("\"{}\"", n.gpu_model)]).unwrap_or(1);
            out.push(diag(
                "scenario-unknown-gpu-model",
                Severity::Warning,
                file,
                line,
                col,
                format!("GPU model `{}` (node `{}`) is not in the model's table: its memory and MIG profiles are unknown", n.gpu_model, n.name),
            ));
        }
    }
    // containerd TOML files: a syntax error is the author's, at that file's line.
    let mut seen: Vec<&str> = Vec::new();
    let tomls = s
        .nodes
        .iter()
        .flat_map(|n| n.files.iter().map(|(p, f)| (p.as_str(), f)))
        .chain(s.steps.iter().filter_map(|st| match &st.action {
            scenario::Action::WriteFile { path, file, .. } => Some((path.as_str(), file)),
            _ => None,
        }));
    for (node_path, f) in tomls {
        if !node_path.ends_with(".toml") || seen.contains(&f.source.as_str()) {
            continue;
        }
        seen.push(&f.source);
        let shown = dir.join(&f.source).display().to_string();
        if let Err(e) = gpulab_model::containerd::parse::parse(&shown, f.content.as_bytes()) {
            let message = e.kind.message();
            out.push(diag("scenario-file-syntax", Severity::Error, &shown, e.line, e.column, format!("not valid TOML: {message}")));
            malformed = true;
        }
    }
    malformed
}

/// Lints one scenario directory. `Err` when its `scenario.toml` cannot be read.
pub fn lint(dir: &Path) -> Result<Lint, String> {
    let path = dir.join(SCENARIO_FILE);
    let file = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).map_err(|e| e.to_string());
    let mut lint = Lint { dir: dir.to_path_buf(), diagnostics: Vec::new(), malformed: false, expectations: 0, failed: 0 };
    let s = match scenario::parse(&name, &file, &text, &read) {
        Ok(s) => s,
        Err(mut diags) => {
            scenario::locate::refine(&mut diags, &text);
            lint.diagnostics = diags;
            lint.malformed = true;
            return Ok(lint);
        }
    };
    lint.malformed = coverage(&s, &file, &text, dir, &mut lint.diagnostics);
    if lint.malformed {
        return Ok(lint);
    }
    let record = scenario::run_on_model(&s);
    if let Some(e) = &record.setup_error {
        // A finding on a manifest is reported at its own file:line (its text as
        // `gpulab schedule` prints it); the model's other reasons at the scenario's top.
        let at = |d: &Diagnostic| match d.primary.clone() {
            Some(span) => Span { file: dir.join(&span.file).display().to_string(), ..span },
            None => Span::new(file.as_str(), 1, 1),
        };
        match e {
            BackendError::Findings(findings) => lint.diagnostics.extend(findings.iter().map(|d| {
                let message = format!("the model cannot set the scenario up: {}", crate::manifests::finding_message(d));
                Diagnostic::new("scenario-setup-fails", Severity::Error).arg("message", message).at(at(d))
            })),
            BackendError::Message(m) => {
                lint.diagnostics.push(diag("scenario-setup-fails", Severity::Error, &file, 1, 1, format!("the model cannot set the scenario up: {m}")));
            }
        }
        lint.failed += 1;
    }
    for st in &record.steps {
        if let Some(e) = &st.error {
            let col = column_in(&text, st.line, &["[[step]]"]).unwrap_or(1);
            lint.diagnostics.push(diag(
                "scenario-step-fails",
                Severity::Error,
                &file,
                st.line,
                col,
                format!("step {} ({}): the model cannot do `{}`: {}", st.index, st.name, st.action, super::backend_error_lines(e).join("; ")),
            ));
            lint.failed += 1;
        }
        for o in &st.observations {
            lint.expectations += 1;
            if o.holds {
                continue;
            }
            lint.failed += 1;
            let seen = o.observed.as_ref().map_or_else(|| format!("nothing ({})", o.unobservable.as_deref().unwrap_or("")), ToString::to_string);
            let col = column_in(&text, o.line, &[o.field.name()]).unwrap_or(1);
            lint.diagnostics.push(diag(
                "scenario-expectation-fails",
                Severity::Error,
                &file,
                o.line,
                col,
                format!("step {} ({}): `{}.{}` expects {}, the model observes {seen}", st.index, st.name, o.subject, o.field.name(), o.expected),
            ));
        }
    }
    Ok(lint)
}

/// `gpulab scenario check`.
pub fn run(dirs: &[PathBuf], output: OutputFormat) -> ExitCode {
    let dirs = match super::expand(dirs) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gpulab: {e}");
            return ExitCode::BadInput;
        }
    };
    let mut lints = Vec::new();
    for d in &dirs {
        match lint(d) {
            Ok(l) => lints.push(l),
            Err(e) => {
                eprintln!("gpulab: {e}");
                return ExitCode::BadInput;
            }
        }
    }
    match output {
        OutputFormat::Json => {
            let scenarios: Vec<_> = lints
                .iter()
                .map(|l| {
                    json!({
                        "dir": l.dir.display().to_string(),
                        "ok": l.exit() == ExitCode::Success,
                        "errors": l.errors(),
                        "warnings": l.warnings(),
                        "expectations": l.expectations,
                        "failed": l.failed,
                        "diagnostics": l.diagnostics,
                    })
                })
                .collect();
            println!("{}", json!({ "ok": lints.iter().all(|l| l.exit() == ExitCode::Success), "scenarios": scenarios }));
        }
        _ => {
            for l in &lints {
                for d in &l.diagnostics {
                    println!("{}", d.line());
                }
                let verdict = if l.exit() == ExitCode::Success { "ok" } else { "FAIL" };
                let run = if l.malformed {
                    "not run on the model".to_string()
                } else {
                    format!("{} expectations on the model, {} failed", l.expectations, l.failed)
                };
                println!("{verdict} {}: {} errors, {} warnings; {run}", l.dir.display(), l.errors(), l.warnings());
            }
        }
    }
    lints.iter().map(Lint::exit).max_by_key(|c| *c as i32).unwrap_or(ExitCode::Success)
}

#[cfg(test)]
mod tests;
