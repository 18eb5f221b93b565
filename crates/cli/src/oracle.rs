//! The real containerd binaries, one per version: version → `containerd` and `ctr`.
//!
//! Two places hold them: the installed binary on `PATH` (Debian's 1.6.20 in the test
//! command), and the cache `scripts/oracle-containerd.sh` builds from source,
//! `${GPULAB_CACHE:-$HOME/.cache/gpulab}/containerd/<VERSION>/{containerd,ctr}`. A binary
//! is used only for the exact version it reports (`containerd --version`), never for a
//! neighbouring patch. The parity backend and the live tests resolve through here (the
//! tests include this file by path), so both find the same binaries.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpulab_model::containerd::Version;

/// One real containerd build.
#[derive(Debug, Clone)]
pub struct Oracle {
    /// The version as the model names it.
    pub version: Version,
    /// What `containerd --version` printed as its version (`1.6.20~ds1`, `v1.7.34`).
    pub reported: String,
    pub containerd: PathBuf,
    pub ctr: PathBuf,
}

/// `${GPULAB_CACHE:-$HOME/.cache/gpulab}/containerd`.
pub fn cache_root() -> PathBuf {
    let base = match std::env::var_os("GPULAB_CACHE").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/gpulab"),
    };
    base.join("containerd")
}

impl Oracle {
    /// Where the binary is, as a recording may carry it: under the cache, relative to it
    /// (`$GPULAB_CACHE/containerd/1.7.34/containerd`, the same on every machine); else
    /// the path as it is (`/usr/bin/containerd`).
    pub fn shown(&self) -> String {
        shown(&self.containerd)
    }
}

/// A path as messages and recordings carry it: under the cache, relative to it.
fn shown(path: &Path) -> String {
    match path.strip_prefix(cache_root()) {
        Ok(rel) => format!("$GPULAB_CACHE/containerd/{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

fn which(name: &str) -> Option<PathBuf> {
    let out = Command::new("sh").args(["-c", &format!("command -v {name}")]).output().ok()?;
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !p.is_empty()).then(|| PathBuf::from(p))
}

/// Runs `containerd --version` and reads its third word (`containerd PACKAGE VERSION REV`).
fn probe(containerd: &Path, ctr: &Path) -> Result<Oracle, String> {
    if !ctr.is_file() {
        return Err(format!("{}: missing", ctr.display()));
    }
    let out = Command::new(containerd).arg("--version").output().map_err(|e| format!("{}: {e}", containerd.display()))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let word = text.split_whitespace().nth(2).ok_or_else(|| format!("{} --version printed {text:?}", containerd.display()))?;
    let version = Version::parse(word).map_err(|e| format!("{}: {e}", containerd.display()))?;
    Ok(Oracle { version, reported: word.to_string(), containerd: containerd.to_path_buf(), ctr: ctr.to_path_buf() })
}

/// The `containerd` and `ctr` on `PATH`.
pub fn installed() -> Result<Oracle, String> {
    let containerd = which("containerd").ok_or("no `containerd` binary on PATH")?;
    let ctr = which("ctr").ok_or("no `ctr` binary on PATH")?;
    probe(&containerd, &ctr)
}

/// The cached build of `version` (the directory is named as the script names it).
fn cached(version: &Version) -> Result<Oracle, String> {
    let dir = cache_root().join(version.to_string());
    let containerd = dir.join("containerd");
    if !containerd.is_file() {
        return Err(format!("{} is missing (`scripts/oracle-containerd.sh {version}` builds it)", shown(&containerd)));
    }
    probe(&containerd, &dir.join("ctr"))
}

/// The real binary of exactly `version`: the installed one when it reports that version,
/// else the cached build.
pub fn resolve(version: &Version) -> Result<Oracle, String> {
    if let Ok(o) = installed() {
        if o.version == *version {
            return Ok(o);
        }
    }
    match cached(version) {
        Ok(o) if o.version == *version => Ok(o),
        Ok(o) => Err(format!("{} reports {}, not {version}", o.containerd.display(), o.reported)),
        Err(e) => {
            let here: Vec<String> = available().0.iter().map(|o| o.version.to_string()).collect();
            Err(format!("no real containerd {version}: {e}; real binaries here: {}", if here.is_empty() { "none".to_string() } else { here.join(", ") }))
        }
    }
}

/// Every real binary there is: the installed one, then each cached version in version
/// order; and the cached directories the model cannot use, each with the reason.
pub fn available() -> (Vec<Oracle>, Vec<String>) {
    let (mut found, mut unusable) = (Vec::new(), Vec::new());
    if let Ok(o) = installed() {
        found.push(o);
    }
    let mut cached: Vec<Oracle> = Vec::new();
    let root = cache_root();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).map(|r| r.flatten().map(|e| e.path()).filter(|p| p.join("containerd").is_file()).collect()).unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        match probe(&dir.join("containerd"), &dir.join("ctr")) {
            Ok(o) if found.iter().all(|f| f.version != o.version) => cached.push(o),
            Ok(_) => {}
            Err(e) => unusable.push(e),
        }
    }
    cached.sort_by(|a, b| (a.version.line, a.version.patch).cmp(&(b.version.line, b.version.patch)));
    found.extend(cached);
    (found, unusable)
}
