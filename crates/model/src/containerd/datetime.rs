//! A TOML datetime read and written back as `toml_datetime` 1.1.3 does
//! (`Datetime::from_str`, then `Display`): the same texts accepted, the same error
//! words, the same normal form (`T` between date and time, `Z` upper case, the
//! fraction's trailing zeros trimmed and only its first nine digits kept).
//!
//! A port rather than the crate's own call: its parser has a `panic!` with a `{:?}`
//! (unreachable — its lexer hands it digits only), and that one format pulls core's
//! string escaping, about 3 KB, into the app's first load. A property test holds the
//! port to the crate on random and near-datetime texts.

/// A lexer token: its kind and its text (`toml_datetime`'s `Lexer`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Digits,
    Dash,
    Colon,
    Dot,
    T,
    Space,
    Z,
    Plus,
    Unknown,
}

#[derive(Clone, Copy)]
struct Lexer<'s> {
    rest: &'s str,
}

impl<'s> Lexer<'s> {
    fn next(&mut self) -> Option<(Kind, &'s str)> {
        let bytes = self.rest.as_bytes();
        let (kind, end) = match bytes.first()? {
            b'0'..=b'9' => (Kind::Digits, bytes.iter().position(|b| !b.is_ascii_digit()).unwrap_or(bytes.len())),
            b'-' => (Kind::Dash, 1),
            b':' => (Kind::Colon, 1),
            b'T' | b't' => (Kind::T, 1),
            b' ' => (Kind::Space, 1),
            b'Z' | b'z' => (Kind::Z, 1),
            b'+' => (Kind::Plus, 1),
            b'.' => (Kind::Dot, 1),
            _ => (Kind::Unknown, bytes.len()),
        };
        let (raw, rest) = self.rest.split_at_checked(end)?;
        self.rest = rest;
        Some((kind, raw))
    }

    fn peek(&self) -> Option<Kind> {
        let mut l = *self;
        l.next().map(|(k, _)| k)
    }

    /// The next token if it is `kind`, else the error `invalid <what>, expected <expected>`.
    fn expect(&mut self, kind: Kind, what: &str, expected: &str) -> Result<&'s str, String> {
        match self.next() {
            Some((k, raw)) if k == kind => Ok(raw),
            _ => Err(error(Some(what), Some(expected))),
        }
    }
}

/// `DatetimeParseError`'s text.
fn error(what: Option<&str>, expected: Option<&str>) -> String {
    let mut s = match what {
        Some(w) => format!("invalid {w}"),
        None => "invalid datetime".to_string(),
    };
    if let Some(e) = expected {
        s.push_str(", expected ");
        s.push_str(e);
    }
    s
}

/// A token of `n` digits as a number (`n` ≤ 4: it fits).
fn number(raw: &str) -> u32 {
    raw.bytes().fold(0, |n, b| n * 10 + u32::from(b - b'0'))
}

/// Two digits, zero-padded.
fn push2(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// `text` as `toml_datetime` reads it, in its normal form; or its error's text.
pub fn normalize(text: &str) -> Result<String, String> {
    let mut lexer = Lexer { rest: text };
    let mut out = String::new();
    let first = match lexer.next() {
        Some((Kind::Digits, raw)) => raw,
        _ => return Err(error(None, Some("year or hour"))),
    };
    let has_date = match lexer.next().map(|(k, _)| k) {
        Some(Kind::Dash) => {
            let month = lexer.expect(Kind::Digits, "date", "month")?;
            lexer.expect(Kind::Dash, "date", "`-` (MM-DD)")?;
            let day = lexer.expect(Kind::Digits, "date", "day")?;
            for (raw, n, expected) in [(first, 4, "a four-digit year (YYYY)"), (month, 2, "a two-digit month (MM)"), (day, 2, "a two-digit day (DD)")] {
                if raw.len() != n {
                    return Err(error(Some("date"), Some(expected)));
                }
            }
            let (year, month, day) = (number(first), number(month), number(day));
            if !(1..=12).contains(&month) {
                return Err(error(Some("date"), Some("month between 01 and 12")));
            }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
            let (max, expected) = match month {
                2 if leap => (29, "day between 01 and 29"),
                2 => (28, "day between 01 and 28"),
                4 | 6 | 9 | 11 => (30, "day between 01 and 30"),
                _ => (31, "day between 01 and 31"),
            };
            if day < 1 || day > max {
                return Err(error(Some("date"), Some(expected)));
            }
            push2(&mut out, year / 100);
            push2(&mut out, year);
            out.push('-');
            push2(&mut out, month);
            out.push('-');
            push2(&mut out, day);
            true
        }
        Some(Kind::Colon) => {
            lexer = Lexer { rest: text };
            false
        }
        _ => return Err(error(None, Some("`-` (YYYY-MM) or `:` (HH:MM)"))),
    };
    let has_time = if has_date {
        match lexer.next() {
            Some((Kind::T | Kind::Space, _)) => true,
            Some(_) => return Err(error(Some("date-time"), Some("`T` between date and time"))),
            None => false,
        }
    } else {
        true
    };
    if has_time {
        let hour = lexer.expect(Kind::Digits, "time", "hour")?;
        lexer.expect(Kind::Colon, "time", "`:` (HH:MM)")?;
        let minute = lexer.expect(Kind::Digits, "time", "minute")?;
        let second = if lexer.peek() == Some(Kind::Colon) {
            lexer.next();
            Some(lexer.expect(Kind::Digits, "time", "second")?)
        } else {
            None
        };
        let fraction = if second.is_some() && lexer.peek() == Some(Kind::Dot) {
            lexer.next();
            Some(lexer.expect(Kind::Digits, "time", "nanosecond")?)
        } else {
            None
        };
        if hour.len() != 2 {
            return Err(error(Some("time"), Some("a two-digit hour (HH)")));
        }
        if minute.len() != 2 {
            return Err(error(Some("time"), Some("a two-digit minute (MM)")));
        }
        if second.is_some_and(|s| s.len() != 2) {
            return Err(error(Some("time"), Some("a two-digit second (SS)")));
        }
        let second_raw = second;
        let (hour, minute, second) = (number(hour), number(minute), second.map_or(0, number));
        if hour > 23 {
            return Err(error(Some("time"), Some("hour between 00 and 23")));
        }
        if minute > 59 {
            return Err(error(Some("time"), Some("minute between 00 and 59")));
        }
        if second > 60 {
            return Err(error(Some("time"), Some("second between 00 and 60")));
        }
        if has_date {
            out.push('T');
        }
        push2(&mut out, hour);
        out.push(':');
        push2(&mut out, minute);
        if second_raw.is_some() {
            out.push(':');
            push2(&mut out, second);
        }
        if let Some(f) = fraction {
            // Only the first nine digits count; trailing zeros are trimmed, a zero
            // fraction prints as `.0`.
            let trimmed = f.get(..9).unwrap_or(f).trim_end_matches('0');
            out.push('.');
            out.push_str(if trimmed.is_empty() { "0" } else { trimmed });
        }
        if has_date {
            match lexer.next() {
                Some((Kind::Z, _)) => out.push('Z'),
                Some((kind @ (Kind::Plus | Kind::Dash), _)) => {
                    let hours = lexer.expect(Kind::Digits, "offset", "hour")?;
                    lexer.expect(Kind::Colon, "offset", "`:` (HH:MM)")?;
                    let minutes = lexer.expect(Kind::Digits, "offset", "minute")?;
                    if hours.len() != 2 {
                        return Err(error(Some("offset"), Some("a two-digit hour (HH)")));
                    }
                    if minutes.len() != 2 {
                        return Err(error(Some("offset"), Some("a two-digit minute (MM)")));
                    }
                    let (hours, minutes) = (number(hours), number(minutes));
                    if hours > 23 {
                        return Err(error(Some("offset"), Some("hours between 00 and 23")));
                    }
                    if minutes > 59 {
                        return Err(error(Some("offset"), Some("minutes between 00 and 59")));
                    }
                    // The crate prints -00:00 as +00:00 (its minutes carry the sign).
                    out.push(if kind == Kind::Dash && hours * 60 + minutes != 0 { '-' } else { '+' });
                    push2(&mut out, hours);
                    out.push(':');
                    push2(&mut out, minutes);
                }
                Some(_) => return Err(error(Some("offset"), Some("`Z`, +OFFSET, -OFFSET"))),
                None => {}
            }
        }
    }
    if !lexer.rest.is_empty() {
        return Err(error(None, None));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn crate_reading(text: &str) -> Result<String, String> {
        text.parse::<toml_datetime::Datetime>().map(|d| d.to_string()).map_err(|e| e.to_string())
    }

    /// Texts of each form and each error, as the crate reads them.
    #[test]
    fn reads_as_toml_datetime_does() {
        let texts = [
            "1979-05-27T07:32:00Z", "1979-05-27t07:32:00z", "1979-05-27 07:32:00-07:00", "1979-05-27T00:32:00.999999+07:00",
            "1979-05-27T07:32:00", "1979-05-27T00:32:00.999999", "1979-05-27", "07:32:00", "00:32:00.999999", "07:32",
            "00:32:00.1234567891", "00:32:00.000", "00:32:00.0", "1979-05-27T07:32", "1979-05-27T07:32Z", "1979-05-27T07:32:00-00:00",
            "2000-02-29", "1900-02-29", "2023-04-31", "2023-13-01", "2023-00-01", "2023-01-00", "1979-05-27T24:00:00",
            "1979-05-27T23:60:00", "1979-05-27T23:59:61", "1979-05-27T23:59:60", "1979-05-27T07:32:00+24:00", "1979-05-27T07:32:00+23:60",
            "1979-05-27T07:32:00+7:00", "1979-05-27T07:32:00+07", "1979-05-27T07:32:00+07:", "1979-05-27T07:32:00X", "1979-05-27X07:32",
            "1979-5-27", "979-05-27", "1979-05-7", "1979-05", "1979-", "1979", "", "x", "7:32", "07:3", "07:32:0", "07:32:00.", "07:32:00.x",
            "07:", "07:32:", "1979-05-27T", "1979-05-27T07", "1979-05-27T07:", "1979-05-27 ", "1979-05-27T07:32:00Z ", "1979-05-27T07:32:00.5Zx",
            "07:32:00Z", "07:32:00+01:00", "00:00:00.000000000", "1979-05-27T07:32:00--1:00", "99999-01-01", "1979-05-27T07:32:00.+01:00",
            "-1979", "1979:05", "1979-05-27T07:32:00+99:99", "0000-01-01", "1979-05-27T7:32:00",
        ];
        for t in texts {
            assert_eq!(normalize(t), crate_reading(t), "{t:?}");
        }
    }

    proptest! {
        /// Random texts over the datetime alphabet read as the crate reads them.
        #[test]
        fn random_texts_read_as_the_crate_does(t in "[0-9:Tt Zz+.x-]{0,32}") {
            prop_assert_eq!(normalize(&t), crate_reading(&t));
        }

        /// Near-datetimes: each field of a valid datetime with random digits.
        #[test]
        fn near_datetimes_read_as_the_crate_does(y in "[0-9]{3,5}", mo in "[0-9]{1,3}", d in "[0-9]{1,3}", h in "[0-9]{1,3}", mi in "[0-9]{1,3}",
            s in "[0-9]{1,3}", f in "[0-9]{0,12}", sep in "[Tt ]", off in "(Z|z|[+-][0-9]{2}:[0-9]{2}|)") {
            let frac = if f.is_empty() { String::new() } else { format!(".{f}") };
            for t in [format!("{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{off}"), format!("{y}-{mo}-{d}"), format!("{h}:{mi}:{s}{frac}"), format!("{h}:{mi}")] {
                prop_assert_eq!(normalize(&t), crate_reading(&t), "{}", t);
            }
        }
    }
}
