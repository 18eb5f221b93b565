//! The model as a backend: each node's containerd is a [`containerd::Daemon`] (the
//! files on disk versus the config its last start loaded), the check is
//! [`check_runtime::evaluate`] on [`check_runtime::simulated::inputs`], and the cluster
//! is [`super::cluster::Cluster`] over the Kubernetes and DaemonSet models. Time is
//! the scenario's own clock (seconds); nothing reads a real one.
//!
//! A scenario observes several containerd fields of a node between two actions
//! (`check` and `check_codes`, the three `dump_*`): each node keeps what the last
//! observation computed (the check's report, the dump's runtime tables) beside the
//! inputs it was computed from, answers the next field from it while those inputs are
//! equal, and drops it at every action.

use std::sync::{Arc, OnceLock};

use crate::check_runtime::{self, simulated::NodeCheck, CheckInputs, CheckReport, RuntimeTables, Status};
use crate::containerd::{self, CommandOutput, Daemon, Files, Signal};

use super::engine::{Backend, Unobservable};
use super::expect::{Domain, Field, Observed};
use super::format::{Action, NodeSpec, Scenario};

/// One node of the model.
#[derive(Debug, Clone)]
pub struct ModelNode {
    pub spec: NodeSpec,
    pub daemon: Daemon,
    pub check: NodeCheck,
    /// What observing the node computed, for the next field (see the module doc).
    kept: Kept,
}

impl ModelNode {
    pub fn new(spec: NodeSpec, daemon: Daemon, check: NodeCheck) -> Self {
        ModelNode { spec, daemon, check, kept: Kept::default() }
    }
}

/// The check's report with the inputs it read, and the `config dump` output with its
/// runtime tables; each filled at the first observation that needs it.
#[derive(Debug, Clone, Default)]
struct Kept {
    check: OnceLock<Arc<(CheckInputs, CheckReport)>>,
    dump: OnceLock<Arc<(CommandOutput, RuntimeTables)>>,
}

impl Kept {
    /// The report of `inputs`: the kept one when it read equal inputs.
    fn report(&self, inputs: CheckInputs) -> Arc<(CheckInputs, CheckReport)> {
        let fresh = |inputs: CheckInputs| {
            let report = check_runtime::evaluate(&inputs);
            Arc::new((inputs, report))
        };
        match self.check.get() {
            Some(kept) if kept.0 == inputs => kept.clone(),
            Some(_) => fresh(inputs),
            None => self.check.get_or_init(|| fresh(inputs)).clone(),
        }
    }

    /// The runtime tables of `dump` as the check script reads them: the kept ones when
    /// they were read off an equal output.
    fn dump_tables(&self, dump: CommandOutput) -> Arc<(CommandOutput, RuntimeTables)> {
        let fresh = |dump: CommandOutput| {
            let tables = check_runtime::toml_runtimes(&dump.stdout, None);
            Arc::new((dump, tables))
        };
        match self.dump.get() {
            Some(kept) if kept.0 == dump => kept.clone(),
            Some(_) => fresh(dump),
            None => self.dump.get_or_init(|| fresh(dump)).clone(),
        }
    }
}

/// The scenario run on the model.
#[derive(Debug, Clone, Default)]
pub struct ModelBackend {
    pub nodes: Vec<ModelNode>,
    pub cluster: Option<super::cluster::Cluster>,
    /// Loaders handed in by the caller, used for nodes of their exact version.
    loaders: Vec<containerd::Containerd>,
}

impl ModelBackend {
    pub fn new() -> Self {
        ModelBackend::default()
    }

    /// A backend whose nodes of a version in `loaders` load with that loader (a load
    /// is a pure function of files and version: the records are those of [`ModelBackend::new`]).
    pub fn with_loaders(loaders: &[containerd::Containerd]) -> Self {
        ModelBackend { loaders: loaders.to_vec(), ..ModelBackend::default() }
    }

    fn node_mut(&mut self, name: &str) -> Result<&mut ModelNode, String> {
        self.nodes.iter_mut().find(|n| n.spec.name == name).ok_or_else(|| format!("no node `{name}`"))
    }

    fn node(&self, name: &str) -> Result<&ModelNode, String> {
        self.nodes.iter().find(|n| n.spec.name == name).ok_or_else(|| format!("no node `{name}`"))
    }
}

/// The node's files as the model holds them.
pub fn node_files(spec: &NodeSpec) -> Files {
    let mut files = Files::new();
    for (path, f) in &spec.files {
        files.insert(path, f.content.as_bytes());
    }
    files
}

/// A containerd field of one node, read off the model's daemon.
pub fn observe_containerd(node: &ModelNode, field: Field) -> Result<Observed, Unobservable> {
    let d = &node.daemon;
    let text = |s: &str| Ok(Observed::Text(s.to_string()));
    match field {
        Field::Daemon => text(if d.is_running() { "running" } else { "down" }),
        Field::Cri => match (d.is_running(), d.cri()) {
            (true, Some(cri)) => text(cri.status().as_str()),
            (true, None) => text("absent"),
            (false, _) => text("not-running"),
        },
        Field::CriError => text(&d.cri().and_then(|c| c.error.as_ref()).map(|e| format!("invalid plugin config: {e}")).unwrap_or_default()),
        Field::Handlers => {
            let mut h = d.runtime_handlers();
            crate::sort::sort(&mut h);
            Ok(Observed::List(h))
        }
        Field::DumpExit => Ok(dump_field(&d.config_dump(), field)),
        Field::DumpDefaultRuntime | Field::DumpRuntimes => Ok(tables_field(&node.kept.dump_tables(d.config_dump()).1, field)),
        Field::Check | Field::CheckCodes => {
            let kept = node.kept.report(check_runtime::simulated::inputs(d, &node.check));
            let report = &kept.1;
            Ok(check_field(report.verdict.as_str(), report.findings.iter().map(|f| (f.status, f.code.as_str())), field))
        }
        other => Err(format!("`{}` is not a containerd field", other.name())),
    }
}

/// `dump_exit`, `dump_default_runtime`, `dump_runtimes` of one `config dump` output.
pub fn dump_field(dump: &containerd::CommandOutput, field: Field) -> Observed {
    if field == Field::DumpExit {
        return Observed::Int(i64::from(dump.exit));
    }
    tables_field(&check_runtime::toml_runtimes(&dump.stdout, None), field)
}

/// `dump_default_runtime` or `dump_runtimes` of a dump's runtime tables.
fn tables_field(tables: &RuntimeTables, field: Field) -> Observed {
    match field {
        Field::DumpDefaultRuntime => Observed::Text(tables.default_runtime_name.clone().unwrap_or_default()),
        _ => {
            let mut r = tables.runtimes.clone();
            crate::sort::sort(&mut r);
            r.dedup();
            Observed::List(r)
        }
    }
}

/// `check` / `check_codes` of one check report.
pub fn check_field<'a>(verdict: &str, findings: impl Iterator<Item = (Status, &'a str)>, field: Field) -> Observed {
    match field {
        Field::Check => Observed::Text(verdict.to_string()),
        _ => Observed::List(findings.filter(|(s, _)| !matches!(s, Status::Pass | Status::Skip)).map(|(_, c)| c.to_string()).collect()),
    }
}

impl Backend for ModelBackend {
    fn name(&self) -> String {
        "model".into()
    }

    fn setup(&mut self, scenario: &Scenario) -> Result<(), super::engine::BackendError> {
        self.nodes.clear();
        // One loader per containerd version, its defaults parsed once for every node.
        let mut models: Vec<containerd::Containerd> = self.loaders.clone();
        for spec in &scenario.nodes {
            let version = spec.version.clone().or_else(|| containerd::Version::parse(&spec.containerd).ok()).ok_or_else(|| format!("node {}: bad containerd version", spec.name))?;
            let model = match models.iter().find(|m| m.version == version) {
                Some(m) => m.clone(),
                None => {
                    let m = containerd::Containerd::new(version.clone());
                    models.push(m.clone());
                    m
                }
            };
            let mut daemon = Daemon::new(version, spec.supervisor, node_files(spec)).with_model(&model);
            daemon.start();
            let mut check = NodeCheck::default();
            if let Some(b) = &spec.binaries {
                check.existing_binaries = b.clone();
            }
            self.nodes.push(ModelNode::new(spec.clone(), daemon, check));
        }
        let cluster = super::cluster::Cluster::new(scenario, &self.nodes)?;
        self.cluster = Some(cluster);
        Ok(())
    }

    fn act(&mut self, action: &Action) -> Result<(), super::engine::BackendError> {
        for n in &mut self.nodes {
            n.kept = Kept::default();
        }
        match action {
            Action::Observe | Action::Check { .. } => {}
            Action::WriteFile { node, path, file } => self.node_mut(node)?.daemon.write_file(path, file.content.as_bytes()),
            Action::RemoveFile { node, path } => self.node_mut(node)?.daemon.remove_file(path),
            Action::Start { node } => self.node_mut(node)?.daemon.start(),
            Action::Restart { node } => self.node_mut(node)?.daemon.restart(),
            Action::Signal { node, signal } => {
                let s = match signal.as_str() {
                    "HUP" => Signal::Hup,
                    "TERM" => Signal::Term,
                    _ => Signal::Kill,
                };
                self.node_mut(node)?.daemon.signal(s);
            }
            Action::Advance { seconds } => {
                for n in &mut self.nodes {
                    n.daemon.advance(*seconds);
                }
            }
            Action::Apply { .. } | Action::Delete { .. } | Action::Sync { .. } | Action::NodeLayers { .. } | Action::PluginConfig { .. } | Action::MigGeometry { .. } | Action::DraDriver { .. } => {}
        }
        if let Some(c) = self.cluster.as_mut() {
            c.act(action, &self.nodes)?;
        }
        Ok(())
    }

    fn observe(&mut self, subject: &str, field: Field) -> Result<Observed, Unobservable> {
        match field.domain() {
            Domain::Containerd => observe_containerd(self.node(subject)?, field),
            Domain::Kubernetes => match &self.cluster {
                Some(c) => c.observe(subject, field, &self.nodes),
                None => Err("no cluster".into()),
            },
        }
    }
}
