//! Issue 17 item 5: `gpulab dra slices` prints what NVIDIA's DRA driver publishes for a
//! node — YAML the model reads back without a diagnostic and validates as the API
//! server does — and refuses what it cannot publish (exit 2, the reason on stderr).

use std::process::{Command, Output};

use gpulab_model::kubernetes::dra::{read, validation};
use gpulab_model::kubernetes::yaml::load;

fn gpulab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulab")).args(args).output().unwrap()
}

/// Per form (whole GPUs, static MIG, partitionable): the classes and slices read
/// back, valid, with the devices the driver names.
#[test]
fn slices_read_back_valid() {
    let h100 = "NVIDIA H100 80GB HBM3";
    // (extra args, slices, devices, first device, last device)
    let cases: [(&[&str], usize, usize, &str, &str); 3] = [
        (&["--gpus", "2"], 1, 2, "gpu-0", "gpu-1"),
        (&["--mig", "7x1g.10gb"], 1, 7, "gpu-0-mig-19-0-1", "gpu-0-mig-19-6-1"),
        (&["--mig", "partitionable"], 2, 26, "gpu-0", "gpu-0-mig-0-0-8"),
    ];
    for (extra, slices, devices, first, last) in cases {
        let mut args = vec!["dra", "slices", "--node", "gpu-node-1", "--gpu-model", h100, "--classes"];
        args.extend_from_slice(extra);
        let out = gpulab(&args);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let (m, diags) = load("slices.yaml", &text);
        assert!(diags.is_empty(), "{extra:?}: {diags:?}");
        let (objects, diags) = read(&m);
        assert!(diags.is_empty(), "{extra:?}: {diags:?}");
        assert_eq!(objects.device_classes.len(), 2, "{extra:?}");
        assert_eq!(objects.resource_slices.len(), slices, "{extra:?}");
        for s in &objects.resource_slices {
            let v = validation::validate_resource_slice(&s.object);
            assert!(v.errors.is_empty(), "{extra:?}: {:?}", v.errors);
        }
        let names: Vec<&str> = objects.resource_slices.iter().flat_map(|s| s.object.spec.devices.iter().flatten()).map(|d| d.name.as_str()).collect();
        assert_eq!(names.len(), devices, "{extra:?}: {names:?}");
        assert_eq!((names.first().copied(), names.last().copied()), (Some(first), Some(last)), "{extra:?}");
    }
}

/// What the driver cannot publish: exit 2 and why.
#[test]
fn unpublishable_input_exits_2() {
    let cases: [(&[&str], &str); 4] = [
        (&["--gpu-model", "NVIDIA A100-SXM4-40GB"], "the GPU memory is not known; give it (MiB)"),
        (&["--gpu-model", "Tesla T4", "--mig", "partitionable"], "Tesla T4 is not MIG-capable"),
        (&["--gpu-model", "NVIDIA H100 80GB HBM3", "--mig", "8x1g.10gb"], "does not fit"),
        (&["--gpu-model", "GeForce 256"], "unknown GPU model"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["dra", "slices", "--node", "n"];
        args.extend_from_slice(extra);
        let out = gpulab(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
}
