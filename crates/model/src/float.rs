//! Floats printed as Rust's `Display` and `LowerExp` print them (`{}`, `{:e}` and, for
//! integral values, `{:.1}`), without core's float formatting: its Grisu and Dragon4 code
//! (`core::num::flt2dec`) is about 18 KB of the app's wasm, for the few floats a
//! containerd config holds (`pause_threshold = 0.02`). Here a float's exact decimal
//! expansion comes from a small bignum, and the shortest digits that read back as the
//! same float are found by rounding it to 1, 2, … significant digits and parsing each
//! candidate back (`str::parse`, which the TOML reader links anyway). Slower than
//! Grisu, which does not matter for a handful of values per dump; a property test
//! holds it to `format!` on random bit patterns.

/// `format!("{f}")`.
pub fn display(f: f64) -> String {
    shortest(f, 17, |s| s.parse::<f64>().is_ok_and(|g| g == f))
}

/// `format!("{f}")` of an `f32`.
pub fn display_f32(f: f32) -> String {
    shortest(f64::from(f), 9, |s| reads_as_f32(s, f))
}

/// Whether the decimal `s` reads as `f`, through `f64` (parsing `f32` itself would link
/// a second instance of core's float parser). Rounding to `f64` first reads the same
/// `f32` unless the `f64` lands exactly halfway between two `f32`s; there the decimal
/// itself is compared with that midpoint.
fn reads_as_f32(s: &str, f: f32) -> bool {
    let Ok(g) = s.parse::<f64>() else { return false };
    #[allow(clippy::cast_possible_truncation)]
    let r = g as f32;
    let r64 = f64::from(r);
    if r64 == g || !g.is_finite() || !r.is_finite() {
        return r == f;
    }
    // The f32 on g's other side, and the midpoint between the two (exact in f64).
    let toward = if (g > r64) != r.is_sign_negative() { r.to_bits() + 1 } else { r.to_bits().wrapping_sub(1) };
    let n = f32::from_bits(toward);
    let mid = (r64 + f64::from(n)) / 2.0;
    if g != mid {
        return r == f;
    }
    // The decimal against the midpoint: above, below, or on it (ties to even).
    let Some(decimal) = parse_decimal(s) else { return false };
    let m = exact(mid);
    let above_in_magnitude = match compare(&decimal, &m) {
        std::cmp::Ordering::Equal => return r == f,
        o => o.is_gt(),
    };
    // Above the midpoint in value: larger in magnitude when positive, smaller when not.
    let above = above_in_magnitude == (g > 0.0);
    let (lo, hi) = if r64 < f64::from(n) { (r, n) } else { (n, r) };
    (if above { hi } else { lo }) == f
}

/// `d.ddde±x` (as [`scientific`] writes it, sign dropped) as digits × 10^exp.
fn parse_decimal(s: &str) -> Option<(Vec<u8>, i64)> {
    let s = s.trim_start_matches('-');
    let (mantissa, exp) = s.split_once('e')?;
    let exp: i64 = exp.parse().ok()?;
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    let frac = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i64;
    Some((digits, exp - frac))
}

/// Compares two magnitudes given as digits × 10^exp.
fn compare(a: &(Vec<u8>, i64), b: &(Vec<u8>, i64)) -> std::cmp::Ordering {
    let trim = |(d, e): &(Vec<u8>, i64)| {
        let lead = d.iter().take_while(|&&x| x == 0).count();
        let d = d.get(lead..).unwrap_or(&[]).to_vec();
        let top = d.len() as i64 + e;
        (d, top)
    };
    let ((da, ta), (db, tb)) = (trim(a), trim(b));
    match (da.is_empty(), db.is_empty()) {
        (true, true) => return std::cmp::Ordering::Equal,
        (true, false) => return std::cmp::Ordering::Less,
        (false, true) => return std::cmp::Ordering::Greater,
        _ => {}
    }
    ta.cmp(&tb).then_with(|| {
        let n = da.len().max(db.len());
        let at = |d: &[u8], i: usize| d.get(i).copied().unwrap_or(0);
        (0..n).map(|i| at(&da, i).cmp(&at(&db, i))).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// `format!("{f:.1}")` for an integral `f` (its digits, then `.0`); other values are
/// printed as [`display`] does.
pub fn integral_one_decimal(f: f64) -> String {
    if !f.is_finite() || f.trunc() != f {
        return display(f);
    }
    let (digits, exp10) = exact(f);
    let mut out = String::from(if f.is_sign_negative() { "-" } else { "" });
    let int_len = digits.len() as i64 + exp10;
    if int_len <= 0 {
        out.push('0');
    } else {
        for i in 0..int_len {
            out.push(char::from(b'0' + digits.get(i as usize).copied().unwrap_or(0)));
        }
    }
    out.push_str(".0");
    out
}

/// Non-finite values as `Display` prints them.
fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "inf" } else { "-inf" }.into())
    } else {
        None
    }
}

/// `format!("{f:e}")`: the shortest digits, in scientific notation (`1e6`, `1.5e-5`).
pub fn lower_exp(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0e0");
    }
    let (d, e) = shortest_digits(f, 17, |s| s.parse::<f64>().is_ok_and(|g| g == f));
    scientific(sign, &d, e)
}

/// The shortest decimal (at most `max` significant digits) that `reads_back` accepts,
/// the closer of the two roundings when both do, printed without an exponent.
fn shortest(f: f64, max: usize, reads_back: impl Fn(&str) -> bool) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0");
    }
    let (d, e) = shortest_digits(f, max, reads_back);
    format!("{sign}{}", positional(&d, e))
}

/// The digits and power of ten of [`shortest`]'s decimal (finite, non-zero `f`), no
/// trailing zero digits. Not inlined: [`display`] and [`lower_exp`] share one copy in
/// the app's wasm.
#[inline(never)]
fn shortest_digits(f: f64, max: usize, reads_back: impl Fn(&str) -> bool) -> (Vec<u8>, i64) {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let (digits, exp10) = exact(f);
    let n = digits.len();
    let mut chosen = (digits.clone(), exp10);
    for p in 1..=max.min(n) {
        let rest = digits.get(p..).unwrap_or(&[]);
        let down: Vec<u8> = digits.get(..p).unwrap_or(&[]).to_vec();
        let exp = exp10 + (n - p) as i64;
        let up = increment(&down);
        // `up` may have gained a digit (9.99 → 10.0): its exponent stays that of `down`.
        let candidates = [(down, exp), (up, exp)];
        let ok: Vec<&(Vec<u8>, i64)> = candidates.iter().filter(|(d, e)| reads_back(&scientific(sign, d, *e))).collect();
        let pick = match ok.as_slice() {
            [] => continue,
            [one] => *one,
            [lower, upper, ..] => {
                // The closer one: `rest` below half a unit rounds down.
                let above_half = rest.first().is_some_and(|&d| d > 5) || (rest.first() == Some(&5) && rest.iter().skip(1).any(|&d| d > 0));
                let half = rest.first() == Some(&5) && rest.iter().skip(1).all(|&d| d == 0);
                if above_half || half {
                    *upper
                } else {
                    *lower
                }
            }
        };
        chosen = pick.clone();
        break;
    }
    let (mut d, mut e) = chosen;
    while d.len() > 1 && d.last() == Some(&0) {
        d.pop();
        e += 1;
    }
    (d, e)
}

/// `digits` × 10^`exp10` as `d.ddde±x`, for parsing back.
fn scientific(sign: &str, digits: &[u8], exp10: i64) -> String {
    let mut s = String::from(sign);
    for (i, d) in digits.iter().enumerate() {
        if i == 1 {
            s.push('.');
        }
        s.push(char::from(b'0' + d));
    }
    s.push('e');
    s.push_str(&(exp10 + digits.len() as i64 - 1).to_string());
    s
}

/// `digits` × 10^`exp10` written out: `1500`, `0.02`, `12.5`.
fn positional(digits: &[u8], exp10: i64) -> String {
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    if exp10 >= 0 {
        return format!("{text}{}", "0".repeat(exp10 as usize));
    }
    let point = digits.len() as i64 + exp10;
    if point > 0 {
        let (int, frac) = text.split_at(point as usize);
        format!("{int}.{frac}")
    } else {
        format!("0.{}{text}", "0".repeat((-point) as usize))
    }
}

/// The decimal digits after adding one to the last (`199` → `200`, `99` → `100`).
fn increment(digits: &[u8]) -> Vec<u8> {
    let mut d = digits.to_vec();
    for x in d.iter_mut().rev() {
        if *x == 9 {
            *x = 0;
        } else {
            *x += 1;
            return d;
        }
    }
    d.insert(0, 1);
    d
}

/// |f| exactly as decimal digits (no leading zeros) and a power of ten: |f| =
/// digits × 10^exp. `f` is finite and not zero.
fn exact(f: f64) -> (Vec<u8>, i64) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mantissa, exp2) = if biased == 0 { (fraction, -1074) } else { (fraction | (1u64 << 52), biased - 1075) };
    // Little-endian base-1e9 limbs.
    let mut n: Vec<u32> = vec![(mantissa % 1_000_000_000) as u32, ((mantissa / 1_000_000_000) % 1_000_000_000) as u32, (mantissa / 1_000_000_000_000_000_000) as u32];
    let (factor, times, exp10) = if exp2 >= 0 { (2, exp2, 0) } else { (5, -exp2, exp2) };
    for _ in 0..times {
        let mut carry = 0u64;
        for limb in n.iter_mut() {
            let v = u64::from(*limb) * factor + carry;
            *limb = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            n.push(carry as u32);
        }
    }
    while n.len() > 1 && n.last() == Some(&0) {
        n.pop();
    }
    let mut digits = Vec::new();
    for (i, limb) in n.iter().rev().enumerate() {
        let s = if i == 0 { limb.to_string() } else { format!("{limb:09}") };
        digits.extend(s.bytes().map(|b| b - b'0'));
    }
    let lead = digits.iter().take_while(|&&d| d == 0).count().min(digits.len().saturating_sub(1));
    digits.drain(..lead);
    (digits, exp10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values a config holds, the edges of both formats, and powers of two (where the
    /// gap below a float is half the gap above it).
    #[test]
    fn prints_as_format_does() {
        let values = [
            0.02, 0.5, 1.0, 1.5, -2.25, 0.1, 0.3, 1e-7, 1e21, 1e22, 123456789.125, 5e-324, f64::MIN_POSITIVE, f64::MAX, f64::MIN, -0.0, 0.0,
            2f64.powi(-1000), 2f64.powi(60), 9007199254740993.0, 0.1 + 0.2, 100.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
        ];
        for f in values {
            assert_eq!(display(f), format!("{f}"), "{f:e}");
            assert_eq!(lower_exp(f), format!("{f:e}"), "{f}");
            if f.is_finite() && f.trunc() == f {
                assert_eq!(integral_one_decimal(f), format!("{f:.1}"), "{f:e}");
            }
            let g = f as f32;
            assert_eq!(display_f32(g), format!("{g}"), "{g:e}");
            if g.is_finite() && g.trunc() == g {
                assert_eq!(integral_one_decimal(f64::from(g)), format!("{g:.1}"), "{g:e}");
            }
        }
        for k in -1074..=1023 {
            let f = 2f64.powi(k);
            assert_eq!(display(f), format!("{f}"), "2^{k}");
            assert_eq!(lower_exp(f), format!("{f:e}"), "2^{k}");
        }
    }

    /// Decimals whose nearest f64 is exactly halfway between two f32s read as `f32`
    /// parsing reads them: above, below and on the midpoint, for both signs.
    #[test]
    fn f32_midpoints_read_as_parse_reads_them() {
        for s in ["1.0000000596046448e0", "1.0000000596046447e0", "1.000000059604644775390625e0", "1.0000001788139343e0", "1.000000178813934326171875e0"] {
            for sign in ["", "-"] {
                let s = format!("{sign}{s}");
                let want: f32 = s.parse().unwrap();
                for f in [want, f32::from_bits(want.to_bits() + 1), f32::from_bits(want.to_bits() - 1)] {
                    assert_eq!(reads_as_f32(&s, f), f == want, "{s} as {f:e}");
                }
            }
        }
    }

    proptest! {
        /// Short decimals as a config writes them (`0.02`, `1.5e-3`) print as `format!` does.
        #[test]
        fn written_decimals_print_as_format_does(m in 0u64..100_000_000, e in -30i32..30) {
            let f: f64 = format!("{m}e{e}").parse().unwrap();
            prop_assert_eq!(display(f), format!("{f}"));
            prop_assert_eq!(lower_exp(f), format!("{f:e}"));
            prop_assert_eq!(display_f32(f as f32), format!("{}", f as f32));
        }

        /// Any bit pattern prints as `format!` prints it, as f64 and as f32.
        #[test]
        fn random_floats_print_as_format_does(bits in any::<u64>(), bits32 in any::<u32>()) {
            let f = f64::from_bits(bits);
            prop_assert_eq!(display(f), format!("{f}"));
            prop_assert_eq!(lower_exp(f), format!("{f:e}"));
            if f.is_finite() && f.trunc() == f {
                prop_assert_eq!(integral_one_decimal(f), format!("{f:.1}"));
            }
            let g = f32::from_bits(bits32);
            prop_assert_eq!(display_f32(g), format!("{g}"));
            if g.is_finite() && g.trunc() == g {
                prop_assert_eq!(integral_one_decimal(f64::from(g)), format!("{g:.1}"));
            }
        }
    }
}
