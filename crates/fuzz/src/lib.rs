//! The body of every fuzz target: one function per reader of someone else's bytes,
//! each taking raw bytes and returning nothing. The contract they check is the
//! model's: bad input is a value, never a panic (a panic in wasm kills the learner's
//! page) — and, where the lab writes what it reads, that what it writes reads back.
//!
//! Two drivers call them: the cargo-fuzz binaries in `fuzz/fuzz_targets/` (libFuzzer,
//! coverage-guided, nightly flags) and this crate's `tests/smoke.rs`, which replays the
//! committed corpora (`fuzz/corpus/<target>/`) and a bounded seeded-mutation run in
//! plain `cargo test`, so a new panic path fails the test command.
//!
//! | target | reader | input layout |
//! |---|---|---|
//! | [`containerd_load`] | `Containerd::load`, every version | byte 0 picks the version; the rest is up to four files split at NUL bytes (see [`containerd_files`]) |
//! | [`kubernetes_yaml`] | `yaml::load` (YAML or JSON, multi-document, `kind: List`) then `dra::read`; each document the block-YAML fast path reads equals serde_norway's reading | UTF-8 text |
//! | [`slots_config`] | `slots::load_config`, four plugin versions | byte 0 picks the version; the rest is the config |
//! | [`cel_selector`] | `dra::cel::compile`, then the selector on three devices | UTF-8 expression |
//! | [`scenario_dir`] | `scenario::parse` + `run_on_model` | a directory as text (see [`scenario_files`]) |
//! | [`share_link`] | the share link's hash and content readers | byte 0 picks hash or content |
//! | [`progress_file`] | the progress file reader and the saved-work reader; export of what imported must import equal | UTF-8 text |
//! | [`chunk_request`] | the on-demand chunk's JSON entry points | byte 0 picks the entry point; the rest is the request |

use std::collections::BTreeMap;
use std::sync::OnceLock;

use gpulab_model::containerd::{version::RECORDED, Containerd, Files, Version};
use gpulab_model::kubernetes::{block_yaml, dra, yaml};
use gpulab_model::scenario;
use k8s_openapi::api::core::v1::{Node, Pod};
use gpulab_model::slots::{load_config, PluginVersion};

/// Every target by its corpus directory name (`fuzz/corpus/<name>/`).
pub const TARGETS: &[(&str, fn(&[u8]))] = &[
    ("containerd_load", containerd_load),
    ("kubernetes_yaml", kubernetes_yaml),
    ("slots_config", slots_config),
    ("cel_selector", cel_selector),
    ("scenario_dir", scenario_dir),
    ("share_link", share_link),
    ("progress_file", progress_file),
    ("chunk_request", chunk_request),
];

/// The containerd versions the model knows: the recorded binaries and 2.4.
pub fn containerd_versions() -> &'static [Containerd] {
    static ALL: OnceLock<Vec<Containerd>> = OnceLock::new();
    ALL.get_or_init(|| {
        RECORDED.iter().copied().chain(["2.4.2"]).filter_map(|v| Version::parse(v).ok()).map(Containerd::new).collect()
    })
}

/// Where the NUL-separated parts of a `containerd_load` input land: the main config,
/// the NVIDIA drop-in, a second drop-in, and a file the main config may import by
/// absolute path (an import chain as k0s and k3s lay it out).
pub const CONTAINERD_PATHS: [&str; 4] = [
    "/etc/containerd/config.toml",
    "/etc/containerd/conf.d/99-nvidia.toml",
    "/etc/containerd/conf.d/00-base.toml",
    "/etc/containerd/imports/runtime.toml",
];

/// The files of a `containerd_load` input (after the version byte): parts split at
/// NUL bytes, in [`CONTAINERD_PATHS`] order; a fifth part onwards stays in the fourth.
pub fn containerd_files(rest: &[u8]) -> Files {
    let mut files = Files::new();
    let mut parts = rest.splitn(CONTAINERD_PATHS.len(), |&b| b == 0);
    for path in CONTAINERD_PATHS {
        match parts.next() {
            Some(part) => files = files.with(path, part),
            None => break,
        }
    }
    files
}

/// containerd's loader of every version, with defaults parsed once per version.
pub fn containerd_load(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let versions = containerd_versions();
    let Some(c) = versions.get(usize::from(pick) % versions.len().max(1)) else { return };
    let _ = c.load(&containerd_files(rest));
}

/// Kubernetes manifests as `kubectl apply -f` and `kubectl get -o yaml|json` dumps
/// carry them, then the DRA objects typed from what the reader deferred.
pub fn kubernetes_yaml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (manifests, _) = yaml::load("fuzz.yaml", text);
    let _ = dra::read(&manifests);
    // Each document the block-YAML fast path reads, serde_norway reads the same: its
    // value, and a Node and a Pod typed from it (the app's path) or from the events
    // (the companion's, feature `fast-yaml`).
    let mut doc = String::new();
    for line in text.split('\n').chain(["---"]) {
        if !line.starts_with("---") {
            doc.push_str(line);
            doc.push('\n');
            continue;
        }
        if let Some(fast) = block_yaml::to_value(&doc) {
            let slow = serde_norway::from_str::<serde_json::Value>(&doc).ok();
            assert_eq!(slow.as_ref(), Some(&fast), "the fast path read {doc:?} otherwise than serde_norway");
            same_typed::<Node>(&doc);
            same_typed::<Pod>(&doc);
        }
        doc.clear();
    }
}

/// Whatever either fast path types `doc` as, serde_norway types the same.
fn same_typed<T: k8s_openapi::serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(doc: &str) {
    for fast in [block_yaml::from_str::<T>(doc), block_yaml::from_str_events::<T>(doc)].into_iter().flatten() {
        let slow = serde_norway::from_str::<T>(doc).ok();
        assert_eq!(slow.as_ref(), Some(&fast), "the fast path typed {doc:?} otherwise than serde_norway");
    }
}

const PLUGIN_VERSIONS: [PluginVersion; 4] =
    [PluginVersion::new(0, 14, 5), PluginVersion::MPS_INTRODUCED, PluginVersion::new(0, 17, 0), PluginVersion::REFERENCE];

/// The device plugin's sharing config, per plugin version.
pub fn slots_config(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Some(&version) = PLUGIN_VERSIONS.get(usize::from(pick) % PLUGIN_VERSIONS.len()) else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let _ = load_config("config.yaml", text, version);
}

/// Three devices as NVIDIA's DRA driver publishes them: a whole GPU, a MIG device and
/// one with no attributes at all.
fn devices() -> &'static [k8s_openapi::api::resource::v1::Device] {
    static ALL: OnceLock<Vec<k8s_openapi::api::resource::v1::Device>> = OnceLock::new();
    ALL.get_or_init(|| {
        let json = r#"[
          {"name":"gpu-0","attributes":{"type":{"string":"gpu"},"productName":{"string":"NVIDIA A100-SXM4-40GB"},
            "architecture":{"string":"Ampere"},"driverVersion":{"version":"570.124.6"},
            "cudaComputeCapability":{"version":"8.0.0"},"index":{"int":0},"uuid":{"string":"GPU-1"}},
           "capacity":{"memory":{"value":"40Gi"}}},
          {"name":"gpu-0-mig-1g.5gb-0","attributes":{"type":{"string":"mig"},"profile":{"string":"1g.5gb"},
            "parentIndex":{"int":0}},"capacity":{"memory":{"value":"4864Mi"},"multiprocessors":{"value":"14"}}},
          {"name":"bare"}
        ]"#;
        serde_json::from_str(json).unwrap_or_default()
    })
}

/// A DRA device selector: compiled as the API server does, then matched against each
/// device as the allocator does.
pub fn cel_selector(data: &[u8]) {
    let Ok(expression) = std::str::from_utf8(data) else { return };
    let Ok(selector) = dra::cel::compile(expression) else { return };
    for device in devices() {
        let _ = selector.matches("gpu.nvidia.com", device);
    }
}

/// The separator of [`scenario_files`]: a line `%% PATH` starts the file at PATH.
pub const SCENARIO_FILE_MARK: &str = "%% ";

/// A scenario directory as one text: `scenario.toml` first, then each referenced file
/// after a line `%% relative/path`.
pub fn scenario_files(text: &str) -> (String, BTreeMap<String, String>) {
    let mut toml = String::new();
    let mut files = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix(SCENARIO_FILE_MARK) {
            if let Some((p, body)) = current.take() {
                files.insert(p, body);
            }
            current = Some((path.trim_end().to_string(), String::new()));
        } else {
            match &mut current {
                Some((_, body)) => body.push_str(line),
                None => toml.push_str(line),
            }
        }
    }
    if let Some((p, body)) = current {
        files.insert(p, body);
    }
    (toml, files)
}

/// A scenario directory: parsed, and run on the model when it parses (nodes of a
/// version [`containerd_versions`] holds load with its loader, defaults parsed once).
pub fn scenario_dir(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (toml, files) = scenario_files(text);
    let read = |rel: &str| files.get(rel).cloned().ok_or_else(|| format!("{rel}: no such file"));
    if let Ok(s) = scenario::parse("fuzz", scenario::SCENARIO_FILE, &toml, &read) {
        let _ = scenario::run_on_model_with(&s, containerd_versions());
    }
}

/// The share link: byte 0 even, the rest is the URL hash (`#gpulab-v1=…`); odd, the
/// rest is the decompressed payload (the browser's own inflate sits between the two,
/// so both halves are fuzzed directly).
pub fn share_link(data: &[u8]) {
    use gpu_node_lab::share::link;
    let Some((&pick, rest)) = data.split_first() else { return };
    if pick % 2 == 0 {
        let Ok(hash) = std::str::from_utf8(rest) else { return };
        if let Some(Ok(bytes)) = link::payload(hash) {
            let _ = link::content(&bytes);
        }
    } else if let Ok(work) = link::content(rest) {
        reads_back(&work);
    }
}

/// The progress file and the work saved in the browser's storage.
pub fn progress_file(data: &[u8]) {
    use gpu_node_lab::{share::envelope, work_json};
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(work) = envelope::import(text) {
        reads_back(&work);
    }
    let _ = work_json::read_saved(text);
}

/// What the lab reads it writes back and reads again equal: the export file and the
/// share link's compact form, each imported to the same work (or refused with the
/// same error by writer and reader, never written).
fn reads_back(work: &gpu_node_lab::state::Work) {
    use gpu_node_lab::share::envelope;
    for written in [envelope::export(work), envelope::compact(work)] {
        match written {
            Ok(text) => match envelope::import(&text) {
                Ok(again) => assert_eq!(&again, work, "written work read back different:\n{text}"),
                Err(e) => panic!("the lab wrote what it refuses ({e:?}):\n{text}"),
            },
            // The one refusal allowed: JSON escaping made a file that fit over the size limit.
            Err(envelope::ImportError::TooLarge(_)) => {}
            Err(e) => panic!("work that imported is refused by the writer: {e:?}"),
        }
    }
}

/// The on-demand chunk's entry points, as the app calls them with JSON.
pub fn chunk_request(data: &[u8]) {
    use gpu_node_lab_k8s as chunk;
    const ENTRY: [fn(&str) -> String; 8] = [
        chunk::kube,
        chunk::rollout,
        chunk::slots,
        chunk::check,
        chunk::scenario,
        chunk::containerd_syntax,
        chunk::scenario_references,
        chunk::containerd_defaults,
    ];
    let Some((&pick, rest)) = data.split_first() else { return };
    let Some(entry) = ENTRY.get(usize::from(pick) % ENTRY.len()) else { return };
    let Ok(request) = std::str::from_utf8(rest) else { return };
    let reply = entry(request);
    // Every reply is JSON the app can read: a `Reply` (`{"Ok":…}` / `{"Err":…}`).
    match serde_json::from_str::<serde_json::Value>(&reply) {
        Ok(serde_json::Value::Object(m)) if m.contains_key("Ok") || m.contains_key("Err") => {}
        _ => panic!("the chunk answered with something the app cannot read: {reply}"),
    }
}
