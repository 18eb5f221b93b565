//! `gpulab cluster up|down`: what they print and their exit codes, over the library's
//! [`gpulab::cluster`] (which the tests drive directly).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gpulab::cluster::{self, dir::Layout, up::shell_quote, Cluster, ErrorKind, Options};
use serde_json::json;

use crate::cli::{ClusterDirArgs, ClusterUpArgs};
use crate::exit::ExitCode;
use crate::output::OutputFormat;

fn fail(e: &cluster::Error) -> ExitCode {
    eprintln!("gpulab: {}", e.message);
    match e.kind {
        ErrorKind::Usage => ExitCode::BadInput,
        ErrorKind::External => ExitCode::External,
        ErrorKind::Interrupted => std::process::exit(130),
    }
}

fn dir_of(args: &ClusterDirArgs) -> Result<PathBuf, cluster::Error> {
    match &args.dir {
        Some(d) => Ok(d.clone()),
        None => Options::new(cluster::DEFAULT_RELEASE).map(|o| o.dir),
    }
}

/// Sets the flag on SIGINT or SIGTERM (the start checks it between steps).
fn on_interrupt(rt: &tokio::runtime::Runtime, flag: Arc<AtomicBool>) -> Result<(), String> {
    use tokio::signal::unix::{signal, SignalKind};
    let _guard = rt.enter();
    let mut int = signal(SignalKind::interrupt()).map_err(|e| e.to_string())?;
    let mut term = signal(SignalKind::terminate()).map_err(|e| e.to_string())?;
    rt.spawn(async move {
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
        }
        eprintln!("gpulab: interrupted: stopping what has started");
        flag.store(true, Ordering::SeqCst);
    });
    Ok(())
}

/// `gpulab cluster up`.
pub fn up(args: &ClusterUpArgs, output: OutputFormat) -> ExitCode {
    let mut opts = match Options::new(&args.k8s_version) {
        Ok(o) => o,
        Err(e) => return fail(&e),
    };
    if let Some(d) = &args.dir.dir {
        opts.dir = d.clone();
    }
    opts.detach = true;
    opts.verbose = true;
    let flag = Arc::new(AtomicBool::new(false));
    opts.interrupted = Some(flag.clone());
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(&cluster::Error::external(format!("tokio: {e}"))),
    };
    if let Err(e) = on_interrupt(&rt, flag) {
        return fail(&cluster::Error::external(format!("signal handler: {e}")));
    }
    let c = match Cluster::start(opts) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let kubeconfig = c.kubeconfig();
    let kc = kubeconfig.to_string_lossy();
    let pids: Vec<String> = c.pids().iter().map(|(comp, pid)| format!("{comp} {pid}")).collect();
    let dir = c.dir().to_string_lossy().into_owned();
    if output == OutputFormat::Json {
        let pids: serde_json::Map<String, serde_json::Value> = c.pids().iter().map(|(comp, pid)| (comp.name().to_string(), json!(pid))).collect();
        let v = json!({"release": c.release(), "dir": dir, "kubeconfig": kc, "context": c.context(), "pids": pids, "ports": c.ports(), "startup_seconds": c.startup().as_secs_f64()});
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        println!("Kubernetes {} control plane ready in {:.1} s (pids: {}); state in {dir}", c.release(), c.startup().as_secs_f64(), pids.join(", "));
        println!("kubeconfig: {kc} (context {})", c.context());
        println!("export KUBECONFIG={}", shell_quote(&kc));
        println!("stop it with: gpulab cluster down --dir {}", shell_quote(&dir));
    }
    c.detach();
    ExitCode::Success
}

/// `gpulab cluster down`.
pub fn down(args: &ClusterDirArgs) -> ExitCode {
    let dir = match dir_of(args) {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    match cluster::down::down(&Layout::new(dir)) {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            ExitCode::Success
        }
        Err(e) => fail(&e),
    }
}
