//! Go's `time.ParseDuration` and `time.Duration.String`, byte for byte (go1.19's and
//! go1.26's `time/format.go` and `time/time.go` agree on both): the duration fields
//! of containerd's plugins (`Interval`, `ScheduleDelay`, … — Go types with
//! `UnmarshalText`/`MarshalText`, or `time.Duration` itself) parse what a config
//! writes with the first and print the result with the second, so `"1.5h"` dumps as
//! `"1h30m0s"` and `"1"` fails as `time: missing unit in duration "1"`.

/// Nanoseconds per unit, as `time`'s `unitMap` has them (`µs` is U+00B5, `μs` U+03BC).
fn unit(u: &[u8]) -> Option<u64> {
    Some(match u {
        b"ns" => 1,
        b"us" | [0xc2, 0xb5, b's'] | [0xce, 0xbc, b's'] => 1_000,
        b"ms" => 1_000_000,
        b"s" => 1_000_000_000,
        b"m" => 60_000_000_000,
        b"h" => 3_600_000_000_000,
        _ => return None,
    })
}

const LIMIT: u64 = 1 << 63;

/// `time`'s `quote`: `"`-quoted, `"` and `\` escaped, every byte of a non-ASCII or
/// control character as `\xNN` (U+FFFD, the replacement character, as its one byte
/// when it stands for an invalid byte).
fn quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    // Walk the bytes as Go's `range` over a string does: a valid UTF-8 sequence is one
    // character, an invalid byte is U+FFFD of width 1.
    let mut i = 0;
    while i < s.len() {
        let b = s.get(i).copied().unwrap_or(0);
        if b < 0x80 {
            if b < b' ' {
                out.push_str(&format!("\\x{b:02x}"));
            } else {
                if b == b'"' || b == b'\\' {
                    out.push('\\');
                }
                out.push(char::from(b));
            }
            i += 1;
            continue;
        }
        let width = match std::str::from_utf8(s.get(i..(i + 4).min(s.len())).unwrap_or(&[])) {
            Ok(t) => t.chars().next().map_or(1, char::len_utf8),
            Err(e) if e.valid_up_to() > 0 => {
                let ok = s.get(i..i + e.valid_up_to()).and_then(|p| std::str::from_utf8(p).ok());
                ok.and_then(|t| t.chars().next()).map_or(1, char::len_utf8)
            }
            Err(_) => 1,
        };
        for j in 0..width {
            out.push_str(&format!("\\x{:02x}", s.get(i + j).copied().unwrap_or(0)));
        }
        i += width;
    }
    out.push('"');
    out
}

fn error(message: &str, orig: &[u8]) -> String {
    format!("time: {message} {}", quote(orig))
}

/// `time.ParseDuration(s)`: the nanoseconds, or the error's text (`time: invalid
/// duration "x"`, `time: missing unit in duration "1"`, `time: unknown unit "-" in
/// duration "…"`).
pub fn parse(text: &str) -> Result<i64, String> {
    let orig = text.as_bytes();
    let mut s = orig;
    let mut neg = false;
    if let Some((&c, rest)) = s.split_first() {
        if c == b'-' || c == b'+' {
            neg = c == b'-';
            s = rest;
        }
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(error("invalid duration", orig));
    }
    let mut d: u64 = 0;
    while let Some(&first) = s.first() {
        if !(first == b'.' || first.is_ascii_digit()) {
            return Err(error("invalid duration", orig));
        }
        // [0-9]*
        let mut v: u64 = 0;
        let mut i = 0;
        while let Some(&c) = s.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            if v > LIMIT / 10 {
                return Err(error("invalid duration", orig));
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return Err(error("invalid duration", orig));
            }
            i += 1;
        }
        let pre = i > 0;
        s = s.get(i..).unwrap_or(&[]);
        // (\.[0-9]*)?
        let (mut f, mut scale, mut post) = (0u64, 1f64, false);
        if s.first() == Some(&b'.') {
            s = s.get(1..).unwrap_or(&[]);
            let mut i = 0;
            let mut overflow = false;
            while let Some(&c) = s.get(i) {
                if !c.is_ascii_digit() {
                    break;
                }
                i += 1;
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            post = i > 0;
            s = s.get(i..).unwrap_or(&[]);
        }
        if !pre && !post {
            return Err(error("invalid duration", orig));
        }
        let i = s.iter().position(|c| *c == b'.' || c.is_ascii_digit()).unwrap_or(s.len());
        if i == 0 {
            return Err(error("missing unit in duration", orig));
        }
        let u = s.get(..i).unwrap_or(&[]);
        s = s.get(i..).unwrap_or(&[]);
        let Some(unit) = unit(u) else {
            return Err(format!("time: unknown unit {} in duration {}", quote(u), quote(orig)));
        };
        if v > LIMIT / unit {
            return Err(error("invalid duration", orig));
        }
        v *= unit;
        if f > 0 {
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let add = (f as f64 * (unit as f64 / scale)) as u64;
            v = v.saturating_add(add);
            if v > LIMIT {
                return Err(error("invalid duration", orig));
            }
        }
        d = d.saturating_add(v);
        if d > LIMIT {
            return Err(error("invalid duration", orig));
        }
    }
    if neg {
        // d ≤ 2^63: -d fits (2^63 is i64::MIN).
        #[allow(clippy::cast_possible_wrap)]
        return Ok((d as i64).wrapping_neg());
    }
    if d > LIMIT - 1 {
        return Err(error("invalid duration", orig));
    }
    #[allow(clippy::cast_possible_wrap)]
    Ok(d as i64)
}

/// The fraction of `v / 10^prec` without trailing zeros (and without the point when
/// it is zero), and `v / 10^prec`: Go's `fmtFrac`.
fn frac(v: u64, prec: u32) -> (String, u64) {
    let p = 10u64.pow(prec);
    let (int, rest) = (v / p, v % p);
    if rest == 0 {
        return (String::new(), int);
    }
    let digits = format!("{rest:0width$}", width = prec as usize);
    (format!(".{}", digits.trim_end_matches('0')), int)
}

/// `time.Duration(d).String()`: `0s`, `1.5µs`, `100ms`, `1h30m0s`, `-5ns`.
pub fn format(d: i64) -> String {
    let neg = d < 0;
    let u = d.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    if u < 1_000_000_000 {
        let (prec, unit) = match u {
            0 => return "0s".into(),
            1..=999 => (0, "ns"),
            1_000..=999_999 => (3, "µs"),
            _ => (6, "ms"),
        };
        let (f, int) = frac(u, prec);
        return format!("{sign}{int}{f}{unit}");
    }
    let (f, secs) = frac(u, 9);
    let (s, mins) = (secs % 60, secs / 60);
    if mins == 0 {
        return format!("{sign}{s}{f}s");
    }
    let (m, hours) = (mins % 60, mins / 60);
    if hours == 0 {
        return format!("{sign}{m}m{s}{f}s");
    }
    format!("{sign}{hours}h{m}m{s}{f}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the real binaries printed (containerd 1.6.20, 1.7.34; `interval = "…"`).
    #[test]
    fn parses_and_prints_as_go() {
        let ok = [
            ("0", "0s"),
            ("-0", "0s"),
            ("1h30m", "1h30m0s"),
            ("5000ms", "5s"),
            ("+5s", "5s"),
            (".5s", "500ms"),
            ("1.5h", "1h30m0s"),
            ("-1s", "-1s"),
            ("1us", "1µs"),
            ("1µs", "1µs"),
            ("9223372036854775807ns", "2562047h47m16.854775807s"),
            ("0.0000000001s", "0s"),
            ("1.s", "1s"),
            ("1h1.5s", "1h0m1.5s"),
            ("100ms", "100ms"),
            ("10s", "10s"),
        ];
        for (text, shown) in ok {
            assert_eq!(parse(text).map(format).as_deref(), Ok(shown), "{text}");
        }
        let bad = [
            ("", r#"time: invalid duration """#),
            ("x", r#"time: invalid duration "x""#),
            ("1", r#"time: missing unit in duration "1""#),
            ("1.5", r#"time: missing unit in duration "1.5""#),
            ("true", r#"time: invalid duration "true""#),
            ("3000000000000000000h", r#"time: invalid duration "3000000000000000000h""#),
            ("1s1", r#"time: missing unit in duration "1s1""#),
            ("5 s", r#"time: unknown unit " s" in duration "5 s""#),
            ("1e3s", r#"time: unknown unit "e" in duration "1e3s""#),
            ("9223372036854775808ns", r#"time: invalid duration "9223372036854775808ns""#),
            (".", r#"time: invalid duration ".""#),
            ("1979-05-27 07:32:00 +0000 UTC", r#"time: unknown unit "-" in duration "1979-05-27 07:32:00 +0000 UTC""#),
            ("07:32:00", r#"time: unknown unit ":" in duration "07:32:00""#),
        ];
        for (text, err) in bad {
            assert_eq!(parse(text), Err(err.to_string()), "{text}");
        }
        assert_eq!(format(i64::MIN), "-2562047h47m16.854775808s");
        assert_eq!(format(1_500), "1.5µs");
        assert_eq!(quote("a\"\u{e9}\n".as_bytes()), r#""a\"\xc3\xa9\x0a""#);
    }
}
