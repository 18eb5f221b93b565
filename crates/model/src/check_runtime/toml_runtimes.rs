//! The CRI runtime tables of a TOML text (a `containerd config dump` or the main config),
//! read line by line exactly as `scripts/check-runtime.sh` reads them (its `toml_runtimes`
//! awk program), so the script and the model see the same thing — including what neither
//! understands. Not a TOML parser: containerd's dumps are one table header or one
//! `key = value` per line, in every recorded version's format (`"` or `'` quoting).

/// What one text says about CRI runtimes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuntimeTables {
    /// The top-level `version = N`, as written.
    pub version: Option<String>,
    /// `containerd.default_runtime_name`, the last one written.
    pub default_runtime_name: Option<String>,
    /// Runtime names in order of their table headers (may repeat).
    pub runtimes: Vec<String>,
    /// `(runtime, key, value)`: `@runtime_type` for the runtime's type, option keys as written.
    pub settings: Vec<(String, String, String)>,
}

impl RuntimeTables {
    /// Runtime names, sorted bytewise and deduplicated (the script's `sort -u` under C).
    pub fn names(&self) -> Vec<String> {
        let mut n = self.runtimes.clone();
        crate::sort::sort(&mut n);
        n.dedup();
        n
    }

    pub fn has_runtime(&self, name: &str) -> bool {
        self.runtimes.iter().any(|r| r == name)
    }

    /// The last value of `key` for `runtime`, or "".
    pub fn setting(&self, runtime: &str, key: &str) -> String {
        self.settings.iter().rev().find(|(r, k, _)| r == runtime && k == key).map(|(_, _, v)| v.clone()).unwrap_or_default()
    }

    /// `key=value` lines of `runtime`, zero values (`""`, `0`, `false`, `[]`) left out,
    /// sorted: the script's `settings_of`.
    pub fn settings_of(&self, runtime: &str) -> Vec<String> {
        let mut map: Vec<(String, String)> = Vec::new();
        for (r, k, v) in &self.settings {
            if r != runtime || is_zero(v) {
                continue;
            }
            match map.iter_mut().find(|(mk, _)| mk == k) {
                Some(entry) => entry.1 = v.clone(),
                None => map.push((k.clone(), v.clone())),
            }
        }
        let mut lines: Vec<String> = map.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
        crate::sort::sort(&mut lines);
        lines
    }
}

fn is_zero(v: &str) -> bool {
    matches!(v, "" | "0" | "false" | "[]")
}

/// Which plugin ids count as the CRI runtime config: one given id, or any of
/// `cri` (v1 short id), `io.containerd.grpc.v1.cri` (v2), `io.containerd.cri.v1.runtime` (v3+).
fn is_cri_id(id: &str, want: Option<&str>) -> bool {
    match want {
        Some(w) => id == w,
        None => matches!(id, "cri" | "io.containerd.grpc.v1.cri" | "io.containerd.cri.v1.runtime"),
    }
}

/// Splits a dotted key or header path; quoted parts may hold dots; blanks are dropped.
fn split_path(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            ' ' | '\t' => {}
            '.' => parts.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    parts.push(cur);
    parts
}

fn trim_blank(s: &str) -> &str {
    s.trim_matches([' ', '\t'])
}

/// Index of the first `close` after which only blanks and an optional `# comment` follow.
fn closing(s: &str, close: char) -> Option<usize> {
    s.char_indices().find(|&(i, c)| {
        c == close && {
            let rest = s.get(i + c.len_utf8()..).unwrap_or_default().trim_start_matches([' ', '\t']);
            rest.is_empty() || rest.starts_with('#')
        }
    }).map(|(i, _)| i)
}

/// A value as the script's `value()` reads it: quotes removed, trailing comment dropped.
fn value(v: &str) -> String {
    let v = v.trim_start_matches([' ', '\t']);
    for q in ['"', '\''] {
        if let Some(rest) = v.strip_prefix(q) {
            return match closing(rest, q) {
                Some(i) => rest.get(..i).unwrap_or_default().to_string(),
                None => rest.to_string(),
            };
        }
    }
    let v = match v.find('#') {
        Some(i) => v.get(..i).unwrap_or_default(),
        None => v,
    };
    v.trim_end_matches([' ', '\t']).to_string()
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Elsewhere,
    Containerd,
    Runtime,
    Options,
}

/// Reads the CRI runtime tables of `text`; `want` limits them to one plugin id.
pub fn toml_runtimes(text: &str, want: Option<&str>) -> RuntimeTables {
    read(text, want, false)
}

/// The top-level `version` of `text` as [`toml_runtimes`] reads it, reading no
/// further than the first table header (a dump's version line is its first).
pub fn top_version(text: &str) -> Option<String> {
    read(text, None, true).version
}

/// [`toml_runtimes`]; with `top_only`, stops at the first table header.
fn read(text: &str, want: Option<&str>, top_only: bool) -> RuntimeTables {
    let mut out = RuntimeTables::default();
    let mut ctx = Ctx::Elsewhere;
    let mut runtime = String::new();
    let mut top = true;
    for line in text.lines() {
        let lead = line.trim_start_matches([' ', '\t']);
        if lead.is_empty() || lead.starts_with('#') {
            continue;
        }
        if top_only && lead.starts_with('[') {
            break;
        }
        if lead.starts_with("[[") {
            ctx = Ctx::Elsewhere;
            top = false;
            continue;
        }
        if let Some(h) = lead.strip_prefix('[') {
            let h = match closing(h, ']') {
                Some(i) => h.get(..i).unwrap_or_default(),
                None => h,
            };
            let p = split_path(h);
            top = false;
            ctx = Ctx::Elsewhere;
            runtime.clear();
            let part = |i: usize| p.get(i).map(String::as_str).unwrap_or_default();
            if p.len() < 3 || part(0) != "plugins" || !is_cri_id(part(1), want) || part(2) != "containerd" {
                continue;
            }
            if p.len() == 3 {
                ctx = Ctx::Containerd;
                continue;
            }
            if part(3) != "runtimes" || p.len() < 5 {
                continue;
            }
            runtime = part(4).to_string();
            if p.len() == 5 {
                ctx = Ctx::Runtime;
                out.runtimes.push(runtime.clone());
            } else if p.len() == 6 && part(5) == "options" {
                ctx = Ctx::Options;
            }
            continue;
        }
        let Some((k, v)) = line.split_once('=') else { continue };
        let k = trim_blank(k);
        let v = value(v);
        if top && k == "version" {
            out.version = Some(v);
            continue;
        }
        let kp = split_path(k);
        match (ctx, kp.as_slice()) {
            (Ctx::Containerd, [key]) if key == "default_runtime_name" => out.default_runtime_name = Some(v),
            (Ctx::Runtime, [key]) if key == "runtime_type" => out.settings.push((runtime.clone(), "@runtime_type".into(), v)),
            (Ctx::Runtime, [opts, key]) if opts == "options" => out.settings.push((runtime.clone(), key.clone(), v)),
            (Ctx::Options, [key]) => out.settings.push((runtime.clone(), key.clone(), v)),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both quoting styles, comments, dotted option keys and other plugins' tables.
    #[test]
    fn reads_runtime_tables_in_both_dump_styles() {
        /// text, plugin id, runtime names, default runtime, runc settings
        type Case<'a> = (&'a str, Option<&'a str>, &'a [&'a str], &'a str, &'a [&'a str]);
        let cases: [Case; 3] = [
            (
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\" # c\n\
                 [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  runtime_type = \"io.containerd.runc.v2\"\n\
                 [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n  SystemdCgroup = true\n  IoUid = 0\n",
                None,
                &["runc"],
                "runc",
                &["@runtime_type=io.containerd.runc.v2", "SystemdCgroup=true"],
            ),
            (
                "version = 3\n[plugins.'io.containerd.cri.v1.runtime'.containerd]\n  default_runtime_name = 'nvidia'\n\
                 [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]\n  options.SystemdCgroup = true\n\
                 [plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes.stale]\n",
                Some("io.containerd.cri.v1.runtime"),
                &["runc"],
                "nvidia",
                &["SystemdCgroup=true"],
            ),
            ("[plugins.cri.containerd.runtimes.runc.options]\nSystemdCgroup = true\n", None, &[], "", &["SystemdCgroup=true"]),
        ];
        for (text, want, names, default, runc) in cases {
            let t = toml_runtimes(text, want);
            assert_eq!(t.names(), names.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{text}");
            assert_eq!(t.default_runtime_name.clone().unwrap_or_default(), default, "{text}");
            assert_eq!(t.settings_of("runc"), runc.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{text}");
            assert_eq!(top_version(text), toml_runtimes(text, None).version, "{text}");
        }
    }
}
