//! A small JSON reader and writer for the lab's own documents (saved work, progress
//! files, share links, requests to the chunk), instead of serde_json: serde's
//! visitors and serde_json's generic code cost the first load about 66 KB of wasm,
//! while the documents are a handful of flat objects of strings, whole numbers and
//! booleans. [`parse`] reads any JSON (RFC 8259) into a [`Value`] and says where it
//! stopped when it is not JSON; [`write`] writes what serde_json would for the same
//! fields (compact, in field order, the same escapes), so files written by earlier
//! builds and by the companion read back unchanged.

mod parse;
mod write;

pub use parse::{parse, ParseError, Value, MAX_DEPTH};
pub use write::{array, string, Object};
