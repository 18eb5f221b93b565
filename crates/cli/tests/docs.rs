//! Every example of the docs is executed, so the docs cannot drift from the code.
//! Fenced blocks are extracted from `docs/*.md` and `docs/ko/*.md` by their info string:
//!
//! - ` ```toml scenario name=NAME ` — a `scenario.toml`, written to `scenarios/NAME`
//!   and linted with `gpulab scenario check` (exit 0 required, unless `check=fail`);
//! - ` ```toml file=NAME/PATH ` (or `yaml`) — a file of that scenario;
//! - ` ```toml fragment ` — must appear verbatim in a scenario of `scenarios/`;
//! - ` ```sh gpulab ` — `$ gpulab ARGS` lines, each followed by its exact output
//!   (stdout, then stderr unless the command ends in `2>/dev/null`; a `...` line matches
//!   any lines) and `(exit N)` when it does not exit 0; run in a directory whose
//!   `scenarios/` holds the repository's scenarios and the doc's, with `../shared`;
//! - ` ```sh kind ` — run against a cluster only when `GPULAB_KUBECONFIG` is set;
//!   otherwise its flags must parse (`--help` exits 0);
//! - ` ```html embed ` — loaded in a browser by `tests/e2e/gallery.test.mjs`;
//! - ` ```text ` — a listing, not an example.
//!
//! Examples with `--backend containerd` need Debian's `containerd`; without it they are
//! skipped loudly, as in `live_containerd.rs`.
//!
//! `GPULAB_DOCS_BLESS=1 cargo test -p gpulab --test docs` rewrites the shown outputs
//! from what the commands print (then read the diff).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn shared() -> PathBuf {
    std::env::var_os("GPULAB_SHARED").map(PathBuf::from).unwrap_or_else(|| repo().join("../shared"))
}

/// One fenced block: its info string, its lines, and where it starts (the fence line).
#[derive(Debug, Clone)]
struct Block {
    info: String,
    body: Vec<String>,
    start: usize,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match open.as_mut() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Block { info: info.trim().to_string(), body: Vec::new(), start: i });
                }
            }
            Some(b) => {
                if line == "```" {
                    out.push(open.take().unwrap());
                } else {
                    b.body.push(line.to_string());
                }
            }
        }
    }
    assert!(open.is_none(), "an unclosed fence");
    out
}

fn attr<'a>(info: &'a str, key: &str) -> Option<&'a str> {
    info.split_whitespace().find_map(|w| w.strip_prefix(key)?.strip_prefix('='))
}

/// `$ gpulab ARGS`, its shown output and exit code.
struct Cmd {
    args: Vec<String>,
    quiet_stderr: bool,
    output: Vec<String>,
    exit: i32,
}

fn split_args(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

fn commands(body: &[String]) -> Vec<Cmd> {
    let mut out: Vec<Cmd> = Vec::new();
    for line in body {
        if let Some(rest) = line.strip_prefix("$ gpulab") {
            let mut args = split_args(rest);
            let quiet_stderr = args.last().is_some_and(|a| a == "2>/dev/null");
            if quiet_stderr {
                args.pop();
            }
            out.push(Cmd { args, quiet_stderr, output: Vec::new(), exit: 0 });
        } else if let Some(n) = line.strip_prefix("(exit ").and_then(|r| r.strip_suffix(')')) {
            out.last_mut().expect("(exit N) before a command").exit = n.parse().unwrap();
        } else {
            out.last_mut().unwrap_or_else(|| panic!("output before a command: {line}")).output.push(line.clone());
        }
    }
    out
}

/// Shown lines (with `...` wildcards) against actual lines.
fn matches(shown: &[String], actual: &[String]) -> bool {
    match shown.split_first() {
        None => actual.is_empty(),
        Some((w, rest)) if w == "..." => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((s, rest)) => actual.split_first().is_some_and(|(a, more)| s == a && matches(rest, more)),
    }
}

/// A working directory: `work/scenarios` (the repository's scenarios, linked, and the
/// doc's), `work/scripts`, and `shared` next to `work`.
struct Workspace {
    root: PathBuf,
    work: PathBuf,
}

impl Workspace {
    fn new(tag: &str) -> Workspace {
        let root = std::env::temp_dir().join(format!("gpulab-docs-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let work = root.join("work");
        std::fs::create_dir_all(work.join("scenarios")).unwrap();
        for e in std::fs::read_dir(repo().join("scenarios")).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                std::os::unix::fs::symlink(&p, work.join("scenarios").join(p.file_name().unwrap())).unwrap();
            }
        }
        std::os::unix::fs::symlink(repo().join("scripts"), work.join("scripts")).unwrap();
        std::os::unix::fs::symlink(shared(), root.join("shared")).unwrap();
        Workspace { root, work }
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.work.join("scenarios").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn run(&self, args: &[String], quiet_stderr: bool) -> (Vec<String>, i32) {
        let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).current_dir(&self.work).output().unwrap();
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        if !quiet_stderr {
            text.push_str(&String::from_utf8_lossy(&out.stderr));
        }
        (text.lines().map(str::to_string).collect(), out.status.code().unwrap_or(-1))
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Whether the real `containerd` is installed (the containerd backend's examples need it).
fn has_containerd() -> bool {
    Command::new("sh").args(["-c", "command -v containerd"]).output().is_ok_and(|o| o.status.success())
}

fn body_text(b: &Block) -> String {
    b.body.iter().map(|l| format!("{l}\n")).collect()
}

/// Runs every example of one doc; returns the doc with outputs rewritten (for bless)
/// and the failures.
fn run_doc(rel: &str) -> (String, Vec<String>) {
    let path = repo().join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    let ws = Workspace::new(&rel.replace('/', "-"));
    let all = blocks(&text);
    let mut failures = Vec::new();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Scenarios and their files first: commands may refer to any of them.
    let mut scenarios = Vec::new();
    for b in &all {
        let kind: Vec<&str> = b.info.split_whitespace().collect();
        match kind.as_slice() {
            ["toml", "scenario", ..] => {
                let name = attr(&b.info, "name").unwrap_or_else(|| panic!("{rel}:{}: scenario without name=", b.start + 1));
                ws.write(&format!("{name}/scenario.toml"), &body_text(b));
                scenarios.push((name.to_string(), attr(&b.info, "check") != Some("fail"), b.start));
            }
            ["toml" | "yaml", f] if f.starts_with("file=") => ws.write(attr(&b.info, "file").unwrap(), &body_text(b)),
            ["toml", "fragment"] => {
                let fragment = body_text(b);
                let found = std::fs::read_dir(repo().join("scenarios"))
                    .unwrap()
                    .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("scenario.toml")).ok())
                    .any(|s| s.contains(&fragment));
                if !found {
                    failures.push(format!("{rel}:{}: fragment not found in any scenarios/*/scenario.toml", b.start + 1));
                }
            }
            ["sh", "gpulab"] | ["sh", "kind"] | ["html", "embed"] | ["text"] => {}
            _ => failures.push(format!("{rel}:{}: fence ```{} is not an executed kind (see crates/cli/tests/docs.rs)", b.start + 1, b.info)),
        }
    }
    for (name, must_pass, start) in &scenarios {
        if *must_pass {
            let (out, code) = ws.run(&["scenario".into(), "check".into(), format!("scenarios/{name}")], false);
            if code != 0 {
                failures.push(format!("{rel}:{}: scenario {name} does not check clean (exit {code}):\n{}", start + 1, out.join("\n")));
            }
        }
    }
    // Commands, in order; blessing rewrites blocks from the last so line numbers hold.
    let mut rewrites: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for b in &all {
        match b.info.as_str() {
            "sh gpulab" => {
                let mut new_body = Vec::new();
                for c in commands(&b.body) {
                    if c.args.windows(2).any(|w| w[0] == "--backend" && w[1] == "containerd") && !has_containerd() {
                        // As the live tier does: without the binary, say so loudly and keep the doc.
                        eprintln!("\nSKIPPED {rel}:{}: `gpulab {}`: no `containerd` binary on PATH\n", b.start + 1, c.args.join(" "));
                        new_body.push(format!("$ gpulab {}{}", c.args.join(" "), if c.quiet_stderr { " 2>/dev/null" } else { "" }));
                        new_body.extend(c.output.clone());
                        if c.exit != 0 {
                            new_body.push(format!("(exit {})", c.exit));
                        }
                        continue;
                    }
                    let (out, code) = ws.run(&c.args, c.quiet_stderr);
                    let agrees = matches(&c.output, &out) && code == c.exit;
                    if !agrees {
                        failures.push(format!(
                            "{rel}:{}: `gpulab {}` printed (exit {code}):\n{}\n--- the doc shows (exit {}):\n{}",
                            b.start + 1,
                            c.args.join(" "),
                            out.join("\n"),
                            c.exit,
                            c.output.join("\n")
                        ));
                    }
                    new_body.push(format!("$ gpulab {}{}", c.args.join(" "), if c.quiet_stderr { " 2>/dev/null" } else { "" }));
                    // Blessing keeps what already agrees (with its `...` lines).
                    new_body.extend(if agrees { c.output.clone() } else { out });
                    if code != 0 {
                        new_body.push(format!("(exit {code})"));
                    }
                }
                rewrites.push((b.start + 1, b.body.len(), new_body));
            }
            "sh kind" => {
                for c in commands(&b.body) {
                    let (args, env) = match std::env::var_os("GPULAB_KUBECONFIG") {
                        Some(k) => (c.args.clone(), Some(k)),
                        None => ([c.args.clone(), vec!["--help".into()]].concat(), None),
                    };
                    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpulab"));
                    cmd.args(&args).current_dir(&ws.work);
                    if let Some(k) = env {
                        cmd.env("KUBECONFIG", k);
                    }
                    let status = cmd.output().unwrap().status;
                    if !status.success() {
                        failures.push(format!("{rel}:{}: `gpulab {}` exited {status}", b.start + 1, args.join(" ")));
                    }
                }
            }
            _ => {}
        }
    }
    for (at, len, body) in rewrites.into_iter().rev() {
        lines.splice(at..at + len, body);
    }
    (lines.iter().map(|l| format!("{l}\n")).collect(), failures)
}

const DOCS: [&str; 6] = ["docs/embedding.md", "docs/scenarios.md", "docs/parity.md", "docs/ko/embedding.md", "docs/ko/scenarios.md", "docs/ko/parity.md"];

/// Every scenario, file, fragment and `gpulab` command of every doc (English and
/// Korean) runs and prints what the doc shows.
#[test]
fn every_example_runs_as_shown() {
    let bless = std::env::var_os("GPULAB_DOCS_BLESS").is_some();
    let mut failures = Vec::new();
    for rel in DOCS {
        let (blessed, f) = run_doc(rel);
        if bless {
            std::fs::write(repo().join(rel), blessed).unwrap();
        } else {
            failures.extend(f);
        }
    }
    assert!(failures.is_empty(), "{} doc examples differ:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// The Korean docs carry the same executed examples as the English ones (the HTML
/// examples may differ in language).
#[test]
fn korean_docs_have_the_same_examples() {
    for (en, ko) in [("docs/embedding.md", "docs/ko/embedding.md"), ("docs/scenarios.md", "docs/ko/scenarios.md"), ("docs/parity.md", "docs/ko/parity.md")] {
        let executed = |rel: &str| -> Vec<(String, Vec<String>)> {
            let text = std::fs::read_to_string(repo().join(rel)).unwrap();
            blocks(&text).into_iter().filter(|b| b.info != "html embed" && b.info != "text").map(|b| (b.info, b.body)).collect()
        };
        assert_eq!(executed(ko), executed(en), "{ko} vs {en}");
        let count = |rel: &str| blocks(&std::fs::read_to_string(repo().join(rel)).unwrap()).iter().filter(|b| b.info == "html embed").count();
        assert_eq!(count(ko), count(en), "html examples of {ko} vs {en}");
    }
}

/// Every action and every expectation field of the model is documented in both
/// languages' scenarios.md.
#[test]
fn scenario_docs_cover_the_format() {
    for rel in ["docs/scenarios.md", "docs/ko/scenarios.md"] {
        let text = std::fs::read_to_string(repo().join(rel)).unwrap();
        for a in gpulab_model::scenario::ACTIONS {
            assert!(text.contains(&format!("`{a}`")), "{rel}: action `{a}` not documented");
        }
        for f in gpulab_model::scenario::Field::ALL {
            assert!(text.contains(&format!("`{}`", f.name())), "{rel}: field `{}` not documented", f.name());
        }
    }
}

/// The `...` wildcard and exact lines, as the runner compares them.
#[test]
fn output_matching() {
    let l = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let cases: [(&[&str], &[&str], bool); 5] = [
        (&["a", "b"], &["a", "b"], true),
        (&["a", "...", "z"], &["a", "b", "c", "z"], true),
        (&["a", "..."], &["a"], true),
        (&["a"], &["a", "b"], false),
        (&["a", "...", "z"], &["a", "b"], false),
    ];
    for (shown, actual, ok) in cases {
        assert_eq!(matches(&l(shown), &l(actual)), ok, "{shown:?} vs {actual:?}");
    }
}
