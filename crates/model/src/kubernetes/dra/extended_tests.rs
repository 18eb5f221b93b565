//! Extended resources backed by DRA, transcribed from kubernetes v1.37.2:
//! `extendeddynamicresources_test.go` (`Test_createRequestsAndMappings_requests`)
//! and the extended-resource cases of `dynamicresources_test.go` (`TestPlugin`),
//! run here through the whole cycle (`apply::create_pod`) rather than one
//! extension point at a time; plus the version table (gate off in 1.34–1.35).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::resource::v1::DeviceClass;

use super::apply::{create_pod, Applied};
use super::dynamicresources::State;
use super::extended::{requests_and_mappings, ClassResolver};
use crate::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use crate::kubernetes::yaml;
use crate::kubernetes::KubeVersion;

fn class(name: &str, extended: Option<&str>) -> DeviceClass {
    let mut c = DeviceClass::default();
    c.metadata.name = Some(name.into());
    c.spec.extended_resource_name = extended.map(str::to_string);
    c
}

/// A pod from `st.MakePod()` calls: `(kind, requests)` per container, kind `c`
/// (regular), `i` (init) or `s` (sidecar: init with `restartPolicy: Always`).
fn st_pod(containers: &[(&str, &[(&str, &str)])]) -> Pod {
    let mut init = Vec::new();
    let mut regular = Vec::new();
    for (i, (kind, reqs)) in containers.iter().enumerate() {
        let requests: serde_json::Map<String, serde_json::Value> = reqs.iter().map(|(k, v)| (k.to_string(), (*v).into())).collect();
        let mut c = serde_json::json!({"name": format!("con{i}"), "image": "i", "resources": {"requests": requests}});
        if *kind == "s" {
            c["restartPolicy"] = "Always".into();
        }
        if *kind == "c" { regular.push(c) } else { init.push(c) }
    }
    let v = serde_json::json!({"metadata": {"name": "my-pod", "namespace": "default", "uid": "1234"}, "spec": {"initContainers": init, "containers": regular}});
    serde_json::from_value(v).unwrap_or_else(|e| panic!("{e}"))
}

/// `Test_createRequestsAndMappings_requests`: the mock resolver's mapping is here
/// the classes' `extendedResourceName` (class `class` backs `example.com/gpu`,
/// `class1` `example.com/gpu1`, `classInit` `example.com/gpuinit`).
#[test]
fn requests_per_container_as_upstream_makes_them() {
    const GPU: &str = "example.com/gpu";
    const GPU1: &str = "example.com/gpu1";
    const INIT: &str = "example.com/gpuinit";
    let pod1 = st_pod(&[("c", &[(GPU, "1"), (GPU1, "2")])]);
    let pod2 = st_pod(&[("c", &[(GPU, "1")]), ("c", &[(GPU1, "2")])]);
    // `MakePod().Res(…).InitReq(…)`: the init container comes first in the list.
    let pod_init = st_pod(&[("i", &[(INIT, "2")]), ("c", &[(GPU, "1")])]);
    let pod_init2 = st_pod(&[("i", &[(INIT, "1")]), ("i", &[(INIT, "2")]), ("c", &[(GPU, "1")])]);
    let pod_init3 = st_pod(&[("i", &[(INIT, "1")]), ("s", &[(INIT, "1")]), ("i", &[(INIT, "2")]), ("c", &[(GPU, "1")])]);
    let res: &[(&str, i64)] = &[(GPU, 1)];
    let res2: &[(&str, i64)] = &[(GPU, 1), (GPU1, 2)];
    let res_init: &[(&str, i64)] = &[(GPU, 1), (INIT, 2)];
    let dev_map = vec![class("class", Some(GPU))];
    let dev_map2 = vec![class("class", Some(GPU)), class("class1", Some(GPU1))];
    let dev_map_init = vec![class("class", Some(GPU)), class("classInit", Some(INIT))];
    let none: Vec<DeviceClass> = Vec::new();
    /// (name, pod, resources DRA allocates, classes, requests as name, class, count).
    type Case<'a> = (&'a str, &'a Pod, &'a [(&'a str, i64)], &'a Vec<DeviceClass>, &'a [(&'a str, &'a str, i64)]);
    let cases: [Case; 8] = [
        ("nil", &pod1, &[], &none, &[]),
        ("one resource match", &pod1, res, &dev_map, &[("container-0-request-0", "class", 1)]),
        ("one resource match, one resource not match", &pod1, res2, &dev_map, &[("container-0-request-0", "class", 1)]),
        ("two resources match", &pod1, res2, &dev_map2, &[("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)]),
        ("two containers match", &pod2, res2, &dev_map2, &[("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)]),
        (
            "one init container, one regular container",
            &pod_init,
            res_init,
            &dev_map_init,
            &[("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)],
        ),
        (
            "two init containers, one regular container",
            &pod_init2,
            res_init,
            &dev_map_init,
            &[("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)],
        ),
        (
            "three init containers, one sidecar, one regular container",
            &pod_init3,
            res_init,
            &dev_map_init,
            &[("container-1-request-0", "classInit", 1), ("container-2-request-0", "classInit", 2), ("container-3-request-0", "class", 1)],
        ),
    ];
    for (name, pod, resources, classes, want) in cases {
        let resources: BTreeMap<String, i64> = resources.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let (got, _) = requests_and_mappings(pod, &resources, &ClassResolver::new(classes));
        let got: Vec<(String, String, i64)> = got
            .iter()
            .map(|r| {
                let e = r.exactly.as_ref();
                assert_eq!(e.and_then(|e| e.allocation_mode.as_deref()), Some("ExactCount"), "{name}");
                (r.name.clone(), e.map(|e| e.device_class_name.clone()).unwrap_or_default(), e.and_then(|e| e.count).unwrap_or(0))
            })
            .collect();
        let want: Vec<(String, String, i64)> = want.iter().map(|(n, c, k)| (n.to_string(), c.to_string(), *k)).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// `ExtendedResourceCache`: a class stands for its `extendedResourceName` and for
/// `deviceclass.resource.kubernetes.io/<name>`; of two classes naming the same
/// resource (same creation second) the smaller name keeps it, and a later class
/// that loses records nothing, not even its implicit name (upstream returns early).
#[test]
fn which_class_a_resource_name_means() {
    let r = ClassResolver::new(&[class("b", Some("example.com/gpu")), class("a", Some("example.com/gpu")), class("c", Some("example.com/gpu"))]);
    assert_eq!(r.class("example.com/gpu"), Some("a"));
    assert_eq!(r.class("deviceclass.resource.kubernetes.io/b"), Some("b"));
    assert_eq!(r.class("deviceclass.resource.kubernetes.io/a"), Some("a"));
    assert_eq!(r.class("deviceclass.resource.kubernetes.io/c"), None);
    assert_eq!(r.class("example.com/other"), None);
}

/// The fixtures of `dynamicresources_test.go`: node `worker`, driver `some-driver`,
/// class `my-resource-class` backing `example.com/gpu`, pod `my-pod` (uid 1234).
fn fixture(node_allocatable: &str, class_ext: &str, devices: &[&str], pod_requests: &str) -> String {
    let devices: String = devices.iter().map(|d| format!("  - {{name: {d}}}\n")).collect();
    let slice = if devices.is_empty() {
        String::new()
    } else {
        format!("---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: worker-some-driver}}\nspec:\n  driver: some-driver\n  nodeName: worker\n  pool: {{name: worker, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}")
    };
    format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: worker, labels: {{kubernetes.io/hostname: worker}}}}\nstatus: {{allocatable: {{cpu: \"4\", memory: 16Gi, pods: \"110\"{node_allocatable}}}}}\n\
---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: my-resource-class}}\nspec: {{{class_ext}}}\n\
---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: my-resource-class2}}\nspec: {{extendedResourceName: example.com/gpu2}}\n\
{slice}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: my-pod, namespace: default, uid: \"1234\"}}\nspec:\n  containers:\n{pod_requests}"
    )
}

/// One pod's end: `node=… claim=… requests=… devices=… mappings=…`, or the
/// FailedScheduling text.
fn run(text: &str, version: KubeVersion) -> String {
    let (m, diags) = yaml::load("case.yaml", text);
    assert!(diags.is_empty(), "{diags:?}");
    let (objects, diags) = super::read(&m);
    assert!(diags.is_empty(), "{diags:?}");
    let mut state = State::from(objects);
    let mut snapshot = Snapshot::new(m.nodes.iter().map(|n| n.object.clone()), &[]);
    let opts = FilterOptions { version, ..Default::default() };
    let pod = m.pods.first().map(|p| p.object.clone()).unwrap_or_else(|| panic!("no pod"));
    let applied = create_pod(&mut state, &mut snapshot, pod, &[], &opts, 0).unwrap_or_else(|e| panic!("{e:?}"));
    let Applied::Cycle { scheduled, .. } = &applied else { panic!("{applied:?}") };
    match &scheduled.result.outcome {
        Outcome::Scheduled { node, .. } => {
            let Some(claim) = state.extended_claim(&scheduled.pod) else { return format!("node={node} claim=none") };
            let requests: Vec<String> = claim
                .spec
                .devices
                .iter()
                .flat_map(|d| d.requests.iter().flatten())
                .map(|r| {
                    let e = r.exactly.as_ref();
                    format!("{}:{}x{}", r.name, e.map_or("", |e| e.device_class_name.as_str()), e.and_then(|e| e.count).unwrap_or(0))
                })
                .collect();
            let devices: Vec<String> = claim
                .status
                .iter()
                .flat_map(|s| s.allocation.iter())
                .flat_map(|a| a.devices.iter().flat_map(|d| d.results.iter().flatten()))
                .map(|r| format!("{}:{}", r.request, r.device))
                .collect();
            let status = scheduled.pod.status.as_ref().and_then(|s| s.extended_resource_claim_status.as_ref());
            let mappings: Vec<String> =
                status.iter().flat_map(|s| s.request_mappings.iter()).map(|m| format!("{}/{}->{}", m.container_name, m.resource_name, m.request_name)).collect();
            let annotated = claim.metadata.annotations.as_ref().and_then(|a| a.get("resource.kubernetes.io/extended-resource-claim")).map(String::as_str);
            assert_eq!(annotated, Some("true"));
            assert_eq!(claim.metadata.generate_name.as_deref(), Some("my-pod-extended-resources-"));
            assert_eq!(status.map(|s| s.resource_claim_name.as_str()), claim.metadata.name.as_deref());
            format!("node={node} claim={} requests={} devices={} mappings={}", claim.metadata.name.as_deref().unwrap_or("").len(), requests.join(","), devices.join(","), mappings.join(","))
        }
        Outcome::Unschedulable { message, .. } | Outcome::Error { message } => format!("failed={message}"),
    }
}

/// `TestPlugin`'s extended-resource cases, whole cycles on 1.37 (names as upstream's).
/// The claim name is `my-pod-extended-resources-` and five characters: 31.
#[test]
fn upstream_plugin_cases_through_the_cycle() {
    let gpu1 = "  - {name: c, image: i, resources: {limits: {example.com/gpu: \"1\"}}}\n";
    let gpu_and_gpu2 = "  - {name: c, image: i, resources: {limits: {example.com/gpu: \"1\", example.com/gpu2: \"1\"}}}\n";
    let implicit = "  - {name: c, image: i, resources: {limits: {deviceclass.resource.kubernetes.io/my-resource-class: \"1\", example.com/gpu: \"2\"}}}\n";
    let implicit_two = "  - {name: c0, image: i, resources: {limits: {deviceclass.resource.kubernetes.io/my-resource-class: \"1\"}}}\n  - {name: c1, image: i, resources: {limits: {example.com/gpu: \"2\"}}}\n";
    let ext = "extendedResourceName: example.com/gpu";
    let four = ["instance-1", "instance-2", "instance-3", "instance-4"];
    let cases: [(&str, String, &str); 8] = [
        ("extended-resource-name-with-node-resource", fixture(", example.com/gpu: \"1\"", ext, &[], gpu1), "node=worker claim=none"),
        (
            "extended-resource-one-device-plugin-one-dra",
            fixture(", example.com/gpu: \"1\"", ext, &["instance-1"], gpu_and_gpu2),
            "node=worker claim=31 requests=container-0-request-1:my-resource-class2x1 devices=container-0-request-1:instance-1 mappings=c/example.com/gpu2->container-0-request-1",
        ),
        (
            "extended-resource-name-with-zero-allocatable",
            fixture(", example.com/gpu: \"0\"", ext, &["instance-1"], gpu1),
            "node=worker claim=31 requests=container-0-request-0:my-resource-classx1 devices=container-0-request-0:instance-1 mappings=c/example.com/gpu->container-0-request-0",
        ),
        // PreFilter skips (no class backs the resource); NodeResourcesFit rejects.
        (
            "non-DRA-extended-resource-name-with-zero-allocatable",
            fixture(", example.com/gpu: \"0\"", "", &["instance-1"], gpu1),
            "failed=0/1 nodes are available: 1 Insufficient example.com/gpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        ),
        (
            "extended-resource-name-no-resource",
            fixture("", ext, &[], gpu1),
            "failed=0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        ),
        (
            "extended-resource-name-with-resources",
            fixture("", ext, &["instance-1"], gpu1),
            "node=worker claim=31 requests=container-0-request-0:my-resource-classx1 devices=container-0-request-0:instance-1 mappings=c/example.com/gpu->container-0-request-0",
        ),
        (
            "implicit-extended-resource-name-with-resources",
            fixture("", ext, &four, implicit),
            "node=worker claim=31 requests=container-0-request-0:my-resource-classx1,container-0-request-1:my-resource-classx2 devices=container-0-request-0:instance-1,container-0-request-1:instance-2,container-0-request-1:instance-3 mappings=c/deviceclass.resource.kubernetes.io/my-resource-class->container-0-request-0,c/example.com/gpu->container-0-request-1",
        ),
        (
            "implicit-extended-resource-name-two-containers-with-resources",
            fixture("", ext, &four, implicit_two),
            "node=worker claim=31 requests=container-0-request-0:my-resource-classx1,container-1-request-0:my-resource-classx2 devices=container-0-request-0:instance-1,container-1-request-0:instance-2,container-1-request-0:instance-3 mappings=c0/deviceclass.resource.kubernetes.io/my-resource-class->container-0-request-0,c1/example.com/gpu->container-1-request-0",
        ),
    ];
    for (name, text, want) in cases {
        assert_eq!(run(&text, KubeVersion::V1_37), want, "{name}");
    }
}

/// Per version: with the gate off (1.34–1.35) the device plugin's verdict
/// (`Insufficient example.com/gpu`, and DynamicResources' PostFilter of a claimless
/// pod); on (1.36) the DRA path, its PostFilter saying `still not schedulable`
/// when no device is left; 1.37 the same without it.
#[test]
fn the_gate_per_version() {
    let gpu1 = "  - {name: c, image: i, resources: {limits: {example.com/gpu: \"1\"}}}\n";
    let ext = "extendedResourceName: example.com/gpu";
    let with = fixture("", ext, &["instance-1"], gpu1);
    let without = fixture("", ext, &[], gpu1);
    let off = "failed=0/1 nodes are available: 1 Insufficient example.com/gpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
    let fit = "node=worker claim=31 requests=container-0-request-0:my-resource-classx1 devices=container-0-request-0:instance-1 mappings=c/example.com/gpu->container-0-request-0";
    let cases = [
        (KubeVersion::V1_34, &with, off),
        (KubeVersion::V1_35, &with, off),
        (KubeVersion::V1_36, &with, fit),
        (KubeVersion::V1_37, &with, fit),
        (
            KubeVersion::V1_36,
            &without,
            "failed=0/1 nodes are available: 1 cannot allocate all claims. still not schedulable, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        ),
    ];
    for (version, text, want) in cases {
        assert_eq!(run(text, version), want, "{version}");
    }
}
