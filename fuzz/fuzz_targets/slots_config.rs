//! Fuzzes `gpulab_model::slots::load_config`: the first byte picks the device-plugin
//! version (before MPS, MPS without failRequestsGreaterThanOne, the reference), the
//! rest is the config file as UTF-8 YAML.

#![no_main]

use gpulab_model::slots::{load_config, PluginVersion};
use libfuzzer_sys::fuzz_target;

const VERSIONS: [PluginVersion; 4] = [
    PluginVersion::new(0, 14, 5),
    PluginVersion::MPS_INTRODUCED,
    PluginVersion::new(0, 17, 0),
    PluginVersion::REFERENCE,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let version = VERSIONS[usize::from(pick) % VERSIONS.len()];
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let _ = load_config("config.yaml", text, version);
});
