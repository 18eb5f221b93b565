//! libFuzzer entry of `slots_config`: the body, its input layout and its contract are
//! [`gpulab_fuzz::slots_config`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::slots_config(data));
