//! `scripts/check-runtime.sh` on every recorded containerd version's formats, hermetic:
//! stand-in `containerd`, `ctr` and `crictl` first on PATH print what the real ones
//! printed for each golden case (`../shared/goldens/containerd/<case>/<version>/`): the
//! recorded `dump.toml`, the recorded CRI plugin rows and containerd's own reason, and a
//! `crictl info` built from the recorded dump (the daemon loaded those same files). For
//! each, the script's verdict must equal the model's (`check_runtime::evaluate`), and the
//! bad states (not containerd, permission denied, empty or foreign dump) must never pass.
//! The same script against a real daemon is `check_runtime_daemon.rs`.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

use gpulab_model::check_runtime::{self as cr, CheckInputs, Daemon, Dump, Loaded};
use gpulab_model::Lang;
use serde_json::{json, Map, Value};
use support::*;

const CTR: &str = r#"#!/bin/sh
# stand-in ctr: prints the recorded plugin rows, or the recorded dial error
fx=$(dirname "$0")/../fx
case " $* " in
  *" -d "*) printf 'Type:          x\nError:\n               Code:        Unknown\n               Message:     %s\n' "$(cat "$fx/reason")"; exit 0 ;;
esac
if [ -f "$fx/plugins" ]; then cat "$fx/plugins"; exit 0; fi
cat "$fx/ctr.err" >&2; exit 1
"#;

const CONTAINERD: &str = r#"#!/bin/sh
# stand-in containerd: `config dump` prints the recorded dump, stderr and exit code
fx=$(dirname "$0")/../fx
cat "$fx/dump.toml"; cat "$fx/dump.err" >&2; exit "$(cat "$fx/dump.exit")"
"#;

const CRICTL: &str = r#"#!/bin/sh
# stand-in crictl: `info` prints the loaded CRI config, or the recorded gRPC error
fx=$(dirname "$0")/../fx
if [ -f "$fx/info.json" ]; then cat "$fx/info.json"; exit 0; fi
cat "$fx/info.err" >&2; exit 1
"#;

const REFUSED: &str = "ctr: failed to dial \"c.sock\": connection error: desc = \"transport: error while dialing: dial unix c.sock: connect: connection refused\"";
const UNIMPLEMENTED: &str = "rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService";

/// What the stand-ins serve for one situation.
#[derive(Default)]
struct Situation {
    /// `ctr plugins ls` output; `None` = the dial fails with `ctr_err`.
    plugins: Option<String>,
    ctr_err: String,
    reason: String,
    dump: String,
    dump_err: String,
    dump_exit: i32,
    /// `crictl info` output; `None` = it fails with `info_err`.
    info: Option<String>,
    info_err: String,
    main: String,
}

/// A node for the script: stand-in binaries, fixture files, a listening socket.
struct Node {
    dir: TempDir,
    _listener: Option<UnixListener>,
}

impl Node {
    fn new(s: &Situation, socket: bool) -> Node {
        let dir = TempDir::new("check");
        let (bin, fx) = (dir.0.join("bin"), dir.0.join("fx"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&fx).unwrap();
        for (name, text) in [("ctr", CTR), ("containerd", CONTAINERD), ("crictl", CRICTL)] {
            let p = bin.join(name);
            std::fs::write(&p, text).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let w = |name: &str, text: &str| std::fs::write(fx.join(name), text).unwrap();
        if let Some(p) = &s.plugins {
            w("plugins", p);
        }
        w("ctr.err", &s.ctr_err);
        w("reason", &s.reason);
        w("dump.toml", &s.dump);
        w("dump.err", &s.dump_err);
        w("dump.exit", &s.dump_exit.to_string());
        if let Some(i) = &s.info {
            w("info.json", i);
        }
        w("info.err", &s.info_err);
        std::fs::write(dir.0.join("config.toml"), &s.main).unwrap();
        let listener = socket.then(|| UnixListener::bind(dir.0.join("c.sock")).unwrap());
        Node { dir, _listener: listener }
    }

    fn address(&self) -> PathBuf {
        self.dir.0.join("c.sock")
    }

    fn run(&self, lang: &str) -> Run {
        let (addr, config) = (self.address(), self.dir.0.join("config.toml"));
        run_script(
            &["--address", addr.to_str().unwrap(), "--config", config.to_str().unwrap()],
            Some(&self.dir.0.join("bin")),
            &[("LANG", lang)],
        )
    }

    /// The script's plain text output (no --json) and exit code.
    fn run_text(&self, lang: &str) -> (i32, String) {
        let (addr, config) = (self.address(), self.dir.0.join("config.toml"));
        let path = format!("{}:{}", self.dir.0.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        let out = std::process::Command::new("sh")
            .arg(script())
            .args(["--address", addr.to_str().unwrap(), "--config", config.to_str().unwrap()])
            .env_remove("GPULAB")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", lang)
            .env("PATH", path)
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// The model's inputs, gathered from the same fixture the stand-ins serve.
    fn inputs(&self, s: &Situation, daemon: Daemon) -> CheckInputs {
        let loaded = match &s.info {
            Some(text) => loaded_from_info(text),
            None => Loaded::Unavailable { detail: s.info_err.clone() },
        };
        let path = format!("{}:{}", self.dir.0.join("bin").display(), std::env::var("PATH").unwrap_or_default());
        CheckInputs {
            address: self.address().display().to_string(),
            config: self.dir.0.join("config.toml").display().to_string(),
            handler: "nvidia".into(),
            keep: "runc".into(),
            daemon,
            cri_source: "crictl info".into(),
            existing_binaries: existing_binaries(&loaded, &path),
            loaded,
            dump: if s.dump_exit == 0 { Dump::Text(s.dump.clone()) } else { Dump::Failed { detail: s.dump_err.clone() } },
            main_config: Some(s.main.clone()),
        }
    }
}

fn daemon_of(s: &Situation) -> Daemon {
    match &s.plugins {
        Some(text) => Daemon::Running { plugins: plugin_rows(text, |_, _| s.reason.clone()) },
        None if s.ctr_err.contains("permission denied") => Daemon::PermissionDenied { detail: s.ctr_err.clone() },
        None if s.ctr_err.contains("connection refused") => Daemon::NotRunning { detail: s.ctr_err.clone() },
        None => Daemon::NotContainerd { detail: s.ctr_err.clone() },
    }
}

/// containerd's reason inside a recorded log line: the `error="..."` value, unescaped.
fn reason_of(line: &str) -> String {
    let Some(start) = line.find("error=\"") else { return String::new() };
    let mut out = String::new();
    let mut chars = line[start + 7..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => break,
            c => out.push(c),
        }
    }
    out
}

fn toml_to_json(item: &toml_edit::Item) -> Value {
    match item {
        toml_edit::Item::Value(v) => value_to_json(v),
        toml_edit::Item::Table(t) => Value::Object(t.iter().map(|(k, v)| (k.to_string(), toml_to_json(v))).collect()),
        _ => Value::Null,
    }
}

fn value_to_json(v: &toml_edit::Value) -> Value {
    match v {
        toml_edit::Value::String(s) => json!(s.value()),
        toml_edit::Value::Integer(i) => json!(i.value()),
        toml_edit::Value::Float(f) => json!(f.value()),
        toml_edit::Value::Boolean(b) => json!(b.value()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(value_to_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(t.iter().map(|(k, v)| (k.to_string(), value_to_json(v))).collect()),
        _ => Value::Null,
    }
}

/// `crictl info` as containerd would print it after loading the files of `dump`
/// (camelCase config keys, as the CRI plugin's JSON tags name them). `None` when the dump
/// has no CRI runtime table.
fn info_from_dump(dump: &str) -> Option<String> {
    let doc: toml_edit::DocumentMut = dump.parse().ok()?;
    let version = doc.get("version")?.as_integer()?;
    let id = if version >= 3 { "io.containerd.cri.v1.runtime" } else { "io.containerd.grpc.v1.cri" };
    let containerd = doc.get("plugins")?.get(id)?.get("containerd")?;
    let mut runtimes = Map::new();
    for (name, r) in containerd.get("runtimes")?.as_table()?.iter() {
        let options = r.get("options").map(toml_to_json).unwrap_or(json!({}));
        let runtime_type = r.get("runtime_type").and_then(|v| v.as_str()).unwrap_or_default();
        runtimes.insert(name.to_string(), json!({"runtimeType": runtime_type, "options": options, "runtimePath": ""}));
    }
    let default = containerd.get("default_runtime_name")?.as_str()?;
    let info = json!({
        "status": {"conditions": [{"type": "RuntimeReady", "status": true, "reason": "", "message": ""}]},
        "config": {"containerd": {"defaultRuntimeName": default, "runtimes": runtimes, "snapshotter": "overlayfs"}},
        "lastCNILoadStatus": "cni config load failed: no network config found in /etc/cni/net.d",
    });
    Some(serde_json::to_string_pretty(&info).unwrap())
}

/// The situation a golden recorded for one version.
fn golden_situation(case: &Path, version: &str) -> Situation {
    let dir = case.join(version);
    let result: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    let dump = std::fs::read_to_string(dir.join("dump.toml")).unwrap_or_default();
    let mut s = Situation {
        dump_exit: result["exit"].as_i64().unwrap() as i32,
        dump_err: result["stderr"].as_str().unwrap_or_default().to_string(),
        reason: result["cri_error"].as_str().map(reason_of).unwrap_or_default(),
        main: std::fs::read_to_string(case.join("input/main.toml")).unwrap(),
        info_err: UNIMPLEMENTED.into(),
        ctr_err: REFUSED.into(),
        ..Default::default()
    };
    if let Some(rows) = result["cri_plugins"].as_object() {
        let mut text = String::from("TYPE                            ID                       PLATFORMS      STATUS    \n");
        text += "io.containerd.content.v1        content                  -              ok        \n";
        for (full, status) in rows {
            let (t, id) = full.rsplit_once('.').unwrap();
            text += &format!("{t:<32}{id:<25}{:<15}{:<10}\n", "linux/amd64", status.as_str().unwrap());
        }
        let all_ok = rows.values().all(|v| v == "ok");
        if all_ok && s.dump_exit == 0 {
            s.info = info_from_dump(&dump);
        }
        s.plugins = Some(text);
    }
    s.dump = dump;
    s
}

fn versions(case: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(case)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("result.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn cases() -> Vec<PathBuf> {
    let mut c: Vec<PathBuf> = std::fs::read_dir(goldens())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join("input/main.toml").is_file())
        .collect();
    c.sort();
    c
}

/// Every golden case × every recorded version (the eight dump formats): the script and the
/// model agree on verdict, exit status, findings and English text; where the CRI plugin came
/// up, the loaded view built from the dump matches the dump (check 5 passes), which proves
/// the script reads each version's dump and the crictl JSON into the same settings.
#[test]
fn every_recorded_version_script_equals_model() {
    let mut jobs: Vec<(PathBuf, String)> = Vec::new();
    for case in cases() {
        for version in versions(&case) {
            jobs.push((case.clone(), version));
        }
    }
    let seen_versions: std::collections::BTreeSet<&String> = jobs.iter().map(|(_, v)| v).collect();
    assert_eq!(seen_versions.len(), 8, "{seen_versions:?}");
    assert!(jobs.len() >= 8 * 20, "only {} runs", jobs.len());
    // Each run forks a few dozen small processes: two at a time halves the wall time.
    std::thread::scope(|scope| {
        for half in jobs.chunks(jobs.len().div_ceil(2)) {
            scope.spawn(move || {
                for (case, version) in half {
                    let name = case.file_name().unwrap().to_string_lossy();
                    let s = golden_situation(case, version);
                    let node = Node::new(&s, true);
                    let run = node.run("C.UTF-8");
                    let inputs = node.inputs(&s, daemon_of(&s));
                    assert_parity(&format!("{name} {version}"), &run, &cr::evaluate(&inputs), &inputs, Lang::En);
                    if s.info.is_some() {
                        assert!(codes(&run.json).contains(&"5:loaded-matches-files".to_string()), "{name} {version}: {}", run.json);
                    }
                    assert_ne!(run.exit, 0, "{name} {version}: no recorded node has /usr/bin/nvidia-container-runtime, so none may pass");
                }
            });
        }
    });
}

/// The same in Korean, on the oldest and a current config line (1.6, 2.3): texts agree too,
/// and the script's plain text output equals the model's `render_text` byte for byte.
#[test]
fn korean_texts_script_equals_model() {
    for case in cases() {
        for version in ["1.6.20", "2.3.4"] {
            if !case.join(version).is_dir() {
                continue;
            }
            let s = golden_situation(&case, version);
            let node = Node::new(&s, true);
            let run = node.run("ko_KR.UTF-8");
            let inputs = node.inputs(&s, daemon_of(&s));
            let model = cr::evaluate(&inputs);
            let label = format!("{} {version} (ko)", case.display());
            assert_parity(&label, &run, &model, &inputs, Lang::Ko);
            // And the plain text output, byte for byte.
            let (exit, text) = node.run_text("ko_KR.UTF-8");
            assert_eq!(exit, i32::from(model.verdict.exit_code()), "{label}");
            assert_eq!(text, cr::render_text(&model, &inputs.address, &inputs.config, "nvidia", Lang::Ko), "{label}");
        }
    }
}

/// What check 4 sees in the incident's dump, per version: on 1.x the drop-in replaced the
/// CRI table (runc and SystemdCgroup lost, default runc undefined); on 2.x the deep merge
/// kept them. And check 2 carries containerd's own reason on 1.x.
#[test]
fn incident_dump_per_version() {
    let case = goldens().join("v2-dropin-adds-nvidia-runtime");
    let broken: &[&str] = &["4:dump-default-undefined", "4:dump-keep-lost"];
    let table: [(&str, &[&str]); 8] = [
        ("1.6.20", broken),
        ("1.6.39", broken),
        ("1.7.34", broken),
        ("2.0.11", &["4:files-ok"]),
        ("2.1.9", &["4:files-ok"]),
        ("2.2.7", &["4:files-ok"]),
        ("2.3.4", &["4:files-ok"]),
        ("main-301026e", &["4:files-ok"]),
    ];
    for (version, expect) in table {
        let s = golden_situation(&case, version);
        let run = Node::new(&s, true).run("C.UTF-8");
        let got: Vec<String> = codes(&run.json).into_iter().filter(|c| c.starts_with("4:")).collect();
        assert_eq!(got, expect.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{version}");
        if version.starts_with('1') {
            let f2 = &run.json["findings"][1];
            assert_eq!(f2["code"], "cri-plugin-error", "{version}");
            assert!(f2["args"]["reason"].as_str().unwrap().contains("default_runtime_name = \"runc\""), "{version}");
            let lost = run.json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "dump-keep-lost").unwrap();
            assert_eq!(lost["args"]["lost"], "runtime_type=io.containerd.runc.v2 SystemdCgroup=true", "{version}");
        }
    }
}

fn plugins_ok() -> String {
    "TYPE                            ID                       PLATFORMS      STATUS    \nio.containerd.grpc.v1           cri                      linux/amd64    ok        \n".into()
}

fn good() -> Situation {
    let case = goldens().join("v2-dropin-repeats-full-cri-table");
    let mut s = golden_situation(&case, "1.6.20");
    s.info = info_from_dump(&s.dump);
    s
}

/// Bad states give exit 3 or 1 with a clear message, never a false pass; the script and the
/// model agree on each.
#[test]
fn bad_states_never_pass() {
    type Tweak = fn(&mut Situation);
    let cases: [(&str, Tweak, bool, i32, &str, &str); 7] = [
        ("no socket", |_| {}, false, 3, "1:daemon-not-running", "is not running"),
        ("socket refuses (after SIGHUP)", |s| { s.plugins = None; s.ctr_err = REFUSED.into() }, true, 3, "1:daemon-not-running", "SIGHUP does not reload containerd"),
        ("permission denied", |s| {
            s.plugins = None;
            s.ctr_err = "ctr: failed to dial \"c.sock\": connection error: desc = \"transport: error while dialing: dial unix c.sock: connect: permission denied\"".into()
        }, true, 3, "1:daemon-permission-denied", "permission denied"),
        ("socket is not containerd", |s| {
            s.plugins = None;
            s.ctr_err = "ctr: failed to dial \"f.sock\": context deadline exceeded: connection error: desc = \"transport: failed to write client preface: write: broken pipe\"".into()
        }, true, 3, "1:daemon-not-containerd", "does not answer as containerd"),
        ("empty dump", |s| s.dump = String::new(), true, 1, "4:dump-empty", "printed nothing"),
        ("dump with unexpected formatting", |s| s.dump = "{\"version\": 2, \"plugins\": {}}\n".into(), true, 1, "4:dump-unrecognised", "unrecognised config dump"),
        ("crictl answers garbage", |s| s.info = Some("<html>not json</html>".into()), true, 1, "3:loaded-unrecognised", "unrecognised output"),
    ];
    for (name, tweak, socket, exit, code, text) in cases {
        let mut s = good();
        s.plugins = Some(plugins_ok());
        tweak(&mut s);
        let node = Node::new(&s, socket);
        let run = node.run("C.UTF-8");
        assert_eq!(run.exit, exit, "{name}: {}", run.json);
        let finding = run.json["findings"].as_array().unwrap().iter().find(|f| format!("{}:{}", f["check"], f["code"].as_str().unwrap()) == code);
        let finding = finding.unwrap_or_else(|| panic!("{name}: no {code} in {}", run.json));
        assert!(finding["message"].as_str().unwrap().contains(text), "{name}: {finding}");
        let daemon = if socket { daemon_of(&s) } else { Daemon::NotRunning { detail: format!("no socket at {}", node.address().display()) } };
        let inputs = node.inputs(&s, daemon);
        assert_parity(name, &run, &cr::evaluate(&inputs), &inputs, Lang::En);
    }
}

/// Usage errors exit 4 and say what was wrong; --help exits 0.
#[test]
fn usage_errors_exit_4() {
    for (args, exit, text) in [(&["--bogus"][..], 4, "unknown option: --bogus"), (&["--handler"][..], 4, "--handler needs a value"), (&["--help"][..], 0, "Exit: 0 all good")] {
        let out = std::process::Command::new("sh").arg(script()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(exit), "{args:?}");
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(all.contains(text), "{args:?}: {all}");
    }
}

/// The script is POSIX sh and shellcheck-clean (dev.sh installs shellcheck).
#[test]
fn shellcheck_passes() {
    let out = std::process::Command::new("shellcheck")
        .args(["-s", "sh"])
        .arg(script())
        .output()
        .expect("shellcheck is not installed (./dev.sh setup installs it)");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}
