//! Step 4, restart not SIGHUP: the node's containerd daemon as the model's state
//! machine (`gpulab_model::containerd::Daemon`). The daemon starts on the main config
//! alone; the learner writes step 2's drop-in, sends SIGHUP, restarts, lets time pass.
//! The reducer keeps only the list of operations; the view replays them on a fresh
//! model daemon (`check_runtime::simulated::replay`), so what the loaded config and
//! the CRI plugins do is the model's. The check runs are the chunk's
//! ([`crate::steps::check`]): the check's rules are not in the first load.

use gpulab_model::check_runtime::simulated::{self, NodeOp};
use gpulab_model::containerd::{Daemon, DaemonState, Supervisor};
use gpulab_view::{api, CheckRun};
use yew::prelude::*;

use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{CheckInput, ContainerdInput, LabAction};
use crate::steps::check::check_request;
use crate::steps::chunk::{call, model_error, placeholder, use_chunk, Chunk};
use crate::steps::containerd::{files, version, version_select, DROPIN, MAIN};
use gpulab_view::wire::check_view;
use crate::steps::Step;
use crate::json::{Object, Value};
use crate::work_json::Reader;

/// The model's operation for a step-4 button.
pub fn node_op(op: DaemonOp) -> NodeOp {
    match op {
        DaemonOp::WriteDropin => NodeOp::WriteDropin,
        DaemonOp::Sighup => NodeOp::Sighup,
        DaemonOp::Restart => NodeOp::Restart,
        DaemonOp::Wait => NodeOp::Wait,
        DaemonOp::RunCheck => NodeOp::RunCheck,
    }
}

/// The daemon after the learner's operations, replayed from its first start on a
/// fresh model daemon (the check runs on the way are the chunk's), with containerd's
/// syntax verdicts on both files that the chunk gave ([`crate::steps::syntax`]).
pub fn replay(input: &ContainerdInput, restart: &RestartInput) -> Result<Daemon, String> {
    let supervisor = match restart.supervisor {
        SupervisorChoice::Systemd => Supervisor::systemd(),
        SupervisorChoice::ByHand => Supervisor::ByHand,
    };
    let version = version(input)?;
    let verdicts = crate::steps::syntax::verdicts(&version, &[(MAIN, input.main.as_str()), (DROPIN, input.dropin.as_str())]);
    let d = Daemon::new(version, supervisor, files(input, false)).with_verdicts(verdicts);
    let ops: Vec<NodeOp> = restart.ops.iter().map(|op| node_op(*op)).collect();
    Ok(simulated::replay(d, DROPIN, &input.dropin, &ops, |_| ()).0)
}

/// The daemon's state in words.
pub fn state_text(lang: Lang, state: &DaemonState) -> String {
    match state {
        DaemonState::NeverStarted => t(lang, MessageId::RsNever).to_string(),
        DaemonState::Running { since } => tf(lang, MessageId::RsRunning, &[("t", &since.to_string())]),
        DaemonState::RestartPending { at } => tf(lang, MessageId::RsRestartPending, &[("t", &at.to_string())]),
        DaemonState::Down { at, by_signal: Some(sig), .. } => {
            tf(lang, MessageId::RsDownSignal, &[("t", &at.to_string()), ("signal", sig)])
        }
        DaemonState::Down { at, exit_code: Some(code), .. } => {
            tf(lang, MessageId::RsDownExit, &[("t", &at.to_string()), ("code", &code.to_string())])
        }
        DaemonState::Down { at, .. } => tf(lang, MessageId::RsDown, &[("t", &at.to_string())]),
    }
}

fn event_id(code: &str) -> Option<MessageId> {
    Some(match code {
        "started" => MessageId::RsEvStarted,
        "start-failed" => MessageId::RsEvStartFailed,
        "killed-by-signal" => MessageId::RsEvKilledBySignal,
        "signal-ignored" => MessageId::RsEvSignalIgnored,
        "stopped" => MessageId::RsEvStopped,
        "restart-scheduled" => MessageId::RsEvRestartScheduled,
        "files-changed" => MessageId::RsEvFilesChanged,
        _ => return None,
    })
}

fn run_list(lang: Lang, runs: &[CheckRun]) -> Html {
    html! {
        <ol>
            { for runs.iter().map(|run| html! {
                <li class="rs-run">
                    <p><strong>{ tf(lang, MessageId::RsCheckRun, &[("t", &run.at.to_string()), ("verdict", &run.verdict_text)]) }</strong></p>
                    <pre class="check-output">{ run.output.clone() }</pre>
                </li>
            }) }
        </ol>
    }
}

#[derive(Properties, PartialEq)]
pub struct RestartStepProps {
    pub lang: Lang,
    pub input: ContainerdInput,
    pub restart: RestartInput,
    pub check: CheckInput,
    pub dispatch: Callback<LabAction>,
}

#[component(RestartStep)]
pub fn restart_step(props: &RestartStepProps) -> Html {
    let lang = props.lang;
    let select_id = use_state(|| crate::components::editor::unique_id("ctr-version"));
    let (chunk, retry) = use_chunk();
    // Replayed again once the chunk is there: its syntax verdicts may change a start.
    let ready = matches!(chunk, Chunk::Ready(_));
    let replayed = use_memo((props.input.clone(), props.restart.clone(), ready), |(i, r, _)| replay(i, r));
    let has_runs = props.restart.ops.contains(&DaemonOp::RunCheck);
    let runs = use_memo((chunk.clone(), props.input.clone(), props.restart.clone(), props.check.clone(), lang), |(chunk, i, r, c, lang)| match chunk {
        Chunk::Ready(m) if r.ops.contains(&DaemonOp::RunCheck) => Some(call(m, api::CHECK, &check_request(i, r, c, *lang), check_view).map(|v| v.runs)),
        _ => None,
    });
    let d = match replayed.as_ref() {
        Ok(d) => d,
        Err(e) => {
            return html! { <p class="model-error" role="alert">{ tf(lang, MessageId::ModelError, &[("details", e.as_str())]) }</p> }
        }
    };
    let act = |op: DaemonOp, label: MessageId, class: &'static str| {
        let dispatch = props.dispatch.clone();
        let onclick = Callback::from(move |_| dispatch.emit(LabAction::Restart(RestartAction::Do(op))));
        html! { <button type="button" class={class} {onclick}>{ t(lang, label) }</button> }
    };
    let supervisor = |choice: SupervisorChoice, label: MessageId, value: &'static str| {
        let dispatch = props.dispatch.clone();
        let onchange = Callback::from(move |_| dispatch.emit(LabAction::Restart(RestartAction::Supervisor(choice))));
        html! {
            <label class="radio">
                <input type="radio" name="rs-supervisor" {value} checked={props.restart.supervisor == choice} {onchange} />
                { " " }{ t(lang, label) }
            </label>
        }
    };
    let now = d.now().to_string();
    let handlers = d.runtime_handlers();
    let handlers = if handlers.is_empty() { t(lang, MessageId::CtrNone).to_string() } else { handlers.join(", ") };
    html! {
        <div class="step-restart">
            { version_select(lang, &select_id, &props.input.version, &props.dispatch) }
            <fieldset class="rs-supervisor">
                <legend>{ t(lang, MessageId::RsSupervisor) }</legend>
                { supervisor(SupervisorChoice::Systemd, MessageId::RsSystemd, "systemd") }
                { supervisor(SupervisorChoice::ByHand, MessageId::RsByHand, "by-hand") }
            </fieldset>
            <fieldset class="rs-actions">
                <legend>{ t(lang, MessageId::RsActions) }</legend>
                { act(DaemonOp::WriteDropin, MessageId::RsWriteDropin, "rs-write-dropin") }
                { act(DaemonOp::Sighup, MessageId::RsSighup, "rs-sighup") }
                { act(DaemonOp::Restart, MessageId::RsRestart, "rs-restart") }
                { act(DaemonOp::Wait, MessageId::RsWait, "rs-wait") }
                { act(DaemonOp::RunCheck, MessageId::CkRun, "rs-run-check") }
            </fieldset>
            <section class="rs-runs">
                <h3>{ t(lang, MessageId::RsCheckRuns) }</h3>
                if !has_runs {
                    <p>{ t(lang, MessageId::CtrNone) }</p>
                } else if let Some(wait) = placeholder(lang, &chunk, &retry) {
                    { wait }
                } else {
                    { match runs.as_ref() {
                        Some(Ok(runs)) => run_list(lang, runs),
                        Some(Err(e)) => model_error(lang, e),
                        None => Html::default(),
                    } }
                }
            </section>
            <section class="rs-daemon" aria-live="polite" aria-label={t(lang, MessageId::RsState)}>
                <h3>{ t(lang, MessageId::RsState) }</h3>
                <p class="rs-now">{ tf(lang, MessageId::RsNow, &[("t", now.as_str())]) }</p>
                <p class="rs-state"><strong>{ state_text(lang, &d.state) }</strong></p>
                <p class="rs-stale">{ t(lang, if d.loaded_config_is_stale() { MessageId::RsStale } else { MessageId::RsFresh }) }</p>
                <h4>{ t(lang, MessageId::RsCriLoaded) }</h4>
                { match d.cri() {
                    Some(cri) => html! {
                        <Upstream {lang} class="rs-plugins" text={cri.plugins.iter().map(|(p, s)| format!("{p} {}\n", s.as_str())).collect::<String>()} />
                    },
                    None => html! { <p class="rs-plugins-none">{ t(lang, MessageId::RsCriNone) }</p> },
                } }
                <p class="rs-handlers">{ tf(lang, MessageId::RsHandlers, &[("list", handlers.as_str())]) }</p>
            </section>
            <section class="rs-timeline">
                <h3>{ t(lang, MessageId::RsTimeline) }</h3>
                <ol>
                    { for d.events.iter().map(|ev| {
                        let at = tf(lang, MessageId::RsAt, &[("t", &ev.at.to_string())]);
                        let text = match event_id(&ev.code) {
                            Some(id) => tf(lang, id, &[("detail", ev.detail.as_str())]),
                            None => format!("{}: {}", ev.code, ev.detail),
                        };
                        html! { <li data-code={ev.code.clone()}>{ format!("{at} — {text}") }</li> }
                    }) }
                </ol>
            </section>
            { crate::steps::reset_step(lang, Step::Restart, &props.dispatch) }
        </div>
    }
}

// The step's input: what the learner typed or chose, the actions that change it,
// its defaults and its saved form (read and written by `crate::work_json`).

/// Step 4: who supervises the daemon, and what the learner did to it, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(default, deny_unknown_fields))]
pub struct RestartInput {
    pub supervisor: SupervisorChoice,
    pub ops: Vec<DaemonOp>,
}

/// How containerd was started on the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(rename_all = "kebab-case"))]
pub enum SupervisorChoice {
    /// The shipped `containerd.service` (`Restart=always`).
    #[default]
    Systemd,
    ByHand,
}

/// One thing done to the node in step 4; the model replays them on its daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(test, derive(serde::Serialize, serde::Deserialize), serde(rename_all = "kebab-case"))]
pub enum DaemonOp {
    /// Write step 2's drop-in to disk (as the NVIDIA toolkit does).
    WriteDropin,
    Sighup,
    Restart,
    /// Let five seconds pass.
    Wait,
    /// Run the check on the node as it is now.
    RunCheck,
}

impl SupervisorChoice {
    /// Each choice and its name in saved work (kebab-case).
    pub const NAMES: [(&'static str, SupervisorChoice); 2] = [("systemd", SupervisorChoice::Systemd), ("by-hand", SupervisorChoice::ByHand)];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, c)| *c == self).map_or("", |(n, _)| n)
    }
}

impl DaemonOp {
    /// Each operation and its name in saved work (kebab-case).
    pub const NAMES: [(&'static str, DaemonOp); 5] = [
        ("write-dropin", DaemonOp::WriteDropin),
        ("sighup", DaemonOp::Sighup),
        ("restart", DaemonOp::Restart),
        ("wait", DaemonOp::Wait),
        ("run-check", DaemonOp::RunCheck),
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, op)| *op == self).map_or("", |(n, _)| n)
    }
}

/// The most operations step 4 keeps (older ones are dropped first).
pub const MAX_OPS: usize = 50;

/// A change to step 4's inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartAction {
    Do(DaemonOp),
    Supervisor(SupervisorChoice),
}

impl RestartInput {
    /// The input after `a`: an operation is added (the oldest dropped past
    /// [`MAX_OPS`]); another supervisor starts the node afresh.
    pub fn apply(&mut self, a: RestartAction) {
        match a {
            RestartAction::Do(op) => {
                self.ops.push(op);
                let extra = self.ops.len().saturating_sub(MAX_OPS);
                self.ops.drain(..extra);
            }
            RestartAction::Supervisor(sup) => {
                self.supervisor = sup;
                self.ops.clear();
            }
        }
    }
}

/// Reads the step's section of saved work, a file or a link (`crate::work_json`).
pub(crate) fn read(rd: &mut Reader, v: &Value, path: &str) -> RestartInput {
    let mut r = RestartInput::default();
    for (key, v) in rd.members(v, path) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "supervisor" => {
                if let Some(s) = rd.choice(v, &at, &SupervisorChoice::NAMES) {
                    r.supervisor = s;
                }
            }
            "ops" => r.ops = rd.list(v, &at, |me, item, at| me.choice(item, at, &DaemonOp::NAMES)),
            _ => rd.unknown(path, key, &["supervisor", "ops"]),
        }
    }
    r
}

/// Writes the step's section of saved work as serde_json wrote it.
pub(crate) fn write(out: &mut String, r: &RestartInput) {
    Object::new(out).str("supervisor", r.supervisor.name()).strs("ops", r.ops.iter().map(|op| op.name())).end();
}
