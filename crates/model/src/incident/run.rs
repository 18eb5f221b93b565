//! An incident as one value: the rollout, every node's containerd daemon (the files on
//! disk and the config its last start loaded), the check the script runs, the fix a
//! learner applies, and the device plugin's config — so the report's artifacts are
//! computed from the models and the nodes' runtimes are read off the daemons, never
//! asserted.
//!
//! [`Incident::run`] is the learner's run: roll until the rollout stalls (or finishes),
//! gather the evidence at the stall (the merge of the stalled nodes' files, the check
//! before the restart, and what a restart with the files as they are would do), then,
//! when asked, fix the stalled nodes — rewrite what must be rewritten, restart
//! containerd — check again, and roll on.

use std::collections::BTreeMap;

use crate::check_runtime::simulated::NodeCheck;
use crate::containerd::Daemon;

use super::artifacts::{check_runtime_run, merge_artifact, rollout_scheduler_verdicts, slot_artifact, FixRecord, SlotInput};
use crate::daemonset::diagnosis::{diagnose, Verdict};
use crate::daemonset::node_containerd::node_runtime;
use super::report::Artifacts;
use crate::daemonset::rollout::{NodeRuntime, Rollout};
use crate::Lang;

/// `when` of the check run at the stall, before anything was restarted.
pub const BEFORE_RESTART: &str = "before-restart";
/// `when` of the check on a copy of the node restarted with its files as they are
/// (not applied to the node: it shows why a restart alone is not the fix).
pub const IF_RESTARTED_AS_IS: &str = "if-restarted-as-is";
/// `when` of the check after the fix and the restart.
pub const AFTER_RESTART: &str = "after-restart";

/// The incident: a rollout and the nodes' containerd daemons.
#[derive(Debug, Clone)]
pub struct Incident {
    pub rollout: Rollout,
    /// Node name → its own containerd daemon.
    pub daemons: BTreeMap<String, Daemon>,
    /// The daemon of every other node of the cluster, kept once: a generated or
    /// imported cluster of 5,000 identical healthy nodes costs one containerd load and
    /// one daemon's memory, not 5,000. A node gets its own copy when a fix writes to
    /// it ([`Incident::fix_nodes`]). Nodes with neither keep the runtime the rollout
    /// was given.
    pub default_daemon: Option<Daemon>,
    /// check-runtime.sh's options and the binaries on the nodes.
    pub check: NodeCheck,
    /// Files (path, content) a fix writes on a stalled node whose files would not load
    /// the handler on a restart (e.g. a drop-in carrying the whole runtimes table).
    pub fix_files: Vec<(String, String)>,
    /// The device plugin's config and GPU nodes (the slot table), when known.
    pub slots: Option<SlotInput>,
}

/// A finished run: the rollout at the end, as the learner saw it at the stall, and the
/// artifacts gathered on the way.
#[derive(Debug, Clone)]
pub struct IncidentRun {
    pub rollout: Rollout,
    pub at_stall: Rollout,
    pub artifacts: Artifacts,
}

impl Incident {
    /// A new incident; the nodes' runtimes are read off `daemons` at once.
    pub fn new(rollout: Rollout, daemons: BTreeMap<String, Daemon>) -> Self {
        Self::with_default_daemon(rollout, daemons, None)
    }

    /// A new incident where the nodes without an entry in `daemons` run `default`.
    pub fn with_default_daemon(rollout: Rollout, daemons: BTreeMap<String, Daemon>, default: Option<Daemon>) -> Self {
        let mut incident =
            Incident { rollout, daemons, default_daemon: default, check: NodeCheck::default(), fix_files: Vec::new(), slots: None };
        incident.sync_runtimes();
        incident
    }

    /// The daemon of `node`: its own, else the default one when `node` is a node of
    /// the cluster.
    pub fn daemon(&self, node: &str) -> Option<&Daemon> {
        self.daemons.get(node).or_else(|| self.default_daemon.as_ref().filter(|_| self.is_node(node)))
    }

    /// The daemon of `node` to change: the default one is copied to the node first.
    pub fn daemon_mut(&mut self, node: &str) -> Option<&mut Daemon> {
        if !self.daemons.contains_key(node) && self.is_node(node) {
            let default = self.default_daemon.clone()?;
            self.daemons.insert(node.to_string(), default);
        }
        self.daemons.get_mut(node)
    }

    fn is_node(&self, node: &str) -> bool {
        self.rollout.controller.nodes().iter().any(|n| n.metadata.name.as_deref() == Some(node))
    }

    /// The runtime handlers the cluster's RuntimeClasses name.
    pub fn handlers(&self) -> Vec<String> {
        let mut h: Vec<String> = self.rollout.runtime_classes.iter().map(|rc| rc.handler.clone()).collect();
        h.sort();
        h.dedup();
        h
    }

    /// Reads every node's runtime off its daemon (after files changed or a restart).
    pub fn sync_runtimes(&mut self) {
        let handlers = self.handlers();
        let (own, default) = node_runtimes(&self.daemons, self.default_daemon.as_ref(), &handlers);
        if let Some(default) = default {
            // Every node of the cluster without a daemon of its own runs the default one.
            let (daemons, pods) = (&self.daemons, &self.rollout.controller.pods);
            self.rollout.runtimes.retain(|n, _| daemons.contains_key(n) || pods.node_position(n).is_none());
            self.rollout.default_runtime = Some(default);
        }
        self.rollout.runtimes.extend(own);
    }

    /// Fixes `nodes`: a node whose files would load a working handler is restarted; any
    /// other gets [`Incident::fix_files`] written first. Returns what was done.
    pub fn fix_nodes(&mut self, nodes: &[String]) -> Vec<FixRecord> {
        let mut out = Vec::new();
        for node in nodes {
            let check = self.check.clone();
            let fix_files = self.fix_files.clone();
            let Some(daemon) = self.daemon_mut(node) else { continue };
            let mut trial = daemon.clone();
            trial.restart();
            let restart_is_enough = check_runtime_run(node, IF_RESTARTED_AS_IS, &trial, &check).passed;
            let mut written = Vec::new();
            if !restart_is_enough {
                for (path, content) in &fix_files {
                    daemon.write_file(path, content.as_bytes());
                    written.push(path.clone());
                }
            }
            daemon.restart();
            out.push(FixRecord { node: node.clone(), files_written: written, restarted: true });
        }
        self.sync_runtimes();
        out
    }

    /// The artifacts of the incident as it stands now: for each node holding the
    /// rollout, the merge of its files, the check, and (when it would not pass) the
    /// check after a restart with the files as they are; the scheduler's verdicts; the
    /// slot table. The app calls this on the learner's run at any sync.
    pub fn gather(&self, lang: Lang) -> Artifacts {
        let diagnosis = diagnose(&self.rollout);
        let mut artifacts = Artifacts::default();
        for node in diagnosis.stalled_nodes.iter().map(|n| &n.node) {
            let Some(daemon) = self.daemon(node) else { continue };
            artifacts.merge.push(merge_artifact(node, daemon));
            artifacts.check_runtime.push(check_runtime_run(node, BEFORE_RESTART, daemon, &self.check));
            let mut trial = daemon.clone();
            trial.restart();
            let as_is = check_runtime_run(node, IF_RESTARTED_AS_IS, &trial, &self.check);
            if !as_is.passed {
                artifacts.check_runtime.push(as_is);
            }
        }
        artifacts.scheduler = rollout_scheduler_verdicts(&self.rollout);
        if let Some(input) = &self.slots {
            match slot_artifact(input, lang) {
                Ok((table, rows)) => {
                    artifacts.slots = Some(table);
                    artifacts.slot_table = rows;
                }
                Err(e) => artifacts.errors.push(format!("slot table: {e}")),
            }
        }
        artifacts
    }

    /// The learner's run (see the module doc). `fix`: fix the stalled nodes after the
    /// stall and go on. At most `max_rounds` rounds before and after the fix.
    pub fn run(mut self, fix: bool, max_rounds: usize, lang: Lang) -> IncidentRun {
        self.sync_runtimes();
        self.rollout.run_until_settled(max_rounds);
        let at_stall = self.rollout.clone();
        let diagnosis = diagnose(&at_stall);
        let stalled: Vec<String> =
            diagnosis.stalled_nodes.iter().map(|n| n.node.clone()).filter(|n| self.daemon(n).is_some()).collect();
        let mut artifacts = self.gather(lang);
        if fix && diagnosis.verdict == Verdict::Stalled && !stalled.is_empty() {
            artifacts.fix = self.fix_nodes(&stalled);
            for node in &stalled {
                if let Some(daemon) = self.daemon(node) {
                    artifacts.check_runtime.push(check_runtime_run(node, AFTER_RESTART, daemon, &self.check));
                }
            }
            self.rollout.run_until_settled(max_rounds);
            artifacts.scheduler = rollout_scheduler_verdicts(&self.rollout);
        }
        IncidentRun { rollout: self.rollout, at_stall, artifacts }
    }
}

/// Every node's runtime read off its daemon: `daemons`' by node, and `default`'s —
/// read once, for every node of the cluster without a daemon of its own
/// ([`Rollout::default_runtime`]).
pub fn node_runtimes(
    daemons: &BTreeMap<String, Daemon>,
    default: Option<&Daemon>,
    handlers: &[String],
) -> (BTreeMap<String, NodeRuntime>, Option<NodeRuntime>) {
    let own = daemons.iter().map(|(n, d)| (n.clone(), node_runtime(d, handlers))).collect();
    (own, default.map(|d| node_runtime(d, handlers)))
}
