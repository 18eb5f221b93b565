//! Property tests for the slot calculator: whatever config text, GPUs and MIG layout come in,
//! the model answers with a value — never a panic — and its answers hold together (an error
//! points inside the file, a serving plugin's counts are devices × replicas, a refused config
//! advertises nothing). Inputs: arbitrary text, YAML built from the config's own vocabulary
//! (so most cases reach the deep rules), and mutations of valid configs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use gpulab_model::Lang;
use gpulab_model::slots::{
    self,
    mig::{check_geometry, Geometry, MigCatalog},
    table::{default_modes, slot_table, to_csv, to_markdown, TableRequest},
    ComputeCapability, Deployment, GpuModel, NodeSpec, PluginState, PluginVersion, Scenario,
};
use proptest::prelude::*;

const KEYS: &[&str] = &[
    "version",
    "flags",
    "migStrategy",
    "mpsRoot",
    "plugin",
    "deviceIDStrategy",
    "deviceListStrategy",
    "sharedDevicesAllocationPolicy",
    "sharing",
    "timeSlicing",
    "mps",
    "resources",
    "name",
    "rename",
    "replicas",
    "devices",
    "renameByDefault",
    "failRequestsGreaterThanOne",
    "gpus",
    "mig",
    "pattern",
    "TimeSlicing",
    "x",
];

const WORDS: &[&str] = &[
    "v1",
    "v2",
    "",
    "none",
    "single",
    "mixed",
    "all",
    "some",
    "nvidia.com/gpu",
    "gpu",
    "mig-1g.10gb",
    "nvidia.com/mig-1g.5gb",
    "GPU-b1028956-cfa2-0990-bf4a-5da9abb51763",
    "0:1",
    "uuid",
    "index",
    "packed",
    "envvar",
    "Nvidia.com/GPU",
    "a/b/c",
    "true",
    "yes",
    "~",
    "[",
    "{",
    "-",
    ": ",
    "'quoted'",
];

/// A YAML value rendered in block style at `indent`, from the config's vocabulary.
#[derive(Debug, Clone)]
enum Node {
    Scalar(String),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_string),
        any::<i64>().prop_map(|i| i.to_string()),
        (-3i64..70).prop_map(|i| i.to_string()),
        prop::sample::select(&["2.5", "1e3", "99999999999999999999", "-0", "0x10", ".inf", "null", "false"][..])
            .prop_map(str::to_string),
        "[a-z0-9./-]{0,70}",
    ]
}

fn node() -> impl Strategy<Value = Node> {
    scalar().prop_map(Node::Scalar).prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec((prop::sample::select(KEYS).prop_map(str::to_string), inner.clone()), 0..6)
                .prop_map(Node::Map),
            prop::collection::vec(inner, 0..4).prop_map(Node::List),
        ]
    })
}

fn render(n: &Node, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match n {
        Node::Scalar(s) => {
            out.push(' ');
            out.push_str(s);
            out.push('\n');
        }
        Node::Map(entries) if entries.is_empty() => out.push_str(" {}\n"),
        Node::List(items) if items.is_empty() => out.push_str(" []\n"),
        Node::Map(entries) => {
            out.push('\n');
            for (k, v) in entries {
                out.push_str(&format!("{pad}{k}:"));
                render(v, indent + 2, out);
            }
        }
        Node::List(items) => {
            out.push('\n');
            for item in items {
                out.push_str(&format!("{pad}-"));
                render(item, indent + 2, out);
            }
        }
    }
}

fn document(entries: Vec<(String, Node)>) -> String {
    let mut out = String::new();
    for (k, v) in entries {
        out.push_str(&format!("{k}:"));
        render(&v, 2, &mut out);
    }
    out
}

/// A config shaped like the real ones, with random values in the slots that matter.
fn plausible_config() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["timeSlicing", "mps"][..]),
        prop::sample::select(
            &["nvidia.com/gpu", "gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/mig-1g.5gb", "nvidia.com/not-gpu"][..],
        ),
        scalar(),
        prop::option::of(prop::sample::select(&["none", "single", "mixed", "weird"][..])),
        any::<bool>(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(section, name, replicas, mig, rename, fail)| {
            let mut t = String::from("version: v1\n");
            if let Some(m) = mig {
                t.push_str(&format!("flags:\n  migStrategy: {m}\n"));
            }
            t.push_str(&format!("sharing:\n  {section}:\n    renameByDefault: {rename}\n"));
            if let Some(f) = fail {
                t.push_str(&format!("    failRequestsGreaterThanOne: {f}\n"));
            }
            t.push_str(&format!("    resources:\n    - name: {name}\n      replicas: {replicas}\n"));
            t
        })
}

fn config_text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,200}",
        prop::collection::vec((prop::sample::select(KEYS).prop_map(str::to_string), node()), 0..5).prop_map(document),
        plausible_config(),
        // A valid config with one byte replaced or removed.
        (plausible_config(), any::<prop::sample::Index>(), any::<char>(), any::<bool>()).prop_map(
            |(t, at, c, remove)| {
                let mut chars: Vec<char> = t.chars().collect();
                let i = at.index(chars.len().max(1)).min(chars.len().saturating_sub(1));
                if remove {
                    chars.remove(i);
                } else if let Some(slot) = chars.get_mut(i) {
                    *slot = c;
                }
                chars.into_iter().collect()
            }
        ),
    ]
}

fn geometry() -> impl Strategy<Value = Option<Geometry>> {
    let profiles = &["1g.10gb", "1g.5gb", "1g.10gb+me", "2g.20gb", "3g.40gb", "7g.80gb", "1g.20gb", "bogus"][..];
    prop::option::of(
        prop::collection::btree_map(prop::sample::select(profiles).prop_map(str::to_string), 0u32..9, 0..4)
            .prop_map(Geometry),
    )
}

fn model() -> impl Strategy<Value = GpuModel> {
    (
        prop::sample::select(
            &["NVIDIA H100 80GB HBM3", "Tesla T4", "NVIDIA A100-SXM4-40GB", "NVIDIA A30", "Some GPU"][..],
        ),
        prop::option::of(0u64..200_000),
        prop::option::of(prop::sample::select(&["7.0", "7.5", "8.0", "9.0", "10.0"][..])),
        any::<bool>(),
    )
        .prop_map(|(name, memory_mib, cc, mig_capable)| GpuModel {
            name: name.into(),
            memory_mib,
            compute_capability: cc.and_then(ComputeCapability::parse),
            mig_capable,
        })
}

fn version() -> impl Strategy<Value = PluginVersion> {
    prop::sample::select(&[(0u32, 14u32, 5u32), (0, 15, 0), (0, 19, 3), (0, 20, 0)][..])
        .prop_map(|(a, b, c)| PluginVersion::new(a, b, c))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any config, any node: an answer, consistent with itself.
    #[test]
    fn any_config_any_node_gives_an_answer(
        text in config_text(),
        model in model(),
        gpus in prop::collection::vec(0u32..17, 1..4),
        mig in geometry(),
        env in prop::option::of(prop::sample::select(&["none", "single", "mixed", "other"][..])),
        version in version(),
    ) {
        let catalog = MigCatalog::embedded().unwrap();
        let nodes = gpus.iter().enumerate().map(|(i, n)| NodeSpec::uniform(format!("n{i}"), model.clone(), *n, mig.clone())).collect();
        let deployment = Deployment { mig_strategy: env.map(str::to_string), ..Deployment::default() };
        let scen = Scenario { file: "cm.yaml".into(), text: text.clone(), version, deployment, nodes };
        let eval = slots::evaluate(&scen, &catalog);
        let lines = u32::try_from(slots::yaml::yaml_lines(&text).len()).unwrap() + 1;
        prop_assert!(eval.loaded.config.is_some() != eval.loaded.error.is_some());
        if let Some(err) = &eval.loaded.error {
            prop_assert!(err.span.line >= 1 && err.span.line <= lines, "{err:?} in {lines} lines");
            prop_assert!(err.startup_error().starts_with("error starting plugins: "));
        }
        for node in &eval.nodes {
            if node.plugin != PluginState::Serving {
                prop_assert!(node.resources.is_empty());
            }
            for p in node.planned.iter().filter(|p| node.resources.contains_key(&p.name)) {
                prop_assert_eq!(Some(p.count), p.devices.checked_mul(p.replicas));
            }
            if let Some(s) = node.seats_per_physical_gpu() {
                prop_assert_eq!(s * node.physical_gpus, node.seats());
            }
        }
        let _ = slots::allocate(&eval.nodes, &slots::PodRequest { resource: "nvidia.com/gpu".into(), count: 2 }, version);
    }

    /// Any geometry on any MIG model: a verdict; a valid one respects the model's limits.
    #[test]
    fn any_geometry_gets_a_verdict(which in 0usize..10, g in geometry()) {
        let catalog = MigCatalog::embedded().unwrap();
        let gpu = &catalog.gpus[which % catalog.gpus.len()];
        let g = g.unwrap_or_default();
        let check = check_geometry(gpu, &g);
        if check.valid {
            prop_assert!(g.instances() <= u64::from(gpu.max_instances));
            for (p, c) in g.0.iter().filter(|(_, c)| **c > 0) {
                prop_assert!(*c <= gpu.profile(p).unwrap().max_count);
            }
        }
    }

    /// Any table request renders in both languages and both formats.
    #[test]
    fn any_table_renders(text in config_text(), model in model(), gpus in 0u32..9, nodes in 0u32..4, replicas in 0u32..60, ko in any::<bool>()) {
        let catalog = MigCatalog::embedded().unwrap();
        let modes = default_modes(&model, &catalog, replicas, &[]);
        let req = TableRequest {
            model, gpus_per_node: gpus, nodes, config: Some(("c.yaml".into(), text)), mig: None, modes,
            version: PluginVersion::REFERENCE, deployment: Deployment::default(),
        };
        let t = slot_table(&req, &catalog, if ko { Lang::Ko } else { Lang::En });
        prop_assert!(to_markdown(&t).lines().count() >= t.rows.len());
        prop_assert_eq!(to_csv(&t).lines().count(), t.rows.len() + 1);
    }
}
