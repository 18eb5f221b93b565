//! `gpulab cri info`: the runtime's verbose CRI status, printed as `crictl info` prints it
//! (`{"status": {...}, "config": {...}, ...}`: each `info` entry parsed as JSON), so that
//! `scripts/check-runtime.sh` can read the *loaded* CRI config where crictl is not installed.
//!
//! # Layout
//!
//! - [`h2c`]: one unary gRPC call over HTTP/2 on a unix socket (std only; see there why).
//! - [`hpack`]: header compression for that call; [`huffman_table`] its code table.
//! - [`proto`]: the `StatusRequest` / `StatusResponse` messages.

mod h2c;
mod hpack;
mod huffman_table;
mod proto;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::exit::ExitCode;

/// The CRI API versions containerd serves, newest first (1.6/1.7 serve both; 2.x only v1).
const STATUS_PATHS: [&str; 2] = ["/runtime.v1.RuntimeService/Status", "/runtime.v1alpha2.RuntimeService/Status"];

/// gRPC `Unimplemented`: the service is not registered (e.g. the CRI plugin failed to load).
const UNIMPLEMENTED: u32 = 12;

/// Runs `gpulab cri info`: prints the status JSON on stdout, or the reason on stderr.
pub fn info(address: &Path, timeout: Duration) -> ExitCode {
    match status_json(address, timeout) {
        Ok(value) => {
            println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
            ExitCode::Success
        }
        Err(err) => {
            eprintln!("gpulab cri info: {}: {err}", address.display());
            ExitCode::External
        }
    }
}

/// Calls `RuntimeService/Status` (verbose) and shapes the answer like `crictl info`.
pub fn status_json(address: &Path, timeout: Duration) -> Result<Value, h2c::CallError> {
    let request = proto::status_request(true);
    let mut last = None;
    for path in STATUS_PATHS {
        match h2c::unary(address, path, &request, timeout) {
            Ok(bytes) => {
                let resp = proto::decode_status_response(&bytes).map_err(h2c::CallError::Protocol)?;
                return Ok(crictl_shape(&resp));
            }
            // Report the newest API's answer: it names the service a current crictl asks for.
            Err(h2c::CallError::Status { code: UNIMPLEMENTED, message }) => {
                last.get_or_insert(h2c::CallError::Status { code: UNIMPLEMENTED, message });
            }
            Err(other) => return Err(other),
        }
    }
    Err(last.unwrap_or_else(|| h2c::CallError::Protocol("no CRI API version answered".into())))
}

/// crictl's layout: `status` from the RuntimeStatus, then each info entry, parsed as JSON
/// when it is JSON and kept as a string otherwise. Keys sorted, as Go's encoder sorts them.
fn crictl_shape(resp: &proto::StatusResponse) -> Value {
    let conditions: Vec<Value> = resp
        .conditions
        .iter()
        .map(|c| json!({"type": c.kind, "status": c.status, "reason": c.reason, "message": c.message}))
        .collect();
    let mut out = Map::new();
    out.insert("status".into(), json!({ "conditions": conditions }));
    for (k, v) in &resp.info {
        out.insert(k.clone(), serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.clone())));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Info entries that are JSON become objects (as crictl shows them); others stay strings.
    #[test]
    fn shapes_like_crictl() {
        let resp = proto::StatusResponse {
            conditions: vec![proto::RuntimeCondition { kind: "RuntimeReady".into(), status: true, ..Default::default() }],
            info: vec![("config".into(), r#"{"containerd":{"defaultRuntimeName":"runc"}}"#.into()), ("lastCNILoadStatus".into(), "OK".into())],
        };
        let v = crictl_shape(&resp);
        assert_eq!(v["config"]["containerd"]["defaultRuntimeName"], "runc");
        assert_eq!(v["lastCNILoadStatus"], "OK");
        assert_eq!(v["status"]["conditions"][0]["type"], "RuntimeReady");
    }
}
