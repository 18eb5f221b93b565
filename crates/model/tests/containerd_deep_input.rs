//! Input-driven depth never exhausts the stack. The app runs the model on the
//! browser's 1 MB wasm stack: a share link whose drop-in was one 10 KB line
//! (`x` then `.y` 5,000 times, then ` = 1`) overflowed it, and natively 100,000
//! segments aborted `gpulab containerd dump`. Each test here runs the model on a
//! thread with a 1 MB stack (a debug build's frames are larger than wasm's), so
//! the old recursion fails them by overflowing (the test binary aborts).

// Tests may unwrap (the crate denies it in the model itself).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use gpulab_model::containerd::{self, parse::DEPTH_LIMIT, version::RECORDED, Files, LoadResult, Version};

const MAIN: &str = "/etc/containerd/config.toml";
const DROPIN: &str = "/etc/containerd/conf.d/99-nvidia.toml";

/// Runs `f` on a thread with the wasm stack's size.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(1 << 20).spawn(f).unwrap().join().unwrap()
}

/// The step-2 node: the default main config importing the drop-in `dropin`.
fn load_with_dropin(version: &str, dropin: String) -> LoadResult {
    let main = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n";
    let files = Files::new().with(MAIN, main).with(DROPIN, dropin);
    containerd::load(&files, &Version::parse(version).unwrap())
}

/// The lab's nesting limit, at `line`:`column` of the drop-in, on every version.
fn refused_at(dropin: &str, line: u32, column: u32) {
    for v in RECORDED {
        let text = dropin.to_string();
        let r = on_small_stack(move || load_with_dropin(v, text));
        let d = r.diagnostics.iter().find(|d| d.code == "containerd-nesting-limit");
        let d = d.unwrap_or_else(|| panic!("{v}: not refused: {:?}", r.dump));
        let at = d.primary.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line, at.column), (DROPIN, line, column), "{v}");
        assert_eq!(d.get("limit"), Some(DEPTH_LIMIT.to_string().as_str()));
        let last = r.dump.stderr.lines().last().unwrap();
        assert!(last.starts_with(&format!("gpulab: {DROPIN}:{line}:{column}: nested more than {DEPTH_LIMIT} levels deep")), "{v}: {last}");
        assert_eq!(r.dump.exit, 1, "{v}");
    }
}

/// The column of the first key past the limit in `x.y.y…` (each `.y` is 2 columns).
fn column_past_limit() -> u32 {
    1 + 2 * DEPTH_LIMIT as u32
}

/// The share link's drop-in: `x` then `.y` 5,000 times, then ` = 1`.
#[test]
fn dotted_key_of_5000_segments_overflowed_the_wasm_stack() {
    refused_at(&format!("x{} = 1\n", ".y".repeat(5000)), 1, column_past_limit());
}

/// `gpulab containerd dump` aborted on 100,000 segments.
#[test]
fn dotted_key_of_100000_segments_aborted_containerd_dump() {
    refused_at(&format!("version = 2\nx{} = 1\n", ".y".repeat(100_000)), 2, column_past_limit());
}

/// The same depth through the other ways TOML nests: a header, dotted keys inside
/// nested inline tables, arrays (toml_edit's own limit of 80 stays), and an array of
/// tables.
#[test]
fn deep_headers_inline_tables_and_arrays_are_refused() {
    refused_at(&format!("[x{}]\na = 1\n", ".y".repeat(100_000)), 1, 1 + column_past_limit());
    refused_at(&format!("[[x{}]]\n", ".y".repeat(10_000)), 1, 2 + column_past_limit());
    // 60 inline tables, each behind a 3-key dotted path: 240 deep, under toml_edit's 80.
    let inline = format!("x = {}1{}\n", "{ a.b.c = ".repeat(60), " }".repeat(60));
    let r = on_small_stack(move || load_with_dropin("2.2.7", inline));
    assert!(r.diagnostics.iter().any(|d| d.code == "containerd-nesting-limit"), "{:?}", r.dump);
    // 100,000 nested arrays: toml_edit's recursion limit, a syntax error as before.
    let arrays = format!("x = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let r = on_small_stack(move || load_with_dropin("1.7.34", arrays));
    let d = r.diagnostics.iter().find(|d| d.code == "containerd-toml-syntax").expect("refused");
    assert!(d.get("message").unwrap().contains("max recursion depth met"), "{d:?}");
}

/// Right at the limit the file is read and everything after the parse (merge,
/// decode, dump, explanation) copes on the small stack: containerd's own answer.
#[test]
fn nesting_at_the_limit_still_loads() {
    let unknown = format!("version = 2\nx{} = 1\n", ".y".repeat(DEPTH_LIMIT - 1));
    let options = format!(
        "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\nBinaryName = \"/usr/bin/nvidia-container-runtime\"\nx{} = 1\n",
        ".y".repeat(DEPTH_LIMIT - 8)
    );
    for v in RECORDED {
        for text in [unknown.clone(), options.clone()] {
            let r = on_small_stack(move || load_with_dropin(v, text));
            assert!(!r.diagnostics.iter().any(|d| d.code == "containerd-nesting-limit"), "{v}: {:?}", r.dump.stderr);
            assert_eq!(r.dump.exit, 0, "{v}: {}", r.dump.stderr);
        }
    }
}

/// An import pattern of 100,000 `*` (the old matcher recursed once per `*`, and
/// backtracked exponentially) or of 10,000 `/*` levels (`Glob` recursed per level).
#[test]
fn import_globs_of_many_stars_and_levels() {
    for pattern in ["/etc/containerd/conf.d/".to_string() + &"*".repeat(100_000) + ".toml", "/*".repeat(10_000)] {
        let main = format!("version = 2\nimports = [\"{pattern}\"]\n");
        let r = on_small_stack(move || {
            let files = Files::new().with(MAIN, main).with(DROPIN, "version = 2\n");
            containerd::load(&files, &Version::parse("2.2.7").unwrap())
        });
        assert_eq!(r.dump.exit, 0, "{}", r.dump.stderr);
    }
    // Many stars still match as Go's `filepath.Match` does.
    for (pattern, name, want) in [
        ("*.toml", "99-nvidia.toml", true),
        ("**.toml", "99-nvidia.toml", true),
        ("*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
        ("9*-*.t?ml", "99-nvidia.toml", true),
        ("*[0-9]-n*", "99-nvidia.toml", true),
        ("*/x", "a/x", true),
        ("*x", "a/x", false),
        ("a\\*b*", "a*bc", true),
        ("*.toml*", "x.toml", true),
        ("*x", "xxx", true),
    ] {
        assert_eq!(containerd::files::match_pattern(pattern, name), Ok(want), "{pattern} {name}");
    }
}
