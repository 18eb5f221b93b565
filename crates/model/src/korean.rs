//! Korean particles after a value: `이(가)`, `을(를)`, `은(는)`, `과(와)` and `(으)로`
//! written in a template are chosen by the value's last syllable — its final
//! consonant (batchim), and for `(으)로` whether that is ㄹ — as a Korean reader
//! would say it: Hangul by its jamo, digits as read (`1` 일, `2` 이, `0` 영), Latin
//! letters by the usual reading of the last letter (`…l` ㄹ, `…m`, `…n` with one).
//! A value that gives no syllable (only symbols) keeps the written pair.

/// The pairs a template may write after a placeholder.
pub const NOTATIONS: [&str; 5] = ["이(가)", "을(를)", "은(는)", "과(와)", "(으)로"];

/// The final consonant of `word`'s last syllable: `Some((has_batchim, is_rieul))`,
/// `None` when nothing in it is read as a syllable.
pub fn batchim(word: &str) -> Option<(bool, bool)> {
    let c = word.chars().rev().find(|&c| read_aloud(c))?;
    Some(match c {
        '가'..='힣' => {
            let jong = (u32::from(c) - 0xAC00) % 28;
            (jong != 0, jong == 8)
        }
        // 영 일 이 삼 사 오 육 칠 팔 구
        '0' | '3' | '6' => (true, false),
        '1' | '7' | '8' => (true, true),
        '2' | '4' | '5' | '9' => (false, false),
        _ if c.is_ascii_alphabetic() => match c.to_ascii_lowercase() {
            'l' => (true, true),
            'm' | 'n' => (true, false),
            _ => (false, false),
        },
        _ => return None,
    })
}

/// Whether `c` is read aloud as (part of) a syllable: an ASCII letter or digit, or any
/// other character outside the punctuation and symbol blocks (Latin-1's, U+2000 to
/// U+2BFF, CJK punctuation, full-width ASCII punctuation). Ranges rather than
/// `char::is_alphanumeric`, whose Unicode tables (alphabetic and numeric) the app's
/// first load would otherwise carry for the few scripts a lab value is written in.
fn read_aloud(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || !(c.is_ascii()
            || matches!(c, '\u{80}'..='\u{BF}' | '\u{D7}' | '\u{F7}' | '\u{2000}'..='\u{2BFF}' | '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FF0F}'))
}

/// The particle for `notation` (one of [`NOTATIONS`]) after `word`; the notation
/// itself when the word gives no syllable.
pub fn particle(word: &str, notation: &'static str) -> &'static str {
    let Some((final_consonant, rieul)) = batchim(word) else { return notation };
    match notation {
        "이(가)" => if final_consonant { "이" } else { "가" },
        "을(를)" => if final_consonant { "을" } else { "를" },
        "은(는)" => if final_consonant { "은" } else { "는" },
        "과(와)" => if final_consonant { "과" } else { "와" },
        "(으)로" => if final_consonant && !rieul { "으로" } else { "로" },
        other => other,
    }
}

/// Closing marks a template may put between a value and its particle (`"{handler}"이(가)`).
const CLOSERS: [char; 6] = ['"', '\'', '`', ')', '」', '”'];

/// The particle for a notation at the start of `rest` (after any closing marks),
/// chosen by `word`: the closing marks, the particle, and how many bytes of `rest`
/// they replace; `None` when no notation follows.
pub fn leading_particle<'r>(word: &str, rest: &'r str) -> Option<(&'r str, &'static str, usize)> {
    let closers = rest.len() - rest.trim_start_matches(CLOSERS).len();
    let (marks, tail) = rest.split_at(closers);
    NOTATIONS.iter().find(|n| tail.starts_with(*n)).map(|n| (marks, particle(word, n), closers + n.len()))
}

/// Where `needle` first starts in `hay` — `str::find` by a byte window: `str::find`
/// with a `&str` pattern links core's two-way substring searcher (about 2.5 KB of code),
/// which the app's first load otherwise does without (ARCHITECTURE.md, "Size").
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes().windows(needle.len().max(1)).position(|w| w == needle.as_bytes())
}

/// Fills `{name}` placeholders of `template` from `args`, choosing each particle that
/// follows one by the value put there.
pub fn fill<'a>(template: &str, args: impl Fn(&str) -> Option<&'a str>) -> String {
    fill_between(template, "{", "}", args)
}

/// [`fill`] for placeholders written `open` NAME `close` (the app's Fluent-style
/// `{ $name }`); a placeholder whose name `args` does not know stays as written.
pub fn fill_between<'a>(template: &str, open: &str, close: &str, args: impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(at) = find(rest, open) {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let inner = from.get(open.len()..).unwrap_or("");
        let found = find(inner, close).and_then(|end| args(inner.get(..end).unwrap_or("")).map(|v| (v, end)));
        match found {
            Some((value, end)) => {
                out.push_str(value);
                let after = inner.get(end + close.len()..).unwrap_or("");
                rest = match leading_particle(value, after) {
                    Some((marks, p, skip)) => {
                        out.push_str(marks);
                        out.push_str(p);
                        after.get(skip..).unwrap_or("")
                    }
                    None => after,
                };
            }
            None => {
                out.push_str(open);
                rest = inner;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    /// [`super::find`] is `str::find` for every non-empty needle, at ASCII and at
    /// multi-byte text.
    #[test]
    fn find_is_str_find() {
        for (hay, needle) in [("a { $x } b", "{ $"), ("{", "{"), ("", "}"), ("ab", "abc"), ("한국어 { $n }", " }"), ("x, y", ", "), ("aaa", "aa")] {
            assert_eq!(super::find(hay, needle), hay.find(needle), "{hay:?} {needle:?}");
        }
    }

    use super::*;

    /// Each pair after Hangul, digits, Latin and symbol-only values, as read aloud.
    #[test]
    fn particles_by_the_last_syllable() {
        let cases = [
            ("nvidia", "이(가)", "가"),
            ("containerd.service", "이(가)", "가"),
            ("config.toml", "이(가)", "이"),
            ("maxUnavailable 1", "을(를)", "을"),
            ("2", "을(를)", "를"),
            ("SIGTERM", "(으)로", "으로"),
            ("0", "(으)로", "으로"),
            ("1", "(으)로", "로"),
            ("toml", "(으)로", "로"),
            ("runc", "(으)로", "로"),
            ("노드", "은(는)", "는"),
            ("파일", "(으)로", "로"),
            ("핸들러 \"nvidia\"", "과(와)", "와"),
            ("/etc/containerd/config.toml:7", "이(가)", "이"),
            ("\"\"", "이(가)", "이(가)"),
            ("×", "이(가)", "이(가)"),
            ("GPU 8개 × 2", "을(를)", "를"),
            ("“노드”", "은(는)", "는"),
            ("v1.6.20 →", "이(가)", "이"),
            ("é", "이(가)", "이(가)"),
        ];
        for (word, notation, want) in cases {
            assert_eq!(particle(word, notation), want, "{word} {notation}");
        }
    }

    /// Placeholders are filled and the pair after each is resolved; an unknown name
    /// and a `{` that opens nothing stay as written.
    #[test]
    fn fill_resolves_the_particle_after_each_value() {
        let args = |k: &str| match k {
            "unit" => Some("containerd.service"),
            "file" => Some("/etc/containerd/conf.d/99-nvidia.toml"),
            "n" => Some("3"),
            _ => None,
        };
        assert_eq!(
            fill("{unit}이(가) 재시작되지 않았다. {file}이(가) 테이블을(를) \"{n}\"(으)로 {other} {", args),
            "containerd.service가 재시작되지 않았다. /etc/containerd/conf.d/99-nvidia.toml이 테이블을(를) \"3\"으로 {other} {"
        );
    }
}
