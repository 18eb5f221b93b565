//! Korean and English text for the diagnosis codes, shared by the app, `gpulab` and
//! the incident report. Upstream texts (kubectl lines, event messages) are never
//! translated: they appear verbatim inside these sentences.

use std::collections::BTreeMap;

use crate::daemonset::diagnosis::{CauseLink, Evidence};
use crate::Lang;

/// The sentence template of a code: `{arg}` placeholders.
fn template(code: &str, lang: Lang) -> Option<&'static str> {
    use Lang::*;
    Some(match (code, lang) {
        ("rollout-waiting", En) => "`kubectl rollout status` keeps waiting: {field} is {value} of {desired} desired.",
        ("rollout-waiting", Ko) => "`kubectl rollout status`가 계속 기다린다: {field} 값이 원하는 {desired}개 중 {value}개다.",
        ("unavailable-budget-used", En) => "maxUnavailable {maxUnavailable} is used up ({numUnavailable} unavailable), so the controller deletes no further old pod; {waiting} node(s) wait their turn.",
        ("unavailable-budget-used", Ko) => "maxUnavailable {maxUnavailable}을(를) 다 썼으므로(사용 불가 {numUnavailable}개) 컨트롤러는 옛 파드를 더 지우지 않는다. 노드 {waiting}개가 차례를 기다린다.",
        ("no-progress-deadline", En) => "A DaemonSet has no progress deadline: `rollout status` waits forever unless --timeout is given.",
        ("no-progress-deadline", Ko) => "DaemonSet에는 progress deadline이 없다. --timeout을 주지 않으면 `rollout status`는 끝없이 기다린다.",
        ("new-pod-not-ready", En) => "The new pod {pod} on {node} is {ready} {status}.",
        ("new-pod-not-ready", Ko) => "{node}의 새 파드 {pod}이(가) {ready} {status} 상태다.",
        ("sandbox-create-failed", En) => "The kubelet cannot create the pod sandbox for {pod}.",
        ("sandbox-create-failed", Ko) => "kubelet이 {pod}의 파드 샌드박스를 만들지 못한다.",
        ("handler-not-loaded", En) => "containerd {containerdVersion} on {node} has no runtime handler \"{handler}\" in its loaded config (loaded: {loaded}).",
        ("handler-not-loaded", Ko) => "{node}의 containerd {containerdVersion}이(가) 로드한 설정에는 런타임 핸들러 \"{handler}\"이(가) 없다(로드된 핸들러: {loaded}).",
        ("restart-would-load", En) => "The config files on {node} do define \"{handler}\": the running daemon has not loaded them.",
        ("restart-would-load", Ko) => "{node}의 설정 파일에는 \"{handler}\"이(가) 정의되어 있다. 실행 중인 데몬이 그 파일을 로드하지 않았다.",
        ("config-defines-handler", En) => "{file} defines the \"{handler}\" runtime.",
        ("config-defines-handler", Ko) => "{file}에 \"{handler}\" 런타임이 정의되어 있다.",
        ("daemon-not-restarted", En) => "{unit} on {node} was not restarted after its config changed (SIGHUP is not a reload); changed since its last start: {changed}.",
        ("daemon-not-restarted", Ko) => "설정이 바뀐 뒤 {node}의 {unit}이(가) 재시작되지 않았다(SIGHUP은 다시 읽기가 아니다). 마지막 시작 뒤 바뀐 파일: {changed}.",
        ("dropin-replaced-table", En) => "{file} replaces the table {table} of the main config (defined at {earlier}) whole: {lost} earlier setting(s) are lost.",
        ("dropin-replaced-table", Ko) => "{file}이(가) 메인 설정의 {table} 테이블({earlier}에 정의)을 통째로 대체한다. 앞 설정 {lost}개가 사라진다.",
        ("loaded-cri-error", En) => "containerd {containerdVersion} on {node} runs, but its CRI plugin failed to load: {error}",
        ("loaded-cri-error", Ko) => "{node}의 containerd {containerdVersion}은(는) 실행 중이지만 CRI 플러그인이 로드되지 않았다: {error}",
        ("restart-would-fail", En) => "A restart with the files as they are would not fix it: containerd {containerdVersion}'s CRI plugin would fail with: {error}",
        ("restart-would-fail", Ko) => "지금 파일 그대로 재시작해도 고쳐지지 않는다. containerd {containerdVersion}의 CRI 플러그인이 다음 오류로 실패한다: {error}",
        ("cri-not-serving", En) => "containerd {containerdVersion} on {node} serves no CRI: the kubelet cannot create any sandbox.",
        ("cri-not-serving", Ko) => "{node}의 containerd {containerdVersion}이(가) CRI를 제공하지 않는다. kubelet은 어떤 샌드박스도 만들 수 없다.",
        ("pod-create-refused", En) => "The API server refuses the pod for {node}: {error}",
        ("pod-create-refused", Ko) => "API 서버가 {node}용 파드를 거부한다: {error}",
        ("runtimeclass-missing", En) => "RuntimeClass \"{runtimeClass}\" does not exist.",
        ("runtimeclass-missing", Ko) => "RuntimeClass \"{runtimeClass}\"이(가) 없다.",
        ("node-without-pod", En) => "{node} has no daemon pod.",
        ("node-without-pod", Ko) => "{node}에 데몬 파드가 없다.",
        _ => return None,
    })
}

/// The template with its arguments, each Korean particle after one chosen by it.
fn fill(template: &str, args: &BTreeMap<String, String>) -> String {
    crate::korean::fill(template, |k| args.get(k).map(String::as_str))
}

/// The sentence for a link; a code without one (none the model writes: the test
/// below reads them off its source) is its code alone, never its arguments as `k=v`.
pub fn link_text(link: &CauseLink, lang: Lang) -> String {
    match template(&link.code, lang) {
        Some(t) => fill(t, &link.args),
        None => link.code.clone(),
    }
}

/// The evidence, one line (`None` when there is none).
pub fn evidence_text(evidence: &Evidence, lang: Lang) -> Option<String> {
    let (event, count_word) = match lang {
        Lang::En => ("event", "times"),
        Lang::Ko => ("이벤트", "회"),
    };
    Some(match evidence {
        Evidence::StatusField { object, field, value } => format!("{object} {field} = {value}"),
        Evidence::Event { object, type_, reason, source, message, count } => {
            let times = match lang {
                _ if *count <= 1 => String::new(),
                Lang::En => format!(" ×{count} {count_word}"),
                // A Korean counter follows its number: 15회.
                Lang::Ko => format!(" {count}{count_word}"),
            };
            format!("{event} {object}: {type_} {reason} ({source}{times}): {message}")
        }
        Evidence::Runtime { node, field, value } => format!("{node} containerd {field} = {value}"),
        Evidence::Config { span } => span.to_string(),
        Evidence::None => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes written by `link("…"` (the diagnosis) and `finding("…"` (a node's
    /// containerd), read off their source.
    fn written_codes() -> Vec<&'static str> {
        let sources = [include_str!("../daemonset/diagnosis.rs"), include_str!("../daemonset/node_containerd.rs")];
        let mut codes: Vec<&str> = sources
            .iter()
            .flat_map(|s| s.split("link(").skip(1).chain(s.split("finding(").skip(1)))
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .collect();
        codes.sort_unstable();
        codes.dedup();
        codes
    }

    /// Every code the model writes has a sentence in both languages, each placeholder
    /// filled by an argument of that name.
    #[test]
    fn every_written_code_has_both_sentences() {
        let codes = written_codes();
        assert!(codes.len() >= 16, "{codes:?}");
        for code in codes {
            let (Some(en), Some(ko)) = (template(code, Lang::En), template(code, Lang::Ko)) else { panic!("{code}: a language lacks its sentence") };
            assert_ne!(en, ko, "{code}");
            for (lang, t) in [(Lang::En, en), (Lang::Ko, ko)] {
                let args: BTreeMap<String, String> =
                    t.split('{').skip(1).filter_map(|p| p.split_once('}')).map(|(n, _)| (n.to_string(), "V".to_string())).collect();
                let link = CauseLink { code: code.into(), args, evidence: Evidence::None };
                let text = link_text(&link, lang);
                assert!(!text.contains('{'), "{code}: {text}");
            }
        }
        let unknown = CauseLink { code: "new-code".into(), args: [("k".to_string(), "v".to_string())].into(), evidence: Evidence::None };
        assert_eq!(link_text(&unknown, Lang::Ko), "new-code");
    }
}
