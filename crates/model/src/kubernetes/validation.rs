//! The API server's checks of container resources (`validateResourceRequirements`,
//! `ValidateResourceQuantityValue`) with its field-error texts, and the defaulting
//! that copies limits into missing requests (`SetDefaults_Pod`) — spec §2.2.

use std::fmt;

use k8s_openapi::api::core::v1::{Container, Pod};

use super::quantity::Quantity;
use super::resources::{is_hugepage_resource_name, is_integer_resource_name, is_overcommit_allowed, is_qualified_name};

/// One `field.Error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// e.g. `spec.containers[0].resources.requests`.
    pub field: String,
    pub kind: FieldErrorKind,
}

/// The `field.ErrorType`s these checks produce, with their bad value as printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldErrorKind {
    /// `Invalid value: <value>: <detail>`; `value` is already formatted (`"1"` quoted
    /// for strings, a Go struct dump for a `resource.Quantity`).
    Invalid { value: String, detail: String },
    /// `Required value: <detail>`.
    Required { detail: String },
    /// `Duplicate value: <value>` (already formatted).
    Duplicate { value: String },
    /// `Too many: <actual>: must have at most <max> items`.
    TooMany { actual: usize, max: usize },
    /// `Too long: must have at most <max> bytes`.
    TooLong { max: usize },
    /// `Unsupported value: <value>: supported values: "A", "B"`.
    NotSupported { value: String, supported: Vec<String> },
    /// `Forbidden: <detail>`.
    Forbidden { detail: String },
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            FieldErrorKind::Invalid { value, detail } if detail.is_empty() => {
                write!(f, "{}: Invalid value: {value}", self.field)
            }
            FieldErrorKind::Invalid { value, detail } => write!(f, "{}: Invalid value: {value}: {detail}", self.field),
            FieldErrorKind::Required { detail } if detail.is_empty() => write!(f, "{}: Required value", self.field),
            FieldErrorKind::Required { detail } => write!(f, "{}: Required value: {detail}", self.field),
            FieldErrorKind::Duplicate { value } => write!(f, "{}: Duplicate value: {value}", self.field),
            FieldErrorKind::TooMany { actual, max } => {
                write!(f, "{}: Too many: {actual}: must have at most {max} items", self.field)
            }
            FieldErrorKind::TooLong { max } => write!(f, "{}: Too long: must have at most {max} bytes", self.field),
            FieldErrorKind::NotSupported { value, supported } => {
                let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
                write!(f, "{}: Unsupported value: {value}: supported values: {}", self.field, list.join(", "))
            }
            FieldErrorKind::Forbidden { detail } => write!(f, "{}: Forbidden: {detail}", self.field),
        }
    }
}

/// `isNotIntegerErrorMsg`.
pub const NOT_INTEGER: &str = "must be an integer";
/// `isNegativeErrorMsg`.
pub const NEGATIVE: &str = "must be greater than or equal to 0";
/// Missing limit of an extended resource or hugepages.
pub const LIMIT_REQUIRED: &str = "Limit must be set for non overcommitable resources";

/// `%q` of a Go string (enough for quantity and resource-name texts).
fn go_quote(s: &str) -> String {
    format!("{s:?}")
}

/// `%#v` of a `resource.Quantity` parsed from `text` (the field-error printer falls
/// back to it because `String()` has a pointer receiver) **[inferred form, spec §2.2]**.
pub fn quantity_go_struct(text: &str, q: &Quantity) -> String {
    let kept = if q.canonical() == text && text_is_kept(text) { text } else { "" };
    let (value, scale) = int64_amount(text);
    let format = match q.format() {
        super::quantity::Format::BinarySI => "BinarySI",
        super::quantity::Format::DecimalSI => "DecimalSI",
        super::quantity::Format::DecimalExponent => "DecimalExponent",
    };
    format!(
        "resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, d:resource.infDecAmount{{Dec:(*inf.Dec)(nil)}}, s:{}, Format:{}}}",
        go_quote(kept),
        go_quote(format)
    )
}

/// Whether `ParseQuantity` keeps the text (it is in canonical form as written).
fn text_is_kept(text: &str) -> bool {
    Quantity::parse(text).map(|q| q.canonical() == text).unwrap_or(false)
}

/// The fast path's `int64Amount{value, scale}` of a decimal quantity text.
fn int64_amount(text: &str) -> (i64, i64) {
    let t = text.trim_start_matches(['+', '-']);
    let neg = text.starts_with('-');
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, suffix) = t.split_at(split);
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = format!("{int}{frac}");
    let mut value: i64 = digits.trim_start_matches('0').parse().unwrap_or(0);
    if neg {
        value = -value;
    }
    let exp: i64 = match suffix {
        "n" => -9,
        "u" => -6,
        "m" => -3,
        "k" => 3,
        "M" => 6,
        "G" => 9,
        "T" => 12,
        "P" => 15,
        "E" => 18,
        s if s.starts_with(['e', 'E']) => s.get(1..).and_then(|e| e.parse().ok()).unwrap_or(0),
        _ => 0,
    };
    (value, exp - frac.len() as i64)
}

/// Standard container resources (`validateContainerResourceName`).
fn is_standard_container_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory" | "ephemeral-storage") || is_hugepage_resource_name(name)
}

fn validate_name(name: &str, field: &str, errs: &mut Vec<FieldError>) {
    if !is_qualified_name(name) {
        errs.push(FieldError {
            field: field.into(),
            kind: FieldErrorKind::Invalid { value: go_quote(name), detail: "must be a qualified name".into() },
        });
    } else if !name.contains('/') && !is_standard_container_resource(name) {
        errs.push(FieldError {
            field: field.into(),
            kind: FieldErrorKind::Invalid {
                value: go_quote(name),
                detail: "must be a standard resource for containers".into(),
            },
        });
    }
}

fn validate_quantity(name: &str, text: &str, q: &Quantity, field: &str, errs: &mut Vec<FieldError>) {
    if q.is_negative() {
        errs.push(FieldError {
            field: field.into(),
            kind: FieldErrorKind::Invalid { value: go_quote(&q.canonical()), detail: NEGATIVE.into() },
        });
    }
    if is_integer_resource_name(name) && q.milli_value() % 1000 != 0 {
        errs.push(FieldError {
            field: field.into(),
            kind: FieldErrorKind::Invalid { value: quantity_go_struct(text, q), detail: NOT_INTEGER.into() },
        });
    }
}

/// `validateResourceRequirements` for one container at `path`
/// (e.g. `spec.containers[0]`); resources in name order (upstream: map order).
pub fn validate_container_resources(c: &Container, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let res = c.resources.as_ref();
    let limits = res.and_then(|r| r.limits.as_ref());
    let requests = res.and_then(|r| r.requests.as_ref());
    let lim_path = format!("{path}.resources.limits");
    let req_path = format!("{path}.resources.requests");
    for (name, q) in limits.into_iter().flatten() {
        let field = format!("{lim_path}[{name}]");
        validate_name(name, &field, &mut errs);
        if let Ok(parsed) = Quantity::parse(&q.0) {
            validate_quantity(name, &q.0, &parsed, &field, &mut errs);
        }
    }
    for (name, q) in requests.into_iter().flatten() {
        let field = format!("{req_path}[{name}]");
        validate_name(name, &field, &mut errs);
        let Ok(req) = Quantity::parse(&q.0) else { continue };
        validate_quantity(name, &q.0, &req, &field, &mut errs);
        match limits.and_then(|l| l.get(name)).and_then(|l| Quantity::parse(&l.0).ok()) {
            Some(lim) => {
                if req != lim && !is_overcommit_allowed(name) {
                    errs.push(FieldError {
                        field: req_path.clone(),
                        kind: FieldErrorKind::Invalid {
                            value: go_quote(&req.canonical()),
                            detail: format!("must be equal to {name} limit of {}", lim.canonical()),
                        },
                    });
                } else if req > lim {
                    errs.push(FieldError {
                        field: req_path.clone(),
                        kind: FieldErrorKind::Invalid {
                            value: go_quote(&req.canonical()),
                            detail: format!("must be less than or equal to {name} limit of {}", lim.canonical()),
                        },
                    });
                }
            }
            None if !is_overcommit_allowed(name) => errs.push(FieldError {
                field: lim_path.clone(),
                kind: FieldErrorKind::Required { detail: LIMIT_REQUIRED.into() },
            }),
            None => {}
        }
    }
    errs
}

/// Every container's and init container's resource errors.
pub fn validate_pod_resources(pod: &Pod) -> Vec<FieldError> {
    let Some(spec) = &pod.spec else { return Vec::new() };
    let mut errs = Vec::new();
    for (i, c) in spec.containers.iter().enumerate() {
        errs.extend(validate_container_resources(c, &format!("spec.containers[{i}]")));
    }
    for (i, c) in spec.init_containers.iter().flatten().enumerate() {
        errs.extend(validate_container_resources(c, &format!("spec.initContainers[{i}]")));
    }
    errs
}

/// The API server's text: `Pod "NAME" is invalid: <err>` or `… is invalid: [<e1>, <e2>]`.
pub fn invalid_message(kind: &str, name: &str, errs: &[FieldError]) -> String {
    let body = match errs {
        [one] => one.to_string(),
        many => format!("[{}]", many.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
    };
    format!("{kind} {name:?} is invalid: {body}")
}

/// Whether [`default_requests_from_limits`] would change `pod`: a container with limits
/// and no requests, or a limit its requests lack.
pub fn requests_default_from_limits(pod: &Pod) -> bool {
    let Some(spec) = pod.spec.as_ref() else { return false };
    spec.containers.iter().chain(spec.init_containers.iter().flatten()).any(|c| {
        let Some(res) = c.resources.as_ref() else { return false };
        let Some(limits) = res.limits.as_ref() else { return false };
        match res.requests.as_ref() {
            None => true,
            Some(requests) => limits.keys().any(|k| !requests.contains_key(k)),
        }
    })
}

/// `SetDefaults_Pod`: a container with limits gets each missing request copied from
/// its limit (pods only, not pod templates).
pub fn default_requests_from_limits(pod: &mut Pod) {
    let Some(spec) = pod.spec.as_mut() else { return };
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut().flatten()) {
        let Some(res) = c.resources.as_mut() else { continue };
        let Some(limits) = res.limits.clone() else { continue };
        let requests = res.requests.get_or_insert_with(Default::default);
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(requests: serde_json::Value, limits: serde_json::Value) -> Container {
        serde_json::from_value(serde_json::json!({
            "name": "c", "resources": {"requests": requests, "limits": limits}
        }))
        .unwrap()
    }

    /// Spec §2.2: the texts of the three GPU-request mistakes.
    #[test]
    fn gpu_request_errors_spec_2_2() {
        let cases = [
            (
                container(serde_json::json!({"nvidia.com/gpu": "1"}), serde_json::json!({"nvidia.com/gpu": "2"})),
                r#"spec.containers[0].resources.requests: Invalid value: "1": must be equal to nvidia.com/gpu limit of 2"#,
            ),
            (
                container(serde_json::json!({"nvidia.com/gpu": "1"}), serde_json::json!({})),
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
            ),
            (
                container(serde_json::json!({}), serde_json::json!({"nvidia.com/gpu": "500m"})),
                r#"spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: must be an integer"#,
            ),
        ];
        for (c, want) in cases {
            let errs = validate_container_resources(&c, "spec.containers[0]");
            assert_eq!(errs.iter().map(ToString::to_string).collect::<Vec<_>>(), vec![want.to_string()]);
        }
    }

    /// `limits: {nvidia.com/gpu: 1}` alone is valid once defaulted.
    #[test]
    fn limits_only_is_defaulted_and_valid() {
        let mut pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "gpu"},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}
        }))
        .unwrap();
        default_requests_from_limits(&mut pod);
        assert!(validate_pod_resources(&pod).is_empty());
        let errs = [FieldError { field: "x".into(), kind: FieldErrorKind::Required { detail: "d".into() } }];
        assert_eq!(invalid_message("Pod", "gpu", &errs), r#"Pod "gpu" is invalid: x: Required value: d"#);
    }
}
