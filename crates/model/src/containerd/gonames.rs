//! The Go names containerd 2.x's go-toml v2 puts in a type error
//! (`cannot decode TOML string into struct field config.ImageConfig.MaxConcurrentDownloads
//! of type int`): which struct a table decodes into, the Go field behind a TOML key,
//! the field's Go type. Read off the config structs of containerd 2.0–2.4
//! (`cmd/containerd/server/config/config.go`, `internal/cri/config/config.go`,
//! `plugins/services/opt`, `plugins/gc`); a field is its key in CamelCase with Go's
//! initialisms unless listed as an exception.

use super::value::{Node, Value};

fn matches(pattern: &[&str], path: &[String]) -> bool {
    pattern.len() == path.len() && pattern.iter().zip(path).all(|(p, s)| *p == "*" || p == s)
}

/// The Go struct type the table at `path` of `plugin` (`""`: the server config)
/// decodes into.
pub fn struct_name(plugin: &str, path: &[String]) -> &'static str {
    const IMAGES: &str = "io.containerd.cri.v1.images";
    const RUNTIME: &str = "io.containerd.cri.v1.runtime";
    let rules: &[(&str, &[&str], &str)] = &[
        ("", &[], "config.Config"),
        ("", &["grpc"], "config.GRPCConfig"),
        ("", &["ttrpc"], "config.TTRPCConfig"),
        ("", &["debug"], "config.Debug"),
        ("", &["metrics"], "config.MetricsConfig"),
        ("", &["cgroup"], "config.CgroupConfig"),
        ("", &["proxy_plugins", "*"], "config.ProxyPlugin"),
        ("", &["stream_processors", "*"], "config.StreamProcessor"),
        (IMAGES, &[], "config.ImageConfig"),
        (IMAGES, &["registry"], "config.Registry"),
        (IMAGES, &["image_decryption"], "config.ImageDecryption"),
        (IMAGES, &["registry", "mirrors", "*"], "config.Mirror"),
        (IMAGES, &["registry", "configs", "*"], "config.RegistryConfig"),
        (IMAGES, &["registry", "auths", "*"], "config.AuthConfig"),
        (IMAGES, &["runtime_platforms", "*"], "config.ImagePlatform"),
        (RUNTIME, &[], "config.RuntimeConfig"),
        (RUNTIME, &["containerd"], "config.ContainerdConfig"),
        (RUNTIME, &["containerd", "runtimes", "*"], "config.Runtime"),
        (RUNTIME, &["cni"], "config.CniConfig"),
        ("io.containerd.grpc.v1.cri", &[], "config.ServerConfig"),
        ("io.containerd.grpc.v1.cri", &["x509_key_pair_streaming"], "config.X509KeyPairStreaming"),
        ("io.containerd.internal.v1.opt", &[], "opt.Config"),
        ("io.containerd.gc.v1.scheduler", &[], "scheduler.config"),
        ("io.containerd.monitor.container.v1.restart", &[], "monitor.Config"),
        ("io.containerd.nri.v1.nri", &[], "nri.Config"),
        ("io.containerd.image-verifier.v1.bindir", &[], "bindir.Config"),
        ("io.containerd.tracing.processor.v1.otlp", &[], "plugin.OTLPConfig"),
        ("io.containerd.internal.v1.tracing", &[], "plugin.TraceConfig"),
    ];
    rules.iter().find(|(p, pat, _)| *p == plugin && matches(pat, path)).map_or("config.Config", |(_, _, s)| s)
}

/// The Go field behind TOML key `key` of struct `owner`.
pub fn field_name(owner: &str, key: &str) -> String {
    let exception = match (owner, key) {
        ("config.Runtime", "runtime_type") => Some("Type"),
        ("config.Runtime", "runtime_path") => Some("Path"),
        ("config.Runtime", "cni_conf_dir") => Some("NetworkPluginConfDir"),
        ("config.Runtime", "cni_max_conf_num") => Some("NetworkPluginMaxConfNum"),
        ("config.CniConfig", "bin_dir") => Some("NetworkPluginBinDir"),
        ("config.CniConfig", "bin_dirs") => Some("NetworkPluginBinDirs"),
        ("config.CniConfig", "conf_dir") => Some("NetworkPluginConfDir"),
        ("config.CniConfig", "max_conf_num") => Some("NetworkPluginMaxConfNum"),
        ("config.CniConfig", "setup_serially") => Some("NetworkPluginSetupSerially"),
        ("config.CniConfig", "conf_template") => Some("NetworkPluginConfTemplate"),
        ("config.CniConfig", "ip_pref") => Some("IPPreference"),
        ("plugin.OTLPConfig", "endpoint") => Some("Endpoint"),
        ("plugin.TraceConfig", "sampling_ratio") => Some("TraceSamplingRatio"),
        (_, "io_type") => Some("IOType"),
        (_, "ignore_blockio_not_enabled_errors") => Some("IgnoreBlockIONotEnabledErrors"),
        (_, "endpoint") => Some("Endpoints"),
        (_, "identitytoken") => Some("IdentityToken"),
        (_, "netns_mounts_under_state_dir") => Some("NetNSMountsUnderStateDir"),
        (_, "enable_unprivileged_icmp") => Some("EnableUnprivilegedICMP"),
        (_, "drain_exec_sync_io_timeout") => Some("DrainExecSyncIOTimeout"),
        (_, "temp") => Some("TempDir"),
        (_, "tcp_tls_ca") => Some("TCPTLSCA"),
        (_, "max_recv_message_size") => Some("MaxRecvMsgSize"),
        (_, "max_send_message_size") => Some("MaxSendMsgSize"),
        (_, "blockio_config_file") => Some("BlockIOConfigFile"),
        _ => None,
    };
    if let Some(e) = exception {
        return e.to_string();
    }
    let initialism = |p: &str| match p {
        "id" | "oom" | "cni" | "tls" | "ip" | "uid" | "gid" | "cdi" | "nri" | "tcp" | "grpc" | "api" | "url" | "ttrpc" => Some(p.to_ascii_uppercase()),
        _ => None,
    };
    key.split('_')
        .map(|p| {
            initialism(p).unwrap_or_else(|| {
                let mut c = p.chars();
                c.next().map_or(String::new(), |f| f.to_ascii_uppercase().to_string() + c.as_str())
            })
        })
        .collect()
}

/// The Go type of a field whose default value is `default` (`key` of `owner`).
pub fn go_type(owner: &str, key: &str, default: Option<&Node>) -> String {
    match (owner, key) {
        ("config.Config", "plugins") => return "map[string]interface {}".into(),
        ("config.Config", "proxy_plugins") => return "map[string]config.ProxyPlugin".into(),
        ("config.Config", "stream_processors") => return "map[string]config.StreamProcessor".into(),
        ("config.Config", "timeouts") => return "map[string]string".into(),
        ("config.Config", "grpc") => return "config.GRPCConfig".into(),
        ("config.Config", "ttrpc") => return "config.TTRPCConfig".into(),
        ("config.Config", "debug") => return "config.Debug".into(),
        ("config.Config", "metrics") => return "config.MetricsConfig".into(),
        ("config.Config", "cgroup") => return "config.CgroupConfig".into(),
        ("config.ContainerdConfig", "runtimes") => return "map[string]config.Runtime".into(),
        _ => {}
    }
    match default.map(|d| &d.value) {
        Some(Value::String(_)) | None => "string".into(),
        Some(Value::Integer(_)) => "int".into(),
        Some(Value::Float(_)) => "float64".into(),
        Some(Value::Boolean(_)) => "bool".into(),
        Some(Value::Array(_)) => "[]string".into(),
        Some(Value::Datetime(_)) => "time.Time".into(),
        Some(Value::Table(_)) => "map[string]interface {}".into(),
    }
}

/// The TOML kind go-toml v2 names in a type error.
pub fn toml_kind(n: &Node) -> &'static str {
    match &n.value {
        Value::String(_) => "string",
        Value::Integer(_) => "integer",
        Value::Float(_) => "float",
        Value::Boolean(_) => "boolean",
        Value::Datetime(d) => match datetime_type(d) {
            "time.Time" => "datetime",
            "toml.LocalDateTime" => "local datetime",
            "toml.LocalDate" => "local date",
            _ => "local time",
        },
        Value::Array(_) => "array",
        Value::Table(_) => "table",
    }
}

/// The `reflect.Kind` of a Go type as [`go_type`] writes it (`int`, `[]string` →
/// `slice`, `map[string]string` → `map`, `config.GRPCConfig` → `struct`).
pub fn go_kind(go_type: &str) -> &str {
    if go_type.starts_with("[]") {
        "slice"
    } else if go_type.starts_with("map[") {
        "map"
    } else if go_type.starts_with('*') {
        "ptr"
    } else if go_type.contains('.') {
        "struct"
    } else {
        go_type
    }
}

/// The Go type a TOML value decodes to as `interface{}` (for `interface conversion`
/// panics): `string`, `int64`, `time.Time`, `toml.LocalDate`, ….
pub fn interface_type(n: &Node) -> &'static str {
    match &n.value {
        Value::String(_) => "string",
        Value::Integer(_) => "int64",
        Value::Float(_) => "float64",
        Value::Boolean(_) => "bool",
        Value::Array(_) => "[]interface {}",
        Value::Table(_) => "map[string]interface {}",
        Value::Datetime(d) => datetime_type(d),
    }
}

/// go-toml v2's Go type for a datetime as written.
pub fn datetime_type(d: &str) -> &'static str {
    let has_date = d.get(4..5) == Some("-");
    let rest = if has_date { d.get(10..).unwrap_or("") } else { d };
    let has_time = rest.contains(':');
    let has_zone = has_date && rest.get(1..).is_some_and(|r| r.contains(['Z', 'z', '+', '-']));
    match (has_date, has_time, has_zone) {
        (true, true, true) => "time.Time",
        (true, true, false) => "toml.LocalDateTime",
        (true, false, _) => "toml.LocalDate",
        _ => "toml.LocalTime",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names real containerd 2.x printed.
    #[test]
    fn go_names() {
        assert_eq!(field_name("config.Config", "oom_score"), "OOMScore");
        assert_eq!(field_name("config.GRPCConfig", "max_recv_message_size"), "MaxRecvMsgSize");
        assert_eq!(field_name("config.ImageConfig", "max_concurrent_downloads"), "MaxConcurrentDownloads");
        assert_eq!(field_name("config.RuntimeConfig", "enable_selinux"), "EnableSelinux");
        assert_eq!(field_name("config.ContainerdConfig", "default_runtime_name"), "DefaultRuntimeName");
        assert_eq!(field_name("config.Config", "disabled_plugins"), "DisabledPlugins");
        assert_eq!(struct_name("io.containerd.cri.v1.runtime", &["containerd".to_string()]), "config.ContainerdConfig");
        assert_eq!(datetime_type("1979-05-27T07:32:00Z"), "time.Time");
        assert_eq!(datetime_type("1979-05-27"), "toml.LocalDate");
    }
}
