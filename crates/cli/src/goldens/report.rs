//! Golden results: one line per case (`ok` / `FAIL` with the reason) and a final
//! `N passed, N failed`; or the same as one JSON object with `--output json`.

use serde::Serialize;

use crate::output::OutputFormat;

/// The result of one golden case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The area runner that ran it (`containerd`, `fit_error`, …).
    pub area: String,
    /// The case as a reader finds it: `file-or-dir :: case name [@ version]`.
    pub case: String,
    /// `None` when the case passed; otherwise expected-vs-actual, readably.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl CaseResult {
    pub fn passed(area: impl Into<String>, case: impl Into<String>) -> Self {
        CaseResult { area: area.into(), case: case.into(), failure: None }
    }

    pub fn failed(area: impl Into<String>, case: impl Into<String>, why: impl Into<String>) -> Self {
        CaseResult { area: area.into(), case: case.into(), failure: Some(why.into()) }
    }

    /// Passed when `expected == actual`, else failed showing both.
    pub fn compare<T: PartialEq + std::fmt::Debug>(
        area: &str,
        case: impl Into<String>,
        expected: &T,
        actual: &T,
    ) -> Self {
        if expected == actual {
            Self::passed(area, case)
        } else {
            Self::failed(area, case, format!("expected {expected:?}\n   actual {actual:?}"))
        }
    }
}

/// All results of one run, in the order they ran.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub cases: Vec<CaseResult>,
}

impl Report {
    pub fn push(&mut self, result: CaseResult) {
        self.cases.push(result);
    }

    pub fn extend(&mut self, results: impl IntoIterator<Item = CaseResult>) {
        self.cases.extend(results);
    }

    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.failure.is_none()).count()
    }

    pub fn failed(&self) -> usize {
        self.cases.len() - self.passed()
    }

    /// The final line, e.g. `12 passed, 0 failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed(), self.failed())
    }

    pub fn print(&self, output: OutputFormat) {
        match output {
            // Markdown and CSV are table formats (`gpulab slots`); goldens print text for them.
            OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => {
                for c in &self.cases {
                    match &c.failure {
                        None => println!("ok    [{}] {}", c.area, c.case),
                        Some(why) => {
                            println!("FAIL  [{}] {}", c.area, c.case);
                            for line in why.lines() {
                                println!("        {line}");
                            }
                        }
                    }
                }
                println!("{}", self.summary());
            }
            OutputFormat::Json => {
                let json = serde_json::json!({
                    "cases": self.cases,
                    "passed": self.passed(),
                    "failed": self.failed(),
                });
                println!("{json:#}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary counts failures, including "not implemented" ones.
    #[test]
    fn summary_counts_both() {
        let mut r = Report::default();
        r.push(CaseResult::passed("a", "one"));
        r.push(CaseResult::failed("a", "two", "not implemented"));
        r.push(CaseResult::compare("a", "three", &1, &2));
        assert_eq!(r.summary(), "1 passed, 2 failed");
        assert_eq!(r.cases[2].failure.as_deref(), Some("expected 1\n   actual 2"));
    }
}
