//! The import panel's words (steps 6 and 8 on the learner's own cluster), each id
//! with its English and Korean. They live in the chunk, beside the panel, so the
//! app's first load carries none of them; `panel.js` asks for one language's
//! ([`json`]) and fills `{name}` placeholders itself. Upstream texts (kubectl, the
//! companion's output) are never here: the panel shows them as the model prints them.

use gpulab_model::Lang;

/// `(id, English, Korean)`.
pub const TEXTS: &[(&str, &str, &str)] = &[
    ("title", "Your own cluster", "내 클러스터에서 해 보기"),
    (
        "private",
        "Nothing leaves your browser: the dump is read and run on this page, in a background worker. It is not saved with your work and is not in the export or the share link; reloading the page forgets it.",
        "아무것도 브라우저 밖으로 나가지 않습니다. 덤프는 이 페이지 안의 백그라운드 워커에서 읽고 실행합니다. 작업 내용과 함께 저장되지 않고, 내보내기 파일이나 공유 링크에도 들어가지 않으며, 페이지를 새로 고치면 사라집니다.",
    ),
    (
        "how",
        "Dump it with kubectl get nodes,pods -A -o yaml > cluster.yaml (or -o json). Secrets and managedFields in it are skipped: never read, never shown.",
        "kubectl get nodes,pods -A -o yaml > cluster.yaml (또는 -o json)로 덤프하세요. 덤프 안의 Secret과 managedFields는 건너뜁니다. 읽지도, 보여 주지도 않습니다.",
    ),
    ("file", "Cluster file (YAML or JSON)", "클러스터 파일 (YAML 또는 JSON)"),
    ("drop", "…or drop the file on this box.", "…또는 파일을 이 상자에 끌어다 놓으세요."),
    ("dropped", "Chosen: {name} ({size} bytes)", "선택한 파일: {name} ({size}바이트)"),
    ("paste", "…or paste the dump", "…또는 덤프를 붙여 넣으세요"),
    (
        "pod",
        "Pod to try (YAML; RuntimeClasses it names may follow as more documents)",
        "시험할 Pod (YAML. Pod가 쓰는 RuntimeClass를 다음 문서로 덧붙여도 됩니다)",
    ),
    (
        "ds",
        "DaemonSet: the running one, then the updated one (two YAML documents)",
        "DaemonSet: 지금 실행 중인 것과 업데이트한 것 (YAML 문서 두 개)",
    ),
    ("version", "Kubernetes version", "Kubernetes 버전"),
    ("run6", "Schedule on my cluster", "내 클러스터에 스케줄하기"),
    ("run8", "Roll out on my cluster", "내 클러스터에 롤아웃하기"),
    ("cancel", "Cancel", "취소"),
    ("reading", "Reading the cluster: {done} of {total} objects", "클러스터를 읽는 중: 객체 {total}개 중 {done}개"),
    ("running", "Running the model…", "모델을 실행하는 중…"),
    ("cancelled", "Cancelled. Nothing was kept.", "취소했습니다. 아무것도 남기지 않았습니다."),
    ("done6", "{nodes} nodes and {pods} bound pods, answered in {ms} ms.", "노드 {nodes}대, 바인딩된 Pod {pods}개. {ms}ms 만에 답했습니다."),
    ("done8", "{nodes} nodes, answered in {ms} ms.", "노드 {nodes}대. {ms}ms 만에 답했습니다."),
    ("none", "Give a cluster first: pick, drop or paste a dump.", "먼저 클러스터를 주세요. 덤프 파일을 고르거나 끌어다 놓거나 붙여 넣으면 됩니다."),
    ("problems", "The model stops at these findings:", "모델이 다음 문제에서 멈췄습니다:"),
    ("failed", "The import failed: {details}", "가져오기에 실패했습니다: {details}"),
    ("same", "The same as:", "다음 명령과 같습니다:"),
    ("filter", "Show", "보기"),
    ("all", "all nodes ({n})", "모든 노드 ({n})"),
    ("feasible", "nodes that fit ({n})", "들어갈 수 있는 노드 ({n})"),
    ("by", "nodes rejected by {plugin} ({n})", "{plugin}이(가) 거부한 노드 ({n})"),
    ("caption", "Node × filter plugin, rows {from}–{to} of {n}", "노드 × 필터 플러그인, 전체 {n}행 중 {from}–{to}행"),
    ("prev", "Previous rows", "이전 행"),
    ("next", "Next rows", "다음 행"),
    ("full", "Full output, as the companion prints it", "전체 출력 (gpulab이 출력하는 그대로)"),
    (
        "dra",
        "This cluster or pod uses DRA (DeviceClasses, ResourceSlices, ResourceClaims): the page does not schedule an imported cluster with DRA yet; gpulab schedule -f does.",
        "이 클러스터나 Pod는 DRA(DeviceClass, ResourceSlice, ResourceClaim)를 씁니다. 가져온 클러스터의 DRA 스케줄링은 아직 이 페이지에서 하지 않습니다. gpulab schedule -f로 해 보세요.",
    ),
    (
        "inline",
        "No background worker here: the dump is read on the page's own thread, in slices.",
        "여기서는 백그라운드 워커를 쓸 수 없어 페이지의 스레드에서 조금씩 나누어 읽습니다.",
    ),
];

/// The text of `id` in `lang` (empty for an unknown id).
pub fn text(lang: Lang, id: &str) -> String {
    TEXTS
        .iter()
        .find(|(i, _, _)| *i == id)
        .map(|(_, en, ko)| match lang {
            Lang::En => *en,
            Lang::Ko => *ko,
        })
        .unwrap_or_default()
        .to_string()
}

/// Every text in `lang`, as a JSON object by id.
pub fn json(lang: Lang) -> serde_json::Value {
    serde_json::Value::Object(
        TEXTS
            .iter()
            .map(|(id, _, _)| ((*id).to_string(), text(lang, id).into()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id once, both languages written (the Korean in Hangul), the same
    /// placeholders in both, and the panel asks for exactly these ids.
    #[test]
    fn catalogue_is_complete_and_used() {
        let placeholders = |s: &str| {
            let mut v: Vec<String> = s
                .split('{')
                .skip(1)
                .filter_map(|p| p.split_once('}'))
                .map(|(n, _)| n.to_string())
                .collect();
            v.sort();
            v
        };
        let mut ids: Vec<&str> = TEXTS.iter().map(|(i, _, _)| *i).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TEXTS.len(), "an id twice");
        for (id, en, ko) in TEXTS {
            assert!(!en.is_empty() && !ko.is_empty(), "{id}");
            assert!(
                ko.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)),
                "{id}: Korean in Hangul"
            );
            assert_eq!(placeholders(en), placeholders(ko), "{id}");
        }
        // The panel names each id it shows as a string (`say("run6")`, or a status
        // id it keeps, `st.status = "reading"`); `dra` is worded here
        // (`import::schedule`).
        let panel = include_str!("panel.js");
        for id in ids.iter().filter(|i| **i != "dra") {
            assert!(
                panel.contains(&format!("\"{id}\"")),
                "the catalogue's {id:?} is not used by panel.js"
            );
        }
        for said in panel
            .split("say(\"")
            .skip(1)
            .filter_map(|s| s.split_once('"'))
            .map(|(id, _)| id)
        {
            assert!(
                ids.contains(&said),
                "panel.js says {said:?}, which the catalogue lacks"
            );
        }
        assert_eq!(json(Lang::Ko)["cancel"], "취소");
        assert_eq!(text(Lang::En, "nope"), "");
    }
}
