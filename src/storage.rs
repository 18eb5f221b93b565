//! Persistence at the edge: the learner's [`Work`] is saved to localStorage on every
//! change and read back when a lab mounts. The reducer never touches storage.
//!
//! What is stored is versioned JSON under one key. Storage that is missing, blocked
//! (third-party iframes) or holding something unreadable is not an error for the
//! learner: the lab starts from the defaults and leaves the stored value alone until
//! the learner changes something. Work saved by a newer lab, with members this one
//! does not know, still comes back: the unknown members are skipped
//! ([`crate::work_json::Mode::Lenient`]).
//!
//! A change is written in the task right after the render that shows it
//! ([`save_soon`], through [`crate::later`]): writing a 1,000-line config as JSON is a millisecond the learner's
//! keystroke does not wait for. Changes made before that write coalesce into it, and
//! unmounting a lab writes at once ([`flush`]).
//!
//! A write that fails (the quota, which the host page shares, is full; storage is
//! blocked) is reported to the lab, which says so in place of "saved as you go" and
//! keeps the work in the page: a reload would otherwise bring back older text
//! without a word (issue 20). A lab whose module trapped is marked dead by the
//! loader (`data-gpulab-dead` on its element) and never writes again, so work queued
//! in the dead module cannot overwrite what the restarted lab saved.

use std::cell::RefCell;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::state::Work;

/// A save waiting to be written: the key, the work, the lab's element and who hears
/// how the write went (`None` = written, `Some(why)` = not).
type Pending = (String, Work, Option<web_sys::Element>, yew::Callback<Option<String>>);

thread_local! {
    /// Work waiting to be written, per storage key (the latest wins); `Some` while a
    /// write is queued.
    static PENDING: RefCell<Option<Vec<Pending>>> = const { RefCell::new(None) };
}

/// The localStorage key (the `v1` is the format's version).
pub const KEY: &str = "gpu-lab:v1:work";

/// The key a lab saves under: [`KEY`], or `KEY:name` for a lab mounted with the
/// `storageKey` option, so several labs on one page keep their work apart.
pub fn key(storage_key: Option<&str>) -> String {
    match storage_key {
        Some(name) => format!("{KEY}:{name}"),
        None => KEY.to_string(),
    }
}

/// A `storageKey` is 1 to 64 characters of `A-Z a-z 0-9 . _ -`.
pub fn valid_storage_key(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// The saved work under `key`, if there is readable saved work.
pub fn load(key: &str) -> Option<Work> {
    let text = storage()?.get_item(key).ok().flatten()?;
    decode(&text)
}

/// Saves `work` under `key` in a task of its own, right after this one; `done`
/// hears whether the write failed (and why).
pub fn save_soon(key: &str, work: &Work, host: Option<web_sys::Element>, done: yew::Callback<Option<String>>) {
    let first = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let first = p.is_none();
        let pending = p.get_or_insert_with(Vec::new);
        pending.retain(|(k, ..)| k != key);
        pending.push((key.to_string(), work.clone(), host, done));
        first
    });
    if first {
        flush_on_pagehide();
        crate::later::after_this_task(flush);
    }
}

/// A page closed or reloaded right after a change still writes it (once per page).
fn flush_on_pagehide() {
    thread_local! {
        static LISTENING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    let Some(window) = web_sys::window() else { return };
    if LISTENING.with(|l| l.replace(true)) {
        return;
    }
    let on_hide = Closure::<dyn Fn()>::new(flush);
    window.add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref()).ok();
    on_hide.forget();
}

/// Writes every pending save now.
pub fn flush() {
    let pending = PENDING.with(|p| p.borrow_mut().take()).unwrap_or_default();
    for (key, work, host, done) in pending {
        if host.is_some_and(|h| h.has_attribute("data-gpulab-dead")) {
            continue;
        }
        done.emit(save(&key, &work).err());
    }
}

/// Saves `work` under `key`; `Err` says why the browser did not store it.
pub fn save(key: &str, work: &Work) -> Result<(), String> {
    let s = storage().ok_or("localStorage is not available")?;
    s.set_item(key, &crate::work_json::to_string(work)).map_err(|e| crate::share::compress::error_text(&e))
}

/// Reads stored text: a JSON object reads as work (members a newer lab added are
/// skipped, mistyped ones keep their defaults); anything else is `None`.
pub fn decode(text: &str) -> Option<Work> {
    crate::work_json::read_saved(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labs without a storageKey share the default key; a named lab gets its own;
    /// names outside the allowed alphabet or length are refused.
    #[test]
    fn storage_keys() {
        assert_eq!(key(None), "gpu-lab:v1:work");
        assert_eq!(key(Some("week-3.lab_a")), "gpu-lab:v1:work:week-3.lab_a");
        let cases = [("a", true), ("week-3.lab_a", true), ("", false), ("a b", false), ("a:b", false), ("랩", false), (&"x".repeat(65), false), (&"x".repeat(64), true)];
        for (name, ok) in cases {
            assert_eq!(valid_storage_key(name), ok, "{name:?}");
        }
    }

    /// Our own JSON decodes, also with members a newer lab added; text that is not a
    /// JSON object is refused rather than half-read.
    #[test]
    fn decodes_only_our_format() {
        let ours = crate::work_json::to_string(&Work::default());
        let newer = r#"{"slots":{"nodes":3,"mig":true},"notes":"…"}"#;
        let cases: [(&str, bool); 5] = [(&ours, true), (newer, true), ("{", false), ("[1,2]", false), ("\"text\"", false)];
        for (text, ok) in cases {
            assert_eq!(decode(text).is_some(), ok, "{text}");
        }
    }
}
