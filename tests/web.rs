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

fn html_el(root: &web_sys::Element, selector: &str) -> web_sys::HtmlElement {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}")).dyn_into().unwrap()
}

fn texts(root: &web_sys::Element, selector: &str) -> Vec<String> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().text_content().unwrap()).collect()
}

fn fire(target: &web_sys::Element, kind: &str) {
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    target.dispatch_event(&web_sys::Event::new_with_event_init_dict(kind, &init).unwrap()).unwrap();
}

fn set_value(root: &web_sys::Element, selector: &str, value: &str) {
    let el = root.query_selector(selector).unwrap().unwrap();
    js_sys::Reflect::set(&el, &"value".into(), &value.into()).unwrap();
    fire(&el, "input");
    fire(&el, "change");
}

fn clear_saved_work() {
    web_sys::window().unwrap().local_storage().unwrap().unwrap().remove_item(gpu_node_lab::storage::KEY).unwrap();
}

/// The model's table for the given inputs, in the page's language.
fn model_table(input: &gpu_node_lab::state::SlotsInput, lang: gpu_node_lab::i18n::Lang) -> gpulab_model::slots::SlotTable {
    let data = gpu_node_lab::steps::slots::load_data().unwrap();
    gpu_node_lab::steps::slots::compute(input, &data, lang)
}

/// Step 7 shows the model's headline and every cell of the model's table, in English
/// and Korean, and follows the inputs (nodes changed → the model's new figures).
#[wasm_bindgen_test]
async fn step7_shows_the_models_slot_table() {
    use gpu_node_lab::i18n::Lang;
    use gpulab_model::slots::table;
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    assert!(root.query_selector(".not-built").unwrap().is_none(), "step 7 is built");
    let mut input = gpu_node_lab::state::SlotsInput::default();
    for (lang, tag) in [(Lang::En, "en"), (Lang::Ko, "ko")] {
        handle.update(options(&[("lang", tag.into())])).unwrap();
        yew::scheduler::flush().await;
        let t = model_table(&input, lang);
        assert_eq!(texts(&root, ".slots-headline li"), table::headline_lines(&t), "{tag}");
        let cells: Vec<String> = t.rows.iter().flat_map(|r| table::cells(r, t.lang)).collect();
        assert_eq!(texts(&root, ".slot-table tbody th, .slot-table tbody td"), cells, "{tag}");
        assert_eq!(texts(&root, ".export-preview"), vec![table::to_markdown(&t)], "{tag}");
    }
    set_value(&root, ".slots-nodes input", "5");
    yew::scheduler::flush().await;
    input.nodes = 5;
    assert_eq!(texts(&root, ".slots-headline li"), table::headline_lines(&model_table(&input, Lang::Ko)));
    handle.destroy();
}

/// A config the device plugin warns about: the editor's panel lists the model's
/// finding in the CLI's `file:line:col: severity: message [code]` shape (English) and
/// marks the line in the gutter.
#[wasm_bindgen_test]
async fn step7_editor_lists_the_models_diagnostics() {
    use gpulab_model::slots::messages;
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    let config = "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n      replica: 2\n";
    set_value(&root, ".slots-config textarea", config);
    yew::scheduler::flush().await;
    let input = gpu_node_lab::state::SlotsInput { config: config.into(), ..Default::default() };
    let t = model_table(&input, gpu_node_lab::i18n::Lang::En);
    assert!(!t.diagnostics.is_empty(), "the model finds something in this config");
    let expected: Vec<String> = t
        .diagnostics
        .iter()
        .map(|d| {
            let at = d.primary.as_ref().map(|s| format!("{s}: ")).unwrap_or_default();
            let sev = format!("{:?}", d.severity).to_lowercase();
            format!("{at}{sev}: {} [{}]", messages::message(d, t.lang), d.code)
        })
        .collect();
    assert_eq!(texts(&root, ".slots-config .diagnostics li"), expected);
    let marked = root.query_selector_all(".slots-config .gutter-line.has-diag").unwrap().length();
    assert!(marked >= 1, "a line with a finding is marked");
    handle.destroy();
}

/// The editor: Tab inserts two spaces; Esc then Tab is let through (focus leaves), and
/// the note under the editor says which mode it is in.
#[wasm_bindgen_test]
async fn editor_tab_inserts_and_esc_then_tab_leaves() {
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    let area: web_sys::HtmlTextAreaElement = html_el(&root, ".slots-config textarea").dyn_into().unwrap();
    let before = area.value();
    area.focus().unwrap();
    area.set_selection_range(0, 0).unwrap();
    let key = |k: &str| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(k);
        init.set_bubbles(true);
        init.set_cancelable(true);
        let e = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        area.dispatch_event(&e).unwrap();
        e.default_prevented()
    };
    assert!(key("Tab"), "Tab is taken by the editor");
    yew::scheduler::flush().await;
    assert_eq!(area.value(), format!("  {before}"));
    let note = || html_el(&root, ".slots-config .editor-keys").text_content().unwrap();
    assert!(note().contains("press Esc, then Tab"), "{}", note());
    assert!(!key("Escape"));
    yew::scheduler::flush().await;
    assert_eq!(note(), "Esc pressed: Tab now leaves the editor.");
    assert!(!key("Tab"), "after Esc, Tab is not prevented: focus moves on");
    handle.destroy();
}

/// Work is saved on change and a lab mounted later (a reload) finds it.
#[wasm_bindgen_test]
async fn work_is_saved_and_restored() {
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    set_value(&root, ".slots-gpus-per-node input", "3");
    yew::scheduler::flush().await;
    handle.destroy();
    let again = new_root();
    let mut second = mount(again.clone(), options(&[("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    let input: web_sys::HtmlInputElement = html_el(&again, ".slots-gpus-per-node input").dyn_into().unwrap();
    assert_eq!(input.value(), "3");
    second.destroy();
    clear_saved_work();
}
