//! Our own panic hook: a panic in the lab is reported inside every mounted lab and
//! on the console. It is a Rust hook for this module only; the host page's own
//! error handlers (`window.onerror` and the like) are never replaced.
//!
//! A panic aborts (`panic = "abort"`): the module is unusable afterwards, like after
//! any other trap. `www/gpu-lab.js` notices the trap, mounts the labs again on a
//! fresh instance of the module and passes the step and these details on
//! (`mount`'s internal `trapped` option), so the learner can discard that step's
//! saved input without touching the rest.

use std::cell::RefCell;
use std::sync::Once;

use crate::i18n::{tf, Lang, MessageId};

thread_local! {
    /// The roots of the labs mounted now, with their language, to report into.
    static MOUNTED: RefCell<Vec<(web_sys::Element, Lang)>> = const { RefCell::new(Vec::new()) };
}

static INSTALL: Once = Once::new();

/// Installs the hook (once per module instance).
pub fn install() {
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let details = info.to_string();
            web_sys::console::error_1(&format!("gpu-lab: {details}").into());
            MOUNTED.with(|m| {
                for (root, lang) in m.borrow().iter() {
                    let text = tf(*lang, MessageId::PanicReport, &[("details", details.as_str())]);
                    if let Some(doc) = root.owner_document() {
                        if let Ok(p) = doc.create_element("p") {
                            p.set_class_name("lab-panic");
                            p.set_attribute("role", "alert").ok();
                            // The loader (`www/gpu-lab.js`) restarts the lab on a fresh
                            // module and shows these details in its trap notice.
                            p.set_attribute("data-details", &details).ok();
                            p.set_text_content(Some(&text));
                            root.append_child(&p).ok();
                        }
                    }
                }
            });
        }));
    });
}

/// Records a mounted lab (or updates its language).
pub fn track(root: &web_sys::Element, lang: Lang) {
    MOUNTED.with(|m| {
        let mut m = m.borrow_mut();
        m.retain(|(r, _)| r != root);
        m.push((root.clone(), lang));
    });
}

/// Forgets a lab that was destroyed.
pub fn untrack(root: &web_sys::Element) {
    MOUNTED.with(|m| m.borrow_mut().retain(|(r, _)| r != root));
}
