//! Events and conditions the lab shows: the scheduler's FailedScheduling / Scheduled
//! events and PodScheduled condition (`schedule_one.go`, spec §1.6), with the event
//! note truncated as upstream; times are seconds passed in, never read.

use super::scheduler::{Outcome, ScheduleResult};

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

/// One event as `kubectl describe` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRecord {
    /// `Normal` or `Warning`.
    pub type_: String,
    pub reason: String,
    /// `source.component` / `reportingController`, e.g. `default-scheduler`.
    pub from: String,
    pub message: String,
    /// How many times it was seen (`count`, or the series count).
    pub count: u32,
    /// First and last seen, in seconds on the lab's clock.
    pub first_seen: i64,
    pub last_seen: i64,
}

impl EventRecord {
    /// An event seen once at `at`.
    pub fn once(type_: &str, reason: &str, from: &str, message: impl Into<String>, at: i64) -> EventRecord {
        EventRecord {
            type_: type_.into(),
            reason: reason.into(),
            from: from.into(),
            message: message.into(),
            count: 1,
            first_seen: at,
            last_seen: at,
        }
    }

    /// The same event seen again at `at` (the API aggregates identical events).
    pub fn repeat(&mut self, at: i64) {
        self.count += 1;
        self.last_seen = at;
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
/// The scheduler's reporting controller.
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// The event and the PodScheduled condition of a scheduling cycle at time `at`.
pub fn scheduling_event(namespace: &str, name: &str, result: &ScheduleResult, at: i64) -> (EventRecord, Condition) {
    match &result.outcome {
        Outcome::Scheduled { node, .. } => (
            EventRecord::once(
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
                EventRecord::once("Warning", "FailedScheduling", DEFAULT_SCHEDULER, truncate_message(message), at),
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
pub fn preempted_event(preemptor: &str, node: &str, at: i64) -> EventRecord {
    EventRecord::once(
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
