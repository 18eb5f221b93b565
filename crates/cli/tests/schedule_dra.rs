//! Issue 17: `gpulab schedule` with DRA objects — the FailedScheduling text, per
//! version, and the devices a claim gets for the files in `tests/dra/`; bad DRA input
//! refused at file:line with the API server's words (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dra(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dra").join(file).display().to_string()
}

fn gpulab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap()
}

/// The T4 cluster's two pods on each version: (pod file, version, exit, lines that
/// must be in the output).
#[test]
fn t4_cluster_per_version() {
    let impossible = |still: &str| {
        format!("0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node affinity/selector. {still}preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")
    };
    let cases: Vec<(&str, &str, i32, Vec<String>)> = vec![
        ("pod-t4-20gi.yaml", "1.34", 1, vec![impossible("still not schedulable, ")]),
        ("pod-t4-20gi.yaml", "1.35", 1, vec![impossible("still not schedulable, ")]),
        ("pod-t4-20gi.yaml", "1.36", 1, vec![impossible("still not schedulable, ")]),
        ("pod-t4-20gi.yaml", "1.37", 1, vec![impossible("")]),
        (
            "pod-t4.yaml",
            "1.37",
            0,
            vec!["default/pod-mem-ok: Scheduled to gpu-node".into(), "  gpu: gpu.nvidia.com gpu-node gpu-0".into()],
        ),
    ];
    for (pod, version, code, want) in cases {
        let out = gpulab(&["schedule", "--nodes", &dra("cluster-t4.yaml"), "--pod", &dra(pod), "--k8s-version", version]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{pod} {version}: {stdout}");
        for w in &want {
            assert!(stdout.contains(w.as_str()), "{pod} {version}: {w:?} not in\n{stdout}");
        }
        if code == 1 {
            assert!(stdout.contains("DynamicResources") && stdout.contains("cannot allocate all claims   -"), "{stdout}");
        }
    }
    let out = gpulab(&["schedule", "--nodes", &dra("cluster-t4.yaml"), "--pod", &dra("pod-t4.yaml"), "--k8s-version", "1.33"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is served from Kubernetes 1.34; not by 1.33"));
}

/// Bad DRA input: an error at the file's line with the API server's wording.
#[test]
fn bad_dra_input_at_file_and_line() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("schedule-dra-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        (
            "cel.yaml",
            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: broken}\nspec:\n  selectors:\n  - cel:\n      expression: \"device.driver ==\"\n",
            "cel.yaml:7:",
            "compilation failed",
        ),
        (
            "dup.yaml",
            "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: n\n  pool: {name: n, generation: 1, resourceSliceCount: 1}\n  devices:\n  - name: gpu-0\n  - name: gpu-0\n",
            "dup.yaml:",
            "Duplicate value: \"gpu-0\"",
        ),
    ];
    for (file, text, at, words) in cases {
        std::fs::write(dir.join(file), text).unwrap();
        let out = gpulab(&["schedule", "--nodes", &dir.join(file).display().to_string(), "--pod", &dra("pod-t4.yaml")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {stderr}");
        assert!(stderr.contains(at) && stderr.contains(words), "{file}: {stderr}");
    }
}

/// Step 6's three paths to a GPU for the same pod on the same cluster (the lab's
/// files, `src/steps/data/`): the device plugin's `nvidia.com/gpu`, a ResourceClaim,
/// and `nvidia.com/gpu` backed by a DeviceClass — per version, the exit status and
/// a line of what `gpulab schedule` prints (stdout, or stderr when it refuses).
#[test]
fn step_6_paths_per_version() {
    let data = |f: &str| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/steps/data").join(f).display().to_string();
    let no_gpu = "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
    let cases: [(&str, Option<&str>, &str, i32, &str); 9] = [
        ("pod.yaml", None, "1.36", 1, no_gpu),
        ("dra-pod.yaml", Some("dra.yaml"), "1.34", 0, "  gpu: gpu.nvidia.com gpu-node-2 gpu-0"),
        ("dra-pod.yaml", Some("dra.yaml"), "1.36", 0, "default/cuda-vectoradd: Scheduled to gpu-node-2"),
        ("dra-pod.yaml", Some("dra.yaml"), "1.37", 0, "cpu-node-1   passed              passed     passed            skipped        skipped     passed             cannot allocate all claims   -"),
        ("dra-pod.yaml", Some("dra.yaml"), "1.33", 2, "is served from Kubernetes 1.34; not by 1.33"),
        // Without the template the claim controller cannot make the claim.
        ("dra-pod.yaml", None, "1.36", 1, "resource claim template \"one-gpu\": resourceclaimtemplate.resource.k8s.io \"one-gpu\" not found"),
        // DRAExtendedResource off (alpha): the scheduler checks node status as on the device plugin's path.
        ("pod.yaml", Some("dra-extended.yaml"), "1.35", 1, no_gpu),
        // On (beta from 1.36, GA in 1.37): the scheduler's claim for nvidia.com/gpu.
        ("pod.yaml", Some("dra-extended.yaml"), "1.36", 0, "  container-0-request-0: gpu.nvidia.com gpu-node-2 gpu-0"),
        ("pod.yaml", Some("dra-extended.yaml"), "1.37", 0, "\nResourceClaim cuda-vectoradd-extended-resources-"),
    ];
    for (pod, objects, version, code, want) in cases {
        let mut args = vec!["schedule", "--nodes", "cluster.yaml", "--runtimeclasses", "runtimeclass.yaml", "--pod", pod, "--k8s-version", version];
        args.extend(objects.iter().flat_map(|o| ["--objects", *o]));
        let out = Command::new(env!("CARGO_BIN_EXE_gpulab")).args(&args).current_dir(data("")).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{pod} {objects:?} {version}: {stdout}{stderr}");
        assert!(stdout.contains(want) || stderr.contains(want), "{pod} {objects:?} {version}: {want:?} not in\n{stdout}{stderr}");
    }
}

/// The one extended-resource case refused (exit 2, at the DeviceClass's file:line):
/// a pod with a claim of its own that also asks for `nvidia.com/gpu`, which the
/// DeviceClass backs and a node's device plugin advertises. Without the advertising
/// node the same files are scheduled.
#[test]
fn own_claims_beside_a_device_plugin_resource_are_refused() {
    let dir = std::env::temp_dir().join(format!("gpulab-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let node = |gpus: &str| format!("apiVersion: v1\nkind: Node\nmetadata: {{name: n}}\nstatus: {{allocatable: {{cpu: \"4\", memory: 16Gi, pods: \"110\"{gpus}}}}}\n");
    let objects = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec: {extendedResourceName: nvidia.com/gpu}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: mine, namespace: default}\nspec:\n  devices:\n    requests: [{name: r, exactly: {deviceClassName: gpu.nvidia.com}}]\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: n\n  pool: {name: n, generation: 1, resourceSliceCount: 1}\n  devices: [{name: gpu-0}, {name: gpu-1}]\n";
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  resourceClaims: [{name: mine, resourceClaimName: mine}]\n  containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: 1}, claims: [{name: mine}]}}]\n";
    let write = |f: &str, t: &str| {
        std::fs::write(dir.join(f), t).unwrap();
        dir.join(f).display().to_string()
    };
    let (objects, pod) = (write("objects.yaml", objects), write("pod.yaml", pod));
    let cases = [
        (", nvidia.com/gpu: \"1\"", 2, "objects.yaml:1:1: error[dra-extended-resource-unmodelled]: from Kubernetes 1.36 (here 1.37) DRAExtendedResource is on: this pod has ResourceClaims of its own and asks for nvidia.com/gpu, which DeviceClass \"gpu.nvidia.com\" backs and node n also advertises (a device plugin)"),
        ("", 0, "\nResourceClaim p-extended-resources-"),
    ];
    for (gpus, code, want) in cases {
        let nodes = write("nodes.yaml", &node(gpus));
        let out = gpulab(&["schedule", "--nodes", &nodes, "--pod", &pod, "--objects", &objects, "--k8s-version", "1.37"]);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(code), "{gpus}: {stdout}{stderr}");
        assert!(stdout.contains(want) || stderr.contains(want), "{gpus}: {want:?} not in\n{stdout}{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
