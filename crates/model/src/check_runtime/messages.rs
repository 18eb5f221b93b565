//! The texts of every finding code and verdict, in Korean and English — the same words
//! `scripts/check-runtime.sh` prints (generated from its `message` and `verdict_text`
//! functions; the parity test compares them). Upstream texts inside arguments (containerd's
//! reasons) stay verbatim.

use super::{Finding, Verdict};
use crate::Lang;

/// The text of one finding.
pub fn message(f: &Finding, lang: Lang) -> String {
    let a = |k: &str| f.arg(k).to_string();
    match lang {
        Lang::Ko => ko(&f.code, &a),
        Lang::En => en(&f.code, &a),
    }
}

fn ko(code: &str, a: &dyn Fn(&str) -> String) -> String {
    match code {
        "daemon-answers" => format!("containerd가 {}에서 응답합니다", a("address")),
        "daemon-not-running" => format!("containerd가 실행 중이 아닙니다 ({}). SIGHUP은 설정을 다시 읽지 않고 containerd를 종료시킵니다. 재시작하세요", a("detail")),
        "daemon-permission-denied" => format!("{}에 접근 권한이 없습니다 ({}). root로 실행하세요", a("address"), a("detail")),
        "daemon-not-containerd" => format!("{}에서 containerd가 응답하지 않습니다: {}", a("address"), a("detail")),
        "cri-plugins-ok" => format!("CRI 플러그인 정상: {}", a("plugins")),
        "cri-plugin-error" => format!("CRI 플러그인 실패: {}. containerd가 밝힌 이유: {}", a("plugins"), a("reason")),
        "loaded-unavailable" => format!("로드된 CRI 설정을 읽을 수 없습니다 ({}): {}", a("source"), a("detail")),
        "loaded-unrecognised" => format!("{} 출력 형식을 인식할 수 없습니다", a("source")),
        "loaded-handler-missing" => format!("로드된 CRI 설정에 없는 핸들러: {} (로드된 런타임: {})", a("handler"), a("handlers")),
        "loaded-binary-missing" => format!("핸들러 {}의 런타임 바이너리가 없습니다: {}", a("handler"), a("binary")),
        "loaded-handler-ok" => format!("핸들러 {} 로드됨, 바이너리 {} 있음", a("handler"), a("binary")),
        "dump-failed" => format!("containerd config dump 실패 (다음 시작도 실패합니다): {}", a("detail")),
        "dump-empty" => "containerd config dump 출력이 비어 있습니다".to_string(),
        "dump-unrecognised" => format!("config dump 형식을 인식할 수 없습니다: {}", a("detail")),
        "dump-handler-missing" => format!("병합된 파일에 없는 핸들러: {} (런타임: {})", a("handler"), a("handlers")),
        "dump-default-undefined" => format!("병합된 파일의 default_runtime_name 값({})에 해당하는 런타임이 정의되어 있지 않습니다 (런타임: {}). 재시작하면 CRI 플러그인이 실패합니다", a("default"), a("handlers")),
        "dump-keep-lost" => format!("병합 후 메인 설정의 {} 설정이 사라졌습니다: {}. 드롭인이 CRI 테이블을 통째로 교체했습니다", a("runtime"), a("lost")),
        "files-ok" => format!("병합된 파일에 핸들러 {} 항목이 있고 {} 설정이 유지됩니다 (런타임: {})", a("handler"), a("runtime"), a("handlers")),
        "restart-needed" => format!("containerd 시작 후 파일이 바뀌었습니다: 재시작이 필요합니다 (SIGHUP 아님). 차이: {}", a("differences")),
        "loaded-matches-files" => "로드된 설정과 파일이 일치합니다".to_string(),
        "cannot-compare" => format!("로드된 설정이 없어 비교할 수 없습니다: {}", a("reason")),
        "skipped-daemon-down" => "건너뜀: containerd에 연결할 수 없습니다".to_string(),
        "skipped-no-dump" => "건너뜀: config dump를 사용할 수 없습니다".to_string(),
        other => other.to_string(),
    }
}

fn en(code: &str, a: &dyn Fn(&str) -> String) -> String {
    match code {
        "daemon-answers" => format!("containerd answers on {}", a("address")),
        "daemon-not-running" => format!("containerd is not running ({}). SIGHUP does not reload containerd, it terminates it: restart it", a("detail")),
        "daemon-permission-denied" => format!("permission denied on {} ({}): run as root", a("address"), a("detail")),
        "daemon-not-containerd" => format!("{} does not answer as containerd: {}", a("address"), a("detail")),
        "cri-plugins-ok" => format!("CRI plugins ok: {}", a("plugins")),
        "cri-plugin-error" => format!("CRI plugin not ok: {}. containerd says: {}", a("plugins"), a("reason")),
        "loaded-unavailable" => format!("cannot read the loaded CRI config ({}): {}", a("source"), a("detail")),
        "loaded-unrecognised" => format!("unrecognised output from {}", a("source")),
        "loaded-handler-missing" => format!("handler {} is not in the loaded CRI config (loaded runtimes: {})", a("handler"), a("handlers")),
        "loaded-binary-missing" => format!("runtime binary {} of handler {} does not exist", a("binary"), a("handler")),
        "loaded-handler-ok" => format!("handler {} is loaded, binary {} exists", a("handler"), a("binary")),
        "dump-failed" => format!("containerd config dump failed (the next start will fail too): {}", a("detail")),
        "dump-empty" => "containerd config dump printed nothing".to_string(),
        "dump-unrecognised" => format!("unrecognised config dump: {}", a("detail")),
        "dump-handler-missing" => format!("the merged files lack handler {} (runtimes: {})", a("handler"), a("handlers")),
        "dump-default-undefined" => format!("the merged files set default_runtime_name = {}, which is not defined (runtimes: {}): the CRI plugin will fail on the next start", a("default"), a("handlers")),
        "dump-keep-lost" => format!("the merged files lost the main config's {} settings: {}. A drop-in replaced the CRI table", a("runtime"), a("lost")),
        "files-ok" => format!("the merged files have {} and keep the {} settings (runtimes: {})", a("handler"), a("runtime"), a("handlers")),
        "restart-needed" => format!("files changed since containerd started: restart needed (restart, not SIGHUP). Differences: {}", a("differences")),
        "loaded-matches-files" => "the loaded config matches the files".to_string(),
        "cannot-compare" => format!("no loaded config to compare: {}", a("reason")),
        "skipped-daemon-down" => "skipped: containerd is not reachable".to_string(),
        "skipped-no-dump" => "skipped: no usable config dump".to_string(),
        other => other.to_string(),
    }
}

/// The verdict line.
pub fn verdict_text(verdict: Verdict, handler: &str, lang: Lang) -> String {
    match lang {
        Lang::Ko => match verdict {
            Verdict::Pass => format!("통과: containerd가 로드한 설정에 핸들러 {handler} 항목이 있고 파일과 일치합니다"),
            Verdict::CheckFailed => "실패: 위 검사를 확인하세요".to_string(),
            Verdict::RestartNeeded => "재시작 필요: 파일이 바뀌었지만 containerd는 이전 설정으로 실행 중입니다".to_string(),
            Verdict::NotReachable => "containerd에 연결할 수 없습니다".to_string(),
        },
        Lang::En => match verdict {
            Verdict::Pass => format!("PASS: containerd loaded {handler} and the files agree"),
            Verdict::CheckFailed => "FAIL: see the checks above".to_string(),
            Verdict::RestartNeeded => "RESTART NEEDED: the files changed, containerd still runs the old config".to_string(),
            Verdict::NotReachable => "containerd is not reachable".to_string(),
        },
    }
}

/// What a check looked at, as the script prints it under each finding.
pub fn looked_at(check: u8, address: &str, config: &str) -> String {
    match check {
        1 | 2 => format!("ctr --address {address} plugins ls"),
        3 => format!("crictl info / gpulab cri info ({address})"),
        4 => format!("containerd --config {config} config dump"),
        5 => format!("containerd --config {config} config dump vs live CRI status"),
        _ => String::new(),
    }
}

/// The check's short name (`daemon`, `cri-plugins`, `loaded`, `files`, `restart`).
pub fn check_name(check: u8) -> &'static str {
    match check {
        1 => "daemon",
        2 => "cri-plugins",
        3 => "loaded",
        4 => "files",
        5 => "restart",
        _ => "",
    }
}

/// The script's whole text output (without `--json`/`--quiet`), byte for byte.
pub fn render_text(report: &super::CheckReport, address: &str, config: &str, handler: &str, lang: Lang) -> String {
    use super::Status;
    let mut out = String::new();
    for f in &report.findings {
        let mark = match f.status {
            Status::Pass => "ok",
            Status::Fail => "FAIL",
            Status::Restart => "RESTART",
            Status::Skip => "skip",
        };
        out += &format!("[{mark}] {} {}: {}\n", f.check, check_name(f.check), message(f, lang));
        out += &format!("      {}\n", looked_at(f.check, address, config));
    }
    out += &verdict_text(report.verdict, handler, lang);
    out.push('\n');
    out
}
