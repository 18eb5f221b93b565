//! TOML text → [`Table`] with the line and column of every key (built from the TOML
//! parser's events by `parse_events`). A parse failure is a value ([`ParseError`])
//! that keeps what containerd's two TOML libraries need to word it their way (go-toml
//! v1 on 1.x, v2 on 2.x).

use super::parse_events::SyntaxError;
use super::value::Table;

pub use super::parse_events::DEPTH_LIMIT;

/// Why a file could not be parsed, with the position each go-toml version reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line and column of the error as the TOML parser finds it.
    pub line: u32,
    pub column: u32,
    pub kind: ParseErrorKind,
    /// The text of the error's line (for wording errors the way go-toml does).
    pub line_text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// The bytes are not UTF-8 (at `line`/`column`, the first bad byte).
    InvalidUtf8,
    /// A basic string runs into the end of its line. `content_column` is where its
    /// text starts (go-toml v1 reports that); `line`/`column` is the newline (v2).
    UnterminatedBasicString { content_column: u32 },
    /// A `[table]` header names a table that already exists; `header_column` is
    /// where its `[` is (go-toml v1 reports the column after it).
    DuplicateTable { name: String, header_column: u32 },
    /// A key is set twice.
    DuplicateKey { name: String },
    /// Any other syntax error, with `toml_edit`'s description.
    Other { message: String },
    /// Keys, tables or arrays nested deeper than [`DEPTH_LIMIT`]: the lab's own limit
    /// (containerd reads any depth), at the first key or value past it.
    TooDeep,
}

impl ParseErrorKind {
    /// The error in words, for readers that do not word it as go-toml does.
    pub fn message(&self) -> String {
        match self {
            ParseErrorKind::InvalidUtf8 => "invalid UTF-8".into(),
            ParseErrorKind::UnterminatedBasicString { .. } => "basic strings cannot have new lines".into(),
            ParseErrorKind::DuplicateTable { name, .. } => format!("table {name} already exists"),
            ParseErrorKind::DuplicateKey { name } => format!("key {name} is already defined"),
            ParseErrorKind::Other { message } => message.clone(),
            ParseErrorKind::TooDeep => format!("nested more than {DEPTH_LIMIT} levels deep"),
        }
    }
}

/// Maps byte offsets to 1-based (line, column) with columns in characters.
pub(super) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    pub(super) fn position(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts.get(line - 1).copied().unwrap_or(0);
        let column = self.text.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        (to_u32(line), to_u32(column))
    }

    fn line_text(&self, line: u32) -> &'a str {
        let i = line as usize;
        let start = self.starts.get(i.saturating_sub(1)).copied().unwrap_or(0);
        let end = self.starts.get(i).copied().unwrap_or(self.text.len());
        self.text.get(start..end).unwrap_or("").trim_end_matches(['\n', '\r'])
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The byte offset where line `line` (1-based) of `text` starts; `None` past the end.
pub fn line_start(text: &[u8], line: u32) -> Option<usize> {
    match line {
        0 | 1 => Some(0),
        n => text.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(n as usize - 2).map(|(i, _)| i + 1),
    }
}

/// `text` up to line `line`, byte column `column` (1-based; the point excluded).
pub fn text_before(text: &[u8], line: u32, column: u32) -> Option<&[u8]> {
    text.get(..line_start(text, line)? + column.saturating_sub(1) as usize)
}

/// Parses `bytes` (the content of `file`) into a table whose nodes carry `file`:line.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Table, ParseError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let good = bytes.get(..e.valid_up_to()).unwrap_or(&[]);
            let good = String::from_utf8_lossy(good);
            let (line, column) = LineIndex::new(&good).position(good.len());
            let line_text = good.lines().last().unwrap_or("").to_string();
            return Err(ParseError { line, column, kind: ParseErrorKind::InvalidUtf8, line_text });
        }
    };
    let index = LineIndex::new(text);
    let file: std::sync::Arc<str> = file.into();
    super::parse_events::parse(&file, text, &index).map_err(|e| classify(&index, &e))
}

/// Sorts the first TOML error into what the go-toml wordings need.
fn classify(index: &LineIndex<'_>, err: &SyntaxError) -> ParseError {
    let offset = err.span.as_ref().map_or(0, |s| s.start);
    let (line, column) = index.position(offset);
    if err.too_deep {
        return ParseError { line, column, kind: ParseErrorKind::TooDeep, line_text: index.line_text(line).to_string() };
    }
    let message = err.message.clone();
    let span_text = err.span.clone().and_then(|s| index.text.get(s)).unwrap_or("").to_string();
    let kind = if message.starts_with("invalid basic string") {
        // The text starts after the last `"` before the error on this line.
        let line_text = index.line_text(line);
        let upto: String = line_text.chars().take(column.saturating_sub(1) as usize).collect();
        let quote = upto.rfind('"').map_or(0, |b| upto.get(..b).map_or(0, |s| s.chars().count()));
        ParseErrorKind::UnterminatedBasicString { content_column: to_u32(quote + 2) }
    } else if message == "duplicate key" {
        let name = span_text.trim_matches(['"', '\'']).to_string();
        let text = index.line_text(line);
        if text.trim_start().starts_with('[') {
            let indent = text.chars().take_while(|c| c.is_whitespace()).count();
            ParseErrorKind::DuplicateTable { name, header_column: to_u32(indent + 1) }
        } else {
            ParseErrorKind::DuplicateKey { name }
        }
    } else {
        ParseErrorKind::Other { message }
    };
    ParseError { line, column, kind, line_text: index.line_text(line).to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys carry their own line; implicit parent tables point at their first child.
    #[test]
    fn spans_point_at_keys_and_headers() {
        let t = parse("/f.toml", b"version = 2\n\n[a.b]\n  x = 1\n").unwrap();
        assert_eq!(t.get("version").unwrap().origin.as_ref().unwrap().line, 1);
        let a = t.get("a").unwrap();
        assert_eq!(a.origin.as_ref().unwrap().line, 3);
        let x = t.get_path(&["a", "b", "x"]).unwrap();
        assert_eq!((x.origin.as_ref().unwrap().line, x.origin.as_ref().unwrap().column), (4, 3));
    }

    /// The unterminated string of the `dropin-toml-syntax-error` golden: v1 reports the
    /// first character of the text, v2 the newline.
    #[test]
    fn unterminated_string_positions() {
        let src = "[plugins.\"x\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\n";
        let e = parse("/f", src.as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (2, 40));
        assert_eq!(e.kind, ParseErrorKind::UnterminatedBasicString { content_column: 19 });
    }

    /// Non-UTF-8 input is an error with a position, not a panic.
    #[test]
    fn invalid_utf8() {
        let e = parse("/f", b"a = 1\nb = \"\xff\"\n").unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::InvalidUtf8);
        assert_eq!(e.line, 2);
    }
}
