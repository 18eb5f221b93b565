//! The lab's on-demand chunk: check-runtime.sh's rules, the Kubernetes and DaemonSet
//! model (k8s-openapi, YAML), the slot calculator (YAML device-plugin config, MIG
//! catalogue) and the scenario parser behind a JSON-in / JSON-out wasm-bindgen API,
//! so the app's first load does not carry them. The app imports this module when the
//! learner first opens step 3 to 8, when a page passes an author scenario, or once
//! the lab is idle, and renders the views it returns ([`gpulab_view`]); every text is
//! model output.
//!
//! # Layout
//!
//! - [`check`]: steps 3 and 4 (check-runtime.sh on the simulated node).
//! - [`kube`]: steps 5 and 6 (admission, scheduler, kubelet sandbox, node status patches).
//! - [`rollout`]: step 8 on the learner's cluster (controller syncs, kubectl texts,
//!   how the rollout ends, diagnosis).
//! - [`report`]: the learner's incident report from their work (also `gpulab report --work`).
//! - [`slots`]: step 7 (slot table, findings, exports; the DRA rows for the DRA module).
//! - [`node`]: the step 1–2 node's containerd files as model inputs.
//! - [`scenario`]: an author's scenario given to the page (loaded before such a lab
//!   mounts).
//! - [`import`]: steps 6 and 8 on the learner's own cluster (a kubectl dump), its
//!   panel (`<gpulab-import>`, defined when this chunk loads: `start`) and the
//!   worker that runs it; the `import_*` functions are its API.
//! - [`containerd_defaults`]: a containerd version's built-in defaults for steps 1
//!   and 2 (the first load embeds only the default version's).
//! - [`containerd_syntax`]: containerd's own verdict on a file's syntax for steps 1, 2
//!   and 4, which the app's model words without (go-toml's parsers are here, not in
//!   the first load: `gpulab_model::containerd::syntax`).

pub mod cells;
pub mod check;
pub mod import;
pub mod kube;
pub mod node;
pub mod report;
pub mod rollout;
pub mod scenario;
pub mod slots;

use serde::Serialize;
#[cfg(feature = "exports")]
use wasm_bindgen::prelude::wasm_bindgen;

/// The wasm's allocator, as the app's (the feature `allocator`, on by default).
#[cfg(all(feature = "allocator", target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// `Reply<T>` as JSON; a view that cannot be serialised (never expected) is an error
/// reply, not a panic.
fn reply<T: Serialize>(r: Result<T, String>) -> String {
    serde_json::to_string(&r).unwrap_or_else(|e| format!("{{\"Err\":{:?}}}", e.to_string()))
}

fn parse<'a, T: serde::Deserialize<'a>>(request: &'a str) -> Result<T, String> {
    serde_json::from_str(request).map_err(|e| format!("bad request: {e}"))
}

/// Steps 5 and 6: `KubeRequest` JSON in, `Reply<KubeView>` JSON out — without DRA
/// (a request that needs it is `KubeOutcome::NeedsDra`). The request's large texts
/// that are the last call's are not read again ([`kube::request`]).
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn kube(request: &str) -> String {
    reply(kube::request(request).map(|r| kube::view(&r)))
}

/// Steps 5 and 6 with DRA, the DRA module's `kube` (`crates/web-dra` exports it; this
/// chunk does not, so its wasm carries none of the model's DRA code).
pub fn kube_dra(request: &str) -> String {
    reply(kube::request(request).map(|r| kube::view_dra(&r)))
}

/// Step 8: `RolloutRequest` JSON in, `Reply<RolloutView>` JSON out.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn rollout(request: &str) -> String {
    reply(parse(request).and_then(|r| rollout::view(&r)))
}

/// Step 7: `SlotsRequest` JSON in, `Reply<SlotsView>` JSON out — without the DRA
/// rows (the view says `needs_dra`).
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn slots(request: &str) -> String {
    reply(parse(request).and_then(|r| slots::view(&r)))
}

/// Step 7 with the DRA rows, the DRA module's `slots` (`crates/web-dra` exports it).
pub fn slots_dra(request: &str) -> String {
    reply(parse(request).and_then(|r| slots::view_dra(&r)))
}

/// Steps 3 and 4: `CheckRequest` JSON in, `Reply<CheckView>` JSON out.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn check(request: &str) -> String {
    reply(parse(request).and_then(|r| check::view(&r)))
}

/// An author's scenario: `ScenarioRequest` JSON in, `Reply<ScenarioOutcome>` JSON out.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn scenario(request: &str) -> String {
    reply(parse(request).map(|r| scenario::outcome(&r)))
}

/// Steps 1, 2 and 4: `SyntaxRequest` JSON in, `Reply<Option<Failure>>` JSON out —
/// containerd's verdict on one file's syntax, exactly as the version words it.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn containerd_syntax(request: &str) -> String {
    use gpulab_model::containerd::{syntax, Version};
    reply(parse::<gpulab_view::SyntaxRequest>(request).and_then(|r| {
        let version = Version::parse(&r.version).map_err(|e| e.to_string())?;
        Ok(syntax::verdict(&version, &r.path, &r.text))
    }))
}

/// Steps 1 and 2 on a version other than the app's default: a containerd version in,
/// `Reply<String>` JSON out — that version's built-in defaults, the `config dump` text
/// the app reads with `Containerd::with_defaults` (its first load embeds only its
/// default version's).
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn containerd_defaults(version: &str) -> String {
    use gpulab_model::containerd::{schema, Version};
    reply(Version::parse(version).map_err(|e| e.to_string()).and_then(|v| {
        schema::embedded(v.recorded()).map(str::to_string).ok_or_else(|| format!("no built-in defaults for containerd {v}"))
    }))
}

/// The Korean messages of the views drawn from this chunk (the late lines of
/// `i18n/ko.ftl`, `build.rs`): the app reads them when the chunk arrives
/// (`i18n::provide_korean`); its first load does not carry them.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn messages_ko() -> String {
    include_str!(concat!(env!("OUT_DIR"), "/ko-late.ftl")).to_string()
}

#[cfg(feature = "exports")]
#[wasm_bindgen(module = "/src/import/panel.js")]
extern "C" {
    fn define_import(version: &str, ko: &str, en: &str);
}

/// When the chunk loads on a page: defines the import panel's element
/// (`<gpulab-import step lang>`, which steps 6 and 8 render) with its words and
/// defaults in both languages. In the panel's worker it does nothing.
#[cfg(feature = "exports")]
#[wasm_bindgen(start)]
pub fn start() {
    define_import(env!("CARGO_PKG_VERSION"), &import_setup(gpulab_model::Lang::Ko), &import_setup(gpulab_model::Lang::En));
}

/// The import panel's words in `lang` and its defaults: the Kubernetes versions
/// (step 6 picks one, `gpulab schedule`'s default first chosen), a GPU pod to try, and
/// the lab's device-plugin DaemonSet before and after its update (step 8).
pub fn import_setup(lang: gpulab_model::Lang) -> String {
    use gpulab_model::kubernetes::KubeVersion;
    serde_json::json!({
        "texts": import::text::json(lang),
        "versions": KubeVersion::ALL.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "version": import::DEFAULT_VERSION,
        "pod": import::DEFAULT_POD,
        "ds": import::default_daemonset(),
    })
    .to_string()
}

/// Import: starts reading a dump (`file` names it in findings; `cluster` for step 6);
/// returns how many pieces it has ([`import::open`]).
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn import_open(file: &str, text: &str, cluster: bool) -> u32 {
    import::open(file, text, cluster)
}

/// Import: loads up to `count` more pieces; returns how many are loaded ([`import::read`]).
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn import_read(count: u32) -> u32 {
    import::read(count)
}

/// Import, step 6: `Reply<import::Outcome>` JSON of `gpulab schedule` on the dump read.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn import_schedule(pod_file: &str, pod_text: &str, version: &str, lang: &str) -> String {
    reply(import::schedule(pod_file, pod_text, version, slots::model_lang(lang)))
}

/// Import, step 8: `Reply<import::Outcome>` JSON of `gpulab rollout` on the dump read.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn import_rollout(ds_file: &str, ds_text: &str, lang: &str) -> String {
    reply(import::rollout(ds_file, ds_text, slots::model_lang(lang)))
}

/// The files a `scenario.toml` references, as a JSON array of paths.
#[cfg_attr(feature = "exports", wasm_bindgen)]
pub fn scenario_references(text: &str) -> String {
    reply(Ok(scenario::references(text)))
}

#[cfg(test)]
mod tests {
    use gpulab_view::{KubeView, Reply, RolloutView};

    /// The exported functions answer bad JSON with an error reply, and good JSON with
    /// a view the app can read back.
    #[test]
    fn json_in_json_out() {
        let bad: Reply<KubeView> = serde_json::from_str(&super::kube("{")).unwrap();
        assert!(bad.unwrap_err().starts_with("bad request"));
        let ok: Reply<RolloutView> = serde_json::from_str(&super::rollout(r#"{"lang":"en"}"#)).unwrap();
        assert!(ok.unwrap().tables[0].text().starts_with("NAME"));
    }

    /// containerd's syntax verdict: the exact text the companion prints for the file
    /// (go-toml v2.3's words on 2.3), `None` for a file that reads, an error reply for
    /// a version the model does not know.
    #[test]
    fn containerd_syntax_is_the_models_verdict() {
        use gpulab_model::containerd::{load, syntax::Failure, Files, Version, MAIN_CONFIG};
        let ask = |version: &str, text: &str| {
            let request = serde_json::json!({ "version": version, "path": MAIN_CONFIG, "text": text }).to_string();
            serde_json::from_str::<Reply<Option<Failure>>>(&super::containerd_syntax(&request)).unwrap()
        };
        let text = "version = 2\nsandbox = runc\n";
        let failure = ask("2.3.4", text).unwrap().unwrap();
        let exact = load(&Files::new().with(MAIN_CONFIG, text), &Version::parse("2.3.4").unwrap());
        assert_eq!(Some(failure.message.as_str()), exact.loaded.error.as_ref().map(|e| e.message.as_str()));
        assert_eq!(failure.message, "failed to unmarshal TOML at row 2 column 11: toml: incomplete number");
        assert_eq!(ask("2.3.4", "version = 2\n").unwrap(), None);
        assert!(ask("9.9.9", text).is_err());
    }

    /// A version's defaults as the app asks for them: the dump the companion's model
    /// reads for that version (same `config dump` of an empty config), an error reply
    /// for a version the model does not know.
    #[test]
    fn containerd_defaults_are_the_versions_dump() {
        use gpulab_model::containerd::{load, version::MODELLED, Containerd, Files, Version, MAIN_CONFIG};
        for name in MODELLED {
            let v = Version::parse(name).unwrap();
            let text = serde_json::from_str::<Reply<String>>(&super::containerd_defaults(name)).unwrap().unwrap();
            let files = Files::new().with(MAIN_CONFIG, "version = 2\n[plugins.'io.containerd.grpc.v1.cri']\nsandbox_image = 'x'\n");
            let given = Containerd::with_defaults(v.clone(), &text).load(&files);
            let embedded = load(&files, &v);
            assert_eq!(given.dump.stdout, embedded.dump.stdout, "{name}");
            assert!(!given.dump.stdout.is_empty(), "{name}");
        }
        let unknown = serde_json::from_str::<Reply<String>>(&super::containerd_defaults("9.9.9")).unwrap();
        assert!(unknown.is_err());
    }
}
