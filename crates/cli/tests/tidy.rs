//! House rules, checked inside `cargo test` (rust-analyzer's tidy pattern): every
//! Rust file starts with a `//!` module doc; no test is ignored or expected to panic;
//! every UI message id exists in both Korean and English; the report code writes no
//! Korean inline (its labels live in the model's catalogue); the model's areas import only
//! what ARCHITECTURE.md's import rules allow.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | "node_modules" | "dist" | ".git") && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file in the repository opens with a `//!` doc comment.
#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 10, "found only {} Rust files under {}", files.len(), root.display());
    let missing: Vec<_> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            !first.starts_with("//!")
        })
        .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a leading `//!` doc: {missing:#?}");
}

/// No test is switched off or passes by panicking.
#[test]
fn no_ignored_or_should_panic_tests() {
    let root = repo_root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    // Built from pieces so this file does not match itself.
    let banned = [format!("#[{}", "ignore"), format!("#[{}", "should_panic")];
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if banned.iter().any(|b| line.trim_start().starts_with(b.as_str())) {
                hits.push(format!("{}:{}: {}", f.strip_prefix(&root).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    assert!(hits.is_empty(), "banned test attributes: {hits:#?}");
}

fn message_ids(lang: &str) -> BTreeSet<String> {
    let path = repo_root().join("i18n").join(format!("{lang}.ftl"));
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once(" = ").map(|(id, _)| id.trim().to_string()))
        .collect()
}

/// Korean and English define exactly the same message ids, and the same placeables
/// for each (a translation that drops `{ $issue }` would lose information).
#[test]
fn every_message_exists_in_both_languages() {
    let (ko, en) = (message_ids("ko"), message_ids("en"));
    assert!(ko.len() >= 12, "only {} messages in ko.ftl", ko.len());
    assert_eq!(ko.symmetric_difference(&en).collect::<Vec<_>>(), Vec::<&String>::new());
    let placeables = |lang: &str| -> Vec<(String, BTreeSet<String>)> {
        let text = std::fs::read_to_string(repo_root().join(format!("i18n/{lang}.ftl"))).unwrap();
        text.lines()
            .filter_map(|l| l.split_once(" = "))
            .filter(|(id, _)| !id.starts_with('#'))
            .map(|(id, value)| {
                let args = value.split("{ $").skip(1).filter_map(|s| s.split_once(' ')).map(|(a, _)| a.to_string());
                (id.trim().to_string(), args.collect())
            })
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_iter()
            .collect()
    };
    assert_eq!(placeables("ko"), placeables("en"));
}

/// The files that word the incident report take every label from the model's catalogue
/// (`incident/labels.rs`): no Korean written inline in them.
const REPORT_CODE: [&str; 2] = ["crates/model/src/incident/report.rs", "crates/web-k8s/src/report.rs"];

/// The lines of `text` that hold Hangul, as `N: line`.
fn hangul_lines(text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c) || ('\u{3131}'..='\u{318E}').contains(&c)))
        .map(|(n, l)| format!("{}: {}", n + 1, l.trim()))
        .collect()
}

/// The report code holds no inline Korean; the checker finds a Hangul label on a fake
/// input (so a passing run is not a checker that sees nothing).
#[test]
fn report_labels_live_in_the_catalogue() {
    assert_eq!(hangul_lines("let a = t(l, \"Summary\", \"요약\");\nlet b = 1;"), vec!["1: let a = t(l, \"Summary\", \"요약\");"]);
    let root = repo_root();
    for file in REPORT_CODE {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains("Label::"), "{file}: no catalogue label used (moved?)");
        assert_eq!(hangul_lines(&text), Vec::<String>::new(), "{file}: Korean inline, put it in incident/labels.rs");
    }
}

/// The import rules between the model's areas, as ARCHITECTURE.md declares them: lines
/// ``- `AREA` imports: `a`, `b` `` (or `none`). One source, so the doc and the check
/// cannot drift apart.
fn area_rules(architecture: &str) -> std::collections::BTreeMap<String, BTreeSet<String>> {
    architecture
        .lines()
        .filter_map(|l| l.strip_prefix("- `")?.split_once("` imports: "))
        .map(|(area, allowed)| {
            let allowed = allowed.split(',').map(|a| a.trim().trim_matches('`').to_string()).filter(|a| !a.is_empty() && a != "none");
            (area.to_string(), allowed.collect())
        })
        .collect()
}

/// The areas (top-level modules of `crates/model/src`) that `text`, a file at `path`
/// below `area`'s directory (`["daemonset", "controller.rs"]`), imports, with the line:
/// `crate::X` paths, and `super::` chains that climb out of the area. Comment lines and
/// everything from the first `#[cfg(test)]` on (test modules) are not looked at.
fn area_imports(path: &[&str], text: &str, areas: &BTreeSet<String>) -> Vec<(usize, String)> {
    // How many `super::` lead from this file's module to the crate root.
    let file = path.last().copied().unwrap_or("");
    let depth = path.len() - usize::from(file == "mod.rs");
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let mut rest = code;
        while let Some(at) = rest.find("crate::").into_iter().chain(rest.find("super::")).min() {
            let tail = &rest[at..];
            let (target, len) = if let Some(after) = tail.strip_prefix("crate::") {
                (Some(after), "crate::".len())
            } else {
                let mut after = tail;
                let mut climbed = 0;
                while let Some(a) = after.strip_prefix("super::") {
                    after = a;
                    climbed += 1;
                }
                ((climbed >= depth).then_some(after), "super::".len() * climbed)
            };
            if let Some(after) = target {
                let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if areas.contains(&name) && Some(name.as_str()) != path.first().copied() {
                    out.push((n + 1, name));
                }
            }
            rest = &rest[at + len.max(1)..];
        }
    }
    out
}

/// The checker finds what it must on fake files: an area reaching up through `crate::`,
/// through `super::` from a module's root file and through `super::super::`; and it lets
/// through in-area `super::`, comments, shared helpers and test modules.
#[test]
fn area_import_checker_sees_violations() {
    let areas: BTreeSet<String> = ["containerd", "daemonset", "incident"].map(String::from).into();
    let fake = "//! docs name [`crate::incident`] freely\nuse crate::incident::seed::X;\nuse super::rollout::Rollout;\nuse crate::Lang;\n#[cfg(test)]\nuse crate::incident::Y;\n";
    assert_eq!(area_imports(&["daemonset", "controller.rs"], fake, &areas), vec![(2, "incident".to_string())]);
    assert_eq!(area_imports(&["daemonset", "mod.rs"], "use super::incident::run;\n", &areas), vec![(1, "incident".to_string())]);
    assert_eq!(area_imports(&["daemonset", "x", "y.rs"], "use super::super::super::containerd::Daemon;\n", &areas), vec![(1, "containerd".to_string())]);
    assert_eq!(area_imports(&["daemonset", "x", "y.rs"], "use super::super::pod::time;\n", &areas), Vec::new());
    let rules = area_rules("- `containerd` imports: none\n- `daemonset` imports: `containerd`, `kubernetes`\nprose");
    assert_eq!(rules.get("containerd"), Some(&BTreeSet::new()));
    assert_eq!(rules.get("daemonset").map(BTreeSet::len), Some(2));
}

/// Every area of the model imports only the areas ARCHITECTURE.md allows it, and every
/// area has a rule there.
#[test]
fn model_areas_import_only_what_architecture_allows() {
    let root = repo_root();
    let rules = area_rules(&std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap());
    let src = root.join("crates/model/src");
    let areas: BTreeSet<String> = std::fs::read_dir(&src).unwrap().flatten().filter(|e| e.path().is_dir()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert!(areas.len() >= 7, "found only {areas:?}");
    let unruled: Vec<_> = areas.iter().filter(|a| !rules.contains_key(*a)).collect();
    assert!(unruled.is_empty(), "areas without an import rule in ARCHITECTURE.md: {unruled:?}");
    let mut violations = Vec::new();
    for area in &areas {
        let mut files = Vec::new();
        rust_files(&src.join(area), &mut files);
        for f in files {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            let path: Vec<&str> = rel.split('/').collect();
            for (line, imported) in area_imports(&path, &std::fs::read_to_string(&f).unwrap(), &areas) {
                if !rules[area].contains(&imported) {
                    violations.push(format!("crates/model/src/{rel}:{line}: {area} imports {imported}"));
                }
            }
        }
    }
    assert!(violations.is_empty(), "imports ARCHITECTURE.md does not allow: {violations:#?}");
}
