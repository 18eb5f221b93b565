//! Issue 5: `gpulab schedule` end to end — the verdict and exit code (0 scheduled,
//! 1 Pending or refused, 2 bad input with file:line), the FailedScheduling text of
//! spec §1.5 byte-exact, and `--output json`.

use std::path::PathBuf;
use std::process::{Command, Output};

const CLUSTER: &str = "\
apiVersion: v1
kind: Node
metadata: {name: cpu-1}
status:
  allocatable: {cpu: '8', memory: 32Gi, pods: '110'}
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1}
status:
  allocatable: {cpu: '8', memory: 32Gi, pods: '110', nvidia.com/gpu: '1'}
";

const GPU_POD: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: cuda}
spec:
  containers:
  - name: cuda
    image: nvidia/cuda
    resources:
      limits: {nvidia.com/gpu: 1}
";

/// Writes the files into a fresh directory under the target dir and runs the command.
fn run(name: &str, files: &[(&str, &str)], args: &[&str]) -> Output {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    Command::new(env!("CARGO_BIN_EXE_gpulab")).current_dir(&dir).args(args).output().unwrap()
}

/// A free GPU node: scheduled, exit 0, the Scheduled event.
#[test]
fn schedules_gpu_pod() {
    let out = run(
        "sched-ok",
        &[("c.yaml", CLUSTER), ("p.yaml", GPU_POD)],
        &["schedule", "--nodes", "c.yaml", "--pod", "p.yaml"],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.starts_with("default/cuda: Scheduled to gpu-1\n"), "{stdout}");
    assert!(stdout.contains("Successfully assigned default/cuda to gpu-1"), "{stdout}");
}

/// The GPU taken by a pod of equal priority: Pending, exit 1, spec §1.5's 1.33 text.
#[test]
fn pending_gpu_pod_prints_failed_scheduling() {
    let cluster = format!(
        "{CLUSTER}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: holder}}\nspec:\n  nodeName: gpu-1\n  containers:\n  - name: c\n    resources:\n      limits: {{nvidia.com/gpu: 1}}\n"
    );
    let args = ["schedule", "--nodes", "c.yaml", "--pod", "p.yaml", "--k8s-version", "1.33"];
    let out = run("sched-pending", &[("c.yaml", &cluster), ("p.yaml", GPU_POD)], &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("  Warning  FailedScheduling  0s    default-scheduler  0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.\n"), "{stdout}");

    let mut json_args = args.to_vec();
    json_args.extend(["--output", "json"]);
    let out = run("sched-pending-json", &[("c.yaml", &cluster), ("p.yaml", GPU_POD)], &json_args);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "Pending");
    assert_eq!(v["condition"]["reason"], "Unschedulable");
    assert_eq!(v["nodes"][0]["filters"][5][1], "Insufficient nvidia.com/gpu");
}

/// A bad quantity is bad input: exit 2 and file:line of the value.
#[test]
fn bad_quantity_is_bad_input_with_line() {
    let bad = GPU_POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: one");
    let out = run(
        "sched-bad",
        &[("c.yaml", CLUSTER), ("p.yaml", &bad)],
        &["schedule", "--nodes", "c.yaml", "--pod", "p.yaml"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("p.yaml:9:1: error[k8s-quantity-invalid]"), "{stderr}");
}

/// A missing RuntimeClass: the API server's Forbidden text as kubectl prints it, exit 1.
#[test]
fn missing_runtime_class_is_refused() {
    let pod = GPU_POD.replace("spec:\n", "spec:\n  runtimeClassName: nvidia\n");
    let out = run(
        "sched-rc",
        &[("c.yaml", CLUSTER), ("p.yaml", &pod)],
        &["schedule", "--nodes", "c.yaml", "--pod", "p.yaml"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Error from server (Forbidden): error when creating \"p.yaml\": pods \"cuda\" is forbidden: pod rejected: RuntimeClass \"nvidia\" not found\n"
    );
}

/// [`CLUSTER`] with a bound pod, as `kubectl get nodes,pods,secrets -A -o yaml`
/// prints it: one List, keys sorted, the server's fields and managedFields, and a
/// Secret among the items.
const DUMP_YAML: &str = r#"apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:status:
          f:allocatable: {}
      manager: kubelet
      operation: Update
      subresource: status
      time: "2026-09-01T00:00:00Z"
    name: cpu-1
    resourceVersion: "501"
    uid: 0e8a3f52-0000-4000-8000-000000000001
  status:
    allocatable:
      cpu: "8"
      memory: 32Gi
      pods: "110"
- apiVersion: v1
  kind: Node
  metadata:
    name: gpu-1
    resourceVersion: "502"
    uid: 0e8a3f52-0000-4000-8000-000000000002
  status:
    allocatable:
      cpu: "8"
      memory: 32Gi
      nvidia.com/gpu: "1"
      pods: "110"
- apiVersion: v1
  data:
    password: aHVudGVyMg==
  kind: Secret
  metadata:
    name: db-password
    namespace: default
  type: Opaque
- apiVersion: v1
  kind: Pod
  metadata:
    name: holder
    namespace: default
  spec:
    containers:
    - name: c
      resources:
        limits:
          nvidia.com/gpu: "1"
    nodeName: gpu-1
  status:
    phase: Running
kind: List
metadata:
  resourceVersion: ""
"#;

/// The same cluster as plain manifests.
fn plain_cluster() -> String {
    format!("{CLUSTER}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: holder}}\nspec:\n  nodeName: gpu-1\n  containers:\n  - name: c\n    resources:\n      limits: {{nvidia.com/gpu: 1}}\n")
}

/// Runs `gpulab ARGS` with `stdin` on its standard input.
fn run_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sched-stdin");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("p.yaml"), GPU_POD).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpulab"))
        .current_dir(&dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// `gpulab schedule -f -` reads a kubectl dump (YAML or JSON) from stdin like kubectl:
/// the same output as the plain manifests, the Secret's data and the managedFields
/// nowhere in it; a bad or cut-off dump is bad input at `<stdin>:LINE`.
#[test]
fn kubectl_dumps_from_stdin() {
    let plain = run("sched-plain", &[("c.yaml", &plain_cluster()), ("p.yaml", GPU_POD)], &["schedule", "-f", "c.yaml", "--pod", "p.yaml"]);
    assert_eq!(plain.status.code(), Some(1), "{}", String::from_utf8_lossy(&plain.stdout));
    let value: serde_json::Value = serde_norway::from_str(DUMP_YAML).unwrap();
    let json = serde_json::to_string_pretty(&value).unwrap();
    let line = |text: &str, needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
    let bad_yaml = DUMP_YAML.replace("nvidia.com/gpu: \"1\"\n      pods", "nvidia.com/gpu: one\n      pods");
    let bad_json = json.replace(r#""nodeName": "gpu-1""#, r#""nodeName": 1"#);
    // (case, stdin, exit code, the first line of stderr: empty when the output is the plain one's)
    let cases = [
        ("-o yaml", DUMP_YAML.to_string(), 1, String::new()),
        ("-o json", json.clone(), 1, String::new()),
        ("a bad quantity", bad_yaml.clone(), 2, format!("<stdin>:{}:1: error[k8s-quantity-invalid]", line(&bad_yaml, "gpu: one"))),
        // JSON's finding is at the object's first line (its `{`, above apiVersion and kind).
        ("a field of the wrong type", bad_json.clone(), 2, format!("<stdin>:{}:1: error[k8s-object-invalid]", line(&bad_json, r#""kind": "Pod""#) - 2)),
        ("cut off", json[..json.find(r#""kind": "Pod""#).unwrap()].to_string(), 2, "<stdin>:".to_string()),
    ];
    for (name, stdin, code, stderr_starts) in cases {
        let out = run_stdin(&["schedule", "-f", "-", "--pod", "p.yaml"], &stdin);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{name}: {stdout}{stderr}");
        if stderr_starts.is_empty() {
            assert_eq!((stdout.as_ref(), stderr.as_ref()), (String::from_utf8_lossy(&plain.stdout).as_ref(), ""), "{name}");
        } else {
            assert!(stderr.starts_with(&stderr_starts), "{name}: {stderr}");
        }
        for hidden in ["aHVudGVyMg==", "db-password", "FieldsV1"] {
            assert!(!stdout.contains(hidden) && !stderr.contains(hidden), "{name}: {hidden} shown");
        }
    }
}
