//! Issue 17 item 6: `gpulab slots` prints step 7's DRA rows beside the device plugin's
//! seats, at the Kubernetes version `--k8s-version` names — the table the page's step 7
//! shows for the same inputs (`tests/e2e/steps.test.mjs` compares them).

use std::process::{Command, Output};

fn gpulab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap()
}

fn slots(extra: &[&str]) -> Output {
    let mut args = vec!["--output", "md", "slots", "--gpu-model", "NVIDIA H100 80GB HBM3", "--gpus-per-node", "8", "--nodes", "2", "--replicas", "4"];
    args.extend_from_slice(extra);
    gpulab(&args)
}

/// Per version: the MIG row is from counters where DRAPartitionableDevices is on
/// (1.36, 1.37) and static before; consumable shares give 4 pods a GPU where
/// DRAConsumableCapacity is on, a whole GPU per claim before; the trap row carries the
/// kubelet's event with the driver's strict-decoding error; 1.33 serves no DRA.
#[test]
fn dra_rows_per_version() {
    // (version, a line the table has)
    let cases = [
        ("1.34", "| DRA: static MIG devices 1g.10gb | mig.nvidia.com: 56 | 7 | 56 | 112 | 9984 |"),
        ("1.35", "| DRA: consumable capacity, 4 shares per device (DRAConsumableCapacity off) | gpu.nvidia.com: 8 | 1 | 8 | 16 | 81559 |"),
        ("1.36", "| DRA: MIG 1g.10gb from counters | mig.nvidia.com: "),
        ("1.37", "| DRA: consumable capacity, 4 shares per device | gpu.nvidia.com: 8 | 4 | 32 | 64 | 0 |"),
        ("1.36", "strict decoding error: unknown field \"sharing.timeSlicingConfig.replicas\" |"),
        ("1.33", "| DRA: resource.k8s.io/v1 | - | 0 | 0 | 0 | - | - | - | fails: resource.k8s.io/v1 (DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice) is served from Kubernetes 1.34; not by 1.33 |"),
    ];
    for (version, line) in cases {
        let out = slots(&["--k8s-version", version]);
        assert_eq!(out.status.code(), Some(0), "{version}: {}", String::from_utf8_lossy(&out.stderr));
        let md = String::from_utf8_lossy(&out.stdout);
        assert!(md.contains(line), "{version}: no {line:?} in\n{md}");
    }
}

/// `--compare` without `dra` leaves the DRA rows out; a version the model does not
/// know is bad input (exit 2, named on stderr).
#[test]
fn compare_and_bad_version() {
    let out = slots(&["--compare", "none,ts"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("DRA:"));
    let out = slots(&["--compare", "dra"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("| DRA: whole GPU per claim |"));
    let out = slots(&["--k8s-version", "2.0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--k8s-version \"2.0\""), "{}", String::from_utf8_lossy(&out.stderr));
}
