//! Kubernetes events as the lab records them: type, reason, message, the component
//! that reported them, the object they are about, and the correlator's aggregation
//! (an identical event bumps `count` and `lastTimestamp` instead of adding a row, which
//! is what `kubectl describe` shows as `(x93 over 24m)`).


use std::hash::{Hash, Hasher};

use serde::Serialize;

use crate::hash::{FastMap, FxHasher};

/// Which component reported an event (`source.component`).
pub const DAEMONSET_CONTROLLER: &str = "daemonset-controller";
pub const KUBELET: &str = "kubelet";
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// Reasons the lab's components emit (upstream constants).
pub mod reason {
    pub const SUCCESSFUL_CREATE: &str = "SuccessfulCreate";
    pub const SUCCESSFUL_DELETE: &str = "SuccessfulDelete";
    pub const FAILED_CREATE: &str = "FailedCreate";
    pub const FAILED_DAEMON_POD: &str = "FailedDaemonPod";
    pub const SUCCEEDED_DAEMON_POD: &str = "SucceededDaemonPod";
    pub const SELECTING_ALL: &str = "SelectingAll";
    pub const FAILED_CREATE_POD_SANDBOX: &str = "FailedCreatePodSandBox";
    pub const SCHEDULED: &str = "Scheduled";
    pub const PULLED: &str = "Pulled";
    pub const CREATED: &str = "Created";
    pub const STARTED: &str = "Started";
    pub const KILLING: &str = "Killing";
}

/// One (aggregated) event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    /// `source.component`.
    pub source: String,
    /// `Kind/name` of the involved object, e.g. `Pod/nvidia-device-plugin-daemonset-x7k2p`.
    pub involved_object: String,
    pub first_timestamp: i64,
    pub last_timestamp: i64,
    pub count: u32,
}

/// The event log with the correlator's aggregation of identical events.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EventLog {
    pub events: Vec<Event>,
    /// Hash of (object, source, type, reason, message) → indices, so recording stays
    /// O(1) with tens of thousands of events without keeping a key string per event;
    /// a hit counts only when the event's fields are equal.
    #[serde(skip)]
    exact: FastMap<u64, Vec<usize>>,
    /// Hash of (object, source, type, reason) → indices, for [`EventLog::record_similar`].
    #[serde(skip)]
    similar: FastMap<u64, Vec<usize>>,
}

/// FxHash of the fields, each delimited (as `Hash for str` does).
fn key(fields: &[&str]) -> u64 {
    let mut h = FxHasher::default();
    for f in fields {
        f.hash(&mut h);
    }
    h.finish()
}

impl Event {
    fn is_similar(&self, object: &str, source: &str, type_: &str, reason: &str) -> bool {
        self.involved_object == object && self.source == source && self.type_ == type_ && self.reason == reason
    }
}

impl EventLog {
    /// The event identical to these fields, if recorded.
    fn exact_index(&self, object: &str, source: &str, type_: &str, reason: &str, message: &str) -> Option<usize> {
        let hits = self.exact.get(&key(&[object, source, type_, reason, message]))?;
        hits.iter().copied().find(|&i| self.events.get(i).is_some_and(|e| e.is_similar(object, source, type_, reason) && e.message == message))
    }

    /// Records an event at `now`; an identical one (same object, source, type,
    /// reason and message) is counted instead of repeated.
    pub fn record(&mut self, now: i64, object: String, source: &str, type_: &str, reason: &str, message: String) {
        if let Some(e) = self.exact_index(&object, source, type_, reason, &message).and_then(|i| self.events.get_mut(i)) {
            e.count += 1;
            e.last_timestamp = now;
            return;
        }
        let index = self.events.len();
        self.exact.entry(key(&[&object, source, type_, reason, &message])).or_default().push(index);
        self.similar.entry(key(&[&object, source, type_, reason])).or_default().push(index);
        self.events.push(Event {
            type_: type_.to_string(),
            reason: reason.to_string(),
            message,
            source: source.to_string(),
            involved_object: object,
            first_timestamp: now,
            last_timestamp: now,
            count: 1,
        });
    }

    /// The kubelet's repeated errors whose text changes every time (containerd 2.x puts
    /// a new sandbox id in each): like client-go's `EventAggregator` (10 similar events
    /// within 10 minutes), the first ten distinct messages stay separate rows and the
    /// rest fold into one `(combined from similar events): …` row, which keeps counting
    /// and shows the latest message.
    pub fn record_similar(&mut self, now: i64, object: String, source: &str, type_: &str, reason: &str, message: String) {
        const COMBINED: &str = "(combined from similar events): ";
        let indices: Vec<usize> = self
            .similar
            .get(&key(&[&object, source, type_, reason]))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| self.events.get(i).is_some_and(|e| e.is_similar(&object, source, type_, reason)))
            .collect();
        let combined = indices.iter().copied().find(|&i| self.events.get(i).is_some_and(|e| e.message.starts_with(COMBINED)));
        if let Some(e) = combined.and_then(|i| self.events.get_mut(i)) {
            e.count += 1;
            e.last_timestamp = now;
            e.message = format!("{COMBINED}{message}");
            return;
        }
        let recent = indices.iter().filter(|&&i| self.events.get(i).is_some_and(|e| e.last_timestamp >= now - 600)).count();
        let exact_exists = self.exact_index(&object, source, type_, reason, &message).is_some();
        if recent >= 10 && !exact_exists {
            self.record(now, object, source, type_, reason, format!("{COMBINED}{message}"));
        } else {
            self.record(now, object, source, type_, reason, message);
        }
    }

    /// Events about one object, oldest first (as `kubectl describe` lists them).
    pub fn about<'a>(&'a self, object: &'a str) -> impl Iterator<Item = &'a Event> + 'a {
        self.events.iter().filter(move |e| e.involved_object == object)
    }

    /// Events of one component and reason (e.g. the controller's own), counted with repeats.
    pub fn count(&self, source: &str, reasons: &[&str]) -> usize {
        self.events.iter().filter(|e| e.source == source && reasons.contains(&e.reason.as_str())).map(|e| e.count as usize).sum()
    }
}
