//! libFuzzer entry of `scenario_dir`: the body, its input layout and its contract are
//! [`gpulab_fuzz::scenario_dir`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::scenario_dir(data));
