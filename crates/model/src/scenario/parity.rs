//! Parity: two records of the same scenario (the model's and a real backend's) diffed
//! field by field. A row per expectation the real backend observed: the model's value,
//! the real value, agree or differ; and the expectations it could not observe, with why.

use serde::{Deserialize, Serialize};

use super::engine::{Record, BackendError};
use super::expect::{Domain, Expected, Field, Observed};

/// One compared expectation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParityRow {
    pub step: usize,
    pub step_name: String,
    pub subject: String,
    pub field: Field,
    pub domain: Domain,
    pub line: u32,
    pub expected: Expected,
    pub model: Option<Observed>,
    pub real: Option<Observed>,
    /// `agree`, `differ`, or `not-compared` (with `why`).
    pub verdict: String,
    pub why: Option<String>,
}

/// The diff, with counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parity {
    pub scenario: String,
    pub backend: String,
    pub rows: Vec<ParityRow>,
    pub agree: usize,
    pub differ: usize,
    pub not_compared: usize,
    /// The real backend's setup error (findings stay data: the companion words them).
    #[serde(default)]
    pub setup_error: Option<BackendError>,
    /// The real backend's step errors: (step index, step name, error).
    #[serde(default)]
    pub step_errors: Vec<(usize, String, BackendError)>,
    /// The companion's own errors about the comparison (a stale recording).
    pub errors: Vec<String>,
    /// The real backend's notes: what it simulated, at which release it compared.
    #[serde(default)]
    pub notes: Vec<String>,
}

impl Parity {
    /// Every compared value agrees and the real run had no errors.
    pub fn ok(&self) -> bool {
        !self.has_errors() && self.differ == 0
    }

    /// The real run failed somewhere (its setup, a step, or the companion's own check).
    pub fn has_errors(&self) -> bool {
        self.setup_error.is_some() || !self.step_errors.is_empty() || !self.errors.is_empty()
    }
}

/// Diffs `real` against `model` (same scenario, same steps). Only expectations of
/// `domain`-observable fields the real backend reported are compared; the rest are
/// listed as not compared.
pub fn diff(model: &Record, real: &Record) -> Parity {
    let mut rows = Vec::new();
    let mut step_errors = Vec::new();
    for (i, rs) in real.steps.iter().enumerate() {
        if let Some(e) = &rs.error {
            step_errors.push((rs.index, rs.name.clone(), e.clone()));
        }
        let ms = model.steps.get(i);
        for (j, ro) in rs.observations.iter().enumerate() {
            let mo = ms.and_then(|s| s.observations.get(j));
            let model_value = mo.and_then(|o| o.observed.clone());
            let (verdict, why) = match (&ro.observed, &model_value) {
                (None, _) => ("not-compared", ro.unobservable.clone()),
                (Some(_), None) => ("not-compared", Some("the model did not observe it".into())),
                (Some(r), Some(m)) if r == m => ("agree", None),
                (Some(_), Some(_)) => ("differ", None),
            };
            rows.push(ParityRow {
                step: rs.index,
                step_name: rs.name.clone(),
                subject: ro.subject.clone(),
                field: ro.field,
                domain: ro.domain,
                line: ro.line,
                expected: ro.expected.clone(),
                model: model_value,
                real: ro.observed.clone(),
                verdict: verdict.to_string(),
                why,
            });
        }
    }
    let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
    let (agree, differ, not_compared) = (count("agree"), count("differ"), count("not-compared"));
    let setup_error = real.setup_error.clone();
    Parity {
        scenario: real.scenario.clone(),
        backend: real.backend.clone(),
        rows,
        agree,
        differ,
        not_compared,
        setup_error,
        step_errors,
        errors: Vec::new(),
        notes: real.notes.clone(),
    }
}

/// The expectations no run compared, grouped by the reason the real backend gave:
/// `(reason, the fields concerned, count)`, most frequent first (then by reason).
pub fn not_compared_by_reason(parities: &[Parity]) -> Vec<(String, Vec<Field>, usize)> {
    let mut groups: Vec<(String, Vec<Field>, usize)> = Vec::new();
    for r in parities.iter().flat_map(|p| &p.rows).filter(|r| r.verdict == "not-compared") {
        let why = r.why.clone().unwrap_or_else(|| "no reason given".into());
        match groups.iter_mut().find(|g| g.0 == why) {
            Some(g) => {
                g.2 += 1;
                if !g.1.contains(&r.field) {
                    g.1.push(r.field);
                }
            }
            None => groups.push((why, vec![r.field], 1)),
        }
    }
    crate::sort::sort_by(&mut groups, |a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(field: Field, verdict: &str, why: Option<&str>) -> ParityRow {
        ParityRow {
            step: 1,
            step_name: "s".into(),
            subject: "n".into(),
            field,
            domain: field.domain(),
            line: 1,
            expected: Expected::Is(Observed::Int(0)),
            model: None,
            real: None,
            verdict: verdict.into(),
            why: why.map(str::to_string),
        }
    }

    /// Not-compared rows are counted per reason, with each field once, most frequent
    /// first; agreeing rows are not counted.
    #[test]
    fn reasons_are_grouped() {
        let p = Parity {
            scenario: "s".into(),
            backend: "kube".into(),
            rows: vec![
                row(Field::SeatMemory, "not-compared", Some("simulated plugin")),
                row(Field::Cri, "not-compared", Some("simulated node")),
                row(Field::Check, "not-compared", Some("simulated node")),
                row(Field::Cri, "not-compared", Some("simulated node")),
                row(Field::Ready, "agree", None),
            ],
            agree: 1,
            differ: 0,
            not_compared: 4,
            setup_error: None,
            step_errors: Vec::new(),
            errors: Vec::new(),
            notes: Vec::new(),
        };
        let g = not_compared_by_reason(&[p]);
        assert_eq!(g, vec![("simulated node".to_string(), vec![Field::Cri, Field::Check], 3), ("simulated plugin".to_string(), vec![Field::SeatMemory], 1)]);
    }
}
