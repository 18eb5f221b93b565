//! The chunk's requests as JSON text ([`gpulab_view`]'s request types, written with
//! [`crate::json`] instead of serde_json so the first load carries no serde code).
//! The chunk reads them with serde; a test holds the two together.

use gpulab_view::{CheckRequest, ContainerdFiles, KubeRequest, RolloutRequest, SlotsRequest, SyntaxRequest};

use crate::json::{self, Object};
use crate::work_json::write_patch;

/// A request the chunk reads as JSON.
pub trait ToJson {
    fn to_json(&self) -> String;
}

fn containerd(out: &mut String, c: &ContainerdFiles) {
    Object::new(out).str("version", &c.version).str("main", &c.main).str("dropin", &c.dropin).end();
}

impl ToJson for SlotsRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .str("gpu_model", &self.gpu_model)
            .num("gpus_per_node", self.gpus_per_node.into())
            .num("nodes", self.nodes.into())
            .num("replicas", self.replicas.into())
            .str("config", &self.config)
            .str("lang", &self.lang)
            .end();
        out
    }
}

impl ToJson for KubeRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .str("version", &self.version)
            .str("cluster", &self.cluster)
            .str("runtimeclass", &self.runtimeclass)
            .str("pod", &self.pod)
            .with("patches", |out| json::array(out, &self.patches, write_patch))
            .with("containerd", |out| containerd(out, &self.containerd))
            .str("kubelet_node", &self.kubelet_node)
            .strs("node_ops", self.node_ops.iter().map(String::as_str))
            .bool("by_hand", self.by_hand)
            .end();
        out
    }
}

impl ToJson for RolloutRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out).str("lang", &self.lang).str("work", &self.work).bool("broken", self.broken).end();
        out
    }
}

impl ToJson for CheckRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out)
            .with("containerd", |out| containerd(out, &self.containerd))
            .bool("by_hand", self.by_hand)
            .strs("ops", self.ops.iter().map(String::as_str))
            .str("handler", &self.handler)
            .str("keep", &self.keep)
            .str("lang", &self.lang)
            .end();
        out
    }
}

impl ToJson for SyntaxRequest {
    fn to_json(&self) -> String {
        let mut out = String::new();
        Object::new(&mut out).str("version", &self.version).str("path", &self.path).str("text", &self.text).end();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulab_view::NodePatch;

    const TRICKY: &str = "a \"quoted\" \\ line\n\ttab \u{1} 한국어";

    fn files() -> ContainerdFiles {
        ContainerdFiles { version: "1.7.34".into(), main: TRICKY.into(), dropin: String::new() }
    }

    /// Each request is written byte for byte as serde_json writes it, so the chunk
    /// (which reads with serde) gets exactly what it got before.
    #[test]
    fn same_json_as_serde() {
        let slots = SlotsRequest { gpu_model: "Tesla T4".into(), gpus_per_node: 4, nodes: u32::MAX, replicas: 0, config: TRICKY.into(), lang: "ko".into() };
        assert_eq!(slots.to_json(), serde_json::to_string(&slots).unwrap());
        let patch = NodePatch { node: "gpu-node-1".into(), resource: "nvidia.com/gpu".into(), quantity: "8".into() };
        for (patches, node_ops) in [(vec![], vec![]), (vec![patch.clone(), patch], vec!["write-dropin".to_string(), "restart".to_string()])] {
            let kube = KubeRequest {
                version: "1.36".into(),
                cluster: TRICKY.into(),
                runtimeclass: "x".into(),
                pod: String::new(),
                patches,
                containerd: files(),
                kubelet_node: "n".into(),
                by_hand: !node_ops.is_empty(),
                node_ops,
            };
            assert_eq!(kube.to_json(), serde_json::to_string(&kube).unwrap());
        }
        for ops in [vec![], vec!["write-dropin".to_string(), "run-check".to_string()]] {
            let c = CheckRequest { containerd: files(), by_hand: true, ops, handler: "nvidia".into(), keep: "runc".into(), lang: "ko".into() };
            assert_eq!(c.to_json(), serde_json::to_string(&c).unwrap());
        }
        let syntax = SyntaxRequest { version: "2.3.4".into(), path: "/etc/containerd/config.toml".into(), text: TRICKY.into() };
        assert_eq!(syntax.to_json(), serde_json::to_string(&syntax).unwrap());
        for broken in [false, true] {
            let r = RolloutRequest { lang: "en".into(), work: TRICKY.into(), broken };
            assert_eq!(r.to_json(), serde_json::to_string(&r).unwrap());
        }
    }
}
