//! The fuzz smoke of the test command: every committed seed (`fuzz/corpus/<target>/`)
//! through its target, then a bounded run of seeded mutations of those seeds. Plain
//! `cargo test`, debug assertions on; deterministic (the seed is printed and can be
//! set), so a failure reproduces. It is not coverage-guided: that is `fuzz/` with
//! libFuzzer (see `fuzz/README.md`); this keeps a new panic path from landing.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

use gpulab_fuzz::TARGETS;

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(target)
}

fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (every target keeps its seeds there)", dir.display()))
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), fs::read(e.path()).unwrap_or_default()))
        .collect();
    out.sort();
    out
}

/// Runs `input` through `target`; the panic's message when it panicked.
fn run(target: fn(&[u8]), input: &[u8]) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| target(input))).err().map(|p| {
        p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
    })
}

/// Keeps a failing input where it can be replayed: `cargo fuzz run TARGET FILE`.
fn keep(target: &str, name: &str, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-smoke").join(target);
    let _ = fs::create_dir_all(&dir);
    let path = dir.join(name);
    let _ = fs::write(&path, input);
    path
}

#[test]
fn every_seed_runs_through_its_target() {
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let seeds = seeds(name);
        assert!(!seeds.is_empty(), "{name}: no seeds in {}", corpus_dir(name).display());
        for (file, input) in &seeds {
            if let Some(msg) = run(*target, input) {
                failures.push(format!("{name}/{file}: {msg}"));
            }
        }
        println!("{name}: {} seeds", seeds.len());
    }
    assert!(failures.is_empty(), "seeds that panic:\n{}", failures.join("\n"));
}

/// xorshift64*: the smoke's only randomness, from a printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// Bytes the readers treat specially (TOML, YAML, JSON, CEL, the layouts' separators).
const INTERESTING: &[u8] = b"\0\n\r\t \"'[]{}=.,:-#\\$%*&!|>?@`01927eE+_/\xff\xc3";

/// One to four edits of `input`: flip a bit, set a byte, insert an interesting byte,
/// delete a range, repeat a range (deep nesting, long lines), or splice in part of
/// another seed.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] = rng.next() as u8;
            }
            2 => out.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            3 if !out.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                out.drain(at.min(end)..end);
            }
            4 if !out.is_empty() => {
                let start = at.min(out.len() - 1);
                let end = (start + 1 + rng.below(24)).min(out.len());
                let piece = out[start..end].to_vec();
                for _ in 0..1 + rng.below(64) {
                    out.splice(end..end, piece.iter().copied());
                }
            }
            _ if !other.is_empty() => {
                let s = rng.below(other.len());
                let e = (s + 1 + rng.below(64)).min(other.len());
                out.splice(at..at, other[s..e].iter().copied());
            }
            _ => out.push(INTERESTING[rng.below(INTERESTING.len())]),
        }
    }
    out
}

#[test]
fn seeded_mutations_of_every_seed_do_not_panic() {
    let runs: usize = std::env::var("GPULAB_FUZZ_SMOKE_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(1500);
    let seed: u64 = std::env::var("GPULAB_FUZZ_SMOKE_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(20_261_203);
    println!("seeded mutations: {runs} per target, seed {seed} (GPULAB_FUZZ_SMOKE_RUNS / GPULAB_FUZZ_SMOKE_SEED)");
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let seeds = seeds(name);
        let mut rng = Rng(seed ^ (name.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let start = Instant::now();
        for i in 0..runs {
            let (_, base) = &seeds[rng.below(seeds.len())];
            let (_, other) = &seeds[rng.below(seeds.len())];
            let input = mutate(&mut rng, base, other);
            if let Some(msg) = run(*target, &input) {
                let kept = keep(name, &format!("mutation-{seed}-{i}"), &input);
                failures.push(format!("{name} run {i}: {msg} (input kept at {})", kept.display()));
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!("{name}: {runs} runs in {secs:.2} s ({:.0}/s)", runs as f64 / secs.max(1e-9));
    }
    assert!(failures.is_empty(), "{} mutated inputs panic:\n{}", failures.len(), failures.join("\n"));
}
