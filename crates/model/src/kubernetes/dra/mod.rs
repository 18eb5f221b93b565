//! Dynamic Resource Allocation (`resource.k8s.io/v1`, GA since 1.34): the objects'
//! validation as the API server does it, and the CEL device selectors as
//! `k8s.io/dynamic-resource-allocation/cel` compiles and evaluates them. Issue 17,
//! items 2, 3 and 4.
//!
//! The objects are k8s-openapi's `resource::v1` types (feature `v1_36`).
//! [`super::yaml::load`] recognises their kinds and keeps their documents untyped;
//! [`read`] types them (file:line errors as for every other kind), so that only a
//! caller of this module carries their deserialisers — the app's on-demand chunk
//! reads manifests without DRA and stays within its size budget. [`diagnose`] turns
//! validation results into diagnostics at the field's line.
//!
//! # Layout
//!
//! - [`validation`]: `pkg/apis/resource/validation/validation.go` for DeviceClass,
//!   ResourceClaim, ResourceClaimTemplate and ResourceSlice.
//! - [`cel`]: the selector language: lexer, parser, checker, interpreter, and
//!   `compile.go`'s `CompileCELExpression` / `DeviceMatches`.
//! - [`allocator`]: the structured allocator (`structured/internal/stable`).
//! - [`capacity`]: consumable capacity — what a request consumes of a shared device.
//! - [`apply`]: a pod with claims through the control plane, step by step.
//! - [`dynamicresources`]: the scheduler plugin over the allocator, the resource
//!   claim controller's claims from templates, and what binding writes.
//! - [`extended`]: extended resources a DeviceClass backs (`DRAExtendedResource`,
//!   1.36+): which class a resource name means, the claim the scheduler makes.
//! - [`nvidia`]: the node side of NVIDIA's GPU driver — the ResourceSlices it
//!   publishes per GPU model, its DeviceClasses, its opaque sharing config.
//! - [`kubelet`]: the kubelet's `PrepareResources` and `FailedPrepareDynamicResources`.
//! - [`seats`]: step 7's DRA rows — how many pods get a GPU on each DRA path.
//! - [`printed`]: what `gpulab schedule` and step 6 print about claims, and what they
//!   refuse before scheduling (DRA before 1.34; a pod with claims of its own whose
//!   extended resource a node's device plugin also serves).
//!
//! **API Boundary:** pure functions over k8s-openapi objects; nothing here reads
//! files.

pub mod allocator;
pub mod apply;
pub mod capacity;
pub mod cel;
pub mod dynamicresources;
pub mod extended;
pub mod kubelet;
pub mod nvidia;
pub mod printed;
pub mod seats;
pub mod validation;

#[cfg(test)]
mod allocator_tests;
#[cfg(test)]
mod extended_tests;
#[cfg(test)]
mod nvidia_tests;
#[cfg(test)]
mod seats_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use k8s_openapi::api::resource::v1::{DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice};

use crate::diagnostic::{Diagnostic, Severity, Span};
use crate::kubernetes::quantity::Quantity;
use crate::kubernetes::yaml::{Located, Manifests};
use validation::Validation;

/// The DRA objects of some manifests, by kind, in file order.
#[derive(Debug, Clone, Default)]
pub struct Objects {
    pub device_classes: Vec<Located<DeviceClass>>,
    pub resource_claims: Vec<Located<ResourceClaim>>,
    pub resource_claim_templates: Vec<Located<ResourceClaimTemplate>>,
    pub resource_slices: Vec<Located<ResourceSlice>>,
    /// The text of each object's document (a `kind: List`'s whole), by its file and
    /// the line it starts on (the object's `span`): [`diagnose`] finds a field's line
    /// in it.
    pub documents: BTreeMap<(String, u32), String>,
}

/// Types the DRA documents [`super::yaml::load`] kept ([`Manifests::deferred`]):
/// the objects that read, and a diagnostic at file:line for each that does not
/// (`k8s-object-invalid`) and for each device capacity that is not a quantity
/// (`k8s-quantity-invalid`).
pub fn read(manifests: &Manifests) -> (Objects, Vec<Diagnostic>) {
    let mut out = Objects::default();
    let mut diags = Vec::new();
    for d in &manifests.deferred {
        let doc = d.document();
        out.documents.entry((d.span.file.clone(), d.span.line)).or_insert_with(|| doc.text().to_string());
        let result = match d.kind.as_str() {
            "DeviceClass" => d.typed().map(|o| out.device_classes.push(o)),
            "ResourceClaim" => d.typed().map(|o| out.resource_claims.push(o)),
            "ResourceClaimTemplate" => d.typed().map(|o| out.resource_claim_templates.push(o)),
            "ResourceSlice" => d.typed::<ResourceSlice>().map(|slice| {
                let devices = slice.object.spec.devices.iter().flatten().enumerate();
                for (i, device) in devices {
                    for (name, capacity) in device.capacity.iter().flatten() {
                        let text = &capacity.value.0;
                        if let Err(e) = Quantity::parse(text) {
                            diags.push(
                                Diagnostic::new("k8s-quantity-invalid", Severity::Error)
                                    .arg("field", format!("spec.devices[{i}].capacity[{name}]"))
                                    .arg("value", text)
                                    .arg("message", e)
                                    .at(Span::new(&d.span.file, d.line_of_entry(name, text), 1)),
                            );
                        }
                    }
                }
                out.resource_slices.push(slice);
            }),
            _ => Ok(()),
        };
        if let Err(e) = result {
            diags.push(e);
        }
    }
    (out, diags)
}

/// Every DRA object of `manifests` validated: `dra-invalid` for each field error
/// (argument `message`: the API server's text), `dra-cel-unsupported` for a
/// selector the lab cannot evaluate (arguments `field`, `construct`, `column`). The
/// line is the one that holds the field's key in the object's document
/// ([`Objects::documents`]), each segment's key after the previous one's.
pub fn diagnose(manifests: &Objects) -> Vec<Diagnostic> {
    diagnose_by_kind(manifests).concat()
}

/// [`diagnose`]'s findings by kind — DeviceClasses', ResourceClaims',
/// ResourceClaimTemplates', ResourceSlices' —, each in file order ([`diagnose`] is
/// them one after the other). Each object's findings depend on it and its document
/// only: a caller reading a file's documents one by one joins them per kind.
pub fn diagnose_by_kind(manifests: &Objects) -> [Vec<Diagnostic>; 4] {
    let mut out: [Vec<Diagnostic>; 4] = Default::default();
    let emit = |out: &mut Vec<Diagnostic>, span: &Span, kind: &str, name: Option<&String>, v: Validation| {
        let doc = manifests.documents.get(&(span.file.clone(), span.line)).map_or("", String::as_str);
        let line_of = |field: &str| line_of_field(doc, field) + span.line.saturating_sub(1);
        for e in v.errors {
            out.push(
                Diagnostic::new("dra-invalid", Severity::Error)
                    .arg("kind", kind)
                    .arg("name", name.cloned().unwrap_or_default())
                    .arg("message", e.to_string())
                    .at(Span::new(&span.file, line_of(&e.field), 1)),
            );
        }
        for u in v.unsupported {
            out.push(
                Diagnostic::new("dra-cel-unsupported", Severity::Warning)
                    .arg("field", &u.field)
                    .arg("construct", &u.error.message)
                    .arg("column", u.error.column.to_string())
                    .at(Span::new(&span.file, line_of(&u.field), 1)),
            );
        }
    };
    let [classes, claims, templates, slices] = &mut out;
    for o in &manifests.device_classes {
        emit(classes, &o.span, "DeviceClass", o.object.metadata.name.as_ref(), validation::validate_device_class(&o.object));
    }
    for o in &manifests.resource_claims {
        emit(claims, &o.span, "ResourceClaim", o.object.metadata.name.as_ref(), validation::validate_resource_claim(&o.object));
    }
    for o in &manifests.resource_claim_templates {
        let v = validation::validate_resource_claim_template(&o.object);
        emit(templates, &o.span, "ResourceClaimTemplate", o.object.metadata.name.as_ref(), v);
    }
    for o in &manifests.resource_slices {
        emit(slices, &o.span, "ResourceSlice", o.object.metadata.name.as_ref(), validation::validate_resource_slice(&o.object));
    }
    out
}

/// The line (1-based) in a document's `text` of a field path's keys in order (each
/// segment's `key:` searched after the previous one's line; `[i]` steps over list
/// items), or the deepest one found, else the first line. YAML anchors and flow
/// style on one line land on that line.
fn line_of_field(text: &str, field: &str) -> u32 {
    let lines: Vec<&str> = text.lines().collect();
    let mut line = 0usize;
    for seg in field.split('.') {
        let (key, index) = match seg.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (seg, None),
        };
        let found = lines.iter().enumerate().skip(line).find(|(_, l)| {
            let t = l.trim_start().trim_start_matches("- ");
            t.starts_with(&format!("{key}:")) || t.starts_with(&format!("\"{key}\":"))
        });
        let Some((at, _)) = found else { break };
        line = at;
        if let Some(i) = index {
            // The i-th `- ` item at the first item's indentation.
            let indent = lines.iter().skip(at + 1).find(|l| l.trim_start().starts_with("- ")).map(|l| l.len() - l.trim_start().len());
            let Some(indent) = indent else { break };
            let items: Vec<usize> = lines
                .iter()
                .enumerate()
                .skip(at + 1)
                .take_while(|(_, x)| x.trim().is_empty() || x.len() - x.trim_start().len() >= indent || x.trim_start().starts_with('#'))
                .filter(|(_, x)| x.len() - x.trim_start().len() == indent && x.trim_start().starts_with("- "))
                .map(|(n, _)| n)
                .collect();
            match items.get(i) {
                Some(&n) => line = n,
                None => break,
            }
        }
    }
    line as u32 + 1
}
