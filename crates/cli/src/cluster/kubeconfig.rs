//! The kubeconfig files: the admin's (for kube-rs, kubectl and the user), the
//! scheduler's and the controller manager's — one cluster, one user, one context each,
//! certificates embedded (`*-data`, base64) so a copied file still works.

use base64::Engine;

/// Every context a `gpulab cluster up` writes starts with this; the kube backend's
/// safety rule takes such contexts as lab clusters.
pub const CONTEXT_PREFIX: &str = "gpulab-";

/// The admin kubeconfig's context for a release: `gpulab-v1.37.2`.
pub fn context_name(version: &str) -> String {
    format!("{CONTEXT_PREFIX}{version}")
}

/// One kubeconfig file.
#[derive(Debug, Clone)]
pub struct Kubeconfig<'a> {
    pub context: &'a str,
    /// `https://127.0.0.1:PORT`.
    pub server: &'a str,
    pub ca_pem: &'a str,
    pub user: &'a str,
    pub cert_pem: &'a str,
    pub key_pem: &'a str,
}

impl Kubeconfig<'_> {
    /// The file's YAML.
    pub fn render(&self) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let Kubeconfig { context, server, user, .. } = self;
        format!(
            "apiVersion: v1\n\
             kind: Config\n\
             clusters:\n\
             - name: {context}\n  cluster:\n    server: {server}\n    certificate-authority-data: {ca}\n\
             users:\n\
             - name: {user}\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {key}\n\
             contexts:\n\
             - name: {context}\n  context:\n    cluster: {context}\n    user: {user}\n\
             current-context: {context}\n\
             preferences: {{}}\n",
            ca = b64(self.ca_pem),
            cert = b64(self.cert_pem),
            key = b64(self.key_pem),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text parses as kube-rs reads kubeconfigs, and every field reads back.
    #[test]
    fn renders_a_kubeconfig_kube_rs_reads() {
        let k = Kubeconfig { context: "gpulab-v1.37.2", server: "https://127.0.0.1:6443", ca_pem: "CA\n", user: "gpulab-admin", cert_pem: "CERT\n", key_pem: "KEY\n" };
        let text = k.render();
        assert!(text.starts_with("apiVersion: v1\nkind: Config\nclusters:\n- name: gpulab-v1.37.2\n  cluster:\n    server: https://127.0.0.1:6443\n"), "{text}");
        let kc = kube::config::Kubeconfig::from_yaml(&text).unwrap();
        assert_eq!(kc.current_context.as_deref(), Some("gpulab-v1.37.2"));
        let cluster = kc.clusters[0].cluster.as_ref().unwrap();
        assert_eq!(cluster.server.as_deref(), Some("https://127.0.0.1:6443"));
        assert_eq!(cluster.certificate_authority_data.as_deref(), Some("Q0EK"));
        let user = kc.auth_infos[0].auth_info.as_ref().unwrap();
        assert_eq!(kc.auth_infos[0].name, "gpulab-admin");
        assert_eq!(user.client_certificate_data.as_deref(), Some("Q0VSVAo="));
        assert!(user.client_key_data.is_some() && text.contains("    client-key-data: S0VZCg==\n"), "{text}");
        let ctx = kc.contexts[0].context.as_ref().unwrap();
        assert_eq!((kc.contexts[0].name.as_str(), ctx.cluster.as_str(), ctx.user.as_deref()), ("gpulab-v1.37.2", "gpulab-v1.37.2", Some("gpulab-admin")));
    }

    /// The context is the release behind the lab prefix.
    #[test]
    fn context_names_the_release() {
        assert_eq!(context_name("v1.37.2"), "gpulab-v1.37.2");
    }
}
