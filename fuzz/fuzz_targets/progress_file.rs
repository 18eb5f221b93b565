//! libFuzzer entry of `progress_file`: the body, its input layout and its contract are
//! [`gpulab_fuzz::progress_file`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::progress_file(data));
