//! The check on the simulated node (issue 4, "the same rules in the browser"): the
//! seed's sequence that `crates/cli/tests/check_runtime_daemon.rs` runs on a real
//! containerd — good config, drop-in written without restart, restart, full-table
//! drop-in, SIGHUP — run on the containerd model, with the same verdicts.

#[path = "../../../tests/shared_dir.rs"]
mod shared_dir;


use gpulab_model::check_runtime::{evaluate, simulated, Verdict};
use gpulab_model::containerd::{Daemon, Files, Signal, Supervisor, Version};

fn golden_input(case: &str, file: &str) -> String {
    let path = shared_dir::goldens("containerd").join(case).join("input").join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn codes(daemon: &Daemon) -> (Verdict, Vec<String>) {
    let report = evaluate(&simulated::inputs(daemon, &simulated::NodeCheck::default()));
    (report.verdict, report.findings.iter().map(|f| format!("{}:{}", f.check, f.code)).collect())
}

/// Before and after restart, then SIGHUP, on every 1.x line (where the drop-in
/// replaces the CRI table whole): the verdicts the script gives on a real daemon.
#[test]
fn seed_sequence_on_the_simulated_node() {
    // The good node: main config + a drop-in that carries the whole CRI table.
    let main = golden_input("nvidia-ctk-v2-dropin-copied-cri", "main.toml");
    let full = golden_input("nvidia-ctk-v2-dropin-copied-cri", "conf.d/99-nvidia.toml");
    let runtimes_only = golden_input("nvidia-ctk-v2-dropin-runtimes-only", "conf.d/99-nvidia.toml");
    for version in ["1.6.20", "1.6.39", "1.7.34"] {
        let files = Files::new().with("/etc/containerd/config.toml", main.as_str()).with("/etc/containerd/conf.d/99-nvidia.toml", full.as_str());
        let mut daemon = Daemon::new(Version::parse(version).unwrap(), Supervisor::ByHand, files);
        daemon.start();
        let (verdict, found) = codes(&daemon);
        assert_eq!(verdict, Verdict::Pass, "{version} good start: {found:?}");

        // The runtimes-only drop-in, written while containerd runs: the loaded config
        // is still the good one, the files are not.
        daemon.write_file("/etc/containerd/conf.d/99-nvidia.toml", runtimes_only.as_str());
        let (verdict, found) = codes(&daemon);
        assert_eq!(verdict, Verdict::RestartNeeded, "{version} after the edit: {found:?}");
        assert!(found.iter().any(|c| c.starts_with("4:")  && !c.ends_with("files-ok")), "{version}: the merged files are judged: {found:?}");

        // Restart: the CRI plugin fails to load with containerd's own reason.
        daemon.restart();
        let report = evaluate(&simulated::inputs(&daemon, &simulated::NodeCheck::default()));
        assert_eq!(report.verdict, Verdict::CheckFailed, "{version} after restart: {report:?}");
        let cri = report.findings.iter().find(|f| f.check == 2).unwrap();
        assert!(cri.arg("reason").starts_with("invalid plugin config: no corresponding runtime configured"), "{version}: {cri:?}");

        // Back to the full table, restart: pass again.
        daemon.write_file("/etc/containerd/conf.d/99-nvidia.toml", full.as_str());
        daemon.restart();
        assert_eq!(codes(&daemon).0, Verdict::Pass, "{version} fixed");

        // SIGHUP is not a reload: the daemon is gone and the check says so.
        daemon.signal(Signal::Hup);
        let (verdict, found) = codes(&daemon);
        assert_eq!(verdict, Verdict::NotReachable, "{version} after SIGHUP: {found:?}");
        assert_eq!(found.first().map(String::as_str), Some("1:daemon-not-running"));
    }
}

/// On 2.x a config-version-3 drop-in that adds the nvidia runtime merges deeply:
/// nothing of the main config is lost, and the check on the started daemon passes.
#[test]
fn runtimes_only_dropin_passes_on_2x_after_restart() {
    let main = golden_input("v3-main-v3-dropin", "main.toml");
    let dropin = std::fs::read_dir(shared_dir::goldens("containerd").join("v3-main-v3-dropin/input/conf.d"))
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap()))
        .next()
        .unwrap();
    let files = Files::new().with("/etc/containerd/config.toml", main.as_str()).with(&format!("/etc/containerd/conf.d/{}", dropin.0), dropin.1.as_str());
    let mut daemon = Daemon::new(Version::parse("2.1.9").unwrap(), Supervisor::systemd(), files);
    daemon.start();
    let report = evaluate(&simulated::inputs(&daemon, &simulated::NodeCheck::default()));
    let found: Vec<String> = report.findings.iter().map(|f| format!("{}:{}", f.check, f.code)).collect();
    assert_eq!(report.verdict, Verdict::Pass, "{found:?}");
    assert_eq!(found.first().map(String::as_str), Some("1:daemon-answers"));
}
