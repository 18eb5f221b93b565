//! The on-demand chunk (`crates/web-k8s`): a second wasm module with check-runtime's
//! rules, the Kubernetes and DaemonSet model, the slot calculator (everything YAML:
//! k8s-openapi, serde_norway, the MIG catalogue) and the scenario parser, imported the
//! first time a learner opens step 3 to 8 or a page passes a scenario (and prefetched
//! once the lab is idle), so the first load carries none of it. Its files sit next to this module's (`gpu-node-lab-k8s-<version>.js` /
//! `_bg.wasm`), found from the snippet's own URL, so `dist/` works from any sub-path.
//! Steps render what it returns ([`gpulab_view`]): a loading state while it comes,
//! and a clear error with a retry button if it does not. The DRA module
//! (`crates/web-dra`, `gpu-node-lab-dra-<version>`) is loaded the same way, but only
//! when the chunk answers step 5–6's request with `KubeOutcome::NeedsDra`
//! ([`use_module`] with [`DRA`]).

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::i18n::{t, tf, Lang, MessageId};

/// The chunk's JS glue and wasm, versioned like the app's (`Cargo.toml` version).
pub const JS: &str = concat!("gpu-node-lab-k8s-", env!("CARGO_PKG_VERSION"), ".js");
pub const WASM: &str = concat!("gpu-node-lab-k8s-", env!("CARGO_PKG_VERSION"), "_bg.wasm");
/// The DRA module's, beside them.
pub const DRA_JS: &str = concat!("gpu-node-lab-dra-", env!("CARGO_PKG_VERSION"), ".js");
pub const DRA_WASM: &str = concat!("gpu-node-lab-dra-", env!("CARGO_PKG_VERSION"), "_bg.wasm");

/// The on-demand modules, by index: the Kubernetes chunk and the DRA module.
pub const K8S: usize = 0;
pub const DRA: usize = 1;
const FILES: [[&str; 2]; 2] = [[JS, WASM], [DRA_JS, DRA_WASM]];

// wasm-bindgen puts this snippet at `snippets/<crate>-<hash>/inline0.js`, two levels
// under the app's files; the chunk's files sit beside the app's. It is copied into the
// first load as written (trunk minifies the glue, not snippets), so it is written
// minified — 50 B gzip less than the readable form:
//   import_chunk(js, wasm, attempt): imports `js` (`?retry=<attempt>` after a failure)
//     from beside the app and initialises it with `wasm`; resolves to the module.
//   asset_url(name): the URL of `name` beside the app's files.
//   when_idle(f): `f()` when the browser is idle (at the latest after 10 s), or after
//     2 s where there is no requestIdleCallback.
#[wasm_bindgen(inline_js = r#"export function import_chunk(j,w,a){const b=new URL("../../",import.meta.url),q=a>0?`?retry=${a}`:"";return import(new URL(j+q,b).href).then(async m=>{await m.default({module_or_path:new URL(w+q,b)});return m})}
export function asset_url(n){return new URL("../../"+n,import.meta.url).href}
export function when_idle(f){typeof requestIdleCallback=="function"?requestIdleCallback(()=>f(),{timeout:1e4}):setTimeout(()=>f(),2e3)}
"#)]
extern "C" {
    fn import_chunk(js: &str, wasm: &str, attempt: u32) -> js_sys::Promise;
    fn when_idle(f: &Closure<dyn FnMut()>);
    #[wasm_bindgen(js_name = asset_url)]
    fn js_asset_url(name: &str) -> String;
}

/// The URL of a file of the bundle (beside the app's js/wasm), wherever the page
/// that embeds the lab lives.
pub fn asset_url(name: &str) -> String {
    js_asset_url(name)
}

thread_local! {
    /// Per module ([`K8S`], [`DRA`]): the import in flight or done (one per page,
    /// shared by every mounted lab).
    static LOADING: RefCell<[Option<js_sys::Promise>; 2]> = const { RefCell::new([None, None]) };
    /// The loaded module, once there.
    static MODULE: RefCell<[Option<JsValue>; 2]> = const { RefCell::new([None, None]) };
    /// Failed attempts so far (a retry asks for a fresh URL).
    static ATTEMPT: [Cell<u32>; 2] = const { [Cell::new(0), Cell::new(0)] };
    static PREFETCH: Cell<bool> = const { Cell::new(false) };
    /// Views waiting for the chunk without asking for it ([`use_chunk_arrival`]).
    static WAITERS: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
    /// Whether the last import a view asked for at once failed (until one succeeds).
    static FAILED: Cell<bool> = const { Cell::new(false) };
}

/// Whether the chunk could not be imported when a view asked for it at once
/// ([`use_chunk_arrival`] with `now`): for a view that cannot work without it (step 1
/// on a version whose defaults the chunk holds).
pub fn failed() -> bool {
    FAILED.get()
}

/// Imports the chunk again after it [`failed`]; the views that asked for it render
/// again when it arrives.
pub fn retry() {
    FAILED.set(false);
    let p = load(K8S);
    wasm_bindgen_futures::spawn_local(async move {
        match wasm_bindgen_futures::JsFuture::from(p).await {
            Ok(m) => arrived(m),
            Err(_) => {
                FAILED.set(true);
                forget_failure(K8S);
            }
        }
    });
}

/// Keeps the loaded module and tells the views waiting for it.
fn arrived(m: JsValue) {
    FAILED.set(false);
    // The Korean of the views the chunk draws comes with it, read once per page (every
    // view that waited for the chunk arrives here). A chunk of another build is refused;
    // those views then read English, if loaded.
    if !crate::i18n::korean_ready() {
        if let Ok(text) = call_text(&Module(m.clone(), K8S), "messages_ko", "") {
            crate::i18n::provide_korean(text);
        }
    }
    MODULE.with(|s| s.borrow_mut()[K8S] = Some(m));
    for waiter in WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
        waiter();
    }
}

/// A loaded module (its ES module namespace) and which one it is.
#[derive(Clone, PartialEq)]
pub struct Module(JsValue, usize);

/// Where the chunk is.
#[derive(Clone, PartialEq)]
pub enum Chunk {
    Loading,
    Ready(Module),
    Failed(String),
}

fn describe(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .or_else(|| js_sys::JSON::stringify(e).ok().and_then(|s| s.as_string()))
        .unwrap_or_else(|| "(no description)".to_string())
}

fn load(which: usize) -> js_sys::Promise {
    let [js, wasm] = FILES[which];
    LOADING.with(|l| l.borrow_mut()[which].get_or_insert_with(|| import_chunk(js, wasm, ATTEMPT.with(|a| a[which].get()))).clone())
}

/// Starts loading the chunk in the background once the page is idle (low priority;
/// a no-op after the first call).
pub fn prefetch_when_idle() {
    if PREFETCH.replace(true) {
        return;
    }
    let closure: Closure<dyn FnMut()> = Closure::once(|| {
        let p = load(K8S);
        wasm_bindgen_futures::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(p).await {
                Ok(m) => arrived(m),
                // Not shown: the step that needs it loads it again and says so.
                Err(_) => forget_failure(K8S),
            }
        });
    });
    when_idle(&closure);
    closure.forget();
}

/// Hands the lab an already loaded chunk (its module namespace, or any object with
/// the same functions), or forgets the one it has (`None`): for a host page that
/// bundles the chunk itself, and for the browser tests.
pub fn provide(module: Option<JsValue>) {
    // What another module answered does not hold for this one.
    crate::steps::syntax::forget();
    provide_module(K8S, module);
}

/// [`provide`] for any of the modules ([`K8S`], [`DRA`]).
pub fn provide_module(which: usize, module: Option<JsValue>) {
    LOADING.with(|l| l.borrow_mut()[which] = None);
    match module {
        Some(m) if which == K8S => arrived(m),
        m => MODULE.with(|s| s.borrow_mut()[which] = m),
    }
}

fn forget_failure(which: usize) {
    LOADING.with(|l| l.borrow_mut()[which] = None);
    ATTEMPT.with(|a| a[which].set(a[which].get() + 1));
}

/// The chunk for a step view: loading, ready, or failed, and a retry callback.
#[hook]
pub fn use_chunk() -> (Chunk, Callback<MouseEvent>) {
    use_module(K8S, true)
}

/// Module `which` for a view, imported once `wanted`: loading, ready, or failed, and
/// a retry callback.
#[hook]
pub fn use_module(which: usize, wanted: bool) -> (Chunk, Callback<MouseEvent>) {
    let loaded = move || MODULE.with(|m| m.borrow()[which].clone()).map(|m| Module(m, which));
    let state = use_state(|| loaded().map_or(Chunk::Loading, Chunk::Ready));
    let attempt = use_state(|| 0u32);
    {
        let state = state.clone();
        use_effect_with((*attempt, wanted), move |_| {
            if let (Some(m), false) = (loaded(), matches!(*state, Chunk::Ready(_))) {
                // Provided, or loaded by another view, since this one first rendered.
                state.set(Chunk::Ready(m));
            } else if wanted && !matches!(*state, Chunk::Ready(_)) {
                state.set(Chunk::Loading);
                let p = load(which);
                wasm_bindgen_futures::spawn_local(async move {
                    match wasm_bindgen_futures::JsFuture::from(p).await {
                        Ok(m) => {
                            if which == K8S {
                                arrived(m.clone());
                            } else {
                                MODULE.with(|s| s.borrow_mut()[which] = Some(m.clone()));
                            }
                            state.set(Chunk::Ready(Module(m, which)));
                        }
                        Err(e) => {
                            forget_failure(which);
                            // Unless the module was provided meanwhile.
                            state.set(loaded().map_or_else(|| Chunk::Failed(describe(&e)), Chunk::Ready));
                        }
                    }
                });
            }
        });
    }
    let retry = Callback::from(move |_| attempt.set(*attempt + 1));
    ((*state).clone(), retry)
}

/// For a view that is complete without the chunk but better with it (steps 1, 2 and 4
/// word a syntax error exactly once it is there): renders the component again when
/// the chunk arrives, if it was not there at this render (`ready_at_render`). `now`
/// imports it at once (a failure renders the view again, [`failed`], and it waits for
/// a [`retry`]); otherwise `wait` waits for the idle prefetch or another
/// step.
#[hook]
pub fn use_chunk_arrival(ready_at_render: bool, now: bool, wait: bool) {
    let tick = use_state(|| 0u32);
    use_effect_with((ready_at_render, now, wait), move |&(ready_at_render, now, wait)| {
        if ready_at_render {
            return;
        }
        let waiter = tick.clone();
        let again = move || tick.set(*tick + 1);
        if ready().is_some() {
            again();
        } else if now {
            let p = load(K8S);
            wasm_bindgen_futures::spawn_local(async move {
                match wasm_bindgen_futures::JsFuture::from(p).await {
                    Ok(m) => {
                        arrived(m);
                        again();
                    }
                    Err(_) => {
                        FAILED.set(true);
                        forget_failure(K8S);
                        WAITERS.with(|w| w.borrow_mut().push(Box::new(move || waiter.set(*waiter + 1))));
                        again();
                    }
                }
            });
        } else if wait {
            WAITERS.with(|w| w.borrow_mut().push(Box::new(again)));
        }
    });
}

/// Calls the chunk's `func` with `request` as JSON and reads its `Reply<View>` with
/// `read` (one of [`gpulab_view::wire`]'s readers).
pub fn call<View>(m: &Module, func: &str, request: &impl gpulab_view::wire::ToJson, read: fn(&crate::json::Value) -> View) -> Result<View, String> {
    let text = call_text(m, func, &request.to_json())?;
    gpulab_view::wire::reply(&text).map(|v| read(&v))
}

/// Calls the chunk's `func` with one string and returns the string it returns.
pub fn call_text(m: &Module, func: &str, arg: &str) -> Result<String, String> {
    let f = js_sys::Reflect::get(&m.0, &JsValue::from_str(func)).map_err(|e| describe(&e))?;
    let f = f.dyn_into::<js_sys::Function>().map_err(|_| format!("the chunk has no function {func}"))?;
    let out = f.call1(&JsValue::NULL, &JsValue::from_str(arg)).map_err(|e| {
        // A trap inside the chunk comes back here as an error (the call catches it),
        // so this module lives on and the step shows it. The chunk's instance is
        // unusable afterwards: the next step that needs it loads a fresh one.
        if e.is_instance_of::<js_sys::WebAssembly::RuntimeError>() {
            forget_failure(m.1);
            MODULE.with(|s| s.borrow_mut()[m.1] = None);
        }
        describe(&e)
    })?;
    out.as_string().ok_or_else(|| format!("{func} returned no text"))
}

/// The chunk, if it is loaded already.
pub fn ready() -> Option<Module> {
    MODULE.with(|m| m.borrow()[K8S].clone()).map(|m| Module(m, K8S))
}

/// Loads the chunk (once per page) and resolves to its module namespace.
pub fn load_now() -> js_sys::Promise {
    if let Some(m) = ready() {
        return js_sys::Promise::resolve(&m.0);
    }
    let p = load(K8S);
    wasm_bindgen_futures::future_to_promise(async move {
        match wasm_bindgen_futures::JsFuture::from(p).await {
            Ok(m) => {
                arrived(m.clone());
                Ok(m)
            }
            Err(e) => {
                forget_failure(K8S);
                Err(e)
            }
        }
    })
}

/// What a step shows while the chunk is not ready (`None` once it is).
pub fn placeholder(lang: Lang, chunk: &Chunk, retry: &Callback<MouseEvent>) -> Option<Html> {
    placeholder_with(lang, chunk, retry, [MessageId::ChunkLoading, MessageId::ChunkFailed])
}

/// [`placeholder`] in the words `texts` (loading, failed with `$details`) of a module.
pub fn placeholder_with(lang: Lang, chunk: &Chunk, retry: &Callback<MouseEvent>, [loading, failed]: [MessageId; 2]) -> Option<Html> {
    match chunk {
        Chunk::Ready(_) => None,
        Chunk::Loading => Some(html! {
            <p class="chunk-loading" role="status" aria-busy="true">{ t(lang, loading) }</p>
        }),
        Chunk::Failed(e) => Some(html! {
            <div class="chunk-failed" role="alert">
                <p>{ tf(lang, failed, &[("details", e.as_str())]) }</p>
                <p><button type="button" class="chunk-retry" onclick={retry.clone()}>{ t(lang, MessageId::ChunkRetry) }</button></p>
            </div>
        }),
    }
}

/// The model's error for a step, as an alert.
pub fn model_error(lang: Lang, e: &str) -> Html {
    html! { <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e)]) }</p> }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundle's file names carry Cargo.toml's version and agree everywhere: the
    /// chunk's names here, the app's in the `<gpu-lab>` loader, and the post-build
    /// hook that renames trunk's output for both crates index.html links.
    #[test]
    fn bundle_names_carry_the_crate_version() {
        let v = env!("CARGO_PKG_VERSION");
        assert_eq!(JS, format!("gpu-node-lab-k8s-{v}.js"));
        assert_eq!(WASM, format!("gpu-node-lab-k8s-{v}_bg.wasm"));
        assert_eq!(FILES[DRA], [format!("gpu-node-lab-dra-{v}.js"), format!("gpu-node-lab-dra-{v}_bg.wasm")]);
        let loader = include_str!("../../www/gpu-lab.js");
        assert!(loader.contains(&format!("const WASM_JS = \"gpu-node-lab-{v}.js\";")), "www/gpu-lab.js imports gpu-node-lab-{v}.js");
        assert!(loader.contains(&format!("const WASM_BG = \"gpu-node-lab-{v}_bg.wasm\";")), "www/gpu-lab.js loads gpu-node-lab-{v}_bg.wasm");
        assert!(loader.contains(&format!("const WASM_EN = \"{}\";", crate::i18n::EN_FILE)), "www/gpu-lab.js loads {}", crate::i18n::EN_FILE);
        let index = include_str!("../../index.html");
        assert!(index.contains(r#"<link data-trunk rel="rust" data-wasm-opt="z" data-wasm-opt-params="--converge --low-memory-unused --strip-producers --strip-target-features" />"#));
        assert!(index.contains(r#"href="crates/web-k8s/Cargo.toml" data-type="worker""#));
        assert!(index.contains(r#"href="crates/web-dra/Cargo.toml" data-type="worker""#));
        let hook = include_str!("../../scripts/version-bundle.sh");
        assert!(hook.contains("for name in gpu-node-lab gpu-node-lab-k8s gpu-node-lab-dra; do"));
        assert_eq!(crate::i18n::EN_FILE, format!("gpu-node-lab-{v}-en.ftl"));
        assert!(hook.contains(r#"mv "$dir/en.ftl" "$dir/gpu-node-lab-$version-en.ftl""#));
        assert!(index.contains(r#"<link data-trunk rel="copy-file" href="i18n/en.ftl" />"#));
        let trunk = include_str!("../../Trunk.toml");
        assert!(trunk.contains(r#"command_arguments = ["scripts/version-bundle.sh"]"#));
    }
}
