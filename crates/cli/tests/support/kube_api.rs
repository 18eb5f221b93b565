//! A kube-rs client for the real-control-plane tests: raw JSON requests and polling.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The admin client of one control plane.
pub struct Api {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
}

impl Api {
    pub fn new(kubeconfig: &Path) -> Api {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let kc = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
        let config = rt.block_on(kube::Config::from_custom_kubeconfig(kc, &Default::default())).unwrap();
        let client = {
            let _g = rt.enter();
            kube::Client::try_from(config).unwrap()
        };
        Api { rt, client }
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, (u16, String)> {
        let kind = if method == "PATCH" { "application/merge-patch+json" } else { "application/json" };
        let req = http::Request::builder().method(method).uri(path).header("content-type", kind);
        let req = req.body(body.map(|b| b.to_string().into_bytes()).unwrap_or_default()).unwrap();
        self.rt.block_on(self.client.request::<Value>(req)).map_err(|e| match e {
            kube::Error::Api(s) => (s.code, s.message.clone()),
            other => (0, other.to_string()),
        })
    }

    pub fn get(&self, path: &str) -> Value {
        self.call("GET", path, None).unwrap_or_else(|e| panic!("GET {path}: {e:?}"))
    }

    /// Polls `GET path` until `done` holds (30 s at most).
    pub fn wait_for(&self, what: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match self.call("GET", path, None) {
                Ok(v) if done(&v) => return v,
                last => assert!(Instant::now() < deadline, "{what}: not within 30 s (last: {last:?})"),
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

