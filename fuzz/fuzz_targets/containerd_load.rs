//! libFuzzer entry of `containerd_load`: the body, its input layout and its contract are
//! [`gpulab_fuzz::containerd_load`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::containerd_load(data));
