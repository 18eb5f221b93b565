//! `gpulab scenario run DIR…` (the model), `gpulab scenario replay DIR… --backend B`
//! and `gpulab parity DIR… --backend B` (a real backend, diffed against the model). The
//! only I/O of scenarios is here: reading the directory, printing, and the real
//! backends ([`real_containerd`], [`kube`]).
//!
//! A DIR is a scenario directory (it holds `scenario.toml`) or a directory of them
//! (e.g. `scenarios/`), run in name order.

pub mod check;
pub mod generate;
pub mod kube;
pub mod new;
pub mod real_containerd;
pub mod recording;

use std::path::{Path, PathBuf};

use gpulab_model::scenario::{self, engine::Record, Parity, Scenario, BackendError, SCENARIO_FILE};
use serde_json::json;

use crate::cli::{BackendKind, ParityArgs};
use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// The scenario directories named by `dirs`, in order.
pub fn expand(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for d in dirs {
        if d.join(SCENARIO_FILE).is_file() {
            out.push(d.clone());
            continue;
        }
        let entries = std::fs::read_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
        let mut found: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join(SCENARIO_FILE).is_file()).collect();
        if found.is_empty() {
            return Err(format!("{}: no {SCENARIO_FILE} here or in its subdirectories", d.display()));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// Reads and parses one scenario directory; errors as `DIR/scenario.toml:LINE:COL: code: message`.
pub fn load(dir: &Path) -> Result<Scenario, Vec<String>> {
    let file = dir.join(SCENARIO_FILE);
    let text = std::fs::read_to_string(&file).map_err(|e| vec![format!("{}: {e}", file.display())])?;
    let name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).map_err(|e| e.to_string());
    scenario::parse(&name, &file.display().to_string(), &text, &read).map_err(|diags| {
        diags
            .iter()
            .map(|d| {
                let at = d.primary.as_ref().map_or_else(String::new, |s| format!("{}:{}:{}: ", s.file, s.line, s.column));
                format!("{at}{}: {}", d.code, d.get("message").unwrap_or(""))
            })
            .collect()
    })
}

fn load_all(dirs: &[PathBuf]) -> Result<Vec<Scenario>, ExitCode> {
    let dirs = expand(dirs).map_err(|e| {
        eprintln!("gpulab: {e}");
        ExitCode::BadInput
    })?;
    let mut out = Vec::new();
    let mut bad = false;
    for d in &dirs {
        match load(d) {
            Ok(s) => out.push(s),
            Err(errs) => {
                bad = true;
                for e in errs {
                    eprintln!("{e}");
                }
            }
        }
    }
    if bad {
        return Err(ExitCode::BadInput);
    }
    Ok(out)
}

/// A backend's setup or step error as the companion prints it: each of the model's
/// findings on its own line at file:line:col, as `gpulab schedule` and `gpulab rollout`
/// print them ([`crate::manifests::diagnostic_line`]), or the backend's sentence.
pub fn backend_error_lines(e: &BackendError) -> Vec<String> {
    match e {
        BackendError::Findings(findings) => findings.iter().map(crate::manifests::diagnostic_line).collect(),
        BackendError::Message(message) => vec![message.clone()],
    }
}

fn print_record(r: &Record, strict: bool) {
    let (held, failed, unobserved) = r.counts();
    let ok = if strict { r.passed() } else { r.passed_where_observed() };
    let verdict = match (ok, held + failed) {
        (true, 0) if unobserved > 0 => "NOTHING-OBSERVED",
        (true, _) => "PASS",
        (false, _) => "FAIL",
    };
    println!("{verdict} {} on {}: {held} held, {failed} failed, {unobserved} not observed", r.scenario, r.backend);
    if let Some(e) = &r.setup_error {
        println!("  setup failed: {}", backend_error_lines(e).join("\n    "));
    }
    for s in &r.steps {
        println!("  {:>2}. {} [{}{}]", s.index, s.name, s.action, s.node.as_deref().map(|n| format!(" {n}")).unwrap_or_default());
        if let Some(e) = &s.error {
            println!("      error: {}", backend_error_lines(e).join("\n             "));
        }
        for o in &s.observations {
            let mark = match (&o.observed, o.holds) {
                (None, _) => "-",
                (Some(_), true) => "ok",
                (Some(_), false) => "FAIL",
            };
            let seen = o.observed.as_ref().map_or_else(|| format!("not observed: {}", o.unobservable.as_deref().unwrap_or("")), ToString::to_string);
            if o.holds {
                println!("      {mark:<4} {}.{} = {seen}", o.subject, o.field.name());
            } else {
                println!("      {mark:<4} {}.{} = {seen} (expected {}, line {})", o.subject, o.field.name(), o.expected, o.line);
            }
        }
    }
    for n in &r.notes {
        println!("  note: {n}");
    }
}

/// `gpulab scenario run`.
pub fn run(dirs: &[PathBuf], output: OutputFormat) -> ExitCode {
    let scenarios = match load_all(dirs) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let records: Vec<Record> = scenarios.iter().map(scenario::run_on_model).collect();
    let all_ok = records.iter().all(Record::passed);
    let (held, failed, unobserved) = records.iter().map(Record::counts).fold((0, 0, 0), |a, c| (a.0 + c.0, a.1 + c.1, a.2 + c.2));
    match output {
        OutputFormat::Json => println!("{}", json!({ "passed": all_ok, "records": records })),
        _ => {
            for r in &records {
                print_record(r, true);
            }
            println!("{} scenarios, {} passed; expectations: {held} held, {failed} failed, {unobserved} not observed", records.len(), records.iter().filter(|r| r.passed()).count());
        }
    }
    if all_ok { ExitCode::Success } else { ExitCode::CheckFailed }
}

/// The kube backend, connected once and reused for every scenario of a command.
pub type KubeSession = Option<kube::KubeBackend>;

fn kube_connect(args: &ParityArgs) -> Result<kube::KubeBackend, (ExitCode, String)> {
    let mut node_map = std::collections::BTreeMap::new();
    for m in &args.node_map {
        let (a, b) = m.split_once('=').ok_or_else(|| (ExitCode::BadInput, format!("--node {m}: expected SCENARIO-NODE=CLUSTER-NODE")))?;
        node_map.insert(a.to_string(), b.to_string());
    }
    let c = kube::Connect { context: args.context.clone(), allow_non_lab_cluster: args.allow_non_lab_cluster, kubeconfig: None, node_map, real_containerd: args.real_containerd };
    kube::KubeBackend::connect(&c).map_err(|e| (if e.starts_with("refusing") { ExitCode::BadInput } else { ExitCode::External }, e))
}

fn real_record(s: &Scenario, args: &ParityArgs, quiet_progress: bool, session: &mut KubeSession) -> Result<Record, (ExitCode, String)> {
    let mut progress = |i: usize, name: &str| {
        if !quiet_progress {
            eprintln!("[{}] step {i}: {name}", s.name);
        }
    };
    match args.backend {
        BackendKind::Containerd => {
            let mut backend = real_containerd::RealContainerd::new().map_err(|e| (ExitCode::External, e))?;
            Ok(scenario::run_with_progress(s, &mut backend, &mut progress))
        }
        BackendKind::Kube => {
            if session.is_none() {
                *session = Some(kube_connect(args)?);
            }
            let backend = session.as_mut().ok_or((ExitCode::External, "no kube session".to_string()))?;
            let record = scenario::run_with_progress(s, backend, &mut progress);
            for l in backend.cleanup() {
                if !quiet_progress {
                    eprintln!("[{}] cleanup: {l}", s.name);
                }
            }
            Ok(record)
        }
        BackendKind::Recorded => Err((ExitCode::BadInput, "--backend recorded is for `gpulab parity` (it compares a recording with the model)".to_string())),
    }
}

/// `gpulab scenario replay`.
pub fn replay(args: &ParityArgs, output: OutputFormat) -> ExitCode {
    let scenarios = match load_all(&args.dirs) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut records = Vec::new();
    let mut session: KubeSession = None;
    for s in &scenarios {
        match real_record(s, args, false, &mut session) {
            Ok(r) => records.push(r),
            Err((code, e)) => {
                eprintln!("gpulab: {e}");
                return code;
            }
        }
    }
    let all_ok = records.iter().all(Record::passed_where_observed);
    match output {
        OutputFormat::Json => println!("{}", json!({ "passed": all_ok, "records": records })),
        _ => records.iter().for_each(|r| print_record(r, false)),
    }
    if records.iter().any(|r| r.setup_error.is_some()) {
        return ExitCode::External;
    }
    if all_ok { ExitCode::Success } else { ExitCode::CheckFailed }
}

/// The scenario as compared against a live cluster: at the cluster's release, which the
/// model must cover (a scenario's own `kubernetes` version is what `scenario run` checks
/// its expectations at; parity compares the model and the cluster at the same release).
/// Returns it with the note saying so.
fn at_cluster_release(s: &Scenario, args: &ParityArgs, session: &mut KubeSession) -> Result<(Scenario, String), (ExitCode, String)> {
    if session.is_none() {
        *session = Some(kube_connect(args)?);
    }
    let backend = session.as_ref().ok_or((ExitCode::External, "no kube session".to_string()))?;
    let release = backend.server_version().map_err(|e| (ExitCode::External, e))?;
    at_release(s, &release, "the cluster")
}

/// `s` at `release`'s minor (the model covers minors), with the note saying so.
fn at_release(s: &Scenario, release: &str, who: &str) -> Result<(Scenario, String), (ExitCode, String)> {
    let minor = release.parse::<gpulab_model::kubernetes::version::KubeVersion>().map_err(|e| (ExitCode::External, format!("{who} is at Kubernetes {release}: {e}; the model has nothing to compare at that release")))?;
    let mut at = s.clone();
    at.kubernetes = minor.to_string();
    let note = if s.kubernetes == at.kubernetes {
        format!("the model and {who} at Kubernetes {release}")
    } else {
        format!("the scenario says Kubernetes {}; {who} is at {release}, so the model ran at {} for this comparison (`gpulab scenario run` checks the expectations at {})", s.kubernetes, at.kubernetes, s.kubernetes)
    };
    Ok((at, note))
}

/// Runs one scenario on the model and on the real backend, and diffs them; the real
/// side's record too (for `--record`).
pub fn parity_of(s: &Scenario, args: &ParityArgs, quiet_progress: bool, session: &mut KubeSession) -> Result<(Parity, Record), (ExitCode, String)> {
    let (s, note) = match args.backend {
        BackendKind::Kube => {
            let (at, note) = at_cluster_release(s, args, session)?;
            (at, Some(note))
        }
        BackendKind::Containerd | BackendKind::Recorded => (s.clone(), None),
    };
    let model = scenario::run_on_model(&s);
    let real = real_record(&s, args, quiet_progress, session)?;
    let mut noted = real.clone();
    noted.notes.splice(0..0, note);
    Ok((scenario::diff(&model, &noted), real))
}

/// One scenario against its recorded real run: `None` when it was not recorded.
fn parity_recorded(s: &Scenario, rec: &recording::Recording, file: &Path) -> Result<Option<Parity>, (ExitCode, String)> {
    let Some(real) = rec.record(&s.name) else { return Ok(None) };
    let (at, note) = at_release(s, &rec.release, "the recorded cluster")?;
    let model = scenario::run_on_model(&at);
    let mut real = real.clone();
    real.notes.insert(0, format!("recorded: the real side is a run of {} kept in {} (`{}`)", rec.release, file.display(), rec.how.join("`, `")));
    real.notes.insert(1, note);
    let mut p = scenario::diff(&model, &real);
    if let Some(why) = recording::mismatch(&model, &real) {
        p.errors.push(format!("the scenario changed since it was recorded ({why}): re-record it with `scripts/record-kube-versions.sh {}`", rec.release));
    }
    Ok(Some(p))
}

fn print_parity(p: &Parity) {
    println!("{} {} vs model: {} agree, {} differ, {} not compared", if p.ok() { "AGREE" } else { "DIFFER" }, p.scenario, p.agree, p.differ, p.not_compared);
    for e in p.setup_error.iter().flat_map(backend_error_lines) {
        println!("  error: setup: {e}");
    }
    for (index, name, error) in &p.step_errors {
        for e in backend_error_lines(error) {
            println!("  error: step {index} ({name}): {e}");
        }
    }
    for e in &p.errors {
        println!("  error: {e}");
    }
    // The kube backend's notes say which values its companion wrote (the kubelet, node
    // lifecycle, device plugin) and at which release the model ran.
    for n in p.notes.iter().filter(|_| p.backend.starts_with("kube")) {
        println!("  note: {n}");
    }
    let show = |o: &Option<gpulab_model::scenario::Observed>| o.as_ref().map_or_else(|| "-".to_string(), ToString::to_string);
    // The containerd backend never observes Kubernetes fields: they are counted, not listed.
    let hide = |r: &gpulab_model::scenario::ParityRow| !p.backend.starts_with("kube") && r.verdict == "not-compared" && r.domain != gpulab_model::scenario::Domain::Containerd;
    let hidden = p.rows.iter().filter(|r| hide(r)).count();
    for r in p.rows.iter().filter(|r| !hide(r)) {
        let why = r.why.as_deref().map(|w| format!(" ({w})")).unwrap_or_default();
        println!("  {:>2} {:<8} {}.{}  model {}  real {}{why}", r.step, r.verdict, r.subject, r.field.name(), show(&r.model), show(&r.real));
    }
    if hidden > 0 {
        println!("  ({hidden} Kubernetes expectations not compared: the {} backend does not observe them)", p.backend);
    }
}

/// `gpulab parity`.
pub fn parity(args: &ParityArgs, output: OutputFormat) -> ExitCode {
    let scenarios = match load_all(&args.dirs) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if matches!(args.backend, BackendKind::Recorded) {
        return parity_from_recording(args, &scenarios, output);
    }
    if args.record.is_some() && !matches!(args.backend, BackendKind::Kube) {
        eprintln!("gpulab: --record records a real control plane's run: use it with --backend kube");
        return ExitCode::BadInput;
    }
    let mut results = Vec::new();
    let mut reals = Vec::new();
    let mut session: KubeSession = None;
    // The containerd backend's scenarios share nothing (each its own daemons, dirs and
    // sockets), so `--jobs N` replays N at a time; the kube backend's share the cluster.
    let outcomes: Vec<Result<(Parity, Record), (ExitCode, String)>> = if matches!(args.backend, BackendKind::Containerd) && args.jobs > 1 {
        side_by_side(&scenarios, usize::from(args.jobs), |s| parity_of(s, args, false, &mut None))
    } else {
        let mut out = Vec::new();
        for s in &scenarios {
            let o = parity_of(s, args, false, &mut session);
            let failed = o.is_err();
            out.push(o);
            if failed {
                break;
            }
        }
        out
    };
    for o in outcomes {
        match o {
            Ok((p, real)) => {
                results.push(p);
                reals.push(real);
            }
            Err((code, e)) => {
                eprintln!("gpulab: {e}");
                return code;
            }
        }
    }
    if let Some(file) = &args.record {
        match write_recording(file, args, &session, reals) {
            Ok(line) => eprintln!("gpulab: {line}"),
            Err(e) => {
                eprintln!("gpulab: {e}");
                return ExitCode::External;
            }
        }
    }
    report(&results, &[], None, output)
}

/// `f` of every item, up to `jobs` at a time on scoped threads, in the items' order.
fn side_by_side<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<R>>> = items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(items.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let (Some(item), Some(slot)) = (items.get(i), slots.get(i)) else { break };
                let r = f(item);
                if let Ok(mut s) = slot.lock() {
                    *s = Some(r);
                }
            });
        }
    });
    slots.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect()
}

/// Adds this run's real records to `file` (created, or merged into when it holds the
/// same release's runs).
fn write_recording(file: &Path, args: &ParityArgs, session: &KubeSession, reals: Vec<Record>) -> Result<String, String> {
    let backend = session.as_ref().ok_or("no kube session: nothing was run")?;
    let release = backend.server_version()?;
    let how = format!("gpulab parity --backend kube{}", if args.real_containerd { " --real-containerd" } else { "" });
    let n = reals.len();
    let mut rec = if file.exists() {
        let rec = recording::load(file)?;
        if rec.release != release {
            return Err(format!("{} holds {}'s runs; this cluster is at {release}: record into another file", file.display(), rec.release));
        }
        rec
    } else {
        recording::Recording { release, how: Vec::new(), records: Vec::new() }
    };
    rec.merge(&how, reals);
    recording::save(file, &rec)?;
    Ok(format!("recorded {n} scenarios' real runs into {} ({} scenarios in it)", file.display(), rec.records.len()))
}

/// `gpulab parity --backend recorded --recording FILE`.
fn parity_from_recording(args: &ParityArgs, scenarios: &[Scenario], output: OutputFormat) -> ExitCode {
    let Some(file) = &args.recording else {
        eprintln!("gpulab: --backend recorded needs --recording FILE (written by `gpulab parity --backend kube --record FILE`)");
        return ExitCode::BadInput;
    };
    let rec = match recording::load(file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpulab: {e}");
            return ExitCode::BadInput;
        }
    };
    let mut results = Vec::new();
    let mut missing = Vec::new();
    for s in scenarios {
        match parity_recorded(s, &rec, file) {
            Ok(Some(p)) => results.push(p),
            Ok(None) => missing.push(s.name.clone()),
            Err((code, e)) => {
                eprintln!("gpulab: {e}");
                return code;
            }
        }
    }
    if results.is_empty() {
        eprintln!("gpulab: {} records none of these {} scenarios", file.display(), scenarios.len());
        return ExitCode::BadInput;
    }
    report(&results, &missing, Some(&rec.release), output)
}

/// Prints the parity results (text or JSON) and returns the exit code: 1 on a
/// difference, 3 on a real-side error with no difference, else 0. `missing`: the
/// scenarios a recording does not hold (listed, not compared).
fn report(results: &[Parity], missing: &[String], recorded: Option<&str>, output: OutputFormat) -> ExitCode {
    let ok = results.iter().all(Parity::ok);
    match output {
        OutputFormat::Json => println!("{}", json!({ "agree": ok, "scenarios": results, "not_recorded": missing })),
        _ => {
            results.iter().for_each(print_parity);
            // What stays uncompared, and why, once for the whole run (the last line
            // stays the totals: the test tiers print it).
            let reasons = gpulab_model::scenario::parity::not_compared_by_reason(results);
            if !reasons.is_empty() {
                println!("not compared, by reason:");
                for (why, fields, n) in &reasons {
                    let fields: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                    println!("  {n:>4}  {}: {why}", fields.join(", "));
                }
            }
            if let (false, Some(release)) = (missing.is_empty(), recorded) {
                println!("not recorded ({}; `scripts/record-kube-versions.sh {release}` records them): {}", missing.len(), missing.join(", "));
            }
            let sum = |f: fn(&Parity) -> usize| results.iter().map(f).sum::<usize>();
            println!("{} scenarios: {} agree, {} differ, {} not compared", results.len(), sum(|p| p.agree), sum(|p| p.differ), sum(|p| p.not_compared));
        }
    }
    if results.iter().any(Parity::has_errors) && results.iter().all(|p| p.differ == 0) {
        return ExitCode::External;
    }
    if ok { ExitCode::Success } else { ExitCode::CheckFailed }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item once, the results in the items' order, whatever the jobs.
    #[test]
    fn side_by_side_keeps_the_order() {
        let items: Vec<u64> = (0..37).collect();
        for jobs in [1, 4, 100] {
            let out = side_by_side(&items, jobs, |i| {
                std::thread::sleep(std::time::Duration::from_millis(37 - i));
                i * 2
            });
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "jobs {jobs}");
        }
        assert!(side_by_side(&[] as &[u8], 4, |_| 0).is_empty());
    }
}
