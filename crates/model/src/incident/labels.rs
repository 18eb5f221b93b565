//! The incident report's labels and sentences in one catalogue: each label is an id
//! with its English and its Korean, so the report code (the model's [`super::report`]
//! and the chunk's learner's report) writes no language inline. Sentences take `{name}`
//! placeholders, filled by [`Label::fill`] with [`crate::korean::fill`], which also
//! chooses a Korean particle written after a placeholder (`{file}이(가)`) by the value.
//!
//! The diagnosis codes' sentences are a catalogue of their own ([`super::text`]): they
//! are keyed by the diagnosis's stable codes, not by the report's layout. Upstream texts
//! (kubectl, containerd, the scheduler) are never here: they are data, shown verbatim.

use std::fmt::Display;

use crate::Lang;

/// A label or sentence of the incident report. The `match` in [`Label::texts`] is
/// exhaustive, so a label without both languages does not compile; the table test
/// checks that both are written and take the same placeholders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    BeforeNodePatches,
    AfterNodePatches,
    ContainerdRestartedOn,
    NodeContainerdRestarted,
    NodeFilesRewrittenRestarted,
    NodeFilesRewritten,
    DeletedOldPod,
    CreatedPod,
    PodRunningReady,
    PodSandboxFailed,
    NoProgressRolloutStalled,
    RolloutComplete,
    SummaryComplete,
    SummaryProgressing,
    TitleStalled,
    TitleComplete,
    TitleProgressing,
    RestartContainerdOnNode,
    CreateMissingRuntimeClassOrDrop,
    IfPodDoesNotRecover,
    WatchRestKubectlRolloutStatus,
    PreventGateDaemonSetUpdatesNeed,
    Summary,
    Timeline,
    TimeUTC,
    SinceUpdate,
    WhatHappened,
    WhatStatusColumnsSaid,
    Unavailable,
    VerdictHeading,
    VerdictStalled,
    VerdictComplete,
    VerdictProgressing,
    StalledNode,
    CauseChainSymptomFirstRoot,
    Evidence,
    AfterContainerdWasRestartedNode,
    ArtifactsFromEarlierSteps,
    NotGatheredRun,
    ContainerdMergeStep2,
    CheckRuntimeShVerdictsSteps,
    SchedulerVerdictsSteps56,
    NoPodRunWasLeft,
    TimeSlicingSlotTableStep,
    NodeColumn,
    Physical,
    Seats,
    GuaranteedMemorySeat,
    NotComputed,
    NextActions,
    FilesLoadOrder,
    LostKey,
    ValueColumn,
    SetAt,
    LostAt,
    NoTableReplacedWhole,
    StallBeforeRestart,
    IfRestartedWithFilesThey,
    AfterFixRestart,
    WhenColumn,
    VerdictExit,
    Findings,
    Step4Check,
    LearnerSRunStepStep,
    Steps12NodeS,
    Steps34CheckRuntime,
    NoneListed,
    Supervisor,
    OperationsStep4,
    CheckNumber,
    ExitCode,
    NodeStep4Left,
    Step5RuntimeClassAdmissionSandbox,
    KubectlApplyRefusedPod,
    DraNotInReport,
    SandboxStarted,
    SandboxNotStarted,
    KubeletOn,
    Step6NodeStatusPatches,
    NoPatchApplied,
    Applied,
    Refused,
    SchedulerSVerdictPodScheduler,
    Step8RolloutLearnerS,
    ControllerSyncsStepped,
    RolloutNeitherCompletesNorStalls,
    WithEverySyncStepped,
    NoAnswerSubmitted,
    LearnerSAnswerNodeCause,
    LearnerSOwnWords,
    CellsReadLearnerSMarks,
    NoCellMarkedNoAnswer,
    NoLongerTables,
    MarkedModelRestsTooAgree,
    MarkedModelDoesNotRest,
    Marked,
    NotMarkedModelRests,
    SummaryStalled,
    SummaryBudgetUsed,
    SummaryBudgetLeft,
    SummaryFixed,
    DoNotRestartYet,
    FixRestarted,
    FixRewrittenRestarted,
    TableReplacedWhole,
    HandlersLoadedAndDefined,
    FilesChangedSinceStart,
    CriStatusOnStart,
    RolloutCompletesAfter,
    RolloutStallsOn,
    ReadingDesiredEqualsCurrent,
    ReadingReadyBelowDesired,
    ReadingUpToDateBelowDesired,
}

impl Label {
    /// Every label (the table test walks it).
    pub const ALL: [Label; 113] = [Label::BeforeNodePatches, Label::AfterNodePatches, Label::ContainerdRestartedOn, Label::NodeContainerdRestarted, Label::NodeFilesRewrittenRestarted, Label::NodeFilesRewritten, Label::DeletedOldPod, Label::CreatedPod, Label::PodRunningReady, Label::PodSandboxFailed, Label::NoProgressRolloutStalled, Label::RolloutComplete, Label::SummaryComplete, Label::SummaryProgressing, Label::TitleStalled, Label::TitleComplete, Label::TitleProgressing, Label::RestartContainerdOnNode, Label::CreateMissingRuntimeClassOrDrop, Label::IfPodDoesNotRecover, Label::WatchRestKubectlRolloutStatus, Label::PreventGateDaemonSetUpdatesNeed, Label::Summary, Label::Timeline, Label::TimeUTC, Label::SinceUpdate, Label::WhatHappened, Label::WhatStatusColumnsSaid, Label::Unavailable, Label::VerdictHeading, Label::VerdictStalled, Label::VerdictComplete, Label::VerdictProgressing, Label::StalledNode, Label::CauseChainSymptomFirstRoot, Label::Evidence, Label::AfterContainerdWasRestartedNode, Label::ArtifactsFromEarlierSteps, Label::NotGatheredRun, Label::ContainerdMergeStep2, Label::CheckRuntimeShVerdictsSteps, Label::SchedulerVerdictsSteps56, Label::NoPodRunWasLeft, Label::TimeSlicingSlotTableStep, Label::NodeColumn, Label::Physical, Label::Seats, Label::GuaranteedMemorySeat, Label::NotComputed, Label::NextActions, Label::FilesLoadOrder, Label::LostKey, Label::ValueColumn, Label::SetAt, Label::LostAt, Label::NoTableReplacedWhole, Label::StallBeforeRestart, Label::IfRestartedWithFilesThey, Label::AfterFixRestart, Label::WhenColumn, Label::VerdictExit, Label::Findings, Label::Step4Check, Label::LearnerSRunStepStep, Label::Steps12NodeS, Label::Steps34CheckRuntime, Label::NoneListed, Label::Supervisor, Label::OperationsStep4, Label::CheckNumber, Label::ExitCode, Label::NodeStep4Left, Label::Step5RuntimeClassAdmissionSandbox, Label::KubectlApplyRefusedPod, Label::DraNotInReport, Label::SandboxStarted, Label::SandboxNotStarted, Label::KubeletOn, Label::Step6NodeStatusPatches, Label::NoPatchApplied, Label::Applied, Label::Refused, Label::SchedulerSVerdictPodScheduler, Label::Step8RolloutLearnerS, Label::ControllerSyncsStepped, Label::RolloutNeitherCompletesNorStalls, Label::WithEverySyncStepped, Label::NoAnswerSubmitted, Label::LearnerSAnswerNodeCause, Label::LearnerSOwnWords, Label::CellsReadLearnerSMarks, Label::NoCellMarkedNoAnswer, Label::NoLongerTables, Label::MarkedModelRestsTooAgree, Label::MarkedModelDoesNotRest, Label::Marked, Label::NotMarkedModelRests, Label::SummaryStalled, Label::SummaryBudgetUsed, Label::SummaryBudgetLeft, Label::SummaryFixed, Label::DoNotRestartYet, Label::FixRestarted, Label::FixRewrittenRestarted, Label::TableReplacedWhole, Label::HandlersLoadedAndDefined, Label::FilesChangedSinceStart, Label::CriStatusOnStart, Label::RolloutCompletesAfter, Label::RolloutStallsOn, Label::ReadingDesiredEqualsCurrent, Label::ReadingReadyBelowDesired, Label::ReadingUpToDateBelowDesired];

    /// The English and the Korean of the label.
    pub const fn texts(self) -> (&'static str, &'static str) {
        use Label::*;
        match self {
            ContainerdRestartedOn => ("containerd restarted on {nodes}", "{nodes}의 containerd 재시작"),
            NodeContainerdRestarted => ("{n}: containerd restarted", "{n}: containerd 재시작"),
            NodeFilesRewrittenRestarted => ("{n}: {files} rewritten, containerd restarted", "{n}: {files} 수정, containerd 재시작"),
            NodeFilesRewritten => ("{n}: {files} rewritten", "{n}: {files} 수정"),
            DeletedOldPod => ("deleted old pod {pod} on {node}", "{node}의 옛 파드 {pod} 삭제"),
            CreatedPod => ("created {pod} on {node}", "{node}에 {pod} 생성"),
            PodRunningReady => ("{pod} Running and Ready", "{pod} Running, Ready"),
            PodSandboxFailed => ("{pod}: FailedCreatePodSandBox", "{pod}: FailedCreatePodSandBox"),
            NoProgressRolloutStalled => ("no progress: the rollout is stalled", "진행 없음: 롤아웃이 멈췄다"),
            RolloutComplete => ("rollout complete", "롤아웃 완료"),
            SummaryComplete => ("The rolling update of DaemonSet {namespace}/{name} completed.", "DaemonSet {namespace}/{name}의 롤링 업데이트가 끝났다."),
            SummaryProgressing => ("The rolling update of DaemonSet {namespace}/{name} is still in progress.", "DaemonSet {namespace}/{name}의 롤링 업데이트가 아직 진행 중이다."),
            TitleStalled => ("Incident report: DaemonSet {name} rollout stalled", "장애 보고서: DaemonSet {name} 롤아웃 정지"),
            TitleComplete => ("Incident report: DaemonSet {name} rollout completed", "장애 보고서: DaemonSet {name} 롤아웃 완료"),
            TitleProgressing => ("Incident report: DaemonSet {name} rollout in progress", "장애 보고서: DaemonSet {name} 롤아웃 진행 중"),
            RestartContainerdOnNode => ("On {n}: `sudo systemctl restart containerd` (not SIGHUP), then run check-runtime.sh and confirm the loaded config has the handler.", "{n}에서 `sudo systemctl restart containerd`(SIGHUP 아님) 후 check-runtime.sh로 로드된 설정에 핸들러가 있는지 확인한다."),
            CreateMissingRuntimeClassOrDrop => ("Create the missing RuntimeClass, or drop runtimeClassName from the template.", "없는 RuntimeClass를 만들거나 템플릿에서 runtimeClassName을 뺀다."),
            IfPodDoesNotRecover => ("If the pod does not recover by itself: `kubectl delete pod {pod} -n {namespace}` (the controller recreates it).", "파드가 스스로 회복하지 않으면 `kubectl delete pod {pod} -n {namespace}`(컨트롤러가 다시 만든다)."),
            WatchRestKubectlRolloutStatus => ("Watch the rest: `kubectl rollout status ds/{name} -n {namespace} --timeout=5m` (a DaemonSet has no progress deadline).", "나머지를 지켜본다: `kubectl rollout status ds/{name} -n {namespace} --timeout=5m`(DaemonSet에는 progress deadline이 없다)."),
            PreventGateDaemonSetUpdatesNeed => ("Prevent: gate DaemonSet updates that need a runtime handler on check-runtime.sh passing on every node, and always give `rollout status` a --timeout in CI.", "재발 방지: 런타임 핸들러가 필요한 DaemonSet 업데이트는 모든 노드에서 check-runtime.sh가 통과할 때만 진행하고, CI의 `rollout status`에는 항상 --timeout을 준다."),
            Summary => ("Summary", "요약"),
            Timeline => ("Timeline", "타임라인"),
            TimeUTC => ("time (UTC)", "시각 (UTC)"),
            SinceUpdate => ("since update", "업데이트 후"),
            WhatHappened => ("what happened", "일어난 일"),
            WhatStatusColumnsSaid => ("What the status columns said", "상태 열이 말한 것"),
            Unavailable => ("unavailable", "사용 불가"),
            VerdictHeading => ("Verdict", "판정"),
            VerdictStalled => ("**Stalled**", "**정지**"),
            VerdictComplete => ("**Complete**", "**완료**"),
            VerdictProgressing => ("**Progressing**", "**진행 중**"),
            StalledNode => ("Stalled node:", "멈춘 노드:"),
            CauseChainSymptomFirstRoot => ("Cause chain, symptom first, root last:", "원인 사슬 (증상 → 근본 원인):"),
            Evidence => ("evidence", "근거"),
            AfterContainerdWasRestartedNode => ("After containerd was restarted on the node, the sandbox was created and the rollout finished.", "노드의 containerd를 재시작하자 샌드박스가 만들어지고 롤아웃이 끝났다."),
            ArtifactsFromEarlierSteps => ("Artifacts from the earlier steps", "앞 단계의 산출물"),
            NotGatheredRun => ("_(not gathered in this run)_", "_(이번 실행에서 모으지 않음)_"),
            ContainerdMergeStep2 => ("containerd merge (step 2)", "containerd 병합 (2단계)"),
            CheckRuntimeShVerdictsSteps => ("check-runtime.sh verdicts (steps 3–4)", "check-runtime.sh 판정 (3–4단계)"),
            SchedulerVerdictsSteps56 => ("Scheduler verdicts (steps 5–6)", "스케줄러 판정 (5–6단계)"),
            BeforeNodePatches => ("before the node status patches of step 6", "6단계 노드 상태 패치 전"),
            AfterNodePatches => ("after the node status patches of step 6", "6단계 노드 상태 패치 후"),
            NoPodRunWasLeft => ("_(no pod of this run was left Pending by the scheduler)_", "_(이번 실행에서 스케줄러가 Pending으로 남긴 파드 없음)_"),
            TimeSlicingSlotTableStep => ("Time-slicing slot table (step 7)", "타임슬라이싱 좌석표 (7단계)"),
            NodeColumn => ("node", "노드"),
            Physical => ("physical", "물리 GPU"),
            Seats => ("seats", "좌석"),
            GuaranteedMemorySeat => ("guaranteed memory / seat", "좌석당 보장 메모리"),
            NotComputed => ("not computed", "계산하지 못함"),
            NextActions => ("Next actions", "다음 조치"),
            FilesLoadOrder => ("files in load order", "로드 순서의 파일"),
            LostKey => ("lost key", "사라진 키"),
            ValueColumn => ("value", "값"),
            SetAt => ("set at", "설정 위치"),
            LostAt => ("lost at", "사라진 위치"),
            NoTableReplacedWhole => ("No table is replaced whole.", "통째로 대체된 테이블이 없다."),
            StallBeforeRestart => ("at the stall, before the restart", "정지 시점, 재시작 전"),
            IfRestartedWithFilesThey => ("if restarted with the files as they are (simulated on a copy, not applied)", "지금 파일 그대로 재시작한다면 (사본에서 시뮬레이션, 적용 안 함)"),
            AfterFixRestart => ("after the fix and the restart", "수정과 재시작 후"),
            WhenColumn => ("when", "시점"),
            VerdictExit => ("verdict (exit)", "판정 (종료 코드)"),
            Findings => ("findings", "발견"),
            Step4Check => ("step 4, check", "4단계, 확인"),
            LearnerSRunStepStep => ("The learner's run, step by step", "학습자의 실행, 단계별"),
            Steps12NodeS => ("Steps 1–2: the node's containerd files", "1–2단계: 노드의 containerd 파일"),
            Steps34CheckRuntime => ("Steps 3–4: check-runtime.sh on the node", "3–4단계: 노드에서 check-runtime.sh"),
            NoneListed => ("(none)", "(없음)"),
            Supervisor => ("supervisor", "감독"),
            OperationsStep4 => ("operations of step 4", "4단계의 조작"),
            CheckNumber => ("Check", "확인"),
            ExitCode => ("exit", "종료 코드"),
            NodeStep4Left => ("The node as step 4 left it", "4단계가 남긴 노드"),
            Step5RuntimeClassAdmissionSandbox => ("Step 5: the RuntimeClass, admission and the sandbox", "5단계: RuntimeClass, 승인과 샌드박스"),
            KubectlApplyRefusedPod => ("`kubectl apply` refused the pod", "`kubectl apply`가 파드를 거부함"),
            DraNotInReport => (
                "The files hold DRA objects (or the pod ResourceClaims): the report follows the device plugin's path and does not schedule them; step 6's DRA path shows the verdict",
                "파일에 DRA 객체(또는 파드의 ResourceClaim)가 있습니다. 보고서는 디바이스 플러그인 경로를 따르며 이를 스케줄하지 않습니다. 판정은 6단계의 DRA 경로에서 볼 수 있습니다",
            ),
            SandboxStarted => ("sandbox started", "샌드박스 시작됨"),
            SandboxNotStarted => ("sandbox not started", "샌드박스 시작 안 됨"),
            KubeletOn => ("The kubelet on", "kubelet:"),
            Step6NodeStatusPatches => ("Step 6: node status patches", "6단계: 노드 상태 패치"),
            NoPatchApplied => ("_(no patch applied)_", "_(적용한 패치 없음)_"),
            Applied => ("applied", "적용됨"),
            Refused => ("refused:", "거부됨:"),
            SchedulerSVerdictPodScheduler => ("The scheduler's verdict on the pod is in \"Scheduler verdicts\" above and in step 5's output.", "파드에 대한 스케줄러의 판정은 위 \"스케줄러 판정\"과 5단계 출력에 있다."),
            Step8RolloutLearnerS => ("Step 8: the rollout on the learner's cluster", "8단계: 학습자 클러스터의 롤아웃"),
            ControllerSyncsStepped => ("controller syncs stepped", "진행한 컨트롤러 동기화"),
            RolloutNeitherCompletesNorStalls => ("the rollout neither completes nor stalls within the syncs the lab steps", "랩이 진행하는 동기화 안에서 롤아웃이 끝나지도 멈추지도 않음"),
            WithEverySyncStepped => ("with every sync stepped", "모든 동기화를 진행하면"),
            NoAnswerSubmitted => ("no answer submitted", "제출한 답 없음"),
            LearnerSAnswerNodeCause => ("the learner's answer (node, cause → judged)", "학습자의 답 (노드, 원인 → 판정)"),
            LearnerSOwnWords => ("in the learner's own words", "학습자가 쓴 말"),
            CellsReadLearnerSMarks => ("The cells read: the learner's marks beside the model's evidence", "읽은 칸: 학습자의 표시와 모델의 근거"),
            NoCellMarkedNoAnswer => ("_(no cell marked, no answer yet)_", "_(표시한 칸 없음, 아직 답 없음)_"),
            NoLongerTables => ("(no longer in the tables)", "(지금 표에 없음)"),
            MarkedModelRestsTooAgree => ("marked — the model rests on it too (agree)", "표시함 — 모델도 이 칸을 근거로 씀 (일치)"),
            MarkedModelDoesNotRest => ("marked — the model does not rest on it", "표시함 — 모델은 이 칸을 근거로 쓰지 않음"),
            Marked => ("marked", "표시함"),
            NotMarkedModelRests => ("not marked — the model rests on it", "표시 안 함 — 모델은 이 칸을 근거로 씀"),
            SummaryStalled => ("The rolling update of DaemonSet {namespace}/{name} stalled: node {nodes} never got a Ready pod of the new revision{why} `kubectl rollout status` kept printing `{status}`.{after}", "DaemonSet {namespace}/{name}의 롤링 업데이트가 멈췄다. 노드 {nodes}에서 새 리비전 파드가 끝내 Ready가 되지 않{why} `kubectl rollout status`는 `{status}`만 출력했다.{after}"),
            SummaryBudgetUsed => (", which used up maxUnavailable {max};", "아 maxUnavailable {max}을(를) 다 썼고,"),
            SummaryBudgetLeft => ("; maxUnavailable {max} let the other nodes update, but the rollout cannot finish without it, and", "았다. maxUnavailable {max} 덕분에 다른 노드는 업데이트됐지만 그 노드 없이는 롤아웃이 끝나지 않아,"),
            SummaryFixed => (" After the fix the rollout finished.", " 조치 후 롤아웃이 끝났다."),
            DoNotRestartYet => ("On {n}: do not restart yet. {file} replaces {table} whole on containerd {version}, so a restart with the files as they are fails the CRI plugin: make the drop-in carry the whole runtimes table (runc and its options kept, nvidia added), and check `containerd config dump` first.", "{n}: 아직 재시작하지 않는다. containerd {version}에서 {file}이(가) {table}을(를) 통째로 대체하므로 지금 파일 그대로 재시작하면 CRI 플러그인이 실패한다. 드롭인이 런타임 테이블 전체(runc와 그 옵션 유지, nvidia 추가)를 담도록 고치고 먼저 `containerd config dump`로 확인한다."),
            FixRestarted => ("Fix applied on {node}: containerd restarted (`systemctl restart containerd`).", "{node}에 적용한 조치: containerd 재시작(`systemctl restart containerd`)."),
            FixRewrittenRestarted => ("Fix applied on {node}: {files} rewritten to carry the whole runtimes table, then containerd restarted (`systemctl restart containerd`).", "{node}에 적용한 조치: {files}을(를) 런타임 테이블 전체를 담도록 고친 뒤 containerd 재시작(`systemctl restart containerd`)."),
            TableReplacedWhole => ("The table `{table}` defined at `{earlier}` is replaced whole at `{by}`; {lost} setting(s) of the earlier file are lost:\n\n", "`{earlier}`에 정의된 테이블 `{table}`이(가) `{by}`에서 통째로 대체되어 앞 파일의 설정 {lost}개가 사라진다:\n\n"),
            HandlersLoadedAndDefined => ("- Handlers the running daemon loaded: {loaded}; handlers the files define: {defined}{stale}.\n", "- 실행 중인 데몬이 로드한 핸들러: {loaded}, 파일이 정의하는 핸들러: {defined}{stale}.\n"),
            FilesChangedSinceStart => (" (the files changed after the daemon's last start)", " (데몬의 마지막 시작 뒤 파일이 바뀌었다)"),
            CriStatusOnStart => ("- The CRI plugin a start with these files gives: **{status}**.\n", "- 이 파일로 시작하면 CRI 플러그인 상태: **{status}**.\n"),
            RolloutCompletesAfter => ("the rollout completes after {syncs} syncs", "동기화 {syncs}번 뒤 롤아웃 완료"),
            RolloutStallsOn => ("the rollout stalls on {node} after {syncs} syncs: {why}", "동기화 {syncs}번 뒤 {node}에서 롤아웃 정지: {why}"),
            ReadingDesiredEqualsCurrent => ("- DESIRED = CURRENT: every node has a daemon pod; the pods exist.\n", "- DESIRED = CURRENT: 모든 노드에 데몬 파드가 있다. 파드는 존재한다.\n"),
            ReadingReadyBelowDesired => ("- READY / AVAILABLE below DESIRED: a pod exists but is not Ready.\n", "- READY / AVAILABLE < DESIRED: 파드는 있지만 Ready가 아니다.\n"),
            ReadingUpToDateBelowDesired => ("- UP-TO-DATE below DESIRED: old pods are still waiting to be replaced.\n", "- UP-TO-DATE < DESIRED: 아직 교체를 기다리는 옛 파드가 있다.\n"),
        }
    }

    /// The label in `lang`, as written (placeholders unfilled).
    pub const fn text(self, lang: Lang) -> &'static str {
        let (en, ko) = self.texts();
        match lang {
            Lang::En => en,
            Lang::Ko => ko,
        }
    }

    /// The label in `lang` with its placeholders filled from `args` (a Korean particle
    /// after a placeholder chosen by the value).
    pub fn fill(self, lang: Lang, args: &[(&str, &dyn Display)]) -> String {
        let values: Vec<(&str, String)> = args.iter().map(|(k, v)| (*k, v.to_string())).collect();
        crate::korean::fill(self.text(lang), |name| values.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::Label;
    use crate::Lang;

    fn placeholders(text: &str) -> Vec<&str> {
        let mut names: Vec<&str> = text.split('{').skip(1).filter_map(|s| s.split_once('}').map(|(n, _)| n)).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    fn hangul(text: &str) -> bool {
        text.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c))
    }

    /// Every label has both languages written, the same placeholders in each, no
    /// Hangul in its English, no particle notation in its English, and is listed once in `ALL`.
    #[test]
    fn every_label_has_english_and_korean() {
        for (i, label) in Label::ALL.iter().enumerate() {
            let (en, ko) = label.texts();
            assert!(!en.is_empty() && !ko.is_empty(), "{label:?}: a language is empty");
            assert_eq!(placeholders(en), placeholders(ko), "{label:?}: placeholders differ");
            assert!(!hangul(en), "{label:?}: Korean in the English text");
            assert!(!crate::korean::NOTATIONS.iter().any(|n| en.contains(n)), "{label:?}: a particle notation in English");
            assert!(!Label::ALL[..i].contains(label), "{label:?} listed twice in ALL");
            assert_eq!(label.text(Lang::En), en);
            assert_eq!(label.text(Lang::Ko), ko);
        }
    }

    /// A sentence is filled in both languages, the Korean particle chosen by the value.
    #[test]
    fn fill_chooses_the_particle() {
        let args: [(&str, &dyn std::fmt::Display); 2] = [("node", &"gpu-node-2"), ("files", &"`/etc/containerd/conf.d/99-nvidia.toml`")];
        assert_eq!(
            Label::FixRewrittenRestarted.fill(Lang::Ko, &args),
            "gpu-node-2에 적용한 조치: `/etc/containerd/conf.d/99-nvidia.toml`을 런타임 테이블 전체를 담도록 고친 뒤 containerd 재시작(`systemctl restart containerd`)."
        );
        assert_eq!(Label::SummaryBudgetUsed.fill(Lang::Ko, &[("max", &1)]), "아 maxUnavailable 1을 다 썼고,");
        assert_eq!(Label::SummaryBudgetUsed.fill(Lang::En, &[("max", &2)]), ", which used up maxUnavailable 2;");
    }
}
