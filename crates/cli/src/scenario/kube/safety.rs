//! The kube backend's safety rules, sans I/O: which kubeconfig context it may use (a lab
//! cluster — `kind-…`, `kwok-…`, or `gpulab-…` from `gpulab cluster up` — unless the user
//! says otherwise), the run's own
//! namespace, and which cluster-scoped objects it may write (only its own, labelled).

use serde_json::Value;

use super::requests::RUN_LABEL;

/// The context prefixes of lab clusters: kind's, kwok's, and `gpulab cluster up`'s.
pub const LAB_PREFIXES: [&str; 3] = ["kind-", "kwok-", gpulab::cluster::kubeconfig::CONTEXT_PREFIX];

/// Refuses a context that is not a lab cluster unless explicitly allowed.
pub fn check_context(context: &str, allow_non_lab_cluster: bool) -> Result<(), String> {
    if LAB_PREFIXES.iter().any(|p| context.starts_with(p)) || allow_non_lab_cluster {
        Ok(())
    } else {
        Err(format!(
            "refusing kubeconfig context {context:?}: it does not start with `kind-`, `kwok-` or `gpulab-`, so it may not be a lab cluster; \
             pass --context {context} --allow-non-lab-cluster to use it anyway"
        ))
    }
}

/// The run's namespace: `gpulab-<scenario>-<run>`, a DNS-1123 label (≤ 63 characters).
pub fn namespace(scenario: &str, run: &str) -> String {
    let clean = |s: &str| s.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
    let mut ns = format!("gpulab-{}-{}", clean(scenario), clean(run));
    ns.truncate(63);
    ns.trim_end_matches('-').to_string()
}

/// A run id from the wall clock and the process id (lower-case alphanumerics).
pub fn run_id(unix_seconds: u64, pid: u32) -> String {
    format!("r{unix_seconds:x}{:x}", pid & 0xffff)
}

/// May the run write this existing cluster-scoped object? Only when it carries the run's
/// label (the run created it). `None` (absent) is always writable: the run creates it.
pub fn may_write_cluster_object(existing: Option<&Value>, run: &str) -> bool {
    existing.is_none_or(|o| o["metadata"]["labels"][RUN_LABEL].as_str() == Some(run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Only kind-/kwok-/gpulab- contexts are used unless explicitly allowed — among them
    /// the context `gpulab cluster up` writes.
    #[test]
    fn context_safety() {
        let cluster_up = gpulab::cluster::kubeconfig::context_name(gpulab::cluster::DEFAULT_RELEASE);
        let cases = [
            ("kind-lab", false, true),
            ("kwok-x", false, true),
            (cluster_up.as_str(), false, true),
            ("gpulab", false, false),
            ("prod-eu", false, false),
            ("prod-eu", true, true),
            ("kindly", false, false),
            ("", false, false),
        ];
        for (ctx, allow, ok) in cases {
            assert_eq!(check_context(ctx, allow).is_ok(), ok, "{ctx}");
        }
        assert!(check_context("prod-eu", false).unwrap_err().contains("--allow-non-lab-cluster"));
    }

    /// The namespace is a DNS-1123 label derived from scenario and run.
    #[test]
    fn namespace_is_a_dns_label() {
        assert_eq!(namespace("incident", "20261129t1930"), "gpulab-incident-20261129t1930");
        assert_eq!(namespace("Dropin_containerd-1.6", "r1"), "gpulab-dropin-containerd-1-6-r1");
        let long = namespace(&"x".repeat(80), "r");
        assert!(long.len() <= 63 && !long.ends_with('-'));
        assert_eq!(run_id(0x10, 0x1_0002), "r102");
    }

    /// A cluster-scoped object is written only when absent or labelled with this run.
    #[test]
    fn cluster_objects_of_others_are_left_alone() {
        let ours = json!({"metadata": {"labels": {RUN_LABEL: "r1"}}});
        let theirs = json!({"metadata": {"name": "nvidia"}});
        let cases = [(None, true), (Some(&ours), true), (Some(&theirs), false)];
        for (existing, ok) in cases {
            assert_eq!(may_write_cluster_object(existing, "r1"), ok, "{existing:?}");
        }
        assert!(!may_write_cluster_object(Some(&ours), "r2"));
    }
}
