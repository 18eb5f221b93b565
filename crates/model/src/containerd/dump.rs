//! What `containerd config dump` prints: the merged server config, every loaded
//! plugin's decoded config (defaults filled in), default timeouts, the version this
//! line writes — encoded by that line's go-toml. Upstream: `cmd/containerd/command/
//! config.go` `outputConfig` (1.x) and `dumpConfig` + `outputConfig` (2.x).

use super::decode::{decode_plugin, sort_maps, UnknownKey};
use super::encode::{encode, Flavor};
use super::load::{LoadError, Loaded};
use super::migrate::migrate_cri_plugins;
use super::log::LogLine;
use super::schema::{self, short_id, Defaults};
use super::value::{Node, Origin, Table, Value};
use super::version::{Line, Version};

/// The decoded configuration: what the daemon runs with and `config dump` prints.
#[derive(Debug, Clone)]
pub struct Effective {
    /// The whole config as printed (server fields, `plugins`, timeouts, …).
    pub root: Table,
    /// Plugin URI → decoded config, for plugins that load (not disabled).
    pub decoded: Table,
    /// Keys dropped while decoding plugin tables.
    pub unknown: Vec<(String, UnknownKey)>,
    /// Plugin tables no loaded plugin reads (unknown IDs, short IDs on v2, …).
    pub ignored_tables: Vec<(String, Node)>,
    /// Log lines printed while decoding (2.x unknown keys).
    pub log: Vec<LogLine>,
    /// Plugins (URI, their table's place) read without go-toml's own rules for some
    /// value ([`super::decode::Decoded::approximate`]; never with `go-toml-syntax`).
    pub approximate: Vec<(String, Option<Origin>)>,
}

fn strings(n: Option<&Node>) -> Vec<String> {
    match n.map(|n| &n.value) {
        Some(Value::Array(a)) => a.iter().filter_map(|e| e.as_str().map(str::to_string)).collect(),
        _ => Vec::new(),
    }
}

/// Why [`effective`] stopped: the error, and the log lines printed before it (2.x
/// logs the unknown keys of every plugin decoded before the one that fails, in the
/// plugin graph's order, then exits on the failure).
#[derive(Debug, Clone)]
pub struct Failed {
    pub error: LoadError,
    pub log: Vec<LogLine>,
    /// As [`Effective::approximate`], for the plugins decoded up to the error.
    pub approximate: Vec<(String, Option<Origin>)>,
}

impl From<LoadError> for Failed {
    fn from(error: LoadError) -> Self {
        Failed { error, log: Vec::new(), approximate: Vec::new() }
    }
}

/// Decodes every plugin of `version` from the merged config.
pub fn effective(version: &Version, defaults: &Defaults, loaded: &Loaded) -> Result<Effective, Failed> {
    let disabled = strings(loaded.top.get("disabled_plugins"));
    let mut plugins = loaded.plugins.clone();
    let merged_version = loaded.version();
    if !version.is_1x() && merged_version < 3 {
        migrate_cri_plugins(version, &mut plugins, merged_version, &disabled)?;
    }
    let by_short_id = version.is_1x() && merged_version <= 1;
    let mut decoded = Table::new();
    let mut unknown = Vec::new();
    let mut log = Vec::new();
    let mut approximate = Vec::new();
    let mut used: Vec<String> = Vec::new();
    // Every version decodes in plugin-graph order: the first failing plugin is reported
    // (and on 2.x the unknown keys of those before it are logged).
    let graph: Vec<&str> = schema::plugin_graph_order(version).split(' ').collect();
    let rank = |uri: &str| graph.iter().position(|g| uri.strip_prefix("io.containerd.") == Some(*g)).unwrap_or(graph.len());
    let mut order: Vec<&(String, Node)> = defaults.plugins.entries.iter().collect();
    crate::sort::sort_by(&mut order, |a, b| rank(&a.0).cmp(&rank(&b.0)));
    let mut decoded_in_order: Vec<(String, Node)> = Vec::new();
    for (uri, default) in order {
        // 1.x matches disabled plugins by short ID when the config is version 1.
        let key = if by_short_id { short_id(uri).to_string() } else { uri.clone() };
        if disabled.contains(&key) {
            continue;
        }
        let node = match plugins.get(&key) {
            None => default.clone(),
            Some(raw) => {
                used.push(key.clone());
                let (node, keys) = match decode_plugin(version, defaults, uri, default, raw) {
                    Ok(d) => {
                        if d.approximate {
                            approximate.push((uri.clone(), raw.origin.clone()));
                        }
                        (d.node, d.unknown)
                    }
                    Err((error, approx)) => {
                        if approx {
                            approximate.push((uri.clone(), raw.origin.clone()));
                        }
                        return Err(Failed { error, log, approximate });
                    }
                };
                for k in keys {
                    if k.logged {
                        log.push(
                            LogLine::new("warning", "Ignoring unknown key in TOML for plugin")
                                .field("error", "strict mode: fields in the document are missing in the target struct")
                                .field("key", k.path.join(" "))
                                .field("plugin", uri.clone()),
                        );
                    }
                    unknown.push((uri.clone(), k));
                }
                node
            }
        };
        decoded_in_order.push((uri.clone(), node));
    }
    // Kept in the defaults' (URI) order, as before.
    for (uri, _) in &defaults.plugins.entries {
        if let Some(i) = decoded_in_order.iter().position(|(u, _)| u == uri) {
            let (u, n) = decoded_in_order.swap_remove(i);
            decoded.insert(u, n);
        }
    }
    let ignored_tables: Vec<(String, Node)> =
        plugins.entries.iter().filter(|(k, _)| !used.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();

    // The printed plugin map.
    let mut printed = if version.is_1x() { Table::new() } else { plugins.clone() };
    for (uri, node) in &decoded.entries {
        printed.insert(uri.clone(), node.clone());
    }
    if !version.is_1x() {
        for (k, n) in &mut printed.entries {
            if !decoded.contains(k) {
                sort_maps(n);
            }
        }
    }
    crate::sort::sort_by(&mut printed.entries, |a, b| a.0.cmp(&b.0));

    let mut root = loaded.top.clone();
    root.insert("plugins", Node::builtin(Value::Table(printed)));
    root.insert("version", Node::builtin(Value::Integer(version.config_version())));
    if let Some(t) = root.get_mut("timeouts").and_then(Node::as_table_mut) {
        crate::sort::sort_by(&mut t.entries, |a, b| a.0.cmp(&b.0));
    }
    if let Some(t) = root.get_mut("proxy_plugins").and_then(Node::as_table_mut) {
        crate::sort::sort_by(&mut t.entries, |a, b| a.0.cmp(&b.0));
    }
    if let Some(t) = root.get_mut("stream_processors").and_then(Node::as_table_mut) {
        crate::sort::sort_by(&mut t.entries, |a, b| a.0.cmp(&b.0));
    }
    if version.is_1x() {
        // containerd ranges over a Go map here; the goldens sort this one line.
        if let Some(Node { value: Value::Array(a), .. }) = root.get_mut("imports") {
            crate::sort::sort_by(a, |x, y| x.as_str().cmp(&y.as_str()));
        }
    }
    if version.migrates_per_file() {
        omit_deprecated_server_fields(&mut root);
    }
    Ok(Effective { root, decoded, unknown, ignored_tables, log, approximate })
}

/// 2.3+: `[grpc]`, `[ttrpc]`, `[metrics]` and the debug socket fields are `omitempty`.
fn omit_deprecated_server_fields(root: &mut Table) {
    for section in ["grpc", "ttrpc", "metrics", "debug"] {
        let Some(t) = root.get_mut(section).and_then(Node::as_table_mut) else { continue };
        t.entries.retain(|(k, v)| {
            let omitempty = section != "debug" || matches!(k.as_str(), "address" | "uid" | "gid");
            !(omitempty && v.is_zero())
        });
        if t.entries.is_empty() && section != "debug" {
            root.remove(section);
        }
    }
}

/// The dump text of `effective` in `version`'s encoding.
pub fn dump_text(version: &Version, effective: &Effective) -> String {
    let flavor = if version.is_1x() {
        Flavor::GoTomlV1
    } else {
        Flavor::GoTomlV2 {
            compact_empty_tables: version.line >= Line::V2_4,
            tab_in_literal: version.line <= Line::V2_3,
        }
    };
    encode(&effective.root, flavor)
}
