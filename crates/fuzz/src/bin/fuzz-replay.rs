//! Runs one target's body over files (a corpus directory or single inputs), `--times N`
//! rounds, with no libFuzzer and no sanitizer: the driver for measuring where a target's
//! time goes per input, repeatably whatever the machine's load —
//!
//! ```sh
//! cargo build -p gpulab-fuzz --bin fuzz-replay
//! valgrind --tool=callgrind target/debug/fuzz-replay containerd_load fuzz/corpus/containerd_load
//! ```
//!
//! It prints the inputs run and their wall time; callgrind's total divided by the
//! inputs run is the instructions per input (fuzz/README.md, "Where the time goes").
//! `--warm` runs every input once before the counted rounds (each target's one-time
//! setup, such as the containerd defaults, then falls outside the rounds' time).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use gpulab_fuzz::TARGETS;

fn inputs(paths: &[PathBuf]) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for path in paths {
        let mut files: Vec<PathBuf> = match fs::read_dir(path) {
            Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_file()).collect(),
            Err(_) => vec![path.clone()],
        };
        files.sort();
        for file in files {
            match fs::read(&file) {
                Ok(bytes) => out.push((file, bytes)),
                Err(e) => eprintln!("{}: {e}", file.display()),
            }
        }
    }
    out
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut times = 1usize;
    let mut warm = false;
    let mut verbose = false;
    let mut i = 0;
    while let Some(arg) = args.get(i).cloned() {
        match arg.as_str() {
            "--times" => {
                times = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(1);
                args.drain(i..i + 2);
            }
            "--warm" => {
                warm = true;
                args.remove(i);
            }
            "--each" => {
                verbose = true;
                args.remove(i);
            }
            _ => i += 1,
        }
    }
    let names: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    let Some((name, paths)) = args.split_first() else {
        eprintln!("usage: fuzz-replay [--times N] [--warm] [--each] TARGET [CORPUS_DIR|FILE]...\ntargets: {}", names.join(" "));
        return ExitCode::from(2);
    };
    let Some((_, target)) = TARGETS.iter().find(|(n, _)| n == name) else {
        eprintln!("{name}: not a target ({})", names.join(" "));
        return ExitCode::from(2);
    };
    let default = [Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus").join(name)];
    let paths: Vec<PathBuf> = if paths.is_empty() { default.to_vec() } else { paths.iter().map(PathBuf::from).collect() };
    let inputs = inputs(&paths);
    if warm {
        for (_, input) in &inputs {
            target(input);
        }
    }
    let start = Instant::now();
    for _ in 0..times {
        for (path, input) in &inputs {
            let one = Instant::now();
            target(input);
            if verbose {
                println!("{:>10.3} ms  {}", one.elapsed().as_secs_f64() * 1e3, path.display());
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let runs = inputs.len() * times;
    println!("{name}: {runs} inputs ({} files × {times}) in {secs:.3} s", inputs.len());
    ExitCode::SUCCESS
}
