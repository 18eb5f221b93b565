//! The rollout's objects (Nodes, DaemonSets, RuntimeClasses) out of manifests read by
//! the Kubernetes model's one loader ([`crate::kubernetes::yaml::load`]), and a rollout
//! from them: the running DaemonSet settled, then its update applied. The incident's
//! seed ([`crate::incident::seed`]), `gpulab rollout` and the scenario engine start
//! their rollouts here.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::node::v1::RuntimeClass;

use super::controller::NodeOrder;
use super::rollout::{NodeRuntime, Rollout};
use crate::diagnostic::{Diagnostic, Severity};
use crate::kubernetes::yaml;

/// When the lab's cluster's DaemonSet was created (unix seconds, 2026-09-21): the clock
/// the seed's and every scenario's rollout starts from.
pub const SEED_EPOCH: i64 = 1_790_000_000;

/// The objects of one or more manifests, by kind, in file order.
#[derive(Debug, Clone, Default)]
pub struct Manifests {
    pub nodes: Vec<Node>,
    pub daemon_sets: Vec<DaemonSet>,
    pub runtime_classes: Vec<RuntimeClass>,
}

/// The kinds the rollout models; a manifest of another kind is a
/// `rollout-kind-unmodelled` finding.
pub const ROLLOUT_KINDS: [&str; 3] = ["Node", "DaemonSet", "RuntimeClass"];

impl Manifests {
    /// Adds every document of `yaml` (`source` names it in findings), read by the
    /// Kubernetes model's one loader ([`yaml::load`]: syntax and type errors at
    /// file:line:column). Kinds the rollout does not model are findings too
    /// ([`Manifests::add`]), not silently dropped. Nothing is added when there are any.
    pub fn add_yaml(&mut self, source: &str, yaml: &str) -> Result<(), Vec<Diagnostic>> {
        let (loaded, diags) = yaml::load(source, yaml);
        if !diags.is_empty() {
            return Err(diags);
        }
        self.add(loaded)
    }

    /// Adds the rollout's objects of a loaded file. Every object of another kind is a
    /// `rollout-kind-unmodelled` error (argument `kind`) at its document's first line, and
    /// then nothing is added.
    pub fn add(&mut self, loaded: yaml::Manifests) -> Result<(), Vec<Diagnostic>> {
        let others = loaded
            .pods
            .iter()
            .map(|l| ("Pod", &l.span))
            .chain(loaded.config_maps.iter().map(|l| ("ConfigMap", &l.span)))
            .chain(loaded.events.iter().map(|l| ("Event", &l.span)))
            .chain(loaded.deferred.iter().map(|d| (d.kind.as_str(), &d.span)));
        let mut findings: Vec<Diagnostic> = others
            .map(|(kind, at)| Diagnostic::new("rollout-kind-unmodelled", Severity::Error).arg("kind", kind).at(at.clone()))
            .collect();
        if !findings.is_empty() {
            findings.sort_by(|a, b| a.primary.cmp(&b.primary));
            return Err(findings);
        }
        self.add_from_cluster(loaded);
        Ok(())
    }

    /// Adds the rollout's objects of a loaded cluster dump (`kubectl get nodes,pods -A
    /// -o yaml`): its Nodes, DaemonSets and RuntimeClasses; its Pods and other objects
    /// are the cluster's, not the rollout's (which models the DaemonSet's own pods), and
    /// are left out.
    pub fn add_from_cluster(&mut self, loaded: yaml::Manifests) {
        self.nodes.extend(loaded.nodes.into_iter().map(|l| l.object));
        self.daemon_sets.extend(loaded.daemon_sets.into_iter().map(|l| l.object));
        self.runtime_classes.extend(loaded.runtime_classes.into_iter().map(|l| l.object));
    }

    /// [`Manifests::add_from_cluster`] from a dump the caller keeps (the browser's import
    /// runs again on the same dump): copies only the objects the rollout takes.
    pub fn add_copies_from_cluster(&mut self, loaded: &yaml::Manifests) {
        self.nodes.extend(loaded.nodes.iter().map(|l| l.object.clone()));
        self.daemon_sets.extend(loaded.daemon_sets.iter().map(|l| l.object.clone()));
        self.runtime_classes.extend(loaded.runtime_classes.iter().map(|l| l.object.clone()));
    }
}

/// A rollout from manifests: the first DaemonSet runs (and is settled first, every pod
/// Ready), then the second one — the same DaemonSet, changed — is applied. `runtimes`
/// gives the nodes' containerd state. The rollout is returned before its first round.
pub fn rollout_from_manifests(
    manifests: &Manifests,
    runtimes: BTreeMap<String, NodeRuntime>,
    order: NodeOrder,
    seed: u64,
    now: i64,
) -> Result<Rollout, String> {
    rollout_from_owned_manifests(manifests.clone(), runtimes, None, order, seed, now)
}

/// [`rollout_from_manifests`] taking the manifests (their Nodes become the
/// controller's without a copy), with `default_runtime` for every node without an
/// entry in `runtimes` ([`Rollout::default_runtime`]).
pub fn rollout_from_owned_manifests(
    manifests: Manifests,
    runtimes: BTreeMap<String, NodeRuntime>,
    default_runtime: Option<NodeRuntime>,
    order: NodeOrder,
    seed: u64,
    now: i64,
) -> Result<Rollout, String> {
    let Manifests { nodes, daemon_sets, runtime_classes } = manifests;
    let mut daemon_sets = daemon_sets.into_iter();
    let first = daemon_sets.next().ok_or("no DaemonSet in the manifests")?;
    let update = daemon_sets.next().ok_or("one DaemonSet only: give the running version and the updated one")?;
    if first.metadata.name != update.metadata.name {
        return Err(format!(
            "the two DaemonSets differ in name ({:?} vs {:?}): the second must be an update of the first",
            first.metadata.name.as_deref().unwrap_or(""),
            update.metadata.name.as_deref().unwrap_or("")
        ));
    }
    if nodes.is_empty() {
        return Err("no Node in the manifests".into());
    }
    let mut rollout = Rollout::new(first, nodes, runtime_classes, order, seed, now);
    rollout.runtimes = runtimes;
    rollout.default_runtime = default_runtime;
    if !rollout.run_until_settled(200) {
        return Err("the running DaemonSet does not roll out cleanly before the update".into());
    }
    // The cluster has been running for a while when the update comes.
    rollout.controller.now += 14 * 60 - rollout.interval;
    rollout.rounds.clear();
    rollout.apply_update(update);
    Ok(rollout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one file adds, or the findings (code and line) it is refused with: the
    /// Kubernetes loader's, then the rollout's own for a kind it does not model.
    #[test]
    fn add_yaml_findings_are_data_at_their_lines() {
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
        let rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: nvidia}\nhandler: nvidia\n";
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n";
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        let cases: [(&str, String, Result<(usize, usize), Vec<(&str, u32)>>); 5] = [
            ("objects of the rollout", format!("{node}---\n{rc}"), Ok((1, 1))),
            ("a pod and a config map", format!("{node}---\n{pod}---\n{cm}"), Err(vec![("rollout-kind-unmodelled", 5), ("rollout-kind-unmodelled", 10)])),
            ("a YAML syntax error", "kind: Node\nmetadata: {name: [\n".into(), Err(vec![("k8s-yaml-invalid", 3)])),
            ("a kind the lab does not read", format!("{node}---\nkind: Secret\n"), Err(vec![("k8s-kind-unknown", 5)])),
            ("no kind", "metadata: {name: n}\n".into(), Err(vec![("k8s-kind-missing", 1)])),
        ];
        for (name, text, want) in cases {
            let mut m = Manifests::default();
            let got = m.add_yaml("f.yaml", &text).map(|()| (m.nodes.len(), m.runtime_classes.len())).map_err(|ds| {
                ds.iter().map(|d| (d.code.clone(), d.primary.as_ref().map_or(0, |s| s.line))).collect::<Vec<_>>()
            });
            let want = want.map_err(|ds| ds.into_iter().map(|(c, l)| (c.to_string(), l)).collect::<Vec<_>>());
            assert_eq!(got, want, "{name}");
        }
    }
}
