//! `gpulab rollout` and `gpulab report` end to end (issue 6): the seed incident stalls
//! (exit 1) with the verbatim `rollout status` line and a diagnosis naming the node;
//! fixing the drop-in and restarting containerd lets it finish (exit 0); manifests work
//! like the built-in; `gpulab report` reports on the seed or on a scenario directory.

use std::process::Command;

use gpulab_model::incident::seed::{CLUSTER_YAML, DEVICE_PLUGIN_V1_YAML, DEVICE_PLUGIN_V2_YAML};

fn gpulab(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

const FIRST: &str = "Waiting for daemon set \"nvidia-device-plugin-daemonset\" rollout to finish: 1 out of 3 new pods have been updated...\n";
const DONE: &str = "daemon set \"nvidia-device-plugin-daemonset\" successfully rolled out\n";

/// Broken node first: stall, exit 1, the diagnosis names gpu-node-2 and the missing handler.
#[test]
fn seed_stalls_and_exits_one() {
    let (code, out) = gpulab(&["rollout", "device-plugin-stall", "--order", "gpu-node-2"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("containerd.service on gpu-node-2 was not restarted"), "{out}");
    // The root, last: the containerd model's verdict on a restart with these files.
    assert!(out.ends_with_line_containing("A restart with the files as they are would not fix it: containerd 1.6.20's CRI plugin would fail"), "{out}");
    assert!(out.contains(FIRST) && out.contains("held by node gpu-node-2") && out.contains("no runtime handler \"nvidia\""), "{out}");
}

/// `--restart-after-stall` fixes the node and the rollout finishes: exit 0.
#[test]
fn restart_after_stall_finishes() {
    let (code, out) = gpulab(&["rollout", "device-plugin-stall", "--order", "gpu-node-2", "--restart-after-stall"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(DONE), "{out}");
}

/// The same incident from YAML manifests and `--broken-node`, with JSON output.
#[test]
fn manifests_and_json() {
    let dir = std::env::temp_dir().join(format!("gpulab-rollout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<String> = [("cluster.yaml", CLUSTER_YAML), ("v1.yaml", DEVICE_PLUGIN_V1_YAML), ("v2.yaml", DEVICE_PLUGIN_V2_YAML)]
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            std::fs::write(&p, text).unwrap();
            p.display().to_string()
        })
        .collect();
    let mut args = vec!["rollout", "--output", "json", "--broken-node", "gpu-node-2=1.7.27", "--order", "gpu-node-2"];
    args.extend(files.iter().map(String::as_str));
    let (code, out) = gpulab(&args);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(code, 1, "{out}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["diagnosis"]["verdict"], "stalled");
    assert_eq!(json["diagnosis"]["stalledNodes"][0]["node"], "gpu-node-2");
    // containerd 1.7 words the sandbox error differently (spec §3.3).
    assert!(out.contains("failed to get sandbox runtime: no runtime for \\\"nvidia\\\" is configured"), "{out}");
}

/// Bad input exits 2 with a message, not a panic.
#[test]
fn bad_input_exits_two() {
    assert_eq!(gpulab(&["rollout", "no-such-file.yaml"]).0, 2);
    assert_eq!(gpulab(&["rollout", "device-plugin-stall", "--order", "seed:x"]).0, 2);
}

/// A manifest the rollout cannot take is refused (exit 2) with each finding at its
/// file:line:col: the Kubernetes loader's (a YAML syntax error in kubectl's words, as
/// positional file and `-f` alike) and the rollout's own (a kind it does not model in a
/// positional file; `-f`'s cluster may hold Pods, which are not the rollout's).
#[test]
fn manifest_findings_at_file_line() {
    let dir = std::env::temp_dir().join(format!("gpulab-rollout-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pod = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n";
    let cases = [
        ("pod.yaml", pod, false, "pod.yaml:5:1: error[rollout-kind-unmodelled]: kind \"Pod\" is not part of the rollout model (Node, DaemonSet, RuntimeClass)\n"),
        ("syntax.yaml", "kind: Node\nmetadata: {name: [\n", true, "syntax.yaml:3:1: error[k8s-yaml-invalid]: error parsing syntax.yaml: error converting YAML to JSON: yaml: line 2: did not find expected node content\n"),
    ];
    for (name, text, with_f, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let path = path.display().to_string();
        let mut runs = vec![vec!["rollout", path.as_str()]];
        if with_f {
            runs.push(vec!["rollout", "-f", path.as_str(), path.as_str()]);
        }
        for args in runs {
            let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(&args).current_dir(&dir).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).replace(&format!("{}/", dir.display()), "");
            assert_eq!((out.status.code(), stderr.as_str()), (Some(2), format!("gpulab rollout: {want}").as_str()), "{args:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `gpulab report --lang ko` writes the Korean Markdown report.
#[test]
fn report_ko() {
    let (code, out) = gpulab(&["report", "device-plugin-stall", "--lang", "ko", "--order", "gpu-node-2", "--restart-after-stall"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# 장애 보고서: DaemonSet nvidia-device-plugin-daemonset 롤아웃 정지\n"), "{out}");
    assert!(out.contains("## 멈춘 노드: gpu-node-2"), "{out}");
}

/// `gpulab report scenarios/incident`: the report of the scenario's own run — the
/// checks of its steps by name, the merge with file:line, the scheduler's verdicts
/// verbatim, the fix the scenario applied — in English and, as JSON, the same data.
#[test]
fn report_of_a_scenario_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/incident");
    let (code, md) = gpulab(&["report", dir, "--lang", "en"]);
    assert_eq!(code, 0, "{md}");
    for needle in [
        "## Stalled node: gpu-node-2",
        "| gpu-node-2 | 3. the check before restart: what runs is not what the files say | restart-needed (2) |",
        "| gpu-node-2 | 14. restarted: gpu-node-2 serves runc and nvidia; the check passes | pass (0) | - |",
        "| `plugins.\"io.containerd.grpc.v1.cri\".containerd.default_runtime_name` | `\"runc\"` | `/etc/containerd/config.toml:10` | `/etc/containerd/conf.d/99-nvidia.toml:7` |",
        "0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 2 Insufficient nvidia.com/gpu.",
        "Fix applied on gpu-node-2: `/etc/containerd/conf.d/99-nvidia.toml` rewritten",
        "`daemon set \"nvidia-device-plugin-daemonset\" successfully rolled out`",
        // Step 16's plugin-config, through the slot model.
        "| gpu-node-2 | NVIDIA A100-SXM4-40GB | 4 | 4 | 16 | 0 |",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    let (code, json) = gpulab(&["report", dir, "--output", "json", "--lang", "ko"]);
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["lang"], "ko");
    assert_eq!(json["resolved"], true);
    assert_eq!(json["artifacts"]["fix"][0]["filesWritten"][0], "/etc/containerd/conf.d/99-nvidia.toml");
    assert_eq!(json["artifacts"]["scheduler"][0]["pod"], "cuda-vectoradd");
}

/// A scenario without a DaemonSet has no rollout to report on: exit 2 with the reason.
#[test]
fn report_of_a_scenario_without_daemonset_exits_two() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/dropin-containerd-1.7");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulab")).args(["report", dir]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no DaemonSet"), "{out:?}");
}

trait LastLine {
    fn ends_with_line_containing(&self, needle: &str) -> bool;
}

impl LastLine for String {
    fn ends_with_line_containing(&self, needle: &str) -> bool {
        self.lines().last().is_some_and(|l| l.contains(needle))
    }
}

/// `gpulab report --work progress.json` prints, byte for byte, the report the lab's
/// step 8 shows for the same file: the chunk's exported `rollout` (the function the
/// page calls) given the progress file the app exports (`tests/progress/`, held equal
/// to the app's export by `steps::rollout::tests::page_and_companion_give_the_same_report`),
/// in Korean and English, for the node fixed and not; `--output json` is the same
/// report as data. A file that is not a progress file exits 2 naming it.
#[test]
fn report_of_the_learners_work_is_the_pages() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/progress");
    for (name, ending, says) in [
        ("unfixed", "stalled", "the rollout stalls on gpu-node-2"),
        ("fixed", "completed", "the rollout completes after"),
    ] {
        let path = format!("{dir}/{name}.json");
        let text = std::fs::read_to_string(&path).unwrap();
        for lang in ["ko", "en"] {
            let (code, md) = gpulab(&["report", "--work", &path, "--lang", lang]);
            assert_eq!(code, 0, "{name} {lang}: {md}");
            let request = serde_json::json!({ "lang": lang, "work": text, "broken": false }).to_string();
            let reply: serde_json::Value = serde_json::from_str(&gpu_node_lab_k8s::rollout(&request)).unwrap();
            let view = &reply["Ok"];
            assert_eq!(view["ending"], ending, "{name}: {reply}");
            assert_eq!(view["report_md"].as_str().unwrap(), md, "{name} {lang}: page and companion differ");
            if lang == "en" {
                assert!(md.contains(says), "{name}: {md}");
            }
        }
        let (code, json) = gpulab(&["report", "--work", &path, "--output", "json"]);
        assert_eq!(code, 0);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["ending"], ending);
        assert_eq!(v["node"], "gpu-node-2");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulab")).args(["report", "--work", "Cargo.toml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("gpulab report: Cargo.toml: not a progress file"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Step 8 with the lab's default work (its node's drop-in written, containerd not
/// restarted) shows the pods and `rollout status` that `gpulab rollout
/// device-plugin-stall --syncs N` prints for the seed, as the e2e step-8 test reads
/// them from the page.
#[test]
fn default_work_steps_as_the_seed() {
    for syncs in [3u32, 6, 12] {
        let (_, cli) = gpulab(&["rollout", "device-plugin-stall", "--syncs", &syncs.to_string()]);
        let pods = cli.split("$ kubectl get pods -o wide -l <selector>\n").nth(1).unwrap().split("\nDiagnosis").next().unwrap();
        let work = serde_json::json!({ "format": "gpu-node-lab/progress", "version": 1, "work": { "rollout": { "syncs": syncs } } }).to_string();
        let request = serde_json::json!({ "lang": "en", "work": work }).to_string();
        let reply: serde_json::Value = serde_json::from_str(&gpu_node_lab_k8s::rollout(&request)).unwrap();
        let tables = reply["Ok"]["tables"].as_array().unwrap();
        let table = tables.iter().find(|t| t["id"] == gpu_node_lab_k8s::cells::PODS).unwrap();
        // The page's cells, each with its padding, are kubectl's text.
        let text: String = table["cells"].as_array().unwrap().iter().map(|c| format!("{}{}", c["text"].as_str().unwrap(), c["pad"].as_str().unwrap())).collect();
        assert_eq!(text, pods, "after {syncs} syncs");
    }
}

/// Step 6 as the learner lived it: the pod stayed Pending, they advertised one GPU on
/// their node (gpu-node-2, the node of steps 1–4 and of step 8), and it was scheduled
/// there. The report keeps both verdicts, each with its stage — not "no pod was left
/// Pending" — and the page's report is the companion's.
#[test]
fn report_keeps_step_6_verdicts_before_and_after_the_patch() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/progress");
    let mut progress: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/fixed.json")).unwrap()).unwrap();
    progress["work"]["kube"]["patches"] = serde_json::json!([{ "node": "gpu-node-2", "resource": "nvidia.com/gpu", "quantity": "1" }]);
    let tmp = std::env::temp_dir().join(format!("gpulab-step6-{}.json", std::process::id()));
    std::fs::write(&tmp, progress.to_string()).unwrap();
    let path = tmp.to_str().unwrap();
    let (code, json) = gpulab(&["report", "--work", path, "--output", "json"]);
    let (_, md) = gpulab(&["report", "--work", path, "--lang", "en"]);
    std::fs::remove_file(&tmp).unwrap();
    assert_eq!(code, 0, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let verdicts: Vec<(&str, &str, &str)> = v["incident"]["artifacts"]["scheduler"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["stage"].as_str().unwrap_or("-"), s["reason"].as_str().unwrap(), s["message"].as_str().unwrap()))
        .collect();
    assert_eq!(verdicts.len(), 2, "{verdicts:?}");
    assert_eq!(verdicts[0].0, "before-patches");
    assert_eq!(verdicts[0].1, "FailedScheduling");
    assert!(verdicts[0].2.starts_with("0/2 nodes are available: 2 Insufficient nvidia.com/gpu."), "{}", verdicts[0].2);
    assert_eq!(verdicts[1], ("after-patches", "Scheduled", "Successfully assigned default/cuda-vectoradd to gpu-node-2"));
    assert!(md.contains("- `cuda-vectoradd` — before the node status patches of step 6: FailedScheduling (default-scheduler)"), "{md}");
    assert!(!md.contains("no pod of this run was left Pending"), "{md}");
    let request = serde_json::json!({ "lang": "en", "work": progress.to_string(), "broken": false }).to_string();
    let reply: serde_json::Value = serde_json::from_str(&gpu_node_lab_k8s::rollout(&request)).unwrap();
    assert_eq!(reply["Ok"]["report_md"].as_str().unwrap(), md, "page and companion differ");
}
