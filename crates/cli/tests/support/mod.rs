//! Shared by the check-runtime tests: run `scripts/check-runtime.sh --json`, turn what it
//! looked at into the model's inputs, and require the script and
//! `gpulab_model::check_runtime::evaluate` to agree finding by finding, text by text.
#![allow(dead_code)]

#[cfg(feature = "real-kube")]
pub mod kube_api;

#[path = "../../../../tests/shared_dir.rs"]
mod shared_dir;

use std::path::{Path, PathBuf};
use std::process::Command;

use gpulab_model::check_runtime::{self as cr, CheckReport, Loaded, LoadedRuntime, PluginRow};
use gpulab_model::Lang;
use serde_json::Value;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn script() -> PathBuf {
    repo_root().join("scripts/check-runtime.sh")
}

pub fn goldens() -> PathBuf {
    shared_dir::goldens("containerd")
}

/// A fresh private directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!("gpulab-{tag}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One run of the script.
pub struct Run {
    pub exit: i32,
    pub json: Value,
    pub stderr: String,
}

/// Runs the script with `--json` plus `args`; `path_first` goes in front of PATH; `env`
/// is added; GPULAB is removed unless given.
pub fn run_script(args: &[&str], path_first: Option<&Path>, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new("sh");
    cmd.arg(script()).arg("--json").args(args).env_remove("GPULAB").env_remove("LC_ALL").env_remove("LC_MESSAGES");
    cmd.env("LANG", "C.UTF-8");
    if let Some(dir) = path_first {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", dir.display()));
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("script printed no JSON ({e}):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    Run { exit: out.status.code().unwrap_or(-1), json, stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
}

/// The CRI-relevant rows of `ctr plugins ls` text; `reason(type, id)` gives the
/// `Message:` of `ctr plugins ls -d` for a row that is not ok.
pub fn plugin_rows(text: &str, reason: impl Fn(&str, &str) -> String) -> Vec<PluginRow> {
    text.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let (t, id, status) = (*w.first()?, *w.get(1)?, *w.last()?);
            let wanted = (t == "io.containerd.grpc.v1" && id == "cri") || (t == "io.containerd.cri.v1" && (id == "runtime" || id == "images"));
            wanted.then(|| PluginRow {
                plugin_type: t.into(),
                id: id.into(),
                status: status.into(),
                reason: if status == "ok" { String::new() } else { reason(t, id) },
            })
        })
        .collect()
}

/// JSON scalars as the script's tokenizer prints them.
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.replace(['\n', '\t'], " "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The loaded CRI config of a `crictl info` / `gpulab cri info` JSON.
pub fn loaded_from_info(text: &str) -> Loaded {
    let Ok(v) = serde_json::from_str::<Value>(text) else { return Loaded::Unrecognised };
    let c = &v["config"]["containerd"];
    let Some(default) = c.get("defaultRuntimeName") else { return Loaded::Unrecognised };
    let mut runtimes = Vec::new();
    if let Some(map) = c["runtimes"].as_object() {
        for (name, r) in map {
            let options = r["options"]
                .as_object()
                .map(|o| o.iter().filter(|(_, v)| !v.is_object() && !v.is_array()).map(|(k, v)| (k.clone(), scalar(v))).collect())
                .unwrap_or_default();
            runtimes.push(LoadedRuntime { name: name.clone(), runtime_type: r.get("runtimeType").map(scalar).unwrap_or_default(), options });
        }
    }
    Loaded::Cri { default_runtime_name: scalar(default), runtimes }
}

/// The runtime binaries the loaded handlers name that exist here, by the script's rule
/// (`-x` and `-f` for a path, `command -v` for a name).
pub fn existing_binaries(loaded: &Loaded, path_env: &str) -> Vec<String> {
    let Loaded::Cri { runtimes, .. } = loaded else { return Vec::new() };
    let mut out = Vec::new();
    for r in runtimes {
        let parts: Vec<&str> = r.runtime_type.split('.').collect();
        let shim = (parts.len() >= 4).then(|| format!("containerd-shim-{}-{}", parts[parts.len() - 2], parts[parts.len() - 1]));
        let named = r.options.iter().find(|(k, _)| k == "BinaryName").map(|(_, v)| v.clone());
        for b in named.into_iter().chain(shim) {
            let exists = if b.contains('/') {
                use std::os::unix::fs::PermissionsExt;
                std::fs::metadata(&b).map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false)
            } else {
                path_env.split(':').any(|d| Path::new(d).join(&b).is_file())
            };
            if exists {
                out.push(b);
            }
        }
    }
    out
}

/// The comparable form of one finding: check, status, code, sorted args, message, looked at.
type Row = (u64, String, String, Vec<(String, String)>, String, String);

fn script_rows(json: &Value) -> Vec<Row> {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let mut args: Vec<(String, String)> =
                f["args"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())).collect();
            args.sort();
            (
                f["check"].as_u64().unwrap(),
                f["status"].as_str().unwrap().into(),
                f["code"].as_str().unwrap().into(),
                args,
                f["message"].as_str().unwrap().into(),
                f["looked_at"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn model_rows(r: &CheckReport, lang: Lang, address: &str, config: &str) -> Vec<Row> {
    r.findings
        .iter()
        .map(|f| {
            let mut args = f.args.clone();
            args.sort();
            let status = serde_json::to_value(f.status).unwrap().as_str().unwrap().to_string();
            (u64::from(f.check), status, f.code.clone(), args, cr::message(f, lang), cr::looked_at(f.check, address, config))
        })
        .collect()
}

/// Script and model agree: verdict, exit status, every finding with its arguments and text.
pub fn assert_parity(label: &str, run: &Run, model: &CheckReport, inputs: &cr::CheckInputs, lang: Lang) {
    let handler = inputs.handler.as_str();
    let expect = (model.verdict.as_str().to_string(), i32::from(model.verdict.exit_code()), cr::verdict_text(model.verdict, handler, lang));
    let got = (run.json["verdict"].as_str().unwrap().to_string(), run.exit, run.json["message"].as_str().unwrap().to_string());
    assert_eq!(got, expect, "{label}: verdict (script vs model)\n{}", run.json);
    let (s, m) = (script_rows(&run.json), model_rows(model, lang, &inputs.address, &inputs.config));
    if s != m {
        let mut text = format!("{label}: findings differ (script vs model)\n");
        for i in 0..s.len().max(m.len()) {
            text += &format!("  script: {:?}\n  model:  {:?}\n", s.get(i), m.get(i));
        }
        panic!("{text}");
    }
}

/// The codes of a script run, `check:code`, in order.
pub fn codes(json: &Value) -> Vec<String> {
    json["findings"].as_array().unwrap().iter().map(|f| format!("{}:{}", f["check"], f["code"].as_str().unwrap())).collect()
}
