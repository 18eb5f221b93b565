//! The progress file: `{"format":"gpu-node-lab/progress","version":1,"work":{…}}`.
//! Import validates it field by field and says what was wrong (not JSON, another
//! program's file, a newer format, an unknown or mistyped field, a value out of
//! range); nothing is applied unless all of it is valid.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::state::{Work, MAX_OPS, MAX_SYNCS};

/// The `format` field every progress file (and share link) carries.
pub const FORMAT: &str = "gpu-node-lab/progress";
/// The format version this lab writes and reads.
pub const VERSION: u64 = 1;
/// The largest file import accepts (bytes); a lab's work is a few KB.
pub const MAX_FILE: usize = 1024 * 1024;
/// The longest text a single editor may hold on import (bytes).
pub const MAX_TEXT: usize = 256 * 1024;
/// The file name export suggests.
pub const FILE_NAME: &str = "gpu-node-lab-progress.json";

/// Why a progress file or a share link's content was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// Bigger than [`MAX_FILE`]; the size in bytes.
    TooLarge(usize),
    /// Not JSON at all; serde's message (line and column).
    NotJson(String),
    /// JSON, but not ours: the `format` field is missing or names something else.
    Foreign(String),
    /// Our format, written by a newer lab.
    FutureVersion(u64),
    /// `version` missing or not a whole number.
    BadVersion,
    /// A field this lab does not know (its path, e.g. `work.slots.nodez`).
    UnknownField(String),
    /// A field of the wrong type (its path and serde's message).
    BadValue(String, String),
    /// A value out of range (its path and the limit).
    OutOfRange(String, String),
}

/// The export file's text for `work` (pretty-printed, so it diffs and reads well).
pub fn export(work: &Work) -> String {
    let value = serde_json::json!({ "format": FORMAT, "version": VERSION, "work": work });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// The smallest envelope for `work`: fields equal to their defaults are left out
/// (the share link carries only what the learner changed).
pub fn compact(work: &Work) -> String {
    let mut value = serde_json::to_value(work).unwrap_or(Value::Null);
    let defaults = serde_json::to_value(Work::default()).unwrap_or(Value::Null);
    prune(&mut value, &defaults);
    serde_json::json!({ "format": FORMAT, "version": VERSION, "work": value }).to_string()
}

fn prune(value: &mut Value, defaults: &Value) {
    if let (Value::Object(map), Value::Object(def)) = (value, defaults) {
        map.retain(|k, v| match def.get(k) {
            Some(d) if d == v => false,
            Some(d) => {
                prune(v, d);
                true
            }
            None => true,
        });
    }
}

/// Reads a progress file (or a share link's decompressed content).
pub fn import(text: &str) -> Result<Work, ImportError> {
    if text.len() > MAX_FILE {
        return Err(ImportError::TooLarge(text.len()));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| ImportError::NotJson(e.to_string()))?;
    let Value::Object(top) = value else {
        return Err(ImportError::Foreign(kind(&value).into()));
    };
    match top.get("format") {
        Some(Value::String(f)) if f == FORMAT => {}
        Some(Value::String(f)) => return Err(ImportError::Foreign(format!("format {f:?}"))),
        _ => return Err(ImportError::Foreign("no format field".into())),
    }
    match top.get("version").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(v) if v > VERSION => return Err(ImportError::FutureVersion(v)),
        _ => return Err(ImportError::BadVersion),
    }
    if let Some(k) = top.keys().find(|k| !["format", "version", "work"].contains(&k.as_str())) {
        return Err(ImportError::UnknownField(k.clone()));
    }
    let work = match top.get("work") {
        Some(Value::Object(w)) => w.clone(),
        Some(other) => return Err(ImportError::BadValue("work".into(), format!("expected an object, found {}", kind(other)))),
        None => Map::new(),
    };
    let defaults = serde_json::to_value(Work::default()).unwrap_or(Value::Null);
    unknown_fields(&Value::Object(work.clone()), &defaults, "work")?;
    let d = Work::default();
    let w = Work {
        slots: section(&work, "slots", d.slots)?,
        containerd: section(&work, "containerd", d.containerd)?,
        restart: section(&work, "restart", d.restart)?,
        check: section(&work, "check", d.check)?,
        rollout: section(&work, "rollout", d.rollout)?,
        kube: section(&work, "kube", d.kube)?,
    };
    check_ranges(&w)?;
    Ok(w)
}

/// One section of `work`, typed; a mistyped field is reported with the section's path.
fn section<T: DeserializeOwned>(work: &Map<String, Value>, name: &str, default: T) -> Result<T, ImportError> {
    match work.get(name) {
        None => Ok(default),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| ImportError::BadValue(format!("work.{name}"), e.to_string())),
    }
}

/// Every object key must exist in the defaults' shape (arrays and scalars are typed later).
fn unknown_fields(value: &Value, shape: &Value, path: &str) -> Result<(), ImportError> {
    if let (Value::Object(map), Value::Object(def)) = (value, shape) {
        for (k, v) in map {
            let sub = format!("{path}.{k}");
            match def.get(k) {
                None => return Err(ImportError::UnknownField(sub)),
                Some(d) => unknown_fields(v, d, &sub)?,
            }
        }
    }
    Ok(())
}

fn check_ranges(w: &Work) -> Result<(), ImportError> {
    let texts = [
        ("work.containerd.main", &w.containerd.main),
        ("work.containerd.dropin", &w.containerd.dropin),
        ("work.slots.config", &w.slots.config),
        ("work.kube.cluster", &w.kube.cluster),
        ("work.kube.runtimeclass", &w.kube.runtimeclass),
        ("work.kube.pod", &w.kube.pod),
    ];
    if let Some((path, _)) = texts.iter().find(|(_, t)| t.len() > MAX_TEXT) {
        return Err(ImportError::OutOfRange((*path).into(), format!("at most {MAX_TEXT} bytes")));
    }
    if w.restart.ops.len() > MAX_OPS {
        return Err(ImportError::OutOfRange("work.restart.ops".into(), format!("at most {MAX_OPS} operations")));
    }
    if w.rollout.syncs > MAX_SYNCS {
        return Err(ImportError::OutOfRange("work.rollout.syncs".into(), format!("at most {MAX_SYNCS}")));
    }
    Ok(())
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{DaemonOp, LabAction, LabState, SlotsAction};

    fn edited() -> Work {
        LabState::default()
            .apply(LabAction::Slots(SlotsAction::Nodes(5)))
            .apply(LabAction::Restart(crate::state::RestartAction::Do(DaemonOp::Restart)))
            .work
    }

    /// Export and the compact form both import back to the same work.
    #[test]
    fn export_and_compact_round_trip() {
        let w = edited();
        assert_eq!(import(&export(&w)), Ok(w.clone()));
        assert_eq!(import(&compact(&w)), Ok(w));
        assert_eq!(import(&compact(&Work::default())), Ok(Work::default()));
    }

    /// The compact form leaves out every field equal to its default.
    #[test]
    fn compact_carries_only_changes() {
        let text = compact(&edited());
        assert_eq!(text, r#"{"format":"gpu-node-lab/progress","version":1,"work":{"restart":{"ops":["restart"]},"slots":{"nodes":5}}}"#);
    }

    /// Each kind of bad file is refused with the error that names what was wrong.
    #[test]
    fn bad_files_say_what_was_wrong() {
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_FILE));
        let long = format!(r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"slots":{{"config":"{}"}}}}}}"#, "a".repeat(MAX_TEXT + 1));
        let cases: Vec<(&str, ImportError)> = vec![
            ("{", ImportError::NotJson("EOF while parsing an object at line 1 column 1".into())),
            ("[1]", ImportError::Foreign("an array".into())),
            (r#"{"name":"other"}"#, ImportError::Foreign("no format field".into())),
            (r#"{"format":"h5p"}"#, ImportError::Foreign("format \"h5p\"".into())),
            (r#"{"format":"gpu-node-lab/progress","version":2}"#, ImportError::FutureVersion(2)),
            (r#"{"format":"gpu-node-lab/progress","version":"1"}"#, ImportError::BadVersion),
            (r#"{"format":"gpu-node-lab/progress","version":1,"extra":0}"#, ImportError::UnknownField("extra".into())),
            (r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodez":3}}}"#, ImportError::UnknownField("work.slots.nodez".into())),
            (r#"{"format":"gpu-node-lab/progress","version":1,"work":[]}"#, ImportError::BadValue("work".into(), "expected an object, found an array".into())),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodes":"3"}}}"#,
                ImportError::BadValue("work.slots".into(), "invalid type: string \"3\", expected u32".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"rollout":{"syncs":61}}}"#,
                ImportError::OutOfRange("work.rollout.syncs".into(), "at most 60".into()),
            ),
            (&long, ImportError::OutOfRange("work.slots.config".into(), format!("at most {MAX_TEXT} bytes"))),
            (&big, ImportError::TooLarge(big.len())),
        ];
        for (text, expected) in cases {
            assert_eq!(import(text), Err(expected), "{}", text.get(..60).unwrap_or(text));
        }
    }
}
