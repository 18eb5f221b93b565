//! NVIDIA's driver's node side read like the spec: what it publishes per GPU model,
//! its DeviceClasses against those devices, the partitionable MIG form through the
//! allocator with the gate on and off, its config decoding, and the kubelet's texts.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::resource::v1::{Device, ResourceClaim, ResourceSlice};

use super::allocator::{Allocator, DeviceId, Slice};
use super::cel;
use super::dynamicresources::features;
use super::kubelet;
use super::nvidia::{decode_config, device_classes, resource_slices, Mig, NodeGpus, Sharing, DRIVER};
use super::validation::validate_resource_slice;
use crate::kubernetes::KubeVersion;
use crate::slots::mig::{Geometry, MigCatalog};
use crate::slots::GpuModel;

fn gpus(model: &str, count: u32, mig: Mig) -> NodeGpus {
    let m = GpuModel::known(model).ok().flatten().unwrap_or_else(|| panic!("{model} not known"));
    NodeGpus { mig, ..NodeGpus::new("gpu-node-1", m, count) }
}

fn slices(g: &NodeGpus, memory: Option<u64>) -> Vec<ResourceSlice> {
    let catalog = MigCatalog::embedded().unwrap_or_else(|e| panic!("{e}"));
    resource_slices(g, memory, &catalog).unwrap_or_else(|e| panic!("{e}"))
}

fn devices(s: &[ResourceSlice]) -> Vec<&Device> {
    s.iter().flat_map(|s| s.spec.devices.iter().flatten()).collect()
}

fn attr(d: &Device, name: &str) -> String {
    let a = d.attributes.as_ref().and_then(|a| a.get(name)).unwrap_or_else(|| panic!("{}: no {name}", d.name));
    a.string.clone().or(a.version.clone()).or(a.int.map(|i| i.to_string())).unwrap_or_default()
}

/// Per model, MIG off: `gpu-<i>` devices with the attributes and memory the driver
/// publishes, and a slice the API server accepts.
#[test]
fn whole_gpus_per_model() {
    // model, memory override, device, productName, architecture, cudaComputeCapability, brand, memory
    let cases = [
        ("NVIDIA H100 80GB HBM3", None, "gpu-1", "Hopper", "9.0.0", "Nvidia", "81559Mi"),
        ("Tesla T4", None, "gpu-1", "Turing", "7.5.0", "Tesla", "15360Mi"),
        ("NVIDIA A100-SXM4-40GB", Some(40960), "gpu-1", "Ampere", "8.0.0", "Nvidia", "40960Mi"),
        ("NVIDIA B200 180GB HBM3e", Some(183359), "gpu-1", "Blackwell", "10.0.0", "Nvidia", "183359Mi"),
        ("Tesla V100-SXM2-16GB", Some(16384), "gpu-1", "Volta", "7.0.0", "Tesla", "16384Mi"),
    ];
    for (model, memory, name, arch, cc, brand, mem) in cases {
        let s = slices(&gpus(model, 2, Mig::Disabled), memory);
        assert_eq!(s.len(), 1, "{model}");
        let v = validate_resource_slice(&s[0]);
        assert!(v.errors.is_empty(), "{model}: {:?}", v.errors);
        assert_eq!(s[0].spec.driver, DRIVER);
        assert_eq!(s[0].spec.pool.name, "gpu-node-1");
        assert_eq!(s[0].spec.node_name.as_deref(), Some("gpu-node-1"));
        let d = devices(&s);
        assert_eq!(d.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), ["gpu-0", "gpu-1"], "{model}");
        let d = d[1];
        assert_eq!(d.name, name);
        assert_eq!(attr(d, "type"), "gpu");
        assert_eq!(attr(d, "productName"), model);
        assert_eq!(attr(d, "architecture"), arch, "{model}");
        assert_eq!(attr(d, "cudaComputeCapability"), cc, "{model}");
        assert_eq!(attr(d, "brand"), brand, "{model}");
        assert_eq!(attr(d, "driverVersion"), "550.54.15");
        assert_eq!(attr(d, "cudaDriverVersion"), "12.4.0");
        assert_eq!(attr(d, "index"), "1");
        assert!(attr(d, "uuid").starts_with("GPU-") && attr(d, "uuid").len() == 40, "{}", attr(d, "uuid"));
        assert_eq!(d.capacity.as_ref().and_then(|c| c.get("memory")).map(|q| q.value.0.as_str()), Some(mem), "{model}");
    }
}

/// A model the data gives no memory for needs it given; MIG asks a MIG-capable GPU.
#[test]
fn missing_facts_are_errors() {
    let catalog = MigCatalog::embedded().unwrap_or_else(|e| panic!("{e}"));
    let a100 = gpus("NVIDIA A100-SXM4-40GB", 1, Mig::Disabled);
    assert_eq!(resource_slices(&a100, None, &catalog).err().as_deref(), Some("NVIDIA A100-SXM4-40GB: the GPU memory is not known; give it (MiB)"));
    let t4 = gpus("Tesla T4", 1, Mig::Partitionable);
    assert_eq!(resource_slices(&t4, None, &catalog).err().as_deref(), Some("Tesla T4 is not MIG-capable"));
    let bad = gpus("NVIDIA H100 80GB HBM3", 1, Mig::Static(Geometry::parse("8x1g.10gb").unwrap_or_default()));
    assert!(resource_slices(&bad, None, &catalog).is_err());
}

/// The two GPU classes, as the chart installs them, against whole GPUs and MIG
/// devices: each takes its own type only.
#[test]
fn device_classes_select_their_type() {
    let classes = device_classes();
    let names: Vec<_> = classes.iter().map(|c| c.metadata.name.clone().unwrap_or_default()).collect();
    assert_eq!(names, ["gpu.nvidia.com", "mig.nvidia.com"]);
    let whole = slices(&gpus("NVIDIA H100 80GB HBM3", 1, Mig::Disabled), None);
    let mig = slices(&gpus("NVIDIA H100 80GB HBM3", 1, Mig::Static(Geometry::parse("7x1g.10gb").unwrap_or_default())), None);
    for (class, device, want) in [(0, &whole, true), (0, &mig, false), (1, &whole, false), (1, &mig, true)] {
        let expr = &classes[class].spec.selectors.as_ref().unwrap()[0].cel.as_ref().unwrap().expression;
        let sel = cel::compile(expr).unwrap_or_else(|e| panic!("{}", e.detail));
        for d in devices(device) {
            assert_eq!(sel.matches(DRIVER, d), Ok(want), "{expr} on {}", d.name);
        }
    }
}

/// Static MIG: only the MIG devices, named `gpu-<i>-mig-<giProfileId>-<start>-<size>`,
/// with the profile, the parent's UUID and the instance's memory.
#[test]
fn static_mig_devices() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "NVIDIA A100-SXM4-40GB",
            "7x1g.5gb",
            &["gpu-0-mig-19-0-1", "gpu-0-mig-19-1-1", "gpu-0-mig-19-2-1", "gpu-0-mig-19-3-1", "gpu-0-mig-19-4-1", "gpu-0-mig-19-5-1", "gpu-0-mig-19-6-1"],
        ),
        ("NVIDIA A100-SXM4-40GB", "4g.20gb,3g.20gb", &["gpu-0-mig-5-0-4", "gpu-0-mig-9-4-4"]),
        ("NVIDIA H100 80GB HBM3", "2x1g.10gb,1x2g.20gb,1x3g.40gb", &["gpu-0-mig-14-0-2", "gpu-0-mig-19-2-1", "gpu-0-mig-19-3-1", "gpu-0-mig-9-4-4"]),
    ];
    for (model, geometry, want) in cases {
        let g = gpus(model, 1, Mig::Static(Geometry::parse(geometry).unwrap_or_default()));
        let s = slices(&g, Some(40960));
        assert!(validate_resource_slice(&s[0]).errors.is_empty());
        let d = devices(&s);
        assert_eq!(d.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(), *want, "{model} {geometry}");
        assert!(d.iter().all(|d| attr(d, "type") == "mig" && attr(d, "parentUUID").starts_with("GPU-")));
    }
    let h100 = slices(&gpus("NVIDIA H100 80GB HBM3", 1, Mig::Static(Geometry::parse("1x3g.40gb").unwrap_or_default())), None);
    let d = devices(&h100)[0];
    assert_eq!(attr(d, "profile"), "3g.40gb");
    assert_eq!(d.capacity.as_ref().and_then(|c| c.get("memory")).map(|q| q.value.0.as_str()), Some("40320Mi"));
}

fn node() -> Node {
    serde_json::from_value(serde_json::json!({"metadata": {"name": "gpu-node-1"}})).unwrap_or_else(|e| panic!("{e}"))
}

fn claim(name: &str, class: &str, profile: Option<&str>) -> ResourceClaim {
    let selectors = profile.map_or_else(Vec::new, |p| vec![serde_json::json!({"cel": {"expression": format!("device.attributes['gpu.nvidia.com'].profile == '{p}'")}})]);
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": class, "selectors": selectors}}]}}
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The partitionable form through the allocator: with the gate on (1.36, 1.37)
/// the counters decide — seven 1g.10gb partitions fit an H100, an eighth does not,
/// a whole GPU does not once one partition is taken; with it off (1.34, 1.35) no
/// device that consumes counters is allocatable.
#[test]
fn partitionable_mig_through_the_allocator() {
    let s = slices(&gpus("NVIDIA H100 80GB HBM3", 1, Mig::Partitionable), None);
    assert_eq!(s.len(), 2);
    for x in &s {
        let v = validate_resource_slice(x);
        assert!(v.errors.is_empty(), "{:?}", v.errors);
    }
    let classes = device_classes();
    let run = |version: KubeVersion, taken: &[&str], claims: &[ResourceClaim]| {
        let allocated: BTreeSet<DeviceId> =
            taken.iter().map(|d| DeviceId { driver: DRIVER.into(), pool: "gpu-node-1".into(), device: (*d).into() }).collect();
        let shared: Vec<Slice> = s.iter().cloned().map(Slice::new).collect();
        let alloc = Allocator { features: features(version), classes: &classes, slices: &shared, allocated: &allocated, consumed: &[], compiled: &[], index: None };
        let refs: Vec<&ResourceClaim> = claims.iter().collect();
        alloc.allocate(&node(), &refs).map(|r| {
            r.map(|r| r.iter().flat_map(|a| a.devices.iter().flat_map(|d| d.results.iter().flatten())).map(|d| d.device.clone()).collect::<Vec<_>>())
        })
    };
    let one_g: Vec<ResourceClaim> = (0..7).map(|i| claim(&format!("c{i}"), "mig.nvidia.com", Some("1g.10gb"))).collect();
    let seven = run(KubeVersion::V1_37, &[], &one_g);
    let want: Vec<String> = (0..7).map(|i| format!("gpu-0-mig-19-{i}-1")).collect();
    assert_eq!(seven, Ok(Some(want.clone())));
    let mut eight = one_g.clone();
    eight.push(claim("c7", "mig.nvidia.com", Some("1g.10gb")));
    assert_eq!(run(KubeVersion::V1_37, &[], &eight), Ok(None));
    // One partition allocated already: the whole GPU shares its memory slice.
    let whole = [claim("w", "gpu.nvidia.com", None)];
    assert_eq!(run(KubeVersion::V1_37, &["gpu-0-mig-19-3-1"], &whole), Ok(None));
    assert_eq!(run(KubeVersion::V1_36, &[], &whole), Ok(Some(vec!["gpu-0".to_string()])));
    // A 4g.40gb beside an allocated 3g.40gb at slice 4: it takes slices 0–3.
    let four = [claim("f", "mig.nvidia.com", Some("4g.40gb"))];
    assert_eq!(run(KubeVersion::V1_37, &["gpu-0-mig-9-4-4"], &four), Ok(Some(vec!["gpu-0-mig-5-0-4".to_string()])));
    assert_eq!(run(KubeVersion::V1_37, &["gpu-0-mig-9-0-4", "gpu-0-mig-9-4-4"], &four), Ok(None));
    for v in [KubeVersion::V1_34, KubeVersion::V1_35] {
        assert_eq!(run(v, &[], &whole), Ok(None), "{v:?}");
        assert_eq!(run(v, &[], &one_g[..1]), Ok(None), "{v:?}");
    }
}

/// The driver's strict decoding of its opaque config: the device plugin's
/// `replicas` is an unknown field; the strategies and intervals it knows decode.
#[test]
fn opaque_config_decoding() {
    let cfg = |sharing: serde_json::Value| serde_json::json!({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig", "sharing": sharing});
    let cases: Vec<(serde_json::Value, Result<Sharing, &str>)> = vec![
        (
            cfg(serde_json::json!({"strategy": "TimeSlicing", "timeSlicingConfig": {"replicas": 4}})),
            Err("error decoding config parameters: strict decoding error: unknown field \"sharing.timeSlicingConfig.replicas\""),
        ),
        (
            cfg(serde_json::json!({"strategy": "TimeSlicing", "replicas": 4, "timeSlicingConfig": {"interval": "Long", "renameByDefault": true}})),
            Err("error decoding config parameters: strict decoding error: unknown field \"sharing.replicas\", unknown field \"sharing.timeSlicingConfig.renameByDefault\""),
        ),
        (cfg(serde_json::json!({"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}})), Ok(Sharing::TimeSlicing { interval: "Long".into() })),
        (cfg(serde_json::json!({"strategy": "TimeSlicing"})), Ok(Sharing::TimeSlicing { interval: "Default".into() })),
        (
            cfg(serde_json::json!({"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 50, "defaultPinnedDeviceMemoryLimit": "10Gi", "defaultPerDevicePinnedMemoryLimit": {"0": "5Gi"}}})),
            Ok(Sharing::Mps { active_thread_percentage: Some(50), pinned_memory_limit: Some("10Gi".into()) }),
        ),
        (cfg(serde_json::json!({"strategy": "Spatial"})), Err("unknown GPU sharing strategy: Spatial")),
        (cfg(serde_json::json!({"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Forever"}})), Err("unknown time-slice interval: Forever")),
        (serde_json::json!({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig"}), Ok(Sharing::Default)),
        (
            serde_json::json!({"apiVersion": "nvidia.com/v1", "kind": "TimeSlicing"}),
            Err("error decoding config parameters: no kind \"TimeSlicing\" is registered for version \"nvidia.com/v1\""),
        ),
    ];
    for (params, want) in cases {
        assert_eq!(decode_config(&params), want.map_err(str::to_string), "{params}");
    }
}

fn allocated_claim(name: &str, driver: &str, config: Option<serde_json::Value>) -> ResourceClaim {
    let configs: Vec<serde_json::Value> = config.into_iter().map(|p| serde_json::json!({"source": "FromClaim", "opaque": {"driver": driver, "parameters": p}})).collect();
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]}},
        "status": {"allocation": {"devices": {
            "results": [{"request": "gpu", "driver": driver, "pool": "gpu-node-1", "device": "gpu-0"}],
            "config": configs
        }}}
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The kubelet's `PrepareResources` texts: the plugin not registered comes first,
/// then the driver's error for the claim; all good is no event.
#[test]
fn kubelet_prepare_texts() {
    let replicas = serde_json::json!({"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig", "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"replicas": 4}}});
    let bad = allocated_claim("pod-gpu-x7k2p", DRIVER, Some(replicas));
    let good = allocated_claim("pod-gpu-a1b2c", DRIVER, None);
    let prep = |d: &str, c: &ResourceClaim| if d == DRIVER { kubelet::nvidia_prepare(c) } else { Ok(()) };
    let cases: Vec<(Vec<&ResourceClaim>, bool, Result<(), &str>)> = vec![
        (vec![&good], false, Err("Failed to prepare dynamic resources: prepare dynamic resources: DRA driver gpu.nvidia.com is not registered")),
        (vec![&bad], false, Err("Failed to prepare dynamic resources: prepare dynamic resources: DRA driver gpu.nvidia.com is not registered")),
        (
            vec![&good, &bad],
            true,
            Err("Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources failed for ResourceClaim pod-gpu-x7k2p: error decoding config parameters: strict decoding error: unknown field \"sharing.timeSlicingConfig.replicas\""),
        ),
        (vec![&good], true, Ok(())),
    ];
    for (claims, registered, want) in cases {
        let got = kubelet::prepare(&claims, &|_| registered, &prep);
        assert_eq!(got, want.map_err(str::to_string));
    }
}
