//! What the live tier's long run on fresh seeds (`config_dump_matches_on_fresh_seeds` in
//! `crates/cli/tests/live_config_dump.rs`) found the model printing differently from
//! the real binaries, kept with the binaries' own words: each case is a generated node
//! (`cases::generated_from(seed, ..)[node]`, the live tier's generator) and what every
//! version it differed on printed on stderr, normalised as the live tier normalises it
//! (the private root taken out). Found 2026-12-06 on Debian's 1.6.20 and the built
//! 1.6.38 and 1.7.34, seeds 7453586491648913719 and 7453586491648913720.

#[path = "../../../tests/config_dump_cases.rs"]
mod cases;

use gpulab_model::containerd::{Containerd, Version};

/// name, seed, node, versions, the real stderr (one line each time).
const CASES: &[(&str, u64, usize, &[&str], &str)] = &[
    (
        "go-toml v1 refuses `1__000` at the number's start, in its own words",
        7_453_586_491_648_913_719,
        59,
        &["1.6.20", "1.6.38", "1.7.34"],
        "containerd: failed to load TOML: /etc/containerd/config.toml: (17, 5): invalid use of _ in number",
    ),
    (
        "go-toml v1 names a slice target with its kind: `imports` a string in a drop-in",
        7_453_586_491_648_913_719,
        62,
        &["1.6.20", "1.6.38", "1.7.34"],
        "containerd: failed to unmarshal TOML: (1, 1): Can't convert /etc/containerd/conf.d/*.toml(string) to []string(slice)",
    ),
    (
        "go-toml v1 names a key defined twice by its table's unquoted parts",
        7_453_586_491_648_913_720,
        44,
        &["1.6.20", "1.6.38", "1.7.34"],
        "containerd: failed to load TOML: /etc/containerd/extra.toml: (16, 3): The following key was defined twice: plugins.io.containerd.grpc.v1.cri.containerd.runtimes.nvidia",
    ),
];

#[test]
fn the_long_runs_findings_print_as_the_binaries_did() {
    let mut failures = Vec::new();
    for (name, seed, index, versions, want) in CASES {
        let node = cases::generated_from(*seed, index + 1).swap_remove(*index);
        let (files, main) = cases::model_files(&node);
        for v in *versions {
            let version = Version::parse(v).unwrap_or_else(|e| panic!("{v}: {e}"));
            let got = Containerd::new(version.clone()).load_from(&files, &main);
            let got = cases::normalise(&cases::Output { stdout: got.dump.stdout, stderr: got.dump.stderr, exit: got.dump.exit }, cases::MODEL_ROOT, version.is_1x());
            let want = cases::Output { stdout: String::new(), stderr: format!("{want}\n"), exit: 1 };
            let d = cases::differences(&want, &got, &format!("{v} seed {seed} node {index}"));
            if !d.is_empty() {
                failures.push(format!("== {name} ({v}, seed {seed} node {index})\n{}{d}", cases::describe(&node)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
