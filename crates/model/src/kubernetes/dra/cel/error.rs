//! Compile-time errors of a selector: cel-go's own (syntax and type-check errors,
//! printed as `issues.String()` does) and the lab's "not in the subset" error, which
//! upstream would not give and which therefore says so.

use std::fmt;

/// Where an error comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CelErrorKind {
    /// cel-go's parser refused the text (`Syntax error: …`).
    Syntax,
    /// cel-go's checker refused it (undeclared reference, no matching overload, …).
    Check,
    /// Real CEL accepts it, the lab's subset does not: `construct` names it.
    Unsupported,
}

/// One compile error at a 1-based column of the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelError {
    pub kind: CelErrorKind,
    /// cel-go's message (`Syntax error: …`, `undeclared reference to …`), or the
    /// unsupported construct.
    pub message: String,
    pub column: u32,
}

impl CelError {
    pub fn syntax(message: impl Into<String>, column: u32) -> Self {
        CelError { kind: CelErrorKind::Syntax, message: format!("Syntax error: {}", message.into()), column }
    }

    pub fn check(message: impl Into<String>, column: u32) -> Self {
        CelError { kind: CelErrorKind::Check, message: message.into(), column }
    }

    pub fn unsupported(construct: impl Into<String>, column: u32) -> Self {
        CelError { kind: CelErrorKind::Unsupported, message: construct.into(), column }
    }

    /// cel-go's `Issues.String()` for this one error over `source` (single-line
    /// expressions; a multi-line one shows the line the column falls on):
    ///
    /// ```text
    /// ERROR: <input>:1:5: undeclared reference to 'foo' (in container '')
    ///  | a + foo
    ///  | ....^
    /// ```
    pub fn issues_string(&self, source: &str) -> String {
        let (line_no, col, line) = locate(source, self.column);
        let dots: String = line.chars().take(col.saturating_sub(1) as usize).map(|_| '.').collect();
        format!("ERROR: <input>:{line_no}:{col}: {}\n | {line}\n | {dots}^", self.message)
    }
}

impl fmt::Display for CelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            CelErrorKind::Unsupported => {
                write!(f, "column {}: {} is not in the lab's CEL subset", self.column, self.message)
            }
            _ => write!(f, "column {}: {}", self.column, self.message),
        }
    }
}

/// The 1-based line, the column within it and the line's text of an absolute
/// 1-based character column.
fn locate(source: &str, column: u32) -> (u32, u32, &str) {
    let mut remaining = column.saturating_sub(1) as usize;
    let mut lines = source.split('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let n = line.chars().count();
        if remaining <= n || lines.peek().is_none() {
            return (i as u32 + 1, remaining as u32 + 1, line);
        }
        remaining -= n + 1;
    }
    (1, 1, source)
}
