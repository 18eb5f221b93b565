//! The texts of the slot calculator's diagnostic codes, in Korean and English, for the CLI and
//! the app. The plugin's own words (its errors and warnings, in the `message` argument) stay
//! verbatim inside them.

use super::mig::GeometryError;
use crate::Lang;
use crate::diagnostic::Diagnostic;

/// The text of one diagnostic.
pub fn message(d: &Diagnostic, lang: Lang) -> String {
    let a = |k: &str| d.get(k).unwrap_or("").to_string();
    let ko = lang == Lang::Ko;
    let pick = |en: String, k: String| if ko { k } else { en };
    match d.code.as_str() {
        "nvidia-config-yaml" => pick(
            format!("not YAML; the device plugin exits: {}", a("message")),
            format!("YAML이 아닙니다. 디바이스 플러그인이 종료됩니다: {}", a("message")),
        ),
        "nvidia-config-invalid" => pick(
            format!("the device plugin refuses this config and exits: {}", a("message")),
            format!("디바이스 플러그인이 이 설정을 거부하고 종료합니다: {}", a("message")),
        ),
        "nvidia-config-unknown-key" => pick(
            format!("the device plugin ignores the key {:?} silently (a typo?)", a("key")),
            format!("디바이스 플러그인은 키 {:?} 를 조용히 무시합니다 (오타인가요?)", a("key")),
        ),
        "nvidia-config-duplicate-key" => pick(
            format!("the key {:?} appears twice; the device plugin keeps the last one", a("key")),
            format!("두 번 나오는 키: {:?}. 디바이스 플러그인은 마지막 값을 씁니다", a("key")),
        ),
        "nvidia-config-ignored" => pick(
            format!("parsed but ignored by v0.20.0: {}", a("message")),
            format!("v0.20.0은 읽기만 하고 무시합니다: {}", a("message")),
        ),
        "nvidia-configmap-invalid" => {
            pick(format!("not a ConfigMap: {}", a("message")), format!("ConfigMap이 아닙니다: {}", a("message")))
        }
        "nvidia-plugin-flags-invalid" => pick(
            format!("the device plugin exits: {}", a("message")),
            format!("디바이스 플러그인이 종료됩니다: {}", a("message")),
        ),
        "nvidia-plugin-mig-invalid" => pick(
            format!("the MIG layout does not suit the strategy; the device plugin exits: {}", a("message")),
            format!("MIG 구성이 전략과 맞지 않아 디바이스 플러그인이 종료됩니다: {}", a("message")),
        ),
        "nvidia-mig-device-empty" => pick(
            format!("a MIG-enabled GPU has no instances and serves nothing: {}", a("message")),
            format!("MIG가 켜진 GPU에 인스턴스가 없어 아무것도 제공하지 않습니다: {}", a("message")),
        ),
        "nvidia-replicas-overflow" => pick(
            format!(
                "{} devices × {} replicas of {} overflow a 64-bit count",
                a("devices"),
                a("replicas"),
                a("resource")
            ),
            format!(
                "{}의 장치 {}개 × 복제본 {}개가 64비트 범위를 넘습니다",
                a("resource"),
                a("devices"),
                a("replicas")
            ),
        ),
        "nvidia-replicas-huge" => pick(
            format!("{} devices of {} on one node: every one is listed to kubelet", a("count"), a("resource")),
            format!("한 노드에 {} 장치 {}개: 모두 kubelet에 하나씩 나열됩니다", a("resource"), a("count")),
        ),
        "nvidia-replicated-resource-absent" => pick(
            format!("{} has no device on this node; its sharing entry is skipped silently", a("resource")),
            format!("이 노드에 장치가 없는 리소스: {}. 그 공유 설정은 조용히 건너뜁니다", a("resource")),
        ),
        "nvidia-mps-mig" => pick(
            "MPS cannot share MIG devices; the device plugin exits".to_string(),
            "MPS는 MIG 장치를 공유할 수 없어 디바이스 플러그인이 종료됩니다".to_string(),
        ),
        "nvidia-mps-too-many-replicas" => pick(
            format!(
                "{} MPS replicas exceed the {} clients the GPU allows; the plugin advertises nothing and retries",
                a("replicas"),
                a("max")
            ),
            format!(
                "MPS 복제본 {}개가 GPU 허용 클라이언트 {}개를 넘습니다. 플러그인은 아무것도 알리지 않고 재시도합니다",
                a("replicas"),
                a("max")
            ),
        ),
        "nvidia-mps-limit-unknown" => pick(
            format!(
                "the compute capability of {} is unknown: the MPS client limit (16 or 48) is not checked",
                a("model")
            ),
            format!(
                "{}의 compute capability를 몰라 MPS 클라이언트 한도(16 또는 48)를 확인하지 않았습니다",
                a("model")
            ),
        ),
        "mig-reconfigure-requires-drain" => pick(
            format!("changing {} from {} to {} needs its GPU workloads drained first", a("node"), a("from"), a("to")),
            format!(
                "{}의 MIG 구성을 {}에서 {}{} 바꾸려면 먼저 GPU 워크로드를 비워야 합니다",
                a("node"),
                a("from"),
                a("to"),
                crate::korean::particle(&a("to"), "(으)로")
            ),
        ),
        "mig-reconfigure-cordon-drain" | "mig-reconfigure-label" | "mig-reconfigure-uncordon" => a("command"),
        "mig-reconfigure-paused" | "mig-reconfigure-state" => a("label"),
        // None the slot model writes (the test reads them off its source).
        _ => d.uncatalogued(),
    }
}

/// A geometry error in the language asked for (English is its `Display`).
pub fn geometry_error(e: &GeometryError, lang: Lang) -> String {
    if lang == Lang::En {
        return e.to_string();
    }
    match e {
        GeometryError::Empty => {
            "MIG 인스턴스가 없습니다. 인스턴스 없는 MIG GPU는 디바이스 플러그인이 거부합니다".into()
        }
        GeometryError::UnknownProfile { profile } => format!("이 GPU에 없는 프로파일: {profile}"),
        GeometryError::OverMaxCount { profile, count, max } => format!("{profile} {count}개: GPU당 최대 {max}개"),
        GeometryError::TooManyInstances { count, max } => format!("인스턴스 {count}개: GPU당 최대 {max}개"),
        GeometryError::ComputeSlices { used, total } => format!("컴퓨트 슬라이스 {used}개: GPU에는 {total}개"),
        GeometryError::MemorySlices { used, total } => format!("메모리 슬라이스 {used}개: GPU에는 {total}개"),
        GeometryError::NoPlacement => "배치할 수 없습니다: 인스턴스가 메모리 슬라이스에서 겹칩니다".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    /// Every code the slot calculator emits has a text in both languages that keeps the
    /// plugin's own words.
    #[test]
    fn texts_in_both_languages() {
        let d =
            Diagnostic::new("nvidia-config-invalid", Severity::Fatal).arg("message", "number of replicas must be >= 2");
        assert!(message(&d, Lang::En).ends_with("number of replicas must be >= 2"));
        assert!(message(&d, Lang::Ko).starts_with("디바이스 플러그인이"));
        // Every code the area writes: `Diagnostic::new("…"`, `error_diagnostic("…"`
        // and the MIG plan's `step("…"`, read off the source.
        let sources = [
            include_str!("allocate.rs"), include_str!("config.rs"), include_str!("config_map.rs"), include_str!("gpu.rs"),
            include_str!("mig.rs"), include_str!("mod.rs"), include_str!("node.rs"), include_str!("table.rs"),
            include_str!("version.rs"), include_str!("yaml.rs"),
        ];
        let mut codes: Vec<&str> = sources
            .iter()
            .flat_map(|s| ["Diagnostic::new(", "error_diagnostic(", "step("].into_iter().flat_map(move |call| s.split(call).skip(1)))
            .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert!(codes.len() >= 20, "{codes:?}");
        for code in codes {
            let d = Diagnostic::new(code, Severity::Info);
            // The plan's command and label steps are the upstream text itself.
            let d = d.arg("command", "kubectl cordon n").arg("label", "l=v");
            assert!(!message(&d, Lang::En).starts_with(code), "{code} has no English text");
            let upstream = code.starts_with("mig-reconfigure-") && code != "mig-reconfigure-requires-drain";
            assert!(upstream || message(&d, Lang::En) != message(&d, Lang::Ko), "{code} has no Korean text");
        }
        assert_eq!(message(&Diagnostic::new("nvidia-new", Severity::Info).arg("k", "v"), Lang::En), "nvidia-new");
        assert_eq!(geometry_error(&GeometryError::NoPlacement, Lang::En), GeometryError::NoPlacement.to_string());
    }
}
