//! `scenario.toml` → [`Scenario`]: nodes, steps and expectations, every one with the
//! file:line it was written at, and the referenced files read through a caller-given
//! reader (the model does no I/O). A bad scenario is a list of [`Diagnostic`]s with
//! file:line, never a panic.

use serde::{Deserialize, Serialize};

use crate::containerd::value::{Node as TNode, Table, Value};
use crate::containerd::{Supervisor, Version};
use crate::diagnostic::{Diagnostic, Severity, Span};

use super::expect::{Expected, Field};

/// The scenario file's name inside its directory.
pub const SCENARIO_FILE: &str = "scenario.toml";

/// One scenario, with the content of every file it references.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Scenario {
    /// The directory name (e.g. `incident`).
    pub name: String,
    /// Text keys (the app translates them); shown as-is by the CLI.
    pub title: String,
    pub teaching: String,
    /// Where the story comes from (an upstream issue, the seed).
    pub source: Option<String>,
    /// Kubernetes minor (`1.33`), as the Kubernetes model takes it.
    pub kubernetes: String,
    pub nodes: Vec<NodeSpec>,
    /// Manifests applied before step 1 (RuntimeClass, DaemonSet, …): path and text.
    pub manifests: Vec<FileRef>,
    pub steps: Vec<Step>,
}

/// A file the scenario references: its path in the scenario directory and its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRef {
    pub source: String,
    pub content: String,
}

/// One node: its GPUs and its containerd.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NodeSpec {
    pub name: String,
    pub gpus: u32,
    pub gpu_model: String,
    /// containerd version as written (`1.6.20`).
    pub containerd: String,
    #[serde(skip)]
    pub version: Option<Version>,
    pub supervisor: Supervisor,
    /// Node path → file, in the order written.
    pub files: Vec<(String, FileRef)>,
    /// The runtime binaries the check finds on the node (default: runc, its shim and the
    /// NVIDIA runtime by name and at `/usr/bin`).
    pub binaries: Option<Vec<String>>,
    /// NVIDIA's DRA driver runs on the node (`dra_driver = true`): its kubelet plugin
    /// is registered and publishes the node's GPUs as ResourceSlices.
    #[serde(default)]
    pub dra_driver: bool,
    /// How that driver finds the GPUs partitioned (`dra_mig`): a MIG geometry MIG
    /// Manager made (`"7x1g.10gb"`), `"partitionable"` (every placement, counters),
    /// or none (whole GPUs).
    #[serde(default)]
    pub dra_mig: Option<String>,
    pub line: u32,
}

/// One step: an action, then the expectations that must hold after it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    pub action: Action,
    pub expect: Vec<Expectation>,
    pub line: u32,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "kebab-case")]
pub enum Action {
    /// Only look.
    Observe,
    WriteFile { node: String, path: String, file: FileRef },
    RemoveFile { node: String, path: String },
    Start { node: String },
    /// `systemctl restart containerd`.
    Restart { node: String },
    /// `kill -HUP` / `-TERM` / `-KILL` the daemon.
    Signal { node: String, signal: String },
    /// Let time pass (systemd's pending restarts happen).
    Advance { seconds: u64 },
    /// Run `scripts/check-runtime.sh` on the node (its verdict is observed as `check`).
    Check { node: String },
    /// `kubectl apply -f` a manifest of the scenario directory.
    Apply { file: FileRef },
    /// `kubectl delete KIND NAME`.
    Delete { kind: String, name: String },
    /// Run the controllers `count` times (DaemonSet syncs, scheduling cycles).
    Sync { count: u32 },
    /// Set the GPU advertisement layers of a node (what is not given is unchanged):
    /// the kubelet runs, the device-plugin pod runs, its socket directory is mounted,
    /// and how many GPUs the plugin finds (0 when the driver does not load).
    NodeLayers { node: String, kubelet: Option<bool>, device_plugin: Option<bool>, socket_mount: Option<bool>, devices: Option<i64> },
    /// The device plugin (re)starts on every GPU node with this config file (time-slicing,
    /// MPS, renaming): what each node advertises follows from it.
    PluginConfig { file: FileRef },
    /// MIG Manager is asked for a new geometry on every GPU of the node
    /// (`kubectl label node NODE nvidia.com/mig.config=…`): it refuses while GPU pods run
    /// there (`nvidia.com/mig.config.state=failed`), else repartitions and the device
    /// plugin re-advertises under its last config.
    MigGeometry { node: String, geometry: String },
    /// NVIDIA's DRA driver on the node (what is not given is unchanged): its pod runs
    /// and publishes the node's ResourceSlices (`running`), its kubelet plugin is
    /// registered with the kubelet (`registered`).
    DraDriver { node: String, running: Option<bool>, registered: Option<bool> },
}

impl Action {
    /// The `do = "…"` word.
    pub fn verb(&self) -> &'static str {
        match self {
            Action::Observe => "observe",
            Action::WriteFile { .. } => "write-file",
            Action::RemoveFile { .. } => "remove-file",
            Action::Start { .. } => "start",
            Action::Restart { .. } => "restart",
            Action::Signal { .. } => "signal",
            Action::Advance { .. } => "advance",
            Action::Check { .. } => "check",
            Action::Apply { .. } => "apply",
            Action::Delete { .. } => "delete",
            Action::Sync { .. } => "sync",
            Action::NodeLayers { .. } => "node-layers",
            Action::PluginConfig { .. } => "plugin-config",
            Action::MigGeometry { .. } => "mig-geometry",
            Action::DraDriver { .. } => "dra-driver",
        }
    }

    /// The node it acts on, if any.
    pub fn node(&self) -> Option<&str> {
        match self {
            Action::WriteFile { node, .. }
            | Action::RemoveFile { node, .. }
            | Action::Start { node }
            | Action::Restart { node }
            | Action::Signal { node, .. }
            | Action::Check { node }
            | Action::NodeLayers { node, .. }
            | Action::MigGeometry { node, .. }
            | Action::DraDriver { node, .. } => Some(node),
            _ => None,
        }
    }
}

/// `subject.field = expected`, written at `line`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// A node name (containerd fields) or `pod/NAME`, `daemonset/NAME`, `node/NAME`.
    pub subject: String,
    pub field: Field,
    pub expected: Expected,
    pub line: u32,
}

/// Reads a file of the scenario directory by its relative path.
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<String, String>;

struct Ctx<'a> {
    file: String,
    read: ReadFile<'a>,
    errors: Vec<Diagnostic>,
}

fn line_of(node: &TNode) -> u32 {
    node.origin.as_ref().map_or(0, |o| o.line)
}

impl Ctx<'_> {
    fn err(&mut self, line: u32, code: &str, message: impl Into<String>) {
        self.errors.push(Diagnostic::new(code, Severity::Error).arg("message", message.into()).at(Span::new(self.file.clone(), line, 1)));
    }

    fn string(&mut self, t: &Table, key: &str, line: u32, required: bool) -> Option<String> {
        match t.get(key) {
            Some(n) => match n.as_str() {
                Some(s) => Some(s.to_string()),
                None => {
                    self.err(line_of(n), "scenario-wrong-type", format!("`{key}` must be a string, not {}", n.type_name()));
                    None
                }
            },
            None if required => {
                self.err(line, "scenario-missing-key", format!("`{key}` is required"));
                None
            }
            None => None,
        }
    }

    fn int(&mut self, t: &Table, key: &str, line: u32) -> Option<i64> {
        match t.get(key) {
            Some(n) => n.as_int().or_else(|| {
                self.err(line_of(n), "scenario-wrong-type", format!("`{key}` must be an integer, not {}", n.type_name()));
                None
            }),
            None => {
                self.err(line, "scenario-missing-key", format!("`{key}` is required"));
                None
            }
        }
    }

    fn boolean(&mut self, t: &Table, key: &str) -> Option<bool> {
        let n = t.get(key)?;
        match n.value {
            Value::Boolean(b) => Some(b),
            _ => {
                self.err(line_of(n), "scenario-wrong-type", format!("`{key}` must be true or false, not {}", n.type_name()));
                None
            }
        }
    }

    fn reference(&mut self, source: &str, line: u32) -> Option<FileRef> {
        if source.starts_with('/') || source.split('/').any(|c| c == "..") {
            self.err(line, "scenario-file-outside", format!("`{source}` must be a relative path inside the scenario directory"));
            return None;
        }
        match (self.read)(source) {
            Ok(content) => Some(FileRef { source: source.to_string(), content }),
            Err(e) => {
                self.err(line, "scenario-file-unreadable", format!("cannot read `{source}`: {e}"));
                None
            }
        }
    }

    fn unknown_keys(&mut self, t: &Table, known: &[&str], what: &str) {
        for (k, n) in &t.entries {
            if !known.contains(&k.as_str()) {
                self.err(line_of(n), "scenario-unknown-key", format!("unknown key `{k}` in {what} (known: {})", known.join(", ")));
            }
        }
    }

    fn tables<'t>(&mut self, t: &'t Table, key: &str) -> Vec<&'t TNode> {
        match t.get(key).map(|n| (&n.value, n)) {
            None => Vec::new(),
            Some((Value::Array(items), _)) => items.iter().filter(|n| n.is_table()).collect(),
            Some((_, n)) => {
                self.err(line_of(n), "scenario-wrong-type", format!("`{key}` must be an array of tables ([[{key}]])"));
                Vec::new()
            }
        }
    }
}

/// Parses `text` (the `scenario.toml` of directory `name`), reading referenced files
/// with `read`. Errors carry `scenario.toml:LINE` (or the scenario's path as `file`).
pub fn parse(name: &str, file: &str, text: &str, read: ReadFile<'_>) -> Result<Scenario, Vec<Diagnostic>> {
    let top = match crate::containerd::parse::parse(file, text.as_bytes()) {
        Ok(t) => t,
        Err(e) => {
            let msg = e.kind.message();
            let d = Diagnostic::new("scenario-syntax", Severity::Error).arg("message", msg).at(Span::new(file, e.line, e.column));
            return Err(vec![d]);
        }
    };
    let mut cx = Ctx { file: file.to_string(), read, errors: Vec::new() };
    cx.unknown_keys(&top, &["title", "teaching", "source", "kubernetes", "containerd", "node", "manifests", "step"], "the scenario");
    let title = cx.string(&top, "title", 1, true).unwrap_or_default();
    let teaching = cx.string(&top, "teaching", 1, false).unwrap_or_default();
    let source = cx.string(&top, "source", 1, false);
    let kubernetes = cx.string(&top, "kubernetes", 1, false).unwrap_or_else(|| "1.33".into());
    let default_containerd = cx.string(&top, "containerd", 1, false);

    let mut nodes: Vec<NodeSpec> = Vec::new();
    for n in cx.tables(&top, "node") {
        let line = line_of(n);
        let Some(t) = n.as_table() else { continue };
        cx.unknown_keys(t, &["name", "gpus", "gpu_model", "containerd", "supervisor", "files", "binaries", "dra_driver", "dra_mig"], "a [[node]]");
        let name = cx.string(t, "name", line, true).unwrap_or_default();
        if nodes.iter().any(|o| o.name == name) {
            cx.err(line, "scenario-duplicate-node", format!("node `{name}` is defined twice"));
        }
        let gpus = match t.get("gpus") {
            Some(_) => cx.int(t, "gpus", line).and_then(|g| u32::try_from(g).ok()).unwrap_or(0),
            None => 0,
        };
        let gpu_model = cx.string(t, "gpu_model", line, false).unwrap_or_default();
        let containerd = cx.string(t, "containerd", line, false).or_else(|| default_containerd.clone());
        let (containerd, version) = match containerd {
            None => {
                cx.err(line, "scenario-missing-key", "`containerd` (the version) is required on the node or at the top");
                (String::new(), None)
            }
            Some(v) => match Version::parse(&v) {
                Ok(ver) => (v, Some(ver)),
                Err(e) => {
                    cx.err(line, "scenario-bad-version", format!("containerd version `{v}`: {e:?}"));
                    (v, None)
                }
            },
        };
        let supervisor = match cx.string(t, "supervisor", line, false).as_deref() {
            None | Some("systemd") => Supervisor::systemd(),
            Some("by-hand") => Supervisor::ByHand,
            Some("sighup-ignored") => Supervisor::SighupIgnored,
            Some(other) => {
                cx.err(line, "scenario-bad-value", format!("supervisor `{other}`: expected systemd, by-hand or sighup-ignored"));
                Supervisor::systemd()
            }
        };
        let mut files = Vec::new();
        if let Some(ft) = t.get("files") {
            match ft.as_table() {
                Some(ft) => {
                    for (path, src) in &ft.entries {
                        if !path.starts_with('/') {
                            cx.err(line_of(src), "scenario-bad-value", format!("node path `{path}` must be absolute"));
                        }
                        match src.as_str() {
                            Some(s) => {
                                if let Some(f) = cx.reference(s, line_of(src)) {
                                    files.push((path.clone(), f));
                                }
                            }
                            None => cx.err(line_of(src), "scenario-wrong-type", "a node file maps a node path to a file of the scenario directory (a string)"),
                        }
                    }
                }
                None => cx.err(line_of(ft), "scenario-wrong-type", "`files` must be a table of node path = scenario file"),
            }
        }
        let binaries = t.get("binaries").map(|b| match &b.value {
            Value::Array(items) => items.iter().filter_map(|i| i.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        });
        let dra_driver = cx.boolean(t, "dra_driver").unwrap_or(false);
        let dra_mig = cx.string(t, "dra_mig", line, false);
        if let Some(m) = dra_mig.as_deref().filter(|m| *m != "partitionable") {
            // A geometry MIG Manager could make on this GPU model.
            let catalog = crate::slots::MigCatalog::embedded();
            let gpu = catalog.as_ref().ok().and_then(|c| c.find(&gpu_model));
            let verdict = match (crate::slots::mig::Geometry::parse(m), gpu) {
                (Err(e), _) => Some(e),
                (Ok(_), None) => Some(format!("`{gpu_model}` has no MIG profiles")),
                (Ok(g), Some(gpu)) => {
                    let check = crate::slots::mig::check_geometry(gpu, &g);
                    (!check.valid).then(|| format!("does not fit a {}: {:?}", gpu.model, check.errors))
                }
            };
            if let Some(e) = verdict {
                cx.err(line, "scenario-bad-value", format!("dra_mig `{m}`: {e} (a geometry or `partitionable`)"));
            }
        }
        nodes.push(NodeSpec { name, gpus, gpu_model, containerd, version, supervisor, files, binaries, dra_driver, dra_mig, line });
    }
    if nodes.is_empty() {
        cx.err(1, "scenario-no-nodes", "a scenario needs at least one [[node]]");
    }

    let mut manifests = Vec::new();
    if let Some(m) = top.get("manifests") {
        match &m.value {
            Value::Array(items) => {
                for i in items {
                    match i.as_str() {
                        Some(s) => {
                            if let Some(f) = cx.reference(s, line_of(i)) {
                                manifests.push(f);
                            }
                        }
                        None => cx.err(line_of(i), "scenario-wrong-type", "`manifests` lists files of the scenario directory"),
                    }
                }
            }
            _ => cx.err(line_of(m), "scenario-wrong-type", "`manifests` must be an array of file names"),
        }
    }

    let node_names: Vec<String> = nodes.iter().map(|n| n.name.clone()).collect();
    let mut steps = Vec::new();
    for s in cx.tables(&top, "step") {
        let line = line_of(s);
        let Some(t) = s.as_table() else { continue };
        if let Some(step) = parse_step(&mut cx, t, line, &node_names) {
            steps.push(step);
        }
    }
    if steps.is_empty() {
        cx.err(1, "scenario-no-steps", "a scenario needs at least one [[step]]");
    }
    if !cx.errors.is_empty() {
        return Err(cx.errors);
    }
    Ok(Scenario { name: name.to_string(), title, teaching, source, kubernetes, nodes, manifests, steps })
}

fn parse_step(cx: &mut Ctx<'_>, t: &Table, line: u32, nodes: &[String]) -> Option<Step> {
    cx.unknown_keys(t, &["name", "do", "node", "path", "file", "signal", "seconds", "kind", "object", "count", "kubelet", "device_plugin", "socket_mount", "devices", "geometry", "running", "registered", "expect"], "a [[step]]");
    let name = cx.string(t, "name", line, true).unwrap_or_default();
    let verb = cx.string(t, "do", line, true)?;
    let node = |cx: &mut Ctx<'_>| -> Option<String> {
        let n = cx.string(t, "node", line, true)?;
        if !nodes.contains(&n) {
            cx.err(line, "scenario-unknown-node", format!("no [[node]] named `{n}` (nodes: {})", nodes.join(", ")));
            return None;
        }
        Some(n)
    };
    let action = match verb.as_str() {
        "observe" => Action::Observe,
        "write-file" => {
            let node = node(cx);
            let path = cx.string(t, "path", line, true);
            let src = cx.string(t, "file", line, true);
            let file = src.and_then(|s| cx.reference(&s, line));
            Action::WriteFile { node: node?, path: path?, file: file? }
        }
        "remove-file" => {
            let node = node(cx);
            Action::RemoveFile { node: node?, path: cx.string(t, "path", line, true)? }
        }
        "start" => Action::Start { node: node(cx)? },
        "restart" => Action::Restart { node: node(cx)? },
        "signal" => {
            let node = node(cx);
            let signal = cx.string(t, "signal", line, true)?;
            if !matches!(signal.as_str(), "HUP" | "TERM" | "KILL") {
                cx.err(line, "scenario-bad-value", format!("signal `{signal}`: expected HUP, TERM or KILL"));
                return None;
            }
            Action::Signal { node: node?, signal }
        }
        "advance" => Action::Advance { seconds: cx.int(t, "seconds", line).and_then(|s| u64::try_from(s).ok())? },
        "check" => Action::Check { node: node(cx)? },
        "apply" => {
            let src = cx.string(t, "file", line, true)?;
            Action::Apply { file: cx.reference(&src, line)? }
        }
        "delete" => Action::Delete { kind: cx.string(t, "kind", line, true)?, name: cx.string(t, "object", line, true)? },
        "node-layers" => {
            let node = node(cx)?;
            let devices = match t.get("devices") {
                Some(_) => Some(cx.int(t, "devices", line)?),
                None => None,
            };
            Action::NodeLayers {
                node,
                kubelet: cx.boolean(t, "kubelet"),
                device_plugin: cx.boolean(t, "device_plugin"),
                socket_mount: cx.boolean(t, "socket_mount"),
                devices,
            }
        }
        "plugin-config" => {
            let src = cx.string(t, "file", line, true)?;
            Action::PluginConfig { file: cx.reference(&src, line)? }
        }
        "mig-geometry" => {
            let node = node(cx);
            let geometry = cx.string(t, "geometry", line, true)?;
            if let Err(e) = crate::slots::mig::Geometry::parse(&geometry) {
                cx.err(line, "scenario-bad-value", format!("geometry `{geometry}`: {e}"));
                return None;
            }
            Action::MigGeometry { node: node?, geometry }
        }
        "dra-driver" => {
            let node = node(cx)?;
            Action::DraDriver { node, running: cx.boolean(t, "running"), registered: cx.boolean(t, "registered") }
        }
        "sync" => Action::Sync { count: cx.int(t, "count", line).and_then(|c| u32::try_from(c).ok())? },
        other => {
            cx.err(line, "scenario-unknown-action", format!("unknown action `do = \"{other}\"` (known: {})", super::ACTIONS.join(", ")));
            return None;
        }
    };
    let mut expect = Vec::new();
    if let Some(e) = t.get("expect") {
        match e.as_table() {
            None => cx.err(line_of(e), "scenario-wrong-type", "`expect` must be a table of subject → field = value"),
            Some(subjects) => {
                for (subject, fields) in &subjects.entries {
                    let Some(fields) = fields.as_table() else {
                        cx.err(line_of(fields), "scenario-wrong-type", format!("`expect.{subject}` must be a table of field = value"));
                        continue;
                    };
                    for (fname, value) in &fields.entries {
                        let fline = line_of(value);
                        let Some(field) = Field::parse(fname) else {
                            cx.err(fline, "scenario-unknown-field", format!("unknown field `{fname}` (known: {})", Field::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")));
                            continue;
                        };
                        let subject_ok = match field.subject_kind() {
                            super::expect::SubjectKind::ContainerdNode => nodes.contains(subject),
                            super::expect::SubjectKind::Prefixed(p) => subject.strip_prefix(p).is_some_and(|n| !n.is_empty()),
                        };
                        if !subject_ok {
                            cx.err(fline, "scenario-bad-subject", format!("field `{fname}` needs a subject {}, not `{subject}`", field.subject_kind().describe()));
                            continue;
                        }
                        match Expected::from_toml(value) {
                            Ok(expected) => expect.push(Expectation { subject: subject.clone(), field, expected, line: fline }),
                            Err(m) => cx.err(fline, "scenario-bad-expectation", format!("`{subject}.{fname}`: {m}")),
                        }
                    }
                }
            }
        }
    }
    Some(Step { name, action, expect, line })
}
