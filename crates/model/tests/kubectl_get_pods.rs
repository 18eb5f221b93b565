//! `kubectl get pods -o wide` (issue 18 item 4: one kubectl printer,
//! `kubernetes::kubectl::get_pods_wide`), byte for byte. The snapshot
//! `tests/snapshots/get_pods_wide.txt` holds, for every pod shape below, what it
//! writes — the shapes the lab's callers make (the DaemonSet rollout's pods, the
//! scheduler's and the kubelet's pods of steps 5–6) and those where kubectl's `printPod`
//! (pkg/printers/internalversion/printers.go) decides a cell in a way the lab's two
//! former printers got wrong: readiness, a deleted pod's status, nominated node,
//! readiness gates, `podIPs`, signals, restarts with their last termination, order.
//! Regenerate with `UPDATE_SNAPSHOTS=1 cargo test -p gpulab-model --test kubectl_get_pods`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use gpulab_model::daemonset::NodeOrder;
use gpulab_model::incident::seed::{seed_incident_full, BROKEN_NODE};
use gpulab_model::kubernetes::apply::create_pod;
use gpulab_model::kubernetes::kubelet::{mark_container_creating, mark_running, pod_ip};
use gpulab_model::kubernetes::scheduler::{FilterOptions, Snapshot};
use gpulab_model::kubernetes::yaml::load;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{json, Value};

/// The lab clock of the hand-made cases: 2023-11-14T22:13:20Z.
const NOW: i64 = 1_700_000_000;
/// Two minutes before [`NOW`].
const CREATED: &str = "2023-11-14T22:11:20Z";

/// A pod named `name` in `default`, created at [`CREATED`], with one container `c`
/// unless `spec` names its own, and the given `status`.
fn pod(name: &str, spec: Value, status: Value) -> Pod {
    let mut spec = spec;
    if spec.get("containers").is_none() {
        spec["containers"] = json!([{ "name": "c", "image": "x" }]);
    }
    serde_json::from_value(json!({
        "metadata": { "name": name, "namespace": "default", "creationTimestamp": CREATED },
        "spec": spec,
        "status": status,
    }))
    .unwrap()
}

fn deleted(mut p: Pod) -> Pod {
    p.metadata.deletion_timestamp = serde_json::from_value(json!(CREATED)).unwrap();
    p
}

/// Hand-made shapes, one a case, each named for what it shows.
fn shapes() -> Vec<(&'static str, Vec<Pod>)> {
    let running = |ready: bool| json!({ "name": "c", "image": "x", "ready": ready, "restartCount": 0, "state": { "running": { "startedAt": CREATED } } });
    let on_node = json!({ "nodeName": "gpu-node-2" });
    vec![
        ("pending, not bound", vec![pod("a", json!({}), json!({ "phase": "Pending" }))]),
        (
            "bound, sandbox failing",
            vec![pod(
                "a",
                on_node.clone(),
                json!({ "phase": "Pending", "containerStatuses": [{ "name": "c", "image": "x", "ready": false, "restartCount": 0, "started": false, "state": { "waiting": { "reason": "ContainerCreating" } } }] }),
            )],
        ),
        ("running and ready", vec![pod("a", on_node.clone(), json!({ "phase": "Running", "podIP": "10.0.0.5", "containerStatuses": [running(true)] }))]),
        ("no status", vec![serde_json::from_value(json!({ "metadata": { "name": "a" }, "spec": { "containers": [{ "name": "c" }] } })).unwrap()]),
        ("deleted while running", vec![deleted(pod("a", on_node.clone(), json!({ "phase": "Running", "containerStatuses": [running(true)] })))]),
        (
            "deleted after it succeeded",
            vec![deleted(pod(
                "a",
                on_node.clone(),
                json!({ "phase": "Succeeded", "containerStatuses": [{ "name": "c", "image": "x", "ready": false, "restartCount": 0, "state": { "terminated": { "exitCode": 0, "reason": "Completed" } } }] }),
            ))],
        ),
        (
            "deleted on a lost node",
            vec![deleted(pod("a", on_node.clone(), json!({ "phase": "Running", "reason": "NodeLost", "containerStatuses": [running(true)] })))],
        ),
        (
            "ready without a state",
            vec![pod("a", on_node.clone(), json!({ "phase": "Running", "containerStatuses": [{ "name": "c", "image": "x", "ready": true, "restartCount": 0 }] }))],
        ),
        ("nominated for preemption", vec![pod("a", json!({}), json!({ "phase": "Pending", "nominatedNodeName": "gpu-node-1" }))]),
        (
            "a readiness gate that holds",
            vec![pod(
                "a",
                json!({ "nodeName": "gpu-node-2", "readinessGates": [{ "conditionType": "example.com/ready" }, { "conditionType": "example.com/other" }] }),
                json!({ "phase": "Running", "conditions": [{ "type": "example.com/ready", "status": "True" }], "containerStatuses": [running(true)] }),
            )],
        ),
        ("podIPs only", vec![pod("a", on_node.clone(), json!({ "phase": "Running", "podIPs": [{ "ip": "10.0.0.7" }], "containerStatuses": [running(true)] }))]),
        (
            "scheduling gated",
            vec![pod("a", json!({ "schedulingGates": [{ "name": "example.com/gate" }] }), json!({ "phase": "Pending", "conditions": [{ "type": "PodScheduled", "status": "False", "reason": "SchedulingGated" }] }))],
        ),
        (
            "killed by a signal",
            vec![pod("a", on_node.clone(), json!({ "phase": "Failed", "containerStatuses": [{ "name": "c", "image": "x", "ready": false, "restartCount": 0, "state": { "terminated": { "exitCode": 137, "signal": 9 } } }] }))],
        ),
        (
            "exited without a reason",
            vec![pod("a", on_node.clone(), json!({ "phase": "Failed", "containerStatuses": [{ "name": "c", "image": "x", "ready": false, "restartCount": 0, "state": { "terminated": { "exitCode": 1 } } }] }))],
        ),
        (
            "restarted, last terminated 5m ago",
            vec![pod(
                "a",
                on_node.clone(),
                json!({ "phase": "Running", "containerStatuses": [{ "name": "c", "image": "x", "ready": true, "restartCount": 2, "state": { "running": { "startedAt": CREATED } }, "lastState": { "terminated": { "exitCode": 1, "finishedAt": "2023-11-14T22:08:20Z" } } }] }),
            )],
        ),
        (
            "one container completed, one running",
            vec![pod(
                "a",
                json!({ "nodeName": "gpu-node-2", "containers": [{ "name": "sidecar", "image": "x" }, { "name": "main", "image": "x" }] }),
                json!({ "phase": "Running", "conditions": [{ "type": "Ready", "status": "True" }], "containerStatuses": [
                    { "name": "sidecar", "image": "x", "ready": true, "restartCount": 0, "state": { "running": { "startedAt": CREATED } } },
                    { "name": "main", "image": "x", "ready": false, "restartCount": 0, "state": { "terminated": { "exitCode": 0, "reason": "Completed" } } }
                ] }),
            )],
        ),
        ("evicted", vec![pod("a", on_node.clone(), json!({ "phase": "Failed", "reason": "Evicted" }))]),
        (
            "given out of order",
            vec![
                pod("c", json!({}), json!({ "phase": "Pending" })),
                pod("a", json!({}), json!({ "phase": "Pending" })),
                pod("b", json!({}), json!({ "phase": "Pending" })),
            ],
        ),
    ]
}

/// The DaemonSet rollout's own pods as `gpulab rollout`, the incident report and step 8
/// print them: the seed incident with the broken node last, after 3, 6 and 12 syncs,
/// at the stall, and after the fix when the rollout has finished.
fn rollout_shapes() -> Vec<(String, Vec<Pod>, i64)> {
    let order = NodeOrder::Fixed(vec!["gpu-node-1".into(), "gpu-node-3".into(), BROKEN_NODE.into()]);
    let mut out = Vec::new();
    for syncs in [3, 6, 12] {
        let mut incident = seed_incident_full(order.clone(), 1).unwrap();
        for _ in 0..syncs {
            incident.rollout.step();
        }
        out.push((format!("seed rollout after {syncs} syncs"), incident.rollout.controller.pods.values().cloned().collect(), incident.rollout.now()));
    }
    let run = seed_incident_full(order, 1).unwrap().run(true, 50, gpulab_model::Lang::En);
    out.push(("seed rollout at the stall".into(), run.at_stall.controller.pods.values().cloned().collect(), run.at_stall.now()));
    out.push(("seed rollout fixed and finished".into(), run.rollout.controller.pods.values().cloned().collect(), run.rollout.now()));
    out
}

/// Steps 5–6's pod as the scheduler leaves it (Pending on a cluster without a free
/// GPU) and as the kubelet leaves it once bound to a node whose sandbox fails or starts.
fn kube_step_shapes() -> Vec<(String, Vec<Pod>, i64)> {
    let node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-2\nstatus:\n  capacity: {cpu: '8', memory: 32Gi, pods: '110'}\n  allocatable: {cpu: '8', memory: 32Gi, pods: '110'}\n";
    let gpu_pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: cuda-vectoradd\n  namespace: default\nspec:\n  containers:\n  - name: c\n    image: x\n    resources: {limits: {nvidia.com/gpu: 1}}\n";
    let (cluster, _) = load("cluster.yaml", node);
    let snapshot = Snapshot::new(cluster.nodes.into_iter().map(|n| n.object), &[]);
    let (p, _) = load("pod.yaml", gpu_pod);
    let created = create_pod(p.pods[0].object.clone(), &snapshot, &[], &FilterOptions::default(), 0).unwrap();
    let mut bound = created.pod.clone();
    bound.spec.as_mut().unwrap().node_name = Some("gpu-node-2".into());
    let mut started = bound.clone();
    mark_container_creating(&mut bound, 0);
    mark_running(&mut started, 0, pod_ip(1));
    vec![
        ("kube step: pending".into(), vec![created.pod], 20),
        ("kube step: bound, sandbox failing".into(), vec![bound], 1),
        ("kube step: bound, sandbox started".into(), vec![started], 1),
    ]
}

/// Every shape through the printer, as one text: `== case ==` and the table.
fn printed(print: impl Fn(&[Pod], i64) -> String) -> String {
    let mut cases: Vec<(String, Vec<Pod>, i64)> = shapes().into_iter().map(|(n, p)| (n.to_string(), p, NOW)).collect();
    cases.extend(rollout_shapes());
    cases.extend(kube_step_shapes());
    cases.iter().map(|(name, pods, now)| format!("== {name} ==\n{}", print(pods, *now))).collect()
}

/// The one printer over every shape, byte for byte.
#[test]
fn get_pods_wide_snapshot() {
    common::check_snapshot("get_pods_wide.txt", &printed(|pods, now| gpulab_model::kubernetes::kubectl::get_pods_wide(pods, now)));
}
