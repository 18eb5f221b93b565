//! The public JavaScript API: `mount(root, options) -> LabHandle`. The lab is never
//! auto-started; a host page (index.html, embed.html, the `<gpu-lab>` element or a
//! course page) mounts it into an element it owns.
//!
//! **API Boundary (v1):** `mount`, `LabHandle.update/state/destroy`, the options
//! `{ lang: "ko" | "en", step: 1..8, scenario, scenarioFile, scenarioFiles }`,
//! `loadChunk()`, `provideEnglish(text)`, `scenarioReferences(toml)`, and the `gpulab:statechange` event
//! (detail = the state object) dispatched on the root element. Additions keep v1; a breaking change is a
//! new version (docs/embedding.md, "Stability").
//!
//! An author's scenario ([`scenario`]): `scenario` is a `scenario.toml` as text,
//! `scenarioFile` the name errors show (default `scenario.toml`), `scenarioFiles` the
//! files it references (path → text; `www/gpu-lab.js` fetches them next to a
//! `scenario-src` URL). The model's scenario parser is in the on-demand chunk: a page
//! that passes a scenario awaits `loadChunk()` first (`www/gpu-lab.js` does). A bad
//! scenario does not mount a blank lab: the root shows the model's diagnostics
//! (`file:line:col: severity: message [code]`) and `mount` throws an `Error` whose
//! `diagnostics` lists them.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use yew::AppHandle;

use crate::app::{App, AppProps, StateObserver};
use crate::i18n::{t, Lang, MessageId};
use crate::json;
use gpulab_view::wire::ToJson;
use crate::panic_hook;
use crate::state::LabState;
use crate::steps::Step;

/// Mount options after validation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MountOptions {
    pub lang: Option<Lang>,
    pub step: Option<Step>,
    /// `storageKey`: this lab's own saved work (`storage::key`), so several labs on
    /// one page keep their work apart; without it a lab uses the page-wide default.
    pub storage_key: Option<String>,
}

impl MountOptions {
    /// Validates raw option values; the error says which option and what is allowed.
    pub fn from_parts(lang: Option<&str>, step: Option<f64>) -> Result<MountOptions, String> {
        let lang = match lang {
            None => None,
            Some(tag) => Some(Lang::from_tag(tag).ok_or_else(|| {
                format!("gpu-lab: unknown lang {}: use \"ko\" or \"en\"", gpulab_model::go::quote(tag))
            })?),
        };
        // The step count is the step list's: a step added to `Step::ALL` is a valid option.
        let last = Step::ALL.len();
        let step = match step {
            None => None,
            Some(n) if n.fract() == 0.0 && n >= 1.0 && n <= last as f64 => Step::from_number(n as usize),
            // The model's float printing, as `{n}` prints it (core's would add its
            // Grisu/Dragon4 code to the first load).
            Some(n) => return Err(format!("gpu-lab: step {} is not a lab step: use 1 to {last}", gpulab_model::float::display(n))),
        };
        Ok(MountOptions { lang, step, storage_key: None })
    }

    fn from_js(options: &JsValue) -> Result<MountOptions, JsValue> {
        if options.is_undefined() || options.is_null() {
            return Ok(MountOptions::default());
        }
        if !options.is_object() {
            return Err(js_sys::TypeError::new("gpu-lab: options must be an object").into());
        }
        let get = |key: &str| js_sys::Reflect::get(options, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);
        let lang_value = get("lang");
        let lang = match lang_value.as_string() {
            Some(s) => Some(s),
            None if lang_value.is_undefined() || lang_value.is_null() => None,
            None => return Err(js_sys::TypeError::new("gpu-lab: option lang must be a string").into()),
        };
        let step_value = get("step");
        let step = match step_value.as_f64() {
            Some(n) => Some(n),
            None if step_value.is_undefined() || step_value.is_null() => None,
            None => return Err(js_sys::TypeError::new("gpu-lab: option step must be a number").into()),
        };
        let key_value = get("storageKey");
        let storage_key = match key_value.as_string() {
            Some(k) if crate::storage::valid_storage_key(&k) => Some(k),
            Some(k) => {
                return Err(js_sys::RangeError::new(&format!(
                    "gpu-lab: option storageKey {} must be 1 to 64 characters of A-Z a-z 0-9 . _ -",
                    gpulab_model::go::quote(&k)
                ))
                .into())
            }
            None if key_value.is_undefined() || key_value.is_null() => None,
            None => return Err(js_sys::TypeError::new("gpu-lab: option storageKey must be a string").into()),
        };
        let options = MountOptions::from_parts(lang.as_deref(), step).map_err(|e| JsValue::from(js_sys::RangeError::new(&e)))?;
        Ok(MountOptions { storage_key, ..options })
    }
}

pub mod scenario;

fn get(options: &JsValue, key: &str) -> JsValue {
    if !options.is_object() {
        return JsValue::UNDEFINED;
    }
    js_sys::Reflect::get(options, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// The `scenario`, `scenarioFile` and `scenarioFiles` options, if a scenario is given.
fn scenario_source(options: &JsValue) -> Result<Option<scenario::Source>, JsValue> {
    let text = get(options, "scenario");
    if absent(&text) {
        return Ok(None);
    }
    let type_error = |m: &str| -> JsValue { js_sys::TypeError::new(m).into() };
    let text = text.as_string().ok_or_else(|| type_error("gpu-lab: option scenario must be a string (the scenario.toml text)"))?;
    let file = get(options, "scenarioFile");
    let file = if absent(&file) {
        gpulab_model::scenario::SCENARIO_FILE.to_string()
    } else {
        file.as_string().ok_or_else(|| type_error("gpu-lab: option scenarioFile must be a string"))?
    };
    let mut files = std::collections::BTreeMap::new();
    let given = get(options, "scenarioFiles");
    if !absent(&given) {
        if !given.is_object() {
            return Err(type_error("gpu-lab: option scenarioFiles must be an object of path: text"));
        }
        for entry in js_sys::Object::entries(&js_sys::Object::from(given)).iter() {
            let pair = js_sys::Array::from(&entry);
            match (pair.get(0).as_string(), pair.get(1).as_string()) {
                (Some(path), Some(content)) => {
                    files.insert(path, content);
                }
                _ => return Err(type_error("gpu-lab: option scenarioFiles must map paths to file text (strings)")),
            }
        }
    }
    Ok(Some(scenario::Source { file, text, files }))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Shows a bad scenario's diagnostics in the root (the author sees them in the page)
/// and returns the error `mount` throws: its `diagnostics` lists them as objects.
fn scenario_error(root: &web_sys::Element, lang: Lang, diags: &[gpulab_view::AuthorDiag]) -> JsValue {
    let items: String = diags.iter().map(|d| format!("<li><code>{}</code></li>", escape(&d.text))).collect();
    root.set_inner_html(&format!(
        "<div class=\"gpu-lab gpu-lab-error\" role=\"alert\" lang=\"{}\"><p class=\"error-title\">{}</p><ul class=\"diagnostics\">{items}</ul><p class=\"error-hint\">{}</p></div>",
        lang.tag(),
        escape(t(lang, MessageId::AuthorErrorTitle)),
        escape(t(lang, MessageId::AuthorErrorHint)),
    ));
    let lines: Vec<&str> = diags.iter().map(|d| d.text.as_str()).collect();
    let error = js_sys::Error::new(&format!("gpu-lab: the scenario has errors:\n{}", lines.join("\n")));
    let list = js_sys::Array::new();
    for d in diags {
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            js_sys::Reflect::set(&o, &k.into(), &v).ok();
        };
        if let (Some(file), Some(line), Some(column)) = (&d.file, d.line, d.column) {
            set("file", file.as_str().into());
            set("line", f64::from(line).into());
            set("column", f64::from(column).into());
        }
        set("code", d.code.as_str().into());
        set("message", d.message.as_str().into());
        set("text", d.text.as_str().into());
        list.push(&o);
    }
    js_sys::Reflect::set(&error, &"diagnostics".into(), &list).ok();
    error.into()
}

/// The error for a scenario given before the chunk that reads it was loaded.
fn chunk_not_loaded() -> JsValue {
    js_sys::Error::new(&format!(
        "gpu-lab: an author scenario is read by the lab's second module ({}): await loadChunk() first (gpu-lab.js does)",
        crate::steps::chunk::JS
    ))
    .into()
}

/// Loads the lab's on-demand module (steps 3 to 8, author scenarios); resolves when
/// it is ready. Pages that pass a scenario to `mount` await it first.
#[wasm_bindgen(js_name = loadChunk)]
pub fn load_chunk() -> js_sys::Promise {
    crate::steps::chunk::load_now()
}

/// Hands the lab this build's `i18n/en.ftl` (`www/gpu-lab.js` fetches it before it
/// mounts a lab in English, so the lab never shows Korean first); `false` when the
/// text is not that file.
#[wasm_bindgen(js_name = provideEnglish)]
pub fn provide_english(text: String) -> bool {
    crate::i18n::provide_english(text)
}

/// The files a scenario references (paths inside its directory), for the loader to
/// fetch next to a `scenario-src` URL before mounting (after `loadChunk()`).
#[wasm_bindgen(js_name = scenarioReferences)]
pub fn scenario_references(text: &str) -> Result<js_sys::Array, JsValue> {
    let m = crate::steps::chunk::ready().ok_or_else(chunk_not_loaded)?;
    let reply = crate::steps::chunk::call_text(&m, gpulab_view::api::SCENARIO_REFERENCES, text)?;
    let paths = match json::parse(&reply).ok().as_ref().and_then(|v| v.get("Ok")) {
        Some(json::Value::Array(items)) => items.iter().filter_map(|p| if let json::Value::String(p) = p { Some(JsValue::from_str(p)) } else { None }).collect(),
        _ => return Err(js_sys::Error::new(&format!("gpu-lab: unreadable scenario references: {reply}")).into()),
    };
    Ok(paths)
}

/// The internal `trapped` option (not v1; only `www/gpu-lab.js` passes it): the lab
/// this one replaces stopped on a trap while showing `trapped.step`, with
/// `trapped.details`. The new lab says so and does not render that step until the
/// learner chooses to discard its saved input or to try it again.
fn trapped(options: &JsValue) -> Option<(Step, String)> {
    let t = get(options, "trapped");
    let step = get(&t, "step").as_f64().and_then(|n| Step::from_number(n as usize))?;
    Some((step, get(&t, "details").as_string().unwrap_or_default()))
}

/// A mounted lab. Dropping the JS object without `destroy()` leaves the lab mounted.
#[wasm_bindgen]
pub struct LabHandle {
    app: Option<AppHandle<App>>,
    root: web_sys::Element,
    props: AppProps,
    latest: Rc<RefCell<LabState>>,
    /// The author scenario's title, if the lab started from one.
    scenario: Option<String>,
}

/// Mounts a lab into `root` (an element the host owns; its content is replaced).
#[wasm_bindgen]
pub fn mount(root: web_sys::Element, options: JsValue) -> Result<LabHandle, JsValue> {
    panic_hook::install();
    let source = scenario_source(&options)?;
    let options_js = options;
    let options = MountOptions::from_js(&options_js)?;
    let lang = options.lang.unwrap_or_default();
    let loaded = match source {
        None => None,
        Some(source) => {
            let m = crate::steps::chunk::ready().ok_or_else(chunk_not_loaded)?;
            let reply = crate::steps::chunk::call_text(&m, gpulab_view::api::SCENARIO, &source.to_json())?;
            match scenario::read_reply(&reply) {
                Ok(l) => Some(l),
                Err(scenario::LoadError::Scenario(diags)) => return Err(scenario_error(&root, lang, &diags)),
                Err(scenario::LoadError::Chunk(e)) => return Err(js_sys::Error::new(&format!("gpu-lab: {e}")).into()),
            }
        }
    };
    let title = loaded.as_ref().map(|l| l.title.clone());
    let initial = LabState {
        lang,
        step: options.step.unwrap_or_default(),
        work: Default::default(),
    };
    let latest = Rc::new(RefCell::new(initial.clone()));
    let observer = {
        let latest = latest.clone();
        // `www/gpu-lab.js` mounts into a `.gpu-lab-host` of its own inside the page's
        // element (replaced after a trap); events still go to the page's element.
        let target = match root.parent_element() {
            Some(page) if root.class_name() == "gpu-lab-host" => page,
            _ => root.clone(),
        };
        let root = root.clone();
        let title = title.clone();
        StateObserver(Rc::new(move |state: LabState| {
            panic_hook::track(&root, state.lang);
            let detail = state_object(&state, title.as_deref());
            *latest.borrow_mut() = state;
            dispatch(&target, "gpulab:statechange", &detail, true);
        }))
    };
    // Internal (not v1): the learner picked a language whose messages the page has not
    // fetched yet; `www/gpu-lab.js` fetches them and updates the lab.
    let ask_lang = {
        let root = root.clone();
        yew::Callback::from(move |lang: Lang| dispatch(&root, "gpulab:lang", &lang.tag().into(), true))
    };
    let props = AppProps {
        lang: initial.lang,
        step: initial.step,
        observer: Some(observer),
        work: loaded.map(|l| l.work),
        storage_key: options.storage_key.clone(),
        trapped: trapped(&options_js),
        host: Some(root.clone()),
        ask_lang: Some(ask_lang),
    };
    root.set_inner_html("");
    panic_hook::track(&root, initial.lang);
    let app = yew::Renderer::<App>::with_root_and_props(root.clone(), props.clone()).render();
    Ok(LabHandle { app: Some(app), root, props, latest, scenario: title })
}

#[wasm_bindgen]
impl LabHandle {
    /// Applies new options (`lang`, `step`); options not given keep their value.
    pub fn update(&mut self, options: JsValue) -> Result<(), JsValue> {
        if !absent(&get(&options, "scenario")) {
            return Err(js_sys::TypeError::new("gpu-lab: scenario is a mount option: destroy this lab and mount a new one").into());
        }
        if !absent(&get(&options, "storageKey")) {
            return Err(js_sys::TypeError::new("gpu-lab: storageKey is a mount option: destroy this lab and mount a new one").into());
        }
        let options = MountOptions::from_js(&options)?;
        let Some(app) = self.app.as_mut() else {
            return Err(js_sys::Error::new("gpu-lab: this lab was destroyed").into());
        };
        let current = self.latest.borrow().clone();
        self.props.lang = options.lang.unwrap_or(current.lang);
        self.props.step = options.step.unwrap_or(current.step);
        app.update(self.props.clone());
        Ok(())
    }

    /// The lab's state as a plain object: `{ lang: "ko", step: 1 }`, and `scenario`
    /// (the author scenario's title) when the lab started from one.
    pub fn state(&self) -> JsValue {
        state_object(&self.latest.borrow(), self.scenario.as_deref())
    }

    /// Unmounts the lab; its root is empty by the next task (Yew unmounts on its
    /// scheduler). Calling it twice is harmless.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
            panic_hook::untrack(&self.root);
            // Work changed just before unmounting is written now, not in a later task.
            crate::storage::flush();
        }
    }
}

/// Dispatches the event `name` with `detail` on `target`.
fn dispatch(target: &web_sys::Element, name: &str, detail: &JsValue, bubbles: bool) {
    let init = web_sys::CustomEventInit::new();
    init.set_detail(detail);
    init.set_bubbles(bubbles);
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(name, &init) {
        target.dispatch_event(&event).ok();
    }
}

fn state_object(state: &LabState, scenario: Option<&str>) -> JsValue {
    let obj = js_sys::Object::new();
    js_sys::Reflect::set(&obj, &"lang".into(), &state.lang.tag().into()).ok();
    js_sys::Reflect::set(&obj, &"step".into(), &(state.step.number() as f64).into()).ok();
    if let Some(title) = scenario {
        js_sys::Reflect::set(&obj, &"scenario".into(), &title.into()).ok();
    }
    obj.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Option validation: accepted values, and errors that name the option.
    #[test]
    fn validates_options() {
        let cases: [(Option<&str>, Option<f64>, Result<MountOptions, &str>); 5] = [
            (None, None, Ok(MountOptions::default())),
            (Some("en"), Some(3.0), Ok(MountOptions { lang: Some(Lang::En), step: Some(Step::CheckScript), storage_key: None })),
            (Some("fr"), None, Err("gpu-lab: unknown lang \"fr\": use \"ko\" or \"en\"")),
            (None, Some(9.0), Err("gpu-lab: step 9 is not a lab step: use 1 to 8")),
            (None, Some(2.5), Err("gpu-lab: step 2.5 is not a lab step: use 1 to 8")),
        ];
        for (lang, step, expected) in cases {
            assert_eq!(MountOptions::from_parts(lang, step), expected.map_err(String::from));
        }
    }
}
