//! containerd versions: which release line a version belongs to, and the patch-level
//! rule changes the spec names (`../shared/specs/containerd.md` §2, §4):
//!
//! | rule | versions |
//! | --- | --- |
//! | relative glob imports resolve against the working directory | 1.6.0–1.6.28, 1.7.0–1.7.15 |
//! | merged `version > 2` is fatal, new v1 deprecation text | 1.6.32+, 1.7.17+ (text: 1.6.32+ and all 1.7) |
//! | drop-in version higher than the root's is fatal | 2.3.0–2.3.4 |
//!
//! Built-in defaults are embedded for the eight recorded binaries and 2.4.2 (read off
//! the real binary); any other patch release uses the nearest recorded one of its line.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A release line with its own loader and merge code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Line {
    V1_6,
    V1_7,
    V2_0,
    V2_1,
    V2_2,
    V2_3,
    V2_4,
    /// Upstream `main` at 301026e58c61.
    Main,
}

/// A containerd version the model can simulate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Version {
    pub line: Line,
    /// The patch number (`0` for `main`).
    pub patch: u32,
}

/// Why a version string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionError {
    pub input: String,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported containerd version {}: expected 1.6.x, 1.7.x, 2.0.x, 2.1.x, 2.2.x, 2.3.x, 2.4.x or main",
            crate::go::quote(&self.input)
        )
    }
}

impl std::error::Error for VersionError {}

/// The recorded binaries, as named in the goldens.
pub const RECORDED: [&str; 8] =
    ["1.6.20", "1.6.39", "1.7.34", "2.0.11", "2.1.9", "2.2.7", "2.3.4", "main-301026e"];

/// Every version with its own embedded defaults, oldest first: the recorded binaries and
/// 2.4.2 (whose defaults and texts were read off the real binary, not the goldens). The
/// page's version switch offers these; `gpulab scenario check` warns for any other.
pub const MODELLED: [&str; 9] =
    ["1.6.20", "1.6.39", "1.7.34", "2.0.11", "2.1.9", "2.2.7", "2.3.4", "2.4.2", "main-301026e"];

impl Version {
    /// Parses `1.6.20`, `v1.7.34`, `1.6.20~ds1` (Debian), `2.3.4`, `main`, `main-301026e`.
    pub fn parse(input: &str) -> Result<Version, VersionError> {
        let err = || VersionError { input: input.to_string() };
        let s = input.trim();
        if s == "main" || s.starts_with("main-") {
            return Ok(Version { line: Line::Main, patch: 0 });
        }
        let s = s.strip_prefix('v').unwrap_or(s);
        // Drop a Debian revision (`~ds1-1+deb12u3`) or a pre-release/build suffix.
        let core = s.split(['~', '+', '-']).next().unwrap_or("");
        let mut parts = core.split('.');
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(err)?;
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(err)?;
        let patch: u32 = match parts.next() {
            Some(p) => p.parse().map_err(|_| err())?,
            None => 0,
        };
        if parts.next().is_some() {
            return Err(err());
        }
        let line = match (major, minor) {
            (1, 6) => Line::V1_6,
            (1, 7) => Line::V1_7,
            (2, 0) => Line::V2_0,
            (2, 1) => Line::V2_1,
            (2, 2) => Line::V2_2,
            (2, 3) => Line::V2_3,
            (2, 4) => Line::V2_4,
            _ => return Err(err()),
        };
        Ok(Version { line, patch })
    }

    /// 1.6 and 1.7: go-toml v1, plugin tables replaced whole.
    pub fn is_1x(&self) -> bool {
        matches!(self.line, Line::V1_6 | Line::V1_7)
    }

    /// Relative glob imports resolve against the working directory (before #9746).
    pub fn relative_glob_uses_cwd(&self) -> bool {
        match self.line {
            Line::V1_6 => self.patch < 29,
            Line::V1_7 => self.patch < 16,
            _ => false,
        }
    }

    /// A merged `version > 2` is fatal (#10234 / #10165).
    pub fn rejects_version_above_2(&self) -> bool {
        match self.line {
            Line::V1_6 => self.patch >= 32,
            Line::V1_7 => self.patch >= 17,
            _ => false,
        }
    }

    /// The v1 deprecation warning names the 2.0 conversion (1.6.32+ and 1.7).
    pub fn new_v1_deprecation_text(&self) -> bool {
        match self.line {
            Line::V1_6 => self.patch >= 32,
            _ => true,
        }
    }

    /// Each file is migrated to the current version, plugins included, before merging.
    pub fn migrates_per_file(&self) -> bool {
        matches!(self.line, Line::V2_3 | Line::V2_4 | Line::Main)
    }

    /// A drop-in whose version is higher than the root config's is fatal (#12891,
    /// reverted after v2.3.4 by #13995).
    pub fn rejects_dropin_above_root(&self) -> bool {
        self.line == Line::V2_3 && self.patch <= 4
    }

    /// The config version this line writes and migrates to.
    pub fn config_version(&self) -> i64 {
        match self.line {
            Line::V1_6 | Line::V1_7 => 2,
            Line::V2_0 | Line::V2_1 | Line::V2_2 => 3,
            Line::V2_3 | Line::V2_4 | Line::Main => 4,
        }
    }

    /// The version of the built-in default config the loader merges onto.
    pub fn default_config_version(&self) -> i64 {
        if self.is_1x() {
            1
        } else {
            self.config_version()
        }
    }

    /// The CRI plugins whose rows `ctr plugins ls` lists.
    pub fn cri_plugin_ids(&self) -> &'static [&'static str] {
        if self.is_1x() {
            &["io.containerd.grpc.v1.cri"]
        } else {
            &["io.containerd.cri.v1.images", "io.containerd.cri.v1.runtime", "io.containerd.grpc.v1.cri"]
        }
    }

    /// The recorded binary whose defaults this version uses.
    pub fn recorded(&self) -> &'static str {
        match self.line {
            Line::V1_6 if self.patch < 30 => "1.6.20",
            Line::V1_6 => "1.6.39",
            Line::V1_7 => "1.7.34",
            Line::V2_0 => "2.0.11",
            Line::V2_1 => "2.1.9",
            Line::V2_2 => "2.2.7",
            Line::V2_3 => "2.3.4",
            Line::V2_4 => "2.4.2",
            Line::Main => "main-301026e",
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Line::Main => write!(f, "main"),
            Line::V1_6 => write!(f, "1.6.{}", self.patch),
            Line::V1_7 => write!(f, "1.7.{}", self.patch),
            Line::V2_0 => write!(f, "2.0.{}", self.patch),
            Line::V2_1 => write!(f, "2.1.{}", self.patch),
            Line::V2_2 => write!(f, "2.2.{}", self.patch),
            Line::V2_3 => write!(f, "2.3.{}", self.patch),
            Line::V2_4 => write!(f, "2.4.{}", self.patch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every modelled name parses, and maps back to its own defaults; the recorded ones
    /// are all modelled.
    #[test]
    fn recorded_versions_parse() {
        assert!(RECORDED.iter().all(|r| MODELLED.contains(r)));
        for name in MODELLED {
            let v = Version::parse(name).unwrap();
            assert_eq!(v.recorded(), name);
        }
        assert_eq!(Version::parse("1.6.20~ds1-1+deb12u3").unwrap(), Version::parse("1.6.20").unwrap());
        assert_eq!(Version::parse("v2.4.2").unwrap().recorded(), "2.4.2");
        assert!(Version::parse("2.5.0").is_err());
        assert!(Version::parse("banana").is_err());
    }

    /// The patch-level boundaries of the spec.
    #[test]
    fn patch_rules() {
        let v = |s| Version::parse(s).unwrap();
        assert!(v("1.6.28").relative_glob_uses_cwd());
        assert!(!v("1.6.29").relative_glob_uses_cwd());
        assert!(v("1.7.15").relative_glob_uses_cwd());
        assert!(!v("1.7.16").relative_glob_uses_cwd());
        assert!(!v("1.6.31").rejects_version_above_2());
        assert!(v("1.6.32").rejects_version_above_2());
        assert!(!v("1.7.16").rejects_version_above_2());
        assert!(v("1.7.17").rejects_version_above_2());
        assert!(v("2.3.4").rejects_dropin_above_root());
        assert!(!v("2.3.5").rejects_dropin_above_root());
        assert!(!v("main").rejects_dropin_above_root());
    }
}
