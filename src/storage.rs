//! Persistence at the edge: the learner's [`Work`] is saved to localStorage on every
//! change and read back when a lab mounts. The reducer never touches storage.
//!
//! What is stored is versioned JSON under one key. Storage that is missing, blocked
//! (third-party iframes) or holding something unreadable is not an error for the
//! learner: the lab starts from the defaults and leaves the stored value alone until
//! the learner changes something.

use crate::state::Work;

/// The localStorage key (the `v1` is the format's version).
pub const KEY: &str = "gpu-lab:v1:work";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The saved work, if there is readable saved work.
pub fn load() -> Option<Work> {
    let text = storage()?.get_item(KEY).ok().flatten()?;
    decode(&text)
}

/// Saves `work`; failures (quota, blocked storage) are ignored on purpose.
pub fn save(work: &Work) {
    if let (Some(s), Ok(text)) = (storage(), serde_json::to_string(work)) {
        s.set_item(KEY, &text).ok();
    }
}

/// Reads stored text; anything that is not our format is `None`.
pub fn decode(text: &str) -> Option<Work> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our own JSON decodes; foreign or broken text is refused rather than half-read.
    #[test]
    fn decodes_only_our_format() {
        let ours = serde_json::to_string(&Work::default()).unwrap();
        let cases: [(&str, bool); 4] = [(&ours, true), ("{", false), ("[1,2]", false), ("\"text\"", false)];
        for (text, ok) in cases {
            assert_eq!(decode(text).is_some(), ok, "{text}");
        }
    }
}
