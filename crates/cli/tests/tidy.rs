//! House rules, checked inside `cargo test` (rust-analyzer's tidy pattern): every
//! Rust file starts with a `//!` module doc; no test is ignored or expected to panic;
//! every UI message id exists in both Korean and English; the report code writes no
//! Korean inline (its labels live in the model's catalogue).

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
