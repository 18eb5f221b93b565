//! Browser tests (wasm-bindgen-test in headless Chromium): the lab mounts through
//! the exported API, shows the eight steps in Korean, switches to English, and its
//! handle updates, reports state and destroys.
#![cfg(target_arch = "wasm32")]

use gpu_node_lab::mount;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn new_root() -> web_sys::Element {
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    root
}

fn step_titles(root: &web_sys::Element) -> Vec<String> {
    let list = root.query_selector_all(".step-title").unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().text_content().unwrap()).collect()
}

fn options(pairs: &[(&str, JsValue)]) -> JsValue {
    let obj = js_sys::Object::new();
    for (k, v) in pairs {
        js_sys::Reflect::set(&obj, &(*k).into(), v).unwrap();
    }
    obj.into()
}

fn state_of(handle: &gpu_node_lab::LabHandle) -> (String, f64) {
    let s = handle.state();
    let lang = js_sys::Reflect::get(&s, &"lang".into()).unwrap().as_string().unwrap();
    let step = js_sys::Reflect::get(&s, &"step".into()).unwrap().as_f64().unwrap();
    (lang, step)
}

/// Mounted with no options the lab is Korean, on step 1, with all eight titles.
#[wasm_bindgen_test]
async fn mounts_in_korean_with_eight_steps() {
    let root = new_root();
    let mut handle = mount(root.clone(), JsValue::UNDEFINED).unwrap();
    yew::scheduler::flush().await;
    let titles = step_titles(&root);
    assert_eq!(titles.len(), 8);
    assert_eq!(titles[0], "containerd 기본 설정");
    assert_eq!(titles[7], "롤아웃 정체와 장애 보고서");
    assert_eq!(state_of(&handle), ("ko".to_string(), 1.0));
    handle.destroy();
}

/// Clicking "English" switches every title and the state; clicking a step moves there.
#[wasm_bindgen_test]
async fn language_switch_and_navigation_by_click() {
    let root = new_root();
    let mut handle = mount(root.clone(), JsValue::UNDEFINED).unwrap();
    yew::scheduler::flush().await;
    let en: web_sys::HtmlElement = root.query_selector("[data-lang=en]").unwrap().unwrap().dyn_into().unwrap();
    en.click();
    yew::scheduler::flush().await;
    assert_eq!(step_titles(&root)[0], "Main containerd config");
    let step6: web_sys::HtmlElement = root.query_selector("[data-step='6']").unwrap().unwrap().dyn_into().unwrap();
    step6.click();
    yew::scheduler::flush().await;
    assert_eq!(state_of(&handle), ("en".to_string(), 6.0));
    let heading = root.query_selector(".step-heading").unwrap().unwrap().text_content().unwrap();
    assert_eq!(heading, "GPU advertisement and the scheduler's verdict");
    assert_eq!(step6.get_attribute("aria-current").as_deref(), Some("step"));
    handle.destroy();
}

/// `update` applies host options; `destroy` empties the root; bad options are errors.
#[wasm_bindgen_test]
async fn handle_update_destroy_and_bad_options() {
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 2.into())])).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(state_of(&handle), ("en".to_string(), 2.0));
    handle.update(options(&[("lang", "ko".into())])).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(state_of(&handle), ("ko".to_string(), 2.0));
    assert!(handle.update(options(&[("step", 0.into())])).is_err());
    handle.destroy();
    yew::scheduler::flush().await;
    assert_eq!(root.child_element_count(), 0);
    assert!(handle.update(JsValue::UNDEFINED).is_err(), "a destroyed lab refuses updates");
    let err = mount(new_root(), options(&[("lang", "fr".into())])).err().unwrap();
    let message = js_sys::Reflect::get(&err, &"message".into()).unwrap().as_string().unwrap();
    assert_eq!(message, "gpu-lab: unknown lang \"fr\": use \"ko\" or \"en\"");
}

/// Two labs on one page are independent.
#[wasm_bindgen_test]
async fn two_labs_are_independent() {
    let (a, b) = (new_root(), new_root());
    let mut ha = mount(a.clone(), options(&[("lang", "en".into())])).unwrap();
    let mut hb = mount(b.clone(), JsValue::UNDEFINED).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(step_titles(&a)[0], "Main containerd config");
    assert_eq!(step_titles(&b)[0], "containerd 기본 설정");
    ha.destroy();
    yew::scheduler::flush().await;
    assert_eq!(step_titles(&b).len(), 8, "destroying one lab leaves the other");
    hb.destroy();
}
