//! The cluster's private directory (0700): where each file lives (the layout, sans
//! I/O), where the directory and the control-plane binary are by default, and what an
//! existing directory holds — a running cluster, a stale one whose processes are gone
//! (removed, with a message), or something that is not a gpulab cluster (left alone).

use std::ffi::OsStr;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::component::Component;
use super::process::{self, Pidfile};

/// The file that marks a directory as a gpulab cluster's (written first, removed last).
pub const MARKER: &str = "cluster.json";

/// Where everything of one cluster lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub root: PathBuf,
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }
    pub fn marker(&self) -> PathBuf {
        self.root.join(MARKER)
    }
    /// The admin kubeconfig.
    pub fn kubeconfig(&self) -> PathBuf {
        self.root.join("kubeconfig")
    }
    /// The scheduler's or the controller manager's kubeconfig.
    pub fn component_kubeconfig(&self, c: Component) -> PathBuf {
        self.root.join(format!("{}.kubeconfig", c.name()))
    }
    pub fn pki_dir(&self) -> PathBuf {
        self.root.join("pki")
    }
    pub fn pki(&self, file: &str) -> PathBuf {
        self.pki_dir().join(file)
    }
    pub fn etcd_data(&self) -> PathBuf {
        self.root.join("etcd")
    }
    pub fn logs_dir(&self) -> PathBuf {
        self.root.join("logs")
    }
    pub fn log(&self, c: Component) -> PathBuf {
        self.logs_dir().join(format!("{}.log", c.name()))
    }
    pub fn pids_dir(&self) -> PathBuf {
        self.root.join("pids")
    }
    pub fn pidfile(&self, c: Component) -> PathBuf {
        self.pids_dir().join(format!("{}.pid", c.name()))
    }
}

/// `${XDG_RUNTIME_DIR:-/tmp}/gpulab-cluster-<uid>` (an empty or relative
/// `XDG_RUNTIME_DIR` is ignored, as the XDG spec says).
pub fn default_dir(xdg_runtime_dir: Option<&OsStr>, uid: u32) -> PathBuf {
    let base = xdg_runtime_dir.map(Path::new).filter(|p| p.is_absolute()).unwrap_or(Path::new("/tmp"));
    base.join(format!("gpulab-cluster-{uid}"))
}

/// This process's user id (the owner of `/proc/self`).
pub fn current_uid() -> Result<u32, String> {
    std::fs::metadata("/proc/self").map(|m| m.uid()).map_err(|e| format!("/proc/self: {e}"))
}

/// `v1.37.2` from `v1.37.2` or `1.37.2`; anything else is refused.
pub fn release(version: &str) -> Result<String, String> {
    let bare = version.strip_prefix('v').unwrap_or(version);
    let parts: Vec<&str> = bare.split('.').collect();
    if parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) {
        Ok(format!("v{bare}"))
    } else {
        Err(format!("--k8s-version {version:?}: expected a Kubernetes release such as v1.37.2"))
    }
}

/// `${GPULAB_CACHE:-$HOME/.cache/gpulab}/kube/<release>/kube-oracle`.
pub fn binary_path(cache: Option<&OsStr>, home: Option<&OsStr>, release: &str) -> PathBuf {
    let cache = match cache.filter(|c| !c.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => Path::new(home.unwrap_or(OsStr::new("/"))).join(".cache/gpulab"),
    };
    cache.join("kube").join(release).join("kube-oracle")
}

/// A process a directory's pidfiles name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub component: Component,
    pub pidfile: Pidfile,
    pub running: bool,
}

/// The pidfiles of `layout`, in start order, each with whether its process still runs
/// the recorded command line.
pub fn recorded(layout: &Layout) -> Result<Vec<Recorded>, String> {
    let mut out = Vec::new();
    for c in Component::ALL {
        if let Some(p) = process::read_pidfile(&layout.pidfile(c))? {
            let running = process::is_ours(&p);
            out.push(Recorded { component: c, pidfile: p, running });
        }
    }
    Ok(out)
}

/// What an existing directory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Absent,
    /// An empty directory: usable.
    Empty,
    /// A gpulab cluster dir; `recorded` says which processes still run.
    Cluster(Vec<Recorded>),
    /// Something else (not ours to touch).
    Foreign(String),
}

/// Looks at `layout.root` without changing anything.
pub fn inspect(layout: &Layout) -> Result<Found, String> {
    let root = &layout.root;
    let meta = match std::fs::symlink_metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => return Err(format!("{}: {e}", root.display())),
    };
    if !meta.is_dir() {
        return Ok(Found::Foreign(format!("{} exists and is not a directory", root.display())));
    }
    if layout.marker().exists() {
        return recorded(layout).map(Found::Cluster);
    }
    let mut entries = std::fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    if entries.next().is_none() {
        Ok(Found::Empty)
    } else {
        Ok(Found::Foreign(format!("{} is not empty and holds no {MARKER}: it is not a gpulab cluster directory", root.display())))
    }
}

/// Creates `root` (0700) or takes over an empty directory (chmod 0700); refuses a
/// directory owned by someone else.
pub fn create_private(root: &Path) -> Result<(), String> {
    let shown = || root.display().to_string();
    match std::fs::symlink_metadata(root) {
        Ok(m) => {
            if m.uid() != current_uid()? {
                return Err(format!("{}: owned by uid {}, not by this user", shown(), m.uid()));
            }
            std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o700)).map_err(|e| format!("{}: {e}", shown()))
        }
        Err(_) => std::fs::DirBuilder::new().recursive(true).mode(0o700).create(root).map_err(|e| format!("{}: {e}", shown())),
    }
}

/// Removes a cluster directory — only one that holds the [`MARKER`].
pub fn remove(layout: &Layout) -> Result<(), String> {
    if !layout.marker().exists() {
        return Err(format!("{}: no {MARKER}, not removing it", layout.root.display()));
    }
    std::fs::remove_dir_all(&layout.root).map_err(|e| format!("removing {}: {e}", layout.root.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime dir when it is absolute, else /tmp; the uid keeps users apart.
    #[test]
    fn default_dir_follows_xdg() {
        assert_eq!(default_dir(Some(OsStr::new("/run/user/1000")), 1000), Path::new("/run/user/1000/gpulab-cluster-1000"));
        assert_eq!(default_dir(None, 0), Path::new("/tmp/gpulab-cluster-0"));
        assert_eq!(default_dir(Some(OsStr::new("")), 5), Path::new("/tmp/gpulab-cluster-5"));
        assert_eq!(default_dir(Some(OsStr::new("rel")), 5), Path::new("/tmp/gpulab-cluster-5"));
    }

    /// The binary sits in the cache by release; GPULAB_CACHE wins over HOME.
    #[test]
    fn binary_in_the_cache() {
        assert_eq!(binary_path(None, Some(OsStr::new("/home/u")), "v1.37.2"), Path::new("/home/u/.cache/gpulab/kube/v1.37.2/kube-oracle"));
        assert_eq!(binary_path(Some(OsStr::new("/c")), Some(OsStr::new("/home/u")), "v1.34.0"), Path::new("/c/kube/v1.34.0/kube-oracle"));
        assert_eq!(binary_path(Some(OsStr::new("")), Some(OsStr::new("/h")), "v1.34.0"), Path::new("/h/.cache/gpulab/kube/v1.34.0/kube-oracle"));
    }

    /// Releases are `vX.Y.Z`; the `v` is optional on input.
    #[test]
    fn release_names() {
        assert_eq!(release("1.37.2").unwrap(), "v1.37.2");
        assert_eq!(release("v1.34.0").unwrap(), "v1.34.0");
        for bad in ["1.37", "v1.37.x", "", "v1..2", "latest"] {
            assert!(release(bad).unwrap_err().contains("expected a Kubernetes release such as v1.37.2"), "{bad}");
        }
    }

    /// Every file of a cluster sits under its root.
    #[test]
    fn layout_paths() {
        let l = Layout::new("/d");
        assert_eq!(l.pidfile(Component::Etcd), Path::new("/d/pids/etcd.pid"));
        assert_eq!(l.log(Component::KubeApiserver), Path::new("/d/logs/kube-apiserver.log"));
        assert_eq!(l.component_kubeconfig(Component::KubeScheduler), Path::new("/d/kube-scheduler.kubeconfig"));
        assert_eq!((l.kubeconfig(), l.pki("ca.crt"), l.marker()), ("/d/kubeconfig".into(), "/d/pki/ca.crt".into(), "/d/cluster.json".into()));
    }
}
