//! A component's log, read back when it failed: the end of it, and the line that says
//! why — as each upstream command words it (cobra's `Error: …`, klog's `"command
//! failed" err="…"` and fatal lines, etcd's JSON `fatal` record, Go's flag package).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The last 64 KiB of a log (empty when it cannot be read).
pub fn read_end(path: &Path) -> String {
    let Ok(mut f) = std::fs::File::open(path) else { return String::new() };
    let len = f.metadata().map_or(0, |m| m.len());
    let _ = f.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut buf = Vec::new();
    let _ = f.read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// The last `n` lines of `text`.
pub fn tail(text: &str, n: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(n)..].join("\n")
}

/// The value of `key="…"` in a klog line (Go-quoted).
fn klog_value(line: &str, key: &str) -> Option<String> {
    let rest = line.split_once(&format!(" {key}=\""))?.1;
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => out.push(match chars.next()? {
                'n' => '\n',
                't' => '\t',
                other => other,
            }),
            c => out.push(c),
        }
    }
    None
}

/// Why the component failed, from the last line that says so.
pub fn failure(text: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let line = line.trim_end();
        if let Some(e) = line.strip_prefix("Error: ") {
            return Some(e.to_string());
        }
        if line.starts_with("flag provided but not defined: ") {
            return Some(line.to_string());
        }
        if line.contains("\"command failed\"") {
            return klog_value(line, "err");
        }
        if line.starts_with('{') && line.contains("\"level\":\"fatal\"") {
            let v: serde_json::Value = serde_json::from_str(line).ok()?;
            let msg = v["msg"].as_str().unwrap_or("fatal");
            return Some(match v["error"].as_str() {
                Some(e) => format!("{msg}: {e}"),
                None => msg.to_string(),
            });
        }
        let b = line.as_bytes();
        if b.len() > 5 && b[0] == b'F' && b[1..5].iter().all(u8::is_ascii_digit) {
            return line.split_once("] ").map(|(_, m)| m.to_string());
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each upstream command's way of saying why it stopped, as the real v1.37.2 binary
    /// (etcd 3.7.0) prints it.
    #[test]
    fn failure_lines() {
        let cobra = "Usage:\n  kube-scheduler [flags]\n      --v Level  number\n\nError: unknown flag: --no-such-flag\n";
        assert_eq!(failure(cobra).as_deref(), Some("unknown flag: --no-such-flag"));
        let klog = "I1202 07:37:59.589494   28301 options.go:261] external host was not specified\nE1202 07:37:59.590980   28301 run.go:72] \"command failed\" err=\"service-account-issuer is a required flag, \\\"x\\\" too\"\n";
        assert_eq!(failure(klog).as_deref(), Some("service-account-issuer is a required flag, \"x\" too"));
        let etcd = "{\"level\":\"info\",\"msg\":\"closed etcd server\"}\n{\"level\":\"fatal\",\"ts\":\"2026-12-02T07:37:58Z\",\"msg\":\"discovery failed\",\"error\":\"cannot access data directory: mkdir /proc/nope: no such file or directory\"}\n";
        assert_eq!(failure(etcd).as_deref(), Some("discovery failed: cannot access data directory: mkdir /proc/nope: no such file or directory"));
        let go_flag = "flag provided but not defined: -bogus\nUsage:\n\n  etcd [flags]\n";
        assert_eq!(failure(go_flag).as_deref(), Some("flag provided but not defined: -bogus"));
        let fatal = "F1202 07:00:00.000000    1 server.go:10] listen tcp 127.0.0.1:6443: bind: address already in use\n";
        assert_eq!(failure(fatal).as_deref(), Some("listen tcp 127.0.0.1:6443: bind: address already in use"));
        assert_eq!(failure("E1202 07:27:07.579671   26151 options.go:205] The manifest file is empty, ignoring.\n"), None);
        assert_eq!(tail("a\nb\nc", 2), "b\nc");
    }
}
