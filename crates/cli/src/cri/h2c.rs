//! One unary gRPC call over HTTP/2 in cleartext on a unix socket, synchronous, with the
//! standard library only.
//!
//! Why not tonic (or the `k8s-cri` crate): the companion needs exactly one call
//! (`RuntimeService/Status`), and tonic brings tokio, hyper, tower and prost with it — a
//! large build for a ~250-line job. This is that job: the connection preface, SETTINGS
//! (and their ACK), one HEADERS + DATA request, and reading the response HEADERS, DATA
//! and trailers until the stream ends. Flow control is opened wide up front so the server
//! never waits for a WINDOW_UPDATE.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use super::hpack;

const DATA: u8 = 0;
const HEADERS: u8 = 1;
const RST_STREAM: u8 = 3;
const SETTINGS: u8 = 4;
const PING: u8 = 6;
const GOAWAY: u8 = 7;
const WINDOW_UPDATE: u8 = 8;
const CONTINUATION: u8 = 9;

const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;

/// Our receive window, for the connection and the stream (the config JSON is a few KB).
const WINDOW: u32 = 1 << 24;

/// Why a call did not return a message.
#[derive(Debug)]
pub enum CallError {
    /// The socket could not be reached (no file, refused, permission denied).
    Connect(std::io::Error),
    /// The peer does not speak HTTP/2 gRPC as expected.
    Protocol(String),
    /// The server answered with a non-OK grpc-status.
    Status { code: u32, message: String },
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Connect(e) => write!(f, "connect: {e}"),
            CallError::Protocol(m) => write!(f, "not a gRPC answer: {m}"),
            CallError::Status { code, message } => write!(f, "rpc error: code = {} desc = {message}", code_name(*code)),
        }
    }
}

/// gRPC status code names, as grpc-go prints them.
fn code_name(code: u32) -> String {
    const NAMES: [&str; 17] = [
        "OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
        "PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange",
        "Unimplemented", "Internal", "Unavailable", "DataLoss", "Unauthenticated",
    ];
    NAMES.get(code as usize).map_or_else(|| code.to_string(), |n| n.to_string())
}

/// Calls `path` (e.g. `/runtime.v1.RuntimeService/Status`) with the protobuf `request`
/// and returns the protobuf response message.
pub fn unary(socket: &Path, path: &str, request: &[u8], timeout: Duration) -> Result<Vec<u8>, CallError> {
    let mut stream = UnixStream::connect(socket).map_err(CallError::Connect)?;
    stream.set_read_timeout(Some(timeout)).map_err(CallError::Connect)?;
    stream.set_write_timeout(Some(timeout)).map_err(CallError::Connect)?;
    let io = |e: std::io::Error| CallError::Protocol(e.to_string());

    let mut out = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    // SETTINGS_INITIAL_WINDOW_SIZE (4) for streams; the connection window by WINDOW_UPDATE.
    let mut settings = vec![0, 4];
    settings.extend_from_slice(&WINDOW.to_be_bytes());
    frame(&mut out, SETTINGS, 0, 0, &settings);
    frame(&mut out, WINDOW_UPDATE, 0, 0, &(WINDOW - 65_535).to_be_bytes());
    let headers = hpack::encode(&[
        (":method", "POST"),
        (":scheme", "http"),
        (":path", path),
        (":authority", "localhost"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
        ("user-agent", "gpulab-cri"),
    ]);
    frame(&mut out, HEADERS, END_HEADERS, 1, &headers);
    let mut message = vec![0u8];
    message.extend_from_slice(&(request.len() as u32).to_be_bytes());
    message.extend_from_slice(request);
    frame(&mut out, DATA, END_STREAM, 1, &message);
    stream.write_all(&out).map_err(io)?;

    let mut decoder = hpack::Decoder::new();
    let mut block = Vec::new();
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut body = Vec::new();
    loop {
        let (kind, flags, id, payload) = read_frame(&mut stream).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => CallError::Protocol("connection closed".into()),
            _ => io(e),
        })?;
        match kind {
            SETTINGS if flags & ACK == 0 => {
                let mut ack = Vec::new();
                frame(&mut ack, SETTINGS, ACK, 0, &[]);
                stream.write_all(&ack).map_err(io)?;
            }
            PING if flags & ACK == 0 => {
                let mut pong = Vec::new();
                frame(&mut pong, PING, ACK, 0, &payload);
                stream.write_all(&pong).map_err(io)?;
            }
            GOAWAY => {
                let debug = String::from_utf8_lossy(payload.get(8..).unwrap_or_default()).into_owned();
                return Err(CallError::Protocol(format!("GOAWAY {debug}")));
            }
            RST_STREAM if id == 1 => return Err(CallError::Protocol("stream reset by server".into())),
            HEADERS | CONTINUATION if id == 1 => {
                let fragment = if kind == HEADERS { header_fragment(flags, &payload)? } else { &payload[..] };
                block.extend_from_slice(fragment);
                if flags & END_HEADERS != 0 {
                    fields.extend(decoder.decode(&block).map_err(CallError::Protocol)?);
                    block.clear();
                }
                if flags & END_STREAM != 0 && flags & END_HEADERS != 0 {
                    break;
                }
            }
            DATA if id == 1 => {
                body.extend_from_slice(unpad(flags, &payload)?);
                if flags & END_STREAM != 0 {
                    break;
                }
            }
            _ => {}
        }
    }

    let get = |name: &str| fields.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    if get(":status").as_deref() != Some("200") {
        return Err(CallError::Protocol(format!("HTTP status {}", get(":status").unwrap_or_default())));
    }
    let code = get("grpc-status").and_then(|s| s.parse::<u32>().ok());
    match code {
        Some(0) => {}
        Some(code) => return Err(CallError::Status { code, message: percent_decode(&get("grpc-message").unwrap_or_default()) }),
        None => return Err(CallError::Protocol("no grpc-status".into())),
    }
    // One length-prefixed message: flag byte (0 = not compressed), u32 length, bytes.
    let len = body.get(1..5).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize);
    match (body.first(), len) {
        (Some(0), Some(len)) if body.len() >= 5 + len => Ok(body[5..5 + len].to_vec()),
        _ => Err(CallError::Protocol("malformed gRPC message".into())),
    }
}

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, id: u32, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(payload);
}

fn read_frame(stream: &mut UnixStream) -> std::io::Result<(u8, u8, u32, Vec<u8>)> {
    let mut head = [0u8; 9];
    stream.read_exact(&mut head)?;
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    if len > 1 << 24 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "frame too large (not HTTP/2?)"));
    }
    let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload)?;
    Ok((head[3], head[4], id, payload))
}

fn unpad(flags: u8, payload: &[u8]) -> Result<&[u8], CallError> {
    if flags & PADDED == 0 {
        return Ok(payload);
    }
    let pad = *payload.first().ok_or_else(|| CallError::Protocol("bad padding".into()))? as usize;
    payload.get(1..payload.len().saturating_sub(pad)).ok_or_else(|| CallError::Protocol("bad padding".into()))
}

fn header_fragment(flags: u8, payload: &[u8]) -> Result<&[u8], CallError> {
    let rest = unpad(flags, payload)?;
    if flags & PRIORITY != 0 {
        return rest.get(5..).ok_or_else(|| CallError::Protocol("bad priority".into()));
    }
    Ok(rest)
}

/// grpc-message is percent-encoded (grpc-go encodes bytes outside printable ASCII and '%').
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let Some(v) = s.get(i + 1..i + 3).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// grpc-go's percent-encoding of grpc-message is undone; bad escapes stay as written.
    #[test]
    fn percent_decodes_grpc_message() {
        for (input, expect) in [("unknown service runtime.v1.RuntimeService", "unknown service runtime.v1.RuntimeService"), ("a%20b%zz", "a b%zz")] {
            assert_eq!(percent_decode(input), expect);
        }
    }
}
