//! The learner's [`Work`] as JSON, member by member: what localStorage, the progress
//! file and the share link hold. Written exactly as serde_json wrote it in earlier
//! builds (same members, order and escapes; a test holds the two together), read in
//! two modes:
//! - [`Mode::Strict`] for a file or link someone hands the lab: an unknown member, a
//!   value of the wrong type or an unknown step-4 operation is refused, named by its
//!   path (`work.slots.nodes: expected a whole number …`), so nothing is half-applied;
//!   a number is refused outside the range the page's own input allows
//!   ([`crate::state::Bound`]: `nodes = 4000000000` is not a cluster the lab draws);
//! - [`Mode::Lenient`] for the lab's own saved work: members it does not know (saved
//!   by a newer lab) are skipped and a mistyped value keeps its default, so the
//!   learner's other work comes back instead of all of it being dropped.
//!
//! Missing members take their defaults in both modes. Each step's section is read
//! and written by its step module (`crate::steps::*::{read, write}`) with [`Reader`]'s
//! helpers; this file holds the modes, the helpers and the sections' names.

use crate::json::{self, Object, Value};
use crate::state::{Bound, Work};

/// How members the lab does not know, or values of the wrong type, are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Refuse the whole document, naming the first problem.
    Strict,
    /// Skip the member (unknown) or keep its default (mistyped).
    Lenient,
}

/// Reads `value` (the `work` member of a document, or the saved work itself) at
/// `path`; `Err` names the first problem (strict mode only).
pub fn read(value: &Value, path: &str, mode: Mode) -> Result<Work, String> {
    let mut r = Reader { mode, problem: None };
    let mut w = Work::default();
    for (key, v) in r.members(value, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "slots" => w.slots = crate::steps::slots::read(&mut r, v, &at),
            "containerd" => w.containerd = crate::steps::containerd::read(&mut r, v, &at),
            "restart" => w.restart = crate::steps::restart::read(&mut r, v, &at),
            "check" => w.check = crate::steps::check::read(&mut r, v, &at),
            "rollout" => w.rollout = crate::steps::rollout::read(&mut r, v, &at),
            "kube" => w.kube = crate::steps::kubernetes::read(&mut r, v, &at),
            _ => r.unknown(path, key, &["slots", "containerd", "restart", "check", "rollout", "kube"]),
        }
    }
    match r.problem {
        Some(p) if mode == Mode::Strict => Err(p),
        _ => Ok(w),
    }
}

/// Parses `text` and reads it as saved work, leniently; `None` when it is not JSON
/// or not an object.
pub fn read_saved(text: &str) -> Option<Work> {
    let v = json::parse(text).ok()?;
    matches!(v, Value::Object(_)).then(|| read(&v, "work", Mode::Lenient).ok()).flatten()
}

/// Reads a document member by member, keeping the first problem; each step module
/// reads its own section with it (`crate::steps::*::read`).
pub(crate) struct Reader {
    mode: Mode,
    problem: Option<String>,
}

impl Reader {
    pub(crate) fn fail(&mut self, problem: String) {
        self.problem.get_or_insert(problem);
    }

    pub(crate) fn members<'v>(&mut self, v: &'v Value, path: &str) -> &'v [(String, Value)] {
        match v {
            Value::Object(m) => m,
            other => {
                self.fail(format!("{path}: expected an object, found {}", other.kind()));
                &[]
            }
        }
    }

    pub(crate) fn unknown(&mut self, path: &str, key: &str, fields: &[&str]) {
        if self.mode == Mode::Strict {
            let expected: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            self.fail(format!("unknown field `{key}` in {path}, expected one of {}", expected.join(", ")));
        }
    }

    pub(crate) fn string(&mut self, v: &Value, path: &str, slot: &mut String) {
        match v {
            Value::String(s) => slot.clone_from(s),
            other => self.fail(format!("{path}: expected a string, found {}", other.kind())),
        }
    }

    /// A whole number within `bound`, the range the page's own input allows (a number
    /// outside it is refused by name, or keeps its default when lenient).
    pub(crate) fn u32(&mut self, v: &Value, path: &str, slot: &mut u32, bound: Bound) {
        match v.as_u64().filter(|n| bound.contains(*n)).and_then(|n| u32::try_from(n).ok()) {
            Some(n) => *slot = n,
            None => self.fail(format!("{path}: expected a whole number from {} to {}, found {}", bound.min, bound.max, shown(v))),
        }
    }

    pub(crate) fn bool(&mut self, v: &Value, path: &str, slot: &mut bool) {
        match v {
            Value::Bool(b) => *slot = *b,
            other => self.fail(format!("{path}: expected true or false, found {}", other.kind())),
        }
    }

    /// One of `names` (an enum written as a kebab-case string).
    /// A string item of a list (`None`, with the error, for anything else).
    pub(crate) fn text(&mut self, v: &Value, path: &str) -> Option<String> {
        let mut s = String::new();
        self.string(v, path, &mut s);
        matches!(v, Value::String(_)).then_some(s)
    }

    pub(crate) fn choice<T: Copy>(&mut self, v: &Value, path: &str, names: &[(&str, T)]) -> Option<T> {
        let found = match v {
            Value::String(s) => names.iter().find(|(n, _)| n == s).map(|(_, t)| *t),
            _ => None,
        };
        if found.is_none() {
            let expected: Vec<String> = names.iter().map(|(n, _)| format!("`{n}`")).collect();
            self.fail(format!("{path}: expected one of {}, found {}", expected.join(", "), shown(v)));
        }
        found
    }

    /// An array, each item read by `item`; items it cannot read are left out.
    pub(crate) fn list<T>(&mut self, v: &Value, path: &str, mut item: impl FnMut(&mut Self, &Value, &str) -> Option<T>) -> Vec<T> {
        match v {
            Value::Array(items) => items.iter().enumerate().filter_map(|(i, x)| item(self, x, &format!("{path}[{i}]"))).collect(),
            other => {
                self.fail(format!("{path}: expected an array, found {}", other.kind()));
                Vec::new()
            }
        }
    }
}

/// A value as an error message shows it: a string or number itself, else its kind.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("string {}", gpulab_model::go::quote(s)),
        Value::Number(n) => n.clone(),
        other => other.kind().to_string(),
    }
}

/// Which sections [`write`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sections {
    All,
    /// Only the sections that differ from their defaults (the share link).
    Changed,
}

/// Appends `work` as a JSON object.
pub fn write(out: &mut String, w: &Work, sections: Sections) {
    let d = Work::default();
    let all = sections == Sections::All;
    let mut o = Object::new(out);
    if all || w.slots != d.slots {
        o.with("slots", |out| crate::steps::slots::write(out, &w.slots));
    }
    if all || w.containerd != d.containerd {
        o.with("containerd", |out| crate::steps::containerd::write(out, &w.containerd));
    }
    if all || w.restart != d.restart {
        o.with("restart", |out| crate::steps::restart::write(out, &w.restart));
    }
    if all || w.check != d.check {
        o.with("check", |out| crate::steps::check::write(out, &w.check));
    }
    if all || w.rollout != d.rollout {
        o.with("rollout", |out| crate::steps::rollout::write(out, &w.rollout));
    }
    if all || w.kube != d.kube {
        o.with("kube", |out| crate::steps::kubernetes::write(out, &w.kube));
    }
    o.end();
}


/// `work` as the JSON text saved to localStorage.
pub fn to_string(work: &Work) -> String {
    let mut out = String::new();
    write(&mut out, work, Sections::All);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{DaemonOp, KubeInput, RestartInput, SlotsInput, SupervisorChoice};
    use gpulab_view::NodePatch;
    use crate::state::{LabAction, LabState, RestartAction, RolloutAction, SlotsAction};

    /// Work with every section edited, and text that needs escaping.
    fn edited() -> Work {
        let mut w = LabState::default()
            .apply(LabAction::Slots(SlotsAction::Nodes(5)))
            .apply(LabAction::Restart(RestartAction::Supervisor(SupervisorChoice::ByHand)))
            .apply(LabAction::Restart(RestartAction::Do(DaemonOp::WriteDropin)))
            .apply(LabAction::Restart(RestartAction::Do(DaemonOp::RunCheck)))
            .apply(LabAction::Rollout(RolloutAction::Sync))
            .apply(LabAction::Rollout(RolloutAction::Answer))
            .work;
        w.containerd.main = "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n\t# 한국어 \u{1}".into();
        w.check.keep = "kata".into();
        w.kube.patches.push(NodePatch { node: "gpu-node-1".into(), resource: "nvidia.com/gpu".into(), quantity: "8".into() });
        w
    }

    /// Written exactly as serde_json wrote `Work` in earlier builds, and read back the
    /// same from either writer: saved work and files from before keep working.
    #[test]
    fn same_json_as_serde() {
        for w in [Work::default(), edited()] {
            let ours = to_string(&w);
            let serde = serde_json::to_string(&w).unwrap();
            assert_eq!(ours, serde);
            assert_eq!(read(&json::parse(&serde).unwrap(), "work", Mode::Strict), Ok(w.clone()));
            assert_eq!(serde_json::from_str::<Work>(&ours).unwrap(), w);
        }
    }

    /// Strict reading names the first problem by its path; lenient reading keeps
    /// what it can and takes defaults for the rest.
    #[test]
    fn strict_refuses_lenient_keeps_the_rest() {
        let d = Work::default();
        let cases: Vec<(&str, &str, Work)> = vec![
            (
                r#"{"slots":{"nodes":3,"colour":"red"},"future":{}}"#,
                "unknown field `colour` in work.slots, expected one of `gpu_model`, `gpus_per_node`, `nodes`, `replicas`, `config`",
                Work { slots: SlotsInput { nodes: 3, ..d.slots.clone() }, ..d.clone() },
            ),
            (
                r#"{"slots":{"nodes":"3","replicas":9}}"#,
                r#"work.slots.nodes: expected a whole number from 1 to 5000, found string "3""#,
                Work { slots: SlotsInput { replicas: 9, ..d.slots.clone() }, ..d.clone() },
            ),
            (r#"{"slots":{"nodes":4294967296}}"#, "work.slots.nodes: expected a whole number from 1 to 5000, found 4294967296", d.clone()),
            // issue 20: a link with `nodes = 4000000000` was accepted.
            (r#"{"slots":{"nodes":4000000000}}"#, "work.slots.nodes: expected a whole number from 1 to 5000, found 4000000000", d.clone()),
            (r#"{"slots":{"gpus_per_node":0}}"#, "work.slots.gpus_per_node: expected a whole number from 1 to 16, found 0", d.clone()),
            (r#"{"slots":{"replicas":111}}"#, "work.slots.replicas: expected a whole number from 1 to 110, found 111", d.clone()),
            (r#"{"rollout":{"syncs":61}}"#, "work.rollout.syncs: expected a whole number from 0 to 60, found 61", d.clone()),
            (r#"{"rollout":{"answered":1}}"#, "work.rollout.answered: expected true or false, found a number", d.clone()),
            (
                r#"{"restart":{"ops":["restart","reboot","sighup"]}}"#,
                r#"work.restart.ops[1]: expected one of `write-dropin`, `sighup`, `restart`, `wait`, `run-check`, found string "reboot""#,
                Work { restart: RestartInput { ops: vec![DaemonOp::Restart, DaemonOp::Sighup], ..d.restart.clone() }, ..d.clone() },
            ),
            (r#"{"restart":{"supervisor":null}}"#, "work.restart.supervisor: expected one of `systemd`, `by-hand`, found null", d.clone()),
            (r#"{"kube":{"patches":{}}}"#, "work.kube.patches: expected an array, found an object", d.clone()),
            (
                r#"{"kube":{"patches":[{"node":"n","extra":1}]}}"#,
                "unknown field `extra` in work.kube.patches[0], expected one of `node`, `resource`, `quantity`",
                Work { kube: KubeInput { patches: vec![NodePatch { node: "n".into(), ..NodePatch::default() }], ..d.kube.clone() }, ..d.clone() },
            ),
            (r#"{"check":[]}"#, "work.check: expected an object, found an array", d.clone()),
            (r#"{"containerd":{"main":7}}"#, "work.containerd.main: expected a string, found a number", d.clone()),
        ];
        for (text, problem, lenient) in cases {
            let v = json::parse(text).unwrap();
            assert_eq!(read(&v, "work", Mode::Strict), Err(problem.to_string()), "{text}");
            assert_eq!(read(&v, "work", Mode::Lenient), Ok(lenient), "{text}");
        }
    }

    /// Saved work: readable when it is a JSON object, whatever a newer lab added.
    #[test]
    fn saved_work() {
        let ours = to_string(&edited());
        let newer = ours.replacen('{', r#"{"notes":{"step1":"…"},"#, 1);
        let cases: [(&str, Option<Work>); 5] =
            [(&ours, Some(edited())), (&newer, Some(edited())), ("{", None), ("[1,2]", None), ("\"text\"", None)];
        for (text, expected) in cases {
            assert_eq!(read_saved(text), expected, "{text}");
        }
    }
}
