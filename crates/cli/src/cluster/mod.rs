//! `gpulab cluster up|down`: a real Kubernetes control plane on this machine — etcd, the
//! API server, the scheduler and the controller manager of one release, from the
//! multi-call binary the repository builds from upstream source — on loopback ports,
//! with its own PKI, in a private dir, stopped by PID. The tests start it through the
//! same [`Cluster::start`].
//!
//! # Layout
//!
//! - [`component`]: the four components and their order.
//! - [`dir`]: the private dir's layout, the default dir and binary, what an existing
//!   dir holds (running, stale, foreign).
//! - [`ports`]: free loopback ports; a taken one named.
//! - [`pki`]: the CA, serving and client certificates and the service-account keys.
//! - [`kubeconfig`]: the admin's, the scheduler's and the controller manager's files.
//! - [`flags`]: each component's command line, sans I/O.
//! - [`process`]: spawn with a log and a pidfile; stop by PID after checking
//!   `/proc/PID/cmdline`.
//! - [`log`]: a failed component's log: its end and the line saying why.
//! - [`ready`]: etcd's `/health`, the API server's `/readyz`, the others' `/healthz`.
//! - [`up`]: [`Cluster::start`], its [`Drop`], [`Cluster::detach`].
//! - [`down`]: stopping a detached cluster from its pidfiles.

pub mod component;
pub mod dir;
pub mod down;
pub mod flags;
pub mod kubeconfig;
pub mod log;
pub mod pki;
pub mod ports;
pub mod process;
pub mod ready;
pub mod up;

pub use component::Component;
pub use up::{Cluster, Options};

/// Who is to blame, which decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input: a version, a dir that is not ours, a cluster already running, no binary (2).
    Usage,
    /// The machine or a component failed: a port taken, a component that exits (3).
    External,
    /// Ctrl-C (or SIGTERM) during the start (130).
    Interrupted,
}

/// A failure of `up` or `down`, with its message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::Usage, message: message.into() }
    }
    pub fn external(message: impl Into<String>) -> Error {
        Error { kind: ErrorKind::External, message: message.into() }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The release `gpulab cluster up` starts unless told otherwise.
pub const DEFAULT_RELEASE: &str = "v1.37.2";
