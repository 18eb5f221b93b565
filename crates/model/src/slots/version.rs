//! Device-plugin versions, because a few rules changed between releases: MPS appeared in
//! v0.15.0 (with the current Allocate error text), and v0.20.0 started to honour
//! `sharing.mps.failRequestsGreaterThanOne` (PR #1762). Everything else follows v0.20.0.

use serde::{Deserialize, Serialize};

/// A k8s-device-plugin release, `vMAJOR.MINOR.PATCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PluginVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl PluginVersion {
    /// The release the model reproduces unless told otherwise.
    pub const REFERENCE: PluginVersion = PluginVersion::new(0, 20, 0);
    /// `sharing.mps` and the `invalid allocation request for ...` text appeared here.
    pub const MPS_INTRODUCED: PluginVersion = PluginVersion::new(0, 15, 0);
    /// `sharing.mps.failRequestsGreaterThanOne: false` is honoured from here on.
    pub const MPS_HONOURS_FAIL_REQUESTS: PluginVersion = PluginVersion::new(0, 20, 0);

    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        PluginVersion { major, minor, patch }
    }

    /// Parses `v0.20.0`, `0.20.0`, `v0.20` (patch 0) or `v0.20.0-rc.1` (suffix ignored).
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let core = t.split(['-', '+']).next().unwrap_or("");
        let mut parts = core.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = match parts.next() {
            Some(p) => p.parse().ok()?,
            None => 0,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(PluginVersion::new(major, minor, patch))
    }

    /// Whether this release knows `sharing.mps` at all (older ones ignore the key).
    pub fn has_mps(self) -> bool {
        self >= Self::MPS_INTRODUCED
    }
}

impl Default for PluginVersion {
    fn default() -> Self {
        Self::REFERENCE
    }
}

impl std::fmt::Display for PluginVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spellings found in docs and goldens all parse; garbage does not.
    #[test]
    fn parses_release_spellings() {
        assert_eq!(PluginVersion::parse("v0.20.0"), Some(PluginVersion::new(0, 20, 0)));
        assert_eq!(PluginVersion::parse("0.19.3"), Some(PluginVersion::new(0, 19, 3)));
        assert_eq!(PluginVersion::parse("v0.17"), Some(PluginVersion::new(0, 17, 0)));
        assert_eq!(PluginVersion::parse("v0.18.0-rc.1"), Some(PluginVersion::new(0, 18, 0)));
        assert_eq!(PluginVersion::parse("latest"), None);
        assert_eq!(PluginVersion::parse("v1.2.3.4"), None);
        assert!(PluginVersion::parse("v0.14.5").is_some_and(|v| !v.has_mps()));
    }
}
