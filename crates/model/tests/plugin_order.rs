//! The order in which 1.x `config dump` decodes plugin configs (the plugin graph,
//! `schema::plugin_graph_order`), held against what the real binaries printed: a main
//! config with a type error in every plugin table, the reported plugin's error taken
//! out, again until none is left (`plugin_order/measure.py` ran the binaries: Debian's
//! 1.6.20 and the oracle's 1.6.38 and 1.7.34 builds, 2026-12-07). Each step's stderr
//! is one recorded line; the model must print it byte for byte, so the whole order is
//! checked, not only its first plugin. (2.x's orders show in the unknown-key warnings
//! the live tier compares on every generated node.)
//!
//! The recordings also showed two differences that are not the order, since fixed: a
//! duration field (the restart monitor's `interval`, a type with `UnmarshalText`) given
//! a number, and the tracing plugins' fields, which their default dumps do not print.
//! [`KNOWN`] lists a step that differs while it is being fixed (none now).
//!
//! Without the feature `go-toml-syntax` (the app's model) a duration field is read by
//! its default's shape: such a step may differ, and then the model must say so
//! (`containerd-plugin-read-approximately`); with it, every step is exact.

use gpulab_model::containerd::decode::EXACT;
use gpulab_model::containerd::schema::Defaults;
use gpulab_model::containerd::value::Value;
use gpulab_model::containerd::{Containerd, Files, Version, MAIN_CONFIG};

/// (the binary's version, its recording).
const RECORDED: &[(&str, &str)] = &[
    ("1.6.20", include_str!("plugin_order/1.6.20.txt")),
    ("1.6.38", include_str!("plugin_order/1.6.38.txt")),
    ("1.7.34", include_str!("plugin_order/1.7.34.txt")),
];

/// Steps where the model is known to differ from the recording: (version, step, the
/// model's stderr now, why). Empty: the duration fields (`interval` and the other
/// `UnmarshalText` types, `schema::duration_field`) and the tracing plugins' fields
/// (`schema::omitempty_fields`) are modelled since 2026-12-07; a new difference goes
/// here with its reason only while it is being fixed.
const KNOWN: &[(&str, usize, &str, &str)] = &[];

/// The key `measure.py` breaks in each plugin table, and the wrong value: the first
/// scalar or array key of the default config; a number or boolean gets `"x"`, a string
/// or array gets `1`. Plugins whose default prints no key are named by hand.
fn breakage(
    uri: &str,
    table: &[(String, gpulab_model::containerd::value::Node)],
) -> Option<(String, &'static str)> {
    let wrong = |v: &Value| match v {
        Value::Integer(_) | Value::Float(_) | Value::Boolean(_) => Some("\"x\""),
        Value::String(_) | Value::Array(_) => Some("1"),
        Value::Datetime(_) | Value::Table(_) => None,
    };
    table
        .iter()
        .find_map(|(k, n)| wrong(&n.value).map(|w| (k.clone(), w)))
        .or(match uri {
            "io.containerd.internal.v1.tracing" => Some(("sampling_ratio".into(), "\"x\"")),
            "io.containerd.tracing.processor.v1.otlp" => Some(("endpoint".into(), "1")),
            _ => None,
        })
}

/// The main config breaking every plugin of `left`, as `measure.py` writes it.
fn config(left: &[(String, String, &str)]) -> String {
    let mut text =
        String::from("version = 2\nroot = \"/var/lib/containerd\"\nstate = \"/run/containerd\"\n");
    for (uri, key, value) in left {
        text.push_str(&format!("[plugins.\"{uri}\"]\n  {key} = {value}\n"));
    }
    text
}

#[test]
fn one_x_reports_the_first_broken_plugin_in_its_graph_order() {
    let mut failures = Vec::new();
    for (name, recording) in RECORDED {
        let version = Version::parse(name).unwrap();
        let defaults = Defaults::of(&version);
        let mut left: Vec<(String, String, &str)> = Vec::new();
        for (uri, node) in &defaults.plugins.entries {
            let Value::Table(t) = &node.value else {
                continue;
            };
            let (key, value) = breakage(uri, &t.entries)
                .unwrap_or_else(|| panic!("{name}: nothing to break in {uri}"));
            left.push((uri.clone(), key, value));
        }
        let model = Containerd::new(version);
        let steps: Vec<(&str, &str)> = recording
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once(" | "))
            .collect();
        assert_eq!(
            steps.len(),
            left.len(),
            "{name}: the recording has a line per plugin of the defaults"
        );
        for (step, (plugin, stderr)) in steps.iter().enumerate() {
            let text = config(&left);
            let result = model.load(&Files::new().with(MAIN_CONFIG, text.as_str()));
            let approximate = result.diagnostics.iter().any(|d| d.code == "containerd-plugin-read-approximately");
            assert!(!(EXACT && approximate), "{name}, step {step}: flagged with go-toml's rules compiled in");
            let got = result.dump;
            let known = KNOWN.iter().find(|(v, s, _, _)| v == name && *s == step);
            let want = known.map_or(*stderr, |(_, _, now, _)| *now);
            if (got.exit != 1 || got.stderr != format!("{want}\n")) && !approximate {
                let why = known.map_or(String::new(), |(_, _, _, why)| {
                    format!(" (a known difference: {why}; the binary printed {stderr})")
                });
                failures.push(format!("{name}, step {step} (the binary reported {plugin}):\n  want exit 1, {want}{why}\n  got exit {}, {}", got.exit, got.stderr.trim_end()));
            }
            left.retain(|(uri, _, _)| uri != plugin);
        }
    }
    assert!(
        failures.is_empty(),
        "{} steps differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
