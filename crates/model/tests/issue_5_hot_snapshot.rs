//! Issue 5: the scheduler's fast path ([`HotSnapshot`], the hot table and the cached
//! per-node verdicts behind the 10,000-pod benchmark) agrees with the straightforward
//! path ([`schedule_one`] on the same snapshot) on random small clusters: the same
//! outcome and FailedScheduling text, the same per-node verdicts and explanation
//! text, cycle after cycle while pods are bound and removed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::kubernetes::scheduler::explain::explain_cycle;
use gpulab_model::kubernetes::scheduler::hot::HotSnapshot;
use gpulab_model::kubernetes::scheduler::{schedule_one, FilterOptions, Outcome, PodInfo, Snapshot};
use gpulab_model::kubernetes::KubeVersion;
use k8s_openapi::api::core::v1::{Node, Pod};
use proptest::prelude::*;
use serde_json::json;

const CPU: [&str; 4] = ["0", "500m", "1", "2"];
const GPU: [&str; 4] = ["0", "1", "2", "4"];
const MEMORY: [&str; 3] = ["0", "1Gi", "2Gi"];

/// A node: (cpu, gpu, memory, pods, taint kind, cordoned, has the second scalar).
type NodeSpec = (usize, usize, usize, u8, u8, bool, bool);

fn node(i: usize, (cpu, gpu, mem, pods, taint, cordoned, dongle): NodeSpec) -> Node {
    let taints = match taint {
        1 => json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]),
        2 => json!([{"key": "nvidia.com/gpu", "effect": "PreferNoSchedule"}]),
        3 => json!([{"key": "dedicated", "value": "ml", "effect": "NoExecute"}]),
        _ => json!([]),
    };
    let mut allocatable = json!({"cpu": CPU[cpu], "memory": MEMORY[mem], "nvidia.com/gpu": GPU[gpu], "pods": pods.to_string()});
    if dongle {
        allocatable["example.com/dongle"] = json!("1");
    }
    serde_json::from_value(json!({
        "metadata": {"name": format!("n{i}"), "labels": {"zone": if i.is_multiple_of(2) {"a"} else {"b"}}},
        "spec": {"unschedulable": cordoned, "taints": taints},
        "status": {"allocatable": allocatable}
    }))
    .unwrap()
}

/// A pod: (cpu, gpu, memory, dongle, variant, priority). Variants: 0–3 plain (the fast
/// path), 4 tolerates the GPU taint, 5 a nodeSelector, 6 a host port, 7 preferred
/// affinity, 8 `spec.nodeName`.
type PodSpec = (usize, usize, usize, bool, u8, i32);

fn pod(name: &str, (cpu, gpu, mem, dongle, variant, priority): PodSpec, node_name: Option<String>) -> Pod {
    let mut requests = json!({"cpu": CPU[cpu], "memory": MEMORY[mem], "nvidia.com/gpu": GPU[gpu]});
    if dongle {
        requests["example.com/dongle"] = json!("1");
    }
    let mut container = json!({"name": "c", "resources": {"requests": requests.clone(), "limits": requests}});
    let mut spec = json!({"priority": priority});
    match variant {
        4 => spec["tolerations"] = json!([{"key": "nvidia.com/gpu", "operator": "Exists"}]),
        5 => spec["nodeSelector"] = json!({"zone": "a"}),
        6 => container["ports"] = json!([{"containerPort": 80, "hostPort": 8080}]),
        7 => {
            spec["affinity"] = json!({"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}}
            ]}})
        }
        8 => spec["nodeName"] = json!("n1"),
        _ => {}
    }
    if let Some(n) = node_name {
        spec["nodeName"] = json!(n);
    }
    spec["containers"] = json!([container]);
    serde_json::from_value(json!({"metadata": {"name": name, "namespace": "default"}, "spec": spec})).unwrap()
}

fn node_spec() -> impl Strategy<Value = NodeSpec> {
    (0usize..4, 0usize..4, 0usize..3, 0u8..4, 0u8..6, prop::bool::weighted(0.15), any::<bool>())
        .prop_map(|(c, g, m, p, t, k, d)| (c, g, m, p, if t > 3 { 0 } else { t }, k, d))
}

fn pod_spec() -> impl Strategy<Value = PodSpec> {
    (0usize..4, 0usize..4, 0usize..3, prop::bool::weighted(0.2), 0u8..9, prop_oneof![Just(0), Just(10), Just(100)])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Each cycle of a random sequence (schedule, then bind the pod to the chosen node
    /// or remove the first pod of a node) gives the same result on both paths.
    #[test]
    fn fast_path_agrees_with_schedule_one(
        nodes in prop::collection::vec(node_spec(), 0..8),
        existing in prop::collection::vec((pod_spec(), 0usize..8), 0..6),
        cycles in prop::collection::vec((pod_spec(), 0u8..4, 0usize..8), 1..12),
        version in 0usize..4,
    ) {
        let k8s_nodes: Vec<Node> = nodes.iter().enumerate().map(|(i, s)| node(i, *s)).collect();
        let bound: Vec<Pod> = existing
            .iter()
            .enumerate()
            .map(|(i, (s, n))| pod(&format!("old-{i}"), (s.0, s.1, s.2, s.3, 0, s.5), Some(format!("n{n}"))))
            .collect();
        let version = KubeVersion::ALL[version];
        let opts = FilterOptions { version, ..Default::default() };
        let mut hot = HotSnapshot::new(Snapshot::new(k8s_nodes, &bound));
        for (c, (spec, action, target)) in cycles.iter().enumerate() {
            let info = PodInfo::new(pod(&format!("p-{c}"), *spec, None), true);
            let want = schedule_one(hot.snapshot(), &info, &opts);
            let got = hot.schedule_one(&info, &opts);
            prop_assert_eq!(&got.outcome, &want.outcome, "cycle {}", c);
            prop_assert_eq!(&got.nodes, &want.nodes, "cycle {}", c);
            prop_assert_eq!(&got.pre_filter_status, &want.pre_filter_status);
            prop_assert_eq!(got.state.skip_node_affinity, want.state.skip_node_affinity);
            prop_assert_eq!(got.state.skip_node_ports, want.state.skip_node_ports);
            prop_assert_eq!(
                explain_cycle(hot.snapshot(), &info, &got, version),
                explain_cycle(hot.snapshot(), &info, &want, version)
            );
            match (action, &got.outcome) {
                (0 | 1, Outcome::Scheduled { node_index, .. }) => {
                    prop_assert!(hot.add_pod(*node_index, info.as_bound()));
                }
                (2, _) => {
                    let _ = hot.remove_pod(*target, 0);
                }
                _ => {}
            }
        }
    }
}
