//! Table-driven tests of [`evaluate`] on the lab's situations: the incident before and
//! after a restart, the safe drop-in, a daemon killed by SIGHUP, and bad inputs that must
//! never give a false pass. The script is held to the same results by the parity test.

use super::*;
use crate::Lang;

const GOOD_DUMP: &str = r#"version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
      SystemdCgroup = true
"#;

/// The 1.x incident dump: the drop-in's CRI table replaced main's; runc is gone.
const INCIDENT_DUMP: &str = r#"version = 2
[plugins."io.containerd.grpc.v1.cri".containerd]
  default_runtime_name = "runc"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
    runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
      BinaryName = "/usr/bin/nvidia-container-runtime"
"#;

const MAIN: &str = r#"version = 2
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
    SystemdCgroup = true
"#;

const NO_RUNTIME: &str =
    "invalid plugin config: no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"runc\"";

fn rt(name: &str, opts: &[(&str, &str)]) -> LoadedRuntime {
    LoadedRuntime {
        name: name.into(),
        runtime_type: "io.containerd.runc.v2".into(),
        options: opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    }
}

fn loaded_good() -> Loaded {
    Loaded::Cri {
        default_runtime_name: "runc".into(),
        runtimes: vec![rt("nvidia", &[("BinaryName", "/usr/bin/nvidia-container-runtime")]), rt("runc", &[("SystemdCgroup", "true")])],
    }
}

fn running(status: &str, reason: &str) -> Daemon {
    Daemon::Running {
        plugins: vec![PluginRow { plugin_type: "io.containerd.grpc.v1".into(), id: "cri".into(), status: status.into(), reason: reason.into() }],
    }
}

fn inputs(daemon: Daemon, loaded: Loaded, dump: Dump) -> CheckInputs {
    CheckInputs {
        address: "/run/containerd/containerd.sock".into(),
        config: "/etc/containerd/config.toml".into(),
        handler: "nvidia".into(),
        keep: "runc".into(),
        daemon,
        cri_source: "gpulab cri info".into(),
        loaded,
        dump,
        main_config: Some(MAIN.into()),
        existing_binaries: vec!["/usr/bin/nvidia-container-runtime".into(), "containerd-shim-runc-v2".into()],
    }
}

fn codes(r: &CheckReport) -> Vec<String> {
    r.findings.iter().map(|f| format!("{}:{}", f.check, f.code)).collect()
}

/// Each lab situation gives its verdict, exit status and finding codes.
#[test]
fn lab_situations() {
    let unavailable = || Loaded::Unavailable { detail: "rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService".into() };
    let cases: Vec<(&str, CheckInputs, Verdict, &[&str])> = vec![
        (
            "good config, loaded",
            inputs(running("ok", ""), loaded_good(), Dump::Text(GOOD_DUMP.into())),
            Verdict::Pass,
            &["1:daemon-answers", "2:cri-plugins-ok", "3:loaded-handler-ok", "4:files-ok", "5:loaded-matches-files"],
        ),
        (
            "incident drop-in written, no restart",
            inputs(running("ok", ""), loaded_good(), Dump::Text(INCIDENT_DUMP.into())),
            Verdict::RestartNeeded,
            &["1:daemon-answers", "2:cri-plugins-ok", "3:loaded-handler-ok", "4:dump-default-undefined", "4:dump-keep-lost", "5:restart-needed"],
        ),
        (
            "incident after restart: CRI error",
            inputs(running("error", NO_RUNTIME), unavailable(), Dump::Text(INCIDENT_DUMP.into())),
            Verdict::CheckFailed,
            &["1:daemon-answers", "2:cri-plugin-error", "3:loaded-unavailable", "4:dump-default-undefined", "4:dump-keep-lost", "5:cannot-compare"],
        ),
        (
            "fixed files, CRI still failed from the old ones",
            inputs(running("error", NO_RUNTIME), unavailable(), Dump::Text(GOOD_DUMP.into())),
            Verdict::RestartNeeded,
            &["1:daemon-answers", "2:cri-plugin-error", "3:loaded-unavailable", "4:files-ok", "5:restart-needed"],
        ),
        (
            "SIGHUP killed the daemon",
            inputs(Daemon::NotRunning { detail: "connect: connection refused".into() }, unavailable(), Dump::Text(GOOD_DUMP.into())),
            Verdict::NotReachable,
            &["1:daemon-not-running", "2:skipped-daemon-down", "3:skipped-daemon-down", "4:files-ok", "5:skipped-daemon-down"],
        ),
        (
            "empty dump",
            inputs(running("ok", ""), loaded_good(), Dump::Text("\n".into())),
            Verdict::CheckFailed,
            &["1:daemon-answers", "2:cri-plugins-ok", "3:loaded-handler-ok", "4:dump-empty", "5:skipped-no-dump"],
        ),
        (
            "dump in an unknown format",
            inputs(running("ok", ""), loaded_good(), Dump::Text("{\"version\": 2}".into())),
            Verdict::CheckFailed,
            &["1:daemon-answers", "2:cri-plugins-ok", "3:loaded-handler-ok", "4:dump-unrecognised", "5:skipped-no-dump"],
        ),
        (
            "a socket that is not containerd",
            inputs(Daemon::NotContainerd { detail: "failed to write client preface".into() }, Loaded::Unrecognised, Dump::Failed { detail: "x".into() }),
            Verdict::NotReachable,
            &["1:daemon-not-containerd", "2:skipped-daemon-down", "3:skipped-daemon-down", "4:dump-failed", "5:skipped-daemon-down"],
        ),
        (
            "CRI plugin disabled",
            inputs(Daemon::Running { plugins: vec![] }, unavailable(), Dump::Text(GOOD_DUMP.into())),
            Verdict::CheckFailed,
            &["1:daemon-answers", "2:cri-plugin-error", "3:loaded-unavailable", "4:files-ok", "5:cannot-compare"],
        ),
    ];
    for (name, inp, verdict, expect) in cases {
        let r = evaluate(&inp);
        assert_eq!((r.verdict, codes(&r)), (verdict, expect.iter().map(|s| s.to_string()).collect::<Vec<_>>()), "{name}");
    }
}

/// The incident's findings name what was lost and containerd's own reason, in both languages.
#[test]
fn incident_texts_name_the_loss() {
    let r = evaluate(&inputs(running("ok", ""), loaded_good(), Dump::Text(INCIDENT_DUMP.into())));
    let lost = r.findings.iter().find(|f| f.code == "dump-keep-lost").unwrap();
    assert_eq!(lost.arg("lost"), "runtime_type=io.containerd.runc.v2 SystemdCgroup=true");
    assert!(message(lost, Lang::En).contains("lost the main config's runc settings"));
    assert!(message(lost, Lang::Ko).contains("runc 설정이 사라졌습니다"));
    let restart = r.findings.iter().find(|f| f.code == "restart-needed").unwrap();
    assert_eq!(restart.arg("differences"), "runtimes: loaded [nvidia runc] files [nvidia]");
    assert_eq!(verdict_text(r.verdict, "nvidia", Lang::En), "RESTART NEEDED: the files changed, containerd still runs the old config");
}

/// A loaded handler whose binary does not exist fails check 3; the shim name is derived
/// from the runtime type when there is no BinaryName.
#[test]
fn runtime_binary_must_exist() {
    let mut inp = inputs(running("ok", ""), loaded_good(), Dump::Text(GOOD_DUMP.into()));
    inp.existing_binaries.clear();
    let r = evaluate(&inp);
    assert_eq!(r.findings[2].code, "loaded-binary-missing");
    assert_eq!(shim_binary("io.containerd.runc.v2"), "containerd-shim-runc-v2");
    assert_eq!(shim_binary("runc"), "");
}

/// Any text as a dump or main config gives a verdict, never a panic, and never a pass
/// unless the dump has the handler (a cheap property test over mangled dumps).
#[test]
fn mangled_dumps_never_pass_falsely() {
    let base = GOOD_DUMP.as_bytes();
    for cut in 0..base.len() {
        for junk in ["", "[", "'", "\"", "=", "\n[[x]]\n", "é"] {
            let mut text = String::from_utf8_lossy(&base[..cut]).into_owned();
            text.push_str(junk);
            let mut inp = inputs(running("ok", ""), loaded_good(), Dump::Text(text.clone()));
            inp.main_config = Some(text.clone());
            let r = evaluate(&inp);
            if r.verdict == Verdict::Pass {
                let m = toml_runtimes(&text, Some("io.containerd.grpc.v1.cri"));
                assert!(m.has_runtime("nvidia") && m.has_runtime("runc"), "false pass on {text:?}");
            }
        }
    }
}

/// `one_line` flattens as the script's `tr | sed` does.
#[test]
fn one_line_matches_the_script() {
    for (input, expect) in [("a\n b\t\tc", "a b c"), ("  x  ", "x"), ("", "")] {
        assert_eq!(one_line(input), expect);
    }
}
