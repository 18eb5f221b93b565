//! libFuzzer entry of `chunk_request`: the body, its input layout and its contract are
//! [`gpulab_fuzz::chunk_request`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::chunk_request(data));
