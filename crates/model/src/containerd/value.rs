//! The value tree every stage works on: a TOML document as Go's config decoders see
//! it (tables, arrays, scalars), where every node remembers the file and line it came
//! from, so the explanation can point at both sides of a collision.
//!
//! Tables keep insertion order; the encoders sort where containerd's encoders sort.
//! Equality ignores origins: two configs are equal when their values are.

use std::fmt;
use std::sync::Arc;

/// Where a node was written: file, 1-based line and column. Built-in defaults have none.
///
/// Every node of a file shares its one `file` string (cloning an origin, as the merge
/// and the explanation do for each key, copies no text).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    pub file: Arc<str>,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A TOML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Boolean(bool),
    /// Kept as written (containerd's configs never decode a datetime field).
    Datetime(String),
    Array(Vec<Node>),
    Table(Table),
}

/// A value with the place it was written.
#[derive(Debug, Clone)]
pub struct Node {
    pub value: Value,
    pub origin: Option<Origin>,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

/// An ordered table. `header` is where its `[header]` line is, when it had one.
#[derive(Debug, Clone, Default)]
pub struct Table {
    pub entries: Vec<(String, Node)>,
}

impl PartialEq for Table {
    /// Tables are maps: equal when they hold the same keys with equal values, in any order.
    fn eq(&self, other: &Self) -> bool {
        self.entries.len() == other.entries.len()
            && self.entries.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl Node {
    pub fn new(value: Value, origin: Option<Origin>) -> Self {
        Node { value, origin }
    }

    pub fn builtin(value: Value) -> Self {
        Node { value, origin: None }
    }

    pub fn as_table(&self) -> Option<&Table> {
        match &self.value {
            Value::Table(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_table_mut(&mut self) -> Option<&mut Table> {
        match &mut self.value {
            Value::Table(t) => Some(t),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match &self.value {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    pub fn is_table(&self) -> bool {
        matches!(self.value, Value::Table(_))
    }

    /// An array whose elements are all tables, printed as `[[header]]`.
    pub fn is_array_of_tables(&self) -> bool {
        match &self.value {
            Value::Array(items) => !items.is_empty() && items.iter().all(Node::is_table),
            _ => false,
        }
    }

    /// Go's zero value test as mergo's `WithOverride` applies it: `""`, `0`, `false`,
    /// an empty array or table.
    pub fn is_zero(&self) -> bool {
        match &self.value {
            Value::String(s) => s.is_empty(),
            Value::Integer(i) => *i == 0,
            Value::Float(f) => *f == 0.0,
            Value::Boolean(b) => !*b,
            Value::Datetime(_) => false,
            Value::Array(a) => a.is_empty(),
            Value::Table(t) => t.entries.is_empty(),
        }
    }

    /// The same shape with every leaf set to its zero value (a Go zero struct).
    pub fn zeroed(&self) -> Node {
        let value = match &self.value {
            Value::String(_) => Value::String(String::new()),
            Value::Integer(_) => Value::Integer(0),
            Value::Float(_) => Value::Float(0.0),
            Value::Boolean(_) => Value::Boolean(false),
            Value::Datetime(_) => Value::String(String::new()),
            Value::Array(_) => Value::Array(Vec::new()),
            Value::Table(t) => Value::Table(Table {
                entries: t.entries.iter().map(|(k, v)| (k.clone(), v.zeroed())).collect(),
            }),
        };
        Node::builtin(value)
    }

    /// Sets `origin` on this node and every node below it.
    pub fn set_origin_deep(&mut self, origin: &Option<Origin>) {
        self.origin = origin.clone();
        match &mut self.value {
            Value::Array(items) => items.iter_mut().for_each(|n| n.set_origin_deep(origin)),
            Value::Table(t) => t.entries.iter_mut().for_each(|(_, n)| n.set_origin_deep(origin)),
            _ => {}
        }
    }

    /// The Go type name go-toml uses in conversion errors.
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            Value::String(_) => "string",
            Value::Integer(_) => "int64",
            Value::Float(_) => "float64",
            Value::Boolean(_) => "bool",
            Value::Datetime(_) => "time.Time",
            Value::Array(_) => "[]interface {}",
            Value::Table(_) => "map[string]interface {}",
        }
    }
}

impl Table {
    pub fn new() -> Self {
        Table::default()
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`, in place when it exists (keeping its position), else at the end.
    pub fn insert(&mut self, key: impl Into<String>, node: Node) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => *slot = node,
            None => self.entries.push((key, node)),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let pos = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(pos).1)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// The table at `path` below this one.
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        let (first, rest) = path.split_first()?;
        let node = self.get(first)?;
        if rest.is_empty() {
            Some(node)
        } else {
            node.as_table()?.get_path(rest)
        }
    }

    pub fn get_table(&self, key: &str) -> Option<&Table> {
        self.get(key).and_then(Node::as_table)
    }

    /// The table under `key`, created empty (with `origin`) when missing or not a
    /// table. `None` cannot happen; it keeps the crate free of panics.
    pub fn table_mut(&mut self, key: &str, origin: Option<Origin>) -> Option<&mut Table> {
        if !self.get(key).is_some_and(Node::is_table) {
            self.insert(key, Node::new(Value::Table(Table::new()), origin));
        }
        self.entries.iter_mut().find(|(k, _)| k == key).and_then(|(_, n)| n.as_table_mut())
    }
}
