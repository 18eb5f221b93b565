//! The GPU Node Lab web app (Yew → wasm). It renders what `gpulab-model` computes;
//! it never re-implements a rule of the model.
//!
//! # Layout
//!
//! - [`mount`]: the exported JS API (`mount(root, options) -> LabHandle`).
//! - [`app`]: the shell component; [`state`]: its pure reducer; [`storage`]: saving
//!   the learner's work (localStorage), at the edge.
//! - [`steps`]: one module per lab step; [`components`]: shared pieces.
//! - [`later`]: work a keystroke need not wait for, done right after the render.
//! - [`i18n`]: Korean (default) and English (loaded on demand), ids checked at
//!   compile time; [`ftl`]: how a line of `i18n/*.ftl` reads, shared with `build.rs`.
//! - [`json`]: a small JSON reader and writer; [`work_json`]: the saved work in it
//!   (no serde in the first load).
//! - [`panic_hook`]: reports a panic inside the mounted labs.

/// The wasm's allocator (Cargo.toml says why).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod app;
pub mod components;
pub mod ftl;
pub mod i18n;
/// The protocol's JSON reader and writer, shared with [`gpulab_view::wire`]: one JSON
/// reader in the app (saved work, files, links, the chunk's replies).
pub use gpulab_view::json;
pub mod later;
pub mod mount;
pub mod panic_hook;
pub mod share;
pub mod state;
pub mod steps;
pub mod storage;
pub mod work_json;

pub use mount::{mount, LabHandle};
