//! Type checking (cel-go `checker`) against the DRA environment of
//! `dynamic-resource-allocation/cel/compile.go`: the one variable `device` of type
//! `kubernetes.DRADevice` with `driver` (string), `attributes`
//! (`map(string, map(string, dyn))`: attribute values are only known at run time),
//! `capacity` (`map(string, map(string, kubernetes.Quantity))`) and
//! `allowMultipleAllocations` (bool); Kubernetes' quantity and semver libraries; the
//! standard functions and the string extensions the subset has.
//!
//! The walk recurses once per tree level, which the parser bounds.

use super::ast::{BinOp, Expr, ExprKind};
use super::error::CelError;

/// A CEL type as cel-go prints it in overload errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Int,
    Uint,
    Double,
    String,
    Null,
    Dyn,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    Quantity,
    Semver,
    Device,
}

impl Ty {
    pub fn name(&self) -> String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::Int => "int".into(),
            Ty::Uint => "uint".into(),
            Ty::Double => "double".into(),
            Ty::String => "string".into(),
            Ty::Null => "null_type".into(),
            Ty::Dyn => "dyn".into(),
            Ty::List(t) => format!("list({})", t.name()),
            Ty::Map(k, v) => format!("map({}, {})", k.name(), v.name()),
            Ty::Quantity => "kubernetes.Quantity".into(),
            Ty::Semver => "kubernetes.Semver".into(),
            Ty::Device => "kubernetes.DRADevice".into(),
        }
    }

    fn is_dyn(&self) -> bool {
        *self == Ty::Dyn
    }

    fn numeric(&self) -> bool {
        matches!(self, Ty::Int | Ty::Uint | Ty::Double)
    }
}

fn map_of(k: Ty, v: Ty) -> Ty {
    Ty::Map(Box::new(k), Box::new(v))
}

/// The type of `device.<field>`, if the field exists.
pub fn device_field(field: &str) -> Option<Ty> {
    match field {
        "driver" => Some(Ty::String),
        "attributes" => Some(map_of(Ty::String, map_of(Ty::String, Ty::Dyn))),
        "capacity" => Some(map_of(Ty::String, map_of(Ty::String, Ty::Quantity))),
        "allowMultipleAllocations" => Some(Ty::Bool),
        _ => None,
    }
}

/// Functions Kubernetes' CEL environment has and the subset does not, so that using
/// one says "not in the subset" rather than cel-go's "undeclared reference".
const UPSTREAM_ONLY: [&str; 33] = [
    "charAt", "indexOf", "lastIndexOf", "replace", "split", "substring", "join", "format", "quote", "reverse",
    "timestamp", "duration", "getFullYear", "getMonth", "getHours", "bytes", "type", "dyn", "url", "isURL",
    "ip", "isIP", "cidr", "isCIDR", "optional", "orValue", "hasValue", "includes", "sets.contains",
    "sets.equivalent", "sets.intersects", "lists", "base64",
];

/// One pass over the tree; `scope` holds the names bound by `cel.bind` and the
/// comprehension macros.
pub fn check(e: &Expr, scope: &mut Vec<(String, Ty)>) -> Result<Ty, CelError> {
    let col = e.column;
    match &e.kind {
        ExprKind::Null => Ok(Ty::Null),
        ExprKind::Bool(_) => Ok(Ty::Bool),
        ExprKind::Int(_) => Ok(Ty::Int),
        ExprKind::Uint(_) => Ok(Ty::Uint),
        ExprKind::Double(_) => Ok(Ty::Double),
        ExprKind::Str(_) => Ok(Ty::String),
        ExprKind::Ident(name) => {
            if let Some((_, t)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Ok(t.clone());
            }
            if name == "device" {
                return Ok(Ty::Device);
            }
            Err(CelError::check(format!("undeclared reference to '{name}' (in container '')"), col))
        }
        ExprKind::Select { operand, field, test } => {
            let t = check(operand, scope)?;
            let ft = match &t {
                Ty::Device => device_field(field)
                    .ok_or_else(|| CelError::check(format!("undefined field '{field}'"), col))?,
                Ty::Map(k, v) if matches!(**k, Ty::String | Ty::Dyn) => (**v).clone(),
                Ty::Dyn => Ty::Dyn,
                other => {
                    return Err(CelError::check(
                        format!("type '{}' does not support field selection", other.name()),
                        col,
                    ))
                }
            };
            Ok(if *test { Ty::Bool } else { ft })
        }
        ExprKind::Index { operand, index } => {
            let t = check(operand, scope)?;
            let it = check(index, scope)?;
            match &t {
                Ty::Map(k, v) if assignable(k, &it) => Ok((**v).clone()),
                Ty::List(v) if matches!(it, Ty::Int | Ty::Uint | Ty::Dyn) => Ok((**v).clone()),
                Ty::Dyn => Ok(Ty::Dyn),
                other => Err(no_overload("_[_]", &[other.clone(), it], col)),
            }
        }
        ExprKind::List(items) => {
            let mut elem: Option<Ty> = None;
            for i in items {
                let t = check(i, scope)?;
                elem = Some(match elem {
                    None => t,
                    Some(prev) if prev == t => prev,
                    Some(_) => Ty::Dyn,
                });
            }
            Ok(Ty::List(Box::new(elem.unwrap_or(Ty::Dyn))))
        }
        ExprKind::Map(entries) => {
            let mut kt: Option<Ty> = None;
            let mut vt: Option<Ty> = None;
            for (k, v) in entries {
                let (a, b) = (check(k, scope)?, check(v, scope)?);
                kt = Some(join(kt, a));
                vt = Some(join(vt, b));
            }
            Ok(map_of(kt.unwrap_or(Ty::Dyn), vt.unwrap_or(Ty::Dyn)))
        }
        ExprKind::And(items) | ExprKind::Or(items) => {
            let f = if matches!(e.kind, ExprKind::And(_)) { "_&&_" } else { "_||_" };
            let mut prev: Option<Ty> = None;
            for i in items {
                let t = check(i, scope)?;
                if !matches!(t, Ty::Bool | Ty::Dyn) {
                    let left = prev.clone().unwrap_or(Ty::Bool);
                    return Err(no_overload(f, &[left, t], col));
                }
                prev = Some(t);
            }
            Ok(Ty::Bool)
        }
        ExprKind::Not(x) => {
            let t = check(x, scope)?;
            if matches!(t, Ty::Bool | Ty::Dyn) {
                Ok(Ty::Bool)
            } else {
                Err(no_overload("!_", &[t], col))
            }
        }
        ExprKind::Neg(x) => {
            let t = check(x, scope)?;
            match t {
                Ty::Int | Ty::Double | Ty::Dyn => Ok(t),
                other => Err(no_overload("-_", &[other], col)),
            }
        }
        ExprKind::Binary { op, left, right } => {
            let (l, r) = (check(left, scope)?, check(right, scope)?);
            binary(*op, l, r, col)
        }
        ExprKind::Cond { cond, then, otherwise } => {
            let c = check(cond, scope)?;
            if !matches!(c, Ty::Bool | Ty::Dyn) {
                return Err(no_overload("_?_:_", &[c], col));
            }
            let (a, b) = (check(then, scope)?, check(otherwise, scope)?);
            Ok(if a == b { a } else { Ty::Dyn })
        }
        ExprKind::Bind { var, init, body } => {
            let t = check(init, scope)?;
            scope.push((var.clone(), t));
            let r = check(body, scope);
            scope.pop();
            r
        }
        ExprKind::Comprehension { var, range, predicate, .. } => {
            let rt = check(range, scope)?;
            let elem = match &rt {
                Ty::List(t) => (**t).clone(),
                Ty::Map(k, _) => (**k).clone(),
                Ty::Dyn => Ty::Dyn,
                other => {
                    return Err(CelError::check(
                        format!("expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)", other.name()),
                        range.column,
                    ))
                }
            };
            scope.push((var.clone(), elem));
            let p = check(predicate, scope);
            scope.pop();
            let p = p?;
            if !matches!(p, Ty::Bool | Ty::Dyn) {
                return Err(no_overload("_&&_", &[Ty::Bool, p], predicate.column));
            }
            Ok(Ty::Bool)
        }
        ExprKind::Call { target, function, args } => {
            let tt = match target {
                Some(t) => Some(check(t, scope)?),
                None => None,
            };
            let mut ats = Vec::with_capacity(args.len());
            for a in args {
                ats.push(check(a, scope)?);
            }
            call(tt, function, &ats, col)
        }
    }
}

fn join(prev: Option<Ty>, t: Ty) -> Ty {
    match prev {
        None => t,
        Some(p) if p == t => p,
        Some(_) => Ty::Dyn,
    }
}

/// Whether a value of `b` may stand where `a` is expected.
fn assignable(a: &Ty, b: &Ty) -> bool {
    a.is_dyn() || b.is_dyn() || a == b
}

fn no_overload(function: &str, args: &[Ty], column: u32) -> CelError {
    let list: Vec<String> = args.iter().map(Ty::name).collect();
    CelError::check(format!("found no matching overload for '{function}' applied to '({})'", list.join(", ")), column)
}

fn binary(op: BinOp, l: Ty, r: Ty, col: u32) -> Result<Ty, CelError> {
    let any_dyn = l.is_dyn() || r.is_dyn();
    let err = || no_overload(op.function(), &[l.clone(), r.clone()], col);
    match op {
        BinOp::Eq | BinOp::Ne => {
            if any_dyn || l == r || (l == Ty::Null || r == Ty::Null) && !l.numeric() && !r.numeric() {
                Ok(Ty::Bool)
            } else {
                Err(err())
            }
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            // Kubernetes' environment has cross-type numeric comparisons.
            let ok = any_dyn
                || (l.numeric() && r.numeric())
                || (l == r && matches!(l, Ty::String | Ty::Bool));
            if ok {
                Ok(Ty::Bool)
            } else {
                Err(err())
            }
        }
        BinOp::In => match &r {
            Ty::List(t) if assignable(t, &l) => Ok(Ty::Bool),
            Ty::Map(k, _) if assignable(k, &l) => Ok(Ty::Bool),
            Ty::Dyn => Ok(Ty::Bool),
            _ => Err(err()),
        },
        BinOp::Add => match (&l, &r) {
            _ if any_dyn => Ok(Ty::Dyn),
            (Ty::List(a), Ty::List(b)) => Ok(Ty::List(Box::new(if a == b { (**a).clone() } else { Ty::Dyn }))),
            _ if l == r && matches!(l, Ty::Int | Ty::Uint | Ty::Double | Ty::String) => Ok(l.clone()),
            _ => Err(err()),
        },
        BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
            if any_dyn {
                Ok(Ty::Dyn)
            } else if l == r && (matches!(l, Ty::Int | Ty::Uint) || (l == Ty::Double && op != BinOp::Rem)) {
                Ok(l.clone())
            } else {
                Err(err())
            }
        }
    }
}

/// The result type of a method that is the same for every receiver that has it.
fn method_result(function: &str) -> Option<Ty> {
    Some(match function {
        "startsWith" | "endsWith" | "contains" | "matches" | "isGreaterThan" | "isLessThan" | "isInteger" => Ty::Bool,
        "lowerAscii" | "upperAscii" | "trim" => Ty::String,
        "compareTo" | "major" | "minor" | "patch" | "asInteger" | "sign" | "size" => Ty::Int,
        "asApproximateFloat" => Ty::Double,
        "add" | "sub" => Ty::Quantity,
        _ => return None,
    })
}

fn call(target: Option<Ty>, function: &str, args: &[Ty], col: u32) -> Result<Ty, CelError> {
    let sig = |recv: Option<&Ty>| -> String {
        let list: Vec<String> = args.iter().map(Ty::name).collect();
        match recv {
            Some(r) => format!("{}.({})", r.name(), list.join(", ")),
            None => format!("({})", list.join(", ")),
        }
    };
    let mismatch = |recv: Option<&Ty>| {
        CelError::check(format!("found no matching overload for '{function}' applied to '{}'", sig(recv)), col)
    };
    let a = |i: usize| args.get(i).cloned().unwrap_or(Ty::Null);
    let is = |i: usize, t: Ty| assignable(&t, &a(i));
    let Some(recv) = target else {
        return match (function, args.len()) {
            ("quantity" | "semver", 1) if is(0, Ty::String) => {
                Ok(if function == "quantity" { Ty::Quantity } else { Ty::Semver })
            }
            ("semver", 2) if is(0, Ty::String) && is(1, Ty::Bool) => Ok(Ty::Semver),
            ("isQuantity" | "isSemver", 1) if is(0, Ty::String) => Ok(Ty::Bool),
            ("isSemver", 2) if is(0, Ty::String) && is(1, Ty::Bool) => Ok(Ty::Bool),
            ("size", 1) if matches!(a(0), Ty::String | Ty::List(_) | Ty::Map(..) | Ty::Dyn) => Ok(Ty::Int),
            ("int", 1) if matches!(a(0), Ty::Int | Ty::Uint | Ty::Double | Ty::String | Ty::Dyn) => Ok(Ty::Int),
            ("double", 1) if matches!(a(0), Ty::Int | Ty::Uint | Ty::Double | Ty::String | Ty::Dyn) => Ok(Ty::Double),
            ("string", 1) if !matches!(a(0), Ty::List(_) | Ty::Map(..) | Ty::Device) => Ok(Ty::String),
            ("matches", 2) if is(0, Ty::String) && is(1, Ty::String) => Ok(Ty::Bool),
            ("quantity" | "semver" | "isQuantity" | "isSemver" | "size" | "int" | "double" | "string" | "matches", _) => {
                Err(mismatch(None))
            }
            (f, _) if UPSTREAM_ONLY.contains(&f) => Err(CelError::unsupported(format!("the function `{f}`"), col)),
            (f, _) => Err(CelError::check(format!("undeclared reference to '{f}' (in container '')"), col)),
        };
    };
    if recv.is_dyn() {
        return match method_result(function) {
            Some(t) => Ok(t),
            None if UPSTREAM_ONLY.contains(&function) => {
                Err(CelError::unsupported(format!("the method `{function}`"), col))
            }
            None => Err(CelError::check(format!("undeclared reference to '{function}' (in container '')"), col)),
        };
    }
    let ok = match (&recv, function, args.len()) {
        (Ty::String, "startsWith" | "endsWith" | "contains" | "matches", 1) => is(0, Ty::String),
        (Ty::String, "lowerAscii" | "upperAscii" | "trim" | "size", 0) => true,
        (Ty::List(_) | Ty::Map(..), "size", 0) => true,
        (Ty::Quantity, "compareTo" | "isGreaterThan" | "isLessThan", 1) => is(0, Ty::Quantity),
        (Ty::Quantity, "add" | "sub", 1) => is(0, Ty::Quantity) || is(0, Ty::Int),
        (Ty::Quantity, "asInteger" | "isInteger" | "sign" | "asApproximateFloat", 0) => true,
        (Ty::Semver, "compareTo" | "isGreaterThan" | "isLessThan", 1) => is(0, Ty::Semver),
        (Ty::Semver, "major" | "minor" | "patch", 0) => true,
        _ => false,
    };
    if ok {
        return method_result(function).ok_or_else(|| mismatch(Some(&recv)));
    }
    if method_result(function).is_some() {
        return Err(mismatch(Some(&recv)));
    }
    if UPSTREAM_ONLY.contains(&function) {
        return Err(CelError::unsupported(format!("the method `{function}`"), col));
    }
    Err(CelError::check(format!("undeclared reference to '{function}' (in container '')"), col))
}
