//! The kubelet's DRA manager (`pkg/kubelet/cm/dra/manager.go`) for a pod bound to a
//! node: before the sandbox, `PrepareResources` asks each DRA driver's kubelet
//! plugin to prepare the pod's allocated claims; when that fails the kubelet writes
//! the `FailedPrepareDynamicResources` warning and creates no sandbox (it retries
//! on the next sync).
//!
//! Texts verbatim from kubernetes v1.37.2: the event
//! (`kuberuntime_manager.go`: `"Failed to prepare dynamic resources: %v"`), the
//! manager's wrapper (`"prepare dynamic resources: %w"`), the plugin manager's
//! `"DRA driver %s is not registered"` (`dra_plugin_manager.go`, returned without
//! wrapping), and `"NodePrepareResources failed for ResourceClaim %s: %s"` with the
//! driver's error for the claim.

use k8s_openapi::api::resource::v1::ResourceClaim;

/// The event's reason (`pkg/kubelet/events`).
pub const FAILED_PREPARE_DYNAMIC_RESOURCES: &str = "FailedPrepareDynamicResources";

/// The event's message for a `PrepareResources` error.
pub fn event_message(err: &str) -> String {
    format!("Failed to prepare dynamic resources: prepare dynamic resources: {err}")
}

/// `PrepareResources` for the claims of a pod (in the pod's order, each allocated):
/// first every driver of every claim must be registered — `registered` says
/// whether a driver's plugin is — then each driver prepares each claim —
/// `prepare(driver, claim)` gives the driver's per-claim error. `Err` is the
/// event's message.
pub fn prepare(claims: &[&ResourceClaim], registered: &dyn Fn(&str) -> bool, prepare: &dyn Fn(&str, &ResourceClaim) -> Result<(), String>) -> Result<(), String> {
    let drivers = |c: &ResourceClaim| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let results = c.status.as_ref().and_then(|s| s.allocation.as_ref()).and_then(|a| a.devices.as_ref()).and_then(|d| d.results.as_ref());
        for r in results.into_iter().flatten() {
            if !out.contains(&r.driver) {
                out.push(r.driver.clone());
            }
        }
        out
    };
    for c in claims {
        for d in drivers(c) {
            if !registered(&d) {
                return Err(event_message(&format!("DRA driver {d} is not registered")));
            }
        }
    }
    for c in claims {
        for d in drivers(c) {
            if let Err(e) = prepare(&d, c) {
                let name = c.metadata.name.as_deref().unwrap_or("");
                return Err(event_message(&format!("NodePrepareResources failed for ResourceClaim {name}: {e}")));
            }
        }
    }
    Ok(())
}

/// What NVIDIA's kubelet plugin says when it prepares `claim`: each opaque config of
/// the allocation meant for `gpu.nvidia.com` decoded strictly
/// ([`super::nvidia::decode_config`]); the first error.
pub fn nvidia_prepare(claim: &ResourceClaim) -> Result<(), String> {
    let configs = claim.status.as_ref().and_then(|s| s.allocation.as_ref()).and_then(|a| a.devices.as_ref()).and_then(|d| d.config.as_ref());
    for c in configs.into_iter().flatten() {
        if let Some(o) = c.opaque.as_ref().filter(|o| o.driver == super::nvidia::DRIVER) {
            super::nvidia::decode_config(&o.parameters.0)?;
        }
    }
    Ok(())
}
