//! What the learner reads when a link or file is refused: each error in words, in
//! the UI language, naming what was wrong (never only "invalid").

use crate::i18n::{t, tf, Lang, MessageId};
use crate::share::envelope::ImportError;
use crate::share::link::LinkError;

/// Why a progress file (or a link's content) was refused.
pub fn import_reason(lang: Lang, e: &ImportError) -> String {
    match e {
        ImportError::TooLarge(n) => {
            tf(lang, MessageId::ReasonTooLarge, &[("n", n.to_string().as_str()), ("max", crate::share::envelope::MAX_FILE.to_string().as_str())])
        }
        ImportError::NotJson(d) => tf(lang, MessageId::ReasonNotJson, &[("details", d)]),
        ImportError::Foreign(d) => tf(lang, MessageId::ReasonForeign, &[("details", d)]),
        ImportError::FutureVersion(v) => tf(lang, MessageId::ReasonFutureVersion, &[("v", v.to_string().as_str())]),
        ImportError::BadVersion => t(lang, MessageId::ReasonBadVersion).into(),
        ImportError::BadValue(d) => tf(lang, MessageId::ReasonBadValue, &[("details", d)]),
        ImportError::OutOfRange(p, d) => tf(lang, MessageId::ReasonOutOfRange, &[("path", p), ("details", d)]),
    }
}

/// Why a share link was refused.
pub fn link_reason(lang: Lang, e: &LinkError) -> String {
    match e {
        LinkError::FutureVersion(v) => tf(lang, MessageId::ReasonFutureVersion, &[("v", v.to_string().as_str())]),
        LinkError::Malformed => t(lang, MessageId::ReasonMalformed).into(),
        LinkError::TooLong(n) => tf(lang, MessageId::ReasonTooLong, &[("n", n.to_string().as_str())]),
        LinkError::BadEncoding => t(lang, MessageId::ReasonBadEncoding).into(),
        LinkError::Damaged => t(lang, MessageId::ReasonDamaged).into(),
        LinkError::Content(e) => import_reason(lang, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason fills its placeables in both languages (no `{ $…}` left showing).
    #[test]
    fn every_reason_is_filled_in_both_languages() {
        let errors = [
            LinkError::FutureVersion(3),
            LinkError::Malformed,
            LinkError::TooLong(5000),
            LinkError::BadEncoding,
            LinkError::Damaged,
            LinkError::Content(ImportError::TooLarge(9)),
            LinkError::Content(ImportError::NotJson("x".into())),
            LinkError::Content(ImportError::Foreign("x".into())),
            LinkError::Content(ImportError::BadVersion),
            LinkError::Content(ImportError::BadValue("x".into())),
            LinkError::Content(ImportError::OutOfRange("work.rollout.syncs".into(), "x".into())),
        ];
        for lang in Lang::ALL {
            for e in &errors {
                let text = link_reason(lang, e);
                assert!(!text.contains("{ $") && !text.is_empty(), "{lang:?} {e:?}: {text}");
            }
        }
        assert_eq!(
            link_reason(Lang::En, &LinkError::FutureVersion(3)),
            "it was made by a newer version of the lab (format version 3; this lab reads version 1)."
        );
    }
}
