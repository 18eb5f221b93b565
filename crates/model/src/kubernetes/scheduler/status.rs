//! The scheduler framework's `Status`: a code, reasons and the plugin that set it.

use std::fmt;

/// Status codes with the scheduler framework's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    Success,
    Error,
    Unschedulable,
    UnschedulableAndUnresolvable,
    Wait,
    Skip,
    Pending,
}

impl Code {
    /// The framework name (`UnschedulableAndUnresolvable`).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::Error => "Error",
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
            Code::Wait => "Wait",
            Code::Skip => "Skip",
            Code::Pending => "Pending",
        }
    }

    /// Parses a framework name.
    pub fn parse(s: &str) -> Option<Code> {
        [
            Code::Success,
            Code::Error,
            Code::Unschedulable,
            Code::UnschedulableAndUnresolvable,
            Code::Wait,
            Code::Skip,
            Code::Pending,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }

    /// `Status.IsRejected()`: Unschedulable, UnschedulableAndUnresolvable or Pending.
    pub fn is_rejected(self) -> bool {
        matches!(self, Code::Unschedulable | Code::UnschedulableAndUnresolvable | Code::Pending)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A plugin's verdict (`fwk.Status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: Code,
    pub reasons: Vec<String>,
    /// The plugin that returned it, when known.
    pub plugin: Option<String>,
}

impl Status {
    /// `NewStatus(code, reasons...)`.
    pub fn new(code: Code, reasons: impl IntoIterator<Item = impl Into<String>>) -> Status {
        Status { code, reasons: reasons.into_iter().map(Into::into).collect(), plugin: None }
    }

    /// A success status.
    pub fn success() -> Status {
        Status { code: Code::Success, reasons: Vec::new(), plugin: None }
    }

    /// The same status, attributed to `plugin`.
    pub fn with_plugin(mut self, plugin: impl Into<String>) -> Status {
        self.plugin = Some(plugin.into());
        self
    }

    /// `Status.Message()`: the reasons joined with `", "`.
    pub fn message(&self) -> String {
        self.reasons.join(", ")
    }

    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }
}
