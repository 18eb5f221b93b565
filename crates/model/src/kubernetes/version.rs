//! The Kubernetes version knob (1.33–1.37) and what each version changes in the
//! behaviour the lab shows (spec §0, the version matrix).

use std::fmt;
use std::str::FromStr;

/// A supported Kubernetes minor version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum KubeVersion {
    V1_33,
    V1_34,
    #[default]
    V1_35,
    V1_36,
    V1_37,
}

impl KubeVersion {
    /// Every supported version, oldest first.
    pub const ALL: [KubeVersion; 5] = [KubeVersion::V1_33, KubeVersion::V1_34, KubeVersion::V1_35, KubeVersion::V1_36, KubeVersion::V1_37];

    /// TaintToleration names the first untolerated taint (`{KEY: VALUE}`) on 1.33 and
    /// early 1.34; from 1.35 (and late 1.34 patches, PR #134740) it does not. The model
    /// treats 1.34 as the early patches (the cherry-pick's first patch is not known).
    pub fn legacy_taint_message(self) -> bool {
        self <= KubeVersion::V1_34
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
        self.dynamic_resources_enabled() && self <= KubeVersion::V1_36
    }

    /// The DynamicResources PostFilter of a pod with claims, when it freed none, says
    /// `still not schedulable` on 1.34–1.36; 1.37 says nothing (found against the real
    /// v1.37.2 scheduler: `… 1 node(s) didn't match Pod's node affinity/selector.
    /// preemption: …`). `deallocation of ResourceClaim completed` stays in 1.37.
    pub fn dra_still_not_schedulable_message(self) -> bool {
        self.dynamic_resources_enabled() && self <= KubeVersion::V1_36
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KubeVersion::V1_33 => "1.33",
            KubeVersion::V1_34 => "1.34",
            KubeVersion::V1_35 => "1.35",
            KubeVersion::V1_36 => "1.36",
            KubeVersion::V1_37 => "1.37",
        })
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
    /// Accepts `1.35`, `v1.35`, `1.35.2`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().trim_start_matches('v');
        let minor: String = t.split('.').take(2).collect::<Vec<_>>().join(".");
        KubeVersion::ALL.into_iter().find(|v| v.to_string() == minor).ok_or_else(|| UnknownVersion(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version strings in the forms users type.
    #[test]
    fn parses_versions() {
        assert_eq!("1.35".parse(), Ok(KubeVersion::V1_35));
        assert_eq!("v1.33.4".parse(), Ok(KubeVersion::V1_33));
        assert_eq!("v1.37.2".parse(), Ok(KubeVersion::V1_37));
        assert!("1.32".parse::<KubeVersion>().is_err());
        assert!("1.38".parse::<KubeVersion>().is_err());
        assert!("1.3".parse::<KubeVersion>().is_err());
    }

    /// The refusal lists exactly the versions the model has, from the one table.
    #[test]
    fn unknown_version_names_the_supported_ones() {
        let e = "1.38".parse::<KubeVersion>().unwrap_err();
        assert_eq!(e.to_string(), r#"unsupported Kubernetes version "1.38" (supported: 1.33, 1.34, 1.35, 1.36, 1.37)"#);
    }
}
