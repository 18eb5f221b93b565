//! Benchmark: the containerd model's full load + explain (parse, imports, merge,
//! decode onto defaults, dump text, CRI status, blame) on the incident's two files and
//! on a 1,000-line main config with a drop-in, for a 1.x and a 2.x version. The
//! design target is one frame (16 ms) per keystroke for a 1,000-line config.
//!
//! The first case is the browser keystroke bench's own config (step 2 of
//! `tests/e2e/bench/keystroke.test.mjs`).
//!
//! Run: `cargo bench -p gpulab-model --bench containerd_explain`

// Tests and benches may unwrap (the crate denies it in the model itself).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use gpulab_model::containerd::{self, Files, Version};


const MAIN: &str = r#"version = 2
imports = ["/etc/containerd/conf.d/*.toml"]

[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "registry.k8s.io/pause:3.9"
    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"
          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            SystemdCgroup = true
"#;

const DROPIN: &str = r#"[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
    BinaryName = "/usr/bin/nvidia-container-runtime"
"#;

/// A main config of about 1,000 lines: the incident's CRI table plus 165 runtimes of
/// six lines each and a registry mirror per runtime.
fn thousand_lines() -> String {
    let mut s = String::from(MAIN);
    let mut i = 0;
    while s.lines().count() < 1_000 {
        s.push_str(&format!(
            "        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.rt{i}]\n          runtime_type = \"io.containerd.runc.v2\"\n          privileged_without_host_devices = false\n          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.rt{i}.options]\n            BinaryName = \"/usr/bin/rt{i}\"\n            SystemdCgroup = true\n"
        ));
        i += 1;
    }
    s
}

/// The browser bench's config (`tests/e2e/bench/keystroke.test.mjs`, `bigConfig`):
/// exactly `lines` lines of CRI runtimes, each with a comment and an options table.
fn browser_bench_config(lines: usize) -> String {
    let mut out: Vec<String> = [
        "version = 2",
        "imports = [\"/etc/containerd/conf.d/*.toml\"]",
        "",
        "[plugins]",
        "  [plugins.\"io.containerd.grpc.v1.cri\"]",
        "    sandbox_image = \"registry.k8s.io/pause:3.9\"",
        "    [plugins.\"io.containerd.grpc.v1.cri\".containerd]",
        "      default_runtime_name = \"runc\"",
        "      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut i = 0;
    while out.len() < lines {
        let name = if i == 0 { "runc".to_string() } else { format!("runc-{i}") };
        let block = [
            format!("        # runtime {i}: a runc variant for tenant {}", i % 17),
            format!("        [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{name}]"),
            "          runtime_type = \"io.containerd.runc.v2\"".to_string(),
            format!("          [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.{name}.options]"),
            "            SystemdCgroup = true".to_string(),
            format!("            BinaryName = \"/usr/local/bin/runc-{i}\""),
        ];
        let room = lines - out.len();
        out.extend(block.into_iter().take(room));
        i += 1;
    }
    out.join("\n") + "\n"
}

fn bench(c: &mut Criterion) {
    // What one keystroke in the browser bench's step 2 asks of the model.
    let browser = Files::new().with("/etc/containerd/config.toml", browser_bench_config(1000)).with("/etc/containerd/conf.d/99-nvidia.toml", DROPIN);
    let kept = containerd::Containerd::new(Version::parse("1.7.34").unwrap());
    c.bench_function("browser bench's 1000-line config + drop-in, kept defaults @ 1.7.34", |b| b.iter(|| kept.load(black_box(&browser))));

    let incident = Files::new().with("/etc/containerd/config.toml", MAIN).with("/etc/containerd/conf.d/99-nvidia.toml", DROPIN);
    let big_text = thousand_lines();
    let big = Files::new().with("/etc/containerd/config.toml", big_text).with("/etc/containerd/conf.d/99-nvidia.toml", DROPIN);
    for v in ["1.6.20", "2.2.7"] {
        let version = Version::parse(v).unwrap();
        c.bench_function(&format!("explain incident @ {v}"), |b| b.iter(|| containerd::load(black_box(&incident), &version)));
        c.bench_function(&format!("explain 1000-line config @ {v}"), |b| b.iter(|| containerd::load(black_box(&big), &version)));
        // The app keeps a `Containerd` per version: defaults parsed once.
        let kept = containerd::Containerd::new(version.clone());
        c.bench_function(&format!("explain 1000-line config, kept defaults @ {v}"), |b| b.iter(|| kept.load(black_box(&big))));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
