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

/// `containerd --config MAIN config dump` in `cwd`, stopped by PID after 60 s.
fn real_dump(bin: &Path, main: &str, cwd: &str) -> Output {
    let mut child = Command::new(bin)
        .args(["--config", main, "config", "dump"])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run containerd");
    let read = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            r.read_to_end(&mut s).ok();
            s
        })
    };
    let out = read(Box::new(child.stdout.take().expect("stdout")));
    let err = read(Box::new(child.stderr.take().expect("stderr")));
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} config dump did not exit within 60 s ({main})", bin.display());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    Output { stdout: String::from_utf8_lossy(&stdout).into_owned(), stderr: String::from_utf8_lossy(&stderr).into_owned(), exit: status.code().unwrap_or(-1) }
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
    let mut real = real_dump(&oracle.containerd, &main, &root);
    let is_1x = oracle.version.is_1x();
    let got = model.load_from(&files, &main);
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
    let jobs: Vec<Job<'_>> = (0..oracles.len()).flat_map(|v| all.iter().map(move |(name, node)| Job { version: v, name, node })).collect();
    let threads = std::env::var("GPULAB_DUMP_JOBS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| 2 * std::thread::available_parallelism().map_or(2, |n| n.get()));
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
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
