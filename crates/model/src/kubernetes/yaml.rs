//! Kubernetes manifests from YAML: multi-document files (and `kind: List`) into
//! k8s-openapi objects (Node, Pod, RuntimeClass, DaemonSet, ConfigMap, Event). DRA's
//! kinds (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice) are
//! recognised here and kept as [`Deferred`] documents, typed by their own entry point
//! ([`super::dra::read`]), so that a reader of the core kinds — the app's on-demand
//! chunk — does not carry their deserialisers. Bad
//! input is a [`Diagnostic`] with file:line:column, never a panic: invalid YAML,
//! missing or unknown `kind`, fields of the wrong shape, quantities that are not
//! quantities.

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{ConfigMap, Event, Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::Metadata;
use serde::de::DeserializeOwned;

use super::quantity::Quantity;
use super::scheduler::snapshot::BoundPod;
use crate::diagnostic::{Diagnostic, Severity, Span};

/// An object and where its document starts.
#[derive(Debug, Clone)]
pub struct Located<T> {
    pub object: T,
    pub span: Span,
}

impl<T: Clone> Located<T> {
    /// A copy `by` lines down ([`Span::moved_down`]).
    pub fn moved_down(&self, by: u32) -> Located<T> {
        Located { object: self.object.clone(), span: self.span.moved_down(by) }
    }
}

/// Every object of one or more manifest files, by kind, in file order.
#[derive(Debug, Clone, Default)]
pub struct Manifests {
    pub nodes: Vec<Located<Node>>,
    pub pods: Vec<Located<Pod>>,
    pub runtime_classes: Vec<Located<RuntimeClass>>,
    pub daemon_sets: Vec<Located<DaemonSet>>,
    pub config_maps: Vec<Located<ConfigMap>>,
    pub events: Vec<Located<Event>>,
    /// `resource.k8s.io/v1` (DRA) documents, untyped: [`super::dra::read`] types them.
    pub deferred: Vec<Deferred>,
    /// With [`load_cluster`]: the pods bound to a node (`spec.nodeName` set, not
    /// finished) as the scheduler accounts for them, with their node's name, in file
    /// order — instead of in `pods` as whole objects.
    pub bound: Vec<(String, BoundPod)>,
}

/// A document of a kind with its own entry point, as it was read: its `kind`, its
/// value, and its text for the typed reader's file:line errors.
#[derive(Debug, Clone)]
pub struct Deferred {
    pub kind: String,
    pub value: serde_json::Value,
    pub span: Span,
    doc: Document,
}

impl Deferred {
    /// The object as `T`, or a `k8s-object-invalid` diagnostic at the bad field's line.
    #[allow(clippy::result_large_err)] // a Diagnostic is the error value by design
    pub fn typed<T: DeserializeOwned + Metadata<Ty = ObjectMeta>>(&self) -> Result<Located<T>, Diagnostic> {
        let object = typed(&self.span.file, &self.doc, self.value.clone())?;
        Ok(Located { object, span: self.span.clone() })
    }

    /// The line (1-based, in the file) of `name: value` in this document, else its first line.
    pub fn line_of_entry(&self, name: &str, value: &str) -> u32 {
        line_of_entry(&self.doc, name, value)
    }

    /// The document it was read from ([`split`]'s piece).
    pub fn document(&self) -> &Document {
        &self.doc
    }
}

/// The kinds read through their own entry point ([`Deferred`]).
pub const DEFERRED_KINDS: [&str; 4] = ["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"];

impl Manifests {
    /// Appends another file's objects.
    pub fn extend(&mut self, other: Manifests) {
        self.nodes.extend(other.nodes);
        self.pods.extend(other.pods);
        self.runtime_classes.extend(other.runtime_classes);
        self.daemon_sets.extend(other.daemon_sets);
        self.config_maps.extend(other.config_maps);
        self.events.extend(other.events);
        self.deferred.extend(other.deferred);
        self.bound.extend(other.bound);
    }

    /// Appends copies of the objects of `other` (a piece of a file read on its own at
    /// line 1) `by` lines down, at its place in the file. Its DRA documents stay with
    /// it: they are typed from `other` ([`super::dra::read`]), then moved.
    pub fn extend_moved(&mut self, other: &Manifests, by: u32) {
        fn moved<T: Clone>(list: &[Located<T>], by: u32) -> impl Iterator<Item = Located<T>> + '_ {
            list.iter().map(move |l| l.moved_down(by))
        }
        self.nodes.extend(moved(&other.nodes, by));
        self.pods.extend(moved(&other.pods, by));
        self.runtime_classes.extend(moved(&other.runtime_classes, by));
        self.daemon_sets.extend(moved(&other.daemon_sets, by));
        self.config_maps.extend(moved(&other.config_maps, by));
        self.events.extend(moved(&other.events, by));
        self.bound.extend(other.bound.iter().cloned());
    }
}

/// The kinds the lab reads.
pub const KINDS: [&str; 10] = [
    "Node",
    "Pod",
    "RuntimeClass",
    "DaemonSet",
    "ConfigMap",
    "Event",
    "DeviceClass",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "ResourceSlice",
];

/// A piece of a file that loads on its own ([`split`]): a YAML document, an item of
/// a `kind: List` (`kubectl get -o yaml`, or `-o json`), or a whole JSON object; its
/// text, the line (1-based) it starts on, and the columns its lines were dedented by
/// (a YAML List item's two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    text: String,
    first_line: u32,
    indent: u32,
    /// JSON text (read with serde_json), else YAML.
    json: bool,
    /// An item of a `kind: List`: a Secret there is skipped unread ([`SKIPPED_IN_LISTS`]).
    list_item: bool,
}

impl Document {
    /// Its text's length in bytes (what reading it costs, for cutting a file into
    /// equal shares).
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether its text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Its text (a List item's dedented, `metadata.managedFields` lines left empty):
    /// its line `n` (1-based) is the file's line [`Self::first_line`]` + n - 1`.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The line (1-based) of the file it starts on.
    pub fn first_line(&self) -> u32 {
        self.first_line
    }

    /// The same piece as if it started on line `first_line` of its file: loading it
    /// ([`load_pieces`]) gives what loading it where it is gives, every line moved by
    /// the difference (a caller keeping the readings of a file's unchanged pieces
    /// across edits reads each piece once, at line 1).
    pub fn at_line(self, first_line: u32) -> Document {
        Document { first_line, ..self }
    }
}

/// The kinds a kubectl dump's List may hold that the lab skips without reading them:
/// a Secret's data is never parsed, kept or shown (`kubectl get nodes,pods,secrets`).
pub const SKIPPED_IN_LISTS: [&str; 1] = ["Secret"];

/// Splits at `---` lines (the YAML document marker at column 1).
fn split_documents(text: &str) -> Vec<Document> {
    if text.contains('\r') || text.contains("managedFields") {
        split_documents_by_line(text)
    } else {
        split_documents_whole(text)
    }
}

/// [`split_documents`] of a text without `\r` and without `managedFields`, where every
/// line of a document is the text's line as it is: the markers found by searching,
/// each document's lines copied at once (a 1,000-device objects file is read at every
/// edit of it; line by line was a fifth of that).
fn split_documents_whole(text: &str) -> Vec<Document> {
    let mut docs = Vec::new();
    let at_start = text.starts_with("---").then_some(0);
    let markers = at_start.into_iter().chain(text.match_indices("\n---").map(|(i, _)| i + 1));
    // Where the current document's text starts, its first line, and the line there.
    let (mut body, mut first_line, mut line) = (0usize, 1u32, 1u32);
    let mut head = String::new();
    for at in markers {
        let line_end = text.get(at..).and_then(|t| t.find('\n')).map_or(text.len(), |i| at + i);
        let rest = text.get(at + 3..line_end).unwrap_or_default();
        if !(rest.is_empty() || rest.starts_with([' ', '\t', '#'])) {
            continue;
        }
        let before = text.get(body..at).unwrap_or_default();
        docs.push(Document { text: std::mem::take(&mut head) + before, first_line, indent: 0, json: false, list_item: false });
        let marker_line = line + newlines(before);
        first_line = marker_line + 1;
        // A document may start on the marker line (`--- {kind: Pod}`).
        if !rest.trim().is_empty() && !rest.trim_start().starts_with('#') {
            first_line = marker_line;
            head = format!("{rest}\n");
        }
        body = (line_end + 1).min(text.len());
        line = marker_line + 1;
    }
    let mut last = std::mem::take(&mut head) + text.get(body..).unwrap_or_default();
    if !last.is_empty() && !last.ends_with('\n') {
        last.push('\n');
    }
    docs.push(Document { text: last, first_line, indent: 0, json: false, list_item: false });
    docs
}

/// How many `\n` `text` holds.
fn newlines(text: &str) -> u32 {
    text.bytes().filter(|&b| b == b'\n').count() as u32
}

/// [`split_documents`] line by line: `metadata.managedFields` blanked, `\r\n` read as
/// a line end.
fn split_documents_by_line(text: &str) -> Vec<Document> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    let mut first_line = 1u32;
    let mut managed = ManagedFields::default();
    for (i, line) in text.lines().enumerate() {
        let is_marker = line.starts_with("---")
            && line.get(3..).is_none_or(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '#']));
        if is_marker {
            docs.push(Document { text: std::mem::take(&mut cur), first_line, indent: 0, json: false, list_item: false });
            managed = ManagedFields::default();
            first_line = i as u32 + 2;
            // A document may start on the marker line (`--- {kind: Pod}`).
            if let Some(rest) = line.get(3..) {
                if !rest.trim().is_empty() && !rest.trim_start().starts_with('#') {
                    first_line = i as u32 + 1;
                    cur.push_str(rest);
                    cur.push('\n');
                }
            }
            continue;
        }
        if !managed.blanks(line) {
            cur.push_str(line);
        }
        cur.push('\n');
    }
    docs.push(Document { text: cur, first_line, indent: 0, json: false, list_item: false });
    docs
}

/// Finds the lines of `metadata.managedFields` (block style, as kubectl and the API
/// server write it: the key at two columns under a top-level `metadata:`, its entries
/// at two or more), fed a document's lines in order. They are left out of what is
/// parsed — an empty line each, so every other line keeps its number: the server's
/// field bookkeeping is ignored, never read or shown, and in a real dump it is often
/// most of the bytes. (A loaded object's `managedFields` is dropped as well, whatever
/// its style: [`without_managed_fields`].)
#[derive(Default)]
struct ManagedFields {
    in_metadata: bool,
    inside: bool,
}

impl ManagedFields {
    /// Whether `line` (at the document's own indentation) belongs to `metadata.managedFields`.
    fn blanks(&mut self, line: &str) -> bool {
        // Outside managedFields, a line indented deeper than metadata's keys is never
        // one (most lines of a big file: read at every edit of it).
        if !self.inside && line.starts_with("   ") {
            return false;
        }
        let rest = line.trim_start_matches(' ');
        let indent = line.len() - rest.len();
        if self.inside {
            let entry = indent > 2 || (indent == 2 && (rest.starts_with("- ") || rest == "-"));
            if entry || rest.is_empty() || rest.starts_with('#') {
                return true;
            }
            self.inside = false;
        }
        if rest.is_empty() || rest.starts_with('#') {
            return false;
        }
        if indent == 0 {
            self.in_metadata = line.trim_end() == "metadata:";
            return false;
        }
        if self.in_metadata && indent == 2 {
            if let Some(value) = rest.strip_prefix("managedFields:") {
                let value = value.trim();
                self.inside = value.is_empty() || value.starts_with('#');
                return self.inside || value == "[]";
            }
        }
        false
    }
}

/// Whether a document holds only blanks and comments.
fn is_empty_doc(text: &str) -> bool {
    text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "..."
    })
}

fn yaml_error(file: &str, doc: &Document, code: &str, e: &serde_norway::Error) -> Diagnostic {
    let (line, column) =
        e.location().map_or((doc.first_line, 1), |l| (doc.first_line + l.line() as u32 - 1, l.column() as u32 + doc.indent));
    let mut msg = e.to_string();
    // serde_norway appends " at line N column M" (relative to the document); the
    // span carries the absolute place instead.
    if let Some(i) = msg.rfind(" at line ") {
        msg.truncate(i);
    }
    Diagnostic::new(code, Severity::Error).arg("message", msg).at(Span::new(file, line, column))
}

/// A YAML syntax error: go-yaml's text (`yaml: line N: did not find expected key`,
/// N counted within the document, as kubectl's decoder counts it) and the absolute
/// place in the file.
fn syntax_error(file: &str, doc: &Document, e: &serde_norway::Error) -> Diagnostic {
    let go = crate::slots::yaml::go_yaml_error(e);
    Diagnostic::new("k8s-yaml-invalid", Severity::Error)
        .arg("message", go.go_text)
        .at(Span::new(file, doc.first_line + go.line.saturating_sub(1), go.column))
}

/// The line of the first `key:` at the document's top level, else the first line.
fn line_of_key(doc: &Document, key: &str) -> u32 {
    let (yaml, json) = (format!("{key}:"), format!("\"{key}\":"));
    let at = |l: &str| if doc.json { l.trim_start().starts_with(&json) } else { l.starts_with(&yaml) };
    doc.text.lines().position(at).map_or(doc.first_line, |i| doc.first_line + i as u32)
}

/// The line of `name: value` (block or flow style, name or value possibly quoted),
/// for quantities; the document's first line when not found.
fn line_of_entry(doc: &Document, name: &str, value: &str) -> u32 {
    let holds = |line: &str| {
        line.match_indices(name).any(|(i, _)| {
            let rest = line.get(i + name.len()..).unwrap_or("");
            let rest = rest.trim_start_matches(['"', '\'']);
            rest.starts_with(':') && rest.contains(value)
        })
    };
    doc.text.lines().position(holds).map_or(doc.first_line, |i| doc.first_line + i as u32)
}

/// `value` as `T`. Type errors are found by deserialising the YAML text itself, so
/// that serde reports the line of the bad field.
#[allow(clippy::result_large_err)] // a Diagnostic is the error value by design
fn typed<T: DeserializeOwned + Metadata<Ty = ObjectMeta>>(file: &str, doc: &Document, value: serde_json::Value) -> Result<T, Diagnostic> {
    match serde_json::from_value::<T>(value) {
        Ok(v) => Ok(without_managed_fields(v)),
        Err(json) => match serde_norway::from_str::<T>(&doc.text) {
            Err(e) => Err(yaml_error(file, doc, "k8s-object-invalid", &e)),
            // JSON is stricter than YAML's reading of the same text (`"nodeName": 1` is
            // no string in JSON): serde_json's finding, at the object's first line.
            Ok(_) if doc.json => Err(Diagnostic::new("k8s-object-invalid", Severity::Error)
                .arg("message", json.to_string())
                .at(Span::new(file, doc.first_line, 1))),
            Ok(v) => Ok(without_managed_fields(v)),
        },
    }
}

/// The object without `metadata.managedFields`: the API server's field bookkeeping in
/// a dump is not the lab's to keep or show.
fn without_managed_fields<T: Metadata<Ty = ObjectMeta>>(mut object: T) -> T {
    object.metadata_mut().managed_fields = None;
    object
}

/// The value of the document's one top-level `key: X` line (plain or quoted), when
/// the text shows it plainly.
fn top_level_value<'a>(doc: &'a Document, key: &str) -> Option<&'a str> {
    // The lines that start with `key:`, found by searching for the key (a dump's
    // documents are read twice this way; walking every line cost more than the rest).
    let text = doc.text.as_str();
    let mut values = text.match_indices(key).filter_map(|(at, _)| {
        let line_start = at.checked_sub(1).is_none_or(|before| text.as_bytes().get(before) == Some(&b'\n'));
        let rest = text.get(at + key.len()..)?.strip_prefix(':').filter(|_| line_start)?;
        rest.split('\n').next()
    });
    let value = values.next()?.trim();
    if values.next().is_some() {
        return None;
    }
    Some(value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value))
}

/// The items of a `kind: List` as `kubectl get -o yaml` writes it (`items:` then
/// `- ` entries at column 0, each item's lines indented by two), one document per
/// item with its own first line; `None` when the document is not in that shape.
fn list_items(text: &str, first_line: u32) -> Option<Vec<Document>> {
    let mut items: Vec<Document> = Vec::new();
    let (mut in_items, mut seen_items, mut is_list) = (false, false, false);
    let mut managed = ManagedFields::default();
    for (i, line) in text.lines().enumerate() {
        let line_no = first_line + i as u32;
        if in_items {
            if let Some(rest) = line.strip_prefix("- ") {
                managed = ManagedFields::default();
                let mut text = String::new();
                if !managed.blanks(rest) {
                    text.push_str(rest);
                }
                text.push('\n');
                items.push(Document { text, first_line: line_no, indent: 2, json: false, list_item: true });
                continue;
            }
            if let Some(rest) = line.strip_prefix("  ") {
                let item = items.last_mut()?;
                if !managed.blanks(rest) {
                    item.text.push_str(rest);
                }
                item.text.push('\n');
                continue;
            }
            if line.trim().is_empty() || line.starts_with('#') {
                if let Some(item) = items.last_mut() {
                    item.text.push('\n');
                }
                continue;
            }
            in_items = false;
        }
        if line.starts_with([' ', '#']) || line.is_empty() {
            continue;
        }
        let (key, value) = line.split_once(':')?;
        match (key, value.trim()) {
            ("items", "") if !seen_items => (in_items, seen_items) = (true, true),
            ("kind", "List") => is_list = true,
            ("apiVersion" | "metadata", _) => {}
            _ => return None,
        }
    }
    (is_list && seen_items).then_some(items)
}

/// Loads one file's text. Objects that load are returned even when others fail.
/// JSON (`kubectl get -o json`) is read as JSON; YAML documents whose kind the text
/// shows are deserialised straight into their type, and a `kubectl get -o yaml` List
/// item by item, each at its own line — the general way (a `serde_json::Value` first)
/// is taken only when those do not apply or fail, so its diagnostics stay the same.
pub fn load(file: &str, text: &str) -> (Manifests, Vec<Diagnostic>) {
    load_with(file, text, false)
}

/// [`load`] for a cluster to schedule on: each bound pod is turned into its
/// [`BoundPod`] as soon as it is read and checked ([`Manifests::bound`]), so a
/// 20,000-pod dump is never held as 20,000 Pod objects
/// ([`super::scheduler::Snapshot::with_bound`] takes them).
pub fn load_cluster(file: &str, text: &str) -> (Manifests, Vec<Diagnostic>) {
    load_with(file, text, true)
}

fn load_with(file: &str, text: &str, compact: bool) -> (Manifests, Vec<Diagnostic>) {
    load_pieces(file, &split(text), compact)
}

/// A file cut into the pieces that load on their own, in file order: its YAML
/// documents, with a `kubectl get -o yaml` List cut into its items (each at its own
/// line); a JSON file (`kubectl get -o json`) into its List's items, or whole. Loading
/// the pieces one after another ([`load_pieces`]) is [`load`]; a caller with threads
/// may load shares of them side by side and join the results in order
/// ([`Manifests::extend`]), which gives the same objects and findings.
pub fn split(text: &str) -> Vec<Document> {
    if text.trim_start().starts_with('{') {
        if let Some(docs) = json_pieces(text) {
            return docs;
        }
    }
    // One document (no `---` line), as kubectl writes a List: cut into its items
    // straight from the text, without a copy of the whole document first.
    if !text.starts_with("---") && !text.contains("\n---") {
        if is_empty_doc(text) {
            return Vec::new();
        }
        if let Some(items) = list_items(text, 1) {
            return items;
        }
    }
    let mut out = Vec::new();
    for doc in split_documents(text) {
        if is_empty_doc(&doc.text) {
            continue;
        }
        match list_items(&doc.text, doc.first_line) {
            Some(items) => out.extend(items),
            None => out.push(doc),
        }
    }
    out
}

/// Loads pieces of `file` ([`split`]) in order; with `cluster`, as [`load_cluster`].
pub fn load_pieces(file: &str, docs: &[Document], cluster: bool) -> (Manifests, Vec<Diagnostic>) {
    let mut out = Manifests::default();
    let mut diags = Vec::new();
    for doc in docs {
        let from = out.pods.len();
        if doc.json {
            load_json(file, doc, &mut out, &mut diags);
        } else {
            load_one(file, doc, &mut out, &mut diags);
        }
        if cluster {
            compact_bound(&mut out, from);
        }
    }
    (out, diags)
}

/// A JSON List's top level: its `kind` and `items`, each item unread.
#[derive(serde::Deserialize)]
struct JsonList<'a> {
    #[serde(borrow, default)]
    kind: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    items: Option<JsonItems<'a>>,
}

/// A JSON object's `items`: an array's elements unread, else nothing (read through and
/// dropped). One pass over the text: the List is cut as it is checked.
enum JsonItems<'a> {
    Array(Vec<&'a serde_json::value::RawValue>),
    Other,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for JsonItems<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        struct Items<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Items<'a> {
            type Value = JsonItems<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(JsonItems::Array(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?.is_some() {}
                Ok(JsonItems::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(JsonItems::Other)
            }
        }
        de.deserialize_any(Items(std::marker::PhantomData))
    }
}

/// A JSON text's pieces: a List's items, each with the line it starts on, else the
/// whole object; `None` when the text is not JSON (it is read as YAML then).
fn json_pieces(text: &str) -> Option<Vec<Document>> {
    let top: JsonList = serde_json::from_str(text).ok()?;
    let whole = || vec![Document { text: text.to_string(), first_line: 1, indent: 0, json: true, list_item: false }];
    let is_list = top.kind.is_some_and(|k| k.get() == "\"List\"");
    let Some(JsonItems::Array(items)) = top.items.filter(|_| is_list) else { return Some(whole()) };
    let base = text.as_ptr() as usize;
    let (mut line, mut at) = (1u32, 0usize);
    let mut docs = Vec::with_capacity(items.len());
    for item in items {
        // Each item's text lies inside `text`: its line is the newlines before it.
        let start = (item.get().as_ptr() as usize).saturating_sub(base);
        line += text.get(at..start).map_or(0, |t| t.bytes().filter(|&b| b == b'\n').count() as u32);
        at = start.max(at);
        docs.push(Document { text: item.get().to_string(), first_line: line, indent: 0, json: true, list_item: true });
    }
    Some(docs)
}

/// Loads one JSON piece (a List item or a whole object).
fn load_json(file: &str, doc: &Document, out: &mut Manifests, diags: &mut Vec<Diagnostic>) {
    match serde_json::from_str::<serde_json::Value>(&doc.text) {
        Ok(value) => {
            let kind = value.get("kind").and_then(|k| k.as_str());
            if doc.list_item && kind.is_some_and(|k| SKIPPED_IN_LISTS.contains(&k)) {
                return;
            }
            load_value(file, doc, value, out, diags);
        }
        // Not reached ([`json_pieces`] read every piece as JSON); read as YAML then.
        Err(_) => load_one(file, doc, out, diags),
    }
}

/// Moves the bound, unfinished pods of `out.pods[from..]` into `out.bound`.
fn compact_bound(out: &mut Manifests, from: usize) {
    if from >= out.pods.len() {
        return;
    }
    let read = out.pods.split_off(from);
    for located in read {
        let pod = &located.object;
        let finished = matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"));
        match pod.spec.as_ref().and_then(|s| s.node_name.clone()) {
            Some(node) if !finished => out.bound.push((node, BoundPod::of(pod, true))),
            _ => out.pods.push(located),
        }
    }
}

fn load_one(file: &str, doc: &Document, out: &mut Manifests, diags: &mut Vec<Diagnostic>) {
    let kind = top_level_value(doc, "kind");
    if doc.list_item && kind.is_some_and(|k| SKIPPED_IN_LISTS.contains(&k)) {
        return;
    }
    if let Some(kind) = kind.filter(|k| KINDS.contains(k)) {
        if load_typed(file, doc, kind, out, diags) {
            return;
        }
    }
    let value: serde_json::Value = match serde_norway::from_str(&doc.text) {
        Ok(v) => v,
        Err(e) => {
            diags.push(syntax_error(file, doc, &e));
            return;
        }
    };
    load_value(file, doc, value, out, diags);
}

/// `text` as `T`, or `None` when it does not read: the block-YAML fast path where it
/// applies (the same value, [`super::block_yaml`]: typed through a `serde_json::Value`,
/// or with feature `fast-yaml` by its copy of serde_norway's deserialiser), else
/// serde_norway.
fn from_yaml<T: DeserializeOwned>(text: &str) -> Option<T> {
    #[cfg(feature = "fast-yaml")]
    if let Some(value) = super::block_yaml::from_str_events(text) {
        return Some(value);
    }
    #[cfg(not(feature = "fast-yaml"))]
    if let Some(value) = super::block_yaml::from_str(text) {
        return Some(value);
    }
    serde_norway::from_str(text).ok()
}

/// Deserialises `doc` as `kind` straight from its text; false (nothing recorded) when
/// that fails, so the general way reports it.
fn load_typed(file: &str, doc: &Document, kind: &str, out: &mut Manifests, diags: &mut Vec<Diagnostic>) -> bool {
    fn push<T: DeserializeOwned + Metadata<Ty = ObjectMeta>>(list: &mut Vec<Located<T>>, file: &str, doc: &Document) -> Option<()> {
        let object = without_managed_fields(from_yaml::<T>(&doc.text)?);
        list.push(Located { object, span: Span::new(file, doc.first_line, 1) });
        Some(())
    }
    let loaded = match kind {
        "Node" => push(&mut out.nodes, file, doc),
        "Pod" => push(&mut out.pods, file, doc),
        "RuntimeClass" => push(&mut out.runtime_classes, file, doc),
        "DaemonSet" => push(&mut out.daemon_sets, file, doc),
        "ConfigMap" => push(&mut out.config_maps, file, doc),
        "Event" => push(&mut out.events, file, doc),
        _ => None,
    };
    if loaded.is_none() {
        return false;
    }
    let check = |diags: &mut Vec<Diagnostic>, entries: Vec<QuantityAt>| check_quantities(file, doc, diags, entries);
    match kind {
        "Node" => {
            if let Some(n) = out.nodes.last() {
                check(diags, node_quantities(&n.object));
            }
        }
        "Pod" => {
            if let Some(p) = out.pods.last() {
                check(diags, pod_quantities(&p.object));
            }
        }
        "RuntimeClass" => {
            if let Some(rc) = out.runtime_classes.last() {
                check(diags, runtime_class_quantities(&rc.object));
            }
        }
        _ => {}
    }
    true
}

/// A quantity of an object: its field, the resource's name and the text, borrowed
/// from the object (the field's path is written out only for a finding).
type QuantityAt<'a> = (QuantityField, &'a str, &'a str);

/// The field a quantity is in.
enum QuantityField {
    /// `status.capacity`, `spec.overhead`, …
    Plain(&'static str),
    /// `spec.{list}[{index}].resources.{what}`.
    Container { list: &'static str, index: usize, what: &'static str },
}

impl QuantityField {
    fn path(&self) -> String {
        match self {
            QuantityField::Plain(path) => (*path).to_string(),
            QuantityField::Container { list, index, what } => format!("spec.{list}[{index}].resources.{what}"),
        }
    }
}

/// `k8s-quantity-invalid` for each `(field, name, text)` that is not a quantity.
fn check_quantities(file: &str, doc: &Document, diags: &mut Vec<Diagnostic>, entries: Vec<QuantityAt>) {
    for (field, name, text) in entries {
        if let Err(e) = Quantity::validate(text) {
            diags.push(
                Diagnostic::new("k8s-quantity-invalid", Severity::Error)
                    .arg("field", format!("{}[{name}]", field.path()))
                    .arg("value", text)
                    .arg("message", e)
                    .at(Span::new(file, line_of_entry(doc, name, text), 1)),
            );
        }
    }
}

fn runtime_class_quantities(rc: &RuntimeClass) -> Vec<QuantityAt<'_>> {
    rc.overhead
        .iter()
        .flat_map(|o| o.pod_fixed.iter().flatten())
        .map(|(k, v)| (QuantityField::Plain("overhead.podFixed"), k.as_str(), v.0.as_str()))
        .collect()
}

#[allow(clippy::result_large_err)] // a Diagnostic is the error value by design
fn load_value(file: &str, doc: &Document, value: serde_json::Value, out: &mut Manifests, diags: &mut Vec<Diagnostic>) {
    let Some(kind) = value.get("kind").and_then(|k| k.as_str()).map(str::to_string) else {
        let code = if value.is_object() { "k8s-kind-missing" } else { "k8s-not-an-object" };
        diags.push(Diagnostic::new(code, Severity::Error).at(Span::new(file, doc.first_line, 1)));
        return;
    };
    if kind == "List" {
        let mut value = value;
        let items = match value.get_mut("items").map(serde_json::Value::take) {
            Some(serde_json::Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let skipped = |item: &serde_json::Value| {
            item.get("kind").and_then(|k| k.as_str()).is_some_and(|k| SKIPPED_IN_LISTS.contains(&k))
        };
        for item in items.into_iter().filter(|item| !skipped(item)) {
            load_value(file, doc, item, out, diags);
        }
        return;
    }
    let span = Span::new(file, doc.first_line, 1);
    let check = |diags: &mut Vec<Diagnostic>, entries: Vec<QuantityAt>| check_quantities(file, doc, diags, entries);
    let result: Result<(), Diagnostic> = (|| {
        match kind.as_str() {
            "Node" => {
                let n: Node = typed(file, doc, value)?;
                check(diags, node_quantities(&n));
                out.nodes.push(Located { object: n, span });
            }
            "Pod" => {
                let p: Pod = typed(file, doc, value)?;
                check(diags, pod_quantities(&p));
                out.pods.push(Located { object: p, span });
            }
            "RuntimeClass" => {
                let rc: RuntimeClass = typed(file, doc, value)?;
                check(diags, runtime_class_quantities(&rc));
                out.runtime_classes.push(Located { object: rc, span });
            }
            "DaemonSet" => {
                let ds: DaemonSet = typed(file, doc, value)?;
                out.daemon_sets.push(Located { object: ds, span });
            }
            "ConfigMap" => out.config_maps.push(Located { object: typed(file, doc, value)?, span }),
            "Event" => out.events.push(Located { object: typed(file, doc, value)?, span }),
            k if DEFERRED_KINDS.contains(&k) => {
                out.deferred.push(Deferred { kind: k.to_string(), value, span, doc: doc.clone() });
            }
            other => {
                return Err(Diagnostic::new("k8s-kind-unknown", Severity::Error)
                    .arg("kind", other)
                    .arg("known", KINDS.join(", "))
                    .at(Span::new(file, line_of_key(doc, "kind"), 1)))
            }
        }
        Ok(())
    })();
    if let Err(d) = result {
        diags.push(d);
    }
}

fn node_quantities(n: &Node) -> Vec<QuantityAt<'_>> {
    let st = n.status.as_ref();
    [
        ("status.capacity", st.and_then(|s| s.capacity.as_ref())),
        ("status.allocatable", st.and_then(|s| s.allocatable.as_ref())),
    ]
    .into_iter()
    .flat_map(|(p, m)| m.into_iter().flatten().map(move |(k, v)| (QuantityField::Plain(p), k.as_str(), v.0.as_str())))
    .collect()
}

fn pod_quantities(p: &Pod) -> Vec<QuantityAt<'_>> {
    let Some(spec) = &p.spec else { return Vec::new() };
    let mut out = Vec::new();
    let lists = [("containers", Some(&spec.containers)), ("initContainers", spec.init_containers.as_ref())];
    for (list, cs) in lists {
        for (i, c) in cs.into_iter().flatten().enumerate() {
            let r = c.resources.as_ref();
            for (what, m) in
                [("requests", r.and_then(|r| r.requests.as_ref())), ("limits", r.and_then(|r| r.limits.as_ref()))]
            {
                for (k, v) in m.into_iter().flatten() {
                    out.push((QuantityField::Container { list, index: i, what }, k.as_str(), v.0.as_str()));
                }
            }
        }
    }
    for (k, v) in spec.overhead.iter().flatten() {
        out.push((QuantityField::Plain("spec.overhead"), k.as_str(), v.0.as_str()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documents found by searching for the markers are the ones a line-by-line
    /// reading finds, for every shape of marker and end.
    #[test]
    fn documents_found_whole_are_the_ones_found_line_by_line() {
        let texts = [
            "",
            "\n",
            "a: 1",
            "a: 1\n",
            "---",
            "---\n",
            "a: 1\n---",
            "a: 1\n---\n",
            "---\na: 1\n---\nb: 2",
            "--- {kind: Pod}\n---\n",
            "a: 1\n--- {kind: Pod}\nb: 2\n--- # c\nc: 3\n---\t\n---x\n----\n  ---\nd: '---'\n",
            "\n\n---\n\n---\n---\n\n",
            "# only\n---\n# comments\n",
            "a: 한\n--- 한: 1\nb: 2",
        ];
        let shape = |docs: Vec<Document>| docs.into_iter().map(|d| (d.text, d.first_line)).collect::<Vec<_>>();
        for text in texts {
            assert_eq!(shape(split_documents_whole(text)), shape(split_documents_by_line(text)), "{text:?}");
        }
    }

    /// Two documents load by kind; each knows its starting line.
    #[test]
    fn loads_multi_document_files() {
        let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: []\n";
        let (m, diags) = load("cluster.yaml", text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(m.nodes.len(), 1);
        assert_eq!(m.pods.len(), 1);
        assert_eq!(m.pods[0].span.line, 6);
    }

    /// DRA's kinds are recognised and kept untyped for `dra::read`, in file order,
    /// each with its document's line; a type error in one surfaces only there.
    #[test]
    fn dra_kinds_are_kept_for_their_own_reader() {
        let text = "kind: Node\nmetadata: {name: n}\n---\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\n---\nkind: ResourceSlice\nspec: {pool: {resourceSliceCount: oops}}\n";
        let (m, diags) = load("dra.yaml", text);
        assert!(diags.is_empty(), "{diags:?}");
        let kept: Vec<(&str, u32)> = m.deferred.iter().map(|d| (d.kind.as_str(), d.span.line)).collect();
        assert_eq!((m.nodes.len(), kept), (1, vec![("DeviceClass", 4), ("ResourceSlice", 7)]));
    }

    const DUMP_YAML: &str = "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    managedFields:\n    - manager: kubelet\n      operation: Update\n    name: gpu-1\n  status:\n    allocatable:\n      nvidia.com/gpu: \"8\"\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n  spec:\n    nodeName: gpu-1\n    containers:\n    - name: c\n      resources:\n        limits:\n          nvidia.com/gpu: \"2\"\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";

    /// `kubectl get nodes,pods -o yaml`: each List item loads at its own line, and the
    /// same dump as JSON (`-o json`) and as a flow-style document (read the general
    /// way, through a `serde_json::Value`) give the same objects.
    #[test]
    fn kubectl_list_dumps_load_like_plain_documents() {
        let (yaml, diags) = load("dump.yaml", DUMP_YAML);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!((yaml.nodes.len(), yaml.pods.len()), (1, 1));
        assert_eq!((yaml.nodes[0].span.line, yaml.pods[0].span.line), (3, 13));
        let value: serde_json::Value = serde_norway::from_str(DUMP_YAML).unwrap();
        let (json, diags) = load("dump.json", &serde_json::to_string_pretty(&value).unwrap());
        assert!(diags.is_empty(), "{diags:?}");
        let (flow, diags) = load("flow.yaml", &format!("# one flow-style document\n{value}"));
        assert!(diags.is_empty(), "{diags:?}");
        for other in [&json, &flow] {
            assert_eq!(other.nodes[0].object, yaml.nodes[0].object);
            assert_eq!(other.pods[0].object, yaml.pods[0].object);
        }
    }

    /// `load_cluster` keeps bound pods as their accounting only, and the snapshot
    /// built from that is the one `Snapshot::new` builds from the Pod objects; pods
    /// that are not bound (or finished) stay whole.
    #[test]
    fn load_cluster_gives_the_same_snapshot() {
        use crate::kubernetes::scheduler::Snapshot;
        let text = format!(
            "{DUMP_YAML}---\nkind: Pod\nmetadata: {{name: unbound}}\nspec: {{containers: []}}\n---\nkind: Pod\nmetadata: {{name: done}}\nspec: {{nodeName: gpu-1, containers: []}}\nstatus: {{phase: Succeeded}}\n"
        );
        let (whole, diags) = load("dump.yaml", &text);
        assert!(diags.is_empty(), "{diags:?}");
        let (compact, diags) = load_cluster("dump.yaml", &text);
        assert!(diags.is_empty(), "{diags:?}");
        let names = |m: &Manifests| m.pods.iter().filter_map(|l| l.object.metadata.name.clone()).collect::<Vec<_>>();
        assert_eq!((names(&compact), compact.bound.len()), (vec!["unbound".to_string(), "done".to_string()], 1));
        let a = Snapshot::new(whole.nodes.iter().map(|l| l.object.clone()), &whole.pods.iter().map(|l| l.object.clone()).collect::<Vec<_>>());
        let b = Snapshot::with_bound(compact.nodes.iter().map(|l| l.object.clone()), compact.bound);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }

    /// A bad item of a kubectl List is reported at its own line; the others load.
    #[test]
    fn bad_list_item_has_its_own_line() {
        let text = DUMP_YAML.replace("nvidia.com/gpu: \"2\"", "nvidia.com/gpu: two");
        let (m, diags) = load("dump.yaml", &text);
        assert_eq!(m.nodes.len(), 1);
        let d = diags.first().expect("a diagnostic");
        assert_eq!((d.code.as_str(), d.primary.as_ref().map(|s| s.line)), ("k8s-quantity-invalid", Some(23)), "{d:?}");
    }

    /// A dump laid out as `kubectl get nodes,pods,secrets -A -o yaml` prints it (keys
    /// sorted, the server's fields, managedFields, a last-applied annotation), with a
    /// Secret among the items.
    const KUBECTL_DUMP: &str = r#"apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      node.alpha.kubernetes.io/ttl: "0"
    creationTimestamp: "2026-09-01T00:00:00Z"
    labels:
      kubernetes.io/hostname: gpu-1
      nvidia.com/gpu.present: "true"
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:labels:
            .: {}
            f:kubernetes.io/hostname: {}
      manager: kubelet
      operation: Update
      time: "2026-09-01T00:00:00Z"
    name: gpu-1
    resourceVersion: "1234"
    uid: 6f1b1c9e-0000-4000-8000-000000000001
  spec:
    taints:
    - effect: NoSchedule
      key: nvidia.com/gpu
  status:
    allocatable:
      cpu: "63"
      nvidia.com/gpu: "8"
      pods: "110"
    capacity:
      cpu: "64"
      nvidia.com/gpu: "8"
      pods: "110"
- apiVersion: v1
  data:
    token: c2VjcmV0LXRva2Vu
  kind: Secret
  metadata:
    creationTimestamp: "2026-09-01T00:00:00Z"
    name: registry-credentials
    namespace: team-a
  type: Opaque
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"train","namespace":"team-a"}}
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:spec:
          f:containers:
            k:{"name":"cuda"}:
              .: {}
      manager: kubectl-client-side-apply
      operation: Update
      time: "2026-09-01T00:00:00Z"
    name: train
    namespace: team-a
  spec:
    containers:
    - image: nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04
      name: cuda
      resources:
        limits:
          nvidia.com/gpu: "2"
        requests:
          nvidia.com/gpu: "2"
    nodeName: gpu-1
    tolerations:
    - effect: NoSchedule
      key: nvidia.com/gpu
      operator: Exists
  status:
    phase: Running
kind: List
metadata:
  resourceVersion: ""
"#;

    /// [`KUBECTL_DUMP`] as `-o json` prints it (four-space indents, keys sorted).
    fn kubectl_json(yaml: &str) -> String {
        use serde::Serialize;
        let value: serde_json::Value = serde_norway::from_str(yaml).unwrap();
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, serde_json::ser::PrettyFormatter::with_indent(b"    "));
        value.serialize(&mut ser).unwrap();
        String::from_utf8(out).unwrap() + "\n"
    }

    /// The 1-based line of the first occurrence of `needle` in `text`.
    fn line_of(text: &str, needle: &str) -> u32 {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
        text[..at].matches('\n').count() as u32 + 1
    }

    /// The same kubectl dump as YAML, as JSON, and as one flow-style document (the
    /// general way) loads the same Node and Pod, each item at its own line; the
    /// Secret is skipped unread and appears nowhere, and no object keeps managedFields.
    #[test]
    fn kubectl_dumps_skip_secrets_and_managed_fields() {
        let json = kubectl_json(KUBECTL_DUMP);
        let value: serde_json::Value = serde_norway::from_str(KUBECTL_DUMP).unwrap();
        let flow = format!("# one flow-style document\n{value}");
        let cases = [
            ("-o yaml", KUBECTL_DUMP.to_string(), (line_of(KUBECTL_DUMP, "- apiVersion: v1\n  kind: Node"), line_of(KUBECTL_DUMP, "- apiVersion: v1\n  kind: Pod"))),
            ("-o json", json.clone(), (line_of(&json, "\"Node\"") - 2, line_of(&json, "\"Pod\"") - 2)),
            // One document: every object is at its first line (the comment's).
            ("flow style", flow, (1, 1)),
        ];
        let mut objects = Vec::new();
        for (name, text, lines) in cases {
            for cluster in [false, true] {
                let (m, diags) = if cluster { load_cluster("dump", &text) } else { load("dump", &text) };
                assert!(diags.is_empty(), "{name}: {diags:?}");
                let shown = format!("{m:?}");
                for secret in ["c2VjcmV0LXRva2Vu", "registry-credentials", "FieldsV1", "kubectl-client-side-apply"] {
                    assert!(!shown.contains(secret), "{name}: {secret:?} kept");
                }
                assert_eq!(m.nodes.len(), 1, "{name}");
                let pod_line = if cluster { None } else { m.pods.first().map(|p| p.span.line) };
                assert_eq!((m.nodes[0].span.line, pod_line), (lines.0, (!cluster).then_some(lines.1)), "{name}");
                if cluster {
                    assert_eq!(m.bound.iter().map(|(n, p)| (n.as_str(), p.name.as_str())).collect::<Vec<_>>(), [("gpu-1", "train")]);
                } else {
                    objects.push((name, m.nodes[0].object.clone(), m.pods[0].object.clone()));
                }
            }
        }
        for (name, node, pod) in &objects[1..] {
            assert_eq!((node, pod), (&objects[0].1, &objects[0].2), "{name} differs from -o yaml");
        }
    }

    /// A bad or cut-off dump, YAML or JSON, gives its finding at the line of the fault;
    /// a Secret is skipped even when it would not read.
    #[test]
    fn bad_dumps_have_file_and_line() {
        let json = kubectl_json(KUBECTL_DUMP);
        let cut = |text: &str, at: &str| text[..text.find(at).unwrap() + at.len()].to_string();
        // (case, text, the finding's code and the text on its line); a cut inside a
        // scalar is where go-yaml reports it, at the end of the stream: the line after
        // the last (kubectl's `yaml: line N: found unexpected end of stream`).
        let end = "<the end>";
        let cases: Vec<(&str, String, Option<(&str, &str)>)> = vec![
            ("yaml: a quantity", KUBECTL_DUMP.replacen(r#"nvidia.com/gpu: "2""#, "nvidia.com/gpu: two", 1), Some(("k8s-quantity-invalid", "nvidia.com/gpu: two"))),
            ("yaml: a field of the wrong type", KUBECTL_DUMP.replace("nodeName: gpu-1", "nodeName: [gpu-1]"), Some(("k8s-object-invalid", "nodeName: [gpu-1]"))),
            ("yaml: a kind the lab does not read", KUBECTL_DUMP.replace("  kind: Pod\n", "  kind: Service\n"), Some(("k8s-kind-unknown", "kind: Service"))),
            ("yaml: cut inside a quoted value", cut(KUBECTL_DUMP, "    name: train\n") + "    namespace: \"te", Some(("k8s-yaml-invalid", end))),
            ("json: cut off", cut(&json, "\"name\": \"train\","), Some(("k8s-yaml-invalid", end))),
            ("yaml: cut before `kind: List`", cut(KUBECTL_DUMP, "    phase: Running\n"), Some(("k8s-kind-missing", "apiVersion: v1\nitems:"))),
            ("yaml: a Secret that would not read", KUBECTL_DUMP.replace("token: c2VjcmV0LXRva2Vu", "token: [c2VjcmV0LXRva2Vu"), None),
            ("json: a quantity", json.replacen(r#""nvidia.com/gpu": "2""#, r#""nvidia.com/gpu": "two""#, 1), Some(("k8s-quantity-invalid", r#""nvidia.com/gpu": "two""#))),
            ("json: a field of the wrong type", json.replace(r#""nodeName": "gpu-1""#, r#""nodeName": ["gpu-1"]"#), Some(("k8s-object-invalid", r#""nodeName": ["gpu-1"]"#))),
            ("json: a number for a string", json.replace(r#""nodeName": "gpu-1""#, r#""nodeName": 1"#), Some(("k8s-object-invalid", "{\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\""))),
            ("json: a kind the lab does not read", json.replace(r#""kind": "Pod""#, r#""kind": "Service""#), Some(("k8s-kind-unknown", r#""kind": "Service""#))),
            ("json: a Secret that would not read", json.replace(r#""token": "c2VjcmV0LXRva2Vu""#, r#""token": 7"#), None),
        ];
        for (name, text, want) in cases {
            let (_, diags) = load("dump", &text);
            let got = diags.first().map(|d| (d.code.as_str(), d.primary.as_ref().map(|s| (s.file.as_str(), s.line))));
            let want = want.map(|(code, at)| {
                let line = if at == end { text.lines().count() as u32 + 1 } else { line_of(&text, at) };
                (code, Some(("dump", line)))
            });
            assert_eq!(got, want, "{name}: {diags:?}");
            for d in &diags {
                assert!(!format!("{d:?}").contains("c2VjcmV0"), "{name}: the Secret's data shown: {d:?}");
            }
        }
    }

    /// Bad manifests give a diagnostic at the right file:line, never a panic.
    #[test]
    fn bad_manifests_have_file_and_line() {
        let cases = [
            ("kind: Node\nmetadata: [\n", "k8s-yaml-invalid", 3),
            ("---\napiVersion: v1\nkind: Gadget\n", "k8s-kind-unknown", 3),
            ("metadata: {}\n", "k8s-kind-missing", 1),
            (
                "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      limits:\n        nvidia.com/gpu: one\n",
                "k8s-quantity-invalid",
                8,
            ),
            ("kind: Pod\nmetadata: {name: p}\nspec:\n  containers: 3\n", "k8s-object-invalid", 4),
        ];
        for (text, code, line) in cases {
            let (_, diags) = load("x.yaml", text);
            let d = diags.first().unwrap_or_else(|| panic!("no diagnostic for {text:?}"));
            assert_eq!((d.code.as_str(), d.primary.as_ref().map(|s| s.line)), (code, Some(line)), "{text:?} {d:?}");
        }
    }

    /// A YAML syntax error reads as kubectl's (go-yaml's `yaml: line N: …`, N within
    /// the document), not as `message=…`; the span is the absolute line.
    #[test]
    fn syntax_errors_read_like_kubectl() {
        let text = "kind: Node\nmetadata:\n  name: a\n---\nkind: Pod\nmetadata:\n  name: p\n labels: x\n";
        let (_, diags) = load("pod.yaml", text);
        let d = diags.first().unwrap();
        for lang in [crate::Lang::En, crate::Lang::Ko] {
            assert_eq!(
                crate::kubernetes::messages::message(d, lang),
                "error parsing pod.yaml: error converting YAML to JSON: yaml: line 3: did not find expected key"
            );
        }
        assert_eq!(d.primary.as_ref().map(|s| s.line), Some(8));
    }
}
