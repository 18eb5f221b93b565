//! Block-style YAML as `kubectl get -o yaml` and the lab's own files write it, read
//! without libyaml: the same values as `serde_norway::from_str`, several times cheaper
//! per byte (issue 19: serde_norway's libyaml port was ≈ 760 instructions a byte, most
//! of `gpulab schedule` on 5,000 nodes).
//!
//! It is a fast path, never a second opinion. [`events`] accepts only a narrow shape —
//! ASCII text without tabs or carriage returns; one document whose top level is a block
//! mapping at column 0; block mappings with plain keys; block sequences (`- `, also at
//! their key's column); one-line plain, single- or double-quoted scalars (no escapes);
//! one-line flow collections of such scalars (`{cpu: "64", memory: 512Gi}`, as
//! `scripts/gen-cluster.sh` writes); comments and blank lines — and turns it into the
//! events libyaml's parser gives for that text. Anything else (multi-line flow
//! collections, block scalars `|`/`>`, anchors, aliases, tags, escapes, multi-line
//! scalars, directives, anything it does not recognise) is `None`.
//!
//! [`to_value`] builds a `serde_json::Value` from those events, each plain scalar
//! resolved as serde_norway resolves it untyped (its `visit_untagged_scalar`: null,
//! bool, integer, float, else the text; the resolution functions are copied from
//! serde_norway's `de.rs`, MIT OR Apache-2.0). [`from_str`] types that value with
//! `serde_json::from_value` — the monomorphs the JSON dump's reading already links, so
//! the wasm chunk pays only for the line reader and the value builder. A typed reader
//! can see a scalar otherwise than the untyped value does, and serde_json's value is
//! laxer than serde_norway in a few places, so the value is refused (`None`) wherever
//! the two could differ, and any typing error is `None` too; the caller then reads the
//! text with serde_norway, whose value or error is the answer:
//!
//! - a plain scalar typed as a string is its text for serde_norway (`123`, `true`,
//!   `~`): resolved to a number, bool or null here, it fails to type as a string
//!   (serde_json is strict), so that document goes to serde_norway;
//! - an empty or null plain scalar typed as a struct, map or sequence is empty for
//!   serde_norway, a type error here (serde_norway then);
//! - a duplicate key is serde_norway's error for a struct, the last entry for a map:
//!   refused;
//! - an integer written in base 16, 8 or 2 is no float to serde_norway's
//!   `deserialize_f64`, `-0` is -0.0 there, an integer beyond 64 bits is visited as
//!   `u128`/`i128`, a non-finite float has no JSON number: refused.
//!
//! So a success here equals serde_norway's success on the same text, and every failure
//! is serde_norway's own. A differential test holds both readers to the same values on
//! the lab's files and on mutations of them (`tests` below, and the fuzz smoke's
//! Kubernetes target).
//!
//! With the model's feature `fast-yaml`, [`from_str_events`] types the events with a
//! copy of serde_norway's `DeserializerFromEvents` instead (no value in between):
//! a second deserialiser of every k8s-openapi type, for measuring against the value
//! path (ARCHITECTURE.md "Scale").

use std::borrow::Cow;
use std::iter::Peekable;
use std::num::ParseIntError;

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

/// `text` as `T` when the text is in the shape this reader knows and its value types as
/// `T` exactly as serde_norway would type the text; `None` otherwise (read it with
/// serde_norway then).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    serde_json::from_value(to_value(text)?).ok()
}

/// `text` as serde_norway's untyped value, when the text is in the shape this reader
/// knows and no typed reading of the value could differ from serde_norway's (see the
/// module's doc); `None` otherwise.
pub fn to_value(text: &str) -> Option<Value> {
    let mut events = events(text)?.into_iter().peekable();
    let value = node(&mut events)?;
    events.next().is_none().then_some(value)
}

/// The next node of `events` as a value. Recursion is bounded: [`events`] nests at
/// most [`MAX_DEPTH`] collections.
fn node<'a>(events: &mut Peekable<std::vec::IntoIter<Event<'a>>>) -> Option<Value> {
    match events.next()? {
        Event::Scalar(text, true) => plain_value(&text),
        Event::Scalar(text, false) => Some(Value::String(text.into_owned())),
        Event::MappingStart => {
            let mut map = Map::new();
            loop {
                match events.next()? {
                    Event::MappingEnd => return Some(Value::Object(map)),
                    // Keys are plain scalars; serde_norway reads a key as its text.
                    Event::Scalar(key, _) => {
                        let value = node(events)?;
                        if map.insert(key.into_owned(), value).is_some() {
                            return None;
                        }
                    }
                    _ => return None,
                }
            }
        }
        Event::SequenceStart => {
            let mut items = Vec::new();
            while !matches!(events.peek()?, Event::SequenceEnd) {
                items.push(node(events)?);
            }
            events.next();
            Some(Value::Array(items))
        }
        Event::MappingEnd | Event::SequenceEnd => None,
    }
}

/// A plain scalar as serde_norway's `visit_untagged_scalar` resolves it, or `None`
/// where a typed reading could differ (an integer in base 16, 8 or 2, one beyond 64
/// bits, `-0`, a float that is not finite).
fn plain_value(v: &str) -> Option<Value> {
    if v.is_empty() || parse_null(v).is_some() {
        return Some(Value::Null);
    }
    if let Some(boolean) = parse_bool(v) {
        return Some(Value::Bool(boolean));
    }
    // Text that starts with a letter and is no null or bool is no number either (a
    // number starts with a digit, a sign or `.`; Rust's float parsing takes `inf` and
    // `nan`, which are not finite and left as text below): most of a dump's scalars.
    if v.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        return Some(Value::String(v.to_string()));
    }
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    // `-0` is the integer 0 untyped but -0.0 to serde_norway's `deserialize_f64`.
    if ["0x", "0o", "0b"].iter().any(|p| digits.starts_with(p)) || v == "-0" {
        return None;
    }
    if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
        return Some(Value::Number(int.into()));
    }
    if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
        return Some(Value::Number(int.into()));
    }
    // Decimal digits that are no u64 or i64 (and not a string, `0123`): serde_norway
    // visits a u128 or an i128, or a float beyond those.
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && !digits_but_not_number(v) {
        return None;
    }
    if !digits_but_not_number(v) {
        if let Some(float) = parse_f64(v) {
            return Number::from_f64(float).map(Value::Number);
        }
    }
    Some(Value::String(v.to_string()))
}

/// `text` as `T` through serde_norway's deserialiser copied over [`Event`]s (no value
/// in between); `None` when the text is not in the shape or does not deserialise.
#[cfg(feature = "fast-yaml")]
pub fn from_str_events<T: DeserializeOwned>(text: &str) -> Option<T> {
    let events = events(text)?;
    let mut de = typed::Events { events: &events, pos: 0 };
    T::deserialize(&mut de).ok()
}

/// A libyaml parser event, as far as deserialising needs it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event<'a> {
    /// A scalar's value, and whether it was plain (unquoted): only a plain scalar is
    /// resolved to null, a bool or a number.
    Scalar(Cow<'a, str>, bool),
    MappingStart,
    MappingEnd,
    SequenceStart,
    SequenceEnd,
}

/// Deeper nesting is left to serde_norway (its recursion limit is 128).
const MAX_DEPTH: usize = 64;

/// libyaml's limit on a simple key is 1,024 characters; stay well inside it.
const MAX_KEY: usize = 256;

/// One line that holds content: its indentation and the rest.
#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    text: &'a str,
}

/// The events of `text`, or `None` when it is not in the accepted shape.
pub(crate) fn events(text: &str) -> Option<Vec<Event<'_>>> {
    // Printable ASCII and newlines only: no tabs, carriage returns, control or
    // non-ASCII characters (libyaml's line breaks include U+0085, U+2028, U+2029).
    if !text.bytes().all(|b| b == b'\n' || (0x20..0x7f).contains(&b)) {
        return None;
    }
    let mut lines = Vec::new();
    for raw in text.split('\n') {
        let body = raw.trim_start_matches(' ');
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let indent = raw.len() - body.len();
        // Document markers and directives are the splitter's; anything that looks
        // like one here is left to serde_norway.
        if indent == 0 && (body.starts_with("---") || body.starts_with("...") || body.starts_with('%')) {
            return None;
        }
        lines.push(Line { indent, text: body.trim_end_matches(' ') });
    }
    let first = *lines.first()?;
    if first.indent != 0 || is_item(first.text) {
        return None;
    }
    let mut p = Parser { lines, pos: 0, out: Vec::with_capacity(text.len() / 8), depth: 0 };
    p.mapping(0)?;
    (p.pos == p.lines.len()).then_some(p.out)
}

/// Whether a line is a block sequence entry (`-` alone or `- …`).
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    pos: usize,
    out: Vec<Event<'a>>,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.pos).copied()
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// A block mapping whose keys sit at `indent`; the current line is its first entry.
    fn mapping(&mut self, indent: usize) -> Option<()> {
        self.enter()?;
        self.out.push(Event::MappingStart);
        while let Some(line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || is_item(line.text) {
                return None;
            }
            let (key, value) = entry(line.text)?;
            self.out.push(Event::Scalar(Cow::Borrowed(key), true));
            self.pos += 1;
            if value.is_empty() {
                self.block_value(indent, true)?;
            } else {
                self.inline_value(value)?;
                self.after_inline(indent)?;
            }
        }
        self.out.push(Event::MappingEnd);
        self.depth -= 1;
        Some(())
    }

    /// A block sequence whose `- ` sit at `indent`; the current line is its first entry.
    fn sequence(&mut self, indent: usize) -> Option<()> {
        self.enter()?;
        self.out.push(Event::SequenceStart);
        while let Some(line) = self.peek() {
            if line.indent < indent || (line.indent == indent && !is_item(line.text)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            let rest = line.text.get(1..).unwrap_or("");
            let content = rest.trim_start_matches(' ');
            if content.is_empty() || content.starts_with('#') {
                self.pos += 1;
                self.block_value(indent, false)?;
                continue;
            }
            // The entry's content is a node at its own column (`- name: x` is a
            // mapping at indent + 2 whose next keys line up under `name`).
            let column = indent + 1 + (rest.len() - content.len());
            if let Some(l) = self.lines.get_mut(self.pos) {
                *l = Line { indent: column, text: content };
            }
            if is_item(content) {
                self.sequence(column)?;
            } else if entry(content).is_some() {
                self.mapping(column)?;
            } else {
                self.pos += 1;
                self.inline_value(content)?;
                self.after_inline(indent)?;
            }
        }
        self.out.push(Event::SequenceEnd);
        self.depth -= 1;
        Some(())
    }

    /// The node after `key:` or `-` with nothing on its line: a deeper block, a
    /// sequence at the key's own column (`compact`: only after a key), or an empty
    /// plain scalar (null).
    fn block_value(&mut self, indent: usize, compact: bool) -> Option<()> {
        match self.peek() {
            Some(next) if next.indent > indent => {
                if is_item(next.text) {
                    self.sequence(next.indent)
                } else {
                    self.mapping(next.indent)
                }
            }
            Some(next) if compact && next.indent == indent && is_item(next.text) => self.sequence(indent),
            _ => {
                self.out.push(Event::Scalar(Cow::Borrowed(""), true));
                Some(())
            }
        }
    }

    /// After a one-line value, a deeper line would continue it (a multi-line scalar)
    /// or be an error: not this reader's.
    fn after_inline(&self, indent: usize) -> Option<()> {
        match self.peek() {
            Some(next) if next.indent > indent => None,
            _ => Some(()),
        }
    }

    /// A value written on its key's (or dash's) line.
    fn inline_value(&mut self, value: &'a str) -> Option<()> {
        let first = value.as_bytes().first().copied()?;
        match first {
            b'"' => {
                let inner = value.get(1..)?;
                let end = inner.find('"')?;
                let text = inner.get(..end)?;
                if text.contains('\\') {
                    return None;
                }
                comment_only(inner.get(end + 1..)?)?;
                self.out.push(Event::Scalar(Cow::Borrowed(text), false));
            }
            b'\'' => {
                let (text, rest) = single_quoted(value.get(1..)?)?;
                comment_only(rest)?;
                self.out.push(Event::Scalar(text, false));
            }
            b'{' | b'[' => {
                let rest = self.flow(value)?;
                comment_only(rest)?;
            }
            _ => {
                let text = plain(value)?;
                self.out.push(Event::Scalar(Cow::Borrowed(text), true));
            }
        }
        Some(())
    }
}

impl<'a> Parser<'a> {
    /// A flow collection on one line (`{cpu: "64", memory: 512Gi}`, `["--x", y]`,
    /// nested): its events; what follows its closing bracket.
    fn flow(&mut self, text: &'a str) -> Option<&'a str> {
        self.enter()?;
        let mapping = text.starts_with('{');
        let close = if mapping { '}' } else { ']' };
        self.out.push(if mapping { Event::MappingStart } else { Event::SequenceStart });
        let mut rest = text.get(1..)?.trim_start_matches(' ');
        if let Some(after) = rest.strip_prefix(close) {
            rest = after;
        } else {
            loop {
                if mapping {
                    let (key, after) = flow_plain(rest)?;
                    self.out.push(Event::Scalar(Cow::Borrowed(key), true));
                    rest = after.strip_prefix(": ")?.trim_start_matches(' ');
                }
                rest = self.flow_value(rest)?.trim_start_matches(' ');
                if let Some(after) = rest.strip_prefix(',') {
                    rest = after.trim_start_matches(' ');
                    if rest.starts_with(close) {
                        return None;
                    }
                } else {
                    rest = rest.strip_prefix(close)?;
                    break;
                }
            }
        }
        self.out.push(if mapping { Event::MappingEnd } else { Event::SequenceEnd });
        self.depth -= 1;
        Some(rest)
    }

    /// A node inside a flow collection: a nested one, a quoted or a plain scalar.
    fn flow_value(&mut self, text: &'a str) -> Option<&'a str> {
        match text.as_bytes().first()? {
            b'{' | b'[' => self.flow(text),
            b'"' => {
                let inner = text.get(1..)?;
                let end = inner.find('"')?;
                let value = inner.get(..end)?;
                if value.contains('\\') {
                    return None;
                }
                self.out.push(Event::Scalar(Cow::Borrowed(value), false));
                inner.get(end + 1..)
            }
            b'\'' => {
                let (value, rest) = single_quoted(text.get(1..)?)?;
                self.out.push(Event::Scalar(value, false));
                Some(rest)
            }
            _ => {
                let (value, rest) = flow_plain(text)?;
                self.out.push(Event::Scalar(Cow::Borrowed(value), true));
                Some(rest)
            }
        }
    }
}

/// A plain scalar inside a flow collection, of the characters a name, a number or a
/// quantity is written in (flow context ends a plain scalar at `,[]{}` and `: `; this
/// reader takes none of those inside one, nor spaces): the scalar and what follows,
/// which must be a space, `,`, `:`, a closing bracket or the end.
fn flow_plain(text: &str) -> Option<(&str, &str)> {
    let len = text.bytes().take_while(|b| b.is_ascii_alphanumeric() || b"._/+~%-".contains(b)).count();
    let (value, rest) = (text.get(..len)?, text.get(len..)?);
    let first = *value.as_bytes().first()?;
    let second = value.as_bytes().get(1).copied();
    if first == b'%' || (first == b'-' && !second.is_some_and(|b| b.is_ascii_alphanumeric())) {
        return None;
    }
    matches!(rest.as_bytes().first(), None | Some(b' ' | b',' | b':' | b']' | b'}')).then_some((value, rest))
}

/// After a quoted scalar or `{}`: nothing, or a comment after a space.
fn comment_only(rest: &str) -> Option<()> {
    (rest.is_empty() || (rest.starts_with(' ') && rest.trim_start_matches(' ').starts_with('#'))).then_some(())
}

/// A single-quoted scalar's value (`''` is one quote) and what follows its closing quote.
fn single_quoted(inner: &str) -> Option<(Cow<'_, str>, &str)> {
    let mut at = 0;
    let mut owned: Option<String> = None;
    loop {
        let rel = inner.get(at..)?.find('\'')?;
        let quote = at + rel;
        if inner.as_bytes().get(quote + 1) == Some(&b'\'') {
            let s = owned.get_or_insert_with(String::new);
            s.push_str(inner.get(at..quote + 1)?);
            at = quote + 2;
            continue;
        }
        let text = match owned {
            Some(mut s) => {
                s.push_str(inner.get(at..quote)?);
                Cow::Owned(s)
            }
            None => Cow::Borrowed(inner.get(..quote)?),
        };
        return Some((text, inner.get(quote + 1..)?));
    }
}

/// A plain scalar on one line: up to a comment (` #`), trailing spaces dropped. `None`
/// when it starts with an indicator or holds what would end or break it (`: `, a
/// trailing `:`).
fn plain(value: &str) -> Option<&str> {
    let bytes = value.as_bytes();
    let first = *bytes.first()?;
    if b",[]{}#&*!|>'\"%@`".contains(&first) {
        return None;
    }
    if matches!(first, b'-' | b'?' | b':') && bytes.get(1).is_none_or(|&b| b == b' ') {
        return None;
    }
    let text = match value.find(" #") {
        Some(i) => value.get(..i)?.trim_end_matches(' '),
        None => value,
    };
    if text.contains(": ") || text.ends_with(':') {
        return None;
    }
    Some(text)
}

/// `key: value` or `key:` with a plain key of the lab's usual characters; the value
/// with its leading spaces dropped (empty, or a comment, for a block value).
fn entry(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let colon = loop {
        let b = *bytes.get(i)?;
        if b == b':' && bytes.get(i + 1).is_none_or(|&n| n == b' ') {
            break i;
        }
        if !(b.is_ascii_alphanumeric() || b"._/-:".contains(&b)) {
            return None;
        }
        i += 1;
    };
    let key = text.get(..colon)?;
    let lead = *key.as_bytes().first()?;
    if !(lead.is_ascii_alphanumeric() || lead == b'_' || lead == b'.' || lead == b'/') || key.len() > MAX_KEY {
        return None;
    }
    let value = text.get(colon + 1..)?.trim_start_matches(' ');
    Some((key, if value.starts_with('#') { "" } else { value }))
}

// serde_norway 0.9.42 `de.rs`: how a plain scalar resolves (copied; MIT OR Apache-2.0).

fn parse_null(scalar: &str) -> Option<()> {
    matches!(scalar, "null" | "Null" | "NULL" | "~").then_some(())
}

fn parse_bool(scalar: &str) -> Option<bool> {
    match scalar {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn parse_unsigned_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> std::result::Result<T, ParseIntError>) -> Option<T> {
    let unpositive = scalar.strip_prefix('+').unwrap_or(scalar);
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(int) = from_str_radix(rest, radix) {
                return Some(int);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) {
        return None;
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(unpositive, 10).ok()
}

fn parse_negative_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> std::result::Result<T, ParseIntError>) -> Option<T> {
    for (prefix, radix) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = scalar.strip_prefix(prefix) {
            if let Ok(int) = from_str_radix(&format!("-{rest}"), radix) {
                return Some(int);
            }
        }
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(scalar, 10).ok()
}

fn parse_f64(scalar: &str) -> Option<f64> {
    let unpositive = if let Some(unpositive) = scalar.strip_prefix('+') {
        if unpositive.starts_with(['+', '-']) {
            return None;
        }
        unpositive
    } else {
        scalar
    };
    if let ".inf" | ".Inf" | ".INF" = unpositive {
        return Some(f64::INFINITY);
    }
    if let "-.inf" | "-.Inf" | "-.INF" = scalar {
        return Some(f64::NEG_INFINITY);
    }
    if let ".nan" | ".NaN" | ".NAN" = scalar {
        return Some(f64::NAN.copysign(1.0));
    }
    if let Ok(float) = unpositive.parse::<f64>() {
        if float.is_finite() {
            return Some(float);
        }
    }
    None
}

fn digits_but_not_number(scalar: &str) -> bool {
    // Leading zero(s) followed by numeric characters is a string (YAML 1.2).
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar.bytes().skip(1).all(|b| b.is_ascii_digit())
}

/// serde_norway's `DeserializerFromEvents` over [`Event`]s, typing without a value in
/// between (feature `fast-yaml`; [`from_str_events`]).
#[cfg(feature = "fast-yaml")]
mod typed {
    use std::borrow::Cow;
    use std::fmt;
    use std::num::ParseIntError;

    use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

    use super::{digits_but_not_number, parse_bool, parse_f64, parse_negative_int, parse_null, parse_unsigned_int, Event};

    /// Any failure: the caller reads the text with serde_norway instead.
    #[derive(Debug)]
    pub struct Fallback;

    impl fmt::Display for Fallback {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("not read by the fast path")
        }
    }

    impl std::error::Error for Fallback {}

    impl de::Error for Fallback {
        fn custom<T: fmt::Display>(_msg: T) -> Self {
            Fallback
        }
    }

    type Result<T> = std::result::Result<T, Fallback>;

    /// serde_norway's `DeserializerFromEvents` over [`Event`]s.
    pub(super) struct Events<'e, 'a> {
        pub(super) events: &'e [Event<'a>],
        pub(super) pos: usize,
    }

    impl<'e, 'a> Events<'e, 'a> {
        fn peek(&self) -> Result<&'e Event<'a>> {
            self.events.get(self.pos).ok_or(Fallback)
        }

        fn next(&mut self) -> Result<&'e Event<'a>> {
            let e = self.peek()?;
            self.pos += 1;
            Ok(e)
        }

        /// A plain scalar's text (what serde_norway resolves to null, bool or a number).
        fn next_plain(&mut self) -> Result<&'e str> {
            match self.next()? {
                Event::Scalar(v, true) => Ok(v),
                _ => Err(Fallback),
            }
        }

        /// Skips one node.
        fn skip(&mut self) -> Result<()> {
            let mut depth = 0usize;
            loop {
                match self.next()? {
                    Event::Scalar(..) => {}
                    Event::MappingStart | Event::SequenceStart => depth += 1,
                    Event::MappingEnd | Event::SequenceEnd => depth = depth.checked_sub(1).ok_or(Fallback)?,
                }
                if depth == 0 {
                    return Ok(());
                }
            }
        }

        /// serde_norway's `visit_mapping` + `end_mapping`: entries the visitor left unread
        /// are an error (`invalid_length`).
        fn visit_mapping<V: Visitor<'a>>(&mut self, visitor: V) -> Result<V::Value> {
            let value = visitor.visit_map(Access { de: self, empty: false })?;
            match self.next()? {
                Event::MappingEnd => Ok(value),
                _ => Err(Fallback),
            }
        }

        fn visit_sequence<V: Visitor<'a>>(&mut self, visitor: V) -> Result<V::Value> {
            let value = visitor.visit_seq(Access { de: self, empty: false })?;
            match self.next()? {
                Event::SequenceEnd => Ok(value),
                _ => Err(Fallback),
            }
        }
    }

    /// A mapping's or sequence's entries (`empty`: an empty plain scalar read as one).
    struct Access<'d, 'e, 'a> {
        de: &'d mut Events<'e, 'a>,
        empty: bool,
    }

    impl<'a> MapAccess<'a> for Access<'_, '_, 'a> {
        type Error = Fallback;

        fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>> {
            if self.empty || matches!(self.de.peek()?, Event::MappingEnd) {
                return Ok(None);
            }
            seed.deserialize(&mut *self.de).map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, seed: V) -> Result<V::Value> {
            seed.deserialize(&mut *self.de)
        }
    }

    impl<'a> SeqAccess<'a> for Access<'_, '_, 'a> {
        type Error = Fallback;

        fn next_element_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<Option<T::Value>> {
            if self.empty || matches!(self.de.peek()?, Event::SequenceEnd) {
                return Ok(None);
            }
            seed.deserialize(&mut *self.de).map(Some)
        }
    }

    /// A scalar to a visitor's string method, borrowed from the text when it can be.
    fn visit_text<'a, V: Visitor<'a>>(visitor: V, text: &Cow<'a, str>) -> Result<V::Value> {
        match text {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_str(s),
        }
    }

    impl<'a> de::Deserializer<'a> for &mut Events<'_, 'a> {
        type Error = Fallback;

        fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            match self.next()? {
                Event::Scalar(v, true) => visit_untagged_scalar(visitor, v),
                Event::Scalar(v, false) => visit_text(visitor, v),
                Event::MappingStart => self.visit_mapping(visitor),
                Event::SequenceStart => self.visit_sequence(visitor),
                Event::MappingEnd | Event::SequenceEnd => Err(Fallback),
            }
        }

        fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_bool(parse_bool(self.next_plain()?).ok_or(Fallback)?)
        }

        fn deserialize_i8<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_i64(visitor)
        }

        fn deserialize_i16<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_i64(visitor)
        }

        fn deserialize_i32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_i64(visitor)
        }

        fn deserialize_i64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_i64(parse_signed_int(self.next_plain()?, i64::from_str_radix).ok_or(Fallback)?)
        }

        fn deserialize_i128<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_i128(parse_signed_int(self.next_plain()?, i128::from_str_radix).ok_or(Fallback)?)
        }

        fn deserialize_u8<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_u64(visitor)
        }

        fn deserialize_u16<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_u64(visitor)
        }

        fn deserialize_u32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_u64(visitor)
        }

        fn deserialize_u64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_u64(parse_unsigned_int(self.next_plain()?, u64::from_str_radix).ok_or(Fallback)?)
        }

        fn deserialize_u128<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_u128(parse_unsigned_int(self.next_plain()?, u128::from_str_radix).ok_or(Fallback)?)
        }

        fn deserialize_f32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_f64(visitor)
        }

        fn deserialize_f64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_f64(parse_f64(self.next_plain()?).ok_or(Fallback)?)
        }

        fn deserialize_char<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            match self.next()? {
                Event::Scalar(v, _) => visit_text(visitor, v),
                _ => Err(Fallback),
            }
        }

        fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_bytes<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value> {
            Err(Fallback)
        }

        fn deserialize_byte_buf<V: Visitor<'a>>(self, _visitor: V) -> Result<V::Value> {
            Err(Fallback)
        }

        /// serde_norway: an empty or null plain scalar is `None`, anything else `Some`.
        fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            let none = matches!(self.peek()?, Event::Scalar(v, true) if v.is_empty() || parse_null(v).is_some());
            if none {
                self.pos += 1;
                visitor.visit_none()
            } else {
                visitor.visit_some(self)
            }
        }

        fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            let v = self.next_plain()?;
            if v.is_empty() || parse_null(v).is_some() {
                visitor.visit_unit()
            } else {
                Err(Fallback)
            }
        }

        fn deserialize_unit_struct<V: Visitor<'a>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
            self.deserialize_unit(visitor)
        }

        fn deserialize_newtype_struct<V: Visitor<'a>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
            visitor.visit_newtype_struct(self)
        }

        fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            match self.next()? {
                Event::SequenceStart => self.visit_sequence(visitor),
                Event::Scalar(v, true) if v.is_empty() => visitor.visit_seq(Access { de: self, empty: true }),
                _ => Err(Fallback),
            }
        }

        fn deserialize_tuple<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value> {
            self.deserialize_seq(visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'a>>(self, _name: &'static str, _len: usize, visitor: V) -> Result<V::Value> {
            self.deserialize_seq(visitor)
        }

        fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            match self.next()? {
                Event::MappingStart => self.visit_mapping(visitor),
                Event::Scalar(v, true) if v.is_empty() => visitor.visit_map(Access { de: self, empty: true }),
                _ => Err(Fallback),
            }
        }

        fn deserialize_struct<V: Visitor<'a>>(self, _name: &'static str, _fields: &'static [&'static str], visitor: V) -> Result<V::Value> {
            self.deserialize_map(visitor)
        }

        /// Only a unit variant named by a scalar (serde_norway's untagged case); the rest
        /// needs YAML tags, which this reader does not accept.
        fn deserialize_enum<V: Visitor<'a>>(self, _name: &'static str, _variants: &'static [&'static str], visitor: V) -> Result<V::Value> {
            match self.peek()? {
                Event::Scalar(..) => visitor.visit_enum(UnitVariant { de: self }),
                _ => Err(Fallback),
            }
        }

        fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value> {
            self.skip()?;
            visitor.visit_unit()
        }
    }

    /// serde_norway's `UnitVariantAccess`.
    struct UnitVariant<'d, 'e, 'a> {
        de: &'d mut Events<'e, 'a>,
    }

    impl<'a> de::EnumAccess<'a> for UnitVariant<'_, '_, 'a> {
        type Error = Fallback;
        type Variant = Self;

        fn variant_seed<V: DeserializeSeed<'a>>(self, seed: V) -> Result<(V::Value, Self)> {
            Ok((seed.deserialize(&mut *self.de)?, self))
        }
    }

    impl<'a> de::VariantAccess<'a> for UnitVariant<'_, '_, 'a> {
        type Error = Fallback;

        fn unit_variant(self) -> Result<()> {
            Ok(())
        }

        fn newtype_variant_seed<T: DeserializeSeed<'a>>(self, _seed: T) -> Result<T::Value> {
            Err(Fallback)
        }

        fn tuple_variant<V: Visitor<'a>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
            Err(Fallback)
        }

        fn struct_variant<V: Visitor<'a>>(self, _fields: &'static [&'static str], _visitor: V) -> Result<V::Value> {
            Err(Fallback)
        }
    }

    // serde_norway 0.9.42 `de.rs` (copied; MIT OR Apache-2.0).

    fn parse_signed_int<T>(scalar: &str, from_str_radix: fn(&str, u32) -> std::result::Result<T, ParseIntError>) -> Option<T> {
        let unpositive = if let Some(unpositive) = scalar.strip_prefix('+') {
            if unpositive.starts_with(['+', '-']) {
                return None;
            }
            unpositive
        } else {
            scalar
        };
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
            if let Some(rest) = unpositive.strip_prefix(prefix) {
                if rest.starts_with(['+', '-']) {
                    return None;
                }
                if let Ok(int) = from_str_radix(rest, radix) {
                    return Some(int);
                }
            }
            if let Some(rest) = scalar.strip_prefix('-').and_then(|s| s.strip_prefix(prefix)) {
                if let Ok(int) = from_str_radix(&format!("-{rest}"), radix) {
                    return Some(int);
                }
            }
        }
        if digits_but_not_number(scalar) {
            return None;
        }
        from_str_radix(unpositive, 10).ok()
    }

    /// serde_norway's `visit_int`: the visitor back when the text is no integer.
    fn visit_int<'a, V: Visitor<'a>>(visitor: V, v: &str) -> std::result::Result<Result<V::Value>, V> {
        if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
            return Ok(visitor.visit_u64(int));
        }
        if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
            return Ok(visitor.visit_i64(int));
        }
        if let Some(int) = parse_unsigned_int(v, u128::from_str_radix) {
            return Ok(visitor.visit_u128(int));
        }
        if let Some(int) = parse_negative_int(v, i128::from_str_radix) {
            return Ok(visitor.visit_i128(int));
        }
        Err(visitor)
    }

    /// serde_norway's `visit_untagged_scalar`: a plain scalar as null, bool, integer,
    /// float or string.
    fn visit_untagged_scalar<'a, V: Visitor<'a>>(visitor: V, v: &Cow<'a, str>) -> Result<V::Value> {
        if v.is_empty() || parse_null(v).is_some() {
            return visitor.visit_unit();
        }
        if let Some(boolean) = parse_bool(v) {
            return visitor.visit_bool(boolean);
        }
        let visitor = match visit_int(visitor, v) {
            Ok(result) => return result,
            Err(visitor) => visitor,
        };
        if !digits_but_not_number(v) {
            if let Some(float) = parse_f64(v) {
                return visitor.visit_f64(float);
            }
        }
        visit_text(visitor, v)
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use super::*;
    use k8s_openapi::api::apps::v1::DaemonSet;
    use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod};
    use k8s_openapi::api::node::v1::RuntimeClass;

    /// Whatever the fast path reads, serde_norway reads the same — untyped (every plain
    /// scalar resolved: null, bool, integer, float, string) and as each kind the lab
    /// types straight from YAML, through the value ([`from_str`]) and, with `fast-yaml`,
    /// through the copied deserialiser ([`from_str_events`]). Returns whether
    /// [`to_value`] read it.
    fn check_same(text: &str) -> bool {
        fn same<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) {
            if let Some(fast) = from_str::<T>(text) {
                let slow = serde_norway::from_str::<T>(text);
                assert!(matches!(&slow, Ok(s) if *s == fast), "value path {fast:?}\nserde_norway {slow:?}\non {text:?}");
            }
            #[cfg(feature = "fast-yaml")]
            if let Some(fast) = from_str_events::<T>(text) {
                let slow = serde_norway::from_str::<T>(text);
                assert!(matches!(&slow, Ok(s) if *s == fast), "events path {fast:?}\nserde_norway {slow:?}\non {text:?}");
            }
        }
        same::<Node>(text);
        same::<Pod>(text);
        same::<DaemonSet>(text);
        same::<RuntimeClass>(text);
        same::<ConfigMap>(text);
        same::<serde_json::Value>(text);
        let fast = to_value(text);
        if let Some(fast) = &fast {
            let slow = serde_norway::from_str::<serde_json::Value>(text);
            assert!(matches!(&slow, Ok(s) if s == fast), "fast {fast}\nserde_norway {slow:?}\non {text:?}");
        }
        fast.is_some()
    }

    /// Whether the value path types `text` as the kind it names (for the tests' counts).
    fn typed_by_value(text: &str) -> bool {
        if text.contains("\nkind: Node\n") {
            from_str::<Node>(text).is_some()
        } else if text.contains("\nkind: Pod\n") {
            from_str::<Pod>(text).is_some()
        } else if text.contains("\nkind: DaemonSet\n") {
            from_str::<DaemonSet>(text).is_some()
        } else {
            false
        }
    }

    /// The events of the shapes the reader takes are libyaml's: nested mappings, a
    /// sequence at its key's column and deeper, an entry's mapping lined up under
    /// its first key, the three scalar styles, `{}`/`[]`, comments, empty values.
    #[test]
    fn events_of_the_accepted_shape() {
        use Event::*;
        let s = |v: &'static str, plain: bool| Scalar(Cow::Borrowed(v), plain);
        let text = "# c\na: 1\nb:\n  c: x # note\nd:\n- 1\n-   e: f\n    g: 'h''i'\n-\nk: \"q\" # c\nl: {}\nm: []\nn:\no: {p: \"8\", q: [r, 's'], t: {}} # c\n";
        let want = vec![
            MappingStart,
            s("a", true),
            s("1", true),
            s("b", true),
            MappingStart,
            s("c", true),
            s("x", true),
            MappingEnd,
            s("d", true),
            SequenceStart,
            s("1", true),
            MappingStart,
            s("e", true),
            s("f", true),
            s("g", true),
            Scalar(Cow::Owned("h'i".into()), false),
            MappingEnd,
            s("", true),
            SequenceEnd,
            s("k", true),
            s("q", false),
            s("l", true),
            MappingStart,
            MappingEnd,
            s("m", true),
            SequenceStart,
            SequenceEnd,
            s("n", true),
            s("", true),
            s("o", true),
            MappingStart,
            s("p", true),
            s("8", false),
            s("q", true),
            SequenceStart,
            s("r", true),
            s("s", false),
            SequenceEnd,
            s("t", true),
            MappingStart,
            MappingEnd,
            MappingEnd,
            MappingEnd,
        ];
        assert_eq!(events(text), Some(want));
        assert!(check_same(text));
    }

    /// What the reader leaves to serde_norway (each case: why), whether valid YAML or not.
    #[test]
    fn other_shapes_are_left_to_serde_norway() {
        let cases = [
            ("block scalar", "a: |\n  x\n"),
            ("folded scalar", "a: >-\n  x\n"),
            ("anchor", "a: &x 1\n"),
            ("alias", "a: *x\n"),
            ("tag", "a: !!str 1\n"),
            ("flow mapping over two lines", "a: {b: 1,\n  c: 2}\n"),
            ("trailing comma", "a: {b: 1,}\n"),
            ("flow key without a space", "a: {b:1}\n"),
            ("unclosed flow", "a: [1, {c: d}\n"),
            ("spaces in a flow scalar", "a: {b: c d}\n"),
            ("flow key with no value", "a: {b}\n"),
            ("text after a flow collection", "a: [b]c\n"),
            ("escape", "a: \"x\\ty\"\n"),
            ("multi-line plain", "a: b\n  c\n"),
            ("multi-line quoted", "a: \"b\n  c\"\n"),
            ("tab", "a:\tb\n"),
            ("carriage return", "a: b\r\n"),
            ("non-ASCII", "a: é\n"),
            ("mapping in a value", "a: b: c\n"),
            ("top-level sequence", "- a\n"),
            ("indented top level", "  a: 1\n"),
            ("complex key", "? a\n: b\n"),
            ("merge key", "<<: {}\n"),
            ("quoted key", "\"a\": 1\n"),
            ("second document", "a: 1\n---\nb: 2\n"),
            ("key after a deeper sequence", "a:\n  - x\n  b: y\n"),
            ("deeper line after a value", "a: 1\n    b: 2\n"),
            ("text after a quoted value", "a: \"b\"c\n"),
            ("empty", "# only a comment\n"),
            ("plain scalar alone", "a\n"),
        ];
        for (why, text) in cases {
            assert_eq!(events(text), None, "{why}: {text:?}");
        }
    }

    /// The value path refuses what a typed reading could see otherwise than its value
    /// (each case: why), and where a plain scalar stands for a string serde_norway
    /// reads its text while the value does not type: both go to serde_norway.
    #[test]
    fn value_path_leaves_what_could_differ_to_serde_norway() {
        let refused = [
            ("duplicate key (serde_norway: an error for a struct)", "a: 1\na: 2\n"),
            ("duplicate key in a flow mapping", "a: {b: 1, b: 2}\n"),
            ("base 16 (no float to serde_norway)", "a: 0x10\n"),
            ("base 8", "a: -0o17\n"),
            ("base 2", "a: +0b1\n"),
            ("-0 (serde_norway's f64: -0.0)", "a: -0\n"),
            ("beyond u64 (serde_norway visits a u128)", "a: 18446744073709551616\n"),
            ("beyond i64", "a: -9223372036854775809\n"),
            ("not a number", "a: .nan\n"),
            ("infinite", "a: -.inf\n"),
        ];
        for (why, text) in refused {
            assert!(events(text).is_some() && to_value(text).is_none(), "{why}: {text:?}");
            check_same(text);
        }
        let strings = [
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: 123\n",
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  labels: {a: true, b: ~, c: 1.5}\n",
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  annotations:\n    x:\n",
        ];
        for text in strings {
            assert!(to_value(text).is_some() && from_str::<Node>(text).is_none(), "{text:?}");
            assert!(serde_norway::from_str::<Node>(text).is_ok(), "{text:?}");
        }
        // What types the same through the value: quantities written as numbers (their
        // visitor takes any scalar), a sign, a float's exponent, null for an `Option`.
        let same = "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  namespace: ~\nstatus:\n  capacity: {cpu: 64, memory: -5, pods: 1e3, x: 1.50, y: +7}\n";
        let fast = from_str::<Node>(same);
        assert!(fast.is_some() && fast == serde_norway::from_str::<Node>(same).ok(), "{fast:?}");
    }

    /// Every YAML document of the repository's scenarios, the app's step data and the
    /// fuzz corpus reads the same both ways; most of them take the fast path.
    #[test]
    fn repository_files_read_the_same() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                    out.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        for dir in ["scenarios", "src/steps/data", "fuzz/corpus", "crates/cli/tests"] {
            walk(&root.join(dir), &mut files);
        }
        let (mut docs, mut fast) = (0, 0);
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let mut doc = String::new();
            for line in text.lines().chain(["---"]) {
                if line.starts_with("---") {
                    docs += 1;
                    fast += usize::from(check_same(&doc));
                    doc.clear();
                } else {
                    doc.push_str(line);
                    doc.push('\n');
                }
            }
        }
        assert!(files.len() > 50 && fast * 2 > docs, "{} files, {docs} documents, {fast} read by the fast path", files.len());
    }

    /// A seeded random edit (insert, delete or replace a byte from YAML's indicators,
    /// or re-indent a line) of `text`.
    fn mutate(text: &str, state: &mut u64) -> String {
        let mut next = |n: usize| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((*state >> 33) as usize) % n.max(1)
        };
        // YAML's indicators, and as many characters that keep a text in the fast
        // path's shape (names, numbers, spaces), so that both kinds of edit are tried.
        const ALPHABET: &[u8] = b" :-#'\"{}[],&*!|>?%@`~\n\t\\01.exnuTFly   aZ09._/-:";
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + next(3) {
            let at = next(bytes.len() + 1);
            let b = ALPHABET[next(ALPHABET.len())];
            match next(5) {
                0 => bytes.insert(at, b),
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                2 if at < bytes.len() => bytes[at] = b,
                3 => {
                    let start = bytes[..at].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
                    bytes.insert(start, b' ');
                }
                _ => {
                    let start = bytes[..at].iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1);
                    if bytes.get(start) == Some(&b' ') {
                        bytes.remove(start);
                    }
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Thousands of seeded edits of a kubectl-style Node, Pods and a DaemonSet: whenever
    /// the fast path reads an edited text, serde_norway reads the same value from it.
    /// The seeds hold what each path refuses or types otherwise (an integer in base
    /// 16, a string where a bool belongs, unquoted quantities) and what `kubectl get
    /// -o yaml` and `scripts/gen-cluster.sh` write (the last Pod).
    #[test]
    fn edited_documents_read_the_same() {
        let seeds = [
            "apiVersion: v1\nkind: Node\nmetadata:\n  labels:\n    kubernetes.io/hostname: gpu-1\n    nvidia.com/gpu.present: \"true\"\n  name: gpu-1\n  resourceVersion: \"1001\"\nspec:\n  taints:\n  - effect: NoSchedule\n    key: nvidia.com/gpu\n  unschedulable: true\nstatus:\n  allocatable:\n    cpu: \"63\"\n    memory: 500Gi\n    nvidia.com/gpu: \"8\"\n    pods: \"110\"\n  capacity: {cpu: 64, memory: 512Gi, nvidia.com/gpu: '8', pods: \"110\"}\n",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-1\n  namespace: team-a\nspec:\n  containers:\n  - image: nvcr.io/nvidia/cuda:12.4.0\n    name: cuda\n    ports:\n    - containerPort: 8080\n      protocol: TCP\n    resources:\n      limits:\n        nvidia.com/gpu: 2\n      requests: {cpu: '4', memory: 32Gi}\n  nodeName: gpu-1\n  priority: -10\n  tolerations:\n  - effect: NoSchedule\n    key: nvidia.com/gpu\n    operator: Exists\n    tolerationSeconds: 0x10\nstatus:\n  phase: Running\n",
            "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: nvidia-device-plugin\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels:\n      name: dp\n  updateStrategy:\n    rollingUpdate:\n      maxUnavailable: 10%\n      maxSurge: 0\n    type: RollingUpdate\n  template:\n    metadata:\n      labels:\n        name: dp\n    spec:\n      containers:\n      - args: [\"--fail-on-init-error=false\"]\n        image: nvcr.io/nvidia/k8s-device-plugin:v0.17.0\n        name: dp\n        securityContext:\n          privileged: true\n      hostNetwork: yes\n      terminationGracePeriodSeconds: 30\n",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-00001-0\n  namespace: team-b\n  uid: 10000000-0000-4000-8000-000000010000\nspec:\n  containers:\n  - image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n    name: cuda\n    resources:\n      limits:\n        nvidia.com/gpu: \"1\"\n      requests:\n        cpu: \"4\"\n        memory: 32Gi\n        nvidia.com/gpu: \"1\"\n  nodeName: gpu-node-00001\n  priority: -10\n  tolerations:\n  - effect: NoSchedule\n    key: nvidia.com/gpu\n    operator: Exists\n    tolerationSeconds: 300\nstatus:\n  phase: Running\n",
        ];
        for seed in seeds {
            assert!(events(seed).is_some(), "the unedited text is in the fast path's shape: {seed}");
            check_same(seed);
        }
        // The Node and the kubectl-style Pod type through the value; the first Pod's
        // `0x10` and the DaemonSet's `hostNetwork: yes` do not (serde_norway reads them).
        let typed: Vec<bool> = seeds.iter().map(|s| typed_by_value(s)).collect();
        assert_eq!(typed, [true, false, false, true]);
        let (mut state, mut read, mut typed) = (0x5eed_u64, 0, 0);
        for _ in 0..1500 {
            for seed in seeds {
                let text = mutate(seed, &mut state);
                read += usize::from(check_same(&text));
                typed += usize::from(typed_by_value(&text));
            }
        }
        // The edits must leave enough texts in the fast path's shape, and enough that
        // type through the value, for this to test both.
        assert!(read > 600 && typed > 300, "of 6000 edited texts, {read} read as a value, {typed} typed from it");
    }
}
