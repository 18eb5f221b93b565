//! The public JavaScript API: `mount(root, options) -> LabHandle`. The lab is never
//! auto-started; a host page (index.html, embed.html, the `<gpu-lab>` element or a
//! course page) mounts it into an element it owns.
//!
//! **API Boundary:** `mount`, `LabHandle.update/state/destroy`, the options
//! `{ lang: "ko" | "en", step: 1..8 }`, and the `gpulab:statechange` event (detail =
//! the state object) dispatched on the root element.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use yew::AppHandle;

use crate::app::{App, AppProps, StateObserver};
use crate::i18n::Lang;
use crate::panic_hook;
use crate::state::LabState;
use crate::steps::Step;

/// Mount options after validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MountOptions {
    pub lang: Option<Lang>,
    pub step: Option<Step>,
}

impl MountOptions {
    /// Validates raw option values; the error says which option and what is allowed.
    pub fn from_parts(lang: Option<&str>, step: Option<f64>) -> Result<MountOptions, String> {
        let lang = match lang {
            None => None,
            Some(tag) => Some(Lang::from_tag(tag).ok_or_else(|| {
                format!("gpu-lab: unknown lang {tag:?}: use \"ko\" or \"en\"")
            })?),
        };
        let step = match step {
            None => None,
            Some(n) if n.fract() == 0.0 && (1.0..=8.0).contains(&n) => Step::from_number(n as usize),
            Some(n) => return Err(format!("gpu-lab: step {n} is not a lab step: use 1 to 8")),
        };
        Ok(MountOptions { lang, step })
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
        MountOptions::from_parts(lang.as_deref(), step).map_err(|e| js_sys::RangeError::new(&e).into())
    }
}

/// A mounted lab. Dropping the JS object without `destroy()` leaves the lab mounted.
#[wasm_bindgen]
pub struct LabHandle {
    app: Option<AppHandle<App>>,
    root: web_sys::Element,
    props: AppProps,
    latest: Rc<RefCell<LabState>>,
}

/// Mounts a lab into `root` (an element the host owns; its content is replaced).
#[wasm_bindgen]
pub fn mount(root: web_sys::Element, options: JsValue) -> Result<LabHandle, JsValue> {
    panic_hook::install();
    let options = MountOptions::from_js(&options)?;
    let initial = LabState {
        lang: options.lang.unwrap_or_default(),
        step: options.step.unwrap_or_default(),
        work: Default::default(),
    };
    let latest = Rc::new(RefCell::new(initial.clone()));
    let observer = {
        let latest = latest.clone();
        let root = root.clone();
        StateObserver(Rc::new(move |state: LabState| {
            panic_hook::track(&root, state.lang);
            let init = web_sys::CustomEventInit::new();
            init.set_detail(&state_object(&state));
            *latest.borrow_mut() = state;
            init.set_bubbles(true);
            if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("gpulab:statechange", &init) {
                root.dispatch_event(&event).ok();
            }
        }))
    };
    let props = AppProps { lang: initial.lang, step: initial.step, observer: Some(observer) };
    root.set_inner_html("");
    panic_hook::track(&root, initial.lang);
    let app = yew::Renderer::<App>::with_root_and_props(root.clone(), props.clone()).render();
    Ok(LabHandle { app: Some(app), root, props, latest })
}

#[wasm_bindgen]
impl LabHandle {
    /// Applies new options (`lang`, `step`); options not given keep their value.
    pub fn update(&mut self, options: JsValue) -> Result<(), JsValue> {
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

    /// The lab's state as a plain object: `{ lang: "ko", step: 1 }`.
    pub fn state(&self) -> JsValue {
        state_object(&self.latest.borrow())
    }

    /// Unmounts the lab; its root is empty by the next task (Yew unmounts on its
    /// scheduler). Calling it twice is harmless.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
            panic_hook::untrack(&self.root);
        }
    }
}

fn state_object(state: &LabState) -> JsValue {
    let obj = js_sys::Object::new();
    js_sys::Reflect::set(&obj, &"lang".into(), &state.lang.tag().into()).ok();
    js_sys::Reflect::set(&obj, &"step".into(), &(state.step.number() as f64).into()).ok();
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
            (Some("en"), Some(3.0), Ok(MountOptions { lang: Some(Lang::En), step: Some(Step::CheckScript) })),
            (Some("fr"), None, Err("gpu-lab: unknown lang \"fr\": use \"ko\" or \"en\"")),
            (None, Some(9.0), Err("gpu-lab: step 9 is not a lab step: use 1 to 8")),
            (None, Some(2.5), Err("gpu-lab: step 2.5 is not a lab step: use 1 to 8")),
        ];
        for (lang, step, expected) in cases {
            assert_eq!(MountOptions::from_parts(lang, step), expected.map_err(String::from));
        }
    }
}
