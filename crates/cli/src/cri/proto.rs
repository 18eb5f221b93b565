//! The two CRI messages of `RuntimeService/Status` (k8s.io/cri-api `api.proto`), encoded
//! and decoded by hand: `StatusRequest { bool verbose = 1; }` and
//! `StatusResponse { RuntimeStatus status = 1; map<string,string> info = 2; }` with
//! `RuntimeStatus { repeated RuntimeCondition conditions = 1; }` and
//! `RuntimeCondition { string type = 1; bool status = 2; string reason = 3; string message = 4; }`.
//! Unknown fields are skipped, as protobuf requires.

/// `StatusRequest { verbose: true }`.
pub fn status_request(verbose: bool) -> Vec<u8> {
    if verbose {
        vec![0x08, 0x01]
    } else {
        Vec::new()
    }
}

/// One runtime condition (e.g. `RuntimeReady`, `NetworkReady`).
#[derive(Debug, Default, PartialEq)]
pub struct RuntimeCondition {
    pub kind: String,
    pub status: bool,
    pub reason: String,
    pub message: String,
}

/// The decoded `StatusResponse`; `info` keeps the server's order.
#[derive(Debug, Default, PartialEq)]
pub struct StatusResponse {
    pub conditions: Vec<RuntimeCondition>,
    pub info: Vec<(String, String)>,
}

pub fn decode_status_response(buf: &[u8]) -> Result<StatusResponse, String> {
    let mut resp = StatusResponse::default();
    for (field, value) in fields(buf)? {
        match (field, value) {
            (1, Value::Bytes(status)) => {
                for (f, v) in fields(status)? {
                    if let (1, Value::Bytes(cond)) = (f, v) {
                        resp.conditions.push(decode_condition(cond)?);
                    }
                }
            }
            (2, Value::Bytes(entry)) => {
                let (mut k, mut v) = (String::new(), String::new());
                for (f, val) in fields(entry)? {
                    match (f, val) {
                        (1, Value::Bytes(b)) => k = String::from_utf8_lossy(b).into_owned(),
                        (2, Value::Bytes(b)) => v = String::from_utf8_lossy(b).into_owned(),
                        _ => {}
                    }
                }
                resp.info.push((k, v));
            }
            _ => {}
        }
    }
    Ok(resp)
}

fn decode_condition(buf: &[u8]) -> Result<RuntimeCondition, String> {
    let mut c = RuntimeCondition::default();
    for (f, v) in fields(buf)? {
        match (f, v) {
            (1, Value::Bytes(b)) => c.kind = String::from_utf8_lossy(b).into_owned(),
            (2, Value::Varint(n)) => c.status = n != 0,
            (3, Value::Bytes(b)) => c.reason = String::from_utf8_lossy(b).into_owned(),
            (4, Value::Bytes(b)) => c.message = String::from_utf8_lossy(b).into_owned(),
            _ => {}
        }
    }
    Ok(c)
}

enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

/// The (field number, value) pairs of one message.
fn fields(buf: &[u8]) -> Result<Vec<(u64, Value<'_>)>, String> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < buf.len() {
        let key = varint(buf, &mut pos)?;
        let value = match key & 7 {
            0 => Value::Varint(varint(buf, &mut pos)?),
            1 => skip(buf, &mut pos, 8)?,
            2 => {
                let len = varint(buf, &mut pos)? as usize;
                let bytes = buf.get(pos..pos.saturating_add(len)).ok_or("protobuf: truncated field")?;
                pos += len;
                Value::Bytes(bytes)
            }
            5 => skip(buf, &mut pos, 4)?,
            w => return Err(format!("protobuf: unsupported wire type {w}")),
        };
        out.push((key >> 3, value));
    }
    Ok(out)
}

fn skip<'a>(buf: &'a [u8], pos: &mut usize, n: usize) -> Result<Value<'a>, String> {
    buf.get(*pos..*pos + n).ok_or("protobuf: truncated fixed field")?;
    *pos += n;
    Ok(Value::Fixed)
}

fn varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or("protobuf: truncated varint")?;
        *pos += 1;
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(n);
        }
    }
    Err("protobuf: varint too long".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A response built field by field decodes to its conditions and info map; a
    /// truncated one is an error, not a panic.
    #[test]
    fn decodes_status_response() {
        let cond = [b"\x0a\x0cRuntimeReady".as_slice(), b"\x10\x01"].concat();
        let status = [vec![0x0a, cond.len() as u8], cond].concat();
        let entry = [b"\x0a\x06config".as_slice(), b"\x12\x02{}"].concat();
        let msg = [vec![0x0a, status.len() as u8], status, vec![0x12, entry.len() as u8], entry].concat();
        let resp = decode_status_response(&msg).unwrap();
        assert_eq!(resp.conditions, vec![RuntimeCondition { kind: "RuntimeReady".into(), status: true, ..Default::default() }]);
        assert_eq!(resp.info, vec![("config".to_string(), "{}".to_string())]);
        assert!(decode_status_response(&msg[..msg.len() - 1]).is_err());
    }
}
