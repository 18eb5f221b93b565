//! Korean (the default) and English UI text. Messages live in `i18n/<lang>.ftl`;
//! `build.rs` turns them into [`MessageId`], so a missing or misspelled id is a
//! compile error. The placeable syntax is Fluent's (`{ $name }`), a subset chosen
//! over the full Fluent runtime to keep the wasm small (see ARCHITECTURE.md).

include!(concat!(env!("OUT_DIR"), "/messages.rs"));

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

    /// The language's own name, for the switcher.
    pub fn name_id(self) -> MessageId {
        match self {
            Lang::Ko => MessageId::LangKo,
            Lang::En => MessageId::LangEn,
        }
    }
}

/// The text of `id` in `lang`, without arguments.
pub fn t(lang: Lang, id: MessageId) -> &'static str {
    match lang {
        Lang::Ko => table_ko(id),
        Lang::En => table_en(id),
    }
}

/// The text of `id` in `lang` with `{ $name }` placeables filled from `args`.
/// An argument that is not given stays visible as `{ $name }` rather than vanishing.
pub fn tf(lang: Lang, id: MessageId, args: &[(&str, &str)]) -> String {
    let mut text = t(lang, id).to_string();
    for (name, value) in args {
        text = text.replace(&format!("{{ ${name} }}"), value);
    }
    text
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

    /// Region subtags and case do not matter; unknown languages are refused.
    #[test]
    fn reads_language_tags() {
        for (tag, lang) in [("ko", Some(Lang::Ko)), ("ko-KR", Some(Lang::Ko)), ("EN_us", Some(Lang::En)), ("ja", None), ("", None)] {
            assert_eq!(Lang::from_tag(tag), lang, "{tag}");
        }
    }
}
