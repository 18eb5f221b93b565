//! Each component's command line, sans I/O: everything on 127.0.0.1, every file in the
//! private dir. etcd without fsync; the API server with its own CA, serving and client
//! certificates, service-account keys and issuer, `Node,RBAC`, the default admission
//! plugins (RuntimeClass among them: none are switched on or off here); the scheduler
//! and the controller manager with their kubeconfigs, no leader election, and only the
//! controllers the lab needs — not node lifecycle: the companion plays the kubelet.

use super::component::Component;
use super::dir::Layout;
use super::pki::{FRONT_PROXY_CLIENT, SERVICE_CIDR};
use super::ports::Ports;

/// The service-account token issuer (what kubeadm uses).
pub const SERVICE_ACCOUNT_ISSUER: &str = "https://kubernetes.default.svc.cluster.local";

/// The controller manager's controllers (`resourceclaim-controller` makes a pod's
/// ResourceClaims from its templates: DRA, issue 17).
pub const CONTROLLERS: &str = "daemonset,namespace,garbagecollector,serviceaccount,serviceaccount-token,resourceclaim-controller";

fn flag(name: &str, value: impl AsRef<std::ffi::OsStr>) -> String {
    format!("--{name}={}", value.as_ref().to_string_lossy())
}

fn loopback(port: u16) -> String {
    format!("http://127.0.0.1:{port}")
}

/// The arguments after the multi-call binary for `c` (the component's name first).
pub fn args(c: Component, l: &Layout, p: &Ports) -> Vec<String> {
    let mut a = vec![c.name().to_string()];
    match c {
        Component::Etcd => a.extend([
            flag("name", "gpulab"),
            flag("data-dir", l.etcd_data()),
            flag("listen-client-urls", loopback(p.etcd_client)),
            flag("advertise-client-urls", loopback(p.etcd_client)),
            flag("listen-peer-urls", loopback(p.etcd_peer)),
            flag("initial-advertise-peer-urls", loopback(p.etcd_peer)),
            flag("initial-cluster", format!("gpulab={}", loopback(p.etcd_peer))),
            flag("initial-cluster-state", "new"),
            "--unsafe-no-fsync".to_string(),
        ]),
        Component::KubeApiserver => a.extend([
            flag("bind-address", "127.0.0.1"),
            flag("advertise-address", "127.0.0.1"),
            flag("secure-port", p.apiserver.to_string()),
            flag("etcd-servers", loopback(p.etcd_client)),
            flag("client-ca-file", l.pki("ca.crt")),
            flag("tls-cert-file", l.pki("apiserver.crt")),
            flag("tls-private-key-file", l.pki("apiserver.key")),
            flag("service-account-issuer", SERVICE_ACCOUNT_ISSUER),
            flag("service-account-key-file", l.pki("sa.pub")),
            flag("service-account-signing-key-file", l.pki("sa.key")),
            flag("service-cluster-ip-range", SERVICE_CIDR),
            flag("authorization-mode", "Node,RBAC"),
            // Request-header authentication, as kubeadm configures it: the scheduler and
            // the controller manager read its CA from `extension-apiserver-authentication`.
            flag("requestheader-client-ca-file", l.pki("front-proxy-ca.crt")),
            flag("requestheader-allowed-names", FRONT_PROXY_CLIENT),
            flag("requestheader-username-headers", "X-Remote-User"),
            flag("requestheader-group-headers", "X-Remote-Group"),
            flag("requestheader-extra-headers-prefix", "X-Remote-Extra-"),
            flag("proxy-client-cert-file", l.pki("front-proxy-client.crt")),
            flag("proxy-client-key-file", l.pki("front-proxy-client.key")),
            // As kubeadm (and so kind) sets it: privileged pods are admitted.
            flag("allow-privileged", "true"),
            // The `kubernetes` service's Endpoints would hold 127.0.0.1, which API
            // validation refuses (loopback): no reconciler (no pod here dials it).
            flag("endpoint-reconciler-type", "none"),
        ]),
        Component::KubeScheduler | Component::KubeControllerManager => {
            let (port, name) = match c {
                Component::KubeScheduler => (p.scheduler, "kube-scheduler"),
                _ => (p.controller_manager, "kube-controller-manager"),
            };
            let kubeconfig = l.component_kubeconfig(c);
            a.extend([
                flag("kubeconfig", &kubeconfig),
                flag("authentication-kubeconfig", &kubeconfig),
                flag("authorization-kubeconfig", &kubeconfig),
                flag("leader-elect", "false"),
                flag("bind-address", "127.0.0.1"),
                flag("secure-port", port.to_string()),
                flag("tls-cert-file", l.pki(&format!("{name}-serving.crt"))),
                flag("tls-private-key-file", l.pki(&format!("{name}-serving.key"))),
            ]);
            if c == Component::KubeControllerManager {
                a.extend([
                    flag("controllers", CONTROLLERS),
                    flag("service-account-private-key-file", l.pki("sa.key")),
                    flag("root-ca-file", l.pki("ca.crt")),
                    flag("use-service-account-credentials", "true"),
                ]);
            }
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports() -> Ports {
        Ports { etcd_client: 2001, etcd_peer: 2002, apiserver: 6001, scheduler: 6002, controller_manager: 6003 }
    }

    fn value<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
        args.iter().find_map(|a| a.strip_prefix(&format!("--{name}=")))
    }

    /// etcd: loopback client and peer URLs on their ports, private data dir, no fsync.
    #[test]
    fn etcd_flags() {
        let a = args(Component::Etcd, &Layout::new("/d"), &ports());
        assert_eq!(a[0], "etcd");
        assert_eq!(value(&a, "listen-client-urls"), Some("http://127.0.0.1:2001"));
        assert_eq!(value(&a, "initial-cluster"), Some("gpulab=http://127.0.0.1:2002"));
        assert_eq!(value(&a, "data-dir"), Some("/d/etcd"));
        assert!(a.contains(&"--unsafe-no-fsync".to_string()));
    }

    /// The API server: loopback, its own certificates, Node,RBAC, and no admission
    /// plugin switched on or off (the defaults hold RuntimeClass).
    #[test]
    fn apiserver_flags() {
        let a = args(Component::KubeApiserver, &Layout::new("/d"), &ports());
        assert_eq!(a[0], "kube-apiserver");
        for (k, v) in [
            ("bind-address", "127.0.0.1"),
            ("advertise-address", "127.0.0.1"),
            ("secure-port", "6001"),
            ("etcd-servers", "http://127.0.0.1:2001"),
            ("client-ca-file", "/d/pki/ca.crt"),
            ("tls-cert-file", "/d/pki/apiserver.crt"),
            ("service-account-signing-key-file", "/d/pki/sa.key"),
            ("service-account-issuer", SERVICE_ACCOUNT_ISSUER),
            ("authorization-mode", "Node,RBAC"),
            ("service-cluster-ip-range", "10.96.0.0/12"),
            ("endpoint-reconciler-type", "none"),
        ] {
            assert_eq!(value(&a, k), Some(v), "--{k}");
        }
        assert!(!a.iter().any(|f| f.contains("admission-plugins")), "{a:?}");
    }

    /// Scheduler and controller manager: their own kubeconfig and serving certificate,
    /// no leader election; the controller manager runs the lab's controllers only.
    #[test]
    fn scheduler_and_controller_manager_flags() {
        let l = Layout::new("/d");
        let s = args(Component::KubeScheduler, &l, &ports());
        assert_eq!((s[0].as_str(), value(&s, "secure-port"), value(&s, "leader-elect")), ("kube-scheduler", Some("6002"), Some("false")));
        assert_eq!(value(&s, "kubeconfig"), Some("/d/kube-scheduler.kubeconfig"));
        assert_eq!(value(&s, "tls-cert-file"), Some("/d/pki/kube-scheduler-serving.crt"));
        assert_eq!(value(&s, "controllers"), None);
        let m = args(Component::KubeControllerManager, &l, &ports());
        assert_eq!((value(&m, "secure-port"), value(&m, "bind-address")), (Some("6003"), Some("127.0.0.1")));
        assert_eq!(value(&m, "controllers"), Some("daemonset,namespace,garbagecollector,serviceaccount,serviceaccount-token,resourceclaim-controller"));
        assert!(!CONTROLLERS.contains("nodelifecycle"));
        assert_eq!(value(&m, "root-ca-file"), Some("/d/pki/ca.crt"));
        assert_eq!(value(&m, "service-account-private-key-file"), Some("/d/pki/sa.key"));
        assert_eq!(value(&m, "use-service-account-credentials"), Some("true"));
    }

    /// Every `pki/` file a flag names is one the PKI writes.
    #[test]
    fn every_pki_file_named_is_written() {
        let l = Layout::new("/d");
        let pki = crate::cluster::pki::Pki::generate().unwrap();
        let written: Vec<String> = pki.files().into_iter().map(|(n, _)| format!("/d/pki/{n}")).collect();
        let all: Vec<String> = Component::ALL.iter().flat_map(|c| args(*c, &l, &ports())).collect();
        let named: Vec<&str> = all.iter().filter_map(|a| a.split_once('=').map(|(_, v)| v)).filter(|v| v.starts_with("/d/pki/")).collect();
        assert_eq!(named.len(), 14, "{named:?}");
        for n in named {
            assert!(written.iter().any(|w| w == n), "{n} is not written by the PKI: {written:?}");
        }
    }
}
