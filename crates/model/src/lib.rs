//! The GPU Node Lab model: everything the learner sees is computed here.
//!
//! # Layout
//!
//! - [`diagnostic`]: the one diagnostic type every area reports with — a stable
//!   code, arguments, a primary span (file, line, column), related spans, a severity.
//! - [`check_runtime`]: the rules of `scripts/check-runtime.sh` as a pure function (same
//!   checks, codes, texts and exit statuses as the script).
//! - [`containerd`]: config loading, merge and decode per containerd version; the daemon.
//! - [`kubernetes`]: advertisement, scheduling verdicts, RuntimeClass, kubelet sandbox.
//! - [`daemonset`]: the DaemonSet rolling update and rollout status.
//! - [`slots`]: time-slicing / MPS / MIG seats and memory.
//! - [`sort`]: one shared stable sort (driftsort per call site costs wasm size).
//! - [`float`]: floats printed as `Display` does, without core's Grisu/Dragon4 (wasm size).
//! - [`hash`]: a fast deterministic hasher for the model's lookup maps.
//! - [`go`]: Go formatting rules upstream texts depend on (`strconv.Quote`).
//! - [`korean`]: Korean particles chosen by the value before them.
//! - [`lang`]: the one [`Lang`] (Korean, English) every area words its texts in.
//! - [`scenario`]: scenario files, the engine and its backend seam, parity records.
//! - [`incident`]: the incident's home, above `daemonset` and `scenario`: the seed, an
//!   incident and its run, the artifacts, the report and its labels; the learner's work
//!   carried through the eight steps, step 8 on their cluster.
//!
//! **Architecture Invariant:** the model is pure and deterministic. It does no I/O,
//! reads no clock, holds no globals and uses no unseeded randomness; time is a value
//! passed in and randomness takes a seed. It builds for `wasm32-unknown-unknown` and
//! native alike.
//!
//! **Architecture Invariant:** bad input is a value, not a crash. Clippy denies
//! `unwrap_used`, `expect_used`, `panic` and `indexing_slicing` in this crate.
#![cfg_attr(
    test,
    allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)
)]

pub mod check_runtime;
pub mod containerd;
pub mod daemonset;
pub mod diagnostic;
pub mod float;
pub mod go;
pub mod hash;
pub mod incident;
pub mod korean;
pub mod lang;
pub mod kubernetes;
pub mod scenario;
pub mod slots;
pub mod sort;

pub use diagnostic::{Diagnostic, Related, Severity, Span};
pub use lang::Lang;
