//! The Kubernetes version knob (1.33–1.37) and what each version changes in the
//! behaviour the lab shows (spec §0, the version matrix).

use std::fmt;
use std::str::FromStr;

/// A supported Kubernetes release: a minor line (1.33–1.37) and, where the user named
/// one, its patch. The lines are the knob the page and the CLI offer; a patch matters
/// only where a line changed inside itself (the 1.34 taint text), and a line named without
/// a patch is its newest patch the model knows (the one a cluster made today runs).
///
/// Ordered by line, then patch, with a line named without a patch first: `v >= V1_34` holds
/// for every 1.34.x. Bounds from above compare lines (`v.line() <= V1_36`), so that 1.36.3
/// is inside "up to 1.36".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    minor: u8,
    patch: Option<u16>,
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::V1_35
    }
}

impl KubeVersion {
    pub const V1_33: KubeVersion = KubeVersion::line_of(33);
    pub const V1_34: KubeVersion = KubeVersion::line_of(34);
    pub const V1_35: KubeVersion = KubeVersion::line_of(35);
    pub const V1_36: KubeVersion = KubeVersion::line_of(36);
    pub const V1_37: KubeVersion = KubeVersion::line_of(37);

    /// Every supported line, oldest first.
    pub const ALL: [KubeVersion; 5] = [KubeVersion::V1_33, KubeVersion::V1_34, KubeVersion::V1_35, KubeVersion::V1_36, KubeVersion::V1_37];

    const fn line_of(minor: u8) -> KubeVersion {
        KubeVersion { minor, patch: None }
    }

    /// The minor line this release belongs to (`1.34.0` → `1.34`).
    pub fn line(self) -> KubeVersion {
        KubeVersion::line_of(self.minor)
    }

    /// The patch the user named, if any.
    pub fn patch(self) -> Option<u16> {
        self.patch
    }

    /// TaintToleration names the first untolerated taint (`{KEY: VALUE}`) on 1.33 and on
    /// 1.34.0–1.34.1; from 1.34.2 (the cherry-pick of PR #134740) and 1.35 it does not
    /// (`pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go` at each tag;
    /// checked against the real v1.34.0 and v1.34.4 schedulers by the recorded runs).
    pub fn legacy_taint_message(self) -> bool {
        self.line() < KubeVersion::V1_34 || (self.line() == KubeVersion::V1_34 && self.patch.is_some_and(|p| p < 2))
    }

    /// NodeResourcesFit returns UnschedulableAndUnresolvable when a request exceeds the
    /// node's allocatable (PR #131345, 1.34+).
    pub fn fit_unresolvable_when_over_allocatable(self) -> bool {
        self >= KubeVersion::V1_34
    }

    /// The DynamicResources plugin is in the default profile (DRA GA, 1.34+), which adds
    /// `no new claims to deallocate` to the PostFilter message of a claimless pod.
    pub fn dynamic_resources_enabled(self) -> bool {
        self >= KubeVersion::V1_34
    }

    /// The DynamicResources PostFilter of a claimless pod says `no new claims to
    /// deallocate` on 1.34–1.36; from 1.37 it returns Unschedulable with no message
    /// (`pkg/scheduler/framework/plugins/dynamicresources`, v1.37.2; checked against the
    /// real v1.37.2 scheduler by `gpulab parity --backend kube`).
    pub fn dra_no_claims_message(self) -> bool {
        self.dynamic_resources_enabled() && self.line() <= KubeVersion::V1_36
    }

    /// `DRAExtendedResource` is on (`pkg/features/kube_features.go`, v1.37.2: alpha
    /// and off in 1.34–1.35, beta and on in 1.36, GA and locked on in 1.37): an
    /// extended resource a DeviceClass backs is allocated by DynamicResources through
    /// a claim the scheduler makes, on a node that does not advertise it.
    pub fn dra_extended_resource(self) -> bool {
        self >= KubeVersion::V1_36
    }

    /// The DynamicResources PostFilter of a pod with claims, when it freed none, says
    /// `still not schedulable` on 1.34–1.36; 1.37 says nothing (found against the real
    /// v1.37.2 scheduler: `… 1 node(s) didn't match Pod's node affinity/selector.
    /// preemption: …`). `deallocation of ResourceClaim completed` stays in 1.37.
    pub fn dra_still_not_schedulable_message(self) -> bool {
        self.dynamic_resources_enabled() && self.line() <= KubeVersion::V1_36
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)?;
        match self.patch {
            Some(p) => write!(f, ".{p}"),
            None => Ok(()),
        }
    }
}

/// A version string the model does not cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let supported: Vec<String> = KubeVersion::ALL.iter().map(|v| v.to_string()).collect();
        write!(f, "unsupported Kubernetes version {:?} (supported: {})", self.0, supported.join(", "))
    }
}

impl FromStr for KubeVersion {
    type Err = UnknownVersion;
    /// Accepts `1.35`, `v1.35`, `1.35.2`, `v1.34.0`; a pre-release or build suffix of the
    /// patch (`1.36.0-rc.1`, `1.37.2+abc`) is refused, the model knows releases only.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownVersion(s.to_string());
        let t = s.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let (major, minor, patch) = (parts.next(), parts.next(), parts.next());
        if major != Some("1") || parts.next().is_some() {
            return Err(unknown());
        }
        let number = |p: &str| if !p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()) && (p == "0" || !p.starts_with('0')) { p.parse::<u16>().ok() } else { None };
        let line = minor.and_then(number).and_then(|m| KubeVersion::ALL.into_iter().find(|v| u16::from(v.minor) == m)).ok_or_else(unknown)?;
        match patch {
            None => Ok(line),
            Some(p) => number(p).map(|p| KubeVersion { patch: Some(p), ..line }).ok_or_else(unknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version strings in the forms users type.
    #[test]
    fn parses_versions() {
        assert_eq!("1.35".parse(), Ok(KubeVersion::V1_35));
        assert_eq!("v1.33.4".parse::<KubeVersion>().map(KubeVersion::line), Ok(KubeVersion::V1_33));
        assert_eq!("v1.37.2".parse::<KubeVersion>().map(|v| (v.line(), v.patch())), Ok((KubeVersion::V1_37, Some(2))));
        assert!("1.32".parse::<KubeVersion>().is_err());
        assert!("1.38".parse::<KubeVersion>().is_err());
        assert!("1.3".parse::<KubeVersion>().is_err());
        for bad in ["", "v", "1", "2.35", "1.35.", "1.35.x", "1.35.2.1", "1.36.0-rc.1", "1.035", "1.35.99999"] {
            assert!(bad.parse::<KubeVersion>().is_err(), "{bad:?}");
        }
    }

    /// A patch is kept and printed; the line forgets it; every 1.34.x is at least 1.34 and
    /// "up to 1.36" holds for 1.36.3 by its line.
    #[test]
    fn patches_order_inside_their_line() {
        let v = "v1.34.0".parse::<KubeVersion>().unwrap();
        assert_eq!((v.to_string(), v.line(), v.patch()), ("1.34.0".to_string(), KubeVersion::V1_34, Some(0)));
        assert!(v >= KubeVersion::V1_34 && v < KubeVersion::V1_35);
        let late = "1.36.3".parse::<KubeVersion>().unwrap();
        assert!(late.dra_no_claims_message() && !"1.37.2".parse::<KubeVersion>().unwrap().dra_no_claims_message());
    }

    /// The taint text changed inside 1.34: 1.34.0 and 1.34.1 name the taint, 1.34.2 on
    /// does not, and a 1.34 named without a patch is the newest (the changed text).
    #[test]
    fn the_taint_text_changed_at_1_34_2() {
        let legacy = |s: &str| s.parse::<KubeVersion>().unwrap().legacy_taint_message();
        let table = [("1.33", true), ("1.33.7", true), ("1.34.0", true), ("1.34.1", true), ("1.34.2", false), ("1.34.4", false), ("1.34", false), ("1.35", false), ("1.37.2", false)];
        for (v, want) in table {
            assert_eq!(legacy(v), want, "{v}");
        }
    }

    /// The refusal lists exactly the versions the model has, from the one table.
    #[test]
    fn unknown_version_names_the_supported_ones() {
        let e = "1.38".parse::<KubeVersion>().unwrap_err();
        assert_eq!(e.to_string(), r#"unsupported Kubernetes version "1.38" (supported: 1.33, 1.34, 1.35, 1.36, 1.37)"#);
    }
}
