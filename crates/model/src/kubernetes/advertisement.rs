//! GPU advertisement as layers: node status ← kubelet ← device-plugin pod ← its
//! socket mount. `nvidia.com/gpu` appears in a node's capacity/allocatable only when
//! every layer holds; a break anywhere leaves GPU pods Pending with the same
//! scheduler text, and [`Advertisement::broken`] names the first broken layer in the
//! top-down investigation order (DESIGN §3 step 6).

use k8s_openapi::api::core::v1::{Node, NodeCondition, Taint};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use super::resources::NVIDIA_GPU;

/// The layers, in the order a learner investigates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Layer {
    /// The node is Ready (its kubelet posts status; containerd's CRI plugin loaded).
    NodeStatus,
    /// The kubelet runs and serves the device-plugin registration socket.
    Kubelet,
    /// The device-plugin DaemonSet pod runs on the node.
    DevicePluginPod,
    /// `/var/lib/kubelet/device-plugins` is mounted into that pod.
    SocketMount,
}

impl Layer {
    /// Top-down order.
    pub const ORDER: [Layer; 4] = [Layer::NodeStatus, Layer::Kubelet, Layer::DevicePluginPod, Layer::SocketMount];

    /// A stable code for diagnostics and the UI.
    pub fn code(self) -> &'static str {
        match self {
            Layer::NodeStatus => "node-status",
            Layer::Kubelet => "kubelet",
            Layer::DevicePluginPod => "device-plugin-pod",
            Layer::SocketMount => "socket-mount",
        }
    }
}

/// The state of each layer on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuNodeLayers {
    pub node_ready: bool,
    pub kubelet_running: bool,
    /// The device-plugin pod's phase is Running with its container ready.
    pub device_plugin_running: bool,
    pub socket_dir_mounted: bool,
    /// GPUs the plugin reports (physical × time-slicing replicas).
    pub devices: i64,
}

/// What the node advertises, and the first broken layer if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advertisement {
    /// `nvidia.com/gpu` in capacity and allocatable; `None` = the key is absent.
    pub gpus: Option<i64>,
    pub broken: Option<Layer>,
}

/// Evaluates the layers top-down.
pub fn advertise(layers: &GpuNodeLayers) -> Advertisement {
    let holds = |l: Layer| match l {
        Layer::NodeStatus => layers.node_ready,
        Layer::Kubelet => layers.kubelet_running,
        Layer::DevicePluginPod => layers.device_plugin_running,
        Layer::SocketMount => layers.socket_dir_mounted,
    };
    let broken = Layer::ORDER.into_iter().find(|l| !holds(*l));
    Advertisement { gpus: broken.is_none().then_some(layers.devices), broken }
}

/// The taint the node lifecycle controller puts on a NotReady node.
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";

/// Writes the advertisement into a node's status (and readiness): capacity and
/// allocatable gain or lose `nvidia.com/gpu`; a NotReady node gets `Ready=False`
/// and the `node.kubernetes.io/not-ready:NoSchedule` taint. The Ready condition's
/// reason/message texts are **[inferred]** (kubelet's `KubeletNotReady` family).
pub fn apply_to_node(node: &mut Node, layers: &GpuNodeLayers) -> Advertisement {
    let adv = advertise(layers);
    let status = node.status.get_or_insert_with(Default::default);
    for list in [&mut status.capacity, &mut status.allocatable] {
        let m = list.get_or_insert_with(Default::default);
        match adv.gpus {
            Some(n) => {
                m.insert(NVIDIA_GPU.into(), ApiQuantity(n.to_string()));
            }
            None => {
                m.remove(NVIDIA_GPU);
            }
        }
    }
    let ready = NodeCondition {
        type_: "Ready".into(),
        status: if layers.node_ready { "True" } else { "False" }.into(),
        reason: Some(if layers.node_ready { "KubeletReady" } else { "KubeletNotReady" }.into()),
        message: Some(
            if layers.node_ready { "kubelet is posting ready status" } else { "container runtime is down" }.into(),
        ),
        ..Default::default()
    };
    let conds = status.conditions.get_or_insert_with(Default::default);
    conds.retain(|c| c.type_ != "Ready");
    conds.push(ready);
    let spec = node.spec.get_or_insert_with(Default::default);
    let taints = spec.taints.get_or_insert_with(Default::default);
    taints.retain(|t| t.key != TAINT_NOT_READY);
    if !layers.node_ready {
        taints.push(Taint { key: TAINT_NOT_READY.into(), effect: "NoSchedule".into(), value: None, time_added: None });
    }
    if taints.is_empty() {
        spec.taints = None;
    }
    adv
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each single broken layer removes the GPUs and is named; several broken layers
    /// name the topmost.
    #[test]
    fn first_broken_layer_is_named() {
        let ok = GpuNodeLayers {
            node_ready: true,
            kubelet_running: true,
            device_plugin_running: true,
            socket_dir_mounted: true,
            devices: 4,
        };
        assert_eq!(advertise(&ok), Advertisement { gpus: Some(4), broken: None });
        let cases = [
            (GpuNodeLayers { socket_dir_mounted: false, ..ok.clone() }, Layer::SocketMount),
            (GpuNodeLayers { device_plugin_running: false, ..ok.clone() }, Layer::DevicePluginPod),
            (GpuNodeLayers { kubelet_running: false, socket_dir_mounted: false, ..ok.clone() }, Layer::Kubelet),
            (GpuNodeLayers { node_ready: false, device_plugin_running: false, ..ok.clone() }, Layer::NodeStatus),
        ];
        for (layers, want) in cases {
            assert_eq!(advertise(&layers), Advertisement { gpus: None, broken: Some(want) });
        }
    }
}
