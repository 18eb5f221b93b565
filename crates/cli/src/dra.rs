//! `gpulab dra slices`: the ResourceSlices NVIDIA's DRA driver publishes for one
//! node's GPUs, from the model's `dra::nvidia` — YAML documents (JSON with
//! `--output json`) that a cluster without the driver accepts, so a learner can see
//! the scheduler allocate them.

use gpulab_model::kubernetes::dra::nvidia::{device_classes, resource_slices, Mig, NodeGpus};
use gpulab_model::slots::{Geometry, GpuModel, MigCatalog};

use crate::cli::DraSlicesArgs;
use crate::exit::ExitCode;
use crate::output::OutputFormat;

/// What was typed, resolved: the node's GPUs as the driver would find them.
fn resolve(args: &DraSlicesArgs) -> Result<NodeGpus, String> {
    let model = GpuModel::known(&args.gpu_model)?.ok_or_else(|| format!("unknown GPU model {:?} (`gpulab slots --help` lists where the known ones come from)", args.gpu_model))?;
    let mig = match args.mig.as_deref() {
        None => Mig::Disabled,
        Some("partitionable") => Mig::Partitionable,
        Some(g) => Mig::Static(Geometry::parse(g)?),
    };
    let mut gpus = NodeGpus { mig, generation: args.generation, ..NodeGpus::new(&args.node, model, args.gpus) };
    if let Some(v) = &args.driver_version {
        gpus.driver_version.clone_from(v);
    }
    if let Some(v) = &args.cuda_driver_version {
        gpus.cuda_driver_version.clone_from(v);
    }
    Ok(gpus)
}

/// `gpulab dra slices`.
pub fn slices(args: &DraSlicesArgs, output: OutputFormat) -> ExitCode {
    let built = resolve(args).and_then(|gpus| {
        let catalog = MigCatalog::embedded()?;
        resource_slices(&gpus, args.gpu_memory_mib, &catalog)
    });
    let slices = match built {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gpulab: {e}");
            return ExitCode::BadInput;
        }
    };
    let mut docs: Vec<serde_json::Value> = Vec::new();
    if args.classes {
        docs.extend(device_classes().iter().filter_map(|c| serde_json::to_value(c).ok()));
    }
    docs.extend(slices.iter().filter_map(|s| serde_json::to_value(s).ok()));
    match output {
        OutputFormat::Json => println!("{}", serde_json::Value::Array(docs)),
        _ => {
            for d in &docs {
                match serde_norway::to_string(d) {
                    Ok(y) => print!("---\n{y}"),
                    Err(e) => {
                        eprintln!("gpulab: {e}");
                        return ExitCode::External;
                    }
                }
            }
        }
    }
    ExitCode::Success
}
