//! The four control-plane components, in the order they are started (and the reverse
//! order they are stopped in), with the names the multi-call binary takes as its first
//! argument.

/// One component of the control plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    Etcd,
    KubeApiserver,
    KubeScheduler,
    KubeControllerManager,
}

impl Component {
    /// Start order.
    pub const ALL: [Component; 4] = [Component::Etcd, Component::KubeApiserver, Component::KubeScheduler, Component::KubeControllerManager];

    /// The upstream command's name (`kube-oracle <name> …`).
    pub fn name(self) -> &'static str {
        match self {
            Component::Etcd => "etcd",
            Component::KubeApiserver => "kube-apiserver",
            Component::KubeScheduler => "kube-scheduler",
            Component::KubeControllerManager => "kube-controller-manager",
        }
    }

    /// The component named `name`, if any.
    pub fn from_name(name: &str) -> Option<Component> {
        Component::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Component {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names round-trip, and etcd starts first, the controller manager last.
    #[test]
    fn names_and_order() {
        for c in Component::ALL {
            assert_eq!(Component::from_name(c.name()), Some(c));
        }
        assert_eq!(Component::from_name("kubelet"), None);
        assert_eq!(Component::ALL.map(Component::name), ["etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager"]);
    }
}
