//! deflate-raw through the browser's `CompressionStream` / `DecompressionStream`
//! (Chromium 80+, Firefox 113+, Safari 16.4+), so the share link costs no codec in
//! the wasm. Asynchronous: the result arrives in a callback.

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
        Ok(promise) => settle(&promise, move |v| match v.dyn_into::<js_sys::ArrayBuffer>() {
            Ok(buf) => done(Ok(js_sys::Uint8Array::new(&buf).to_vec())),
            Err(e) => done(Err(error_text(&e))),
        }),
        Err(e) => done(Err(error_text(&e))),
    }
}

/// Calls `done` once when `promise` settles, with its value or its rejection reason
/// (one callback for both keeps the wasm small; callers tell them apart by type).
pub fn settle(promise: &JsValue, done: impl FnOnce(JsValue) + 'static) {
    let f = Closure::once_into_js(done);
    let then = js_sys::Reflect::get(promise, &JsValue::from_str("then")).ok().and_then(|t| t.dyn_into::<js_sys::Function>().ok());
    if let Some(then) = then {
        let _ = then.call2(promise, &f, &f);
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
