//! Step 7 on the model: the slot calculator (`gpulab_model::slots::slot_table` with
//! all comparison modes, the same `gpulab slots` computes) and its labels, headline,
//! config findings and Markdown / CSV exports. Here rather than in the app's first
//! load because the device-plugin config is YAML (serde_norway) and the MIG
//! catalogue is embedded YAML data, read once for the chunk's lifetime ([`load_data`]).
//!
//! The DRA rows (`gpulab_model::kubernetes::dra::seats`: the allocator over the
//! NVIDIA driver's slices) are added only by [`view_dra`], the DRA module's `slots`:
//! the chunk's [`view`] answers without them and says `needs_dra`, so the chunk
//! links none of the DRA code (the same split as step 6's `kube::view_dra`).

use std::rc::Rc;

use gpulab_model::kubernetes::{dra::seats, KubeVersion};
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

/// The Kubernetes version of the DRA rows: the request's, `1.36` (step 6's default)
/// when it names none.
fn k8s_version(req: &SlotsRequest) -> Result<KubeVersion, String> {
    match req.k8s_version.as_str() {
        "" => Ok(KubeVersion::V1_36),
        v => v.parse().map_err(|e| format!("k8s_version {v:?}: {e}")),
    }
}

/// The table for the request, as `gpulab slots --gpu-model M --gpus-per-node G
/// --nodes N --replicas R --config config.yaml --k8s-version V` computes it (all
/// comparison modes; the DRA rows with `DRA`).
pub fn compute_with<const DRA: bool>(req: &SlotsRequest, data: &SlotsData) -> Result<SlotTable, String> {
    let mut t = compute(req, data);
    if DRA {
        let version = k8s_version(req)?;
        let model = model(req, data);
        let r = seats::Request { model: &model, gpus_per_node: req.gpus_per_node, nodes: req.nodes, replicas: req.replicas, version };
        seats::add_rows(&mut t, &r, &data.catalog);
    }
    Ok(t)
}

/// The request's GPU model as the built-in table and the MIG data know it.
fn model(req: &SlotsRequest, data: &SlotsData) -> GpuModel {
    let known = data.models.iter().find(|m| m.name == req.gpu_model);
    GpuModel {
        name: req.gpu_model.clone(),
        memory_mib: known.and_then(|k| k.memory_mib),
        compute_capability: known.and_then(|k| k.compute_capability),
        mig_capable: known.is_some_and(|k| k.mig_capable) || data.catalog.find(&req.gpu_model).is_some(),
    }
}

/// The device plugin's rows only.
pub fn compute(req: &SlotsRequest, data: &SlotsData) -> SlotTable {
    let model = model(req, data);
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

/// Step 7's view for the request, without the DRA rows (the chunk's `slots`).
pub fn view(req: &SlotsRequest) -> Result<SlotsView, String> {
    view_with::<false>(req)
}

/// Step 7's view with the DRA rows (the DRA module's `slots`).
pub fn view_dra(req: &SlotsRequest) -> Result<SlotsView, String> {
    view_with::<true>(req)
}

fn view_with<const DRA: bool>(req: &SlotsRequest) -> Result<SlotsView, String> {
    let data = load_data()?;
    let t = compute_with::<DRA>(req, &data)?;
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
        notes: t.notes.clone(),
        needs_dra: !DRA,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight H100s on two nodes, replicas 4, Kubernetes 1.37, in English.
    fn h100() -> SlotsRequest {
        SlotsRequest {
            gpu_model: "NVIDIA H100 80GB HBM3".into(),
            gpus_per_node: 8,
            nodes: 2,
            replicas: 4,
            config: String::new(),
            lang: "en".into(),
            k8s_version: "1.37".into(),
        }
    }

    /// The view carries the model's table cell for cell, and its exports.
    #[test]
    fn view_is_the_models_table() {
        let req = h100();
        let v = view(&req).unwrap();
        let t = compute(&req, &load_data().unwrap());
        assert_eq!(v.rows.len(), t.rows.len());
        assert_eq!(v.columns.len(), table::COLUMNS.len());
        assert_eq!(v.markdown, table::to_markdown(&t));
        assert!(v.models.contains(&req.gpu_model));
        assert!(v.needs_dra && v.notes.is_empty());
    }

    /// The DRA module's view adds the DRA rows after the device plugin's, with
    /// their notes, and needs nothing more; a version the model does not know is an
    /// error reply.
    #[test]
    fn dra_view_adds_the_dra_rows() {
        let req = h100();
        let plain = view(&req).unwrap();
        let dra = view_dra(&req).unwrap();
        assert_eq!(dra.rows.get(..plain.rows.len()), Some(&plain.rows[..]));
        let added: Vec<&str> = dra.rows.iter().skip(plain.rows.len()).filter_map(|r| r.first()).map(String::as_str).collect();
        assert_eq!(added.first(), Some(&"DRA: whole GPU per claim"));
        assert!(added.contains(&"DRA: MIG 1g.10gb from counters"), "{added:?}");
        assert!(!dra.needs_dra && dra.notes.first().is_some_and(|n| n.starts_with("DRA rows: Kubernetes 1.37")));
        assert!(dra.markdown.contains("\n- DRA time-slicing has no replicas:"), "{}", dra.markdown);
        assert!(view_dra(&SlotsRequest { k8s_version: "2.0".into(), ..req }).is_err());
    }
}
