//! The second stage, per file: a file written for an older config version migrated
//! to the version the binary reads (`MigrateConfigTo`): `v1Migrate` (short plugin IDs
//! → URIs), `serviceMigrate` (3 → 4: `[grpc]`, `[ttrpc]`, `[debug]`, `[metrics]` into
//! server plugins) and the CRI plugins' own `ConfigMigration` (v2 → v3), with the log
//! lines and Go panics each version gives.
//!
//! Next: the migrated file is merged into what came before ([`super::merge`]).

use super::gowords::go_panic;
use super::load::{LoadError, LoadErrorCode, Loaded};
use super::log::LogLine;
use super::value::{Node, Origin, Table, Value};
use super::version::{Line, Version};


/// `v1MigratePluginName`: a v1 short plugin ID as the URI 2.x assumes for it.
pub fn v1_plugin_name(name: &str) -> (String, bool) {
    if name.contains('.') {
        return (name.to_string(), false);
    }
    let core = match name {
        "cri" => Some("io.containerd.grpc.v1.cri"),
        "cgroups" => Some("io.containerd.monitor.v1.cgroups"),
        "linux" => Some("io.containerd.runtime.v1.linux"),
        "scheduler" => Some("io.containerd.gc.v1.scheduler"),
        "bolt" => Some("io.containerd.metadata.v1.bolt"),
        "task" => Some("io.containerd.runtime.v2.task"),
        "opt" => Some("io.containerd.internal.v1.opt"),
        "restart" => Some("io.containerd.internal.v1.restart"),
        "tracing" => Some("io.containerd.internal.v1.tracing"),
        "otlp" => Some("io.containerd.tracing.processor.v1.otlp"),
        "aufs" => Some("io.containerd.snapshotter.v1.aufs"),
        "btrfs" => Some("io.containerd.snapshotter.v1.btrfs"),
        "devmapper" => Some("io.containerd.snapshotter.v1.devmapper"),
        "native" => Some("io.containerd.snapshotter.v1.native"),
        "overlayfs" => Some("io.containerd.snapshotter.v1.overlayfs"),
        "zfs" => Some("io.containerd.snapshotter.v1.zfs"),
        _ => None,
    };
    match core {
        Some(uri) => (uri.to_string(), false),
        None if name.ends_with("-service") => (format!("io.containerd.service.v1.{name}"), false),
        None if name == "windows" || name == "windows-lcow" => (format!("io.containerd.snapshotter.v1.{name}"), true),
        None => (format!("io.containerd.grpc.v1.{name}"), true),
    }
}

/// `v1Migrate`: short plugin IDs become URIs, in `plugins`, `disabled_plugins` and
/// `required_plugins`.
fn v1_migrate(file: &mut Table, st: &mut Loaded) {
    if let Some(plugins) = file.get_mut("plugins").and_then(Node::as_table_mut) {
        let entries = std::mem::take(&mut plugins.entries);
        for (k, v) in entries {
            let (uri, ambiguous) = v1_plugin_name(&k);
            if ambiguous {
                st.log.push(LogLine::new("warning", format!("Ambiguous {k} plugin in v1 config, treating as {uri}")));
            }
            plugins.insert(uri, v);
        }
    }
    for list in ["disabled_plugins", "required_plugins"] {
        if let Some(Value::Array(items)) = file.get_mut(list).map(|n| &mut n.value) {
            for item in items {
                if let Value::String(s) = &mut item.value {
                    *s = v1_plugin_name(s).0;
                }
            }
        }
    }
}

/// `serviceMigrate` (3 → 4): the deprecated `[grpc]`, `[ttrpc]`, `[debug]`, `[metrics]`
/// fields move into `io.containerd.server.v1.*` plugin tables. Only the fields a file
/// sets move (the goldens: a drop-in's `[grpc] max_recv_message_size` alone becomes
/// `server.v1.grpc.max_recv_message_size`, the socket address keeps its default).
/// (section, field, plugin field)
type Move = (&'static str, &'static str, &'static str);

fn service_migrate(file: &mut Table) {
    // (plugin, [(section, field, plugin field)])
    let moves: &[(&str, &[Move])] = &[
        ("io.containerd.server.v1.debug", &[("debug", "address", "address"), ("debug", "uid", "uid"), ("debug", "gid", "gid")]),
        (
            "io.containerd.server.v1.grpc",
            &[
                ("grpc", "address", "address"),
                ("grpc", "uid", "uid"),
                ("grpc", "gid", "gid"),
                ("grpc", "max_recv_message_size", "max_recv_message_size"),
                ("grpc", "max_send_message_size", "max_send_message_size"),
            ],
        ),
        (
            "io.containerd.server.v1.grpc-tcp",
            &[
                ("grpc", "tcp_address", "address"),
                ("grpc", "tcp_tls_ca", "tls_ca"),
                ("grpc", "tcp_tls_cert", "tls_cert"),
                ("grpc", "tcp_tls_key", "tls_key"),
                ("grpc", "tcp_tls_common_name", "tls_common_name"),
            ],
        ),
        ("io.containerd.server.v1.ttrpc", &[("ttrpc", "address", "address"), ("ttrpc", "uid", "uid"), ("ttrpc", "gid", "gid")]),
        ("io.containerd.server.v1.metrics", &[("metrics", "address", "address")]),
        ("io.containerd.metrics.v1.grpc-prometheus", &[("metrics", "grpc_histogram", "grpc_histogram")]),
    ];
    let mut add: Vec<(String, Table, Option<Origin>)> = Vec::new();
    let mut clear: Vec<(&str, &str)> = Vec::new();
    for (plugin, fields) in moves {
        if file.get_path(&["plugins", plugin]).is_some() {
            continue;
        }
        let mut t = Table::new();
        let mut origin = None;
        for (section, field, target) in *fields {
            if let Some(v) = file.get_path(&[section, field]).filter(|v| !v.is_zero()) {
                origin = origin.or_else(|| v.origin.clone());
                t.insert(*target, v.clone());
                clear.push((section, field));
            }
        }
        if *plugin == "io.containerd.server.v1.grpc-tcp" && !t.entries.is_empty() {
            for f in ["max_recv_message_size", "max_send_message_size"] {
                if let Some(v) = file.get_path(&["grpc", f]).filter(|v| !v.is_zero()) {
                    t.insert(f, v.clone());
                }
            }
        }
        if *plugin == "io.containerd.server.v1.ttrpc" && !t.contains("address") {
            let grpc = file.get_path(&["grpc", "address"]).filter(|v| !v.is_zero()).cloned();
            if let Some(Node { value: Value::String(a), origin: o }) = grpc {
                origin = origin.or_else(|| o.clone());
                t.insert("address", Node::new(Value::String(format!("{a}.ttrpc")), o));
            }
        }
        if !t.entries.is_empty() {
            add.push(((*plugin).to_string(), t, origin));
        }
    }
    for (section, field) in clear {
        if let Some(t) = file.get_mut(section).and_then(Node::as_table_mut) {
            t.remove(field);
        }
    }
    if add.is_empty() {
        return;
    }
    if let Some(plugins) = file.table_mut("plugins", None) {
        for (id, t, origin) in add {
            plugins.insert(id, Node::new(Value::Table(t), origin));
        }
    }
}

/// The CRI plugins' `ConfigMigration` functions (v2 → v3), in plugin-graph order:
/// images, runtime, then the gRPC CRI plugin trims what the others took.
///
/// `disabled`: the plugins whose migration does not run — 2.0–2.2's `config dump` runs
/// the migrations of the plugin graph without the disabled plugins
/// (`registry.Graph(V2DisabledFilter(…))`; seed 7453586491648913821 node 62: with
/// `io.containerd.grpc.v1.cri` disabled its table keeps every key); 2.3+ migrate each
/// file with every plugin (`&[]`).
pub fn migrate_cri_plugins(version: &Version, plugins: &mut Table, config_version: i64, disabled: &[String]) -> Result<(), LoadError> {
    let off = |uri: &str| disabled.iter().any(|d| d == uri);
    let images_on = !off("io.containerd.cri.v1.images");
    let runtime_on = !off("io.containerd.cri.v1.runtime");
    // Each CRI plugin migrates while the version is below the line's own
    // (`configVersion >= version.ConfigVersion`): on 2.3+ (4) a version 3 file's
    // `io.containerd.grpc.v1.cri` table moves too.
    if config_version >= version.config_version() {
        return Ok(());
    }
    // The images plugin's migration asserts these are tables (`v.(map[string]interface{})`)
    // and panics otherwise.
    if let Some(src) = plugins.get("io.containerd.grpc.v1.cri").filter(|_| images_on) {
        expect_map(src)?;
        if let Some(c) = src.as_table().and_then(|t| t.get("containerd")) {
            expect_map(c)?;
            if let Some(r) = c.as_table().and_then(|t| t.get("runtimes")) {
                expect_map(r)?;
                for (_, rt) in r.as_table().map_or(&[][..], |t| &t.entries[..]) {
                    expect_map(rt)?;
                }
            }
        }
    }
    if let Some(src) = plugins.get("io.containerd.grpc.v1.cri").filter(|_| runtime_on) {
        if let Some(c) = src.as_table().and_then(|t| t.get("containerd")) {
            // The runtime plugin's migration then walks the runtimes of its own
            // `containerd` table (the drop-in's `cri.v1.runtime` one, which wins over
            // the moved keys) with the same assertion (`runtimeConf :=
            // v.(map[string]interface{})`; seed 7453586491648913782 node 15, 2.0–2.2).
            if c.is_table() {
                let own = plugins.get_path(&["io.containerd.cri.v1.runtime", "containerd"]).filter(|n| n.is_table());
                let runtimes = match own.and_then(|n| n.as_table()).and_then(|t| t.get("runtimes")) {
                    Some(r) => Some(r),
                    None => c.as_table().and_then(|t| t.get("runtimes")),
                };
                if let Some(r) = runtimes {
                    expect_map(r)?;
                    for (_, rt) in r.as_table().map_or(&[][..], |t| &t.entries[..]) {
                        expect_map(rt)?;
                    }
                }
            }
        }
    }
    migrate_cri_tables(version, plugins, images_on, runtime_on, !off("io.containerd.grpc.v1.cri"));
    Ok(())
}

/// A Go type assertion to `map[string]interface{}`: a panic unless `n` is a table.
fn expect_map(n: &Node) -> Result<(), LoadError> {
    if n.is_table() {
        return Ok(());
    }
    let t = super::gonames::interface_type(n);
    Err(go_panic(format!("interface conversion: interface {{}} is {t}, not map[string]interface {{}}"), n.origin.clone()))
}

fn migrate_cri_tables(version: &Version, plugins: &mut Table, images_on: bool, runtime_on: bool, cri_on: bool) {
    // `cni.bin_dirs` (and the bin_dir → bin_dirs move) arrived in 2.1.
    let has_bin_dirs = version.line >= Line::V2_1;
    let Some(src) = plugins.get_table("io.containerd.grpc.v1.cri").cloned() else {
        return;
    };
    // io.containerd.cri.v1.images
    let mut dst = plugins.get_table("io.containerd.cri.v1.images").cloned().unwrap_or_default();
    let mut pinned = dst.get_table("pinned_images").cloned().unwrap_or_default();
    if let Some(simage) = src.get("sandbox_image") {
        pinned.insert("sandbox", simage.clone());
    }
    if !pinned.entries.is_empty() {
        let origin = src.get("sandbox_image").and_then(|n| n.origin.clone());
        dst.insert("pinned_images", Node::new(Value::Table(pinned), origin));
    }
    for key in ["registry", "image_decryption", "max_concurrent_downloads", "image_pull_progress_timeout", "image_pull_with_sync_fs", "stats_collect_period"] {
        if let Some(v) = src.get(key) {
            dst.insert(key, v.clone());
        }
    }
    // `migrateConfig` returns early when `containerd.runtimes` is missing, before it
    // copies these.
    if let Some(c) = src.get_table("containerd").filter(|c| c.contains("runtimes")) {
        for key in ["snapshotter", "disable_snapshot_annotations", "discard_unpacked_layers"] {
            if let Some(v) = c.get(key) {
                dst.insert(key, v.clone());
            }
        }
    }
    let images_origin = src_origin(plugins);
    if images_on {
        plugins.insert("io.containerd.cri.v1.images", Node::new(Value::Table(dst), images_origin.clone()));
    }

    // io.containerd.cri.v1.runtime
    let mut dst = plugins.get_table("io.containerd.cri.v1.runtime").cloned().unwrap_or_default();
    for (k, v) in &src.entries {
        // 2.0 copies `cni` whole, and only when the plugin's own table has none (its
        // `default` case; seed 7453586491648913809 node 56); 2.1 merges it key by key.
        let skip = (k == "cni" && has_bin_dirs) || matches!(
            k.as_str(),
            "containerd" | "sandbox_image" | "registry" | "image_decryption" | "max_concurrent_downloads"
                | "image_pull_progress_timeout" | "image_pull_with_sync_fs" | "stats_collect_period"
                | "disable_tcp_service" | "stream_server_address" | "stream_server_port" | "stream_idle_timeout"
                | "enable_tls_streaming" | "x509_key_pair_streaming"
        );
        if !skip && !dst.contains(k) {
            dst.insert(k.clone(), v.clone());
        }
    }
    if let Some(cni) = src.get("cni").filter(|_| has_bin_dirs).and_then(|n| n.as_table().map(|t| (t.clone(), n.origin.clone()))) {
        let (cni, origin) = cni;
        let mut new_cni = dst.get_table("cni").cloned().unwrap_or_default();
        for (k, v) in cni.entries {
            if k == "bin_dir" && has_bin_dirs {
                let has_dirs = matches!(new_cni.get("bin_dirs").map(|n| &n.value), Some(Value::Array(a)) if !a.is_empty());
                if !has_dirs {
                    let origin = v.origin.clone();
                    new_cni.insert("bin_dirs", Node::new(Value::Array(vec![v]), origin));
                }
            } else if !new_cni.contains(&k) {
                new_cni.insert(k, v);
            }
        }
        dst.insert("cni", Node::new(Value::Table(new_cni), origin));
    }
    if let Some(c) = src.get("containerd").and_then(|n| n.as_table().map(|t| (t.clone(), n.origin.clone()))) {
        let (c, origin) = c;
        let mut new_c = dst.get_table("containerd").cloned().unwrap_or_default();
        for (k, v) in c.entries {
            if !matches!(k.as_str(), "snapshotter" | "disable_snapshot_annotations" | "discard_unpacked_layers") && !new_c.contains(&k) {
                new_c.insert(k, v);
            }
        }
        if let Some(runtimes) = new_c.get_mut("runtimes").and_then(Node::as_table_mut) {
            for (_, rt) in &mut runtimes.entries {
                if let Some(rt) = rt.as_table_mut() {
                    if let Some(mode) = rt.get("sandbox_mode").cloned() {
                        if !rt.contains("sandboxer") {
                            rt.insert("sandboxer", mode);
                            rt.remove("sandbox_mode");
                        }
                    }
                }
            }
        }
        dst.insert("containerd", Node::new(Value::Table(new_c), origin));
    }
    if runtime_on {
        plugins.insert("io.containerd.cri.v1.runtime", Node::new(Value::Table(dst), images_origin.clone()));
    }
    if !cri_on {
        return;
    }

    // io.containerd.grpc.v1.cri keeps only the streaming server settings.
    let mut kept = Table::new();
    for key in ["disable_tcp_service", "stream_server_address", "stream_server_port", "stream_idle_timeout", "enable_tls_streaming", "x509_key_pair_streaming"] {
        if let Some(v) = src.get(key) {
            kept.insert(key, v.clone());
        }
    }
    // Written back even when empty (`pluginConfigs[pluginName] = dst`): a disabled CRI
    // plugin's table is then printed as `[plugins.'io.containerd.grpc.v1.cri']`.
    plugins.insert("io.containerd.grpc.v1.cri", Node::new(Value::Table(kept), images_origin));
}

fn src_origin(plugins: &Table) -> Option<Origin> {
    plugins.get("io.containerd.grpc.v1.cri").and_then(|n| n.origin.clone())
}

pub(super) fn migrate_file(version: &Version, path: &str, file: &mut Table, declared: i64, root_version: &mut i64, st: &mut Loaded) -> Result<(), LoadError> {
    let current = st.version();
    if !version.migrates_per_file() {
        // 2.0–2.2: only version-less and v1 files, up to the merged version, without
        // plugin migrations.
        if declared <= 1 {
            // `MigrateConfigTo(out.Version)` indexes `migrations` (versions 0–2): a
            // merged version above 3 runs past its end.
            if current > 3 {
                return Err(go_panic("runtime error: index out of range [3] with length 3".to_string(), file.get("version").and_then(|n| n.origin.clone())));
            }
            if declared < 2 && current >= 2 {
                v1_migrate(file, st);
            }
            file.insert("version", Node::builtin(Value::Integer(current.max(declared))));
        }
        return Ok(());
    }
    if *root_version == 0 {
        *root_version = declared;
    }
    if version.rejects_dropin_above_root() && declared > *root_version {
        return Err(LoadError {
            message: format!("drop-in config version {declared} higher than root config version {root_version}"),
            code: LoadErrorCode::DropinVersionAboveRoot,
            at: file.get("version").and_then(|n| n.origin.clone()),
            dump_ignores: false,
            log: None,
        });
    }
    if declared < current {
        for v in declared..current {
            match v {
                1 => v1_migrate(file, st),
                3 => service_migrate(file),
                _ => {}
            }
            if let Some(plugins) = file.get_mut("plugins").and_then(Node::as_table_mut) {
                migrate_cri_plugins(version, plugins, v, &[])?;
            }
        }
        file.insert("version", Node::builtin(Value::Integer(current)));
        st.log.push(
            LogLine::new("warning", format!("Configuration migrated from version {declared}, use `containerd config migrate` to avoid migration"))
                .field("t", "<dur>"),
        );
    }
    let _ = path;
    Ok(())
}
