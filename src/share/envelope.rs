//! The progress file: `{"format":"gpu-node-lab/progress","version":1,"work":{…}}`.
//! Import validates it field by field and says what was wrong (not JSON, another
//! program's file, a newer format, an unknown or mistyped field, a value out of
//! range); nothing is applied unless all of it is valid.

use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};

use crate::state::{CheckInput, ContainerdInput, KubeInput, RestartInput, RolloutInput, SlotsInput, Work, MAX_OPS, MAX_SYNCS};

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
    /// JSON, but not ours: not an object, or the `format` field is missing or names
    /// something else.
    Foreign(String),
    /// Our format, written by a newer lab.
    FutureVersion(u64),
    /// `version` missing or not a whole number.
    BadVersion,
    /// A field unknown or of the wrong type: serde's message (names the field or the
    /// expected type, with line and column).
    BadValue(String),
    /// A value out of range (its path and the limit).
    OutOfRange(String, String),
}

/// The envelope as written; typed serialization only (no `serde_json::Value`, whose
/// code would cost the wasm tens of KB).
#[derive(Serialize)]
struct Out<'a, W: Serialize> {
    format: &'a str,
    version: u64,
    work: W,
}

/// Only the sections that differ from the defaults.
#[derive(Serialize)]
struct Changed<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    slots: Option<&'a SlotsInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    containerd: Option<&'a ContainerdInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    restart: Option<&'a RestartInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<&'a CheckInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rollout: Option<&'a RolloutInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kube: Option<&'a KubeInput>,
}

/// The export file's text for `work`.
pub fn export(work: &Work) -> String {
    serde_json::to_string(&Out { format: FORMAT, version: VERSION, work }).unwrap_or_default()
}

/// The smallest envelope for `work`: sections equal to their defaults are left out
/// (the share link carries only what the learner changed).
pub fn compact(work: &Work) -> String {
    let d = Work::default();
    fn keep<'a, T: PartialEq>(v: &'a T, d: &T) -> Option<&'a T> {
        (v != d).then_some(v)
    }
    let changed = Changed {
        slots: keep(&work.slots, &d.slots),
        containerd: keep(&work.containerd, &d.containerd),
        restart: keep(&work.restart, &d.restart),
        check: keep(&work.check, &d.check),
        rollout: keep(&work.rollout, &d.rollout),
        kube: keep(&work.kube, &d.kube),
    };
    serde_json::to_string(&Out { format: FORMAT, version: VERSION, work: changed }).unwrap_or_default()
}

/// The two fields that say whose file it is (anything else is ignored here).
#[derive(Deserialize)]
struct Probe {
    format: Option<String>,
    version: Option<u64>,
}

/// The whole envelope, strictly: unknown fields are refused at every level.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    #[serde(rename = "format")]
    _format: IgnoredAny,
    #[serde(rename = "version")]
    _version: IgnoredAny,
    #[serde(default)]
    work: Work,
}

/// Reads a progress file (or a share link's decompressed content); nothing is
/// returned unless all of it is valid.
pub fn import(text: &str) -> Result<Work, ImportError> {
    if text.len() > MAX_FILE {
        return Err(ImportError::TooLarge(text.len()));
    }
    serde_json::from_str::<IgnoredAny>(text).map_err(|e| ImportError::NotJson(e.to_string()))?;
    if !text.trim_start().starts_with('{') {
        return Err(ImportError::Foreign("not a JSON object".into()));
    }
    let probe = serde_json::from_str::<Probe>(text).map_err(|e| ImportError::BadValue(e.to_string()))?;
    match probe.format {
        Some(f) if f == FORMAT => {}
        Some(f) => return Err(ImportError::Foreign(format!("format {f:?}"))),
        None => return Err(ImportError::Foreign("no format field".into())),
    }
    match probe.version {
        Some(VERSION) => {}
        Some(v) if v > VERSION => return Err(ImportError::FutureVersion(v)),
        _ => return Err(ImportError::BadVersion),
    }
    let work = serde_json::from_str::<Envelope>(text).map_err(|e| ImportError::BadValue(e.to_string()))?.work;
    check_ranges(&work)?;
    Ok(work)
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

    /// The compact form leaves out every section equal to its default.
    #[test]
    fn compact_carries_only_changes() {
        let text = compact(&edited());
        let d = SlotsInput::default();
        let expected = format!(
            r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"slots":{{"gpu_model":{:?},"gpus_per_node":8,"nodes":5,"replicas":4,"config":{}}},"restart":{{"supervisor":"systemd","ops":["restart"]}}}}}}"#,
            d.gpu_model,
            serde_json::to_string(&d.config).unwrap()
        );
        assert_eq!(text, expected);
    }

    /// Each kind of bad file is refused with the error that names what was wrong.
    #[test]
    fn bad_files_say_what_was_wrong() {
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_FILE));
        let long = format!(r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"slots":{{"config":"{}"}}}}}}"#, "a".repeat(MAX_TEXT + 1));
        let cases: Vec<(&str, ImportError)> = vec![
            ("{", ImportError::NotJson("EOF while parsing an object at line 1 column 1".into())),
            ("[1]", ImportError::Foreign("not a JSON object".into())),
            (r#"{"format":7}"#, ImportError::BadValue("invalid type: integer `7`, expected a string".into())),
            (r#"{"name":"other"}"#, ImportError::Foreign("no format field".into())),
            (r#"{"format":"h5p"}"#, ImportError::Foreign("format \"h5p\"".into())),
            (r#"{"format":"gpu-node-lab/progress","version":2}"#, ImportError::FutureVersion(2)),
            (r#"{"format":"gpu-node-lab/progress","version":"1"}"#, ImportError::BadValue("invalid type: string \"1\", expected u64".into())),
            (r#"{"format":"gpu-node-lab/progress"}"#, ImportError::BadVersion),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"extra":0}"#,
                ImportError::BadValue("unknown field `extra`, expected one of `format`, `version`, `work`".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodez":3}}}"#,
                ImportError::BadValue("unknown field `nodez`, expected one of `gpu_model`, `gpus_per_node`, `nodes`, `replicas`, `config`".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodes":"3"}}}"#,
                ImportError::BadValue("invalid type: string \"3\", expected u32".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"rollout":{"syncs":61}}}"#,
                ImportError::OutOfRange("work.rollout.syncs".into(), "at most 60".into()),
            ),
            (&long, ImportError::OutOfRange("work.slots.config".into(), format!("at most {MAX_TEXT} bytes"))),
            (&big, ImportError::TooLarge(big.len())),
        ];
        for (text, expected) in cases {
            // serde's messages end with " at line L column C"; the cases name the part before.
            let got = import(text).map_err(|e| match e {
                ImportError::BadValue(m) => ImportError::BadValue(m.split(" at line ").next().unwrap().to_string()),
                e => e,
            });
            assert_eq!(got, Err(expected), "{}", text.get(..60).unwrap_or(text));
        }
    }
}
