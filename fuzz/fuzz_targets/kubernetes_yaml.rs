//! Fuzzes `gpulab_model::kubernetes::yaml::load` with any UTF-8 text as a multi-document
//! manifest file (what a learner pastes into the lab's editor).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = gpulab_model::kubernetes::yaml::load("fuzz.yaml", text);
});
