//! `gpulab slots` and `gpulab mig`: the model's slot calculator on the command line.
//! Resolving what was typed (model facts, MIG layout, replicas) is here; every number comes
//! from `gpulab_model::slots`, and the DRA rows from `gpulab_model::kubernetes::dra::seats`
//! (the page's step 7 prints the same table).

use gpulab_model::kubernetes::{dra::seats, KubeVersion};
use gpulab_model::Lang;
use gpulab_model::slots::{
    self, config_map,
    mig::{check_geometry, Geometry, MigCatalog, MigGpu},
    table::{self, default_modes, headline_lines, TableRequest},
    ComputeCapability, Deployment, GpuModel, NodeSpec, PluginVersion, Scenario,
};
use gpulab_model::Diagnostic;
use serde_json::json;

use crate::cli::{MigArgs, SlotsArgs};
use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// Runs `gpulab slots`.
pub fn run(args: &SlotsArgs, output: OutputFormat) -> ExitCode {
    match build(args) {
        Ok(report) => report.print(output),
        Err(e) => {
            eprintln!("gpulab slots: {e}");
            ExitCode::BadInput
        }
    }
}

struct SlotsReport {
    table: table::SlotTable,
    evaluation: Option<slots::Evaluation>,
    allocate: Option<(slots::PodRequest, slots::AllocateOutcome)>,
    notes: Vec<String>,
}

fn catalog() -> Result<MigCatalog, String> {
    MigCatalog::embedded()
}

/// The GPU model from the built-in table, completed or overridden by the flags.
fn resolve_model(args: &SlotsArgs, catalog: &MigCatalog) -> Result<GpuModel, String> {
    let known = GpuModel::known(&args.gpu_model)?;
    let cc = match &args.compute_capability {
        Some(s) => {
            Some(ComputeCapability::parse(s).ok_or_else(|| format!("--compute-capability {s:?}: expected X.Y"))?)
        }
        None => known.as_ref().and_then(|k| k.compute_capability),
    };
    Ok(GpuModel {
        name: known.as_ref().map(|k| k.name.clone()).unwrap_or_else(|| args.gpu_model.clone()),
        memory_mib: args.gpu_memory_mib.or(known.as_ref().and_then(|k| k.memory_mib)),
        compute_capability: cc,
        mig_capable: known.as_ref().map(|k| k.mig_capable).unwrap_or(false) || catalog.find(&args.gpu_model).is_some(),
    })
}

/// A layout name of the model (`all-balanced`) or a geometry (`2x1g.10gb,3g.40gb`).
fn resolve_geometry(text: &str, gpu: Option<&MigGpu>) -> Result<Geometry, String> {
    if let Some(g) = gpu {
        if let Some((_, geometry)) = g.named_layouts().into_iter().find(|(n, _)| n == text) {
            return Ok(geometry);
        }
    }
    Geometry::parse(text)
}

fn build(args: &SlotsArgs) -> Result<SlotsReport, String> {
    let catalog = catalog()?;
    let lang = Lang::parse(&args.lang).ok_or_else(|| format!("--lang {:?}: expected en or ko", args.lang))?;
    let version = PluginVersion::parse(&args.plugin_version)
        .ok_or_else(|| format!("--plugin-version {:?} is not a version", args.plugin_version))?;
    let model = resolve_model(args, &catalog)?;
    let mut notes = Vec::new();
    if model.memory_mib.is_none() {
        notes.push(format!(
            "the memory of {:?} is not in the built-in table: pass --gpu-memory-mib for whole-GPU and MPS figures",
            model.name
        ));
    }
    let mut selected_from = None;
    let config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let file = path.display().to_string();
            if is_config_map(&text) {
                let cm = config_map::parse_config_map(&file, &text).map_err(|d| diagnostic_line(&d, lang))?;
                let selection = config_map::Selection::gpu_operator(args.default_config.clone());
                match config_map::select(&cm, args.node_label.as_deref(), &selection) {
                    config_map::Selected::Key { key, by } => {
                        notes.push(format!("ConfigMap key {key:?} selected by {by}"));
                        let text = cm.data.get(&key).cloned().unwrap_or_default();
                        selected_from = Some((cm, key.clone()));
                        Some((format!("{file}#{key}"), text))
                    }
                    config_map::Selected::Empty => {
                        notes.push("no label and no default: the GPU Operator's `empty` fallback (no sharing)".into());
                        Some((format!("{file}#<empty>"), String::new()))
                    }
                    config_map::Selected::Unknown { error, .. } | config_map::Selected::NoneApplies { error } => {
                        return Err(format!("config-manager: {error} (the plugin keeps the config it had)"));
                    }
                }
            } else {
                Some((file, text))
            }
        }
        None => None,
    };
    let mig_gpu = catalog.find(&model.name);
    let mig = match &args.mig {
        Some(text) => {
            let g = resolve_geometry(text, mig_gpu)?;
            if let Some(gpu) = mig_gpu {
                let check = check_geometry(gpu, &g);
                if !check.valid {
                    let why: Vec<String> = check.errors.iter().map(ToString::to_string).collect();
                    return Err(format!("--mig {text}: not a valid geometry for {}: {}", gpu.model, why.join("; ")));
                }
            }
            Some(g)
        }
        None => None,
    };
    let deployment = Deployment { mig_strategy: args.mig_strategy.clone(), ..Deployment::default() };
    let loaded = config.as_ref().map(|(file, text)| slots::load_config(file, text, version));
    let config_replicas = loaded
        .as_ref()
        .and_then(|l| l.config.as_ref())
        .and_then(|c| c.sharing.replicated())
        .and_then(|r| r.resources.first())
        .and_then(|r| u32::try_from(r.replicas).ok());
    let replicas = args.replicas.or(config_replicas).unwrap_or(4);
    let compare: Vec<&str> = args.compare.iter().map(String::as_str).collect();
    let mut modes = default_modes(&model, &catalog, replicas, &compare);
    if config.is_none() {
        modes.retain(|m| *m != table::Mode::Config);
    }
    let req = TableRequest {
        model: model.clone(),
        gpus_per_node: args.gpus_per_node,
        nodes: args.nodes,
        config: config.clone(),
        mig: mig.clone(),
        modes,
        version,
        deployment: deployment.clone(),
    };
    let mut table = slots::slot_table(&req, &catalog, lang);
    if compare.is_empty() || compare.contains(&"all") || compare.contains(&"dra") {
        let version: KubeVersion = args.k8s_version.parse().map_err(|e| format!("--k8s-version {:?}: {e}", args.k8s_version))?;
        let r = seats::Request { model: &model, gpus_per_node: args.gpus_per_node, nodes: args.nodes, replicas, version };
        seats::add_rows(&mut table, &r, &catalog);
    }
    // Spans inside a ConfigMap key point at the ConfigMap file's own lines.
    if let Some((cm, key)) = &selected_from {
        if let Some(mapped) = config_map::load_key(cm, key, version) {
            table.diagnostics = mapped.diagnostics;
        }
    }
    let evaluation = config.map(|(file, text)| {
        let nodes = (0..args.nodes)
            .map(|i| NodeSpec::uniform(format!("node-{i}"), model.clone(), args.gpus_per_node, mig.clone()))
            .collect();
        slots::evaluate(&Scenario { file, text, version, deployment, nodes }, &catalog)
    });
    let allocate = match (&args.request, &evaluation) {
        (Some(r), Some(eval)) => {
            let (resource, count) = r.split_once('=').ok_or_else(|| format!("--request {r:?}: expected RESOURCE=N"))?;
            let count: u64 = count.trim().parse().map_err(|_| format!("--request {r:?}: N is not a number"))?;
            let request = slots::PodRequest { resource: resource.trim().to_string(), count };
            let outcome = slots::allocate(&eval.nodes, &request, version);
            Some((request, outcome))
        }
        (Some(_), None) => return Err("--request needs --config".into()),
        _ => None,
    };
    Ok(SlotsReport { table, evaluation, allocate, notes })
}

/// Whether a file is a ConfigMap manifest rather than a bare device-plugin config.
fn is_config_map(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("kind:") && l.contains("ConfigMap"))
}

/// A diagnostic as one line: `file:line:col: severity: message [code]`.
pub fn diagnostic_line(d: &Diagnostic, lang: Lang) -> String {
    d.line_with(&slots::messages::message(d, lang))
}

impl SlotsReport {
    fn failed(&self) -> bool {
        self.table.rows.iter().any(|r| r.mode == table::Mode::Config && r.error.is_some())
    }

    fn print(&self, output: OutputFormat) -> ExitCode {
        match output {
            OutputFormat::Md => print!("{}", table::to_markdown(&self.table)),
            OutputFormat::Csv => print!("{}", table::to_csv(&self.table)),
            OutputFormat::Json => {
                let doc = json!({
                    "headline": headline_lines(&self.table),
                    "table": self.table,
                    "evaluation": self.evaluation,
                    "allocate": self.allocate.as_ref().map(|(r, o)| json!({"request": r, "outcome": o})),
                    "notes": self.notes,
                });
                println!("{doc:#}");
            }
            OutputFormat::Text => self.print_text(),
        }
        if self.failed() {
            ExitCode::CheckFailed
        } else {
            ExitCode::Success
        }
    }

    fn print_text(&self) {
        print!("{}", table::to_markdown(&self.table));
        for d in &self.table.diagnostics {
            println!("{}", diagnostic_line(d, self.table.lang));
        }
        if let Some(eval) = &self.evaluation {
            for w in &eval.loaded.warnings {
                println!("device plugin log: {w}");
            }
            if let Some(node) = eval.nodes.first() {
                println!();
                println!("{} as the device plugin and GFD configure it:", node.node);
                match &node.plugin {
                    slots::PluginState::Serving => {}
                    slots::PluginState::Exited { error } => println!("  plugin exits: {error}"),
                    slots::PluginState::Waiting { error, retry } => println!("  plugin waits: {error} ({retry})"),
                    slots::PluginState::NoDevices => println!("  plugin: No devices found. Waiting indefinitely."),
                }
                for (k, v) in &node.resources {
                    println!("  capacity {k}: {v}");
                }
                if let Some(e) = &node.gfd_error {
                    println!("  GFD: {e}");
                }
                for (k, v) in &node.labels {
                    println!("  label {k}={v}");
                }
                if let Some(mps) = &node.mps {
                    println!(
                        "  MPS daemon: set_default_device_pinned_mem_limit {}, set_default_active_thread_percentage {}, compute mode {}",
                        mps.pinned_mem_limit_arg().unwrap_or_else(|| "?".into()),
                        mps.active_thread_percentage,
                        mps.compute_mode
                    );
                }
                for d in &node.diagnostics {
                    println!("  {}", diagnostic_line(d, self.table.lang));
                }
            }
        }
        if let Some((req, o)) = &self.allocate {
            println!();
            println!("a pod requesting {}: {}", req.resource, req.count);
            if !o.scheduled {
                println!("  not scheduled: no node has {} allocatable {}", req.count, req.resource);
            } else if let Some(e) = &o.kubelet_event {
                println!("  scheduled on {}, then Allocate fails:", o.node.as_deref().unwrap_or("?"));
                println!("  {} {} kubelet {}", e.kind, e.reason, e.message);
            } else {
                let extra = if o.extra_compute_guaranteed == Some(false) {
                    ", no more compute than one (equal time share per process)"
                } else {
                    ""
                };
                println!(
                    "  admitted on {}: {} devices{extra}",
                    o.node.as_deref().unwrap_or("?"),
                    o.replicas_allocated.unwrap_or(0)
                );
            }
        }
        for n in &self.notes {
            println!("note: {n}");
        }
    }
}

/// Runs `gpulab mig`.
pub fn run_mig(args: &MigArgs, output: OutputFormat) -> ExitCode {
    let catalog = match catalog() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gpulab mig: {e}");
            return ExitCode::BadInput;
        }
    };
    let Some(gpu) = catalog.find(&args.gpu_model) else {
        let known: Vec<&str> = catalog.gpus.iter().map(|g| g.model.as_str()).collect();
        eprintln!("gpulab mig: no MIG profiles for {:?}; known models: {}", args.gpu_model, known.join(", "));
        return ExitCode::BadInput;
    };
    let check = match &args.geometry {
        Some(text) => match resolve_geometry(text, Some(gpu)) {
            Ok(g) => Some((g.clone(), check_geometry(gpu, &g))),
            Err(e) => {
                eprintln!("gpulab mig: --geometry {text:?}: {e}");
                return ExitCode::BadInput;
            }
        },
        None => None,
    };
    if output == OutputFormat::Json {
        let doc = json!({
            "gpu": gpu,
            "layouts": gpu.named_layouts().into_iter().map(|(n, g)| json!({"name": n, "geometry": g})).collect::<Vec<_>>(),
            "check": check.as_ref().map(|(g, c)| json!({"geometry": g, "result": c})),
        });
        println!("{doc:#}");
    } else {
        println!(
            "{} ({} compute slices, {} memory slices, at most {} instances)",
            gpu.model, gpu.compute_slices, gpu.memory_slices, gpu.max_instances
        );
        println!("| profile | mixed resource | memory | compute slices | max per GPU | placements |");
        println!("|---|---|---|---|---|---|");
        for p in &gpu.profiles {
            let memory =
                p.memory_mib.map(|m| format!("{m} MiB")).unwrap_or_else(|| format!("{} GB nominal", p.memory_gib));
            let placements = p
                .placements
                .as_ref()
                .map(|pl| format!("starts {:?}, size {}", pl.starts, pl.size))
                .unwrap_or_else(|| "not read".into());
            println!(
                "| {} | {} | {memory} | {} | {} | {placements} |",
                p.name,
                p.mixed_resource(),
                p.compute_slices,
                p.max_count
            );
        }
        println!();
        for (name, g) in gpu.named_layouts() {
            println!("layout {name}: {g}");
        }
        if let Some((g, c)) = &check {
            println!();
            if c.valid {
                let how = match &c.placement {
                    Some(p) => p.iter().map(|(n, s)| format!("{n}@{s}")).collect::<Vec<_>>().join(" "),
                    None => "placements not read for this model: counts and slices checked".into(),
                };
                println!("{g}: fits ({how})");
            } else {
                println!("{g}: does not fit");
                for e in &c.errors {
                    println!("  {e} [{}]", e.code());
                }
            }
            for w in &c.warnings {
                println!("  warning: {w}");
            }
            println!("{}", table::text("drain", Lang::En));
        }
    }
    match check {
        Some((_, c)) if !c.valid => ExitCode::CheckFailed,
        _ => ExitCode::Success,
    }
}
