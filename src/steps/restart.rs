//! Step 4, restart not SIGHUP: the node's containerd daemon as the model's state
//! machine (`gpulab_model::containerd::Daemon`). The daemon starts on the main config
//! alone; the learner writes step 2's drop-in, sends SIGHUP, restarts, lets time pass.
//! The reducer keeps only the list of operations; the view replays them on a fresh
//! model daemon, so what the loaded config and the CRI plugins do is the model's.

use gpulab_model::check_runtime::{self, simulated as node, simulated::NodeCheck, CheckReport};
use gpulab_model::containerd::{Daemon, DaemonState, Signal, Supervisor};
use yew::prelude::*;

use crate::components::upstream::Upstream;
use crate::i18n::{t, tf, Lang, MessageId};
use crate::state::{CheckInput, ContainerdInput, DaemonOp, LabAction, RestartAction, RestartInput, SupervisorChoice};
use crate::steps::containerd::{files, version, version_select, DROPIN};
use crate::steps::Step;

/// The daemon after the learner's operations, replayed from its first start, and
/// every check run on the way: (time, report).
pub struct Replayed {
    pub daemon: Daemon,
    pub runs: Vec<(u64, CheckReport)>,
}

/// The check's settings for the simulated node (step 3's choices).
pub fn node_check(check: &CheckInput) -> NodeCheck {
    NodeCheck { handler: check.handler.clone(), keep: check.keep.clone(), ..NodeCheck::default() }
}

/// Replays the learner's operations on a fresh model daemon.
pub fn replay(input: &ContainerdInput, restart: &RestartInput, check: &CheckInput) -> Result<Replayed, String> {
    let supervisor = match restart.supervisor {
        SupervisorChoice::Systemd => Supervisor::systemd(),
        SupervisorChoice::ByHand => Supervisor::ByHand,
    };
    let mut d = Daemon::new(version(input)?, supervisor, files(input, false));
    d.start();
    let nc = node_check(check);
    let mut runs = Vec::new();
    for op in &restart.ops {
        match op {
            DaemonOp::WriteDropin => d.write_file(DROPIN, input.dropin.as_str()),
            DaemonOp::Sighup => d.signal(Signal::Hup),
            DaemonOp::Restart => d.restart(),
            DaemonOp::Wait => d.advance(5),
            DaemonOp::RunCheck => runs.push((d.now(), check_runtime::evaluate(&node::inputs(&d, &nc)))),
        }
    }
    Ok(Replayed { daemon: d, runs })
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
    let replayed = use_memo((props.input.clone(), props.restart.clone(), props.check.clone()), |(i, r, c)| replay(i, r, c));
    let (d, runs) = match replayed.as_ref() {
        Ok(r) => (&r.daemon, &r.runs),
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
    let on_reset = {
        let dispatch = props.dispatch.clone();
        Callback::from(move |_| dispatch.emit(LabAction::ResetStep(Step::Restart)))
    };
    let now = d.now().to_string();
    let handlers = d.runtime_handlers();
    let handlers = if handlers.is_empty() { t(lang, MessageId::CtrNone).to_string() } else { handlers.join(", ") };
    html! {
        <div class="step-restart">
            { version_select(lang, &props.input.version, &props.dispatch) }
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
                if runs.is_empty() {
                    <p>{ t(lang, MessageId::CtrNone) }</p>
                } else {
                    <ol>
                        { for runs.iter().map(|(at, report)| html! {
                            <li class="rs-run">
                                <p><strong>{ tf(lang, MessageId::RsCheckRun, &[
                                    ("t", &at.to_string()),
                                    ("verdict", &check_runtime::verdict_text(report.verdict, &props.check.handler, crate::steps::check::model_lang(lang))),
                                ]) }</strong></p>
                                <pre class="check-output">{ crate::steps::check::render(report, &props.check, lang) }</pre>
                            </li>
                        }) }
                    </ol>
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
            <p><button type="button" class="reset-step" onclick={on_reset}>{ t(lang, MessageId::ResetStep) }</button></p>
        </div>
    }
}
