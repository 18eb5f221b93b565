//! Runner for the `nvidia_mig_profiles` area (`../shared/goldens/nvidia/mig-profiles.json`):
//! one case per GPU model. The model's embedded MIG catalogue must have the model (found by
//! its catalogue name and by every NVML name example), its slice and instance totals, its
//! all-balanced layout (and that layout must be a valid geometry), and every profile with the
//! same resource name, memory, compute slices, max count, media extensions, placements and
//! observed memory / SMs. The planner must accept `max_count × profile` and refuse one more.

use std::collections::BTreeMap;
use std::path::Path;

use gpulab_model::slots::mig::{check_geometry, Geometry, MigCatalog, MigGpu};
use serde_json::Value;

use super::report::CaseResult;

pub const AREA: &str = "nvidia_mig_profiles";

/// Runs the catalogue check and one case per GPU model.
pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let catalog = match MigCatalog::embedded() {
        Ok(c) => c,
        Err(e) => return vec![CaseResult::failed(AREA, file, e)],
    };
    let Some(gpus) = doc.get("gpus").and_then(Value::as_array) else {
        return vec![CaseResult::failed(AREA, file, "no \"gpus\" array")];
    };
    let mut out = Vec::new();
    let count = doc.get("gpu_count").and_then(Value::as_u64).unwrap_or(gpus.len() as u64);
    out.push(CaseResult::compare(AREA, format!("{file} :: gpu_count"), &count, &(gpus.len() as u64)));
    for (i, g) in gpus.iter().enumerate() {
        let model = g.get("model").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("gpu #{i}"));
        let label = format!("{file} :: {model}");
        out.push(match check_gpu(g, &model, &catalog) {
            Ok(()) => CaseResult::passed(AREA, label),
            Err(why) => CaseResult::failed(AREA, label, why.join("\n")),
        });
    }
    out
}

fn check_gpu(g: &Value, model: &str, catalog: &MigCatalog) -> Result<(), Vec<String>> {
    let gpu = catalog
        .gpus
        .iter()
        .find(|c| c.model == model)
        .ok_or_else(|| vec![format!("model {model:?} not in the catalogue")])?;
    let mut errs = Vec::new();
    let mut same = |what: &str, want: Option<u64>, actual: u64| {
        if want != Some(actual) {
            errs.push(format!("{what}: expected {want:?}, actual {actual}"));
        }
    };
    same("compute_slices_total", g.get("compute_slices_total").and_then(Value::as_u64), u64::from(gpu.compute_slices));
    same("memory_slices_total", g.get("memory_slices_total").and_then(Value::as_u64), u64::from(gpu.memory_slices));
    same("max_instances", g.get("max_instances").and_then(Value::as_u64), u64::from(gpu.max_instances));

    for name in g.get("nvml_name_examples").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        let name = name.trim_end_matches(" (go-nvml mock name)");
        match catalog.find(name) {
            Some(found) if found.model == gpu.model => {}
            Some(found) => errs.push(format!("NVML name {name:?} finds {:?}", found.model)),
            None => errs.push(format!("NVML name {name:?} finds nothing")),
        }
    }

    if let Some(ab) = g.get("all_balanced").and_then(Value::as_object) {
        let want: BTreeMap<String, u32> =
            ab.iter().filter_map(|(k, v)| Some((k.clone(), u32::try_from(v.as_u64()?).ok()?))).collect();
        if want != gpu.all_balanced {
            errs.push(format!("all_balanced: expected {want:?}, actual {:?}", gpu.all_balanced));
        }
        let check = check_geometry(gpu, &Geometry(want));
        if !check.valid {
            errs.push(format!("all_balanced is not a valid geometry: {:?}", check.errors));
        }
    }

    let profiles = g.get("profiles").and_then(Value::as_array).cloned().unwrap_or_default();
    if profiles.len() != gpu.profiles.len() {
        errs.push(format!("{} profiles expected, {} in the catalogue", profiles.len(), gpu.profiles.len()));
    }
    for p in &profiles {
        if let Err(e) = check_profile(p, gpu) {
            errs.extend(e);
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn check_profile(p: &Value, gpu: &MigGpu) -> Result<(), Vec<String>> {
    let name = p.get("name").and_then(Value::as_str).unwrap_or("?");
    let prof =
        gpu.profile(name).filter(|pr| pr.name == name).ok_or_else(|| vec![format!("profile {name}: missing")])?;
    let mut errs = Vec::new();
    let mut check = |what: &str, want: Option<Value>, actual: Value| {
        if let Some(w) = want {
            if w != actual {
                errs.push(format!("{name}.{what}: expected {w}, actual {actual}"));
            }
        }
    };
    check("k8s_resource_mixed", p.get("k8s_resource_mixed").cloned(), Value::from(prof.mixed_resource()));
    check("memory_gib", p.get("memory_gib").cloned(), Value::from(prof.memory_gib));
    check("compute_slices", p.get("compute_slices").cloned(), Value::from(prof.compute_slices));
    check("max_count", p.get("max_count").cloned(), Value::from(prof.max_count));
    check("media_extensions", p.get("media_extensions").cloned(), Value::from(prof.media_extensions));
    let placements = p.get("placements").filter(|v| !v.is_null());
    check(
        "placements.starts",
        Some(placements.and_then(|pl| pl.get("starts")).cloned().unwrap_or(Value::Null)),
        prof.placements.as_ref().map(|pl| Value::from(pl.starts.clone())).unwrap_or(Value::Null),
    );
    check(
        "placements.size",
        Some(placements.and_then(|pl| pl.get("size")).cloned().unwrap_or(Value::Null)),
        prof.placements.as_ref().map(|pl| Value::from(pl.size)).unwrap_or(Value::Null),
    );
    if let Some(obs) = p.get("observed").filter(|v| !v.is_null()) {
        check(
            "observed.memory_mib",
            obs.get("memory_mib").cloned(),
            prof.memory_mib.map(Value::from).unwrap_or(Value::Null),
        );
        check(
            "observed.multiprocessors",
            obs.get("multiprocessors").cloned(),
            prof.multiprocessors.map(Value::from).unwrap_or(Value::Null),
        );
    }
    // The planner: the profile's maximum fits, one more does not.
    let at_max = check_geometry(gpu, &Geometry::from_pairs([(name, prof.max_count)]));
    if !at_max.valid {
        errs.push(format!("{name}: {} instances refused: {:?}", prof.max_count, at_max.errors));
    }
    let over = check_geometry(gpu, &Geometry::from_pairs([(name, prof.max_count + 1)]));
    if over.valid {
        errs.push(format!("{name}: {} instances accepted", prof.max_count + 1));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}
