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
    load_with_duplicates(text).map(|(json, _)| json)
}

/// Like [`load`], and also the mapping keys that appeared twice (go-yaml v2 keeps the last
/// one silently; serde's own `Value` would refuse the document).
pub fn load_with_duplicates(text: &str) -> Result<(Json, Vec<Vec<PathSeg>>), YamlError> {
    if text.trim().is_empty() {
        return Ok((Json::Null, Vec::new()));
    }
    match serde_norway::from_str::<Raw>(text) {
        Ok(raw) => {
            let mut dups = Vec::new();
            let json = raw_to_json(&raw, &[], &mut dups);
            Ok((json, dups))
        }
        Err(err) => Err(go_yaml_error(&err)),
    }
}

/// A YAML tree that keeps every mapping entry, duplicates included.
#[derive(Debug, Clone, PartialEq)]
enum Raw {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Raw>),
    Map(Vec<(Raw, Raw)>),
}

impl<'de> serde::Deserialize<'de> for Raw {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> serde::de::Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        serde::Deserialize::deserialize(d)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Raw, E> {
        Ok(i64::try_from(v).map(Raw::Int).unwrap_or(Raw::UInt(v)))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Raw, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(i64::try_from(v).map(Raw::Int).unwrap_or(Raw::Float(v as f64)))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Raw, E> {
        #[allow(clippy::cast_precision_loss)]
        Ok(i64::try_from(v).map(Raw::Int).unwrap_or(Raw::Float(v as f64)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Str(v))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Raw>()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Raw, Raw>()? {
            entries.push((k, v));
        }
        Ok(Raw::Map(entries))
    }
    /// A value with a custom tag (`!foo bar`): the tag is dropped, as go-yaml does for JSON.
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Raw, A::Error> {
        use serde::de::VariantAccess;
        let (_tag, variant): (serde::de::IgnoredAny, _) = data.variant()?;
        variant.newtype_variant::<Raw>()
    }
}

fn raw_key(raw: &Raw) -> String {
    match raw {
        Raw::Null => "null".into(),
        Raw::Bool(b) => b.to_string(),
        Raw::Str(s) => s.clone(),
        Raw::Int(_) | Raw::UInt(_) | Raw::Float(_) => match raw_to_json(raw, &[], &mut Vec::new()) {
            Json::Number(n) => n.text,
            other => other.to_json_text(),
        },
        other => raw_to_json(other, &[], &mut Vec::new()).to_json_text(),
    }
}

/// Converts the tree as `sigs.k8s.io/yaml` does: non-string keys become their text, maps are
/// key-sorted, a later duplicate key wins.
fn raw_to_json(raw: &Raw, path: &[PathSeg], dups: &mut Vec<Vec<PathSeg>>) -> Json {
    match raw {
        Raw::Null => Json::Null,
        Raw::Bool(b) => Json::Bool(*b),
        Raw::Int(i) => Json::Number(JsonNumber { int: Some(*i), text: i.to_string() }),
        Raw::UInt(u) => Json::Number(JsonNumber { int: None, text: u.to_string() }),
        Raw::Float(f) => Json::Number(float_number(*f)),
        Raw::Str(s) => Json::String(s.clone()),
        Raw::Seq(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(n, i)| {
                    let mut p = path.to_vec();
                    p.push(PathSeg::Index(n));
                    raw_to_json(i, &p, dups)
                })
                .collect(),
        ),
        Raw::Map(map) => {
            let mut entries: Vec<(String, Json)> = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key = raw_key(k);
                let mut p = path.to_vec();
                p.push(PathSeg::Key(key.clone()));
                if entries.iter().any(|(existing, _)| existing == &key) {
                    dups.push(p.clone());
                    entries.retain(|(existing, _)| existing != &key);
                }
                let value = raw_to_json(v, &p, dups);
                entries.push((key, value));
            }
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            Json::Object(entries)
        }
    }
}

fn float_number(f: f64) -> JsonNumber {
    // Go's JSON encoder writes integral floats without a fraction, so `2.0` decodes into an int.
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 {
        #[allow(clippy::cast_possible_truncation)]
        let i = f as i64;
        return JsonNumber { int: Some(i), text: i.to_string() };
    }
    let text = if f.is_finite() && f.fract() == 0.0 { format!("{f:.0}") } else { format!("{f}") };
    JsonNumber { int: None, text }
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
        for (i, raw) in yaml_lines(text).into_iter().enumerate() {
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
                let dashes: Vec<usize> =
                    (lo..hi).filter(|&i| self.lines.get(i).is_some_and(|l| l.dash && l.indent == block)).collect();
                let start = *dashes.get(*index)?;
                let end = dashes.get(index + 1).copied().unwrap_or(hi);
                let l = self.lines.get(start)?;
                let col = u32::try_from(l.indent + 1).unwrap_or(u32::MAX);
                Some(((l.line, col), (start + 1, end)))
            }
        }
    }
}

/// Lines as libyaml counts them: `\r\n`, `\r`, `\n`, NEL, LS and PS all end a line.
pub fn yaml_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => {
                if let Some((_, '\n')) = chars.peek() {
                    chars.next();
                    i + 2
                } else {
                    i + 1
                }
            }
            '\n' => i + 1,
            '\u{85}' | '\u{2028}' | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        out.push(text.get(start..i).unwrap_or(""));
        start = end;
    }
    if start < text.len() {
        out.push(text.get(start..).unwrap_or(""));
    }
    out
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
        let (dup, keys) = load_with_duplicates("a: 1\nb: 2\na: 3\n").unwrap();
        assert_eq!((dup.to_json_text(), keys), (r#"{"a":3,"b":2}"#.to_string(), vec![vec![PathSeg::key("a")]]));
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
