//! Writes the generated seeds of the fuzz corpora (`fuzz/corpus/<target>/gen-*`) from
//! the project's own inputs: every scenario directory, the app's requests, progress
//! file and share link for its default work, DRA selectors from the NVIDIA driver's
//! DeviceClasses and the Kubernetes DRA docs, kubectl dumps, and containerd import
//! chains. Run from the repository root: `cargo run -p gpulab-fuzz --bin fuzz-seeds`.
//! Seeds written by hand (the other files of each corpus) are left alone.

use std::fs;
use std::path::{Path, PathBuf};

use gpu_node_lab::i18n::Lang;
use gpu_node_lab::share::{envelope, link};
use gpu_node_lab::state::Work;
use gpu_node_lab::steps::{check, kubernetes, rollout, slots};
use gpulab_view::wire::ToJson;
use gpulab_fuzz::SCENARIO_FILE_MARK;
use gpulab_view::{ScenarioRequest, SyntaxRequest};

/// Selectors NVIDIA's DRA driver ships in its DeviceClasses and the upstream DRA docs
/// show, and a few that each reach one more corner of the lab's CEL subset.
const SELECTORS: &[&str] = &[
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-40GB'",
    "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('10Gi')) >= 0",
    "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))",
    "'gpu.nvidia.com' in device.attributes && device.attributes['gpu.nvidia.com'].index < 4",
    "has(device.attributes['gpu.nvidia.com'].profile) ? device.attributes['gpu.nvidia.com'].profile.startsWith('1g') : false",
    "[1, 2, 3].all(x, x > 0) && {'a': 1}['a'] == 1 && size('abc') == 3",
    "cel.bind(m, device.capacity['gpu.nvidia.com'].memory, m.isGreaterThan(quantity('1Gi')))",
    "device.attributes['gpu.nvidia.com'].architecture.matches('^(Ampere|Hopper)$')",
    "device.allowMultipleAllocations == true || string(1) == '1' || double(2) / 2.0 == 1.0",
    "device.driver.lowerAscii().endsWith(\"nvidia.com\") && !(1u > 2u)",
];

/// kubectl dumps (`get nodes,pods -A -o yaml|json`) and the DRA objects.
const MANIFESTS: &[(&str, &str)] = &[
    (
        "gen-kubectl-list.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: gpu-node-1\n    labels: {nvidia.com/gpu.present: \"true\"}\n  spec:\n    taints:\n    - {key: nvidia.com/gpu, effect: NoSchedule}\n  status:\n    capacity: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"4\", pods: \"110\"}\n    allocatable: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"4\", pods: \"110\"}\n    conditions:\n    - {type: Ready, status: \"True\"}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: train-0, namespace: default}\n  spec:\n    nodeName: gpu-node-1\n    containers:\n    - name: main\n      image: cuda\n      resources:\n        limits: {nvidia.com/gpu: \"2\"}\nmetadata:\n  resourceVersion: \"\"\n",
    ),
    (
        "gen-kubectl-list.json",
        r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-node-2","managedFields":[{"manager":"kubelet"}]},"status":{"capacity":{"nvidia.com/gpu":"8","cpu":"16"},"allocatable":{"nvidia.com/gpu":"8","cpu":"16"}}},{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}],"tolerations":[{"operator":"Exists"}]}}],"metadata":{"resourceVersion":""}}"#,
    ),
    (
        "gen-dra.yaml",
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu.nvidia.com}\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'\n  extendedResourceName: nvidia.com/gpu\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: one-gpu, namespace: default}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n        deviceClassName: gpu.nvidia.com\n        count: 1\n    constraints:\n    - requests: [gpu]\n      matchAttribute: gpu.nvidia.com/productName\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: default}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: g\n        firstAvailable:\n        - {name: big, deviceClassName: gpu.nvidia.com, selectors: [{cel: {expression: \"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0\"}}]}\n        - {name: any, deviceClassName: gpu.nvidia.com, allocationMode: All}\n---\napiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: gpu-node-1-gpu.nvidia.com}\nspec:\n  driver: gpu.nvidia.com\n  nodeName: gpu-node-1\n  pool: {name: gpu-node-1, generation: 1, resourceSliceCount: 1}\n  sharedCounters:\n  - name: gpu-0-counters\n    counters: {memory: {value: 40Gi}}\n  devices:\n  - name: gpu-0\n    attributes:\n      type: {string: gpu}\n      productName: {string: NVIDIA A100-SXM4-40GB}\n      driverVersion: {version: 570.124.6}\n    capacity:\n      memory: {value: 40Gi}\n    consumesCounters:\n    - counterSet: gpu-0-counters\n      counters: {memory: {value: 40Gi}}\n",
    ),
];

/// containerd import chains: the main config imports a file that sets the runtime
/// (k3s and k0s lay files out this way), in config versions 2 and 3.
const IMPORT_CHAINS: &[(&str, u8, &str, &str)] = &[
    (
        "gen-import-chain-v2",
        0,
        "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\", \"/etc/containerd/imports/runtime.toml\"]\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n",
        "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n",
    ),
    (
        "gen-import-chain-v3",
        6,
        "version = 3\nimports = [\"/etc/containerd/conf.d/*.toml\", \"/etc/containerd/imports/runtime.toml\"]\n[plugins.\"io.containerd.cri.v1.runtime\".containerd]\n  default_runtime_name = \"nvidia\"\n",
        "version = 3\n[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n  [plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.nvidia.options]\n    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n",
    ),
];

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    fs::write(dir.join(name), bytes)
}

/// A scenario directory as [`gpulab_fuzz::scenario_files`] reads it.
fn scenario_text(dir: &Path) -> std::io::Result<String> {
    let mut out = fs::read_to_string(dir.join("scenario.toml"))?;
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "scenario.toml") {
                files.push(p);
            }
        }
    }
    files.sort();
    for p in files {
        let rel = p.strip_prefix(dir).map(|r| r.to_string_lossy().into_owned()).unwrap_or_default();
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("{SCENARIO_FILE_MARK}{rel}\n"));
        out.push_str(&fs::read_to_string(&p)?);
    }
    Ok(out)
}

fn main() -> std::io::Result<()> {
    let corpus = PathBuf::from("fuzz/corpus");
    if !corpus.is_dir() {
        eprintln!("fuzz-seeds: run from the repository root (no fuzz/corpus here)");
        std::process::exit(2);
    }
    let mut written = 0;
    for (i, s) in SELECTORS.iter().enumerate() {
        write(&corpus.join("cel_selector"), &format!("gen-{i:02}"), s.as_bytes())?;
        written += 1;
    }
    for (name, text) in MANIFESTS {
        write(&corpus.join("kubernetes_yaml"), name, text.as_bytes())?;
        written += 1;
    }
    for (name, version, main, imported) in IMPORT_CHAINS {
        let mut bytes = vec![*version];
        for part in [main.as_bytes(), b"", b"", imported.as_bytes()].iter().enumerate() {
            if part.0 > 0 {
                bytes.push(0);
            }
            bytes.extend_from_slice(part.1);
        }
        write(&corpus.join("containerd_load"), name, &bytes)?;
        written += 1;
    }
    let mut scenarios: Vec<PathBuf> = fs::read_dir("scenarios")?.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("scenario.toml").is_file()).collect();
    scenarios.sort();
    for dir in &scenarios {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        write(&corpus.join("scenario_dir"), &format!("gen-{name}"), scenario_text(dir)?.as_bytes())?;
        written += 1;
    }

    // The app's own writers, for its default work (the seed incident) and a changed one.
    let default = Work::default();
    let mut changed = Work::default();
    changed.slots.nodes = 3;
    changed.containerd.dropin.push_str("\n# edited\n");
    for (tag, work) in [("default", &default), ("changed", &changed)] {
        let export = envelope::export(work).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        let compact = envelope::compact(work).map_err(|e| std::io::Error::other(format!("{e:?}")))?;
        write(&corpus.join("progress_file"), &format!("gen-export-{tag}"), export.as_bytes())?;
        write(&corpus.join("progress_file"), &format!("gen-saved-{tag}"), gpu_node_lab::work_json::to_string(work).as_bytes())?;
        let mut content = vec![1u8];
        content.extend_from_slice(compact.as_bytes());
        write(&corpus.join("share_link"), &format!("gen-content-{tag}"), &content)?;
        // The hash form: its bytes are read as content directly (the browser inflates
        // between the two; see the target).
        let mut hash = vec![0u8];
        hash.extend_from_slice(format!("#{}{}={}", link::PREFIX, link::VERSION, link::base64url_encode(compact.as_bytes())).as_bytes());
        write(&corpus.join("share_link"), &format!("gen-hash-{tag}"), &hash)?;
        written += 4;

        // The chunk's entry points in `gpulab_fuzz::chunk_request` order.
        let w = work;
        let incident = scenarios.iter().find(|d| d.ends_with("incident"));
        let scenario_toml = match incident {
            Some(d) => fs::read_to_string(d.join("scenario.toml"))?,
            None => String::new(),
        };
        let scenario_request = ScenarioRequest { file: "scenario.toml".into(), text: scenario_toml.clone(), ..ScenarioRequest::default() };
        let requests: [(u8, String); 8] = [
            (0, kubernetes::request(&w.kube, &w.containerd, &w.restart, Lang::En).to_json()),
            (1, rollout::request(&w, Lang::Ko, false).map_err(std::io::Error::other)?.to_json()),
            (2, slots::request(&w.slots, Lang::En, &w.kube.version).to_json()),
            (3, check::check_request(&w.containerd, &w.restart, &w.check, Lang::Ko).to_json()),
            (4, serde_json::to_string(&scenario_request).map_err(std::io::Error::other)?),
            (5, SyntaxRequest { version: w.containerd.version.clone(), path: "/etc/containerd/conf.d/99-nvidia.toml".into(), text: w.containerd.dropin.clone() }.to_json()),
            (6, scenario_toml),
            (7, w.containerd.version.clone()),
        ];
        for (pick, json) in requests {
            let mut bytes = vec![pick];
            bytes.extend_from_slice(json.as_bytes());
            write(&corpus.join("chunk_request"), &format!("gen-{pick}-{tag}"), &bytes)?;
            written += 1;
        }
    }
    println!("fuzz-seeds: {written} seeds written under {}", corpus.display());
    Ok(())
}
