//! The filter pipeline of the default profile (`RunFilterPlugins`): plugins in
//! upstream order, stopping at the first that rejects a node; a compact per-node
//! verdict that renders to the plugin's own reason strings.

use super::noderesources_fit::{shortfall_reason, FitArgs, Shortfall};
use super::snapshot::{NodeInfo, PodInfo};
use super::status::{Code, Status};
use super::{node_affinity, node_name, node_ports, node_unschedulable, noderesources_fit, taint_toleration};
use crate::kubernetes::version::KubeVersion;

/// The Filter plugins of the default profile that the model runs, in upstream order
/// (`default_plugins.go`; volume, topology-spread and inter-pod plugins have nothing
/// to filter for the lab's pods and are not modelled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Plugin {
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    /// Runs after the others (`default_plugins.go` lists it after InterPodAffinity),
    /// only for a pod with claims; not in [`Plugin::FILTERS`].
    DynamicResources,
}

impl Plugin {
    /// Filter order.
    pub const FILTERS: [Plugin; 6] = [
        Plugin::NodeUnschedulable,
        Plugin::NodeName,
        Plugin::TaintToleration,
        Plugin::NodeAffinity,
        Plugin::NodePorts,
        Plugin::NodeResourcesFit,
    ];

    /// The upstream plugin name.
    pub fn name(self) -> &'static str {
        match self {
            Plugin::NodeUnschedulable => "NodeUnschedulable",
            Plugin::NodeName => "NodeName",
            Plugin::TaintToleration => "TaintToleration",
            Plugin::NodeAffinity => "NodeAffinity",
            Plugin::NodePorts => "NodePorts",
            Plugin::NodeResourcesFit => "NodeResourcesFit",
            Plugin::DynamicResources => "DynamicResources",
        }
    }
}

/// NodeResourcesFit's shortfalls as bits (scalar ones by index in the pod request,
/// up to 64 scalar resources).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FitReasons {
    fixed: u8,
    scalars: u64,
}

impl FitReasons {
    pub fn insert(&mut self, s: Shortfall) {
        match s {
            Shortfall::TooManyPods => self.fixed |= 1,
            Shortfall::Cpu => self.fixed |= 2,
            Shortfall::Memory => self.fixed |= 4,
            Shortfall::EphemeralStorage => self.fixed |= 8,
            Shortfall::Scalar(i) if i < 64 => self.scalars |= 1 << i,
            Shortfall::Scalar(_) => {}
        }
    }

    pub fn is_empty(&self) -> bool {
        self.fixed == 0 && self.scalars == 0
    }

    /// The shortfalls in upstream order.
    pub fn iter(&self) -> impl Iterator<Item = Shortfall> + '_ {
        let fixed = [Shortfall::TooManyPods, Shortfall::Cpu, Shortfall::Memory, Shortfall::EphemeralStorage]
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.fixed & (1 << i) != 0)
            .map(|(_, s)| s);
        let scalars = (0..64).filter(|i| self.scalars & (1u64 << i) != 0).map(Shortfall::Scalar);
        fixed.chain(scalars)
    }
}

/// Why a plugin rejected a node, without its text (rendered on demand).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Unschedulable,
    NodeName,
    /// Index into the node's `spec.taints`.
    UntoleratedTaint {
        index: usize,
    },
    NodeAffinity,
    NodePorts,
    Fit(FitReasons),
    /// DynamicResources' Filter.
    Dra(DraReason),
}

/// DynamicResources' Filter reasons (`dynamicresources.go`), all
/// UnschedulableAndUnresolvable; `Error` aborts the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DraReason {
    /// An allocated claim's node selector does not match the node.
    NotAvailable,
    /// The allocator found no solution on the node.
    CannotAllocate,
    /// No solution, and a pool of the node has duplicate device names.
    InvalidPools,
    /// The allocator gave up (the model's search bound).
    TimedOut,
    /// A requested extended resource is neither on the node nor backed by a
    /// DeviceClass (`filterExtendedResources`).
    CannotFitResource,
    /// The pod's extended-resource claim of an earlier cycle already has requests
    /// (PostFilter deletes it).
    StaleExtendedClaim,
    /// The allocator failed (a CEL runtime error, a broken claim): not a rejection.
    Error,
}

impl DraReason {
    /// The status message.
    pub fn text(self) -> &'static str {
        match self {
            DraReason::NotAvailable => "resourceclaim not available on the node",
            DraReason::CannotAllocate => "cannot allocate all claims",
            DraReason::InvalidPools => "invalid resource pools were encountered",
            DraReason::TimedOut => "timed out trying to allocate devices",
            DraReason::CannotFitResource => "cannot fit resource",
            DraReason::StaleExtendedClaim => "cannot schedule extended resource claim",
            DraReason::Error => "",
        }
    }
}

/// One pod's cycle in the DynamicResources plugin, after a PreFilter that did not
/// skip: implemented by `kubernetes::dra::dynamicresources`, so that the scheduler
/// (and the app's chunk) carries no DRA code unless a caller supplies it.
pub trait DraCycle: std::fmt::Debug + Send + Sync {
    /// Filter on one node: `None` when the claims can be had there.
    fn filter(&self, node: &NodeInfo) -> Option<DraReason>;
    /// The text of a Filter error on `node` (`running "DynamicResources" filter
    /// plugin: …` wraps it).
    fn filter_error(&self, node: &NodeInfo) -> String;
    /// PostFilter, knowing which nodes Filter rejected.
    fn post_filter(&self, rejected: &[&NodeInfo]) -> Status;
}

/// The DynamicResources plugin with the cluster's DRA objects.
pub trait DynamicResources: std::fmt::Debug + Send + Sync {
    /// PreFilter: `Ok(None)` = Skip (no claims), `Err` = the pod's rejection
    /// (UnschedulableAndUnresolvable, or Error).
    fn pre_filter(&self, pod: &PodInfo) -> Result<Option<std::sync::Arc<dyn DraCycle>>, Status>;
}

/// A plugin's rejection of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejection {
    pub plugin: Plugin,
    pub code: Code,
    pub reason: Reason,
}

impl Rejection {
    /// `plugin` rejects with `code` for `reason`.
    pub fn new(plugin: Plugin, code: Code, reason: Reason) -> Rejection {
        Rejection { plugin, code, reason }
    }

    /// The plugin's reason strings (`Status.Reasons()`).
    pub fn reasons(&self, pod: &PodInfo, node: &NodeInfo, version: KubeVersion) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_reason(pod, node, version, |r| out.push(r.to_string()));
        out
    }

    /// Calls `f` with each reason string.
    pub fn for_each_reason(&self, pod: &PodInfo, node: &NodeInfo, version: KubeVersion, mut f: impl FnMut(&str)) {
        match self.reason {
            Reason::Unschedulable => f(node_unschedulable::ERR_REASON_UNSCHEDULABLE),
            Reason::NodeName => f(node_name::ERR_REASON),
            Reason::UntoleratedTaint { index } => {
                if version.legacy_taint_message() {
                    let t = node.taints().get(index);
                    let key = t.map_or("", |t| t.key.as_str());
                    let value = t.and_then(|t| t.value.as_deref()).unwrap_or("");
                    f(&taint_toleration::legacy_reason(key, value));
                } else {
                    f(taint_toleration::ERR_REASON_UNTOLERATED);
                }
            }
            Reason::NodeAffinity => f(node_affinity::ERR_REASON_POD),
            Reason::NodePorts => f(node_ports::ERR_REASON),
            Reason::Fit(bits) => {
                for s in bits.iter() {
                    match s {
                        Shortfall::TooManyPods => f("Too many pods"),
                        Shortfall::Cpu => f("Insufficient cpu"),
                        Shortfall::Memory => f("Insufficient memory"),
                        Shortfall::EphemeralStorage => f("Insufficient ephemeral-storage"),
                        Shortfall::Scalar(_) => f(&shortfall_reason(s, &pod.request)),
                    }
                }
            }
            Reason::Dra(r) => f(r.text()),
        }
    }

    /// As a framework status.
    pub fn to_status(&self, pod: &PodInfo, node: &NodeInfo, version: KubeVersion) -> Status {
        Status::new(self.code, self.reasons(pod, node, version)).with_plugin(self.plugin.name())
    }
}

/// What the cycle knows before filtering: PreFilter results.
#[derive(Debug, Clone, Default)]
pub struct CycleState {
    /// NodeAffinity's PreFilter said Skip (no selector, no required affinity).
    pub skip_node_affinity: bool,
    /// NodePorts' PreFilter said Skip (no host ports).
    pub skip_node_ports: bool,
    /// DynamicResources' PreFilter state for a pod with claims (`None`: Skip).
    pub dra: Option<std::sync::Arc<dyn DraCycle>>,
}

/// Filter options of a cycle.
#[derive(Debug, Clone, Default)]
pub struct FilterOptions {
    pub version: KubeVersion,
    pub fit_args: FitArgs,
    /// The DynamicResources plugin with the cluster's DRA objects; `None`: no DRA
    /// objects (every pod's PreFilter skips).
    pub dra: Option<std::sync::Arc<dyn DynamicResources>>,
}

/// `RunFilterPlugins` for one node: `None` when every plugin passes.
pub fn run_filter_plugins(
    pod: &PodInfo,
    node: &NodeInfo,
    state: &CycleState,
    opts: &FilterOptions,
) -> Option<Rejection> {
    for plugin in Plugin::FILTERS {
        let r = match plugin {
            Plugin::NodeUnschedulable => node_unschedulable::filter(pod, node),
            Plugin::NodeName => node_name::filter(pod, node),
            Plugin::TaintToleration => taint_toleration::filter(pod, node),
            Plugin::NodeAffinity if state.skip_node_affinity => None,
            Plugin::NodeAffinity => node_affinity::filter(pod, node),
            Plugin::NodePorts if state.skip_node_ports => None,
            Plugin::NodePorts => node_ports::filter(pod, node),
            Plugin::NodeResourcesFit => noderesources_fit::filter(&pod.request, node, &opts.fit_args, opts.version),
            Plugin::DynamicResources => None,
        };
        if r.is_some() {
            return r;
        }
    }
    let dra = state.dra.as_ref()?.filter(node)?;
    let code = if dra == DraReason::Error { Code::Error } else { Code::UnschedulableAndUnresolvable };
    Some(Rejection::new(Plugin::DynamicResources, code, Reason::Dra(dra)))
}

/// The per-plugin result for one node, the shape kube-scheduler-simulator shows:
/// `(plugin, "passed" | the plugin's message)` for each plugin that ran.
pub fn explain(
    verdict: Option<&Rejection>,
    pod: &PodInfo,
    node: &NodeInfo,
    state: &CycleState,
    version: KubeVersion,
) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for plugin in Plugin::FILTERS {
        if (plugin == Plugin::NodeAffinity && state.skip_node_affinity)
            || (plugin == Plugin::NodePorts && state.skip_node_ports)
        {
            out.push((plugin.name(), "skipped".to_string()));
            continue;
        }
        match verdict {
            Some(r) if r.plugin == plugin => {
                out.push((plugin.name(), r.reasons(pod, node, version).join(", ")));
                return out;
            }
            _ => out.push((plugin.name(), "passed".to_string())),
        }
    }
    if state.dra.is_some() {
        let cell = match verdict {
            Some(r) if r.plugin == Plugin::DynamicResources => r.reasons(pod, node, version).join(", "),
            _ => "passed".to_string(),
        };
        out.push((Plugin::DynamicResources.name(), cell));
    }
    out
}

/// `RunPostFilterPlugins`: plugins in order; Success returns at once;
/// UnschedulableAndUnresolvable returns that status at once; a code that is not a
/// rejection is an error; otherwise reasons are appended and the result is
/// Unschedulable with all of them.
pub fn run_post_filter_plugins(results: impl IntoIterator<Item = (String, Status)>) -> Status {
    let mut reasons: Vec<String> = Vec::new();
    let mut rejector: Option<String> = None;
    for (plugin, s) in results {
        match s.code {
            Code::Success => return s,
            Code::UnschedulableAndUnresolvable => return s.with_plugin(plugin),
            c if !c.is_rejected() => return Status::new(Code::Error, [s.message()]).with_plugin(plugin),
            _ => {
                reasons.extend(s.reasons);
                rejector.get_or_insert(plugin);
            }
        }
    }
    let mut st = Status::new(Code::Unschedulable, reasons);
    st.plugin = rejector;
    st
}
