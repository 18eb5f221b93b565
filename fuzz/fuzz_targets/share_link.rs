//! libFuzzer entry of `share_link`: the body, its input layout and its contract are
//! [`gpulab_fuzz::share_link`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::share_link(data));
