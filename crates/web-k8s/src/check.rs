//! Steps 3 and 4: check-runtime.sh on the simulated node. The node's daemon is
//! replayed from the learner's operations (`check_runtime::simulated::replay`, the
//! same replay the app shows step 4's daemon from) and the check's rules run on what
//! the script would gather there (`evaluate`, `render_text`) — the rules and texts of
//! the real script. In the chunk because the first load has no room for them; the
//! app shows a loading state until it is here.

use gpulab_model::check_runtime::simulated::{self, NodeCheck};
use gpulab_model::check_runtime::{self, check_name, looked_at, render_text, verdict_text, CheckReport};
use gpulab_model::containerd::{Daemon, Supervisor, MAIN_CONFIG};
use gpulab_view::{CheckRequest, CheckRun, CheckView};

use crate::node::{files, new_daemon, op, version, DROPIN};

/// The check's results for the request.
pub fn view(req: &CheckRequest) -> Result<CheckView, String> {
    let ops = req.ops.iter().map(|o| op(o)).collect::<Result<Vec<_>, _>>()?;
    let supervisor = if req.by_hand { Supervisor::ByHand } else { Supervisor::systemd() };
    let daemon = new_daemon(version(&req.containerd)?, supervisor, files(&req.containerd, false));
    let nc = NodeCheck { handler: req.handler.clone(), keep: req.keep.clone(), ..NodeCheck::default() };
    let evaluate = |d: &Daemon| check_runtime::evaluate(&simulated::inputs(d, &nc));
    let (daemon, runs) = simulated::replay(daemon, DROPIN, &req.containerd.dropin, &ops, evaluate);
    let lang = crate::slots::model_lang(&req.lang);
    let run = |at: u64, report: &CheckReport| CheckRun {
        at,
        exit_code: report.verdict.exit_code().into(),
        verdict: report.verdict.as_str().to_string(),
        verdict_text: verdict_text(report.verdict, &nc.handler, lang),
        output: render_text(report, &nc.address, &nc.config, &nc.handler, lang),
    };
    Ok(CheckView {
        now: run(daemon.now(), &evaluate(&daemon)),
        runs: runs.iter().map(|(at, r)| run(*at, r)).collect(),
        looked_at: (1u8..=5).map(|c| (check_name(c).to_string(), looked_at(c, &nc.address, MAIN_CONFIG))).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulab_view::ContainerdFiles;

    fn request(version: &str, ops: &[&str]) -> CheckRequest {
        CheckRequest {
            containerd: ContainerdFiles {
                version: version.into(),
                main: include_str!("../../../src/steps/data/incident-main.toml").into(),
                dropin: include_str!("../../../src/steps/data/incident-99-nvidia.toml").into(),
            },
            by_hand: false,
            ops: ops.iter().map(|o| o.to_string()).collect(),
            handler: "nvidia".into(),
            keep: "runc".into(),
            lang: "en".into(),
        }
    }

    /// The incident on 1.7: the drop-in written but not loaded fails the check
    /// (restart needed); SIGHUP does not reload, it stops containerd (not reachable);
    /// the restart loads the drop-in, which replaced the runtimes table, and the CRI
    /// plugin fails. With the full-table drop-in the restart passes.
    #[test]
    fn checks_before_and_after_restart() {
        let ops = ["write-dropin", "run-check", "sighup", "run-check", "restart", "wait", "run-check"];
        let v = view(&request("1.7.34", &ops)).unwrap();
        let verdicts: Vec<&str> = v.runs.iter().map(|r| r.verdict.as_str()).collect();
        assert_eq!(verdicts, ["restart-needed", "not-reachable", "check-failed"], "{:#?}", v.runs);
        assert!(v.runs[2].output.contains("[FAIL] 2 cri-plugins"), "{}", v.runs[2].output);
        assert_eq!(v.now.verdict, "check-failed");
        assert!(v.runs.windows(2).all(|w| w[0].at <= w[1].at));
        assert_eq!(v.looked_at.len(), 5);
        for r in &v.runs {
            assert_eq!(r.exit_code == 0, r.verdict == "pass");
            assert!(!r.verdict_text.is_empty() && r.output.starts_with("[ok] 1 daemon") == (r.verdict != "not-reachable"), "{}", r.output);
        }
        let mut fixed = request("1.7.34", &ops);
        fixed.containerd.dropin = gpulab_model::incident::seed::NVIDIA_DROPIN_FULL_TABLE.into();
        let v = view(&fixed).unwrap();
        assert_eq!(v.runs.last().map(|r| r.verdict.as_str()), Some("pass"), "{:#?}", v.runs);
    }

    /// An unknown operation is an error reply, not a panic.
    #[test]
    fn unknown_operation() {
        assert_eq!(view(&request("1.7.34", &["reboot"])), Err("unknown operation \"reboot\"".to_string()));
    }
}
