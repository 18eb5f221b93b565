//! `gpulab scenario check` on a scaffolded scenario (clean, every expectation holds on
//! the model) and on deliberately broken copies of it: one breakage per case, each
//! asserting its code, severity, the file:line:col it points at, its message and the
//! exit code.

use super::*;
use crate::scenario::new::scaffold;

/// A fresh scaffold in its own temporary directory; removed on drop.
struct Scaffold {
    root: PathBuf,
    dir: PathBuf,
}

impl Scaffold {
    fn new(tag: &str) -> Scaffold {
        let root = std::env::temp_dir().join(format!("gpulab-check-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        scaffold(&root.join("lab")).unwrap();
        Scaffold { dir: root.join("lab"), root }
    }

    fn toml(&self) -> String {
        std::fs::read_to_string(self.dir.join(SCENARIO_FILE)).unwrap()
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.dir.join(rel), text).unwrap();
    }
}

impl Drop for Scaffold {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// 1-based line of the first line of `text` containing `needle`, and its column.
fn position(text: &str, needle: &str) -> (u32, u32) {
    let (i, l) = text.lines().enumerate().find(|(_, l)| l.contains(needle)).unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let col = l[..l.find(needle).unwrap()].chars().count() as u32 + 1;
    (i as u32 + 1, col)
}

/// Replaces the `nth` (0-based) occurrence of `from` in `text`.
fn replace_nth(text: &str, from: &str, to: &str, nth: usize) -> String {
    let (at, _) = text.match_indices(from).nth(nth).unwrap_or_else(|| panic!("{from:?} #{nth} not in the text"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

/// The scaffold is clean: no diagnostic at all, every expectation checked on the
/// model, exit 0 — and `scenario run`'s loader accepts it and it passes on the model.
#[test]
fn scaffold_is_clean() {
    let s = Scaffold::new("clean");
    let lint = lint(&s.dir).unwrap();
    assert_eq!(lint.diagnostics.iter().map(Diagnostic::line).collect::<Vec<_>>(), Vec::<String>::new());
    assert!(lint.expectations > 50, "{} expectations", lint.expectations);
    assert_eq!((lint.failed, lint.exit()), (0, ExitCode::Success));
    let parsed = crate::scenario::load(&s.dir).unwrap();
    assert!(scenario::run_on_model(&parsed).passed());
}

/// One breakage of the scaffold.
struct Broken {
    /// What the author got wrong.
    what: &'static str,
    /// Rewrites scenario.toml (and may write other files).
    edit: fn(&Scaffold, String) -> String,
    code: &'static str,
    severity: Severity,
    /// The file the finding must point at, relative to the scenario directory.
    file: &'static str,
    /// Text whose position (in that file, after the edit) the finding must point at.
    at: &'static str,
    /// A part of the message.
    says: &'static str,
    exit: ExitCode,
}

fn broken_cases() -> Vec<Broken> {
    vec![
        Broken {
            what: "an unterminated string: a TOML syntax error",
            edit: |_, t| t.replace("kubernetes = \"1.33\"", "kubernetes = \"1.33"),
            code: "scenario-syntax",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "kubernetes = \"1.33",
            says: "",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a misspelt key in a step",
            edit: |_, t| replace_nth(&t, "node = \"gpu-node-2\"\npath", "nod = \"gpu-node-2\"\npath", 0),
            code: "scenario-unknown-key",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "nod = \"gpu-node-2\"",
            says: "unknown key `nod` in a [[step]]",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "an action the engine does not know",
            edit: |_, t| replace_nth(&t, "do = \"check\"", "do = \"chek\"", 0),
            code: "scenario-unknown-action",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "\"chek\"",
            says: "unknown action `do = \"chek\"`",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a wrong type: gpus as a string",
            edit: |_, t| replace_nth(&t, "gpus = 4", "gpus = \"four\"", 1),
            code: "scenario-wrong-type",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "gpus = \"four\"",
            says: "`gpus` must be an integer",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a referenced file that does not exist",
            edit: |_, t| t.replace("file = \"nodes/99-nvidia.toml\"", "file = \"nodes/99-nvida.toml\""),
            code: "scenario-file-unreadable",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "\"nodes/99-nvida.toml\"",
            says: "cannot read `nodes/99-nvida.toml`",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a containerd version line the model does not have",
            edit: |_, t| t.replace("containerd = \"1.6.20\"", "containerd = \"1.5.9\""),
            code: "scenario-bad-version",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "\"1.5.9\"",
            says: "containerd version `1.5.9`",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a Kubernetes version the model does not cover",
            edit: |_, t| t.replace("kubernetes = \"1.33\"", "kubernetes = \"1.29\""),
            code: "scenario-version-not-modelled",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "\"1.29\"",
            says: "unsupported Kubernetes version \"1.29\"",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "a node file that is not TOML",
            edit: |s, t| {
                s.write("nodes/config.toml", "version = 2\n[plugins\n");
                t
            },
            code: "scenario-file-syntax",
            severity: Severity::Error,
            file: "nodes/config.toml",
            at: "[plugins",
            says: "not valid TOML",
            exit: ExitCode::BadInput,
        },
        Broken {
            what: "an expectation the model cannot satisfy (gpu-node-1 passes the check)",
            edit: |_, t| replace_nth(&t, "check = \"pass\"", "check = \"check-failed\"", 0),
            code: "scenario-expectation-fails",
            severity: Severity::Error,
            file: SCENARIO_FILE,
            at: "check = \"check-failed\"\n[step.expect.gpu-node-2]",
            says: "`gpu-node-1.check` expects \"check-failed\", the model observes \"pass\"",
            exit: ExitCode::CheckFailed,
        },
        Broken {
            what: "a manifest of a kind the lab does not read: the loader's finding at its line",
            edit: |s, t| {
                let cluster = std::fs::read_to_string(s.dir.join("k8s/cluster.yaml")).unwrap();
                s.write("k8s/cluster.yaml", &format!("{cluster}---\napiVersion: v1\nkind: Secret\nmetadata: {{name: s}}\n"));
                t
            },
            code: "scenario-setup-fails",
            severity: Severity::Error,
            file: "k8s/cluster.yaml",
            at: "kind: Secret",
            says: "error[k8s-kind-unknown]: kind \"Secret\" is not one the lab reads (",
            exit: ExitCode::CheckFailed,
        },
        Broken {
            what: "a patch release that is not a recorded binary: a warning, still exit 0",
            edit: |_, t| t.replace("containerd = \"1.6.20\"", "containerd = \"1.6.24\""),
            code: "scenario-version-approximated",
            severity: Severity::Warning,
            file: SCENARIO_FILE,
            at: "\"1.6.24\"",
            says: "the model runs it with the defaults of 1.6.20",
            exit: ExitCode::Success,
        },
    ]
}

/// Every breakage is found, named by its code, at the line and column of the mistake,
/// with its message, and gives its exit code.
#[test]
fn broken_scenarios() {
    for (i, case) in broken_cases().into_iter().enumerate() {
        let s = Scaffold::new(&format!("broken-{i}"));
        let text = (case.edit)(&s, s.toml());
        s.write(SCENARIO_FILE, &text);
        let lint = lint(&s.dir).unwrap();
        let lines: Vec<String> = lint.diagnostics.iter().map(Diagnostic::line).collect();
        let d = lint.diagnostics.iter().find(|d| d.code == case.code).unwrap_or_else(|| panic!("{}: no {} in {lines:#?}", case.what, case.code));
        let target = std::fs::read_to_string(s.dir.join(case.file)).unwrap();
        // `at` may span lines: the finding points at its first line.
        let first = case.at.lines().next().unwrap();
        let (line, col) = if case.at.contains('\n') {
            let at = target.find(case.at).unwrap_or_else(|| panic!("{}: {:?} not in the file", case.what, case.at));
            let line = target[..at].matches('\n').count() as u32 + 1;
            (line, target.lines().nth(line as usize - 1).unwrap().find(first).unwrap() as u32 + 1)
        } else {
            position(&target, first)
        };
        let span = d.primary.as_ref().unwrap();
        assert_eq!(span.file, s.dir.join(case.file).display().to_string(), "{}", case.what);
        assert_eq!(span.line, line, "{}: {}", case.what, d.line());
        if case.code != "scenario-syntax" && case.code != "scenario-file-syntax" {
            assert_eq!(span.column, col, "{}: {}", case.what, d.line());
        }
        assert_eq!(d.severity, case.severity, "{}", case.what);
        assert!(d.get("message").unwrap().contains(case.says), "{}: {}", case.what, d.line());
        assert_eq!(lint.exit(), case.exit, "{}: {lines:#?}", case.what);
        assert!(d.line().starts_with(&format!("{}:{}:{}: ", span.file, span.line, span.column)), "{}", case.what);
    }
}
