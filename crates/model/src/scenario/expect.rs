//! What can be expected: the field catalogue (each field's subject, its domain —
//! containerd or Kubernetes — and its value type), expected values with the documented
//! placeholders, observed values, and the match rule.
//!
//! Placeholders, for what reality makes nondeterministic (as KWOK's golden files do):
//! `{{any}}` inside a string matches any run of characters (sandbox ids, generated pod
//! names, timestamps); `{ one_of = [...] }` accepts any listed value (the scheduler's
//! random tie-break, the DaemonSet controller's node order); `{ set = [...] }` compares a
//! list ignoring order.

use serde::{Deserialize, Serialize};

use crate::containerd::value::{Node as TNode, Value};

/// Whose state a field describes: a real containerd can observe the first kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    Containerd,
    Kubernetes,
}

/// What a field's subject must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    /// A `[[node]]` name.
    ContainerdNode,
    /// `pod/NAME`, `daemonset/NAME`, `node/NAME`.
    Prefixed(&'static str),
}

impl SubjectKind {
    pub fn describe(self) -> String {
        match self {
            SubjectKind::ContainerdNode => "that names a [[node]]".into(),
            SubjectKind::Prefixed(p) => format!("`{p}NAME`"),
        }
    }
}

macro_rules! fields {
    ($( $v:ident = $name:literal, $dom:ident, $subj:expr, $doc:literal; )*) => {
        /// An observable field. The names are the keys under `[step.expect.SUBJECT]`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Field { $( #[doc = $doc] #[serde(rename = $name)] $v, )* }

        impl Field {
            pub const ALL: &'static [Field] = &[$(Field::$v),*];

            pub fn name(self) -> &'static str {
                match self { $(Field::$v => $name,)* }
            }

            pub fn parse(s: &str) -> Option<Field> {
                match s { $($name => Some(Field::$v),)* _ => None }
            }

            pub fn domain(self) -> Domain {
                match self { $(Field::$v => Domain::$dom,)* }
            }

            pub fn subject_kind(self) -> SubjectKind {
                match self { $(Field::$v => $subj,)* }
            }

            /// One line of documentation (the schema's description).
            pub fn doc(self) -> &'static str {
                match self { $(Field::$v => $doc,)* }
            }
        }
    };
}

const NODE: SubjectKind = SubjectKind::ContainerdNode;
const POD: SubjectKind = SubjectKind::Prefixed("pod/");
const DS: SubjectKind = SubjectKind::Prefixed("daemonset/");
const KNODE: SubjectKind = SubjectKind::Prefixed("node/");

fields! {
    Daemon = "daemon", Containerd, NODE, "`running` or `down`: does the daemon answer on its socket.";
    Cri = "cri", Containerd, NODE, "The `io.containerd.grpc.v1 cri` row of `ctr plugins ls`: `ok`, `error`, `absent`, or `not-running`.";
    CriError = "cri_error", Containerd, NODE, "The CRI plugin's error (`ctr plugins ls -d` Message), verbatim; empty when none.";
    Handlers = "handlers", Containerd, NODE, "The runtime handlers the running CRI plugin loaded (`crictl info`), sorted.";
    DumpExit = "dump_exit", Containerd, NODE, "Exit status of `containerd config dump` (reads the files on disk, not the daemon).";
    DumpDefaultRuntime = "dump_default_runtime", Containerd, NODE, "`default_runtime_name` in `containerd config dump`.";
    DumpRuntimes = "dump_runtimes", Containerd, NODE, "The CRI runtime tables in `containerd config dump`, sorted.";
    Check = "check", Containerd, NODE, "The verdict of `scripts/check-runtime.sh`: pass, check-failed, restart-needed, not-reachable.";
    CheckCodes = "check_codes", Containerd, NODE, "The codes of the check's findings that did not pass, in order.";
    Phase = "phase", Kubernetes, POD, "The pod's `status.phase`; `Rejected` when the API server refused it.";
    Reason = "reason", Kubernetes, POD, "The first container's waiting reason (`ContainerCreating`, …) or the PodScheduled condition reason.";
    NodeName = "node_name", Kubernetes, POD, "`spec.nodeName` (empty while Pending).";
    Message = "message", Kubernetes, POD, "The last event's message for the pod (FailedScheduling text, FailedCreatePodSandBox, the API error).";
    EventReason = "event_reason", Kubernetes, POD, "The last event's reason (`FailedScheduling`, `Scheduled`, `FailedCreatePodSandBox`).";
    Devices = "devices", Kubernetes, POD, "The devices the pod's ResourceClaims were allocated, `request:pool/device`, sorted (empty without claims or allocation).";
    Desired = "desired", Kubernetes, DS, "DaemonSet `status.desiredNumberScheduled`.";
    Current = "current", Kubernetes, DS, "DaemonSet `status.currentNumberScheduled`.";
    Ready = "ready", Kubernetes, DS, "DaemonSet `status.numberReady`.";
    UpToDate = "up_to_date", Kubernetes, DS, "DaemonSet `status.updatedNumberScheduled`.";
    Available = "available", Kubernetes, DS, "DaemonSet `status.numberAvailable`.";
    RolloutStatus = "rollout_status", Kubernetes, DS, "The last line `kubectl rollout status` prints.";
    StalledOn = "stalled_on", Kubernetes, DS, "The nodes the rollout is stuck on (stall diagnosis), sorted.";
    Gpus = "gpus", Kubernetes, KNODE, "The node's allocatable `nvidia.com/gpu` (0 when not advertised).";
    SeatMemory = "seat_memory_mib", Kubernetes, KNODE, "Memory one `nvidia.com/gpu` seat is guaranteed, MiB (0 with time-slicing: replicas are access, not memory).";
    MigConfigState = "mig_config_state", Kubernetes, KNODE, "The node's `nvidia.com/mig.config.state` after the last `mig-geometry`: `success` or `failed` (GPUs busy); empty before any.";
    BrokenLayer = "broken_layer", Kubernetes, KNODE, "The first broken advertisement layer, top-down: node-status, kubelet, device-plugin-pod, socket-mount; empty when none.";
}

/// An observed value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Observed {
    Bool(bool),
    Int(i64),
    Text(String),
    List(Vec<String>),
}

impl std::fmt::Display for Observed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Observed::Bool(b) => write!(f, "{b}"),
            Observed::Int(i) => write!(f, "{i}"),
            Observed::Text(s) => write!(f, "{s:?}"),
            Observed::List(l) => write!(f, "[{}]", l.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")),
        }
    }
}

/// An expected value as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// Equal (a string with `{{any}}` is a pattern).
    Is(Observed),
    OneOf(Vec<Observed>),
    /// A list compared without order.
    Set(Vec<String>),
}

/// The wildcard placeholder inside expected strings.
pub const ANY: &str = "{{any}}";

fn scalar(node: &TNode) -> Result<Observed, String> {
    match &node.value {
        Value::String(s) => Ok(Observed::Text(s.clone())),
        Value::Integer(i) => Ok(Observed::Int(*i)),
        Value::Boolean(b) => Ok(Observed::Bool(*b)),
        Value::Array(items) => {
            items.iter().map(|i| i.as_str().map(str::to_string).ok_or_else(|| "a list holds strings only".to_string())).collect::<Result<_, _>>().map(Observed::List)
        }
        _ => Err(format!("a {} cannot be expected", node.type_name())),
    }
}

impl Expected {
    pub fn from_toml(node: &TNode) -> Result<Expected, String> {
        if let Some(t) = node.as_table() {
            return match (t.get("one_of"), t.get("set"), t.entries.len()) {
                (Some(n), None, 1) => match &n.value {
                    Value::Array(items) => items.iter().map(scalar).collect::<Result<_, _>>().map(Expected::OneOf),
                    _ => Err("`one_of` takes an array".into()),
                },
                (None, Some(n), 1) => match scalar(n)? {
                    Observed::List(l) => Ok(Expected::Set(l)),
                    _ => Err("`set` takes an array of strings".into()),
                },
                _ => Err("a table expectation is `{ one_of = [...] }` or `{ set = [...] }`".into()),
            };
        }
        scalar(node).map(Expected::Is)
    }

    /// Does `observed` satisfy this expectation?
    pub fn matches(&self, observed: &Observed) -> bool {
        match self {
            Expected::Is(e) => is(e, observed),
            Expected::OneOf(options) => options.iter().any(|e| is(e, observed)),
            Expected::Set(items) => match observed {
                Observed::List(l) => {
                    let (mut a, mut b) = (items.clone(), l.clone());
                    crate::sort::sort(&mut a);
                    crate::sort::sort(&mut b);
                    a == b
                }
                _ => false,
            },
        }
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Is(o) => write!(f, "{o}"),
            Expected::OneOf(os) => write!(f, "one of {}", os.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | ")),
            Expected::Set(s) => write!(f, "set {}", Observed::List(s.clone())),
        }
    }
}

fn is(expected: &Observed, observed: &Observed) -> bool {
    match (expected, observed) {
        (Observed::Text(p), Observed::Text(s)) if p.contains(ANY) => glob(p, s),
        _ => expected == observed,
    }
}

/// `pattern` with `{{any}}` wildcards against `text`.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split(ANY).collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else { return pattern == text };
    if parts.len() == 1 {
        return pattern == text;
    }
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let middle = parts.get(1..parts.len() - 1).unwrap_or(&[]);
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = rest.get(i + part.len()..).unwrap_or(""),
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}
