//! `use_memo` whose replaced value is dropped after the render, not during it.
//!
//! Freeing a large result (step 2's load of a 1,000-line config: the parsed files,
//! the merge, hundreds of findings) is a real part of a keystroke's work. Nobody needs
//! it done before the page updates, so the old value is handed to a queue that a
//! zero-delay timeout empties once the render has finished.

use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

thread_local! {
    /// Values waiting to be dropped; `Some` while a timeout to empty it is pending.
    static LATER: RefCell<Option<Vec<Box<dyn Any>>>> = const { RefCell::new(None) };
}

/// Drops `value` in a later task (at once where there is no window, as in tests).
pub fn drop_later(value: Box<dyn Any>) {
    let Some(window) = web_sys::window() else { return };
    let first = LATER.with(|later| {
        let mut later = later.borrow_mut();
        let first = later.is_none();
        later.get_or_insert_with(Vec::new).push(value);
        first
    });
    if first {
        let empty = Closure::once_into_js(drop_now);
        if window.set_timeout_with_callback(empty.unchecked_ref()).is_err() {
            drop_now();
        }
    }
}

/// Drops what is queued, outside the queue's borrow (a value's drop may queue again).
fn drop_now() {
    let queued = LATER.with(|later| later.borrow_mut().take());
    drop(queued);
}

/// Like `use_memo(deps, f)`; the value it replaces is dropped after this render.
#[hook]
pub fn use_memo_later_drop<D, T>(deps: D, f: impl FnOnce(&D) -> T) -> Rc<T>
where
    D: PartialEq + 'static,
    T: 'static,
{
    let slot = use_mut_ref(|| None::<(D, Rc<T>)>);
    let mut slot = slot.borrow_mut();
    if let Some((old, value)) = slot.as_ref() {
        if *old == deps {
            return value.clone();
        }
    }
    let value = Rc::new(f(&deps));
    if let Some(old) = slot.replace((deps, value.clone())) {
        drop_later(Box::new(old));
    }
    value
}
