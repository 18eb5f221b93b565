//! A fast reader for the plain block YAML that `kubectl get -o yaml` and the lab's
//! generators write: block mappings and sequences (compact ones too), one-line flow
//! collections, plain, single- and double-quoted one-line scalars, comments.
//!
//! serde_norway (libyaml's parser, then an event list, then serde) costs about 650
//! instructions per byte of YAML (`valgrind --tool=callgrind`, 5,000-node cluster);
//! this reader is a small fraction of that. It is only a fast path: anything outside
//! that subset, or that it cannot be sure serde_norway reads the same way (anchors,
//! tags, block scalars, multi-line scalars, tabs, duplicate keys, numbers other than
//! plain decimal integers, escapes other than the common ones), gives `None`, and so
//! does any deserialisation error — the caller then reads the text with serde_norway,
//! so values and diagnostics are serde_norway's. Where it answers, the answer is
//! serde_norway's: plain scalars resolve as serde_norway resolves them (null, bool,
//! integer, string), a scalar asked for as a string is its text.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};
use std::borrow::Cow;
use std::fmt;

/// `text` (one YAML document) as `T`, or `None` when the fast path does not apply.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    let node = parse(text)?;
    T::deserialize(&node).ok()
}

/// The documents of `text`, split at `---` lines as [`super::yaml`] splits them, each
/// as a `serde_json::Value` (`Null` for an empty one); `None` when one is outside the
/// fast path or the text has a marker this splitter does not know.
pub fn values(text: &str) -> Option<Vec<serde_json::Value>> {
    let mut out = Vec::new();
    let mut cur_start = 0usize;
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        if line.starts_with("---") {
            let rest = line.get(3..).unwrap_or("").trim_end_matches(['\n', '\r']);
            if !rest.trim().is_empty() {
                return None;
            }
            out.push(doc_value(text.get(cur_start..offset)?)?);
            cur_start = offset + line.len();
        }
        offset += line.len();
    }
    let last = text.get(cur_start..)?;
    if !out.is_empty() || !last.trim().is_empty() {
        out.push(doc_value(last)?);
    }
    Some(out)
}

fn doc_value(text: &str) -> Option<serde_json::Value> {
    if text.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
        return Some(serde_json::Value::Null);
    }
    from_str(text)
}

/// A parsed node. Keys are scalars.
#[derive(Debug)]
enum Node<'a> {
    Scalar { text: Cow<'a, str>, plain: bool },
    Seq(Vec<Node<'a>>),
    Map(Vec<(Node<'a>, Node<'a>)>),
}

const NULL: Node<'static> = Node::Scalar { text: Cow::Borrowed(""), plain: true };

/// One non-blank, non-comment line: its indentation and its text after it.
struct Line<'a> {
    indent: usize,
    content: &'a str,
}

fn parse(text: &str) -> Option<Node<'_>> {
    // Byte loops, not `str` searchers: this is the hot path (callgrind).
    if text.starts_with('\u{feff}') || text.bytes().any(|b| b == b'\t' || b == b'\r') {
        return None;
    }
    let mut lines = Vec::new();
    for raw in text.split('\n') {
        let content = raw.trim_start_matches(' ');
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = raw.len() - content.len();
        if indent == 0 && (content.starts_with("---") || content.starts_with("...") || content.starts_with('%')) {
            return None;
        }
        lines.push(Line { indent, content });
    }
    let first = lines.first()?;
    let (indent, content) = (first.indent, first.content);
    let mut p = Parser { lines, pos: 0, depth: 0 };
    let node = p.block(indent, content)?;
    (p.pos == p.lines.len()).then_some(node)
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    depth: usize,
}

fn is_dash(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<(usize, &'a str)> {
        self.lines.get(self.pos).map(|l| (l.indent, l.content))
    }

    /// A block collection whose first line's content `rest` starts at column `col`.
    fn block(&mut self, col: usize, rest: &'a str) -> Option<Node<'a>> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let node = if is_dash(rest) { self.seq(col, rest) } else { self.map(col, rest) };
        self.depth -= 1;
        node
    }

    /// The value of a key or dash with nothing after it on its line: the block on the
    /// lines below (deeper than `col`, or a compact sequence at `col` after a key).
    fn nested(&mut self, col: usize, after_key: bool) -> Option<Node<'a>> {
        match self.peek() {
            Some((indent, content)) if indent > col => self.block(indent, content),
            Some((indent, content)) if after_key && indent == col && is_dash(content) => self.block(col, content),
            _ => Some(NULL),
        }
    }

    /// After a one-line value: the next line must not be deeper (a continuation).
    fn no_continuation(&self, col: usize) -> Option<()> {
        match self.peek() {
            Some((indent, _)) if indent > col => None,
            _ => Some(()),
        }
    }

    fn seq(&mut self, col: usize, first: &'a str) -> Option<Node<'a>> {
        let mut items = Vec::new();
        let mut rest = first;
        loop {
            let after = rest.get(1..)?;
            let value = after.trim_start_matches(' ');
            let item = if value.is_empty() || value.starts_with('#') {
                self.pos += 1;
                self.nested(col, false)?
            } else {
                let item_col = col + 1 + (after.len() - value.len());
                if is_dash(value) || split_key(value).is_some() {
                    self.block(item_col, value)?
                } else {
                    let v = inline_value(value)?;
                    self.pos += 1;
                    self.no_continuation(col)?;
                    v
                }
            };
            items.push(item);
            match self.peek() {
                Some((indent, content)) if indent == col && is_dash(content) => rest = content,
                Some((indent, _)) if indent > col => return None,
                _ => return Some(Node::Seq(items)),
            }
        }
    }

    fn map(&mut self, col: usize, first: &'a str) -> Option<Node<'a>> {
        let mut entries: Vec<(Node<'a>, Node<'a>)> = Vec::new();
        let mut rest = first;
        loop {
            let (key, after) = split_key(rest)?;
            if entries.iter().any(|(k, _)| scalar_text(k) == scalar_text(&key)) {
                return None;
            }
            let value = after.trim_start_matches(' ');
            let value = if value.is_empty() || value.starts_with('#') {
                self.pos += 1;
                self.nested(col, true)?
            } else {
                let v = inline_value(value)?;
                self.pos += 1;
                self.no_continuation(col)?;
                v
            };
            entries.push((key, value));
            match self.peek() {
                Some((indent, content)) if indent == col && !is_dash(content) => rest = content,
                Some((indent, _)) if indent >= col => return None,
                _ => return Some(Node::Map(entries)),
            }
        }
    }
}

fn scalar_text<'n>(node: &'n Node<'_>) -> Option<&'n str> {
    match node {
        Node::Scalar { text, .. } => Some(text),
        _ => None,
    }
}

/// `key: rest` (plain or quoted key, `:` then a space or the end): the key and what
/// follows the colon; `None` when the line is not a simple key.
fn split_key(line: &str) -> Option<(Node<'_>, &str)> {
    if line.starts_with(['"', '\'']) {
        let (key, after) = quoted(line)?;
        let after = after.strip_prefix(':')?;
        return (after.is_empty() || after.starts_with(' ')).then_some((key, after));
    }
    let bytes = line.as_bytes();
    let colon = position(bytes, |b, next| b == b':' && matches!(next, None | Some(b' ')))?;
    let key = line.get(..colon)?;
    let after = line.get(colon + 1..)?;
    if !plain_ok(key, false) || key.ends_with(' ') {
        return None;
    }
    Some((Node::Scalar { text: Cow::Borrowed(key), plain: true }, after))
}

/// Whether `s` is a plain scalar this reader is sure of (no indicator first, no
/// comment or `: ` inside; in a flow collection, none of `,[]{}:`).
fn plain_ok(s: &str, flow: bool) -> bool {
    let bytes = s.as_bytes();
    let Some(&first) = bytes.first() else { return false };
    if b"[]{}#&*!|>'\"%@`,?:".contains(&first) || s.starts_with("- ") || s == "-" || s.ends_with(':') {
        return false;
    }
    position(bytes, |b, next| {
        (b == b':' && next == Some(b' '))
            || (b == b' ' && next == Some(b'#'))
            || (flow && matches!(b, b',' | b'[' | b']' | b'{' | b'}' | b':' | b'#'))
    })
    .is_none()
}

/// The first index `i` where `hit(bytes[i], bytes.get(i + 1))`.
fn position(bytes: &[u8], hit: impl Fn(u8, Option<u8>) -> bool) -> Option<usize> {
    let mut iter = bytes.iter().copied().enumerate().peekable();
    while let Some((i, b)) = iter.next() {
        if hit(b, iter.peek().map(|&(_, n)| n)) {
            return Some(i);
        }
    }
    None
}

/// The value after a key or dash on the same line, to the end of the line.
fn inline_value(s: &str) -> Option<Node<'_>> {
    let (node, rest) = match s.as_bytes().first()? {
        b'"' | b'\'' => quoted(s)?,
        b'{' | b'[' => flow(s, 0)?,
        _ => {
            let end = position(s.as_bytes(), |b, next| b == b' ' && next == Some(b'#')).unwrap_or(s.len());
            let text = s.get(..end)?.trim_end_matches(' ');
            if !plain_ok(text, false) {
                return None;
            }
            return Some(Node::Scalar { text: Cow::Borrowed(text), plain: true });
        }
    };
    let rest = rest.trim_start_matches(' ');
    (rest.is_empty() || rest.starts_with('#')).then_some(node)
}

/// A one-line quoted scalar at the start of `s`, and what follows it.
fn quoted(s: &str) -> Option<(Node<'_>, &str)> {
    let quote = s.chars().next()?;
    let body = s.get(1..)?;
    if quote == '\'' {
        let mut out = String::new();
        let mut rest = body;
        loop {
            let i = rest.find('\'')?;
            let (chunk, after) = (rest.get(..i)?, rest.get(i + 1..)?);
            if let Some(more) = after.strip_prefix('\'') {
                out.push_str(chunk);
                out.push('\'');
                rest = more;
            } else {
                let text = if out.is_empty() {
                    Cow::Borrowed(chunk)
                } else {
                    out.push_str(chunk);
                    Cow::Owned(out)
                };
                return Some((Node::Scalar { text, plain: false }, after));
            }
        }
    }
    let end = position(body.as_bytes(), |b, _| b == b'"' || b == b'\\')?;
    if body.as_bytes().get(end) == Some(&b'"') {
        return Some((Node::Scalar { text: Cow::Borrowed(body.get(..end)?), plain: false }, body.get(end + 1..)?));
    }
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((Node::Scalar { text: Cow::Owned(out), plain: false }, body.get(i + 1..)?)),
            '\\' => out.push(match chars.next()?.1 {
                '\\' => '\\',
                '"' => '"',
                '/' => '/',
                'n' => '\n',
                't' => '\t',
                _ => return None,
            }),
            c => out.push(c),
        }
    }
    None
}

/// A one-line flow collection or scalar at the start of `s`, and what follows it.
fn flow(s: &str, depth: usize) -> Option<(Node<'_>, &str)> {
    if depth > 32 {
        return None;
    }
    let s = s.trim_start_matches(' ');
    let (open, close) = match s.as_bytes().first()? {
        b'{' => (true, '}'),
        b'[' => (false, ']'),
        b'"' | b'\'' => return quoted(s),
        _ => {
            let end = position(s.as_bytes(), |b, _| matches!(b, b',' | b'}' | b']')).unwrap_or(s.len());
            let text = s.get(..end)?.trim_end_matches(' ');
            return plain_ok(text, true).then_some((Node::Scalar { text: Cow::Borrowed(text), plain: true }, s.get(end..)?));
        }
    };
    let mut rest = s.get(1..)?.trim_start_matches(' ');
    let (mut entries, mut items) = (Vec::new(), Vec::new());
    if let Some(after) = rest.strip_prefix(close) {
        return Some((if open { Node::Map(entries) } else { Node::Seq(items) }, after));
    }
    loop {
        if open {
            let (key, after) = flow_key(rest)?;
            if entries.iter().any(|(k, _): &(Node, Node)| scalar_text(k) == scalar_text(&key)) {
                return None;
            }
            let after = after.strip_prefix(':')?;
            if !after.starts_with(' ') {
                return None;
            }
            let (value, after) = flow(after, depth + 1)?;
            entries.push((key, value));
            rest = after;
        } else {
            let (value, after) = flow(rest, depth + 1)?;
            items.push(value);
            rest = after;
        }
        rest = rest.trim_start_matches(' ');
        if let Some(after) = rest.strip_prefix(close) {
            return Some((if open { Node::Map(entries) } else { Node::Seq(items) }, after));
        }
        rest = rest.strip_prefix(',')?.trim_start_matches(' ');
        if rest.starts_with([close, ',']) {
            return None;
        }
    }
}

fn flow_key(s: &str) -> Option<(Node<'_>, &str)> {
    if s.starts_with(['"', '\'']) {
        return quoted(s);
    }
    let end = position(s.as_bytes(), |b, _| b == b':')?;
    let text = s.get(..end)?;
    (plain_ok(text, true) && !text.ends_with(' ')).then_some((Node::Scalar { text: Cow::Borrowed(text), plain: true }, s.get(end..)?))
}

/// The fast path's only error: "not sure, ask serde_norway".
#[derive(Debug)]
pub struct NotHere;

impl fmt::Display for NotHere {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("outside the fast YAML path")
    }
}

impl std::error::Error for NotHere {}

impl de::Error for NotHere {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotHere
    }
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "null" | "Null" | "NULL" | "~")
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// A plain decimal integer with no sign but `-`, no leading zero and at most 18
/// digits: read alike by every integer rule serde_norway has.
fn plain_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let ok = !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !ok {
        return None;
    }
    text.parse().ok()
}

/// Whether serde_norway might read a plain scalar as a number other than a
/// [`plain_int`] (hex, octal, binary, a float, `.inf`, a leading zero, 19+ digits): such
/// scalars are left to it. Every integer or float it reads also parses as a Rust `f64`
/// or has one of those prefixes.
fn maybe_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    text.parse::<f64>().is_ok() || unsigned.starts_with(['.', '+', '-']) || unsigned.starts_with("0x") || unsigned.starts_with("0o") || unsigned.starts_with("0b")
}

struct Items<'n, 'a>(std::slice::Iter<'n, Node<'a>>);

impl<'de, 'n, 'a> de::SeqAccess<'de> for Items<'n, 'a> {
    type Error = NotHere;
    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, NotHere> {
        self.0.next().map(|n| seed.deserialize(n)).transpose()
    }
}

struct Entries<'n, 'a> {
    iter: std::slice::Iter<'n, (Node<'a>, Node<'a>)>,
    value: Option<&'n Node<'a>>,
}

impl<'de, 'n, 'a> de::MapAccess<'de> for Entries<'n, 'a> {
    type Error = NotHere;
    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, NotHere> {
        let Some((k, v)) = self.iter.next() else { return Ok(None) };
        self.value = Some(v);
        seed.deserialize(k).map(Some)
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, NotHere> {
        seed.deserialize(self.value.take().ok_or(NotHere)?)
    }
}

macro_rules! not_here {
    ($($name:ident)*) => {$(
        fn $name<V: Visitor<'de>>(self, _: V) -> Result<V::Value, NotHere> {
            Err(NotHere)
        }
    )*};
}

impl<'de, 'n, 'a> de::Deserializer<'de> for &'n Node<'a> {
    type Error = NotHere;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: false } => visitor.visit_str(text),
            Node::Scalar { text, plain: true } => {
                if is_null(text) {
                    return visitor.visit_unit();
                }
                if let Some(b) = parse_bool(text) {
                    return visitor.visit_bool(b);
                }
                if let Some(i) = plain_int(text) {
                    return if i < 0 { visitor.visit_i64(i) } else { visitor.visit_u64(i.unsigned_abs()) };
                }
                if maybe_number(text) {
                    return Err(NotHere);
                }
                visitor.visit_str(text)
            }
            Node::Seq(items) => visitor.visit_seq(Items(items.iter())),
            Node::Map(entries) => visitor.visit_map(Entries { iter: entries.iter(), value: None }),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: true } => visitor.visit_bool(parse_bool(text).ok_or(NotHere)?),
            _ => Err(NotHere),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: true } => visitor.visit_i64(plain_int(text).ok_or(NotHere)?),
            _ => Err(NotHere),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: true } if !text.starts_with('-') => {
                visitor.visit_u64(plain_int(text).ok_or(NotHere)?.unsigned_abs())
            }
            _ => Err(NotHere),
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_u64(visitor)
    }

    not_here!(deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes deserialize_byte_buf);

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, .. } => visitor.visit_str(text),
            _ => Err(NotHere),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: true } if is_null(text) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Scalar { text, plain: true } if is_null(text) => visitor.visit_unit(),
            _ => Err(NotHere),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, NotHere> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value, NotHere> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Seq(items) => visitor.visit_seq(Items(items.iter())),
            _ => Err(NotHere),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, NotHere> {
        Err(NotHere)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, _: V) -> Result<V::Value, NotHere> {
        Err(NotHere)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        match self {
            Node::Map(entries) => visitor.visit_map(Entries { iter: entries.iter(), value: None }),
            _ => Err(NotHere),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, NotHere> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, NotHere> {
        Err(NotHere)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, NotHere> {
        visitor.visit_unit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{Node as K8sNode, Pod};

    /// Documents as `kubectl get -o yaml` and scripts/gen-cluster.sh write them.
    const PLAIN: [&str; 4] = [
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-00001\n  labels:\n    kubernetes.io/hostname: gpu-node-00001\n    nvidia.com/gpu.present: \"true\"\nspec:\n  taints:\n  - key: nvidia.com/gpu\n    effect: NoSchedule\nstatus:\n  capacity: {cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"8\", pods: \"110\"}\n  allocatable: {cpu: \"63\", memory: 500Gi, nvidia.com/gpu: \"8\", pods: \"110\"}\n",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-00001-0\n  namespace: team-b\n  annotations:\n    note: 'it''s # not a comment'\n    esc: \"a\\\"b\\\\c\"\nspec:\n  nodeName: gpu-node-00001 # a comment\n  priority: -5\n  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule\n    tolerationSeconds: 300\n  containers:\n  -   name: cuda\n      image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n      args: [a, \"b c\", 'd']\n      ports:\n        - containerPort: 8080\n      resources:\n        requests: {cpu: \"4\", memory: 32Gi, nvidia.com/gpu: \"1\"}\n        limits: {nvidia.com/gpu: \"1\"}\nstatus:\n  phase: Running\n",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {}\nspec:\n  containers:\n  - name: c\n    env:\n    -\n      name: A\n      value: \"\"\n    - name: B\n      value:\n    command: []\n    stdin: true\n  nodeSelector:\n    x: ~\n",
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: nvidia-device-plugin\nspec:\n  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 10%\n",
    ];

    fn norway_value(text: &str) -> Option<serde_json::Value> {
        serde_norway::from_str(text).ok()
    }

    /// Where the fast path answers, serde_norway gives the same value and the same
    /// typed objects.
    fn agrees(text: &str) -> bool {
        let Some(fast) = from_str::<serde_json::Value>(text) else { return false };
        assert_eq!(Some(&fast), norway_value(text).as_ref(), "{text}");
        if let Some(n) = from_str::<K8sNode>(text) {
            assert_eq!(Some(n), serde_norway::from_str::<K8sNode>(text).ok(), "{text}");
        }
        if let Some(p) = from_str::<Pod>(text) {
            assert_eq!(Some(p), serde_norway::from_str::<Pod>(text).ok(), "{text}");
        }
        true
    }

    /// The fast path reads the plain documents (it is not vacuous) as serde_norway does.
    #[test]
    fn plain_documents_read_as_serde_norway_reads_them() {
        for text in PLAIN {
            assert!(agrees(text), "the fast path declined:\n{text}");
        }
        let pod: Pod = from_str(PLAIN[1]).expect("a pod");
        assert_eq!(pod.spec.and_then(|s| s.priority), Some(-5));
    }

    /// What it cannot be sure of, it declines (each of these is valid YAML that
    /// serde_norway reads, or an error it reports).
    #[test]
    fn declines_what_it_is_not_sure_of() {
        let cases = [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "a: |\n  text\n",
            "a: >-\n  text\n",
            "a: one\n  two\n",
            "a: \"one\n  two\"\n",
            "a: 0x10\n",
            "a: 1.5\n",
            "a: 007\n",
            "a: .inf\n",
            "a: 1\na: 2\n",
            "a:\tb\n",
            "? a\n: b\n",
            "a: {b: c\n",
            "a: \"\\u0041\"\n",
            "a: b: c\n",
            "a:\n  value\n",
            "- a\n  - b\n",
            "a: 1\n b: 2\n",
            "%YAML 1.2\n---\na: 1\n",
        ];
        for text in cases {
            assert_eq!(from_str::<serde_json::Value>(text), None, "{text}");
        }
    }

    /// Mutated documents: wherever the fast path answers, serde_norway agrees.
    #[test]
    fn mutated_documents_agree_with_serde_norway() {
        let snippets = [
            " ", "  ", "\n", "# ", ": ", "- ", "'", "\"", "{", "}", "[", "]", ",", "&a ", "*a", "!", "|", ">", "0x1", "1.5",
            "007", "~", "null", "True", "\\", "\n---\n", "? ", "-", ":", "\n  ", "\n- ", "12", "-3", "''", "\"\"", "#",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |k: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % k.max(1) as u64) as usize
        };
        let mut answered = 0;
        for base in PLAIN {
            for _ in 0..400 {
                let mut text = base.to_string();
                for _ in 0..1 + next(2) {
                    let at = (0..=text.len()).filter(|i| text.is_char_boundary(*i)).nth(next(text.len() + 1)).unwrap_or(0);
                    if next(4) == 0 {
                        let end = (at + 1 + next(6)).min(text.len());
                        if text.is_char_boundary(end) {
                            text.replace_range(at..end, "");
                        }
                    } else {
                        text.insert_str(at, snippets[next(snippets.len())]);
                    }
                }
                if agrees(&text) {
                    answered += 1;
                }
            }
        }
        assert!(answered > 200, "the fast path answered only {answered} mutated documents");
    }

    /// Documents split as `yaml::load` splits them; an empty one is `Null`.
    #[test]
    fn values_split_at_document_markers() {
        let text = format!("# generated\n---\n{}---\n{}", PLAIN[0], PLAIN[3]);
        let docs = values(&text).expect("plain documents");
        let kinds: Vec<_> = docs.iter().map(|v| v.get("kind").and_then(|k| k.as_str())).collect();
        assert_eq!(kinds, [None, Some("Node"), Some("DaemonSet")]);
        assert_eq!(values(&format!("--- !tag\n{}", PLAIN[0])), None);
    }
}
