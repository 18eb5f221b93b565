//! The API server's validation of `resource.k8s.io/v1` objects on create
//! (`pkg/apis/resource/validation/validation.go`, v1.34–v1.37), after defaulting
//! (`allocationMode` ExactCount, `count` 1), with upstream's field paths and texts.
//!
//! Covered: DeviceClass (selectors, config, `extendedResourceName`), ResourceClaim
//! and ResourceClaimTemplate (requests: name, `exactly` / `firstAvailable`,
//! deviceClassName, selectors, allocationMode and count; constraints; config),
//! ResourceSlice (driver, pool, the node-selection union, `sharedCounters` vs
//! `devices`, devices: names, attribute and capacity keys and values, the per-slice
//! and per-device limits). Not covered yet: tolerations, taints, binding conditions,
//! capacity request policies, the claim status, `metadata` beyond the name; the CEL
//! cost estimate (selectors are never close to it). Where a feature gate changes a
//! text (constraints without an attribute under DRAConsumableCapacity) the gate-off
//! text is used.

use k8s_openapi::api::resource::v1::{
    DeviceClass, DeviceClaim, DeviceRequest, DeviceSelector, OpaqueDeviceConfiguration, ResourceClaim,
    ResourceClaimTemplate, ResourceSlice,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::cel;
use crate::kubernetes::resources::{is_dns1123_subdomain, is_extended_resource_name};
use crate::kubernetes::validation::{FieldError, FieldErrorKind};

/// Limits of `pkg/apis/resource/types.go`.
pub const DEVICE_REQUESTS_MAX_SIZE: usize = 32;
pub const FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE: usize = 8;
pub const DEVICE_SELECTORS_MAX_SIZE: usize = 32;
pub const DEVICE_CONSTRAINTS_MAX_SIZE: usize = 32;
pub const DEVICE_CONFIG_MAX_SIZE: usize = 32;
pub const CEL_SELECTOR_EXPRESSION_MAX_LENGTH: usize = 10 * 1024;
pub const OPAQUE_PARAMETERS_MAX_LENGTH: usize = 10 * 1024;
pub const RESOURCE_SLICE_MAX_DEVICES: usize = 128;
pub const RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS: usize = 64;
pub const RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE: usize = 32;
pub const RESOURCE_SLICE_MAX_COUNTER_SETS: usize = 8;
pub const RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET: usize = 32;
pub const RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE: usize = 2;
pub const RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION: usize = 32;
pub const DEVICE_MAX_ID_LENGTH: usize = 32;
pub const DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH: usize = 64;
pub const DRIVER_NAME_MAX_LENGTH: usize = 63;
pub const POOL_NAME_MAX_LENGTH: usize = 253;

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const C_IDENTIFIER_MSG: &str = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
const REQUEST_REF_MSG: &str = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";
const NODE_UNION: &str = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";

type Errs = Vec<FieldError>;

fn q(s: &str) -> String {
    crate::go::quote(s)
}

fn invalid(field: &str, value: String, detail: &str) -> FieldError {
    FieldError { field: field.into(), kind: FieldErrorKind::Invalid { value, detail: detail.into() } }
}

fn required(field: &str, detail: &str) -> FieldError {
    FieldError { field: field.into(), kind: FieldErrorKind::Required { detail: detail.into() } }
}

fn too_many(field: &str, actual: usize, max: usize) -> FieldError {
    FieldError { field: field.into(), kind: FieldErrorKind::TooMany { actual, max } }
}

fn duplicate(field: &str, value: &str) -> FieldError {
    FieldError { field: field.into(), kind: FieldErrorKind::Duplicate { value: q(value) } }
}

/// `ValidateDNS1123Label`.
fn dns1123_label(v: &str, field: &str, errs: &mut Errs) {
    if v.len() > 63 {
        errs.push(invalid(field, q(v), "must be no more than 63 characters"));
    }
    if v.is_empty() || !v.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') || v.starts_with('-') || v.ends_with('-') {
        errs.push(invalid(field, q(v), DNS1123_LABEL_MSG));
    }
}

/// `ValidateDNS1123Subdomain`.
fn dns1123_subdomain(v: &str, field: &str, errs: &mut Errs) {
    if v.len() > 253 {
        errs.push(invalid(field, q(v), "must be no more than 253 characters"));
    }
    if !(v.len() <= 253 && is_dns1123_subdomain(v) || v.len() > 253 && is_dns1123_subdomain(v.get(..253).unwrap_or(""))) {
        errs.push(invalid(field, q(v), DNS1123_SUBDOMAIN_MSG));
    }
}

/// `ValidateCSIDriverName`, which DRA reuses for driver names.
fn driver_name(v: &str, field: &str, errs: &mut Errs) {
    if v.is_empty() {
        errs.push(required(field, ""));
        return;
    }
    if v.len() > DRIVER_NAME_MAX_LENGTH {
        errs.push(FieldError { field: field.into(), kind: FieldErrorKind::TooLong { max: DRIVER_NAME_MAX_LENGTH } });
    }
    let lower = v.to_ascii_lowercase();
    if !is_dns1123_subdomain(&lower) {
        errs.push(invalid(field, q(v), DNS1123_SUBDOMAIN_MSG));
    }
}

fn object_name(meta: &ObjectMeta, errs: &mut Errs) {
    match meta.name.as_deref() {
        None | Some("") if meta.generate_name.as_deref().is_none_or(str::is_empty) => {
            errs.push(required("metadata.name", "name or generateName is required"));
        }
        Some(n) if !n.is_empty() => dns1123_subdomain(n, "metadata.name", errs),
        _ => {}
    }
}

/// A counter set's name (where it is declared or consumed): required, a DNS label.
fn counter_name(v: &str, field: &str, errs: &mut Errs) {
    if v.is_empty() {
        errs.push(required(field, ""));
    } else {
        dns1123_label(v, field, errs);
    }
}

/// A counters map (`validateCounterSet`, `validateDeviceCounterConsumption`):
/// required, at most `max`, each key a DNS label — reported at the map's path, not
/// the key's (`validateMap` passes the map's path to the key check).
fn counters<'a>(keys: impl ExactSizeIterator<Item = &'a String>, max: usize, field: &str, errs: &mut Errs) {
    match keys.len() {
        0 => errs.push(required(field, "")),
        n if n > max => errs.push(too_many(field, n, max)),
        _ => keys.for_each(|k| dns1123_label(k, field, errs)),
    }
}

/// `validateSet`'s size check, then its items, then its duplicates.
fn set<'a, T>(
    items: &'a [T],
    max: usize,
    field: &str,
    key: impl Fn(&T) -> &str,
    mut each: impl FnMut(&'a T, &str, &mut Errs),
    errs: &mut Errs,
) {
    if items.len() > max {
        errs.push(too_many(field, items.len(), max));
        return;
    }
    for (i, item) in items.iter().enumerate() {
        each(item, &format!("{field}[{i}]"), errs);
    }
    duplicates(items.iter().map(key), field, errs);
}

/// `validateSet`'s uniqueness: `Duplicate value` at every repeat after the first.
fn duplicates<'a>(keys: impl Iterator<Item = &'a str>, field: &str, errs: &mut Errs) {
    let mut seen: Vec<&str> = Vec::new();
    for (i, k) in keys.enumerate() {
        if seen.contains(&k) {
            errs.push(duplicate(&format!("{field}[{i}]"), k));
        } else {
            seen.push(k);
        }
    }
}

/// A selector that is valid upstream but outside the lab's CEL subset: the lab
/// cannot evaluate it, the API server would have accepted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub field: String,
    pub error: cel::CelError,
}

/// What validation found: upstream's field errors, and the selectors the lab cannot read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validation {
    pub errors: Vec<FieldError>,
    pub unsupported: Vec<Unsupported>,
}

struct V {
    errs: Errs,
    unsupported: Vec<Unsupported>,
}

impl V {
    fn new() -> Self {
        V { errs: Vec::new(), unsupported: Vec::new() }
    }

    fn done(self) -> Validation {
        Validation { errors: self.errs, unsupported: self.unsupported }
    }

    fn selectors(&mut self, selectors: &[DeviceSelector], field: &str) {
        if selectors.len() > DEVICE_SELECTORS_MAX_SIZE {
            self.errs.push(too_many(field, selectors.len(), DEVICE_SELECTORS_MAX_SIZE));
            return;
        }
        for (i, s) in selectors.iter().enumerate() {
            let f = format!("{field}[{i}].cel");
            let Some(c) = &s.cel else {
                self.errs.push(required(&f, ""));
                continue;
            };
            let f = format!("{f}.expression");
            if c.expression.len() > CEL_SELECTOR_EXPRESSION_MAX_LENGTH {
                self.errs.push(FieldError { field: f, kind: FieldErrorKind::TooLong { max: CEL_SELECTOR_EXPRESSION_MAX_LENGTH } });
                continue;
            }
            match cel::compile(&c.expression) {
                Ok(_) => {}
                Err(e) if e.error.kind == cel::CelErrorKind::Unsupported => {
                    self.unsupported.push(Unsupported { field: f, error: e.error });
                }
                Err(e) => self.errs.push(invalid(&f, q(&c.expression), &e.detail)),
            }
        }
    }

    fn opaque(&mut self, opaque: Option<&OpaqueDeviceConfiguration>, field: &str) {
        let Some(o) = opaque else {
            self.errs.push(required(&format!("{field}.opaque"), ""));
            return;
        };
        driver_name(&o.driver, &format!("{field}.opaque.driver"), &mut self.errs);
        let pf = format!("{field}.opaque.parameters");
        let raw = serde_json::to_string(&o.parameters.0).unwrap_or_default();
        match &o.parameters.0 {
            serde_json::Value::Null => self.errs.push(required(&pf, "")),
            _ if raw.len() > OPAQUE_PARAMETERS_MAX_LENGTH => {
                self.errs.push(FieldError { field: pf, kind: FieldErrorKind::TooLong { max: OPAQUE_PARAMETERS_MAX_LENGTH } })
            }
            serde_json::Value::Object(_) => {}
            _ => self.errs.push(invalid(&pf, q("<value omitted>"), "must be a valid JSON object")),
        }
    }

    fn allocation_mode(&mut self, mode: Option<&str>, count: Option<i64>, field: &str) {
        // Defaulting: an empty mode is ExactCount, an ExactCount without count is 1.
        let mode = mode.filter(|m| !m.is_empty()).unwrap_or("ExactCount");
        let count = count.unwrap_or(if mode == "ExactCount" { 1 } else { 0 });
        let count = if mode == "ExactCount" && count == 0 { 1 } else { count };
        match mode {
            "All" if count != 0 => self.errs.push(invalid(
                &format!("{field}.count"),
                count.to_string(),
                "must not be specified when allocationMode is 'All'",
            )),
            "ExactCount" if count <= 0 => {
                self.errs.push(invalid(&format!("{field}.count"), count.to_string(), "must be greater than zero"))
            }
            "All" | "ExactCount" => {}
            other => self.errs.push(FieldError {
                field: format!("{field}.allocationMode"),
                kind: FieldErrorKind::NotSupported { value: q(other), supported: vec!["All".into(), "ExactCount".into()] },
            }),
        }
    }

    fn device_class_name(&mut self, name: &str, field: &str) {
        if name.is_empty() {
            self.errs.push(required(field, ""));
        } else {
            dns1123_subdomain(name, field, &mut self.errs);
        }
    }

    fn request(&mut self, r: &DeviceRequest, field: &str) {
        dns1123_label(&r.name, &format!("{field}.name"), &mut self.errs);
        let first = r.first_available.as_deref().unwrap_or_default();
        match (r.exactly.as_ref(), first.is_empty()) {
            (None, true) => self.errs.push(required(field, "exactly one of `exactly` or `firstAvailable` is required")),
            (Some(_), false) => self.errs.push(invalid(
                field,
                q("null"),
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
            )),
            (None, false) => {
                let f = format!("{field}.firstAvailable");
                if first.len() > FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE {
                    self.errs.push(too_many(&f, first.len(), FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE));
                    return;
                }
                for (i, s) in first.iter().enumerate() {
                    let sf = format!("{f}[{i}]");
                    dns1123_label(&s.name, &format!("{sf}.name"), &mut self.errs);
                    self.device_class_name(&s.device_class_name, &format!("{sf}.deviceClassName"));
                    self.selectors(s.selectors.as_deref().unwrap_or_default(), &format!("{sf}.selectors"));
                    self.allocation_mode(s.allocation_mode.as_deref(), s.count, &sf);
                }
                duplicates(first.iter().map(|s| s.name.as_str()), &f, &mut self.errs);
            }
            (Some(e), true) => {
                let f = format!("{field}.exactly");
                self.device_class_name(&e.device_class_name, &format!("{f}.deviceClassName"));
                self.selectors(e.selectors.as_deref().unwrap_or_default(), &format!("{f}.selectors"));
                self.allocation_mode(e.allocation_mode.as_deref(), e.count, &f);
            }
        }
    }

    fn device_claim(&mut self, d: &DeviceClaim, field: &str) {
        let requests = d.requests.as_deref().unwrap_or_default();
        let rf = format!("{field}.requests");
        if requests.len() > DEVICE_REQUESTS_MAX_SIZE {
            self.errs.push(too_many(&rf, requests.len(), DEVICE_REQUESTS_MAX_SIZE));
        } else {
            for (i, r) in requests.iter().enumerate() {
                self.request(r, &format!("{rf}[{i}]"));
            }
            duplicates(requests.iter().map(|r| r.name.as_str()), &rf, &mut self.errs);
        }
        let known = |name: &str| -> bool {
            let parts: Vec<&str> = name.split('/').collect();
            requests.iter().any(|r| match parts.as_slice() {
                [n] => r.name == *n,
                [n, s] => r.name == *n && r.first_available.iter().flatten().any(|x| x.name == *s),
                _ => false,
            })
        };
        let refs = |names: &[String], f: &str, errs: &mut Errs| {
            set(names, DEVICE_REQUESTS_MAX_SIZE, f, |s| s.as_str(), |name, nf, errs| {
                let parts: Vec<&str> = name.split('/').collect();
                if parts.len() > 2 {
                    errs.push(invalid(nf, q(name), REQUEST_REF_MSG));
                    return;
                }
                for p in &parts {
                    dns1123_label(p, nf, errs);
                }
                if !known(name) {
                    errs.push(invalid(nf, q(name), REQUEST_REF_MSG));
                }
            }, errs);
        };
        let constraints = d.constraints.as_deref().unwrap_or_default();
        let cf = format!("{field}.constraints");
        if constraints.len() > DEVICE_CONSTRAINTS_MAX_SIZE {
            self.errs.push(too_many(&cf, constraints.len(), DEVICE_CONSTRAINTS_MAX_SIZE));
        } else {
            for (i, c) in constraints.iter().enumerate() {
                let f = format!("{cf}[{i}]");
                refs(c.requests.as_deref().unwrap_or_default(), &format!("{f}.requests"), &mut self.errs);
                match (&c.match_attribute, &c.distinct_attribute) {
                    (Some(a), _) => fully_qualified_name(a, &format!("{f}.matchAttribute"), &mut self.errs),
                    (None, Some(a)) => fully_qualified_name(a, &format!("{f}.distinctAttribute"), &mut self.errs),
                    (None, None) => self.errs.push(required(&format!("{f}.matchAttribute"), "")),
                }
            }
        }
        let config = d.config.as_deref().unwrap_or_default();
        let gf = format!("{field}.config");
        if config.len() > DEVICE_CONFIG_MAX_SIZE {
            self.errs.push(too_many(&gf, config.len(), DEVICE_CONFIG_MAX_SIZE));
        } else {
            for (i, c) in config.iter().enumerate() {
                let f = format!("{gf}[{i}]");
                refs(c.requests.as_deref().unwrap_or_default(), &format!("{f}.requests"), &mut self.errs);
                self.opaque(c.opaque.as_ref(), &f);
            }
        }
    }
}

/// `validateQualifiedName`: `[domain/]id`, id a C identifier of at most 32.
fn qualified_name(name: &str, field: &str, errs: &mut Errs) {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        [id] => c_identifier(id, field, errs),
        [domain, id] => {
            if domain.is_empty() {
                errs.push(invalid(field, q(""), "the domain must not be empty"));
            } else {
                driver_name(domain, field, errs);
            }
            if id.is_empty() {
                errs.push(invalid(field, q(""), "the name must not be empty"));
            } else {
                c_identifier(id, field, errs);
            }
        }
        _ => errs.push(invalid(field, q(name), "must not contain more than one slash")),
    }
}

fn fully_qualified_name(name: &str, field: &str, errs: &mut Errs) {
    qualified_name(name, field, errs);
    if !name.contains('/') {
        errs.push(invalid(field, q(name), "a fully qualified name must be a domain and a name separated by a slash"));
    }
}

fn c_identifier(id: &str, field: &str, errs: &mut Errs) {
    if id.len() > DEVICE_MAX_ID_LENGTH {
        errs.push(FieldError { field: field.into(), kind: FieldErrorKind::TooLong { max: DEVICE_MAX_ID_LENGTH } });
    }
    let mut chars = id.chars();
    let ok = chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !ok {
        errs.push(invalid(field, q(id), C_IDENTIFIER_MSG));
    }
}

/// `ValidateDeviceClass`.
pub fn validate_device_class(class: &DeviceClass) -> Validation {
    let mut v = V::new();
    object_name(&class.metadata, &mut v.errs);
    v.selectors(class.spec.selectors.as_deref().unwrap_or_default(), "spec.selectors");
    let config = class.spec.config.as_deref().unwrap_or_default();
    if config.len() > DEVICE_CONFIG_MAX_SIZE {
        v.errs.push(too_many("spec.config", config.len(), DEVICE_CONFIG_MAX_SIZE));
    } else {
        for (i, c) in config.iter().enumerate() {
            v.opaque(c.opaque.as_ref(), &format!("spec.config[{i}]"));
        }
    }
    if let Some(name) = &class.spec.extended_resource_name {
        if !is_extended_resource_name(name) {
            v.errs.push(invalid("spec.extendedResourceName", q(name), "must be a valid extended resource name"));
        }
    }
    v.done()
}

/// `ValidateResourceClaim`.
pub fn validate_resource_claim(claim: &ResourceClaim) -> Validation {
    let mut v = V::new();
    object_name(&claim.metadata, &mut v.errs);
    v.device_claim(&claim.spec.devices.clone().unwrap_or_default(), "spec.devices");
    v.done()
}

/// `ValidateResourceClaimTemplate`: the claim's spec sits under `spec.spec`.
pub fn validate_resource_claim_template(t: &ResourceClaimTemplate) -> Validation {
    let mut v = V::new();
    object_name(&t.metadata, &mut v.errs);
    v.device_claim(&t.spec.spec.devices.clone().unwrap_or_default(), "spec.spec.devices");
    v.done()
}

/// `ValidateResourceSlice`.
pub fn validate_resource_slice(slice: &ResourceSlice) -> Validation {
    let mut v = V::new();
    let errs = &mut v.errs;
    object_name(&slice.metadata, errs);
    let spec = &slice.spec;
    driver_name(&spec.driver, "spec.driver", errs);
    let pool = &spec.pool;
    if pool.name.is_empty() {
        errs.push(required("spec.pool.name", ""));
    } else {
        if pool.name.len() > POOL_NAME_MAX_LENGTH {
            errs.push(FieldError { field: "spec.pool.name".into(), kind: FieldErrorKind::TooLong { max: POOL_NAME_MAX_LENGTH } });
        }
        for part in pool.name.split('/') {
            dns1123_subdomain(part, "spec.pool.name", errs);
        }
    }
    if pool.resource_slice_count <= 0 {
        errs.push(invalid("spec.pool.resourceSliceCount", pool.resource_slice_count.to_string(), "must be greater than zero"));
    }
    if pool.generation < 0 {
        errs.push(invalid("spec.pool.generation", pool.generation.to_string(), "must be greater than or equal to zero"));
    }
    let mut set_fields: Vec<&str> = Vec::new();
    match spec.node_name.as_deref() {
        Some("") => errs.push(invalid("spec.nodeName", q(""), "must be either unset or set to a non-empty string")),
        Some(n) => {
            set_fields.push("`nodeName`");
            dns1123_subdomain(n, "spec.nodeName", errs);
        }
        None => {}
    }
    if let Some(sel) = &spec.node_selector {
        set_fields.push("`nodeSelector`");
        if sel.node_selector_terms.len() != 1 {
            errs.push(invalid(
                "spec.nodeSelector.nodeSelectorTerms",
                format!("{} terms", sel.node_selector_terms.len()),
                "must have exactly one node selector term",
            ));
        }
    }
    for (flag, name, field) in [
        (spec.all_nodes, "`allNodes`", "spec.allNodes"),
        (spec.per_device_node_selection, "`perDeviceNodeSelection`", "spec.perDeviceNodeSelection"),
    ] {
        match flag {
            Some(true) => set_fields.push(name),
            Some(false) => errs.push(invalid(field, "false".into(), "must be either unset or set to true")),
            None => {}
        }
    }
    match set_fields.len() {
        0 => errs.push(required("spec", NODE_UNION)),
        1 => {}
        _ => errs.push(invalid(
            "spec",
            q(&format!("{{{}}}", set_fields.join(", "))),
            &format!("{NODE_UNION}, but multiple fields are set"),
        )),
    }
    if spec.shared_counters.is_some() && spec.devices.is_some() {
        errs.push(invalid("spec", q(""), "only one of `sharedCounters` or `devices` is allowed"));
    }
    let devices = spec.devices.as_deref().unwrap_or_default();
    let advanced = devices.iter().any(|d| d.taints.as_ref().is_some_and(|t| !t.is_empty()) || d.consumes_counters.as_ref().is_some_and(|c| !c.is_empty()));
    let max = if advanced { RESOURCE_SLICE_MAX_DEVICES_WITH_TAINTS_OR_CONSUMES_COUNTERS } else { RESOURCE_SLICE_MAX_DEVICES };
    set(devices, max, "spec.devices", |d| d.name.as_str(), |d, f, errs| {
        dns1123_label(&d.name, &format!("{f}.name"), errs);
        let attrs = d.attributes.as_ref();
        let caps = d.capacity.as_ref();
        let total = attrs.map_or(0, |a| a.len()) + caps.map_or(0, |c| c.len());
        if total > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE {
            errs.push(invalid(
                f,
                total.to_string(),
                &format!("the total number of attributes and capacities must not exceed {RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}"),
            ));
        }
        for (name, a) in attrs.into_iter().flatten() {
            qualified_name(name, &format!("{f}.attributes"), errs);
            let af = format!("{f}.attributes[{name}]");
            let set_count = [a.bool.is_some(), a.int.is_some(), a.string.is_some(), a.version.is_some(), a.bools.is_some(), a.ints.is_some(), a.strings.is_some(), a.versions.is_some()]
                .iter()
                .filter(|b| **b)
                .count();
            if let Some(s) = &a.string {
                if s.len() > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH {
                    errs.push(FieldError { field: format!("{af}.string"), kind: FieldErrorKind::TooLong { max: DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH } });
                }
            }
            if let Some(ver) = &a.version {
                if cel::semver::Semver::parse(ver).is_err() {
                    errs.push(invalid(&format!("{af}.version"), q(ver), "must be a string compatible with semver.org spec 2.0.0"));
                }
                if ver.len() > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH {
                    errs.push(FieldError { field: format!("{af}.version"), kind: FieldErrorKind::TooLong { max: DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH } });
                }
            }
            match set_count {
                0 => errs.push(invalid(&af, q(""), "exactly one value must be specified")),
                1 => {}
                _ => errs.push(invalid(&af, "{…}".into(), "exactly one value must be specified")),
            }
        }
        for name in caps.into_iter().flatten().map(|(k, _)| k) {
            qualified_name(name, &format!("{f}.capacity"), errs);
        }
        let consumptions = d.consumes_counters.as_deref().unwrap_or_default();
        set(consumptions, RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE, &format!("{f}.consumesCounters"), |c| c.counter_set.as_str(), |c, cf, errs| {
            counter_name(&c.counter_set, &format!("{cf}.counterSet"), errs);
            counters(c.counters.keys(), RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION, &format!("{cf}.counters"), errs);
        }, errs);
        let per_device = d.node_name.is_some() || d.node_selector.is_some() || d.all_nodes.is_some();
        if per_device && spec.per_device_node_selection != Some(true) {
            errs.push(invalid(f, q("null"), "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"));
        }
    }, errs);
    let sets = spec.shared_counters.as_deref().unwrap_or_default();
    set(sets, RESOURCE_SLICE_MAX_COUNTER_SETS, "spec.sharedCounters", |c| c.name.as_str(), |c, f, errs| {
        counter_name(&c.name, &format!("{f}.name"), errs);
        counters(c.counters.keys(), RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, &format!("{f}.counters"), errs);
    }, errs);
    v.done()
}
