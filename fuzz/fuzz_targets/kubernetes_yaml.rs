//! libFuzzer entry of `kubernetes_yaml`: the body, its input layout and its contract are
//! [`gpulab_fuzz::kubernetes_yaml`] (one home, shared with the smoke test of `cargo test`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gpulab_fuzz::kubernetes_yaml(data));
