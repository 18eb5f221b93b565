//! Reading the manifests `gpulab schedule` and `gpulab rollout` are given, as kubectl
//! reads `-f`: a file of YAML documents, or a `kubectl get nodes,pods -A -o yaml|json`
//! dump (`kind: List`), or `-` for stdin. The model parses them
//! ([`gpulab_model::kubernetes::yaml::load`], the rollout's objects then through
//! [`gpulab_model::daemonset::manifests::Manifests::add`]); this is the I/O, the
//! threads, and the printing of its findings.
//!
//! [`load`] is the model's `load` on every core: the model cuts the file into pieces
//! that load on their own (`yaml::split`: documents, List items), each thread loads a
//! run of them of about equal bytes, and the results are joined in file order — the
//! same objects and the same findings in the same order as the model's single-threaded
//! `load` (the tests hold that). The model itself stays single-threaded (it is the
//! wasm's too).

use std::io::Read;
use std::path::Path;

use gpulab_model::daemonset::manifests::ROLLOUT_KINDS;
use gpulab_model::kubernetes::yaml::{self, Document, Manifests};
use gpulab_model::Diagnostic;

/// Below this many bytes a file is read on one thread (starting threads costs more).
const PARALLEL_FROM_BYTES: usize = 256 * 1024;

/// [`yaml::load`] (`cluster`: [`yaml::load_cluster`]) of one file's text, its pieces
/// shared out to the machine's cores.
pub fn load(file: &str, text: &str, cluster: bool) -> (Manifests, Vec<Diagnostic>) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    load_on(file, text, cluster, threads)
}

/// [`load`] on `threads` threads.
pub fn load_on(file: &str, text: &str, cluster: bool, threads: usize) -> (Manifests, Vec<Diagnostic>) {
    let pieces = yaml::split(text);
    if threads <= 1 || text.len() < PARALLEL_FROM_BYTES {
        return yaml::load_pieces(file, &pieces, cluster);
    }
    load_shared(file, &pieces, cluster, threads)
}

/// `pieces` loaded in `threads` shares side by side, the results joined in order.
fn load_shared(file: &str, pieces: &[Document], cluster: bool, threads: usize) -> (Manifests, Vec<Diagnostic>) {
    let results: Vec<(Manifests, Vec<Diagnostic>)> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            shares(pieces, threads).into_iter().map(|share| scope.spawn(move || yaml::load_pieces(file, share, cluster))).collect();
        // A thread that panicked is a bug; its panic goes on here.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    let mut manifests = Manifests::default();
    let mut diags = Vec::new();
    for (m, d) in results {
        manifests.extend(m);
        diags.extend(d);
    }
    (manifests, diags)
}

/// `pieces` cut into at most `n` consecutive runs of about equal bytes.
fn shares(pieces: &[Document], n: usize) -> Vec<&[Document]> {
    let total: usize = pieces.iter().map(Document::len).sum();
    let per = total.div_ceil(n.max(1)).max(1);
    let mut out = Vec::with_capacity(n);
    let (mut start, mut bytes) = (0, 0);
    for (i, piece) in pieces.iter().enumerate() {
        bytes += piece.len();
        if bytes >= per && out.len() + 1 < n {
            out.push(&pieces[start..=i]);
            (start, bytes) = (i + 1, 0);
        }
    }
    if start < pieces.len() {
        out.push(&pieces[start..]);
    }
    out
}

/// The name stdin goes by in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// The text of `path` (`-`: stdin) and the name to report it under.
pub fn read_source(path: &Path) -> Result<(String, String), String> {
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| format!("{STDIN_NAME}: {e}"))?;
        return Ok((STDIN_NAME.to_string(), text));
    }
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    Ok((name, text))
}

/// `file:line:col: error[code]: …`, the form the companion prints a manifest finding
/// in (`gpulab schedule`, `gpulab rollout`, a scenario's setup).
pub fn diagnostic_line(d: &Diagnostic) -> String {
    let at = d.primary.as_ref().map(|s| format!("{s}: ")).unwrap_or_default();
    format!("{at}{}", finding_message(d))
}

/// `error[code]: …` without the place: a kind the rollout does not model named with
/// the kinds it does; the Kubernetes model's findings in its catalogue's English
/// ([`gpulab_model::kubernetes::messages::message`]: a YAML syntax error in kubectl's
/// words).
pub fn finding_message(d: &Diagnostic) -> String {
    let message = match (d.code.as_str(), d.get("kind")) {
        ("rollout-kind-unmodelled", Some(kind)) => {
            format!("kind {kind:?} is not part of the rollout model ({})", ROLLOUT_KINDS.join(", "))
        }
        _ => gpulab_model::kubernetes::messages::message(d, gpulab_model::Lang::En),
    };
    format!("error[{}]: {message}", d.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of Nodes and bound Pods, a few of them bad, as plain documents and as
    /// a kubectl List.
    fn cluster(nodes: usize, list: bool) -> String {
        let mut docs = Vec::new();
        for i in 0..nodes {
            let gpus = if i % 7 == 3 { "eight" } else { "8" };
            docs.push(format!("apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\nstatus:\n  allocatable:\n    nvidia.com/gpu: \"{gpus}\"\n"));
            let spec = if i % 11 == 5 { "  containers: 3\n".to_string() } else { format!("  nodeName: n{i}\n  containers:\n  - name: c\n    resources:\n      limits:\n        nvidia.com/gpu: \"1\"\n") };
            docs.push(format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\nspec:\n{spec}"));
        }
        if !list {
            return docs.join("---\n");
        }
        let items: String = docs.iter().map(|d| format!("- {}", d.trim_end().replace('\n', "\n  ") + "\n")).collect();
        format!("apiVersion: v1\nitems:\n{items}kind: List\nmetadata:\n  resourceVersion: \"\"\n")
    }

    /// Loading shares of the pieces on threads gives what the model's one-thread
    /// `load` gives: the same objects, bound pods and findings, in the same order.
    #[test]
    fn threads_load_what_one_thread_loads() {
        for list in [false, true] {
            let text = cluster(40, list);
            for cluster in [false, true] {
                let (m, d) = if cluster { yaml::load_cluster("c.yaml", &text) } else { yaml::load("c.yaml", &text) };
                assert!(d.len() >= 8, "the file has bad documents: {d:?}");
                let want = format!("{m:?} {d:?}");
                for threads in [2, 3, 7] {
                    let pieces = yaml::split(&text);
                    assert_eq!(shares(&pieces, threads).len(), threads, "{threads} shares");
                    let (m, d) = load_shared("c.yaml", &pieces, cluster, threads);
                    assert!(format!("{m:?} {d:?}") == want, "list {list}, cluster {cluster}, {threads} threads");
                }
            }
        }
    }

    /// Shares are consecutive, cover every piece once, and are about equal in bytes.
    #[test]
    fn shares_are_consecutive_and_even() {
        let pieces = yaml::split(&cluster(30, true));
        for n in [1, 2, 4] {
            let got = shares(&pieces, n);
            assert_eq!(got.iter().map(|s| s.len()).sum::<usize>(), pieces.len());
            let bytes: Vec<usize> = got.iter().map(|s| s.iter().map(Document::len).sum()).collect();
            let (min, max) = (bytes.iter().min().copied().unwrap_or(0), bytes.iter().max().copied().unwrap_or(0));
            assert!(max - min <= 2 * pieces.iter().map(Document::len).max().unwrap_or(0), "{n}: {bytes:?}");
        }
    }
}
