//! The artifacts of the earlier lab steps, computed by the models themselves for the
//! incident report — nothing here is typed in by hand:
//!
//! - step 2, the merge: [`merge_artifact`] — the containerd model's explanation of a
//!   node's files (which table a later file replaced whole, every lost key with the
//!   file:line it was set at and the file:line that replaced it, the CRI plugin's
//!   status and containerd's own log line);
//! - steps 3–4, the check: [`check_runtime_run`] — `check-runtime.sh`'s rules
//!   ([`check_runtime::evaluate`]) on the inputs the script would gather from the
//!   simulated daemon ([`check_runtime::simulated::inputs`]);
//! - step 6, the scheduler: [`scheduler_verdicts`] — `FailedScheduling` events verbatim;
//! - step 7, the slot table: [`slot_artifact`] — [`slots::slot_table`] over the device
//!   plugin's config.

use serde::{Deserialize, Serialize};

use crate::check_runtime::{self, simulated::NodeCheck};
use crate::containerd::Daemon;
use crate::slots::{self, table::Mode, Deployment, GpuModel, MigCatalog, PluginVersion, TableRequest};
use crate::Diagnostic;

use crate::kubernetes::events::Event;
use super::report::{CheckRuntimeRun, SlotRow};
use crate::daemonset::rollout::Rollout;
use crate::Lang;

/// A setting an earlier file made that a later file's table dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LostSetting {
    /// Dotted TOML key.
    pub key: String,
    /// The value as TOML.
    pub value: String,
    /// `file:line` where it was set.
    pub defined_at: Option<String>,
    /// `file:line` of the table that dropped it.
    pub lost_at: Option<String>,
}

/// A table a later file replaced whole (containerd 1.6/1.7 merge plugin tables that way).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplacedTable {
    pub table: String,
    /// `file:line` of the replacing table.
    pub by: Option<String>,
    /// `file:line` of the table it replaced.
    pub earlier: Option<String>,
    pub lost: Vec<LostSetting>,
}

/// The merge of one node's config files on disk (step 2), as the containerd model explains it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeArtifact {
    pub node: String,
    pub containerd_version: String,
    /// The files in load order.
    pub files: Vec<String>,
    pub replaced: Vec<ReplacedTable>,
    /// The CRI plugin a start with these files gives: `ok`, `error`, `daemon-exited`.
    pub cri_status: String,
    /// containerd's log line for the CRI plugin failure, verbatim (upstream text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cri_error_line: Option<String>,
    /// The daemon's fatal line when it would exit, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon_exit: Option<String>,
    /// Runtime handlers the running daemon loaded, and those the files define.
    pub loaded_handlers: Vec<String>,
    pub file_handlers: Vec<String>,
    /// The files changed after the daemon's last start.
    pub stale: bool,
    /// The merge's diagnostics (codes, args, both spans).
    pub diagnostics: Vec<Diagnostic>,
}

/// `FailedScheduling` (or another scheduler verdict) for a pod, verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerVerdict {
    pub pod: String,
    pub reason: String,
    pub source: String,
    /// The scheduler's message, byte for byte.
    pub message: String,
    pub count: u32,
    /// Where in step 6 the learner saw it, when they patched node status there: the
    /// verdict before their patches and the one after are both theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<PatchStage>,
}

/// Before or after the learner's `kubectl patch node --subresource=status` of step 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatchStage {
    BeforePatches,
    AfterPatches,
}

/// What was done to fix a stalled node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FixRecord {
    pub node: String,
    /// Files rewritten before the restart.
    pub files_written: Vec<String>,
    /// `systemctl restart containerd` was run.
    pub restarted: bool,
}

/// The step-2 artifact of `daemon`'s files on disk (what the next start would load).
pub fn merge_artifact(node: &str, daemon: &Daemon) -> MergeArtifact {
    let result = daemon.on_disk();
    let e = &result.explanation;
    let replaced = e
        .replaced
        .iter()
        .map(|r| ReplacedTable {
            table: r.table.clone(),
            by: r.by.clone(),
            earlier: r.earlier.clone(),
            lost: r
                .lost
                .iter()
                .map(|l| LostSetting { key: l.key.clone(), value: l.value.clone(), defined_at: l.defined_at.clone(), lost_at: l.lost_at.clone() })
                .collect(),
        })
        .collect();
    MergeArtifact {
        node: node.into(),
        containerd_version: daemon.version.to_string(),
        files: e.files.clone(),
        replaced,
        cri_status: e.cri_status.clone(),
        cri_error_line: result.start.cri_error_line().map(str::to_string),
        daemon_exit: e.daemon_exit.clone(),
        loaded_handlers: daemon.runtime_handlers(),
        file_handlers: result.runtime_handlers(),
        stale: daemon.loaded_config_is_stale(),
        diagnostics: result.diagnostics.clone(),
    }
}

/// check-runtime.sh on the simulated node now: its verdict, exit status and findings.
pub fn check_runtime_run(node: &str, when: &str, daemon: &Daemon, check: &NodeCheck) -> CheckRuntimeRun {
    let report = check_runtime::evaluate(&check_runtime::simulated::inputs(daemon, check));
    let decisive = report
        .findings
        .iter()
        .find(|f| f.check == 1 && f.status == check_runtime::Status::Fail)
        .or_else(|| report.findings.iter().find(|f| f.status == check_runtime::Status::Restart))
        .or_else(|| report.findings.iter().find(|f| f.status == check_runtime::Status::Fail));
    let reason = match decisive {
        Some(f) => check_runtime::message(f, Lang::En),
        None => check_runtime::verdict_text(report.verdict, &check.handler, Lang::En),
    };
    CheckRuntimeRun {
        node: node.into(),
        when: when.into(),
        passed: report.verdict == check_runtime::Verdict::Pass,
        reason,
        verdict: report.verdict.as_str().into(),
        exit: report.verdict.exit_code(),
        findings: report.findings,
    }
}

/// The scheduler's verdicts among `events` (reason `FailedScheduling`), one per pod and message.
pub fn scheduler_verdicts<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<SchedulerVerdict> {
    let mut out: Vec<SchedulerVerdict> = Vec::new();
    for e in events.into_iter().filter(|e| e.reason == "FailedScheduling") {
        let pod = e.involved_object.strip_prefix("Pod/").unwrap_or(&e.involved_object).to_string();
        if let Some(v) = out.iter_mut().find(|v| v.pod == pod && v.message == e.message) {
            v.count += e.count;
            continue;
        }
        out.push(SchedulerVerdict { pod, reason: e.reason.clone(), source: e.source.clone(), message: e.message.clone(), count: e.count, stage: None });
    }
    out
}

/// The scheduler verdicts of a rollout's daemon pods.
pub fn rollout_scheduler_verdicts(rollout: &Rollout) -> Vec<SchedulerVerdict> {
    scheduler_verdicts(&rollout.controller.events.events)
}

/// The device plugin's config and the GPU nodes it runs on: the slot table's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SlotInput {
    /// The config file's name, as the plugin's errors cite it.
    pub file: String,
    pub text: String,
    /// The GPU model (e.g. `NVIDIA A100-SXM4-40GB`).
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: Vec<String>,
}

/// The slot table (step 7) of `input`: the config's row, no sharing, and MPS at the
/// same replica count, with one [`SlotRow`] per node for the report's summary.
pub fn slot_artifact(input: &SlotInput, lang: Lang) -> Result<(slots::SlotTable, Vec<SlotRow>), String> {
    let catalog = MigCatalog::embedded()?;
    let model = GpuModel::known(&input.gpu_model)?.ok_or_else(|| format!("unknown GPU model {:?}", input.gpu_model))?;
    let nodes = u32::try_from(input.nodes.len()).map_err(|_| "too many nodes".to_string())?;
    let mut req = TableRequest {
        model,
        gpus_per_node: input.gpus_per_node,
        nodes,
        config: Some((input.file.clone(), input.text.clone())),
        mig: None,
        modes: vec![Mode::Config],
        version: PluginVersion::REFERENCE,
        deployment: Deployment::default(),
    };
    let config_only = slots::slot_table(&req, &catalog, lang);
    let config_row = config_only.rows.first().ok_or("the slot model gave no row for the config")?;
    let replicas = config_row.seats_per_gpu.and_then(|s| u32::try_from(s).ok()).unwrap_or(1).max(1);
    let memory = match config_row.guaranteed_memory_mib.first().and_then(|(_, m)| *m) {
        Some(0) => "0".to_string(),
        Some(m) => format!("{m} MiB"),
        None => "-".to_string(),
    };
    let rows = input
        .nodes
        .iter()
        .map(|n| SlotRow {
            node: n.clone(),
            gpu: input.gpu_model.clone(),
            physical_gpus: input.gpus_per_node,
            replicas,
            seats: u32::try_from(config_row.seats_per_node).unwrap_or(u32::MAX),
            guaranteed_memory_per_seat: memory.clone(),
        })
        .collect();
    req.modes = vec![Mode::Config, Mode::None, Mode::Mps { replicas }];
    Ok((slots::slot_table(&req, &catalog, lang), rows))
}
