//! Bad input never crashes the containerd model: random mixes of valid config
//! fragments, syntax errors, duplicate tables, wrong types, deep nesting, huge and
//! non-UTF-8 files load on every version without a panic, and every refusal points at
//! a file (and a line where the input has one).

// Tests and benches may unwrap (the crate denies it in the model itself).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use gpulab_model::containerd::{self, version::RECORDED, Files, Start, Version};
use proptest::prelude::*;

/// One line of a generated config: mostly plausible containerd TOML, some broken.
fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let key = prop::sample::select(vec![
        "version", "root", "oom_score", "imports", "disabled_plugins", "sandbox_image", "default_runtime_name",
        "runtime_type", "SystemdCgroup", "max_recv_message_size", "level", "bin_dir", "x", "plugin_dir",
    ]);
    let value = prop::sample::select(vec![
        "2", "3", "1", "0", "-5", "\"runc\"", "\"nvidia\"", "true", "false", "[]", "[\"a\", 1]", "0.5",
        "{ a = 1 }", "\"unterminated", "'lit'", "[\"/etc/containerd/conf.d/*.toml\"]", "1979-05-27T07:32:00Z",
        "\"\\u00e9\"", "", "[[1], [2]]",
    ]);
    let header = prop::sample::select(vec![
        "[plugins.\"io.containerd.grpc.v1.cri\"]",
        "[plugins.\"io.containerd.grpc.v1.cri\".containerd]",
        "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]",
        "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]",
        "[plugins.\"io.containerd.cri.v1.runtime\".containerd.runtimes.runc]",
        "[plugins.\"io.containerd.cri.v1.images\".registry.mirrors.\"docker.io\"]",
        "[plugins.cri]",
        "[plugins.\"io.containerd.gc.v1.scheduler\"]",
        "[grpc]",
        "[debug]",
        "[timeouts]",
        "[proxy_plugins.p]",
        "[stream_processors.s]",
        "[[plugins.\"io.containerd.transfer.v1.local\".unpack_config]]",
        "[unknown.table]",
        "[plugins]",
        "[",
        "[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p]",
    ]);
    prop_oneof![
        6 => (key, value).prop_map(|(k, v)| format!("{k} = {v}\n").into_bytes()),
        3 => header.prop_map(|h| format!("{h}\n").into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..12),
        1 => Just(b"x = \"\xff\xfe\"\n".to_vec()),
        1 => (1usize..400).prop_map(|n| format!("{}\n", (0..n).map(|i| format!("k{i}")).collect::<Vec<_>>().join(".") + " = 1").into_bytes()),
        1 => (1usize..120).prop_map(|n| format!("deep = {}1{}\n", "[".repeat(n), "]".repeat(n)).into_bytes()),
    ]
}

fn file() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(fragment(), 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    // 48 cases per `cargo test`; `PROPTEST_CASES=N` runs more (the fuzz-style run).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]

    /// A main config and two drop-ins of random content: every version loads them
    /// without panicking; a failed `config dump` says why on stderr, and every fatal
    /// diagnostic names a file.
    #[test]
    fn random_configs_never_panic(main in file(), a in file(), b in file(), v in 0usize..RECORDED.len()) {
        let mut main = main;
        main.extend_from_slice(b"\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n");
        let files = Files::new()
            .with("/etc/containerd/config.toml", main)
            .with("/etc/containerd/conf.d/10-a.toml", a)
            .with("/etc/containerd/conf.d/20-b.toml", b);
        let version = Version::parse(RECORDED[v]).unwrap();
        let r = containerd::load(&files, &version);
        // containerd's own refusal, or the lab's nesting limit (dotted keys of 400 segments).
        // (or a Go panic: 2.0–2.2 panic on a datetime in a field of another type, as
        // the real binaries do, e.g. `version = 1979-05-27T07:32:00Z`)
        if r.dump.exit != 0 {
            let said = ["containerd: ", "gpulab: ", "panic: "].iter().any(|p| r.dump.stderr.contains(p));
            prop_assert!(said, "no error text: {:?}", r.dump.stderr);
        }
        if let Start::Exited { last_line, .. } = &r.start {
            prop_assert!(["containerd: ", "gpulab: ", "panic: "].iter().any(|p| last_line.starts_with(p)), "{last_line:?}");
        }
        for d in r.diagnostics.iter().filter(|d| d.code == "containerd-toml-syntax" || d.code == "containerd-wrong-type") {
            let span = d.primary.as_ref();
            prop_assert!(span.is_some_and(|s| s.file.starts_with("/etc/containerd/") && s.line >= 1), "{d:?}");
        }
    }
}

/// Each kind of bad input, on a 1.x and a 2.x version: the exact refusal, with the
/// file and line.
#[test]
fn bad_inputs_are_refused_with_file_and_line() {
    let cases: &[(&str, &[u8], &str, &str)] = &[
        ("unterminated string", b"version = 2\nroot = \"x\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (2, 9): unescaped control character U+000A"),
        ("unterminated string", b"version = 2\nroot = \"x\n", "2.0.11", "failed to unmarshal TOML at row 2 column 10: toml: basic strings cannot have new lines"),
        ("duplicate table", b"version = 2\n[a]\n[b]\n[a]\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (4, 2): duplicated tables"),
        ("duplicate table", b"version = 2\n[a.nvidia]\n[a.nvidia]\n", "2.2.7", "failed to unmarshal TOML: toml: table nvidia already exists"),
        ("indented duplicate table", b"version = 2\n  [a.runc]\n  [a.runc]\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (3, 4): duplicated tables"),
        ("duplicate key", b"version = 2\na = 1\na = 2\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (3, 1): The following key was defined twice: a"),
        ("wrong type", b"version = \"2\"\n", "1.6.20", "failed to unmarshal TOML: (1, 1): Can't convert 2(string) to int"),
        ("wrong type in plugin", b"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nmax_concurrent_downloads = \"3\"\n", "1.6.20", "(3, 1): Can't convert 3(string) to int"),
        ("wrong type in runtimes", b"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes]\nrunc = 5\n", "1.6.20", "(3, 1): Can't convert 5(int64) to config.Runtime"),
        ("short plugin key on v2", b"version = 2\n[plugins.cri]\n", "1.6.20", "failed to load TOML from /etc/containerd/config.toml: invalid plugin key URI \"cri\" expect io.containerd.x.vx"),
        ("short disabled plugin", b"version = 2\ndisabled_plugins = [\"cri\"]\n", "2.1.9", "failed to load TOML from /etc/containerd/config.toml: invalid disabled plugin URI \"cri\" expect io.containerd.x.vx"),
        ("non-UTF-8 on 2.x", b"version = 2\nroot = \"\xff\"\n", "2.0.11", "failed to unmarshal TOML at row 2 column 9: toml: invalid UTF-8"),
        // go-toml v1's key errors (1.6.20, 1.6.38, 1.7.34 print the same).
        ("$x = 1 on 1.x", b"version = 2\n$x = 1\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (2, 1): parsing error: keys cannot contain $ character"),
        ("non-UTF-8 key on 1.x", b"version = 2\n\xff\xfe = 1\n", "1.7.34", "failed to load TOML: /etc/containerd/config.toml: (2, 1): parsing error: keys cannot contain \u{fffd} character"),
        ("a b = 1 on 1.x", b"version = 2\na b = 1\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (2, 3): was expecting token =, but got \"b\" instead"),
        ("abc on 1.x", b"version = 2\nabc\n", "1.6.20", "failed to load TOML: /etc/containerd/config.toml: (2, 1): parsing error: keys cannot contain new lines"),
        // Wrong types in the file's own fields, as the real binaries print them (issue
        // 16's bad-input probe, 2026-12-03): the go-toml v2 of 2.0–2.3 words booleans,
        // floats and inline tables by the Go kind, gives arrays no position and
        // datetimes row 1 column 1; go-toml v2 names local dates, times, datetimes.
        ("bool into int, 2.3", b"version = 2\noom_score = true\n", "2.3.4", "failed to unmarshal TOML at row 2 column 13: toml: cannot assign boolean to a true"),
        ("float into string, 2.0", b"version = 2\nroot = 1.5\n", "2.0.11", "failed to unmarshal TOML at row 2 column 8: toml: float cannot be assigned to string"),
        ("inline table into slice, 2.2", b"version = 2\ndisabled_plugins = {a = 1}\n", "2.2.7", "failed to unmarshal TOML at row 2 column 20: toml: cannot store inline table in Go type slice"),
        ("array into int, 2.3", b"version = 2\noom_score = [1]\n", "2.3.4", "failed to unmarshal TOML: toml: cannot decode TOML array into struct field config.Config.OOMScore of type int"),
        ("local date into string, 2.3", b"version = 2\nroot = 1979-05-27\n", "2.3.4", "failed to unmarshal TOML at row 1 column 1: toml: cannot decode TOML local date into struct field config.Config.Root of type string"),
        ("inline table into string, 2.4", b"version = 2\nroot = {a = 1}\n", "2.4.2", "failed to unmarshal TOML at row 2 column 8: toml: cannot decode TOML inline table into struct field config.Config.Root of type string"),
        ("local time into int, 2.4", b"version = 2\noom_score = 07:32:00\n", "2.4.2", "failed to unmarshal TOML at row 2 column 13: toml: cannot decode TOML local time into struct field config.Config.OOMScore of type int"),
        ("local datetime into int, 2.4", b"version = 2\noom_score = 1979-05-27T07:32:00\n", "2.4.2", "failed to unmarshal TOML at row 2 column 13: toml: cannot decode TOML local datetime into struct field config.Config.OOMScore of type int"),
    ];
    for (what, text, v, want) in cases {
        let files = Files::new().with("/etc/containerd/config.toml", text.to_vec());
        let r = containerd::load(&files, &Version::parse(v).unwrap());
        assert_eq!(r.dump.exit, 1, "{what} @ {v}: {:?}", r.dump);
        let last = r.dump.stderr.lines().last().unwrap_or("");
        assert_eq!(last, format!("containerd: {want}"), "{what} @ {v}");
    }
    // Non-UTF-8 on go-toml v1 is read as U+FFFD, as the real 1.6.20 does.
    let files = Files::new().with("/etc/containerd/config.toml", b"version = 2\nroot = \"x\xff\"\n".to_vec());
    let r = containerd::load(&files, &Version::parse("1.6.20").unwrap());
    assert_eq!(r.dump.exit, 0);
    assert!(r.dump.stdout.contains("root = \"x\u{fffd}\""));
}

/// A huge file (10,000 runtimes) and deep nesting load without trouble.
#[test]
fn huge_and_deep_files_load() {
    let mut text = String::from("version = 2\n");
    for i in 0..10_000 {
        text.push_str(&format!("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.r{i}]\nruntime_type = \"io.containerd.runc.v2\"\n"));
    }
    let files = Files::new().with("/etc/containerd/config.toml", text);
    for v in ["1.6.20", "2.2.7"] {
        let r = containerd::load(&files, &Version::parse(v).unwrap());
        assert_eq!(r.dump.exit, 0, "{v}");
        assert!(r.runtime_handlers().len() >= 10_000, "{v}");
    }
    let deep = format!("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".{}]\nx = 1\n", (0..500).map(|i| format!("d{i}")).collect::<Vec<_>>().join("."));
    let files = Files::new().with("/etc/containerd/config.toml", deep);
    for v in RECORDED {
        let r = containerd::load(&files, &Version::parse(v).unwrap());
        assert!(r.dump.exit == 0 || r.dump.exit == 1, "{v}");
    }
}

/// A refused version or plugin URI points at the setting, in the file that wrote it
/// (containerd names only the file it read last): a drop-in's `version = 4` on 2.2.7
/// (scenarios/config-version-4), a drop-in above the main config's version on 2.3.4
/// (scenarios/dropin-from-config-dump), version 3 on 1.6.39, a short plugin URI.
#[test]
fn version_and_plugin_uri_refusals_point_at_the_setting() {
    const MAIN: &str = "/etc/containerd/config.toml";
    const DROPIN: &str = "/etc/containerd/conf.d/99-nvidia.toml";
    let glob = "imports = [\"/etc/containerd/conf.d/*.toml\"]\n";
    let cases: &[(&str, String, &str, &str, &str, &str, u32)] = &[
        ("v4 drop-in on 2.2", format!("version = 3\n{glob}"), "# toolkit\nversion = 4\n", "2.2.7", "containerd-version-unsupported", DROPIN, 2),
        ("v4 drop-in above a v2 root on 2.3", format!("version = 2\n{glob}"), "\n\nversion = 4\n", "2.3.4", "containerd-dropin-version-above-root", DROPIN, 3),
        ("v3 on 1.6.39", format!("{glob}version = 3\n"), "# no version\n", "1.6.39", "containerd-version-unsupported", MAIN, 2),
        ("short disabled plugin in a drop-in", format!("version = 2\n{glob}"), "version = 2\n\ndisabled_plugins = [\"cri\"]\n", "2.1.9", "containerd-plugin-uri-invalid", DROPIN, 3),
        ("short plugin key on 1.6", format!("version = 2\n{glob}"), "version = 2\n[plugins.cri]\n", "1.6.20", "containerd-plugin-uri-invalid", DROPIN, 2),
    ];
    for (what, main, dropin, v, code, file, line) in cases {
        let files = Files::new().with(MAIN, main.clone()).with(DROPIN, *dropin);
        let r = containerd::load(&files, &Version::parse(v).unwrap());
        let d = r.diagnostics.iter().find(|d| d.code == *code).unwrap_or_else(|| panic!("{what}: no {code} in {:?}", r.diagnostics));
        let at = d.primary.as_ref().unwrap_or_else(|| panic!("{what}: {code} has no file:line"));
        assert_eq!((at.file.as_str(), at.line), (*file, *line), "{what}");
    }
}
