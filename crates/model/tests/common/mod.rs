//! What the model's integration tests share: the snapshot check (a file under
//! `tests/snapshots/`, rewritten with `UPDATE_SNAPSHOTS=1`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, dead_code)]

use std::path::PathBuf;

/// `actual` equals `tests/snapshots/<name>` byte for byte; with `UPDATE_SNAPSHOTS` set,
/// the file is written instead. A difference names its first line, expected and actual.
pub fn check_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} missing: run with UPDATE_SNAPSHOTS=1", path.display()));
    if expected != actual {
        let first = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{name} differs from the snapshot at line {}:\n  expected: {:?}\n  actual:   {:?}\n(UPDATE_SNAPSHOTS=1 to accept)",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}
