//! Semantic versions as Kubernetes' CEL semver library holds them (blang/semver v4:
//! `semver.Parse`, precedence by semver.org 2.0.0 §11).

use std::cmp::Ordering;

/// A parsed version; build metadata is kept but never compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Semver {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
}

impl Semver {
    /// blang's `Parse`; the error is its text.
    pub fn parse(s: &str) -> Result<Semver, String> {
        if s.is_empty() {
            return Err("Version string empty".into());
        }
        let (core_pre, _build) = s.split_once('+').unwrap_or((s, ""));
        let (core, pre) = match core_pre.split_once('-') {
            Some((c, p)) => (c, Some(p)),
            None => (core_pre, None),
        };
        let parts: Vec<&str> = core.split('.').collect();
        let [ma, mi, pa] = parts.as_slice() else {
            return Err("No Major.Minor.Patch elements found".into());
        };
        let num = |p: &str, what: &str| -> Result<u64, String> {
            if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
                return Err(format!("Invalid character(s) found in {what} number {p:?}"));
            }
            if p.len() > 1 && p.starts_with('0') {
                return Err(format!("{} number must not contain leading zeroes {p:?}", capitalise(what)));
            }
            p.parse().map_err(|_| format!("Invalid character(s) found in {what} number {p:?}"))
        };
        let pre = match pre {
            None => Vec::new(),
            Some(p) => {
                let ids: Vec<String> = p.split('.').map(str::to_string).collect();
                for id in &ids {
                    if id.is_empty() {
                        return Err("Prerelease is empty".into());
                    }
                    if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                        return Err(format!("Invalid character(s) found in prerelease {id:?}"));
                    }
                    if id.chars().all(|c| c.is_ascii_digit()) && id.len() > 1 && id.starts_with('0') {
                        return Err(format!("Numeric PreRelease version must not contain leading zeroes {id:?}"));
                    }
                }
                ids
            }
        };
        Ok(Semver { major: num(ma, "major")?, minor: num(mi, "minor")?, patch: num(pa, "patch")?, pre })
    }

    /// Precedence: `-1`, `0`, `1`.
    pub fn compare(&self, o: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&o.pre) {
            let ord = match (a.parse::<u64>(), b.parse::<u64>()) {
                (Ok(x), Ok(y)) => x.cmp(&y),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                _ => a.cmp(b),
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}
