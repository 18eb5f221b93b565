//! The lab's step-8 incident end to end (issue 6): the device-plugin rollout stalls on
//! the node whose containerd was never restarted, `kubectl rollout status` says which
//! of its two messages depending on when that node's turn comes (Go map order, here an
//! input), the diagnosis names the node and the root cause (read off the node's
//! containerd model: the drop-in replaced the CRI table, the daemon was not restarted),
//! and fixing the drop-in and restarting the node's containerd lets the rollout finish.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::daemonset::diagnosis::{diagnose, Verdict};
use gpulab_model::daemonset::kubectl::get_ds;
use gpulab_model::kubernetes::kubectl::get_pods_wide;
use gpulab_model::incident::seed::{seed_incident, seed_incident_full, BROKEN_NODE, NVIDIA_DROPIN_PATH};
use gpulab_model::daemonset::NodeOrder;

const DS: &str = "nvidia-device-plugin-daemonset";

fn fixed(names: &[&str]) -> NodeOrder {
    NodeOrder::Fixed(names.iter().map(|s| s.to_string()).collect())
}

fn stall(order: NodeOrder, seed: u64) -> gpulab_model::daemonset::rollout::Rollout {
    let mut r = seed_incident(order, seed).unwrap();
    assert!(!r.run_until_settled(50), "the rollout must stall");
    r
}

fn chain_codes(r: &gpulab_model::daemonset::rollout::Rollout) -> Vec<String> {
    let d = diagnose(r);
    assert_eq!(d.verdict, Verdict::Stalled);
    assert_eq!(d.stalled_nodes.len(), 1, "{d:#?}");
    assert_eq!(d.stalled_nodes[0].node, BROKEN_NODE);
    d.stalled_nodes[0].chain.iter().map(|l| l.code.clone()).collect()
}

/// Broken node first: its old pod is replaced first, the new one never gets a
/// sandbox, and no other node is touched: 1 of 3 updated.
#[test]
fn broken_node_first_stalls_with_one_updated() {
    let r = stall(fixed(&[BROKEN_NODE]), 1);
    let status = r.rollout_status().unwrap();
    assert_eq!(status.message, format!("Waiting for daemon set \"{DS}\" rollout to finish: 1 out of 3 new pods have been updated...\n"));
    assert!(!status.done);
    let s = r.controller.ds.status.clone().unwrap();
    assert_eq!(
        (s.desired_number_scheduled, s.current_number_scheduled, s.number_ready, s.updated_number_scheduled, s.number_available, s.number_unavailable),
        (3, 3, 2, Some(1), Some(2), Some(1))
    );
    assert_eq!(
        chain_codes(&r),
        [
            "new-pod-not-ready",
            "sandbox-create-failed",
            "handler-not-loaded",
            "config-defines-handler",
            "daemon-not-restarted",
            "dropin-replaced-table",
            "restart-would-fail"
        ]
    );
}

/// Broken node last: the other two are updated first; the last new pod never becomes
/// available: 2 of 3 available.
#[test]
fn broken_node_last_stalls_with_two_available() {
    let r = stall(fixed(&["gpu-node-1", "gpu-node-3", BROKEN_NODE]), 1);
    assert_eq!(
        r.rollout_status().unwrap().message,
        format!("Waiting for daemon set \"{DS}\" rollout to finish: 2 of 3 updated pods are available...\n")
    );
    assert_eq!(chain_codes(&r).first().map(String::as_str), Some("new-pod-not-ready"));
}

/// A restart alone does not end the stall on containerd 1.6: the drop-in replaced the
/// CRI table, so the restarted daemon's CRI plugin fails and the node serves no CRI;
/// the fix — the drop-in carrying the whole runtimes table, then a restart — ends it.
#[test]
fn restart_alone_fails_the_fix_finishes_the_rollout() {
    for order in [fixed(&[BROKEN_NODE]), fixed(&["gpu-node-1", "gpu-node-3", BROKEN_NODE])] {
        let mut incident = seed_incident_full(order.clone(), 1).unwrap();
        assert!(!incident.rollout.run_until_settled(50));
        let mut as_is = incident.clone();
        as_is.daemons.get_mut(BROKEN_NODE).unwrap().restart();
        as_is.sync_runtimes();
        assert!(!as_is.rollout.run_until_settled(50), "a restart as-is must not finish the rollout");
        let d = diagnose(&as_is.rollout);
        let codes: Vec<&str> = d.stalled_nodes[0].chain.iter().map(|l| l.code.as_str()).collect();
        assert!(codes.contains(&"cri-not-serving") && codes.contains(&"loaded-cri-error"), "{codes:?}");

        let fix = incident.fix_nodes(&[BROKEN_NODE.to_string()]);
        assert_eq!(fix[0].files_written, [NVIDIA_DROPIN_PATH]);
        assert!(incident.rollout.run_until_settled(50));
        let status = incident.rollout.rollout_status().unwrap();
        assert_eq!(status.message, format!("daemon set \"{DS}\" successfully rolled out\n"));
        assert!(status.done);
        assert_eq!(diagnose(&incident.rollout).verdict, Verdict::Complete);
    }
}

/// With a seeded (Go-map-like) order both messages occur, and a seed always gives the same run.
#[test]
fn seeded_orders_give_both_messages_deterministically() {
    let mut first = 0;
    let mut last = 0;
    for seed in 0..40 {
        let a = stall(NodeOrder::Seeded(seed), seed);
        let b = stall(NodeOrder::Seeded(seed), seed);
        let msg = a.rollout_status().unwrap().message;
        assert_eq!(msg, b.rollout_status().unwrap().message);
        assert_eq!(get_pods_wide(a.controller.pods.values(), a.now()), get_pods_wide(b.controller.pods.values(), b.now()));
        if msg.contains("1 out of 3 new pods") {
            first += 1;
        } else if msg.contains("2 of 3 updated pods are available") {
            last += 1;
        }
    }
    assert!(first > 0 && last > 0, "first={first} last={last}");
}

/// What the learner's terminal shows at the stall (printed for eyeballing with --nocapture).
#[test]
fn views_at_the_stall() {
    let r = stall(fixed(&[BROKEN_NODE]), 1);
    let ds = get_ds(&r.controller.ds, r.now());
    assert!(ds.starts_with("NAME                             DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\n"));
    assert!(ds.contains("nvidia-device-plugin-daemonset   3         3         2       1            2           <none>"), "{ds}");
    let pods = get_pods_wide(r.controller.pods.values(), r.now());
    assert!(pods.contains("0/1     ContainerCreating"), "{pods}");
    println!("{ds}\n{pods}");
}

/// `kubectl describe ds` at the stall: the counters and the controller's events.
#[test]
fn describe_ds_at_the_stall() {
    use gpulab_model::daemonset::kubectl::describe_ds;
    let r = stall(fixed(&[BROKEN_NODE]), 1);
    let object = format!("DaemonSet/{DS}");
    let events: Vec<_> = r.controller.events.about(&object).collect();
    let text = describe_ds(&r.controller.ds, r.controller.pods.values(), &events, r.now());
    for line in [
        "Name:           nvidia-device-plugin-daemonset\n",
        "Desired Number of Nodes Scheduled: 3\n",
        "Number of Nodes Scheduled with Up-to-date Pods: 1\n",
        "Number of Nodes Scheduled with Available Pods: 2\n",
        "Pods Status:  2 Running / 1 Waiting / 0 Succeeded / 0 Failed\n",
        "  Normal  SuccessfulDelete",
        "  Normal  SuccessfulCreate",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// A RuntimeClass that does not exist: the API server refuses every pod, the controller
/// records FailedCreate with the admission text, and the diagnosis says so.
#[test]
fn missing_runtime_class_is_a_failed_create() {
    let mut r = seed_incident(fixed(&["gpu-node-1"]), 1).unwrap();
    r.controller.admission.runtime_classes = Some(Default::default());
    r.runtime_classes.clear();
    assert!(!r.run_until_settled(50));
    let failed = r.controller.events.events.iter().find(|e| e.reason == "FailedCreate").unwrap();
    assert_eq!(
        failed.message,
        format!("Error creating: pods \"{DS}-\" is forbidden: pod rejected: RuntimeClass \"nvidia\" not found")
    );
    let d = diagnose(&r);
    let codes: Vec<&str> = d.stalled_nodes[0].chain.iter().map(|l| l.code.as_str()).collect();
    assert_eq!(codes, ["pod-create-refused", "runtimeclass-missing"]);
}

/// A cause is the root, not a symptom: on the stalled node the roots are the daemon
/// not restarted and the drop-in that replaced the CRI table (a restart alone would
/// fail); the budget used up, the handler not loaded and the sandbox error are their
/// symptoms. With the RuntimeClass missing, it is the root of the refused create.
#[test]
fn root_causes_are_not_symptoms() {
    let r = stall(fixed(&[BROKEN_NODE, "gpu-node-1", "gpu-node-3"]), 1);
    let d = diagnose(&r);
    let node = &d.stalled_nodes[0];
    let roots: Vec<&str> = node.root_causes().iter().map(|l| l.code.as_str()).collect();
    assert_eq!(roots, ["daemon-not-restarted", "dropin-replaced-table"], "{:#?}", node.chain);
    for symptom in ["handler-not-loaded", "sandbox-create-failed", "new-pod-not-ready"] {
        assert!(node.chain.iter().any(|l| l.code == symptom) && !roots.contains(&symptom), "{symptom}");
    }
    assert!(d.summary.iter().any(|l| l.code == "unavailable-budget-used"));

    let mut r = seed_incident(fixed(&["gpu-node-1"]), 1).unwrap();
    r.controller.admission.runtime_classes = Some(Default::default());
    r.runtime_classes.clear();
    assert!(!r.run_until_settled(50));
    let d = diagnose(&r);
    let roots: Vec<&str> = d.stalled_nodes[0].root_causes().iter().map(|l| l.code.as_str()).collect();
    assert_eq!(roots, ["runtimeclass-missing"]);
}

/// Bad input is a value, not a crash: garbage manifests, bad maxUnavailable strings,
/// odd node counts and orders never panic (a seeded fuzz-ish sweep).
#[test]
fn bad_input_never_panics() {
    use gpulab_model::daemonset::rng::SplitMix64;
    use gpulab_model::daemonset::manifests::{rollout_from_manifests, Manifests};
    use gpulab_model::incident::seed::{CLUSTER_YAML, DEVICE_PLUGIN_V1_YAML, DEVICE_PLUGIN_V2_YAML};
    let mut m = Manifests::default();
    for bad in ["kind: Pod\n", "{", "kind: DaemonSet\nspec: 3\n", "- a\n- b\n", "kind: Node\nmetadata: {name: [x]}\n"] {
        assert!(m.add_yaml("bad.yaml", bad).is_err(), "{bad:?} accepted");
    }
    let mut rng = SplitMix64::new(9);
    let values = ["abc", "-5%", "999999999999%", "0%", "0", "100%", "7", "%", "1e3%"];
    for round in 0..40 {
        let mut m = Manifests::default();
        m.add_yaml("c", CLUSTER_YAML).unwrap();
        let v = values[(rng.next_u64() % values.len() as u64) as usize];
        let s = values[(rng.next_u64() % values.len() as u64) as usize];
        let patch = |y: &str| y.replace("maxUnavailable: 1", &format!("maxUnavailable: {v:?}\n      maxSurge: {s:?}"));
        m.add_yaml("v1", DEVICE_PLUGIN_V1_YAML).unwrap();
        m.add_yaml("v2", &patch(DEVICE_PLUGIN_V2_YAML)).unwrap();
        m.nodes.truncate((rng.next_u64() % 4) as usize);
        let order = match round % 3 {
            0 => NodeOrder::Listed,
            1 => NodeOrder::Seeded(rng.next_u64()),
            _ => NodeOrder::Fixed(vec!["nope".into()]),
        };
        if let Ok(mut r) = rollout_from_manifests(&m, Default::default(), order, round, 0) {
            r.run_until_settled(30);
            let _ = diagnose(&r);
            let _ = r.rollout_status();
        }
    }
}

/// minReadySeconds longer than a round: a Ready-but-not-yet-available pod is progress
/// to come, not a stall; with a healthy cluster the rollout finishes.
#[test]
fn min_ready_seconds_is_not_a_stall() {
    let mut incident = seed_incident_full(fixed(&["gpu-node-1", "gpu-node-3", BROKEN_NODE]), 1).unwrap();
    incident.fix_nodes(&[BROKEN_NODE.to_string()]);
    let mut r = incident.rollout;
    let mut ds = r.controller.ds.clone();
    ds.spec.as_mut().unwrap().min_ready_seconds = Some(25);
    r.apply_update(ds);
    assert!(r.run_until_settled(100), "{:?}", r.rounds.last().map(|x| &x.rollout_status));
    assert_eq!(r.rollout_status().unwrap().message, format!("daemon set \"{DS}\" successfully rolled out\n"));
}

/// The scheduler model binds daemon pods: a new template that asks for more cpu than
/// a node has leaves its pod Pending (no nodeName, PodScheduled=False) with the
/// scheduler's FitError text, where the other nodes are out of the pod's
/// `matchFields metadata.name` affinity; the rollout makes no progress.
#[test]
fn unschedulable_daemon_pod_stays_pending_with_failed_scheduling() {
    use gpulab_model::daemonset::manifests::{rollout_from_manifests, Manifests};
    use gpulab_model::incident::seed::{CLUSTER_YAML, DEVICE_PLUGIN_V1_YAML, DEVICE_PLUGIN_V2_YAML};
    let mut m = Manifests::default();
    m.add_yaml("c", CLUSTER_YAML).unwrap();
    m.add_yaml("v1", DEVICE_PLUGIN_V1_YAML).unwrap();
    let big = DEVICE_PLUGIN_V2_YAML.replace(
        "        args: [\"--config-file=/config/time-slicing.yaml\"]\n",
        "        args: [\"--config-file=/config/time-slicing.yaml\"]\n        resources: {requests: {cpu: \"40\"}}\n",
    );
    assert_ne!(big, DEVICE_PLUGIN_V2_YAML);
    m.add_yaml("v2", &big).unwrap();
    let mut r = rollout_from_manifests(&m, Default::default(), fixed(&["gpu-node-1", "gpu-node-2", "gpu-node-3"]), 1, 0).unwrap();
    assert!(!r.run_until_settled(30), "the rollout must not finish");
    let pending: Vec<_> = r
        .controller
        .pods
        .values()
        .filter(|p| p.spec.as_ref().unwrap().node_name.is_none() && p.metadata.deletion_timestamp.is_none())
        .collect();
    assert_eq!(pending.len(), 1, "one new pod at a time (maxUnavailable 1)");
    let name = pending[0].metadata.name.clone().unwrap();
    let cond = pending[0].status.as_ref().unwrap().conditions.as_ref().unwrap().iter().find(|c| c.type_ == "PodScheduled").unwrap();
    assert_eq!((cond.status.as_str(), cond.reason.as_deref()), ("False", Some("Unschedulable")));
    let msg = cond.message.clone().unwrap();
    assert!(
        msg.starts_with("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."),
        "{msg}"
    );
    let obj = format!("Pod/{name}");
    let ev: Vec<_> = r.controller.events.about(&obj).filter(|e| e.reason == "FailedScheduling").collect();
    assert!(!ev.is_empty() && ev.iter().all(|e| e.message == msg), "{ev:?}");
}
