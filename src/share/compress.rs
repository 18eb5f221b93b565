//! deflate-raw through the browser's `CompressionStream` / `DecompressionStream`
//! (Chromium 80+, Firefox 113+, Safari 16.4+), so the share link costs no codec in
//! the wasm. Asynchronous: the result arrives in a callback.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::ReadableWritablePair;

// web-sys has these behind `web_sys_unstable_apis`; the two constructors and
// getters the lab needs are declared here instead.
#[wasm_bindgen]
extern "C" {
    type CompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<CompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &CompressionStream) -> web_sys::ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &CompressionStream) -> web_sys::WritableStream;

    type DecompressionStream;
    #[wasm_bindgen(constructor, catch)]
    fn new(format: &str) -> Result<DecompressionStream, JsValue>;
    #[wasm_bindgen(method, getter)]
    fn readable(this: &DecompressionStream) -> web_sys::ReadableStream;
    #[wasm_bindgen(method, getter)]
    fn writable(this: &DecompressionStream) -> web_sys::WritableStream;
}

/// Compresses (`compress = true`) or decompresses `bytes`; `done` receives the bytes
/// or the browser's error text (a truncated or damaged stream fails here).
pub fn deflate_raw(bytes: &[u8], compress: bool, done: impl FnOnce(Result<Vec<u8>, String>) + 'static) {
    match start(bytes, compress) {
        Ok(promise) => settle(&promise, move |r| done(r.map(|buf| js_sys::Uint8Array::new(&buf).to_vec()).map_err(|e| error_text(&e)))),
        Err(e) => done(Err(error_text(&e))),
    }
}

/// Calls `done` once when `promise` settles (fulfilled: `Ok`, rejected: `Err`).
pub fn settle(promise: &JsValue, done: impl FnOnce(Result<JsValue, JsValue>) + 'static) {
    let done = Rc::new(RefCell::new(Some(done)));
    let ok = {
        let done = done.clone();
        Closure::once_into_js(move |v: JsValue| {
            if let Some(f) = done.borrow_mut().take() {
                f(Ok(v));
            }
        })
    };
    let err = {
        let done = done.clone();
        Closure::once_into_js(move |e: JsValue| {
            if let Some(f) = done.borrow_mut().take() {
                f(Err(e));
            }
        })
    };
    let then = js_sys::Reflect::get(promise, &JsValue::from_str("then")).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let called = then.map(|then| then.call2(promise, &ok, &err));
    if !matches!(called, Some(Ok(_))) {
        if let Some(f) = done.borrow_mut().take() {
            f(Err(JsValue::from_str("not a promise")));
        }
    }
}

fn start(bytes: &[u8], compress: bool) -> Result<JsValue, JsValue> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts)?;
    let pair = if compress {
        let s = CompressionStream::new("deflate-raw")?;
        ReadableWritablePair::new(&s.readable(), &s.writable())
    } else {
        let s = DecompressionStream::new("deflate-raw")?;
        ReadableWritablePair::new(&s.readable(), &s.writable())
    };
    let out = blob.stream().pipe_through(&pair);
    Ok(web_sys::Response::new_with_opt_readable_stream(Some(&out))?.array_buffer()?.into())
}

/// A JS error's message.
pub fn error_text(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| "unknown error".into())
}
