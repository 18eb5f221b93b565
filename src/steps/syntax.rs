//! containerd's verdicts on the node's files' syntax, from the on-demand chunk (steps
//! 1, 2 and 4). The app's model leaves go-toml's parsers out of the first load
//! (`gpulab_model::containerd::syntax`): until the chunk is there a syntax error is
//! the lab parser's, in the version's shape, and the step says the exact wording is
//! coming; once it is, the model loads again with the chunk's verdicts and words it
//! exactly as that containerd version does.

use std::cell::RefCell;

use gpulab_model::containerd::syntax::{Verdict, Verdicts};
use gpulab_model::containerd::Version;
use gpulab_view::{api, SyntaxRequest};

use crate::steps::chunk::{self, call};

/// The verdicts kept: the texts of the last keystrokes in each file.
const KEPT: usize = 8;

thread_local! {
    /// The chunk's answers, newest last (one per page, like the chunk itself).
    static ANSWERS: RefCell<Vec<Verdict>> = const { RefCell::new(Vec::new()) };
}

/// containerd `version`'s verdicts on these `(path, text)` files: the chunk's answers
/// so far, and (when it is loaded) its answers for the texts it has not judged yet.
pub fn verdicts(version: &Version, files: &[(&str, &str)]) -> Verdicts {
    let module = chunk::ready();
    let mut out = Verdicts::new();
    ANSWERS.with(|answers| {
        let mut answers = answers.borrow_mut();
        for &(path, text) in files {
            let known = answers.iter().find(|v| v.version == *version && v.path == path && v.text == text);
            if let Some(v) = known {
                out.push(v.clone());
                continue;
            }
            let Some(m) = &module else { continue };
            let request = SyntaxRequest { version: version.to_string(), path: path.to_string(), text: text.to_string() };
            // An error reply (never expected) leaves the file unjudged: the lab parser's
            // error stays, marked as such.
            if let Ok(failure) = call(m, api::CONTAINERD_SYNTAX, &request, gpulab_view::wire::syntax_failure) {
                let v = Verdict { version: version.clone(), path: request.path, text: request.text, failure };
                out.push(v.clone());
                answers.push(v);
            }
        }
        let excess = answers.len().saturating_sub(KEPT);
        answers.drain(..excess);
    });
    out
}

/// Forgets the answers (the chunk was replaced: `chunk::provide`).
pub fn forget() {
    ANSWERS.with(|a| a.borrow_mut().clear());
}
