//! The slot table: per node and cluster, mode by mode — none, time-slicing N, MPS N, MIG
//! layouts, MIG + time-slicing — how many seats there are and what each seat is guaranteed.
//! Every row is computed by [`super::node::advertise`] over a real config text, so the table
//! and the lab's node status cannot disagree. Exports as Markdown and CSV, in English or Korean.
//!
//! The DRA rows ([`Mode::Dra`]) are computed elsewhere — by the structured allocator over
//! the slices NVIDIA's DRA driver publishes (`kubernetes::dra::seats`, which this area
//! cannot import) — and appended to the table with their notes; this module words them.
//!
//! The headline is the two lines that end half the conversation about time-slicing:
//! `seats: 20` and `guaranteed memory per seat: 0`.

use serde::{Deserialize, Serialize};

use super::config::{self, Deployment, MigStrategy, SharingStrategy};
use super::gpu::GpuModel;
use crate::Lang;
use super::mig::{Geometry, MigCatalog};
use super::node::{advertise, Backing, NodeSpec, PluginState};
use super::version::PluginVersion;

/// A sharing mode to put in the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case")]
pub enum Mode {
    /// The user's config file as it is.
    Config,
    None,
    TimeSlicing {
        replicas: u32,
    },
    Mps {
        replicas: u32,
    },
    /// A MIG layout under a strategy, optionally time-sliced.
    Mig {
        layout: String,
        strategy: MigStrategy,
        time_slicing: Option<u32>,
    },
    /// A path through Dynamic Resource Allocation (NVIDIA's DRA driver).
    Dra {
        path: DraPath,
    },
}

/// The DRA rows: how pods get GPUs through ResourceClaims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DraPath {
    /// `gpu.nvidia.com`, one claim (from a template) per pod: a whole GPU each.
    WholeGpu,
    /// `mig.nvidia.com` claims for one profile: placements from the GPUs' counters
    /// (partitionable devices) or the static MIG devices of a geometry.
    Mig { profile: String, partitionable: bool },
    /// One claim with the driver's time-slicing config, named by several pods.
    TimeSlicing,
    /// The same with the device plugin's `replicas` written into the config.
    TimeSlicingReplicas { replicas: u32 },
    /// One claim with the driver's MPS config (limits for `replicas` clients).
    Mps { replicas: u32 },
    /// The driver's consumable shares (`--consumable-shares=N`): a claim per pod,
    /// one share each; `gate_on` says whether DRAConsumableCapacity is on.
    ConsumableShares { shares: u32, gate_on: bool },
    /// A version that serves no `resource.k8s.io/v1`.
    NotServed,
}

/// What the table is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRequest {
    pub model: GpuModel,
    pub gpus_per_node: u32,
    pub nodes: u32,
    /// The config file's name and text, for the `Config` row and the headline.
    pub config: Option<(String, String)>,
    /// MIG geometry of the GPUs for the `Config` row (`None` = MIG disabled).
    pub mig: Option<Geometry>,
    pub modes: Vec<Mode>,
    pub version: PluginVersion,
    pub deployment: Deployment,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotRow {
    pub mode: Mode,
    /// How the row's mode reads, in the table's language.
    pub label: String,
    /// Served resources on one node.
    pub resources: Vec<(String, u64)>,
    pub seats_per_gpu: Option<u64>,
    pub seats_per_node: u64,
    pub seats_cluster: u64,
    /// Guaranteed memory per seat, MiB, per resource (one entry unless MIG mixed).
    pub guaranteed_memory_mib: Vec<(String, Option<u64>)>,
    /// Compute per seat: code (`whole-gpu`, `time-share`, `mps-threads`, `mig-slices`) and value.
    pub compute: (String, String),
    /// Isolation: `exclusive`, `none`, `mps-limits`, `mig-hardware`, `mig-between-instances`.
    pub isolation: String,
    /// A request for 2: `two-devices`, `allowed-no-extra-compute`, `rejected`.
    pub request_two: String,
    /// The plugin's error when it does not serve in this mode.
    pub error: Option<String>,
}

impl SlotRow {
    /// A row with no seats: the mode fails with `error` (`request_two` says what a
    /// request for 2 meets).
    pub fn failed(mode: Mode, lang: Lang, request_two: &str, error: Option<String>) -> SlotRow {
        SlotRow {
            label: mode_label(&mode, lang),
            mode,
            resources: Vec::new(),
            seats_per_gpu: Some(0),
            seats_per_node: 0,
            seats_cluster: 0,
            guaranteed_memory_mib: Vec::new(),
            compute: ("n/a".into(), String::new()),
            isolation: "n/a".into(),
            request_two: request_two.into(),
            error,
        }
    }
}

/// The two lines, from the config row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headline {
    pub seats: u64,
    pub guaranteed_memory_per_seat_mib: Option<u64>,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotTable {
    pub gpu_model: String,
    pub gpus_per_node: u32,
    pub nodes: u32,
    pub lang: Lang,
    pub headline: Option<Headline>,
    pub rows: Vec<SlotRow>,
    /// Config diagnostics (warnings, errors with file:line) of the `Config` row.
    pub diagnostics: Vec<crate::Diagnostic>,
    /// Set when a MIG row is present: changing geometry means draining the node's GPU pods.
    pub mig_reconfiguration_requires_drain: bool,
    /// Sentences under the table (the DRA rows' version, gates and sharing rules).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl SlotTable {
    /// A table of no rows yet for `gpus` GPUs of `model` on `nodes` nodes.
    pub fn empty(model: &str, gpus: u32, nodes: u32, lang: Lang) -> SlotTable {
        SlotTable {
            gpu_model: model.to_string(),
            gpus_per_node: gpus,
            nodes,
            lang,
            headline: None,
            rows: Vec::new(),
            diagnostics: Vec::new(),
            mig_reconfiguration_requires_drain: false,
            notes: Vec::new(),
        }
    }
}

/// The default comparison: none, the config, time-slicing and MPS at `replicas`, and the
/// MIG layouts of the model (all-balanced mixed, all-1g single, all-1g + time-slicing).
pub fn default_modes(model: &GpuModel, catalog: &MigCatalog, replicas: u32, compare: &[&str]) -> Vec<Mode> {
    let all = compare.is_empty() || compare.contains(&"all");
    let want = |m: &str| all || compare.contains(&m);
    let mut modes = vec![Mode::Config];
    if want("none") {
        modes.push(Mode::None);
    }
    if want("ts") || want("time-slicing") {
        modes.push(Mode::TimeSlicing { replicas });
    }
    if want("mps") {
        modes.push(Mode::Mps { replicas });
    }
    if want("mig") {
        if let Some(gpu) = catalog.find(&model.name) {
            modes.push(Mode::Mig { layout: "all-balanced".into(), strategy: MigStrategy::Mixed, time_slicing: None });
            if let Some(small) = gpu
                .profiles
                .iter()
                .filter(|p| !p.media_extensions)
                .max_by_key(|p| (p.max_count, std::cmp::Reverse(p.memory_gib)))
            {
                let layout = format!("all-{}", small.name);
                modes.push(Mode::Mig { layout: layout.clone(), strategy: MigStrategy::Single, time_slicing: None });
                modes.push(Mode::Mig { layout, strategy: MigStrategy::Single, time_slicing: Some(replicas) });
            }
        }
    }
    modes
}

/// Builds the table.
pub fn slot_table(req: &TableRequest, catalog: &MigCatalog, lang: Lang) -> SlotTable {
    let mut table = SlotTable::empty(&req.model.name, req.gpus_per_node, req.nodes, lang);
    for mode in &req.modes {
        let built = match mode {
            Mode::Config => req
                .config
                .as_ref()
                .map(|(file, text)| (file.clone(), text.clone(), req.mig.clone(), req.deployment.clone())),
            Mode::None => Some(("none.yaml".into(), "version: v1\n".into(), None, req.deployment.clone())),
            Mode::TimeSlicing { replicas } => Some((
                "time-slicing.yaml".into(),
                sharing_yaml("timeSlicing", "nvidia.com/gpu", *replicas),
                None,
                req.deployment.clone(),
            )),
            Mode::Mps { replicas } => Some((
                "mps.yaml".into(),
                sharing_yaml("mps", "nvidia.com/gpu", *replicas),
                None,
                req.deployment.clone(),
            )),
            Mode::Mig { layout, strategy, time_slicing } => {
                table.mig_reconfiguration_requires_drain = true;
                let Some(gpu) = catalog.find(&req.model.name) else { continue };
                let Some((_, geometry)) = gpu.named_layouts().into_iter().find(|(n, _)| n == layout) else { continue };
                let text = match (time_slicing, strategy) {
                    (Some(r), MigStrategy::Mixed) => {
                        let mut t =
                            "version: v1\nflags:\n  migStrategy: mixed\nsharing:\n  timeSlicing:\n    resources:\n"
                                .to_string();
                        for p in geometry.0.keys() {
                            t.push_str(&format!(
                                "    - name: {}\n      replicas: {r}\n",
                                super::mig::mixed_resource_name(p)
                            ));
                        }
                        t
                    }
                    (Some(r), _) => format!(
                        "version: v1\nflags:\n  migStrategy: {}\n{}",
                        strategy.as_str(),
                        sharing_yaml("timeSlicing", "nvidia.com/gpu", *r).trim_start_matches("version: v1\n")
                    ),
                    (None, _) => format!("version: v1\nflags:\n  migStrategy: {}\n", strategy.as_str()),
                };
                let deployment = Deployment { mig_strategy: Some(strategy.as_str().into()), ..req.deployment.clone() };
                Some((format!("{layout}.yaml"), text, Some(geometry), deployment))
            }
            // Not the device plugin's: `kubernetes::dra::seats` adds these rows.
            Mode::Dra { .. } => None,
        };
        let Some((file, text, mig, deployment)) = built else { continue };
        let loaded = config::load(&file, &text, req.version);
        if *mode == Mode::Config {
            table.diagnostics = loaded.diagnostics.clone();
        }
        let node = NodeSpec::uniform("node", req.model.clone(), req.gpus_per_node, mig);
        let row = match &loaded.config {
            None => {
                let error = loaded.error.as_ref().map(|e| format!("{} ({})", e.startup_error(), e.span));
                SlotRow::failed(mode.clone(), lang, "rejected", error)
            }
            Some(cfg) => {
                let ad = advertise(&node, cfg, &deployment, req.version, catalog);
                let seats_per_node = ad.seats();
                let served: Vec<_> = ad.planned.iter().filter(|p| ad.resources.contains_key(&p.name)).collect();
                let first = served.first();
                let sharing = first.map(|p| p.sharing).unwrap_or(SharingStrategy::None);
                let mig = first.is_some_and(|p| matches!(p.backing, Backing::Mig { .. }));
                let compute = match (sharing, mig, first) {
                    (SharingStrategy::Mps, _, Some(p)) => {
                        ("mps-threads".to_string(), format!("{}%", 100 / p.replicas.max(1)))
                    }
                    (SharingStrategy::TimeSlicing, _, _) => ("time-share".into(), String::new()),
                    (SharingStrategy::None, true, _) => {
                        let gpu = catalog.find(&req.model.name);
                        let parts: Vec<String> = served
                            .iter()
                            .filter_map(|p| match &p.backing {
                                Backing::Mig { profile } => gpu.and_then(|g| {
                                    g.profile(profile).map(|pr| format!("{}/{}", pr.compute_slices, g.compute_slices))
                                }),
                                Backing::FullGpu => None,
                            })
                            .collect();
                        ("mig-slices".into(), parts.join(", "))
                    }
                    _ => ("whole-gpu".into(), String::new()),
                };
                let isolation = match (sharing, mig) {
                    (SharingStrategy::None, false) => "exclusive",
                    (SharingStrategy::None, true) => "mig-hardware",
                    (SharingStrategy::TimeSlicing, true) => "mig-between-instances",
                    (SharingStrategy::TimeSlicing, false) => "none",
                    (SharingStrategy::Mps, _) => "mps-limits",
                };
                let request_two = match first {
                    Some(p) if p.sharing == SharingStrategy::None => "two-devices",
                    Some(p) if p.fail_requests_greater_than_one => "rejected",
                    Some(_) => "allowed-no-extra-compute",
                    None => "rejected",
                };
                let error = match &ad.plugin {
                    PluginState::Serving => None,
                    PluginState::Exited { error } | PluginState::Waiting { error, .. } => Some(error.clone()),
                    PluginState::NoDevices => Some("No devices found. Waiting indefinitely.".into()),
                };
                SlotRow {
                    mode: mode.clone(),
                    label: mode_label(mode, lang),
                    resources: ad.resources.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                    seats_per_gpu: ad.seats_per_physical_gpu(),
                    seats_per_node,
                    seats_cluster: seats_per_node.saturating_mul(u64::from(req.nodes)),
                    guaranteed_memory_mib: served.iter().map(|p| (p.name.clone(), p.guaranteed_memory_mib)).collect(),
                    compute,
                    isolation: isolation.into(),
                    request_two: request_two.into(),
                    error,
                }
            }
        };
        if *mode == Mode::Config {
            let mem = row.guaranteed_memory_mib.iter().filter_map(|(_, m)| *m).min();
            table.headline = Some(Headline {
                seats: row.seats_cluster,
                guaranteed_memory_per_seat_mib: if row.seats_cluster == 0 { None } else { mem },
            });
        }
        table.rows.push(row);
    }
    table
}

fn sharing_yaml(section: &str, resource: &str, replicas: u32) -> String {
    format!("version: v1\nsharing:\n  {section}:\n    resources:\n    - name: {resource}\n      replicas: {replicas}\n")
}

/// A label in the table's language.
pub fn text(key: &str, lang: Lang) -> &'static str {
    match (key, lang) {
        ("mode", Lang::En) => "mode",
        ("mode", Lang::Ko) => "모드",
        ("resources", Lang::En) => "resources per node",
        ("resources", Lang::Ko) => "노드당 리소스",
        ("seats-gpu", Lang::En) => "seats per GPU",
        ("seats-gpu", Lang::Ko) => "GPU당 좌석",
        ("seats-node", Lang::En) => "seats per node",
        ("seats-node", Lang::Ko) => "노드당 좌석",
        ("seats-cluster", Lang::En) => "seats in cluster",
        ("seats-cluster", Lang::Ko) => "클러스터 전체 좌석",
        ("memory", Lang::En) => "guaranteed memory per seat (MiB)",
        ("memory", Lang::Ko) => "좌석당 보장 메모리 (MiB)",
        ("compute", Lang::En) => "compute per seat",
        ("compute", Lang::Ko) => "좌석당 연산",
        ("isolation", Lang::En) => "isolation",
        ("isolation", Lang::Ko) => "격리",
        ("request-two", Lang::En) => "a request for 2",
        ("request-two", Lang::Ko) => "2개 요청 시",
        ("headline-seats", Lang::En) => "seats",
        ("headline-seats", Lang::Ko) => "좌석",
        ("headline-memory", Lang::En) => "guaranteed memory per seat",
        ("headline-memory", Lang::Ko) => "좌석당 보장 메모리",
        ("no-seats", Lang::En) => "none: there are no seats",
        ("no-seats", Lang::Ko) => "없음: 좌석이 없습니다",
        ("unknown", Lang::En) => "unknown",
        ("unknown", Lang::Ko) => "알 수 없음",
        ("whole-gpu", Lang::En) => "whole GPU",
        ("whole-gpu", Lang::Ko) => "GPU 전체",
        ("time-share", Lang::En) => "equal time share per process, none guaranteed",
        ("time-share", Lang::Ko) => "프로세스별 균등 시간 분할, 보장 없음",
        ("mps-threads", Lang::En) => "active-thread limit",
        ("mps-threads", Lang::Ko) => "활성 스레드 상한",
        ("mig-slices", Lang::En) => "dedicated compute slices",
        ("mig-slices", Lang::Ko) => "전용 컴퓨트 슬라이스",
        ("exclusive", Lang::En) => "exclusive device",
        ("exclusive", Lang::Ko) => "장치 독점",
        ("none", Lang::En) => "none: shared memory and fault domain",
        ("none", Lang::Ko) => "없음: 메모리와 장애 도메인 공유",
        ("mps-limits", Lang::En) => "memory and thread limits, one MPS server",
        ("mps-limits", Lang::Ko) => "메모리·스레드 상한, MPS 서버 공유",
        ("mig-hardware", Lang::En) => "hardware memory and fault isolation",
        ("mig-hardware", Lang::Ko) => "하드웨어 메모리·장애 격리",
        ("mig-between-instances", Lang::En) => "between MIG instances only",
        ("mig-between-instances", Lang::Ko) => "MIG 인스턴스 사이에서만",
        ("two-devices", Lang::En) => "two devices",
        ("two-devices", Lang::Ko) => "장치 2개",
        ("allowed-no-extra-compute", Lang::En) => "two replicas, no extra compute",
        ("allowed-no-extra-compute", Lang::Ko) => "복제본 2개, 추가 연산 없음",
        ("rejected", Lang::En) => "UnexpectedAdmissionError",
        ("rejected", Lang::Ko) => "UnexpectedAdmissionError (거부)",
        ("error", Lang::En) => "plugin error",
        ("error", Lang::Ko) => "플러그인 오류",
        ("drain", Lang::En) => "Changing the MIG geometry requires draining the node's GPU workloads first.",
        ("drain", Lang::Ko) => "MIG 구성을 바꾸려면 먼저 노드의 GPU 워크로드를 비워야(drain) 합니다.",
        ("same-device-twice", Lang::En) => "one device twice",
        ("same-device-twice", Lang::Ko) => "같은 장치 두 번",
        ("dra-error", Lang::En) => "fails",
        ("dra-error", Lang::Ko) => "실패",
        _ => "",
    }
}

/// How a mode reads in the table.
pub fn mode_label(mode: &Mode, lang: Lang) -> String {
    let ko = lang == Lang::Ko;
    match mode {
        Mode::Config => (if ko { "설정 파일" } else { "config file" }).into(),
        Mode::None => (if ko { "공유 없음" } else { "none" }).into(),
        Mode::TimeSlicing { replicas } => format!("{} ×{replicas}", if ko { "타임 슬라이싱" } else { "time-slicing" }),
        Mode::Mps { replicas } => format!("MPS ×{replicas}"),
        Mode::Mig { layout, strategy, time_slicing } => {
            let base = format!("MIG {layout} ({})", strategy.as_str());
            match time_slicing {
                Some(r) => format!("{base} + {} ×{r}", if ko { "타임 슬라이싱" } else { "time-slicing" }),
                None => base,
            }
        }
        Mode::Dra { path } => dra_label(path, lang),
    }
}

/// How a DRA row reads.
fn dra_label(path: &DraPath, lang: Lang) -> String {
    let ko = lang == Lang::Ko;
    let text = match path {
        DraPath::WholeGpu => (if ko { "클레임마다 GPU 전체" } else { "whole GPU per claim" }).to_string(),
        DraPath::Mig { profile, partitionable: true } => {
            if ko {
                format!("카운터로 나눈 MIG {profile}")
            } else {
                format!("MIG {profile} from counters")
            }
        }
        DraPath::Mig { profile, partitionable: false } => {
            if ko {
                format!("고정 MIG 장치 {profile}")
            } else {
                format!("static MIG devices {profile}")
            }
        }
        DraPath::TimeSlicing => (if ko { "타임 슬라이싱, 클레임 하나를 파드들이 공유" } else { "time-slicing, one claim shared by pods" }).to_string(),
        DraPath::TimeSlicingReplicas { replicas } => {
            if ko {
                format!("타임 슬라이싱 설정에 replicas: {replicas}")
            } else {
                format!("time-slicing config with replicas: {replicas}")
            }
        }
        DraPath::Mps { replicas } => {
            if ko {
                format!("MPS (클라이언트 {replicas}개 기준 상한), 클레임 하나를 파드들이 공유")
            } else {
                format!("MPS (limits for {replicas} clients), one claim shared by pods")
            }
        }
        DraPath::ConsumableShares { shares, gate_on } => {
            let base = if ko { format!("consumable capacity, 장치당 shares {shares}") } else { format!("consumable capacity, {shares} shares per device") };
            match (gate_on, ko) {
                (true, _) => base,
                (false, false) => format!("{base} (DRAConsumableCapacity off)"),
                (false, true) => format!("{base} (DRAConsumableCapacity 꺼짐)"),
            }
        }
        DraPath::NotServed => "resource.k8s.io/v1".to_string(),
    };
    format!("DRA: {text}")
}

fn memory_cell(row: &SlotRow, lang: Lang) -> String {
    if row.guaranteed_memory_mib.is_empty() {
        return "-".into();
    }
    let cells: Vec<String> = row
        .guaranteed_memory_mib
        .iter()
        .map(|(name, m)| {
            let v = m.map(|m| m.to_string()).unwrap_or_else(|| text("unknown", lang).into());
            if row.guaranteed_memory_mib.len() > 1 {
                format!("{}: {v}", name.trim_start_matches("nvidia.com/"))
            } else {
                v
            }
        })
        .collect();
    cells.join(", ")
}

/// A label, or `-` for a code without one (e.g. `n/a` on a row whose plugin does not serve).
fn label_or_dash(key: &str, lang: Lang) -> String {
    match text(key, lang) {
        "" => "-".into(),
        t => t.into(),
    }
}

/// One row's cells as the Markdown and CSV exports print them (the app's table shows the same).
pub fn cells(row: &SlotRow, lang: Lang) -> Vec<String> {
    let resources: Vec<String> = row.resources.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let compute = match row.compute.1.as_str() {
        "" => label_or_dash(&row.compute.0, lang),
        v => format!("{} {v}", label_or_dash(&row.compute.0, lang)),
    };
    let who = if matches!(row.mode, Mode::Dra { .. }) { "dra-error" } else { "error" };
    let request_two = match &row.error {
        Some(e) => format!("{}: {e}", text(who, lang)),
        None => label_or_dash(&row.request_two, lang),
    };
    vec![
        row.label.clone(),
        if resources.is_empty() { "-".into() } else { resources.join(", ") },
        row.seats_per_gpu.map(|s| s.to_string()).unwrap_or_else(|| "-".into()),
        row.seats_per_node.to_string(),
        row.seats_cluster.to_string(),
        memory_cell(row, lang),
        compute,
        label_or_dash(&row.isolation, lang),
        request_two,
    ]
}

/// The column keys, in order; [`text`] gives each header in a language.
pub const COLUMNS: [&str; 9] =
    ["mode", "resources", "seats-gpu", "seats-node", "seats-cluster", "memory", "compute", "isolation", "request-two"];

/// The headline lines, e.g. `seats: 20` and `guaranteed memory per seat: 0`.
pub fn headline_lines(table: &SlotTable) -> Vec<String> {
    let lang = table.lang;
    let Some(h) = &table.headline else { return Vec::new() };
    let mem = match h.guaranteed_memory_per_seat_mib {
        Some(0) => "0".to_string(),
        Some(m) => format!("{m} MiB"),
        // No seats (0 nodes, 0 GPUs, or a config that serves none): nothing to divide.
        None if h.seats == 0 => text("no-seats", lang).into(),
        None => text("unknown", lang).into(),
    };
    vec![format!("{}: {}", text("headline-seats", lang), h.seats), format!("{}: {mem}", text("headline-memory", lang))]
}

/// The table as Markdown: a title, the headline, the table, and the drain note for MIG.
pub fn to_markdown(table: &SlotTable) -> String {
    let lang = table.lang;
    let mut out = String::new();
    let title = match lang {
        Lang::En => format!("## Slots: {} × {} GPUs × {} nodes\n\n", table.gpu_model, table.gpus_per_node, table.nodes),
        Lang::Ko => {
            format!("## 좌석 계산: {} × GPU {}개 × 노드 {}대\n\n", table.gpu_model, table.gpus_per_node, table.nodes)
        }
    };
    out.push_str(&title);
    for line in headline_lines(table) {
        out.push_str(&format!("- **{line}**\n"));
    }
    if table.headline.is_some() {
        out.push('\n');
    }
    let header: Vec<&str> = COLUMNS.iter().map(|c| text(c, lang)).collect();
    out.push_str(&format!("| {} |\n", header.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in &table.rows {
        let cells: Vec<String> = cells(row, lang).into_iter().map(|c| c.replace('|', "\\|")).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if table.mig_reconfiguration_requires_drain {
        out.push_str(&format!("\n{}\n", text("drain", lang)));
    }
    if !table.notes.is_empty() {
        out.push('\n');
        for note in &table.notes {
            out.push_str(&format!("- {note}\n"));
        }
    }
    out
}

/// The table as CSV (RFC 4180 quoting), header row first.
pub fn to_csv(table: &SlotTable) -> String {
    let lang = table.lang;
    let quote =
        |s: &str| if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
    let mut out = String::new();
    let header: Vec<String> = COLUMNS.iter().map(|c| quote(text(c, lang))).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for row in &table.rows {
        let cells: Vec<String> = cells(row, lang).iter().map(|c| quote(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::gpu::ComputeCapability;

    fn request(config: &str, gpus: u32, nodes: u32, compare: &[&str]) -> (TableRequest, MigCatalog) {
        let catalog = MigCatalog::embedded().unwrap();
        let model = GpuModel {
            name: "NVIDIA H100 80GB HBM3".into(),
            memory_mib: Some(81559),
            compute_capability: ComputeCapability::parse("9.0"),
            mig_capable: true,
        };
        let modes = default_modes(&model, &catalog, 10, compare);
        let req = TableRequest {
            model,
            gpus_per_node: gpus,
            nodes,
            config: Some(("ts.yaml".into(), config.into())),
            mig: None,
            modes,
            version: PluginVersion::REFERENCE,
            deployment: Deployment::default(),
        };
        (req, catalog)
    }

    const TS10: &str =
        "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n";

    /// Two GPUs × replicas 10 on one node: "seats: 20", "guaranteed memory per seat: 0".
    #[test]
    fn the_two_lines() {
        let (req, catalog) = request(TS10, 2, 1, &["none"]);
        let t = slot_table(&req, &catalog, Lang::En);
        assert_eq!(headline_lines(&t), vec!["seats: 20", "guaranteed memory per seat: 0"]);
        let ko = slot_table(&req, &catalog, Lang::Ko);
        assert_eq!(headline_lines(&ko), vec!["좌석: 20", "좌석당 보장 메모리: 0"]);
    }

    /// Every mode row for an 8×H100 node: MPS caps, MIG instance memory, MIG + time-slicing.
    #[test]
    fn compares_modes() {
        let (req, catalog) = request(TS10, 8, 3, &["all"]);
        let t = slot_table(&req, &catalog, Lang::En);
        let row = |label: &str| t.rows.iter().find(|r| r.label == label).unwrap();
        assert_eq!(row("none").seats_per_node, 8);
        assert_eq!(row("none").guaranteed_memory_mib, vec![("nvidia.com/gpu".into(), Some(81559))]);
        assert_eq!(row("MPS ×10").guaranteed_memory_mib, vec![("nvidia.com/gpu".into(), Some(8155))]);
        assert_eq!(row("MIG all-1g.10gb (single)").seats_per_gpu, Some(7));
        assert_eq!(row("MIG all-1g.10gb (single)").guaranteed_memory_mib, vec![("nvidia.com/gpu".into(), Some(9984))]);
        assert_eq!(row("MIG all-1g.10gb (single) + time-slicing ×10").seats_cluster, 7 * 10 * 8 * 3);
        assert_eq!(row("MIG all-balanced (mixed)").seats_per_gpu, Some(4));
        assert!(t.mig_reconfiguration_requires_drain);
        let md = to_markdown(&t);
        assert!(md.contains("- **seats: 240**") && md.contains("| config file |"), "{md}");
        let csv = to_csv(&t);
        assert_eq!(csv.lines().count(), t.rows.len() + 1);
    }

    /// A broken config still gives a table, with the plugin's error and its location.
    #[test]
    fn broken_config_row_shows_the_error() {
        let (req, catalog) =
            request("sharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 1\n", 8, 1, &["none"]);
        let t = slot_table(&req, &catalog, Lang::En);
        let row = t.rows.first().unwrap();
        assert!(row.error.as_deref().unwrap().contains("number of replicas must be >= 2 (ts.yaml:5:7)"), "{row:?}");
        assert_eq!(t.headline.as_ref().unwrap().seats, 0);
    }

    /// 0 nodes is an answer, not "unknown": 0 seats, and no memory per seat because
    /// there are none; the headline follows the config's replicas (GPUs × replicas × nodes).
    #[test]
    fn zero_nodes_and_replicas_in_the_headline() {
        let ts = |r: u32| format!("version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: {r}\n");
        let (req, catalog) = request(&ts(4), 8, 0, &["none"]);
        let t = slot_table(&req, &catalog, Lang::En);
        assert_eq!(headline_lines(&t), ["seats: 0", "guaranteed memory per seat: none: there are no seats"]);
        assert_eq!(headline_lines(&slot_table(&req, &catalog, Lang::Ko)), ["좌석: 0", "좌석당 보장 메모리: 없음: 좌석이 없습니다"]);
        for r in [2, 4, 10] {
            let (req, catalog) = request(&ts(r), 8, 2, &["none"]);
            assert_eq!(slot_table(&req, &catalog, Lang::En).headline.unwrap().seats, u64::from(8 * r * 2), "replicas {r}");
        }
    }
}
