//! Browser tests (wasm-bindgen-test in headless Chromium): the lab mounts through
//! the exported API, shows the eight steps in Korean, switches to English, and its
//! handle updates, reports state and destroys. The English messages are handed to
//! the lab as the page's loader does once it fetched them (`i18n::provide_english`).
#![cfg(target_arch = "wasm32")]

use gpu_node_lab::mount;
use wasm_bindgen::{JsCast, JsValue};

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh element to mount a lab into; the app is handed the on-demand chunk's
/// functions (linked into this test binary), as a page has them once it loaded
/// `gpu-node-lab-k8s-<version>.js`.
fn new_root() -> web_sys::Element {
    provide_chunk();
    provide_english();
    let root = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&root).unwrap();
    root
}

/// The English messages, as a page has them once it fetched
/// `gpu-node-lab-<version>-en.ftl` (the wasm carries only Korean).
fn provide_english() {
    use gpu_node_lab::i18n::{provide_english, ready, Lang};
    if !ready(Lang::En) {
        assert!(provide_english(include_str!("../i18n/en.ftl").to_string()));
    }
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

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

/// Hands the app the on-demand chunk's functions (linked into this test binary), as
/// the page would after importing `gpu-node-lab-k8s-<version>.js`.
fn provide_chunk() {
    let module = js_sys::Object::new();
    let kube = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::kube(&r));
    let rollout = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::rollout(&r));
    js_sys::Reflect::set(&module, &"kube".into(), kube.as_ref()).unwrap();
    let slots = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::slots(&r));
    js_sys::Reflect::set(&module, &"rollout".into(), rollout.as_ref()).unwrap();
    js_sys::Reflect::set(&module, &"slots".into(), slots.as_ref()).unwrap();
    let scenario = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::scenario(&r));
    let references = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|t: String| gpu_node_lab_k8s::scenario_references(&t));
    let check = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::check(&r));
    js_sys::Reflect::set(&module, &"check".into(), check.as_ref()).unwrap();
    check.forget();
    let syntax = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::containerd_syntax(&r));
    js_sys::Reflect::set(&module, &"containerd_syntax".into(), syntax.as_ref()).unwrap();
    syntax.forget();
    let messages = wasm_bindgen::closure::Closure::<dyn Fn() -> String>::new(gpu_node_lab_k8s::messages_ko);
    js_sys::Reflect::set(&module, &"messages_ko".into(), messages.as_ref()).unwrap();
    messages.forget();
    js_sys::Reflect::set(&module, &"scenario".into(), scenario.as_ref()).unwrap();
    js_sys::Reflect::set(&module, &"scenario_references".into(), references.as_ref()).unwrap();
    kube.forget();
    rollout.forget();
    slots.forget();
    scenario.forget();
    references.forget();
    gpu_node_lab::steps::chunk::provide(Some(module.into()));
}

/// Hands the app the DRA module's functions (`crates/web-dra`'s `kube` and `slots`).
fn provide_dra() {
    let module = js_sys::Object::new();
    let kube = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::kube_dra(&r));
    js_sys::Reflect::set(&module, &"kube".into(), kube.as_ref()).unwrap();
    kube.forget();
    let slots = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|r: String| gpu_node_lab_k8s::slots_dra(&r));
    js_sys::Reflect::set(&module, &"slots".into(), slots.as_ref()).unwrap();
    slots.forget();
    gpu_node_lab::steps::chunk::provide_module(gpu_node_lab::steps::chunk::DRA, Some(module.into()));
}

/// An author scenario is read by the chunk: without it `mount` and
/// `scenarioReferences` say to load it first; with it the lab starts from the
/// scenario's node (its drop-in in step 2's editor), and a bad scenario shows its
/// findings at file:line in the root and throws them.
#[wasm_bindgen_test]
async fn author_scenarios_are_read_by_the_chunk() {
    let scenario = "title = \"One node\"\ncontainerd = \"1.6.20\"\n[[node]]\nname = \"n\"\nfiles = { \"/etc/containerd/config.toml\" = \"c.toml\", \"/etc/containerd/conf.d/99-nvidia.toml\" = \"d.toml\" }\n[[step]]\nname = \"s\"\ndo = \"observe\"\n";
    let files = options(&[("c.toml", "version = 2\n".into()), ("d.toml", "# the drop-in\nversion = 2\n".into())]);
    let opts = options(&[("lang", "en".into()), ("step", 2.into()), ("scenario", scenario.into()), ("scenarioFiles", files)]);
    let root = new_root();
    gpu_node_lab::steps::chunk::provide(None);
    let err = mount(root.clone(), opts.clone()).err().expect("mount without the chunk");
    let message = String::from(err.dyn_into::<js_sys::Error>().unwrap().message());
    assert!(message.contains("await loadChunk() first"), "{message}");
    assert!(gpu_node_lab::mount::scenario_references(scenario).is_err());

    provide_chunk();
    let refs: Vec<String> = gpu_node_lab::mount::scenario_references(scenario).unwrap().iter().map(|p| p.as_string().unwrap()).collect();
    assert_eq!(refs, ["c.toml", "d.toml"]);
    let mut handle = mount(root.clone(), opts).unwrap();
    yew::scheduler::flush().await;
    let state = handle.state();
    assert_eq!(js_sys::Reflect::get(&state, &"scenario".into()).unwrap().as_string().as_deref(), Some("One node"));
    let editors = root.query_selector_all("textarea").unwrap();
    let texts: Vec<String> = (0..editors.length()).map(|i| editors.item(i).unwrap().dyn_into::<web_sys::HtmlTextAreaElement>().unwrap().value()).collect();
    assert!(texts.iter().any(|t| t == "# the drop-in\nversion = 2\n"), "{texts:?}");
    handle.destroy();

    let bad = options(&[("scenario", "title = \"x\"\n[[node]\n".into()), ("scenarioFile", "my.toml".into())]);
    let bad_root = new_root();
    let err = mount(bad_root.clone(), bad).err().expect("a bad scenario");
    let diags = js_sys::Array::from(&js_sys::Reflect::get(&err, &"diagnostics".into()).unwrap());
    assert!(diags.length() > 0);
    let first = diags.get(0);
    assert_eq!(js_sys::Reflect::get(&first, &"file".into()).unwrap().as_string().as_deref(), Some("my.toml"));
    assert_eq!(js_sys::Reflect::get(&first, &"line".into()).unwrap().as_f64(), Some(2.0));
    assert!(bad_root.text_content().unwrap().contains("my.toml:2:"), "{:?}", bad_root.text_content());
}

/// Steps 3 to 8 need the on-demand chunk; where it cannot be fetched (this test page
/// serves none) each says it is loading, then shows the error with a retry button,
/// and the retry loads again.
#[wasm_bindgen_test]
async fn steps_3_to_8_say_when_the_chunk_does_not_load() {
    let root = new_root();
    gpu_node_lab::steps::chunk::provide(None);
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 5.into())])).unwrap();
    for step in [3, 5, 6, 7, 8] {
        handle.update(options(&[("step", step.into())])).unwrap();
        yew::scheduler::flush().await;
        let mut waited = 0;
        while root.query_selector(".chunk-failed").unwrap().is_none() && waited < 10_000 {
            sleep(50).await;
            yew::scheduler::flush().await;
            waited += 50;
        }
        let failed = html_el(&root, ".chunk-failed");
        assert_eq!(failed.get_attribute("role").as_deref(), Some("alert"), "step {step}");
        assert!(failed.text_content().unwrap().starts_with("The model for steps 3 to 8 could not be loaded: "));
        click(&root, ".chunk-retry");
        yew::scheduler::flush().await;
        assert!(root.query_selector(".chunk-loading, .chunk-failed").unwrap().is_some(), "step {step}");
        assert!(root.query_selector(".ro-sync, .k8s-outcome, .slot-table, .check-output").unwrap().is_none(), "step {step}");
    }
    handle.destroy();
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

/// The model's table for the given inputs, in the page's language, with the DRA
/// rows of step 6's default version (the tests provide the DRA module).
fn model_table(input: &gpu_node_lab::state::SlotsInput, lang: gpu_node_lab::i18n::Lang) -> gpulab_model::slots::SlotTable {
    let data = gpu_node_lab_k8s::slots::load_data().unwrap();
    let req = gpu_node_lab::steps::slots::request(input, lang, &gpu_node_lab::state::KubeInput::default().version);
    gpu_node_lab_k8s::slots::compute_with::<true>(&req, &data).unwrap()
}

/// Step 7 shows the model's headline and every cell of the model's table, in English
/// and Korean, and follows the inputs (nodes changed → the model's new figures).
#[wasm_bindgen_test]
async fn step7_shows_the_models_slot_table() {
    use gpu_node_lab::i18n::Lang;
    use gpulab_model::slots::table;
    clear_saved_work();
    provide_dra();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
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

fn click(root: &web_sys::Element, selector: &str) {
    html_el(root, selector).click();
}

/// Steps 1 and 2 show the containerd model's `config dump`, CRI status, blame rows
/// and diagnostics for the main config alone, then with the drop-in, and follow the
/// version switch.
#[wasm_bindgen_test]
async fn steps_1_2_show_the_containerd_models_results() {
    use gpu_node_lab::components::diagnostics::SHOWN;
    use gpu_node_lab::steps::containerd::{diag_items, load, model};
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 1.into())])).unwrap();
    yew::scheduler::flush().await;
    let mut input = gpu_node_lab::state::ContainerdInput::default();
    let lang = gpu_node_lab::i18n::Lang::En;
    for (step, with_dropin, version) in [(1, false, "1.7.34"), (2, true, "1.7.34"), (2, true, "2.0.11"), (1, false, "1.6.20")] {
        if version != input.version {
            set_value(&root, ".ctr-version select", version);
            input.version = version.into();
        }
        handle.update(options(&[("step", step.into())])).unwrap();
        yew::scheduler::flush().await;
        let r = load(&model(&input).unwrap(), &input, with_dropin);
        let label = format!("step {step} on {version}");
        assert!(root.query_selector(".not-built").unwrap().is_none(), "{label}");
        assert_eq!(texts(&root, ".ctr-dump"), vec![r.dump.stdout.clone()], "{label}");
        let status = html_el(&root, ".ctr-cri-status").text_content().unwrap();
        assert_eq!(status, format!("CRI plugin status: {}", r.explanation.cri_status), "{label}");
        let codes: Vec<String> = diag_items(lang, &r, None).into_iter().map(|d| format!("[{}]", d.code)).collect();
        assert_eq!(texts(&root, ".step-containerd > .diagnostics .diag-code"), codes, "{label}");
        if with_dropin {
            let rows = r.explanation.blame.iter().filter(|b| b.from.is_some()).count();
            assert_eq!(root.query_selector_all(".ctr-blame tbody tr").unwrap().length() as usize, rows.min(SHOWN), "{label}");
            // One list, one count: the bold total is the number of listed lost keys.
            let lost = r.explanation.lost.len();
            assert_eq!(root.query_selector_all(".ctr-lost").unwrap().length() as usize, lost.min(SHOWN), "{label}");
            let total = root.query_selector(".ctr-lost-count").unwrap().map(|e| e.text_content().unwrap_or_default());
            assert_eq!(total.is_some(), lost > 0, "{label}");
            if let Some(total) = total {
                assert!(total.contains(&lost.to_string()), "{label}: {total}");
            }
        }
    }
    handle.destroy();
    clear_saved_work();
}

/// Steps 1 and 2 word a syntax error with the chunk's containerd verdict once it is
/// there: the page shows what the chunk answers for the file (a stand-in chunk that
/// marks its answer proves it is used), and with the real chunk the page's stderr and
/// daemon exit line equal the model's — `gpulab containerd dump`'s — for 2.x and 1.x.
/// (This test binary links go-toml's parsers through the chunk; the e2e test on the
/// release build shows the lab parser's stand-in before the chunk arrives.)
#[wasm_bindgen_test]
async fn steps_1_2_word_syntax_errors_with_the_chunks_verdict() {
    use gpu_node_lab::steps::containerd::{load, model};
    clear_saved_work();
    let stand_in = js_sys::Object::new();
    let marked = wasm_bindgen::closure::Closure::<dyn Fn(String) -> String>::new(|_: String| {
        r#"{"Ok":{"message":"marked by the chunk","code":"Syntax","line":2,"column":3,"log":null}}"#.to_string()
    });
    js_sys::Reflect::set(&stand_in, &"containerd_syntax".into(), marked.as_ref()).unwrap();
    marked.forget();
    // After `new_root`, which hands the app the real chunk.
    let root = new_root();
    gpu_node_lab::steps::chunk::provide(Some(stand_in.into()));
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 1.into())])).unwrap();
    yew::scheduler::flush().await;
    set_value(&root, ".ctr-version select", "2.3.4");
    set_value(&root, ".ctr-main textarea", "version = 2\nsandbox = runc\n");
    yew::scheduler::flush().await;
    assert_eq!(texts(&root, ".ctr-daemon-exit"), ["containerd: marked by the chunk"]);
    handle.destroy();

    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 1.into())])).unwrap();
    yew::scheduler::flush().await;
    for (version, text) in [("2.3.4", "version = 2\nsandbox = runc\n"), ("2.0.11", "version = 2\nlist = [1, 2\n"), ("1.7.34", "version = 2\n[plugins\n")] {
        set_value(&root, ".ctr-version select", version);
        set_value(&root, ".ctr-main textarea", text);
        yew::scheduler::flush().await;
        let input = gpu_node_lab::state::ContainerdInput { version: version.into(), main: text.into(), ..Default::default() };
        let exact = gpulab_model::containerd::load(&gpu_node_lab::steps::containerd::files(&input, false), &gpulab_model::containerd::Version::parse(version).unwrap());
        assert_eq!(texts(&root, ".ctr-stderr"), [exact.dump.stderr.clone()], "{version}");
        assert_eq!(load(&model(&input).unwrap(), &input, false).dump, exact.dump, "{version}");
        assert!(root.query_selector(".ctr-syntax-pending").unwrap().is_none(), "{version}");
    }
    handle.destroy();
    clear_saved_work();
}

/// Step 4: the buttons drive the model's daemon; each check run shows the script's
/// output for the node at that moment (the model's report, rendered by the model in
/// the chunk).
#[wasm_bindgen_test]
async fn step4_buttons_drive_the_daemon_and_check_runs() {
    use gpu_node_lab::state::{CheckInput, ContainerdInput, DaemonOp, RestartInput};
    use gpu_node_lab::steps::{check::check_request, restart::{replay, state_text}};
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 4.into())])).unwrap();
    yew::scheduler::flush().await;
    let clicks = [
        (".rs-run-check", DaemonOp::RunCheck),
        (".rs-write-dropin", DaemonOp::WriteDropin),
        (".rs-run-check", DaemonOp::RunCheck),
        (".rs-restart", DaemonOp::Restart),
        (".rs-run-check", DaemonOp::RunCheck),
        (".rs-sighup", DaemonOp::Sighup),
        (".rs-run-check", DaemonOp::RunCheck),
    ];
    let mut restart = RestartInput::default();
    let (input, check) = (ContainerdInput::default(), CheckInput::default());
    for (selector, op) in clicks {
        click(&root, selector);
        yew::scheduler::flush().await;
        restart.ops.push(op);
        let daemon = replay(&input, &restart).unwrap();
        let lang = gpu_node_lab::i18n::Lang::En;
        assert_eq!(html_el(&root, ".rs-state").text_content().unwrap(), state_text(lang, &daemon.state), "{selector}");
        let runs = gpu_node_lab_k8s::check::view(&check_request(&input, &restart, &check, lang)).unwrap().runs;
        let outputs: Vec<String> = runs.iter().map(|r| r.output.clone()).collect();
        assert_eq!(texts(&root, ".rs-run .check-output"), outputs, "{selector}");
    }
    let runs = gpu_node_lab_k8s::check::view(&check_request(&input, &restart, &check, gpu_node_lab::i18n::Lang::En)).unwrap().runs;
    let verdicts: Vec<&str> = runs.iter().map(|r| r.verdict.as_str()).collect();
    assert_eq!(verdicts.len(), 4);
    assert_ne!(verdicts[1], verdicts[2], "the verdict before and after the restart differ");
    handle.destroy();
    clear_saved_work();
}

/// Step 3 shows the script's output for the node as step 4 left it, and follows the
/// handler the learner names.
#[wasm_bindgen_test]
async fn step3_shows_the_checks_output_for_the_node() {
    use gpu_node_lab::state::{CheckInput, ContainerdInput, RestartInput};
    use gpu_node_lab::steps::check::check_request;
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "ko".into()), ("step", 3.into())])).unwrap();
    yew::scheduler::flush().await;
    let input = ContainerdInput::default();
    let restart = RestartInput::default();
    let mut check = CheckInput::default();
    for handler in ["nvidia", "runc"] {
        if handler != check.handler {
            set_value(&root, ".ck-handler input", handler);
            yew::scheduler::flush().await;
            check.handler = handler.into();
        }
        let lang = gpu_node_lab::i18n::Lang::Ko;
        let view = gpu_node_lab_k8s::check::view(&check_request(&input, &restart, &check, lang)).unwrap();
        assert_eq!(texts(&root, ".step-check .check-output"), vec![view.now.output], "{handler}");
    }
    assert!(root.query_selector(".ck-download[download='check-runtime.sh']").unwrap().is_some());
    handle.destroy();
    clear_saved_work();
}

/// Step 8 on the chunk: each click is one controller sync; `get ds`, `rollout status`
/// and the pods are the chunk's texts; the learner's answer is judged by the chunk.
#[wasm_bindgen_test]
async fn step8_syncs_by_click_and_judges_the_answer() {
    use gpu_node_lab::steps::rollout::{judgement_line, request};
    use gpu_node_lab_k8s::rollout::view;
    clear_saved_work();
    provide_chunk();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 8.into())])).unwrap();
    yew::scheduler::flush().await;
    let mut work = gpu_node_lab::state::Work::default();
    let en = gpu_node_lab::i18n::Lang::En;
    for n in 0..6u32 {
        work.rollout.syncs = n;
        let v = view(&request(&work, en, false).unwrap()).unwrap();
        for t in &v.tables {
            assert_eq!(texts(&root, &format!(".ro-{}", t.id)), vec![t.text()], "after {n} syncs");
        }
        click(&root, ".ro-sync");
        yew::scheduler::flush().await;
    }
    work.rollout.syncs = 6;
    let node = view(&request(&work, en, false).unwrap()).unwrap().nodes[0].clone();
    set_value(&root, ".ro-node select", &node);
    set_value(&root, ".ro-cause select", "daemon-not-restarted");
    click(&root, ".ro-submit");
    yew::scheduler::flush().await;
    work.rollout = gpu_node_lab::state::RolloutInput { syncs: 6, node: node.clone(), cause: "daemon-not-restarted".into(), answered: true, ..Default::default() };
    let v = view(&request(&work, en, false).unwrap()).unwrap();
    let expected = judgement_line(en, v.judgement.unwrap(), &node, "daemon-not-restarted", &v.roots);
    assert_eq!(html_el(&root, ".ro-judge").text_content().unwrap(), expected);
    assert_eq!(texts(&root, ".ro-report-text"), vec![v.report_md]);
    assert!(root.query_selector(".ro-report-md[download='incident-report.md']").unwrap().is_some());
    // The lab's node was never restarted: the rollout stalls on it, and says why.
    assert_eq!(v.ending, "stalled");
    assert!(texts(&root, ".ro-ending-text")[0].contains("gpu-node-2"), "{:?}", texts(&root, ".ro-ending-text"));
    // "Break it again" and back: a view of the broken run, the learner's work unchanged.
    click(&root, ".ro-break");
    yew::scheduler::flush().await;
    assert_eq!(texts(&root, ".ro-broken-note").len(), 1);
    assert_eq!(html_el(&root, ".ro-break").get_attribute("aria-pressed").as_deref(), Some("true"));
    click(&root, ".ro-break");
    yew::scheduler::flush().await;
    assert!(texts(&root, ".ro-broken-note").is_empty());
    handle.destroy();
    clear_saved_work();
}

/// A lab in English on step 6 with the chunk there and no saved work.
async fn step_6_on_the_chunk() -> (web_sys::Element, gpu_node_lab::LabHandle) {
    clear_saved_work();
    provide_chunk();
    let root = new_root();
    let handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 6.into())])).unwrap();
    yew::scheduler::flush().await;
    (root, handle)
}

/// The chunk's view of the request the app builds for `input` (steps 1–4 as the lab starts).
fn chunk_kube_view(input: &gpu_node_lab::state::KubeInput) -> gpulab_view::KubeView {
    let containerd = gpu_node_lab::state::ContainerdInput::default();
    gpu_node_lab_k8s::kube::view(&gpu_node_lab::steps::kubernetes::request(input, &containerd, &Default::default(), gpu_node_lab::i18n::Lang::En))
}

/// Steps 5–6 on the chunk: the outcome of creating the pod is the chunk's text, it
/// follows the RuntimeClass edit (removed → admission refuses), and patching the GPU
/// node's status to advertise nvidia.com/gpu changes the scheduler's verdict.
#[wasm_bindgen_test]
async fn steps_5_6_show_the_kubernetes_models_outcome() {
    use gpu_node_lab::state::KubeInput;
    use gpulab_view::KubeOutcome;
    let (root, mut handle) = step_6_on_the_chunk().await;
    let mut input = KubeInput::default();
    let shown = |input: &KubeInput| match chunk_kube_view(input).outcome {
        KubeOutcome::Created { verdict, events, nodes, .. } => vec![(".k8s-verdict", verdict), (".k8s-events", events), (".k8s-nodes", nodes)],
        KubeOutcome::Rejected { text } => vec![(".k8s-rejected", text)],
        KubeOutcome::Waiting { text } => vec![(".k8s-waiting", text)],
        KubeOutcome::BadInput { diagnostics } => panic!("the lab's manifests load: {diagnostics:?}"),
        KubeOutcome::NeedsDra {} => panic!("the device plugin's path is the chunk's"),
    };
    for (class, text) in shown(&input) {
        assert_eq!(texts(&root, class), vec![text]);
    }
    assert!(texts(&root, ".k8s-verdict")[0].contains("Pending"));
    set_value(&root, ".k8s-patch-node select", "gpu-node-2");
    click(&root, ".k8s-patch-apply");
    yew::scheduler::flush().await;
    input.patches.push(gpulab_view::NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() });
    for (class, text) in shown(&input) {
        assert_eq!(texts(&root, class), vec![text]);
    }
    assert!(texts(&root, ".k8s-verdict")[0].contains("Scheduled to gpu-node-2"));
    handle.update(options(&[("step", 5.into())])).unwrap();
    yew::scheduler::flush().await;
    set_value(&root, ".k8s-runtimeclass textarea", "");
    yew::scheduler::flush().await;
    input.runtimeclass = String::new();
    assert_eq!(shown(&input)[0].0, ".k8s-rejected");
    assert_eq!(texts(&root, ".k8s-rejected"), vec![shown(&input)[0].1.clone()]);
    handle.destroy();
    clear_saved_work();
}

/// Step 6's path switch: the chunk does not judge DRA — it answers the DRA paths
/// `NeedsDra`, and until the DRA module is there the outcome says it is loading it (or
/// could not) while the switch and the files stay; with the module, each path's
/// verdict, claims and files in the page are the DRA module's view of the request the
/// app builds for that path (the DRA path's pod and objects the module's own files),
/// and the device plugin's path is the chunk's.
#[wasm_bindgen_test]
async fn step_6_paths_show_the_chunks_view() {
    use gpu_node_lab::state::KubeInput;
    use gpulab_view::KubeOutcome;
    let (root, mut handle) = step_6_on_the_chunk().await;
    gpu_node_lab::steps::chunk::provide_module(gpu_node_lab::steps::chunk::DRA, None);
    set_value(&root, ".k8s-path select", "dra");
    yew::scheduler::flush().await;
    assert_eq!(chunk_kube_view(&KubeInput { path: "dra".into(), ..KubeInput::default() }).outcome, KubeOutcome::NeedsDra {});
    assert_eq!(root.query_selector_all(".k8s-outcome .chunk-loading, .k8s-outcome .chunk-failed").unwrap().length(), 1);
    assert_eq!(texts(&root, ".k8s-objects .editor-label"), vec!["dra.yaml".to_string()]);
    set_value(&root, ".k8s-path select", "");
    yew::scheduler::flush().await;
    provide_dra();
    for id in ["dra", "dra-extended", ""] {
        set_value(&root, ".k8s-path select", id);
        yew::scheduler::flush().await;
        let containerd = gpu_node_lab::state::ContainerdInput::default();
        let req = gpu_node_lab::steps::kubernetes::request(&KubeInput { path: id.into(), ..KubeInput::default() }, &containerd, &Default::default(), gpu_node_lab::i18n::Lang::En);
        let view = if id.is_empty() { gpu_node_lab_k8s::kube::view(&req) } else { gpu_node_lab_k8s::kube::view_dra(&req) };
        assert_eq!(texts(&root, ".k8s-objects .editor-label"), if id.is_empty() { vec![] } else { vec![format!("{id}.yaml")] }, "{id}");
        match &view.outcome {
            KubeOutcome::Created { verdict, claims, .. } => {
                assert_eq!(texts(&root, ".k8s-verdict"), vec![verdict.clone()], "{id}");
                assert_eq!(texts(&root, ".k8s-claims"), if claims.is_empty() { vec![] } else { vec![claims.clone()] }, "{id}");
                // The claim of its own (dra), or the scheduler's claim for
                // nvidia.com/gpu backed by the DeviceClass (dra-extended, 1.36).
                assert_eq!(claims.is_empty(), id.is_empty(), "{id}: {claims}");
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    handle.destroy();
    gpu_node_lab::steps::chunk::provide_module(gpu_node_lab::steps::chunk::DRA, None);
    clear_saved_work();
}

/// The app reads the chunk's replies with the protocol's own reader
/// (`gpulab_view::wire`, over the app's one JSON parser): for the lab's own inputs — and for a bad patch, broken YAML and an answered rollout — what
/// it reads equals the typed view serde reads from the same JSON.
#[wasm_bindgen_test]
fn view_readers_agree_with_serde() {
    use gpulab_view::wire;
    use gpulab_view::{KubeView, Reply, RolloutView, SlotsView};
    let containerd = gpu_node_lab::state::ContainerdInput::default();
    let mut kube = gpu_node_lab::state::KubeInput::default();
    let mut replies = vec![];
    for edit in 0..3 {
        match edit {
            1 => kube.patches.push(gpulab_view::NodePatch { node: "nope".into(), resource: "nvidia.com/gpu".into(), quantity: "x".into() }),
            2 => kube.pod = "kind: Pod\n  : [".into(),
            _ => {}
        }
        let restart = gpu_node_lab::state::RestartInput { ops: vec![gpu_node_lab::state::DaemonOp::WriteDropin, gpu_node_lab::state::DaemonOp::Restart], ..Default::default() };
        let req = serde_json::to_string(&gpu_node_lab::steps::kubernetes::request(&kube, &containerd, &restart, gpu_node_lab::i18n::Lang::En)).unwrap();
        replies.push(gpu_node_lab_k8s::kube(&req));
    }
    for json in &replies {
        let typed: Reply<KubeView> = serde_json::from_str(json).unwrap();
        assert_eq!(wire::reply(json).map(|v| wire::kube_view(&v)), typed);
    }
    let mut answered = gpu_node_lab::state::Work::default();
    answered.rollout = gpu_node_lab::state::RolloutInput { syncs: 20, node: "gpu-node-2".into(), cause: "daemon-not-restarted".into(), answered: true, ..Default::default() };
    let req = gpu_node_lab::steps::rollout::request(&answered, gpu_node_lab::i18n::Lang::Ko, true).unwrap();
    let json = gpu_node_lab_k8s::rollout(&serde_json::to_string(&req).unwrap());
    let typed: Reply<RolloutView> = serde_json::from_str(&json).unwrap();
    assert!(typed.as_ref().is_ok_and(|v| v.judgement.is_some()));
    assert_eq!(wire::reply(&json).map(|v| wire::rollout_view(&v)), typed);
    let slots = gpu_node_lab::state::SlotsInput { config: "version: v1\nsharing: [".into(), ..Default::default() };
    let req = gpu_node_lab::steps::slots::request(&slots, gpu_node_lab::i18n::Lang::En, "1.36");
    let json = gpu_node_lab_k8s::slots(&serde_json::to_string(&req).unwrap());
    let typed: Reply<SlotsView> = serde_json::from_str(&json).unwrap();
    assert!(typed.as_ref().is_ok_and(|v| !v.diagnostics.is_empty()));
    assert_eq!(wire::reply(&json).map(|v| wire::slots_view(&v)), typed);
    assert_eq!(wire::reply(r#"{"Err":"boom"}"#).map(|_| ()), Err("boom".to_string()));
}

fn slot_nodes(root: &web_sys::Element) -> String {
    let input: web_sys::HtmlInputElement = html_el(root, ".slots-nodes input").dyn_into().unwrap();
    input.value()
}

/// "Reset all steps" asks first (Cancel keeps the work), resets on Yes, and Undo brings
/// the work back; a step's own reset button is undoable the same way.
#[wasm_bindgen_test]
async fn reset_all_confirms_and_undoes() {
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("step", 7.into()), ("lang", "en".into())])).unwrap();
    yew::scheduler::flush().await;
    set_value(&root, ".slots-nodes input", "5");
    yew::scheduler::flush().await;
    click(&root, ".work-reset-all");
    yew::scheduler::flush().await;
    assert_eq!(texts(&root, ".work-confirm p"), ["Reset every step to its starting files and choices?"]);
    click(&root, ".work-confirm-cancel");
    yew::scheduler::flush().await;
    assert_eq!((slot_nodes(&root), root.query_selector(".work-confirm").unwrap().is_none()), ("5".to_string(), true));
    click(&root, ".work-reset-all");
    yew::scheduler::flush().await;
    click(&root, ".work-confirm-yes");
    yew::scheduler::flush().await;
    assert_eq!(slot_nodes(&root), "2");
    assert_eq!(texts(&root, ".work-panel .notice-text"), ["All steps were reset."]);
    click(&root, ".work-undo");
    yew::scheduler::flush().await;
    assert_eq!(slot_nodes(&root), "5");
    assert_eq!(texts(&root, ".work-panel .notice-text"), ["Undone: your work is as it was before."]);
    // The step's own reset button (no confirmation of its own) can be undone too.
    click(&root, ".step-slots .reset-step");
    yew::scheduler::flush().await;
    assert_eq!(slot_nodes(&root), "2");
    assert_eq!(texts(&root, ".work-panel .notice-text"), ["Step 7 was reset."]);
    click(&root, ".work-undo");
    yew::scheduler::flush().await;
    assert_eq!(slot_nodes(&root), "5");
    handle.destroy();
    clear_saved_work();
}

/// A share link from a newer lab is refused by name, in the UI language, and the
/// saved work stays exactly as it was.
#[wasm_bindgen_test]
async fn a_future_share_link_is_refused_and_saved_work_kept() {
    clear_saved_work();
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let saved = r#"{"slots":{"nodes":6}}"#;
    storage.set_item(gpu_node_lab::storage::KEY, saved).unwrap();
    let location = web_sys::window().unwrap().location();
    location.set_hash("gpulab-v7=AAAA").unwrap();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    location.set_hash("").unwrap();
    assert_eq!(
        texts(&root, ".lab-notice[role=alert] .notice-text"),
        ["공유 링크를 열 수 없습니다. 이유: 더 새로운 버전의 실습이 만든 링크입니다(형식 버전 7, 이 실습은 버전 1을 읽습니다). 저장된 작업은 바뀌지 않았습니다."]
    );
    assert_eq!(slot_nodes(&root), "6");
    assert_eq!(storage.get_item(gpu_node_lab::storage::KEY).unwrap().as_deref(), Some(saved));
    click(&root, ".notice-close");
    yew::scheduler::flush().await;
    assert!(root.query_selector(".lab-notice").unwrap().is_none());
    handle.destroy();
    clear_saved_work();
}

/// Every step is in the navigation, in order, with its number and title; the current
/// one is marked for screen readers.
#[wasm_bindgen_test]
async fn step_nav_lists_the_eight_steps() {
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 6.into())])).unwrap();
    yew::scheduler::flush().await;
    let list = root.query_selector_all(".step-link").unwrap();
    let numbers: Vec<String> = (0..list.length())
        .map(|i| list.item(i).unwrap().dyn_into::<web_sys::Element>().unwrap().get_attribute("data-step").unwrap())
        .collect();
    assert_eq!(numbers, ["1", "2", "3", "4", "5", "6", "7", "8"]);
    let current = root.query_selector(".step-link[aria-current='step']").unwrap().unwrap();
    assert_eq!(current.get_attribute("data-step").as_deref(), Some("6"));
    handle.destroy();
}

/// A long findings list shows the first 100 and says how many there are; "show all"
/// lists every one (the editor's gutter marks every line either way).
#[wasm_bindgen_test]
async fn a_long_findings_list_is_cut_at_100_with_show_all() {
    use gpu_node_lab::components::diagnostics::{DiagItem, DiagnosticsPanel, DiagnosticsProps, SHOWN};
    use gpu_node_lab::i18n::Lang;
    let root = new_root();
    let items: Vec<DiagItem> = (1..=150)
        .map(|i| DiagItem {
            severity: gpulab_model::Severity::Warning,
            location: Some(format!("config.toml:{i}:1")),
            line: Some(i),
            message: format!("finding {i}"),
            code: "test-finding".into(),
        })
        .collect();
    let app = yew::Renderer::<DiagnosticsPanel>::with_root_and_props(root.clone(), DiagnosticsProps { lang: Lang::En, items }).render();
    yew::scheduler::flush().await;
    assert_eq!(SHOWN, 100);
    assert_eq!(root.query_selector_all(".diagnostics li").unwrap().length(), 100);
    assert_eq!(texts(&root, ".diag-more button"), ["Show all 150 findings"]);
    click(&root, ".diag-show-all");
    yew::scheduler::flush().await;
    assert_eq!(root.query_selector_all(".diagnostics li").unwrap().length(), 150);
    assert!(root.query_selector(".diag-more").unwrap().is_none());
    app.destroy();
}

/// Step 2 with a main config whose 150 runtimes the drop-in's table replaces: the
/// lost keys list shows the first 100 of the model's 300 and a button for all; the
/// blame table likewise once the drop-in no longer collides.
#[wasm_bindgen_test]
async fn step2_long_lists_are_cut_at_100_with_show_all() {
    use gpu_node_lab::steps::containerd::{load, model};
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 2.into())])).unwrap();
    yew::scheduler::flush().await;
    let mut main = String::from("version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n");
    for i in 0..150 {
        main.push_str(&format!("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.r{i}]\n  runtime_type = \"io.containerd.runc.v2\"\n  privileged_without_host_devices = true\n"));
    }
    set_value(&root, ".ctr-main textarea", &main);
    yew::scheduler::flush().await;
    let input = gpu_node_lab::state::ContainerdInput { main: main.clone(), ..Default::default() };
    let r = load(&model(&input).unwrap(), &input, true);
    assert_eq!(r.explanation.lost.len(), 300, "the model: every runtime key of the main config is lost");
    assert_eq!(root.query_selector_all(".ctr-lost").unwrap().length(), 100);
    assert_eq!(texts(&root, ".ctr-lost-more button"), ["Show all 300"]);
    click(&root, ".ctr-lost-more .list-show-all");
    yew::scheduler::flush().await;
    assert_eq!(root.query_selector_all(".ctr-lost").unwrap().length(), 300);
    assert!(root.query_selector(".ctr-lost-more").unwrap().is_none());
    // With an empty drop-in nothing is replaced: every key of the main config is
    // blamed on it, and the blame table shows 100 rows first.
    set_value(&root, ".ctr-dropin textarea", "");
    yew::scheduler::flush().await;
    let input = gpu_node_lab::state::ContainerdInput { main, dropin: String::new(), ..Default::default() };
    let r = load(&model(&input).unwrap(), &input, true);
    let blamed = r.explanation.blame.iter().filter(|b| b.from.is_some()).count();
    assert_eq!(blamed, 300, "the model blames both keys of every runtime");
    assert_eq!(root.query_selector_all(".ctr-blame tbody tr").unwrap().length(), 100);
    assert_eq!(texts(&root, ".ctr-blame-more button"), [format!("Show all {blamed}")]);
    click(&root, ".ctr-blame-more .list-show-all");
    yew::scheduler::flush().await;
    assert_eq!(root.query_selector_all(".ctr-blame tbody tr").unwrap().length() as usize, blamed);
    handle.destroy();
    clear_saved_work();
}

/// Two labs mounted with their own `storageKey` save apart: an edit in one is saved
/// under its key and the other's saved work is untouched; a bad key is refused by name,
/// and `update` refuses to change it.
#[wasm_bindgen_test]
async fn labs_with_their_own_storage_key_save_apart() {
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let (ka, kb) = (gpu_node_lab::storage::key(Some("lab-a")), gpu_node_lab::storage::key(Some("lab-b")));
    for k in [&ka, &kb] {
        storage.remove_item(k).unwrap();
    }
    let (a, b) = (new_root(), new_root());
    let mut ha = mount(a.clone(), options(&[("lang", "en".into()), ("step", 7.into()), ("storageKey", "lab-a".into())])).unwrap();
    let mut hb = mount(b.clone(), options(&[("lang", "en".into()), ("step", 7.into()), ("storageKey", "lab-b".into())])).unwrap();
    yew::scheduler::flush().await;
    set_value(&a, ".slots-nodes input", "5");
    yew::scheduler::flush().await;
    assert_eq!(storage.get_item(&ka).unwrap(), None, "written in the task after the render, not during it");
    sleep(0).await;
    let saved_a = storage.get_item(&ka).unwrap().unwrap_or_default();
    assert!(saved_a.contains("\"nodes\":5"), "{saved_a}");
    assert_eq!(storage.get_item(&kb).unwrap(), None, "lab b saved nothing");
    let err = ha.update(options(&[("storageKey", "other".into())])).unwrap_err();
    assert!(format!("{err:?}").contains("storageKey is a mount option"), "{err:?}");
    ha.destroy();
    hb.destroy();
    let err = mount(new_root(), options(&[("storageKey", "a b".into())])).err().unwrap();
    assert!(format!("{err:?}").contains("storageKey \"a b\" must be 1 to 64 characters"), "{err:?}");
    for k in [&ka, &kb] {
        storage.remove_item(k).unwrap();
    }
}

/// Issue 20: a lab mounted with the loader's internal `trapped` option (what
/// `www/gpu-lab.js` passes after a trap) says which step stopped, does not render
/// that step, and "discard" resets that step's saved input only.
#[wasm_bindgen_test]
async fn a_trapped_step_is_not_rendered_and_discard_resets_only_it() {
    clear_saved_work();
    let mut work = gpu_node_lab::state::Work::default();
    work.containerd.main.push_str("# mine\n");
    work.containerd.dropin = "# my drop-in\n".into();
    work.slots.nodes = 5;
    gpu_node_lab::storage::save(gpu_node_lab::storage::KEY, &work).unwrap();
    let trapped = options(&[("step", 2.into()), ("details", "unreachable".into())]);
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 2.into()), ("trapped", trapped)])).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(
        texts(&root, ".lab-notice[role=alert] .notice-text"),
        ["Step 2 stopped on an internal error (unreachable); the lab restarted with your other steps as they were. Discard step 2's saved input, or keep it?"]
    );
    assert!(root.query_selector(".step-containerd").unwrap().is_none(), "step 2 is not rendered before the learner chooses");
    click(&root, ".trap-discard");
    yew::scheduler::flush().await;
    sleep(50).await;
    let saved = gpu_node_lab::storage::load(gpu_node_lab::storage::KEY).unwrap();
    let defaults = gpu_node_lab::state::Work::default();
    assert_eq!((saved.containerd.dropin, saved.containerd.main, saved.slots.nodes), (defaults.containerd.dropin, work.containerd.main, 5));
    assert!(root.query_selector(".step-containerd").unwrap().is_some(), "the step is back once the learner chose");
    handle.destroy();
    clear_saved_work();
}

/// Issue 20: an editor refuses a text over the 256 KB a file or link carries; the
/// text before it stays, in the editor and in the saved work.
#[wasm_bindgen_test]
async fn an_editor_refuses_text_over_its_limit() {
    clear_saved_work();
    let root = new_root();
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 1.into())])).unwrap();
    yew::scheduler::flush().await;
    let area: web_sys::HtmlTextAreaElement = html_el(&root, ".ctr-main textarea").dyn_into().unwrap();
    let before = area.value();
    set_value(&root, ".ctr-main textarea", &"x".repeat(gpu_node_lab::share::envelope::MAX_TEXT + 1));
    yew::scheduler::flush().await;
    assert_eq!(area.value(), before);
    assert_eq!(
        texts(&root, ".editor-too-long"),
        ["Not changed: the text would be 262145 bytes, over the 262144 an editor holds. The text before it is kept."]
    );
    handle.destroy();
    clear_saved_work();
}

/// Issue 20: a trap inside the chunk comes back to the app as the call's error: the
/// step shows it (the app's own module lives on) and the trapped chunk is forgotten,
/// so the next step that needs it loads a fresh one.
#[wasm_bindgen_test]
async fn a_trap_in_the_chunk_is_shown_and_the_chunk_forgotten() {
    clear_saved_work();
    let root = new_root();
    let module = js_sys::Object::new();
    let trap = js_sys::Function::new_no_args("throw new WebAssembly.RuntimeError('unreachable')");
    js_sys::Reflect::set(&module, &"slots".into(), &trap).unwrap();
    gpu_node_lab::steps::chunk::provide(Some(module.into()));
    let mut handle = mount(root.clone(), options(&[("lang", "en".into()), ("step", 7.into())])).unwrap();
    yew::scheduler::flush().await;
    assert_eq!(texts(&root, ".model-error"), ["The model could not load its built-in data: unreachable"]);
    assert!(gpu_node_lab::steps::chunk::ready().is_none(), "the trapped chunk is not used again");
    // The app itself still works: another step renders and answers.
    handle.update(options(&[("step", 1.into())])).unwrap();
    yew::scheduler::flush().await;
    assert!(root.query_selector(".ctr-main textarea").unwrap().is_some());
    handle.destroy();
}
