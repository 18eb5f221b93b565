//! The documented exit codes of `gpulab`, so CI gates can branch on them.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything asked for holds.
    Success = 0,
    /// A check failed: a golden case, a parity difference, a lost setting.
    CheckFailed = 1,
    /// Bad usage or unreadable input (clap's usage errors also exit 2).
    BadInput = 2,
    /// An external system failed: a daemon did not start, a cluster did not answer.
    External = 3,
}

impl From<ExitCode> for i32 {
    fn from(code: ExitCode) -> i32 {
        code as i32
    }
}
