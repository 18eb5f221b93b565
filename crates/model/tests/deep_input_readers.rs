//! Every other reader of someone else's bytes in the model, against input-driven
//! depth, on a thread with the browser's 1 MB wasm stack: Kubernetes manifests and
//! the device-plugin config (YAML: serde_norway stops at 128 levels with its own
//! "recursion limit exceeded"), and scenario files (TOML, through the containerd
//! reader's depth limit). Each must answer with a diagnostic, never overflow.

// Tests may unwrap (the crate denies it in the model itself).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use gpulab_model::slots::version::PluginVersion;
use gpulab_model::{kubernetes, scenario, slots};

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(1 << 20).spawn(f).unwrap().join().unwrap()
}

/// Deep YAML of every shape: flow sequences and mappings, block mappings, block
/// sequences; each 10,000 levels (block ones 1,000: their indentation grows with depth).
fn deep_yaml() -> Vec<(&'static str, String)> {
    let block_map: String = (0..1_000).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
    let block_seq: String = (0..1_000).map(|i| format!("{}-\n", " ".repeat(2 * i))).collect();
    vec![
        ("flow sequences", format!("a: {}{}\n", "[".repeat(10_000), "]".repeat(10_000))),
        ("flow mappings", format!("a: {}1{}\n", "{a: ".repeat(10_000), "}".repeat(10_000))),
        ("block mappings", block_map),
        ("block sequences", block_seq),
    ]
}

#[test]
fn deep_kubernetes_manifests_are_refused_with_a_diagnostic() {
    for (what, text) in deep_yaml() {
        let text = format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    {}", text.replace('\n', "\n    "));
        let diags = on_small_stack(move || kubernetes::yaml::load("pod.yaml", &text).1);
        assert!(!diags.is_empty(), "{what}: no diagnostic");
    }
}

#[test]
fn deep_device_plugin_configs_are_refused_with_an_error() {
    for (what, text) in deep_yaml() {
        let text = format!("version: v1\nsharing:\n  {}", text.replace('\n', "\n  "));
        let loaded = on_small_stack(move || slots::config::load("config.yaml", &text, PluginVersion::default()));
        assert!(loaded.config.is_none() && loaded.error.is_some(), "{what}: {:?}", loaded.diagnostics);
    }
}

#[test]
fn deep_scenario_files_are_refused_with_a_diagnostic() {
    let text = format!("title = \"t\"\nx{} = 1\n", ".y".repeat(100_000));
    let diags = on_small_stack(move || scenario::parse("deep", "scenario.toml", &text, &|_| Err("no files".into())).err().unwrap());
    assert!(diags.iter().any(|d| d.code == "scenario-syntax" && d.get("message").is_some_and(|m| m.contains("levels deep"))), "{diags:?}");
}
