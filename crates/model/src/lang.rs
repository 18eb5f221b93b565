//! The one language type of the model: the two languages the lab ships.
//!
//! Every area that words something for the learner (the diagnosis sentences, the
//! incident report, check-runtime.sh's messages, the slot table's labels) takes this
//! `Lang`; upstream texts (kubectl, scheduler, containerd) are verbatim in both. The
//! app keeps its own `i18n::Lang` for its Fluent messages and maps onto this one at
//! the chunk's edge.

use serde::{Deserialize, Serialize};

/// Korean or English. English is the default of the companion's `--lang` flags that
/// have one (the slot table); the app starts in Korean and says so itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Ko,
}

impl Lang {
    /// A lenient reading for typed input: `en`/`english`, `ko`/`kr`/`korean`/`한국어`,
    /// any case (`gpulab slots --lang`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "en" | "english" => Some(Lang::En),
            "ko" | "kr" | "korean" | "한국어" => Some(Lang::Ko),
            _ => None,
        }
    }

    /// The language tag (`en`, `ko`), as requests and saved work spell it.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ko => "ko",
        }
    }
}

/// The strict reading: exactly `ko` or `en` (`gpulab report --lang`, `gpulab rollout --lang`).
impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "ko" => Ok(Lang::Ko),
            "en" => Ok(Lang::En),
            other => Err(format!("unknown language {other:?} (ko or en)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lang;

    /// The strict and lenient readings agree on the two tags, and only the lenient one
    /// takes the long names; the tag reads back as the same language.
    #[test]
    fn readings() {
        for lang in [Lang::En, Lang::Ko] {
            assert_eq!(lang.tag().parse::<Lang>(), Ok(lang));
            assert_eq!(Lang::parse(lang.tag()), Some(lang));
        }
        assert_eq!(Lang::parse("Korean"), Some(Lang::Ko));
        assert!("korean".parse::<Lang>().is_err());
        assert_eq!(Lang::parse("fr"), None);
        assert_eq!(serde_json::to_string(&Lang::Ko).unwrap(), "\"ko\"");
    }
}
