//! `gpulab containerd dump|explain --root DIR --containerd-version V`: reads the
//! node's containerd files under DIR (DIR stands for `/`) into the model's [`Files`]
//! and prints what the model computes. The only I/O is here.
//!
//! Which files are read: everything under DIR/etc/containerd, then whatever the
//! `imports` of those files name (plain paths and the directories globs look in),
//! until nothing new turns up.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gpulab_model::containerd::{self, explain::Explanation, Files, Version};

use crate::cli::{ContainerdCommand, NodeArgs};
use crate::exit::ExitCode;
use crate::output::OutputFormat;

pub fn run(cmd: &ContainerdCommand, output: OutputFormat) -> ExitCode {
    match cmd {
        ContainerdCommand::Dump(args) => dump(args),
        ContainerdCommand::Explain(args) => explain(args, output),
    }
}

fn prepare(args: &NodeArgs) -> Result<(Files, Version), String> {
    let version = Version::parse(&args.containerd_version).map_err(|e| e.to_string())?;
    if !args.root.is_dir() {
        return Err(format!("--root {}: not a directory", args.root.display()));
    }
    Ok((read_node(&args.root)?, version))
}

fn dump(args: &NodeArgs) -> ExitCode {
    let (files, version) = match prepare(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("gpulab: {e}");
            return ExitCode::BadInput;
        }
    };
    let result = containerd::load(&files, &version);
    print!("{}", result.dump.stdout);
    eprint!("{}", result.dump.stderr);
    if result.dump.exit == 0 {
        ExitCode::Success
    } else {
        ExitCode::CheckFailed
    }
}

fn explain(args: &NodeArgs, output: OutputFormat) -> ExitCode {
    let (files, version) = match prepare(args) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("gpulab: {e}");
            return ExitCode::BadInput;
        }
    };
    let result = containerd::load(&files, &version);
    let e = &result.explanation;
    let unreadable = result.diagnostics.iter().any(|d| {
        matches!(d.code.as_str(), "containerd-toml-syntax" | "containerd-wrong-type" | "containerd-import-not-a-file")
    });
    let code = if unreadable {
        ExitCode::BadInput
    } else if e.cri_status == "ok" && e.main_settings_lost() == 0 {
        ExitCode::Success
    } else {
        ExitCode::CheckFailed
    };
    match output {
        OutputFormat::Json => {
            let json = serde_json::json!({
                "version": version.to_string(),
                "exit": code as i32,
                "explanation": e,
                "diagnostics": result.diagnostics,
                "dump": { "exit": result.dump.exit, "stderr": result.dump.stderr },
            });
            println!("{json:#}");
        }
        // md / csv are for tables; an explanation prints as text for them.
        OutputFormat::Text | OutputFormat::Md | OutputFormat::Csv => print!("{}", render_text(e, &result.dump.stderr)),
    }
    code
}

/// The explanation as English text.
pub fn render_text(e: &Explanation, stderr: &str) -> String {
    let mut s = format!("containerd {} loaded, in order:\n", e.version);
    for (i, f) in e.files.iter().enumerate() {
        s.push_str(&format!("  {}. {f}\n", i + 1));
    }
    if !e.replaced.is_empty() {
        s.push_str("\nTables replaced whole by a later file:\n");
        for r in &e.replaced {
            s.push_str(&format!(
                "  {} — replaced at {}, was defined at {}\n",
                r.table,
                r.by.as_deref().unwrap_or("?"),
                r.earlier.as_deref().unwrap_or("a built-in default")
            ));
            for l in e.lost.iter().filter(|l| l.reason == "replaced" && l.lost_at == r.by) {
                s.push_str(&format!("      lost {} = {}  (set at {})\n", l.key, l.value, l.defined_at.as_deref().unwrap_or("built-in default")));
            }
        }
    }
    let ignored: Vec<_> = e.lost.iter().filter(|l| l.reason == "ignored").collect();
    if !ignored.is_empty() {
        s.push_str("\nSettings containerd ignores (no plugin reads them on this version):\n");
        for l in ignored {
            s.push_str(&format!("  {} = {}  ({})\n", l.key, l.value, l.defined_at.as_deref().unwrap_or("?")));
        }
    }
    if !e.unknown.is_empty() {
        s.push_str("\nUnknown keys (dropped):\n");
        for u in &e.unknown {
            s.push_str(&format!("  {}  ({})\n", u.key, u.from.as_deref().unwrap_or("?")));
        }
    }
    if !e.changed.is_empty() {
        s.push_str("\nValues a later file changed:\n");
        for c in &e.changed {
            s.push_str(&format!(
                "  {}: {} ({}) -> {} ({})\n",
                c.key,
                c.old,
                c.old_at.as_deref().unwrap_or("default"),
                c.new,
                c.new_at.as_deref().unwrap_or("default")
            ));
        }
    }
    s.push_str("\nEffective settings from files:\n");
    for b in e.blame.iter().filter(|b| b.from.is_some()) {
        s.push_str(&format!("  {} = {}  <- {}\n", b.key, b.value, b.from.as_deref().unwrap_or("")));
    }
    s.push_str(&format!("\nCRI plugin: {}\n", e.cri_status));
    if let Some(err) = &e.cri_error {
        s.push_str(&format!("  error: invalid plugin config: {err}\n"));
    }
    if let Some(l) = &e.daemon_exit {
        s.push_str(&format!("  the daemon exits: {l}\n"));
    }
    if !stderr.is_empty() {
        s.push_str("\ncontainerd prints:\n");
        for l in stderr.lines() {
            s.push_str(&format!("  {l}\n"));
        }
    }
    // The same total as step 2's: the settings listed above as lost or ignored.
    let lost = e.lost.len();
    if lost > 0 {
        s.push_str(&format!("\n{lost} setting(s) written in these files do not reach the effective config.\n"));
    }
    s
}

/// Reads the containerd files of the node rooted at `root`.
pub fn read_node(root: &Path) -> Result<Files, String> {
    let mut files = Files::new();
    let mut seen_dirs: BTreeSet<PathBuf> = BTreeSet::new();
    read_tree(root, &root.join("etc/containerd"), &mut files, &mut seen_dirs, 0)?;
    // Follow imports that point outside /etc/containerd, to a fixpoint.
    loop {
        let mut wanted: Vec<String> = Vec::new();
        for (path, bytes) in files.iter() {
            let Ok(text) = std::str::from_utf8(bytes) else { continue };
            let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else { continue };
            let Some(imports) = doc.get("imports").and_then(|i| i.as_array()) else { continue };
            for imp in imports.iter().filter_map(|v| v.as_str()) {
                let abs = if imp.starts_with('/') { imp.to_string() } else { containerd::files::join(&containerd::files::dir(path), imp) };
                wanted.push(abs.clone());
                wanted.push(format!("/{}", imp.trim_start_matches('/'))); // relative to cwd `/`
            }
        }
        let before = files.iter().count();
        for w in wanted {
            // A plain file, or the deepest directory without glob characters.
            let plain: String = w.split('/').take_while(|c| !c.contains(['*', '?', '['])).collect::<Vec<_>>().join("/");
            let target = root.join(plain.trim_start_matches('/'));
            if target.is_file() {
                read_file(root, &target, &mut files)?;
            } else if target.is_dir() {
                read_tree(root, &target, &mut files, &mut seen_dirs, 0)?;
            }
        }
        if files.iter().count() == before {
            break;
        }
    }
    Ok(files)
}

fn read_file(root: &Path, path: &Path, files: &mut Files) -> Result<(), String> {
    let rel = path.strip_prefix(root).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    files.insert(&format!("/{}", rel.to_string_lossy()), bytes);
    Ok(())
}

fn read_tree(root: &Path, dir: &Path, files: &mut Files, seen: &mut BTreeSet<PathBuf>, depth: usize) -> Result<(), String> {
    if depth > 8 || !dir.is_dir() || !seen.insert(dir.to_path_buf()) {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::metadata(&path) else { continue };
        if meta.is_dir() {
            read_tree(root, &path, files, seen, depth + 1)?;
        } else if meta.is_file() && meta.len() <= 64 * 1024 * 1024 {
            read_file(root, &path, files)?;
        }
    }
    Ok(())
}
