//! The cluster side of the model backend: the scenario's Kubernetes objects (Nodes,
//! the RuntimeClass, the device-plugin DaemonSet) and the DaemonSet rollout over the
//! [`daemonset`](crate::daemonset) model, with each node's kubelet meeting that node's
//! *simulated containerd* — the handlers its daemon loaded at its last start, not the
//! files on disk — so a node whose containerd lost `nvidia` stalls the rollout with the
//! kubelet's real sandbox error.
//!
//! Pods go through [`super::pods`]: admission, the scheduler, the kubelet's sandbox.
//!
//! DRA: the DeviceClasses, claims and templates of the manifests and of `apply` are
//! the API server's [`DraState`]; its ResourceSlices are what NVIDIA's driver
//! ([`nvidia`]) publishes on each node with `dra_driver` while its pod runs. Deleting a
//! pod frees its claims as the resource claim controller does; `mig-geometry` on such a
//! node is refused while a claim holds one of its devices, else republishes the pool.
//!
//! The first DaemonSet of the initial manifests is created and settled before step 1
//! (every pod Ready); an `apply` of a DaemonSet with the same name is its update;
//! `sync` runs controller rounds (sync, bind, kubelet pass). The node order the
//! controller walks is the node list's (Go's is random: expectations that depend on it
//! use `one_of`).

use std::collections::BTreeMap;

use crate::daemonset::diagnosis::diagnose;
use crate::daemonset::node_containerd::node_runtime;
use crate::daemonset::rollout::{NodeRuntime, Rollout};
use crate::daemonset::manifests::{Manifests, SEED_EPOCH};
use crate::daemonset::NodeOrder;
use crate::kubernetes::advertisement::{advertise, apply_to_node, GpuNodeLayers};
use crate::kubernetes::dra::dynamicresources::State as DraState;
use crate::kubernetes::dra::nvidia::{self, Mig, NodeGpus};
use crate::kubernetes::KubeVersion;
use crate::Severity;

use super::engine::{BackendError, Unobservable};
use super::expect::{Field, Observed};
use super::format::{Action, Scenario};
use super::model::ModelNode;
use super::pods::{Dra, PodState};

/// The modelled cluster.
#[derive(Debug, Clone, Default)]
pub struct Cluster {
    pub manifests: Manifests,
    pub rollout: Option<Rollout>,
    pub pods: Vec<PodState>,
    pub version: Option<KubeVersion>,
    /// The cluster clock (unix seconds).
    pub now: i64,
    /// Each GPU node's advertisement layers (device plugin → kubelet → node status).
    pub layers: BTreeMap<String, GpuNodeLayers>,
    /// Memory one `nvidia.com/gpu` seat is guaranteed per node, MiB (from the slot model).
    pub seat_memory: BTreeMap<String, Option<u64>>,
    /// The device plugin's last config (source, text), re-read when MIG changes.
    pub plugin_config: Option<(String, String)>,
    /// Each node's MIG geometry (every GPU alike) and `nvidia.com/mig.config.state`.
    pub mig: BTreeMap<String, (Option<crate::slots::mig::Geometry>, String)>,
    /// The DRA objects as the API server holds them (the slices: the drivers').
    pub dra: DraState,
    /// NVIDIA's DRA driver per node that has it (`dra_driver = true`).
    pub dra_nodes: BTreeMap<String, DraNode>,
    /// The embedded MIG catalogue, read at its first use and kept for the run.
    mig_catalog: Option<crate::slots::MigCatalog>,
}

/// The embedded MIG catalogue, read into `kept` at its first use (a run reads it once).
fn mig_catalog(kept: &mut Option<crate::slots::MigCatalog>) -> Result<&crate::slots::MigCatalog, String> {
    if kept.is_none() {
        *kept = Some(crate::slots::MigCatalog::embedded()?);
    }
    kept.as_ref().ok_or_else(|| "the MIG catalogue was not read".to_string())
}

/// NVIDIA's DRA driver on one node.
#[derive(Debug, Clone)]
pub struct DraNode {
    /// Its pod runs: the node's slices are published.
    pub running: bool,
    /// Its kubelet plugin is registered with the kubelet.
    pub registered: bool,
    /// What it finds on the node (model, count, MIG, the pool's generation).
    pub gpus: NodeGpus,
}

/// The errors among `diags`, as the setup's findings (data, each at its file:line).
fn findings(diags: Vec<crate::Diagnostic>) -> Result<(), BackendError> {
    let errors: Vec<_> = diags.into_iter().filter(|d| matches!(d.severity, Severity::Error | Severity::Fatal)).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(BackendError::Findings(errors))
    }
}

/// Reads one manifest file with the Kubernetes model's loader; its errors are the
/// setup's findings.
fn load_yaml(source: &str, text: &str) -> Result<crate::kubernetes::yaml::Manifests, BackendError> {
    let (m, diags) = crate::kubernetes::yaml::load(source, text);
    findings(diags).map(|()| m)
}

/// The DRA objects of one loaded file, typed; their errors are the setup's findings.
fn read_dra(k: &crate::kubernetes::yaml::Manifests) -> Result<crate::kubernetes::dra::Objects, BackendError> {
    let (objects, diags) = crate::kubernetes::dra::read(k);
    findings(diags).map(|()| objects)
}

/// What each node's kubelet finds in its containerd now: the handlers its daemon
/// loaded, with the containerd model's findings for the cluster's RuntimeClass `handlers`.
fn runtimes(nodes: &[ModelNode], handlers: &[String]) -> BTreeMap<String, NodeRuntime> {
    nodes.iter().map(|n| (n.spec.name.clone(), node_runtime(&n.daemon, handlers))).collect()
}

/// The handlers the RuntimeClasses name.
fn handlers(rcs: &[k8s_openapi::api::node::v1::RuntimeClass]) -> Vec<String> {
    rcs.iter().map(|rc| rc.handler.clone()).collect()
}

impl Cluster {
    pub fn new(scenario: &Scenario, nodes: &[ModelNode]) -> Result<Cluster, BackendError> {
        let version = scenario.kubernetes.parse::<KubeVersion>().map_err(|e| format!("kubernetes: {e}"))?;
        let mut manifests = Manifests::default();
        let mut pods = Vec::new();
        let mut dra = DraState::default();
        for m in &scenario.manifests {
            let k = load_yaml(&m.source, &m.content)?;
            dra.extend(read_dra(&k)?);
            manifests.nodes.extend(k.nodes.into_iter().map(|l| l.object));
            manifests.daemon_sets.extend(k.daemon_sets.into_iter().map(|l| l.object));
            manifests.runtime_classes.extend(k.runtime_classes.into_iter().map(|l| l.object));
            pods.extend(k.pods.into_iter().map(|l| PodState::new(&m.source, l.object)));
        }
        let layers = scenario
            .nodes
            .iter()
            .filter(|n| n.gpus > 0)
            .map(|n| {
                let l = GpuNodeLayers { node_ready: true, kubelet_running: true, device_plugin_running: true, socket_dir_mounted: true, devices: i64::from(n.gpus) };
                (n.name.clone(), l)
            })
            .collect();
        let mut cluster = Cluster {
            manifests,
            rollout: None,
            pods: Vec::new(),
            version: Some(version),
            now: SEED_EPOCH,
            layers,
            seat_memory: BTreeMap::new(),
            plugin_config: None,
            mig: BTreeMap::new(),
            dra,
            dra_nodes: BTreeMap::new(),
            mig_catalog: None,
        };
        for n in scenario.nodes.iter().filter(|n| n.dra_driver) {
            let model = crate::slots::GpuModel::known(&n.gpu_model)?.ok_or_else(|| format!("{}: unknown GPU model {:?}", n.name, n.gpu_model))?;
            let mig = match n.dra_mig.as_deref() {
                None => Mig::Disabled,
                Some("partitionable") => Mig::Partitionable,
                Some(g) => Mig::Static(crate::slots::mig::Geometry::parse(g)?),
            };
            let gpus = NodeGpus { mig, ..NodeGpus::new(&n.name, model, n.gpus) };
            cluster.dra_nodes.insert(n.name.clone(), DraNode { running: true, registered: true, gpus });
        }
        cluster.publish_slices()?;
        for n in scenario.nodes.iter().filter(|n| n.gpus > 0) {
            let model = crate::slots::GpuModel::known(&n.gpu_model).ok().flatten();
            cluster.seat_memory.insert(n.name.clone(), model.and_then(|m| m.memory_mib));
        }
        cluster.refresh_readiness(nodes);
        if let Some(ds) = cluster.manifests.daemon_sets.first().cloned() {
            let mut rollout = Rollout::new(ds, cluster.manifests.nodes.clone(), cluster.manifests.runtime_classes.clone(), NodeOrder::Listed, 1, SEED_EPOCH);
            rollout.runtimes = runtimes(nodes, &handlers(&cluster.manifests.runtime_classes));
            if !rollout.run_until_settled(200) {
                return Err("the initial DaemonSet does not roll out cleanly on the initial nodes".into());
            }
            rollout.rounds.clear();
            cluster.rollout = Some(rollout);
        }
        for p in pods {
            cluster.add_pod(p, nodes);
        }
        Ok(cluster)
    }

    /// Creates a pod (replacing one of the same name) and reconciles it once; pods
    /// already found unschedulable are not retried for it (see [`PodState::reconcile`]).
    fn add_pod(&mut self, pod: PodState, nodes: &[ModelNode]) {
        self.pods.retain(|p| p.name != pod.name);
        self.pods.push(pod);
        self.reconcile_with(nodes, false);
    }

    /// Each Node's readiness from its kubelet: a node whose containerd serves no CRI is
    /// NotReady with the `node.kubernetes.io/not-ready:NoSchedule` taint (the node
    /// lifecycle controller's), so the scheduler sees what the kubelet sees. A GPU node's
    /// `nvidia.com/gpu` is what its advertisement layers give.
    pub fn refresh_readiness(&mut self, nodes: &[ModelNode]) {
        for n in &mut self.manifests.nodes {
            let name = n.metadata.name.clone().unwrap_or_default();
            let Some(model) = nodes.iter().find(|m| m.spec.name == name) else { continue };
            if let Some(layers) = self.layers.get_mut(&name) {
                layers.node_ready = crate::kubernetes::kubelet::node_ready(&super::pods::loaded_cri(model));
                apply_to_node(n, layers);
            }
        }
        use k8s_openapi::api::core::v1::{NodeCondition, Taint};
        use crate::kubernetes::advertisement::TAINT_NOT_READY;
        for n in &mut self.manifests.nodes {
            let Some(model) = nodes.iter().find(|m| Some(&m.spec.name) == n.metadata.name.as_ref()) else { continue };
            if self.layers.contains_key(&model.spec.name) {
                continue;
            }
            let ready = crate::kubernetes::kubelet::node_ready(&super::pods::loaded_cri(model));
            let status = n.status.get_or_insert_with(Default::default);
            let conds = status.conditions.get_or_insert_with(Default::default);
            conds.retain(|c| c.type_ != "Ready");
            conds.push(NodeCondition {
                type_: "Ready".into(),
                status: if ready { "True" } else { "False" }.into(),
                reason: Some(if ready { "KubeletReady" } else { "KubeletNotReady" }.into()),
                ..Default::default()
            });
            let spec = n.spec.get_or_insert_with(Default::default);
            let taints = spec.taints.get_or_insert_with(Default::default);
            taints.retain(|t| t.key != TAINT_NOT_READY);
            if !ready {
                taints.push(Taint { key: TAINT_NOT_READY.into(), effect: "NoSchedule".into(), value: None, time_added: None });
            }
            if taints.is_empty() {
                spec.taints = None;
            }
        }
        // The DaemonSet controller reads the same Nodes (their taints decide where a
        // daemon pod should run): a NotReady node's not-ready taint takes it out.
        if let Some(r) = self.rollout.as_mut() {
            let manifests = &self.manifests.nodes;
            r.controller.update_nodes(|nodes| {
                for n in nodes {
                    if let Some(m) = manifests.iter().find(|m| m.metadata.name == n.metadata.name) {
                        n.spec.clone_from(&m.spec);
                        n.status.clone_from(&m.status);
                    }
                }
            });
        }
    }

    /// The device plugin restarts on every GPU node with `text`: each node's
    /// `nvidia.com/gpu` count and seat memory follow from the slot model; a config the
    /// plugin refuses leaves the plugin down.
    fn plugin_config(&mut self, source: &str, text: &str, nodes: &[ModelNode]) -> Result<(), String> {
        use crate::slots::{evaluate, Deployment, GpuModel, NodeSpec, PluginVersion, Scenario as SlotScenario};
        let catalog = mig_catalog(&mut self.mig_catalog)?;
        self.plugin_config = Some((source.to_string(), text.to_string()));
        let mut specs = Vec::new();
        for n in nodes.iter().filter(|n| n.spec.gpus > 0) {
            let model = GpuModel::known(&n.spec.gpu_model)?.ok_or_else(|| format!("{}: unknown GPU model {:?}", n.spec.name, n.spec.gpu_model))?;
            let geometry = self.mig.get(&n.spec.name).and_then(|(g, _)| g.clone());
            specs.push(NodeSpec::uniform(n.spec.name.clone(), model, n.spec.gpus, geometry));
        }
        let eval = evaluate(&SlotScenario { file: source.into(), text: text.into(), version: PluginVersion::REFERENCE, deployment: Deployment::default(), nodes: specs }, catalog);
        for adv in &eval.nodes {
            let gpu = adv.planned.iter().find(|r| r.name == "nvidia.com/gpu");
            if let Some(l) = self.layers.get_mut(&adv.node) {
                let serving = adv.plugin == crate::slots::PluginState::Serving;
                l.device_plugin_running = serving;
                l.devices = adv.resources.get("nvidia.com/gpu").map_or(0, |c| i64::try_from(*c).unwrap_or(i64::MAX));
            }
            self.seat_memory.insert(adv.node.clone(), gpu.and_then(|g| g.guaranteed_memory_mib));
        }
        self.refresh_readiness(nodes);
        self.reconcile(nodes);
        Ok(())
    }

    /// MIG Manager on `node`: refused (`failed`) while a pod bound there asks for a GPU
    /// resource — "MIG Manager requires that no user workloads are running on the GPUs
    /// being configured" — else every GPU takes `geometry` and the device plugin
    /// re-advertises under its last config (`version: v1` when none was given).
    fn mig_geometry(&mut self, node: &str, geometry: &str, nodes: &[ModelNode]) -> Result<(), String> {
        let g = crate::slots::mig::Geometry::parse(geometry)?;
        if self.dra_nodes.contains_key(node) {
            return self.dra_mig_geometry(node, g, nodes);
        }
        if !self.layers.contains_key(node) {
            return Err(format!("{node} has no GPUs (gpus = 0): MIG does not apply"));
        }
        let busy = self.pods.iter().any(|p| {
            p.node_name == node
                && p.stored.as_ref().and_then(|s| s.spec.as_ref()).is_some_and(|s| {
                    s.containers.iter().any(|c| {
                        let r = c.resources.as_ref();
                        let keys = r.and_then(|r| r.limits.as_ref()).into_iter().chain(r.and_then(|r| r.requests.as_ref())).flat_map(|m| m.keys());
                        keys.into_iter().any(|k| k.starts_with("nvidia.com/"))
                    })
                })
        });
        if busy {
            let old = self.mig.get(node).and_then(|(g, _)| g.clone());
            self.mig.insert(node.to_string(), (old, "failed".into()));
            return Ok(());
        }
        self.mig.insert(node.to_string(), (Some(g), "success".into()));
        let (source, text) = self.plugin_config.clone().unwrap_or_else(|| ("(default device-plugin config)".into(), "version: v1\n".into()));
        self.plugin_config(&source, &text, nodes)
    }

    /// The slices every running DRA driver publishes now (the API server's slices
    /// are the drivers': a driver that stops has its slices removed).
    fn publish_slices(&mut self) -> Result<(), String> {
        let mut slices = Vec::new();
        let mut running = self.dra_nodes.values().filter(|d| d.running).peekable();
        if running.peek().is_some() {
            let catalog = mig_catalog(&mut self.mig_catalog)?;
            for d in running {
                slices.extend(nvidia::resource_slices(&d.gpus, None, catalog)?);
            }
        }
        self.dra.slices = slices.into_iter().map(crate::kubernetes::dra::allocator::Slice::new).collect();
        Ok(())
    }

    /// MIG Manager on a node with the DRA driver: refused (`failed`) while a claim
    /// holds one of the node's devices, else the GPUs take `geometry` and the driver
    /// republishes its pool at the next generation.
    fn dra_mig_geometry(&mut self, node: &str, g: crate::slots::mig::Geometry, nodes: &[ModelNode]) -> Result<(), String> {
        let held = self.dra.allocated_devices().iter().any(|d| d.driver == nvidia::DRIVER && d.pool == node);
        if held {
            let old = self.mig.get(node).and_then(|(g, _)| g.clone());
            self.mig.insert(node.to_string(), (old, "failed".into()));
            return Ok(());
        }
        if let Some(d) = self.dra_nodes.get_mut(node) {
            d.gpus.mig = Mig::Static(g.clone());
            d.gpus.generation += 1;
        }
        self.mig.insert(node.to_string(), (Some(g), "success".into()));
        self.publish_slices()?;
        self.reconcile(nodes);
        Ok(())
    }

    /// A pod gone: the resource claim controller takes it out of its claims'
    /// `reservedFor`, deletes the claims made for it from templates, and frees the
    /// allocation of a claim nobody holds any more.
    fn release_claims(&mut self, pod: &k8s_openapi::api::core::v1::Pod) {
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let name = pod.metadata.name.clone().unwrap_or_default();
        self.dra.claims.retain(|c| !c.metadata.owner_references.iter().flatten().any(|o| o.controller == Some(true) && o.uid == uid));
        for c in &mut self.dra.claims {
            let Some(status) = c.status.as_mut() else { continue };
            if let Some(r) = status.reserved_for.as_mut() {
                r.retain(|r| !(r.resource == "pods" && r.name == name && r.uid == uid));
                if r.is_empty() {
                    status.reserved_for = None;
                    status.allocation = None;
                }
            }
        }
    }

    /// One pass over every pod that is not settled, after an event that may let an
    /// unschedulable pod fit (a pod deleted, a node changed, time passed).
    fn reconcile(&mut self, nodes: &[ModelNode]) {
        self.reconcile_with(nodes, true);
    }

    /// One pass over every pod that is not settled; `retry`: unschedulable pods too.
    fn reconcile_with(&mut self, nodes: &[ModelNode], retry: bool) {
        self.refresh_readiness(nodes);
        let version = self.version.unwrap_or(KubeVersion::V1_33);
        let dra_nodes = self.dra_nodes.clone();
        let registered = |node: &str, driver: &str| driver == nvidia::DRIVER && dra_nodes.get(node).is_some_and(|d| d.running && d.registered);
        for i in 0..self.pods.len() {
            let bound: Vec<_> = self.pods.iter().enumerate().filter(|(j, p)| *j != i && !p.node_name.is_empty()).filter_map(|(_, p)| p.stored.clone()).collect();
            let (k8s_nodes, rcs, now) = (&self.manifests.nodes, &self.manifests.runtime_classes, self.now);
            let mut dra = Dra { state: &mut self.dra, registered: &registered };
            if let Some(p) = self.pods.get_mut(i) {
                p.reconcile(k8s_nodes, &bound, rcs, version, nodes, now, retry, Some(&mut dra));
            }
        }
    }

    pub fn act(&mut self, action: &Action, nodes: &[ModelNode]) -> Result<(), BackendError> {
        let r = self.act_inner(action, nodes);
        self.refresh_readiness(nodes);
        r
    }

    fn act_inner(&mut self, action: &Action, nodes: &[ModelNode]) -> Result<(), BackendError> {
        match action {
            Action::PluginConfig { file } => self.plugin_config(&file.source, &file.content, nodes)?,
            Action::NodeLayers { node, kubelet, device_plugin, socket_mount, devices } => {
                let l = self.layers.get_mut(node).ok_or_else(|| format!("{node} has no GPUs (gpus = 0): it has no advertisement layers"))?;
                if let Some(v) = kubelet {
                    l.kubelet_running = *v;
                }
                if let Some(v) = device_plugin {
                    l.device_plugin_running = *v;
                }
                if let Some(v) = socket_mount {
                    l.socket_dir_mounted = *v;
                }
                if let Some(v) = devices {
                    l.devices = *v;
                }
                self.refresh_readiness(nodes);
                self.reconcile(nodes);
            }
            Action::Advance { seconds } => self.now += i64::try_from(*seconds).unwrap_or(0),
            Action::Apply { file } => {
                let k = load_yaml(&file.source, &file.content)?;
                let objects = read_dra(&k)?;
                let changed = !(objects.device_classes.is_empty() && objects.resource_claims.is_empty() && objects.resource_claim_templates.is_empty());
                if !objects.resource_slices.is_empty() {
                    return Err("ResourceSlices are the drivers': give a node `dra_driver = true` instead".into());
                }
                self.dra.extend(objects);
                if changed {
                    // A class, claim or template created: the claim controller and
                    // the scheduler's queue try the pods that wait for one again.
                    self.reconcile(nodes);
                }
                let m = Manifests {
                    nodes: k.nodes.into_iter().map(|l| l.object).collect(),
                    daemon_sets: k.daemon_sets.into_iter().map(|l| l.object).collect(),
                    runtime_classes: k.runtime_classes.into_iter().map(|l| l.object).collect(),
                };
                for ds in m.daemon_sets {
                    match self.rollout.as_mut() {
                        Some(r) if r.controller.ds.metadata.name == ds.metadata.name => r.apply_update(ds),
                        _ => return Err("applying a second DaemonSet is not modelled: apply an update of the scenario's DaemonSet".into()),
                    }
                }
                for rc in m.runtime_classes {
                    if let Some(r) = self.rollout.as_mut() {
                        if let (Some(known), Some(name)) = (r.controller.admission.runtime_classes.as_mut(), rc.metadata.name.clone()) {
                            known.insert(name);
                        }
                        r.runtime_classes.push(rc.clone());
                    }
                    self.manifests.runtime_classes.push(rc);
                }
                // A Node applied again is its status patched (e.g. GPU capacity advertised).
                for node in m.nodes {
                    match self.manifests.nodes.iter_mut().find(|n| n.metadata.name == node.metadata.name) {
                        Some(slot) => *slot = node,
                        None => return Err("Node objects come with the scenario's initial manifests".into()),
                    }
                }
                for pod in k.pods {
                    self.add_pod(PodState::new(&file.source, pod.object), nodes);
                }
            }
            Action::Sync { count } => {
                for _ in 0..*count {
                    if let Some(r) = self.rollout.as_mut() {
                        r.runtimes = runtimes(nodes, &handlers(&r.runtime_classes));
                        r.step();
                    }
                    self.now += 10;
                    self.reconcile(nodes);
                }
            }
            Action::Delete { kind, name } => match kind.to_ascii_lowercase().as_str() {
                // An eviction or `kubectl delete pod`: the pod is gone, its GPUs are free.
                "pod" | "pods" => {
                    let before = self.pods.len();
                    let gone: Vec<_> = self.pods.iter().filter(|p| &p.name == name).filter_map(|p| p.stored.clone()).collect();
                    for p in &gone {
                        self.release_claims(p);
                    }
                    self.pods.retain(|p| &p.name != name);
                    if self.pods.len() == before {
                        return Err(format!("delete pod {name}: no such pod").into());
                    }
                    self.reconcile(nodes);
                }
                "runtimeclass" | "runtimeclasses" => {
                    let before = self.manifests.runtime_classes.len();
                    self.manifests.runtime_classes.retain(|rc| rc.metadata.name.as_deref() != Some(name.as_str()));
                    if self.manifests.runtime_classes.len() == before {
                        return Err(format!("delete runtimeclass {name}: no such RuntimeClass").into());
                    }
                }
                other => return Err(format!("delete {other}/{name}: only pods and RuntimeClasses are modelled").into()),
            },
            Action::MigGeometry { node, geometry } => self.mig_geometry(node, geometry, nodes)?,
            Action::DraDriver { node, running, registered } => {
                let d = self.dra_nodes.get_mut(node).ok_or_else(|| format!("{node} has no DRA driver (dra_driver = true)"))?;
                if let Some(v) = running {
                    d.running = *v;
                }
                if let Some(v) = registered {
                    d.registered = *v;
                }
                self.publish_slices()?;
                self.reconcile(nodes);
            }
            _ => {}
        }
        Ok(())
    }

    pub fn observe(&self, subject: &str, field: Field, _nodes: &[ModelNode]) -> Result<Observed, Unobservable> {
        if let Some(name) = subject.strip_prefix("daemonset/") {
            let r = self.rollout.as_ref().filter(|r| r.controller.ds.metadata.name.as_deref() == Some(name)).ok_or_else(|| format!("no DaemonSet {name}"))?;
            let status = r.controller.ds.status.clone().unwrap_or_default();
            let int = |i: i32| Ok(Observed::Int(i64::from(i)));
            return match field {
                Field::Desired => int(status.desired_number_scheduled),
                Field::Current => int(status.current_number_scheduled),
                Field::Ready => int(status.number_ready),
                Field::UpToDate => int(status.updated_number_scheduled.unwrap_or(0)),
                Field::Available => int(status.number_available.unwrap_or(0)),
                Field::RolloutStatus => {
                    let s = r.rollout_status().map_or_else(|e| e, |s| s.message);
                    Ok(Observed::Text(s.trim_end().to_string()))
                }
                Field::StalledOn => {
                    let stalled = r.rounds.last().is_some_and(|l| l.stalled);
                    let mut nodes: Vec<String> = if stalled { diagnose(r).stalled_nodes.into_iter().map(|n| n.node).collect() } else { Vec::new() };
                    crate::sort::sort(&mut nodes);
                    Ok(Observed::List(nodes))
                }
                other => Err(format!("`{}` is not a DaemonSet field", other.name())),
            };
        }
        if let Some(name) = subject.strip_prefix("node/") {
            let node = self.manifests.nodes.iter().find(|n| n.metadata.name.as_deref() == Some(name)).ok_or_else(|| format!("no Node {name} in the manifests"))?;
            let gpus = node
                .status
                .as_ref()
                .and_then(|s| s.allocatable.as_ref())
                .and_then(|a| a.get("nvidia.com/gpu"))
                .and_then(|q| q.0.parse::<i64>().ok())
                .unwrap_or(0);
            return match field {
                Field::Gpus => Ok(Observed::Int(gpus)),
                Field::SeatMemory => match self.seat_memory.get(name) {
                    Some(Some(m)) => Ok(Observed::Int(i64::try_from(*m).unwrap_or(i64::MAX))),
                    _ => Err(format!("{name}: the GPU model's memory is not known")),
                },
                Field::MigConfigState => Ok(Observed::Text(self.mig.get(name).map_or("", |(_, s)| s.as_str()).to_string())),
                Field::BrokenLayer => {
                    let layer = self.layers.get(name).and_then(|l| advertise(l).broken).map_or("", |l| l.code());
                    Ok(Observed::Text(layer.to_string()))
                }
                other => Err(format!("`{}` is not a node field", other.name())),
            };
        }
        if let Some(name) = subject.strip_prefix("pod/") {
            let pod = self.pods.iter().find(|p| p.name == name).ok_or_else(|| format!("no pod {name}"))?;
            return pod.observe(field).ok_or_else(|| format!("`{}` is not a pod field", field.name()));
        }
        Err(format!("`{subject}`: unknown subject"))
    }
}
