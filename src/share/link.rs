//! The share link: the learner's work in the URL hash as
//! `#gpulab-v1=<base64url of deflate-raw of the compact envelope>`. The hash never
//! reaches a server. The version is in the key, so a link from a newer lab is
//! recognised and refused by name instead of being misread; a hash that is not ours
//! (a host page's own anchor) is left alone.

use crate::share::envelope::{self, ImportError};

/// The hash key's prefix; the format version follows it (`gpulab-v1=`).
pub const PREFIX: &str = "gpulab-v";
/// This lab's link version.
pub const VERSION: u64 = 1;
/// The longest link payload the lab makes or reads (characters after `=`). Links are
/// pasted into course chats and LMS text fields, which cut long URLs.
pub const MAX_PAYLOAD: usize = 4000;

/// Why a share link was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkError {
    /// `gpulab-vN=` with N newer than this lab.
    FutureVersion(u64),
    /// `gpulab-v…` but not `gpulab-v<number>=<payload>`.
    Malformed,
    /// Longer than [`MAX_PAYLOAD`].
    TooLong(usize),
    /// Not base64url (a character is wrong, or the length cannot be).
    BadEncoding,
    /// The compressed data ends early or is damaged (a truncated or edited link).
    Damaged,
    /// It decompressed, but its content is not valid work.
    Content(ImportError),
}

/// The payload of a share link in `hash` (with or without its `#`): `None` when the
/// hash is not a share link at all.
pub fn payload(hash: &str) -> Option<Result<Vec<u8>, LinkError>> {
    let h = hash.strip_prefix('#').unwrap_or(hash);
    let rest = h.strip_prefix(PREFIX)?;
    let Some((version, data)) = rest.split_once('=') else {
        return Some(Err(LinkError::Malformed));
    };
    let Ok(version) = version.parse::<u64>() else {
        return Some(Err(LinkError::Malformed));
    };
    Some(if version > VERSION {
        Err(LinkError::FutureVersion(version))
    } else if version != VERSION {
        Err(LinkError::Malformed)
    } else if data.len() > MAX_PAYLOAD {
        Err(LinkError::TooLong(data.len()))
    } else {
        base64url_decode(data).ok_or(LinkError::BadEncoding)
    })
}

/// The hash (`#gpulab-v1=…`) for compressed bytes; `Err(length)` when it is over
/// [`MAX_PAYLOAD`] (the UI then offers the progress file instead).
pub fn hash(compressed: &[u8]) -> Result<String, usize> {
    let data = base64url_encode(compressed);
    if data.len() > MAX_PAYLOAD {
        return Err(data.len());
    }
    Ok(format!("#{PREFIX}{VERSION}={data}"))
}

/// The work in a link's decompressed bytes.
pub fn content(bytes: &[u8]) -> Result<crate::state::Work, LinkError> {
    let text = std::str::from_utf8(bytes).map_err(|_| LinkError::Damaged)?;
    envelope::import(text).map_err(LinkError::Content)
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// RFC 4648 §5 base64url without padding.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk.first().copied().unwrap_or(0), chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            let idx = ((n >> (18 - 6 * i)) & 63) as usize;
            out.push(char::from(ALPHABET.get(idx).copied().unwrap_or(b'A')));
        }
    }
    out
}

/// Decodes base64url without padding; `None` on a bad character or impossible length.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|a| *a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be zero in a canonical encoding.
    (acc == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// base64url round-trips every length and refuses foreign alphabets and lengths.
    #[test]
    fn base64url_round_trips() {
        for n in 0..40u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
            let text = base64url_encode(&bytes);
            assert!(!text.contains(['+', '/', '=']), "{text}");
            assert_eq!(base64url_decode(&text), Some(bytes), "{n}");
        }
        assert_eq!(base64url_encode(b"hello"), "aGVsbG8");
        for bad in ["a", "ab+c", "ab/c", "aGVsbG9=", "aGVsbG9"] {
            assert_eq!(base64url_decode(bad), None, "{bad}");
        }
    }

    /// What a hash is: not ours (None), ours and readable, or ours and refused by name.
    #[test]
    fn reads_hashes() {
        let long = format!("#gpulab-v1={}", "A".repeat(MAX_PAYLOAD + 4));
        let cases: Vec<(&str, Option<Result<Vec<u8>, LinkError>>)> = vec![
            ("", None),
            ("#section-3", None),
            ("#gpulab", None),
            ("#gpulab-v1=aGVsbG8", Some(Ok(b"hello".to_vec()))),
            ("gpulab-v1=aGVsbG8", Some(Ok(b"hello".to_vec()))),
            ("#gpulab-v2=aGVsbG8", Some(Err(LinkError::FutureVersion(2)))),
            ("#gpulab-v0=aGVsbG8", Some(Err(LinkError::Malformed))),
            ("#gpulab-vx=aGVsbG8", Some(Err(LinkError::Malformed))),
            ("#gpulab-v1", Some(Err(LinkError::Malformed))),
            ("#gpulab-v1=aGVs*G8", Some(Err(LinkError::BadEncoding))),
            (&long, Some(Err(LinkError::TooLong(MAX_PAYLOAD + 4)))),
        ];
        for (h, expected) in cases {
            assert_eq!(payload(h), expected, "{h}");
        }
    }

    /// A link is made only up to the limit, and what it carries is checked as a file is.
    #[test]
    fn makes_links_within_the_limit_and_checks_content() {
        assert_eq!(hash(b"hello"), Ok("#gpulab-v1=aGVsbG8".to_string()));
        let too_big = vec![0u8; MAX_PAYLOAD];
        assert_eq!(hash(&too_big), Err(MAX_PAYLOAD.div_ceil(3) * 4 - 2));
        assert_eq!(content(&[0xff, 0xfe]), Err(LinkError::Damaged));
        assert_eq!(content(br#"{"name":"x"}"#), Err(LinkError::Content(ImportError::Foreign("no format field".into()))));
        let w = crate::state::Work::default();
        assert_eq!(content(envelope::compact(&w).unwrap().as_bytes()), Ok(w));
    }
}
