//! The control plane's certificates and keys, generated in Rust (rcgen, ECDSA P-256):
//! one CA; the API server's serving certificate (127.0.0.1, localhost, the `kubernetes`
//! service's names and first cluster IP); the admin's client certificate (group
//! `system:masters`); the scheduler's and controller manager's client certificates (the
//! users the bootstrap RBAC policy knows) and their serving certificates; the
//! front-proxy CA and its client (the API server's request-header authentication, which
//! the scheduler and controller manager read from `extension-apiserver-authentication`);
//! the service-account signing key pair. PEM in memory; [`Pki::files`] says where each goes.
//!
//! Validity is rcgen's default (1975 to 4096): the certificates live as long as the
//! private dir of one local cluster.

use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose};

/// The API server's service range (`--service-cluster-ip-range`).
pub const SERVICE_CIDR: &str = "10.96.0.0/12";
/// The `kubernetes` service's cluster IP: the range's first address.
pub const KUBERNETES_SERVICE_IP: &str = "10.96.0.1";
/// The admin user (the group gives it cluster-admin).
pub const ADMIN_USER: &str = "gpulab-admin";
pub const ADMIN_GROUP: &str = "system:masters";
/// The front proxy's client name (`--requestheader-allowed-names`).
pub const FRONT_PROXY_CLIENT: &str = "front-proxy-client";

/// A certificate and its private key, PEM.
#[derive(Debug, Clone)]
pub struct CertPem {
    pub cert: String,
    pub key: String,
}

/// Everything one control plane needs.
#[derive(Debug, Clone)]
pub struct Pki {
    pub ca: CertPem,
    pub apiserver: CertPem,
    pub admin: CertPem,
    pub scheduler: CertPem,
    pub controller_manager: CertPem,
    pub scheduler_serving: CertPem,
    pub controller_manager_serving: CertPem,
    /// The front proxy's own CA and the API server's client certificate under it.
    pub front_proxy_ca: CertPem,
    pub front_proxy_client: CertPem,
    /// The service-account token signing key (PKCS#8) and its public key.
    pub service_account_key: String,
    pub service_account_pub: String,
}

/// What a certificate is for.
struct Leaf<'a> {
    cn: &'a str,
    orgs: &'a [&'a str],
    sans: &'a [&'a str],
    server: bool,
    client: bool,
}

fn err(what: &str) -> impl Fn(rcgen::Error) -> String + '_ {
    move |e| format!("generating the {what}: {e}")
}

fn leaf(issuer: &Issuer<'_, KeyPair>, l: &Leaf) -> Result<CertPem, String> {
    let e = err(l.cn);
    let mut p = CertificateParams::new(l.sans.iter().map(|s| s.to_string()).collect::<Vec<_>>()).map_err(&e)?;
    p.distinguished_name = rcgen::DistinguishedName::new();
    p.distinguished_name.push(DnType::CommonName, l.cn);
    for o in l.orgs {
        p.distinguished_name.push(DnType::OrganizationName, *o);
    }
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    if l.server {
        p.extended_key_usages.push(ExtendedKeyUsagePurpose::ServerAuth);
    }
    if l.client {
        p.extended_key_usages.push(ExtendedKeyUsagePurpose::ClientAuth);
    }
    p.use_authority_key_identifier_extension = true;
    let key = KeyPair::generate().map_err(&e)?;
    let cert = p.signed_by(&key, issuer).map_err(&e)?;
    Ok(CertPem { cert: cert.pem(), key: key.serialize_pem() })
}

/// A self-signed CA named `cn`: its PEM and the issuer that signs with it.
fn ca(cn: &str) -> Result<(CertPem, Issuer<'static, KeyPair>), String> {
    let e = err(cn);
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(&e)?;
    ca.distinguished_name = rcgen::DistinguishedName::new();
    ca.distinguished_name.push(DnType::CommonName, cn);
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let key = KeyPair::generate().map_err(&e)?;
    let cert = ca.self_signed(&key).map_err(&e)?;
    Ok((CertPem { cert: cert.pem(), key: key.serialize_pem() }, Issuer::new(ca, key)))
}

impl Pki {
    /// Fresh keys and certificates.
    pub fn generate() -> Result<Pki, String> {
        let (ca_pem, issuer) = ca("gpulab-ca")?;
        let (front_proxy_ca, front_proxy) = ca("gpulab-front-proxy-ca")?;
        let loopback = ["127.0.0.1", "localhost"];
        let apiserver_sans = ["127.0.0.1", "localhost", KUBERNETES_SERVICE_IP, "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"];
        let client = |cn, orgs| Leaf { cn, orgs, sans: &[], server: false, client: true };
        let serving = |cn| Leaf { cn, orgs: &[], sans: &loopback, server: true, client: false };
        let sa = KeyPair::generate().map_err(err("service-account key"))?;
        Ok(Pki {
            apiserver: leaf(&issuer, &Leaf { cn: "kube-apiserver", orgs: &[], sans: &apiserver_sans, server: true, client: false })?,
            admin: leaf(&issuer, &client(ADMIN_USER, &[ADMIN_GROUP]))?,
            scheduler: leaf(&issuer, &client("system:kube-scheduler", &[]))?,
            controller_manager: leaf(&issuer, &client("system:kube-controller-manager", &[]))?,
            scheduler_serving: leaf(&issuer, &serving("kube-scheduler"))?,
            controller_manager_serving: leaf(&issuer, &serving("kube-controller-manager"))?,
            front_proxy_client: leaf(&front_proxy, &client(FRONT_PROXY_CLIENT, &[]))?,
            front_proxy_ca,
            service_account_key: sa.serialize_pem(),
            service_account_pub: sa.public_key_pem(),
            ca: ca_pem,
        })
    }

    /// Each file of the `pki/` directory and its content (all written 0600).
    pub fn files(&self) -> Vec<(String, &str)> {
        let mut out = Vec::new();
        for (name, c) in [
            ("ca", &self.ca),
            ("apiserver", &self.apiserver),
            ("admin", &self.admin),
            ("kube-scheduler-client", &self.scheduler),
            ("kube-controller-manager-client", &self.controller_manager),
            ("kube-scheduler-serving", &self.scheduler_serving),
            ("kube-controller-manager-serving", &self.controller_manager_serving),
            ("front-proxy-ca", &self.front_proxy_ca),
            ("front-proxy-client", &self.front_proxy_client),
        ] {
            out.push((format!("{name}.crt"), c.cert.as_str()));
            out.push((format!("{name}.key"), c.key.as_str()));
        }
        out.push(("sa.key".to_string(), &self.service_account_key));
        out.push(("sa.pub".to_string(), &self.service_account_pub));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::PublicKeyData;
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

    fn der(pem: &str) -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()
    }

    /// Verifies `cert` against `ca` for a TLS server (`server`) or client, as rustls does.
    fn verifies(ca: &str, cert: &str, server: bool) -> Result<(), webpki::Error> {
        let ca = der(ca);
        let anchor = webpki::anchor_from_trusted_cert(&ca)?;
        let leaf = der(cert);
        let ee = webpki::EndEntityCert::try_from(&leaf)?;
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(1_800_000_000));
        let usage = if server { webpki::KeyUsage::server_auth() } else { webpki::KeyUsage::client_auth() };
        ee.verify_for_usage(webpki::ALL_VERIFICATION_ALGS, &[anchor], &[], now, usage, None, None).map(|_| ())
    }

    /// The subject's (OID, value) pairs and the DER of the subject public key info.
    fn subject_and_spki(pem: &str) -> (Vec<(Vec<u64>, String)>, Vec<u8>) {
        let cert = der(pem);
        let tbs = yasna::parse_der(&cert, |r| {
            r.read_sequence(|r| {
                let tbs = r.next().read_der()?;
                r.next().read_der()?;
                r.next().read_der()?;
                Ok(tbs)
            })
        })
        .unwrap();
        yasna::parse_der(&tbs, |r| {
            r.read_sequence(|r| {
                r.next().read_tagged(yasna::Tag::context(0), |r| r.read_u8())?;
                for _ in 0..4 {
                    r.next().read_der()?; // serial, signature algorithm, issuer, validity
                }
                let mut subject = Vec::new();
                r.next().read_sequence_of(|r| {
                    r.read_set_of(|r| {
                        r.read_sequence(|r| {
                            let oid = r.next().read_oid()?.components().clone();
                            subject.push((oid, r.next().read_utf8string()?));
                            Ok(())
                        })
                    })
                })?;
                let spki = r.next().read_der()?;
                r.read_optional(|r| r.read_der())?;
                Ok((subject, spki))
            })
        })
        .unwrap()
    }

    const CN: [u64; 4] = [2, 5, 4, 3];
    const O: [u64; 4] = [2, 5, 4, 10];

    /// The API server's certificate is a TLS server certificate of the cluster CA for
    /// every name clients use; not for others, and not as a client.
    #[test]
    fn apiserver_serving_certificate() {
        let p = Pki::generate().unwrap();
        verifies(&p.ca.cert, &p.apiserver.cert, true).unwrap();
        assert!(verifies(&p.ca.cert, &p.apiserver.cert, false).is_err(), "a serving certificate must not authenticate a client");
        let leaf = der(&p.apiserver.cert);
        let ee = webpki::EndEntityCert::try_from(&leaf).unwrap();
        for name in ["127.0.0.1", "10.96.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"] {
            ee.verify_is_valid_for_subject_name(&ServerName::try_from(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        assert!(ee.verify_is_valid_for_subject_name(&ServerName::try_from("example.com").unwrap()).is_err());
        assert!(ee.verify_is_valid_for_subject_name(&ServerName::try_from("10.0.0.1").unwrap()).is_err());
        for serving in [&p.scheduler_serving, &p.controller_manager_serving] {
            verifies(&p.ca.cert, &serving.cert, true).unwrap();
            let leaf = der(&serving.cert);
            webpki::EndEntityCert::try_from(&leaf).unwrap().verify_is_valid_for_subject_name(&ServerName::try_from("127.0.0.1").unwrap()).unwrap();
        }
    }

    /// The client certificates carry the users and groups RBAC knows, chain to the CA
    /// as TLS clients, and are not server certificates.
    #[test]
    fn client_certificates_name_their_users() {
        let p = Pki::generate().unwrap();
        let cases: [(&CertPem, &str, Option<&str>); 3] =
            [(&p.admin, "gpulab-admin", Some("system:masters")), (&p.scheduler, "system:kube-scheduler", None), (&p.controller_manager, "system:kube-controller-manager", None)];
        for (c, cn, org) in cases {
            verifies(&p.ca.cert, &c.cert, false).unwrap_or_else(|e| panic!("{cn}: {e}"));
            assert!(verifies(&p.ca.cert, &c.cert, true).is_err(), "{cn} must not serve TLS");
            let (subject, _) = subject_and_spki(&c.cert);
            let mut want = vec![(CN.to_vec(), cn.to_string())];
            want.extend(org.map(|o| (O.to_vec(), o.to_string())));
            assert_eq!(subject, want);
        }
        let (ca_subject, _) = subject_and_spki(&p.ca.cert);
        assert_eq!(ca_subject, [(CN.to_vec(), "gpulab-ca".to_string())]);
        // The front proxy's client is under its own CA only.
        verifies(&p.front_proxy_ca.cert, &p.front_proxy_client.cert, false).unwrap();
        assert!(verifies(&p.ca.cert, &p.front_proxy_client.cert, false).is_err());
        assert_eq!(subject_and_spki(&p.front_proxy_client.cert).0, [(CN.to_vec(), "front-proxy-client".to_string())]);
    }

    /// Each key file holds the key of its certificate; the service-account public key
    /// is the signing key's.
    #[test]
    fn keys_match_their_certificates() {
        let p = Pki::generate().unwrap();
        for c in [&p.ca, &p.apiserver, &p.admin, &p.scheduler, &p.controller_manager, &p.scheduler_serving, &p.controller_manager_serving, &p.front_proxy_ca, &p.front_proxy_client] {
            let (_, spki) = subject_and_spki(&c.cert);
            assert!(c.key.starts_with("-----BEGIN PRIVATE KEY-----"), "PKCS#8");
            assert_eq!(KeyPair::from_pem(&c.key).unwrap().subject_public_key_info(), spki);
        }
        let sa = KeyPair::from_pem(&p.service_account_key).unwrap();
        assert_eq!(sa.public_key_pem(), p.service_account_pub);
        assert!(p.service_account_pub.starts_with("-----BEGIN PUBLIC KEY-----"));
    }

    /// Another cluster's CA does not vouch for this one's certificates.
    #[test]
    fn certificates_are_this_cluster_s_own() {
        let (a, b) = (Pki::generate().unwrap(), Pki::generate().unwrap());
        // Same CA name, other key: the signature does not verify.
        let err = verifies(&b.ca.cert, &a.apiserver.cert, true).unwrap_err();
        assert!(matches!(err, webpki::Error::InvalidSignatureForPublicKey | webpki::Error::UnknownIssuer), "{err:?}");
        assert_ne!(a.service_account_key, b.service_account_key);
        let names: Vec<String> = a.files().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names.len(), 20);
        assert!(names.contains(&"ca.crt".to_string()) && names.contains(&"sa.pub".to_string()));
    }
}
