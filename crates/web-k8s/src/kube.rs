//! Steps 5 and 6 on the model: the learner's cluster, RuntimeClass and pod files
//! (plus the node status patches they applied) through `kubectl apply` — admission,
//! then one scheduling cycle — and, once bound, the kubelet's `RunPodSandbox` on a
//! node running the containerd of steps 1–2, before and after its restart. Step 6's
//! other paths to the GPU add their objects file (DRA: DeviceClasses, the driver's
//! ResourceSlices, claims; [`gpulab_view::PATHS`]) and, on the DRA path, their own
//! pod; the pod then goes through [`dra::apply::create_pod`]. The texts are the ones
//! `gpulab schedule --nodes cluster.yaml --runtimeclasses runtimeclass.yaml --pod
//! POD [--objects OBJECTS] --k8s-version V` prints.
//!
//! One body, two builds ([`view`] and [`view_dra`]): the Kubernetes chunk exports the
//! first, which links none of the model's DRA code and answers a request that needs
//! it with [`KubeOutcome::NeedsDra`]; the DRA module (`crates/web-dra`, loaded when a
//! learner picks a DRA path) exports the second.

use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use gpulab_model::kubernetes::apply::{create_pod, Scheduled};
use gpulab_model::kubernetes::dra::{self, apply::Applied, dynamicresources::State, printed};
use gpulab_model::kubernetes::kubectl::{describe_events, get_nodes, get_pods_wide};
use gpulab_model::kubernetes::kubelet::{create_pod_sandbox, mark_container_creating, mark_running, pod_ip, sandbox_id, LoadedCri};
use gpulab_model::kubernetes::patch;
use gpulab_model::kubernetes::scheduler::explain::table;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::{load_pieces, split, Document, Located, Manifests};
use gpulab_model::kubernetes::events::Event;
use gpulab_model::kubernetes::KubeVersion;
use gpulab_model::{Diagnostic, Lang, Severity};
use gpulab_model::containerd::Daemon;
use gpulab_view::{kube_path, ContainerdFiles, DiagLine, KubeOutcome, KubeRequest, KubeView, NodePatch, NodeView, Sandbox};
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use k8s_openapi::api::resource::v1::DeviceClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::node;

/// The file names the editors stand for (diagnostics and `kubectl apply -f` name them).
pub const CLUSTER: &str = "cluster.yaml";
pub const RUNTIMECLASS: &str = "runtimeclass.yaml";
pub const POD: &str = "pod.yaml";

/// Applies `kubectl patch node N --subresource=status` to the nodes: the quantity
/// goes into both capacity and allocatable. Returns the refusals of the patches that
/// did not apply, as kubectl prints them (the API server looks the node up first).
pub fn patch_nodes(nodes: &mut [Node], patches: &[NodePatch]) -> Vec<String> {
    patches.iter().filter_map(|p| patch::apply(nodes, &p.node, &p.resource, &p.quantity).err()).map(|e| e.to_string()).collect()
}

/// Runs the model on the learner's files, without DRA: a request that needs it is
/// [`KubeOutcome::NeedsDra`] (the chunk's `kube`).
pub fn view(req: &KubeRequest) -> KubeView {
    view_with::<false>(req).0
}

/// Runs the model on the learner's files, DRA included (the DRA module's `kube`).
pub fn view_dra(req: &KubeRequest) -> KubeView {
    view_with::<true>(req).0
}

/// [`view`], and the scheduler's event for the pod when it was created (the incident
/// report's scheduler verdict of step 6, which is the device plugin's path).
pub fn view_and_event(req: &KubeRequest) -> (KubeView, Option<Event>) {
    view_with::<false>(req)
}

/// The view, with the model's DRA code (`DRA`) or without it: `false` never calls
/// into `dra`, so the chunk's wasm carries none of it.
fn view_with<const DRA: bool>(req: &KubeRequest) -> (KubeView, Option<Event>) {
    let versions = KubeVersion::ALL.iter().map(ToString::to_string).collect();
    let mut diags = Vec::new();
    let mut read = |file: &str, text: &str| -> Rc<Read> {
        let r = read_file(file, text);
        diags.extend(r.diags.iter().cloned());
        r
    };
    let path = kube_path(&req.path);
    let pod_text = if req.pod.is_empty() && path.id == "dra" { default_text(path.pod) } else { req.pod.clone() };
    let objects_text = if path.objects.is_empty() || !req.objects.is_empty() { req.objects.clone() } else { default_text(path.objects) };
    let cluster = read(CLUSTER, &req.cluster);
    let rcs = read(RUNTIMECLASS, &req.runtimeclass);
    let pods = read(path.pod, &pod_text);
    let objects = if path.objects.is_empty() { Rc::default() } else { read(path.objects, &objects_text) };
    let patched = patched(&req.cluster, &cluster, &req.patches);
    let Patched { nodes, snapshot, .. } = &*patched;
    let patch_errors = patched.patch_errors.clone();
    let patches_applied = req.patches.len().saturating_sub(patch_errors.len());
    let cluster_view = patched.cluster_view.clone();
    let get_nodes = patched.get_nodes.clone();
    let files = [(CLUSTER, &req.cluster, &cluster), (RUNTIMECLASS, &req.runtimeclass, &rcs), (path.pod, &pod_text, &pods), (path.objects, &objects_text, &objects)];
    let runtime_classes = || -> Vec<RuntimeClass> {
        [&cluster, &rcs, &objects].iter().flat_map(|m| m.runtime_classes.iter()).map(|l| l.object.clone()).collect()
    };
    let lang = crate::slots::model_lang(&req.lang);
    let bad = |diags: &[Diagnostic]| (KubeOutcome::BadInput { diagnostics: diags.iter().map(|d| diag_line(d, lang)).collect() }, None);
    let (outcome, event) = if DRA {
        // The DRA objects of every file, as `gpulab schedule` reads them.
        let mut state = State::default();
        let mut classes: Vec<Located<DeviceClass>> = Vec::new();
        for (file, text, m) in files {
            if m.has_dra {
                let o = read_dra(file, text, m);
                diags.extend(o.1.iter().cloned());
                classes.extend(o.0.iter().cloned());
                state.merge(&o.2);
            }
        }
        let version = req.version.parse().ok();
        for pod in pods.pods.iter().filter(|_| version.is_some()) {
            diags.extend(version.map(|v| printed::extended_resource_unmodelled(&classes, nodes, &pod.object, v)).unwrap_or_default());
        }
        let has_dra = !(state.classes.is_empty() && state.claims.is_empty() && state.templates.is_empty() && state.slices.is_empty());
        match version.and_then(printed::not_served).filter(|_| has_dra) {
            _ if !diags.is_empty() => bad(&diags),
            Some(text) => (KubeOutcome::Rejected { text }, None),
            None => {
                let rcs = runtime_classes();
                outcome(req, nodes, snapshot, &pods, path.pod, &rcs, |snapshot, pod, opts| {
                    if !(has_dra || uses_claims(pod)) {
                        return plain_cycle(snapshot, pod, &rcs, opts, path.pod);
                    }
                    match dra::apply::create_pod(&mut state, snapshot, pod.clone(), &rcs, opts, 0) {
                        Err(rejection) => Err(KubeOutcome::Rejected { text: rejection.kubectl_text(path.pod) }),
                        Ok(Applied::Cycle { scheduled, allocations, deallocated }) => Ok((*scheduled, printed::claims(&allocations, deallocated.as_ref()))),
                        Ok(waiting) => Err(KubeOutcome::Waiting { text: printed::waiting(&waiting, opts.version) }),
                    }
                })
            }
        }
    } else if !path.id.is_empty() || pods.pods.iter().any(|p| uses_claims(&p.object)) || files.iter().any(|(_, _, m)| m.has_dra) {
        (KubeOutcome::NeedsDra {}, None)
    } else if diags.is_empty() {
        let rcs = runtime_classes();
        outcome(req, nodes, snapshot, &pods, path.pod, &rcs, |snapshot, pod, opts| plain_cycle(snapshot, pod, &rcs, opts, path.pod))
    } else {
        bad(&diags)
    };
    // Only a text the request left empty goes back (the path's own file, which the app
    // does not have): the learner's text is the app's already, and echoing a
    // 1,000-device objects file was most of a re-schedule's reply.
    let echo = |asked: &str, text: String| if path.id.is_empty() || !asked.is_empty() { String::new() } else { text };
    let (pod, objects) = (echo(&req.pod, pod_text), echo(&req.objects, objects_text));
    (KubeView { outcome, get_nodes, cluster: cluster_view, versions, patch_errors, patches_applied, pod, objects }, event)
}

/// One file as `kubectl apply` reads it: its manifests and the reader's findings,
/// read piece by piece ([`yaml::split`]): the pieces, each read on its own at line 1
/// and moved to its line, are kept for the DRA objects ([`read_dra`]), which are not
/// in `manifests` (`manifests.deferred` stays empty).
#[derive(Default)]
struct Read {
    manifests: Manifests,
    diags: Vec<Diagnostic>,
    /// Each piece's reading and the lines it moves down by (its first line less one).
    pieces: Vec<(Rc<Piece>, u32)>,
    /// Whether a piece holds DRA documents ([`Manifests::deferred`]).
    has_dra: bool,
}

impl std::ops::Deref for Read {
    type Target = Manifests;
    fn deref(&self) -> &Manifests {
        &self.manifests
    }
}

/// One piece of a file ([`yaml::split`]: a YAML document, a List's item) read on its
/// own as if it started on line 1: what `load` makes of it, and — when the DRA
/// module's build asks ([`read_dra`]) — its DRA objects typed and validated.
struct Piece {
    manifests: Manifests,
    diags: Vec<Diagnostic>,
    dra: OnceCell<PieceDra>,
}

/// A piece's DRA objects (at line 1): its DeviceClasses where they are, `dra::read`'s
/// findings, `dra::diagnose_by_kind`'s errors (by kind: the file's findings are each
/// kind's in file order), and the objects as the API server holds them.
struct PieceDra {
    classes: Vec<Located<DeviceClass>>,
    typed: Vec<Diagnostic>,
    invalid: [Vec<Diagnostic>; 4],
    state: State,
}

impl Piece {
    fn dra(&self) -> &PieceDra {
        self.dra.get_or_init(|| {
            let (o, typed) = dra::read(&self.manifests);
            let invalid = dra::diagnose_by_kind(&o).map(|found| found.into_iter().filter(|d| d.severity == Severity::Error).collect());
            let classes = o.device_classes.clone();
            PieceDra { classes, typed, invalid, state: State::from(o) }
        })
    }
}

/// How many files each cache below keeps (step 5–6's four files, and the previous
/// text of one being edited).
const KEPT: usize = 6;

/// A cache of what was made from files: (name, text, what was made), newest first.
type Cache<T> = RefCell<Vec<(String, String, Rc<T>)>>;
/// A file's DRA objects, typed and validated: its DeviceClasses where they are, the
/// findings, and the objects as the API server holds them (the slices shared with
/// every call's state while the text stays).
type DraRead = (Vec<Located<DeviceClass>>, Vec<Diagnostic>, State);
/// A file's pieces (at line 1) and their readings, in file order.
type Pieces = Vec<(Document, Rc<Piece>)>;

thread_local! {
    /// The files read last (name, text), most recently used first: an edit reads again only the file
    /// it changed. With 1,000 devices, reading the ResourceSlices, typing and validating
    /// them was about 70 % of a call (ARCHITECTURE.md, "The 1,000-device frame").
    static READ: Cache<Read> = const { RefCell::new(Vec::new()) };
    /// The DRA objects of the files read last (name, text), typed and validated (the
    /// API server's errors), most recently used first; only the DRA module's build uses it.
    static READ_DRA: Cache<DraRead> = const { RefCell::new(Vec::new()) };
    /// The pieces of each file's last text read, by their text (at line 1): a changed
    /// text reads again only the pieces the edit changed, the others moved to their
    /// new lines.
    static PIECES: RefCell<BTreeMap<String, Pieces>> = const { RefCell::new(BTreeMap::new()) };
}

/// `cache`'s entry for (`file`, `text`), or `make`'s; either is then the most recently
/// used, and the least recently used beyond [`KEPT`] is dropped.
fn cached<T>(cache: &'static std::thread::LocalKey<Cache<T>>, file: &str, text: &str, make: impl FnOnce() -> T) -> Rc<T> {
    // A hit moves to the front: the files the edit did not change stay kept however
    // many texts of the edited one come and go.
    let hit = cache.with(|c| {
        let mut c = c.borrow_mut();
        let at = c.iter().position(|(f, t, _)| f == file && t == text)?;
        let entry = c.remove(at);
        let made = entry.2.clone();
        c.insert(0, entry);
        Some(made)
    });
    hit.unwrap_or_else(|| {
        let made = Rc::new(make());
        cache.with(|c| {
            let mut c = c.borrow_mut();
            c.insert(0, (file.to_string(), text.to_string(), made.clone()));
            c.truncate(KEPT);
        });
        made
    })
}

/// `file` read (or the same text's earlier reading): the same manifests and findings
/// as [`load`], read piece by piece — a piece whose text the last reading of `file`
/// had is not read again.
fn read_file(file: &str, text: &str) -> Rc<Read> {
    cached(&READ, file, text, || {
        let kept = PIECES.with(|p| p.borrow_mut().remove(file)).unwrap_or_default();
        let mut now: Pieces = Vec::new();
        let mut read = Read::default();
        // Where the last piece found was, plus one: an edit keeps the pieces in order,
        // so the next one is tried first (texts compared, nothing hashed).
        let mut next = 0;
        for doc in split(text) {
            let by = doc.first_line().saturating_sub(1);
            let at_1 = doc.at_line(1);
            let found = kept.get(next).filter(|(d, _)| *d == at_1).map(|_| next).or_else(|| kept.iter().position(|(d, _)| *d == at_1));
            let piece = match found.and_then(|i| kept.get(i).map(|(_, p)| (i, p))) {
                Some((i, piece)) => {
                    next = i + 1;
                    piece.clone()
                }
                None => {
                    let (manifests, diags) = load_pieces(file, std::slice::from_ref(&at_1), false);
                    Rc::new(Piece { manifests, diags, dra: OnceCell::new() })
                }
            };
            read.manifests.extend_moved(&piece.manifests, by);
            read.diags.extend(piece.diags.iter().map(|d| d.moved_down(by)));
            read.has_dra |= !piece.manifests.deferred.is_empty();
            read.pieces.push((piece.clone(), by));
            now.push((at_1, piece));
        }
        PIECES.with(|p| p.borrow_mut().insert(file.to_string(), now));
        read
    })
}

/// The DRA objects of `file` (read as `read`), typed and validated, with the findings
/// `gpulab schedule` stops at (or the same text's earlier reading): each piece's own,
/// moved to its lines, joined as a reading of the whole file joins them.
fn read_dra(file: &str, text: &str, read: &Read) -> Rc<DraRead> {
    cached(&READ_DRA, file, text, || {
        let mut classes = Vec::new();
        let mut found = Vec::new();
        let mut invalid: [Vec<Diagnostic>; 4] = Default::default();
        let mut state = State::default();
        for (piece, by) in &read.pieces {
            if piece.manifests.deferred.is_empty() {
                continue;
            }
            let dra = piece.dra();
            classes.extend(dra.classes.iter().map(|c| c.moved_down(*by)));
            found.extend(dra.typed.iter().map(|d| d.moved_down(*by)));
            for (all, own) in invalid.iter_mut().zip(&dra.invalid) {
                all.extend(own.iter().map(|d| d.moved_down(*by)));
            }
            state.merge(&dra.state);
        }
        found.extend(invalid.into_iter().flatten());
        (classes, found, state)
    })
}

/// The cluster file's nodes with the learner's patches applied, and what is made of
/// them and the file's bound pods for every call: the scheduler's snapshot before the
/// pod, the cluster view, `kubectl get nodes`.
struct Patched {
    nodes: Vec<Node>,
    patch_errors: Vec<String>,
    cluster_view: Vec<NodeView>,
    get_nodes: String,
    snapshot: Snapshot,
}

/// A memo of the last call's input (`K`) and what was made of it.
type Last<K, T> = RefCell<Option<(K, Rc<T>)>>;

thread_local! {
    /// The cluster text and patches of the last call, and what [`Patched`] made of them:
    /// an edit of the pod or the objects file makes none of it again (at 125 nodes,
    /// about a tenth of the DRA path's call once the files' readings were kept).
    static PATCHED: Last<(String, Vec<NodePatch>), Patched> = const { RefCell::new(None) };
}

/// The cluster (`text`, read as `cluster`) with `patches` applied, or the last call's
/// when both are the same.
fn patched(text: &str, cluster: &Manifests, patches: &[NodePatch]) -> Rc<Patched> {
    let hit = PATCHED.with(|p| p.borrow().as_ref().filter(|((t, ps), _)| t == text && ps == patches).map(|(_, made)| made.clone()));
    hit.unwrap_or_else(|| {
        let mut nodes: Vec<Node> = cluster.nodes.iter().map(|l| l.object.clone()).collect();
        let patch_errors = patch_nodes(&mut nodes, patches);
        let bound: Vec<Pod> = cluster.pods.iter().map(|l| l.object.clone()).collect();
        let cluster_view = nodes.iter().map(|n| node_view(n, &bound)).collect();
        let get_nodes = get_nodes(&nodes, 0);
        let snapshot = Snapshot::new(nodes.iter().cloned(), &bound);
        let made = Rc::new(Patched { nodes, patch_errors, cluster_view, get_nodes, snapshot });
        PATCHED.with(|p| *p.borrow_mut() = Some(((text.to_string(), patches.to_vec()), made.clone())));
        made
    })
}

thread_local! {
    /// The containerd files of the last call and the lab's two what-ifs on them
    /// (loading containerd twice was about 8 % of the DRA path's call at 125 nodes).
    static WHAT_IFS: Last<ContainerdFiles, Vec<(Daemon, bool)>> = const { RefCell::new(None) };
}

/// The step 1–2 containerd as loaded before the drop-in and after a restart (the
/// ones that load), or the last call's for the same files.
fn what_ifs(files: &ContainerdFiles) -> Rc<Vec<(Daemon, bool)>> {
    let hit = WHAT_IFS.with(|w| w.borrow().as_ref().filter(|(f, _)| f == files).map(|(_, made)| made.clone()));
    hit.unwrap_or_else(|| {
        let made: Rc<Vec<(Daemon, bool)>> = Rc::new([false, true].iter().filter_map(|r| node::daemon(files, *r).ok().map(|d| (d, *r))).collect());
        WHAT_IFS.with(|w| *w.borrow_mut() = Some((files.clone(), made.clone())));
        made
    })
}

/// The request's fields whose texts are kept as the request's JSON wrote them
/// ([`request`]): the two a cluster's size makes large.
const KEPT_TEXTS: [&str; 2] = ["cluster", "objects"];

/// A kept text: its JSON string as the request wrote it (quotes included), the
/// text, and places where both may be cut — (offset in the JSON string, offset in the
/// text) after an escape, about every [`CUT_EVERY`] bytes of text.
#[derive(Default)]
struct KeptText {
    json: String,
    text: String,
    cuts: Vec<(usize, usize)>,
}

/// How far apart [`KeptText::cuts`] are, in bytes of text.
const CUT_EVERY: usize = 4096;

thread_local! {
    /// Per field of [`KEPT_TEXTS`], the last request's text: a re-schedule's request
    /// carries again the texts the edit did not change (1 MB of objects at 1,000
    /// devices) — the same bytes at the field's place are that text, not read again
    /// — and an edited text is read from the last cut before the first byte that
    /// changed, the text before it kept.
    static TEXTS: RefCell<Vec<KeptText>> = const { RefCell::new(Vec::new()) };
}

/// How many bytes `a` and `b` have in common at their start.
fn common_start(a: &[u8], b: &[u8]) -> usize {
    let mut same = 0;
    for (x, y) in a.chunks(CUT_EVERY).zip(b.chunks(CUT_EVERY)) {
        if x != y {
            return same + x.iter().zip(y).take_while(|(p, q)| p == q).count();
        }
        same += x.len();
    }
    same
}

/// The JSON string at the start of `json` read on from `at` (an offset in it after
/// the opening quote and not inside an escape) onto `text`, with a cut noted
/// about every [`CUT_EVERY`] bytes of text: where the string ends (after its closing
/// quote). `None` for what this reader leaves to `serde_json` — a `\u` escape of a
/// surrogate, an escape or a character JSON refuses, no end.
fn read_json_string(json: &str, mut at: usize, text: &mut String, cuts: &mut Vec<(usize, usize)>) -> Option<usize> {
    let bytes = json.as_bytes();
    let mut run = at;
    let mut next_cut = cuts.last().map_or(0, |c| c.1) + CUT_EVERY;
    loop {
        match *bytes.get(at)? {
            b'"' => {
                text.push_str(json.get(run..at)?);
                return Some(at + 1);
            }
            b'\\' => {
                text.push_str(json.get(run..at)?);
                let c = match *bytes.get(at + 1)? {
                    b'n' => '\n',
                    b't' => '\t',
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'r' => '\r',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'u' => {
                        let hex = bytes.get(at + 2..at + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        at += 4;
                        char::from_u32(u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?)?
                    }
                    _ => return None,
                };
                text.push(c);
                at += 2;
                run = at;
                if text.len() >= next_cut {
                    cuts.push((at, text.len()));
                    next_cut = text.len() + CUT_EVERY;
                }
            }
            0..=0x1f => return None,
            _ => at += 1,
        }
    }
}

/// The kept text of the JSON string at `start` of `json`, `last` the field's last
/// one: `last` when the same bytes are there; else read from `last`'s last cut
/// before the first byte that differs (or from the start), `last`'s text before it
/// kept; `serde_json`'s reading (without cuts) when this reader leaves it to it.
/// `None` when `serde_json` refuses it too. Also where the string ends in `json`.
fn kept_text(json: &str, start: usize, last: Option<KeptText>) -> Option<(KeptText, usize)> {
    let here = json.get(start..)?;
    let last = last.unwrap_or_default();
    let same = common_start(last.json.as_bytes(), here.as_bytes());
    if same == last.json.len() && same > 0 {
        return Some((last, start + same));
    }
    let (from, upto) = last.cuts.iter().rev().find(|c| c.0 <= same).copied().unwrap_or((1, 0));
    let mut text = if here.starts_with('"') { last.text.get(..upto).map(str::to_string) } else { None };
    let mut cuts: Vec<(usize, usize)> = last.cuts.into_iter().take_while(|c| c.0 <= from).collect();
    let end = text.as_mut().and_then(|t| read_json_string(here, from, t, &mut cuts));
    let (text, end, cuts) = match (text, end) {
        (Some(text), Some(end)) => (text, end, cuts),
        _ => {
            let (text, end): (String, usize) = json_value(here, 0)?;
            (text, end, Vec::new())
        }
    };
    Some((KeptText { json: here.get(..end)?.to_string(), text, cuts }, start + end))
}

/// A `KubeRequest` from its JSON: the request `serde_json` reads, or its error —
/// but a text of [`KEPT_TEXTS`] whose JSON string is the last request's is taken as
/// then read, not read again.
pub fn request(json: &str) -> Result<KubeRequest, String> {
    with_kept_texts(json).map_or_else(|| serde_json::from_str(json).map_err(|e| format!("bad request: {e}")), Ok)
}

/// One JSON value at `at` of `json` as `serde_json` reads it, and where it ends.
fn json_value<'a, T: serde::Deserialize<'a>>(json: &'a str, at: usize) -> Option<(T, usize)> {
    let mut values = serde_json::Deserializer::from_str(json.get(at..)?).into_iter::<T>();
    let v = values.next()?.ok()?;
    Some((v, at + values.byte_offset()))
}

/// [`request`]'s way: the request's object walked field by field — each value read
/// by `serde_json`, a kept text's compared with the last request's bytes first —,
/// the fields other than the kept texts read as a `KubeRequest`. `None` whenever
/// the JSON is not plainly such a request (a repeated or escaped key, a text that
/// is not a string, anything `serde_json` refuses): the caller reads it whole, with
/// its error.
fn with_kept_texts(json: &str) -> Option<KubeRequest> {
    let ws = |at: usize| json.get(at..).map_or(at, |s| at + s.len() - s.trim_start_matches([' ', '\t', '\n', '\r']).len());
    let byte = |at: usize| json.as_bytes().get(at).copied();
    let mut at = ws(0);
    (byte(at) == Some(b'{')).then_some(())?;
    at = ws(at + 1);
    let mut keys: Vec<&str> = Vec::new();
    let mut rest = String::from("{");
    let mut kept = Vec::new();
    if byte(at) == Some(b'}') {
        at += 1;
    } else {
        loop {
            let (key, end): (&str, usize) = json_value(json, at)?;
            if keys.contains(&key) {
                return None;
            }
            keys.push(key);
            at = ws(end);
            (byte(at) == Some(b':')).then_some(())?;
            let start = ws(at + 1);
            let end = match KEPT_TEXTS.iter().position(|k| *k == key) {
                Some(field) => {
                    let last = TEXTS.with(|t| t.borrow_mut().get_mut(field).map(std::mem::take));
                    let (text, end) = kept_text(json, start, last)?;
                    kept.push((field, text.text.clone()));
                    TEXTS.with(|t| {
                        let mut t = t.borrow_mut();
                        t.resize_with(KEPT_TEXTS.len(), KeptText::default);
                        if let Some(last) = t.get_mut(field) {
                            *last = text;
                        }
                    });
                    end
                }
                None => {
                    let (_, end): (serde::de::IgnoredAny, usize) = json_value(json, start)?;
                    if rest.len() > 1 {
                        rest.push(',');
                    }
                    rest.extend(["\"", key, "\":", json.get(start..end)?]);
                    end
                }
            };
            at = ws(end);
            match byte(at) {
                Some(b',') => at = ws(at + 1),
                Some(b'}') => {
                    at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    (ws(at) == json.len()).then_some(())?;
    rest.push('}');
    let mut req: KubeRequest = serde_json::from_str(&rest).ok()?;
    for (field, text) in kept {
        if field == 0 {
            req.cluster = text;
        } else {
            req.objects = text;
        }
    }
    Some(req)
}

/// The lab's own file of a step 6 path (`src/steps/data/`).
fn default_text(file: &str) -> String {
    match file {
        "dra.yaml" => include_str!("../../../src/steps/data/dra.yaml"),
        "dra-pod.yaml" => include_str!("../../../src/steps/data/dra-pod.yaml"),
        "dra-extended.yaml" => include_str!("../../../src/steps/data/dra-extended.yaml"),
        _ => "",
    }
    .to_string()
}

/// A manifest finding as the editor's panel shows it, worded in `lang` by the
/// Kubernetes model's catalogue (as `gpulab schedule` prints it in English).
pub fn diag_line(d: &Diagnostic, lang: Lang) -> DiagLine {
    DiagLine {
        severity: d.severity,
        location: d.primary.as_ref().map(ToString::to_string),
        line: d.primary.as_ref().map(|s| s.line),
        message: gpulab_model::kubernetes::messages::message(d, lang),
        code: d.code.clone(),
    }
}

fn node_view(n: &Node, pods: &[Pod]) -> NodeView {
    let name = n.metadata.name.clone().unwrap_or_default();
    let status = n.status.as_ref();
    let cap = status.and_then(|s| s.capacity.as_ref());
    let alloc = status.and_then(|s| s.allocatable.as_ref());
    let mut keys: Vec<&String> = cap.into_iter().flatten().chain(alloc.into_iter().flatten()).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    let get = |m: Option<&BTreeMap<String, ApiQuantity>>, k: &str| m.and_then(|m| m.get(k)).map_or(String::new(), |q| q.0.clone());
    let resources = keys.into_iter().map(|k| (k.clone(), get(cap, k), get(alloc, k))).collect();
    let pods = pods
        .iter()
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name.as_str()))
        .map(|p| {
            let ns = p.metadata.namespace.as_deref().unwrap_or("default");
            format!("{ns}/{}", p.metadata.name.as_deref().unwrap_or(""))
        })
        .collect();
    NodeView { name, resources, pods }
}

/// Whether the pod asks for ResourceClaims (only the DRA module schedules it).
fn uses_claims(pod: &Pod) -> bool {
    pod.spec.as_ref().and_then(|s| s.resource_claims.as_ref()).is_some_and(|c| !c.is_empty())
}

/// One scheduling cycle without DRA: the pod, and no claims to print.
fn plain_cycle(snapshot: &mut Snapshot, pod: &Pod, rcs: &[RuntimeClass], opts: &FilterOptions, pod_file: &str) -> Result<(Scheduled, String), KubeOutcome> {
    match create_pod(pod.clone(), snapshot, rcs, opts, 0) {
        Ok(created) => Ok((created, String::new())),
        Err(rejection) => Err(KubeOutcome::Rejected { text: rejection.kubectl_text(pod_file) }),
    }
}

/// The pod created on the cluster: `schedule` runs the cycle (with DRA or without)
/// and returns the created pod and its claims' devices, or the outcome that ends it
/// there (admission's refusal, DRA's wait); then the kubelet's sandbox.
fn outcome(
    req: &KubeRequest,
    nodes: &[Node],
    snapshot: &Snapshot,
    pods: &Manifests,
    pod_file: &str,
    rcs: &[RuntimeClass],
    schedule: impl FnOnce(&mut Snapshot, &Pod, &FilterOptions) -> Result<(Scheduled, String), KubeOutcome>,
) -> (KubeOutcome, Option<Event>) {
    let version: KubeVersion = match req.version.parse() {
        Ok(v) => v,
        Err(e) => return (KubeOutcome::Rejected { text: format!("{e}") }, None),
    };
    let [pod] = pods.pods.as_slice() else {
        return (KubeOutcome::Rejected { text: format!("{pod_file}: expected exactly one Pod, found {}", pods.pods.len()) }, None);
    };
    let mut snapshot = snapshot.clone();
    let opts = FilterOptions { version, ..Default::default() };
    let (created, claims) = match schedule(&mut snapshot, &pod.object, &opts) {
        Ok(c) => c,
        Err(ended) => return (ended, None),
    };
    let verdict = verdict(&created, &snapshot, version);
    let (node, scheduled) = match &created.result.outcome {
        Outcome::Scheduled { node, .. } => (Some(node.clone()), true),
        _ => {
            let named = nodes.iter().filter_map(|n| n.metadata.name.clone());
            let mut named = named.filter(|n| req.kubelet_node.is_empty() || *n == req.kubelet_node);
            (named.next(), false)
        }
    };
    // The node as step 4 left it when the learner did something there; else
    // the lab's two what-ifs (as loaded before the drop-in, after a restart).
    let sandboxes = node.map_or_else(Vec::new, |node| {
        let run = |d: &Daemon, restarted: bool, ops: Vec<String>| sandbox(&created, &node, scheduled, rcs, d, restarted, ops);
        if req.node_ops.is_empty() {
            what_ifs(&req.containerd).iter().map(|(d, restarted)| run(d, *restarted, Vec::new())).collect()
        } else {
            node::after_step_4(&req.containerd, req.by_hand, &req.node_ops).ok().map(|(d, r)| run(&d, r, req.node_ops.clone())).into_iter().collect()
        }
    });
    let created_view = KubeOutcome::Created {
        verdict,
        events: describe_events(std::slice::from_ref(&created.event), 0),
        nodes: table(&created.explanation),
        claims,
        sandboxes,
    };
    (created_view, Some(created.event))
}

/// The first lines `gpulab schedule` prints ([`Scheduled::verdict`], the model's).
fn verdict(created: &Scheduled, snapshot: &Snapshot, version: KubeVersion) -> String {
    created.verdict(snapshot, version)
}

/// The kubelet on `node` (running the step 1–2 containerd) starting the pod's sandbox.
/// When the learner placed the pod (`scheduled` false), the Events hold the kubelet's
/// alone, as for a pod created with `spec.nodeName`.
fn sandbox(
    created: &Scheduled,
    node: &str,
    scheduled: bool,
    rcs: &[RuntimeClass],
    daemon: &Daemon,
    restarted: bool,
    ops: Vec<String>,
) -> Sandbox {
    let cri = LoadedCri::from_daemon(daemon);
    let mut pod = created.pod.clone();
    if let Some(spec) = pod.spec.as_mut() {
        spec.node_name = Some(node.to_string());
    }
    let name = pod.metadata.name.clone().unwrap_or_default();
    let mut events = if scheduled { vec![created.event.clone()] } else { Vec::new() };
    // The kubelet writes the pod's status either way (one writer, `kubernetes::kubelet`):
    // started, it is Running with the lab network's first address; not, ContainerCreating.
    let (handler, started) = match create_pod_sandbox(&pod, rcs, &cri, &sandbox_id(&name, 1)) {
        Ok(handler) => {
            mark_running(&mut pod, 1, pod_ip(1));
            (handler, true)
        }
        Err(e) => {
            mark_container_creating(&mut pod, 1);
            events.push(e.event(1));
            let handler = match &e {
                gpulab_model::kubernetes::kubelet::SandboxError::NoRuntime { handler, .. } => handler.clone(),
                _ => String::new(),
            };
            (handler, false)
        }
    };
    Sandbox {
        restarted,
        ops,
        scheduled,
        node: node.to_string(),
        handler,
        started,
        get_pods: get_pods_wide(std::slice::from_ref(&pod), 1),
        events: describe_events(&events, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulab_view::ContainerdFiles;

    fn request() -> KubeRequest {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src/steps/data/");
        let read = |f: &str| std::fs::read_to_string(format!("{data}{f}")).unwrap();
        KubeRequest {
            version: "1.36".into(),
            cluster: read("cluster.yaml"),
            runtimeclass: read("runtimeclass.yaml"),
            pod: read("pod.yaml"),
            patches: vec![],
            kubelet_node: String::new(),
            containerd: ContainerdFiles {
                version: "1.7.34".into(),
                main: read("incident-main.toml"),
                dropin: read("incident-99-nvidia.toml"),
            },
            node_ops: vec![],
            by_hand: false,
            lang: "en".into(),
            path: String::new(),
            objects: String::new(),
        }
    }

    /// After the learner restarts containerd in step 4, steps 5–6 show that node, not
    /// the "not restarted" what-if: one sandbox, restarted, naming the operations (on
    /// the incident's drop-in the restarted CRI plugin fails, as step 4's check says);
    /// with the drop-in written but no restart, the handler is not loaded.
    #[test]
    fn step_4_operations_reach_the_kubelet() {
        let mut req = request();
        req.patches.push(NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() });
        req.node_ops = vec!["write-dropin".into(), "restart".into(), "wait".into()];
        let KubeOutcome::Created { sandboxes, .. } = view(&req).outcome else { panic!() };
        let [s] = sandboxes.as_slice() else { panic!("{sandboxes:?}") };
        assert!(s.restarted && s.ops == req.node_ops, "{s:?}");
        assert!(!s.started && s.events.contains("unknown service"), "{s:?}");
        req.node_ops = vec!["write-dropin".into(), "wait".into()];
        let KubeOutcome::Created { sandboxes, .. } = view(&req).outcome else { panic!() };
        let [s] = sandboxes.as_slice() else { panic!("{sandboxes:?}") };
        assert!(!s.restarted && !s.started && s.events.contains("no runtime for \"nvidia\""), "{s:?}");
        req.node_ops = vec!["jump".into()];
        let KubeOutcome::Created { sandboxes, .. } = view(&req).outcome else { panic!() };
        assert!(sandboxes.is_empty());
    }

    /// Issue 18: once the RuntimeClass's sandbox starts on the node step 4 restarted
    /// on the full-table drop-in, `kubectl get pods` reads as the kubelet left the
    /// pod — `1/1 Running` with its IP — whether the scheduler bound it (GPU
    /// advertised) or the lab placed it; never the `Pending` the API server created
    /// it with. The failing sandbox still reads `0/1 ContainerCreating`. AGE is
    /// counted from the creation the API server stamped, not `<unknown>`.
    #[test]
    fn started_sandbox_reads_running_in_get_pods() {
        let seed = concat!(env!("CARGO_MANIFEST_DIR"), "/../model/src/incident/seed/containerd/99-nvidia-full-table.toml");
        let mut req = request();
        req.containerd.dropin = std::fs::read_to_string(seed).unwrap();
        req.node_ops = vec!["write-dropin".into(), "restart".into(), "wait".into()];
        let row = |req: &KubeRequest| {
            let KubeOutcome::Created { sandboxes, .. } = view(req).outcome else { panic!() };
            let [s] = sandboxes.as_slice() else { panic!("{sandboxes:?}") };
            let row: Vec<String> = s.get_pods.lines().nth(1).unwrap_or_default().split_whitespace().map(String::from).collect();
            (s.started, row)
        };
        let cases: [(&[NodePatch], &str, bool, [&str; 3]); 3] = [
            (&[], "full-table", true, ["1/1", "Running", "10.244.0.3"]),
            (&[NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() }], "full-table", true, ["1/1", "Running", "10.244.0.3"]),
            (&[], "incident", false, ["0/1", "ContainerCreating", "<none>"]),
        ];
        for (patches, dropin, started, [ready, status, ip]) in cases {
            req.patches = patches.to_vec();
            if dropin == "incident" {
                req.containerd.dropin = request().containerd.dropin;
            }
            let (got_started, cols) = row(&req);
            assert_eq!(got_started, started, "{dropin} {patches:?}");
            // AGE: created at 0 (the API server stamps it), shown at 1.
            assert_eq!((cols[1].as_str(), cols[2].as_str(), cols[4].as_str(), cols[5].as_str(), cols[6].as_str()), (ready, status, "1s", ip, "gpu-node-2"), "{dropin} {patches:?}: {cols:?}");
        }
    }

    /// The lab's files leave the GPU pod Pending with the scheduler's FitError; after
    /// the learner advertises `nvidia.com/gpu` on gpu-node-2 the pod is bound there,
    /// and the kubelet's sandbox result depends on containerd's restart.
    #[test]
    fn patching_node_status_changes_the_verdict() {
        let mut req = request();
        let before = view(&req);
        // The lab's nodes are Ready (the kubelet's condition is in the file), not Unknown.
        assert!(!before.get_nodes.contains("Unknown") && before.get_nodes.lines().skip(1).all(|l| l.contains(" Ready ")), "{}", before.get_nodes);
        let KubeOutcome::Created { verdict, events, sandboxes, .. } = &before.outcome else { panic!("{:?}", before.outcome) };
        assert!(verdict.contains("Pending"), "{verdict}");
        assert!(events.contains("FailedScheduling"), "{events}");
        assert!(sandboxes.iter().all(|s| !s.scheduled && s.node == "gpu-node-2"), "{sandboxes:?}");
        let [before_restart, after_restart] = sandboxes.as_slice() else { panic!("{sandboxes:?}") };
        assert!(!before_restart.started && before_restart.events.contains("FailedCreatePodSandBox"), "{before_restart:?}");
        assert!(before_restart.get_pods.contains("ContainerCreating"), "{}", before_restart.get_pods);
        // The incident's drop-in replaces the CRI table whole: after the restart the
        // CRI plugin does not load at all (the model's verdict, not the handler's).
        assert!(!after_restart.started && after_restart.events.contains("unknown service"), "{after_restart:?}");
        assert!(!before_restart.events.contains("FailedScheduling"));
        req.patches.push(NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() });
        let after = view(&req);
        assert!(after.patch_errors.is_empty());
        let KubeOutcome::Created { verdict, sandboxes, .. } = &after.outcome else { panic!("{:?}", after.outcome) };
        assert!(verdict.contains("Scheduled to gpu-node-2"), "{verdict}");
        assert_eq!(sandboxes.len(), 2);
        let gpu = after.cluster.iter().find(|n| n.name == "gpu-node-2").unwrap();
        assert!(gpu.resources.iter().any(|(r, c, a)| r == "nvidia.com/gpu" && c == "1" && a == "1"));
    }

    /// A patch naming no node, or a quantity that does not parse, is reported and
    /// changes nothing.
    #[test]
    fn bad_patches_are_reported() {
        let mut req = request();
        req.patches = vec![
            NodePatch { node: "nope".into(), resource: "nvidia.com/gpu".into(), quantity: "1".into() },
            NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "one".into() },
        ];
        let v = view(&req);
        assert_eq!(v.patch_errors.len(), 2, "{:?}", v.patch_errors);
        assert!(v.patch_errors[0].contains("NotFound"));
        // A refused patch is not counted as applied, and its error is kubectl's.
        assert_eq!(v.patches_applied, 0);
        assert_eq!(v.patch_errors[1].matches("regular expression").count(), 1, "{}", v.patch_errors[1]);
        assert!(v.patch_errors[1].starts_with("The request is invalid: patch: Invalid value: "), "{}", v.patch_errors[1]);
        req.patches.push(NodePatch { node: "gpu-node-2".into(), resource: "nvidia.com/gpu".into(), quantity: "2".into() });
        assert_eq!(view(&req).patches_applied, 1);
    }

    /// Step 6's paths for the same pod: the DRA path allocates a GPU of gpu-node-2's
    /// slice without any node status patch and sends the lab's own files back while
    /// the request leaves them empty (nothing when not: the app has the learner's
    /// edits); the extended resource
    /// is the device plugin's verdict while DRAExtendedResource is off (1.35) and the
    /// scheduler's claim for it from 1.36; the device plugin's path shows no
    /// files of its own.
    #[test]
    fn paths_to_the_gpu() {
        let mut req = request();
        req.path = "dra".into();
        req.pod = String::new();
        let v = view_dra(&req);
        let KubeOutcome::Created { verdict, claims, sandboxes, .. } = &v.outcome else { panic!("{:?}", v.outcome) };
        assert_eq!(verdict, "default/cuda-vectoradd: Scheduled to gpu-node-2");
        assert!(claims.contains("  gpu: gpu.nvidia.com gpu-node-2 gpu-0"), "{claims}");
        assert!(sandboxes.iter().all(|s| s.scheduled && s.node == "gpu-node-2"), "{sandboxes:?}");
        assert_eq!((v.pod.as_str(), v.objects.as_str()), (default_text("dra-pod.yaml").as_str(), default_text("dra.yaml").as_str()));
        // The learner's objects without the pod's template: the claim controller's event.
        req.objects = default_text("dra.yaml").replace("name: one-gpu", "name: two-gpus");
        let v = view_dra(&req);
        let KubeOutcome::Waiting { text } = &v.outcome else { panic!("{:?}", v.outcome) };
        assert!(text.contains("FailedResourceClaimCreation") && text.contains("\"one-gpu\" not found"), "{text}");
        // The learner's own texts are the app's: the view does not carry them back.
        assert_eq!((v.pod.as_str(), v.objects.as_str()), (default_text("dra-pod.yaml").as_str(), ""));
        req.pod = default_text("dra-pod.yaml");
        let v = view_dra(&req);
        assert!(v.pod.is_empty() && v.objects.is_empty());
        req.path = "dra-extended".into();
        req.pod = request().pod;
        req.objects = String::new();
        req.version = "1.35".into();
        let KubeOutcome::Created { verdict, claims, .. } = view_dra(&req).outcome else { panic!() };
        assert!(verdict.contains("Pending (Kubernetes 1.35)") && claims.is_empty(), "{verdict}");
        // From 1.36 the scheduler's claim for nvidia.com/gpu, one request per container.
        req.version = "1.36".into();
        let KubeOutcome::Created { verdict, claims, .. } = view_dra(&req).outcome else { panic!() };
        assert_eq!(verdict, "default/cuda-vectoradd: Scheduled to gpu-node-2");
        assert!(claims.contains("ResourceClaim cuda-vectoradd-extended-resources-"), "{claims}");
        assert!(claims.contains("  container-0-request-0: gpu.nvidia.com gpu-node-2 gpu-0"), "{claims}");
        req.path = String::new();
        let v = view_dra(&req);
        assert!(v.pod.is_empty() && v.objects.is_empty());
    }

    /// The chunk's `kube` links no DRA: what needs it — a DRA path, a DRA object in any
    /// file, a pod with claims — is `NeedsDra`, with the same cluster view and the
    /// path's files as the DRA module's; what does not is the DRA module's view too.
    #[test]
    fn the_chunk_hands_dra_to_the_dra_module() {
        let dra_files = || {
            let mut req = request();
            req.path = "dra".into();
            req.pod = String::new();
            req
        };
        let in_cluster = || {
            let mut req = request();
            req.cluster = format!("{}\n---\n{}", req.cluster, default_text("dra.yaml"));
            req
        };
        let claims_pod = || {
            let mut req = request();
            req.pod = default_text("dra-pod.yaml");
            req
        };
        let extended = || {
            let mut req = request();
            req.path = "dra-extended".into();
            req
        };
        for (case, req) in [("dra path", dra_files()), ("objects in cluster.yaml", in_cluster()), ("pod with claims", claims_pod()), ("extended", extended())] {
            let (chunk, dra) = (view(&req), view_dra(&req));
            assert_eq!(chunk.outcome, KubeOutcome::NeedsDra {}, "{case}");
            assert_ne!(dra.outcome, KubeOutcome::NeedsDra {}, "{case}");
            assert_eq!((chunk.get_nodes, chunk.cluster, chunk.pod, chunk.objects), (dra.get_nodes, dra.cluster, dra.pod, dra.objects), "{case}");
        }
        let plain = request();
        assert_eq!(view(&plain), view_dra(&plain));
        assert!(matches!(view(&plain).outcome, KubeOutcome::Created { .. }));
    }

    /// An edit reads again only the file it changed: however many texts of the pod
    /// come and go, the cluster and the DRA objects read before stay the same reading
    /// (one `Rc`), and a changed text is read anew.
    #[test]
    fn edits_read_only_the_changed_file() {
        let (cluster_text, objects_text) = (request().cluster, default_text("dra.yaml"));
        let cluster = read_file(CLUSTER, &cluster_text);
        let objects = read_file("dra.yaml", &objects_text);
        let dra = read_dra("dra.yaml", &objects_text, &objects);
        assert!(!dra.2.slices.is_empty() && dra.1.is_empty());
        for i in 0..3 * KEPT {
            read_file(POD, &format!("{}# edit {i}\n", request().pod));
            assert!(Rc::ptr_eq(&cluster, &read_file(CLUSTER, &cluster_text)), "{i}");
            assert!(Rc::ptr_eq(&dra, &read_dra("dra.yaml", &objects_text, &objects)), "{i}");
        }
        assert!(!Rc::ptr_eq(&cluster, &read_file(CLUSTER, &format!("{cluster_text}\n"))));
    }

    /// What `gpulab schedule` reads of a file — `load`, `dra::read`, `dra::diagnose`'s
    /// errors —, and what this module's state reads of it: the manifests (DRA's
    /// documents aside), the findings in the order the view shows them, the classes
    /// where they are, the API server's objects.
    fn readings(file: &str, text: &str) -> [String; 2] {
        let (m, mut diags) = gpulab_model::kubernetes::yaml::load(file, text);
        let (o, typed) = dra::read(&m);
        diags.extend(typed);
        diags.extend(dra::diagnose(&o).into_iter().filter(|d| d.severity == Severity::Error));
        let shown = |m: &Manifests| format!("{:?}", (&m.nodes, &m.pods, &m.runtime_classes, &m.daemon_sets, &m.config_maps, &m.events, &m.bound));
        let classes = o.device_classes.clone();
        let fresh = format!("{}\n{diags:#?}\n{classes:?}\n{:?}\n{}", shown(&m), State::from(o), !m.deferred.is_empty());
        let read = read_file(file, text);
        let dra = read_dra(file, text, &read);
        let mut diags = read.diags.clone();
        diags.extend(dra.1.iter().cloned());
        let kept = format!("{}\n{diags:#?}\n{:?}\n{:?}\n{}", shown(&read), dra.0, dra.2, read.has_dra);
        [fresh, kept]
    }

    /// Issue 17: the objects file read piece by piece over a series of edits — above a
    /// bad document, inside it, below it, a document copied, one removed, broken YAML
    /// and healed — is every time what a fresh read gives, findings and their lines
    /// included; an edit above a bad document moves its finding's line.
    #[test]
    fn reading_only_the_changed_documents_is_a_fresh_reading() {
        let own = default_text("dra.yaml");
        let bad_slice = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: twice\nspec:\n  driver: gpu.nvidia.com\n  nodeName: gpu-node-2\n  pool: {name: p, generation: 0, resourceSliceCount: 1}\n  devices:\n  - name: gpu-0\n  - name: gpu-0\n";
        let bad_class = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: bad\nspec:\n  selectors:\n  - cel:\n      expression: device.driver = 'x'\n";
        let typo = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.nvidia.com\n  pool: {name: p, generation: 0, resourceSliceCount: oops}\n";
        let texts = [
            own.clone(),
            format!("{own}---\n{bad_slice}"),
            format!("# a line above\n{own}---\n{bad_slice}"),
            format!("# a line above\n# and another\n{own}---\n{bad_slice}---\n{bad_class}"),
            format!("{bad_class}---\n{own}---\n{bad_slice}---\n{typo}"),
            format!("{bad_class}---\n{typo}---\n{own}---\n{bad_slice}---\n{bad_slice}"),
            format!("{bad_class}---\nkind: [\n---\n{own}"),
            format!("{bad_class}---\n{own}---\n{}", bad_slice.replace("name: twice", "name: once")),
            format!("{own}---\n{bad_slice}"),
            own.replace("  name: one-gpu", "  name: one-gpu\n  labels: {a: b}"),
        ];
        let mut codes = std::collections::BTreeSet::new();
        for (i, text) in texts.iter().enumerate() {
            let [fresh, kept] = readings("dra.yaml", text);
            assert_eq!(kept, fresh, "edit {i}");
            codes.extend(["dra-invalid", "k8s-object-invalid", "k8s-yaml-invalid"].into_iter().filter(|c| fresh.contains(&format!("code: \"{c}\""))));
        }
        assert_eq!(codes.len(), 3, "every kind of finding met: {codes:?}");
        // The duplicate device's finding, at its line, follows the lines added above.
        let line_of_duplicate = |text: &str| {
            let read = read_file("dra.yaml", text);
            let dra = read_dra("dra.yaml", text, &read);
            dra.1.iter().find(|d| d.args.iter().any(|(_, v)| v.contains("Duplicate value"))).and_then(|d| d.primary.as_ref()).map(|s| s.line)
        };
        let below = format!("{own}---\n{bad_slice}");
        let at = own.lines().count() as u32 + 2 + 10;
        assert_eq!(line_of_duplicate(&below), Some(at));
        assert_eq!(line_of_duplicate(&format!("# one\n# two\n{below}")), Some(at + 2));
    }

    /// An edit of one document reads only that document again: the others' readings
    /// are the same (one `Rc`), whether they moved or not.
    #[test]
    fn an_edit_reads_only_its_document() {
        let own = default_text("dra.yaml");
        let before = read_file("dra.yaml", &own);
        let edited = own.replace("      - name: gpu\n", "      - name: gpu\n        # one more line\n");
        let after = read_file("dra.yaml", &edited);
        let same: Vec<bool> = before.pieces.iter().zip(&after.pieces).map(|((a, _), (b, _))| Rc::ptr_eq(a, b)).collect();
        assert_eq!(same, [true, false, true], "the class and the slice kept, the template read again");
        let lines = |r: &Read| r.pieces.iter().map(|(_, by)| *by).collect::<Vec<_>>();
        let [class, template, slice] = lines(&before)[..] else { panic!() };
        assert_eq!(lines(&after), [class, template, slice + 1]);
    }

    /// The DRA module's request reader gives what `serde_json` reads — the request,
    /// or its error word for word — whatever the JSON, its kept texts the last
    /// request's or not.
    #[test]
    fn kept_texts_read_as_serde_json_reads() {
        let whole = |json: &str| serde_json::from_str::<KubeRequest>(json).map_err(|e| format!("bad request: {e}"));
        let mut req = request();
        req.objects = [default_text("dra.yaml"), "# \"quoted\" \\ \u{e9}\t/\n".into()].concat().repeat(20);
        let json = serde_json::to_string(&req).unwrap();
        let mut edited = req.clone();
        edited.cluster.push_str("# \"quoted\" \\ \u{e9}\t\n");
        let edited = serde_json::to_string(&edited).unwrap();
        let middle = req.objects.len() / 2;
        let mut in_the_middle = req.clone();
        in_the_middle.objects.insert_str((0..middle).rev().find(|&i| req.objects.is_char_boundary(i)).unwrap_or(0), "# \u{1f600}\n");
        let in_the_middle = serde_json::to_string(&in_the_middle).unwrap();
        let half = (0..=json.len() / 2).rev().find(|&i| json.is_char_boundary(i)).unwrap_or(0);
        let cases = [
            json.clone(),
            json.clone(),
            edited.clone(),
            edited.clone(),
            json.clone(),
            in_the_middle.clone(),
            format!("{json}\n"),
            json.replacen("\\\"quoted", "\\u0022quoted\\ud83d\\ude00\\u00e9\\b\\f\\r", 3),
            json.replacen("\\\"quoted", "\\ud83d", 1),
            json.replacen("\\\"quoted", "\\u+0ab", 1),
            json.replacen("quoted", "quo\u{1}ted", 1),
            in_the_middle.clone(),
            json.clone(),
            serde_json::to_string_pretty(&req).unwrap(),
            format!(" \n{json}\t"),
            json.replacen("\"cluster\":", "\"cluster\" :\r\n ", 1),
            json.replacen('{', "{\"cluster\":\"x\",", 1),
            json.replacen("\"cluster\":", "\"clust\\u0065r\":", 1),
            json.replacen("\"objects\":", "\"objects\":null,\"x\":", 1),
            json.replacen("\"version\":\"1.36\"", "\"version\":136", 1),
            json.replacen("\"version\":\"1.36\"", "\"version\":\"1.36\",\"extra\":{\"deep\":[1,{\"x\":null}]}", 1),
            format!("{},}}", json.trim_end_matches('}')),
            format!("{json}}}"),
            format!("{json}x"),
            json[..half].to_string(),
            json.replacen("\"cluster\":\"", "\"cluster\":\"\\q", 1),
            "{}".into(),
            "{ }".into(),
            "[]".into(),
            String::new(),
            "{\"cluster\":\"a\"".into(),
            "{\"cluster\":\"a\",\"objects\":\"b\"}".into(),
        ];
        for (i, c) in cases.iter().enumerate() {
            assert_eq!(super::request(c), whole(c), "case {i}");
        }
        // A plain request is read field by field, not whole.
        for c in [&json, &json, &edited, &in_the_middle, &json] {
            assert_eq!(with_kept_texts(c), Some(whole(c).unwrap()));
        }
    }

    /// Broken YAML is a list of diagnostics with the file name, not a panic.
    #[test]
    fn bad_yaml_is_diagnostics() {
        let mut req = request();
        req.pod = "kind: Pod\n  : [".into();
        let v = view(&req);
        let KubeOutcome::BadInput { diagnostics } = &v.outcome else { panic!("{:?}", v.outcome) };
        assert!(diagnostics.iter().any(|d| d.location.as_ref().is_some_and(|l| l.starts_with(POD))), "{diagnostics:?}");
    }
}
