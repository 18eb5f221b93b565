//! Runner for the `nvidia_sharing` area (`../shared/goldens/nvidia/sharing-cases.json`):
//! each case's device-plugin config, GPUs and MIG layout go through the model's
//! [`slots::evaluate`], and every expected field is compared — resources (per node and
//! cluster), the GFD label subset and absent labels, seats per GPU, guaranteed memory per
//! seat, MPS limits, warnings, startup / MPS-daemon errors, and Allocate outcomes (also per
//! plugin version).
//!
//! An expected field this runner does not know fails the case ("not checked"), so a green
//! case means every field was compared. The only fields skipped on purpose are prose ones
//! listed in [`PROSE_FIELDS`].

use std::collections::BTreeMap;
use std::path::Path;

use gpulab_model::slots::{
    self, allocate::PodRequest, ComputeCapability, Deployment, Evaluation, Geometry, GpuModel, MigCatalog, NodeSpec,
    PluginState, PluginVersion, Scenario,
};
use serde_json::Value;

use super::report::CaseResult;

pub const AREA: &str = "nvidia_sharing";

/// Expected fields that are explanations for people, not values (compared by nobody).
pub const PROSE_FIELDS: &[&str] = &["device_plugin_behaviour", "preferred_placement"];

/// Runs every case of a `nvidia_sharing` golden file.
pub fn run(path: &Path, doc: &Value) -> Vec<CaseResult> {
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let catalog = match MigCatalog::embedded() {
        Ok(c) => c,
        Err(e) => return vec![CaseResult::failed(AREA, file, e)],
    };
    let Some(cases) = doc.get("cases").and_then(Value::as_array) else {
        return vec![CaseResult::failed(AREA, file, "no \"cases\" array")];
    };
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let name =
                case.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("case #{i}"));
            let label = format!("{file} :: {name}");
            match run_case(case, &catalog) {
                Ok(()) => CaseResult::passed(AREA, label),
                Err(why) => CaseResult::failed(AREA, label, why.join("\n")),
            }
        })
        .collect()
}

/// The scenario a case's `input` describes.
pub fn scenario(input: &Value, version: Option<PluginVersion>, catalog: &MigCatalog) -> Result<Scenario, String> {
    let model_name = input.get("gpu_model").and_then(Value::as_str).ok_or("input.gpu_model missing")?;
    let known = GpuModel::known(model_name)?.unwrap_or(GpuModel {
        name: model_name.to_string(),
        memory_mib: None,
        compute_capability: None,
        mig_capable: catalog.find(model_name).is_some(),
    });
    let model = GpuModel {
        name: model_name.to_string(),
        memory_mib: input.get("gpu_memory_mib").and_then(Value::as_u64).or(known.memory_mib),
        compute_capability: input
            .get("gpu_compute_capability")
            .and_then(Value::as_str)
            .and_then(ComputeCapability::parse)
            .or(known.compute_capability),
        mig_capable: input.get("mig_capable").and_then(Value::as_bool).unwrap_or(known.mig_capable),
    };
    let version = match version {
        Some(v) => v,
        None => match input.get("plugin_version").and_then(Value::as_str) {
            Some(v) => PluginVersion::parse(v).ok_or_else(|| format!("input.plugin_version {v:?} is not a version"))?,
            None => PluginVersion::REFERENCE,
        },
    };
    let mig = input.get("mig").filter(|m| !m.is_null());
    let mut deployment = Deployment::default();
    let mut geometry = None;
    let mut mig_config = None;
    if let Some(mig) = mig {
        deployment.mig_strategy = mig.get("strategy").and_then(Value::as_str).map(str::to_string);
        let enabled = mig.get("enabled").and_then(Value::as_bool).unwrap_or(true);
        if enabled {
            let mut g = BTreeMap::new();
            if let Some(devices) = mig.get("devices_per_gpu").and_then(Value::as_object) {
                for (p, c) in devices {
                    let c = c
                        .as_u64()
                        .and_then(|c| u32::try_from(c).ok())
                        .ok_or_else(|| format!("mig.devices_per_gpu.{p} is not a count"))?;
                    g.insert(p.clone(), c);
                }
            }
            geometry = Some(Geometry(g));
        }
        mig_config = mig.get("mig_parted_config").and_then(Value::as_str).map(str::to_string);
    }
    let counts = input.get("gpus_per_node").and_then(Value::as_array).ok_or("input.gpus_per_node missing")?;
    let mut nodes = Vec::new();
    for (i, c) in counts.iter().enumerate() {
        let c = c.as_u64().and_then(|c| u32::try_from(c).ok()).ok_or("input.gpus_per_node: not a count")?;
        let mut node = NodeSpec::uniform(format!("node-{i}"), model.clone(), c, geometry.clone());
        node.mig_config = mig_config.clone();
        nodes.push(node);
    }
    let text = input.get("config").and_then(Value::as_str).unwrap_or("").to_string();
    Ok(Scenario { file: "config.yaml".into(), text, version, deployment, nodes })
}

/// Compares one case; `Err` lists every mismatch.
fn run_case(case: &Value, catalog: &MigCatalog) -> Result<(), Vec<String>> {
    let input = case.get("input").ok_or_else(|| vec!["no input".to_string()])?;
    let expected =
        case.get("expected").and_then(Value::as_object).ok_or_else(|| vec!["no expected object".to_string()])?;
    let scen = scenario(input, None, catalog).map_err(|e| vec![e])?;
    let eval = slots::evaluate(&scen, catalog);
    let request = pod_request(input).map_err(|e| vec![e])?;
    let mut errs = Vec::new();
    for (key, want) in expected {
        if PROSE_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if let Err(e) = check_field(key, want, &eval, &scen, request.as_ref(), catalog) {
            errs.push(format!("{key}: {e}"));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

fn pod_request(input: &Value) -> Result<Option<PodRequest>, String> {
    let Some(req) = input.get("pod_request").and_then(Value::as_object) else { return Ok(None) };
    let mut it = req.iter();
    let Some((resource, count)) = it.next() else { return Ok(None) };
    if it.next().is_some() {
        return Err("pod_request with more than one resource is not supported by this runner".into());
    }
    let count = count.as_u64().ok_or("pod_request count is not a number")?;
    Ok(Some(PodRequest { resource: resource.clone(), count }))
}

fn resources_json(map: &BTreeMap<String, u64>) -> Value {
    Value::Object(map.iter().map(|(k, v)| (k.clone(), Value::from(*v))).collect())
}

fn labels_subset(want: &Value, labels: &BTreeMap<String, String>) -> Result<(), String> {
    let want = want.as_object().ok_or("not an object")?;
    let mut bad = Vec::new();
    for (k, v) in want {
        let v = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
        match labels.get(k) {
            Some(actual) if *actual == v => {}
            Some(actual) => bad.push(format!("{k}: expected {v:?}, actual {actual:?}")),
            None => bad.push(format!("{k}: expected {v:?}, absent")),
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

fn eq(want: &Value, actual: Value) -> Result<(), String> {
    if *want == actual {
        Ok(())
    } else {
        Err(format!("expected {want}, actual {actual}"))
    }
}

fn check_field(
    key: &str,
    want: &Value,
    eval: &Evaluation,
    scen: &Scenario,
    request: Option<&PodRequest>,
    catalog: &MigCatalog,
) -> Result<(), String> {
    let first = eval.nodes.first().ok_or("no node")?;
    match key {
        "resources" => {
            let actual = if eval.nodes.len() == 1 { first.resources.clone() } else { eval.cluster_total() };
            eq(want, resources_json(&actual))
        }
        "resources_per_node" => {
            eq(want, Value::Array(eval.nodes.iter().map(|n| resources_json(&n.resources)).collect()))
        }
        "resources_cluster_total" => eq(want, resources_json(&eval.cluster_total())),
        "resources_absent" => {
            let names: Vec<&str> = want.as_array().ok_or("not a list")?.iter().filter_map(Value::as_str).collect();
            let present: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| eval.nodes.iter().any(|node| node.resources.contains_key(*n)))
                .collect();
            if present.is_empty() {
                Ok(())
            } else {
                Err(format!("present: {present:?}"))
            }
        }
        "labels" => labels_subset(want, &first.labels),
        "labels_per_node" => {
            let want = want.as_array().ok_or("not a list")?;
            if want.len() != eval.nodes.len() {
                return Err(format!("{} nodes expected, {} evaluated", want.len(), eval.nodes.len()));
            }
            let bad: Vec<String> = want
                .iter()
                .zip(&eval.nodes)
                .filter_map(|(w, n)| labels_subset(w, &n.labels).err().map(|e| format!("{}: {e}", n.node)))
                .collect();
            if bad.is_empty() {
                Ok(())
            } else {
                Err(bad.join("; "))
            }
        }
        "labels_absent" => {
            let names: Vec<&str> = want.as_array().ok_or("not a list")?.iter().filter_map(Value::as_str).collect();
            let present: Vec<&str> =
                names.iter().copied().filter(|n| eval.nodes.iter().any(|node| node.labels.contains_key(*n))).collect();
            if present.is_empty() {
                Ok(())
            } else {
                Err(format!("present: {present:?}"))
            }
        }
        "seats_per_physical_gpu" => eq(want, first.seats_per_physical_gpu().map(Value::from).unwrap_or(Value::Null)),
        "per_slot_guaranteed_memory_mib" => {
            let served: Vec<_> = first.planned.iter().filter(|p| first.resources.contains_key(&p.name)).collect();
            match want {
                Value::Object(_) => eq(
                    want,
                    Value::Object(
                        served
                            .iter()
                            .map(|p| (p.name.clone(), p.guaranteed_memory_mib.map(Value::from).unwrap_or(Value::Null)))
                            .collect(),
                    ),
                ),
                _ => {
                    let values: Vec<Value> = served
                        .iter()
                        .map(|p| p.guaranteed_memory_mib.map(Value::from).unwrap_or(Value::Null))
                        .collect();
                    // One number for the node: every served resource must have it.
                    match values.first() {
                        Some(first) if values.iter().all(|v| v == first) => eq(want, first.clone()),
                        _ => Err(format!("expected {want} for every served resource, actual {values:?}")),
                    }
                }
            }
        }
        "mps_pinned_mem_limit_mib" => {
            eq(want, first.mps.as_ref().and_then(|m| m.pinned_mem_limit_mib).map(Value::from).unwrap_or(Value::Null))
        }
        "mps" => {
            let mps = first.mps.as_ref().ok_or("no MPS settings")?;
            let actual = serde_json::json!({
                "set_default_device_pinned_mem_limit_per_gpu": mps.pinned_mem_limit_arg(),
                "set_default_active_thread_percentage": mps.active_thread_percentage.to_string(),
                "compute_mode": mps.compute_mode,
                "max_clients": mps.max_clients,
            });
            subset(want, &actual)
        }
        "warnings" => eq(want, Value::from(eval.loaded.warnings.clone())),
        "startup_error" => match &first.plugin {
            PluginState::Exited { error } => eq(want, Value::from(error.clone())),
            other => Err(format!("expected {want}, plugin state {other:?}")),
        },
        "plugin_exits" => eq(want, Value::from(matches!(first.plugin, PluginState::Exited { .. }))),
        "mps_control_daemon_error" => match &first.plugin {
            PluginState::Waiting { error, .. } => eq(want, Value::from(error.clone())),
            other => Err(format!("expected {want}, plugin state {other:?}")),
        },
        "allocate" => {
            let req = request.ok_or("no input.pod_request")?;
            let outcome = slots::allocate(&eval.nodes, req, scen.version);
            subset(want, &allocate_json(&outcome))
        }
        "allocate_by_plugin_version" => {
            let req = request.ok_or("no input.pod_request")?;
            let mut bad = Vec::new();
            for (range, w) in want.as_object().ok_or("not an object")? {
                for v in versions_in(range)? {
                    let s = Scenario { version: v, ..scen.clone() };
                    let e = slots::evaluate(&s, catalog);
                    let outcome = slots::allocate(&e.nodes, req, v);
                    if let Err(why) = subset(w, &allocate_json(&outcome)) {
                        bad.push(format!("{v} ({range}): {why}"));
                    }
                }
            }
            if bad.is_empty() {
                Ok(())
            } else {
                Err(bad.join("; "))
            }
        }
        k if k.starts_with("node_capacity_if_") => {
            let names: Vec<&str> = want.as_object().ok_or("not an object")?.keys().map(String::as_str).collect();
            eq(want, resources_json(&first.node_capacity(&names)))
        }
        other => Err(format!("the runner does not check {other:?}")),
    }
}

/// `v0.20.0` → [v0.20.0]; `v0.15.0..v0.19.3` → both ends.
fn versions_in(range: &str) -> Result<Vec<PluginVersion>, String> {
    let parse = |s: &str| PluginVersion::parse(s).ok_or_else(|| format!("{s:?} is not a plugin version"));
    match range.split_once("..") {
        Some((a, b)) => Ok(vec![parse(a)?, parse(b)?]),
        None => Ok(vec![parse(range)?]),
    }
}

fn allocate_json(o: &slots::AllocateOutcome) -> Value {
    serde_json::json!({
        "scheduled": o.scheduled,
        "admitted": o.admitted,
        "plugin_error": o.plugin_error,
        "kubelet_event": o.kubelet_event,
        "pod_outcome": o.pod_outcome,
        "replicas_allocated": o.replicas_allocated,
        "extra_compute_guaranteed": o.extra_compute_guaranteed,
    })
}

/// Every key of `want` (recursively for objects) equals `actual`'s; prose keys are skipped,
/// keys `actual` does not have fail.
fn subset(want: &Value, actual: &Value) -> Result<(), String> {
    let (Some(w), Some(a)) = (want.as_object(), actual.as_object()) else {
        return eq(want, actual.clone());
    };
    let mut bad = Vec::new();
    for (k, v) in w {
        if PROSE_FIELDS.contains(&k.as_str()) {
            continue;
        }
        match a.get(k) {
            None => bad.push(format!("{k}: the runner does not check it")),
            Some(av) => {
                if let Err(e) = subset(v, av) {
                    bad.push(format!("{k}: {e}"));
                }
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version range is checked at both ends.
    #[test]
    fn ranges_check_both_ends() {
        assert_eq!(
            versions_in("v0.15.0..v0.19.3").unwrap(),
            vec![PluginVersion::new(0, 15, 0), PluginVersion::new(0, 19, 3)]
        );
        assert!(versions_in("soon").is_err());
    }

    /// An expected field nobody checks fails the case instead of passing silently.
    #[test]
    fn unknown_fields_fail() {
        let case = serde_json::json!({
            "name": "x",
            "input": {"gpus_per_node": [1], "gpu_model": "Tesla T4", "config": "version: v1\n", "mig": null},
            "expected": {"resources": {"nvidia.com/gpu": 1}, "teleport": true}
        });
        let catalog = MigCatalog::embedded().unwrap();
        let err = run_case(&case, &catalog).unwrap_err();
        assert_eq!(err, vec!["teleport: the runner does not check \"teleport\"".to_string()]);
    }
}
