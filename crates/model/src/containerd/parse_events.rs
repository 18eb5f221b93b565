//! The fast path of [`super::parse::parse`]: TOML → [`Table`] straight from
//! `toml_parser`'s events, without building a `toml_edit` document first.
//!
//! `toml_edit` keeps every key's and value's formatting so a document can be edited
//! and written back; the model needs none of that, and building it was half of a
//! keystroke's work on a 1,000-line config. This builder reads the same event stream
//! `toml_edit` reads (same lexer, same parser, same whitespace and nesting checks) and
//! builds the value tree with the same origins.
//!
//! It handles the TOML containerd configs are written in — `[table]` and
//! `[[array]]` headers, `key = value` with bare, quoted and dotted keys, strings,
//! integers, booleans, arrays and inline tables — and gives up (`None`) on anything
//! else: any syntax error, floats and datetimes, a header for a table that already
//! exists, a dotted key that reaches into a table it did not create, a key set twice.
//! The caller then parses with `toml_edit`, which reports errors in the words the
//! model maps to go-toml's and handles the rare rest. So the fast path never decides
//! what is an error; the tests hold its tables equal to `toml_edit`'s, origins and
//! order included.

use std::borrow::Cow;
use std::sync::Arc;

use toml_parser::decoder::ScalarKind;
use toml_parser::parser::{Event, EventKind, RecursionGuard, ValidateWhitespace};
use toml_parser::{ParseError as TomlError, Source};

use super::parse::LineIndex;
use super::value::{Node, Origin, Table, Value};

/// `toml_edit`'s nesting limit (arrays and inline tables), so both paths agree on it.
const NESTING_LIMIT: u32 = 80;

/// The table `text` holds, or `None` when the `toml_edit` path must decide.
pub(super) fn parse(file: &Arc<str>, text: &str, index: &LineIndex<'_>) -> Option<Table> {
    let source = Source::new(text);
    let tokens = source.lex().into_vec();
    let mut events: Vec<Event> = Vec::with_capacity(tokens.len());
    let mut failed = false;
    {
        let mut sink = |_: TomlError| failed = true;
        let mut whitespace = ValidateWhitespace::new(&mut events, source);
        let mut guard = RecursionGuard::new(&mut whitespace, NESTING_LIMIT);
        toml_parser::parser::parse_document(&tokens, &mut guard, &mut sink);
    }
    if failed {
        return None;
    }
    let root = Builder { events: &events, at: 0, source }.document()?;
    Some(Origins { file, index }.table(root))
}

/// A table while it is built. `header` is the offset of its `[` when a header
/// defined it; implicit tables (`a` of `[a.b]`) and dotted ones (`a` of `a.b = 1`)
/// have none.
#[derive(Default)]
struct Building {
    entries: Vec<Entry>,
    header: Option<usize>,
    dotted: bool,
}

/// A key (decoded), the offset where it is written, and its value.
struct Entry {
    key: String,
    at: usize,
    value: Item,
}

enum Item {
    /// A string, integer, float or boolean, and its offset.
    Scalar(Value, usize),
    Array(Vec<Item>, usize),
    Inline(Vec<Entry>, usize),
    Table(Building),
    TableArray(Vec<Building>),
}

impl Building {
    fn get_mut(&mut self, key: &str) -> Option<&mut Item> {
        self.entries.iter_mut().find(|e| e.key == key).map(|e| &mut e.value)
    }

    fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|e| e.key == key)
    }

    /// The table a header's parent path names, creating implicit tables as
    /// `toml_edit`'s `descend_path` does (through an array of tables, its last one).
    fn descend_header(&mut self, path: &[(String, usize)]) -> Option<&mut Building> {
        let mut table = self;
        for (key, at) in path {
            if !table.has(key) {
                table.entries.push(Entry { key: key.clone(), at: *at, value: Item::Table(Building::default()) });
            }
            table = match table.get_mut(key)? {
                Item::Table(t) if !t.dotted => t,
                Item::TableArray(items) => items.last_mut()?,
                _ => return None,
            };
        }
        Some(table)
    }

    /// The table a dotted key's path names: only tables this kind of key created.
    fn descend_dotted(&mut self, path: &[(String, usize)]) -> Option<&mut Building> {
        let mut table = self;
        for (key, at) in path {
            if !table.has(key) {
                let created = Building { dotted: true, ..Building::default() };
                table.entries.push(Entry { key: key.clone(), at: *at, value: Item::Table(created) });
            }
            table = match table.get_mut(key)? {
                Item::Table(t) if t.dotted => t,
                _ => return None,
            };
        }
        Some(table)
    }

    /// Adds `key = value`; a key already there is for `toml_edit` to report.
    fn insert(&mut self, key: String, at: usize, value: Item) -> Option<()> {
        if self.has(&key) {
            return None;
        }
        self.entries.push(Entry { key, at, value });
        Some(())
    }
}

/// A `[header]` or `[[header]]` being filled.
struct Header {
    path: Vec<(String, usize)>,
    open: usize,
    is_array: bool,
}

struct Builder<'e, 's> {
    events: &'e [Event],
    at: usize,
    source: Source<'s>,
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

    /// toml = expression *( newline expression ), into the root table.
    fn document(&mut self) -> Option<Building> {
        let mut root = Building::default();
        let mut current = Building::default();
        let mut header: Option<Header> = None;
        while let Some(event) = self.next() {
            match event.kind() {
                EventKind::Whitespace | EventKind::Comment | EventKind::Newline => {}
                EventKind::StdTableOpen | EventKind::ArrayTableOpen => {
                    let done = std::mem::take(&mut current);
                    finish(&mut root, header.take(), done)?;
                    let path = self.header_path()?;
                    let is_array = event.kind() == EventKind::ArrayTableOpen;
                    current.header = Some(event.span().start());
                    header = Some(Header { path, open: event.span().start(), is_array });
                }
                EventKind::SimpleKey => {
                    let path = self.key_path(event)?;
                    self.skip(false);
                    if self.next()?.kind() != EventKind::KeyValSep {
                        return None;
                    }
                    self.skip(false);
                    let value = self.value()?;
                    let (parents, last) = path.split_last_or_none()?;
                    let (key, at) = last;
                    current.descend_dotted(parents)?.insert(key.clone(), *at, value)?;
                }
                _ => return None,
            }
        }
        if header.is_none() {
            // No header at all: the key-values were the root's.
            return Some(current);
        }
        finish(&mut root, header, current)?;
        Some(root)
    }

    /// The keys of a header, up to its closing bracket.
    fn header_path(&mut self) -> Option<Vec<(String, usize)>> {
        self.skip(false);
        let first = self.next()?;
        if first.kind() != EventKind::SimpleKey {
            return None;
        }
        let path = self.key_path(first)?;
        self.skip(false);
        match self.next()?.kind() {
            EventKind::StdTableClose | EventKind::ArrayTableClose => Some(path),
            _ => None,
        }
    }

    /// simple-key *( ws key-sep ws simple-key ), starting at `first`.
    fn key_path(&mut self, first: Event) -> Option<Vec<(String, usize)>> {
        let mut path = vec![self.key(first)?];
        loop {
            let save = self.at;
            self.skip(false);
            if self.peek() != Some(EventKind::KeySep) {
                self.at = save;
                return Some(path);
            }
            self.at += 1;
            self.skip(false);
            let key = self.next()?;
            if key.kind() != EventKind::SimpleKey {
                return None;
            }
            path.push(self.key(key)?);
        }
    }

    fn key(&self, event: Event) -> Option<(String, usize)> {
        let raw = self.source.get(event)?;
        let mut failed = false;
        let mut out = String::new();
        raw.decode_key(&mut out, &mut |_: TomlError| failed = true);
        (!failed).then_some((out, event.span().start()))
    }

    fn value(&mut self) -> Option<Item> {
        let event = self.next()?;
        let start = event.span().start();
        match event.kind() {
            EventKind::Scalar => self.scalar(event).map(|v| Item::Scalar(v, start)),
            EventKind::ArrayOpen => {
                let mut items = Vec::new();
                loop {
                    self.skip(true);
                    match self.peek()? {
                        EventKind::ArrayClose => {
                            self.at += 1;
                            return Some(Item::Array(items, start));
                        }
                        EventKind::ValueSep => self.at += 1,
                        _ => items.push(self.value()?),
                    }
                }
            }
            EventKind::InlineTableOpen => {
                let mut table = Building::default();
                loop {
                    self.skip(false);
                    let next = self.next()?;
                    match next.kind() {
                        EventKind::InlineTableClose => return Some(Item::Inline(table.entries, start)),
                        EventKind::ValueSep => {}
                        EventKind::SimpleKey => {
                            let path = self.key_path(next)?;
                            // Dotted keys inside inline tables: left to toml_edit.
                            let [(key, at)] = <[(String, usize); 1]>::try_from(path).ok()?;
                            self.skip(false);
                            if self.next()?.kind() != EventKind::KeyValSep {
                                return None;
                            }
                            self.skip(false);
                            let value = self.value()?;
                            table.insert(key, at, value)?;
                        }
                        _ => return None,
                    }
                }
            }
            _ => None,
        }
    }

    /// A string, integer, float or boolean; `None` for datetimes (and errors).
    fn scalar(&self, event: Event) -> Option<Value> {
        let raw = self.source.get(event)?;
        let mut failed = false;
        let mut decoded: Cow<'s, str> = Cow::Borrowed("");
        let kind = raw.decode_scalar(&mut decoded, &mut |_: TomlError| failed = true);
        if failed {
            return None;
        }
        match kind {
            ScalarKind::String => Some(Value::String(decoded.into_owned())),
            ScalarKind::Boolean(b) => Some(Value::Boolean(b)),
            ScalarKind::Integer(radix) => i64::from_str_radix(&decoded, radix.value()).ok().map(Value::Integer),
            // As toml_edit reads a float: an infinity is an overflow unless spelled `inf`.
            ScalarKind::Float => {
                let f = decoded.parse::<f64>().ok()?;
                let spelled = decoded.strip_prefix(['+', '-']).unwrap_or(&decoded).chars().all(|c| c.is_ascii_alphabetic());
                (!f.is_infinite() || spelled).then_some(Value::Float(f))
            }
            ScalarKind::DateTime => None,
        }
    }
}

/// Puts a finished header's table where its header says (the root keeps the
/// key-values before the first header).
fn finish(root: &mut Building, header: Option<Header>, table: Building) -> Option<()> {
    let Some(header) = header else {
        // Key-values before the first header belong to the root itself.
        root.entries = table.entries;
        return Some(());
    };
    let (parents, (key, at)) = header.path.split_last_or_none()?;
    let parent = root.descend_header(parents)?;
    if header.is_array {
        let mut table = table;
        table.header = Some(header.open);
        if !parent.has(key) {
            parent.entries.push(Entry { key: key.clone(), at: *at, value: Item::TableArray(Vec::new()) });
        }
        match parent.get_mut(key)? {
            Item::TableArray(items) => items.push(table),
            _ => return None,
        }
        Some(())
    } else {
        parent.insert(key.clone(), *at, Item::Table(table))
    }
}

trait SplitLast<T> {
    fn split_last_or_none(&self) -> Option<(&[T], &T)>;
}

impl<T> SplitLast<T> for Vec<T> {
    fn split_last_or_none(&self) -> Option<(&[T], &T)> {
        self.split_last().map(|(last, parents)| (parents, last))
    }
}

/// The finished tree with `file`:line:column origins, as `parse`'s `toml_edit`
/// converter gives them: a value at its key; a header table at its `[`; an implicit or
/// dotted table at its first child (else its key); an array element at itself.
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
            let key_origin = self.at(e.at);
            out.entries.push((e.key, self.item(e.value, Some(key_origin))));
        }
        out
    }

    fn item(&self, item: Item, key_origin: Option<Origin>) -> Node {
        match item {
            Item::Scalar(value, at) => Node::new(value, key_origin.or_else(|| Some(self.at(at)))),
            Item::Array(items, at) => {
                let items = items.into_iter().map(|i| self.item(i, None)).collect();
                Node::new(Value::Array(items), key_origin.or_else(|| Some(self.at(at))))
            }
            Item::Inline(entries, at) => {
                let table = self.table(Building { entries, header: None, dotted: false });
                Node::new(Value::Table(table), key_origin.or_else(|| Some(self.at(at))))
            }
            Item::Table(t) => {
                let header = t.header;
                let table = self.table(t);
                let origin = match header {
                    Some(open) => Some(self.at(open)),
                    None => super::parse::first_origin(&table).or(key_origin),
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

#[cfg(test)]
mod tests {
    //! The fast path against the `toml_edit` path: on every TOML file of the goldens,
    //! the scenarios, the embedded defaults and the lab's data, on hand-written corner
    //! cases, and on thousands of line-level mutations of them (duplicated, dropped,
    //! swapped and re-indented lines make reopened tables, duplicate keys and broken
    //! syntax). Wherever the fast path answers, `toml_edit` must accept the same text
    //! and give the same table: keys, order, values and every origin.

    use std::path::{Path, PathBuf};

    use super::*;
    use crate::containerd::parse::toml_document;

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

    /// `Some(true)`: the fast path answered and agrees; `Some(false)`: it left the
    /// text to `toml_edit`; an `Err` is a disagreement.
    fn check(name: &str, text: &str) -> Result<bool, String> {
        let file: Arc<str> = Arc::from("/etc/containerd/config.toml");
        let index = LineIndex::new(text);
        let fast = parse(&file, text, &index);
        let slow = toml_document(file, text, &index);
        match (fast, slow) {
            (None, _) => Ok(false),
            (Some(f), Ok(s)) => same("", &f, &s).map(|()| true).map_err(|e| format!("{name}: {e}\n---\n{text}")),
            (Some(_), Err(e)) => Err(format!("{name}: the fast path accepted what toml_edit refuses ({e:?})\n---\n{text}")),
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
        let mut files = Vec::new();
        for dir in ["../../../shared/goldens", "../../scenarios", "../../src/steps/data", "data/containerd"] {
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

    /// Line-level mutations of `text`, from a seeded generator.
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
                match next(6) {
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
        let mut fast = 0;
        for (name, text) in &corpus {
            if check(name, text).unwrap_or_else(|e| panic!("{e}")) {
                fast += 1;
            }
        }
        // Nearly every real file takes the fast path (floats, datetimes and the
        // broken cases do not).
        assert!(fast * 10 >= corpus.len() * 9, "only {fast} of {} files took the fast path", corpus.len());
    }

    #[test]
    fn agrees_with_toml_edit_on_mutated_files() {
        let mut answered = 0;
        let mut left = 0;
        for (k, (name, text)) in corpus().iter().enumerate() {
            for (i, m) in mutations(text, 0x9e37_79b9 ^ k as u64, 12).iter().enumerate() {
                match check(&format!("{name} mutation {i}"), m) {
                    Ok(true) => answered += 1,
                    Ok(false) => left += 1,
                    Err(e) => panic!("{e}"),
                }
            }
        }
        eprintln!("mutations: {answered} answered by the fast path, {left} left to toml_edit");
        assert!(answered > 1000 && left > 100, "{answered} answered, {left} left to toml_edit");
    }
}
