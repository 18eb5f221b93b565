//! HPACK (RFC 7541), just enough for one gRPC call: the request headers are encoded as
//! literals without indexing (no Huffman, no dynamic table), and the response headers and
//! trailers are decoded in full — static and dynamic table, Huffman strings — because
//! grpc-go indexes and Huffman-codes what it sends.

use super::huffman_table::{CODES, LENGTHS};

/// Encodes `headers` as "literal header field without indexing — new name".
pub fn encode(headers: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, value) in headers {
        out.push(0x00);
        encode_string(&mut out, name.as_bytes());
        encode_string(&mut out, value.as_bytes());
    }
    out
}

fn encode_string(out: &mut Vec<u8>, s: &[u8]) {
    encode_int(out, 0x00, 7, s.len());
    out.extend_from_slice(s);
}

fn encode_int(out: &mut Vec<u8>, first: u8, prefix: u32, mut n: usize) {
    let max = (1usize << prefix) - 1;
    if n < max {
        out.push(first | n as u8);
        return;
    }
    out.push(first | max as u8);
    n -= max;
    while n >= 128 {
        out.push((n % 128) as u8 | 0x80);
        n /= 128;
    }
    out.push(n as u8);
}

/// RFC 7541 Appendix A.
const STATIC: [(&str, &str); 61] = [
    (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"),
    (":path", "/index.html"), (":scheme", "http"), (":scheme", "https"), (":status", "200"),
    (":status", "204"), (":status", "206"), (":status", "304"), (":status", "400"),
    (":status", "404"), (":status", "500"), ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""),
    ("accept", ""), ("access-control-allow-origin", ""), ("age", ""), ("allow", ""),
    ("authorization", ""), ("cache-control", ""), ("content-disposition", ""),
    ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
    ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""),
    ("date", ""), ("etag", ""), ("expect", ""), ("expires", ""), ("from", ""), ("host", ""),
    ("if-match", ""), ("if-modified-since", ""), ("if-none-match", ""), ("if-range", ""),
    ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""), ("location", ""),
    ("max-forwards", ""), ("proxy-authenticate", ""), ("proxy-authorization", ""),
    ("range", ""), ("referer", ""), ("refresh", ""), ("retry-after", ""), ("server", ""),
    ("set-cookie", ""), ("strict-transport-security", ""), ("transfer-encoding", ""),
    ("user-agent", ""), ("vary", ""), ("via", ""), ("www-authenticate", ""),
];

/// The decoder's state: the dynamic table lives for the whole connection.
#[derive(Default)]
pub struct Decoder {
    /// Newest first, as HPACK indexes it.
    dynamic: std::collections::VecDeque<(String, String)>,
    max_size: usize,
}

impl Decoder {
    pub fn new() -> Self {
        Decoder { dynamic: Default::default(), max_size: 4096 }
    }

    /// Decodes one complete header block.
    pub fn decode(&mut self, block: &[u8]) -> Result<Vec<(String, String)>, String> {
        let mut out = Vec::new();
        let mut r = Reader { buf: block, pos: 0 };
        while let Some(b) = r.peek() {
            if b & 0x80 != 0 {
                let i = r.int(7)?;
                out.push(self.entry(i)?);
            } else if b & 0xc0 == 0x40 {
                let (name, value) = self.literal(&mut r, 6)?;
                self.insert(name.clone(), value.clone());
                out.push((name, value));
            } else if b & 0xe0 == 0x20 {
                self.max_size = r.int(5)?;
                self.evict();
            } else {
                out.push(self.literal(&mut r, 4)?);
            }
        }
        Ok(out)
    }

    fn literal(&self, r: &mut Reader, prefix: u32) -> Result<(String, String), String> {
        let i = r.int(prefix)?;
        let name = if i == 0 { r.string()? } else { self.entry(i)?.0 };
        Ok((name, r.string()?))
    }

    fn entry(&self, i: usize) -> Result<(String, String), String> {
        if i == 0 {
            return Err("hpack: index 0".into());
        }
        if let Some((n, v)) = STATIC.get(i - 1) {
            return Ok((n.to_string(), v.to_string()));
        }
        self.dynamic.get(i - 1 - STATIC.len()).cloned().ok_or_else(|| format!("hpack: bad index {i}"))
    }

    fn insert(&mut self, name: String, value: String) {
        self.dynamic.push_front((name, value));
        self.evict();
    }

    fn evict(&mut self) {
        while self.dynamic.iter().map(|(n, v)| n.len() + v.len() + 32).sum::<usize>() > self.max_size {
            self.dynamic.pop_back();
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    fn byte(&mut self) -> Result<u8, String> {
        let b = self.peek().ok_or("hpack: truncated block")?;
        self.pos += 1;
        Ok(b)
    }

    fn int(&mut self, prefix: u32) -> Result<usize, String> {
        let max = (1usize << prefix) - 1;
        let mut n = (self.byte()? as usize) & max;
        if n < max {
            return Ok(n);
        }
        let mut shift = 0;
        loop {
            let b = self.byte()?;
            n += ((b & 0x7f) as usize) << shift;
            shift += 7;
            if b & 0x80 == 0 || shift > 28 {
                return Ok(n);
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let huffman = self.peek().ok_or("hpack: truncated string")? & 0x80 != 0;
        let len = self.int(7)?;
        let raw = self.buf.get(self.pos..self.pos + len).ok_or("hpack: truncated string")?;
        self.pos += len;
        let bytes = if huffman { huffman_decode(raw)? } else { raw.to_vec() };
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Bit by bit against the code table: slow, but header blocks here are a few dozen bytes.
fn huffman_decode(raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let (mut code, mut len) = (0u32, 0u8);
    for byte in raw {
        for bit in (0..8).rev() {
            code = (code << 1) | u32::from((byte >> bit) & 1);
            len += 1;
            if let Some(sym) = (0..256).find(|&s| LENGTHS[s] == len && CODES[s] == code) {
                out.push(sym as u8);
                code = 0;
                len = 0;
            } else if len > 30 {
                return Err("hpack: bad huffman code".into());
            }
        }
    }
    // What is left must be padding: fewer than 8 bits, all ones (a prefix of EOS).
    if len >= 8 || code != (1u32 << len) - 1 {
        return Err("hpack: bad huffman padding".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7541 C.4.1: a Huffman-coded request, with incremental indexing, decodes and
    /// lands in the dynamic table, so the next block can refer to it (C.4.2).
    #[test]
    fn decodes_rfc_examples_with_huffman_and_dynamic_table() {
        let hex = |s: &str| (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect::<Vec<u8>>();
        let mut d = Decoder::new();
        let first = d.decode(&hex("828684418cf1e3c2e5f23a6ba0ab90f4ff")).unwrap();
        assert_eq!(first[3], (":authority".to_string(), "www.example.com".to_string()));
        let second = d.decode(&hex("828684be5886a8eb10649cbf")).unwrap();
        assert_eq!(second[3], (":authority".to_string(), "www.example.com".to_string()));
        assert_eq!(second[4], ("cache-control".to_string(), "no-cache".to_string()));
    }

    /// What we encode, we decode back (literal, no Huffman), including long values.
    #[test]
    fn round_trips_literals() {
        let long = "x".repeat(300);
        let headers = [(":path", "/runtime.v1.RuntimeService/Status"), ("te", "trailers"), ("long", long.as_str())];
        let back = Decoder::new().decode(&encode(&headers)).unwrap();
        let expect: Vec<(String, String)> = headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        assert_eq!(back, expect);
    }
}
