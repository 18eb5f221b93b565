//! Compiles `i18n/*.ftl` into a `MessageId` enum and per-language tables, so every
//! message id the app uses is checked at compile time, and a message missing from
//! one language fails the build instead of showing a blank in the page.
//!
//! Korean, the lab's default language, is compiled into the wasm, but for the
//! messages of the views drawn from the on-demand chunk (`ftl::LATE`): the chunk
//! carries those (`crates/web-k8s/build.rs`) and hands them over when it arrives,
//! checked by their hash (`KO_LATE_HASH`). English is not compiled in: a
//! page that wants it fetches `i18n/en.ftl` (copied into dist/ as
//! `gpu-node-lab-<version>-en.ftl`), about 4.8 KB gzip the Korean first load does not
//! carry. For that file the build emits the message ids in the file's order
//! (`EN_ORDER`) and the file's hash (`EN_HASH`), and the app reads it with the same
//! line reader (`src/ftl.rs`). Native builds and the app's unit tests embed English
//! too (`table_en`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

#[path = "src/ftl.rs"]
mod ftl;

const LANGS: [&str; 2] = ["ko", "en"];

/// A language's messages by id, and the ids in the file's order.
struct Table {
    by_id: BTreeMap<String, String>,
    order: Vec<String>,
    hash: u64,
}

fn parse(lang: &str) -> Table {
    let path = format!("i18n/{lang}.ftl");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut by_id = BTreeMap::new();
    let mut order = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let Some((id, value)) = ftl::entry(line).unwrap_or_else(|()| panic!("{path}:{}: expected `id = text`", n + 1)) else {
            continue;
        };
        let kebab = id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !kebab || !id.starts_with(|c: char| c.is_ascii_lowercase()) {
            panic!("{path}:{}: message id `{id}` must be kebab-case", n + 1);
        }
        if by_id.insert(id.to_string(), value.to_string()).is_some() {
            panic!("{path}:{}: duplicate message id `{id}`", n + 1);
        }
        order.push(id.to_string());
    }
    Table { by_id, order, hash: ftl::hash(&text) }
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

fn table_fn(code: &mut String, lang: &str, table: &Table) {
    // Not inlined: one lookup table, not a copy of it in each caller.
    let _ = writeln!(code, "#[inline(never)]\nfn table_{lang}(id: MessageId) -> &'static str {{\n    match id {{");
    for (id, value) in &table.by_id {
        let _ = writeln!(code, "        MessageId::{} => {value:?},", variant(id));
    }
    code.push_str("    }\n}\n\n");
}

fn main() {
    let tables: Vec<_> = LANGS.iter().map(|l| (*l, parse(l))).collect();
    let (_, first) = &tables[0];
    for (lang, table) in &tables {
        if let Some(id) = first.by_id.keys().find(|id| !table.by_id.contains_key(*id)) {
            panic!("i18n/{lang}.ftl: message `{id}` is missing (it exists in i18n/ko.ftl)");
        }
        if let Some(id) = table.by_id.keys().find(|id| !first.by_id.contains_key(*id)) {
            panic!("i18n/ko.ftl: message `{id}` is missing (it exists in i18n/{lang}.ftl)");
        }
    }
    let mut code = String::from(
        "/// Every message id of `i18n/*.ftl`, checked at compile time.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\npub enum MessageId {\n",
    );
    for id in first.by_id.keys() {
        let _ = writeln!(code, "    /// `{id}`\n    {},", variant(id));
    }
    code.push_str("}\n\nimpl MessageId {\n    /// The id as written in the .ftl files.\n    pub fn as_str(self) -> &'static str {\n        match self {\n");
    for id in first.by_id.keys() {
        let _ = writeln!(code, "            MessageId::{} => {id:?},", variant(id));
    }
    code.push_str("        }\n    }\n}\n\n");
    let _ = writeln!(code, "/// How many messages there are (each language has all of them).\npub const MESSAGE_COUNT: usize = {};\n", first.by_id.len());
    for (lang, table) in &tables {
        if *lang == "ko" {
            // Natively all of it; in the wasm without the late messages, which the
            // on-demand chunk hands over (`i18n::provide_korean`).
            code.push_str("#[cfg(any(test, not(target_arch = \"wasm32\")))]\n");
            table_fn(&mut code, lang, table);
            let early = Table { by_id: table.by_id.iter().map(|(id, v)| (id.clone(), if ftl::is_late(id) { String::new() } else { v.clone() })).collect(), order: Vec::new(), hash: 0 };
            code.push_str("#[cfg(not(any(test, not(target_arch = \"wasm32\"))))]\n");
            table_fn(&mut code, lang, &early);
            let late: Vec<&String> = table.order.iter().filter(|id| ftl::is_late(id)).collect();
            let _ = writeln!(code, "/// The late messages' ids in `i18n/ko.ftl`'s order.\n#[allow(dead_code)]\npub const KO_LATE_ORDER: [MessageId; {}] = [", late.len());
            for id in late {
                let _ = writeln!(code, "    MessageId::{},", variant(id));
            }
            let text = std::fs::read_to_string("i18n/ko.ftl").unwrap_or_default();
            let _ = writeln!(code, "];\n/// The hash (`ftl::hash`) of the late lines of `i18n/ko.ftl` as built.\n#[allow(dead_code)]\npub const KO_LATE_HASH: u64 = {:#x};\n", ftl::hash(&ftl::late(&text)));
        } else {
            code.push_str("#[cfg(any(test, not(target_arch = \"wasm32\")))]\n");
            table_fn(&mut code, lang, table);
            let upper = lang.to_ascii_uppercase();
            let _ = writeln!(code, "/// `i18n/{lang}.ftl`'s messages in the file's order.\n#[allow(dead_code)]\npub const {upper}_ORDER: [MessageId; {}] = [", table.order.len());
            for id in &table.order {
                let _ = writeln!(code, "    MessageId::{},", variant(id));
            }
            let _ = writeln!(code, "];\n/// The hash (`ftl::hash`) of `i18n/{lang}.ftl` as built.\n#[allow(dead_code)]\npub const {upper}_HASH: u64 = {:#x};\n", table.hash);
        }
    }
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("messages.rs");
    std::fs::write(out, code).unwrap();
}
