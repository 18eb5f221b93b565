//! The scheduler's cache snapshot: one [`NodeInfo`] per node (allocatable, what the
//! bound pods request, their host ports) and the [`PodInfo`] of the pod being
//! scheduled, both precomputed once so filters are cheap on 5,000 nodes.

use std::sync::Arc;

use k8s_openapi::api::core::v1::{Container, ContainerPort, Node, Pod, ResourceRequirements, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::hash::FastMap;
use crate::kubernetes::resources::{parse_resource_list, pod_request_and_non_zero, Resource};

/// A host port a pod binds (`HostPortInfo` entry), sanitised: empty IP = `0.0.0.0`,
/// empty protocol = `TCP`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    pub ip: String,
    pub protocol: String,
    pub port: i32,
}

/// `DefaultBindAllHostIP`.
pub const BIND_ALL_HOST_IP: &str = "0.0.0.0";

impl HostPort {
    /// `HostPortInfo.CheckConflict` of `self` (wanted) against one used port.
    pub fn conflicts_with(&self, used: &HostPort) -> bool {
        self.port > 0
            && self.port == used.port
            && self.protocol == used.protocol
            && (self.ip == BIND_ALL_HOST_IP || used.ip == BIND_ALL_HOST_IP || self.ip == used.ip)
    }
}

/// The host ports of a pod's containers.
pub fn pod_host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = &pod.spec else { return Vec::new() };
    spec.containers
        .iter()
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(|p| {
            let port = p.host_port.filter(|&hp| hp > 0)?;
            let ip = p.host_ip.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| BIND_ALL_HOST_IP.into());
            let protocol = p.protocol.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| "TCP".into());
            Some(HostPort { ip, protocol, port })
        })
        .collect()
}

/// `corev1helpers.PodPriority`: `spec.priority`, 0 when unset.
pub fn pod_priority(pod: &Pod) -> i32 {
    pod.spec.as_ref().and_then(|s| s.priority).unwrap_or(0)
}

/// A pod bound to a node, as the scheduler accounts for it.
#[derive(Debug, Clone)]
pub struct BoundPod {
    pub namespace: String,
    pub name: String,
    pub priority: i32,
    pub request: Resource,
    pub non_zero: (i64, i64),
    pub host_ports: Vec<HostPort>,
    /// `metadata.deletionTimestamp` is set.
    pub terminating: bool,
    /// `status.startTime` as written (RFC 3339), for preemption's tie-break.
    pub start_time: Option<String>,
}

impl BoundPod {
    /// The accounting of a Pod object as the API server stored it (requests
    /// defaulted from limits, as `SetDefaults_Pod` does on create).
    pub fn of(pod: &Pod, pod_level_resources: bool) -> BoundPod {
        // Copied only when defaulting changes it: most stored pods state their requests.
        let defaulted;
        let pod = if crate::kubernetes::validation::requests_default_from_limits(pod) {
            let mut copy = pod.clone();
            crate::kubernetes::validation::default_requests_from_limits(&mut copy);
            defaulted = copy;
            &defaulted
        } else {
            pod
        };
        let (request, non_zero) = pod_request_and_non_zero(pod, pod_level_resources);
        BoundPod {
            namespace: pod.metadata.namespace.clone().unwrap_or_else(|| "default".into()),
            name: pod.metadata.name.clone().or_else(|| pod.metadata.generate_name.clone()).unwrap_or_default(),
            priority: pod_priority(pod),
            request,
            non_zero,
            host_ports: pod_host_ports(pod),
            terminating: pod.metadata.deletion_timestamp.is_some(),
            start_time: pod.status.as_ref().and_then(|s| s.start_time.as_ref()).map(|t| t.0.to_string()),
        }
    }
}

/// One node of the snapshot (`framework.NodeInfo`).
#[derive(Debug, Clone)]
pub struct NodeInfo {
    /// The Node object, behind a pointer so the per-node hot data stays small and
    /// contiguous; shared, so a copy of a `NodeInfo` (the rollout keeps one per node
    /// and binds on copies) does not copy the Node.
    pub node: Arc<Node>,
    /// `spec.unschedulable` and whether `spec.taints` is non-empty, cached by `new`
    /// (the filters read them for every node of every cycle).
    unschedulable: bool,
    has_taints: bool,
    pub name: String,
    pub allocatable: Resource,
    /// Sum of the bound pods' requests (`NodeInfo.Requested`).
    pub requested: Resource,
    /// Sum of the bound pods' scoring requests (`NonZeroRequested`): cpu, memory.
    pub non_zero_requested: (i64, i64),
    pub pods: Vec<BoundPod>,
    pub used_ports: Vec<HostPort>,
}

impl NodeInfo {
    /// A node with no pods yet.
    pub fn new(node: Node) -> NodeInfo {
        Self::shared(Arc::new(node))
    }

    /// [`NodeInfo::new`] on a shared Node (not copied).
    pub fn shared(node: Arc<Node>) -> NodeInfo {
        let allocatable =
            Resource::from_list(&parse_resource_list(node.status.as_ref().and_then(|s| s.allocatable.as_ref())));
        let spec = node.spec.as_ref();
        NodeInfo {
            name: node.metadata.name.clone().unwrap_or_default(),
            unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
            has_taints: spec.and_then(|s| s.taints.as_ref()).is_some_and(|t| !t.is_empty()),
            node,
            allocatable,
            requested: Resource::default(),
            non_zero_requested: (0, 0),
            pods: Vec::new(),
            used_ports: Vec::new(),
        }
    }

    /// `NodeInfo.AddPod`.
    pub fn add_pod(&mut self, pod: BoundPod) {
        self.requested.add(&pod.request);
        self.non_zero_requested.0 = self.non_zero_requested.0.wrapping_add(pod.non_zero.0);
        self.non_zero_requested.1 = self.non_zero_requested.1.wrapping_add(pod.non_zero.1);
        self.used_ports.extend(pod.host_ports.iter().cloned());
        self.pods.push(pod);
    }

    /// `NodeInfo.RemovePod` of the pod at `index`.
    pub fn remove_pod(&mut self, index: usize) -> Option<BoundPod> {
        if index >= self.pods.len() {
            return None;
        }
        let pod = self.pods.remove(index);
        self.requested.sub(&pod.request);
        self.non_zero_requested.0 = self.non_zero_requested.0.wrapping_sub(pod.non_zero.0);
        self.non_zero_requested.1 = self.non_zero_requested.1.wrapping_sub(pod.non_zero.1);
        for hp in &pod.host_ports {
            if let Some(i) = self.used_ports.iter().position(|u| u == hp) {
                self.used_ports.remove(i);
            }
        }
        Some(pod)
    }

    /// `spec.taints`.
    pub fn taints(&self) -> &[Taint] {
        if !self.has_taints {
            return &[];
        }
        self.node.spec.as_ref().and_then(|s| s.taints.as_deref()).unwrap_or(&[])
    }

    /// `spec.unschedulable`.
    pub fn unschedulable(&self) -> bool {
        self.unschedulable
    }
}

/// All nodes, in the order given (the order the explanation lists them).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub nodes: Vec<NodeInfo>,
    /// PodLevelResources (beta, on by default from 1.34).
    pub pod_level_resources: bool,
}

impl Snapshot {
    /// A snapshot of `nodes` with the `pods` bound to them by `spec.nodeName`
    /// (pods on unknown nodes, unbound pods and finished pods are not counted).
    pub fn new(nodes: impl IntoIterator<Item = Node>, pods: &[Pod]) -> Snapshot {
        let mut s = Snapshot { nodes: nodes.into_iter().map(NodeInfo::new).collect(), pod_level_resources: true };
        // Node name → the first node with it (what `index_of` finds), so binding 20,000
        // pods is not a scan of 5,000 nodes each.
        let mut by_name: FastMap<String, usize> = FastMap::with_capacity_and_hasher(s.nodes.len(), Default::default());
        for (i, n) in s.nodes.iter().enumerate() {
            by_name.entry(n.name.clone()).or_insert(i);
        }
        for p in pods {
            let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
            if matches!(phase, Some("Succeeded" | "Failed")) {
                continue;
            }
            let Some(node_name) = p.spec.as_ref().and_then(|s| s.node_name.as_deref()) else { continue };
            if let Some(n) = by_name.get(node_name).and_then(|&i| s.nodes.get_mut(i)) {
                n.add_pod(BoundPod::of(p, s.pod_level_resources));
            }
        }
        s
    }

    /// A snapshot of `nodes` with pods already reduced to their accounting, each with
    /// the name of its node, in the order [`Snapshot::new`] takes pods (pods on
    /// unknown nodes are not counted). `bound` is what
    /// [`crate::kubernetes::yaml::load_cluster`] reads: the same snapshot as `new` on
    /// the Pod objects, without holding them.
    pub fn with_bound(nodes: impl IntoIterator<Item = Node>, bound: impl IntoIterator<Item = (String, BoundPod)>) -> Snapshot {
        let mut s = Snapshot::new(nodes, &[]);
        let mut by_name: FastMap<String, usize> = FastMap::with_capacity_and_hasher(s.nodes.len(), Default::default());
        for (i, n) in s.nodes.iter().enumerate() {
            by_name.entry(n.name.clone()).or_insert(i);
        }
        for (node, pod) in bound {
            if let Some(n) = by_name.get(&node).and_then(|&i| s.nodes.get_mut(i)) {
                n.add_pod(pod);
            }
        }
        s
    }

    /// The index of the node named `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// The pod being scheduled, precomputed (`framework.PodInfo` + PreFilter state).
#[derive(Debug, Clone)]
pub struct PodInfo {
    pub pod: Pod,
    pub request: Resource,
    pub non_zero: (i64, i64),
    pub priority: i32,
    pub host_ports: Vec<HostPort>,
}

impl PodInfo {
    /// Precomputes what the filters need.
    pub fn new(pod: Pod, pod_level_resources: bool) -> PodInfo {
        let (request, non_zero) = pod_request_and_non_zero(&pod, pod_level_resources);
        PodInfo {
            request,
            non_zero,
            priority: pod_priority(&pod),
            host_ports: pod_host_ports(&pod),
            pod,
        }
    }

    /// [`PodInfo::new`], reusing `memo`'s computations when `pod`'s spec gives them the
    /// same inputs as the pod they were made for (the pods of one DaemonSet template,
    /// thousands in a rollout, differ only in fields these computations do not read).
    pub fn new_memo(pod: Pod, pod_level_resources: bool, memo: &mut PodInfoMemo) -> PodInfo {
        if let Some(kept) = memo.kept.as_ref().filter(|k| k.pod_level_resources == pod_level_resources && k.inputs.matches(&pod)) {
            return PodInfo {
                request: kept.request.clone(),
                non_zero: kept.non_zero,
                priority: kept.priority,
                host_ports: kept.host_ports.clone(),
                pod,
            };
        }
        let info = PodInfo::new(pod, pod_level_resources);
        memo.kept = Some(Kept {
            pod_level_resources,
            inputs: RequestInputs::of(&info.pod),
            request: info.request.clone(),
            non_zero: info.non_zero,
            priority: info.priority,
            host_ports: info.host_ports.clone(),
        });
        info
    }

    /// `spec.tolerations`.
    pub fn tolerations(&self) -> &[Toleration] {
        self.pod.spec.as_ref().and_then(|s| s.tolerations.as_deref()).unwrap_or(&[])
    }

    /// `namespace/name`.
    pub fn key(&self) -> (String, String) {
        (
            self.pod.metadata.namespace.clone().unwrap_or_else(|| "default".into()),
            self.pod.metadata.name.clone().unwrap_or_default(),
        )
    }

    /// The accounting once bound.
    pub fn as_bound(&self) -> BoundPod {
        let (namespace, name) = self.key();
        BoundPod {
            namespace,
            name,
            priority: self.priority,
            request: self.request.clone(),
            non_zero: self.non_zero,
            host_ports: self.host_ports.clone(),
            terminating: false,
            start_time: None,
        }
    }
}

/// The last [`PodInfo::new_memo`] computation and what it read.
#[derive(Debug, Clone, Default)]
pub struct PodInfoMemo {
    kept: Option<Kept>,
}

#[derive(Debug, Clone)]
struct Kept {
    pod_level_resources: bool,
    inputs: RequestInputs,
    request: Resource,
    non_zero: (i64, i64),
    priority: i32,
    host_ports: Vec<HostPort>,
}

/// Every field of a pod that [`PodInfo::new`]'s computations read
/// (`pod_resource_request`, `pod_non_zero_request`, `pod_priority`, `pod_host_ports`).
#[derive(Debug, Clone, PartialEq)]
struct RequestInputs {
    has_spec: bool,
    containers: Vec<ContainerInputs>,
    init_containers: Option<Vec<ContainerInputs>>,
    resources: Option<ResourceRequirements>,
    overhead: Option<std::collections::BTreeMap<String, Quantity>>,
    priority: Option<i32>,
}

/// What those computations read of one container.
#[derive(Debug, Clone, PartialEq)]
struct ContainerInputs {
    resources: Option<ResourceRequirements>,
    restart_policy: Option<String>,
    ports: Option<Vec<ContainerPort>>,
}

impl ContainerInputs {
    fn of(c: &Container) -> Self {
        ContainerInputs { resources: c.resources.clone(), restart_policy: c.restart_policy.clone(), ports: c.ports.clone() }
    }

    fn matches(&self, c: &Container) -> bool {
        self.resources == c.resources && self.restart_policy == c.restart_policy && self.ports == c.ports
    }
}

impl RequestInputs {
    fn of(pod: &Pod) -> Self {
        let spec = pod.spec.as_ref();
        RequestInputs {
            has_spec: spec.is_some(),
            containers: spec.map(|s| s.containers.iter().map(ContainerInputs::of).collect()).unwrap_or_default(),
            init_containers: spec.and_then(|s| s.init_containers.as_ref()).map(|cs| cs.iter().map(ContainerInputs::of).collect()),
            resources: spec.and_then(|s| s.resources.clone()),
            overhead: spec.and_then(|s| s.overhead.clone()),
            priority: spec.and_then(|s| s.priority),
        }
    }

    fn matches(&self, pod: &Pod) -> bool {
        let same = |kept: &[ContainerInputs], cs: &[Container]| kept.len() == cs.len() && kept.iter().zip(cs).all(|(k, c)| k.matches(c));
        match pod.spec.as_ref() {
            None => !self.has_spec,
            Some(s) => {
                self.has_spec
                    && same(&self.containers, &s.containers)
                    && match (&self.init_containers, &s.init_containers) {
                        (None, None) => true,
                        (Some(k), Some(cs)) => same(k, cs),
                        _ => false,
                    }
                    && self.resources == s.resources
                    && self.overhead == s.overhead
                    && self.priority == s.priority
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::PodSpec;

    fn pod(cpu: Option<&str>, port: Option<i32>, init: bool, priority: Option<i32>, node: &str) -> Pod {
        let resources = cpu.map(|c| ResourceRequirements {
            requests: Some([("cpu".to_string(), Quantity(c.into()))].into()),
            ..ResourceRequirements::default()
        });
        let ports = port.map(|p| vec![ContainerPort { container_port: p, host_port: Some(p), ..ContainerPort::default() }]);
        let container = Container { name: "c".into(), resources, ports, ..Container::default() };
        let init_containers = init.then(|| vec![Container { restart_policy: Some("Always".into()), ..container.clone() }]);
        let mut p = Pod::default();
        p.spec = Some(PodSpec { containers: vec![container], init_containers, priority, node_name: Some(node.into()), ..PodSpec::default() });
        p
    }

    /// `PodInfo::new_memo` computes what `PodInfo::new` does, pod after pod, whether
    /// the next pod reads the same (a kept computation) or differs in any input.
    #[test]
    fn memo_gives_what_new_gives() {
        let pods = [
            pod(Some("100m"), None, false, None, "a"),
            pod(Some("100m"), None, false, None, "b"),
            pod(Some("200m"), None, false, None, "a"),
            pod(Some("200m"), Some(8080), false, None, "a"),
            pod(Some("200m"), Some(8080), true, None, "a"),
            pod(Some("200m"), Some(8080), true, Some(7), "a"),
            pod(None, None, false, None, "a"),
            Pod::default(),
            pod(None, None, false, None, "c"),
        ];
        let mut memo = PodInfoMemo::default();
        for level in [true, false] {
            for p in &pods {
                let (want, got) = (PodInfo::new(p.clone(), level), PodInfo::new_memo(p.clone(), level, &mut memo));
                assert_eq!(
                    (&got.request, got.non_zero, got.priority, &got.host_ports, &got.pod),
                    (&want.request, want.non_zero, want.priority, &want.host_ports, &want.pod)
                );
            }
        }
    }
}
