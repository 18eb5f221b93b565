//! How a line of `i18n/<lang>.ftl` is read, shared by `build.rs` (which compiles the
//! Korean table into the wasm and checks every file) and by [`crate::i18n`] (which
//! reads the English file the page fetches on demand). One reader for both, so the
//! n-th message the build saw is the n-th message the page reads; [`hash`] makes sure
//! the fetched file is the very file the build saw.

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
