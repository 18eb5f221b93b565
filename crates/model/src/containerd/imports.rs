//! The first stage of a load: a config file read off the node's [`Files`] and parsed
//! (a syntax error worded as the version's containerd words it, [`super::syntax`]),
//! and its `imports` resolved as `resolveImports` does — relative to the importing
//! file, globs expanded in Go's order, each file once.
//!
//! Next: each file is decoded onto the server `Config` struct ([`super::load`]),
//! then migrated ([`super::migrate`]).

use super::files::{self, Entry, Files};
#[cfg(feature = "go-toml-syntax")]
use super::gonumbers::read_lenient;
use super::gonumbers::LazyNumber;
use super::load::{LoadError, LoadErrorCode};
use super::parse::parse;
use super::syntax::Verdicts;
use super::value::Table;
#[cfg(feature = "go-toml-syntax")]
use super::version::Line;
use super::version::Version;

/// The file at `path` read as `version` reads it, with the numbers whose underscores
/// only fail once decoded (2.0–2.3, [`super::gonumbers`]).
pub(super) fn read_file(files: &Files, version: &Version, path: &str, given: &Verdicts, pending: &mut Vec<String>) -> Result<(Table, Vec<LazyNumber>), LoadError> {
    let not_found = |code, what: &str| {
        let os = format!("open {path}: {what}");
        let message = if version.is_1x() { format!("failed to load TOML: {path}: {os}") } else { os };
        LoadError { message, code, at: None, dump_ignores: !version.is_1x() && code == LoadErrorCode::MissingFile, log: None }
    };
    let bytes = match files.read(path) {
        Entry::File(b) => b,
        Entry::Missing => return Err(not_found(LoadErrorCode::MissingFile, "no such file or directory")),
        Entry::Dir => {
            let message = if version.is_1x() {
                format!("failed to load TOML: {path}: read {path}: is a directory")
            } else {
                format!("failed to unmarshal TOML: read {path}: is a directory")
            };
            return Err(LoadError { message, code: LoadErrorCode::NotAFile, at: None, dump_ignores: false, log: None });
        }
    };
    let original = bytes;
    let lossy;
    // go-toml v1 reads invalid UTF-8 as U+FFFD; go-toml v2 rejects it.
    let bytes = if version.is_1x() && std::str::from_utf8(bytes).is_err() {
        lossy = String::from_utf8_lossy(bytes).into_owned();
        lossy.as_bytes()
    } else {
        bytes
    };
    let parsed = parse(path, bytes);
    // Whether (and how) containerd reports a syntax error is its TOML library's call:
    // `syntax` has the verdict, or the lab parser's error while it has none.
    if let Some(e) = super::syntax::judge(version, path, original, bytes, &parsed, given, pending) {
        return Err(e);
    }
    match parsed {
        Ok(table) => Ok((table, Vec::new())),
        Err(e) => {
            #[cfg(feature = "go-toml-syntax")]
            if let Some(lenient) = defers_number_checks(version).then(|| read_lenient(path, bytes, &Err(e.clone()))).flatten() {
                return Ok(lenient);
            }
            #[cfg(feature = "go-toml-syntax")]
            if let Some(super::gonumbers::V1Reading::Table(table)) = version.is_1x().then(|| super::gonumbers::read_v1_leading_zeros(version, path, bytes, &Err(e.clone()))).flatten() {
                return Ok((table, Vec::new()));
            }
            Err(super::syntax::lab_error(version, path, &e))
        }
    }
}

/// go-toml v2.2–2.3 (containerd 2.0–2.3) check a number's underscores when they
/// decode it, not while parsing.
#[cfg(feature = "go-toml-syntax")]
pub(super) fn defers_number_checks(version: &Version) -> bool {
    matches!(version.line, Line::V2_0 | Line::V2_1 | Line::V2_2 | Line::V2_3)
}

pub(super) fn resolve_imports(files: &Files, version: &Version, parent: &str, imports: &[String]) -> Result<Vec<String>, LoadError> {
    let mut out = Vec::new();
    let bad = |_| LoadError {
        message: "syntax error in pattern".to_string(),
        code: LoadErrorCode::BadGlob,
        at: None,
        dump_ignores: false,
        log: None,
    };
    for raw in imports {
        let relative_to_parent = |p: &str| {
            let p = files::clean(p);
            if p.starts_with('/') {
                p
            } else {
                files::join(&files::dir(parent), &p)
            }
        };
        if version.relative_glob_uses_cwd() {
            if raw.contains('*') {
                out.extend(files.glob(raw).map_err(bad)?);
            } else {
                out.push(relative_to_parent(raw));
            }
        } else {
            let p = relative_to_parent(raw);
            if p.contains('*') {
                out.extend(files.glob(&p).map_err(bad)?);
            } else {
                out.push(p);
            }
        }
    }
    Ok(out)
}
