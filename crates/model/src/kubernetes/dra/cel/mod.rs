//! Device selectors: the lab's CEL subset, compiled and evaluated as
//! `k8s.io/dynamic-resource-allocation/cel` (`compile.go`) does with cel-go.
//!
//! Why a subset and not a CEL crate: the `cel` crate (0.15, the maintained one)
//! always pulls in an ANTLR runtime and its generated parser; measured in a throw-away
//! cdylib (numbers in ARCHITECTURE.md) it alone is far more than the on-demand chunk's
//! remaining budget; its parser recurses without a depth limit; and Kubernetes'
//! quantity and semver libraries, the empty-map default for unknown domains and
//! Kubernetes' error wording would have to be added on top anyway.
//!
//! # The subset
//!
//! Literals (int, uint, double, string, raw string, bool, null, lists, maps);
//! `device.driver`, `device.attributes["domain"].name`, `device.capacity["domain"].name`,
//! `device.allowMultipleAllocations`; `== != < <= > >= in + - * / %`, `&& || !`, `?:`;
//! `has()`, `all`, `exists`, `exists_one`, `cel.bind`; `size`, `int`, `double`,
//! `string`; strings: `startsWith`, `endsWith`, `contains`, `matches` (an RE2 subset,
//! [`regex`]), `lowerAscii`, `upperAscii`, `trim`; quantities: `quantity`,
//! `isQuantity`, `compareTo`, `isGreaterThan`, `isLessThan`, `add`, `sub`,
//! `asInteger`, `isInteger`, `sign`, `asApproximateFloat`; semver: `semver`,
//! `isSemver` (both also with the normalising `bool`), `compareTo`, `isGreaterThan`,
//! `isLessThan`, `major`, `minor`, `patch`. Anything else that real CEL has is a
//! [`CelErrorKind::Unsupported`] error naming the construct and its column; what real
//! CEL refuses is refused with cel-go's message.
//!
//! # Layout
//!
//! - [`lexer`]: tokens with columns.
//! - [`ast`]: the tree, depth-bounded.
//! - [`parser`]: grammar and macros.
//! - [`checker`]: types against the DRA environment.
//! - [`interpreter`]: values and evaluation over one device.
//! - [`regex`], [`semver`]: what `matches()` and `semver()` need.
//! - [`error`]: compile errors and cel-go's `issues.String()` form.
//! - this file: `CompileCELExpression` and `DeviceMatches`.

pub mod ast;
pub mod checker;
pub mod error;
pub mod interpreter;
pub mod lexer;
pub mod parser;
pub mod regex;
pub mod semver;

use k8s_openapi::api::resource::v1::Device;

pub use error::{CelError, CelErrorKind};
use checker::Ty;
use interpreter::{Interpreter, Value};

/// A selector that compiled.
#[derive(Debug, Clone)]
pub struct Selector {
    pub expression: String,
    ast: ast::Expr,
}

/// Why a selector did not compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub error: CelError,
    /// What the API server puts in the field error: `compilation failed: ERROR:
    /// <input>:1:9: …` or `must evaluate to bool or the unknown type, not string`.
    /// For [`CelErrorKind::Unsupported`] the lab's own sentence.
    pub detail: String,
}

/// `CompileCELExpression`: parse, check, and require a `bool` (or `dyn`) result.
pub fn compile(expression: &str) -> Result<Selector, CompileError> {
    let fail = |error: CelError| {
        let detail = match error.kind {
            CelErrorKind::Unsupported => error.to_string(),
            _ => format!("compilation failed: {}", error.issues_string(expression)),
        };
        CompileError { error, detail }
    };
    let ast = parser::parse(expression).map_err(fail)?;
    let ty = checker::check(&ast, &mut Vec::new()).map_err(fail)?;
    if !matches!(ty, Ty::Bool | Ty::Dyn) {
        let detail = format!("must evaluate to bool or the unknown type, not {}", ty.name());
        return Err(CompileError { error: CelError::check(detail.clone(), 1), detail });
    }
    Ok(Selector { expression: expression.to_string(), ast })
}

impl Selector {
    /// `DeviceMatches`: the device of `driver` as the expression sees it, evaluated.
    /// The error is cel-go's run-time text (`no such key: productName`).
    pub fn matches(&self, driver: &str, device: &Device) -> Result<bool, String> {
        self.matches_input(&input(driver, device)?)
    }

    /// [`Self::matches`] on a device's input made beforehand ([`input`]: the
    /// allocator's slices make each device's once).
    pub fn matches_input(&self, input: &Value) -> Result<bool, String> {
        let mut it = Interpreter::new(input);
        match it.eval(&self.ast)? {
            Value::Bool(b) => Ok(b),
            other => Err(format!("CEL result of type {other:?} could not be converted to bool")),
        }
    }
}

/// `DeviceMatches`' input maps for a device of `driver`: qualified names split at
/// `/`, the driver's domain for names without one; the error is cel-go's, met when a
/// selector is evaluated on the device.
pub fn input(driver: &str, device: &Device) -> Result<Value, String> {
    fn put(domains: &mut Vec<(String, Value)>, domain: String, id: String, v: Value) {
        let pos = match domains.iter().position(|(d, _)| *d == domain) {
            Some(p) => p,
            None => {
                domains.push((domain, Value::Map(Vec::new())));
                domains.len() - 1
            }
        };
        if let Some((_, Value::Map(m))) = domains.get_mut(pos) {
            m.push((Value::Str(id), v));
        }
    }
    let split = |name: &str| match name.split_once('/') {
        Some((d, id)) => (d.to_string(), id.to_string()),
        None => (driver.to_string(), name.to_string()),
    };
    let mut attributes = Vec::new();
    for (name, a) in device.attributes.iter().flatten() {
        let v = if let Some(i) = a.int {
            Value::Int(i)
        } else if let Some(b) = a.bool {
            Value::Bool(b)
        } else if let Some(s) = &a.string {
            Value::Str(s.clone())
        } else if let Some(v) = &a.version {
            Value::Semver(semver::Semver::parse(v).map_err(|e| format!("attribute {name}: parse semantic version: {e}"))?)
        } else if let Some(l) = &a.ints {
            Value::List(l.iter().map(|i| Value::Int(*i)).collect())
        } else if let Some(l) = &a.bools {
            Value::List(l.iter().map(|b| Value::Bool(*b)).collect())
        } else if let Some(l) = &a.strings {
            Value::List(l.iter().map(|s| Value::Str(s.clone())).collect())
        } else {
            return Err(format!("attribute {name}: unsupported attribute value"));
        };
        let (d, id) = split(name);
        put(&mut attributes, d, id, v);
    }
    let mut capacity = Vec::new();
    for (name, c) in device.capacity.iter().flatten() {
        let q = crate::kubernetes::quantity::parse(&c.value).map_err(|e| format!("capacity {name}: {e}"))?;
        let (d, id) = split(name);
        put(&mut capacity, d, id, Value::Quantity(q));
    }
    Ok(Value::Map(vec![
        (Value::Str("driver".into()), Value::Str(driver.to_string())),
        (Value::Str("attributes".into()), Value::DomainMap(attributes)),
        (Value::Str("capacity".into()), Value::DomainMap(capacity)),
        (Value::Str("allowMultipleAllocations".into()), Value::Bool(device.allow_multiple_allocations.unwrap_or(false))),
    ]))
}
