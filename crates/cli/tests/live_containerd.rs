//! Live parity with the real `containerd` binary (Debian's package, 1.6.x): the
//! model's `config dump` must equal the binary's — stdout, stderr, exit code — on
//! every golden input and on the 264 generated main/drop-in combinations of
//! `tests/config_dump_cases.rs` (random tables, keys, versions and import shapes, from
//! a fixed seed; the every-version tier's generator), and the CRI plugin status of
//! a real daemon (private root, state and socket; stopped by PID) must equal the
//! model's for a sample of them.
//!
//! Why this tier exists: the goldens were recorded once; this checks the model against
//! the binary itself on inputs nobody recorded. It needs `containerd` on PATH (the
//! README's test command installs it); without it the tests say so loudly and pass.
//!
//! Files are written under a private directory that stands for `/`: every
//! `/etc/containerd` in the configs is rewritten to that directory's
//! `etc/containerd`, so model and binary read the same paths. Commands run in `/`.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gpulab_model::containerd::{self, Files, Version};

// The generator and golden reader the every-version tier uses too
// (`tests/config_dump_cases.rs`); a node's files keyed by their `/etc/containerd/...` path.
#[path = "../../../tests/config_dump_cases.rs"]
mod cases;
use cases::Node;

fn containerd_bin() -> Option<PathBuf> {
    let out = Command::new("sh").args(["-c", "command -v containerd"]).output().ok()?;
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !p.is_empty()).then(|| PathBuf::from(p))
}

/// The binary's version, as the model names it (`1.6.20~ds1` → 1.6.20).
fn binary_version(bin: &Path) -> Option<Version> {
    let out = Command::new(bin).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let word = text.split_whitespace().nth(2)?;
    Version::parse(word).ok()
}

fn skip_loudly(what: &str) {
    eprintln!("\n==================================================================");
    eprintln!("SKIPPED {what}: no `containerd` binary on PATH.");
    eprintln!("Install Debian's package (apt-get install containerd) to run live parity.");
    eprintln!("==================================================================\n");
}

/// A private scratch directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let p = std::env::temp_dir().join(format!("gpulab-live-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&p).expect("scratch dir");
        Scratch(p)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `node` under `root` with `/etc/containerd` rewritten, and returns the same
/// files as the model sees them.
fn install(root: &Path, node: &Node) -> (Files, String) {
    let prefix = root.join("etc/containerd").to_string_lossy().into_owned();
    let rewrite = |b: &[u8]| -> Vec<u8> {
        match std::str::from_utf8(b) {
            Ok(s) => s.replace("/etc/containerd", &prefix).into_bytes(),
            Err(_) => b.to_vec(),
        }
    };
    let mut files = Files::new();
    for (path, bytes) in node {
        let real = path.replacen("/etc/containerd", &prefix, 1);
        let content = rewrite(bytes);
        if let Some(parent) = Path::new(&real).parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&real, &content).expect("write");
        files.insert(&real, content);
    }
    (files, format!("{prefix}/config.toml"))
}

/// Sorts the `imports = [...]` line (1.x builds it from a Go map), as the goldens do.
fn sort_imports_line(dump: &str) -> String {
    dump.lines()
        .map(|l| match l.strip_prefix("imports = [").and_then(|r| r.strip_suffix(']')) {
            Some(inner) if !inner.is_empty() => {
                let mut items: Vec<&str> = inner.split(", ").collect();
                items.sort_unstable();
                format!("imports = [{}]", items.join(", "))
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if dump.ends_with('\n') { "\n" } else { "" }
}

/// `time="..." ` prefixes dropped from log lines, as the goldens normalise them.
fn strip_time(stderr: &str) -> String {
    stderr
        .lines()
        .map(|l| match l.strip_prefix("time=\"") {
            Some(rest) => rest.split_once("\" ").map_or(l, |(_, r)| r).to_string(),
            None => l.to_string(),
        })
        .map(|l| l + "\n")
        .collect()
}

/// Runs the real `config dump` and the model on `node`; returns a difference, if any.
fn compare_dump(bin: &Path, version: &Version, node: &Node, label: &str) -> Option<String> {
    let scratch = Scratch::new("dump");
    let (files, main) = install(&scratch.0, node);
    let out = Command::new(bin).args(["--config", &main, "config", "dump"]).current_dir("/").output().expect("run containerd");
    let real_stdout = sort_imports_line(&String::from_utf8_lossy(&out.stdout));
    let real_stderr = strip_time(&String::from_utf8_lossy(&out.stderr));
    let real_exit = out.status.code().unwrap_or(-1);
    let model = containerd::load_from(&files, version, &main);
    let mut diffs = Vec::new();
    if model.dump.exit != real_exit {
        diffs.push(format!("exit: real {real_exit}, model {}", model.dump.exit));
    }
    if model.dump.stdout != real_stdout {
        diffs.push(format!("stdout: {}", first_difference(&real_stdout, &model.dump.stdout)));
    }
    if model.dump.stderr != real_stderr {
        diffs.push(format!("stderr: {}", first_difference(&real_stderr, &model.dump.stderr)));
    }
    if diffs.is_empty() {
        None
    } else {
        let files: String = node.iter().map(|(p, b)| format!("--- {p}\n{}\n", String::from_utf8_lossy(b))).collect();
        Some(format!("{label}\n{}\n{files}", diffs.join("\n")))
    }
}

fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.split('\n').collect(), actual.split('\n').collect());
    for i in 0..e.len().max(a.len()) {
        if e.get(i) != a.get(i) {
            return format!("line {}: real {:?} / model {:?}", i + 1, e.get(i), a.get(i));
        }
    }
    String::new()
}

fn goldens_dir() -> PathBuf {
    shared_dir::goldens("containerd")
}

/// Every golden input: the binary and the model print the same dump.
#[test]
fn live_dump_matches_on_golden_inputs() {
    let Some(bin) = containerd_bin() else { return skip_loudly("live_dump_matches_on_golden_inputs") };
    let version = binary_version(&bin).expect("containerd --version");
    let mut failures = Vec::new();
    let mut n = 0;
    let mut cases: Vec<PathBuf> = std::fs::read_dir(goldens_dir()).expect("goldens").flatten().map(|e| e.path()).filter(|p| p.join("input").is_dir()).collect();
    cases.sort();
    for case in cases {
        n += 1;
        let node = cases::golden_node(&case.join("input"));
        if let Some(d) = compare_dump(&bin, &version, &node, &case.display().to_string()) {
            failures.push(d);
        }
    }
    assert!(n >= 21, "only {n} golden inputs found");
    assert!(failures.is_empty(), "{} of {n} differ:\n{}", failures.len(), failures.join("\n"));
    eprintln!("live parity ({version}): {n} golden inputs, 0 differences");
}

// ---- generated combinations --------------------------------------------------------

/// The generated combinations: zero differences between the binary and the model.
#[test]
fn live_dump_matches_on_generated_combinations() {
    let Some(bin) = containerd_bin() else { return skip_loudly("live_dump_matches_on_generated_combinations") };
    let version = binary_version(&bin).expect("containerd --version");
    // The shared generator's seed and count; `GPULAB_LIVE_SEED` / `GPULAB_LIVE_N`
    // explore further.
    let seed = std::env::var("GPULAB_LIVE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(cases::SEED);
    let n: usize = std::env::var("GPULAB_LIVE_N").ok().and_then(|s| s.parse().ok()).unwrap_or(cases::GENERATED);
    let mut rng = cases::Rng(seed);
    let mut failures = Vec::new();
    for i in 0..n {
        let node = cases::random_node(&mut rng);
        if let Some(d) = compare_dump(&bin, &version, &node, &format!("combination #{i}")) {
            failures.push(d);
        }
    }
    let summary: Vec<String> = failures.iter().map(|f| f.lines().take(3).collect::<Vec<_>>().join(" | ")).collect();
    assert!(failures.is_empty(), "{} of {n} differ:\n{}\nfirst in full:\n{}", failures.len(), summary.join("\n"), failures.first().map_or("", String::as_str));
    eprintln!("live parity ({version}): {n} generated combinations (seed {seed}), 0 differences");
}

// ---- daemon ----------------------------------------------------------------------------

/// A real daemon on a private root, state and socket; killed by PID on drop.
struct RealDaemon {
    child: std::process::Child,
}

impl Drop for RealDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the daemon and returns the CRI rows of `ctr plugins ls`, or `None` when the
/// daemon exited by itself.
fn real_cri_rows(bin: &Path, root: &Path, main: &str) -> Option<Vec<(String, String)>> {
    let run = root.join("run");
    let sock = run.join("c.sock");
    std::fs::create_dir_all(&run).expect("run dir");
    let child = Command::new(bin)
        .args(["--config", main, "--root"])
        .arg(run.join("root"))
        .arg("--state")
        .arg(run.join("state"))
        .arg("--address")
        .arg(&sock)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start containerd");
    let mut daemon = RealDaemon { child };
    let ctr = |sock: &Path| Command::new("ctr").arg("--address").arg(sock).args(["plugins", "ls"]).output();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(_)) = daemon.child.try_wait() {
            return None;
        }
        if let Ok(out) = ctr(&sock) {
            if out.status.success() {
                break;
            }
        }
        assert!(Instant::now() < deadline, "containerd did not answer within 20 s");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(1));
    let out = ctr(&sock).expect("ctr plugins ls");
    let text = String::from_utf8_lossy(&out.stdout);
    let rows = text
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let (ty, id, status) = (cols.first()?, cols.get(1)?, cols.last()?);
            (id.contains("cri") || ty.contains("cri")).then(|| (format!("{ty}.{id}"), status.to_string()))
        })
        .collect();
    drop(daemon);
    Some(rows)
}

/// A sample of generated combinations and the incident: the real daemon's CRI rows
/// equal the model's CRI status (or both say the daemon exits).
#[test]
fn live_daemon_cri_status_matches_on_a_sample() {
    let Some(bin) = containerd_bin() else { return skip_loudly("live_daemon_cri_status_matches_on_a_sample") };
    if Command::new("sh").args(["-c", "command -v ctr"]).output().map_or(true, |o| !o.status.success()) {
        return skip_loudly("live_daemon_cri_status_matches_on_a_sample (ctr missing)");
    }
    let version = binary_version(&bin).expect("containerd --version");
    let mut nodes: Vec<Node> = vec![cases::golden_node(&goldens_dir().join("v2-dropin-adds-nvidia-runtime/input"))];
    let mut rng = cases::Rng(0x6375_7263_6865);
    while nodes.len() < 8 {
        nodes.push(cases::random_node(&mut rng));
    }
    let mut failures = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let scratch = Scratch::new("daemon");
        let (files, main) = install(&scratch.0, node);
        let model = containerd::load_from(&files, &version, &main);
        let real = real_cri_rows(&bin, &scratch.0, &main);
        let model_rows: Option<Vec<(String, String)>> = match &model.start {
            containerd::Start::Serving(cri) => Some(cri.plugins.iter().map(|(k, s)| (k.clone(), s.as_str().to_string())).collect()),
            containerd::Start::Exited { .. } => None,
        };
        let real_rows = real.map(|mut r| {
            r.sort();
            r
        });
        let model_rows = model_rows.map(|r| r.into_iter().filter(|(_, s)| s != "absent").collect::<Vec<_>>());
        if real_rows != model_rows {
            failures.push(format!("node #{i}: real {real_rows:?}, model {model_rows:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("live daemon parity ({version}): {} starts, CRI status equal", nodes.len());
}
