//! Resource quantities (`500m`, `1Gi`, `2`, `1e3`) parsed, rounded and printed as
//! apimachinery's `resource.Quantity` does (`ParseQuantity`, `MilliValue`, `Value`,
//! `String`).
//!
//! Why a digit vector and not `i64`: a quantity's value is exact in decimal (even `1.1Ki`
//! is `1126.4`) and may be far larger than `i64` (`1e100`); upstream keeps it in an
//! `inf.Dec` then. Conversions to `i64` (`value`, `milli_value`) round **away from zero**
//! as upstream does, and saturate instead of wrapping (upstream's big-number path
//! truncates to the low 64 bits; no lab input comes near 9.2e18).

use std::cmp::Ordering;
use std::fmt;

/// The text upstream returns for a string that does not match the quantity grammar.
pub const ERR_FORMAT_WRONG: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/// The text upstream returns when the numeric part cannot be parsed.
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
/// The text upstream returns for an unknown suffix (`1Kb`, `1e`).
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

/// How a quantity prints: the three `resource.Format`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// `1e3`, `5e-3`.
    DecimalExponent,
    /// `1Ki`, `5Gi`.
    BinarySI,
    /// `5m`, `1k`, `5G`, plain integers.
    DecimalSI,
}

/// Why a string is not a quantity; `Display` gives upstream's error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityError {
    FormatWrong,
    Numeric,
    Suffix,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::FormatWrong => ERR_FORMAT_WRONG,
            QuantityError::Numeric => ERR_NUMERIC,
            QuantityError::Suffix => ERR_SUFFIX,
        })
    }
}

impl std::error::Error for QuantityError {}

/// An exact decimal magnitude: `digits × 10^exp`, digits most significant first,
/// without leading or trailing zeros (empty = zero).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
struct Dec {
    digits: Vec<u8>,
    exp: i64,
}

impl Dec {
    fn from_digit_str(s: &str, exp: i64) -> Dec {
        let mut d = Dec { digits: s.bytes().map(|b| b - b'0').collect(), exp };
        d.normalize();
        d
    }

    fn normalize(&mut self) {
        let lead = self.digits.iter().take_while(|&&d| d == 0).count();
        self.digits.drain(..lead);
        while self.digits.last() == Some(&0) {
            self.digits.pop();
            self.exp += 1;
        }
        if self.digits.is_empty() {
            self.exp = 0;
        }
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    fn mul_small(&mut self, k: u32) {
        let mut carry: u64 = 0;
        for d in self.digits.iter_mut().rev() {
            let v = u64::from(*d) * u64::from(k) + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        let mut head = Vec::new();
        while carry > 0 {
            head.push((carry % 10) as u8);
            carry /= 10;
        }
        head.reverse();
        if !head.is_empty() {
            head.extend_from_slice(&self.digits);
            self.digits = head;
        }
        self.normalize();
    }

    /// Position of the most significant digit: value < 10^magnitude.
    fn magnitude(&self) -> i64 {
        self.digits.len() as i64 + self.exp
    }

    /// Rounds away from zero so that no digit is below 10^min_exp.
    fn round_away_to(&mut self, min_exp: i64) {
        if self.is_zero() || self.exp >= min_exp {
            return;
        }
        let drop = (min_exp - self.exp) as usize;
        if drop >= self.digits.len() {
            self.digits = vec![1];
            self.exp = min_exp;
            return;
        }
        let keep = self.digits.len() - drop;
        let dropped_nonzero = self.digits.get(keep..).is_some_and(|t| t.iter().any(|&d| d != 0));
        self.digits.truncate(keep);
        self.exp = min_exp;
        if dropped_nonzero {
            self.increment_last();
        }
        self.normalize();
    }

    fn increment_last(&mut self) {
        for d in self.digits.iter_mut().rev() {
            if *d == 9 {
                *d = 0;
            } else {
                *d += 1;
                return;
            }
        }
        self.digits.insert(0, 1);
    }

    /// The integer value (already rounded to exp >= 0), or `None` above `u64`.
    fn to_u128_int(&self) -> Option<u128> {
        if self.is_zero() {
            return Some(0);
        }
        if self.exp < 0 || self.magnitude() > 38 {
            return None;
        }
        let mut v: u128 = 0;
        for &d in &self.digits {
            v = v * 10 + u128::from(d);
        }
        for _ in 0..self.exp {
            v *= 10;
        }
        Some(v)
    }

    fn cmp_magnitude(&self, other: &Dec) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        match self.magnitude().cmp(&other.magnitude()) {
            Ordering::Equal => {}
            o => return o,
        }
        let n = self.digits.len().max(other.digits.len());
        for i in 0..n {
            let a = self.digits.get(i).copied().unwrap_or(0);
            let b = other.digits.get(i).copied().unwrap_or(0);
            match a.cmp(&b) {
                Ordering::Equal => {}
                o => return o,
            }
        }
        Ordering::Equal
    }

    fn from_u64(v: u64) -> Dec {
        Dec::from_digit_str(&v.to_string(), 0)
    }
}

/// A Kubernetes resource quantity.
#[derive(Debug, Clone)]
pub struct Quantity {
    negative: bool,
    magnitude: Dec,
    format: Format,
    /// The text as written, kept when upstream keeps it (`q.s`): the value was in
    /// canonical form already, so `String()` returns it unchanged (`+1` stays `+1`).
    kept: Option<String>,
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    /// Compares values (`Quantity.Cmp`), not spellings: `1000m == 1`.
    fn cmp(&self, other: &Self) -> Ordering {
        let a_neg = self.negative && !self.magnitude.is_zero();
        let b_neg = other.negative && !other.magnitude.is_zero();
        match (a_neg, b_neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude.cmp_magnitude(&other.magnitude),
            (true, true) => other.magnitude.cmp_magnitude(&self.magnitude),
        }
    }
}

const DEC_SUFFIXES: [(&str, i64); 10] =
    [("n", -9), ("u", -6), ("m", -3), ("", 0), ("k", 3), ("M", 6), ("G", 9), ("T", 12), ("P", 15), ("E", 18)];
const BIN_SUFFIXES: [(&str, i64); 7] =
    [("", 0), ("Ki", 10), ("Mi", 20), ("Gi", 30), ("Ti", 40), ("Pi", 50), ("Ei", 60)];

/// `quantitySuffixer.interpret`: (base, exponent, format).
fn interpret_suffix(suffix: &str) -> Option<(u32, i64, Format)> {
    if let Some((_, e)) = DEC_SUFFIXES.iter().find(|(s, _)| *s == suffix) {
        return Some((10, *e, Format::DecimalSI));
    }
    if let Some((_, e)) = BIN_SUFFIXES.iter().find(|(s, _)| *s == suffix) {
        return Some((2, *e, Format::BinarySI));
    }
    let mut chars = suffix.chars();
    if suffix.len() > 1 && matches!(chars.next(), Some('e' | 'E')) {
        // strconv.ParseInt(suffix[1:], 10, 64), then int32(parsed).
        let parsed: i64 = chars.as_str().parse().ok()?;
        return Some((10, i64::from(parsed as i32), Format::DecimalExponent));
    }
    None
}

/// The pieces `parseQuantityString` returns.
struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`, quirks included: `-` and `.` alone parse as 0, `1.G` is
/// accepted, leading zeros are dropped from the numerator.
fn parse_quantity_string(s: &str) -> Result<Parts<'_>, QuantityError> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    match b.first() {
        Some(b'-') => {
            positive = false;
            pos += 1;
        }
        Some(b'+') => pos += 1,
        _ => {}
    }
    while pos < end && b.get(pos) == Some(&b'0') {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts { positive, num: "0", denom: "", suffix: "" });
    }
    let num_start = pos;
    while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    let mut num = s.get(num_start..pos).unwrap_or("");
    if pos >= end {
        if num.is_empty() {
            num = "0";
        }
        return Ok(Parts { positive, num, denom: "", suffix: "" });
    }
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        let d_start = pos;
        while pos < end && b.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        denom = s.get(d_start..pos).unwrap_or("");
        if pos >= end {
            return Ok(Parts { positive, num, denom, suffix: "" });
        }
    }
    let suffix_start = pos;
    while pos < end && b.get(pos).is_some_and(|c| b"eEinumkKMGTP".contains(c)) {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts { positive, num, denom, suffix: s.get(suffix_start..).unwrap_or("") });
    }
    if matches!(b.get(pos), Some(b'-' | b'+')) {
        pos += 1;
    }
    while pos < end {
        if !b.get(pos).is_some_and(u8::is_ascii_digit) {
            return Err(QuantityError::FormatWrong);
        }
        pos += 1;
    }
    Ok(Parts { positive, num, denom, suffix: s.get(suffix_start..).unwrap_or("") })
}

impl Quantity {
    /// Whether [`Quantity::parse`] accepts `s`, and its error if not, without working
    /// out the value (the loader checks every quantity of a cluster; the scheduler
    /// parses the ones it sums).
    pub fn validate(s: &str) -> Result<(), QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if s == "0" {
            return Ok(());
        }
        let parts = parse_quantity_string(s)?;
        interpret_suffix(parts.suffix).map(|_| ()).ok_or(QuantityError::Suffix)
    }

    /// `resource.ParseQuantity`.
    pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if s == "0" {
            return Ok(Quantity::zero_kept(s));
        }
        let parts = parse_quantity_string(s)?;
        let (base, exponent, format) = interpret_suffix(parts.suffix).ok_or(QuantityError::Suffix)?;
        let digits_len = (parts.num.len() + parts.denom.len()) as i64;

        // The int64 fast path decides only whether the text is kept as written.
        let precision = match format {
            Format::DecimalExponent | Format::DecimalSI => 18 - digits_len,
            Format::BinarySI if exponent >= 0 && parts.denom.is_empty() => {
                15 - parts.num.len() as i64 - ((exponent as f32) * 3.0 / 10.0) as i64 - 1
            }
            Format::BinarySI => -1,
        };
        let scale = match format {
            Format::BinarySI => 0,
            _ => exponent,
        } - parts.denom.len() as i64;
        let fast = precision >= 0 && scale >= -9;

        // The digits of `num` then `denom` (the value × 10^len(denom)).
        let shifted = || parts.num.bytes().chain(parts.denom.bytes());
        let mut mag = Dec { digits: shifted().map(|b| b - b'0').collect(), exp: -(parts.denom.len() as i64) };
        mag.normalize();
        if base == 10 {
            if !mag.is_zero() {
                mag.exp += exponent;
            }
        } else {
            for _ in 0..(exponent / 10) {
                mag.mul_small(1024);
            }
        }

        if fast {
            let fits =
                mag.magnitude() <= 19 && mag.clone().into_u128_int_at(scale).is_some_and(|v| v <= i64::MAX as u128);
            if fits {
                let canonical = match format {
                    Format::BinarySI => {
                        // The digits as a u64 (0 beyond it, as Go's failed parse).
                        let value = shifted()
                            .try_fold(0u64, |v, b| v.checked_mul(10)?.checked_add(u64::from(b - b'0')))
                            .unwrap_or(0);
                        exponent % 10 == 0 && (value & 0x07) != 0
                    }
                    _ => {
                        let ends_000 = shifted().rev().take(3).filter(|&b| b == b'0').count() == 3;
                        scale % 3 == 0 && !ends_000 && shifted().next().is_none_or(|b| b != b'0')
                    }
                };
                return Ok(Quantity {
                    negative: !parts.positive,
                    magnitude: mag,
                    format,
                    kept: canonical.then(|| s.to_string()),
                });
            }
        }

        // The inf.Dec path: round up to nano, cap BinarySI at the int64 maximum.
        mag.round_away_to(-9);
        let mut format = format;
        if format == Format::BinarySI {
            let max = Dec::from_u64(i64::MAX as u64);
            if mag.cmp_magnitude(&max) == Ordering::Greater {
                mag = max;
            }
            if mag.cmp_magnitude(&Dec::from_u64(1024)) == Ordering::Less {
                format = Format::DecimalSI;
            }
        }
        Ok(Quantity { negative: !parts.positive, magnitude: mag, format, kept: None })
    }

    fn zero_kept(s: &str) -> Quantity {
        Quantity { negative: false, magnitude: Dec::default(), format: Format::DecimalSI, kept: Some(s.to_string()) }
    }

    /// A quantity of `v` base units (`resource.NewQuantity(v, DecimalSI)`).
    pub fn from_i64(v: i64) -> Quantity {
        Quantity { negative: v < 0, magnitude: Dec::from_u64(v.unsigned_abs()), format: Format::DecimalSI, kept: None }
    }

    /// A quantity of `v` thousandths (`resource.NewMilliQuantity(v, DecimalSI)`).
    pub fn from_milli(v: i64) -> Quantity {
        let mut q = Quantity::from_i64(v);
        if !q.magnitude.is_zero() {
            q.magnitude.exp -= 3;
        }
        q
    }

    /// A quantity of `v` bytes printed in binary units (`NewQuantity(v, BinarySI)`).
    pub fn from_bytes(v: i64) -> Quantity {
        Quantity { format: Format::BinarySI, ..Quantity::from_i64(v) }
    }

    /// The format the quantity prints in.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.magnitude.is_zero()
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.negative && !self.magnitude.is_zero()
    }

    /// `ScaledValue(scale)`: ceil(value / 10^scale), away from zero, saturating.
    pub fn scaled_value(&self, scale: i64) -> i64 {
        let magnitude = self.magnitude.clone().into_u128_int_at(scale);
        let m = match magnitude {
            Some(v) if v <= i64::MAX as u128 => v as i64,
            _ => i64::MAX,
        };
        if self.negative {
            -m
        } else {
            m
        }
    }

    /// `Value()`: the value rounded up (away from zero) to an integer.
    pub fn value(&self) -> i64 {
        self.scaled_value(0)
    }

    /// `MilliValue()`: the value × 1000 rounded up (away from zero).
    pub fn milli_value(&self) -> i64 {
        self.scaled_value(-3)
    }

    /// The sum of two quantities (`Quantity.Add`); the format of `self` is kept.
    pub fn add(&self, other: &Quantity) -> Quantity {
        // Exact in milli-units is all the model needs for sums of requests.
        let sum = self.milli_value().saturating_add(other.milli_value());
        let mut q = Quantity::from_milli(sum);
        q.format = if self.is_zero() { other.format } else { self.format };
        q
    }

    /// `String()`: the text as written when upstream keeps it, else the canonical
    /// form (`1500m`, `1Gi`, `1k`, `1e3`).
    pub fn canonical(&self) -> String {
        if let Some(k) = &self.kept {
            return k.clone();
        }
        if self.magnitude.is_zero() {
            return "0".to_string();
        }
        let sign = if self.negative { "-" } else { "" };
        let mut format = self.format;
        if format == Format::BinarySI {
            let small = self.magnitude.cmp_magnitude(&Dec::from_u64(1024)) == Ordering::Less;
            if small || self.magnitude.exp < 0 {
                format = Format::DecimalSI;
            }
        }
        match format {
            Format::BinarySI => {
                let mut v = self.magnitude.to_u128_int().unwrap_or(0);
                let mut n = 0usize;
                while v != 0 && v.checked_rem(1024) == Some(0) && n < 6 {
                    v /= 1024;
                    n += 1;
                }
                let suffix = BIN_SUFFIXES.get(n).map(|(s, _)| *s).unwrap_or("");
                format!("{sign}{v}{suffix}")
            }
            _ => {
                let mut digits: String = self.magnitude.digits.iter().map(|d| char::from(b'0' + d)).collect();
                let mut exp = self.magnitude.exp;
                while exp.rem_euclid(3) != 0 {
                    digits.push('0');
                    exp -= 1;
                }
                let table = DEC_SUFFIXES.iter().find(|(_, e)| *e == exp).map(|(s, _)| *s);
                match (format, table) {
                    (Format::DecimalSI, Some(suffix)) => format!("{sign}{digits}{suffix}"),
                    (_, _) if exp == 0 => format!("{sign}{digits}"),
                    // Outside the SI table (beyond `E`), upstream prints no suffix at
                    // all and so misstates the value; the model prints the exponent.
                    _ => format!("{sign}{digits}e{exp}"),
                }
            }
        }
    }
}

impl Dec {
    /// ceil(|value| / 10^scale) as an integer, away from zero; `None` when too large.
    fn into_u128_int_at(mut self, scale: i64) -> Option<u128> {
        if self.is_zero() {
            return Some(0);
        }
        self.exp -= scale;
        if self.magnitude() > 38 {
            return None;
        }
        self.round_away_to(0);
        self.to_u128_int()
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl std::str::FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

/// Parses a k8s-openapi quantity (a string newtype).
pub fn parse(q: &k8s_openapi::apimachinery::pkg::api::resource::Quantity) -> Result<Quantity, QuantityError> {
    Quantity::parse(&q.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `validate` accepts and refuses exactly what `parse` does, with the same error.
    #[test]
    fn validate_agrees_with_parse() {
        let cases = [
            "", "0", "000", "-", ".", "+", "1", "-1.5", "1.G", "500m", "32Gi", "1e3", "1E", "1e-3", "1e+3", "0.1n",
            "12345678901234567890", "1Ki", "1ki", "1Qi", "1 ", " 1", "1e", "1e+", "1e3.5", "1.2.3", "Gi", "1GiB", "e3",
            "1E3", "1Ei", "1Pi", "1i", "1mm", "--1", "+-1", "1e99999999999999999999",
        ];
        for s in cases {
            assert_eq!(Quantity::validate(s).err(), Quantity::parse(s).err(), "{s:?}");
        }
    }

    /// Values as upstream's `MilliValue` / `Value` compute them, rounding away from zero.
    #[test]
    fn values_round_like_upstream() {
        let cases: &[(&str, i64, i64)] = &[
            ("500m", 500, 1),
            ("1", 1000, 1),
            ("1.5", 1500, 2),
            ("1Gi", 1_073_741_824_000, 1_073_741_824),
            ("1Ki", 1_024_000, 1024),
            ("0.5Ki", 512_000, 512),
            ("1e3", 1_000_000, 1000),
            ("1E", 1_000_000_000_000_000_000_i64.saturating_mul(1000), 1_000_000_000_000_000_000),
            ("1n", 1, 1),
            ("0.1n", 1, 1),
            ("-1.5", -1500, -2),
            ("10m", 10, 1),
            ("-", 0, 0),
            (".", 0, 0),
            ("1.G", 1_000_000_000_000, 1_000_000_000),
            ("+1", 1000, 1),
            ("0", 0, 0),
            ("000", 0, 0),
        ];
        for (s, milli, value) in cases {
            let q = Quantity::parse(s).unwrap();
            assert_eq!((q.milli_value(), q.value()), (*milli, *value), "{s}");
        }
    }

    /// `String()` is canonical unless upstream keeps the text as written.
    #[test]
    fn prints_like_upstream() {
        let cases: &[(&str, &str)] = &[
            ("1", "1"),
            ("500m", "500m"),
            ("1.5", "1500m"),
            ("1000m", "1"),
            ("1Gi", "1Gi"),
            ("8Ki", "8Ki"),
            ("0.5Ki", "512"),
            ("1024", "1024"),
            ("1e3", "1e3"),
            ("1000", "1k"),
            ("+1", "+1"),
            ("1.5Gi", "1536Mi"),
            ("0.1n", "1n"),
            ("2", "2"),
            ("10Mi", "10Mi"),
            ("0", "0"),
        ];
        for (s, want) in cases {
            assert_eq!(Quantity::parse(s).unwrap().to_string(), *want, "{s}");
        }
    }

    /// Strings upstream rejects, with its error texts.
    #[test]
    fn rejects_like_upstream() {
        let cases: &[(&str, QuantityError)] = &[
            ("", QuantityError::FormatWrong),
            ("1.5.5", QuantityError::FormatWrong),
            ("abc", QuantityError::FormatWrong),
            ("1Kb", QuantityError::FormatWrong),
            ("1e", QuantityError::Suffix),
            ("1ee3", QuantityError::Suffix),
            ("1Ki5", QuantityError::Suffix),
            ("1 ", QuantityError::FormatWrong),
        ];
        for (s, want) in cases {
            assert_eq!(Quantity::parse(s).err(), Some(*want), "{s:?}");
        }
        assert_eq!(QuantityError::Suffix.to_string(), "unable to parse quantity's suffix");
    }

    /// Comparison is by value, not by spelling.
    #[test]
    fn compares_values() {
        let q = |s| Quantity::parse(s).unwrap();
        assert_eq!(q("1000m"), q("1"));
        assert!(q("1Ki") > q("1k"));
        assert!(q("-1") < q("0"));
    }
}
