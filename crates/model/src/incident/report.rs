//! The incident report, the lab's third take-home artifact: generated from the
//! learner's own run, in Korean or English, as Markdown and as JSON. It has the
//! skeleton of a real incident report — summary, timeline, the status columns read,
//! verdict, the stalled node with its cause chain and evidence, the artifacts gathered
//! in the earlier steps, and next actions.
//!
//! The artifacts of the other steps are computed by their own models
//! ([`super::artifacts`], gathered by [`super::run::Incident::run`]): the
//! containerd merge explanation with file:line, check-runtime.sh verdicts before and
//! after the restart, the scheduler's verdicts, the slot table. The app may pass its
//! own (e.g. the learner's step-2 diagnostics); a section with nothing in it says so
//! rather than disappearing. Upstream texts (containerd's log lines, the scheduler's
//! and kubelet's messages, kubectl output) appear verbatim, in English, in both languages.

use serde::{Deserialize, Serialize};

use super::artifacts::{FixRecord, MergeArtifact, PatchStage, SchedulerVerdict};
use crate::daemonset::diagnosis::{diagnose, Diagnosis, Verdict};
use crate::daemonset::kubectl::{table, tabbed, GET_DS_HEADER};
use crate::kubernetes::kubectl::get_pods_wide;
use crate::kubernetes::kubectl::events_text;
use crate::kubernetes::time;
use crate::daemonset::rollout::Rollout;
use super::text::{evidence_text, link_text};
use super::labels::Label;
use crate::Lang;

/// One run of check-runtime.sh (step 3/4) on a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRuntimeRun {
    pub node: String,
    /// `before-restart` or `after-restart`.
    pub when: String,
    pub passed: bool,
    /// The script's one-line reason (English; the findings carry codes and arguments).
    pub reason: String,
    /// The script's verdict (`pass`, `check-failed`, `restart-needed`, `not-reachable`);
    /// empty for a verdict that did not come from the check's rules.
    #[serde(default)]
    pub verdict: String,
    /// The script's exit status.
    #[serde(default)]
    pub exit: u8,
    /// Every finding of the five checks.
    #[serde(default)]
    pub findings: Vec<crate::check_runtime::Finding>,
}

/// One row of the time-slicing slot table (step 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlotRow {
    pub node: String,
    pub gpu: String,
    pub physical_gpus: u32,
    pub replicas: u32,
    pub seats: u32,
    /// Guaranteed memory per seat, as the slot model prints it (`0` with time-slicing).
    pub guaranteed_memory_per_seat: String,
}

/// What the earlier steps produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifacts {
    /// check-runtime.sh verdicts (steps 3–4).
    #[serde(default)]
    pub check_runtime: Vec<CheckRuntimeRun>,
    /// The slot table (step 7), one row per node.
    #[serde(default)]
    pub slot_table: Vec<SlotRow>,
    /// The merge of the stalled nodes' config files, explained (step 2).
    #[serde(default)]
    pub merge: Vec<MergeArtifact>,
    /// The scheduler's verdicts on the run's pods (step 6).
    #[serde(default)]
    pub scheduler: Vec<SchedulerVerdict>,
    /// The whole slot table as the slot model computes it (step 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<crate::slots::SlotTable>,
    /// What was done to the stalled nodes.
    #[serde(default)]
    pub fix: Vec<FixRecord>,
    /// Artifacts that could not be computed, and why.
    #[serde(default)]
    pub errors: Vec<String>,
}

/// One line of the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// UTC, RFC 3339.
    pub at: String,
    /// Seconds since the update was applied.
    pub offset: i64,
    pub sync: u64,
    /// The last sync of a run of identical syncs this row stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_sync: Option<u64>,
    pub what: String,
    pub rollout_status: String,
}

/// The report as data (its JSON form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IncidentReport {
    pub lang: Lang,
    pub title: String,
    pub daemon_set: String,
    pub namespace: String,
    pub summary: String,
    pub timeline: Vec<TimelineEntry>,
    /// `kubectl get ds` at the stall (or at the end), as printed.
    pub get_ds: String,
    /// `kubectl get pods -o wide` of the DaemonSet's pods at the stall.
    pub get_pods: String,
    /// The events of the stalled pod(s), as `kubectl describe pod` prints them.
    pub pod_events: String,
    pub diagnosis: Diagnosis,
    /// Whether the run went on after the stall and finished.
    pub resolved: bool,
    pub artifacts: Artifacts,
    pub next_actions: Vec<String>,
}

/// A label of the catalogue, as the report's owned text.
fn t(lang: Lang, label: Label) -> String {
    label.text(lang).to_string()
}

fn rfc3339(unix: i64) -> String {
    time(unix).0.to_string()
}

/// Builds the report of `rollout` (its rounds from the update on). `stall_view` is the
/// rollout as the learner saw it when they read the columns (a snapshot taken at the
/// stall; the same rollout when nothing was fixed afterwards).
pub fn build_report(rollout: &Rollout, stall_view: &Rollout, artifacts: Artifacts, lang: Lang) -> IncidentReport {
    let ctl = &rollout.controller;
    let name = ctl.name().to_string();
    let namespace = ctl.ds.metadata.namespace.clone().unwrap_or_default();
    let diagnosis = diagnose(stall_view);
    let resolved = rollout.rollout_status().is_ok_and(|s| s.done) && diagnosis.verdict == Verdict::Stalled;
    let start = rollout.rounds.first().map_or(rollout.now(), |r| r.now);

    let mut timeline = Vec::new();
    let mut previous_status = String::new();
    let fixed_after = stall_view.rounds.len() as u64;
    let stalled_on_nodes: Vec<String> = diagnosis.stalled_nodes.iter().map(|n| n.node.clone()).collect();
    for r in &rollout.rounds {
        let mut what = Vec::new();
        if resolved && r.round == fixed_after + 1 {
            if artifacts.fix.is_empty() {
                let nodes = stalled_on_nodes.join(", ");
                what.push(Label::ContainerdRestartedOn.fill(lang, &[("nodes", &nodes)]));
            }
            for f in &artifacts.fix {
                let files = f.files_written.join(", ");
                let n = &f.node;
                what.push(match (files.is_empty(), f.restarted) {
                    (true, _) => Label::NodeContainerdRestarted.fill(lang, &[("n", &n)]),
                    (false, true) => Label::NodeFilesRewrittenRestarted.fill(lang, &[("files", &files), ("n", &n)]),
                    (false, false) => Label::NodeFilesRewritten.fill(lang, &[("files", &files), ("n", &n)]),
                });
            }
        }
        for (pod, node) in &r.sync.deleted {
            what.push(Label::DeletedOldPod.fill(lang, &[("node", &node), ("pod", &pod)]));
        }
        for (pod, node) in &r.sync.created {
            what.push(Label::CreatedPod.fill(lang, &[("node", &node), ("pod", &pod)]));
        }
        for pod in &r.started {
            what.push(Label::PodRunningReady.fill(lang, &[("pod", &pod)]));
        }
        for (pod, _) in &r.sandbox_failures {
            what.push(Label::PodSandboxFailed.fill(lang, &[("pod", &pod)]));
        }
        let status = match &r.rollout_status {
            Ok(s) => s.message.trim_end().to_string(),
            Err(e) => format!("error: {e}"),
        };
        if what.is_empty() && status == previous_status && !r.stalled {
            continue;
        }
        if r.stalled && what.iter().all(|w| w.contains("FailedCreatePodSandBox")) {
            what.push(t(lang, Label::NoProgressRolloutStalled));
        }
        if r.rollout_status.as_ref().is_ok_and(|s| s.done) {
            what.push(t(lang, Label::RolloutComplete));
        }
        previous_status = status.clone();
        let what = what.join("; ");
        // A sync that repeats the previous row (the stalled kubelet retrying) widens it.
        if let Some(last) = timeline.last_mut().filter(|l: &&mut TimelineEntry| l.what == what && l.rollout_status == status) {
            last.until_sync = Some(r.round);
            continue;
        }
        timeline.push(TimelineEntry { at: rfc3339(r.now), offset: r.now - start, sync: r.round, until_sync: None, what, rollout_status: status });
    }

    let view = &stall_view.controller;
    let get_ds = table(&format!("{GET_DS_HEADER}\n{}\n", crate::daemonset::kubectl::get_ds_row(&view.ds, stall_view.now())));
    let get_pods = get_pods_wide(view.pods.values(), stall_view.now());
    let mut pod_events = String::new();
    for node in &diagnosis.stalled_nodes {
        if let Some(pod) = &node.pod {
            let object = format!("Pod/{pod}");
            let events: Vec<_> = view.events.about(&object).collect();
            pod_events.push_str(&format!("# kubectl describe pod {pod} -n {namespace}\n"));
            pod_events.push_str(&tabbed(&events_text(events, stall_view.now())));
        }
    }

    let stalled_on: Vec<String> = diagnosis.stalled_nodes.iter().map(|n| n.node.clone()).collect();
    let budget_used = diagnosis.summary.iter().any(|l| l.code == "unavailable-budget-used");
    // Either the broken node used up maxUnavailable, or (e.g. maxUnavailable 2 with one
    // broken node) every other node was updated and it alone keeps the rollout open.
    let max = diagnosis.max_unavailable;
    let why = if budget_used { Label::SummaryBudgetUsed } else { Label::SummaryBudgetLeft }.fill(lang, &[("max", &max)]);
    let summary = match diagnosis.verdict {
        Verdict::Stalled => {
            let after = if resolved { t(lang, Label::SummaryFixed) } else { String::new() };
            Label::SummaryStalled.fill(
                lang,
                &[("namespace", &namespace), ("name", &name), ("nodes", &stalled_on.join(", ")), ("why", &why), ("status", &diagnosis.rollout_status), ("after", &after)],
            )
        }
        Verdict::Complete => Label::SummaryComplete.fill(lang, &[("name", &name), ("namespace", &namespace)]),
        Verdict::Progressing => Label::SummaryProgressing.fill(lang, &[("name", &name), ("namespace", &namespace)]),
    };

    let next_actions = next_actions(&diagnosis, &name, &namespace, lang);
    IncidentReport {
        lang,
        title: match diagnosis.verdict {
            Verdict::Stalled => Label::TitleStalled.fill(lang, &[("name", &name)]),
            Verdict::Complete => Label::TitleComplete.fill(lang, &[("name", &name)]),
            Verdict::Progressing => Label::TitleProgressing.fill(lang, &[("name", &name)]),
        },
        daemon_set: name,
        namespace,
        summary,
        timeline,
        get_ds,
        get_pods,
        pod_events,
        diagnosis,
        resolved,
        artifacts,
        next_actions,
    }
}

fn next_actions(d: &Diagnosis, name: &str, namespace: &str, lang: Lang) -> Vec<String> {
    let mut out = Vec::new();
    for node in &d.stalled_nodes {
        let codes: Vec<&str> = node.chain.iter().map(|l| l.code.as_str()).collect();
        let n = &node.node;
        let arg = |code: &str, key: &str| node.chain.iter().find(|l| l.code == code).and_then(|l| l.args.get(key).cloned()).unwrap_or_default();
        if codes.contains(&"restart-would-fail") || codes.contains(&"dropin-replaced-table") {
            let (file, table) = (arg("dropin-replaced-table", "file"), arg("dropin-replaced-table", "table"));
            let version = arg("restart-would-fail", "containerdVersion");
            out.push(Label::DoNotRestartYet.fill(lang, &[("n", &n), ("file", &file), ("table", &table), ("version", &version)]));
        }
        if codes.contains(&"handler-not-loaded") || codes.contains(&"loaded-cri-error") || codes.contains(&"restart-would-fail") {
            out.push(Label::RestartContainerdOnNode.fill(lang, &[("n", &n)]));
        }
        if codes.contains(&"runtimeclass-missing") {
            out.push(t(lang, Label::CreateMissingRuntimeClassOrDrop));
        }
        if let Some(pod) = &node.pod {
            out.push(Label::IfPodDoesNotRecover.fill(lang, &[("namespace", &namespace), ("pod", &pod)]));
        }
    }
    if d.verdict == Verdict::Stalled {
        out.push(Label::WatchRestKubectlRolloutStatus.fill(lang, &[("name", &name), ("namespace", &namespace)]));
        out.push(t(lang, Label::PreventGateDaemonSetUpdatesNeed));
    }
    out
}

impl IncidentReport {
    /// The report as Markdown.
    pub fn to_markdown(&self) -> String {
        let l = self.lang;
        let mut md = String::new();
        md.push_str(&format!("# {}\n\n", self.title));
        md.push_str(&format!("## {}\n\n{}\n\n", t(l, Label::Summary), self.summary));

        md.push_str(&format!("## {}\n\n", t(l, Label::Timeline)));
        md.push_str(&format!("| {} | {} | sync | {} | `kubectl rollout status` |\n|---|---|---|---|---|\n",
            t(l, Label::TimeUTC), t(l, Label::SinceUpdate), t(l, Label::WhatHappened)));
        for e in &self.timeline {
            let sync = e.until_sync.map_or_else(|| e.sync.to_string(), |u| format!("{}–{u}", e.sync));
            md.push_str(&format!("| {} | +{}s | {sync} | {} | `{}` |\n", e.at, e.offset, e.what.replace('|', "\\|"), e.rollout_status));
        }
        md.push('\n');

        md.push_str(&format!("## {}\n\n", t(l, Label::WhatStatusColumnsSaid)));
        md.push_str(&format!("```\n$ kubectl get ds {} -n {}\n{}```\n\n", self.daemon_set, self.namespace, self.get_ds));
        let c = &self.diagnosis.columns;
        md.push_str(&format!("| DESIRED | CURRENT | READY | UP-TO-DATE | AVAILABLE | {} |\n|---|---|---|---|---|---|\n| {} | {} | {} | {} | {} | {} |\n\n",
            t(l, Label::Unavailable), c.desired, c.current, c.ready, c.up_to_date, c.available, c.unavailable));
        // How to read them: only the readings that hold here (with maxUnavailable 2 every
        // node can be up to date while one is not Ready).
        let readings = [
            (c.desired == c.current, Label::ReadingDesiredEqualsCurrent),
            (c.ready < c.desired || c.available < c.desired, Label::ReadingReadyBelowDesired),
            (c.up_to_date < c.desired, Label::ReadingUpToDateBelowDesired),
        ];
        for (holds, label) in readings {
            if holds {
                md.push_str(&t(l, label));
            }
        }
        md.push('\n');
        md.push_str(&format!("```\n$ kubectl rollout status ds/{} -n {}\n{}\n```\n\n", self.daemon_set, self.namespace, self.diagnosis.rollout_status));
        md.push_str(&format!("```\n$ kubectl get pods -o wide -n {}\n{}```\n\n", self.namespace, self.get_pods));

        md.push_str(&format!("## {}\n\n", t(l, Label::VerdictHeading)));
        let verdict = match self.diagnosis.verdict {
            Verdict::Stalled => t(l, Label::VerdictStalled),
            Verdict::Complete => t(l, Label::VerdictComplete),
            Verdict::Progressing => t(l, Label::VerdictProgressing),
        };
        md.push_str(&format!("{verdict}\n\n"));
        for link in &self.diagnosis.summary {
            md.push_str(&format!("- {}\n", link_text(link, l)));
        }
        md.push('\n');

        for node in &self.diagnosis.stalled_nodes {
            md.push_str(&format!("## {} {}\n\n", t(l, Label::StalledNode), node.node));
            md.push_str(&format!("{}\n\n", t(l, Label::CauseChainSymptomFirstRoot)));
            for (i, link) in node.chain.iter().enumerate() {
                md.push_str(&format!("{}. {}\n", i + 1, link_text(link, l)));
                if let Some(e) = evidence_text(&link.evidence, l) {
                    md.push_str(&format!("   - {}: `{}`\n", t(l, Label::Evidence), e));
                }
            }
            md.push('\n');
        }
        if !self.pod_events.is_empty() {
            md.push_str(&format!("```\n{}```\n\n", self.pod_events));
        }
        for f in &self.artifacts.fix {
            let files: Vec<String> = f.files_written.iter().map(|p| format!("`{p}`")).collect();
            let fix = if files.is_empty() { Label::FixRestarted } else { Label::FixRewrittenRestarted }
                .fill(l, &[("node", &f.node), ("files", &files.join(", "))]);
            md.push_str(&format!("{fix}\n\n"));
        }
        if self.resolved {
            md.push_str(&format!("{}\n\n", t(l, Label::AfterContainerdWasRestartedNode)));
        }

        md.push_str(&format!("## {}\n\n", t(l, Label::ArtifactsFromEarlierSteps)));
        let none = t(l, Label::NotGatheredRun);
        md.push_str(&format!("### {}\n\n", t(l, Label::ContainerdMergeStep2)));
        if self.artifacts.merge.is_empty() {
            md.push_str(&format!("{none}\n\n"));
        }
        for m in &self.artifacts.merge {
            merge_markdown(&mut md, m, l);
        }
        md.push_str(&format!("### {}\n\n", t(l, Label::CheckRuntimeShVerdictsSteps)));
        if self.artifacts.check_runtime.is_empty() {
            md.push_str(&format!("{none}\n\n"));
        } else {
            check_runtime_markdown(&mut md, &self.artifacts.check_runtime, l);
        }

        md.push_str(&format!("### {}\n\n", t(l, Label::SchedulerVerdictsSteps56)));
        if self.artifacts.scheduler.is_empty() {
            md.push_str(&format!("{}\n\n", t(l, Label::NoPodRunWasLeft)));
        }
        for v in &self.artifacts.scheduler {
            let times = if v.count > 1 { format!(" ×{}", v.count) } else { String::new() };
            let stage = match v.stage {
                Some(PatchStage::BeforePatches) => format!(" — {}", t(l, Label::BeforeNodePatches)),
                Some(PatchStage::AfterPatches) => format!(" — {}", t(l, Label::AfterNodePatches)),
                None => String::new(),
            };
            md.push_str(&format!("- `{}`{stage}: {} ({}{times})\n\n```\n{}\n```\n\n", v.pod, v.reason, v.source, v.message));
        }

        md.push_str(&format!("### {}\n\n", t(l, Label::TimeSlicingSlotTableStep)));
        if self.artifacts.slot_table.is_empty() {
            if self.artifacts.slots.is_none() {
                md.push_str(&format!("{none}\n\n"));
            }
        } else {
            md.push_str(&format!("| {} | GPU | {} | replicas | {} | {} |\n|---|---|---|---|---|---|\n",
                t(l, Label::NodeColumn), t(l, Label::Physical), t(l, Label::Seats), t(l, Label::GuaranteedMemorySeat)));
            for r in &self.artifacts.slot_table {
                md.push_str(&format!("| {} | {} | {} | {} | {} | {} |\n", r.node, r.gpu, r.physical_gpus, r.replicas, r.seats, r.guaranteed_memory_per_seat));
            }
            md.push('\n');
        }
        if let Some(table) = &self.artifacts.slots {
            // The slot model's own Markdown, its title one level below this section's.
            let text = crate::slots::table::to_markdown(table);
            let text = text.strip_prefix("## ").map_or(text.clone(), |rest| format!("#### {rest}"));
            md.push_str(&text);
            md.push('\n');
        }
        if !self.artifacts.errors.is_empty() {
            for e in &self.artifacts.errors {
                md.push_str(&format!("- {}: {e}\n", t(l, Label::NotComputed)));
            }
            md.push('\n');
        }

        md.push_str(&format!("## {}\n\n", t(l, Label::NextActions)));
        for a in &self.next_actions {
            md.push_str(&format!("- [ ] {a}\n"));
        }
        md
    }
}

fn merge_markdown(md: &mut String, m: &MergeArtifact, l: Lang) {
    let files: Vec<String> = m.files.iter().map(|f| format!("`{f}`")).collect();
    md.push_str(&format!("**{}** — containerd {}: {} {}\n\n", m.node, m.containerd_version, t(l, Label::FilesLoadOrder), files.join(" → ")));
    for r in &m.replaced {
        let by = r.by.clone().unwrap_or_default();
        let earlier = r.earlier.clone().unwrap_or_default();
        md.push_str(&Label::TableReplacedWhole.fill(l, &[("table", &r.table), ("earlier", &earlier), ("by", &by), ("lost", &r.lost.len())]));
        md.push_str(&format!("| {} | {} | {} | {} |\n|---|---|---|---|\n", t(l, Label::LostKey), t(l, Label::ValueColumn), t(l, Label::SetAt), t(l, Label::LostAt)));
        for k in &r.lost {
            md.push_str(&format!("| `{}` | `{}` | `{}` | `{}` |\n", k.key, k.value, k.defined_at.clone().unwrap_or_default(), k.lost_at.clone().unwrap_or_default()));
        }
        md.push('\n');
    }
    if m.replaced.is_empty() {
        md.push_str(&format!("{}\n\n", t(l, Label::NoTableReplacedWhole)));
    }
    let list = |h: &[String]| if h.is_empty() { t(l, Label::NoneListed) } else { h.join(", ") };
    let stale = if m.stale { t(l, Label::FilesChangedSinceStart) } else { String::new() };
    md.push_str(&Label::HandlersLoadedAndDefined.fill(l, &[("loaded", &list(&m.loaded_handlers)), ("defined", &list(&m.file_handlers)), ("stale", &stale)]));
    md.push_str(&Label::CriStatusOnStart.fill(l, &[("status", &m.cri_status)]));
    md.push('\n');
    if let Some(line) = m.cri_error_line.as_ref().or(m.daemon_exit.as_ref()) {
        md.push_str(&format!("```\n{line}\n```\n\n"));
    }
}

fn when_text(when: &str, l: Lang) -> String {
    match when {
        "before-restart" => t(l, Label::StallBeforeRestart),
        "if-restarted-as-is" => t(l, Label::IfRestartedWithFilesThey),
        "after-restart" => t(l, Label::AfterFixRestart),
        other => other.to_string(),
    }
}

fn check_runtime_markdown(md: &mut String, runs: &[CheckRuntimeRun], l: Lang) {
    use crate::check_runtime::{self, Status};
    md.push_str(&format!("| {} | {} | {} | {} |\n|---|---|---|---|\n", t(l, Label::NodeColumn), t(l, Label::WhenColumn), t(l, Label::VerdictExit), t(l, Label::Findings)));
    for r in runs {
        let verdict = if r.verdict.is_empty() { (if r.passed { "PASS" } else { "FAIL" }).to_string() } else { format!("{} ({})", r.verdict, r.exit) };
        let codes: Vec<&str> = r.findings.iter().filter(|f| !matches!(f.status, Status::Pass | Status::Skip)).map(|f| f.code.as_str()).collect();
        let findings = if r.findings.is_empty() { r.reason.clone() } else if codes.is_empty() { "-".into() } else { codes.join(", ") };
        md.push_str(&format!("| {} | {} | {verdict} | {} |\n", r.node, when_text(&r.when, l), findings.replace('|', "\\|")));
    }
    md.push('\n');
    for r in runs.iter().filter(|r| !r.findings.is_empty()) {
        md.push_str(&format!("{} — {}:\n\n", r.node, when_text(&r.when, l)));
        for f in &r.findings {
            let status = match f.status {
                Status::Pass => "PASS",
                Status::Fail => "FAIL",
                Status::Restart => "RESTART",
                Status::Skip => "SKIP",
            };
            md.push_str(&format!("- [{}] {status} `{}`: {}\n", f.check, f.code, check_runtime::message(f, l)));
        }
        md.push('\n');
    }
}
