//! `containerd config dump` of the model against the real binary of every version
//! there is (Debian's on PATH and every build `scripts/oracle-containerd.sh` cached):
//! every golden input of `../shared/goldens/containerd` and the generated main/drop-in
//! combinations of `tests/config_dump_cases.rs`, each compared on stdout, stderr and
//! exit status. A difference is a failure, printed as a unified diff under the case's
//! input files.
//!
//! Why this tier exists: the goldens were recorded once, from eight binaries; this
//! holds the model to the binaries themselves, on inputs nobody recorded, on every
//! version line. `config dump` needs no daemon and no root: each case runs in its own
//! private directory standing for `/` (every `/etc/containerd` in the files rewritten
//! to it; the working directory is that directory too, so relative imports resolve as
//! containerd resolves them, the working directory included on 1.6 < 1.6.29).
//!
//! Why gated (`--features real-containerd-dump`): it needs the real binaries, which
//! `./dev.sh setup` builds (minutes per version, cold). Without any, it fails: a tier
//! that compared nothing must not pass.
//!
//! The same comparison on fresh seeds, as long as one likes, is the ignored
//! `config_dump_matches_on_fresh_seeds` (each round prints its seed; see its doc).
//!
//! `GPULAB_RECORD_DUMPS=1` also writes what each binary printed (normalised) to
//! `crates/model/tests/config_dump/<version>.txt`, which the model's own test
//! (`crates/model/tests/containerd_config_dump.rs`) holds it to without the binaries.
//! `GPULAB_DUMP_JOBS` sets how many cases run at once (default: twice the cores, since
//! each case mostly waits for its process).
#![cfg(feature = "real-containerd-dump")]

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;

#[path = "../../../tests/config_dump_cases.rs"]
mod cases;

// The binary's resolver, shared by path (the tests use only `available`).
#[allow(dead_code)]
#[path = "../src/oracle.rs"]
mod oracle;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cases::{Node, Output};
use gpulab_model::containerd::{Containerd, Files};

/// A private directory standing for `/`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!("gpulab-dump-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("scratch dir");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o700)).expect("chmod scratch");
        Scratch(p)
    }

    fn root(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `node` under `root` (`/etc/containerd` rewritten in paths and text) and
/// returns the same files as the model sees them, with `root` as working directory.
fn install(root: &str, node: &Node) -> (Files, String) {
    let (laid, main) = cases::under_root(root, node);
    let mut files = Files::new();
    files.cwd = root.to_string();
    std::fs::create_dir_all(format!("{root}/etc/containerd")).expect("mkdir etc/containerd");
    for (path, content) in laid {
        if let Some(parent) = Path::new(&path).parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, &content).expect("write");
        files.insert(&path, content);
    }
    (files, main)
}

/// The Go runtime's settings for every binary run here: no garbage collection below
/// 512 MiB of heap and one OS thread running Go code. A `config dump` allocates a few
/// MB and exits, and the collector's cycles and the scheduler's threads were a third
/// of each run's CPU time (measured on 1.6.38: 35 ms → 24 ms a run); what a binary
/// prints does not depend on either.
const GO_RUNTIME: [(&str, &str); 3] = [("GOGC", "off"), ("GOMEMLIMIT", "512MiB"), ("GOMAXPROCS", "1")];

/// A running `containerd --config MAIN config dump` in `cwd`; [`Running::finish`]
/// waits for it (stopped by PID after 60 s), so the model's side of a case is worked
/// out while the binary runs.
struct Running {
    child: std::process::Child,
    bin: PathBuf,
    main: String,
    /// Each reader thread sends once its pipe is closed (the process has exited).
    closed: std::sync::mpsc::Receiver<()>,
    out: std::thread::JoinHandle<Vec<u8>>,
    err: std::thread::JoinHandle<Vec<u8>>,
}

fn start_dump(bin: &Path, main: &str, cwd: &str) -> Running {
    let mut child = Command::new(bin)
        .args(["--config", main, "config", "dump"])
        .current_dir(cwd)
        .envs(GO_RUNTIME)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run containerd");
    let (tx, closed) = std::sync::mpsc::channel();
    let read = |mut r: Box<dyn std::io::Read + Send>, tx: std::sync::mpsc::Sender<()>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            r.read_to_end(&mut s).ok();
            let _ = tx.send(());
            s
        })
    };
    let out = read(Box::new(child.stdout.take().expect("stdout")), tx.clone());
    let err = read(Box::new(child.stderr.take().expect("stderr")), tx);
    Running { child, bin: bin.to_path_buf(), main: main.to_string(), closed, out, err }
}

impl Running {
    fn finish(mut self) -> Output {
        let deadline = Instant::now() + Duration::from_secs(60);
        for _ in 0..2 {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.closed.recv_timeout(left).is_err() {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("{} config dump did not exit within 60 s ({})", self.bin.display(), self.main);
            }
        }
        let status = self.child.wait().expect("wait");
        let (stdout, stderr) = (self.out.join().unwrap_or_default(), self.err.join().unwrap_or_default());
        Output { stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned(), exit: status.code().unwrap_or(-1) }
    }
}

/// `containerd --config MAIN config dump` in `cwd`, stopped by PID after 60 s.
fn real_dump(bin: &Path, main: &str, cwd: &str) -> Output {
    start_dump(bin, main, cwd).finish()
}

/// One case on one version.
struct Job<'a> {
    version: usize,
    name: &'a str,
    node: &'a Node,
}

/// What one job found.
struct Done {
    version: usize,
    name: String,
    /// The unified diffs, empty when model and binary agree.
    diff: String,
    /// The binary's own output varied between runs of this case ([`RERUNS`]).
    unsteady: bool,
    /// The real output, normalised as recorded (the run the model agrees with).
    recorded: Output,
}

/// How often a case that differs is run again on the binary: some inputs make a real
/// binary's output vary from run to run (Go's random map order decides, e.g. which of
/// `[plugins] cri = 1` and `[plugins."io.containerd.grpc.v1.cri"]` a version-1 file
/// keeps under the one migrated name: 2.3.4 then panics or reads on). The model must
/// give one of the outcomes the binary gives.
const RERUNS: usize = 8;

fn run_job(oracle: &oracle::Oracle, model: &Containerd, job: &Job<'_>) -> Done {
    let scratch = Scratch::new();
    let root = scratch.root();
    let (files, main) = install(&root, job.node);
    let running = start_dump(&oracle.containerd, &main, &root);
    let is_1x = oracle.version.is_1x();
    let got = model.load_from(&files, &main);
    let mut real = running.finish();
    let model_out = cases::normalise(&Output { stdout: got.dump.stdout, stderr: got.dump.stderr, exit: got.dump.exit }, "", is_1x);
    let label = format!("{} {}", oracle.version, job.name);
    let mut diff = cases::differences(&cases::normalise(&real, "", is_1x), &model_out, &label);
    let mut unsteady = false;
    if !diff.is_empty() {
        let first = cases::normalise(&real, "", is_1x);
        for _ in 0..RERUNS {
            let again = real_dump(&oracle.containerd, &main, &root);
            let normalised = cases::normalise(&again, "", is_1x);
            unsteady |= normalised != first;
            if normalised == model_out {
                diff.clear();
                real = again;
                break;
            }
        }
    }
    let diff = if diff.is_empty() { diff } else { format!("== {label}\n{}{diff}", cases::describe(job.node)) };
    Done { version: job.version, name: job.name.to_string(), diff, unsteady, recorded: cases::normalise(&real, &root, is_1x) }
}

/// How many cases run at once: `GPULAB_DUMP_JOBS`, else twice the cores.
fn threads() -> usize {
    std::env::var("GPULAB_DUMP_JOBS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(1)
}

/// Every case of `cases` on every oracle, `threads` at once; sorted by version, name.
fn run_all(oracles: &[oracle::Oracle], models: &[Containerd], cases: &[(String, Node)], threads: usize) -> Vec<Done> {
    let jobs: Vec<Job<'_>> = (0..oracles.len()).flat_map(|v| cases.iter().map(move |(name, node)| Job { version: v, name, node })).collect();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let d = run_job(&oracles[job.version], &models[job.version], job);
                done.lock().expect("results").push(d);
            });
        }
    });
    let mut done = done.into_inner().expect("results");
    done.sort_by(|a, b| (a.version, &a.name).cmp(&(b.version, &b.name)));
    done
}

/// Every golden input and every generated combination on every real binary: the
/// model's `config dump` equals the binary's (stdout, stderr, exit status).
#[test]
fn config_dump_matches_every_real_version() {
    let started = Instant::now();
    let (oracles, unusable) = oracle::available();
    assert!(unusable.is_empty(), "real binaries the model cannot take (each is a version the model must learn):\n{}", unusable.join("\n"));
    assert!(!oracles.is_empty(), "no real containerd: `./dev.sh setup` builds them (scripts/oracle-containerd.sh), Debian's package installs 1.6.20");
    let goldens = shared_dir::goldens("containerd");
    let mut all = vec![("empty".to_string(), vec![(cases::MAIN.to_string(), Vec::new())])];
    all.extend(cases::all_cases(&goldens));
    let n_golden = all.iter().filter(|(n, _)| n.starts_with("golden/")).count();
    assert!(n_golden >= 21, "only {n_golden} golden inputs under {}", goldens.display());
    let models: Vec<Containerd> = oracles.iter().map(|o| Containerd::new(o.version.clone())).collect();
    let threads = threads();
    let done = run_all(&oracles, &models, &all, threads);
    let wall = started.elapsed();

    let mut summary = Vec::new();
    let mut failures = Vec::new();
    for (v, o) in oracles.iter().enumerate() {
        let mine: Vec<&Done> = done.iter().filter(|d| d.version == v).collect();
        let differ: Vec<&&Done> = mine.iter().filter(|d| !d.diff.is_empty()).collect();
        let unsteady: Vec<&str> = mine.iter().filter(|d| d.unsteady).map(|d| d.name.as_str()).collect();
        let note = if unsteady.is_empty() { String::new() } else { format!(" (the binary's own output varies on {}: {})", unsteady.len(), unsteady.join(", ")) };
        summary.push(format!("{} ({}): {} cases, {} agree, {} differ{note}", o.version, o.reported, mine.len(), mine.len() - differ.len(), differ.len()));
        failures.extend(differ.iter().map(|d| d.diff.clone()));
        if std::env::var_os("GPULAB_RECORD_DUMPS").is_some_and(|v| v == "1") {
            record(o, &mine);
        }
    }
    let report = format!("{}\n\n{}", summary.join("\n"), failures.join("\n"));
    let report_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-config-dump.txt");
    let _ = std::fs::write(&report_path, &report);
    eprintln!("live config dump: {} versions x {} cases in {:.1} s ({threads} at once)\n{}", oracles.len(), all.len(), wall.as_secs_f64(), summary.join("\n"));
    let shown: String = failures.iter().take(12).cloned().collect::<Vec<_>>().join("\n");
    assert!(failures.is_empty(), "{} cases differ (all in {}):\n{}\n\n{shown}", failures.len(), report_path.display(), summary.join("\n"));
}

/// Writes one version's normalised real outputs for the model's own test.
fn record(o: &oracle::Oracle, done: &[&Done]) {
    let base = done.iter().find(|d| d.name == "empty").map(|d| d.recorded.stdout.clone()).unwrap_or_default();
    let binary = Command::new(&o.containerd).arg("--version").output().map(|x| String::from_utf8_lossy(&x.stdout).trim().to_string()).unwrap_or_default();
    let rec = cases::Recorded { binary, base, cases: done.iter().map(|d| (d.name.clone(), d.recorded.clone())).collect() };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/config_dump");
    std::fs::create_dir_all(&dir).expect("mkdir config_dump");
    std::fs::write(dir.join(format!("{}.txt", o.version)), rec.to_text()).expect("write recording");
}

/// The bad input of every version (`cases::bad_inputs`: not UTF-8, a 10 MB drop-in,
/// 10,000 tables, a cyclic import): the model's `config dump` equals the binary's
/// (stdout, stderr, exit status), and the model answers without panicking. Not
/// recorded: the outputs run to megabytes.
#[test]
fn bad_input_matches_every_real_version() {
    let started = Instant::now();
    let (oracles, _) = oracle::available();
    assert!(!oracles.is_empty(), "no real containerd: `./dev.sh setup` builds them (scripts/oracle-containerd.sh), Debian's package installs 1.6.20");
    let bad = cases::bad_inputs();
    let mut summary = Vec::new();
    let mut failures = Vec::new();
    for o in &oracles {
        let model = Containerd::new(o.version.clone());
        let mut differ = 0;
        for (name, node) in &bad {
            let done = run_job(o, &model, &Job { version: 0, name, node });
            if !done.diff.is_empty() {
                differ += 1;
                // 10,000 tables make a long diff: its head is enough to read.
                failures.push(done.diff.chars().take(20_000).collect::<String>());
            }
        }
        summary.push(format!("{} ({}): {} bad inputs, {} agree, {} differ", o.version, o.reported, bad.len(), bad.len() - differ, differ));
    }
    eprintln!("live bad input: {} versions x {} cases in {:.1} s\n{}", oracles.len(), bad.len(), started.elapsed().as_secs_f64(), summary.join("\n"));
    assert!(failures.is_empty(), "{} cases differ:\n{}\n\n{}", failures.len(), summary.join("\n"), failures.join("\n"));
}

/// The long run of the same differential, on fresh seeds: round `r` generates
/// `GPULAB_DUMP_NODES` nodes (default 64) from seed `GPULAB_DUMP_SEED + r` (default
/// seed: the bounded run's plus one) and compares each on every real binary, until
/// `GPULAB_DUMP_ROUNDS` rounds (default unbounded) or `GPULAB_DUMP_MINUTES` minutes
/// (default 10) are done. Every round prints its seed; a difference is named by seed
/// and node (`seed S node I`), and one round replays it:
/// `GPULAB_DUMP_SEED=S GPULAB_DUMP_ROUNDS=1`. Differences fail the test at the end.
/// Built only with the feature `config-dump-long-run` (no test is switched off):
/// `cargo test -p gpulab --features config-dump-long-run --test live_config_dump -- --nocapture config_dump_matches_on_fresh_seeds`.
#[cfg(feature = "config-dump-long-run")]
#[test]
fn config_dump_matches_on_fresh_seeds() {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let first = env("GPULAB_DUMP_SEED").unwrap_or(cases::SEED + 1);
    let rounds = env("GPULAB_DUMP_ROUNDS").unwrap_or(u64::MAX);
    let minutes = env("GPULAB_DUMP_MINUTES").unwrap_or(10);
    let per_round = usize::try_from(env("GPULAB_DUMP_NODES").unwrap_or(64)).unwrap_or(64);
    let (oracles, unusable) = oracle::available();
    assert!(unusable.is_empty(), "real binaries the model cannot take:\n{}", unusable.join("\n"));
    assert!(!oracles.is_empty(), "no real containerd: `./dev.sh setup` builds them (scripts/oracle-containerd.sh), Debian's package installs 1.6.20");
    let models: Vec<Containerd> = oracles.iter().map(|o| Containerd::new(o.version.clone())).collect();
    let versions: Vec<String> = oracles.iter().map(|o| o.version.to_string()).collect();
    let threads = threads();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(minutes.saturating_mul(60));
    eprintln!("fresh seeds from {first}: {per_round} nodes per seed on {} ({threads} at once), {minutes} min at most", versions.join(", "));
    let (mut compared, mut failures, mut seed) = (0usize, Vec::new(), first);
    for _ in 0..rounds {
        if Instant::now() >= deadline {
            break;
        }
        let nodes: Vec<(String, Node)> = cases::generated_from(seed, per_round).into_iter().enumerate().map(|(i, n)| (format!("seed {seed} node {i}"), n)).collect();
        let done = run_all(&oracles, &models, &nodes, threads);
        let differ: Vec<&Done> = done.iter().filter(|d| !d.diff.is_empty()).collect();
        eprintln!("seed {seed}: {} cases, {} differ ({:.0} s in all)", done.len(), differ.len(), started.elapsed().as_secs_f64());
        compared += done.len();
        failures.extend(differ.iter().map(|d| d.diff.clone()));
        seed += 1;
    }
    let summary = format!("seeds {first}..{}: {compared} cases on {}, {} differ, {:.0} s", seed.saturating_sub(1), versions.join(", "), failures.len(), started.elapsed().as_secs_f64());
    let report_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("live-config-dump-seeds.txt");
    let _ = std::fs::write(&report_path, format!("{summary}\n\n{}", failures.join("\n")));
    eprintln!("{summary}");
    assert!(compared > 0, "no round ran");
    let shown: String = failures.iter().take(12).cloned().collect::<Vec<_>>().join("\n");
    assert!(failures.is_empty(), "{summary} (all in {})\n\n{shown}", report_path.display());
}
