//! Recorded real runs (issue 15, item 6): what a real control plane of one release
//! reported for each scenario, kept as a golden so that every test run compares the
//! model against releases it does not start. `gpulab parity … --backend kube --record
//! FILE` writes the real side of each scenario (its [`Record`]) into FILE, keyed by
//! scenario name (a scenario recorded again replaces its old record);
//! `gpulab parity … --backend recorded --recording FILE` reads them back as the real
//! side, the model running at the recorded release. A scenario whose steps or
//! expectations changed since it was recorded is an error (re-record), never a silent
//! comparison of other rows; one not recorded is listed, not compared.

use std::path::Path;

use gpulab_model::scenario::engine::Record;
use serde::{Deserialize, Serialize};

/// One release's recorded runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// The API server's `/version` (`v1.34.0`).
    pub release: String,
    /// How the runs were made (the commands' flags that matter), for the reader.
    pub how: Vec<String>,
    /// The real side of each scenario, in name order.
    pub records: Vec<Record>,
}

impl Recording {
    /// The record of `scenario`, if recorded.
    pub fn record(&self, scenario: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.scenario == scenario)
    }

    /// Adds or replaces records by scenario name (kept in name order), made `how`.
    pub fn merge(&mut self, how: &str, records: Vec<Record>) {
        if !self.how.iter().any(|h| h == how) {
            self.how.push(how.to_string());
        }
        for r in records {
            self.records.retain(|o| o.scenario != r.scenario);
            self.records.push(r);
        }
        self.records.sort_by(|a, b| a.scenario.cmp(&b.scenario));
    }
}

/// Reads a recording; a malformed one names the file and line.
pub fn load(path: &Path) -> Result<Recording, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: not a gpulab recording: {e}", path.display(), e.line(), e.column()))
}

/// Writes `rec` (pretty JSON, a trailing newline: diffs stay readable in review).
pub fn save(path: &Path, rec: &Recording) -> Result<(), String> {
    let text = serde_json::to_string_pretty(rec).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

/// Why `recorded` cannot be compared with the model's `model` record of the same
/// scenario: the steps or the expectations differ (the scenario changed since).
pub fn mismatch(model: &Record, recorded: &Record) -> Option<String> {
    if model.steps.len() != recorded.steps.len() {
        return Some(format!("{} steps now, {} when recorded", model.steps.len(), recorded.steps.len()));
    }
    for (m, r) in model.steps.iter().zip(&recorded.steps) {
        if m.name != r.name || m.action != r.action {
            return Some(format!("step {} is `{}` now, `{}` when recorded", m.index, m.name, r.name));
        }
        let key = |o: &gpulab_model::scenario::engine::Observation| (o.subject.clone(), o.field, o.expected.clone());
        let (mk, rk): (Vec<_>, Vec<_>) = (m.observations.iter().map(key).collect(), r.observations.iter().map(key).collect());
        if mk != rk {
            return Some(format!("step {} ({}) expects other values now than when recorded", m.index, m.name));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, backend: &str) -> Record {
        Record { scenario: name.into(), backend: backend.into(), setup_error: None, notes: vec![], steps: vec![] }
    }

    fn step(index: usize, name: &str, expected: &str) -> gpulab_model::scenario::engine::StepRecord {
        use gpulab_model::scenario::engine::{Observation, StepRecord};
        use gpulab_model::scenario::expect::{Domain, Expected, Field, Observed};
        let field = Field::ALL[0];
        let o = Observation {
            subject: "pod-a".into(),
            field,
            domain: Domain::Kubernetes,
            line: 7,
            expected: Expected::Is(Observed::Text(expected.into())),
            observed: None,
            unobservable: None,
            holds: false,
        };
        StepRecord { index, name: name.into(), action: "apply".into(), node: None, line: 3, error: None, observations: vec![o] }
    }

    /// The same steps and expectations compare (observed values may differ: that is
    /// what is compared); another step count, step or expected value does not.
    #[test]
    fn mismatch_when_the_scenario_changed() {
        let with = |steps| Record { steps, ..record("s", "kube") };
        let now = with(vec![step(1, "create", "Running")]);
        assert_eq!(mismatch(&now, &with(vec![step(1, "create", "Running")])), None);
        assert_eq!(mismatch(&now, &with(vec![])).as_deref(), Some("1 steps now, 0 when recorded"));
        assert_eq!(mismatch(&now, &with(vec![step(1, "apply", "Running")])).as_deref(), Some("step 1 is `create` now, `apply` when recorded"));
        assert_eq!(mismatch(&now, &with(vec![step(1, "create", "Pending")])).as_deref(), Some("step 1 (create) expects other values now than when recorded"));
    }

    /// Merging replaces a scenario's record and keeps name order; a file round-trips and
    /// a broken one names its line.
    #[test]
    fn merge_save_load() {
        let mut rec = Recording { release: "v1.34.0".into(), how: vec!["one".into()], records: vec![record("b", "kube"), record("a", "kube")] };
        rec.merge("two", vec![record("b", "kube (again)"), record("c", "kube")]);
        rec.merge("one", vec![]);
        assert_eq!(rec.how, ["one", "two"]);
        let names: Vec<(&str, &str)> = rec.records.iter().map(|r| (r.scenario.as_str(), r.backend.as_str())).collect();
        assert_eq!(names, [("a", "kube"), ("b", "kube (again)"), ("c", "kube")]);
        let dir = std::env::temp_dir().join(format!("gpulab-recording-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("r.json");
        save(&f, &rec).unwrap();
        assert_eq!(load(&f).unwrap(), rec);
        std::fs::write(&f, "{\n  \"release\": 1\n}").unwrap();
        let e = load(&f).unwrap_err();
        assert!(e.starts_with(&format!("{}:2:", f.display())) && e.contains("not a gpulab recording"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
