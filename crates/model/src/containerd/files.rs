//! A node's files as a value: path → bytes, plus the working directory the daemon was
//! started in (it matters for relative globs on old 1.x). Path handling follows Go's
//! `path/filepath` (`Clean`, `Join`, `Dir`, `Glob`, `Match`) on Unix, because that is
//! what containerd's `resolveImports` calls.

use std::collections::{BTreeMap, BTreeSet};

/// A virtual filesystem: absolute paths to file contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    files: BTreeMap<String, Vec<u8>>,
    /// The process's working directory (containerd's goldens ran in `/`).
    pub cwd: String,
}

impl Default for Files {
    fn default() -> Self {
        Files { files: BTreeMap::new(), cwd: "/".to_string() }
    }
}

/// What reading a path finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    File(&'a [u8]),
    Dir,
    Missing,
}

impl Files {
    pub fn new() -> Self {
        Files::default()
    }

    /// Adds (or replaces) the file at `path` (made absolute against `cwd` and cleaned).
    pub fn insert(&mut self, path: &str, content: impl Into<Vec<u8>>) {
        let p = self.absolute(path);
        self.files.insert(p, content.into());
    }

    /// Builder form of [`Files::insert`].
    pub fn with(mut self, path: &str, content: impl Into<Vec<u8>>) -> Self {
        self.insert(path, content);
        self
    }

    pub fn remove(&mut self, path: &str) -> Option<Vec<u8>> {
        let p = self.absolute(path);
        self.files.remove(&p)
    }

    /// All files, sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }

    /// `path` made absolute against the working directory, cleaned.
    pub fn absolute(&self, path: &str) -> String {
        if path.starts_with('/') {
            clean(path)
        } else {
            join(&self.cwd, path)
        }
    }

    /// What is at `path` (relative paths resolve against `cwd`).
    pub fn read(&self, path: &str) -> Entry<'_> {
        let p = self.absolute(path);
        if let Some(content) = self.files.get(&p) {
            return Entry::File(content);
        }
        let prefix = if p == "/" { "/".to_string() } else { format!("{p}/") };
        if self.files.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix)) {
            Entry::Dir
        } else {
            Entry::Missing
        }
    }

    /// The names in directory `dir` (files and subdirectories), sorted.
    fn read_dir(&self, dir: &str) -> Vec<String> {
        let p = self.absolute(dir);
        let prefix = if p == "/" { "/".to_string() } else { format!("{p}/") };
        let mut names = BTreeSet::new();
        for (k, _) in self.files.range(prefix.clone()..) {
            let Some(rest) = k.strip_prefix(&prefix) else { break };
            if let Some(name) = rest.split('/').next() {
                if !name.is_empty() {
                    names.insert(name.to_string());
                }
            }
        }
        names.into_iter().collect()
    }

    /// Go's `filepath.Glob`: matches in lexical order per directory; a malformed
    /// pattern is an error (`syntax error in pattern`). Paths keep the pattern's form
    /// (relative stays relative).
    pub fn glob(&self, pattern: &str) -> Result<Vec<String>, GlobError> {
        // Like Go, a malformed pattern is only noticed when a name is matched against it.
        if !has_meta(pattern) {
            return Ok(match self.read(pattern) {
                Entry::Missing => Vec::new(),
                _ => vec![pattern.to_string()],
            });
        }
        // Go's `Glob` recurses once per directory level that holds a meta character
        // (`/a*/b*/c*`); the same walk as a loop, so a pattern of a thousand levels
        // cannot exhaust the stack. Every pattern is split before any directory is read.
        let mut levels = Vec::new();
        let mut rest = pattern;
        let base = loop {
            let (dir, file) = split(rest);
            let dir = clean_glob_path(dir);
            levels.push(file);
            if !has_meta(dir) {
                break dir;
            }
            if dir == rest {
                return Err(GlobError);
            }
            rest = dir;
        };
        let mut found = vec![base.to_string()];
        for file in levels.iter().rev() {
            let mut next = Vec::new();
            for d in &found {
                next.extend(self.glob_dir(d, file)?);
            }
            found = next;
        }
        Ok(found)
    }

    fn glob_dir(&self, dir: &str, pattern: &str) -> Result<Vec<String>, GlobError> {
        let lookup = if dir.is_empty() { "." } else { dir };
        if self.read(lookup) != Entry::Dir {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for name in self.read_dir(lookup) {
            if match_pattern(pattern, &name)? {
                out.push(join(dir, &name));
            }
        }
        Ok(out)
    }
}

/// `filepath.ErrBadPattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobError;

impl std::fmt::Display for GlobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("syntax error in pattern")
    }
}

fn has_meta(p: &str) -> bool {
    p.contains(['*', '?', '[', '\\'])
}

/// `filepath.Split`: everything up to and including the last `/`, and the rest.
fn split(p: &str) -> (&str, &str) {
    match p.rfind('/') {
        Some(i) => (p.get(..=i).unwrap_or(""), p.get(i + 1..).unwrap_or("")),
        None => ("", p),
    }
}

/// `cleanGlobPath`: the directory part without its trailing `/` (a prefix of `p`).
fn clean_glob_path(p: &str) -> &str {
    match p {
        "" => ".",
        "/" => "/",
        _ => p.get(..p.len() - 1).unwrap_or(""),
    }
}

/// Go's `filepath.Clean` for Unix paths.
pub fn clean(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    // Joined by hand: `[&str]::join` is a second instantiation of alloc's join beside
    // the `[String]` one the app links anyway (first load).
    let mut body = String::with_capacity(path.len());
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            body.push('/');
        }
        body.push_str(p);
    }
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".to_string(),
        (false, false) => body,
    }
}

/// Go's `filepath.Join`.
pub fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => String::new(),
        (true, false) => clean(b),
        (false, true) => clean(a),
        (false, false) => clean(&format!("{a}/{b}")),
    }
}

/// Go's `filepath.Dir`.
pub fn dir(path: &str) -> String {
    match path.rfind('/') {
        Some(i) => clean(path.get(..=i).unwrap_or("/")),
        None => ".".to_string(),
    }
}

/// Go's `filepath.Match` for one path component.
pub fn match_pattern(pattern: &str, name: &str) -> Result<bool, GlobError> {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Validate the pattern fully even when the name stops matching early.
    validate(&p)?;
    Ok(match_from(&p, &n))
}

fn validate(p: &[char]) -> Result<(), GlobError> {
    let mut i = 0;
    while i < p.len() {
        match p.get(i) {
            Some('\\') => {
                if i + 1 >= p.len() {
                    return Err(GlobError);
                }
                i += 2;
            }
            Some('[') => {
                let (_, end) = parse_class(p, i + 1, None)?;
                i = end;
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// Parses a character class starting after `[`; returns whether `c` matches and the
/// index after `]`.
fn parse_class(p: &[char], mut i: usize, c: Option<char>) -> Result<(bool, usize), GlobError> {
    let negated = p.get(i) == Some(&'^');
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        match p.get(i) {
            None => return Err(GlobError),
            Some(']') if !first => {
                i += 1;
                break;
            }
            _ => {}
        }
        first = false;
        let (lo, next) = class_char(p, i)?;
        i = next;
        let mut hi = lo;
        if p.get(i) == Some(&'-') {
            let (h, next) = class_char(p, i + 1)?;
            hi = h;
            i = next;
        }
        if let Some(c) = c {
            if lo <= c && c <= hi {
                matched = true;
            }
        }
    }
    Ok((matched != negated, i))
}

fn class_char(p: &[char], i: usize) -> Result<(char, usize), GlobError> {
    match p.get(i) {
        None | Some('-') | Some(']') => Err(GlobError),
        Some('\\') => p.get(i + 1).map(|c| (*c, i + 2)).ok_or(GlobError),
        Some(c) => Ok((*c, i + 1)),
    }
}

/// Go's `Match` loop (a valid pattern): the pattern in chunks, each a run of `*`
/// then characters up to the next `*`; a chunk is matched at the leftmost place it
/// fits (chunks have a fixed length, so leftmost is never worse), the last one where
/// it ends the name. Iterative and O(pattern × name): a pattern of a thousand `*`
/// neither recurses nor backtracks exponentially.
fn match_from(mut p: &[char], mut n: &[char]) -> bool {
    'pattern: while !p.is_empty() {
        let (star, chunk, rest) = scan_chunk(p);
        p = rest;
        if star && chunk.is_empty() {
            // A trailing `*` matches the rest unless it holds a `/`.
            return !n.contains(&'/');
        }
        if let Some(t) = match_chunk(chunk, n) {
            if t.is_empty() || !p.is_empty() {
                n = t;
                continue;
            }
        }
        if star {
            // Skip i + 1 characters, never a `/`.
            for i in 0..n.len() {
                if n.get(i) == Some(&'/') {
                    break;
                }
                let Some(t) = match_chunk(chunk, n.get(i + 1..).unwrap_or(&[])) else { continue };
                if p.is_empty() && !t.is_empty() {
                    continue;
                }
                n = t;
                continue 'pattern;
            }
        }
        return false;
    }
    n.is_empty()
}

/// `scanChunk`: leading stars, then the chunk up to the next `*` outside a class.
fn scan_chunk(p: &[char]) -> (bool, &[char], &[char]) {
    let stars = p.iter().take_while(|c| **c == '*').count();
    let p = p.get(stars..).unwrap_or(&[]);
    let mut in_range = false;
    let mut i = 0;
    while let Some(c) = p.get(i) {
        match c {
            '\\' if i + 1 < p.len() => i += 1,
            '[' => in_range = true,
            ']' => in_range = false,
            '*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    let (chunk, rest) = p.split_at(i.min(p.len()));
    (stars > 0, chunk, rest)
}

/// `matchChunk`: the rest of `n` after `chunk` matched at its start, if it does.
fn match_chunk<'n>(chunk: &[char], mut n: &'n [char]) -> Option<&'n [char]> {
    let mut i = 0;
    while let Some(pc) = chunk.get(i) {
        let (&c, after) = n.split_first()?;
        match pc {
            '[' => {
                let (true, end) = parse_class(chunk, i + 1, Some(c)).ok()? else { return None };
                if c == '/' {
                    return None;
                }
                i = end;
            }
            '?' if c != '/' => i += 1,
            '?' => return None,
            '\\' => {
                if chunk.get(i + 1) != Some(&c) {
                    return None;
                }
                i += 2;
            }
            lit if *lit == c => i += 1,
            _ => return None,
        }
        n = after;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> Files {
        Files::new()
            .with("/etc/containerd/config.toml", "")
            .with("/etc/containerd/conf.d/20-b.toml", "")
            .with("/etc/containerd/conf.d/10-a.toml", "")
            .with("/etc/containerd/conf.d/99-nvidia.conf", "")
            .with("/etc/containerd/conf.d/99-nvidia.toml.disabled", "")
    }

    /// Globs match only their pattern, in byte order.
    #[test]
    fn glob_sorted_and_filtered() {
        let m = node().glob("/etc/containerd/conf.d/*.toml").unwrap();
        assert_eq!(m, ["/etc/containerd/conf.d/10-a.toml", "/etc/containerd/conf.d/20-b.toml"]);
        assert!(node().glob("/etc/containerd/none/*.toml").unwrap().is_empty());
        assert_eq!(node().glob("/etc/*/conf.d/1*").unwrap(), ["/etc/containerd/conf.d/10-a.toml"]);
        assert_eq!(node().glob("/etc/containerd/[").unwrap_err(), GlobError);
    }

    /// A relative glob resolves against the working directory, and stays relative.
    #[test]
    fn relative_glob_uses_cwd() {
        let mut f = node();
        assert!(f.glob("conf.d/*.toml").unwrap().is_empty());
        f.cwd = "/etc/containerd".into();
        assert_eq!(f.glob("conf.d/*.toml").unwrap(), ["conf.d/10-a.toml", "conf.d/20-b.toml"]);
    }

    /// Go's Clean/Join/Dir.
    #[test]
    fn go_paths() {
        assert_eq!(clean("/etc//containerd/./conf.d/../x.toml"), "/etc/containerd/x.toml");
        assert_eq!(clean("a/../../b"), "../b");
        assert_eq!(join("/etc/containerd", "conf.d/*.toml"), "/etc/containerd/conf.d/*.toml");
        assert_eq!(dir("/etc/containerd/config.toml"), "/etc/containerd");
        assert_eq!(dir("config.toml"), ".");
    }
}
