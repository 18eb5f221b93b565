//! Compiles `i18n/*.ftl` into a `MessageId` enum and per-language tables, so every
//! message id the app uses is checked at compile time, and a message missing from
//! one language fails the build instead of showing a blank in the page.

use std::collections::BTreeMap;
use std::fmt::Write as _;

const LANGS: [&str; 2] = ["ko", "en"];

fn parse(lang: &str) -> BTreeMap<String, String> {
    let path = format!("i18n/{lang}.ftl");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((id, value)) = line.split_once(" = ") else {
            panic!("{path}:{}: expected `id = text`", n + 1);
        };
        let id = id.trim();
        let kebab = id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !kebab || !id.starts_with(|c: char| c.is_ascii_lowercase()) {
            panic!("{path}:{}: message id `{id}` must be kebab-case", n + 1);
        }
        if out.insert(id.to_string(), value.to_string()).is_some() {
            panic!("{path}:{}: duplicate message id `{id}`", n + 1);
        }
    }
    out
}

fn variant(id: &str) -> String {
    // `step-1-title` -> `Step1Title`; ids start with a letter (checked in `parse`).
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => format!("{}{}", f.to_ascii_uppercase(), c.as_str()),
                None => String::new(),
            }
        })
        .collect()
}

fn main() {
    let tables: Vec<_> = LANGS.iter().map(|l| (*l, parse(l))).collect();
    let (_, first) = &tables[0];
    for (lang, table) in &tables {
        if let Some(id) = first.keys().find(|id| !table.contains_key(*id)) {
            panic!("i18n/{lang}.ftl: message `{id}` is missing (it exists in i18n/ko.ftl)");
        }
        if let Some(id) = table.keys().find(|id| !first.contains_key(*id)) {
            panic!("i18n/ko.ftl: message `{id}` is missing (it exists in i18n/{lang}.ftl)");
        }
    }
    let mut code = String::from(
        "/// Every message id of `i18n/*.ftl`, checked at compile time.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum MessageId {\n",
    );
    for id in first.keys() {
        let _ = writeln!(code, "    /// `{id}`\n    {},", variant(id));
    }
    code.push_str("}\n\nimpl MessageId {\n    /// The id as written in the .ftl files.\n    pub fn as_str(self) -> &'static str {\n        match self {\n");
    for id in first.keys() {
        let _ = writeln!(code, "            MessageId::{} => {id:?},", variant(id));
    }
    code.push_str("        }\n    }\n}\n\n");
    for (lang, table) in &tables {
        let _ = writeln!(code, "fn table_{lang}(id: MessageId) -> &'static str {{\n    match id {{");
        for (id, value) in table {
            let _ = writeln!(code, "        MessageId::{} => {value:?},", variant(id));
        }
        code.push_str("    }\n}\n\n");
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("messages.rs");
    std::fs::write(out, code).unwrap();
}
