//! Evaluation (cel-go `interpreter`) of a checked expression over one device.
//! `&&`, `||` and the `all`/`exists` macros are commutative as in CEL: a `false`
//! (`true`) operand wins over an error in another. A missing attribute domain is an
//! empty map (`compile.go`'s `mapper`); a missing attribute is cel-go's
//! `no such key: <name>`. Evaluation is bounded by cel-go's runtime cost limit
//! (Kubernetes sets 1,000,000 for DRA), counted here as one unit per node visited.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::ast::{BinOp, Expr, ExprKind, Quantifier};
use super::regex::Regex;
use super::semver::Semver;
use crate::kubernetes::Quantity;

/// `resourceapi.CELSelectorExpressionMaxCost`.
pub const COST_LIMIT: u64 = 1_000_000;

/// A CEL value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    Str(String),
    List(Vec<Value>),
    Map(Vec<(Value, Value)>),
    /// `device.attributes` / `device.capacity`: an unknown domain is an empty map.
    DomainMap(Vec<(String, Value)>),
    Quantity(Quantity),
    Semver(Semver),
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null_type",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint",
            Value::Double(_) => "double",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Map(_) | Value::DomainMap(_) => "map",
            Value::Quantity(_) => "kubernetes.Quantity",
            Value::Semver(_) => "kubernetes.Semver",
        }
    }
}

/// A run-time error, cel-go's text.
pub type EvalError = String;

fn no_such_overload() -> EvalError {
    "no such overload".into()
}

/// The interpreter's state for one evaluation.
pub struct Interpreter<'a> {
    pub device: &'a Value,
    pub cost: u64,
    pub scope: Vec<(String, Value)>,
}

impl<'a> Interpreter<'a> {
    pub fn new(device: &'a Value) -> Self {
        Interpreter { device, cost: 0, scope: Vec::new() }
    }

    pub fn eval(&mut self, e: &Expr) -> Result<Value, EvalError> {
        self.cost += 1;
        if self.cost > COST_LIMIT {
            return Err("operation cancelled: actual cost limit exceeded".into());
        }
        match &e.kind {
            ExprKind::Null => Ok(Value::Null),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Int(i) => Ok(Value::Int(*i)),
            ExprKind::Uint(u) => Ok(Value::Uint(*u)),
            ExprKind::Double(d) => Ok(Value::Double(*d)),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Ident(name) => match self.scope.iter().rev().find(|(n, _)| n == name) {
                Some((_, v)) => Ok(v.clone()),
                None if name == "device" => Ok(self.device.clone()),
                None => Err(format!("no such attribute: {name}")),
            },
            ExprKind::Select { .. } | ExprKind::Index { .. } => self.path(e).map(Cow::into_owned),
            ExprKind::List(items) => Ok(Value::List(items.iter().map(|i| self.eval(i)).collect::<Result<_, _>>()?)),
            ExprKind::Map(entries) => {
                let mut out = Vec::new();
                for (k, v) in entries {
                    out.push((self.eval(k)?, self.eval(v)?));
                }
                Ok(Value::Map(out))
            }
            ExprKind::And(items) | ExprKind::Or(items) => {
                let and = matches!(e.kind, ExprKind::And(_));
                let mut first_err = None;
                for i in items {
                    match self.eval(i) {
                        Ok(Value::Bool(b)) if b != and => return Ok(Value::Bool(b)),
                        Ok(Value::Bool(_)) => {}
                        Ok(_) => first_err = first_err.or(Some(no_such_overload())),
                        Err(err) => first_err = first_err.or(Some(err)),
                    }
                }
                first_err.map_or(Ok(Value::Bool(and)), Err)
            }
            ExprKind::Not(x) => match self.eval(x)? {
                Value::Bool(b) => Ok(Value::Bool(!b)),
                _ => Err(no_such_overload()),
            },
            ExprKind::Neg(x) => match self.eval(x)? {
                Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(|| "integer overflow".to_string()),
                Value::Double(d) => Ok(Value::Double(-d)),
                _ => Err(no_such_overload()),
            },
            ExprKind::Binary { op, left, right } => {
                let l = self.eval(left)?;
                let r = self.eval(right)?;
                binary(*op, &l, &r)
            }
            ExprKind::Cond { cond, then, otherwise } => match self.eval(cond)? {
                Value::Bool(true) => self.eval(then),
                Value::Bool(false) => self.eval(otherwise),
                _ => Err(no_such_overload()),
            },
            ExprKind::Bind { var, init, body } => {
                let v = self.eval(init)?;
                self.scope.push((var.clone(), v));
                let r = self.eval(body);
                self.scope.pop();
                r
            }
            ExprKind::Comprehension { quantifier, var, range, predicate } => {
                let items: Vec<Value> = match self.eval(range)? {
                    Value::List(items) => items,
                    Value::Map(entries) => entries.into_iter().map(|(k, _)| k).collect(),
                    Value::DomainMap(entries) => entries.into_iter().map(|(k, _)| Value::Str(k)).collect(),
                    _ => return Err(no_such_overload()),
                };
                let mut count = 0u64;
                let mut first_err = None;
                for item in items {
                    self.scope.push((var.clone(), item));
                    let r = self.eval(predicate);
                    self.scope.pop();
                    match (quantifier, r) {
                        (Quantifier::All, Ok(Value::Bool(false))) => return Ok(Value::Bool(false)),
                        (Quantifier::Exists, Ok(Value::Bool(true))) => return Ok(Value::Bool(true)),
                        (Quantifier::ExistsOne, Ok(Value::Bool(true))) => count += 1,
                        (_, Ok(Value::Bool(_))) => {}
                        (Quantifier::ExistsOne, Ok(_)) => return Err(no_such_overload()),
                        (Quantifier::ExistsOne, Err(err)) => return Err(err),
                        (_, Ok(_)) => first_err = first_err.or(Some(no_such_overload())),
                        (_, Err(err)) => first_err = first_err.or(Some(err)),
                    }
                }
                if let Some(err) = first_err {
                    return Err(err);
                }
                Ok(Value::Bool(match quantifier {
                    Quantifier::All => true,
                    Quantifier::Exists => false,
                    Quantifier::ExistsOne => count == 1,
                }))
            }
            ExprKind::Call { target, function, args } => {
                let recv = match target {
                    Some(t) => Some(self.eval(t)?),
                    None => None,
                };
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(a)?);
                }
                call(recv, function, &vals)
            }
        }
    }
}

fn display_key(v: &Value) -> String {
    match v {
        Value::Str(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.type_name().to_string(),
    }
}

/// A map entry (`None`: no such key); field selection on anything else is an error.
impl<'a> Interpreter<'a> {
    /// [`Self::eval`], borrowing what a path from `device` names (`device`,
    /// `device.attributes["domain"]`, …) instead of copying the device's maps at every
    /// step; anything else is evaluated as by `eval`. The same cost and errors.
    fn eval_ref(&mut self, e: &Expr) -> Result<Cow<'a, Value>, EvalError> {
        match &e.kind {
            ExprKind::Ident(name) if name == "device" && !self.scope.iter().any(|(n, _)| n == name) => {
                self.tick()?;
                Ok(Cow::Borrowed(self.device))
            }
            ExprKind::Select { .. } | ExprKind::Index { .. } => {
                self.tick()?;
                self.path(e)
            }
            _ => self.eval(e).map(Cow::Owned),
        }
    }

    /// One node of the cost; the limit's error past it.
    fn tick(&mut self) -> Result<(), EvalError> {
        self.cost += 1;
        if self.cost > COST_LIMIT {
            return Err("operation cancelled: actual cost limit exceeded".into());
        }
        Ok(())
    }

    /// `Select` and `Index` (the caller counted the node).
    fn path(&mut self, e: &Expr) -> Result<Cow<'a, Value>, EvalError> {
        match &e.kind {
            ExprKind::Select { operand, field, test } => {
                let v = self.eval_ref(operand)?;
                let key = Value::Str(field.clone());
                match (within(v, |v| lookup_ref(v, &key))?, test) {
                    (Some(_), true) => Ok(Cow::Owned(Value::Bool(true))),
                    (None, true) => Ok(Cow::Owned(Value::Bool(false))),
                    (Some(x), false) => Ok(x),
                    (None, false) => Err(format!("no such key: {field}")),
                }
            }
            ExprKind::Index { operand, index } => {
                let v = self.eval_ref(operand)?;
                let i = self.eval(index)?;
                let found = within(v, |v| {
                    if let Value::List(items) = v {
                        let n = match i {
                            Value::Int(n) => n,
                            Value::Uint(n) => i64::try_from(n).unwrap_or(i64::MAX),
                            Value::Double(d) if d.fract() == 0.0 => d as i64,
                            _ => return Err(no_such_overload()),
                        };
                        return usize::try_from(n)
                            .ok()
                            .and_then(|k| items.get(k))
                            .map(|x| Some(Cow::Borrowed(x)))
                            .ok_or_else(|| format!("index out of bounds: {n}"));
                    }
                    lookup_ref(v, &i)
                })?;
                found.ok_or_else(|| format!("no such key: {}", display_key(&i)))
            }
            _ => Err(no_such_overload()),
        }
    }
}

/// `f` on a borrowed or owned value, its borrowed answer kept as long as the value's
/// borrow (copied out of an owned one).
fn within<'a, F>(v: Cow<'a, Value>, f: F) -> Result<Option<Cow<'a, Value>>, EvalError>
where
    F: for<'v> FnOnce(&'v Value) -> Result<Option<Cow<'v, Value>>, EvalError>,
{
    match v {
        Cow::Borrowed(b) => f(b),
        Cow::Owned(o) => Ok(f(&o)?.map(|c| Cow::Owned(c.into_owned()))),
    }
}

/// A map's entry for `key` (borrowed); a `device.attributes` / `device.capacity`
/// domain that is not there is an empty map.
fn lookup_ref<'v>(v: &'v Value, key: &Value) -> Result<Option<Cow<'v, Value>>, EvalError> {
    match v {
        Value::Map(entries) => Ok(entries.iter().find(|(k, _)| equals(k, key)).map(|(_, v)| Cow::Borrowed(v))),
        Value::DomainMap(entries) => {
            let Value::Str(k) = key else { return Ok(Some(Cow::Owned(Value::Map(Vec::new())))) };
            Ok(Some(entries.iter().find(|(d, _)| d == k).map_or(Cow::Owned(Value::Map(Vec::new())), |(_, v)| Cow::Borrowed(v))))
        }
        _ => Err(no_such_overload()),
    }
}

/// CEL's heterogeneous equality: numbers by value across types, otherwise
/// different types are unequal.
pub fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equals(p, q)),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.iter().any(|(k2, v2)| equals(k, k2) && equals(v, v2)))
        }
        _ => match numeric_cmp(a, b) {
            Some(o) => o == Ordering::Equal,
            None => a == b,
        },
    }
}

fn numeric_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    let wide = |v: &Value| -> Option<i128> {
        match v {
            Value::Int(i) => Some(i128::from(*i)),
            Value::Uint(u) => Some(i128::from(*u)),
            _ => None,
        }
    };
    if let (Some(x), Some(y)) = (wide(a), wide(b)) {
        return Some(x.cmp(&y));
    }
    let float = |v: &Value| -> Option<f64> {
        match v {
            Value::Int(i) => Some(*i as f64),
            Value::Uint(u) => Some(*u as f64),
            Value::Double(d) => Some(*d),
            _ => None,
        }
    };
    match (float(a), float(b)) {
        (Some(x), Some(y)) => x.partial_cmp(&y),
        _ => None,
    }
}

fn compare(a: &Value, b: &Value) -> Result<Ordering, EvalError> {
    if let Some(o) = numeric_cmp(a, b) {
        return Ok(o);
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        (Value::Bool(x), Value::Bool(y)) => Ok(x.cmp(y)),
        _ => Err(no_such_overload()),
    }
}

fn binary(op: BinOp, l: &Value, r: &Value) -> Result<Value, EvalError> {
    let ov = || "integer overflow".to_string();
    Ok(match op {
        BinOp::Eq => Value::Bool(equals(l, r)),
        BinOp::Ne => Value::Bool(!equals(l, r)),
        BinOp::Lt => Value::Bool(compare(l, r)? == Ordering::Less),
        BinOp::Le => Value::Bool(compare(l, r)? != Ordering::Greater),
        BinOp::Gt => Value::Bool(compare(l, r)? == Ordering::Greater),
        BinOp::Ge => Value::Bool(compare(l, r)? != Ordering::Less),
        BinOp::In => match r {
            Value::List(items) => Value::Bool(items.iter().any(|i| equals(i, l))),
            Value::Map(_) | Value::DomainMap(_) => match r {
                Value::Map(entries) => Value::Bool(entries.iter().any(|(k, _)| equals(k, l))),
                Value::DomainMap(entries) => Value::Bool(matches!(l, Value::Str(s) if entries.iter().any(|(d, _)| d == s))),
                _ => Value::Bool(false),
            },
            _ => return Err(no_such_overload()),
        },
        BinOp::Add => match (l, r) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_add(*b).ok_or_else(ov)?),
            (Value::Uint(a), Value::Uint(b)) => Value::Uint(a.checked_add(*b).ok_or_else(ov)?),
            (Value::Double(a), Value::Double(b)) => Value::Double(a + b),
            (Value::Str(a), Value::Str(b)) => Value::Str(format!("{a}{b}")),
            (Value::List(a), Value::List(b)) => Value::List(a.iter().chain(b).cloned().collect()),
            _ => return Err(no_such_overload()),
        },
        BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => match (l, r) {
            (Value::Int(a), Value::Int(b)) => Value::Int(int_arith(op, *a, *b)?),
            (Value::Uint(a), Value::Uint(b)) => Value::Uint(uint_arith(op, *a, *b)?),
            (Value::Double(a), Value::Double(b)) if op != BinOp::Rem => Value::Double(match op {
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                _ => a / b,
            }),
            _ => return Err(no_such_overload()),
        },
    })
}

fn int_arith(op: BinOp, a: i64, b: i64) -> Result<i64, EvalError> {
    match op {
        BinOp::Sub => a.checked_sub(b).ok_or_else(|| "integer overflow".into()),
        BinOp::Mul => a.checked_mul(b).ok_or_else(|| "integer overflow".into()),
        BinOp::Div if b == 0 => Err("division by zero".into()),
        BinOp::Rem if b == 0 => Err("modulus by zero".into()),
        BinOp::Div => a.checked_div(b).ok_or_else(|| "integer overflow".into()),
        _ => a.checked_rem(b).ok_or_else(|| "integer overflow".into()),
    }
}

fn uint_arith(op: BinOp, a: u64, b: u64) -> Result<u64, EvalError> {
    match op {
        BinOp::Sub => a.checked_sub(b).ok_or_else(|| "integer overflow".into()),
        BinOp::Mul => a.checked_mul(b).ok_or_else(|| "integer overflow".into()),
        BinOp::Div if b == 0 => Err("division by zero".into()),
        BinOp::Rem if b == 0 => Err("modulus by zero".into()),
        BinOp::Div => Ok(a / b),
        _ => Ok(a % b),
    }
}

fn ordering_int(o: Ordering) -> Value {
    Value::Int(match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

fn parse_quantity(s: &str) -> Result<Quantity, EvalError> {
    Quantity::parse(s).map_err(|e| e.to_string())
}

fn call(recv: Option<Value>, function: &str, args: &[Value]) -> Result<Value, EvalError> {
    let arg = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let Some(recv) = recv else {
        return match (function, arg(0), arg(1)) {
            ("quantity", Value::Str(s), _) => parse_quantity(s).map(Value::Quantity),
            ("isQuantity", Value::Str(s), _) => Ok(Value::Bool(Quantity::parse(s).is_ok())),
            ("semver", Value::Str(s), _) if args.len() == 1 => Semver::parse(s).map(Value::Semver),
            ("semver", Value::Str(s), Value::Bool(normalize)) => Semver::parse(&normalise(s, *normalize)).map(Value::Semver),
            ("isSemver", Value::Str(s), _) if args.len() == 1 => Ok(Value::Bool(Semver::parse(s).is_ok())),
            ("isSemver", Value::Str(s), Value::Bool(n)) => Ok(Value::Bool(Semver::parse(&normalise(s, *n)).is_ok())),
            ("size", v, _) => size(v),
            ("matches", Value::Str(s), Value::Str(p)) => Ok(Value::Bool(Regex::new(p)?.is_match(s))),
            ("int", v, _) => match v {
                Value::Int(i) => Ok(Value::Int(*i)),
                Value::Uint(u) => i64::try_from(*u).map(Value::Int).map_err(|_| "range error converting uint to int".into()),
                Value::Double(d) if d.is_finite() && d.abs() < 9.2e18 => Ok(Value::Int(d.trunc() as i64)),
                Value::Str(s) => s.parse().map(Value::Int).map_err(|_| format!("cannot convert '{s}' to int")),
                _ => Err(no_such_overload()),
            },
            ("double", v, _) => match v {
                Value::Int(i) => Ok(Value::Double(*i as f64)),
                Value::Uint(u) => Ok(Value::Double(*u as f64)),
                Value::Double(d) => Ok(Value::Double(*d)),
                Value::Str(s) => s.parse().map(Value::Double).map_err(|_| format!("cannot convert '{s}' to double")),
                _ => Err(no_such_overload()),
            },
            ("string", v, _) => match v {
                Value::Str(s) => Ok(Value::Str(s.clone())),
                Value::Int(i) => Ok(Value::Str(i.to_string())),
                Value::Uint(u) => Ok(Value::Str(u.to_string())),
                Value::Double(d) => Ok(Value::Str(d.to_string())),
                Value::Bool(b) => Ok(Value::Str(b.to_string())),
                _ => Err(no_such_overload()),
            },
            _ => Err(no_such_overload()),
        };
    };
    match (&recv, function, arg(0)) {
        (Value::Str(s), "startsWith", Value::Str(p)) => Ok(Value::Bool(s.starts_with(p.as_str()))),
        (Value::Str(s), "endsWith", Value::Str(p)) => Ok(Value::Bool(s.ends_with(p.as_str()))),
        (Value::Str(s), "contains", Value::Str(p)) => Ok(Value::Bool(s.contains(p.as_str()))),
        (Value::Str(s), "matches", Value::Str(p)) => Ok(Value::Bool(Regex::new(p)?.is_match(s))),
        (Value::Str(s), "lowerAscii", _) => Ok(Value::Str(s.to_ascii_lowercase())),
        (Value::Str(s), "upperAscii", _) => Ok(Value::Str(s.to_ascii_uppercase())),
        (Value::Str(s), "trim", _) => Ok(Value::Str(s.trim().to_string())),
        (v, "size", _) => size(v),
        (Value::Quantity(a), "compareTo", Value::Quantity(b)) => Ok(ordering_int(a.cmp(b))),
        (Value::Quantity(a), "isGreaterThan", Value::Quantity(b)) => Ok(Value::Bool(a > b)),
        (Value::Quantity(a), "isLessThan", Value::Quantity(b)) => Ok(Value::Bool(a < b)),
        (Value::Quantity(a), "add", Value::Quantity(b)) => Ok(Value::Quantity(a.add(b))),
        (Value::Quantity(a), "add", Value::Int(b)) => Ok(Value::Quantity(a.add(&Quantity::from_i64(*b)))),
        (Value::Quantity(a), "sub", Value::Quantity(b)) => Ok(Value::Quantity(a.add(&negate(b)))),
        (Value::Quantity(a), "sub", Value::Int(b)) => {
            Ok(Value::Quantity(a.add(&Quantity::from_i64(b.checked_neg().ok_or("integer overflow")?))))
        }
        (Value::Quantity(a), "isInteger", _) => Ok(Value::Bool(Quantity::from_milli(a.milli_value()) == *a && a.milli_value() % 1000 == 0)),
        (Value::Quantity(a), "asInteger", _) => {
            if a.milli_value() % 1000 == 0 {
                Ok(Value::Int(a.value()))
            } else {
                Err("cannot convert value to integer".into())
            }
        }
        (Value::Quantity(a), "sign", _) => Ok(Value::Int(if a.is_zero() { 0 } else if a.is_negative() { -1 } else { 1 })),
        (Value::Quantity(a), "asApproximateFloat", _) => Ok(Value::Double(a.milli_value() as f64 / 1000.0)),
        (Value::Semver(a), "compareTo", Value::Semver(b)) => Ok(ordering_int(a.compare(b))),
        (Value::Semver(a), "isGreaterThan", Value::Semver(b)) => Ok(Value::Bool(a.compare(b) == Ordering::Greater)),
        (Value::Semver(a), "isLessThan", Value::Semver(b)) => Ok(Value::Bool(a.compare(b) == Ordering::Less)),
        (Value::Semver(a), "major", _) => Ok(Value::Int(i64::try_from(a.major).unwrap_or(i64::MAX))),
        (Value::Semver(a), "minor", _) => Ok(Value::Int(i64::try_from(a.minor).unwrap_or(i64::MAX))),
        (Value::Semver(a), "patch", _) => Ok(Value::Int(i64::try_from(a.patch).unwrap_or(i64::MAX))),
        _ => Err(no_such_overload()),
    }
}

fn negate(q: &Quantity) -> Quantity {
    Quantity::from_milli(q.milli_value().saturating_neg())
}

/// `semver(s, true)`: a missing minor or patch is added, a leading `v` dropped.
fn normalise(s: &str, normalize: bool) -> String {
    if !normalize {
        return s.to_string();
    }
    let s = s.strip_prefix('v').unwrap_or(s);
    let (core, rest) = match s.find(['-', '+']) {
        Some(i) => s.split_at(i),
        None => (s, ""),
    };
    let mut parts: Vec<String> =
        core.split('.').map(|p| p.trim_start_matches('0').to_string()).map(|p| if p.is_empty() { "0".into() } else { p }).collect();
    while parts.len() < 3 {
        parts.push("0".into());
    }
    format!("{}{rest}", parts.join("."))
}

fn size(v: &Value) -> Result<Value, EvalError> {
    let n = match v {
        Value::Str(s) => s.chars().count(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        Value::DomainMap(m) => m.len(),
        _ => return Err(no_such_overload()),
    };
    Ok(Value::Int(i64::try_from(n).unwrap_or(i64::MAX)))
}
