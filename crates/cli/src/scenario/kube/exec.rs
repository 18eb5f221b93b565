//! Inside a kind node: the node's containerd files written, containerd restarted or
//! signalled, and its state read, through `docker exec` / `podman exec` on the node's
//! container (a kind node is a container named like the node). The commands are built
//! here ([`NodeCommand`]), sent through the [`NodeExec`] trait, so the tests check them
//! without a container engine.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// What a command printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecOutput {
    pub stdout: String,
    pub stderr: String,
    pub exit: i32,
}

/// Runs a command inside a node's container.
pub trait NodeExec: Send + Sync {
    /// `args` run in `container`, with `stdin` piped in when given.
    fn run(&self, container: &str, args: &[String], stdin: Option<&[u8]>) -> Result<ExecOutput, String>;
}

/// One thing done inside a node: the argv and what goes to its stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeCommand {
    pub args: Vec<String>,
    pub stdin: Option<Vec<u8>>,
}

fn cmd(args: &[&str], stdin: Option<&[u8]>) -> NodeCommand {
    NodeCommand { args: args.iter().map(|s| s.to_string()).collect(), stdin: stdin.map(<[u8]>::to_vec) }
}

/// Where the node's original `/etc/containerd` is kept while the run changes it.
pub const BACKUP: &str = "/etc/containerd.gpulab-backup";

/// The node commands of the kube backend's containerd steps.
pub mod commands {
    use super::{cmd, NodeCommand, BACKUP};

    /// Keeps the node's `/etc/containerd` once (a second call keeps the first copy).
    pub fn backup() -> NodeCommand {
        cmd(&["sh", "-c", &format!("test -e {BACKUP} || cp -a /etc/containerd {BACKUP}")], None)
    }

    /// Puts the original `/etc/containerd` back and restarts containerd.
    pub fn restore() -> NodeCommand {
        cmd(&["sh", "-c", &format!("test -e {BACKUP} && rm -rf /etc/containerd && mv {BACKUP} /etc/containerd && systemctl restart containerd")], None)
    }

    /// Writes `content` to `path`, creating its directory.
    pub fn write_file(path: &str, content: &[u8]) -> NodeCommand {
        cmd(&["sh", "-c", "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\"", "sh", path], Some(content))
    }

    pub fn remove_file(path: &str) -> NodeCommand {
        cmd(&["rm", "-f", path], None)
    }

    /// `systemctl start|restart containerd`.
    pub fn systemctl(verb: &str) -> NodeCommand {
        cmd(&["systemctl", verb, "containerd"], None)
    }

    /// `kill -HUP|-TERM|-KILL` containerd's main process (through systemd).
    pub fn signal(signal: &str) -> NodeCommand {
        cmd(&["systemctl", "kill", "--kill-whom=main", "-s", &format!("SIG{signal}"), "containerd"], None)
    }

    pub fn is_active() -> NodeCommand {
        cmd(&["systemctl", "is-active", "containerd"], None)
    }

    pub fn plugins(detail: bool) -> NodeCommand {
        if detail {
            cmd(&["ctr", "plugins", "ls", "-d", "type==io.containerd.grpc.v1,id==cri"], None)
        } else {
            cmd(&["ctr", "plugins", "ls"], None)
        }
    }

    pub fn config_dump() -> NodeCommand {
        cmd(&["containerd", "config", "dump"], None)
    }

    pub fn crictl_info() -> NodeCommand {
        cmd(&["crictl", "info"], None)
    }

    /// `scripts/check-runtime.sh --json`, the script piped in.
    pub fn check(script: &str) -> NodeCommand {
        cmd(&["sh", "-s", "--", "--json"], Some(script.as_bytes()))
    }
}

/// `docker exec` or `podman exec`, whichever is on PATH (docker first).
#[derive(Debug, Clone)]
pub struct ContainerExec {
    pub tool: PathBuf,
}

impl ContainerExec {
    /// The container engine on PATH, if any.
    pub fn find() -> Option<ContainerExec> {
        let path = std::env::var_os("PATH")?;
        ["docker", "podman"].iter().find_map(|t| std::env::split_paths(&path).map(|d| d.join(t)).find(|p| p.is_file())).map(|tool| ContainerExec { tool })
    }
}

impl NodeExec for ContainerExec {
    fn run(&self, container: &str, args: &[String], stdin: Option<&[u8]>) -> Result<ExecOutput, String> {
        let mut c = Command::new(&self.tool);
        c.arg("exec");
        if stdin.is_some() {
            c.arg("-i");
        }
        c.arg(container).args(args).stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() }).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().map_err(|e| format!("{} exec: {e}", self.tool.display()))?;
        if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
            pipe.write_all(input).map_err(|e| format!("{} exec: stdin: {e}", self.tool.display()))?;
        }
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        Ok(ExecOutput { stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned(), exit: out.status.code().unwrap_or(-1) })
    }
}

/// Runs one [`NodeCommand`].
pub fn run(exec: &dyn NodeExec, container: &str, c: &NodeCommand) -> Result<ExecOutput, String> {
    exec.run(container, &c.args, c.stdin.as_deref())
}

/// Runs one [`NodeCommand`] that must succeed.
pub fn run_ok(exec: &dyn NodeExec, container: &str, c: &NodeCommand) -> Result<ExecOutput, String> {
    let out = run(exec, container, c)?;
    if out.exit == 0 {
        Ok(out)
    } else {
        Err(format!("{container}: `{}` exited {}: {}", c.args.join(" "), out.exit, out.stderr.trim()))
    }
}

/// The CRI plugin's row of `ctr plugins ls`: its status word, or `absent`.
pub fn cri_status(listing: &str) -> String {
    listing
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"io.containerd.grpc.v1") && w.get(1) == Some(&"cri")).then(|| w.last().map(|s| s.to_string()))
        })
        .flatten()
        .unwrap_or_else(|| "absent".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// One recorded call: container, argv, stdin.
    type Call = (String, Vec<String>, Option<Vec<u8>>);

    /// Records every command; answers with a canned output.
    struct Recorder {
        seen: Mutex<Vec<Call>>,
    }

    impl NodeExec for Recorder {
        fn run(&self, container: &str, args: &[String], stdin: Option<&[u8]>) -> Result<ExecOutput, String> {
            self.seen.lock().unwrap().push((container.into(), args.to_vec(), stdin.map(<[u8]>::to_vec)));
            Ok(ExecOutput { stdout: "active\n".into(), stderr: String::new(), exit: i32::from(args.first().is_some_and(|a| a == "false")) })
        }
    }

    /// Each containerd step becomes the documented command in the node's container;
    /// file content goes through stdin, never through the command line.
    #[test]
    fn commands_in_the_node() {
        let r = Recorder { seen: Mutex::new(Vec::new()) };
        let cases = [
            (commands::write_file("/etc/containerd/conf.d/99-nvidia.toml", b"x = 1\n"), vec!["sh", "-c", "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\"", "sh", "/etc/containerd/conf.d/99-nvidia.toml"], Some(b"x = 1\n".to_vec())),
            (commands::remove_file("/etc/containerd/conf.d/99-nvidia.toml"), vec!["rm", "-f", "/etc/containerd/conf.d/99-nvidia.toml"], None),
            (commands::systemctl("restart"), vec!["systemctl", "restart", "containerd"], None),
            (commands::signal("HUP"), vec!["systemctl", "kill", "--kill-whom=main", "-s", "SIGHUP", "containerd"], None),
            (commands::check("#!/bin/sh\n"), vec!["sh", "-s", "--", "--json"], Some(b"#!/bin/sh\n".to_vec())),
        ];
        for (c, args, stdin) in cases {
            run_ok(&r, "kind-worker", &c).unwrap();
            let seen = r.seen.lock().unwrap().pop().unwrap();
            assert_eq!(seen, ("kind-worker".to_string(), args.iter().map(|s| s.to_string()).collect(), stdin));
        }
        let bad = NodeCommand { args: vec!["false".into()], stdin: None };
        assert!(run_ok(&r, "kind-worker", &bad).unwrap_err().contains("exited 1"));
    }

    /// Backup keeps the first copy; restore puts it back and restarts containerd.
    #[test]
    fn backup_and_restore() {
        assert!(commands::backup().args[2].starts_with(&format!("test -e {BACKUP} ||")));
        assert!(commands::restore().args[2].ends_with("systemctl restart containerd"));
    }

    /// The CRI row of `ctr plugins ls`.
    #[test]
    fn cri_row() {
        let listing = "TYPE                   ID     PLATFORMS      STATUS\nio.containerd.grpc.v1  cri    linux/amd64    error\n";
        assert_eq!(cri_status(listing), "error");
        assert_eq!(cri_status("TYPE ID PLATFORMS STATUS\n"), "absent");
    }
}
