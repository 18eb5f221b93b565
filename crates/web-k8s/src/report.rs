//! The learner's incident report: one function ([`gather`]) builds it from their
//! work — the same progress-file text the app exports — by running the steps' own
//! views on it: steps 1–2 the node's files and the containerd model's merge
//! explanation at file:line, steps 3–4 every check they ran (verdict, exit code,
//! output byte for byte), step 5 their RuntimeClass with admission and the kubelet's
//! sandbox, step 6 their node status patches and the scheduler's verdict, step 7 their
//! slot table, step 8 the rollout on their cluster ([`gpulab_model::incident::lab`]):
//! the syncs they stepped, how it ends, and their answer. Markdown
//! ([`LabReport::to_markdown`]) and JSON (serde). The chunk's step 8 and
//! `gpulab report --work progress.json` call [`from_progress`], so the page and the
//! companion print the same bytes for the same file.

use gpulab_model::containerd::MAIN_CONFIG;
use gpulab_model::incident::artifacts::{check_runtime_run, merge_artifact, SchedulerVerdict};
use gpulab_model::incident::report::{build_report, IncidentReport};
use gpulab_model::Lang;
use gpulab_model::incident::lab::{self, Ending, Variant, LEARNER_NODE};
use gpulab_model::incident::node::{self, DROPIN};
use gpulab_model::incident::work::{read_progress, LabWork};
use gpulab_model::kubernetes::{patch, yaml};
use gpulab_view::{CheckRequest, CheckRun, ContainerdFiles, KubeOutcome, KubeRequest, KubeView, NodePatch, SlotsRequest};
use serde::Serialize;

use crate::cells;
use crate::rollout::{self, MAX_SYNCS};

/// One status patch of step 6 and what the API server said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchResult {
    pub patch: NodePatch,
    /// `None`: applied; else kubectl's refusal.
    pub refused: Option<String>,
}

/// The learner's answer of step 8.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Answer {
    pub node: String,
    pub cause: String,
    /// `right`, `symptom`, `wrong-node`, `wrong-cause`.
    pub judgement: String,
}

/// A cell of step 8's kubectl outputs that the learner marked as read, the model's
/// diagnosis rests on, or both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadCell {
    /// `get-ds/3/UP-TO-DATE`, `pods/<pod>/STATUS`, `status/1` ([`crate::cells`]).
    pub key: String,
    /// Its table, row, column and text as the tables stand after the stepped syncs;
    /// empty when the tables no longer hold it (a pod since replaced).
    pub label: String,
    pub learner: bool,
    pub model: bool,
}

/// The report as data (its JSON form).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LabReport {
    /// Step 8's incident report, its artifacts gathered from the learner's run.
    pub incident: IncidentReport,
    pub node: String,
    pub containerd_version: String,
    /// The node's files (path, text), in load order.
    pub files: Vec<(String, String)>,
    pub supervisor: String,
    pub operations: Vec<String>,
    pub check_handler: String,
    pub check_keep: String,
    /// Each `run-check` of step 4, then the check on the node as step 4 left it.
    pub checks: Vec<CheckRun>,
    pub check_now: CheckRun,
    pub runtimeclass: String,
    pub kube: KubeView,
    pub patches: Vec<PatchResult>,
    pub syncs: u32,
    /// `completed`, `stalled` or `unsettled`, once every sync needed is stepped.
    pub ending: String,
    pub ending_syncs: u32,
    pub stalled_on: String,
    pub stalled_why: Vec<String>,
    pub answer: Option<Answer>,
    /// The node and cause in the learner's own words.
    pub words: String,
    /// The cells the learner marked (in their order), then the cells the model's
    /// diagnosis rests on that they did not mark. The model's side is filled once they
    /// answered.
    pub read: Vec<ReadCell>,
}

fn t(lang: Lang, en: &str, ko: &str) -> String {
    match lang {
        Lang::En => en.to_string(),
        Lang::Ko => ko.to_string(),
    }
}

fn tag(lang: Lang) -> String {
    t(lang, "en", "ko")
}

fn files(work: &LabWork) -> ContainerdFiles {
    let c = &work.containerd;
    ContainerdFiles { version: c.version.clone(), main: c.main.clone(), dropin: c.dropin.clone() }
}

/// `ending`'s name, syncs, node and root-cause texts.
pub fn ending_parts(ending: &Ending) -> (String, u32, String, Vec<String>) {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    match ending {
        Ending::Completed { syncs } => ("completed".into(), count(*syncs), String::new(), Vec::new()),
        Ending::Stalled { syncs, nodes } => {
            let node = nodes.iter().map(|n| n.node.clone()).collect::<Vec<_>>().join(", ");
            ("stalled".into(), count(*syncs), node, nodes.iter().flat_map(|n| n.texts.clone()).collect())
        }
        Ending::Unsettled => ("unsettled".into(), 0, String::new(), Vec::new()),
    }
}

/// The report of `work`'s run (the learner's own node, not "break it again").
pub fn gather(work: &LabWork, lang: Lang) -> Result<LabReport, String> {
    let (incident, _) = lab::incident(work, Variant::Learner)?;
    let (name, ending_syncs, stalled_on, stalled_why) = ending_parts(&lab::ending(&incident, lang));
    let stepped = rollout::stepped(incident.rollout.clone(), work.rollout.syncs.min(MAX_SYNCS));
    let mut at_now = incident.clone();
    at_now.rollout = stepped.rollout.clone();
    let mut artifacts = at_now.gather(lang);

    // Steps 1–2: the learner's node's merge, whether or not it holds the rollout yet.
    let daemon = node::after_step_4(work)?;
    if !artifacts.merge.iter().any(|m| m.node == LEARNER_NODE) {
        artifacts.merge.insert(0, merge_artifact(LEARNER_NODE, &daemon));
    }
    // Steps 3–4: each check the learner ran, with the model's verdict and findings.
    let (_, step_4) = node::replay_step_4(work, |d| check_runtime_run(LEARNER_NODE, "", d, &incident.check))?;
    for (i, (at, mut run)) in step_4.into_iter().enumerate() {
        run.when = format!("{} {} (t={at}s)", t(lang, "step 4, check", "4단계, 확인"), i + 1);
        artifacts.check_runtime.insert(i, run);
    }
    let check = crate::check::view(&CheckRequest {
        containerd: files(work),
        by_hand: work.restart.supervisor == "by-hand",
        ops: work.restart.ops.clone(),
        handler: work.check.handler.clone(),
        keep: work.check.keep.clone(),
        lang: tag(lang),
    })?;
    // Steps 5–6: the learner's pod, RuntimeClass and patches.
    let kube_req = KubeRequest {
        version: work.kube.version.clone(),
        cluster: work.kube.cluster.clone(),
        runtimeclass: work.kube.runtimeclass.clone(),
        pod: work.kube.pod.clone(),
        patches: work.kube.patches.iter().map(|p| NodePatch { node: p.node.clone(), resource: p.resource.clone(), quantity: p.quantity.clone() }).collect(),
        containerd: files(work),
        kubelet_node: work.kube.kubelet_node.clone(),
        node_ops: work.restart.ops.clone(),
        by_hand: work.restart.supervisor == "by-hand",
    };
    let (kube, event) = crate::kube::view_and_event(&kube_req);
    if let Some(e) = event.filter(|e| e.reason == "FailedScheduling") {
        let (pod_yaml, _) = yaml::load(crate::kube::POD, &work.kube.pod);
        let pod = pod_yaml.pods.first().and_then(|p| p.object.metadata.name.clone()).unwrap_or_default();
        artifacts.scheduler.insert(0, SchedulerVerdict { pod, reason: e.reason, source: e.from, message: e.message, count: e.count });
    }
    let (cluster, _) = yaml::load(crate::kube::CLUSTER, &work.kube.cluster);
    let mut nodes: Vec<_> = cluster.nodes.into_iter().map(|l| l.object).collect();
    let patches = kube_req
        .patches
        .iter()
        .map(|p| PatchResult { patch: p.clone(), refused: patch::apply(&mut nodes, &p.node, &p.resource, &p.quantity).err().map(|e| e.to_string()) })
        .collect();
    // Step 7: the learner's slot table.
    let s = &work.slots;
    let slots_req = SlotsRequest { gpu_model: s.gpu_model.clone(), gpus_per_node: s.gpus_per_node, nodes: s.nodes, replicas: s.replicas, config: s.config.clone(), lang: tag(lang) };
    artifacts.slots = Some(crate::slots::compute(&slots_req, &crate::slots::load_data()?));

    let r = &work.rollout;
    let answered = r.answered && !r.node.is_empty() && !r.cause.is_empty();
    let d = gpulab_model::daemonset::diagnosis::diagnose(&stepped.rollout);
    let answer = answered.then(|| Answer { node: r.node.clone(), cause: r.cause.clone(), judgement: rollout::judgement_name(rollout::judge(&d, &r.node, &r.cause)).into() });
    let evidence = if answered { rollout::evidence(&d, stepped.rounds.len()) } else { Vec::new() };
    let tables = rollout::tables(&stepped);
    let read = r
        .marks
        .iter()
        .chain(evidence.iter().filter(|k| !r.marks.contains(k)))
        .map(|k| ReadCell {
            key: k.clone(),
            label: cells::find(&tables, k).map(|c| c.label.clone()).unwrap_or_default(),
            learner: r.marks.contains(k),
            model: evidence.contains(k),
        })
        .collect();
    let version = node::version(&work.containerd)?.to_string();
    Ok(LabReport {
        incident: build_report(&stepped.rollout, &stepped.rollout, artifacts, lang),
        node: LEARNER_NODE.into(),
        containerd_version: version,
        files: vec![(MAIN_CONFIG.into(), work.containerd.main.clone()), (DROPIN.into(), work.containerd.dropin.clone())],
        supervisor: work.restart.supervisor.clone(),
        operations: work.restart.ops.clone(),
        check_handler: work.check.handler.clone(),
        check_keep: work.check.keep.clone(),
        checks: check.runs,
        check_now: check.now,
        runtimeclass: work.kube.runtimeclass.clone(),
        kube,
        patches,
        syncs: r.syncs,
        ending: name,
        ending_syncs,
        stalled_on,
        stalled_why,
        answer,
        words: r.words.clone(),
        read,
    })
}

/// The report of a progress file's text (empty: the lab's defaults).
pub fn from_progress(text: &str, lang: Lang) -> Result<LabReport, String> {
    let work = if text.trim().is_empty() { LabWork::default() } else { read_progress(text)? };
    gather(&work, lang)
}

fn fenced(md: &mut String, info: &str, text: &str) {
    // A fence longer than any backtick run inside the text.
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    md.push_str(&format!("{fence}{info}\n{text}"));
    if !text.ends_with('\n') {
        md.push('\n');
    }
    md.push_str(&format!("{fence}\n\n"));
}

impl LabReport {
    /// The report as Markdown: step 8's incident report, then the learner's run step
    /// by step.
    pub fn to_markdown(&self) -> String {
        let l = self.incident.lang;
        let mut md = self.incident.to_markdown();
        if !md.ends_with("\n\n") {
            md.push('\n');
        }
        md.push_str(&format!("## {}\n\n", t(l, "The learner's run, step by step", "학습자의 실행, 단계별")));

        md.push_str(&format!("### {}\n\n", t(l, "Steps 1–2: the node's containerd files", "1–2단계: 노드의 containerd 파일")));
        md.push_str(&format!("{} — containerd {}\n\n", self.node, self.containerd_version));
        for (path, text) in &self.files {
            md.push_str(&format!("`{path}`:\n\n"));
            fenced(&mut md, "toml", text);
        }

        md.push_str(&format!("### {}\n\n", t(l, "Steps 3–4: check-runtime.sh on the node", "3–4단계: 노드에서 check-runtime.sh")));
        let ops = if self.operations.is_empty() { t(l, "(none)", "(없음)") } else { self.operations.join(" → ") };
        md.push_str(&format!(
            "- `--handler {} --keep {}`\n- {}: {}\n- {}: {ops}\n\n",
            self.check_handler,
            self.check_keep,
            t(l, "supervisor", "감독"),
            self.supervisor,
            t(l, "operations of step 4", "4단계의 조작"),
        ));
        for (i, run) in self.checks.iter().enumerate() {
            md.push_str(&format!("{} {} (t={}s): `{}` ({} {})\n\n", t(l, "Check", "확인"), i + 1, run.at, run.verdict, t(l, "exit", "종료 코드"), run.exit_code));
            fenced(&mut md, "text", &run.output);
        }
        md.push_str(&format!("{}: `{}` ({} {})\n\n", t(l, "The node as step 4 left it", "4단계가 남긴 노드"), self.check_now.verdict, t(l, "exit", "종료 코드"), self.check_now.exit_code));
        fenced(&mut md, "text", &self.check_now.output);

        md.push_str(&format!("### {}\n\n", t(l, "Step 5: the RuntimeClass, admission and the sandbox", "5단계: RuntimeClass, 승인과 샌드박스")));
        fenced(&mut md, "yaml", &self.runtimeclass);
        match &self.kube.outcome {
            KubeOutcome::BadInput { diagnostics } => {
                for d in diagnostics {
                    md.push_str(&format!("- `{}` {} [{}]\n", d.location.clone().unwrap_or_default(), d.message, d.code));
                }
                md.push('\n');
            }
            KubeOutcome::Rejected { text } => {
                md.push_str(&format!("{}:\n\n", t(l, "`kubectl apply` refused the pod", "`kubectl apply`가 파드를 거부함")));
                fenced(&mut md, "text", text);
            }
            KubeOutcome::Created { verdict, events, sandboxes, .. } => {
                fenced(&mut md, "text", verdict);
                fenced(&mut md, "text", events);
                for s in sandboxes {
                    let started = if s.started { t(l, "sandbox started", "샌드박스 시작됨") } else { t(l, "sandbox not started", "샌드박스 시작 안 됨") };
                    md.push_str(&format!("{} {}: {started}\n\n", t(l, "The kubelet on", "kubelet:"), s.node));
                    fenced(&mut md, "text", &s.events);
                }
            }
        }

        md.push_str(&format!("### {}\n\n", t(l, "Step 6: node status patches", "6단계: 노드 상태 패치")));
        if self.patches.is_empty() {
            md.push_str(&format!("{}\n\n", t(l, "_(no patch applied)_", "_(적용한 패치 없음)_")));
        }
        for p in &self.patches {
            let cmd = format!("kubectl patch node {} --subresource=status ({}={})", p.patch.node, p.patch.resource, p.patch.quantity);
            match &p.refused {
                None => md.push_str(&format!("- `{cmd}`: {}\n", t(l, "applied", "적용됨"))),
                Some(e) => md.push_str(&format!("- `{cmd}`: {} `{e}`\n", t(l, "refused:", "거부됨:"))),
            }
        }
        md.push_str(&format!("\n{}\n\n", t(l, "The scheduler's verdict on the pod is in \"Scheduler verdicts\" above and in step 5's output.", "파드에 대한 스케줄러의 판정은 위 \"스케줄러 판정\"과 5단계 출력에 있다.")));

        md.push_str(&format!("### {}\n\n", t(l, "Step 8: the rollout on the learner's cluster", "8단계: 학습자 클러스터의 롤아웃")));
        md.push_str(&format!("- {}: {}\n", t(l, "controller syncs stepped", "진행한 컨트롤러 동기화"), self.syncs));
        let ending = match self.ending.as_str() {
            "completed" => t(l, &format!("the rollout completes after {} syncs", self.ending_syncs), &format!("동기화 {}번 뒤 롤아웃 완료", self.ending_syncs)),
            "stalled" => t(
                l,
                &format!("the rollout stalls on {} after {} syncs: {}", self.stalled_on, self.ending_syncs, self.stalled_why.join(" — ")),
                &format!("동기화 {}번 뒤 {}에서 롤아웃 정지: {}", self.ending_syncs, self.stalled_on, self.stalled_why.join(" — ")),
            ),
            _ => t(l, "the rollout neither completes nor stalls within the syncs the lab steps", "랩이 진행하는 동기화 안에서 롤아웃이 끝나지도 멈추지도 않음"),
        };
        md.push_str(&format!("- {}: {ending}\n", t(l, "with every sync stepped", "모든 동기화를 진행하면")));
        match &self.answer {
            None => md.push_str(&format!("- {}\n", t(l, "no answer submitted", "제출한 답 없음"))),
            Some(a) => md.push_str(&format!("- {}: `{}`, `{}` → `{}`\n", t(l, "the learner's answer (node, cause → judged)", "학습자의 답 (노드, 원인 → 판정)"), a.node, a.cause, a.judgement)),
        }
        if !self.words.trim().is_empty() {
            md.push_str(&format!("- {}:\n\n", t(l, "in the learner's own words", "학습자가 쓴 말")));
            for line in self.words.lines() {
                md.push_str(&format!("  > {line}\n"));
            }
            md.push('\n');
        }
        if !md.ends_with("\n\n") {
            md.push('\n');
        }
        md.push_str(&format!("#### {}\n\n", t(l, "The cells read: the learner's marks beside the model's evidence", "읽은 칸: 학습자의 표시와 모델의 근거")));
        if self.read.is_empty() {
            md.push_str(&format!("{}\n", t(l, "_(no cell marked, no answer yet)_", "_(표시한 칸 없음, 아직 답 없음)_")));
        }
        for c in &self.read {
            let cell = if c.label.is_empty() { format!("`{}` {}", c.key, t(l, "(no longer in the tables)", "(지금 표에 없음)")) } else { format!("`{}`", c.label) };
            let side = match (c.learner, c.model, self.answer.is_some()) {
                (true, true, _) => t(l, "marked — the model rests on it too (agree)", "표시함 — 모델도 이 칸을 근거로 씀 (일치)"),
                (true, false, true) => t(l, "marked — the model does not rest on it", "표시함 — 모델은 이 칸을 근거로 쓰지 않음"),
                (true, false, false) => t(l, "marked", "표시함"),
                (false, _, _) => t(l, "not marked — the model rests on it", "표시 안 함 — 모델은 이 칸을 근거로 씀"),
            };
            md.push_str(&format!("- {cell}: {side}\n"));
        }
        md
    }

    /// The report as JSON (pretty, as the companion prints `--output json`).
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string_pretty(self).map_err(|e| e.to_string())
    }
}
