//! The words of the Kubernetes area's findings — the manifest loader's (`k8s-*`) and
//! DRA's (`dra-*`) — in Korean and English, for the companion, the chunk and the
//! incident. Upstream texts ride verbatim inside them: a YAML syntax error reads as
//! `kubectl apply -f` prints it (`error parsing pod.yaml: error converting YAML to
//! JSON: yaml: line 2: did not find expected key`) in both languages, and the parser's,
//! the quantity parser's and the API server's words are the `message` argument.

use crate::diagnostic::Diagnostic;
use crate::Lang;

/// The template of `code` in `lang`: `{arg}` placeholders (`{file}` is the finding's
/// file), each Korean particle after one chosen by the value.
fn template(code: &str, lang: Lang) -> Option<&'static str> {
    use Lang::*;
    Some(match (code, lang) {
        // kubectl's own words, the same in both languages.
        ("k8s-yaml-invalid", _) => "error parsing {file}: error converting YAML to JSON: {message}",
        ("k8s-object-invalid", En) => "the document does not read as its kind's fields: {message}",
        ("k8s-object-invalid", Ko) => "문서가 그 kind의 필드로 읽히지 않습니다: {message}",
        ("k8s-quantity-invalid", En) => "{field}: \"{value}\" is not a quantity: {message}",
        ("k8s-quantity-invalid", Ko) => "{field}: \"{value}\"은(는) 수량이 아닙니다: {message}",
        ("k8s-kind-unknown", En) => "kind \"{kind}\" is not one the lab reads ({known})",
        ("k8s-kind-unknown", Ko) => "랩이 읽지 않는 kind입니다: \"{kind}\" (읽는 kind: {known})",
        ("k8s-kind-missing", En) => "the document has no kind",
        ("k8s-kind-missing", Ko) => "문서에 kind가 없습니다",
        ("k8s-not-an-object", En) => "the document is not an object (a mapping of fields)",
        ("k8s-not-an-object", Ko) => "문서가 오브젝트(필드의 매핑)가 아닙니다",
        ("dra-invalid", En) => "the API server refuses {kind} \"{name}\": {message}",
        ("dra-invalid", Ko) => "API 서버가 {kind} \"{name}\"을(를) 거부합니다: {message}",
        ("dra-cel-unsupported", En) => "{field}: the lab's CEL does not evaluate {construct} (column {column}); the API server's does",
        ("dra-cel-unsupported", Ko) => "{field}: 랩의 CEL은 {construct}을(를) 평가하지 않습니다(열 {column}). API 서버의 CEL은 평가합니다",
        ("dra-extended-resource-unmodelled", En) => "from Kubernetes 1.36 (here {version}) DRAExtendedResource is on: this pod has ResourceClaims of its own and asks for {resource}, which DeviceClass \"{deviceClass}\" backs and node {node} also advertises (a device plugin); the scheduler's claim on such a node is a path the model does not follow",
        ("dra-extended-resource-unmodelled", Ko) => "쿠버네티스 1.36부터(여기는 {version}) DRAExtendedResource가 켜져 있습니다. 이 파드는 자기 ResourceClaim이 있으면서 {resource}도 요청하는데, 이 리소스는 DeviceClass \"{deviceClass}\"가 뒷받침하고 노드 {node}도(디바이스 플러그인) 광고합니다. 그런 노드에서 스케줄러가 만드는 클레임은 모델이 따르지 않는 경로입니다",
        _ => return None,
    })
}

/// A finding of this area in `lang`; a code it does not know reads as
/// [`Diagnostic::uncatalogued`].
pub fn message(d: &Diagnostic, lang: Lang) -> String {
    let Some(t) = template(&d.code, lang) else { return d.uncatalogued() };
    let file = d.primary.as_ref().map(|s| s.file.as_str());
    crate::korean::fill(t, |k| if k == "file" { file } else { d.get(k) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Severity, Span};

    /// Every code the loader and DRA write (read off their source) has a sentence in
    /// both languages, with every placeholder filled from its arguments.
    #[test]
    fn every_code_is_worded_in_both_languages() {
        let sources = [include_str!("yaml.rs"), include_str!("dra/mod.rs"), include_str!("dra/printed.rs")];
        let mut codes: Vec<&str> = sources
            .iter()
            .flat_map(|s| ["\"k8s-", "\"dra-"].into_iter().flat_map(move |p| s.match_indices(p).map(move |(i, _)| &s[i + 1..])))
            .filter_map(|rest| rest.split('"').next())
            .filter(|l| l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert!(codes.len() >= 9, "{codes:?}");
        for code in codes {
            for lang in [Lang::En, Lang::Ko] {
                let t = template(code, lang).unwrap_or_else(|| panic!("{code} has no {lang:?} sentence"));
                let mut d = Diagnostic::new(code, Severity::Error).at(Span::new("f.yaml", 1, 1));
                for name in t.split('{').skip(1).filter_map(|p| p.split_once('}')).map(|(n, _)| n) {
                    d = d.arg(name, "V");
                }
                let m = message(&d, lang);
                assert!(!m.contains('{') && !m.contains('='), "{code} {lang:?}: {m}");
            }
            assert!(code == "k8s-yaml-invalid" || template(code, Lang::En) != template(code, Lang::Ko), "{code}: the Korean is the English");
        }
    }

    /// The words as each reads: kubectl's for syntax (in both languages), the lab's
    /// sentence around the upstream text otherwise; an unknown code is its own name.
    #[test]
    fn as_printed() {
        let at = Span::new("pod.yaml", 3, 1);
        let cases = [
            (
                Diagnostic::new("k8s-yaml-invalid", Severity::Error).arg("message", "yaml: line 724: did not find expected key").at(at.clone()),
                Lang::Ko,
                "error parsing pod.yaml: error converting YAML to JSON: yaml: line 724: did not find expected key",
            ),
            (
                Diagnostic::new("k8s-kind-unknown", Severity::Error).arg("kind", "Secret").arg("known", "Node, Pod").at(at.clone()),
                Lang::En,
                "kind \"Secret\" is not one the lab reads (Node, Pod)",
            ),
            (
                Diagnostic::new("k8s-quantity-invalid", Severity::Error).arg("field", "limits[nvidia.com/gpu]").arg("value", "one").arg("message", "m").at(at.clone()),
                Lang::Ko,
                "limits[nvidia.com/gpu]: \"one\"는 수량이 아닙니다: m",
            ),
            (Diagnostic::new("k8s-new-thing", Severity::Error).arg("message", "upstream words"), Lang::En, "k8s-new-thing: upstream words"),
        ];
        for (d, lang, want) in cases {
            assert_eq!(message(&d, lang), want);
        }
    }
}
