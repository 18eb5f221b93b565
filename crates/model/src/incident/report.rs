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

use super::artifacts::{FixRecord, MergeArtifact, SchedulerVerdict};
use crate::daemonset::diagnosis::{diagnose, Diagnosis, Verdict};
use crate::daemonset::kubectl::{describe_events, get_pods_wide, table, tabbed, GET_DS_HEADER};
use crate::daemonset::pod::time;
use crate::daemonset::rollout::Rollout;
use super::text::{evidence_text, link_text};
use crate::Lang;
use crate::Diagnostic;

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
    /// The containerd merge diagnostics (step 2).
    #[serde(default)]
    pub merge_diagnostics: Vec<Diagnostic>,
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

fn t(lang: Lang, en: &str, ko: &str) -> String {
    match lang {
        Lang::En => en.to_string(),
        Lang::Ko => ko.to_string(),
    }
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
                what.push(t(lang, &format!("containerd restarted on {nodes}"), &format!("{nodes}의 containerd 재시작")));
            }
            for f in &artifacts.fix {
                let files = f.files_written.join(", ");
                let n = &f.node;
                what.push(match (files.is_empty(), f.restarted) {
                    (true, _) => t(lang, &format!("{n}: containerd restarted"), &format!("{n}: containerd 재시작")),
                    (false, true) => t(lang, &format!("{n}: {files} rewritten, containerd restarted"), &format!("{n}: {files} 수정, containerd 재시작")),
                    (false, false) => t(lang, &format!("{n}: {files} rewritten"), &format!("{n}: {files} 수정")),
                });
            }
        }
        for (pod, node) in &r.sync.deleted {
            what.push(t(lang, &format!("deleted old pod {pod} on {node}"), &format!("{node}의 옛 파드 {pod} 삭제")));
        }
        for (pod, node) in &r.sync.created {
            what.push(t(lang, &format!("created {pod} on {node}"), &format!("{node}에 {pod} 생성")));
        }
        for pod in &r.started {
            what.push(t(lang, &format!("{pod} Running and Ready"), &format!("{pod} Running, Ready")));
        }
        for (pod, _) in &r.sandbox_failures {
            what.push(t(lang, &format!("{pod}: FailedCreatePodSandBox"), &format!("{pod}: FailedCreatePodSandBox")));
        }
        let status = match &r.rollout_status {
            Ok(s) => s.message.trim_end().to_string(),
            Err(e) => format!("error: {e}"),
        };
        if what.is_empty() && status == previous_status && !r.stalled {
            continue;
        }
        if r.stalled && what.iter().all(|w| w.contains("FailedCreatePodSandBox")) {
            what.push(t(lang, "no progress: the rollout is stalled", "진행 없음: 롤아웃이 멈췄다"));
        }
        if r.rollout_status.as_ref().is_ok_and(|s| s.done) {
            what.push(t(lang, "rollout complete", "롤아웃 완료"));
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
            pod_events.push_str(&tabbed(&describe_events(&events, stall_view.now())));
        }
    }

    let stalled_on: Vec<String> = diagnosis.stalled_nodes.iter().map(|n| n.node.clone()).collect();
    let budget_used = diagnosis.summary.iter().any(|l| l.code == "unavailable-budget-used");
    // Either the broken node used up maxUnavailable, or (e.g. maxUnavailable 2 with one
    // broken node) every other node was updated and it alone keeps the rollout open.
    let max = diagnosis.max_unavailable;
    let (why_en, why_ko) = if budget_used {
        (format!(", which used up maxUnavailable {max};"), format!("아 maxUnavailable {max}{} 다 썼고,", crate::korean::particle(&max.to_string(), "을(를)")))
    } else {
        (
            format!("; maxUnavailable {max} let the other nodes update, but the rollout cannot finish without it, and"),
            format!("았다. maxUnavailable {max} 덕분에 다른 노드는 업데이트됐지만 그 노드 없이는 롤아웃이 끝나지 않아,"),
        )
    };
    let summary = match diagnosis.verdict {
        Verdict::Stalled => t(
            lang,
            &format!(
                "The rolling update of DaemonSet {namespace}/{name} stalled: node {} never got a Ready pod of the new revision{why_en} `kubectl rollout status` kept printing `{}`.{}",
                stalled_on.join(", "), diagnosis.rollout_status,
                if resolved { " After the fix the rollout finished." } else { "" }
            ),
            &format!(
                "DaemonSet {namespace}/{name}의 롤링 업데이트가 멈췄다. 노드 {}에서 새 리비전 파드가 끝내 Ready가 되지 않{why_ko} `kubectl rollout status`는 `{}`만 출력했다.{}",
                stalled_on.join(", "), diagnosis.rollout_status,
                if resolved { " 조치 후 롤아웃이 끝났다." } else { "" }
            ),
        ),
        Verdict::Complete => t(lang, &format!("The rolling update of DaemonSet {namespace}/{name} completed."), &format!("DaemonSet {namespace}/{name}의 롤링 업데이트가 끝났다.")),
        Verdict::Progressing => t(lang, &format!("The rolling update of DaemonSet {namespace}/{name} is still in progress."), &format!("DaemonSet {namespace}/{name}의 롤링 업데이트가 아직 진행 중이다.")),
    };

    let next_actions = next_actions(&diagnosis, &name, &namespace, lang);
    IncidentReport {
        lang,
        title: match diagnosis.verdict {
            Verdict::Stalled => t(lang, &format!("Incident report: DaemonSet {name} rollout stalled"), &format!("장애 보고서: DaemonSet {name} 롤아웃 정지")),
            Verdict::Complete => t(lang, &format!("Incident report: DaemonSet {name} rollout completed"), &format!("장애 보고서: DaemonSet {name} 롤아웃 완료")),
            Verdict::Progressing => t(lang, &format!("Incident report: DaemonSet {name} rollout in progress"), &format!("장애 보고서: DaemonSet {name} 롤아웃 진행 중")),
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
            out.push(t(lang,
                &format!("On {n}: do not restart yet. {file} replaces {table} whole on containerd {version}, so a restart with the files as they are fails the CRI plugin: make the drop-in carry the whole runtimes table (runc and its options kept, nvidia added), and check `containerd config dump` first."),
                &format!("{n}: 아직 재시작하지 않는다. containerd {version}에서 {file}{} {table}{} 통째로 대체하므로 지금 파일 그대로 재시작하면 CRI 플러그인이 실패한다. 드롭인이 런타임 테이블 전체(runc와 그 옵션 유지, nvidia 추가)를 담도록 고치고 먼저 `containerd config dump`로 확인한다.",
                    crate::korean::particle(&file, "이(가)"), crate::korean::particle(&table, "을(를)"))));
        }
        if codes.contains(&"handler-not-loaded") || codes.contains(&"loaded-cri-error") || codes.contains(&"restart-would-fail") {
            out.push(t(lang,
                &format!("On {n}: `sudo systemctl restart containerd` (not SIGHUP), then run check-runtime.sh and confirm the loaded config has the handler."),
                &format!("{n}에서 `sudo systemctl restart containerd`(SIGHUP 아님) 후 check-runtime.sh로 로드된 설정에 핸들러가 있는지 확인한다.")));
        }
        if codes.contains(&"runtimeclass-missing") {
            out.push(t(lang, "Create the missing RuntimeClass, or drop runtimeClassName from the template.", "없는 RuntimeClass를 만들거나 템플릿에서 runtimeClassName을 뺀다."));
        }
        if let Some(pod) = &node.pod {
            out.push(t(lang,
                &format!("If the pod does not recover by itself: `kubectl delete pod {pod} -n {namespace}` (the controller recreates it)."),
                &format!("파드가 스스로 회복하지 않으면 `kubectl delete pod {pod} -n {namespace}`(컨트롤러가 다시 만든다).")));
        }
    }
    if d.verdict == Verdict::Stalled {
        out.push(t(lang,
            &format!("Watch the rest: `kubectl rollout status ds/{name} -n {namespace} --timeout=5m` (a DaemonSet has no progress deadline)."),
            &format!("나머지를 지켜본다: `kubectl rollout status ds/{name} -n {namespace} --timeout=5m`(DaemonSet에는 progress deadline이 없다).")));
        out.push(t(lang,
            "Prevent: gate DaemonSet updates that need a runtime handler on check-runtime.sh passing on every node, and always give `rollout status` a --timeout in CI.",
            "재발 방지: 런타임 핸들러가 필요한 DaemonSet 업데이트는 모든 노드에서 check-runtime.sh가 통과할 때만 진행하고, CI의 `rollout status`에는 항상 --timeout을 준다."));
    }
    out
}

impl IncidentReport {
    /// The report as Markdown.
    pub fn to_markdown(&self) -> String {
        let l = self.lang;
        let mut md = String::new();
        md.push_str(&format!("# {}\n\n", self.title));
        md.push_str(&format!("## {}\n\n{}\n\n", t(l, "Summary", "요약"), self.summary));

        md.push_str(&format!("## {}\n\n", t(l, "Timeline", "타임라인")));
        md.push_str(&format!("| {} | {} | sync | {} | `kubectl rollout status` |\n|---|---|---|---|---|\n",
            t(l, "time (UTC)", "시각 (UTC)"), t(l, "since update", "업데이트 후"), t(l, "what happened", "일어난 일")));
        for e in &self.timeline {
            let sync = e.until_sync.map_or_else(|| e.sync.to_string(), |u| format!("{}–{u}", e.sync));
            md.push_str(&format!("| {} | +{}s | {sync} | {} | `{}` |\n", e.at, e.offset, e.what.replace('|', "\\|"), e.rollout_status));
        }
        md.push('\n');

        md.push_str(&format!("## {}\n\n", t(l, "What the status columns said", "상태 열이 말한 것")));
        md.push_str(&format!("```\n$ kubectl get ds {} -n {}\n{}```\n\n", self.daemon_set, self.namespace, self.get_ds));
        let c = &self.diagnosis.columns;
        md.push_str(&format!("| DESIRED | CURRENT | READY | UP-TO-DATE | AVAILABLE | {} |\n|---|---|---|---|---|---|\n| {} | {} | {} | {} | {} | {} |\n\n",
            t(l, "unavailable", "사용 불가"), c.desired, c.current, c.ready, c.up_to_date, c.available, c.unavailable));
        // How to read them: only the readings that hold here (with maxUnavailable 2 every
        // node can be up to date while one is not Ready).
        let readings = [
            (c.desired == c.current, "- DESIRED = CURRENT: every node has a daemon pod; the pods exist.\n", "- DESIRED = CURRENT: 모든 노드에 데몬 파드가 있다. 파드는 존재한다.\n"),
            (c.ready < c.desired || c.available < c.desired, "- READY / AVAILABLE below DESIRED: a pod exists but is not Ready.\n", "- READY / AVAILABLE < DESIRED: 파드는 있지만 Ready가 아니다.\n"),
            (c.up_to_date < c.desired, "- UP-TO-DATE below DESIRED: old pods are still waiting to be replaced.\n", "- UP-TO-DATE < DESIRED: 아직 교체를 기다리는 옛 파드가 있다.\n"),
        ];
        for (holds, en, ko) in readings {
            if holds {
                md.push_str(&t(l, en, ko));
            }
        }
        md.push('\n');
        md.push_str(&format!("```\n$ kubectl rollout status ds/{} -n {}\n{}\n```\n\n", self.daemon_set, self.namespace, self.diagnosis.rollout_status));
        md.push_str(&format!("```\n$ kubectl get pods -o wide -n {}\n{}```\n\n", self.namespace, self.get_pods));

        md.push_str(&format!("## {}\n\n", t(l, "Verdict", "판정")));
        let verdict = match self.diagnosis.verdict {
            Verdict::Stalled => t(l, "**Stalled**", "**정지**"),
            Verdict::Complete => t(l, "**Complete**", "**완료**"),
            Verdict::Progressing => t(l, "**Progressing**", "**진행 중**"),
        };
        md.push_str(&format!("{verdict}\n\n"));
        for link in &self.diagnosis.summary {
            md.push_str(&format!("- {}\n", link_text(link, l)));
        }
        md.push('\n');

        for node in &self.diagnosis.stalled_nodes {
            md.push_str(&format!("## {} {}\n\n", t(l, "Stalled node:", "멈춘 노드:"), node.node));
            md.push_str(&format!("{}\n\n", t(l, "Cause chain, symptom first, root last:", "원인 사슬 (증상 → 근본 원인):")));
            for (i, link) in node.chain.iter().enumerate() {
                md.push_str(&format!("{}. {}\n", i + 1, link_text(link, l)));
                if let Some(e) = evidence_text(&link.evidence, l) {
                    md.push_str(&format!("   - {}: `{}`\n", t(l, "evidence", "근거"), e));
                }
            }
            md.push('\n');
        }
        if !self.pod_events.is_empty() {
            md.push_str(&format!("```\n{}```\n\n", self.pod_events));
        }
        for f in &self.artifacts.fix {
            let files: Vec<String> = f.files_written.iter().map(|p| format!("`{p}`")).collect();
            let fix = match (files.is_empty(), l) {
                (true, Lang::En) => format!("Fix applied on {}: containerd restarted (`systemctl restart containerd`).", f.node),
                (true, Lang::Ko) => format!("{}에 적용한 조치: containerd 재시작(`systemctl restart containerd`).", f.node),
                (false, Lang::En) => format!("Fix applied on {}: {} rewritten to carry the whole runtimes table, then containerd restarted (`systemctl restart containerd`).", f.node, files.join(", ")),
                (false, Lang::Ko) => {
                    let files = files.join(", ");
                    format!("{}에 적용한 조치: {files}{} 런타임 테이블 전체를 담도록 고친 뒤 containerd 재시작(`systemctl restart containerd`).", f.node, crate::korean::particle(&files, "을(를)"))
                }
            };
            md.push_str(&format!("{fix}\n\n"));
        }
        if self.resolved {
            md.push_str(&format!("{}\n\n", t(l,
                "After containerd was restarted on the node, the sandbox was created and the rollout finished.",
                "노드의 containerd를 재시작하자 샌드박스가 만들어지고 롤아웃이 끝났다.")));
        }

        md.push_str(&format!("## {}\n\n", t(l, "Artifacts from the earlier steps", "앞 단계의 산출물")));
        let none = t(l, "_(not gathered in this run)_", "_(이번 실행에서 모으지 않음)_");
        md.push_str(&format!("### {}\n\n", t(l, "containerd merge (step 2)", "containerd 병합 (2단계)")));
        if self.artifacts.merge.is_empty() && self.artifacts.merge_diagnostics.is_empty() {
            md.push_str(&format!("{none}\n\n"));
        }
        for m in &self.artifacts.merge {
            merge_markdown(&mut md, m, l);
        }
        if !self.artifacts.merge_diagnostics.is_empty() {
            md.push_str(&format!("{}\n\n", t(l, "Diagnostics of the learner's files:", "학습자 파일의 진단:")));
            for d in &self.artifacts.merge_diagnostics {
                let at = d.primary.as_ref().map(|s| format!(" {} `{s}`", t(l, "at", "위치"))).unwrap_or_default();
                // The related span's label is a code (`defined-here`): worded here.
                let label = |code: &str| match code {
                    "defined-here" => t(l, "defined here", "정의 위치").to_string(),
                    other => other.to_string(),
                };
                let related: String = d.related.iter().map(|r| format!(", {} `{}`", label(&r.label), r.span)).collect();
                let args: Vec<String> = d.args.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let severity = match d.severity {
                    crate::Severity::Fatal => t(l, "fatal", "치명적"),
                    crate::Severity::Error => t(l, "error", "오류"),
                    crate::Severity::Warning => t(l, "warning", "경고"),
                    crate::Severity::Info => t(l, "info", "정보"),
                };
                md.push_str(&format!("- `{}` ({severity}){at}{related} {}\n", d.code, args.join(", ")));
            }
            md.push('\n');
        }

        md.push_str(&format!("### {}\n\n", t(l, "check-runtime.sh verdicts (steps 3–4)", "check-runtime.sh 판정 (3–4단계)")));
        if self.artifacts.check_runtime.is_empty() {
            md.push_str(&format!("{none}\n\n"));
        } else {
            check_runtime_markdown(&mut md, &self.artifacts.check_runtime, l);
        }

        md.push_str(&format!("### {}\n\n", t(l, "Scheduler verdicts (steps 5–6)", "스케줄러 판정 (5–6단계)")));
        if self.artifacts.scheduler.is_empty() {
            md.push_str(&format!("{}\n\n", t(l, "_(no pod of this run was left Pending by the scheduler)_", "_(이번 실행에서 스케줄러가 Pending으로 남긴 파드 없음)_")));
        }
        for v in &self.artifacts.scheduler {
            let times = if v.count > 1 { format!(" ×{}", v.count) } else { String::new() };
            md.push_str(&format!("- `{}`: {} ({}{times})\n\n```\n{}\n```\n\n", v.pod, v.reason, v.source, v.message));
        }

        md.push_str(&format!("### {}\n\n", t(l, "Time-slicing slot table (step 7)", "타임슬라이싱 좌석표 (7단계)")));
        if self.artifacts.slot_table.is_empty() {
            if self.artifacts.slots.is_none() {
                md.push_str(&format!("{none}\n\n"));
            }
        } else {
            md.push_str(&format!("| {} | GPU | {} | replicas | {} | {} |\n|---|---|---|---|---|---|\n",
                t(l, "node", "노드"), t(l, "physical", "물리 GPU"), t(l, "seats", "좌석"), t(l, "guaranteed memory / seat", "좌석당 보장 메모리")));
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
                md.push_str(&format!("- {}: {e}\n", t(l, "not computed", "계산하지 못함")));
            }
            md.push('\n');
        }

        md.push_str(&format!("## {}\n\n", t(l, "Next actions", "다음 조치")));
        for a in &self.next_actions {
            md.push_str(&format!("- [ ] {a}\n"));
        }
        md
    }
}

fn merge_markdown(md: &mut String, m: &MergeArtifact, l: Lang) {
    let files: Vec<String> = m.files.iter().map(|f| format!("`{f}`")).collect();
    md.push_str(&format!("**{}** — containerd {}: {} {}\n\n", m.node, m.containerd_version, t(l, "files in load order", "로드 순서의 파일"), files.join(" → ")));
    for r in &m.replaced {
        let by = r.by.clone().unwrap_or_default();
        let earlier = r.earlier.clone().unwrap_or_default();
        md.push_str(&t(l,
            &format!("The table `{}` defined at `{earlier}` is replaced whole at `{by}`; {} setting(s) of the earlier file are lost:\n\n", r.table, r.lost.len()),
            &format!("`{earlier}`에 정의된 테이블 `{}`{} `{by}`에서 통째로 대체되어 앞 파일의 설정 {}개가 사라진다:\n\n", r.table, crate::korean::particle(&r.table, "이(가)"), r.lost.len())));
        md.push_str(&format!("| {} | {} | {} | {} |\n|---|---|---|---|\n", t(l, "lost key", "사라진 키"), t(l, "value", "값"), t(l, "set at", "설정 위치"), t(l, "lost at", "사라진 위치")));
        for k in &r.lost {
            md.push_str(&format!("| `{}` | `{}` | `{}` | `{}` |\n", k.key, k.value, k.defined_at.clone().unwrap_or_default(), k.lost_at.clone().unwrap_or_default()));
        }
        md.push('\n');
    }
    if m.replaced.is_empty() {
        md.push_str(&format!("{}\n\n", t(l, "No table is replaced whole.", "통째로 대체된 테이블이 없다.")));
    }
    let list = |h: &[String]| if h.is_empty() { "(none)".to_string() } else { h.join(", ") };
    md.push_str(&t(l,
        &format!("- Handlers the running daemon loaded: {}; handlers the files define: {}{}.\n", list(&m.loaded_handlers), list(&m.file_handlers),
            if m.stale { " (the files changed after the daemon's last start)" } else { "" }),
        &format!("- 실행 중인 데몬이 로드한 핸들러: {}, 파일이 정의하는 핸들러: {}{}.\n", list(&m.loaded_handlers), list(&m.file_handlers),
            if m.stale { " (데몬의 마지막 시작 뒤 파일이 바뀌었다)" } else { "" })));
    md.push_str(&t(l,
        &format!("- The CRI plugin a start with these files gives: **{}**.\n", m.cri_status),
        &format!("- 이 파일로 시작하면 CRI 플러그인 상태: **{}**.\n", m.cri_status)));
    md.push('\n');
    if let Some(line) = m.cri_error_line.as_ref().or(m.daemon_exit.as_ref()) {
        md.push_str(&format!("```\n{line}\n```\n\n"));
    }
}

fn when_text(when: &str, l: Lang) -> String {
    match when {
        "before-restart" => t(l, "at the stall, before the restart", "정지 시점, 재시작 전"),
        "if-restarted-as-is" => t(l, "if restarted with the files as they are (simulated on a copy, not applied)", "지금 파일 그대로 재시작한다면 (사본에서 시뮬레이션, 적용 안 함)"),
        "after-restart" => t(l, "after the fix and the restart", "수정과 재시작 후"),
        other => other.to_string(),
    }
}

fn check_runtime_markdown(md: &mut String, runs: &[CheckRuntimeRun], l: Lang) {
    use crate::check_runtime::{self, Status};
    md.push_str(&format!("| {} | {} | {} | {} |\n|---|---|---|---|\n", t(l, "node", "노드"), t(l, "when", "시점"), t(l, "verdict (exit)", "판정 (종료 코드)"), t(l, "findings", "발견")));
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
