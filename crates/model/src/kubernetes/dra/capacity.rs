//! Consumable capacity (KEP-5075, `DRAConsumableCapacity`: alpha and off in 1.34
//! and 1.35, beta and on from 1.36, `pkg/features/kube_features.go`): what one
//! request consumes of a device's capacity, and whether that still fits beside what
//! others consume — `internal/incubating/consumable_capacity.go`
//! (`cmpRequestOverCapacity`, `calculateConsumedQuantity`, `roundUpRange`,
//! `roundUpValidValues`, `violatesPolicy`), on the integer path only (fractional
//! ranges are `DRAFractionalCapacityRange`, 1.37 and later: not modelled).
//!
//! Names: a request's capacity name without a domain means the device driver's
//! (`memory` = `gpu.nvidia.com/memory`); a device that publishes both spellings
//! counts once, the qualified one winning (`resolveDeviceCapacity`). What is
//! consumed is keyed by the name the device publishes (`capacityNameForStatus`).

use std::collections::BTreeMap;

use k8s_openapi::api::resource::v1::{CapacityRequestPolicy, Device, DeviceCapacity};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::kubernetes::quantity::{self, Format, Quantity};

/// What one request consumes of one device, by the device's capacity names.
pub type Consumption = Vec<(String, Quantity)>;

/// The device's capacities, each once: (identifier, published name, capacity).
fn resolve_device<'d>(device: &'d Device, driver: &str) -> Vec<(String, &'d str, &'d DeviceCapacity)> {
    let prefix = format!("{driver}/");
    let caps = device.capacity.iter().flatten();
    let mut out: Vec<(String, &str, &DeviceCapacity)> =
        caps.clone().filter_map(|(n, c)| n.strip_prefix(&prefix).map(|id| (id.to_string(), n.as_str(), c))).collect();
    for (n, c) in caps {
        if n.starts_with(&prefix) || out.iter().any(|(id, _, _)| id == n) {
            continue;
        }
        out.push((n.clone(), n.as_str(), c));
    }
    out
}

/// `resolveCapacityName`: the identifier of the device capacity a request names.
fn resolve_request(name: &str, driver: &str, device: &Device) -> Option<String> {
    let caps = device.capacity.as_ref()?;
    let plain = match name.split_once('/') {
        Some((domain, id)) if domain == driver => id,
        Some(_) => return caps.contains_key(name).then(|| name.to_string()),
        None => name,
    };
    (caps.contains_key(plain) || caps.contains_key(&format!("{driver}/{plain}"))).then(|| plain.to_string())
}

/// A quantity in the format of `like` (`NewQuantity(v, like.Format)`).
fn integer(v: i64, like: &Quantity) -> Quantity {
    match like.format() {
        Format::BinarySI => Quantity::from_bytes(v),
        _ => Quantity::from_i64(v),
    }
}

/// `calculateConsumedQuantity`: the request rounded up by the policy, or the
/// policy's default (else the whole value) when the request names no amount.
fn consumed(requested: Option<&Quantity>, total: &Quantity, policy: Option<&CapacityRequestPolicy>) -> Option<Quantity> {
    let parse = |q: &ApiQuantity| quantity::parse(q).ok();
    let Some(requested) = requested else {
        return match policy.and_then(|p| p.default.as_ref()) {
            Some(d) => parse(d),
            None => Some(total.clone()),
        };
    };
    let Some(policy) = policy else { return Some(requested.clone()) };
    if let Some(range) = &policy.valid_range {
        let min = parse(&range.min)?;
        if *requested < min {
            return Some(min);
        }
        let Some(step) = range.step.as_ref().and_then(parse).filter(|s| s.value() > 0) else { return Some(requested.clone()) };
        let added = requested.value().checked_sub(min.value())?;
        let n = added / step.value() + i64::from(added % step.value() != 0);
        let v = step.value().checked_mul(n)?.checked_add(min.value())?;
        return Some(integer(v, &step));
    }
    if let Some(values) = &policy.valid_values {
        let values: Vec<Quantity> = values.iter().filter_map(parse).collect();
        return Some(values.into_iter().find(|v| requested <= v).unwrap_or_else(|| requested.clone()));
    }
    Some(requested.clone())
}

/// `violatesPolicy`: a consumed amount the policy does not allow.
fn violates(v: &Quantity, policy: Option<&CapacityRequestPolicy>) -> bool {
    let Some(policy) = policy else { return false };
    let parse = |q: &ApiQuantity| quantity::parse(q).ok();
    if policy.default.as_ref().and_then(parse).is_some_and(|d| d == *v) {
        return false;
    }
    if let Some(range) = &policy.valid_range {
        if range.max.as_ref().and_then(parse).is_some_and(|max| *v > max) {
            return true;
        }
        if let (Some(step), Some(min)) = (range.step.as_ref().and_then(parse).filter(|s| s.value() > 0), parse(&range.min)) {
            return (v.value() - min.value()) % step.value() != 0;
        }
        return false;
    }
    match &policy.valid_values {
        Some(values) if !values.is_empty() => !values.iter().filter_map(parse).any(|x| x == *v),
        _ => false,
    }
}

/// What a request with `requests` (`capacity.requests`) consumes of `device`
/// (every capacity it publishes), or `None` when the device cannot serve it: it
/// lacks a capacity the request names, a quantity does not parse, the amount is
/// negative or its policy refuses it.
pub fn consumption(requests: Option<&BTreeMap<String, ApiQuantity>>, driver: &str, device: &Device) -> Option<Consumption> {
    let mut wanted: BTreeMap<String, Quantity> = BTreeMap::new();
    for (name, q) in requests.into_iter().flatten() {
        let id = resolve_request(name, driver, device)?;
        if wanted.insert(id, quantity::parse(q).ok()?).is_some() {
            return None;
        }
    }
    let mut out = Vec::new();
    for (id, published, cap) in resolve_device(device, driver) {
        let total = quantity::parse(&cap.value).ok()?;
        let v = consumed(wanted.get(&id), &total, cap.request_policy.as_ref())?;
        if v.is_negative() || violates(&v, cap.request_policy.as_ref()) {
            return None;
        }
        out.push((published.to_string(), v));
    }
    Some(out)
}

/// Whether `adding` fits `device` beside `used` (what other claims and the search
/// consume already): per capacity, the sum stays within its value.
pub fn fits<'u>(device: &Device, adding: &Consumption, used: impl Iterator<Item = &'u Consumption> + Clone) -> bool {
    adding.iter().all(|(name, q)| {
        let Some(total) = device.capacity.as_ref().and_then(|c| c.get(name)).and_then(|c| quantity::parse(&c.value).ok()) else { return false };
        let sum = used.clone().flat_map(|c| c.iter().filter(|(n, _)| n == name)).fold(q.clone(), |a, (_, b)| a.add(b));
        sum <= total
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::resource::v1::CapacityRequestPolicyRange;

    fn q(s: &str) -> ApiQuantity {
        ApiQuantity(s.into())
    }

    fn device(caps: &[(&str, &str, Option<CapacityRequestPolicy>)]) -> Device {
        let capacity = caps.iter().map(|(n, v, p)| (n.to_string(), DeviceCapacity { value: q(v), request_policy: p.clone() })).collect();
        Device { name: "gpu-0".into(), allow_multiple_allocations: Some(true), capacity: Some(capacity), ..Default::default() }
    }

    fn range(default: &str, min: &str, max: Option<&str>, step: Option<&str>) -> Option<CapacityRequestPolicy> {
        Some(CapacityRequestPolicy {
            default: Some(q(default)),
            valid_range: Some(CapacityRequestPolicyRange { min: q(min), max: max.map(q), step: step.map(q) }),
            valid_values: None,
        })
    }

    fn shown(c: Option<Consumption>) -> Option<Vec<String>> {
        c.map(|c| c.iter().map(|(n, v)| format!("{n}={}", v.value())).collect())
    }

    /// The rounding and policy cases of `consumable_capacity_test.go`'s table: no
    /// request takes the default (or everything without a policy), a request rounds
    /// up to min + k·step or to the next valid value, above max is refused, and an
    /// unknown capacity name means the device cannot serve the request.
    #[test]
    fn consumption_by_policy() {
        let shares = device(&[("shares", "4", range("1", "1", Some("4"), Some("1")))]);
        let req = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), q(v))).collect::<BTreeMap<_, _>>();
        assert_eq!(shown(consumption(None, "gpu.nvidia.com", &shares)), Some(vec!["shares=1".into()]));
        assert_eq!(shown(consumption(Some(&req(&[("shares", "2")])), "gpu.nvidia.com", &shares)), Some(vec!["shares=2".into()]));
        assert_eq!(shown(consumption(Some(&req(&[("gpu.nvidia.com/shares", "3")])), "gpu.nvidia.com", &shares)), Some(vec!["shares=3".into()]));
        assert_eq!(consumption(Some(&req(&[("shares", "5")])), "gpu.nvidia.com", &shares), None);
        assert_eq!(consumption(Some(&req(&[("example.com/shares", "1")])), "gpu.nvidia.com", &shares), None);
        assert_eq!(consumption(Some(&req(&[("memory", "1Gi")])), "gpu.nvidia.com", &shares), None);
        let memory = device(&[("memory", "80Gi", range("80Gi", "1Mi", None, Some("1Mi")))]);
        assert_eq!(shown(consumption(Some(&req(&[("memory", "4Gi")])), "d", &memory)), Some(vec![format!("memory={}", 4i64 << 30)]));
        assert_eq!(shown(consumption(Some(&req(&[("memory", "1500k")])), "d", &memory)), Some(vec![format!("memory={}", 2i64 << 20)]));
        assert_eq!(shown(consumption(None, "d", &memory)), Some(vec![format!("memory={}", 80i64 << 30)]));
        let plain = device(&[("memory", "10Gi", None)]);
        assert_eq!(shown(consumption(None, "d", &plain)), Some(vec![format!("memory={}", 10i64 << 30)]));
        let values = device(&[(
            "bw",
            "100",
            Some(CapacityRequestPolicy { default: Some(q("10")), valid_range: None, valid_values: Some(vec![q("10"), q("50")]) }),
        )]);
        assert_eq!(shown(consumption(Some(&req(&[("bw", "20")])), "d", &values)), Some(vec!["bw=50".into()]));
        assert_eq!(consumption(Some(&req(&[("bw", "60")])), "d", &values), None);
    }

    /// Four shares: four claims of one share fit, a fifth does not; what others
    /// consume counts by capacity name.
    #[test]
    fn fits_counts_what_others_consume() {
        let shares = device(&[("shares", "4", range("1", "1", Some("4"), Some("1")))]);
        let one = consumption(None, "d", &shares).unwrap_or_default();
        let mut used: Vec<Consumption> = Vec::new();
        for _ in 0..4 {
            assert!(fits(&shares, &one, used.iter()));
            used.push(one.clone());
        }
        assert!(!fits(&shares, &one, used.iter()));
    }
}
