//! Diagnostics are data: the model emits a stable code and arguments; the app and the
//! companion turn them into Korean or English text (message id `diag-<code>`).
//!
//! Like taplo's, a diagnostic can carry *both* locations of a conflict: the primary
//! span ("replaced here") and related spans ("defined here").

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is. Ordered: `Info < Warning < Error < Fatal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing, changes nothing (e.g. which file a value came from).
    Info,
    /// Something is lost or ignored, but the component still works.
    Warning,
    /// The component (a plugin, a pod) fails, the process keeps running.
    Error,
    /// The process itself exits (e.g. containerd refuses its config).
    Fatal,
}

impl Severity {
    /// The lowercase word the companion prints (`info`, `warning`, `error`, `fatal`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Fatal => "fatal",
        }
    }
}

/// A place in a file: 1-based line and column (columns count characters, not bytes),
/// and an optional end on the same scale.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Span {
    /// The file as the user knows it, e.g. `/etc/containerd/conf.d/99-nvidia.toml`.
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<(u32, u32)>,
}

impl Span {
    /// A point span at `line:column` of `file`.
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Self {
        Span { file: file.into(), line, column, end: None }
    }

    /// The same span, ending at `line:column`.
    pub fn with_end(mut self, line: u32, column: u32) -> Self {
        self.end = Some((line, column));
        self
    }

    /// The same span `by` lines down (text read on its own, put back at its place).
    pub fn moved_down(&self, by: u32) -> Span {
        Span { line: self.line.saturating_add(by), end: self.end.map(|(l, c)| (l.saturating_add(by), c)), ..self.clone() }
    }
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A second location that explains the first, with a label code (message id
/// `label-<label>`), e.g. `defined-here` next to a primary `replaced-here`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    pub label: String,
    pub span: Span,
}

/// One finding of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Stable, kebab-case, area-prefixed: `containerd-table-replaced`. Tests and the
    /// UI key on it; it never changes meaning once released.
    pub code: String,
    pub severity: Severity,
    /// Named arguments for the message (`key` → value), in insertion order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<Span>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
}

impl Diagnostic {
    /// The same finding with every place `by` lines down ([`Span::moved_down`]).
    pub fn moved_down(&self, by: u32) -> Diagnostic {
        let mut d = self.clone();
        if by > 0 {
            d.primary = d.primary.as_ref().map(|s| s.moved_down(by));
            for r in &mut d.related {
                r.span = r.span.moved_down(by);
            }
        }
        d
    }

    /// A diagnostic with `code` and `severity` and nothing else yet.
    pub fn new(code: impl Into<String>, severity: Severity) -> Self {
        Diagnostic { code: code.into(), severity, args: Vec::new(), primary: None, related: Vec::new() }
    }

    /// Adds the named argument `key` = `value`.
    pub fn arg(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.args.push((key.into(), value.to_string()));
        self
    }

    /// Sets the primary location.
    pub fn at(mut self, span: Span) -> Self {
        self.primary = Some(span);
        self
    }

    /// Adds a related location with its label code.
    pub fn related(mut self, label: impl Into<String>, span: Span) -> Self {
        self.related.push(Related { label: label.into(), span });
        self
    }

    /// The value of argument `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The finding as one line, the way the companion prints it and the page shows an
    /// author's errors: `file:line:col: severity: message [code]` (no place, no prefix).
    pub fn line_with(&self, message: &str) -> String {
        let at = self.primary.as_ref().map(|s| format!("{s}: ")).unwrap_or_default();
        format!("{at}{}: {message} [{}]", self.severity.as_str(), self.code)
    }

    /// The words of a finding no catalogue has a sentence for: its code, then the
    /// upstream `message` it carries, if any — never its arguments as `k=v`. Each
    /// area's catalogue is tested to word every code the area writes, so this shows
    /// only for a code from elsewhere (a newer saved file).
    pub fn uncatalogued(&self) -> String {
        match self.get("message") {
            Some(m) => format!("{}: {m}", self.code),
            None => self.code.clone(),
        }
    }

    /// [`Diagnostic::line_with`] its own `message` argument (empty when it has none).
    pub fn line(&self) -> String {
        self.line_with(self.get("message").unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One line per finding, the companion's shape: with a place, and without one.
    #[test]
    fn one_line_per_finding() {
        let d = Diagnostic::new("scenario-unknown-key", Severity::Error).arg("message", "unknown key `x`").at(Span::new("a.toml", 3, 7));
        assert_eq!(d.line(), "a.toml:3:7: error: unknown key `x` [scenario-unknown-key]");
        assert_eq!(Diagnostic::new("c", Severity::Warning).line_with("text"), "warning: text [c]");
    }

    /// A diagnostic round-trips through JSON with both locations and its arguments.
    #[test]
    fn serialises_with_both_locations() {
        let d = Diagnostic::new("containerd-table-replaced", Severity::Warning)
            .arg("table", "plugins.\"io.containerd.grpc.v1.cri\"")
            .at(Span::new("/etc/containerd/conf.d/99-nvidia.toml", 3, 1))
            .related("defined-here", Span::new("/etc/containerd/config.toml", 12, 1));
        let json = serde_json::to_string(&d).unwrap();
        let back: Diagnostic = serde_json::from_str(&json).unwrap();
        assert_eq!(back, d);
        assert_eq!(back.get("table"), Some("plugins.\"io.containerd.grpc.v1.cri\""));
        assert_eq!(back.primary.unwrap().to_string(), "/etc/containerd/conf.d/99-nvidia.toml:3:1");
    }

    /// Severities order from harmless to fatal, so "worst of" is `max()`.
    #[test]
    fn severities_are_ordered() {
        let worst = [Severity::Warning, Severity::Fatal, Severity::Info].into_iter().max();
        assert_eq!(worst, Some(Severity::Fatal));
    }
}
