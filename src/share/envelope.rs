//! The progress file: `{"format":"gpu-node-lab/progress","version":1,"work":{…}}`.
//! Import validates it field by field and says what was wrong (not JSON, another
//! program's file, a newer format, an unknown or mistyped field, a value out of
//! range); nothing is applied unless all of it is valid.
//!
//! The writer holds to the same limits ([`check`]): [`export`] and [`compact`] refuse
//! work the reader would refuse, with the same error, instead of writing a file or
//! link the lab then cannot open (issue 20: a 300 KB config gave a link and an
//! export that import refused).

use crate::json::{self, Object, Value};
use crate::state::{Work, MAX_MARKS, MAX_MARK_LEN, MAX_OPS};
use crate::work_json::{self, Mode, Sections};

/// The `format` field every progress file (and share link) carries.
pub const FORMAT: &str = "gpu-node-lab/progress";
/// The format version this lab writes and reads.
pub const VERSION: u64 = 1;
/// The largest file import accepts (bytes); a lab's work is a few KB.
pub const MAX_FILE: usize = 1024 * 1024;
/// The longest text an editor holds (bytes): the editor refuses a longer text
/// ([`crate::components::editor`]), export and links do not write one, import refuses it.
pub const MAX_TEXT: usize = 256 * 1024;
/// The file name export suggests.
pub const FILE_NAME: &str = "gpu-node-lab-progress.json";

/// Why a progress file or a share link's content was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// Bigger than [`MAX_FILE`]; the size in bytes.
    TooLarge(usize),
    /// Not JSON at all: what is wrong, with line and column.
    NotJson(String),
    /// JSON, but not ours: not an object, or the `format` field is missing or names
    /// something else.
    Foreign(String),
    /// Our format, written by a newer lab.
    FutureVersion(u64),
    /// `version` missing or not a whole number.
    BadVersion,
    /// A field unknown or of the wrong type, named by its path (`work.slots.nodes`).
    BadValue(String),
    /// A value out of range (its path and the limit).
    OutOfRange(String, String),
}

fn envelope(work: &Work, sections: Sections) -> String {
    let mut out = String::new();
    Object::new(&mut out).str("format", FORMAT).num("version", VERSION).with("work", |out| work_json::write(out, work, sections)).end();
    out
}

/// The export file's text for `work`, or why import would refuse it (then nothing
/// is written).
pub fn export(work: &Work) -> Result<String, ImportError> {
    written(work, Sections::All)
}

/// The smallest envelope for `work`: sections equal to their defaults are left out
/// (the share link carries only what the learner changed); refused like [`export`].
pub fn compact(work: &Work) -> Result<String, ImportError> {
    written(work, Sections::Changed)
}

fn written(work: &Work, sections: Sections) -> Result<String, ImportError> {
    check(work)?;
    let text = envelope(work, sections);
    if text.len() > MAX_FILE {
        return Err(ImportError::TooLarge(text.len()));
    }
    Ok(text)
}

/// Reads a progress file (or a share link's decompressed content); nothing is
/// returned unless all of it is valid.
pub fn import(text: &str) -> Result<Work, ImportError> {
    if text.len() > MAX_FILE {
        return Err(ImportError::TooLarge(text.len()));
    }
    let doc = json::parse(text).map_err(|e| ImportError::NotJson(e.to_string()))?;
    let Value::Object(members) = &doc else {
        return Err(ImportError::Foreign("not a JSON object".into()));
    };
    match doc.get("format") {
        Some(Value::String(f)) if f == FORMAT => {}
        Some(Value::String(f)) => return Err(ImportError::Foreign(format!("format {}", gpulab_model::go::quote(f)))),
        Some(other) => return Err(ImportError::BadValue(format!("format: expected a string, found {}", other.kind()))),
        None => return Err(ImportError::Foreign("no format field".into())),
    }
    match doc.get("version") {
        None => return Err(ImportError::BadVersion),
        Some(v @ Value::Number(_)) => match v.as_u64() {
            Some(VERSION) => {}
            Some(n) if n > VERSION => return Err(ImportError::FutureVersion(n)),
            _ => return Err(ImportError::BadVersion),
        },
        Some(other) => return Err(ImportError::BadValue(format!("version: expected a whole number, found {}", other.kind()))),
    }
    if let Some((key, _)) = members.iter().find(|(k, _)| !["format", "version", "work"].contains(&k.as_str())) {
        return Err(ImportError::BadValue(format!("unknown field `{key}`, expected one of `format`, `version`, `work`")));
    }
    let work = match doc.get("work") {
        Some(w) => work_json::read(w, "work", Mode::Strict).map_err(ImportError::BadValue)?,
        None => Work::default(),
    };
    check(&work)?;
    Ok(work)
}

/// The limits a progress file's work keeps to, for the writer and the reader alike.
/// (Numbers are bounded where they are read, [`crate::work_json`], by the ranges of
/// the page's inputs; the lab's own reducer never leaves them.)
pub fn check(w: &Work) -> Result<(), ImportError> {
    let texts = [
        ("work.containerd.main", &w.containerd.main),
        ("work.containerd.dropin", &w.containerd.dropin),
        ("work.slots.config", &w.slots.config),
        ("work.kube.cluster", &w.kube.cluster),
        ("work.kube.runtimeclass", &w.kube.runtimeclass),
        ("work.kube.pod", &w.kube.pod),
        ("work.kube.dra_pod", &w.kube.dra_pod),
        ("work.kube.dra_objects", &w.kube.dra_objects),
        ("work.kube.ext_objects", &w.kube.ext_objects),
        ("work.rollout.words", &w.rollout.words),
    ];
    if let Some((path, t)) = texts.iter().find(|(_, t)| t.len() > MAX_TEXT) {
        return Err(ImportError::OutOfRange((*path).into(), format!("{} bytes, at most {MAX_TEXT}", t.len())));
    }
    if w.restart.ops.len() > MAX_OPS {
        return Err(ImportError::OutOfRange("work.restart.ops".into(), format!("{} operations, at most {MAX_OPS}", w.restart.ops.len())));
    }
    if w.rollout.marks.len() > MAX_MARKS {
        return Err(ImportError::OutOfRange("work.rollout.marks".into(), format!("{} cells, at most {MAX_MARKS}", w.rollout.marks.len())));
    }
    if let Some(m) = w.rollout.marks.iter().find(|m| m.len() > MAX_MARK_LEN) {
        return Err(ImportError::OutOfRange("work.rollout.marks".into(), format!("a key of {} bytes, at most {MAX_MARK_LEN}", m.len())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{DaemonOp, LabAction, LabState, SlotsAction, SlotsInput};

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
        assert_eq!(import(&export(&w).unwrap()), Ok(w.clone()));
        assert_eq!(import(&compact(&w).unwrap()), Ok(w));
        assert_eq!(import(&compact(&Work::default()).unwrap()), Ok(Work::default()));
    }

    /// The compact form leaves out every section equal to its default.
    #[test]
    fn compact_carries_only_changes() {
        let text = compact(&edited()).unwrap();
        let d = SlotsInput::default();
        let expected = format!(
            r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"slots":{{"gpu_model":{:?},"gpus_per_node":8,"nodes":5,"replicas":4,"config":{}}},"restart":{{"supervisor":"systemd","ops":["restart"]}}}}}}"#,
            d.gpu_model,
            serde_json::to_string(&d.config).unwrap()
        );
        assert_eq!(text, expected);
    }

    /// Issue 20: what the lab writes it reads back. Every editor text at its limit
    /// (each a different size, so none is confused with another): export and the
    /// link's envelope are written and import to the same work. One byte over, or
    /// the whole file over its size, and the writer refuses with the error the reader
    /// would give, instead of writing what import then refuses.
    #[test]
    fn writes_only_what_it_reads_back() {
        let fill = |c: char, n: usize| c.to_string().repeat(n);
        let mut at_limit = edited();
        at_limit.containerd.main = fill('m', MAX_TEXT);
        at_limit.slots.config = fill('c', MAX_TEXT);
        at_limit.kube.pod = format!("{}한", fill('p', MAX_TEXT - 3));
        for text in [export(&at_limit), compact(&at_limit)] {
            let text = text.expect("work at the limits is written");
            assert!(text.len() <= MAX_FILE);
            assert_eq!(import(&text), Ok(at_limit.clone()));
        }
        let mut over = at_limit.clone();
        over.kube.pod.push('p');
        let refused = ImportError::OutOfRange("work.kube.pod".into(), format!("{} bytes, at most {MAX_TEXT}", MAX_TEXT + 1));
        assert_eq!(export(&over), Err(refused.clone()));
        assert_eq!(compact(&over), Err(refused.clone()));
        // What the writer refuses, the reader refuses the same way.
        let forced = envelope(&over, Sections::All);
        assert_eq!(import(&forced), Err(refused));
        // Every text within its limit, the whole over the file's: refused by size.
        let mut big = at_limit.clone();
        big.containerd.dropin = fill('"', MAX_TEXT);
        big.kube.cluster = fill('k', MAX_TEXT);
        let size = envelope(&big, Sections::All).len();
        assert!(size > MAX_FILE);
        assert_eq!(export(&big), Err(ImportError::TooLarge(size)));
        assert_eq!(import(&envelope(&big, Sections::All)), Err(ImportError::TooLarge(size)));
    }

    /// Each kind of bad file is refused with the error that names what was wrong.
    #[test]
    fn bad_files_say_what_was_wrong() {
        let big = format!("{{\"x\":\"{}\"}}", "a".repeat(MAX_FILE));
        let long = format!(r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"slots":{{"config":"{}"}}}}}}"#, "a".repeat(MAX_TEXT + 1));
        let marks = |keys: Vec<String>| format!(r#"{{"format":"gpu-node-lab/progress","version":1,"work":{{"rollout":{{"marks":[{}]}}}}}}"#, keys.join(","));
        let many_marks = marks((0..=MAX_MARKS).map(|i| format!("\"get-ds/{i}/READY\"")).collect());
        let long_mark = marks(vec![format!("\"{}\"", "p".repeat(MAX_MARK_LEN + 1))]);
        let cases: Vec<(&str, ImportError)> = vec![
            ("{", ImportError::NotJson("expected a member name in double quotes, found the end of the text at line 1 column 2".into())),
            ("[1]", ImportError::Foreign("not a JSON object".into())),
            (r#"{"format":7}"#, ImportError::BadValue("format: expected a string, found a number".into())),
            (r#"{"name":"other"}"#, ImportError::Foreign("no format field".into())),
            (r#"{"format":"h5p"}"#, ImportError::Foreign("format \"h5p\"".into())),
            (r#"{"format":"gpu-node-lab/progress","version":2}"#, ImportError::FutureVersion(2)),
            (r#"{"format":"gpu-node-lab/progress","version":"1"}"#, ImportError::BadValue("version: expected a whole number, found a string".into())),
            (r#"{"format":"gpu-node-lab/progress","version":1.5}"#, ImportError::BadVersion),
            (r#"{"format":"gpu-node-lab/progress"}"#, ImportError::BadVersion),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"extra":0}"#,
                ImportError::BadValue("unknown field `extra`, expected one of `format`, `version`, `work`".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodez":3}}}"#,
                ImportError::BadValue("unknown field `nodez` in work.slots, expected one of `gpu_model`, `gpus_per_node`, `nodes`, `replicas`, `config`".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodes":"3"}}}"#,
                ImportError::BadValue("work.slots.nodes: expected a whole number from 1 to 5000, found string \"3\"".into()),
            ),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"rollout":{"syncs":61}}}"#,
                ImportError::BadValue("work.rollout.syncs: expected a whole number from 0 to 60, found 61".into()),
            ),
            (&long, ImportError::OutOfRange("work.slots.config".into(), format!("{} bytes, at most {MAX_TEXT}", MAX_TEXT + 1))),
            (&many_marks, ImportError::OutOfRange("work.rollout.marks".into(), format!("{} cells, at most {MAX_MARKS}", MAX_MARKS + 1))),
            (&long_mark, ImportError::OutOfRange("work.rollout.marks".into(), format!("a key of {} bytes, at most {MAX_MARK_LEN}", MAX_MARK_LEN + 1))),
            (
                r#"{"format":"gpu-node-lab/progress","version":1,"work":{"rollout":{"marks":["get-ds/1/READY",3]}}}"#,
                ImportError::BadValue("work.rollout.marks[1]: expected a string, found a number".into()),
            ),
            (&big, ImportError::TooLarge(big.len())),
        ];
        for (text, expected) in cases {
            assert_eq!(import(text), Err(expected), "{}", text.get(..60).unwrap_or(text));
        }
    }
}
