//! Shared components: pieces of UI used by more than one step or by the shell.

pub mod lang_switch;
pub mod step_nav;
