//! Korean (the default) and English UI text. Messages live in `i18n/<lang>.ftl`;
//! `build.rs` turns them into [`MessageId`], so a missing or misspelled id is a
//! compile error. The placeable syntax is Fluent's (`{ $name }`), a subset chosen
//! over the full Fluent runtime to keep the wasm small (see ARCHITECTURE.md).
//!
//! Korean is compiled in. English arrives on demand: `www/gpu-lab.js` fetches
//! `gpu-node-lab-<version>-en.ftl` beside the wasm and hands it over
//! ([`provide_english`], exported as `provideEnglish`), checked against the hash of
//! the file the build read, so the Korean first load does not carry the English
//! table. It does so before it mounts or switches a lab to English (the lab asks it
//! through the internal `gpulab:lang` event when the learner picks English), so no
//! lab shows one language and then another. Native builds and the unit tests embed
//! English.

use std::cell::Cell;

use crate::ftl;

include!(concat!(env!("OUT_DIR"), "/messages.rs"));

/// The English messages' file in dist/, versioned like the wasm.
pub const EN_FILE: &str = concat!("gpu-node-lab-", env!("CARGO_PKG_VERSION"), "-en.ftl");

/// A UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// The course material is Korean, so the lab starts in Korean.
    #[default]
    Ko,
    En,
}

impl Lang {
    /// Every language, in the order the switcher shows them.
    pub const ALL: [Lang; 2] = [Lang::Ko, Lang::En];

    /// The BCP 47 tag, as used in `lang` attributes and mount options.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::Ko => "ko",
            Lang::En => "en",
        }
    }

    /// Reads a tag such as `ko`, `ko-KR`, `en-US`; anything else is `None`.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next().unwrap_or("").to_ascii_lowercase();
        match primary.as_str() {
            "ko" => Some(Lang::Ko),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The language's own name, for the switcher: the same in every language (and
    /// English's is needed before its messages are loaded).
    pub fn own_name(self) -> &'static str {
        match self {
            Lang::Ko => "한국어",
            Lang::En => "English",
        }
    }
}

thread_local! {
    /// The English messages once their file was read (indexed by `MessageId`).
    static EN: Cell<Option<&'static [&'static str; MESSAGE_COUNT]>> = const { Cell::new(None) };
    /// The late Korean messages ([`crate::ftl::LATE`]) once the chunk handed them over.
    static KO_LATE: Cell<Option<&'static [&'static str; MESSAGE_COUNT]>> = const { Cell::new(None) };
}

/// The Korean text of `id`: compiled in, or for a late message the chunk's (its
/// views render only once it is here; English, if loaded, should a chunk of another
/// build have been refused).
fn korean(id: MessageId) -> &'static str {
    let s = table_ko(id);
    if !s.is_empty() {
        return s;
    }
    KO_LATE.get().and_then(|table| table.get(id as usize).copied()).or_else(|| english(id)).unwrap_or_default()
}

/// Reads `lines` (an .ftl text) into a table by `order`; `false` when its hash is
/// not `hash` (a file of another build).
fn read_table(text: String, hash: u64, order: &[MessageId], into: &'static std::thread::LocalKey<Cell<Option<&'static [&'static str; MESSAGE_COUNT]>>>) -> bool {
    if ftl::hash(&text) != hash {
        return false;
    }
    // Once per page: the text and its table live as long as the page.
    let text: &'static str = Box::leak(text.into_boxed_str());
    let table = Box::leak(Box::new([""; MESSAGE_COUNT]));
    let entries = text.lines().filter_map(|line| ftl::entry(line).ok().flatten());
    for (id, (_, value)) in order.iter().zip(entries) {
        if let Some(slot) = table.get_mut(*id as usize) {
            *slot = value;
        }
    }
    into.set(Some(table));
    true
}

/// Whether the late Korean messages are here (read once per page).
pub fn korean_ready() -> bool {
    KO_LATE.get().is_some()
}

/// Reads the late Korean messages the chunk hands over (its `messages_ko`: the late
/// lines of this build's `i18n/ko.ftl`); `false` for another build's.
pub fn provide_korean(text: String) -> bool {
    read_table(text, KO_LATE_HASH, &KO_LATE_ORDER, &KO_LATE)
}

/// The English text of `id`: embedded in native builds and unit tests.
#[cfg(any(test, not(target_arch = "wasm32")))]
fn english(id: MessageId) -> Option<&'static str> {
    Some(table_en(id))
}

/// The English text of `id`, once its file was read.
#[cfg(not(any(test, not(target_arch = "wasm32"))))]
fn english(id: MessageId) -> Option<&'static str> {
    EN.get().and_then(|table| table.get(id as usize).copied())
}

/// The text of `id` in `lang`, without arguments. English that has not arrived yet
/// reads as Korean (labs switch only once it is here, [`ready`]). Not inlined:
/// it is called from hundreds of places, each of which would carry the lookup.
#[inline(never)]
pub fn t(lang: Lang, id: MessageId) -> &'static str {
    match lang {
        Lang::Ko => korean(id),
        Lang::En => english(id).unwrap_or_else(|| korean(id)),
    }
}

/// The text of `id` in `lang` with `{ $name }` placeables filled from `args`.
/// An argument that is not given stays visible as `{ $name }` rather than vanishing.
/// A Korean particle pair written after a placeable (`{ $file }을(를)`, `(으)로`) is
/// chosen by the value put there ([`gpulab_model::korean`]).
pub fn tf(lang: Lang, id: MessageId, args: &[(&str, &str)]) -> String {
    gpulab_model::korean::fill_between(t(lang, id), "{ $", " }", |name| args.iter().find(|(k, _)| *k == name).map(|(_, v)| *v))
}

/// Whether `lang`'s messages are here.
pub fn ready(lang: Lang) -> bool {
    lang == Lang::Ko || english(MessageId::AppTitle).is_some()
}

/// Reads `text`, which must be this build's `i18n/en.ftl`, as the English messages
/// (a page that bundles the lab itself, and the browser tests, hand it over this way);
/// `false` for a file of another build (a stale cache, a mixed bundle).
pub fn provide_english(text: String) -> bool {
    read_table(text, EN_HASH, &EN_ORDER, &EN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Placeables are filled by name in both languages.
    #[test]
    fn fills_placeables() {
        assert_eq!(tf(Lang::En, MessageId::StepPosition, &[("n", "3")]), "Step 3 of 8");
        assert_eq!(tf(Lang::Ko, MessageId::StepPosition, &[("n", "3")]), "3 / 8 단계");
    }

    /// A particle after a value is chosen by the value: the incident's file takes 이,
    /// a handler ending in a vowel 로, SIGTERM 으로; a missing argument stays visible.
    #[test]
    fn korean_particles_follow_the_value() {
        assert_eq!(
            tf(Lang::Ko, MessageId::WorkImported, &[("file", "work.json")]),
            "work.json을 가져왔습니다. 모든 단계가 그 파일의 작업을 보여 줍니다."
        );
        assert_eq!(tf(Lang::Ko, MessageId::K8sSandboxStarted, &[("handler", "nvidia")]), "런타임 핸들러 nvidia로 샌드박스가 시작됩니다.");
        assert!(tf(Lang::Ko, MessageId::RsDownSignal, &[("t", "5"), ("signal", "SIGTERM")]).ends_with("SIGTERM으로 종료됨"));
        assert!(tf(Lang::Ko, MessageId::DiagContainerdUnknownKey, &[("key", "plugins.cri.sandbox_image")]).contains("sandbox_image를"));
        assert_eq!(tf(Lang::En, MessageId::StepPosition, &[]), "Step { $n } of 8");
    }

    /// Region subtags and case do not matter; unknown languages are refused.
    #[test]
    fn reads_language_tags() {
        for (tag, lang) in [("ko", Some(Lang::Ko)), ("ko-KR", Some(Lang::Ko)), ("EN_us", Some(Lang::En)), ("ja", None), ("", None)] {
            assert_eq!(Lang::from_tag(tag), lang, "{tag}");
        }
    }

    /// The English file the page fetches reads, line by line, into exactly the table
    /// the build embeds natively; a file of another build is refused by its hash.
    #[test]
    fn the_fetched_english_file_reads_as_the_built_table() {
        let text = include_str!("../i18n/en.ftl");
        assert_eq!(ftl::hash(text), EN_HASH);
        let entries: Vec<(&str, &str)> = text.lines().filter_map(|l| ftl::entry(l).ok().flatten()).collect();
        assert_eq!(entries.len(), EN_ORDER.len());
        assert_eq!(EN_ORDER.len(), MESSAGE_COUNT);
        for (id, (name, value)) in EN_ORDER.iter().zip(&entries) {
            assert_eq!((id.as_str(), table_en(*id)), (*name, *value));
        }
        assert!(!provide_english(text.replacen("GPU Node Lab", "GPU Node Lab!", 1)), "a file of another build");
        assert!(provide_english(text.to_string()));
        assert_eq!(EN.get().map(|t| t.get(MessageId::StepPosition as usize).copied()), Some(Some("Step { $n } of 8")));
    }

    /// The late Korean messages the chunk hands over (`crates/web-k8s/build.rs` takes
    /// the same lines) read into exactly the built table; another build's are refused.
    #[test]
    fn the_chunks_korean_reads_as_the_built_table() {
        let text = crate::ftl::late(include_str!("../i18n/ko.ftl"));
        assert_eq!(gpu_node_lab_k8s::messages_ko(), text, "the chunk carries the late lines");
        let entries: Vec<(&str, &str)> = text.lines().filter_map(|l| ftl::entry(l).ok().flatten()).collect();
        assert_eq!(entries.len(), KO_LATE_ORDER.len());
        assert!(KO_LATE_ORDER.len() > 50, "step 5–8's messages are late: {}", KO_LATE_ORDER.len());
        for (id, (name, value)) in KO_LATE_ORDER.iter().zip(&entries) {
            assert_eq!((id.as_str(), table_ko(*id)), (*name, *value));
            assert!(crate::ftl::is_late(name));
        }
        assert!(!provide_korean(text.replacen("k8s-", "k8s-x", 1)), "another build's");
        assert!(provide_korean(text.clone()));
        assert_eq!(KO_LATE.get().map(|t| t.get(MessageId::RoSync as usize).copied()), Some(Some(table_ko(MessageId::RoSync))));
    }
}
