//! Fuzzes `gpulab_model::containerd::load`: the first byte picks one of the recorded
//! containerd versions, the rest is the main config and a conf.d drop-in, split at
//! the first NUL byte (bytes, not text: `Files` holds raw bytes, as on disk).

#![no_main]

use gpulab_model::containerd::{self, version::RECORDED, Files, Version};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let name = RECORDED.get(usize::from(pick) % RECORDED.len()).copied().unwrap_or("2.1.9");
    let Ok(version) = Version::parse(name) else { return };
    let (main, dropin) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let files = Files::new()
        .with("/etc/containerd/config.toml", main)
        .with("/etc/containerd/conf.d/99-nvidia.toml", dropin);
    let _ = containerd::load(&files, &version);
});
