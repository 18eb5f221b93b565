//! Issue 17 item 4: pods with ResourceClaims through the control plane
//! (`dra::apply::create_pod`): the claim controller, PreEnqueue, one scheduling cycle
//! with DynamicResources, binding — the FailedScheduling texts of upstream's plugin
//! (`dynamicresources.go`) and of a real T4 cluster, the devices each claim gets,
//! claims shared by pods, per version 1.34–1.37. Table-driven: each case is a
//! cluster, pods created in order, and what each pod ends with.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::kubernetes::dra::apply::{create_pod, Applied};
use gpulab_model::kubernetes::dra::dynamicresources::State;
use gpulab_model::kubernetes::scheduler::{FilterOptions, Outcome, Snapshot};
use gpulab_model::kubernetes::yaml::load;
use gpulab_model::kubernetes::KubeVersion;

const NODES: &str = "
apiVersion: v1
kind: Node
metadata: {name: gpu-node, labels: {nvidia.com/gpu.present: 'true'}}
status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-node}
status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}}
";

const CLASS: &str = "
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.nvidia.com}
spec:
  selectors:
  - cel: {expression: \"device.driver == 'gpu.nvidia.com'\"}
";

/// The GPU node's slice: `n` T4s (`gpu-0`…), 16Gi each.
fn slice(n: usize) -> String {
    let devices: String = (0..n)
        .map(|i| format!("  - name: gpu-{i}\n    attributes: {{index: {{int: {i}}}, productName: {{string: Tesla T4}}}}\n    capacity: {{memory: {{value: 16Gi}}}}\n"))
        .collect();
    format!(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {{name: gpu-node-slice}}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: gpu-node\n  pool: {{name: gpu-node, generation: 1, resourceSliceCount: 1}}\n  devices:\n{devices}"
    )
}

/// A claim (or, with `template`, a ResourceClaimTemplate) with one request for
/// `count` GPUs (`All` for 0) and an optional selector.
fn claim(name: &str, template: bool, count: u32, selector: &str) -> String {
    let mode = if count == 0 { "allocationMode: All".to_string() } else { format!("count: {count}") };
    let sel = if selector.is_empty() { String::new() } else { format!(", selectors: [{{cel: {{expression: \"{selector}\"}}}}]") };
    let devices = format!("devices: {{requests: [{{name: gpu, exactly: {{deviceClassName: gpu.nvidia.com, {mode}{sel}}}}}]}}");
    if template {
        format!("apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  spec: {{{devices}}}\n")
    } else {
        format!("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: {name}, namespace: default}}\nspec: {{{devices}}}\n")
    }
}

/// A pod using one claim by name (`claim:NAME`) or template (`template:NAME`),
/// optionally only on GPU nodes or only on the CPU node.
fn pod(name: &str, source: &str, on: &str) -> String {
    let (key, value) = source.split_once(':').unwrap();
    let field = if key == "claim" { "resourceClaimName" } else { "resourceClaimTemplateName" };
    let selector = match on {
        "gpu" => "  nodeSelector: {nvidia.com/gpu.present: 'true'}\n",
        "cpu" => "  nodeName: ''\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: nvidia.com/gpu.present, operator: DoesNotExist}]}]}}}\n",
        _ => "",
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{selector}  resourceClaims: [{{name: gpu, {field}: {value}}}]\n  containers: [{{name: c, image: x, resources: {{claims: [{{name: gpu}}]}}}}]\n"
    )
}

/// What a pod ends with: `node=…|devices` (devices as `claim-request:device,…`),
/// `failed=<FailedScheduling text>`, `event=<reason>: <message>` or `waiting=<reason>`.
fn outcome(a: &Applied) -> String {
    match a {
        Applied::ClaimNotCreated { event, .. } => format!("event={}: {}", event.reason, event.message),
        Applied::Waiting { reason, .. } => format!("waiting={reason}"),
        Applied::Cycle { scheduled, allocations, deallocated } => match &scheduled.result.outcome {
            Outcome::Scheduled { node, .. } => {
                let devices: Vec<String> = allocations
                    .iter()
                    .flat_map(|(_, a)| a.devices.iter().flat_map(|d| d.results.iter().flatten()))
                    .map(|r| format!("{}:{}", r.request, r.device))
                    .collect();
                format!("node={node}|{}", devices.join(","))
            }
            Outcome::Unschedulable { message, .. } => {
                assert_eq!(&scheduled.event.message, message);
                match deallocated {
                    Some((c, first)) => format!("failed={first} [deallocated {c}] then failed={message}"),
                    None => format!("failed={message}"),
                }
            }
            Outcome::Error { message } => format!("error={message}"),
        },
    }
}

/// Runs `pods` in order on the cluster of `docs`; returns each pod's outcome.
fn run(version: KubeVersion, docs: &[String], pods: &[String]) -> Vec<String> {
    let text = docs.join("---\n");
    let (cluster, diags) = load("cluster.yaml", &text);
    assert!(diags.is_empty(), "{diags:?}");
    let (objects, diags) = gpulab_model::kubernetes::dra::read(&cluster);
    assert!(diags.is_empty(), "{diags:?}");
    let mut state = State::from(objects);
    let mut snapshot = Snapshot::new(cluster.nodes.into_iter().map(|n| n.object), &[]);
    let opts = FilterOptions { version, ..Default::default() };
    pods.iter()
        .map(|p| {
            let (m, diags) = load("pod.yaml", p);
            assert!(diags.is_empty(), "{diags:?}");
            let pod = m.pods.into_iter().next().unwrap().object;
            outcome(&create_pod(&mut state, &mut snapshot, pod, &[], &opts, 0).unwrap())
        })
        .collect()
}

const PREEMPT_2: &str = "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";

/// The PostFilter prefix of a pod whose claims DynamicResources never saw (PreFilter
/// rejected it first): `no new claims to deallocate, ` on 1.34–1.36, nothing on 1.37.
fn no_claims(v: KubeVersion) -> &'static str {
    if v.line() <= KubeVersion::V1_36 {
        "no new claims to deallocate, "
    } else {
        ""
    }
}

/// The PostFilter prefix when DynamicResources freed nothing: `still not
/// schedulable, ` on 1.34–1.36, nothing on 1.37 (the real v1.37.2 scheduler).
fn still(v: KubeVersion) -> &'static str {
    if v.line() <= KubeVersion::V1_36 {
        "still not schedulable, "
    } else {
        ""
    }
}

#[test]
fn dra_scheduling_cases() {
    let versions = [KubeVersion::V1_34, KubeVersion::V1_35, KubeVersion::V1_36, KubeVersion::V1_37];
    for v in versions {
        let nc = no_claims(v);
        let st = still(v);
        // (name, cluster documents besides the nodes, pods in order, their outcomes)
        let cases: Vec<(&str, Vec<String>, Vec<String>, Vec<String>)> = vec![
            (
                // The real T4 cluster's transcript (issue 17): a selector the T4 cannot meet.
                "t4-memory-impossible",
                vec![CLASS.into(), slice(1), claim("gpu-20gi", true, 1, "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0")],
                vec![pod("pod-mem-impossible", "template:gpu-20gi", "gpu")],
                vec![format!("failed=0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node affinity/selector. {st}{PREEMPT_2}")],
            ),
            (
                "one-gpu-from-template",
                vec![CLASS.into(), slice(1), claim("one-gpu", true, 1, "")],
                vec![pod("pod-a", "template:one-gpu", "")],
                vec!["node=gpu-node|gpu:gpu-0".into()],
            ),
            (
                // Every device allocated: the second pod's claim finds none.
                "every-device-allocated",
                vec![CLASS.into(), slice(2), claim("one-gpu", true, 1, "")],
                vec![pod("pod-a", "template:one-gpu", ""), pod("pod-b", "template:one-gpu", ""), pod("pod-c", "template:one-gpu", "")],
                vec![
                    "node=gpu-node|gpu:gpu-0".into(),
                    "node=gpu-node|gpu:gpu-1".into(),
                    format!("failed=0/2 nodes are available: 2 cannot allocate all claims. {st}{PREEMPT_2}"),
                ],
            ),
            (
                // `All` means every matching device of the node, allocated or not
                // (upstream's all-devices-some-allocated): after a claim took two of
                // four, an `All` claim has no solution; alone it gets all four.
                "count-then-all",
                vec![CLASS.into(), slice(4), claim("two", true, 2, ""), claim("all", true, 0, "")],
                vec![pod("pod-two", "template:two", ""), pod("pod-all", "template:all", "")],
                vec![
                    "node=gpu-node|gpu:gpu-0,gpu:gpu-1".into(),
                    format!("failed=0/2 nodes are available: 2 cannot allocate all claims. {st}{PREEMPT_2}"),
                ],
            ),
            (
                "all-alone",
                vec![CLASS.into(), slice(4), claim("all", true, 0, "")],
                vec![pod("pod-all", "template:all", "")],
                vec!["node=gpu-node|gpu:gpu-0,gpu:gpu-1,gpu:gpu-2,gpu:gpu-3".into()],
            ),
            (
                // A selector that matches no device (index 7 does not exist).
                "selector-matches-nothing",
                vec![CLASS.into(), slice(2), claim("gpu-7", false, 1, "device.attributes['gpu.nvidia.com'].index == 7")],
                vec![pod("pod-a", "claim:gpu-7", "")],
                vec![format!("failed=0/2 nodes are available: 2 cannot allocate all claims. {st}{PREEMPT_2}")],
            ),
            (
                // No ResourceSlice: the driver's DaemonSet is not running.
                "no-resourceslice",
                vec![CLASS.into(), claim("one-gpu", true, 1, "")],
                vec![pod("pod-a", "template:one-gpu", "")],
                vec![format!("failed=0/2 nodes are available: 2 cannot allocate all claims. {st}{PREEMPT_2}")],
            ),
            (
                // The claim names a class that does not exist: PreFilter, for every node.
                "missing-device-class",
                vec![slice(1), claim("one-gpu", true, 1, "")],
                vec![pod("pod-a", "template:one-gpu", "")],
                vec![format!("failed=0/2 nodes are available: request gpu: device class gpu.nvidia.com does not exist. {nc}{PREEMPT_2}")],
            ),
            (
                // A claim the pod names that does not exist: PreEnqueue, no attempt.
                "claim-not-created-yet",
                vec![CLASS.into(), slice(1)],
                vec![pod("pod-a", "claim:my-gpu", "")],
                vec!["waiting=resourceclaim.resource.k8s.io \"my-gpu\" not found".into()],
            ),
            (
                // The template does not exist: the claim controller's warning.
                "claim-template-missing",
                vec![CLASS.into(), slice(1)],
                vec![pod("pod-a", "template:one-gpu", "")],
                vec!["event=FailedResourceClaimCreation: PodResourceClaim gpu: resource claim template \"one-gpu\": resourceclaimtemplate.resource.k8s.io \"one-gpu\" not found".into()],
            ),
            (
                // A claim shared by two pods: both on the node of its one device.
                "shared-claim",
                vec![CLASS.into(), slice(1), claim("shared", false, 1, "")],
                vec![pod("pod-a", "claim:shared", ""), pod("pod-b", "claim:shared", "")],
                vec!["node=gpu-node|gpu:gpu-0".into(), "node=gpu-node|".into()],
            ),
            (
                // The second user of a shared claim wants the CPU node: the claim is not
                // available there, and another pod holds it, so nothing is freed.
                "shared-claim-elsewhere",
                vec![CLASS.into(), slice(1), claim("shared", false, 1, "")],
                vec![pod("pod-a", "claim:shared", ""), pod("pod-b", "claim:shared", "cpu")],
                vec![
                    "node=gpu-node|gpu:gpu-0".into(),
                    format!("failed=0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 resourceclaim not available on the node. {st}{PREEMPT_2}"),
                ],
            ),
        ];
        for (name, docs, pods, want) in cases {
            let mut all = vec![NODES.to_string()];
            all.extend(docs);
            let got = run(v, &all, &pods);
            assert_eq!(got, want, "{name} on {v}");
        }
    }
}

/// A claim allocated on a node the pod cannot use and reserved for nobody: PostFilter
/// clears its allocation (`deallocation of ResourceClaim completed`), the claim's
/// change requeues the pod, and the next attempt finds no device on the CPU node
/// (as the real v1.37.2 scheduler's two events say).
#[test]
fn unreserved_allocated_claim_is_deallocated() {
    let allocated = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: left, namespace: default}\nspec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}\nstatus:\n  allocation:\n    devices: {results: [{request: gpu, driver: gpu.nvidia.com, pool: gpu-node, device: gpu-0}]}\n    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [gpu-node]}]}]}\n";
    let docs = vec![NODES.to_string(), CLASS.into(), slice(1), allocated.into()];
    for v in [KubeVersion::V1_35, KubeVersion::V1_37] {
        let got = run(v, &docs, &[pod("pod-b", "claim:left", "cpu")]);
        let first = format!("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 resourceclaim not available on the node. deallocation of ResourceClaim completed, {PREEMPT_2}");
        let then = format!("0/2 nodes are available: 1 cannot allocate all claims, 1 node(s) didn't match Pod's node affinity/selector. {}{PREEMPT_2}", still(v));
        assert_eq!(got, vec![format!("failed={first} [deallocated left] then failed={then}")], "{v}");
    }
}

/// Cases of upstream's plugin test (`dynamicresources_test.go`, `TestPlugin`), with
/// their names and statuses: PreEnqueue's refusals, PreFilter's Skip, Filter's and
/// PostFilter's texts (PostFilter's `still not schedulable` as 1.34–1.36 say it).
#[test]
fn plugin_cases_from_upstream() {
    use gpulab_model::kubernetes::dra::dynamicresources::Plugin;
    use gpulab_model::kubernetes::scheduler::framework::{DraReason, DynamicResources};
    use gpulab_model::kubernetes::scheduler::{NodeInfo, PodInfo};
    use std::sync::Arc;

    let worker = "apiVersion: v1\nkind: Node\nmetadata: {name: worker}\n";
    let class = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: my-resource-class}\nspec: {}\n";
    let slice = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: worker-slice}\nspec: {driver: some-driver, nodeName: worker, pool: {name: worker, generation: 1, resourceSliceCount: 1}, devices: [{name: instance-1}]}\n";
    let claim = |extra_meta: &str, status: &str| {
        format!("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: my-pod-my-resource, namespace: default{extra_meta}}}\nspec: {{devices: {{requests: [{{name: req-1, exactly: {{deviceClassName: my-resource-class}}}}]}}}}\n{status}")
    };
    let other_allocated = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: other, namespace: default}\nspec: {devices: {requests: [{name: req-1, exactly: {deviceClassName: my-resource-class}}]}}\nstatus: {allocation: {devices: {results: [{request: req-1, driver: some-driver, pool: worker, device: instance-1}]}}}\n";
    let owned = ", ownerReferences: [{apiVersion: v1, kind: Pod, name: my-pod, uid: '1234', controller: true}]";
    let wrong_owner = ", ownerReferences: [{apiVersion: v1, kind: Pod, name: my-pod, uid: '1234123', controller: true}]";
    let deleted = ", deletionTimestamp: '2026-01-01T00:00:00Z', ownerReferences: [{apiVersion: v1, kind: Pod, name: my-pod, uid: '1234', controller: true}]";
    let pod_template = "apiVersion: v1\nkind: Pod\nmetadata: {name: my-pod, namespace: default, uid: '1234'}\nspec: {resourceClaims: [{name: my-resource, resourceClaimTemplateName: my-template}], containers: [{name: c, image: x}]}\n";
    let pod_template_in_status = format!("{pod_template}status: {{resourceClaimStatuses: [{{name: my-resource, resourceClaimName: my-pod-my-resource}}]}}\n");
    let pod_claim_name = "apiVersion: v1\nkind: Pod\nmetadata: {name: my-pod, namespace: default, uid: '1234'}\nspec: {resourceClaims: [{name: my-resource, resourceClaimName: my-pod-my-resource}], containers: [{name: c, image: x}]}\n";
    let empty_pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: foo, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n";

    // (name, objects, pod, PreEnqueue error, Filter on the worker, PostFilter on 1.35)
    let cases: Vec<(&str, Vec<String>, String, Option<&str>, Option<DraReason>, Option<&str>)> = vec![
        ("empty", vec![], empty_pod.into(), None, None, None),
        ("missing-claim", vec![claim(owned, "")], pod_template.into(), Some("pod \"default/my-pod\": ResourceClaim not created yet"), None, None),
        ("deleted-claim", vec![claim(deleted, "")], pod_template_in_status.clone(), Some("resourceclaim \"my-pod-my-resource\" is being deleted"), None, None),
        (
            "wrong-claim",
            vec![claim(wrong_owner, "")],
            pod_template_in_status.clone(),
            Some("ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)"),
            None,
            None,
        ),
        ("no-resources", vec![class.into(), claim("", "")], pod_claim_name.into(), None, Some(DraReason::CannotAllocate), Some("still not schedulable")),
        ("with-resources", vec![class.into(), slice.into(), claim("", "")], pod_claim_name.into(), None, None, None),
        (
            "exhausted-resources",
            vec![class.into(), slice.into(), claim("", ""), other_allocated.into()],
            pod_claim_name.into(),
            None,
            Some(DraReason::CannotAllocate),
            Some("still not schedulable"),
        ),
    ];
    for (name, docs, pod, pre_enqueue, filter, post_filter) in cases {
        let mut all = vec![worker.to_string()];
        all.extend(docs);
        let (cluster, diags) = load("cluster.yaml", &all.join("---\n"));
        assert!(diags.is_empty(), "{name}: {diags:?}");
        let (objects, diags) = gpulab_model::kubernetes::dra::read(&cluster);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        let state = State::from(objects);
        let plugin = Plugin::new(Arc::new(state), KubeVersion::V1_35);
        let (p, diags) = load("pod.yaml", &pod);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        let pod = p.pods.into_iter().next().unwrap().object;
        assert_eq!(plugin.pre_enqueue(&pod).err().as_deref(), pre_enqueue, "{name}: PreEnqueue");
        if pre_enqueue.is_some() {
            continue;
        }
        let node = NodeInfo::new(cluster.nodes.into_iter().next().unwrap().object);
        match plugin.pre_filter(&PodInfo::new(pod, true)).unwrap() {
            None => assert_eq!(name, "empty", "PreFilter Skip only without claims"),
            Some(cycle) => {
                assert_eq!(cycle.filter(&node), filter, "{name}: Filter");
                if let Some(want) = post_filter {
                    assert_eq!(cycle.post_filter(&[&node]).reasons, vec![want.to_string()], "{name}: PostFilter");
                }
            }
        }
    }
}
