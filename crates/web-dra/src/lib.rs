//! The lab's DRA module: step 6's paths to the GPU through Dynamic Resource Allocation
//! (a ResourceClaim; `nvidia.com/gpu` backed by a DeviceClass) — the model's DRA code
//! (k8s-openapi's `resource.k8s.io` types, validation, the CEL subset, the structured
//! allocator, the `DynamicResources` plugin) with the Kubernetes view it feeds. A wasm
//! module of its own, so neither the first load nor the Kubernetes chunk carries it:
//! the app imports it only when the chunk answers a request with
//! `KubeOutcome::NeedsDra` (a DRA path picked, DRA objects in a file, a pod with
//! claims), and shows a clear message with a retry if it does not load.
//!
//! # Layout
//!
//! - [`kube`]: `KubeRequest` JSON in, `Reply<KubeView>` JSON out —
//!   `gpu_node_lab_k8s::kube::view_dra`, the chunk's steps 5–6 view with DRA.
//! - [`slots`]: `SlotsRequest` JSON in, `Reply<SlotsView>` JSON out —
//!   `gpu_node_lab_k8s::slots::view_dra`, step 7's table with the DRA rows (the
//!   allocator over the NVIDIA driver's slices), asked for when the chunk's view
//!   says `needs_dra`.

use wasm_bindgen::prelude::wasm_bindgen;

/// Steps 5 and 6 with DRA: `KubeRequest` JSON in, `Reply<KubeView>` JSON out.
#[wasm_bindgen]
pub fn kube(request: &str) -> String {
    gpu_node_lab_k8s::kube_dra(request)
}

/// Step 7 with the DRA rows: `SlotsRequest` JSON in, `Reply<SlotsView>` JSON out.
#[wasm_bindgen]
pub fn slots(request: &str) -> String {
    gpu_node_lab_k8s::slots_dra(request)
}

#[cfg(test)]
mod tests {
    use gpulab_view::{KubeOutcome, KubeView, Reply};

    /// The module schedules the DRA path the chunk hands over: the lab's own DRA files
    /// (the request leaves them empty, and the reply carries them back) give the pod a
    /// GPU of gpu-node-2's slice, where the chunk's `kube` answers `NeedsDra`; a
    /// request with the learner's texts gets none of them back; bad JSON is an error
    /// reply.
    #[test]
    fn schedules_what_the_chunk_hands_over() {
        let request = serde_json::json!({
            "version": "1.36", "cluster": include_str!("../../../src/steps/data/cluster.yaml"),
            "runtimeclass": include_str!("../../../src/steps/data/runtimeclass.yaml"), "pod": "", "patches": [],
            "containerd": { "version": "1.7.34", "main": "", "dropin": "" },
            "kubelet_node": "", "node_ops": [], "by_hand": false, "path": "dra", "objects": "",
        })
        .to_string();
        let chunk: Reply<KubeView> = serde_json::from_str(&gpu_node_lab_k8s::kube(&request)).unwrap();
        assert_eq!(chunk.unwrap().outcome, KubeOutcome::NeedsDra {});
        let dra: Reply<KubeView> = serde_json::from_str(&super::kube(&request)).unwrap();
        let KubeOutcome::Created { verdict, claims, .. } = dra.clone().unwrap().outcome else { panic!("not created") };
        assert_eq!(verdict, "default/cuda-vectoradd: Scheduled to gpu-node-2");
        assert!(claims.contains("  gpu: gpu.nvidia.com gpu-node-2 gpu-0"), "{claims}");
        // The lab's own files go back to the app (it does not hold them); the learner's
        // texts do not (the app has them).
        let dra = dra.unwrap();
        assert_eq!(dra.objects, include_str!("../../../src/steps/data/dra.yaml"));
        assert_eq!(dra.pod, include_str!("../../../src/steps/data/dra-pod.yaml"));
        let mut own: serde_json::Value = serde_json::from_str(&request).unwrap();
        own["objects"] = format!("{}# the learner's\n", dra.objects).into();
        own["pod"] = dra.pod.clone().into();
        let reply: Reply<KubeView> = serde_json::from_str(&super::kube(&own.to_string())).unwrap();
        let reply = reply.unwrap();
        assert!(matches!(reply.outcome, KubeOutcome::Created { .. }), "{:?}", reply.outcome);
        assert_eq!((reply.pod.as_str(), reply.objects.as_str()), ("", ""));
        let bad: Reply<KubeView> = serde_json::from_str(&super::kube("{")).unwrap();
        assert!(bad.unwrap_err().starts_with("bad request"));
    }

    /// Step 7: the chunk's table says it needs the DRA module; the module's has the
    /// device plugin's rows and the DRA rows after them, every cell the model's.
    #[test]
    fn step7_rows_come_from_the_module() {
        use gpulab_view::SlotsView;
        let request = serde_json::json!({
            "gpu_model": "NVIDIA H100 80GB HBM3", "gpus_per_node": 8, "nodes": 2, "replicas": 4,
            "config": "", "lang": "ko", "k8s_version": "1.35",
        })
        .to_string();
        let chunk: Reply<SlotsView> = serde_json::from_str(&gpu_node_lab_k8s::slots(&request)).unwrap();
        let chunk = chunk.unwrap();
        assert!(chunk.needs_dra);
        let dra: Reply<SlotsView> = serde_json::from_str(&super::slots(&request)).unwrap();
        let dra = dra.unwrap();
        assert!(!dra.needs_dra);
        assert_eq!(dra.rows.get(..chunk.rows.len()), Some(&chunk.rows[..]));
        let labels: Vec<&str> = dra.rows.iter().skip(chunk.rows.len()).filter_map(|r| r.first()).map(String::as_str).collect();
        assert_eq!(labels.first(), Some(&"DRA: 클레임마다 GPU 전체"));
        assert!(labels.contains(&"DRA: 고정 MIG 장치 1g.10gb"), "{labels:?}");
        assert!(dra.notes.iter().any(|n| n.contains("DRAConsumableCapacity는 알파이고 꺼져")), "{:?}", dra.notes);
    }
}
