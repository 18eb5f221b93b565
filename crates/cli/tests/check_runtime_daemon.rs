//! `scripts/check-runtime.sh` against REAL containerd daemons: Debian's package (1.6.20 in
//! CI) for the seed's whole story, then every version there is (Debian's and each build
//! `scripts/oracle-containerd.sh` cached) for the incident's turn per version line. The lab's proof that the check judges what containerd *loaded*: start on a good
//! config → pass; write the runtimes-only NVIDIA drop-in without restarting → "restart
//! needed", and the merged files lost the runc settings; restart → the CRI plugin is `error`
//! with containerd's own reason; replace the drop-in with one carrying the full CRI table →
//! "restart needed" again, restart → pass; SIGHUP → containerd is gone and the check says so.
//! Each run's findings are asserted, and each must equal the model's verdict on the same
//! real inputs (plugin rows, `gpulab cri info`, `containerd config dump`).
//!
//! Why gated (`--features real-containerd`): it needs root, the `containerd` and `ctr`
//! binaries (the cached builds too, for every version), and starts a daemon — on a private --root/--state/--address under a temp dir,
//! stopped by its PID. The live CRI view comes from `gpulab cri info` (this crate's binary).
#![cfg(feature = "real-containerd")]

mod support;

// The binaries' resolver, shared by path (the tests use `installed` and `available`).
#[allow(dead_code)]
#[path = "../src/oracle.rs"]
mod oracle;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gpulab_model::check_runtime::{self as cr, CheckInputs, Daemon, Dump, Loaded};
use gpulab_model::Lang;
use support::*;

const GPULAB: &str = env!("CARGO_BIN_EXE_gpulab");

/// A containerd daemon of one real build on a private root, state and socket; stopped
/// by PID on drop.
struct Containerd {
    bin: oracle::Oracle,
    dir: PathBuf,
    child: Option<Child>,
}

impl Containerd {
    fn address(&self) -> PathBuf {
        self.dir.join("c.sock")
    }

    fn config(&self) -> PathBuf {
        self.dir.join("config.toml")
    }

    /// Starts the daemon with SIGHUP at its default disposition (`env --default-signal`),
    /// whatever this test inherited, and waits until `ctr plugins ls` answers.
    fn start(&mut self) {
        let log = std::fs::OpenOptions::new().create(true).append(true).open(self.dir.join("daemon.log")).unwrap();
        let child = Command::new("env")
            .arg("--default-signal=HUP")
            .arg(&self.bin.containerd)
            .arg("--config")
            .arg(self.config())
            .arg("--root")
            .arg(self.dir.join("root"))
            .arg("--state")
            .arg(self.dir.join("state"))
            .arg("--address")
            .arg(self.address())
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e} (./dev.sh setup installs and builds the binaries)", self.bin.containerd.display()));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ok = Command::new(&self.bin.ctr).arg("--address").arg(self.address()).args(["plugins", "ls"]).output().map(|o| o.status.success()).unwrap_or(false);
            if ok {
                break;
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("containerd exited ({status}):\n{}", std::fs::read_to_string(self.dir.join("daemon.log")).unwrap_or_default());
            }
            assert!(Instant::now() < deadline, "containerd did not answer within 30 s");
            std::thread::sleep(Duration::from_millis(200));
        }
        // As the goldens did: one more second for the plugins to settle.
        std::thread::sleep(Duration::from_secs(1));
    }

    /// Sends `signal` to the daemon's PID and waits for it to exit.
    fn signal(&mut self, signal: &str) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("daemon running");
        let pid = child.id().to_string();
        Command::new("kill").args([signal, &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                Command::new("kill").args(["-KILL", &pid]).status().unwrap();
                return child.wait().unwrap();
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn restart(&mut self) {
        self.signal("-TERM");
        self.start();
    }

    /// The check, and the model on the same real inputs; they must agree.
    fn check(&self, label: &str) -> Run {
        let (addr, config) = (self.address(), self.config());
        // The script finds this build's `containerd` and `ctr` first on PATH.
        let bin_dir = self.bin.containerd.parent().unwrap().to_path_buf();
        let mut run = run_script(&["--address", addr.to_str().unwrap(), "--config", config.to_str().unwrap()], Some(&bin_dir), &[("GPULAB", GPULAB)]);
        let mut inputs = self.inputs();
        // 2.x's ctr logs a warning with the wall clock (`time="…Z" level=warning msg=
        // "Failed to check deprecations"`) when the daemon is gone: the script's ctr and
        // this one run a second apart, so the clock is the one part of a detail that
        // differs between the two runs of the same command. It is blanked in both.
        run.json = serde_json::from_str(&untimed(&run.json.to_string())).unwrap();
        if let Daemon::NotRunning { detail } | Daemon::PermissionDenied { detail } | Daemon::NotContainerd { detail } = &mut inputs.daemon {
            *detail = untimed(detail);
        }
        let label = format!("containerd {}: {label}", self.bin.reported);
        assert_parity(&label, &run, &cr::evaluate(&inputs), &inputs, Lang::En);
        run
    }

    /// What the script looks at, gathered here with the same commands.
    fn inputs(&self) -> CheckInputs {
        let addr = self.address();
        let ctr = |args: &[&str]| Command::new(&self.bin.ctr).arg("--address").arg(&addr).args(args).output().unwrap();
        let daemon = if !addr.exists() {
            Daemon::NotRunning { detail: format!("no socket at {}", addr.display()) }
        } else {
            let out = ctr(&["--connect-timeout", "3s", "plugins", "ls"]);
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            if out.status.success() {
                let reason = |t: &str, id: &str| {
                    let d = ctr(&["plugins", "ls", "-d", &format!("type=={t},id=={id}")]);
                    let text = String::from_utf8_lossy(&d.stdout).into_owned();
                    text.lines().find_map(|l| l.trim_start().strip_prefix("Message:").map(|m| m.trim_start().to_string())).unwrap_or_default()
                };
                Daemon::Running { plugins: plugin_rows(&String::from_utf8_lossy(&out.stdout), reason) }
            } else if err.contains("permission denied") {
                Daemon::PermissionDenied { detail: err }
            } else if err.contains("connection refused") || err.contains("no such file") {
                Daemon::NotRunning { detail: err }
            } else {
                Daemon::NotContainerd { detail: err }
            }
        };
        let info = Command::new(GPULAB).args(["cri", "info", "--address"]).arg(&addr).output().unwrap();
        let loaded = if info.status.success() {
            loaded_from_info(&String::from_utf8_lossy(&info.stdout))
        } else {
            Loaded::Unavailable { detail: String::from_utf8_lossy(&info.stderr).into_owned() }
        };
        let dump = Command::new(&self.bin.containerd).arg("--config").arg(self.config()).args(["config", "dump"]).output().unwrap();
        let dump = if dump.status.success() {
            Dump::Text(String::from_utf8_lossy(&dump.stdout).into_owned())
        } else {
            Dump::Failed { detail: String::from_utf8_lossy(&dump.stderr).into_owned() }
        };
        CheckInputs {
            address: addr.display().to_string(),
            config: self.config().display().to_string(),
            handler: "nvidia".into(),
            keep: "runc".into(),
            daemon,
            cri_source: format!("{GPULAB} cri info"),
            existing_binaries: existing_binaries(&loaded, &format!("{}:{}", self.bin.containerd.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default())),
            loaded,
            dump,
            main_config: std::fs::read_to_string(self.config()).ok(),
        }
    }
}

impl Drop for Containerd {
    fn drop(&mut self) {
        if self.child.is_some() {
            self.signal("-TERM");
        }
    }
}

/// `text` with the value of every `time=` log field (logrus's wall clock, quoted or,
/// inside JSON, with escaped quotes) replaced by `…`.
fn untimed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("time=") {
        let (head, tail) = rest.split_at(i + "time=".len());
        out.push_str(head);
        // The value runs to its closing quote: `"…"` or, escaped in JSON, `\"…\"`.
        let quote = if tail.starts_with("\\\"") { "\\\"" } else if tail.starts_with('"') { "\"" } else { "" };
        if quote.is_empty() {
            rest = tail;
            continue;
        }
        let body = &tail[quote.len()..];
        match body.find(quote) {
            Some(end) => {
                out.push_str(quote);
                out.push('…');
                out.push_str(quote);
                rest = &body[end + quote.len()..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn untimed_blanks_the_log_clock() {
    assert_eq!(untimed(r#"time="2026-12-03T14:25:39Z" level=warning msg="x""#), r#"time="…" level=warning msg="x""#);
    assert_eq!(untimed(r#"{"d":"time=\"2026-12-03T14:25:39Z\" level=warning"}"#), r#"{"d":"time=\"…\" level=warning"}"#);
    assert_eq!(untimed("no clock here"), "no clock here");
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn finding<'a>(run: &'a Run, code: &str) -> &'a serde_json::Value {
    run.json["findings"].as_array().unwrap().iter().find(|f| f["code"] == code).unwrap_or_else(|| panic!("no {code} in {}", run.json))
}

/// A node's private directory: a stand-in `nvidia-container-runtime`, an empty `conf.d`,
/// and a good main config (runc with SystemdCgroup, and the nvidia handler) that imports
/// `conf.d/*.toml`. Returns the directory, `conf.d` and the main config's text.
fn good_node(tmp: &TempDir) -> (PathBuf, PathBuf, String) {
    let dir = tmp.0.clone();
    let runtime = dir.join("bin/nvidia-container-runtime");
    write(&runtime, "#!/bin/sh\nexec runc \"$@\"\n");
    std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    let confd = dir.join("conf.d");
    std::fs::create_dir_all(&confd).unwrap();
    let main = format!(
        r#"version = 2
imports = ["{confd}/*.toml"]

[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = "{opt}"
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.9"
    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "{rt}"
            SystemdCgroup = true
"#,
        confd = confd.display(),
        opt = dir.join("opt").display(),
        rt = runtime.display()
    );
    (dir, confd, main)
}

/// The seed's proof, run on a real containerd: before and after restart, then SIGHUP.
#[test]
fn real_daemon_before_and_after_restart_then_sighup() {
    let tmp = TempDir::new("containerd");
    let (dir, confd, main) = good_node(&tmp);
    let runtime = dir.join("bin/nvidia-container-runtime");
    let bin = oracle::installed().unwrap_or_else(|e| panic!("{e} (./dev.sh setup installs Debian's containerd)"));
    let mut d = Containerd { bin, dir: dir.clone(), child: None };
    write(&d.config(), &main);
    d.start();

    // 1. Started on the good config: pass.
    let run = d.check("1 good config");
    assert_eq!((run.exit, codes(&run.json)), (0, ["1:daemon-answers", "2:cri-plugins-ok", "3:loaded-handler-ok", "4:files-ok", "5:loaded-matches-files"].map(String::from).to_vec()));

    // 2. The toolkit's runtimes-only drop-in (the incident), written without a restart.
    let incident = std::fs::read_to_string(goldens().join("nvidia-ctk-v2-dropin-runtimes-only/input/conf.d/99-nvidia.toml")).unwrap();
    write(&confd.join("99-nvidia.toml"), &incident);
    let run = d.check("2 incident drop-in, no restart");
    assert_eq!(run.exit, 2, "{}", run.json);
    assert!(finding(&run, "restart-needed")["message"].as_str().unwrap().contains("files changed since containerd started: restart needed"));
    assert_eq!(finding(&run, "dump-keep-lost")["args"]["lost"], "runtime_type=io.containerd.runc.v2 SystemdCgroup=true");
    assert_eq!(finding(&run, "loaded-handler-ok")["args"]["binary"], runtime.display().to_string(), "still the old, loaded config");

    // 3. Restart: the CRI plugin fails to load, with containerd's own reason.
    d.restart();
    let run = d.check("3 incident after restart");
    assert_eq!(run.exit, 1, "{}", run.json);
    let f2 = finding(&run, "cri-plugin-error");
    assert_eq!(f2["args"]["plugins"], "io.containerd.grpc.v1.cri=error");
    assert_eq!(
        f2["args"]["reason"],
        "invalid plugin config: no corresponding runtime configured in `containerd.runtimes` for `containerd` `default_runtime_name = \"runc\""
    );
    assert!(finding(&run, "loaded-unavailable")["args"]["detail"].as_str().unwrap().contains("Unimplemented"));
    assert!(finding(&run, "dump-default-undefined")["message"].as_str().unwrap().contains("will fail on the next start"));

    // 4. The safe drop-in (full CRI table): files fixed, daemon still failed → restart needed.
    let safe = main.split_once("[plugins]").unwrap().1.replace("imports", "# imports");
    write(&confd.join("99-nvidia.toml"), &format!("version = 2\n\n[plugins]{safe}"));
    let run = d.check("4 safe drop-in, no restart");
    assert_eq!(run.exit, 2, "{}", run.json);
    assert!(finding(&run, "restart-needed")["args"]["differences"].as_str().unwrap().starts_with("loaded CRI failed:"));

    // 5. Restart: pass.
    d.restart();
    let run = d.check("5 safe drop-in after restart");
    assert_eq!(run.exit, 0, "{}", run.json);
    assert_eq!(run.json["verdict"], "pass");

    // 6. SIGHUP terminates containerd (no reload); the check says it is not running.
    let status = d.signal("-HUP");
    assert_eq!(status.signal(), Some(1), "containerd must die by SIGHUP: {status}");
    let run = d.check("6 after SIGHUP");
    assert_eq!(run.exit, 3, "{}", run.json);
    let f1 = finding(&run, "daemon-not-running");
    assert!(f1["message"].as_str().unwrap().contains("SIGHUP does not reload containerd"), "{f1}");
    assert_eq!(run.json["verdict"], "not-reachable");
}

/// The incident's turn on every real version there is: a good config passes; the
/// toolkit's runtimes-only drop-in written without a restart is "restart needed"; after
/// the restart 1.x has lost its CRI plugin (the drop-in's table replaced the main
/// config's) while 2.x merged the runtimes per key and kept runc; SIGHUP ends the daemon
/// on every line. At every turn the script's verdict equals the model's on the same
/// real inputs.
#[test]
fn every_version_judged_by_what_it_loaded() {
    let (oracles, unusable) = oracle::available();
    assert!(unusable.is_empty(), "cached builds the model cannot use: {unusable:?}");
    let lines: Vec<String> = oracles.iter().map(|o| o.version.to_string()).collect();
    eprintln!("check-runtime.sh against real daemons of: {}", lines.join(", "));
    assert!(oracles.len() >= 2, "only {lines:?}: ./dev.sh setup builds every version line (scripts/oracle-containerd.sh)");
    let incident = std::fs::read_to_string(goldens().join("nvidia-ctk-v2-dropin-runtimes-only/input/conf.d/99-nvidia.toml")).unwrap();
    for bin in oracles {
        let tmp = TempDir::new("containerd-v");
        let (dir, confd, main) = good_node(&tmp);
        let v = bin.version.clone();
        let mut d = Containerd { bin, dir: dir.clone(), child: None };
        write(&d.config(), &main);
        d.start();

        let run = d.check("good config");
        assert_eq!(run.exit, 0, "{v}: {}", run.json);

        write(&confd.join("99-nvidia.toml"), &incident);
        let run = d.check("incident drop-in, no restart");
        assert_eq!(run.exit, 2, "{v}: {}", run.json);
        finding(&run, "restart-needed");

        d.restart();
        let run = d.check("incident drop-in after restart");
        if v.is_1x() {
            assert_eq!(run.exit, 1, "{v}: {}", run.json);
            assert_eq!(finding(&run, "cri-plugin-error")["args"]["plugins"], "io.containerd.grpc.v1.cri=error", "{v}");
        } else {
            finding(&run, "cri-plugins-ok");
            assert!(!codes(&run.json).iter().any(|c| c.ends_with(":dump-keep-lost")), "{v}: 2.x merges the runtimes per key and keeps runc: {}", run.json);
        }

        let status = d.signal("-HUP");
        assert_eq!(status.signal(), Some(1), "{v}: containerd must die by SIGHUP: {status}");
        let run = d.check("after SIGHUP");
        assert_eq!(run.exit, 3, "{v}: {}", run.json);
        finding(&run, "daemon-not-running");
    }
}

/// A unix socket that is not containerd (it closes every connection) is exit 3 with a
/// clear message from the real `ctr`, and `gpulab cri info` fails on it too — never a pass.
#[test]
fn socket_that_is_not_containerd() {
    let tmp = TempDir::new("notctrd");
    let sock = tmp.0.join("f.sock");
    let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    listener.set_nonblocking(true).unwrap();
    let server = std::thread::spawn(move || {
        while !stop2.load(std::sync::atomic::Ordering::SeqCst) {
            if let Ok((mut s, _)) = listener.accept() {
                use std::io::Write;
                let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let run = run_script(&["--address", sock.to_str().unwrap(), "--config", "/nonexistent/config.toml"], None, &[("GPULAB", GPULAB)]);
    let info = Command::new(GPULAB).args(["cri", "info", "--timeout", "3", "--address"]).arg(&sock).output().unwrap();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    server.join().unwrap();
    assert_eq!(run.exit, 3, "{}", run.json);
    assert_eq!(codes(&run.json)[0], "1:daemon-not-containerd");
    assert_eq!(info.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&info.stderr).contains("not a gRPC answer"), "{}", String::from_utf8_lossy(&info.stderr));
}
