//! The engine and its seam: a [`Backend`] sets a scenario up, performs each step's
//! action and observes fields; [`run`] drives any backend through the steps and writes
//! the [`Record`] — per step, the observed value of every expectation and whether it
//! holds. The model is one backend ([`super::model::ModelBackend`]); the companion's
//! real backends produce the same record, so parity is a structural diff.

use serde::{Deserialize, Serialize};

use super::expect::{Domain, Expected, Field, Observed};
use super::format::{Action, Scenario};
use crate::diagnostic::Diagnostic;

/// Why a backend cannot observe a field (it is not its domain, the node's version is
/// not the installed binary's, …). Not a failure of the scenario on the model.
pub type Unobservable = String;

/// Why a backend could not set a scenario up or perform a step. The model's findings on
/// the scenario's files (its manifests, a file an `apply` step applies) stay data —
/// code, arguments, file:line — up to whoever words them (the companion prints them as
/// it prints `gpulab schedule`'s); anything else is a sentence. In JSON (records,
/// recordings, `--output json`) a sentence is a string, as the fields always were, and
/// findings are an array of diagnostics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BackendError {
    /// The model's findings on the scenario's manifests, each at its file:line.
    Findings(Vec<Diagnostic>),
    /// What the backend said: an external system's error, or the model's sentence about
    /// a scenario it cannot build or a step it cannot take (a second DaemonSet, an
    /// unknown GPU model, …).
    Message(String),
}

impl From<String> for BackendError {
    fn from(message: String) -> Self {
        BackendError::Message(message)
    }
}

impl From<&str> for BackendError {
    fn from(message: &str) -> Self {
        BackendError::Message(message.to_string())
    }
}

/// One way of running a scenario.
pub trait Backend {
    /// `model`, `containerd`, `kube`.
    fn name(&self) -> String;
    /// Puts every node in its initial state (files written, daemons started) and applies
    /// the scenario's initial manifests.
    fn setup(&mut self, scenario: &Scenario) -> Result<(), BackendError>;
    /// Performs one step's action.
    fn act(&mut self, action: &Action) -> Result<(), BackendError>;
    /// The current value of `field` of `subject`.
    fn observe(&mut self, subject: &str, field: Field) -> Result<Observed, Unobservable>;
    /// What the backend simulated or could not do, said once in the record.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

/// One expectation and what was observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub subject: String,
    pub field: Field,
    pub domain: Domain,
    /// The expectation's line in `scenario.toml`.
    pub line: u32,
    pub expected: Expected,
    /// `None` when the backend could not observe it (see `unobservable`).
    pub observed: Option<Observed>,
    pub unobservable: Option<String>,
    pub holds: bool,
}

/// One step as it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// 1-based.
    pub index: usize,
    pub name: String,
    pub action: String,
    pub node: Option<String>,
    pub line: u32,
    /// The action failed (a backend error, not an expectation).
    pub error: Option<BackendError>,
    pub observations: Vec<Observation>,
}

/// A scenario run on one backend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub scenario: String,
    pub backend: String,
    pub setup_error: Option<BackendError>,
    pub notes: Vec<String>,
    pub steps: Vec<StepRecord>,
}

impl Record {
    /// Every expectation was observed and held, and nothing failed (the model's bar:
    /// it observes every field).
    pub fn passed(&self) -> bool {
        self.setup_error.is_none() && self.steps.iter().all(|s| s.error.is_none() && s.observations.iter().all(|o| o.holds))
    }

    /// Every expectation the backend could observe held (a real backend's bar).
    pub fn passed_where_observed(&self) -> bool {
        self.setup_error.is_none()
            && self.steps.iter().all(|s| s.error.is_none() && s.observations.iter().all(|o| o.holds || o.observed.is_none()))
    }

    /// (held, failed, unobservable) expectation counts.
    pub fn counts(&self) -> (usize, usize, usize) {
        let all = self.steps.iter().flat_map(|s| &s.observations);
        all.fold((0, 0, 0), |(h, f, u), o| match (&o.observed, o.holds) {
            (None, _) => (h, f, u + 1),
            (Some(_), true) => (h + 1, f, u),
            (Some(_), false) => (h, f + 1, u),
        })
    }
}

/// Runs `scenario` on `backend`.
pub fn run(scenario: &Scenario, backend: &mut dyn Backend) -> Record {
    run_with_progress(scenario, backend, &mut |_, _| {})
}

/// [`run`], calling `progress(index, step name)` before each step (the companion
/// prints it while a slow real backend works).
pub fn run_with_progress(scenario: &Scenario, backend: &mut dyn Backend, progress: &mut dyn FnMut(usize, &str)) -> Record {
    let mut record = Record { scenario: scenario.name.clone(), backend: backend.name(), setup_error: None, notes: Vec::new(), steps: Vec::new() };
    if let Err(e) = backend.setup(scenario) {
        record.setup_error = Some(e);
        record.notes = backend.notes();
        return record;
    }
    for (i, step) in scenario.steps.iter().enumerate() {
        progress(i + 1, &step.name);
        let error = backend.act(&step.action).err();
        let observations = step
            .expect
            .iter()
            .map(|e| {
                let (observed, unobservable) = match backend.observe(&e.subject, e.field) {
                    Ok(o) => (Some(o), None),
                    Err(why) => (None, Some(why)),
                };
                let holds = observed.as_ref().is_some_and(|o| e.expected.matches(o));
                Observation { subject: e.subject.clone(), field: e.field, domain: e.field.domain(), line: e.line, expected: e.expected.clone(), observed, unobservable, holds }
            })
            .collect();
        record.steps.push(StepRecord {
            index: i + 1,
            name: step.name.clone(),
            action: step.action.verb().to_string(),
            node: step.action.node().map(str::to_string),
            line: step.line,
            error,
            observations,
        });
    }
    record.notes = backend.notes();
    record
}
