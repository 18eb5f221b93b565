//! `kubectl patch node NAME --subresource=status -p '{"status":{"capacity":{R: Q},
//! "allocatable":{R: Q}}}'` — the status patch the device plugin's registration
//! stands for — and the API server's refusals as kubectl prints them: a node that
//! does not exist, and a quantity that does not parse (the strategic-merge patch
//! decodes onto the Node, and apimachinery's `ParseQuantity` error becomes an
//! `Invalid` on the field path `patch`, with the patch map as Go's `%+v` prints it).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::quantity::Quantity;

/// Why the API server refused a status patch (`Display`: kubectl's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchRefused {
    NodeNotFound { node: String },
    InvalidQuantity { resource: String, quantity: String, error: String },
}

impl std::fmt::Display for PatchRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PatchRefused::NodeNotFound { node } => write!(f, "Error from server (NotFound): nodes \"{node}\" not found"),
            // Go prints a map's keys sorted: allocatable before capacity.
            PatchRefused::InvalidQuantity { resource, quantity, error } => write!(
                f,
                "The request is invalid: patch: Invalid value: \"map[status:map[allocatable:map[{resource}:{quantity}] capacity:map[{resource}:{quantity}]]]\": {error}"
            ),
        }
    }
}

/// The quantity of a status patch, or the API server's refusal of it.
pub fn status_quantity(resource: &str, quantity: &str) -> Result<Quantity, PatchRefused> {
    Quantity::parse(quantity).map_err(|e| PatchRefused::InvalidQuantity {
        resource: resource.into(),
        quantity: quantity.into(),
        error: e.to_string(),
    })
}

/// Applies one status patch to `nodes`: the quantity goes into both capacity and
/// allocatable of the named node. The API server looks the node up first, then
/// decodes the quantity; a refusal changes nothing.
pub fn apply(nodes: &mut [Node], node: &str, resource: &str, quantity: &str) -> Result<(), PatchRefused> {
    let n = nodes
        .iter_mut()
        .find(|n| n.metadata.name.as_deref() == Some(node))
        .ok_or_else(|| PatchRefused::NodeNotFound { node: node.into() })?;
    status_quantity(resource, quantity)?;
    let status = n.status.get_or_insert_with(Default::default);
    for map in [&mut status.capacity, &mut status.allocatable] {
        map.get_or_insert_with(BTreeMap::new).insert(resource.into(), ApiQuantity(quantity.into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubernetes::quantity::ERR_FORMAT_WRONG;

    /// `abc` is refused with apimachinery's text once (the regular expression is in
    /// the error, not repeated around it); a good quantity parses.
    #[test]
    fn refused_quantity_reads_as_kubectl() {
        let e = status_quantity("nvidia.com/gpu", "abc").unwrap_err();
        assert_eq!(
            e.to_string(),
            "The request is invalid: patch: Invalid value: \"map[status:map[allocatable:map[nvidia.com/gpu:abc] capacity:map[nvidia.com/gpu:abc]]]\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(e.to_string().matches(ERR_FORMAT_WRONG).count(), 1);
        assert!(status_quantity("nvidia.com/gpu", "1KM").unwrap_err().to_string().ends_with(": unable to parse quantity's suffix"));
        assert!(status_quantity("nvidia.com/gpu", "4").is_ok());
        assert_eq!(PatchRefused::NodeNotFound { node: "nope".into() }.to_string(), "Error from server (NotFound): nodes \"nope\" not found");
    }
}
