//! The `containerd config dump` parity cases, shared by the live tier
//! (`crates/cli/tests/live_config_dump.rs`: the real binaries of every version) and the
//! model's own test on what they printed (`crates/model/tests/containerd_config_dump.rs`,
//! no binary needed). Included by path in both, like `shared_dir.rs`.
//!
//! # Layout
//!
//! - [`generated`]: the seeded generator of main/drop-in combinations (SplitMix64 from
//!   [`SEED`]; the same [`GENERATED`] nodes on every version and every run);
//!   [`generated_from`] the same generator from any seed (the live tier's long run).
//! - [`golden_node`]: a golden case's `input/` as a node.
//! - [`normalise`]: what is not the config's doing taken out of real output (the
//!   scratch root, logrus timestamps, migration timings, 1.x's map-ordered imports line,
//!   a panic's goroutine dump), the same for the model's.
//! - [`Recorded`]: one version's recorded outputs as text (`crates/model/tests/config_dump/
//!   <version>.txt`), each dump stored as a line diff against an empty config's dump.
//! - [`unified_diff`]: how a difference is shown.
//!
//! Every node is a list of files under `/etc/containerd`, the main config being
//! `/etc/containerd/config.toml`; a test lays them under a private directory standing
//! for `/`, rewriting `/etc/containerd` in their text to match.
#![allow(dead_code)]

use std::fmt::Write as _;

/// A node's files: path under `/etc/containerd` → bytes.
pub type Node = Vec<(String, Vec<u8>)>;

/// The main config's path in a node.
pub const MAIN: &str = "/etc/containerd/config.toml";

/// The generator's seed and how many nodes it makes per version.
pub const SEED: u64 = 0x6770_756c_6162_3136;
pub const GENERATED: usize = 264;

/// SplitMix64: a seeded generator, so every run makes the same nodes.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The CRI plugin tables a file may use: the 1.x/2.x config-version-2 URI, the
/// version-3 split plugins, or version-1 short IDs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    V2,
    V3,
    Short,
}

const CRI2: &str = "plugins.\"io.containerd.grpc.v1.cri\"";
const RUNTIME3: &str = "plugins.\"io.containerd.cri.v1.runtime\"";
const IMAGES3: &str = "plugins.\"io.containerd.cri.v1.images\"";

/// The table holding `containerd.runtimes` in `style`.
fn runtime_plugin(style: Style) -> &'static str {
    match style {
        Style::V2 => CRI2,
        Style::V3 => RUNTIME3,
        Style::Short => "plugins.cri",
    }
}

/// One runtime table (and maybe its options) as a learner or a tool writes it.
fn runtime(rng: &mut Rng, s: &mut String, plugin: &str, name: &str) {
    let _ = writeln!(s, "[{plugin}.containerd.runtimes.{name}]");
    if rng.chance(85) {
        s.push_str("  runtime_type = \"io.containerd.runc.v2\"\n");
    }
    if rng.chance(10) {
        s.push_str("  privileged_without_host_devices = false\n");
    }
    if rng.chance(65) {
        let _ = writeln!(s, "[{plugin}.containerd.runtimes.{name}.options]");
        match rng.below(6) {
            // An empty options table.
            0 => {}
            _ => {
                if name.starts_with("nvidia") || rng.chance(20) {
                    let _ = writeln!(s, "  BinaryName = \"/usr/bin/nvidia-container-runtime{}\"", if name == "nvidia-cdi" { ".cdi" } else { "" });
                }
                if rng.chance(70) {
                    let _ = writeln!(s, "  SystemdCgroup = {}", rng.chance(60));
                }
            }
        }
    }
}

/// The file the NVIDIA Container Toolkit writes (`nvidia-ctk runtime configure
/// --drop-in-config`): a version line, empty parent tables, the nvidia runtimes; in
/// newer releases also a copy of the main config's CRI table.
fn toolkit_dropin(rng: &mut Rng, v3: bool) -> String {
    let (version, plugin) = if v3 { (3, RUNTIME3) } else { (2, CRI2) };
    let mut s = format!("version = {version}\n\n[plugins]\n\n  [{plugin}]\n");
    if !v3 && rng.chance(40) {
        s.push_str("    sandbox_image = \"registry.k8s.io/pause:3.9\"\n");
    }
    let _ = writeln!(s, "\n    [{plugin}.containerd]");
    if rng.chance(40) {
        s.push_str("      default_runtime_name = \"nvidia\"\n");
    }
    let _ = writeln!(s, "\n      [{plugin}.containerd.runtimes]");
    let mut names = vec!["nvidia"];
    if rng.chance(50) {
        names.extend(["nvidia-cdi", "nvidia-legacy"]);
    }
    if rng.chance(35) {
        names.insert(0, "runc");
    }
    for name in names {
        let binary = match name {
            "runc" => "/usr/bin/runc".to_string(),
            "nvidia" => "/usr/bin/nvidia-container-runtime".to_string(),
            other => format!("/usr/bin/nvidia-container-runtime.{}", other.trim_start_matches("nvidia-")),
        };
        let _ = write!(
            s,
            "\n        [{plugin}.containerd.runtimes.{name}]\n          runtime_type = \"io.containerd.runc.v2\"\n\n          [{plugin}.containerd.runtimes.{name}.options]\n            BinaryName = \"{binary}\"\n            SystemdCgroup = true\n"
        );
    }
    s
}

/// A random config file: a version line (or none), top-level scalars and arrays,
/// server sections, CRI tables in one of three styles, other plugins, timeouts, proxy
/// plugins, stream processors, and one of the rarer shapes (wrong types, syntax errors,
/// duplicate tables, datetimes, unknown keys, odd strings).
fn random_file(rng: &mut Rng, is_main: bool, imports: &[String]) -> String {
    let mut s = String::new();
    let version = match rng.below(20) {
        0..=5 => 0,
        6..=12 => 2,
        13 | 14 => 1,
        15..=18 => 3,
        _ => 4,
    };
    if version > 0 {
        let _ = writeln!(s, "version = {version}");
    }
    let style = match (version, rng.below(10)) {
        (_, 0) => Style::Short,
        (3 | 4, 1..=7) | (0, 1..=3) => Style::V3,
        _ => Style::V2,
    };
    if !imports.is_empty() {
        let list: Vec<String> = imports.iter().map(|i| format!("{i:?}")).collect();
        let _ = writeln!(s, "imports = [{}]", list.join(", "));
    }
    if rng.chance(20) {
        let _ = writeln!(s, "root = \"/var/lib/containerd-{}\"", rng.below(5));
    }
    if rng.chance(15) {
        let _ = writeln!(s, "oom_score = {}", [-999, -500, 0, 5][rng.below(4)]);
    }
    if rng.chance(12) {
        let _ = writeln!(s, "disabled_plugins = [\"{}\"]", rng.pick(&["io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.aufs", "io.containerd.internal.v1.opt"]));
    }
    if rng.chance(12) {
        let _ = write!(s, "[grpc]\n  max_recv_message_size = {}\n", [16777216, 33554432, 0][rng.below(3)]);
    }
    if rng.chance(12) {
        let _ = write!(s, "[debug]\n  level = \"{}\"\n", rng.pick(&["info", "debug", ""]));
    }
    if rng.chance(10) {
        let _ = write!(s, "[timeouts]\n  \"io.containerd.timeout.shim.cleanup\" = \"{}s\"\n", rng.below(9) + 1);
    }
    if rng.chance(8) {
        let _ = write!(s, "[proxy_plugins.p{}]\n  type = \"snapshot\"\n  address = \"/run/p.sock\"\n", rng.below(2));
    }
    if rng.chance(6) {
        s.push_str("[stream_processors.\"io.containerd.ocicrypt.decoder.v1.tar\"]\n  accepts = [\"application/vnd.oci.image.layer.v1.tar+encrypted\"]\n  path = \"/usr/local/bin/dec\"\n");
    }
    if rng.chance(10) {
        let _ = write!(s, "[plugins.\"io.containerd.gc.v1.scheduler\"]\n  deletion_threshold = {}\n", rng.below(3));
    }
    if rng.chance(if is_main { 85 } else { 70 }) {
        let plugin = runtime_plugin(style);
        let mut written = false;
        if rng.chance(45) {
            match style {
                Style::V3 => {
                    let _ = write!(s, "[{IMAGES3}.pinned_images]\n  sandbox = \"registry.k8s.io/pause:3.{}\"\n", rng.below(10));
                    if rng.chance(25) {
                        let _ = write!(s, "[{IMAGES3}]\n  snapshotter = \"{}\"\n", rng.pick(&["overlayfs", "native"]));
                    }
                }
                _ => {
                    let _ = write!(s, "[{plugin}]\n  sandbox_image = \"registry.k8s.io/pause:3.{}\"\n", rng.below(10));
                    if rng.chance(20) {
                        let _ = writeln!(s, "  max_concurrent_downloads = {}", rng.below(6));
                    }
                }
            }
            written = true;
        }
        if rng.chance(45) {
            let _ = write!(s, "[{plugin}.containerd]\n  default_runtime_name = \"{}\"\n", rng.pick(&["runc", "runc", "nvidia", "kata"]));
            if style != Style::V3 && rng.chance(15) {
                let _ = writeln!(s, "  snapshotter = \"{}\"", rng.pick(&["overlayfs", "native"]));
            }
            written = true;
        }
        for name in ["runc", "nvidia", "kata"] {
            if rng.chance(35) {
                runtime(rng, &mut s, plugin, name);
                written = true;
            }
        }
        if rng.chance(15) {
            let registry = if style == Style::V3 { IMAGES3 } else { plugin };
            let _ = write!(s, "[{registry}.registry]\n  config_path = \"/etc/containerd/certs.d\"\n");
            written = true;
        }
        if rng.chance(15) {
            let _ = write!(s, "[{plugin}.cni]\n  bin_dir = \"/opt/cni/{}\"\n", rng.pick(&["bin", "custom-bin"]));
            written = true;
        }
        if !written {
            let _ = writeln!(s, "[{plugin}]");
        }
    }
    rare_shape(rng, &mut s, style);
    s
}

/// At most one of the shapes real configs get wrong, appended to `s`.
fn rare_shape(rng: &mut Rng, s: &mut String, style: Style) {
    let rt = runtime_plugin(style);
    // About half the files get one; a syntax error stops a whole node, so those stay
    // at about one file in ten.
    let text = match rng.below(128) {
        // Zero values, floats, arrays in plugins.
        0 => "[plugins.\"io.containerd.gc.v1.scheduler\"]\n  pause_threshold = 0.05\n  schedule_delay = \"0s\"\n".to_string(),
        1 => "[plugins.\"io.containerd.runtime.v2.task\"]\n  platforms = [\"linux/amd64\", \"linux/arm64\"]\n".to_string(),
        2 => "oom_score = 0\nroot = \"\"\n".to_string(),
        // An int where the field is a float.
        3 => "[plugins.\"io.containerd.gc.v1.scheduler\"]\n  pause_threshold = 1\n".to_string(),
        // Unknown keys and tables.
        4 => "unknown_top = 1\n[unknown_section]\n  a = 1\n".to_string(),
        5 => "[plugins.\"io.containerd.nonexistent.v1.foo\"]\n  a = \"b\"\n".to_string(),
        6 => format!("[{rt}.containerd]\n  no_such_field = true\n"),
        7 => "[grpc]\n  no_such_field = 1\n".to_string(),
        8 => format!("  [{rt}.unknown_table.deeper]\n    x = 1\n"),
        // Legacy runtime tables.
        9 => format!("[{CRI2}.containerd.default_runtime]\n  runtime_type = \"io.containerd.runc.v2\"\n"),
        10 => format!("[{CRI2}.containerd.untrusted_workload_runtime]\n  runtime_type = \"io.containerd.runc.v2\"\n"),
        11 => format!("[{rt}.containerd.runtimes.runc]\n  runtime_engine = \"/usr/bin/runc\"\n"),
        12 => "required_plugins = [\"io.containerd.grpc.v1.cri\"]\n".to_string(),
        13 => "disabled_plugins = [\"cri\"]\n".to_string(),
        // Wrong types.
        14 => format!("[{CRI2}]\n  max_concurrent_downloads = \"3\"\n"),
        15 => "oom_score = \"high\"\n".to_string(),
        16 => "root = 5\n".to_string(),
        17 => "version = \"2\"\n".to_string(),
        18 => "imports = \"/etc/containerd/conf.d/*.toml\"\n".to_string(),
        19 => "[debug]\n  level = 3\n".to_string(),
        20 => format!("[{rt}.containerd.runtimes.runc.options]\n  SystemdCgroup = \"true\"\n"),
        21 => format!("[{rt}.containerd]\n  default_runtime_name = [\"runc\"]\n"),
        22 => format!("[{rt}.containerd.runtimes]\n  nvidia = \"io.containerd.runc.v2\"\n"),
        23 => format!("[{rt}]\n  enable_selinux = \"yes\"\n"),
        24 => "[plugins]\n  cri = 1\n".to_string(),
        25 => "[grpc]\n  max_recv_message_size = \"16M\"\n".to_string(),
        26 => "disabled_plugins = \"io.containerd.snapshotter.v1.zfs\"\n".to_string(),
        // Datetimes (containerd's configs decode none).
        27 => "[plugins.\"io.containerd.internal.v1.opt\"]\n  path = 1979-05-27T07:32:00Z\n".to_string(),
        28 => format!("[{rt}.containerd.runtimes.runc.options]\n  Started = 1979-05-27\n"),
        // Duplicate tables and keys in one file.
        29 => "[debug]\n  level = \"info\"\n[debug]\n  level = \"debug\"\n".to_string(),
        30 => format!("[{rt}.containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n[{rt}.containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n"),
        31 => "[metrics]\n  address = \"127.0.0.1:1338\"\n  address = \"127.0.0.1:1339\"\n".to_string(),
        32 => "[plugins.\"io.containerd.gc.v1.scheduler\"]\n  deletion_threshold = 1\n[plugins.\"io.containerd.gc.v1.scheduler\"]\n".to_string(),
        // Odd strings and shapes.
        33 => format!("[{rt}.containerd.runtimes.\"odd name\".options]\n  BinaryName = \"/usr/bin/a \\\"quoted\\\" \\\\ tab\\t \u{e9}\"\n  'lit key' = 'its'\n"),
        34 => format!("[{rt}.containerd.runtimes.runc.options]\n  Root = 'C:\\tmp\tx'\n"),
        35 => format!("[{rt}.containerd.runtimes.runc.options]\n  Nested = {{ a = 1, b = [\"x\"] }}\n  Weights = [1.5, 2.0]\n"),
        36 => format!("[{rt}.containerd.runtimes.runc.options]\n  NoNewKeyring = true\n  IoUid = 0\n"),
        37 => "[cgroup]\n  path = \"/containerd\"\n[metrics]\n  address = \"127.0.0.1:1338\"\n  grpc_histogram = true\n".to_string(),
        38 => "[stream_processors.\"io.containerd.ocicrypt.decoder.v1.tar.gzip\"]\n  returns = \"x\"\n".to_string(),
        39 => "[plugins]\n".to_string(),
        40 => "imports = [\"/etc/containerd/conf.d/[\"]\n".to_string(),
        41 => format!("[{rt}.containerd.runtimes.nvidia.options]\n"),
        42 => format!("[{rt}]\n  stream_idle_timeout = \"forever\"\n"),
        // The syntax errors learners make most.
        43 => "root = \"unterminated\n".to_string(),
        44 => "sandbox = runc\n".to_string(),
        45 => "  [plugins.\"io.containerd.grpc.v1.cri\"\n".to_string(),
        46 => "x = 'unclosed\n".to_string(),
        47 => "key \"no equals\"\n".to_string(),
        48 => "list = [1, 2\n".to_string(),
        49 => "inline = { a = 1\n".to_string(),
        50 => "path = \"C:\\new\\qfolder\"\n".to_string(),
        51 => "= \"no key\"\n".to_string(),
        52 => "[]\n".to_string(),
        53 => "a = 1 b = 2\n".to_string(),
        54 => "[table] trailing\n".to_string(),
        55 => "n = 1__000\n".to_string(),
        56 => "b = True\n".to_string(),
        _ => String::new(),
    };
    s.push_str(&text);
}

/// A random node: a main config and up to four other files in one of several import
/// shapes: conf.d glob (absolute or relative), plain files, nested chains as k0s and
/// k3s lay them out, a missing file, a cycle back to the main config, the same pattern
/// twice, the NVIDIA toolkit's drop-in.
pub fn random_node(rng: &mut Rng) -> Node {
    let mut node: Node = Vec::new();
    let n_dropins = rng.below(4);
    let shape = rng.below(11);
    let main_imports: Vec<String> = match shape {
        0 => vec![],
        1..=3 => vec!["/etc/containerd/conf.d/*.toml".into()],
        4 => vec!["conf.d/*.toml".into(), "extra.toml".into()],
        5 => vec!["/etc/containerd/conf.d/*.toml".into(), "/etc/containerd/missing.toml".into()],
        6 => vec!["/etc/containerd/extra.toml".into(), "/etc/containerd/conf.d/*.toml".into()],
        7 => vec!["/etc/containerd/conf.d/*.toml".into(), "/etc/containerd/config.toml".into()],
        8 => vec!["/etc/containerd/conf.d/*.toml".into(), "/etc/containerd/conf.d/*.toml".into()],
        9 => vec!["./conf.d/*.toml".into(), "/etc/containerd/conf.d/*.toml".into()],
        _ => vec!["/etc/containerd/config.toml.d/*.toml".into()],
    };
    node.push((MAIN.into(), random_file(rng, true, &main_imports).into_bytes()));
    let dir = if shape == 10 { "config.toml.d" } else { "conf.d" };
    for i in 0..n_dropins {
        let nested: Vec<String> = match (shape, i) {
            (7, 0) => vec!["/etc/containerd/config.toml".into(), "/etc/containerd/extra.d/*.toml".into()],
            (10, 0) => vec!["../extra.d/*.toml".into()],
            _ => vec![],
        };
        let name = format!("/etc/containerd/{dir}/{}-{}.toml", 10 * (i + 1), rng.pick(&["nvidia", "registry", "cni", "x"]));
        let text = if nested.is_empty() && rng.chance(20) {
            let v3 = rng.chance(40);
            toolkit_dropin(rng, v3)
        } else {
            random_file(rng, false, &nested)
        };
        node.push((name, text.into_bytes()));
    }
    if matches!(shape, 4 | 6) {
        node.push(("/etc/containerd/extra.toml".into(), random_file(rng, false, &[]).into_bytes()));
    }
    if matches!(shape, 7 | 10) {
        node.push(("/etc/containerd/extra.d/30-nested.toml".into(), random_file(rng, false, &[]).into_bytes()));
    }
    if rng.chance(8) {
        let v3 = rng.chance(50);
        node.push((format!("/etc/containerd/{dir}/99-nvidia.toml"), toolkit_dropin(rng, v3).into_bytes()));
    }
    if rng.chance(8) {
        node.push((format!("/etc/containerd/{dir}/99-nvidia.toml.disabled"), b"this is = not toml [".to_vec()));
    }
    node
}

/// `node` laid under `root` (a directory standing for `/`): every path and every
/// `/etc/containerd` in the files' text rewritten to `root/etc/containerd`. Returns the
/// files (path, bytes) and the main config's path.
pub fn under_root(root: &str, node: &Node) -> (Vec<(String, Vec<u8>)>, String) {
    let prefix = format!("{root}/etc/containerd");
    let files = node
        .iter()
        .map(|(path, bytes)| {
            let content = replace_bytes(bytes, b"/etc/containerd", prefix.as_bytes());
            (path.replacen("/etc/containerd", &prefix, 1), content)
        })
        .collect();
    (files, format!("{prefix}/config.toml"))
}

/// `bytes` with every `from` replaced by `to` (files need not be UTF-8).
fn replace_bytes(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// The root the model's own test lays every node under (the live tier uses a private
/// directory; outputs are compared with the root taken out of every path).
pub const MODEL_ROOT: &str = "/gpulab-dump-root";

/// `node` under [`MODEL_ROOT`] as the model's files, as the live tier lays it under its
/// private directory (the working directory is the root too), and the main config.
pub fn model_files(node: &Node) -> (gpulab_model::containerd::Files, String) {
    let (laid, main) = under_root(MODEL_ROOT, node);
    let mut f = gpulab_model::containerd::Files::new();
    f.cwd = MODEL_ROOT.to_string();
    for (p, b) in laid {
        f.insert(&p, b);
    }
    (f, main)
}

/// The generated nodes, in order: case `generated/<i>` is `generated()[i]`.
pub fn generated() -> Vec<Node> {
    generated_from(SEED, GENERATED)
}

/// `n` nodes from `seed`, in order (the long run's: node `i` of seed `s` is
/// `generated_from(s, i + 1)[i]`, whatever `n` was).
pub fn generated_from(seed: u64, n: usize) -> Vec<Node> {
    let mut rng = Rng(seed);
    (0..n).map(|_| random_node(&mut rng)).collect()
}

/// A golden case's `input/` directory as a node (`main.toml` is the main config).
pub fn golden_node(input: &std::path::Path) -> Node {
    let mut out = Vec::new();
    let mut stack = vec![input.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read input").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(input).expect("rel").to_string_lossy().into_owned();
            let target = if rel == "main.toml" { MAIN.to_string() } else { format!("/etc/containerd/{rel}") };
            out.push((target, std::fs::read(&p).expect("read")));
        }
    }
    out.sort();
    out
}

/// The golden cases that have an `input/` (name, node), sorted by name.
pub fn golden_cases(goldens: &std::path::Path) -> Vec<(String, Node)> {
    let mut cases: Vec<std::path::PathBuf> = std::fs::read_dir(goldens)
        .map(|r| r.flatten().map(|e| e.path()).filter(|p| p.join("input").is_dir()).collect())
        .unwrap_or_default();
    cases.sort();
    cases
        .iter()
        .map(|p| (format!("golden/{}", p.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned())), golden_node(&p.join("input"))))
        .collect()
}

/// The bad input of issue 16's "done means", on every version: files that are not
/// UTF-8, a 10 MB drop-in, 10,000 tables, imports in a cycle. Compared live only (not
/// recorded: the 10,000 tables' dump alone is megabytes per version); the model's
/// answer must equal the binary's, and neither may hang.
pub fn bad_inputs() -> Vec<(String, Node)> {
    let main_glob = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n";
    let nvidia = "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n  runtime_type = \"io.containerd.runc.v2\"\n";
    let mut out: Vec<(String, Node)> = Vec::new();
    // Not UTF-8: Latin-1 bytes in a string value of the main config; in a comment, a
    // key and a string of a drop-in; a UTF-16 byte-order mark at the start of another.
    out.push(("bad/non-utf8-string".into(), vec![(MAIN.into(), b"version = 2\nroot = \"/var/lib/contain\xe9rd\"\n".to_vec())]));
    let mut comment = main_glob.as_bytes().to_vec();
    comment.extend_from_slice(b"# r\xe9sum\xe9 of the node\n");
    out.push((
        "bad/non-utf8-dropins".into(),
        vec![
            (MAIN.into(), comment),
            ("/etc/containerd/conf.d/10-key.toml".into(), b"version = 2\n\xff\xfe = 1\n".to_vec()),
            ("/etc/containerd/conf.d/20-bom.toml".into(), b"\xff\xfev\x00e\x00r\x00".to_vec()),
        ],
    ));
    let mut value = format!("version = 2\n{nvidia}  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n    BinaryName = \"/usr/bin/nvidia-").into_bytes();
    value.extend_from_slice(b"\xff\xfe\"\n");
    out.push(("bad/non-utf8-dropin-value".into(), vec![(MAIN.into(), main_glob.as_bytes().to_vec()), ("/etc/containerd/conf.d/99-nvidia.toml".into(), value)]));
    // A 10 MB drop-in: the toolkit's runtime after 10 MB of comment lines.
    let mut big = String::with_capacity(10 * 1024 * 1024 + 200);
    big.push_str("version = 2\n");
    let line = format!("# {}\n", "x".repeat(77));
    while big.len() < 10 * 1024 * 1024 {
        big.push_str(&line);
    }
    big.push_str(nvidia);
    out.push(("bad/10mb-dropin".into(), vec![(MAIN.into(), main_glob.as_bytes().to_vec()), ("/etc/containerd/conf.d/99-nvidia.toml".into(), big.into_bytes())]));
    // 10,000 tables: a drop-in with 10,000 runtimes.
    let mut many = String::from("version = 2\n");
    for i in 0..10_000 {
        let _ = writeln!(many, "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.r{i}]\n  runtime_type = \"io.containerd.runc.v2\"");
    }
    out.push(("bad/10000-tables".into(), vec![(MAIN.into(), main_glob.as_bytes().to_vec()), ("/etc/containerd/conf.d/50-many.toml".into(), many.into_bytes())]));
    // Imports in a cycle: a -> b -> a, b -> the main config, a -> itself.
    out.push((
        "bad/cyclic-import".into(),
        vec![
            (MAIN.into(), "version = 2\nimports = [\"/etc/containerd/a.toml\"]\n".as_bytes().to_vec()),
            ("/etc/containerd/a.toml".into(), format!("version = 2\nimports = [\"/etc/containerd/b.toml\", \"/etc/containerd/a.toml\"]\n{nvidia}").into_bytes()),
            ("/etc/containerd/b.toml".into(), "version = 2\nimports = [\"/etc/containerd/a.toml\", \"/etc/containerd/config.toml\"]\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  sandbox_image = \"pause:b\"\n".as_bytes().to_vec()),
        ],
    ));
    out
}

/// Numbers and dates each TOML library reads its own way (go-toml v1 takes a leading
/// zero that TOML refuses and stops on `000` with `invalid base`; its lexer wants a
/// space after a local date inside an array; go-toml v2 refuses all of it in its own
/// words): one main config each, in a field of a known type and in a plugin's table.
pub fn number_cases() -> Vec<(String, Node)> {
    let cri = "[plugins.\"io.containerd.grpc.v1.cri\"]\n";
    let gc = "[plugins.\"io.containerd.gc.v1.scheduler\"]\n";
    let cases: &[(&str, String)] = &[
        ("numbers/leading-zero-int", format!("version = 2\n{cri}  max_concurrent_downloads = 00\n")),
        ("numbers/leading-zero-signed", format!("version = 2\n{gc}  deletion_threshold = -01\n  mutation_threshold = +007\n  pause_threshold = 00.5\n")),
        ("numbers/leading-zero-underscore", format!("version = 2\n{cri}  max_concurrent_downloads = -0_1\n")),
        ("numbers/leading-zero-float-in-int", format!("version = 2\n{cri}  max_concurrent_downloads = 01e1\n")),
        ("numbers/invalid-base", format!("version = 2\n{cri}  max_concurrent_downloads = 0_01\n")),
        ("numbers/leading-zero-then-syntax-error", format!("version = 2\n{gc}  deletion_threshold = 00\n  mutation_threshold = \n")),
        ("numbers/local-date-in-array", format!("version = 2\n{cri}  unknown_dates = [1979-05-27]\n")),
        ("numbers/local-date-in-array-then-comma", format!("version = 2\n{cri}  unknown_dates = [1979-05-27, 1979-05-28 ]\n")),
        ("numbers/local-date-in-array-spaced", format!("version = 2\n{cri}  unknown_dates = [ 1979-05-27 ]\n")),
    ];
    main_only(cases)
}

/// Cases of one main config each.
fn main_only(cases: &[(&str, String)]) -> Vec<(String, Node)> {
    cases.iter().map(|(name, text)| ((*name).to_string(), vec![(MAIN.to_string(), text.clone().into_bytes())])).collect()
}

/// A key whose value is missing (`key =` at the end of its line), followed by what
/// each TOML library then reads as the value: the end of the file (after a newline,
/// without one, after comments), another key, a table header.
pub fn missing_value_cases() -> Vec<(String, Node)> {
    let gc = "[plugins.\"io.containerd.gc.v1.scheduler\"]\n";
    let cases: &[(&str, String)] = &[
        ("missing-value/at-the-end", format!("version = 2\n{gc}  mutation_threshold = \n")),
        ("missing-value/without-a-newline", format!("version = 2\n{gc}  mutation_threshold = ")),
        ("missing-value/then-comments", format!("version = 2\n{gc}  mutation_threshold = # c\n\n  # d\n")),
        ("missing-value/then-a-key", format!("version = 2\n{gc}  mutation_threshold =\n  deletion_threshold = 1\n")),
        ("missing-value/then-a-header", format!("version = 2\n{gc}  mutation_threshold =\n\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  x = 1\n")),
    ];
    main_only(cases)
}

/// Every case: the golden inputs, the number and missing-value cases, then the
/// generated nodes.
pub fn all_cases(goldens: &std::path::Path) -> Vec<(String, Node)> {
    let mut out = golden_cases(goldens);
    out.extend(number_cases());
    out.extend(missing_value_cases());
    out.extend(generated().into_iter().enumerate().map(|(i, n)| (format!("generated/{i:03}"), n)));
    out
}

/// What one `config dump` printed and how it exited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

/// Real output made comparable: `root` (the private directory standing for `/`)
/// removed from every path; logrus' `time="…" ` prefix dropped and migration timings
/// `t=…` written `t=<dur>` (the goldens' normalisation); 1.x's `imports = [...]` line
/// sorted (containerd ranges over a Go map there: four orders in 30 runs of the same
/// files, measured on 1.6.20 — the model prints the sorted order, and the page says
/// so); and a Go panic cut after its `panic:` line (the goroutine dump below it holds
/// addresses and argument words that change from run to run and build to build; the
/// panic's message and exit status are compared exactly). Nothing else is reordered:
/// 2.x's "Ignoring unknown key in TOML for plugin" lines come in the plugin graph's
/// order, the same on every run (measured: 6 runs of 2.2.7 with an unknown key in four
/// plugins, one order), so they are compared as printed.
pub fn normalise(out: &Output, root: &str, is_1x: bool) -> Output {
    let strip_root = |s: &str| if root.is_empty() { s.to_string() } else { s.replace(root, "") };
    let stdout = strip_root(&out.stdout);
    let stdout = if is_1x { sort_imports_line(&stdout) } else { stdout };
    let mut stderr = String::new();
    for line in strip_root(&out.stderr).lines() {
        if line.starts_with("goroutine ") {
            break;
        }
        let line = match line.strip_prefix("time=\"") {
            Some(rest) => rest.split_once("\" ").map_or(line, |(_, r)| r),
            None => line,
        };
        stderr.push_str(&normalise_duration(line));
        stderr.push('\n');
    }
    if stderr.contains("\npanic: ") || stderr.starts_with("panic: ") {
        while stderr.ends_with("\n\n") {
            stderr.pop();
        }
    }
    Output { stdout, stderr, exit: out.exit }
}

/// `t=12.3µs` → `t=<dur>` (2.3+'s migration warning).
fn normalise_duration(line: &str) -> String {
    match line.find(" t=") {
        Some(i) => {
            let rest = &line[i + 3..];
            let end = rest.find(' ').unwrap_or(rest.len());
            format!("{} t=<dur>{}", &line[..i], &rest[end..])
        }
        None => line.to_string(),
    }
}

/// Sorts the items of the `imports = [...]` line.
pub fn sort_imports_line(dump: &str) -> String {
    let mut out = String::with_capacity(dump.len());
    for l in dump.split_inclusive('\n') {
        let body = l.strip_suffix('\n').unwrap_or(l);
        match body.strip_prefix("imports = [").and_then(|r| r.strip_suffix(']')) {
            Some(inner) if !inner.is_empty() => {
                let mut items: Vec<&str> = inner.split(", ").collect();
                items.sort_unstable();
                let _ = write!(out, "imports = [{}]", items.join(", "));
                if l.ends_with('\n') {
                    out.push('\n');
                }
            }
            _ => out.push_str(l),
        }
    }
    out
}

// ---- recorded outputs ------------------------------------------------------------------

/// One version's recorded outputs: `base` is the dump of an empty main config; each
/// case's stdout is kept as a line diff against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The binary's `containerd --version` line.
    pub binary: String,
    pub base: String,
    pub cases: Vec<(String, Output)>,
}

const CASE: &str = "=== case ";

impl Recorded {
    /// The text form: a header, the base dump, then per case its exit code, stderr
    /// lines (`| `) and stdout as hunks (`@ <line> -<n>` then `-`/`+` lines).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# `containerd config dump` of every case, as {} printed it (normalised: see tests/config_dump_cases.rs).", self.binary);
        s.push_str("# Recorded by `GPULAB_RECORD_DUMPS=1 cargo test -p gpulab --features real-containerd-dump --test live_config_dump`; do not edit.\n");
        let _ = writeln!(s, "binary {}", self.binary);
        s.push_str("=== base\n");
        for l in self.base.lines() {
            let _ = writeln!(s, "| {l}");
        }
        for (name, out) in &self.cases {
            let _ = writeln!(s, "{CASE}{name}");
            let _ = writeln!(s, "exit {}", out.exit);
            for l in out.stderr.lines() {
                let _ = writeln!(s, "stderr | {l}");
            }
            if out.stdout.is_empty() {
                s.push_str("stdout empty\n");
            } else {
                for hunk in line_hunks(&self.base, &out.stdout) {
                    s.push_str(&hunk);
                }
            }
        }
        s
    }

    /// Reads [`Recorded::to_text`] back.
    pub fn parse(text: &str) -> Result<Recorded, String> {
        let mut binary = String::new();
        let mut base: Vec<&str> = Vec::new();
        let mut cases: Vec<(String, Output, Vec<Hunk>)> = Vec::new();
        let mut in_base = false;
        for (n, line) in text.lines().enumerate() {
            let bad = || format!("line {}: unexpected {line:?}", n + 1);
            if line.starts_with('#') {
                continue;
            }
            if let Some(b) = line.strip_prefix("binary ") {
                binary = b.to_string();
            } else if line == "=== base" {
                in_base = true;
            } else if let Some(name) = line.strip_prefix(CASE) {
                in_base = false;
                cases.push((name.to_string(), Output { stdout: String::new(), stderr: String::new(), exit: 0 }, Vec::new()));
            } else if in_base {
                base.push(line.strip_prefix("| ").or_else(|| (line == "|").then_some("")).ok_or_else(bad)?);
            } else {
                let (_, out, hunks) = cases.last_mut().ok_or_else(bad)?;
                if let Some(e) = line.strip_prefix("exit ") {
                    out.exit = e.parse().map_err(|_| bad())?;
                } else if let Some(l) = line.strip_prefix("stderr | ").or_else(|| (line == "stderr |").then_some("")) {
                    out.stderr.push_str(l);
                    out.stderr.push('\n');
                } else if line == "stdout empty" {
                    hunks.push(Hunk::Empty);
                } else if let Some(h) = line.strip_prefix("@ ") {
                    let (at, del) = h.split_once(" -").ok_or_else(bad)?;
                    hunks.push(Hunk::At { at: at.parse().map_err(|_| bad())?, delete: del.parse().map_err(|_| bad())?, add: Vec::new() });
                } else if let Some(l) = line.strip_prefix('+') {
                    match hunks.last_mut() {
                        Some(Hunk::At { add, .. }) => add.push(l.to_string()),
                        _ => return Err(bad()),
                    }
                } else {
                    return Err(bad());
                }
            }
        }
        let base_text: String = base.iter().map(|l| format!("{l}\n")).collect();
        let mut out = Vec::new();
        for (name, mut o, hunks) in cases {
            o.stdout = apply_hunks(&base_text, &hunks).map_err(|e| format!("case {name}: {e}"))?;
            out.push((name, o));
        }
        Ok(Recorded { binary, base: base_text, cases: out })
    }
}

enum Hunk {
    Empty,
    /// Replace `delete` lines of the base starting at 1-based line `at` by `add`.
    At { at: usize, delete: usize, add: Vec<String> },
}

fn apply_hunks(base: &str, hunks: &[Hunk]) -> Result<String, String> {
    if matches!(hunks.first(), Some(Hunk::Empty)) {
        return Ok(String::new());
    }
    let lines: Vec<&str> = base.lines().collect();
    let mut out = String::new();
    let mut next = 0; // 0-based index of the next base line to copy
    for h in hunks {
        let Hunk::At { at, delete, add } = h else { return Err("`stdout empty` among hunks".into()) };
        let start = at.saturating_sub(1);
        if start < next || start + delete > lines.len() {
            return Err(format!("hunk at line {at} out of order or past the base"));
        }
        for l in &lines[next..start] {
            out.push_str(l);
            out.push('\n');
        }
        for l in add {
            out.push_str(l);
            out.push('\n');
        }
        next = start + delete;
    }
    for l in &lines[next..] {
        out.push_str(l);
        out.push('\n');
    }
    Ok(out)
}

/// `new` as hunks against `base` (both newline-terminated line lists).
fn line_hunks(base: &str, new: &str) -> Vec<String> {
    let a: Vec<&str> = base.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut hunks = Vec::new();
    let ops = diff_ops(&a, &b);
    let mut i = 0;
    while i < ops.len() {
        if let Op::Same(..) = ops[i] {
            i += 1;
            continue;
        }
        let at = match ops[i] {
            Op::Same(x, _) | Op::Delete(x) => x + 1,
            Op::Insert(_) => ops[..i].iter().rev().find_map(|o| match o {
                Op::Same(x, _) | Op::Delete(x) => Some(x + 2),
                Op::Insert(_) => None,
            }).unwrap_or(1),
        };
        let (mut delete, mut add) = (0, Vec::new());
        while i < ops.len() && !matches!(ops[i], Op::Same(..)) {
            match ops[i] {
                Op::Delete(_) => delete += 1,
                Op::Insert(y) => add.push(b[y]),
                Op::Same(..) => {}
            }
            i += 1;
        }
        let mut h = format!("@ {at} -{delete}\n");
        for l in add {
            let _ = writeln!(h, "+{l}");
        }
        hunks.push(h);
    }
    if hunks.is_empty() && !new.is_empty() {
        // Identical to the base: one empty hunk keeps "not empty" visible.
        hunks.push(format!("@ {} -0\n", a.len() + 1));
    }
    hunks
}

#[derive(Clone, Copy)]
enum Op {
    /// Line `a[x]` = `b[y]`.
    Same(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A shortest edit script by LCS over the lines between a common prefix and suffix
/// (dumps differ in a few places; the middle is small).
fn diff_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Same(i, i)).collect();
    // lcs[i][j] = LCS length of am[i..], bm[j..]
    let (n, m) = (am.len(), bm.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if am[i] == bm[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && am[i] == bm[j] {
            ops.push(Op::Same(pre + i, pre + j));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(Op::Insert(pre + j));
            j += 1;
        } else {
            ops.push(Op::Delete(pre + i));
            i += 1;
        }
    }
    ops.extend((0..suf).map(|k| Op::Same(a.len() - suf + k, b.len() - suf + k)));
    ops
}

/// A unified diff (3 lines of context) from `expected` to `actual`, headed by the two
/// labels; empty when they are equal.
pub fn unified_diff(expected: &str, actual: &str, from: &str, to: &str) -> String {
    if expected == actual {
        return String::new();
    }
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let ops = diff_ops(&a, &b);
    let mut out = format!("--- {from}\n+++ {to}\n");
    let changed: Vec<usize> = ops.iter().enumerate().filter(|(_, o)| !matches!(o, Op::Same(..))).map(|(i, _)| i).collect();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 7 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 4).min(ops.len());
        let (a0, b0) = ops[..start].iter().fold((0, 0), |(x, y), o| match o {
            Op::Same(..) => (x + 1, y + 1),
            Op::Delete(_) => (x + 1, y),
            Op::Insert(_) => (x, y + 1),
        });
        let (al, bl) = ops[start..end].iter().fold((0, 0), |(x, y), o| match o {
            Op::Same(..) => (x + 1, y + 1),
            Op::Delete(_) => (x + 1, y),
            Op::Insert(_) => (x, y + 1),
        });
        let _ = writeln!(out, "@@ -{},{al} +{},{bl} @@", a0 + 1, b0 + 1);
        for o in &ops[start..end] {
            let _ = match o {
                Op::Same(x, _) => writeln!(out, " {}", a[*x]),
                Op::Delete(x) => writeln!(out, "-{}", a[*x]),
                Op::Insert(y) => writeln!(out, "+{}", b[*y]),
            };
        }
    }
    if expected.ends_with('\n') != actual.ends_with('\n') {
        out.push_str("\\ the last line ends differently (newline at end of text)\n");
    }
    out
}

/// The differences between `real` and `model` output of one case as unified diffs
/// (stdout, stderr, exit); empty when they agree.
pub fn differences(real: &Output, model: &Output, label: &str) -> String {
    let mut s = String::new();
    if real.exit != model.exit {
        let _ = writeln!(s, "exit status: real {}, model {}", real.exit, model.exit);
    }
    s.push_str(&unified_diff(&real.stderr, &model.stderr, &format!("real stderr ({label})"), &format!("model stderr ({label})")));
    s.push_str(&unified_diff(&real.stdout, &model.stdout, &format!("real stdout ({label})"), &format!("model stdout ({label})")));
    s
}

/// How many lines of each file [`describe`] shows (a bad input runs to 10 MB).
const SHOWN_LINES: usize = 60;

/// The files of `node` for a failure report: each name, then its text (the first
/// [`SHOWN_LINES`] lines of each).
pub fn describe(node: &Node) -> String {
    let mut s = String::new();
    for (p, b) in node {
        let _ = writeln!(s, "  file {p}:");
        let text = String::from_utf8_lossy(b);
        for l in text.lines().take(SHOWN_LINES) {
            let _ = writeln!(s, "    | {l}");
        }
        let more = text.lines().count().saturating_sub(SHOWN_LINES);
        if more > 0 {
            let _ = writeln!(s, "    | … {more} more lines");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hunks reproduce the text they were made from.
    #[test]
    fn hunks_round_trip() {
        let base = "a\nb\nc\nd\ne\n";
        for new in ["a\nb\nc\nd\ne\n", "x\na\nc\nd\ne\ny\n", "", "b\n", "a\nb\nX\nY\nd\ne\nf\n"] {
            let rec = Recorded { binary: "b".into(), base: base.into(), cases: vec![("c".into(), Output { stdout: new.into(), stderr: "w\n\n".into(), exit: 0 })] };
            let back = Recorded::parse(&rec.to_text()).unwrap();
            assert_eq!(back, rec, "{new:?}");
        }
    }
}
