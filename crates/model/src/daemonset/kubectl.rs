//! What kubectl prints for the DaemonSet step, byte for byte: `rollout status`
//! (`DaemonSetStatusViewer.Status`), `get ds`, `describe ds` and its events table, with
//! kubectl's tab writers and `duration.HumanDuration` ages. The pods' `get pods -o wide`
//! is the Kubernetes model's one printer ([`crate::kubernetes::kubectl::get_pods_wide`]).

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Pod;
use serde::Serialize;

use crate::kubernetes::events::Event;
use crate::kubernetes::tabwriter::TabWriter;
use super::pod::pod_phase;
use crate::kubernetes::unix;

/// Go's `strconv.Quote` / `%q`.
pub use crate::go::quote as go_quote;

/// One answer of `DaemonSetStatusViewer.Status`: the message (with its trailing
/// newline) and whether the wait is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutStatus {
    pub message: String,
    pub done: bool,
}

/// `kubectl rollout status ds/NAME`, one watch event's worth. There is no progress
/// deadline for DaemonSets: a stalled rollout waits forever unless `--timeout` is given.
pub fn rollout_status(ds: &DaemonSet) -> Result<RolloutStatus, String> {
    let strategy = ds.spec.as_ref().and_then(|s| s.update_strategy.as_ref()).and_then(|u| u.type_.as_deref());
    if strategy != Some("RollingUpdate") {
        return Err("rollout status is only available for RollingUpdate strategy type".into());
    }
    let name = go_quote(ds.metadata.name.as_deref().unwrap_or(""));
    let status = ds.status.clone().unwrap_or_default();
    let generation = ds.metadata.generation.unwrap_or(0);
    if generation > status.observed_generation.unwrap_or(0) {
        return Ok(RolloutStatus { message: "Waiting for daemon set spec update to be observed...\n".into(), done: false });
    }
    let desired = status.desired_number_scheduled;
    let updated = status.updated_number_scheduled.unwrap_or(0);
    let available = status.number_available.unwrap_or(0);
    let (message, done) = if updated < desired {
        (format!("Waiting for daemon set {name} rollout to finish: {updated} out of {desired} new pods have been updated...\n"), false)
    } else if available < desired {
        (format!("Waiting for daemon set {name} rollout to finish: {available} of {desired} updated pods are available...\n"), false)
    } else {
        (format!("daemon set {name} successfully rolled out\n"), true)
    };
    Ok(RolloutStatus { message, done })
}

/// Go's `text/tabwriter` with a space pad char and no flags (the Kubernetes model's
/// [`TabWriter`]); every line, the last included, ends in `\n`.
pub fn tabwrite(text: &str, minwidth: usize, padding: usize) -> String {
    if text.is_empty() {
        return String::new();
    }
    let mut out = TabWriter { minwidth, padding }.format(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// kubectl's printer table writer (`printers.GetNewTabWriter`): minwidth 6, padding 3.
pub fn table(text: &str) -> String {
    tabwrite(text, 6, 3)
}

/// `duration.HumanDuration` (the Kubernetes model's).
pub use crate::kubernetes::events::human_duration;

fn age(created: Option<i64>, now: i64) -> String {
    created.map_or_else(|| "<unknown>".into(), |t| human_duration(now - t))
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when empty.
pub fn format_labels(labels: Option<&std::collections::BTreeMap<String, String>>) -> String {
    match labels {
        Some(l) if !l.is_empty() => l.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","),
        _ => "<none>".into(),
    }
}

/// The `get ds` column (of [`GET_DS_HEADER`]) that prints a DaemonSet status field.
pub fn get_ds_column(field: &str) -> Option<&'static str> {
    Some(match field {
        "status.desiredNumberScheduled" => "DESIRED",
        "status.currentNumberScheduled" => "CURRENT",
        "status.numberReady" => "READY",
        "status.updatedNumberScheduled" => "UP-TO-DATE",
        "status.numberAvailable" => "AVAILABLE",
        _ => return None,
    })
}

/// The cells of one `get ds` row (without the header).
pub fn get_ds_row(ds: &DaemonSet, now: i64) -> String {
    let s = ds.status.clone().unwrap_or_default();
    let node_selector = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()).and_then(|s| s.node_selector.as_ref());
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        ds.metadata.name.as_deref().unwrap_or(""),
        s.desired_number_scheduled,
        s.current_number_scheduled,
        s.number_ready,
        s.updated_number_scheduled.unwrap_or(0),
        s.number_available.unwrap_or(0),
        format_labels(node_selector),
        age(ds.metadata.creation_timestamp.as_ref().map(unix), now),
    )
}

pub const GET_DS_HEADER: &str = "NAME\tDESIRED\tCURRENT\tREADY\tUP-TO-DATE\tAVAILABLE\tNODE SELECTOR\tAGE";

/// `kubectl get ds NAME`.
pub fn get_ds(ds: &DaemonSet, now: i64) -> String {
    table(&format!("{GET_DS_HEADER}\n{}\n", get_ds_row(ds, now)))
}

/// `describe`'s tab writer (`tabbedString`): minwidth 0, padding 2.
pub fn tabbed(text: &str) -> String {
    tabwrite(text, 0, 2)
}

/// `kubectl describe ds NAME`: the header fields, the counters, the pod-status tally
/// (`Running / Waiting / Succeeded / Failed` by phase), the template's labels and
/// images, and the events. The pod template is summarised (labels, containers with
/// image), not printed in full.
pub fn describe_ds<'a>(ds: &DaemonSet, pods: impl IntoIterator<Item = &'a Pod>, events: &[&Event], now: i64) -> String {
    let status = ds.status.clone().unwrap_or_default();
    let spec = ds.spec.clone().unwrap_or_default();
    let (mut running, mut waiting, mut succeeded, mut failed) = (0, 0, 0, 0);
    for pod in pods {
        match pod_phase(pod) {
            "Running" => running += 1,
            "Pending" => waiting += 1,
            "Succeeded" => succeeded += 1,
            "Failed" => failed += 1,
            _ => {}
        }
    }
    let selector = format_labels(spec.selector.match_labels.as_ref()).replace("<none>", "");
    let template_spec = spec.template.spec.clone().unwrap_or_default();
    let mut out = String::new();
    out.push_str(&format!("Name:\t{}\n", ds.metadata.name.as_deref().unwrap_or("")));
    out.push_str(&format!("Namespace:\t{}\n", ds.metadata.namespace.as_deref().unwrap_or("default")));
    out.push_str(&format!("Selector:\t{selector}\n"));
    out.push_str(&format!("Node-Selector:\t{}\n", format_labels(template_spec.node_selector.as_ref())));
    out.push_str(&multiline("Labels", ds.metadata.labels.as_ref()));
    let annotations = ds.metadata.annotations.clone().unwrap_or_default();
    out.push_str(&multiline("Annotations", Some(&annotations)));
    out.push_str(&format!("Desired Number of Nodes Scheduled: {}\n", status.desired_number_scheduled));
    out.push_str(&format!("Current Number of Nodes Scheduled: {}\n", status.current_number_scheduled));
    out.push_str(&format!("Number of Nodes Scheduled with Up-to-date Pods: {}\n", status.updated_number_scheduled.unwrap_or(0)));
    out.push_str(&format!("Number of Nodes Scheduled with Available Pods: {}\n", status.number_available.unwrap_or(0)));
    out.push_str(&format!("Number of Nodes Misscheduled: {}\n", status.number_misscheduled));
    out.push_str(&format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"));
    out.push_str("Pod Template:\n");
    let template_labels = spec.template.metadata.as_ref().and_then(|m| m.labels.clone());
    out.push_str(&format!("  Labels:\t{}\n", format_labels(template_labels.as_ref()).replace(',', "\n\t")));
    if let Some(rc) = &template_spec.runtime_class_name {
        out.push_str(&format!("  Runtime Class Name:\t{rc}\n"));
    }
    out.push_str("  Containers:\n");
    for c in &template_spec.containers {
        out.push_str(&format!("   {}:\n    Image:\t{}\n", c.name, c.image.as_deref().unwrap_or("")));
    }
    out.push_str(&crate::kubernetes::kubectl::events_text(events.iter().copied(), now));
    tabbed(&out)
}

fn multiline(title: &str, map: Option<&std::collections::BTreeMap<String, String>>) -> String {
    match map {
        Some(m) if !m.is_empty() => {
            let mut s = String::new();
            for (i, (k, v)) in m.iter().enumerate() {
                if i == 0 {
                    s.push_str(&format!("{title}:\t{k}={v}\n"));
                } else {
                    s.push_str(&format!("\t{k}={v}\n"));
                }
            }
            s
        }
        _ => format!("{title}:\t<none>\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each status field's column is one of `get ds`'s, and the row prints the field there.
    #[test]
    fn status_fields_have_their_get_ds_columns() {
        let header: Vec<&str> = GET_DS_HEADER.split('\t').collect();
        for (field, col) in [("status.numberReady", "READY"), ("status.updatedNumberScheduled", "UP-TO-DATE"), ("status.numberAvailable", "AVAILABLE")] {
            assert_eq!(get_ds_column(field), Some(col));
            assert!(header.contains(&col), "{col}");
        }
        assert_eq!(get_ds_column("status.numberUnavailable"), None, "get ds has no UNAVAILABLE column");
    }

    /// The `get ds` example of the spec (§4.5), byte for byte.
    #[test]
    fn get_ds_table_matches_spec_example() {
        let text = format!("{GET_DS_HEADER}\nnvidia-device-plugin-daemonset\t3\t3\t2\t1\t2\t<none>\t14m\n");
        assert_eq!(
            table(&text),
            "NAME                             DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\n\
             nvidia-device-plugin-daemonset   3         3         2       1            2           <none>          14m\n"
        );
    }

    /// A line without a tab ends the column block (describe's counters stand alone).
    #[test]
    fn tabwriter_blocks() {
        assert_eq!(tabbed("Name:\tx\nNamespace:\tdefault\nDesired: 3\nPods Status:\t1\n"),
            "Name:       x\nNamespace:  default\nDesired: 3\nPods Status:  1\n");
    }

    /// HumanDuration's thresholds.
    #[test]
    fn human_durations() {
        for (s, want) in [(5, "5s"), (119, "119s"), (150, "2m30s"), (600, "10m"), (3 * 3600 + 60, "3h1m"), (9 * 3600, "9h"), (3 * 86400, "3d"), (-5, "<invalid>")] {
            assert_eq!(human_duration(s), want);
        }
    }
}
