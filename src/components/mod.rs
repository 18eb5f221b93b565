//! Shared components: pieces of UI used by more than one step or by the shell.

pub mod diagnostics;
pub mod editor;
pub mod hint;
pub mod lang_switch;
pub mod notice;
pub mod step_nav;
pub mod upstream;
pub mod work_panel;
