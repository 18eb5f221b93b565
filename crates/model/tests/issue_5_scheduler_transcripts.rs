//! Issue 5: the worked examples of spec §1.5 and the real-world FailedScheduling
//! transcripts of spec §0 and §6, reproduced end to end from YAML manifests through
//! `apply::create_pod` (defaulting, admission, validation, one scheduling cycle).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::load;
use gpulab_model::kubernetes::KubeVersion;

/// A node manifest: name, allocatable (= capacity), extra YAML under `spec:`/labels.
fn node(name: &str, alloc: &str, spec: &str, labels: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nspec: {{{spec}}}\nstatus:\n  capacity: {{{alloc}}}\n  allocatable: {{{alloc}}}\n"
    )
}

/// A pod manifest with one container; `extra` goes under `spec:`.
fn pod(name: &str, resources: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  containers:\n  - name: c\n    image: x\n    resources: {{{resources}}}\n"
    )
}

/// The FailedScheduling message for `new_pod` on the cluster of `docs` at `version`.
fn message(version: KubeVersion, docs: &[String], new_pod: &str) -> String {
    let (cluster, diags) = load("cluster.yaml", &docs.join("---\n"));
    assert!(diags.is_empty(), "{diags:?}");
    let (p, diags) = load("pod.yaml", new_pod);
    assert!(diags.is_empty(), "{diags:?}");
    let snapshot = Snapshot::new(
        cluster.nodes.into_iter().map(|n| n.object),
        &cluster.pods.into_iter().map(|p| p.object).collect::<Vec<_>>(),
    );
    let opts = FilterOptions { version, ..Default::default() };
    let pod = p.pods.into_iter().next().unwrap().object;
    let created = create_pod(pod, &snapshot, &[], &opts, 0).unwrap();
    match created.result.outcome {
        Outcome::Unschedulable { message, .. } => {
            assert_eq!(created.event.message, message, "event note = condition message below the limit");
            message
        }
        other => panic!("scheduled: {other:?}"),
    }
}

const NODE_RES: &str = "cpu: '8', memory: 32Gi, pods: '110'";
const GPU_RES: &str = "cpu: '8', memory: 32Gi, pods: '110', nvidia.com/gpu: '1'";
const GPU_POD: &str = "limits: {nvidia.com/gpu: 1}";

/// Spec §1.5: two CPU nodes and a GPU node whose only GPU a priority-0 pod holds.
#[test]
fn issue_5_worked_example_spec_1_5() {
    let cluster = vec![
        node("cpu-1", NODE_RES, "", ""),
        node("cpu-2", NODE_RES, "", ""),
        node("gpu-1", GPU_RES, "", ""),
        pod("holder", GPU_POD, "  nodeName: gpu-1\n"),
    ];
    let tainted = vec![
        node("cpu-1", NODE_RES, "", ""),
        node("cpu-2", NODE_RES, "", ""),
        node("gpu-1", GPU_RES, "taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]", ""),
        pod("holder", GPU_POD, "  nodeName: gpu-1\n  tolerations: [{operator: Exists}]\n"),
    ];
    let new = pod("new", GPU_POD, "");
    let cases = [
        (KubeVersion::V1_35, &cluster, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."),
        (KubeVersion::V1_36, &cluster, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."),
        (KubeVersion::V1_33, &cluster, "0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."),
        (KubeVersion::V1_35, &tainted, "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
        (KubeVersion::V1_33, &tainted, "0/3 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."),
    ];
    for (version, docs, want) in cases {
        assert_eq!(message(version, docs, &new), want, "{version}");
    }
}

/// Spec §0 real-world shapes on 1.34+ (public docs 2026, AKS Oct 2026) and 1.34
/// before the taint-message cherry-pick.
#[test]
fn issue_5_real_world_shapes_spec_0() {
    let small = "cpu: '1', memory: 1Gi, pods: '110'";
    let big_pod = pod("big", "requests: {cpu: '2', memory: 2Gi}", "");
    let full = vec![node("n1", small, "", ""), pod("other", "requests: {cpu: '1'}", "  nodeName: n1\n")];
    let want_big = "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
    assert_eq!(message(KubeVersion::V1_35, &[node("n1", small, "", "")], &big_pod), want_big);
    let want_full = "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    assert_eq!(message(KubeVersion::V1_35, &full, &pod("p", "requests: {cpu: 500m}", "")), want_full);

    let two = vec![
        node("a", NODE_RES, "", "zone: x"),
        node("b", NODE_RES, "taints: [{key: app, value: webapp, effect: NoSchedule}]", "zone: y"),
    ];
    let sel = pod("p", "", "  nodeSelector: {zone: y}\n");
    let sel_a = pod("p", "", "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [y]}]}]}}}\n");
    let want = "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {app: webapp}. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
    let early: KubeVersion = "1.34.0".parse().unwrap();
    assert_eq!(message(early, &two, &sel), want);
    assert_eq!(message(early, &two, &sel_a), want);
    // From 1.34.2 (and for a 1.34 named without a patch, its newest) the taint is not named.
    let late = want.replace("untolerated taint {app: webapp}", "untolerated taint(s)");
    assert_eq!(message(KubeVersion::V1_34, &two, &sel), late);
    assert_eq!(message("1.34.4".parse().unwrap(), &two, &sel_a), late);

    let aks = vec![
        node("t", NODE_RES, "taints: [{key: k, effect: NoSchedule}]", ""),
        node("c1", "cpu: '1', memory: 32Gi, pods: '110'", "", ""),
        node("c2", "cpu: '1', memory: 32Gi, pods: '110'", "", ""),
        pod("o1", "requests: {cpu: '1'}", "  nodeName: c1\n"),
        pod("o2", "requests: {cpu: '1'}", "  nodeName: c2\n"),
    ];
    let want = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.";
    assert_eq!(message(KubeVersion::V1_35, &aks, &pod("p", "requests: {cpu: 500m}", "")), want);
}

/// Spec §6 transcripts (NVIDIA/k8s-device-plugin#119, #430, #348, #421;
/// kubernetes/kubernetes#116133) in the text the modelled version prints — the
/// filter part is unchanged since; the suffix is today's (one period, 1.33 shape).
#[test]
fn issue_5_device_plugin_transcripts_spec_6() {
    // #119: a GPU node out of GPUs plus a cordoned node (filter part as in 2019).
    let c119 = vec![
        node("gpu", GPU_RES, "", ""),
        node("cordoned", GPU_RES, "unschedulable: true", ""),
        pod("holder", GPU_POD, "  nodeName: gpu\n"),
    ];
    let m = message(KubeVersion::V1_33, &c119, &pod("p", GPU_POD, ""));
    assert!(
        m.starts_with(
            "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable. preemption: "
        ),
        "{m}"
    );

    // #430 / #348: one node, its GPU taken by an equal-priority pod.
    let c430 = vec![node("gpu", GPU_RES, "", ""), pod("holder", GPU_POD, "  nodeName: gpu\n")];
    assert_eq!(
        message(KubeVersion::V1_33, &c430, &pod("p", GPU_POD, "")),
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    );

    // #421 / #116133: a taint with an empty value prints `{KEY: }`.
    for key in ["gpu", "node-role.kubernetes.io/control-plane"] {
        let c = vec![node("n", NODE_RES, &format!("taints: [{{key: {key}, effect: NoSchedule}}]"), "")];
        assert_eq!(
            message(KubeVersion::V1_33, &c, &pod("p", "", "")),
            format!("0/1 nodes are available: 1 node(s) had untolerated taint {{{key}: }}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
        );
    }
}

/// Spec §4.2: a DaemonSet pod pinned with `matchFields metadata.name` to a full node
/// — the other nodes are counted as `didn't satisfy plugin(s) [NodeAffinity]`.
#[test]
fn issue_5_daemonset_pinned_pod_spec_4_2() {
    let mut docs =
        vec![node("target", "cpu: '8', memory: 32Gi, pods: '1'", "", ""), pod("busy", "", "  nodeName: target\n")];
    for i in 0..45 {
        docs.push(node(&format!("n{i}"), NODE_RES, "", ""));
    }
    let ds_pod = pod(
        "ds",
        "",
        "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [target]}]}]}}}\n",
    );
    let m = message(KubeVersion::V1_33, &docs, &ds_pod);
    assert_eq!(
        m,
        "0/46 nodes are available: 1 Too many pods, 45 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/46 nodes are available: 1 No preemption victims found for incoming pod, 45 Preemption is not helpful for scheduling."
    );
}

/// Preemption succeeds: a higher-priority GPU pod nominates the node and the event
/// has no PostFilter part (spec §1.4).
#[test]
fn issue_5_preemption_nominates_node() {
    let docs = [node("gpu", GPU_RES, "", ""), pod("low", GPU_POD, "  nodeName: gpu\n  priority: 0\n")];
    let (cluster, _) = load("c.yaml", &docs.join("---\n"));
    let snapshot = Snapshot::new(
        cluster.nodes.into_iter().map(|n| n.object),
        &cluster.pods.into_iter().map(|p| p.object).collect::<Vec<_>>(),
    );
    let (p, _) = load("p.yaml", &pod("high", GPU_POD, "  priority: 1000\n"));
    let created = create_pod(p.pods[0].object.clone(), &snapshot, &[], &FilterOptions::default(), 0).unwrap();
    assert_eq!(
        created.result.outcome,
        Outcome::Unschedulable {
            message: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.".into(),
            nominated_node: Some("gpu".into()),
            victims: vec![("default".into(), "low".into())],
        }
    );
}

/// NVIDIA/k8s-device-plugin#430 / #348: `kubectl describe pod` of a pending GPU pod —
/// `Node: <none>`, `Status: Pending`, the GPU limits and requests, `PodScheduled
/// False`, and the FailedScheduling row.
#[test]
fn issue_5_describe_pending_gpu_pod_device_plugin_430() {
    use gpulab_model::kubernetes::kubectl::{describe_pod, get_pods_wide};
    let docs = [node("gpu", GPU_RES, "", ""), pod("holder", GPU_POD, "  nodeName: gpu\n")];
    let (cluster, _) = load("c.yaml", &docs.join("---\n"));
    let snapshot = Snapshot::new(
        cluster.nodes.into_iter().map(|n| n.object),
        &cluster.pods.into_iter().map(|p| p.object).collect::<Vec<_>>(),
    );
    let (p, _) = load("p.yaml", &pod("gpu-pod", GPU_POD, ""));
    let opts = FilterOptions { version: KubeVersion::V1_33, ..Default::default() };
    let created = create_pod(p.pods[0].object.clone(), &snapshot, &[], &opts, 0).unwrap();
    let text = describe_pod(&created.pod, std::slice::from_ref(&created.event), 20);
    for line in [
        "Node:             <none>",
        "Status:           Pending",
        "    Limits:\n      nvidia.com/gpu:  1\n    Requests:\n      nvidia.com/gpu:  1\n    Environment:       <none>",
        "Conditions:\n  Type           Status\n  PodScheduled   False \n",
        "QoS Class:       BestEffort\nNode-Selectors:  <none>\nTolerations:     node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n                 node.kubernetes.io/unreachable:NoExecute op=Exists for 300s\n",
        "  Warning  FailedScheduling  20s   default-scheduler  0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.\n",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    let wide = get_pods_wide(std::slice::from_ref(&created.pod), 20);
    let cols: Vec<&str> = wide.lines().nth(1).unwrap().split_whitespace().collect();
    // Created at 0, shown at 20: the API server stamped it, so AGE is 20s.
    assert_eq!(cols, ["gpu-pod", "0/1", "Pending", "0", "20s", "<none>", "<none>", "<none>", "<none>"]);
}
