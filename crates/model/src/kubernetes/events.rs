//! Kubernetes events, the lab's one event type ([`Event`]): type, reason, message, the
//! component that reported it, the object it is about, and the correlator's
//! aggregation ([`EventLog`]: an identical event bumps `count` and `lastTimestamp`
//! instead of adding a row, which `kubectl describe` shows as `(x93 over 24m)`). Also
//! the scheduler's FailedScheduling / Scheduled events and PodScheduled condition
//! (`schedule_one.go`, spec §1.6), with the event note truncated as upstream; times
//! are seconds passed in, never read.

use std::hash::{Hash, Hasher};

use serde::Serialize;

use super::scheduler::{Outcome, ScheduleResult};
use crate::hash::{FastMap, FxHasher};

/// `validation.NoteLengthLimit` **[memory: 1024]**.
pub const NOTE_LENGTH_LIMIT: usize = 1024;

/// `truncateMessage`: longer notes are cut to `limit − 4` bytes plus `" ..."`.
pub fn truncate_message(message: &str) -> String {
    if message.len() <= NOTE_LENGTH_LIMIT {
        return message.to_string();
    }
    let mut cut = NOTE_LENGTH_LIMIT - 4;
    while !message.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} ...", message.get(..cut).unwrap_or(""))
}

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
    exact: FastMap<u64, Hits>,
    /// Hash of (object, source, type, reason) → indices, for [`EventLog::record_similar`].
    #[serde(skip)]
    similar: FastMap<u64, Hits>,
}

/// The indices of the events under one hash, oldest first. Nearly every hash has one
/// event: it is kept inline and the rest behind one pointer (16 bytes a hash, where an
/// inline `Vec` made 32: two maps with an entry per event at 20,000 nodes), so
/// recording a new event allocates no list for it.
#[derive(Debug, Clone)]
struct Hits {
    first: usize,
    // Boxed for the size of `Hits` (a `Vec` inline is 24 bytes in every entry).
    #[allow(clippy::box_collection)]
    more: Option<Box<Vec<usize>>>,
}

impl Hits {
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.first).chain(self.more.iter().flat_map(|m| m.iter().copied()))
    }

    /// Adds `index` under `key`.
    fn push(map: &mut FastMap<u64, Hits>, key: u64, index: usize) {
        match map.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().more.get_or_insert_with(Box::default).push(index),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Hits { first: index, more: None });
            }
        }
    }
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
    /// An event seen once at `at`, about no object in particular (the scheduler's and
    /// the kubelet's events of a single pod, printed under that pod).
    pub fn once(type_: &str, reason: &str, source: &str, message: impl Into<String>, at: i64) -> Event {
        Event {
            type_: type_.into(),
            reason: reason.into(),
            message: message.into(),
            source: source.into(),
            involved_object: String::new(),
            first_timestamp: at,
            last_timestamp: at,
            count: 1,
        }
    }

    /// The same event seen again at `at` (the API aggregates identical events).
    pub fn repeat(&mut self, at: i64) {
        self.count += 1;
        self.last_timestamp = at;
    }

    fn is_similar(&self, object: &str, source: &str, type_: &str, reason: &str) -> bool {
        self.involved_object == object && self.source == source && self.type_ == type_ && self.reason == reason
    }
}

impl EventLog {
    /// The event identical to these fields, if recorded.
    fn exact_index(&self, object: &str, source: &str, type_: &str, reason: &str, message: &str) -> Option<usize> {
        self.exact_index_at(key(&[object, source, type_, reason, message]), object, source, type_, reason, message)
    }

    /// [`EventLog::exact_index`] with the fields' hash already computed.
    fn exact_index_at(&self, hash: u64, object: &str, source: &str, type_: &str, reason: &str, message: &str) -> Option<usize> {
        let hits = self.exact.get(&hash)?;
        hits.iter().find(|&i| self.events.get(i).is_some_and(|e| e.is_similar(object, source, type_, reason) && e.message == message))
    }

    /// Records an event at `now`; an identical one (same object, source, type,
    /// reason and message) is counted instead of repeated.
    pub fn record(&mut self, now: i64, object: String, source: &str, type_: &str, reason: &str, message: String) {
        let hash = key(&[&object, source, type_, reason, &message]);
        if let Some(e) = self.exact_index_at(hash, &object, source, type_, reason, &message).and_then(|i| self.events.get_mut(i)) {
            e.count += 1;
            e.last_timestamp = now;
            return;
        }
        let index = self.events.len();
        Hits::push(&mut self.exact, hash, index);
        Hits::push(&mut self.similar, key(&[&object, source, type_, reason]), index);
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
            .flat_map(Hits::iter)
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

/// A pod condition (`type`, `status`, `reason`, `message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// `v1.PodReasonUnschedulable`.
pub const REASON_UNSCHEDULABLE: &str = "Unschedulable";
/// `v1.PodReasonSchedulerError`.
pub const REASON_SCHEDULER_ERROR: &str = "SchedulerError";

/// The event and the PodScheduled condition of a scheduling cycle at time `at`.
pub fn scheduling_event(namespace: &str, name: &str, result: &ScheduleResult, at: i64) -> (Event, Condition) {
    match &result.outcome {
        Outcome::Scheduled { node, .. } => (
            Event::once(
                "Normal",
                "Scheduled",
                DEFAULT_SCHEDULER,
                format!("Successfully assigned {namespace}/{name} to {node}"),
                at,
            ),
            Condition {
                type_: "PodScheduled".into(),
                status: "True".into(),
                reason: String::new(),
                message: String::new(),
            },
        ),
        Outcome::Unschedulable { message, .. } | Outcome::Error { message } => {
            let reason = if matches!(result.outcome, Outcome::Unschedulable { .. }) {
                REASON_UNSCHEDULABLE
            } else {
                REASON_SCHEDULER_ERROR
            };
            (
                Event::once("Warning", "FailedScheduling", DEFAULT_SCHEDULER, truncate_message(message), at),
                Condition {
                    type_: "PodScheduled".into(),
                    status: "False".into(),
                    reason: reason.into(),
                    message: message.clone(),
                },
            )
        }
    }
}

/// The `Preempted` event a victim gets.
pub fn preempted_event(preemptor: &str, node: &str, at: i64) -> Event {
    Event::once(
        "Normal",
        "Preempted",
        DEFAULT_SCHEDULER,
        format!("Preempted by pod {preemptor} on node {node}"),
        at,
    )
}

/// `duration.HumanDuration`, as kubectl prints ages.
pub fn human_duration(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".into();
    }
    if seconds < 0 {
        return "0s".into();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Notes over the limit end in `" ..."` at exactly the limit.
    #[test]
    fn truncates_long_notes() {
        let long = "x".repeat(2000);
        let t = truncate_message(&long);
        assert_eq!(t.len(), NOTE_LENGTH_LIMIT);
        assert!(t.ends_with(" ..."));
        assert_eq!(truncate_message("short"), "short");
    }

    /// kubectl's ages, including the `2m29s` and `24m` of the gpu-operator transcript.
    #[test]
    fn human_durations() {
        for (s, want) in
            [(40, "40s"), (149, "2m29s"), (1440, "24m"), (600, "10m"), (3 * 3600 + 60, "3h1m"), (86400 * 3, "3d")]
        {
            assert_eq!(human_duration(s), want);
        }
    }
}
