//! Step 7's DRA rows ([`super::seats`]) on the allocator, version by version.

use super::seats::{add_rows, Request};
use crate::kubernetes::version::KubeVersion;
use crate::slots::gpu::ComputeCapability;
use crate::slots::mig::MigCatalog;
use crate::slots::table::{self, SlotRow, SlotTable};
use crate::slots::GpuModel;
use crate::Lang;

fn h100() -> GpuModel {
    GpuModel { name: "NVIDIA H100 80GB HBM3".into(), memory_mib: Some(81559), compute_capability: ComputeCapability::parse("9.0"), mig_capable: true }
}

fn t4() -> GpuModel {
    GpuModel { name: "Tesla T4".into(), memory_mib: Some(15360), compute_capability: ComputeCapability::parse("7.5"), mig_capable: false }
}

fn table(model: &GpuModel, gpus: u32, replicas: u32, version: KubeVersion, lang: Lang) -> SlotTable {
    let mut t = SlotTable::empty(&model.name, gpus, 2, lang);
    let catalog = MigCatalog::embedded().unwrap_or_else(|e| panic!("{e}"));
    add_rows(&mut t, &Request { model, gpus_per_node: gpus, nodes: 2, replicas, version }, &catalog);
    t
}

fn row<'t>(t: &'t SlotTable, label: &str) -> &'t SlotRow {
    t.rows.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("no row {label}: {:?}", t.rows.iter().map(|r| &r.label).collect::<Vec<_>>()))
}

/// Eight H100s, replicas 4, on every version that serves DRA: a whole GPU per
/// claim (8 a node); seven 1g.10gb partitions per GPU — from counters from 1.36,
/// static MIG devices before; a shared time-slicing claim serves 256 pods
/// (reservedFor) per GPU and MPS 48 (the MPS server's clients on compute 9.0); the
/// device plugin's `replicas` in the driver's config fails at the kubelet; four
/// consumable shares per GPU from 1.36, a whole GPU per claim before (gate off).
#[test]
fn rows_per_version() {
    // (version, MIG label, consumable label, consumable seats per GPU)
    let cases = [
        (KubeVersion::V1_34, "DRA: static MIG devices 1g.10gb", "DRA: consumable capacity, 4 shares per device (DRAConsumableCapacity off)", 1),
        (KubeVersion::V1_35, "DRA: static MIG devices 1g.10gb", "DRA: consumable capacity, 4 shares per device (DRAConsumableCapacity off)", 1),
        (KubeVersion::V1_36, "DRA: MIG 1g.10gb from counters", "DRA: consumable capacity, 4 shares per device", 4),
        (KubeVersion::V1_37, "DRA: MIG 1g.10gb from counters", "DRA: consumable capacity, 4 shares per device", 4),
    ];
    for (v, mig, consumable, shares) in cases {
        let t = table(&h100(), 8, 4, v, Lang::En);
        let labels: Vec<&str> = t.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "DRA: whole GPU per claim",
                mig,
                "DRA: time-slicing, one claim shared by pods",
                "DRA: time-slicing config with replicas: 4",
                "DRA: MPS (limits for 4 clients), one claim shared by pods",
                consumable
            ],
            "{v}"
        );
        let whole = row(&t, "DRA: whole GPU per claim");
        assert_eq!((whole.seats_per_gpu, whole.seats_per_node, whole.seats_cluster), (Some(1), 8, 16), "{v}");
        assert_eq!(whole.guaranteed_memory_mib, vec![("gpu.nvidia.com".to_string(), Some(81559))]);
        assert_eq!(whole.request_two, "two-devices");
        let m = row(&t, mig);
        assert_eq!((m.seats_per_gpu, m.seats_per_node), (Some(7), 56), "{v}");
        assert_eq!(m.guaranteed_memory_mib, vec![("gpu.nvidia.com".to_string(), Some(9984))]);
        let ts = row(&t, "DRA: time-slicing, one claim shared by pods");
        assert_eq!((ts.seats_per_gpu, ts.seats_per_node, ts.error.as_deref()), (Some(256), 2048, None), "{v}");
        let trap = row(&t, "DRA: time-slicing config with replicas: 4");
        assert_eq!(trap.seats_per_node, 0);
        assert_eq!(
            trap.error.as_deref(),
            Some("FailedPrepareDynamicResources Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources failed for ResourceClaim shared-0: error decoding config parameters: strict decoding error: unknown field \"sharing.timeSlicingConfig.replicas\""),
            "{v}"
        );
        let mps = row(&t, "DRA: MPS (limits for 4 clients), one claim shared by pods");
        assert_eq!((mps.seats_per_gpu, mps.guaranteed_memory_mib[0].1, &mps.compute.1[..]), (Some(48), Some(20389), "25%"), "{v}");
        let c = row(&t, consumable);
        assert_eq!((c.seats_per_gpu, c.seats_per_node), (Some(shares), 8 * shares), "{v}");
        assert_eq!(c.request_two, "two-devices", "{v}: a request's devices are distinct even when shareable");
        assert!(t.notes.first().is_some_and(|n| n.starts_with(&format!("DRA rows: Kubernetes {v} "))), "{:?}", t.notes);
        assert!(t.notes.iter().any(|n| n.contains("DRAConsumableCapacity is alpha and off")) == (shares == 1), "{v}: {:?}", t.notes);
    }
}

/// What a re-partition needs, computed: with one partition on every GPU a
/// whole-GPU claim does not fit — from counters the partitions must end first;
/// static devices never offer a whole GPU.
#[test]
fn repartition_notes() {
    let t = table(&h100(), 2, 4, KubeVersion::V1_36, Lang::En);
    assert!(t.notes.iter().any(|n| n.starts_with("MIG from counters:") && n.contains("does not fit until those claims end")), "{:?}", t.notes);
    let t = table(&h100(), 2, 4, KubeVersion::V1_35, Lang::En);
    assert!(t.notes.iter().any(|n| n.starts_with("Static MIG devices:")), "{:?}", t.notes);
}

/// A GPU without MIG has no MIG row; 1.33 serves no `resource.k8s.io/v1`: one row
/// saying so; Korean labels and notes.
#[test]
fn no_mig_no_dra_and_korean() {
    let t = table(&t4(), 4, 2, KubeVersion::V1_36, Lang::En);
    assert!(!t.rows.iter().any(|r| r.label.contains("MIG ")), "{:?}", t.rows);
    assert_eq!(row(&t, "DRA: whole GPU per claim").seats_per_node, 4);
    assert_eq!(row(&t, "DRA: consumable capacity, 2 shares per device").seats_per_node, 8);
    let old = table(&t4(), 4, 2, KubeVersion::V1_33, Lang::En);
    assert_eq!(old.rows.len(), 1);
    let cells = table::cells(&old.rows[0], Lang::En);
    assert_eq!(cells.last().map(String::as_str), Some("fails: resource.k8s.io/v1 (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice) is served from Kubernetes 1.34; not by 1.33"));
    let ko = table(&h100(), 8, 4, KubeVersion::V1_36, Lang::Ko);
    assert_eq!(ko.rows[0].label, "DRA: 클레임마다 GPU 전체");
    assert!(ko.notes[0].starts_with("DRA 행: Kubernetes 1.36"), "{:?}", ko.notes);
}

/// The rows print through the table's one printer: Markdown has every DRA row and
/// the notes as a list.
#[test]
fn markdown_has_the_rows_and_notes() {
    let t = table(&h100(), 8, 4, KubeVersion::V1_37, Lang::En);
    let md = table::to_markdown(&t);
    assert!(md.contains("| DRA: whole GPU per claim | gpu.nvidia.com: 8 | 1 | 8 | 16 | 81559 | whole GPU | exclusive device | two devices |"), "{md}");
    assert!(md.contains("\n- DRA time-slicing has no replicas:"), "{md}");
}

