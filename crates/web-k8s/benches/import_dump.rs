//! Issue 19's browser import, natively: the chunk's own calls (`import::open`, `read`,
//! `schedule` / `rollout`, what the import panel's worker runs) on a dump written by
//! `scripts/gen-cluster.sh`, timed per phase — the wasm's work on the same code, with
//! native speed. The browser's figures come from `tests/e2e/bench/import.test.mjs`;
//! this one says where the time goes.
//!
//! Run: `DIR=$(scripts/gen-cluster.sh 5000 1 /tmp/scale)` then
//! `DIR=/tmp/scale DUMP=dump.json CASE=schedule cargo bench -p gpu-node-lab-k8s --bench
//! import_dump` (`DUMP=dump.yaml`; `CASE=rollout` for step 8; `RUNS=N`, default 3; the
//! median of each phase is printed). For instruction counts: build it with `--profile
//! bench-native --no-run` and run the binary under `valgrind --tool=callgrind` with
//! `RUNS=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::time::Instant;

use gpu_node_lab_k8s::import;
use gpulab_model::Lang;

fn main() {
    let dir = std::env::var("DIR").expect("DIR: a directory scripts/gen-cluster.sh wrote");
    let dump = std::env::var("DUMP").unwrap_or_else(|_| "dump.json".into());
    let case = std::env::var("CASE").unwrap_or_else(|_| "schedule".into());
    let runs: usize = std::env::var("RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap_or_else(|e| panic!("{dir}/{f}: {e}"));
    let text = read(&dump);
    // As the bench in the browser: the pod's file carries the RuntimeClass it names.
    let pod = format!("{}---\n{}", read("pod.yaml"), read("runtimeclass.yaml"));
    let ds = format!("{}---\n{}", read("v1.yaml"), read("v2.yaml"));
    let mut phases: [Vec<f64>; 3] = Default::default();
    for _ in 0..runs {
        let t0 = Instant::now();
        let pieces = import::open(&dump, &text, case == "schedule");
        let t1 = Instant::now();
        // The panel's worker reads in slices; the total is the same work.
        assert_eq!(import::read(pieces), pieces);
        let t2 = Instant::now();
        let out = match case.as_str() {
            "schedule" => import::schedule("pod.yaml", &pod, "1.35", Lang::En),
            "rollout" => import::rollout("ds.yaml", &ds, Lang::En),
            other => panic!("CASE={other}: schedule or rollout"),
        }
        .expect("a session");
        let t3 = Instant::now();
        assert!(out.problems.is_empty(), "{:?}", out.problems);
        assert!(!out.text.is_empty());
        for (p, (a, b)) in phases.iter_mut().zip([(t0, t1), (t1, t2), (t2, t3)]) {
            p.push((b - a).as_secs_f64() * 1e3);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let [open, read, answer] = &mut phases;
    println!(
        "import_dump: {dump}, {case}: open {:.1} ms, read {:.1} ms, {case} {:.1} ms (median of {runs})",
        median(open),
        median(read),
        median(answer)
    );
}
