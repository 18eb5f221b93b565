//! Where the shared goldens live, for every crate's integration tests: `GPULAB_SHARED` when
//! set, else `../shared` beside the repository (where CI lays it). Included by path
//! (`#[path = "../../../tests/shared_dir.rs"] mod shared_dir;`), so a clone anywhere — a
//! worktree, a fresh clone in a temp dir — finds the goldens the way `tests/run-all.sh` does.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared folder (`…/shared`, holding `goldens/`).
pub fn shared() -> PathBuf {
    std::env::var_os("GPULAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"))
}

/// `shared()/goldens/<area>`.
pub fn goldens(area: &str) -> PathBuf {
    shared().join("goldens").join(area)
}
