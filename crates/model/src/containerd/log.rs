//! containerd's log lines as logrus' text formatter writes them (timestamps dropped,
//! as the goldens normalise them): `level=… msg="…"` then the fields sorted by name,
//! each value quoted Go-style (`%q`) only when it holds a character outside
//! `[A-Za-z0-9-._/@^+]`.

use serde::{Deserialize, Serialize};

/// One log line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// `info`, `warning`, `error`, `fatal`.
    pub level: String,
    pub msg: String,
    /// Fields, printed sorted by name.
    pub fields: Vec<(String, String)>,
}

impl LogLine {
    pub fn new(level: &str, msg: impl Into<String>) -> Self {
        LogLine { level: level.to_string(), msg: msg.into(), fields: Vec::new() }
    }

    pub fn field(mut self, key: &str, value: impl Into<String>) -> Self {
        self.fields.push((key.to_string(), value.into()));
        self
    }

    /// The line as logrus prints it, without the `time=` prefix.
    pub fn render(&self) -> String {
        let mut s = format!("level={} msg={}", self.level, quote_if_needed(&self.msg));
        let mut fields: Vec<&(String, String)> = self.fields.iter().collect();
        crate::sort::sort_by(&mut fields, |a, b| a.0.cmp(&b.0));
        for (k, v) in fields {
            s.push(' ');
            s.push_str(k);
            s.push('=');
            // The goldens normalise durations to `<dur>`, unquoted.
            if v == "<dur>" {
                s.push_str(v);
            } else {
                s.push_str(&quote_if_needed(v));
            }
        }
        s
    }
}

fn needs_quoting(s: &str) -> bool {
    !s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '/' | '@' | '^' | '+'))
}

fn quote_if_needed(s: &str) -> String {
    if needs_quoting(s) {
        go_quote(s)
    } else {
        s.to_string()
    }
}

/// Go's `strconv.Quote` / `%q`.
pub use crate::go::quote as go_quote;

#[cfg(test)]
mod tests {
    use super::*;

    /// The golden's unknown-key warning, byte for byte.
    #[test]
    fn renders_like_logrus() {
        let l = LogLine::new("warning", "Ignoring unknown key in TOML for plugin")
            .field("plugin", "io.containerd.grpc.v1.cri")
            .field("key", "containerd runtimes")
            .field("error", "strict mode: fields in the document are missing in the target struct");
        assert_eq!(
            l.render(),
            "level=warning msg=\"Ignoring unknown key in TOML for plugin\" error=\"strict mode: fields in the document are missing in the target struct\" key=\"containerd runtimes\" plugin=io.containerd.grpc.v1.cri"
        );
    }
}
