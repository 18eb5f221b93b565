//! Is a component ready? etcd: `GET /health` on its client port (plain HTTP, loopback).
//! The API server: `GET /readyz` with the admin's client certificate. The scheduler and
//! the controller manager: `GET /healthz` on their secure ports, their serving
//! certificates checked against the cluster CA. Each answer that is not "ready" is kept,
//! so a time-out can say what the component last said.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpStream};
use std::time::Duration;

use kube::Client;

use super::component::Component;
use super::ports::Ports;

/// An HTTP/1.0 `GET path` on 127.0.0.1:port: (status code, body).
fn http_get(port: u16, path: &str) -> Result<(u16, String), String> {
    let addr = (Ipv4Addr::LOCALHOST, port).into();
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(1)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n").map_err(|e| e.to_string())?;
    let mut text = String::new();
    s.read_to_string(&mut text).map_err(|e| e.to_string())?;
    parse_response(&text)
}

/// The status code and body of an HTTP/1.x response.
pub fn parse_response(text: &str) -> Result<(u16, String), String> {
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| format!("not an HTTP response: {text:?}"))?;
    let code = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("no status in {head:?}"))?;
    Ok((code, body.to_string()))
}

/// etcd's `/health` body says healthy.
pub fn etcd_healthy(body: &str) -> bool {
    body.replace(' ', "").contains("\"health\":\"true\"")
}

/// The clients that ask.
pub struct Probes {
    rt: tokio::runtime::Runtime,
    apiserver: Client,
    scheduler: Client,
    controller_manager: Client,
}

impl Probes {
    /// Clients from the admin kubeconfig's text: the API server's URL as written there,
    /// the other two on their ports with the same CA (and the same client certificate,
    /// which they do not need for `/healthz`).
    pub fn new(admin_kubeconfig: &str, ports: &Ports) -> Result<Probes, String> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| format!("tokio: {e}"))?;
        let kc = kube::config::Kubeconfig::from_yaml(admin_kubeconfig).map_err(|e| format!("the admin kubeconfig: {e}"))?;
        let mut config = rt
            .block_on(kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default()))
            .map_err(|e| format!("the admin kubeconfig: {e}"))?;
        config.connect_timeout = Some(Duration::from_secs(1));
        config.read_timeout = Some(Duration::from_secs(3));
        let client_on = |port: Option<u16>| {
            let mut c = config.clone();
            if let Some(port) = port {
                c.cluster_url = format!("https://127.0.0.1:{port}").parse().map_err(|e| format!("{e}"))?;
            }
            let _guard = rt.enter();
            Client::try_from(c).map_err(|e| format!("kube client: {e}"))
        };
        Ok(Probes {
            apiserver: client_on(None)?,
            scheduler: client_on(Some(ports.scheduler))?,
            controller_manager: client_on(Some(ports.controller_manager))?,
            rt,
        })
    }

    /// `Ok(())` when `c` answers ready; otherwise what it answered.
    pub fn check(&self, c: Component, ports: &Ports) -> Result<(), String> {
        let (client, path) = match c {
            Component::Etcd => {
                let (code, body) = http_get(ports.etcd_client, "/health")?;
                return if code == 200 && etcd_healthy(&body) { Ok(()) } else { Err(format!("/health: {code} {}", body.trim())) };
            }
            Component::KubeApiserver => (&self.apiserver, "/readyz"),
            Component::KubeScheduler => (&self.scheduler, "/healthz"),
            Component::KubeControllerManager => (&self.controller_manager, "/healthz"),
        };
        let req = http::Request::get(path).body(Vec::new()).map_err(|e| e.to_string())?;
        match self.rt.block_on(client.request_text(req)) {
            Ok(body) if body.trim() == "ok" => Ok(()),
            Ok(body) => Err(format!("{path}: {}", body.trim())),
            Err(kube::Error::Api(s)) => Err(format!("{path}: {} {}", s.code, s.message.trim())),
            Err(e) => Err(format!("{path}: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// etcd 3.6 answers `{"health":"true","reason":""}`.
    #[test]
    fn etcd_health_body() {
        let (code, body) = parse_response("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n{\"health\":\"true\",\"reason\":\"\"}").unwrap();
        assert_eq!(code, 200);
        assert!(etcd_healthy(&body));
        assert!(!etcd_healthy("{\"health\":\"false\",\"reason\":\"RAFT NO LEADER\"}"));
        assert!(parse_response("garbage").is_err());
    }
}
