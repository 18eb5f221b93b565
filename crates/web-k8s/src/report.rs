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
//!
//! Why this half lives in the chunk and not in `gpulab_model::incident`: it runs the
//! chunk's own step views (`check::view`, `kube::view_and_event`, `slots::compute`) and
//! keeps their answers, whose types are the app ↔ chunk protocol (`gpulab_view`, which
//! depends on the model, so the model cannot name them). Everything it words comes from
//! the model: step 8's report ([`build_report`]), its artifacts, and every label
//! ([`gpulab_model::incident::labels`]).

use gpulab_model::containerd::MAIN_CONFIG;
use gpulab_model::incident::artifacts::{check_runtime_run, PatchStage, merge_artifact, SchedulerVerdict};
use gpulab_model::incident::labels::Label;
use gpulab_model::incident::report::{build_report, IncidentReport};
use gpulab_model::Lang;
use gpulab_model::incident::lab::{self, Ending, Variant, LEARNER_NODE};
use gpulab_model::incident::node::{self, DROPIN};
use gpulab_model::incident::work::{read_progress, LabWork};
use gpulab_model::kubernetes::events::Event;
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

/// A label of the model's report catalogue, as owned text.
fn t(lang: Lang, label: Label) -> String {
    label.text(lang).to_string()
}

fn tag(lang: Lang) -> String {
    lang.tag().to_string()
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
    let (incident, _) = lab::incident(work, Variant::Learner).map_err(|e| e.text(lang))?;
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
        run.when = format!("{} {} (t={at}s)", t(lang, Label::Step4Check), i + 1);
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
        lang: tag(lang),
        // The report is the device plugin's path, the one steps 5–8 share.
        path: String::new(),
        objects: String::new(),
    };
    let (kube, event) = crate::kube::view_and_event(&kube_req);
    artifacts.scheduler.splice(0..0, step_6_verdicts(&kube_req, event, &work.kube.pod));
    let (cluster, _) = yaml::load(crate::kube::CLUSTER, &work.kube.cluster);
    let mut nodes: Vec<_> = cluster.nodes.into_iter().map(|l| l.object).collect();
    let patches = kube_req
        .patches
        .iter()
        .map(|p| PatchResult { patch: p.clone(), refused: patch::apply(&mut nodes, &p.node, &p.resource, &p.quantity).err().map(|e| e.to_string()) })
        .collect();
    // Step 7: the learner's slot table.
    let s = &work.slots;
    let slots_req = SlotsRequest { gpu_model: s.gpu_model.clone(), gpus_per_node: s.gpus_per_node, nodes: s.nodes, replicas: s.replicas, config: s.config.clone(), lang: tag(lang), k8s_version: String::new() };
    artifacts.slots = Some(crate::slots::compute(&slots_req, &*crate::slots::load_data()?));

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
        md.push_str(&format!("## {}\n\n", t(l, Label::LearnerSRunStepStep)));

        md.push_str(&format!("### {}\n\n", t(l, Label::Steps12NodeS)));
        md.push_str(&format!("{} — containerd {}\n\n", self.node, self.containerd_version));
        for (path, text) in &self.files {
            md.push_str(&format!("`{path}`:\n\n"));
            fenced(&mut md, "toml", text);
        }

        md.push_str(&format!("### {}\n\n", t(l, Label::Steps34CheckRuntime)));
        let ops = if self.operations.is_empty() { t(l, Label::NoneListed) } else { self.operations.join(" → ") };
        md.push_str(&format!(
            "- `--handler {} --keep {}`\n- {}: {}\n- {}: {ops}\n\n",
            self.check_handler,
            self.check_keep,
            t(l, Label::Supervisor),
            self.supervisor,
            t(l, Label::OperationsStep4),
        ));
        for (i, run) in self.checks.iter().enumerate() {
            md.push_str(&format!("{} {} (t={}s): `{}` ({} {})\n\n", t(l, Label::CheckNumber), i + 1, run.at, run.verdict, t(l, Label::ExitCode), run.exit_code));
            fenced(&mut md, "text", &run.output);
        }
        md.push_str(&format!("{}: `{}` ({} {})\n\n", t(l, Label::NodeStep4Left), self.check_now.verdict, t(l, Label::ExitCode), self.check_now.exit_code));
        fenced(&mut md, "text", &self.check_now.output);

        md.push_str(&format!("### {}\n\n", t(l, Label::Step5RuntimeClassAdmissionSandbox)));
        fenced(&mut md, "yaml", &self.runtimeclass);
        match &self.kube.outcome {
            KubeOutcome::BadInput { diagnostics } => {
                for d in diagnostics {
                    md.push_str(&format!("- `{}` {} [{}]\n", d.location.clone().unwrap_or_default(), d.message, d.code));
                }
                md.push('\n');
            }
            KubeOutcome::Rejected { text } => {
                md.push_str(&format!("{}:\n\n", t(l, Label::KubectlApplyRefusedPod)));
                fenced(&mut md, "text", text);
            }
            KubeOutcome::Waiting { text } => fenced(&mut md, "text", text),
            KubeOutcome::NeedsDra {} => md.push_str(&format!("{}.\n\n", t(l, Label::DraNotInReport))),
            KubeOutcome::Created { verdict, events, sandboxes, .. } => {
                fenced(&mut md, "text", verdict);
                fenced(&mut md, "text", events);
                for s in sandboxes {
                    let started = if s.started { t(l, Label::SandboxStarted) } else { t(l, Label::SandboxNotStarted) };
                    md.push_str(&format!("{} {}: {started}\n\n", t(l, Label::KubeletOn), s.node));
                    fenced(&mut md, "text", &s.events);
                }
            }
        }

        md.push_str(&format!("### {}\n\n", t(l, Label::Step6NodeStatusPatches)));
        if self.patches.is_empty() {
            md.push_str(&format!("{}\n\n", t(l, Label::NoPatchApplied)));
        }
        for p in &self.patches {
            let cmd = format!("kubectl patch node {} --subresource=status ({}={})", p.patch.node, p.patch.resource, p.patch.quantity);
            match &p.refused {
                None => md.push_str(&format!("- `{cmd}`: {}\n", t(l, Label::Applied))),
                Some(e) => md.push_str(&format!("- `{cmd}`: {} `{e}`\n", t(l, Label::Refused))),
            }
        }
        md.push_str(&format!("\n{}\n\n", t(l, Label::SchedulerSVerdictPodScheduler)));

        md.push_str(&format!("### {}\n\n", t(l, Label::Step8RolloutLearnerS)));
        md.push_str(&format!("- {}: {}\n", t(l, Label::ControllerSyncsStepped), self.syncs));
        let ending = match self.ending.as_str() {
            "completed" => Label::RolloutCompletesAfter.fill(l, &[("syncs", &self.ending_syncs)]),
            "stalled" => Label::RolloutStallsOn.fill(l, &[("node", &self.stalled_on), ("syncs", &self.ending_syncs), ("why", &self.stalled_why.join(" — "))]),
            _ => t(l, Label::RolloutNeitherCompletesNorStalls),
        };
        md.push_str(&format!("- {}: {ending}\n", t(l, Label::WithEverySyncStepped)));
        match &self.answer {
            None => md.push_str(&format!("- {}\n", t(l, Label::NoAnswerSubmitted))),
            Some(a) => md.push_str(&format!("- {}: `{}`, `{}` → `{}`\n", t(l, Label::LearnerSAnswerNodeCause), a.node, a.cause, a.judgement)),
        }
        if !self.words.trim().is_empty() {
            md.push_str(&format!("- {}:\n\n", t(l, Label::LearnerSOwnWords)));
            for line in self.words.lines() {
                md.push_str(&format!("  > {line}\n"));
            }
            md.push('\n');
        }
        if !md.ends_with("\n\n") {
            md.push('\n');
        }
        md.push_str(&format!("#### {}\n\n", t(l, Label::CellsReadLearnerSMarks)));
        if self.read.is_empty() {
            md.push_str(&format!("{}\n", t(l, Label::NoCellMarkedNoAnswer)));
        }
        for c in &self.read {
            let cell = if c.label.is_empty() { format!("`{}` {}", c.key, t(l, Label::NoLongerTables)) } else { format!("`{}`", c.label) };
            let side = match (c.learner, c.model, self.answer.is_some()) {
                (true, true, _) => t(l, Label::MarkedModelRestsTooAgree),
                (true, false, true) => t(l, Label::MarkedModelDoesNotRest),
                (true, false, false) => t(l, Label::Marked),
                (false, _, _) => t(l, Label::NotMarkedModelRests),
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

/// The scheduler's verdicts of step 6 as the learner saw them. Without patches: the
/// pod's `FailedScheduling`, if it stayed Pending. With patches: the verdict before
/// them when it was `FailedScheduling` (what sent the learner to patch), then the one
/// after them, whatever it is — `Scheduled` included, so a pod they got scheduled does
/// not read as one that never waited.
fn step_6_verdicts(req: &KubeRequest, event: Option<Event>, pod_text: &str) -> Vec<SchedulerVerdict> {
    let (pod_yaml, _) = yaml::load(crate::kube::POD, pod_text);
    let pod = pod_yaml.pods.first().and_then(|p| p.object.metadata.name.clone()).unwrap_or_default();
    let verdict = |e: Event, stage| SchedulerVerdict { pod: pod.clone(), reason: e.reason, source: e.source, message: e.message, count: e.count, stage };
    if req.patches.is_empty() {
        return event.filter(|e| e.reason == "FailedScheduling").map(|e| verdict(e, None)).into_iter().collect();
    }
    let unpatched = KubeRequest { patches: Vec::new(), ..req.clone() };
    let before = crate::kube::view_and_event(&unpatched).1.filter(|e| e.reason == "FailedScheduling");
    let before = before.map(|e| verdict(e, Some(PatchStage::BeforePatches)));
    before.into_iter().chain(event.map(|e| verdict(e, Some(PatchStage::AfterPatches)))).collect()
}
