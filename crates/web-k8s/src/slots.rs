//! Step 7 on the model: the slot calculator (`gpulab_model::slots::slot_table` with
//! all comparison modes, the same `gpulab slots` computes) and its labels, headline,
//! config findings and Markdown / CSV exports. Here rather than in the app's first
//! load because the device-plugin config is YAML (serde_norway) and the MIG
//! catalogue is embedded YAML data, read once for the chunk's lifetime ([`load_data`]).

use std::rc::Rc;

use gpulab_model::slots::{
    self,
    table::{self, default_modes, headline_lines, SlotTable, TableRequest},
    Deployment, GpuModel, MigCatalog, PluginVersion,
};
use gpulab_view::{DiagLine, SlotsRequest, SlotsView};

/// The config file's name, as diagnostics and the CLI name it.
pub const CONFIG_FILE: &str = "config.yaml";

/// Built-in data of the model.
pub struct SlotsData {
    pub catalog: MigCatalog,
    pub models: Vec<GpuModel>,
}

thread_local! {
    /// The embedded data as read at the first request: the same text every time, so
    /// the same reading (it was about a sixth of a step 7 or step 8 request).
    static DATA: Result<Rc<SlotsData>, String> = read_data();
}

fn read_data() -> Result<Rc<SlotsData>, String> {
    Ok(Rc::new(SlotsData { catalog: MigCatalog::embedded()?, models: GpuModel::all_known()? }))
}

/// The model's embedded MIG catalogue and GPU table (read at the first call, then kept).
pub fn load_data() -> Result<Rc<SlotsData>, String> {
    DATA.with(Clone::clone)
}

/// The model's label language for a request's `ko` / `en`.
pub fn model_lang(tag: &str) -> gpulab_model::Lang {
    if tag == "en" {
        gpulab_model::Lang::En
    } else {
        gpulab_model::Lang::Ko
    }
}

/// The table for the request, as `gpulab slots --gpu-model M --gpus-per-node G
/// --nodes N --replicas R --config config.yaml` computes it (all comparison modes).
pub fn compute(req: &SlotsRequest, data: &SlotsData) -> SlotTable {
    let known = data.models.iter().find(|m| m.name == req.gpu_model);
    let model = GpuModel {
        name: req.gpu_model.clone(),
        memory_mib: known.and_then(|k| k.memory_mib),
        compute_capability: known.and_then(|k| k.compute_capability),
        mig_capable: known.is_some_and(|k| k.mig_capable) || data.catalog.find(&req.gpu_model).is_some(),
    };
    let modes = default_modes(&model, &data.catalog, req.replicas, &[]);
    let tr = TableRequest {
        model,
        gpus_per_node: req.gpus_per_node,
        nodes: req.nodes,
        config: Some((CONFIG_FILE.to_string(), req.config.clone())),
        mig: None,
        modes,
        version: PluginVersion::default(),
        deployment: Deployment::default(),
    };
    slots::slot_table(&tr, &data.catalog, model_lang(&req.lang))
}

/// Step 7's view for the request.
pub fn view(req: &SlotsRequest) -> Result<SlotsView, String> {
    let data = load_data()?;
    let t = compute(req, &data);
    let lang = t.lang;
    let diagnostics = t
        .diagnostics
        .iter()
        .map(|d| DiagLine {
            severity: d.severity,
            location: d.primary.as_ref().map(ToString::to_string),
            line: d.primary.as_ref().filter(|s| s.file == CONFIG_FILE).map(|s| s.line),
            message: slots::messages::message(d, lang),
            code: d.code.clone(),
        })
        .collect();
    Ok(SlotsView {
        models: data.models.iter().map(|m| m.name.clone()).collect(),
        gpu_model: t.gpu_model.clone(),
        gpus_per_node: t.gpus_per_node,
        nodes: t.nodes,
        columns: table::COLUMNS.iter().map(|c| table::text(c, lang).to_string()).collect(),
        rows: t.rows.iter().map(|r| table::cells(r, lang)).collect(),
        headline: headline_lines(&t),
        drain: t.mig_reconfiguration_requires_drain.then(|| table::text("drain", lang).to_string()),
        diagnostics,
        markdown: table::to_markdown(&t),
        csv: table::to_csv(&t),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The view carries the model's table cell for cell, and its exports.
    #[test]
    fn view_is_the_models_table() {
        let req = SlotsRequest {
            gpu_model: "NVIDIA H100 80GB HBM3".into(),
            gpus_per_node: 8,
            nodes: 2,
            replicas: 4,
            config: String::new(),
            lang: "en".into(),
        };
        let v = view(&req).unwrap();
        let t = compute(&req, &load_data().unwrap());
        assert_eq!(v.rows.len(), t.rows.len());
        assert_eq!(v.columns.len(), table::COLUMNS.len());
        assert_eq!(v.markdown, table::to_markdown(&t));
        assert!(v.models.contains(&req.gpu_model));
    }
}
