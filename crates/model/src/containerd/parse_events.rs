//! TOML text → [`Table`] straight from `toml_parser`'s events: the document builder
//! of `toml_edit` 0.25 (its `parser/document.rs`, `key.rs`, `inline_table.rs`), ported
//! onto the model's value tree.
//!
//! `toml_edit` keeps every key's and value's formatting so a document can be edited
//! and written back. The model needs none of that, and building it was half of a
//! keystroke's work on a 1,000-line config (and `toml_edit` a tenth of the app's first
//! load). This builder reads the same events (same lexer, same parser, same
//! whitespace and nesting checks) and follows the same rules: implicit tables
//! (`a` of `[a.b]`) reopened by a later `[a]`, dotted keys, arrays of tables, and the
//! same first error with the same text and position (`duplicate key`, `cannot extend
//! value of type … with a dotted key`, number overflows, the parser's own errors).
//! Origins are those the model always gave: a value at its key; a `[header]` table
//! at its `[`; an implicit or dotted table at its first child (else its key); an
//! array element at itself.
//!
//! `toml_edit` stays as the test oracle: the tests hold both equal, errors included,
//! on every TOML file of the goldens, scenarios and defaults and thousands of
//! mutations of them.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use toml_parser::decoder::ScalarKind;
use toml_parser::parser::{Event, EventKind, RecursionGuard, ValidateWhitespace};
use toml_parser::{Expected, ParseError as TomlError, Source, Span};

use super::parse::LineIndex;
use super::value::{Node, Origin, Table, Value};

/// `toml_edit`'s nesting limit (arrays and inline tables).
const NESTING_LIMIT: u32 = 80;

/// How deep the tree may nest, all containers counted: header keys, dotted keys,
/// inline tables and arrays (a root key is at depth 1, `[a.b]`'s keys at 3). Every
/// stage after the parse (merge, decode, dump, explanation, even dropping the tree)
/// walks it recursively, and `x.y.y.…` written 5,000 times overflowed the browser's
/// stack. containerd itself (Go, growable stacks) reads any depth; a file deeper than
/// this is refused by the lab with its own error ([`SyntaxError::too_deep`]), never
/// read half-way. Real configs nest about 8 deep.
pub const DEPTH_LIMIT: usize = 128;

/// The first error, as `toml_edit::TomlError` words and places it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SyntaxError {
    pub message: String,
    pub span: Option<Range<usize>>,
    /// The lab's own limit ([`DEPTH_LIMIT`]), not a TOML error.
    pub too_deep: bool,
}

impl SyntaxError {
    /// `TomlError::new`: the description, then what was expected.
    fn from_parser(e: &TomlError) -> Self {
        let mut message = e.description().to_string();
        if let Some(expected) = e.expected() {
            message.push_str(", expected ");
            if expected.is_empty() {
                message.push_str("nothing");
            }
            for (i, x) in expected.iter().enumerate() {
                if i != 0 {
                    message.push_str(", ");
                }
                match x {
                    Expected::Literal(l) => message.push_str(&render_literal(l)),
                    Expected::Description(d) => message.push_str(d),
                    #[allow(unreachable_patterns)]
                    _ => message.push_str("etc"),
                }
            }
        }
        SyntaxError { message, span: e.unexpected().map(|s| s.start()..s.end()), too_deep: false }
    }

    fn at(message: impl Into<String>, span: Span) -> Self {
        SyntaxError { message: message.into(), span: Some(span.start()..span.end()), too_deep: false }
    }

    /// A key or value at `span` nested deeper than [`DEPTH_LIMIT`].
    fn too_deep(span: Span) -> Self {
        SyntaxError { too_deep: true, ..SyntaxError::at(format!("nested more than {DEPTH_LIMIT} levels deep"), span) }
    }
}

fn render_literal(literal: &str) -> String {
    match literal {
        "\n" => "newline".to_string(),
        "`" => "'`'".to_string(),
        s if s.chars().all(|c| c.is_ascii_control()) => format!("`{}`", escape_control(s)),
        s => format!("`{s}`"),
    }
}

/// `str::escape_debug` of ASCII control characters (`\t`, `\u{1b}`), written out:
/// the standard one brings Unicode's tables into the app's wasm for four cases.
fn escape_control(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\0"),
            c => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
        }
    }
    out
}

/// Keeps the first error reported (as `toml_edit`'s sink does).
#[derive(Default)]
struct FirstError(Option<SyntaxError>);

impl toml_parser::ErrorSink for FirstError {
    fn report_error(&mut self, error: TomlError) {
        if self.0.is_none() {
            self.0 = Some(SyntaxError::from_parser(&error));
        }
    }
}

/// The table `text` holds (origins in `file`), or the first error.
pub(super) fn parse(file: &Arc<str>, text: &str, index: &LineIndex<'_>) -> Result<Table, SyntaxError> {
    let source = Source::new(text);
    let tokens = source.lex().into_vec();
    let mut events: Vec<Event> = Vec::with_capacity(tokens.len());
    let mut errors = FirstError::default();
    {
        let mut whitespace = ValidateWhitespace::new(&mut events, source);
        let mut guard = RecursionGuard::new(&mut whitespace, NESTING_LIMIT);
        toml_parser::parser::parse_document(&tokens, &mut guard, &mut errors);
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    let root = Builder { events: &events, at: 0, source, state: State::default(), base: 0 }.document()?;
    Ok(Origins { file, index }.table(root))
}

/// A table while it is built, with `toml_edit`'s flags. `header` is the offset of
/// its `[` once a header defined it.
#[derive(Default)]
struct Building {
    entries: Vec<Entry>,
    header: Option<usize>,
    implicit: bool,
    dotted: bool,
}

/// A decoded key and where it is written.
type Key = (String, Span);

/// A key (decoded), its span, and its value.
struct Entry {
    key: String,
    span: Span,
    value: Item,
}

enum Item {
    /// A string, integer, float, boolean or datetime, and its span.
    Scalar(Value, Span),
    Array(Vec<Item>, Span),
    Inline(Inline, Span),
    Table(Building),
    TableArray(Vec<Building>),
}

/// An inline table while it is built (`implicit`, `dotted`: made by a dotted key).
#[derive(Default)]
struct Inline {
    entries: Vec<(String, Span, Item)>,
    implicit: bool,
    dotted: bool,
}

impl Item {
    /// `toml_edit`'s `Value::type_name` (only values are ever named).
    fn type_name(&self) -> &'static str {
        match self {
            Item::Scalar(Value::String(_), _) => "string",
            Item::Scalar(Value::Integer(_), _) => "integer",
            Item::Scalar(Value::Float(_), _) => "float",
            Item::Scalar(Value::Boolean(_), _) => "boolean",
            Item::Scalar(Value::Datetime(_), _) => "datetime",
            Item::Scalar(_, _) | Item::Array(..) => "array",
            Item::Inline(..) => "inline table",
            Item::Table(_) => "table",
            Item::TableArray(_) => "array of tables",
        }
    }
}

impl Building {
    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.key == key)
    }

    /// `toml_edit`'s `descend_path`: the table `path` names under `self`, creating
    /// implicit tables (dotted ones for a dotted key); through an array of tables,
    /// its last table.
    fn descend(&mut self, path: &[Key], dotted: bool) -> Result<&mut Building, SyntaxError> {
        let mut table = self;
        for (key, span) in path {
            let i = match table.position(key) {
                Some(i) => i,
                None => {
                    let created = Building { implicit: true, dotted, ..Building::default() };
                    table.entries.push(Entry { key: key.clone(), span: *span, value: Item::Table(created) });
                    table.entries.len() - 1
                }
            };
            let Some(entry) = table.entries.get_mut(i) else { return Err(SyntaxError::at("duplicate key", *span)) };
            table = match &mut entry.value {
                Item::TableArray(items) => match items.last_mut() {
                    Some(last) => last,
                    None => return Err(SyntaxError::at("duplicate key", *span)),
                },
                Item::Table(child) => {
                    if dotted && child.implicit {
                        child.dotted = true;
                    }
                    if dotted && !child.implicit {
                        return Err(SyntaxError::at("duplicate key", *span));
                    }
                    child
                }
                value => {
                    let message = format!("cannot extend value of type {} with a dotted key", value.type_name());
                    return Err(SyntaxError::at(message, *span));
                }
            };
        }
        Ok(table)
    }
}

/// A `[header]` or `[[header]]` being filled.
struct Header {
    parents: Vec<Key>,
    key: Key,
    span: Span,
    is_array: bool,
}

#[derive(Default)]
struct State {
    root: Building,
    current: Building,
    header: Option<Header>,
}

impl State {
    /// `toml_edit`'s `capture_key_value`.
    fn key_value(&mut self, path: Vec<Key>, key: Key, value: Item) -> Result<(), SyntaxError> {
        let dotted = !path.is_empty();
        let parent = self.current.descend(&path, dotted)?;
        if dotted && !parent.implicit {
            return Err(SyntaxError::at("duplicate key", key.1));
        }
        if parent.position(&key.0).is_some() {
            return Err(SyntaxError::at("duplicate key", key.1));
        }
        parent.entries.push(Entry { key: key.0, span: key.1, value });
        Ok(())
    }

    /// `toml_edit`'s `finish_table`: the table just filled goes where its header says.
    fn finish_table(&mut self) -> Result<(), SyntaxError> {
        let mut table = std::mem::take(&mut self.current);
        let Some(header) = self.header.take() else {
            // Key-values before the first header are the root's.
            self.root = table;
            return Ok(());
        };
        table.header = Some(header.span.start());
        let parent = self.root.descend(&header.parents, false)?;
        let (key, span) = header.key;
        if header.is_array {
            let i = match parent.position(&key) {
                Some(i) => i,
                None => {
                    parent.entries.push(Entry { key, span, value: Item::TableArray(Vec::new()) });
                    parent.entries.len() - 1
                }
            };
            match parent.entries.get_mut(i).map(|e| &mut e.value) {
                Some(Item::TableArray(items)) => items.push(table),
                _ => return Err(SyntaxError::at("duplicate key", span)),
            }
        } else {
            parent.entries.push(Entry { key, span, value: Item::Table(table) });
        }
        Ok(())
    }

    /// `toml_edit`'s `start_table`: a `[header]` may reopen an implicit table (it moves
    /// to the end of its parent, keeping its children); any other table, value or
    /// array there is a duplicate.
    fn start_table(&mut self, header: Header) -> Result<(), SyntaxError> {
        if !header.is_array {
            let parent = self.root.descend(&header.parents, false)?;
            if let Some(i) = parent.position(&header.key.0) {
                let old = parent.entries.remove(i);
                match old.value {
                    Item::Table(t) if t.implicit && !t.dotted => self.current = t,
                    _ => return Err(SyntaxError::at("duplicate key", header.key.1)),
                }
            }
        }
        self.current.implicit = false;
        self.current.dotted = false;
        self.header = Some(header);
        Ok(())
    }
}

struct Builder<'e, 's> {
    events: &'e [Event],
    at: usize,
    source: Source<'s>,
    state: State,
    /// The depth of the table being filled (its header's keys; 0 for the root).
    base: usize,
}

/// The parser already refused malformed input; an event stream that still does not
/// fit is reported rather than trusted.
fn unexpected(event: Option<Event>) -> SyntaxError {
    SyntaxError { message: "unexpected content".into(), span: event.map(|e| e.span().start()..e.span().end()), too_deep: false }
}

impl<'s> Builder<'_, 's> {
    fn next(&mut self) -> Option<Event> {
        let e = self.events.get(self.at).copied();
        self.at += 1;
        e
    }

    fn peek(&self) -> Option<EventKind> {
        self.events.get(self.at).map(Event::kind)
    }

    /// Skips whitespace (and, where `lines`, comments and newlines).
    fn skip(&mut self, lines: bool) {
        while let Some(k) = self.peek() {
            match k {
                EventKind::Whitespace => {}
                EventKind::Comment | EventKind::Newline if lines => {}
                _ => break,
            }
            self.at += 1;
        }
    }

    /// toml = expression *( newline expression ).
    fn document(mut self) -> Result<Building, SyntaxError> {
        while let Some(event) = self.next() {
            match event.kind() {
                EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
                EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                    self.state.finish_table()?;
                    let header = self.header(event)?;
                    self.base = header.parents.len() + 1;
                    if self.base > DEPTH_LIMIT {
                        let first = header.parents.get(DEPTH_LIMIT).map_or(header.key.1, |k| k.1);
                        return Err(SyntaxError::too_deep(first));
                    }
                    self.state.start_table(header)?;
                }
                EventKind::SimpleKey => {
                    let (path, key, value) = self.key_value(event, false, self.base)?;
                    self.state.key_value(path, key, value)?;
                }
                _ => return Err(unexpected(Some(event))),
            }
        }
        self.state.finish_table()?;
        Ok(self.state.root)
    }

    /// A header's keys, up to its closing bracket.
    fn header(&mut self, open: Event) -> Result<Header, SyntaxError> {
        self.skip(false);
        let first = self.next();
        let Some(first) = first.filter(|e| e.kind() == EventKind::SimpleKey) else { return Err(unexpected(first)) };
        let (parents, key) = self.key_path(first)?;
        self.skip(false);
        let close = self.next();
        match close {
            Some(c) if matches!(c.kind(), EventKind::StdTableClose | EventKind::ArrayTableClose) => Ok(Header {
                parents,
                key,
                span: open.span().append(c.span()),
                is_array: open.kind() == EventKind::ArrayTableOpen,
            }),
            _ => Err(unexpected(close)),
        }
    }

    /// keyval = key keyval-sep val, from its first key, in a table at depth `depth`;
    /// `lines`: comments and newlines may sit between (inside an inline table).
    fn key_value(&mut self, first: Event, lines: bool, depth: usize) -> Result<(Vec<Key>, Key, Item), SyntaxError> {
        let (path, key) = self.key_path(first)?;
        if depth + path.len() + 1 > DEPTH_LIMIT {
            // The first key past the limit.
            let first = path.get(DEPTH_LIMIT.saturating_sub(depth)).map_or(key.1, |k| k.1);
            return Err(SyntaxError::too_deep(first));
        }
        let depth = depth + path.len() + 1;
        self.skip(lines);
        let sep = self.next();
        if sep.map(|e| e.kind()) != Some(EventKind::KeyValSep) {
            return Err(unexpected(sep));
        }
        self.skip(lines);
        Ok((path, key, self.value(depth)?))
    }

    /// simple-key *( ws key-sep ws simple-key ): the parents and the last key.
    fn key_path(&mut self, first: Event) -> Result<(Vec<Key>, Key), SyntaxError> {
        let mut path = vec![self.key(first)?];
        loop {
            let save = self.at;
            self.skip(false);
            if self.peek() != Some(EventKind::KeySep) {
                self.at = save;
                break;
            }
            self.at += 1;
            self.skip(false);
            let key = self.next();
            match key {
                Some(k) if k.kind() == EventKind::SimpleKey => path.push(self.key(k)?),
                _ => return Err(unexpected(key)),
            }
        }
        let last = path.pop().ok_or_else(|| unexpected(Some(first)))?;
        Ok((path, last))
    }

    fn key(&self, event: Event) -> Result<Key, SyntaxError> {
        let raw = self.source.get(event).ok_or_else(|| unexpected(Some(event)))?;
        let mut errors = FirstError::default();
        let mut out = String::new();
        raw.decode_key(&mut out, &mut errors);
        match errors.0 {
            Some(e) => Err(e),
            None => Ok((out, event.span())),
        }
    }

    /// A value at `depth` (its key's; an array's elements are one deeper).
    fn value(&mut self, depth: usize) -> Result<Item, SyntaxError> {
        let event = self.next().ok_or_else(|| unexpected(None))?;
        if depth > DEPTH_LIMIT {
            return Err(SyntaxError::too_deep(event.span()));
        }
        match event.kind() {
            EventKind::Scalar => self.scalar(event).map(|v| Item::Scalar(v, event.span())),
            EventKind::ArrayOpen => {
                let mut items = Vec::new();
                loop {
                    self.skip(true);
                    match self.peek() {
                        Some(EventKind::ArrayClose) => {
                            let close = self.next().map_or(event.span(), |c| c.span());
                            return Ok(Item::Array(items, event.span().append(close)));
                        }
                        Some(EventKind::ValueSep) => self.at += 1,
                        Some(_) => items.push(self.value(depth + 1)?),
                        None => return Err(unexpected(None)),
                    }
                }
            }
            EventKind::InlineTableOpen => self.inline_table(event, depth),
            _ => Err(unexpected(Some(event))),
        }
    }

    /// `toml_edit`'s `on_inline_table` (the table at `depth`): each key-value is added
    /// once its value ends.
    fn inline_table(&mut self, open: Event, depth: usize) -> Result<Item, SyntaxError> {
        let mut table = Inline::default();
        loop {
            self.skip(true);
            let next = self.next();
            let Some(next) = next else { return Err(unexpected(None)) };
            match next.kind() {
                EventKind::InlineTableClose => return Ok(Item::Inline(table, open.span().append(next.span()))),
                EventKind::ValueSep => {}
                EventKind::SimpleKey => {
                    let (path, key, value) = self.key_value(next, true, depth)?;
                    inline_insert(&mut table, &path, key, value)?;
                }
                _ => return Err(unexpected(Some(next))),
            }
        }
    }

    /// A string, integer, float, boolean or datetime, read as `toml_edit` reads it.
    fn scalar(&self, event: Event) -> Result<Value, SyntaxError> {
        let raw = self.source.get(event).ok_or_else(|| unexpected(Some(event)))?;
        let mut errors = FirstError::default();
        let mut decoded: Cow<'s, str> = Cow::Borrowed("");
        let kind = raw.decode_scalar(&mut decoded, &mut errors);
        if let Some(e) = errors.0 {
            return Err(e);
        }
        match kind {
            ScalarKind::String => Ok(Value::String(decoded.into_owned())),
            ScalarKind::Boolean(b) => Ok(Value::Boolean(b)),
            ScalarKind::Integer(radix) => i64::from_str_radix(&decoded, radix.value())
                .map(Value::Integer)
                .map_err(|_| SyntaxError::at("integer number overflowed", event.span())),
            ScalarKind::Float => match decoded.parse::<f64>() {
                Ok(f) => {
                    let spelled = decoded.strip_prefix(['+', '-']).unwrap_or(&decoded).chars().all(|c| c.is_ascii_alphabetic());
                    if f.is_infinite() && !spelled {
                        Err(SyntaxError::at("floating-point number overflowed", event.span()))
                    } else {
                        Ok(Value::Float(f))
                    }
                }
                Err(_) => Err(SyntaxError::at(kind.invalid_description(), event.span())),
            },
            ScalarKind::DateTime => match super::datetime::normalize(&decoded) {
                Ok(d) => Ok(Value::Datetime(d)),
                Err(e) => Err(SyntaxError::at(e, event.span())),
            },
        }
    }
}

/// `toml_edit`'s inline `descend_path` and `finish_value`.
fn inline_insert(table: &mut Inline, path: &[Key], key: Key, value: Item) -> Result<(), SyntaxError> {
    let mut t = table;
    for (k, span) in path {
        let i = match t.entries.iter().position(|(e, _, _)| e == k) {
            Some(i) => i,
            None => {
                let created = Inline { implicit: true, dotted: true, ..Inline::default() };
                t.entries.push((k.clone(), *span, Item::Inline(created, *span)));
                t.entries.len() - 1
            }
        };
        t = match t.entries.get_mut(i).map(|e| &mut e.2) {
            Some(Item::Inline(child, _)) => {
                if !child.implicit {
                    return Err(SyntaxError::at("duplicate key", *span));
                }
                child
            }
            Some(other) => {
                let message = format!("cannot extend value of type {} with a dotted key", other.type_name());
                return Err(SyntaxError::at(message, *span));
            }
            None => return Err(SyntaxError::at("duplicate key", *span)),
        };
    }
    if t.dotted == path.is_empty() {
        return Err(SyntaxError::at("duplicate key", key.1));
    }
    if t.entries.iter().any(|(e, _, _)| *e == key.0) {
        return Err(SyntaxError::at("duplicate key", key.1));
    }
    t.entries.push((key.0, key.1, value));
    Ok(())
}

/// The finished tree with `file`:line:column origins.
struct Origins<'a> {
    file: &'a Arc<str>,
    index: &'a LineIndex<'a>,
}

impl Origins<'_> {
    fn at(&self, offset: usize) -> Origin {
        let (line, column) = self.index.position(offset);
        Origin { file: self.file.clone(), line, column }
    }

    fn table(&self, t: Building) -> Table {
        let mut out = Table::new();
        out.entries.reserve(t.entries.len());
        for e in t.entries {
            let key_origin = self.at(e.span.start());
            out.entries.push((e.key, self.item(e.value, Some(key_origin))));
        }
        out
    }

    fn item(&self, item: Item, key_origin: Option<Origin>) -> Node {
        match item {
            Item::Scalar(value, span) => Node::new(value, key_origin.or_else(|| Some(self.at(span.start())))),
            Item::Array(items, span) => {
                let items = items.into_iter().map(|i| self.item(i, None)).collect();
                Node::new(Value::Array(items), key_origin.or_else(|| Some(self.at(span.start()))))
            }
            Item::Inline(inline, span) => {
                let mut table = Table::new();
                for (k, kspan, v) in inline.entries {
                    let ko = self.at(kspan.start());
                    table.entries.push((k, self.item(v, Some(ko))));
                }
                Node::new(Value::Table(table), key_origin.or_else(|| Some(self.at(span.start()))))
            }
            Item::Table(t) => {
                let header = if t.implicit || t.dotted { None } else { t.header };
                let table = self.table(t);
                let origin = match header {
                    Some(open) => Some(self.at(open)),
                    None => first_origin(&table).or(key_origin),
                };
                Node::new(Value::Table(table), origin)
            }
            Item::TableArray(items) => {
                let items: Vec<Node> = items
                    .into_iter()
                    .map(|t| {
                        let origin = t.header.map(|open| self.at(open));
                        Node::new(Value::Table(self.table(t)), origin)
                    })
                    .collect();
                let origin = items.first().and_then(|n| n.origin.clone()).or(key_origin);
                Node::new(Value::Array(items), origin)
            }
        }
    }
}

/// The earliest origin among `t`'s entries (where an implicit table points).
fn first_origin(t: &Table) -> Option<Origin> {
    t.entries.iter().filter_map(|(_, n)| n.origin.clone()).min_by_key(|o| (o.line, o.column))
}

#[cfg(test)]
mod tests {
    //! The builder against `toml_edit` (the oracle): on every TOML file of the goldens,
    //! the scenarios, the embedded defaults and the lab's data, on hand-written corner
    //! cases, and on thousands of line-level mutations of them (duplicated, dropped,
    //! swapped, re-indented and cut lines make reopened tables, duplicate keys and
    //! broken syntax). Both must read the same table (keys, order, values and every
    //! origin) or refuse the text with the same first error (text and span).

    use std::path::{Path, PathBuf};

    use super::*;

    /// The control characters' escapes are the standard library's.
    #[test]
    fn control_characters_escape_as_rust_does() {
        for c in (0u8..0x20).chain([0x7f]).map(char::from) {
            assert_eq!(escape_control(&c.to_string()), c.escape_debug().to_string(), "{:x}", u32::from(c));
        }
    }

    fn same(path: &str, a: &Table, b: &Table) -> Result<(), String> {
        if a.entries.len() != b.entries.len() {
            return Err(format!("{path}: {} entries vs {}", a.entries.len(), b.entries.len()));
        }
        for ((ka, na), (kb, nb)) in a.entries.iter().zip(&b.entries) {
            let p = format!("{path}.{ka}");
            if ka != kb {
                return Err(format!("{path}: key {ka:?} vs {kb:?}"));
            }
            same_node(&p, na, nb)?;
        }
        Ok(())
    }

    fn same_node(path: &str, a: &Node, b: &Node) -> Result<(), String> {
        if a.origin != b.origin {
            return Err(format!("{path}: origin {:?} vs {:?}", a.origin, b.origin));
        }
        match (&a.value, &b.value) {
            (Value::Table(x), Value::Table(y)) => same(path, x, y),
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return Err(format!("{path}: array of {} vs {}", x.len(), y.len()));
                }
                x.iter().zip(y).enumerate().try_for_each(|(i, (p, q))| same_node(&format!("{path}[{i}]"), p, q))
            }
            (x, y) if x == y => Ok(()),
            (x, y) => Err(format!("{path}: {x:?} vs {y:?}")),
        }
    }

    /// `Ok(true)`: both read a table, the same; `Ok(false)`: both refuse the text with
    /// the same first error; an `Err` is a disagreement.
    fn check(name: &str, text: &str) -> Result<bool, String> {
        let file: Arc<str> = Arc::from("/etc/containerd/config.toml");
        let index = LineIndex::new(text);
        let ours = parse(&file, text, &index);
        let oracle = toml_edit_oracle::parse(file, text, &index);
        match (ours, oracle) {
            (Ok(a), Ok(b)) => same("", &a, &b).map(|()| true).map_err(|e| format!("{name}: {e}\n---\n{text}")),
            (Err(a), Err(b)) if a == b => Ok(false),
            (a, b) => Err(format!("{name}: {:?}\n  vs toml_edit: {:?}\n---\n{text}", a.err(), b.err())),
        }
    }

    fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                toml_files(&p, out);
            } else if p.extension().is_some_and(|e| e == "toml") && p.file_name().is_some_and(|n| n != "Cargo.toml") {
                out.push(p);
            }
        }
    }

    fn corpus() -> Vec<(String, String)> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // The shared tree beside the repo, or where GPULAB_SHARED says (a worktree).
        let shared = std::env::var_os("GPULAB_SHARED").map_or_else(|| root.join("../../../shared"), PathBuf::from);
        let mut files = Vec::new();
        toml_files(&shared.join("goldens"), &mut files);
        for dir in ["../../scenarios", "../../src/steps/data", "data/containerd"] {
            toml_files(&root.join(dir), &mut files);
        }
        let mut out: Vec<(String, String)> =
            files.iter().filter_map(|p| std::fs::read_to_string(p).ok().map(|t| (p.display().to_string(), t))).collect();
        for (i, case) in CASES.iter().enumerate() {
            out.push((format!("case {i}"), (*case).to_string()));
        }
        out
    }

    const CASES: &[&str] = &[
        "",
        "# only a comment\n",
        "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n",
        "[a.b.c]\nx = 1\n[a]\ny = 2\n",
        "[a]\ny = 2\n[a.b.c]\nx = 1\n[d]\n",
        "[a.b]\nx = 1\n[a.c]\ny = 'lit'\n[z]\n[a.d.e]\n",
        "a.b = 1\na.c = 2\nd = {e = 1, f = [1, 2, {g = \"h\"}]}\n",
        "[t]\na.b = 1\na.c.d = \"x\"\n",
        "[t]\na.b = 1\n[t.a]\nc = 2\n",
        "[[p]]\nx = 1\n[[p]]\nx = 2\n[p.q]\ny = 3\n[[p.r]]\nz = 4\n",
        "[[p]]\n[a]\n[[p]]\nk = 'v'\n",
        "x = [\n  1, # one\n  2,\n]\ny = [[1, 2], [\"a\"], []]\nz = {}\n",
        "\"quoted key\" = 1\n'lit.key' = 2\n\"a\\tb\" = 3\n[\"q.t\".'r']\ns = \"\\u00e9\\n\"\n",
        "n = 0x1F\no = 0o17\nb = 0b101\nu = 1_000\nneg = -5\nt = true\nf = false\n",
        "big = 9223372036854775808\n",
        "f = 1.5\ng = -0.02\nh = 1e10\ni = inf\nj = -inf\nk = 6.02_2e23\nl = 1e400\n",
        "d = 1979-05-27T07:32:00Z\n",
        "ml = \"\"\"\nline one\nline two\\\n  joined\"\"\"\nlit = '''\nraw \\n'''\n",
        "  [indented.header]   # comment\n    key   =   \"value\"   # trailing\n",
        "a = 1\na = 2\n",
        "[a]\n[a]\n",
        "a = 1\n[a.b]\n",
        "a = {b = 1}\n[a.c]\n",
        "[a]\nb = 1\n[a.b.c]\n",
        "[[a]]\n[a]\n",
        "[a]\n[[a]]\n",
        "x = \"unterminated\n",
        "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n",
        "a = [1, 2\n",
        "= 1\n",
        "a.\"b\".c = 1\na . d = 2\n",
        "k = \"\u{e9}\u{d55c}\u{ae00}\"\n[\"\u{d55c}\"]\nv = 1\n",
        "emptyinline = { }\nnested = { a = { b = { c = 1 } } }\n",
    ];

    /// Line-level and character-level mutations of `text`, from a seeded generator.
    fn mutations(text: &str, seed: u64, n: usize) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        let mut state = seed | 1;
        let mut next = move |m: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % (m.max(1) as u64)).unwrap_or(0)
        };
        let mut out = Vec::new();
        for _ in 0..n {
            let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            for _ in 0..1 + next(3) {
                let len = l.len();
                match next(7) {
                    0 if len > 0 => {
                        let i = next(len);
                        let line = l[i].clone();
                        l.insert(next(len + 1), line);
                    }
                    1 if len > 0 => {
                        l.remove(next(len));
                    }
                    2 if len > 1 => {
                        let (i, j) = (next(len), next(len));
                        l.swap(i, j);
                    }
                    3 if len > 0 => {
                        let i = next(len);
                        l[i] = format!("  {}", l[i].trim_start());
                    }
                    4 if len > 0 => {
                        let i = next(len);
                        let cut = next(l[i].len() + 1);
                        let cut = (0..=cut).rev().find(|c| l[i].is_char_boundary(*c)).unwrap_or(0);
                        l[i].truncate(cut);
                    }
                    5 if len > 0 => {
                        // A character TOML reads as structure, somewhere in a line.
                        let i = next(len);
                        let c = ['[', ']', '=', '"', '\'', '.', '{', '}', ',', '#', ' ', '\\', '1'][next(13)];
                        let at = next(l[i].len() + 1);
                        let at = (0..=at).rev().find(|a| l[i].is_char_boundary(*a)).unwrap_or(0);
                        l[i].insert(at, c);
                    }
                    _ => l.push(String::new()),
                }
            }
            out.push(l.join("\n") + "\n");
        }
        out
    }

    #[test]
    fn agrees_with_toml_edit_on_every_corpus_file() {
        let corpus = corpus();
        assert!(corpus.len() > 200, "the goldens are missing ({} files; CI lays ../shared beside the repo)", corpus.len());
        let (mut tables, mut errors) = (0, 0);
        for (name, text) in &corpus {
            match check(name, text) {
                Ok(true) => tables += 1,
                Ok(false) => errors += 1,
                Err(e) => panic!("{e}"),
            }
        }
        // The goldens' syntax-error case and the hand-written broken cases.
        assert!(tables > 250 && errors >= 10, "{tables} tables, {errors} errors");
    }

    #[test]
    fn agrees_with_toml_edit_on_mutated_files() {
        let (mut tables, mut errors) = (0, 0);
        for (k, (name, text)) in corpus().iter().enumerate() {
            for (i, m) in mutations(text, 0x9e37_79b9 ^ k as u64, 20).iter().enumerate() {
                match check(&format!("{name} mutation {i}"), m) {
                    Ok(true) => tables += 1,
                    Ok(false) => errors += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        eprintln!("mutations: {tables} read as tables, {errors} refused, all as toml_edit does");
        assert!(tables > 1000 && errors > 500, "{tables} tables, {errors} errors");
    }

    /// The model's parse as it was built on `toml_edit` (kept as the tests' oracle for
    /// the event builder: same tables, origins and first error).
    mod toml_edit_oracle {
        use toml_edit::{Item, Value as TValue};

        use super::super::{first_origin, LineIndex, Node, Origin, SyntaxError, Table, Value};

        /// `toml_edit::Document::parse`, converted as the model converted it.
        pub fn parse(file: std::sync::Arc<str>, text: &str, index: &LineIndex<'_>) -> Result<Table, SyntaxError> {
            let doc = toml_edit::Document::parse(text)
                .map_err(|e| SyntaxError { message: e.message().to_string(), span: e.span(), too_deep: false })?;
            let conv = Converter { file, index };
            Ok(conv.table(doc.as_table()))
        }

        struct Converter<'a> {
            file: std::sync::Arc<str>,
            index: &'a LineIndex<'a>,
        }

        impl Converter<'_> {
            fn origin(&self, span: Option<std::ops::Range<usize>>) -> Option<Origin> {
                let span = span?;
                let (line, column) = self.index.position(span.start);
                Some(Origin { file: self.file.clone(), line, column })
            }

            fn table(&self, t: &toml_edit::Table) -> Table {
                let mut out = Table::new();
                for (key, item) in t.iter() {
                    let key_origin = t.key(key).and_then(|k| self.origin(k.span()));
                    if let Some(node) = self.item(item, key_origin) {
                        out.entries.push((key.to_string(), node));
                    }
                }
                out
            }

            fn item(&self, item: &Item, key_origin: Option<Origin>) -> Option<Node> {
                match item {
                    Item::None => None,
                    Item::Value(v) => Some(self.value(v, key_origin)),
                    Item::Table(t) => {
                        let table = self.table(t);
                        // A header's own line; an implicit table (`[a.b.c]` makes `a`, `a.b`)
                        // points at its first child instead.
                        let origin = if t.is_implicit() || t.is_dotted() {
                            first_origin(&table).or(key_origin)
                        } else {
                            self.origin(t.span()).or(key_origin)
                        };
                        Some(Node::new(Value::Table(table), origin))
                    }
                    Item::ArrayOfTables(a) => {
                        let items: Vec<Node> = a
                            .iter()
                            .map(|t| Node::new(Value::Table(self.table(t)), self.origin(t.span())))
                            .collect();
                        let origin = items.first().and_then(|n| n.origin.clone()).or(key_origin);
                        Some(Node::new(Value::Array(items), origin))
                    }
                }
            }

            fn value(&self, v: &TValue, origin: Option<Origin>) -> Node {
                let origin = origin.or_else(|| self.origin(v.span()));
                let value = match v {
                    TValue::String(s) => Value::String(s.value().clone()),
                    TValue::Integer(i) => Value::Integer(*i.value()),
                    TValue::Float(f) => Value::Float(*f.value()),
                    TValue::Boolean(b) => Value::Boolean(*b.value()),
                    TValue::Datetime(d) => Value::Datetime(d.value().to_string()),
                    TValue::Array(a) => Value::Array(a.iter().map(|e| self.value(e, None)).collect()),
                    TValue::InlineTable(t) => {
                        let mut out = Table::new();
                        for (key, item) in t.iter() {
                            let key_origin = t.key(key).and_then(|k| self.origin(k.span()));
                            out.entries.push((key.to_string(), self.value(item, key_origin)));
                        }
                        Value::Table(out)
                    }
                };
                Node::new(value, origin)
            }
        }
    }
}
