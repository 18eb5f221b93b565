//! Moving the learner's work between browsers: the progress file (export / import)
//! and the share link in the URL hash. Third-party iframe storage is partitioned by
//! site, so a lab embedded in a course page may not see the work saved elsewhere;
//! these two are how the learner carries it.
//!
//! # Layout
//!
//! - [`envelope`]: the progress file's JSON (format name + version + work), its
//!   validation with errors that say what was wrong; pure.
//! - [`link`]: the share link's hash (`#gpulab-v1=<base64url>`), its size limit and
//!   the errors of a bad, truncated, future-version or foreign link; pure.
//! - [`text`]: those errors in words, in the UI language.
//! - [`compress`]: deflate-raw through the browser's `CompressionStream` (no codec in
//!   the wasm), at the edge; browser only.

pub mod compress;
pub mod envelope;
pub mod link;
pub mod text;
