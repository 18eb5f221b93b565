//! The step-2 view: for every effective key, the file:line it came from; for every
//! drop-in, the tables it replaced whole and each earlier key that was lost (with both
//! locations), the keys dropped as unknown, the values that changed; and the CRI
//! plugin's resulting status with that version's own error text.
//!
//! Diagnostics carry stable codes and arguments; the UI and CLI word them.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::dump::Effective;
use super::load::Loaded;
use super::merge::MergeEvent;
use super::value::{Node, Origin, Table, Value};
use super::version::Version;
use super::Start;
use crate::diagnostic::{Diagnostic, Severity, Span};

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Blame {
    /// Dotted TOML key, e.g. `plugins."io.containerd.grpc.v1.cri".sandbox_image`.
    pub key: String,
    /// The value as TOML.
    pub value: String,
    /// `file:line` (the blame lists only values a file set; every other effective
    /// value is the version's built-in default, shown by `config dump`).
    pub from: Option<String>,
}

/// A table a later file replaced whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replacement {
    pub table: String,
    pub by: Option<String>,
    pub earlier: Option<String>,
    pub lost: Vec<LostKey>,
}

/// An earlier setting that does not reach the effective config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LostKey {
    pub key: String,
    pub value: String,
    /// Where it was set.
    pub defined_at: Option<String>,
    /// What dropped it (the replacing table, or nothing for an ignored key).
    pub lost_at: Option<String>,
    /// `replaced` (a whole table replaced), `ignored` (a key no plugin reads).
    pub reason: String,
}

/// The explanation of one load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explanation {
    pub version: String,
    /// Files in load order.
    pub files: Vec<String>,
    pub blame: Vec<Blame>,
    pub replaced: Vec<Replacement>,
    /// Settings from the files that do not reach the effective config.
    pub lost: Vec<LostKey>,
    pub unknown: Vec<Blame>,
    pub changed: Vec<Change>,
    /// `ok`, `error`, `absent`, `daemon-exited`.
    pub cri_status: String,
    pub cri_error: Option<String>,
    /// The daemon's fatal line when it would exit.
    pub daemon_exit: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A value a later file changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub key: String,
    pub old: String,
    pub new: String,
    pub old_at: Option<String>,
    pub new_at: Option<String>,
}

impl Explanation {
    /// Settings written in the main config that are lost (a subset of [`Self::lost`],
    /// the one list the step and the CLI show and count).
    pub fn main_settings_lost(&self) -> usize {
        let Some(main) = self.files.first() else { return 0 };
        self.lost.iter().filter(|l| l.defined_at.as_deref().and_then(|d| d.strip_prefix(main.as_str())).is_some_and(|r| r.starts_with(':'))).count()
    }
}

fn span(o: &Origin) -> Span {
    Span::new(&*o.file, o.line, o.column)
}

fn push_key_part(out: &mut String, k: &str) {
    if !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-') {
        out.push_str(k);
    } else {
        out.push('"');
        out.push_str(k);
        out.push('"');
    }
}

fn key_part(k: &str) -> String {
    let mut out = String::new();
    push_key_part(&mut out, k);
    out
}

/// A dotted TOML key for a path (one allocation: it is built for every blamed key of
/// every keystroke on a large config).
pub fn dotted<S: AsRef<str>>(path: &[S]) -> String {
    let mut out = String::with_capacity(path.iter().map(|k| k.as_ref().len() + 3).sum());
    for (i, k) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        push_key_part(&mut out, k.as_ref());
    }
    out
}

/// A value as inline TOML.
pub fn show(n: &Node) -> String {
    match &n.value {
        Value::String(s) => format!("\"{}\"", super::encode::v2_escape(s)),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => crate::float::display(*f),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", ")),
        Value::Table(t) => format!("{{{}}}", t.entries.iter().map(|(k, v)| format!("{} = {}", key_part(k), show(v))).collect::<Vec<_>>().join(", ")),
    }
}

/// Visits the leaves of `t` (values other than non-empty tables; an empty table is
/// no setting) in order, with their path; `prefix` is the path down to `t`.
fn for_each_leaf<'t>(prefix: &mut Vec<&'t str>, t: &'t Table, visit: &mut impl FnMut(&[&'t str], &'t Node)) {
    for (k, n) in &t.entries {
        prefix.push(k);
        match &n.value {
            Value::Table(sub) if !sub.entries.is_empty() => for_each_leaf(prefix, sub, visit),
            Value::Table(_) => {}
            _ => visit(prefix, n),
        }
        prefix.pop();
    }
}

/// Collects the leaves of `t` that carry an origin, without copying the others.
fn blame_walk<'t>(prefix: &mut Vec<&'t str>, t: &'t Table, blame: &mut Vec<Blame>, surviving: &mut HashSet<Origin>) {
    for (k, n) in &t.entries {
        match &n.value {
            Value::Table(sub) => {
                prefix.push(k);
                blame_walk(prefix, sub, blame, surviving);
                prefix.pop();
            }
            _ => {
                if let Some(o) = &n.origin {
                    prefix.push(k);
                    blame.push(Blame { key: dotted(prefix), value: show(n), from: Some(o.to_string()) });
                    prefix.pop();
                    surviving.insert(o.clone());
                }
            }
        }
    }
}

/// Builds the explanation of a load.
pub fn explain(version: &Version, loaded: &Loaded, effective: Option<&Effective>, start: &Start) -> Explanation {
    let mut diagnostics = Vec::new();
    let files: Vec<String> = loaded.files.iter().map(|f| f.path.clone()).collect();

    // Blame: every effective value that a file set (the rest are built-in defaults).
    let mut blame = Vec::new();
    let mut surviving: HashSet<Origin> = HashSet::new();
    if let Some(eff) = effective {
        blame_walk(&mut Vec::new(), &eff.root, &mut blame, &mut surviving);
    }

    let mut replaced = Vec::new();
    let mut changed = Vec::new();
    let mut overridden: HashSet<Origin> = HashSet::new();
    // A lost leaf's origin → the location of the table that replaced it.
    let mut replaced_at: HashMap<Origin, Option<String>> = HashMap::new();
    for ev in &loaded.events {
        match ev {
            MergeEvent::TableReplaced { table, by, earlier, lost } => {
                // Each text is built once per lost key and shared by the replacement's
                // list and the key's diagnostic (a drop-in that replaces a big table
                // loses hundreds of keys on every keystroke).
                let table_key = dotted(table);
                let by_text = by.as_ref().map(ToString::to_string);
                let by_span = by.as_ref().map(span);
                let mut d = Diagnostic::new("containerd-table-replaced", Severity::Warning)
                    .arg("table", table_key.as_str())
                    .arg("lost", lost.len());
                if let Some(b) = &by_span {
                    d = d.at(b.clone());
                }
                if let Some(e) = earlier {
                    d = d.related("defined-here", span(e));
                }
                diagnostics.push(d);
                let mut lost_keys = Vec::with_capacity(lost.len());
                let mut full: Vec<&str> = table.iter().map(String::as_str).collect();
                for l in lost {
                    full.truncate(table.len());
                    full.extend(l.path.iter().map(String::as_str));
                    let key = dotted(&full);
                    let value = show(&l.value);
                    if let Some(o) = &l.value.origin {
                        replaced_at.insert(o.clone(), by_text.clone());
                    }
                    let mut d = Diagnostic::new("containerd-key-lost", Severity::Warning)
                        .arg("key", key.as_str())
                        .arg("value", value.as_str())
                        .arg("table", table_key.as_str());
                    if let Some(b) = &by_span {
                        d = d.at(b.clone());
                    }
                    if let Some(o) = &l.value.origin {
                        d = d.related("defined-here", span(o));
                    }
                    diagnostics.push(d);
                    lost_keys.push(LostKey {
                        key,
                        value,
                        defined_at: l.value.origin.as_ref().map(ToString::to_string),
                        lost_at: by_text.clone(),
                        reason: "replaced".into(),
                    });
                }
                replaced.push(Replacement {
                    table: table_key,
                    by: by_text,
                    earlier: earlier.as_ref().map(ToString::to_string),
                    lost: lost_keys,
                });
            }
            MergeEvent::ValueChanged { path, old, new } => {
                if let Some(o) = &old.origin {
                    overridden.insert(o.clone());
                }
                let mut d = Diagnostic::new("containerd-value-changed", Severity::Info)
                    .arg("key", dotted(path))
                    .arg("old", show(old))
                    .arg("new", show(new));
                if let Some(n) = &new.origin {
                    d = d.at(span(n));
                }
                if let Some(o) = &old.origin {
                    d = d.related("defined-here", span(o));
                }
                diagnostics.push(d);
                changed.push(Change {
                    key: dotted(path),
                    old: show(old),
                    new: show(new),
                    old_at: old.origin.as_ref().map(ToString::to_string),
                    new_at: new.origin.as_ref().map(ToString::to_string),
                });
            }
            MergeEvent::ZeroIgnored { path, at } => {
                let mut d = Diagnostic::new("containerd-zero-value-ignored", Severity::Info).arg("key", dotted(path));
                if let Some(a) = at {
                    d = d.at(span(a));
                }
                diagnostics.push(d);
            }
            MergeEvent::UnknownKey { .. } => {}
        }
    }

    // Unknown keys: top-level ones found while reading files, plugin ones while decoding.
    let mut unknown = Vec::new();
    for ev in &loaded.events {
        if let MergeEvent::UnknownKey { path, at } = ev {
            unknown.push(Blame { key: dotted(path), value: String::new(), from: at.as_ref().map(ToString::to_string) });
            let mut d = Diagnostic::new("containerd-unknown-key", Severity::Warning).arg("key", dotted(path));
            if let Some(a) = at {
                d = d.at(span(a));
            }
            diagnostics.push(d);
        }
    }
    if let Some(eff) = effective {
        for (plugin, k) in &eff.unknown {
            let mut full = vec!["plugins".to_string(), plugin.clone()];
            full.extend(k.path.iter().cloned());
            unknown.push(Blame { key: dotted(&full), value: String::new(), from: k.at.as_ref().map(ToString::to_string) });
            let mut d = Diagnostic::new("containerd-unknown-key", Severity::Warning).arg("key", dotted(&full)).arg("plugin", plugin);
            if let Some(a) = &k.at {
                d = d.at(span(a));
            }
            diagnostics.push(d);
        }
        for (id, node) in &eff.ignored_tables {
            let mut d = Diagnostic::new("containerd-plugin-table-ignored", Severity::Warning).arg("table", id);
            if let Some(o) = &node.origin {
                d = d.at(span(o));
            }
            diagnostics.push(d);
        }
    }

    // Settings written in a file that reach neither the effective config nor a later
    // override: lost (replaced whole, ignored as unknown, or on another plugin ID). A
    // setting a later file writes again at the same key is that file's to lose or keep
    // (a drop-in that restates the main config's table keeps those keys): each key is
    // counted once, where it was written last.
    let mut lost = Vec::new();
    if effective.is_some() {
        for (i, f) in loaded.files.iter().enumerate() {
            let later = loaded.files.get(i + 1..).unwrap_or_default();
            for_each_leaf(&mut Vec::new(), &f.raw, &mut |path, node| {
                if matches!(path.first(), Some(&("version" | "imports"))) {
                    return;
                }
                let Some(o) = &node.origin else { return };
                if surviving.contains(o) || overridden.contains(o) {
                    return;
                }
                let replaced_by = replaced_at.get(o);
                if replaced_by.is_none() && later.iter().any(|l| l.raw.get_path(path).is_some()) {
                    return;
                }
                lost.push(LostKey {
                    key: dotted(path),
                    value: show(node),
                    defined_at: Some(o.to_string()),
                    lost_at: replaced_by.cloned().flatten(),
                    reason: if replaced_by.is_some() { "replaced".into() } else { "ignored".into() },
                });
            });
        }
    }

    let (cri_status, cri_error, daemon_exit) = match start {
        Start::Serving(cri) => (cri.status().as_str().to_string(), cri.error.clone(), None),
        Start::Exited { last_line, .. } => ("daemon-exited".to_string(), None, Some(last_line.clone())),
    };
    if let Some(e) = &cri_error {
        diagnostics.push(Diagnostic::new("containerd-cri-plugin-error", Severity::Error).arg("error", e).arg("line", start.cri_error_line().unwrap_or("")));
    }
    if let Some(l) = &daemon_exit {
        diagnostics.push(Diagnostic::new("containerd-daemon-exits", Severity::Fatal).arg("line", l));
    }
    Explanation {
        version: version.to_string(),
        files,
        blame,
        replaced,
        lost,
        unknown,
        changed,
        cri_status,
        cri_error,
        daemon_exit,
        diagnostics,
    }
}

#[cfg(test)]
mod tests {
    use crate::containerd::{load, Files, Version};

    const MAIN: &str = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n\n[plugins]\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n    sandbox_image = \"registry.k8s.io/pause:3.9\"\n    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n      default_runtime_name = \"runc\"\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]\n        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n          runtime_type = \"io.containerd.runc.v2\"\n          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n            SystemdCgroup = true\n";
    const DROPIN: &str = "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n";

    fn incident() -> Files {
        Files::new().with("/etc/containerd/config.toml", MAIN).with("/etc/containerd/conf.d/99-nvidia.toml", DROPIN)
    }

    /// The incident on each line: which tables are replaced whole, which main-config
    /// keys are lost (both locations), the CRI status and its error text.
    #[test]
    fn incident_per_version() {
        // (version, tables replaced, main keys lost, CRI status, error)
        let cases: &[(&str, usize, usize, &str, Option<&str>)] = &[
            ("1.6.20", 1, 4, "error", Some("no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"runc\"")),
            ("1.7.34", 1, 4, "error", Some("no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"runc\"")),
            ("2.0.11", 0, 0, "ok", None),
            ("2.3.4", 0, 0, "ok", None),
            ("main", 0, 0, "ok", None),
        ];
        for (v, replaced, lost, status, error) in cases {
            let r = load(&incident(), &Version::parse(v).unwrap());
            let e = &r.explanation;
            assert_eq!(e.replaced.len(), *replaced, "{v}");
            assert_eq!(e.main_settings_lost(), *lost, "{v}: {:?}", e.lost);
            assert_eq!(e.cri_status, *status, "{v}");
            assert_eq!(e.cri_error.as_deref(), *error, "{v}");
        }
    }

    /// A lost key's diagnostic points at the replacing header and at its own line.
    #[test]
    fn lost_key_has_both_locations() {
        let r = load(&incident(), &Version::parse("1.6.20").unwrap());
        let d = r
            .diagnostics
            .iter()
            .find(|d| d.code == "containerd-key-lost" && d.get("key").is_some_and(|k| k.ends_with("SystemdCgroup")))
            .unwrap();
        let primary = d.primary.as_ref().unwrap();
        assert_eq!((primary.file.as_str(), primary.line), ("/etc/containerd/conf.d/99-nvidia.toml", 1));
        let defined = &d.related.first().unwrap().span;
        assert_eq!((defined.file.as_str(), defined.line), ("/etc/containerd/config.toml", 13));
        // Blame: the surviving nvidia runtime points at the drop-in.
        let b = r.explanation.blame.iter().find(|b| b.key.ends_with("nvidia.options.BinaryName")).unwrap();
        assert_eq!(b.from.as_deref(), Some("/etc/containerd/conf.d/99-nvidia.toml:4"));
    }

    /// On 2.0–2.2 a v3 drop-in makes the v2 main's CRI keys unknown: reported as
    /// unknown and lost (the silent-loss class of the 1.x incident).
    #[test]
    fn v3_dropin_makes_v2_keys_unknown() {
        let dropin = "version = 3\n[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n";
        let files = Files::new().with("/etc/containerd/config.toml", MAIN).with("/etc/containerd/conf.d/99-nvidia.toml", dropin);
        let r = load(&files, &Version::parse("2.1.9").unwrap());
        assert!(r.explanation.unknown.iter().any(|u| u.key.ends_with("sandbox_image")));
        assert_eq!(r.explanation.main_settings_lost(), 4);
        assert_eq!(r.explanation.cri_status, "ok");
    }

    /// A drop-in that restates the main config's keys keeps them: the lost list holds
    /// only what no file sets any more, on each version the same keys the replaced
    /// tables (1.x) list, and the main config's count is the count of its entries.
    #[test]
    fn restated_keys_are_not_lost_per_version() {
        const CRI: &str = "[plugins.\"io.containerd.grpc.v1.cri\"]\n";
        const RUNC: &str = "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\"\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n";
        let partial = format!("{CRI}{DROPIN}{RUNC}");
        let full = format!("{CRI}  sandbox_image = \"registry.k8s.io/pause:3.9\"\n{DROPIN}{RUNC}");
        // (version, drop-in, tables replaced, lost keys)
        let sandbox = "plugins.\"io.containerd.grpc.v1.cri\".sandbox_image";
        let cases: &[(&str, &str, usize, &[&str])] = &[
            ("1.7.34", &partial, 1, &[sandbox]),
            ("1.7.34", &full, 1, &[]),
            ("1.6.39", &partial, 1, &[sandbox]),
            ("2.0.11", &partial, 0, &[]),
            ("2.0.11", &full, 0, &[]),
            ("2.3.4", &full, 0, &[]),
        ];
        for (v, dropin, replaced, keys) in cases {
            let files = Files::new().with("/etc/containerd/config.toml", MAIN).with("/etc/containerd/conf.d/99-nvidia.toml", *dropin);
            let e = load(&files, &Version::parse(v).unwrap()).explanation;
            assert_eq!(e.replaced.len(), *replaced, "{v}: {dropin}");
            let lost: Vec<&str> = e.lost.iter().map(|l| l.key.as_str()).collect();
            assert_eq!(&lost, keys, "{v}: {dropin}");
            assert_eq!(e.main_settings_lost(), keys.len(), "{v}");
            // 1.x: the lost list is the replaced tables' lost keys, once each.
            let listed: Vec<&str> = e.replaced.iter().flat_map(|r| r.lost.iter().map(|l| l.key.as_str())).collect();
            assert_eq!(listed, lost, "{v}");
            assert!(e.lost.iter().all(|l| l.reason == "replaced" && l.lost_at.is_some()), "{v}: {:?}", e.lost);
        }
    }

    /// Each key is lost once, where it was written last: a key the first drop-in
    /// restates and a second drop-in's table then drops is that drop-in's loss.
    #[test]
    fn a_key_is_lost_once_where_written_last() {
        let again = "[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"registry.k8s.io/pause:3.9\"\n";
        let files = Files::new()
            .with("/etc/containerd/config.toml", MAIN)
            .with("/etc/containerd/conf.d/10-again.toml", again)
            .with("/etc/containerd/conf.d/99-nvidia.toml", DROPIN);
        let e = load(&files, &Version::parse("1.7.34").unwrap()).explanation;
        let sandbox: Vec<_> = e.lost.iter().filter(|l| l.key.ends_with("sandbox_image")).collect();
        assert_eq!(sandbox.len(), 1, "{:?}", e.lost);
        assert_eq!(sandbox.first().and_then(|l| l.defined_at.as_deref()), Some("/etc/containerd/conf.d/10-again.toml:2"));
        assert_eq!(e.main_settings_lost(), 3, "{:?}", e.lost);
    }
}
