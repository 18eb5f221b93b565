//! libFuzzer entry of `cel_selector`: the body, its input layout and its contract are
//! [`gpulab_fuzz::cel_selector`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::cel_selector(data));
