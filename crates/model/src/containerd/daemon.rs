//! The containerd daemon as a state machine: the files on disk versus the config it
//! loaded at its last start. `config dump` reads the files, never the daemon; the CRI
//! plugin and its runtime handlers come from the loaded config; only a start reads the
//! files. No version reloads on SIGHUP: SIGHUP is not among containerd's handled
//! signals (`SIGTERM, SIGINT, SIGUSR1, SIGPIPE`), so it kills the process — unless the
//! process inherited SIGHUP as ignored (`nohup`). Whether it comes back depends on the
//! supervisor: systemd's shipped unit (`Restart=always`, `RestartSec=5`) starts it
//! again with the files as they are then; a daemon started by hand stays down.
//!
//! Time is a value (seconds) the caller advances; nothing here reads a clock.
//!
//! A daemon keeps its version's [`Containerd`] (the defaults parsed at its first load,
//! or handed in by [`Daemon::with_model`]) and the result of its last start: reading
//! the files on disk again while they are the files it started with is that result
//! ([`Daemon::on_disk`], [`Daemon::config_dump`]), since a load is a pure function of
//! files, version and verdicts. Files written since the start (no restart yet) are
//! loaded once, at the first read, and that load is kept beside the files, version and
//! verdicts it read until the daemon's own methods change one of them: a scenario
//! observes several fields of a node between two writes.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::syntax::Verdicts;
use super::{CommandOutput, Containerd, CriOutcome, Files, LoadResult, Start, Version};

/// Who started the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Supervisor {
    /// systemd with the shipped `containerd.service`: `Restart=always`, `RestartSec`.
    Systemd { restart_sec: u64 },
    /// Started by hand in a shell: nothing restarts it.
    ByHand,
    /// Started with SIGHUP ignored (`nohup`): SIGHUP does nothing.
    SighupIgnored,
}

impl Supervisor {
    /// The upstream unit file's settings.
    pub fn systemd() -> Self {
        Supervisor::Systemd { restart_sec: 5 }
    }
}

/// Signals a learner (or the NVIDIA toolkit's "signal" restart mode) can send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Signal {
    Hup,
    Term,
    Kill,
}

/// The process's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DaemonState {
    NeverStarted,
    Running { since: u64 },
    /// Not running. `by_signal` names the signal that killed it; `exit_code` is set
    /// when it exited by itself (a config it refused).
    Down { at: u64, by_signal: Option<String>, exit_code: Option<i32> },
    /// Down, and systemd will start it at `at`.
    RestartPending { at: u64 },
}

/// What happened, for the learner's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonEvent {
    pub at: u64,
    /// Stable code: `started`, `start-failed`, `killed-by-signal`, `signal-ignored`,
    /// `stopped`, `restart-scheduled`, `files-changed`.
    pub code: String,
    pub detail: String,
}

/// A containerd daemon on one node.
#[derive(Debug, Clone)]
pub struct Daemon {
    pub version: Version,
    pub supervisor: Supervisor,
    /// The files on disk now.
    pub files: Files,
    pub state: DaemonState,
    /// The files as they were at the last start, and what that start loaded.
    loaded_files: Option<Files>,
    loaded: Option<Box<LoadResult>>,
    now: u64,
    pub events: Vec<DaemonEvent>,
    /// containerd's verdicts on the files' syntax, for a model without go-toml's
    /// parsers ([`super::syntax`]; the app).
    verdicts: Verdicts,
    /// The verdicts the last start loaded with.
    loaded_verdicts: Verdicts,
    /// The version's loader, made at the first load unless handed in.
    model: OnceLock<Containerd>,
    /// The load of the files on disk since they differ from the last start's, made at
    /// the first read and cleared by [`Daemon::write_file`], [`Daemon::remove_file`],
    /// [`Daemon::with_verdicts`] and a start. It holds what it read, so a change made
    /// through the public fields is never answered with it. Shared between clones.
    changed: OnceLock<Arc<DiskLoad>>,
}

/// One load of the files on disk, with the inputs it read (a load is a pure function
/// of them).
#[derive(Debug)]
struct DiskLoad {
    files: Files,
    version: Version,
    verdicts: Verdicts,
    result: LoadResult,
}

impl Daemon {
    /// A daemon that has not started yet.
    pub fn new(version: Version, supervisor: Supervisor, files: Files) -> Self {
        Daemon {
            version,
            supervisor,
            files,
            state: DaemonState::NeverStarted,
            loaded_files: None,
            loaded: None,
            now: 0,
            events: Vec::new(),
            verdicts: Verdicts::new(),
            loaded_verdicts: Verdicts::new(),
            model: OnceLock::new(),
            changed: OnceLock::new(),
        }
    }

    /// The daemon, loading with `model` (its defaults already parsed, shared with
    /// every daemon given a clone of it) when `model` is of the daemon's version.
    pub fn with_model(self, model: &Containerd) -> Self {
        if model.version == self.version {
            let _ = self.model.set(model.clone());
        }
        self
    }

    /// The daemon, reading its files' syntax with these verdicts ([`super::syntax`]).
    pub fn with_verdicts(mut self, verdicts: Verdicts) -> Self {
        self.verdicts = verdicts;
        self.changed = OnceLock::new();
        self
    }

    /// The daemon's version's loader (`version` is a public field: a loader of
    /// another version is not used).
    fn model(&self) -> Cow<'_, Containerd> {
        match self.model.get_or_init(|| Containerd::new(self.version.clone())) {
            m if m.version == self.version => Cow::Borrowed(m),
            _ => Cow::Owned(Containerd::new(self.version.clone())),
        }
    }

    fn load(&self) -> LoadResult {
        self.model().load_with(&self.files, &self.verdicts)
    }

    /// What the last start loaded, when the files on disk, the version and `verdicts`
    /// are still those it loaded with: loading them again gives the same result.
    fn loaded_from_disk(&self, verdicts: &Verdicts) -> Option<&LoadResult> {
        let loaded = self.loaded.as_deref()?;
        let same = self.loaded_files.as_ref() == Some(&self.files) && loaded.version == self.version && *verdicts == self.loaded_verdicts;
        same.then_some(loaded)
    }

    /// The load of the files on disk with `verdicts`: the last start's result while
    /// the files are unchanged, else the kept load of the changed files when it read
    /// these inputs (made now if none is kept), else a fresh load.
    fn disk_load(&self, verdicts: &Verdicts) -> Cow<'_, LoadResult> {
        if let Some(loaded) = self.loaded_from_disk(verdicts) {
            return Cow::Borrowed(loaded);
        }
        let kept = self.changed.get_or_init(|| {
            let result = self.model().load_with(&self.files, verdicts);
            Arc::new(DiskLoad { files: self.files.clone(), version: self.version.clone(), verdicts: verdicts.clone(), result })
        });
        if kept.files == self.files && kept.version == self.version && kept.verdicts == *verdicts {
            Cow::Borrowed(&kept.result)
        } else {
            Cow::Owned(self.model().load_with(&self.files, verdicts))
        }
    }

    /// [`containerd::load`](super::load) of the files on disk (no syntax verdicts):
    /// what the next start would load. The last start's result while the files are
    /// unchanged, else a load with the daemon's loader (kept until the files change).
    pub fn on_disk(&self) -> Cow<'_, LoadResult> {
        self.disk_load(&Verdicts::new())
    }

    /// The current time (seconds since the scenario began).
    pub fn now(&self) -> u64 {
        self.now
    }

    fn event(&mut self, code: &str, detail: impl Into<String>) {
        self.events.push(DaemonEvent { at: self.now, code: code.to_string(), detail: detail.into() });
    }

    /// Starts the daemon on the files as they are now (a no-op when running).
    pub fn start(&mut self) {
        if self.is_running() {
            return;
        }
        let result = self.load();
        self.changed = OnceLock::new();
        self.loaded_files = Some(self.files.clone());
        self.loaded_verdicts = self.verdicts.clone();
        match &result.start {
            Start::Serving(cri) => {
                let status = cri.status().as_str().to_string();
                self.state = DaemonState::Running { since: self.now };
                self.event("started", format!("cri={status}"));
            }
            Start::Exited { code, last_line, .. } => {
                self.state = DaemonState::Down { at: self.now, by_signal: None, exit_code: Some(*code) };
                self.event("start-failed", last_line.clone());
                self.schedule_restart();
            }
        }
        self.loaded = Some(Box::new(result));
    }

    fn schedule_restart(&mut self) {
        if let Supervisor::Systemd { restart_sec } = self.supervisor {
            let at = self.now + restart_sec;
            self.state = DaemonState::RestartPending { at };
            self.event("restart-scheduled", format!("at={at}"));
        }
    }

    /// `systemctl restart containerd` (or stop + start by hand): a fresh start.
    pub fn restart(&mut self) {
        if self.is_running() {
            self.state = DaemonState::Down { at: self.now, by_signal: None, exit_code: Some(0) };
            self.event("stopped", "restart");
        }
        self.start();
    }

    /// Sends `signal` to the daemon process.
    pub fn signal(&mut self, signal: Signal) {
        if !self.is_running() {
            return;
        }
        match (signal, self.supervisor) {
            (Signal::Hup, Supervisor::SighupIgnored) => self.event("signal-ignored", "SIGHUP"),
            (Signal::Hup | Signal::Kill, _) => {
                let name = if signal == Signal::Hup { "SIGHUP" } else { "SIGKILL" };
                self.state = DaemonState::Down { at: self.now, by_signal: Some(name.into()), exit_code: None };
                self.event("killed-by-signal", name);
                self.schedule_restart();
            }
            (Signal::Term, _) => {
                self.state = DaemonState::Down { at: self.now, by_signal: None, exit_code: Some(0) };
                self.event("stopped", "SIGTERM");
                self.schedule_restart();
            }
        }
    }

    /// Lets `seconds` pass; systemd's pending restart happens on time.
    pub fn advance(&mut self, seconds: u64) {
        let until = self.now + seconds;
        while let DaemonState::RestartPending { at } = self.state {
            if at > until {
                break;
            }
            self.now = at;
            self.state = DaemonState::Down { at, by_signal: None, exit_code: None };
            self.start();
        }
        self.now = until;
    }

    /// Writes a file on disk; the running daemon does not notice.
    pub fn write_file(&mut self, path: &str, content: impl Into<Vec<u8>>) {
        self.files.insert(path, content);
        self.changed = OnceLock::new();
        self.event("files-changed", path);
    }

    pub fn remove_file(&mut self, path: &str) {
        self.files.remove(path);
        self.changed = OnceLock::new();
        self.event("files-changed", path);
    }

    pub fn is_running(&self) -> bool {
        matches!(self.state, DaemonState::Running { .. })
    }

    /// `containerd config dump`: reads the files on disk, not the daemon.
    pub fn config_dump(&self) -> CommandOutput {
        match self.disk_load(&self.verdicts) {
            Cow::Borrowed(loaded) => loaded.dump.clone(),
            Cow::Owned(loaded) => loaded.dump,
        }
    }

    /// The CRI plugins as `ctr plugins ls` shows them (only while running).
    pub fn cri(&self) -> Option<&CriOutcome> {
        match (&self.state, self.loaded.as_deref().map(|l| &l.start)) {
            (DaemonState::Running { .. }, Some(Start::Serving(cri))) => Some(cri),
            _ => None,
        }
    }

    /// What the last start loaded.
    pub fn loaded(&self) -> Option<&LoadResult> {
        self.loaded.as_deref()
    }

    /// The runtime handlers the running CRI plugin offers.
    pub fn runtime_handlers(&self) -> Vec<String> {
        match self.cri() {
            Some(cri) if cri.status() == &super::PluginState::Ok => self.loaded.as_deref().map(LoadResult::runtime_handlers).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The files on disk differ from those the running daemon loaded.
    pub fn loaded_config_is_stale(&self) -> bool {
        self.loaded_files.as_ref().is_some_and(|f| f != &self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::containerd::PluginState;

    const MAIN: &str = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n    runtime_type = \"io.containerd.runc.v2\"\n";
    const BREAK: &str = "[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n";

    fn daemon(sup: Supervisor) -> Daemon {
        let files = Files::new().with("/etc/containerd/config.toml", MAIN);
        let mut d = Daemon::new(Version::parse("2.0.11").unwrap(), sup, files);
        d.start();
        d
    }

    /// Files changed under a running daemon change nothing until it starts again;
    /// `config dump` already shows the new files.
    #[test]
    fn file_change_needs_restart() {
        let mut d = daemon(Supervisor::systemd());
        assert_eq!(d.cri().unwrap().status(), &PluginState::Ok);
        d.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        assert_eq!(d.cri().unwrap().status(), &PluginState::Ok);
        assert!(d.loaded_config_is_stale());
        assert!(d.config_dump().stdout.contains("default_runtime_name = 'nvidia'"));
        d.restart();
        assert_eq!(d.cri().unwrap().status(), &PluginState::Error);
    }

    /// What the daemon reuses (its loader, its last start's result, the kept load of
    /// changed files) gives what a fresh load of the files on disk gives: never
    /// started, started, files changed after the start, the version changed under it,
    /// a loader handed in, a loader of another version, and files changed through the
    /// public field after a load was kept (that load must not answer).
    #[test]
    fn reused_loads_equal_fresh_loads() {
        let v2 = Version::parse("2.0.11").unwrap();
        let v17 = Version::parse("1.7.34").unwrap();
        let files = Files::new().with("/etc/containerd/config.toml", MAIN);
        let never = Daemon::new(v2.clone(), Supervisor::systemd(), files.clone());
        let started = daemon(Supervisor::systemd());
        let mut changed = daemon(Supervisor::systemd());
        changed.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        let mut other_version = daemon(Supervisor::systemd());
        other_version.version = v17.clone();
        let mut handed = Daemon::new(v2.clone(), Supervisor::systemd(), files).with_model(&Containerd::new(v2.clone()));
        handed.start();
        let foreign = Daemon::new(v2, Supervisor::ByHand, Files::new()).with_model(&Containerd::new(v17));
        let mut behind_its_back = daemon(Supervisor::systemd());
        behind_its_back.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        let _ = behind_its_back.config_dump();
        behind_its_back.files.remove("/etc/containerd/conf.d/50-default.toml");
        behind_its_back.files.insert("/etc/containerd/conf.d/60-other.toml", "version = 2\n");
        for (name, d) in [
            ("never started", &never),
            ("started", &started),
            ("files changed", &changed),
            ("version changed", &other_version),
            ("loader handed in", &handed),
            ("loader of another version", &foreign),
            ("files changed through the field after a kept load", &behind_its_back),
        ] {
            let fresh = crate::containerd::load(&d.files, &d.version);
            for round in ["first", "second"] {
                let on_disk = d.on_disk();
                assert_eq!(on_disk.dump, fresh.dump, "{name}: on_disk, {round} read");
                assert_eq!(on_disk.version, d.version, "{name}: version, {round} read");
                assert_eq!(on_disk.diagnostics, fresh.diagnostics, "{name}: diagnostics, {round} read");
                assert_eq!(d.config_dump(), fresh.dump, "{name}: config dump, {round} read");
            }
        }
        // The kept load is dropped by the daemon's own writes.
        let mut rewritten = daemon(Supervisor::systemd());
        rewritten.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        assert!(rewritten.config_dump().stdout.contains("default_runtime_name = 'nvidia'"));
        assert!(matches!(rewritten.on_disk(), Cow::Borrowed(_)), "changed files are loaded once, then kept");
        rewritten.write_file("/etc/containerd/conf.d/50-default.toml", MAIN.replace("runc", "crun"));
        assert!(rewritten.config_dump().stdout.contains("default_runtime_name = 'crun'"));
        rewritten.remove_file("/etc/containerd/conf.d/50-default.toml");
        assert!(!rewritten.config_dump().stdout.contains("'crun'"));
    }

    /// SIGHUP kills the daemon; systemd brings it back after RestartSec with the new
    /// files; by hand it stays down; with SIGHUP ignored nothing happens.
    #[test]
    fn sighup_per_supervisor() {
        let mut d = daemon(Supervisor::systemd());
        d.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        d.signal(Signal::Hup);
        assert!(!d.is_running());
        d.advance(4);
        assert!(!d.is_running());
        d.advance(1);
        assert!(d.is_running());
        assert_eq!(d.cri().unwrap().status(), &PluginState::Error);

        let mut d = daemon(Supervisor::ByHand);
        d.signal(Signal::Hup);
        d.advance(60);
        assert!(!d.is_running());
        assert_eq!(d.state, DaemonState::Down { at: 0, by_signal: Some("SIGHUP".into()), exit_code: None });

        let mut d = daemon(Supervisor::SighupIgnored);
        d.write_file("/etc/containerd/conf.d/50-default.toml", BREAK);
        d.signal(Signal::Hup);
        assert!(d.is_running());
        assert_eq!(d.cri().unwrap().status(), &PluginState::Ok);
    }
}
