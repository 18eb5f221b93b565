//! How a line of `i18n/<lang>.ftl` is read, shared by `build.rs` (which compiles the
//! Korean table into the wasm and checks every file), by `crates/web-k8s/build.rs`
//! (which takes the [`late`] Korean messages into the on-demand chunk) and by
//! [`crate::i18n`] (which reads the English file the page fetches on demand, and the
//! late Korean messages the chunk hands over). One reader for all, so the n-th message
//! the build saw is the n-th message the page reads; [`hash`] makes sure the text
//! handed over is the very text the build saw.

/// One line: `Ok(None)` for a blank line or a `#` comment, `Ok(Some((id, text)))`
/// for `id = text`, `Err(())` for anything else (the build refuses the file).
pub fn entry(line: &str) -> Result<Option<(&str, &str)>, ()> {
    let line = line.trim_end();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    // A byte search rather than `split_once(" = ")`: the same first match, without
    // pulling the general substring searcher into the first load.
    let at = line.as_bytes().windows(3).position(|w| w == b" = ").ok_or(())?;
    Ok(Some((line.get(..at).unwrap_or_default().trim(), line.get(at + 3..).unwrap_or_default())))
}

/// FNV-1a (64 bits) of the file's bytes: not for security, only to tell a file of
/// another build (a stale cache, a mixed bundle) from this build's.
pub fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The id prefixes of the messages only the views drawn from the on-demand chunk show
/// (step 5–6's `k8s-`, step 7's `slots-`, step 8's `ro-`) and of the hints of steps
/// 3–8 (`late-hint-N`, shown once here): the first load does not carry their Korean;
/// the chunk does and hands it over when it arrives.
pub const LATE: [&str; 4] = ["k8s-", "slots-", "ro-", "late-"];

/// Whether message `id` is one of the [`LATE`] ones.
#[allow(dead_code)] // the build scripts' (the app reads the chunk's text by id order)
pub fn is_late(id: &str) -> bool {
    LATE.iter().any(|p| id.starts_with(p))
}

/// The lines of `text` (an .ftl file) that hold [`LATE`] messages, in the file's
/// order, each ending in a newline.
#[allow(dead_code)] // the build scripts' and the tests'
pub fn late(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if let Ok(Some((id, _))) = entry(line) {
            if is_late(id) {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}
