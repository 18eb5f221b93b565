//! `gpulab scenario generate --seed S --count N --out DIR`: random scheduling scenarios
//! for the real control plane to judge. Each is a small cluster — nodes with CPU, memory,
//! pod slots and `nvidia.com/gpu`, zone and pool labels, NoSchedule / NoExecute taints,
//! cordons — RuntimeClasses with scheduling and overhead, and GPU and CPU pods with
//! requests, node selectors, required node affinity, tolerations and runtime classes,
//! applied in order in one step. The expectations are what the model observes: every
//! pod's phase, node, event reason, and the FailedScheduling or admission text.
//!
//! What the real scheduler decides by its scores and by chance is kept out: a pod that
//! passes the model's filters on more than one node is pinned to the one the model
//! chose (`kubernetes.io/hostname`), so every expectation is decided by filters, texts
//! and order alone. Priorities stay equal, so preemption never finds victims (its text
//! is still compared). The same seed and index give the same files (splitmix64, no
//! clock), so a difference found with `--seed S` reproduces.

use std::fmt::Write as _;
use std::path::Path;

use gpulab_model::scenario::{self, Backend, BackendError, ModelBackend};

/// The kubernetes minor the scenarios name (the newest the model knows).
const KUBERNETES: &str = "1.37";

/// splitmix64: small, seeded, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

#[derive(Debug, Clone)]
struct Taint {
    key: &'static str,
    value: &'static str,
    effect: &'static str,
}

#[derive(Debug, Clone)]
struct GenNode {
    name: String,
    gpus: u32,
    cpu: u32,
    memory_gi: u32,
    pods: u32,
    zone: &'static str,
    pool: Option<&'static str>,
    taints: Vec<Taint>,
    unschedulable: bool,
}

#[derive(Debug, Clone)]
struct GenPod {
    name: String,
    cpu_m: u32,
    memory_mi: u32,
    gpus: u32,
    runtime_class: Option<&'static str>,
    node_selector: Vec<(String, String)>,
    /// `(key, operator, values)` of one required node-selector term.
    affinity: Option<(&'static str, &'static str, Vec<&'static str>)>,
    /// `(key, operator, value, effect)`; empty effect matches every effect.
    tolerations: Vec<(&'static str, &'static str, &'static str, &'static str)>,
}

const TAINTS: &[Taint] = &[
    Taint { key: "gpu", value: "", effect: "NoSchedule" },
    Taint { key: "dedicated", value: "ml", effect: "NoSchedule" },
    Taint { key: "dedicated", value: "ml", effect: "NoExecute" },
    Taint { key: "maintenance", value: "true", effect: "NoSchedule" },
];

const TOLERATIONS: &[(&str, &str, &str, &str)] = &[
    ("gpu", "Exists", "", "NoSchedule"),
    ("dedicated", "Equal", "ml", "NoSchedule"),
    ("dedicated", "Equal", "ml", ""),
    ("dedicated", "Exists", "", ""),
    ("maintenance", "Equal", "false", "NoSchedule"),
];

fn nodes(rng: &mut Rng) -> Vec<GenNode> {
    let count = 2 + rng.below(4);
    (1..=count)
        .map(|i| {
            let gpus = *rng.pick(&[0, 1, 2, 4, 8]);
            let mut taints = Vec::new();
            if rng.chance(35) {
                taints.push(rng.pick(TAINTS).clone());
            }
            if rng.chance(10) {
                let t = rng.pick(TAINTS).clone();
                if !taints.iter().any(|x| x.key == t.key && x.effect == t.effect) {
                    taints.push(t);
                }
            }
            GenNode {
                name: format!("node-{i}"),
                gpus,
                cpu: *rng.pick(&[2, 4, 8, 16, 32]),
                memory_gi: *rng.pick(&[8, 16, 64, 256]),
                pods: if rng.chance(15) { 1 + rng.below(3) as u32 } else { 110 },
                zone: *rng.pick(&["zone-a", "zone-b"]),
                pool: if rng.chance(50) { Some(*rng.pick(&["train", "infer"])) } else { None },
                taints,
                unschedulable: rng.chance(12),
            }
        })
        .collect()
}

fn pods(rng: &mut Rng, nodes: &[GenNode]) -> Vec<GenPod> {
    let count = 3 + rng.below(6);
    (1..=count)
        .map(|j| {
            let mut node_selector = Vec::new();
            if rng.chance(25) {
                node_selector.push(match rng.below(3) {
                    0 => ("topology.kubernetes.io/zone".to_string(), rng.pick(&["zone-a", "zone-b"]).to_string()),
                    1 => ("pool".to_string(), rng.pick(&["train", "infer"]).to_string()),
                    _ => ("nvidia.com/gpu.present".to_string(), "true".to_string()),
                });
            }
            if rng.chance(8) {
                let n = rng.pick(nodes);
                node_selector.push(("kubernetes.io/hostname".to_string(), n.name.clone()));
            }
            let affinity = if rng.chance(20) {
                Some(match rng.below(3) {
                    0 => ("topology.kubernetes.io/zone", "In", vec![*rng.pick(&["zone-a", "zone-b"])]),
                    1 => ("pool", "NotIn", vec!["infer"]),
                    _ => ("pool", "Exists", vec![]),
                })
            } else {
                None
            };
            let mut tolerations = Vec::new();
            if rng.chance(35) {
                tolerations.push(*rng.pick(TOLERATIONS));
            }
            GenPod {
                name: format!("pod-{j}"),
                cpu_m: *rng.pick(&[100, 500, 1000, 2000, 4000, 8000, 16000]),
                memory_mi: *rng.pick(&[128, 1024, 4096, 16384, 65536]),
                gpus: if rng.chance(60) { *rng.pick(&[1, 1, 2, 4, 8]) } else { 0 },
                runtime_class: match rng.below(20) {
                    0..=7 => None,
                    8..=14 => Some("nvidia"),
                    15..=18 => Some("nvidia-train"),
                    _ => Some("missing"),
                },
                node_selector,
                affinity,
                tolerations,
            }
        })
        .collect()
}

fn nodes_yaml(nodes: &[GenNode]) -> String {
    let mut out = String::from("# Generated by `gpulab scenario generate`: the cluster's nodes.\n");
    for n in nodes {
        let _ = write!(out, "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels:\n    kubernetes.io/hostname: {}\n    topology.kubernetes.io/zone: {}\n", n.name, n.name, n.zone);
        if let Some(p) = n.pool {
            let _ = writeln!(out, "    pool: {p}");
        }
        if n.gpus > 0 {
            out.push_str("    nvidia.com/gpu.present: \"true\"\n");
        }
        if n.unschedulable || !n.taints.is_empty() {
            out.push_str("spec:\n");
            if n.unschedulable {
                out.push_str("  unschedulable: true\n");
            }
            if !n.taints.is_empty() {
                out.push_str("  taints:\n");
                for t in &n.taints {
                    let _ = writeln!(out, "  - key: {}\n    value: \"{}\"\n    effect: {}", t.key, t.value, t.effect);
                }
            }
        }
        let _ = write!(
            out,
            "status:\n  capacity: {{cpu: \"{}\", memory: {}Gi, pods: \"{}\"}}\n  allocatable: {{cpu: \"{}\", memory: {}Gi, pods: \"{}\"}}\n",
            n.cpu,
            n.memory_gi,
            n.pods,
            n.cpu,
            n.memory_gi,
            n.pods
        );
    }
    out
}

const RUNTIME_CLASSES: &str = "# Generated by `gpulab scenario generate`: the RuntimeClasses the pods may name.
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia
handler: nvidia
---
# Scheduling and overhead: admission adds the selector and tolerations to the pod and
# the overhead to what it asks of the node.
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: nvidia-train
handler: nvidia
scheduling:
  nodeSelector:
    pool: train
  tolerations:
  - key: dedicated
    operator: Equal
    value: ml
    effect: NoSchedule
overhead:
  podFixed:
    cpu: 250m
    memory: 128Mi
";

fn pods_yaml(pods: &[GenPod]) -> String {
    let mut out = String::from("# Generated by `gpulab scenario generate`: the pods, applied in this order.\n");
    for p in pods {
        let _ = write!(out, "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {}\n  namespace: default\nspec:\n", p.name);
        if let Some(rc) = p.runtime_class {
            let _ = writeln!(out, "  runtimeClassName: {rc}");
        }
        if !p.node_selector.is_empty() {
            out.push_str("  nodeSelector:\n");
            for (k, v) in &p.node_selector {
                let _ = writeln!(out, "    {k}: \"{v}\"");
            }
        }
        if let Some((key, op, values)) = &p.affinity {
            let _ = write!(out, "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - key: {key}\n            operator: {op}\n");
            if !values.is_empty() {
                let _ = writeln!(out, "            values: [{}]", values.join(", "));
            }
        }
        if !p.tolerations.is_empty() {
            out.push_str("  tolerations:\n");
            for (key, op, value, effect) in &p.tolerations {
                let _ = write!(out, "  - key: {key}\n    operator: {op}\n");
                if !value.is_empty() {
                    let _ = writeln!(out, "    value: \"{value}\"");
                }
                if !effect.is_empty() {
                    let _ = writeln!(out, "    effect: {effect}");
                }
            }
        }
        let _ = write!(out, "  containers:\n  - name: main\n    image: registry.k8s.io/pause:3.9\n    resources:\n      requests: {{cpu: {}m, memory: {}Mi}}\n", p.cpu_m, p.memory_mi);
        if p.gpus > 0 {
            let _ = writeln!(out, "      limits: {{nvidia.com/gpu: {}}}", p.gpus);
        }
    }
    out
}

/// containerd on every node: runc and the NVIDIA runtime, so a bound pod starts.
const CONTAINERD_CONFIG: &str = include_str!("../../../../scenarios/gpu-node-taint/nodes/config.toml");

fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn scenario_toml(name: &str, seed: u64, index: u32, nodes: &[GenNode], expect: &str) -> String {
    let mut out = format!(
        "# Generated by `gpulab scenario generate --seed {seed}` (scenario {index}); the expectations are the\n\
         # model's. A pod the model's filters let onto several nodes is pinned to the one it chose.\n\
         title = \"{name}\"\n\
         teaching = \"generated: the scheduler's filters and texts on a random cluster\"\n\
         source = \"gpulab scenario generate --seed {seed}\"\n\
         kubernetes = \"{KUBERNETES}\"\n\
         containerd = \"1.6.20\"\n\
         manifests = [\"k8s/nodes.yaml\", \"k8s/runtimeclasses.yaml\"]\n"
    );
    for n in nodes {
        let _ = write!(
            out,
            "\n[[node]]\nname = \"{}\"\ngpus = {}\ngpu_model = \"NVIDIA A100-SXM4-40GB\"\nfiles = {{ \"/etc/containerd/config.toml\" = \"nodes/config.toml\" }}\n",
            n.name, n.gpus
        );
    }
    let _ = write!(out, "\n[[step]]\nname = \"1. the pods, in order\"\ndo = \"apply\"\nfile = \"k8s/pods.yaml\"\n{expect}");
    out
}

/// The files of one scenario (path in its directory, content): `index` of `seed`.
pub fn generate(seed: u64, index: u32) -> Result<Vec<(String, String)>, String> {
    let name = format!("gen-{seed}-{index:04}");
    let mut rng = Rng(seed ^ u64::from(index).wrapping_mul(0xA24B_AED4_963E_E407));
    let nodes = nodes(&mut rng);
    let mut pods = pods(&mut rng, &nodes);
    // Pin each pod that several nodes would take, in order, until none is left.
    for _ in 0..=pods.len() {
        let mut files = files(&nodes, &pods);
        let states = run_model(&name, &scenario_toml(&name, seed, index, &nodes, ""), &files)?;
        let Some(s) = states.iter().find(|s| s.feasible.len() > 1) else {
            let toml = scenario_toml(&name, seed, index, &nodes, &expectations(&states));
            files.insert(0, (scenario::SCENARIO_FILE.to_string(), toml));
            return Ok(files);
        };
        let (pod, node) = (s.name.clone(), s.node_name.clone());
        let p = pods.iter_mut().find(|p| p.name == pod).ok_or("a pod the model ran is not generated")?;
        p.node_selector.retain(|(k, _)| k != "kubernetes.io/hostname");
        p.node_selector.push(("kubernetes.io/hostname".to_string(), node));
    }
    Err(format!("{name}: pinning did not settle"))
}

/// The files `scenario.toml` references (path in the scenario directory, content).
fn files(nodes: &[GenNode], pods: &[GenPod]) -> Vec<(String, String)> {
    vec![
        ("k8s/nodes.yaml".to_string(), nodes_yaml(nodes)),
        ("k8s/runtimeclasses.yaml".to_string(), RUNTIME_CLASSES.to_string()),
        ("k8s/pods.yaml".to_string(), pods_yaml(pods)),
        ("nodes/config.toml".to_string(), CONTAINERD_CONFIG.to_string()),
    ]
}

/// Each pod's state after `toml`'s steps on the model, its files read from `files`.
fn run_model(name: &str, toml: &str, files: &[(String, String)]) -> Result<Vec<scenario::pods::PodState>, String> {
    let read = |rel: &str| files.iter().find(|(p, _)| p == rel).map(|(_, c)| c.clone()).ok_or_else(|| format!("{rel}: not generated"));
    let parsed = scenario::parse(name, scenario::SCENARIO_FILE, toml, &read).map_err(|d| format!("{name}: generated an invalid scenario: {d:?}"))?;
    let mut backend = ModelBackend::new();
    let text = |e: BackendError| super::backend_error_lines(&e).join("\n");
    backend.setup(&parsed).map_err(text)?;
    for step in &parsed.steps {
        backend.act(&step.action).map_err(text)?;
    }
    Ok(backend.cluster.map(|c| c.pods).unwrap_or_default())
}

/// The `[step.expect."pod/NAME"]` tables of what the model observed.
fn expectations(states: &[scenario::pods::PodState]) -> String {
    let mut out = String::new();
    for s in states {
        let _ = write!(out, "[step.expect.\"pod/{}\"]\nphase = {}\nnode_name = {}\n", s.name, toml_string(&s.phase), toml_string(&s.node_name));
        if !s.event_reason.is_empty() {
            let _ = writeln!(out, "event_reason = {}", toml_string(&s.event_reason));
        }
        if s.phase == "Rejected" || s.event_reason == "FailedScheduling" {
            let _ = writeln!(out, "message = {}", toml_string(&s.message));
        }
    }
    out
}

/// `gpulab scenario generate`.
pub fn run(args: &crate::cli::ScenarioGenerateArgs, output: crate::output::OutputFormat) -> crate::exit::ExitCode {
    match write_all(&args.out, args.seed, args.count) {
        Ok(dirs) => {
            match output {
                crate::output::OutputFormat::Json => {
                    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
                    println!("{}", serde_json::json!({ "seed": args.seed, "created": dirs }));
                }
                _ => println!("generated {} scenarios (seed {}) under {}", dirs.len(), args.seed, args.out.display()),
            }
            crate::exit::ExitCode::Success
        }
        Err(e) => {
            eprintln!("gpulab: {e}");
            crate::exit::ExitCode::BadInput
        }
    }
}

/// Writes `count` scenarios of `seed` under `out` (`out/gen-SEED-NNNN/`); the
/// directories written.
pub fn write_all(out: &Path, seed: u64, count: u32) -> Result<Vec<std::path::PathBuf>, String> {
    let mut written = Vec::new();
    for index in 0..count {
        let files = generate(seed, index)?;
        let dir = out.join(format!("gen-{seed}-{index:04}"));
        for (rel, content) in files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(&path, content).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        written.push(dir);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same seed and index give the same files; another index, other files.
    #[test]
    fn deterministic() {
        assert_eq!(generate(7, 3).unwrap(), generate(7, 3).unwrap());
        assert_ne!(generate(7, 3).unwrap(), generate(7, 4).unwrap());
    }

    /// Every generated scenario parses, passes on the model as written, and leaves no
    /// pod that several nodes could take; across seeds they reach every outcome.
    #[test]
    fn generated_scenarios_pass_on_the_model_and_are_decided_by_filters() {
        let mut outcomes = std::collections::BTreeSet::new();
        for index in 0..40 {
            let files = generate(1, index).unwrap();
            let map: std::collections::BTreeMap<String, String> = files.into_iter().collect();
            let read = |rel: &str| map.get(rel).cloned().ok_or_else(|| rel.to_string());
            let name = format!("gen-1-{index:04}");
            let s = scenario::parse(&name, "scenario.toml", &map["scenario.toml"], &read).unwrap();
            let record = scenario::run_on_model(&s);
            assert!(record.passed(), "{name}: {:?}\n{}", record.counts(), map["scenario.toml"]);
            let referenced: Vec<(String, String)> = map.iter().filter(|(p, _)| *p != "scenario.toml").map(|(p, c)| (p.clone(), c.clone())).collect();
            for p in run_model(&name, &map["scenario.toml"], &referenced).unwrap() {
                assert!(p.feasible.len() <= 1, "{name}: {} fits {:?}", p.name, p.feasible);
                outcomes.insert(if p.phase == "Rejected" { "rejected".to_string() } else { p.event_reason.clone() });
            }
        }
        for o in ["Started", "FailedScheduling", "rejected"] {
            assert!(outcomes.contains(o), "no {o} among {outcomes:?}");
        }
    }
}
