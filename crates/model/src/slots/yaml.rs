//! YAML the way the device plugin reads it, plus the locations serde does not give.
//!
//! The plugin reads its config with `sigs.k8s.io/yaml`: YAML is converted to JSON (map keys
//! sorted, because Go marshals maps in key order) and then decoded with `encoding/json`. So
//! the model loads the text with `serde_norway` and converts it to [`Json`], the value the
//! plugin's decoder sees; [`go_yaml_error`] renders a syntax error the way go-yaml does
//! (`yaml: line N: <problem>`), and [`Locator`] finds the line and column of a key path,
//! because a loaded value carries no spans.
//!
//! The locator reads block-style YAML by indentation (the style every ConfigMap in the docs
//! uses). Inside flow collections (`{…}`, `[…]`) it stops at the deepest key it can see, so a
//! location is never wrong by more than "the enclosing key".

use serde_norway::Value;

/// A JSON value as `sigs.k8s.io/yaml` hands it to `encoding/json`.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(JsonNumber),
    String(String),
    Array(Vec<Json>),
    /// Keys in the order Go's JSON marshaller writes them: sorted bytewise.
    Object(Vec<(String, Json)>),
}

/// A number with both readings the decoder may need.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonNumber {
    /// The value as an integer, when it is one and fits in an `i64` (Go's `int`).
    pub int: Option<i64>,
    /// The literal as the JSON text would spell it (for error messages).
    pub text: String,
}

impl Json {
    /// The word `encoding/json` uses for this kind of value in `UnmarshalTypeError`.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "bool",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// Looks up `key` exactly (as the plugin's hand-written decoders do).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value as compact JSON text (what a `json.RawMessage` holds).
    pub fn to_json_text(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.text.clone(),
            Json::String(s) => quote_json(s),
            Json::Array(items) => {
                let inner: Vec<String> = items.iter().map(Json::to_json_text).collect();
                format!("[{}]", inner.join(","))
            }
            Json::Object(entries) => {
                let inner: Vec<String> =
                    entries.iter().map(|(k, v)| format!("{}:{}", quote_json(k), v.to_json_text())).collect();
                format!("{{{}}}", inner.join(","))
            }
        }
    }
}

fn quote_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Why the text is not YAML: go-yaml's text, and where libyaml saw the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// As `sigs.k8s.io/yaml` reports it, e.g. `yaml: line 3: mapping values are not allowed in this context`.
    pub go_text: String,
    /// 1-based line and column of the problem (libyaml's mark).
    pub line: u32,
    pub column: u32,
}

/// Loads `text` into the JSON value the plugin decodes. An empty document is `null`.
pub fn load(text: &str) -> Result<Json, YamlError> {
    if text.trim().is_empty() {
        return Ok(Json::Null);
    }
    match serde_norway::from_str::<Value>(text) {
        Ok(value) => Ok(to_json(&value)),
        Err(err) => Err(go_yaml_error(&err)),
    }
}

/// Converts a loaded YAML value as `sigs.k8s.io/yaml` does: non-string keys become their
/// text, maps are key-sorted, tags are dropped.
fn to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => Json::Number(number(n)),
        Value::String(s) => Json::String(s.clone()),
        Value::Sequence(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Mapping(map) => {
            let mut entries: Vec<(String, Json)> = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key = scalar_text(k);
                // A later duplicate wins, as in Go's map.
                entries.retain(|(existing, _)| existing != &key);
                entries.push((key, to_json(v)));
            }
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            Json::Object(entries)
        }
        Value::Tagged(tagged) => to_json(&tagged.value),
    }
}

fn number(n: &serde_norway::Number) -> JsonNumber {
    if let Some(i) = n.as_i64() {
        return JsonNumber { int: Some(i), text: i.to_string() };
    }
    if let Some(u) = n.as_u64() {
        return JsonNumber { int: None, text: u.to_string() };
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    // Go's JSON encoder writes integral floats without a fraction, so `2.0` decodes into an int.
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        #[allow(clippy::cast_possible_truncation)]
        let i = f as i64;
        return JsonNumber { int: Some(i), text: i.to_string() };
    }
    let text = if f.is_finite() && f.fract() == 0.0 { format!("{f:.0}") } else { format!("{f}") };
    JsonNumber { int: None, text }
}

/// The text of a scalar when it must become a string (a map key, a string-typed field).
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n).text,
        Value::String(s) => s.clone(),
        Value::Tagged(t) => scalar_text(&t.value),
        other => to_json(other).to_json_text(),
    }
}

/// libyaml scanner problems (go-yaml counts their line differently from parser problems).
const SCANNER_PROBLEMS: &[&str] = &[
    "mapping values are not allowed in this context",
    "found character that cannot start any token",
    "block sequence entries are not allowed in this context",
    "could not find expected ':'",
    "found unexpected end of stream",
    "found a tab character that violates indentation",
    "found a tab character where an indentation space is expected",
    "found unknown escape character",
    "did not find URI escaped octet",
    "found undefined tag handle",
    "did not find expected alphabetic or numeric character",
    "found unexpected document indicator",
    "found a tab character that violate indentation",
    "found incompatible YAML document",
    "found duplicate %YAML directive",
    "found extra whitespace",
];

/// Renders a serde_norway error as go-yaml would (`yaml: line N: problem`).
///
/// go-yaml prints the problem's 0-based line for parser errors and the 1-based line for
/// scanner errors ("Scanner errors don't iterate line before returning error"), falling back
/// to the context line; this reproduces that quirk so the text matches the plugin's log.
pub fn go_yaml_error(err: &serde_norway::Error) -> YamlError {
    let (line, column) = err
        .location()
        .map(|l| (u32::try_from(l.line()).unwrap_or(u32::MAX), u32::try_from(l.column()).unwrap_or(u32::MAX)))
        .unwrap_or((1, 1));
    let display = err.to_string();
    // Display is "problem at line L column C[, context at line L2 column C2]".
    let problem = display.split(" at line ").next().unwrap_or(&display).to_string();
    let problem = problem.split(", ").next().unwrap_or(&problem).to_string();
    let context_line = display
        .split(", ")
        .nth(1)
        .and_then(|ctx| ctx.split(" at line ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<u32>().ok());
    let is_scanner = SCANNER_PROBLEMS.iter().any(|p| problem.starts_with(p));
    let problem_line0 = line.saturating_sub(1);
    let go_line = if problem_line0 != 0 {
        if is_scanner {
            problem_line0 + 1
        } else {
            problem_line0
        }
    } else {
        context_line.map(|l| l.saturating_sub(1)).unwrap_or(0)
    };
    let go_text = if go_line != 0 { format!("yaml: line {go_line}: {problem}") } else { format!("yaml: {problem}") };
    YamlError { go_text, line, column }
}

/// One step of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSeg {
    Key(String),
    Index(usize),
}

impl PathSeg {
    pub fn key(k: &str) -> Self {
        PathSeg::Key(k.to_string())
    }
}

/// A line as the locator sees it: `- a: 1` becomes a dash line and a content line `a: 1`
/// whose indent is the column after the dash.
#[derive(Debug, Clone)]
struct VLine {
    line: u32,
    /// Indent in characters (0-based column of the first content character).
    indent: usize,
    dash: bool,
    content: String,
}

/// Finds the line and column of a key path in block-style YAML.
#[derive(Debug, Clone)]
pub struct Locator {
    lines: Vec<VLine>,
}

impl Locator {
    pub fn new(text: &str) -> Self {
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let trimmed = raw.trim_start_matches(' ');
            let mut indent = raw.chars().count() - trimmed.chars().count();
            let mut rest = trimmed.trim_end();
            if rest.is_empty() || rest.starts_with('#') || rest == "---" || rest == "..." {
                continue;
            }
            loop {
                if rest == "-" || rest.starts_with("- ") {
                    lines.push(VLine { line, indent, dash: true, content: String::new() });
                    let after = &rest[1..];
                    let stripped = after.trim_start_matches(' ');
                    indent += 1 + after.chars().count() - stripped.chars().count();
                    rest = stripped;
                    if rest.is_empty() {
                        break;
                    }
                } else {
                    lines.push(VLine { line, indent, dash: false, content: rest.to_string() });
                    break;
                }
            }
        }
        Locator { lines }
    }

    /// The 1-based (line, column) of the deepest part of `path` found, or (1, 1).
    pub fn locate(&self, path: &[PathSeg]) -> (u32, u32) {
        let mut best = (1, 1);
        let mut range = (0, self.lines.len());
        for seg in path {
            let Some((pos, child)) = self.step(range, seg) else { break };
            best = pos;
            range = child;
        }
        best
    }

    fn step(&self, (lo, hi): (usize, usize), seg: &PathSeg) -> Option<((u32, u32), (usize, usize))> {
        let first = self.lines.get(lo..hi)?.first()?;
        let block = first.indent;
        match seg {
            PathSeg::Key(key) => {
                for i in lo..hi {
                    let l = self.lines.get(i)?;
                    if l.dash || l.indent != block || key_of(&l.content).as_deref() != Some(key.as_str()) {
                        continue;
                    }
                    let mut j = i + 1;
                    while j < hi {
                        let n = self.lines.get(j)?;
                        if n.indent > block || (n.dash && n.indent == block) {
                            j += 1;
                        } else {
                            break;
                        }
                    }
                    let col = u32::try_from(l.indent + 1).unwrap_or(u32::MAX);
                    return Some(((l.line, col), (i + 1, j)));
                }
                None
            }
            PathSeg::Index(index) => {
                if !first.dash {
                    return None;
                }
                let dashes: Vec<usize> = (lo..hi)
                    .filter(|&i| self.lines.get(i).is_some_and(|l| l.dash && l.indent == block))
                    .collect();
                let start = *dashes.get(*index)?;
                let end = dashes.get(index + 1).copied().unwrap_or(hi);
                let l = self.lines.get(start)?;
                let col = u32::try_from(l.indent + 1).unwrap_or(u32::MAX);
                Some(((l.line, col), (start + 1, end)))
            }
        }
    }
}

/// The key of a `key: value` line (quotes removed), if the line is one.
fn key_of(content: &str) -> Option<String> {
    let (key, _) = if let Some(rest) = content.strip_prefix('"') {
        let end = rest.find('"')?;
        let after = rest.get(end + 1..)?;
        after.trim_start().strip_prefix(':')?;
        return rest.get(..end).map(str::to_string);
    } else if let Some(rest) = content.strip_prefix('\'') {
        let end = rest.find('\'')?;
        let after = rest.get(end + 1..)?;
        after.trim_start().strip_prefix(':')?;
        return rest.get(..end).map(str::to_string);
    } else {
        let bytes: Vec<char> = content.chars().collect();
        let mut found = None;
        for (i, c) in bytes.iter().enumerate() {
            if *c == ':' && bytes.get(i + 1).is_none_or(|n| *n == ' ') {
                found = Some(i);
                break;
            }
        }
        let i = found?;
        (bytes.get(..i)?.iter().collect::<String>(), i)
    };
    Some(key.trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(parts: &[&str]) -> Vec<PathSeg> {
        parts
            .iter()
            .map(|p| match p.parse::<usize>() {
                Ok(i) => PathSeg::Index(i),
                Err(_) => PathSeg::key(p),
            })
            .collect()
    }

    const DOC: &str = "version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n    - name: nvidia.com/mig-1g.5gb\n      replicas: 1\n";

    /// Keys, sequence items and keys inside items are found at their own line and column.
    #[test]
    fn locates_block_style_paths() {
        let loc = Locator::new(DOC);
        assert_eq!(loc.locate(&path(&["flags", "migStrategy"])), (3, 3));
        assert_eq!(loc.locate(&path(&["sharing", "timeSlicing", "resources", "0"])), (7, 5));
        assert_eq!(loc.locate(&path(&["sharing", "timeSlicing", "resources", "1", "replicas"])), (10, 7));
        assert_eq!(loc.locate(&path(&["sharing", "timeSlicing", "resources", "0", "name"])), (7, 7));
    }

    /// Indented sequences (`resources:` then `  - name:`) locate as well as compact ones.
    #[test]
    fn locates_indented_sequences() {
        let doc = "sharing:\n  timeSlicing:\n    resources:\n      - name: nvidia.com/gpu\n        replicas: 1\n";
        let loc = Locator::new(doc);
        assert_eq!(loc.locate(&path(&["sharing", "timeSlicing", "resources", "0", "replicas"])), (5, 9));
    }

    /// A path into a flow collection stops at the deepest block key.
    #[test]
    fn flow_collections_fall_back_to_the_key() {
        let loc = Locator::new("sharing:\n  timeSlicing: {resources: [{name: gpu}]}\n");
        assert_eq!(loc.locate(&path(&["sharing", "timeSlicing", "resources", "0"])), (2, 3));
    }

    /// Maps come out key-sorted and integral floats read as integers, as after Go's YAML→JSON step.
    #[test]
    fn converts_like_sigs_k8s_io_yaml() {
        let json = load("b: 2.0\na: [1, x]\n").unwrap();
        assert_eq!(json.to_json_text(), r#"{"a":[1,"x"],"b":2}"#);
        assert_eq!(load("").unwrap(), Json::Null);
    }

    /// Syntax errors carry go-yaml's `yaml: line N:` text and libyaml's location.
    #[test]
    fn syntax_errors_read_like_go_yaml() {
        let err = load("version: v1\nsharing: a: b\n").unwrap_err();
        assert_eq!(err.go_text, "yaml: line 2: mapping values are not allowed in this context");
        assert_eq!(err.line, 2);
        let err = load("version: v1\nflags:\n  - a\n  b: c\n").unwrap_err();
        assert!(err.go_text.starts_with("yaml: line "), "{}", err.go_text);
    }
}
