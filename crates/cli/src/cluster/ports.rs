//! The loopback ports the control plane listens on: picked free by the kernel (bind
//! `127.0.0.1:0`, read the port, let go), and checked free again just before the start
//! so that a taken port is a clear message naming who wanted it.

use std::net::{Ipv4Addr, TcpListener};

use serde::{Deserialize, Serialize};

/// Every port of one control plane (all on 127.0.0.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ports {
    pub etcd_client: u16,
    pub etcd_peer: u16,
    pub apiserver: u16,
    pub scheduler: u16,
    pub controller_manager: u16,
}

impl Ports {
    /// Each port with what listens on it.
    pub fn named(&self) -> [(&'static str, u16); 5] {
        [
            ("etcd's client port", self.etcd_client),
            ("etcd's peer port", self.etcd_peer),
            ("kube-apiserver's secure port", self.apiserver),
            ("kube-scheduler's secure port", self.scheduler),
            ("kube-controller-manager's secure port", self.controller_manager),
        ]
    }

    /// Five distinct ports the kernel says are free now (all bound at once, so no two
    /// are the same, then released).
    pub fn pick() -> Result<Ports, String> {
        let listeners: Vec<TcpListener> = (0..5).map(|_| TcpListener::bind((Ipv4Addr::LOCALHOST, 0))).collect::<Result<_, _>>().map_err(|e| format!("no free port on 127.0.0.1: {e}"))?;
        let p: Vec<u16> = listeners.iter().map(|l| l.local_addr().map(|a| a.port())).collect::<Result<_, _>>().map_err(|e| e.to_string())?;
        match p[..] {
            [etcd_client, etcd_peer, apiserver, scheduler, controller_manager] => Ok(Ports { etcd_client, etcd_peer, apiserver, scheduler, controller_manager }),
            _ => Err("could not pick five ports".to_string()),
        }
    }

    /// Free ports, picked and checked; picked again, up to `tries` times, when another
    /// process took one between the pick and the check (clusters started side by side,
    /// tests in parallel). The last check's error otherwise.
    pub fn pick_free(tries: usize) -> Result<Ports, String> {
        let mut last = String::from("no attempt to pick ports");
        for _ in 0..tries.max(1) {
            let ports = Ports::pick()?;
            match ports.check_free() {
                Ok(()) => return Ok(ports),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Every port can be bound on 127.0.0.1 right now, and no two are equal.
    pub fn check_free(&self) -> Result<(), String> {
        let named = self.named();
        for (i, (who, port)) in named.iter().enumerate() {
            if let Some((other, _)) = named[..i].iter().find(|(_, p)| p == port) {
                return Err(format!("port {port} is given twice: as {other} and as {who}"));
            }
            if let Err(e) = TcpListener::bind((Ipv4Addr::LOCALHOST, *port)) {
                return Err(format!("port 127.0.0.1:{port} ({who}) is taken: {e}; stop what listens there (`ss -ltnp 'sport = :{port}'` shows it) or let gpulab pick free ports"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Picked ports are distinct and free (picked again when one was taken in between); a
    /// taken one is named with its user.
    #[test]
    fn picked_ports_are_free_and_a_taken_one_is_named() {
        let p = Ports::pick_free(5).unwrap();
        let held = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let taken = Ports { scheduler: held.local_addr().unwrap().port(), ..p };
        let err = taken.check_free().unwrap_err();
        assert!(err.contains(&format!("port 127.0.0.1:{} (kube-scheduler's secure port) is taken", taken.scheduler)), "{err}");
        let twice = Ports { etcd_peer: p.etcd_client, ..p };
        assert!(twice.check_free().unwrap_err().contains("given twice: as etcd's client port and as etcd's peer port"));
    }
}
