//! What the live tier's long run on fresh seeds (`config_dump_matches_on_fresh_seeds` in
//! `crates/cli/tests/live_config_dump.rs`) found the model printing differently from
//! the real binaries, kept with the binaries' own words: each case is a generated node
//! (`cases::generated_from(seed, ..)[node]`, the live tier's generator) and what every
//! version it differed on printed on stderr, normalised as the live tier normalises it
//! (the private root taken out). Found 2026-12-06 on Debian's 1.6.20 and the built
//! 1.6.38 and 1.7.34, seeds 7453586491648913719, 7453586491648913720 and (fixed
//! 2026-12-07, with 1.x's plugin graph orders, `plugin_order.rs`) 7453586491648913752.

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
    (
        "1.7 decodes its plugins in its own graph order: `internal.v1.opt` fails before `gc.v1.scheduler`",
        7_453_586_491_648_913_752,
        20,
        &["1.7.34"],
        "containerd: (10, 3): Can't convert 1979-05-27 07:32:00 +0000 UTC(time.Time) to string",
    ),
];

/// What a long run on fresh seeds found on the 2.x lines (go-toml v2), 2026-12-06,
/// seeds 7453586491648913723–731 (and 2026-12-07, seeds …775, …782, …787, …809 and
/// …821, fixed the same day), fixed 2026-12-06 from go-toml's source at the
/// version each release pins (v2.2.3: 2.0.11; v2.2.4: 2.1.9, 2.2.7; v2.3.0: 2.3.4;
/// v2.4.3: 2.4.2): name, seed, node, versions, exit status, and the lines the
/// binaries printed on stderr that the model left out or worded otherwise (held as
/// one block, in order, in the model's stderr; the live tier and its long run compare
/// every byte of stdout and stderr).
const FOUND_2X: &[(&str, u64, usize, &[&str], i32, &[&str])] = &[
    (
        "go-toml v2.2-2.3 check a number's underscores only when decoding it: `n = 1__000` under an unknown key is skipped",
        7_453_586_491_648_913_723,
        5,
        &["2.0.11", "2.1.9", "2.2.7", "2.3.4"],
        0,
        &["level=warning msg=\"Ignoring unknown key in TOML\" column=1 error=\"strict mode: fields in the document are missing in the target struct\" file=/etc/containerd/conf.d/20-registry.toml key=n row=2"],
    ),
    (
        "go-toml v2.2-2.3 re-encode a plugin's config that is not a table as a bare value and read it as a document",
        7_453_586_491_648_913_724,
        35,
        &["2.0.11", "2.1.9", "2.2.7"],
        1,
        &["containerd: toml: expected = after a key, but the document ends there"],
    ),
    (
        "the unknown keys of plugins decoded before the one that fails are logged before its error",
        7_453_586_491_648_913_727,
        63,
        &["2.0.11", "2.1.9", "2.2.7", "2.3.4", "2.4.2"],
        1,
        &[
            "level=warning msg=\"Ignoring unknown key in TOML for plugin\" error=\"strict mode: fields in the document are missing in the target struct\" key=\"registry unknown_top\" plugin=io.containerd.cri.v1.images",
            "containerd: toml: cannot decode TOML array into struct field config.ContainerdConfig.DefaultRuntimeName of type string",
        ],
    ),
    (
        "go-toml v2.4 names only the element type for a `[timeouts]` entry that is not a string",
        7_453_586_491_648_913_731,
        43,
        &["2.4.2"],
        1,
        &[
            "level=error msg=\"Failure unmarshaling TOML\" column=20 error=\"toml: cannot decode TOML array into string\" file=/etc/containerd/extra.toml row=4",
            "containerd: failed to unmarshal TOML at row 4 column 20: toml: cannot decode TOML array into string",
        ],
    ),
    (
        "2.0-2.2's runtime plugin migration asserts every runtime of its own containerd table is a table (a drop-in's `runtimes` entry given a string)",
        7_453_586_491_648_913_782,
        15,
        &["2.0.11", "2.1.9", "2.2.7"],
        2,
        &["panic: interface conversion: interface {} is string, not map[string]interface {}"],
    ),
    (
        "go-toml v2.2-2.3 decode each expression as it is parsed: a type error in the file's own fields before a syntax error wins",
        7_453_586_491_648_913_775,
        15,
        &["2.0.11", "2.1.9", "2.2.7", "2.3.4"],
        1,
        &[
            "level=error msg=\"Failure unmarshaling TOML\" column=5 error=\"toml: cannot decode TOML integer into struct field config.Config.Timeouts of type map[string]string\" file=/etc/containerd/extra.toml row=5",
            "containerd: failed to unmarshal TOML at row 5 column 5: toml: cannot decode TOML integer into struct field config.Config.Timeouts of type map[string]string",
        ],
    ),
    (
        "go-toml v2.4 decodes a plugin's re-encoded table keys first, then sub-tables, each sorted: of two type errors the key's is reported",
        7_453_586_491_648_913_787,
        32,
        &["2.4.2"],
        1,
        &["containerd: toml: cannot decode TOML string into struct field config.RuntimeConfig.EnableSelinux of type bool"],
    ),
];

/// The model's `containerd config dump` of a generated node on version `v`, normalised
/// as the live differential normalises the real binary's.
fn model_dump(node: &cases::Node, v: &str) -> cases::Output {
    let (files, main) = cases::model_files(node);
    let version = Version::parse(v).unwrap_or_else(|e| panic!("{v}: {e}"));
    let got = Containerd::new(version.clone()).load_from(&files, &main);
    cases::normalise(&cases::Output { stdout: got.dump.stdout, stderr: got.dump.stderr, exit: got.dump.exit }, cases::MODEL_ROOT, version.is_1x())
}

#[test]
fn the_long_runs_2x_findings_print_as_the_binaries_did() {
    let mut failures = Vec::new();
    for (name, seed, index, versions, exit, lines) in FOUND_2X {
        let node = cases::generated_from(*seed, index + 1).swap_remove(*index);
        for v in *versions {
            let got = model_dump(&node, v);
            let block = format!("{}\n", lines.join("\n"));
            let stdout_ok = (*exit == 0) != got.stdout.is_empty();
            if got.exit != *exit || !got.stderr.contains(&block) || !stdout_ok {
                failures.push(format!(
                    "== {name} ({v}, seed {seed} node {index})\n{}want exit {exit} and on stderr:\n{block}got exit {} (stdout {} bytes), stderr:\n{}",
                    cases::describe(&node),
                    got.exit,
                    got.stdout.len(),
                    got.stderr
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}


#[test]
fn the_long_runs_findings_print_as_the_binaries_did() {
    let mut failures = Vec::new();
    for (name, seed, index, versions, want) in CASES {
        let node = cases::generated_from(*seed, index + 1).swap_remove(*index);
        for v in *versions {
            let got = model_dump(&node, v);
            let want = cases::Output { stdout: String::new(), stderr: format!("{want}\n"), exit: 1 };
            let d = cases::differences(&want, &got, &format!("{v} seed {seed} node {index}"));
            if !d.is_empty() {
                failures.push(format!("== {name} ({v}, seed {seed} node {index})\n{}{d}", cases::describe(&node)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Long-run findings (2026-12-07) where the model printed more or other than the
/// binaries on an exit-0 dump: name, seed, node, versions, a line the real stdout has
/// (empty: none checked), a text the real stderr does not have.
const DUMP_2X: &[(&str, u64, usize, &[&str], &str, &str)] = &[
    (
        "2.0's runtime plugin migration copies the CRI `cni` table whole, and only when its own table has none (so no `cni disabled_plugins` warning)",
        7_453_586_491_648_913_809,
        56,
        &["2.0.11"],
        "",
        "key=\"cni disabled_plugins\"",
    ),
    (
        "2.0-2.2's `config dump` runs no migration of a disabled plugin: a disabled `io.containerd.grpc.v1.cri` keeps its whole table",
        7_453_586_491_648_913_821,
        62,
        &["2.0.11", "2.1.9", "2.2.7"],
        "    sandbox_image = 'registry.k8s.io/pause:3.8'",
        "containerd:",
    ),
];

#[test]
fn the_long_runs_2x_dump_findings_print_as_the_binaries_did() {
    let mut failures = Vec::new();
    for (name, seed, index, versions, stdout_line, not_on_stderr) in DUMP_2X {
        let node = cases::generated_from(*seed, index + 1).swap_remove(*index);
        for v in *versions {
            let got = model_dump(&node, v);
            let stdout_ok = stdout_line.is_empty() || got.stdout.lines().any(|l| l == *stdout_line);
            if got.exit != 0 || !stdout_ok || got.stderr.contains(not_on_stderr) {
                failures.push(format!("== {name} ({v}, seed {seed} node {index}): exit {}, stderr:\n{}", got.exit, got.stderr));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
