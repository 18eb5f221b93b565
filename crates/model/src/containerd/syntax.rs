//! A file's syntax error as each containerd version reports it, and where that wording
//! comes from.
//!
//! containerd words (and places) a syntax error through its TOML library: go-toml v1
//! on 1.x; on 2.x go-toml v2, whose parsers (v2.2–2.3 and the rewritten v2.4) also
//! stop at other bytes than the lab's parser, and sometimes where it sees no error.
//! That knowledge — the parser ports `gotoml2` / `gotoml24` and the rewording in
//! `syntax_exact` — is compiled in with the feature `go-toml-syntax`. The companion and
//! the on-demand chunk enable it; the app does not, to keep its first load within
//! budget (ARCHITECTURE.md, "Size").
//!
//! Without the feature, the model takes containerd's verdict on a file from the
//! [`Verdicts`] it is given (the app asks the chunk, which answers with [`verdict`]).
//! For a text it has no verdict for, it reports the lab parser's error in the
//! version's shape ([`lab_error`]) and lists the file in `Loaded::syntax_unjudged`;
//! [`super::LoadResult::syntax_pending`] says when what it shows is that stand-in.
//!
//! **Architecture Invariant:** a verdict applies only to the exact version, path and
//! text it was computed for: one computed for other bytes is never used.

use serde::{Deserialize, Serialize};

use super::load::{LoadError, LoadErrorCode};
use super::log::LogLine;
use super::parse::{ParseError, ParseErrorKind};
use super::value::{Origin, Table};
use super::version::Version;

/// Where reading a file stops, as data: a [`LoadError`] of one file without its path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// What follows `containerd: ` on stderr.
    pub message: String,
    pub code: LoadErrorCode,
    /// 1-based line and column the error points at.
    pub line: u32,
    pub column: u32,
    /// The log line printed before it (go-toml v2 logs where the error is).
    pub log: Option<LogLine>,
}

impl Failure {
    #[cfg_attr(not(feature = "go-toml-syntax"), allow(dead_code))]
    fn from_error(e: LoadError) -> Self {
        let (line, column) = e.at.as_ref().map_or((0, 0), |o| (o.line, o.column));
        Failure { message: e.message, code: e.code, line, column, log: e.log.map(|l| *l) }
    }

    fn to_error(&self, path: &str) -> LoadError {
        LoadError {
            message: self.message.clone(),
            code: self.code,
            at: Some(Origin { file: path.into(), line: self.line, column: self.column }),
            dump_ignores: false,
            log: self.log.clone().map(Box::new),
        }
    }
}

/// containerd's verdict on one file: the failure reading it stops at, or `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub version: Version,
    pub path: String,
    pub text: String,
    pub failure: Option<Failure>,
}

/// The verdicts a model without `go-toml-syntax` is given, each for one exact text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdicts(Vec<Verdict>);

impl Verdicts {
    pub fn new() -> Self {
        Verdicts::default()
    }

    pub fn push(&mut self, v: Verdict) {
        self.0.push(v);
    }

    /// The verdict on `text` read from `path` by `version`, if there is one.
    pub fn find(&self, version: &Version, path: &str, text: &[u8]) -> Option<&Verdict> {
        self.0.iter().find(|v| v.version == *version && v.path == path && v.text.as_bytes() == text)
    }
}

/// containerd `version`'s verdict on `text` read from `path`: what the chunk answers —
/// on 2.0–2.3 a type error before the syntax error when there is one, as the load
/// reports it (`load::decoded_before_syntax_error`), so the app's model takes it as is.
#[cfg(feature = "go-toml-syntax")]
pub fn verdict(version: &Version, path: &str, text: &str) -> Option<Failure> {
    let parsed = super::parse::parse(path, text.as_bytes());
    let e = super::syntax_exact::failure(version, path, text.as_bytes(), &parsed)?;
    let e = if super::load::decodes_before_syntax_error(version, &e) {
        super::load::decoded_before_syntax_error(version, &super::schema::Defaults::of(version), text.as_bytes(), e)
    } else {
        e
    };
    Some(Failure::from_error(e))
}

/// What reading `path` stops at: the verdict given for this text, else containerd's
/// own (with the feature), else the lab parser's error and `path` noted as unjudged.
/// `original` is the file's bytes, `text` as the version reads them (1.x replaces
/// invalid UTF-8), `parsed` the lab parser's reading of `text`.
pub(super) fn judge(
    version: &Version,
    path: &str,
    original: &[u8],
    text: &[u8],
    parsed: &Result<Table, ParseError>,
    given: &Verdicts,
    unjudged: &mut Vec<String>,
) -> Option<LoadError> {
    if let Some(v) = given.find(version, path, original) {
        return v.failure.as_ref().map(|f| f.to_error(path));
    }
    #[cfg(feature = "go-toml-syntax")]
    {
        let _ = unjudged;
        super::syntax_exact::failure(version, path, text, parsed)
    }
    #[cfg(not(feature = "go-toml-syntax"))]
    {
        let _ = text;
        unjudged.push(path.to_string());
        parsed.as_ref().err().map(|e| lab_error(version, path, e))
    }
}

/// The lab parser's error in the shape of the version's message, standing in for
/// containerd's wording; a file nested deeper than the lab models is the lab's own
/// error either way.
pub(super) fn lab_error(version: &Version, path: &str, e: &ParseError) -> LoadError {
    let at = Some(Origin { file: path.into(), line: e.line, column: e.column });
    let (line, column, text) = (e.line, e.column, e.kind.message());
    if e.kind == ParseErrorKind::TooDeep {
        let message = format!("{path}:{line}:{column}: {text}: the lab does not model a file nested this deep (containerd itself reads it)");
        return LoadError { message, code: LoadErrorCode::NestingLimit, at, dump_ignores: false, log: None };
    }
    if version.is_1x() {
        let message = format!("failed to load TOML: {path}: ({line}, {column}): {text}");
        return LoadError { message, code: LoadErrorCode::Syntax, at, dump_ignores: false, log: None };
    }
    let log = LogLine::new("error", "Failure unmarshaling TOML")
        .field("column", column.to_string())
        .field("error", format!("toml: {text}"))
        .field("file", path)
        .field("row", line.to_string());
    let message = format!("failed to unmarshal TOML at row {line} column {column}: toml: {text}");
    LoadError { message, code: LoadErrorCode::Syntax, at, dump_ignores: false, log: Some(Box::new(log)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::containerd::{load, Containerd, Files, MAIN_CONFIG};

    fn files(main: &str) -> Files {
        Files::new().with(MAIN_CONFIG, main)
    }

    /// A verdict is used for its own text only: given for other bytes (or another
    /// version) it is not applied, and the file is judged as if none was given.
    #[test]
    fn a_verdict_applies_to_its_exact_text_only() {
        let v = Version::parse("2.3.4").unwrap();
        let failure = Failure { message: "from the verdict".into(), code: LoadErrorCode::Syntax, line: 1, column: 2, log: None };
        let mut given = Verdicts::new();
        given.push(Verdict { version: v.clone(), path: MAIN_CONFIG.into(), text: "version = 2\n".into(), failure: Some(failure) });
        let m = Containerd::new(v.clone());
        let used = m.load_with(&files("version = 2\n"), &given);
        assert_eq!(used.loaded.error.as_ref().map(|e| e.message.as_str()), Some("from the verdict"));
        assert!(used.loaded.syntax_unjudged.is_empty());
        let other_text = m.load_with(&files("version = 2\n\n"), &given);
        assert_eq!(other_text.loaded.error, None);
        let other_version = Containerd::new(Version::parse("2.2.7").unwrap()).load_with(&files("version = 2\n"), &given);
        assert_eq!(other_version.loaded.error, None);
    }

    /// The model given containerd's verdicts on every file loads exactly as the model
    /// with go-toml's parsers compiled in: same output, same start, same findings.
    #[cfg(feature = "go-toml-syntax")]
    #[test]
    fn given_verdicts_load_as_the_parsers_do() {
        let texts = [
            "version = 2\nsandbox = runc\n",
            "version = 2\n[plugins\n",
            "version = 3\nlist = [1, 2\n",
            "version = 2\nn = 1__000\n",
            "version = 2\nStarted = 1979-05-27\n",
            "version = 2\n[a]\n[a]\n",
            "root = 'unclosed\n",
            "version = 2\n",
            // 2.0–2.3 report the type error before the syntax error (seed …775 node 15).
            "version = 2\n[timeouts]\na = 1 b = 2\n",
        ];
        for name in crate::containerd::version::MODELLED {
            let v = Version::parse(name).unwrap();
            for text in texts {
                let mut given = Verdicts::new();
                given.push(Verdict { version: v.clone(), path: MAIN_CONFIG.into(), text: text.into(), failure: verdict(&v, MAIN_CONFIG, text) });
                let exact = load(&files(text), &v);
                let judged = Containerd::new(v.clone()).load_with(&files(text), &given);
                assert_eq!(judged.dump, exact.dump, "{name} {text:?}");
                assert_eq!(judged.start, exact.start, "{name} {text:?}");
                assert_eq!(judged.diagnostics, exact.diagnostics, "{name} {text:?}");
                assert!(!judged.syntax_pending());
            }
        }
    }

    /// The verdict is what the load reports, so the app's model (which does not decode
    /// before a syntax error itself) takes it as is: on 2.0–2.3 a type error before the
    /// syntax error, on 2.4 (which parses the whole file first) the syntax error.
    #[cfg(feature = "go-toml-syntax")]
    #[test]
    fn a_verdict_carries_the_type_error_before_a_syntax_error() {
        let text = "version = 2\n[timeouts]\na = 1 b = 2\n";
        let code = |v: &str| verdict(&Version::parse(v).unwrap(), MAIN_CONFIG, text).map(|f| (f.code, f.line));
        assert_eq!(code("2.3.4"), Some((LoadErrorCode::Type, 3)));
        assert_eq!(code("2.0.11"), Some((LoadErrorCode::Type, 3)));
        assert_eq!(code("2.4.2").map(|c| c.0), Some(LoadErrorCode::Syntax));
    }

    /// Without go-toml's parsers and without a verdict, a syntax error is the lab
    /// parser's, in the version's shape and at its position, and says it stands in.
    #[cfg(not(feature = "go-toml-syntax"))]
    #[test]
    fn without_a_verdict_the_lab_parser_stands_in() {
        for (name, prefix) in [("1.7.34", "failed to load TOML: /etc/containerd/config.toml: (2, "), ("2.3.4", "failed to unmarshal TOML at row 2 column ")] {
            let r = load(&files("version = 2\n[plugins\n"), &Version::parse(name).unwrap());
            let e = r.loaded.error.as_ref().unwrap();
            assert!(e.message.starts_with(prefix), "{name}: {}", e.message);
            assert_eq!(e.at.as_ref().map(|o| o.line), Some(2));
            assert!(r.syntax_pending(), "{name}");
            assert_eq!(r.loaded.syntax_unjudged, [MAIN_CONFIG]);
        }
        let clean = load(&files("version = 2\n"), &Version::parse("2.3.4").unwrap());
        assert!(!clean.syntax_pending());
        assert_eq!(clean.loaded.syntax_unjudged, [MAIN_CONFIG]);
    }
}
