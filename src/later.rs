//! Work a keystroke need not wait for, done in the task right after the render.
//!
//! Freeing the previous load result of a 1,000-line config and writing the learner's
//! work to localStorage are each a real part of a keystroke's cost; neither has to
//! happen before the page shows the new findings. [`after_this_task`] queues such
//! work for one zero-delay timeout; [`use_memo_later_drop`] is `use_memo` whose
//! replaced value is freed that way; `storage::save_soon` writes that way.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

type Job = Box<dyn FnOnce()>;

thread_local! {
    /// Work waiting for the timeout; `Some` while one is scheduled.
    static QUEUE: RefCell<Option<Vec<Job>>> = const { RefCell::new(None) };
}

/// Runs `job` in a task after this one (at once where there is no window, as in
/// native tests, or when the timeout cannot be set).
pub fn after_this_task(job: impl FnOnce() + 'static) {
    let Some(window) = web_sys::window() else { return job() };
    let first = QUEUE.with(|q| {
        let mut q = q.borrow_mut();
        let first = q.is_none();
        q.get_or_insert_with(Vec::new).push(Box::new(job));
        first
    });
    if first && window.set_timeout_with_callback(Closure::once_into_js(run_queued).unchecked_ref()).is_err() {
        run_queued();
    }
}

/// Runs what is queued, outside the queue's borrow (a job may queue more).
fn run_queued() {
    let jobs = QUEUE.with(|q| q.borrow_mut().take()).unwrap_or_default();
    for job in jobs {
        job();
    }
}

/// Like `use_memo(deps, f)`; the value it replaces is freed after this render.
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
        after_this_task(move || drop(old));
    }
    value
}
