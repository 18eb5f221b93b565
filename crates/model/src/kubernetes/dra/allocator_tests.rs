//! The structured allocator against the cases of upstream's shared allocator test
//! table (`structured/internal/allocatortesting/allocator_testing.go`, `TestAllocator`),
//! transcribed with their names and expectations: the objects are built by helpers
//! named as upstream's (`class`, `claimWithRequest`, `sliceWithOneDevice`, …).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
use k8s_openapi::api::resource::v1::{
    CELDeviceSelector, Device, DeviceAttribute, DeviceCapacity, DeviceClaim, DeviceClass, DeviceClassSpec,
    DeviceConstraint, DeviceRequest, DeviceSelector, DeviceSubRequest, ExactDeviceRequest, ResourceClaim,
    ResourceClaimSpec, ResourcePool, ResourceSlice, ResourceSliceSpec,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::allocator::{AllocateError, Allocator, DeviceId, Features, Slice, SliceIndex};

const NODE1: &str = "node-1";
const NODE2: &str = "node-2";
const REGION1: &str = "region-1";
const REGION2: &str = "region-2";
const CLASS_A: &str = "class-a";
const CLASS_B: &str = "class-b";
const DRIVER_A: &str = "driver-a";
const DRIVER_B: &str = "driver-b";

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta { name: Some(name.into()), ..Default::default() }
}

fn node(name: &str, region: &str) -> Node {
    let labels = BTreeMap::from([("region".to_string(), region.to_string()), ("planet".to_string(), "earth".to_string())]);
    Node { metadata: ObjectMeta { name: Some(name.into()), labels: Some(labels), ..Default::default() }, ..Default::default() }
}

fn cel(expression: &str) -> DeviceSelector {
    DeviceSelector { cel: Some(CELDeviceSelector { expression: expression.into() }) }
}

fn class(name: &str, driver: &str) -> DeviceClass {
    DeviceClass {
        metadata: meta(name),
        spec: DeviceClassSpec { selectors: Some(vec![cel(&format!("device.driver == \"{driver}\""))]), ..Default::default() },
    }
}

fn request(name: &str, class: &str, count: i64, selectors: Vec<DeviceSelector>) -> DeviceRequest {
    DeviceRequest {
        name: name.into(),
        exactly: Some(ExactDeviceRequest {
            count: Some(count),
            allocation_mode: Some("ExactCount".into()),
            device_class_name: class.into(),
            selectors: (!selectors.is_empty()).then_some(selectors),
            ..Default::default()
        }),
        first_available: None,
    }
}

fn all_request(name: &str, class: &str) -> DeviceRequest {
    DeviceRequest {
        name: name.into(),
        exactly: Some(ExactDeviceRequest { allocation_mode: Some("All".into()), device_class_name: class.into(), ..Default::default() }),
        first_available: None,
    }
}

fn sub_request(name: &str, class: &str, count: i64, all: bool) -> DeviceSubRequest {
    DeviceSubRequest {
        name: name.into(),
        device_class_name: class.into(),
        count: (!all).then_some(count),
        allocation_mode: Some(if all { "All" } else { "ExactCount" }.into()),
        ..Default::default()
    }
}

fn prioritized(name: &str, subs: Vec<DeviceSubRequest>) -> DeviceRequest {
    DeviceRequest { name: name.into(), exactly: None, first_available: Some(subs) }
}

fn claim_with_requests(name: &str, constraints: Vec<DeviceConstraint>, requests: Vec<DeviceRequest>) -> ResourceClaim {
    ResourceClaim {
        metadata: meta(name),
        spec: ResourceClaimSpec {
            devices: Some(DeviceClaim {
                requests: Some(requests),
                constraints: (!constraints.is_empty()).then_some(constraints),
                config: None,
            }),
        },
        status: None,
    }
}

fn claim_with_request(name: &str, req: &str, class: &str) -> ResourceClaim {
    claim_with_requests(name, vec![], vec![request(req, class, 1, vec![])])
}

fn device(name: &str, memory: Option<&str>, attrs: &[(&str, DeviceAttribute)]) -> Device {
    Device {
        name: name.into(),
        capacity: memory.map(|m| BTreeMap::from([("memory".to_string(), DeviceCapacity { value: Quantity(m.into()), request_policy: None })])),
        attributes: (!attrs.is_empty()).then(|| attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()),
        ..Default::default()
    }
}

/// Where a slice's devices are: a node's name, all nodes, or a node selector.
enum At<'a> {
    Node(&'a str),
    All,
    Selector(NodeSelector),
}

fn slice_with_devices(name: &str, at: At<'_>, pool: &str, driver: &str, devices: Vec<Device>) -> ResourceSlice {
    let mut spec = ResourceSliceSpec {
        driver: driver.into(),
        pool: ResourcePool { name: pool.into(), generation: 1, resource_slice_count: 1 },
        devices: Some(devices),
        ..Default::default()
    };
    match at {
        At::Node(n) => spec.node_name = Some(n.into()),
        At::All => spec.all_nodes = Some(true),
        At::Selector(s) => spec.node_selector = Some(s),
    }
    ResourceSlice { metadata: meta(name), spec }
}

fn slice_with_one_device(name: &str, at: At<'_>, pool: &str, driver: &str) -> ResourceSlice {
    slice_with_devices(name, at, pool, driver, vec![device("device-1", None, &[])])
}

fn requirement(key: &str, value: &str) -> NodeSelectorRequirement {
    NodeSelectorRequirement { key: key.into(), operator: "In".into(), values: Some(vec![value.into()]) }
}

fn node_label_selector(key: &str, value: &str) -> NodeSelector {
    NodeSelector { node_selector_terms: vec![NodeSelectorTerm { match_expressions: Some(vec![requirement(key, value)]), match_fields: None }] }
}

fn local_node_selector(node: &str) -> NodeSelector {
    NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm { match_expressions: None, match_fields: Some(vec![requirement("metadata.name", node)]) }],
    }
}

fn int(v: i64) -> DeviceAttribute {
    DeviceAttribute { int: Some(v), ..Default::default() }
}

fn version(v: &str) -> DeviceAttribute {
    DeviceAttribute { version: Some(v.into()), ..Default::default() }
}

fn string(v: &str) -> DeviceAttribute {
    DeviceAttribute { string: Some(v.into()), ..Default::default() }
}

fn boolean(v: bool) -> DeviceAttribute {
    DeviceAttribute { bool: Some(v), ..Default::default() }
}

fn match_attribute(name: &str) -> DeviceConstraint {
    DeviceConstraint { match_attribute: Some(name.into()), requests: None, distinct_attribute: None }
}

/// What a case expects: per claim, its node selector and `(request, driver, pool,
/// device)` results; or no solution; or an error containing a text.
enum Expect {
    Results(Vec<(Option<NodeSelector>, Vec<(&'static str, &'static str, &'static str, &'static str)>)>),
    NoSolution,
    Error(&'static str),
}

struct Case {
    name: &'static str,
    claims: Vec<ResourceClaim>,
    allocated: Vec<(&'static str, &'static str, &'static str)>,
    classes: Vec<DeviceClass>,
    slices: Vec<ResourceSlice>,
    node: Node,
    expect: Expect,
}

fn memory_at_least(q: &str) -> DeviceSelector {
    cel(&format!("device.capacity[\"{DRIVER_A}\"].memory.compareTo(quantity(\"{q}\")) >= 0"))
}

fn small_and_large_devices(reversed: bool) -> Vec<Device> {
    let mut d = vec![device("device-1", Some("1Gi"), &[]), device("device-2", Some("2Gi"), &[])];
    if reversed {
        d.reverse();
    }
    d
}

fn constraint_attrs() -> Vec<(&'static str, DeviceAttribute)> {
    vec![
        ("driverVersion", version("1.0.0")),
        ("numa", int(1)),
        ("stringAttribute", string("stringAttributeValue")),
        ("boolAttribute", boolean(true)),
    ]
}

fn cases() -> Vec<Case> {
    let n1 = || node(NODE1, REGION1);
    let local1 = || Some(local_node_selector(NODE1));
    let two_sizes = || {
        claim_with_requests(
            "claim-0",
            vec![],
            vec![request("req-0", CLASS_A, 1, vec![memory_at_least("1Gi")]), request("req-1", CLASS_A, 1, vec![memory_at_least("2Gi")])],
        )
    };
    let mut incomplete = slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A);
    incomplete.spec.pool.resource_slice_count += 1;
    let mut duplicate = slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A);
    duplicate.spec.pool.resource_slice_count = 2;
    let mut duplicate_b = duplicate.clone();
    duplicate_b.metadata.name = Some("slice-1-2".into());
    let mut obsolete_old = slice_with_devices("slice-1-obsolete", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-1", None, &[])]);
    obsolete_old.spec.pool.resource_slice_count = 2;
    let mut obsolete_new = slice_with_devices("slice-1-obsolete", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-2", None, &[])]);
    obsolete_new.spec.pool.resource_slice_count = 2;
    obsolete_new.spec.pool.generation += 1;
    let mut prio_all = claim_with_requests(
        "claim-0",
        vec![],
        vec![prioritized("req-0", vec![sub_request("subReq-0", CLASS_A, 0, true), sub_request("subReq-1", CLASS_B, 1, false)])],
    );
    prio_all.metadata.name = Some("claim-0".into());
    let two_drivers = || vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)];
    let merged = NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: Some(vec![requirement("region", REGION1), requirement("planet", "earth")]),
            match_fields: Some(vec![requirement("metadata.name", NODE1)]),
        }],
    };
    vec![
        Case {
            name: "simple",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![(local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1")])]),
        },
        Case {
            name: "other-node",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_B),
                slice_with_one_device("slice-2", At::Node(NODE2), "pool-2", DRIVER_A),
            ],
            node: node(NODE2, REGION2),
            expect: Expect::Results(vec![(Some(local_node_selector(NODE2)), vec![("req-0", DRIVER_A, "pool-2", "device-1")])]),
        },
        Case {
            name: "small-and-large",
            claims: vec![two_sizes()],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, small_and_large_devices(false))],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-1", DRIVER_A, "pool-1", "device-2")],
            )]),
        },
        Case {
            name: "small-and-large-backtrack-requests",
            claims: vec![two_sizes()],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, small_and_large_devices(true))],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-1", DRIVER_A, "pool-1", "device-2")],
            )]),
        },
        Case {
            name: "small-and-large-backtrack-claims",
            claims: vec![
                claim_with_requests("claim-0", vec![], vec![request("req-0", CLASS_A, 1, vec![memory_at_least("1Gi")])]),
                claim_with_requests("claim-1", vec![], vec![request("req-1", CLASS_A, 1, vec![memory_at_least("2Gi")])]),
            ],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, small_and_large_devices(true))],
            node: n1(),
            expect: Expect::Results(vec![
                (local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1")]),
                (local1(), vec![("req-1", DRIVER_A, "pool-1", "device-2")]),
            ]),
        },
        Case {
            name: "devices-split-across-different-slices",
            claims: vec![claim_with_requests("claim-0", vec![], vec![request("req-0", CLASS_A, 2, vec![])])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A),
                slice_with_one_device("slice-2", At::Node(NODE1), "pool-2", DRIVER_A),
            ],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-0", DRIVER_A, "pool-2", "device-1")],
            )]),
        },
        Case {
            name: "obsolete-slice",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![obsolete_old, obsolete_new],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "duplicate-slice",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![duplicate, duplicate_b],
            node: n1(),
            expect: Expect::Error("invalid resource pools were encountered"),
        },
        Case {
            name: "no-slices",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "not-enough-suitable-devices",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A), claim_with_request("claim-0", "req-1", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "no-classes",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Error("could not retrieve device class class-a"),
        },
        Case {
            name: "unknown-class",
            claims: vec![claim_with_request("claim-0", "req-0", "unknown-class")],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Error("could not retrieve device class unknown-class"),
        },
        Case {
            name: "empty-class",
            claims: vec![claim_with_request("claim-0", "req-0", "")],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Error("claim claim-0, request req-0: missing device class name (unsupported request type?)"),
        },
        Case {
            name: "all-devices-single",
            claims: vec![claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![(local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1")])]),
        },
        Case {
            name: "all-devices-many",
            claims: vec![claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A),
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-2", DRIVER_A),
            ],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-0", DRIVER_A, "pool-2", "device-1")],
            )]),
        },
        Case {
            name: "all-devices-of-the-incomplete-pool",
            claims: vec![claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![incomplete],
            node: n1(),
            expect: Expect::Error(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
            ),
        },
        Case {
            name: "all-devices-plus-another",
            claims: vec![
                claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)]),
                claim_with_requests("claim-1", vec![], vec![request("req-0", CLASS_B, 1, vec![])]),
            ],
            allocated: vec![],
            classes: two_drivers(),
            slices: vec![
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A),
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                (local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1")]),
                (local1(), vec![("req-0", DRIVER_B, "pool-1", "device-1")]),
            ]),
        },
        Case {
            name: "all-devices-many-plus-another-reversed",
            claims: vec![
                claim_with_requests("claim-1", vec![], vec![request("req-0", CLASS_B, 1, vec![])]),
                claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)]),
            ],
            allocated: vec![],
            classes: two_drivers(),
            slices: vec![
                slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-1", None, &[]), device("device-2", None, &[])]),
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                (local1(), vec![("req-0", DRIVER_B, "pool-1", "device-1")]),
                (local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-0", DRIVER_A, "pool-1", "device-2")]),
            ]),
        },
        Case {
            name: "all-devices-no-solution",
            claims: vec![
                claim_with_requests("claim-1", vec![], vec![request("req-0", CLASS_A, 1, vec![])]),
                claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)]),
            ],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "all-devices-no-solution-reversed",
            claims: vec![
                claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)]),
                claim_with_requests("claim-1", vec![], vec![request("req-0", CLASS_A, 1, vec![])]),
            ],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "all-devices-slice-without-devices",
            claims: vec![claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![])],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "all-devices-some-allocated",
            claims: vec![claim_with_requests("claim-0", vec![], vec![all_request("req-0", CLASS_A)])],
            allocated: vec![(DRIVER_A, "pool-1", "device-1")],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-1", None, &[]), device("device-2", None, &[])])],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "all-devices-slice-without-devices-prioritized-list",
            claims: vec![prio_all.clone()],
            allocated: vec![],
            classes: two_drivers(),
            slices: vec![
                slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![]),
                slice_with_one_device("slice-2", At::Node(NODE1), "pool-2", DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![(local1(), vec![("req-0/subReq-1", DRIVER_B, "pool-2", "device-1")])]),
        },
        Case {
            name: "all-devices-some-allocated-prioritized-list",
            claims: vec![prio_all],
            allocated: vec![(DRIVER_A, "pool-1", "device-1")],
            classes: two_drivers(),
            slices: vec![
                slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-1", None, &[]), device("device-2", None, &[])]),
                slice_with_one_device("slice-2", At::Node(NODE1), "pool-2", DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![(local1(), vec![("req-0/subReq-1", DRIVER_B, "pool-2", "device-1")])]),
        },
        Case {
            name: "network-attached-device",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Selector(node_label_selector("region", REGION1)), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![(Some(node_label_selector("region", REGION1)), vec![("req-0", DRIVER_A, "pool-1", "device-1")])]),
        },
        Case {
            name: "unsuccessful-allocation-network-attached-device",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Selector(node_label_selector("region", REGION1)), "pool-1", DRIVER_A)],
            node: node(NODE2, REGION2),
            expect: Expect::NoSolution,
        },
        Case {
            name: "many-network-attached-devices",
            claims: vec![claim_with_requests("claim-0", vec![], vec![request("req-0", CLASS_A, 4, vec![])])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device("slice-1", At::Selector(node_label_selector("region", REGION1)), "pool-1", DRIVER_A),
                slice_with_one_device("slice-1", At::All, "pool-2", DRIVER_A),
                slice_with_one_device("slice-1", At::Selector(node_label_selector("planet", "earth")), "pool-3", DRIVER_A),
                slice_with_one_device("slice-1", At::Selector(local_node_selector(NODE1)), "pool-4", DRIVER_A),
            ],
            node: n1(),
            expect: Expect::Results(vec![(
                Some(merged),
                vec![
                    ("req-0", DRIVER_A, "pool-1", "device-1"),
                    ("req-0", DRIVER_A, "pool-2", "device-1"),
                    ("req-0", DRIVER_A, "pool-3", "device-1"),
                    ("req-0", DRIVER_A, "pool-4", "device-1"),
                ],
            )]),
        },
        Case {
            name: "local-and-network-attached-devices",
            claims: vec![claim_with_requests("claim-0", vec![], vec![request("req-0", CLASS_A, 2, vec![])])],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device("slice-1", At::Selector(node_label_selector("region", REGION1)), "pool-1", DRIVER_A),
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-2", DRIVER_A),
            ],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-0", DRIVER_A, "pool-2", "device-1")],
            )]),
        },
        Case {
            name: "several-different-drivers",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A), claim_with_request("claim-0", "req-0", CLASS_B)],
            allocated: vec![],
            classes: two_drivers(),
            slices: vec![
                slice_with_devices("slice-1", At::Node(NODE1), "pool-1", DRIVER_A, vec![device("device-1", None, &[]), device("device-2", None, &[])]),
                slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                (local1(), vec![("req-0", DRIVER_A, "pool-1", "device-1")]),
                (local1(), vec![("req-0", DRIVER_B, "pool-1", "device-1")]),
            ]),
        },
        Case {
            name: "already-allocated-devices",
            claims: vec![claim_with_request("claim-0", "req-0", CLASS_A)],
            allocated: vec![(DRIVER_A, "pool-1", "device-1"), (DRIVER_A, "pool-1", "device-2")],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device("slice-1", At::Node(NODE1), "pool-1", DRIVER_A)],
            node: n1(),
            expect: Expect::NoSolution,
        },
        Case {
            name: "with-constraint",
            claims: vec![claim_with_requests(
                "claim-0",
                vec![
                    match_attribute("driver-a/numa"),
                    match_attribute("driver-a/driverVersion"),
                    match_attribute("driver-a/stringAttribute"),
                    match_attribute("driver-a/boolAttribute"),
                ],
                vec![request("req-0", CLASS_A, 1, vec![]), request("req-1", CLASS_A, 1, vec![])],
            )],
            allocated: vec![],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_devices(
                "slice-1",
                At::Node(NODE1),
                "pool-1",
                DRIVER_A,
                vec![device("device-1", None, &constraint_attrs()), device("device-2", None, &constraint_attrs())],
            )],
            node: n1(),
            expect: Expect::Results(vec![(
                local1(),
                vec![("req-0", DRIVER_A, "pool-1", "device-1"), ("req-1", DRIVER_A, "pool-1", "device-2")],
            )]),
        },
    ]
}

/// Every transcribed case: the allocation results, no solution, or the error.
#[test]
fn allocator_cases_from_upstream() {
    for case in cases() {
        let allocated: BTreeSet<DeviceId> = case
            .allocated
            .iter()
            .map(|(d, p, n)| DeviceId { driver: d.to_string(), pool: p.to_string(), device: n.to_string() })
            .collect();
        let slices: Vec<Slice> = case.slices.iter().cloned().map(Slice::new).collect();
        // Scanning every slice and looking them up in the cycle's index agree.
        let index = SliceIndex::new(&slices);
        for index in [None, Some(&index)] {
            let alloc = Allocator { features: Features { prioritized_list: true, partitionable_devices: false, consumable_capacity: false }, classes: &case.classes, slices: &slices, allocated: &allocated, consumed: &[], compiled: &[], index };
            let claims: Vec<&ResourceClaim> = case.claims.iter().collect();
            let got = alloc.allocate(&case.node, &claims);
            match (&case.expect, got) {
                (Expect::Results(want), Ok(Some(results))) => {
                    assert_eq!(results.len(), want.len(), "{}", case.name);
                    for (r, (selector, devices)) in results.iter().zip(want) {
                        assert_eq!(&r.node_selector, selector, "{}: node selector", case.name);
                        let got: Vec<(String, String, String, String)> = r
                            .devices
                            .iter()
                            .flat_map(|d| d.results.iter().flatten())
                            .map(|d| (d.request.clone(), d.driver.clone(), d.pool.clone(), d.device.clone()))
                            .collect();
                        let want: Vec<(String, String, String, String)> =
                            devices.iter().map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string())).collect();
                        assert_eq!(got, want, "{}", case.name);
                    }
                }
                (Expect::NoSolution, Ok(None)) => {}
                (Expect::Error(text), Err(AllocateError::Fatal(e) | AllocateError::OnNode(e))) => {
                    assert!(e.contains(text), "{}: {e:?} lacks {text:?}", case.name);
                }
                (_, other) => panic!("{}: unexpected {other:?} (index: {})", case.name, index.is_some()),
            }
        }
    }
}

/// Constraint failures upstream's table also has: a device without the attribute,
/// and an int attribute that differs — no solution either way.
#[test]
fn constraint_not_satisfied() {
    let classes = vec![class(CLASS_A, DRIVER_A)];
    let mk = |attrs2: Vec<(&'static str, DeviceAttribute)>| {
        vec![slice_with_devices(
            "slice-1",
            At::Node(NODE1),
            "pool-1",
            DRIVER_A,
            vec![device("device-1", None, &[("numa", int(1))]), device("device-2", None, &attrs2)],
        )]
    };
    let claim = claim_with_requests(
        "claim-0",
        vec![match_attribute("driver-a/numa")],
        vec![request("req-0", CLASS_A, 1, vec![]), request("req-1", CLASS_A, 1, vec![])],
    );
    let allocated = BTreeSet::new();
    for (name, slices) in [("with-constraint-non-existent-attribute", mk(vec![])), ("with-constraint-not-matching-int-attribute", mk(vec![("numa", int(2))]))] {
        let slices: Vec<Slice> = slices.into_iter().map(Slice::new).collect();
        let alloc = Allocator { features: Features { prioritized_list: true, partitionable_devices: false, consumable_capacity: false }, classes: &classes, slices: &slices, allocated: &allocated, consumed: &[], compiled: &[], index: None };
        assert_eq!(alloc.allocate(&node(NODE1, REGION1), &[&claim]), Ok(None), "{name}");
    }
}

/// The cycle's [`SliceIndex`] finds the pools a scan of every slice finds, in the same
/// order: slices by node name, for all nodes, by node selector, a pool whose newer
/// generation is published for another node (obsolete everywhere), a pool of two
/// slices on two nodes (complete), a counter-set slice (partitionable devices), a
/// pool with a second slice further down — each node, both gate settings, and claims
/// that take one device, three, or all.
#[test]
fn the_index_finds_what_the_scan_finds() {
    let at_gen = |mut s: ResourceSlice, generation: i64, count: i64| {
        s.spec.pool.generation = generation;
        s.spec.pool.resource_slice_count = count;
        s
    };
    let two = |n: &str| vec![device(&format!("{n}-a"), None, &[]), device(&format!("{n}-b"), None, &[])];
    let mut counters = slice_with_devices("counters", At::Node(NODE1), "pool-7", DRIVER_A, vec![]);
    counters.spec.devices = None;
    counters.spec.shared_counters = Some(vec![k8s_openapi::api::resource::v1::CounterSet {
        name: "memory".into(),
        counters: BTreeMap::from([("slices".to_string(), k8s_openapi::api::resource::v1::Counter { value: Quantity("8".into()) })]),
    }]);
    let slices: Vec<Slice> = [
        at_gen(slice_with_devices("s1", At::Node(NODE2), "pool-3", DRIVER_A, two("s1")), 1, 1),
        at_gen(slice_with_devices("s2", At::Node(NODE1), "pool-1", DRIVER_A, two("s2")), 1, 2),
        at_gen(slice_with_devices("s3", At::All, "pool-2", DRIVER_A, two("s3")), 1, 1),
        at_gen(slice_with_devices("s4", At::Node(NODE1), "pool-5", DRIVER_A, two("s4")), 1, 1),
        at_gen(slice_with_devices("s5", At::Selector(node_label_selector("region", REGION1)), "pool-4", DRIVER_A, two("s5")), 1, 1),
        at_gen(slice_with_devices("s6", At::Node(NODE2), "pool-5", DRIVER_A, two("s6")), 2, 1),
        at_gen(slice_with_devices("s7", At::Node(NODE1), "pool-6", DRIVER_A, two("s7")), 1, 2),
        at_gen(counters, 1, 1),
        at_gen(slice_with_devices("s8", At::Node(NODE2), "pool-6", DRIVER_A, two("s8")), 1, 2),
        at_gen(slice_with_devices("s9", At::Node(NODE1), "pool-1", DRIVER_A, two("s9")), 1, 2),
        at_gen(slice_with_devices("s10", At::Node(NODE1), "pool-8", DRIVER_B, two("s10")), 1, 1),
    ]
    .into_iter()
    .map(Slice::new)
    .collect();
    let index = SliceIndex::new(&slices);
    let classes = vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)];
    let claims = [
        claim_with_request("one", "req-0", CLASS_A),
        claim_with_requests("three", vec![], vec![request("req-0", CLASS_A, 3, vec![])]),
        claim_with_requests("all", vec![], vec![all_request("req-0", CLASS_A), all_request("req-1", CLASS_B)]),
    ];
    let allocated = BTreeSet::new();
    let mut found = 0;
    for n in [node(NODE1, REGION1), node(NODE2, REGION2), node("node-3", REGION1)] {
        for partitionable_devices in [false, true] {
            let features = Features { prioritized_list: true, partitionable_devices, consumable_capacity: false };
            for claim in &claims {
                let alloc = |index| Allocator { features, classes: &classes, slices: &slices, allocated: &allocated, consumed: &[], compiled: &[], index };
                let scan = alloc(None).allocate(&n, &[claim]);
                assert_eq!(alloc(Some(&index)).allocate(&n, &[claim]), scan, "{:?}, {:?}", n.metadata.name, claim.metadata.name);
                found += scan.ok().flatten().map_or(0, |r| r.iter().flat_map(|a| a.devices.iter().flat_map(|d| d.results.iter().flatten())).count());
            }
        }
    }
    // Not vacuous: node-1's "all" takes s2, s3, s5, s7, s9 and s10's devices.
    assert!(found > 20, "{found} devices allocated over all the calls");
}
