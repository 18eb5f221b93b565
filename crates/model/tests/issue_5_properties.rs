//! Issue 5: bad input is a value, never a crash — random quantity strings, random
//! manifests and random clusters go through parsing and scheduling without a panic,
//! and the FailedScheduling text keeps its shape.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::kubernetes::quantity::Quantity;
use gpulab_model::kubernetes::scheduler::{schedule_one, FilterOptions, Outcome, PodInfo, Snapshot};
use gpulab_model::kubernetes::yaml::load;
use gpulab_model::kubernetes::KubeVersion;
use k8s_openapi::api::core::v1::{Node, Pod};
use proptest::prelude::*;

fn quantity_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[+-]?[0-9]{0,25}(\\.[0-9]{0,12})?(m|k|M|G|T|P|E|n|u|Ki|Mi|Gi|Ti|Pi|Ei|e[+-]?[0-9]{1,4}|E[0-9]{1,3})?",
        "[0-9a-zA-Z.+\\- ]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any string parses or fails with one of upstream's errors; parsed values print
    /// and re-parse to the same value.
    #[test]
    fn quantities_never_panic(s in quantity_text()) {
        if let Ok(q) = Quantity::parse(&s) {
            let _ = (q.value(), q.milli_value());
            let printed = q.to_string();
            let again = Quantity::parse(&printed);
            prop_assert!(again.is_ok(), "{s} printed as {printed}");
            if let Ok(again) = again {
                prop_assert_eq!(again.milli_value(), q.milli_value(), "{} -> {}", s, printed);
            }
        }
    }

    /// Random YAML-ish text never panics the loader.
    #[test]
    fn manifests_never_panic(s in "(kind: (Pod|Node|Gadget)\n|---\n|  [a-z]{1,5}: [a-z0-9:{}\\[\\]]{0,6}\n|metadata: \\{name: x\\}\n|spec:\n|status:\n){0,12}") {
        let _ = load("fuzz.yaml", &s);
    }

    /// Random clusters and GPU pods: every node gets a verdict, and an unschedulable
    /// pod's message counts exactly the nodes it claims.
    #[test]
    fn random_clusters_schedule(
        nodes in prop::collection::vec((quantity_text(), quantity_text(), 0u8..4, any::<bool>(), any::<bool>()), 0..12),
        request in quantity_text(),
        version in 0usize..4,
    ) {
        let nodes: Vec<Node> = nodes.iter().enumerate().map(|(i, (cpu, gpu, pods, tainted, cordoned))| {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": format!("n{i}"), "labels": {"gpu": if *tainted {"yes"} else {"no"}}},
                "spec": {
                    "unschedulable": cordoned,
                    "taints": if *tainted { serde_json::json!([{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]) } else { serde_json::json!([]) }
                },
                "status": {"allocatable": {"cpu": cpu, "nvidia.com/gpu": gpu, "pods": pods.to_string()}}
            })).unwrap()
        }).collect();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": request, "cpu": request}}}]}
        })).unwrap();
        let snapshot = Snapshot::new(nodes, &[]);
        let opts = FilterOptions { version: KubeVersion::ALL[version], ..Default::default() };
        let result = schedule_one(&snapshot, &PodInfo::new(pod, true), &opts);
        prop_assert_eq!(result.nodes.len(), snapshot.nodes.len());
        if let Outcome::Unschedulable { message, .. } = &result.outcome {
            let prefix = format!("0/{} nodes are available:", snapshot.nodes.len());
            prop_assert!(message.starts_with(&prefix), "{}", message);
        }
    }
}
