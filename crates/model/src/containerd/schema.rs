//! What each version's config structs look like, as data: the built-in defaults
//! (embedded dumps under `crates/model/data/containerd/`, derived from the goldens by
//! `derive-defaults.py`) give every struct's fields, order and default values; the
//! rules below add what a dump cannot show — which tables are Go maps (decoded per
//! entry from a zero value) and which fields a default leaves out (nil maps and
//! pointers, omitted by go-toml v2).

use super::parse::parse;
use super::value::{Node, Table, Value};
use super::version::Version;

/// The default dump of a recorded binary (`version.recorded()`), embedded with the
/// feature `embedded-defaults` (the companion, the on-demand chunk, the tests). The app
/// builds without it and embeds only its own default version's dump: it asks the chunk
/// for another version's ([`Containerd::with_defaults`](super::Containerd::with_defaults)),
/// which keeps eight versions' text out of the page's first load.
#[cfg(feature = "embedded-defaults")]
pub fn embedded(recorded: &str) -> Option<&'static str> {
    Some(match recorded {
        "1.6.20" => include_str!("../../data/containerd/defaults-1.6.20.toml"),
        "1.6.39" => include_str!("../../data/containerd/defaults-1.6.39.toml"),
        "1.7.34" => include_str!("../../data/containerd/defaults-1.7.34.toml"),
        "2.0.11" => include_str!("../../data/containerd/defaults-2.0.11.toml"),
        "2.1.9" => include_str!("../../data/containerd/defaults-2.1.9.toml"),
        "2.2.7" => include_str!("../../data/containerd/defaults-2.2.7.toml"),
        "2.3.4" => include_str!("../../data/containerd/defaults-2.3.4.toml"),
        "2.4.2" => include_str!("../../data/containerd/defaults-2.4.2.toml"),
        "main-301026e" => include_str!("../../data/containerd/defaults-main-301026e.toml"),
        _ => return None,
    })
}

/// Without the feature `embedded-defaults` nothing is embedded: the caller hands the
/// dump in ([`Defaults::from_text`]).
#[cfg(not(feature = "embedded-defaults"))]
pub fn embedded(_recorded: &str) -> Option<&'static str> {
    None
}

/// The order in which `config dump` decodes plugin configs: the plugin graph
/// (`plugin.Graph` on 1.x, `registry.Graph` on 2.x) — the plugins in the order they
/// registered (Go's package initialisation order, which the build's Go version and
/// tags decide), each preceded by the plugins of the types it requires, recursively.
/// It decides which plugin's type error is reported (1.x and 2.x) and the order of
/// "Ignoring unknown key in TOML for plugin" warnings (2.x). Read off each real binary,
/// without the `io.containerd.` prefix: 2.x by an unknown key in every plugin table (the
/// same order on every run); 1.x, which logs no unknown key, by a type error in every
/// plugin table, removing the reported one and running again until none is left
/// (1.6.20: Debian's build; 1.6.39: the oracle's 1.6.38 build, go1.26; 1.7.34: the
/// oracle's build). Plugins not listed (none has a config) come last, by URI.
pub fn plugin_graph_order(version: &Version) -> &'static str {
    match version.recorded() {
        "1.6.20" => "snapshotter.v1.aufs snapshotter.v1.btrfs snapshotter.v1.devmapper snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs metadata.v1.bolt gc.v1.scheduler service.v1.diff-service runtime.v1.linux runtime.v2.task monitor.v1.cgroups service.v1.tasks-service internal.v1.restart internal.v1.opt grpc.v1.cri",
        "1.6.39" => "snapshotter.v1.aufs snapshotter.v1.devmapper snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs metadata.v1.bolt gc.v1.scheduler runtime.v1.linux runtime.v2.task internal.v1.opt monitor.v1.cgroups service.v1.diff-service service.v1.tasks-service tracing.processor.v1.otlp internal.v1.tracing internal.v1.restart grpc.v1.cri",
        "1.7.34" => "snapshotter.v1.aufs internal.v1.opt snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs metadata.v1.bolt gc.v1.scheduler runtime.v1.linux monitor.v1.cgroups runtime.v2.task service.v1.diff-service service.v1.tasks-service transfer.v1.local internal.v1.restart tracing.processor.v1.otlp internal.v1.tracing nri.v1.nri grpc.v1.cri",
        "2.0.11" => "image-verifier.v1.bindir internal.v1.opt snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs monitor.task.v1.cgroups metadata.v1.bolt gc.v1.scheduler service.v1.diff-service runtime.v2.task service.v1.tasks-service cri.v1.images cri.v1.runtime transfer.v1.local monitor.container.v1.restart tracing.processor.v1.otlp internal.v1.tracing nri.v1.nri",
        "2.1.9" => "image-verifier.v1.bindir internal.v1.opt snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.erofs snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs monitor.task.v1.cgroups metadata.v1.bolt gc.v1.scheduler differ.v1.erofs service.v1.diff-service runtime.v2.task service.v1.tasks-service transfer.v1.local cri.v1.images cri.v1.runtime monitor.container.v1.restart tracing.processor.v1.otlp internal.v1.tracing nri.v1.nri",
        "2.2.7" => "image-verifier.v1.bindir internal.v1.opt mount-handler.v1.erofs snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.erofs snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs monitor.task.v1.cgroups metadata.v1.bolt gc.v1.scheduler nri.v1.nri differ.v1.erofs service.v1.diff-service runtime.v2.task service.v1.tasks-service transfer.v1.local cri.v1.images cri.v1.runtime monitor.container.v1.restart tracing.processor.v1.otlp internal.v1.tracing",
        "2.3.4" => "image-verifier.v1.bindir internal.v1.opt mount-handler.v1.erofs snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.erofs snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs monitor.task.v1.cgroups metadata.v1.bolt gc.v1.scheduler server.v1.metrics tracing.processor.v1.otlp internal.v1.tracing nri.v1.nri differ.v1.erofs service.v1.diff-service runtime.v2.task service.v1.tasks-service transfer.v1.local cri.v1.images cri.v1.runtime server.v1.ttrpc monitor.container.v1.restart metrics.v1.grpc-prometheus server.v1.grpc server.v1.grpc-tcp server.v1.debug",
        "2.4.2" => "image-verifier.v1.bindir internal.v1.opt mount-handler.v1.erofs snapshotter.v1.blockfile snapshotter.v1.devmapper snapshotter.v1.native snapshotter.v1.overlayfs snapshotter.v1.zfs monitor.task.v1.cgroups snapshotter.v1.erofs metadata.v1.bolt gc.v1.scheduler server.v1.metrics nri.v1.nri differ.v1.erofs service.v1.diff-service runtime.v2.task service.v1.tasks-service transfer.v1.local cri.v1.images cri.v1.runtime server.v1.ttrpc monitor.container.v1.restart metrics.v1.grpc-prometheus server.v1.grpc server.v1.grpc-tcp server.v1.debug",
        // main@301026e was not available to read; 2.4's order stands for it.
        _ => "",
    }
}

/// A version's built-in configuration.
#[derive(Debug, Clone)]
pub struct Defaults {
    /// The server config (version, root, grpc, timeouts, …); `plugins` is empty.
    pub top: Table,
    /// Plugin URI → its decoded default config, for every plugin that has one.
    pub plugins: Table,
    /// The zero value of each map entry type, computed once.
    templates: Vec<(EntryType, Node)>,
}

const ENTRY_TYPES: [EntryType; 11] = [
    EntryType::Runtime,
    EntryType::StreamProcessor,
    EntryType::ProxyPlugin,
    EntryType::Mirror,
    EntryType::AuthConfig,
    EntryType::TlsConfig,
    EntryType::RegistryConfig,
    EntryType::ImagePlatform,
    EntryType::String,
    EntryType::StringArray,
    EntryType::Any,
];

impl Defaults {
    /// The embedded defaults of `version` (empty without them: see [`embedded`]).
    pub fn of(version: &Version) -> Defaults {
        Defaults::from_text(version, embedded(version.recorded()).unwrap_or(""))
    }

    /// The defaults of `version` read from its `config dump` text (what [`embedded`]
    /// holds). The embedded files are dumps of real binaries; a parse failure would be
    /// a data error, shown as empty defaults rather than a panic.
    pub fn from_text(version: &Version, text: &str) -> Defaults {
        let mut top = parse("<defaults>", text.as_bytes()).unwrap_or_default();
        clear_origins(&mut top);
        // `plugins` stays in `top` as an empty placeholder that keeps its position
        // (go-toml v2 prints struct fields in order).
        let plugins = top.get_table("plugins").cloned().unwrap_or_default();
        top.insert("plugins", Node::builtin(Value::Table(Table::new())));
        let mut d = Defaults { top, plugins, templates: Vec::new() };
        d.templates = ENTRY_TYPES.iter().map(|k| (*k, d.make_template(version, *k))).collect();
        d
    }

    /// The zero value of a map entry's type.
    pub fn template(&self, version: &Version, kind: EntryType) -> Node {
        match self.template_ref(kind) {
            Some(n) => n.clone(),
            None => self.make_template(version, kind),
        }
    }

    /// The zero value of a map entry's type, borrowed.
    pub fn template_ref(&self, kind: EntryType) -> Option<&Node> {
        self.templates.iter().find(|(k, _)| *k == kind).map(|(_, n)| n)
    }

    fn make_template(&self, version: &Version, kind: EntryType) -> Node {
        let t = |s: &str| -> Node {
            let mut table = parse("<template>", s.as_bytes()).unwrap_or_default();
            clear_origins(&mut table);
            Node::builtin(Value::Table(table))
        };
        match kind {
            EntryType::Runtime => {
                if version.is_1x() {
                    let rt = self.plugins.get_path(&["io.containerd.grpc.v1.cri", "containerd", "default_runtime"]);
                    rt.map(Node::zeroed).unwrap_or_else(|| t(""))
                } else {
                    let rt = self.plugins.get_path(&["io.containerd.cri.v1.runtime", "containerd", "runtimes", "runc"]);
                    let mut z = rt.map(Node::zeroed).unwrap_or_else(|| t(""));
                    if let Some(tab) = z.as_table_mut() {
                        tab.remove("options");
                    }
                    z
                }
            }
            EntryType::StreamProcessor => {
                let sp = self.top.get_table("stream_processors").and_then(|m| m.entries.first());
                sp.map(|(_, n)| n.zeroed()).unwrap_or_else(|| t(""))
            }
            EntryType::ProxyPlugin => match version.line {
                super::version::Line::V1_6 if version.recorded() == "1.6.20" => t("type = ''\naddress = ''\n"),
                super::version::Line::V1_6 => t("type = ''\naddress = ''\nplatform = ''\n[exports]\n"),
                super::version::Line::V1_7 => t("type = ''\naddress = ''\nplatform = ''\ncapabilities = []\n[exports]\n"),
                _ => t("type = ''\naddress = ''\nplatform = ''\ncapabilities = []\n"),
            },
            EntryType::Mirror => t("endpoint = []\n"),
            EntryType::AuthConfig => t("username = ''\npassword = ''\nauth = ''\nidentitytoken = ''\n"),
            EntryType::TlsConfig => t("insecure_skip_verify = false\nca_file = ''\ncert_file = ''\nkey_file = ''\n"),
            EntryType::RegistryConfig => t(""),
            EntryType::ImagePlatform => t("platform = ''\nsnapshotter = ''\n"),
            EntryType::String => Node::builtin(Value::String(String::new())),
            EntryType::StringArray => Node::builtin(Value::Array(Vec::new())),
            EntryType::Any => t(""),
        }
    }
}

fn clear_origins(t: &mut Table) {
    for (_, n) in &mut t.entries {
        n.set_origin_deep(&None);
    }
}

/// The Go type of a map's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryType {
    Runtime,
    StreamProcessor,
    ProxyPlugin,
    Mirror,
    AuthConfig,
    TlsConfig,
    RegistryConfig,
    ImagePlatform,
    String,
    StringArray,
    /// `interface{}`: decoded as written.
    Any,
}

/// How a table at some path decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A Go struct: known fields only, absent ones keep their defaults.
    Struct,
    /// A Go map: any key, each value of the given type.
    Map(EntryType),
    /// `interface{}` / `map[string]interface{}`: anything, as written.
    Any,
}

fn matches(pattern: &[&str], path: &[String]) -> bool {
    pattern.len() == path.len() && pattern.iter().zip(path).all(|(p, s)| *p == "*" || p == s)
}

/// The kind of the table at `path` inside plugin `plugin` (`""` = the server config).
pub fn kind_at(version: &Version, plugin: &str, path: &[String]) -> Option<Kind> {
    use EntryType as E;
    let rules: &[(&str, &[&str], Kind)] = &[
        ("", &["proxy_plugins"], Kind::Map(E::ProxyPlugin)),
        ("", &["stream_processors"], Kind::Map(E::StreamProcessor)),
        ("", &["timeouts"], Kind::Map(E::String)),
        ("", &["proxy_plugins", "*", "exports"], Kind::Map(E::String)),
        ("io.containerd.grpc.v1.cri", &["containerd", "runtimes"], Kind::Map(E::Runtime)),
        ("io.containerd.grpc.v1.cri", &["containerd", "runtimes", "*", "options"], Kind::Any),
        ("io.containerd.grpc.v1.cri", &["containerd", "default_runtime", "options"], Kind::Any),
        ("io.containerd.grpc.v1.cri", &["containerd", "untrusted_workload_runtime", "options"], Kind::Any),
        ("io.containerd.cri.v1.runtime", &["containerd", "runtimes"], Kind::Map(E::Runtime)),
        ("io.containerd.cri.v1.runtime", &["containerd", "runtimes", "*", "options"], Kind::Any),
        ("io.containerd.cri.v1.images", &["pinned_images"], Kind::Map(E::String)),
        ("io.containerd.cri.v1.images", &["runtime_platforms"], Kind::Map(E::ImagePlatform)),
        ("*cri", &["registry", "mirrors"], Kind::Map(E::Mirror)),
        ("*cri", &["registry", "configs"], Kind::Map(E::RegistryConfig)),
        ("*cri", &["registry", "auths"], Kind::Map(E::AuthConfig)),
        ("*cri", &["registry", "headers"], Kind::Map(E::StringArray)),
    ];
    let _ = version;
    for (p, pattern, kind) in rules {
        let plugin_ok = *p == plugin
            || (*p == "*cri" && matches!(plugin, "io.containerd.grpc.v1.cri" | "io.containerd.cri.v1.images"));
        if plugin_ok && matches(pattern, path) {
            return Some(*kind);
        }
    }
    None
}

/// A plugin field whose Go type is a duration: go-toml decodes it by its own rules
/// (`decode::Ctx::duration_value`), not by its default's shape (a string), and the
/// dump prints what `time.Duration.String` makes of it. Read off each version's source
/// (the module cache the oracle build fills: `runtime/restart/monitor`,
/// `gc/scheduler`, `pkg/nri` on 1.x; `internal/tomlext` and its users on 2.x); no other
/// plugin config field of these versions has `UnmarshalText` or is a `time.Duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DurationField {
    /// 1.x's restart monitor: `struct { time.Duration }` with `UnmarshalText`; a table
    /// decodes into the struct (its embedded field answers to `Duration`, `duration`,
    /// `DURATION`).
    V1TextStruct,
    /// 1.x's gc scheduler: `type duration time.Duration` with `UnmarshalText`.
    V1TextInt,
    /// 1.7's NRI: `time.Duration` itself — go-toml v1 parses a string with
    /// `time.ParseDuration` and takes an integer as nanoseconds.
    V1Std,
    /// 2.x: `tomlext.Duration` (`type Duration time.Duration` with `UnmarshalText`).
    TomlExt,
}

/// The keys [`duration_field`] knows: each is a duration in the one plugin of every
/// version that has it, so the key alone tells (a test holds that against the
/// defaults) — what the app's model, without go-toml's rules, checks to say that it
/// reads such a value approximately.
pub fn is_duration_key(path: &[String]) -> bool {
    matches!(path, [k] if matches!(k.as_str(), "interval" | "schedule_delay" | "startup_delay" | "plugin_registration_timeout" | "plugin_request_timeout" | "per_verifier_timeout"))
}

/// The duration field at `path` (ending at the key) of `plugin`, if it is one.
pub fn duration_field(version: &Version, plugin: &str, path: &[String]) -> Option<DurationField> {
    let [key] = path else { return None };
    let key = key.as_str();
    if version.is_1x() {
        return match (plugin, key) {
            ("io.containerd.internal.v1.restart", "interval") => Some(DurationField::V1TextStruct),
            ("io.containerd.gc.v1.scheduler", "schedule_delay" | "startup_delay") => Some(DurationField::V1TextInt),
            ("io.containerd.nri.v1.nri", "plugin_registration_timeout" | "plugin_request_timeout") => Some(DurationField::V1Std),
            _ => None,
        };
    }
    match (plugin, key) {
        ("io.containerd.monitor.container.v1.restart", "interval")
        | ("io.containerd.gc.v1.scheduler", "schedule_delay" | "startup_delay")
        | ("io.containerd.nri.v1.nri", "plugin_registration_timeout" | "plugin_request_timeout")
        | ("io.containerd.image-verifier.v1.bindir", "per_verifier_timeout") => Some(DurationField::TomlExt),
        _ => None,
    }
}

/// A field that a struct has but its default value does not show.
#[derive(Debug, Clone, Copy)]
pub struct Hidden {
    pub name: &'static str,
    pub kind: HiddenKind,
    /// Insert after this field (struct order), else at the end.
    pub after: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiddenKind {
    Map(EntryType),
    Any,
    Struct(EntryType),
    /// A scalar whose zero value is omitted (`omitempty`): `""`, `false`, `0.0`.
    String,
    Bool,
    Float,
}

/// The fields of the tracing plugins' configs (`OTLPConfig`, `TraceConfig` in
/// `tracing/plugin/otlp.go` on 1.6–1.7, `pkg/tracing/plugin/otlp.go` on 2.0–2.3; 2.4's
/// plugins have no config), in struct order. Every one is `omitempty`, so the default
/// dumps print none of them (1.6.20, Debian's build, has no tracing plugin).
pub fn omitempty_fields(version: &Version, plugin: &str) -> &'static [(&'static str, HiddenKind)] {
    if version.recorded() == "1.6.20" || version.line >= super::version::Line::V2_4 {
        return &[];
    }
    match plugin {
        "io.containerd.tracing.processor.v1.otlp" => &[("endpoint", HiddenKind::String), ("protocol", HiddenKind::String), ("insecure", HiddenKind::Bool)],
        "io.containerd.internal.v1.tracing" => &[("service_name", HiddenKind::String), ("sampling_ratio", HiddenKind::Float)],
        _ => &[],
    }
}

/// Hidden fields of the struct at `path` in `plugin` (`""` = server config); map
/// entries are matched by `*` in the path.
pub fn hidden_fields(version: &Version, plugin: &str, path: &[String]) -> Vec<Hidden> {
    use EntryType as E;
    let h = |name, kind, after| Hidden { name, kind, after };
    let mut out = Vec::new();
    let is_registry = matches!(plugin, "io.containerd.grpc.v1.cri" | "io.containerd.cri.v1.images");
    if is_registry && matches(&["registry", "configs", "*"], path) {
        out.push(h("auth", HiddenKind::Struct(E::AuthConfig), None));
        out.push(h("tls", HiddenKind::Struct(E::TlsConfig), None));
    }
    // The tracing plugins' fields come with go-toml's rules (`decode::EXACT`).
    if path.is_empty() && super::decode::EXACT {
        let fields = omitempty_fields(version, plugin);
        let mut after = None;
        for (name, kind) in fields {
            out.push(h(name, *kind, after));
            after = Some(*name);
        }
    }
    if version.is_1x() {
        return out;
    }
    match plugin {
        "" if path.is_empty() => out.push(h("proxy_plugins", HiddenKind::Map(E::ProxyPlugin), Some("cgroup"))),
        "" if matches(&["proxy_plugins", "*"], path) => {
            out.push(h("exports", HiddenKind::Map(E::String), Some("platform")));
        }
        "io.containerd.cri.v1.images" if path.is_empty() => {
            out.push(h("runtime_platforms", HiddenKind::Map(E::ImagePlatform), Some("pinned_images")));
        }
        "io.containerd.cri.v1.images" if matches(&["registry"], path) => {
            for name in ["mirrors", "configs", "auths", "headers"] {
                let t = match name {
                    "mirrors" => E::Mirror,
                    "configs" => E::RegistryConfig,
                    "auths" => E::AuthConfig,
                    _ => E::StringArray,
                };
                out.push(h(name, HiddenKind::Map(t), None));
            }
        }
        "io.containerd.cri.v1.runtime" if matches(&["containerd", "runtimes", "*"], path) => {
            out.push(h("options", HiddenKind::Any, None));
        }
        _ => {}
    }
    out
}

/// The short plugin ID a version-1 config uses: the URI without its type.
pub fn short_id(uri: &str) -> &str {
    let mut dots = uri.match_indices('.').map(|(i, _)| i);
    match dots.nth(3) {
        Some(i) => uri.get(i + 1..).unwrap_or(uri),
        None => uri,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every embedded default parses and holds the CRI plugin(s).
    #[test]
    fn defaults_parse() {
        for name in super::super::version::MODELLED {
            let v = Version::parse(name).unwrap();
            let d = Defaults::of(&v);
            for id in v.cri_plugin_ids() {
                assert!(d.plugins.contains(id), "{name} lacks {id}");
            }
            assert!(d.top.contains("version"));
        }
    }

    /// The key alone tells a duration field: on every version, every plugin's
    /// top-level key is one of [`is_duration_key`]'s exactly when [`duration_field`]
    /// knows it (1.6.20, Debian's build, lacks NRI; its keys are still durations
    /// wherever they appear).
    #[test]
    fn a_duration_key_is_a_duration_field_wherever_it_is() {
        let mut seen = 0;
        for name in super::super::version::MODELLED {
            let v = Version::parse(name).unwrap();
            let d = Defaults::of(&v);
            for (plugin, node) in &d.plugins.entries {
                for key in node.as_table().map(|t| t.keys().map(str::to_string).collect::<Vec<_>>()).unwrap_or_default() {
                    let path = [key.clone()];
                    let field = duration_field(&v, plugin, &path).is_some();
                    assert_eq!(is_duration_key(&path), field, "{name} {plugin} {key}");
                    seen += usize::from(field);
                }
            }
        }
        assert!(seen > 30, "{seen} duration fields in the defaults");
    }

    /// A 1.x new runtime starts from a zero `Runtime` (empty options table); 2.x has
    /// no options until written.
    #[test]
    fn runtime_templates() {
        let v1 = Version::parse("1.6.20").unwrap();
        let z = Defaults::of(&v1).template(&v1, EntryType::Runtime);
        assert_eq!(z.as_table().unwrap().get("runtime_type").unwrap().as_str(), Some(""));
        assert!(z.as_table().unwrap().contains("options"));
        let v2 = Version::parse("2.0.11").unwrap();
        let z = Defaults::of(&v2).template(&v2, EntryType::Runtime);
        assert_eq!(z.as_table().unwrap().get("sandboxer").unwrap().as_str(), Some(""));
        assert!(!z.as_table().unwrap().contains("options"));
        assert_eq!(short_id("io.containerd.grpc.v1.cri"), "cri");
    }
}
