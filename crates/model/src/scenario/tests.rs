//! Scenario format, matching and engine tests.

use super::expect::glob;
use super::*;

const MAIN: &str = "version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"runc\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n    runtime_type = \"io.containerd.runc.v2\"\n";

fn reader(name: &str) -> Result<String, String> {
    match name {
        "config.toml" => Ok(MAIN.into()),
        "bad.toml" => Ok("[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  default_runtime_name = \"nvidia\"\n".into()),
        other => Err(format!("{other}: no such file")),
    }
}

fn parse_str(text: &str) -> Result<Scenario, Vec<crate::Diagnostic>> {
    parse("t", SCENARIO_FILE, text, &reader)
}

const OK: &str = r#"title = "t"
containerd = "2.0.11"
[[node]]
name = "n1"
files = { "/etc/containerd/config.toml" = "config.toml" }
[[step]]
name = "look"
do = "observe"
[step.expect.n1]
cri = "ok"
handlers = ["runc"]
[[step]]
name = "break"
do = "write-file"
node = "n1"
path = "/etc/containerd/conf.d/50.toml"
file = "bad.toml"
[step.expect.n1]
check = "restart-needed"
[[step]]
name = "restart"
do = "restart"
node = "n1"
[step.expect.n1]
cri = "error"
cri_error = "invalid plugin config: {{any}}"
"#;

/// A small scenario parses and every expectation holds on the model.
#[test]
fn small_scenario_runs_on_the_model() {
    let s = parse_str(OK).unwrap();
    let r = run_on_model(&s);
    assert!(r.passed(), "{r:#?}");
    assert_eq!(r.counts(), (5, 0, 0));
}

/// Each bad scenario is refused with its code at the line it is on.
#[test]
fn bad_scenarios_name_their_line() {
    let cases: &[(&str, &str, u32)] = &[
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"dance\"\n", "scenario-unknown-action", 5),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"observe\"\n[step.expect.n]\ncri = \"ok\"\ncolour = \"red\"\n", "scenario-unknown-field", 10),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"restart\"\nnode = \"m\"\n", "scenario-unknown-node", 5),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\nfiles = { \"/etc/x\" = \"missing.toml\" }\n[[step]]\nname = \"x\"\ndo = \"observe\"\n", "scenario-file-unreadable", 5),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"9.9\"\n[[step]]\nname = \"x\"\ndo = \"observe\"\n", "scenario-bad-version", 2),
        ("title = \"t\"\n[[node\n", "scenario-syntax", 2),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"observe\"\n[step.expect.\"pod/p\"]\ncri = \"ok\"\n", "scenario-bad-subject", 9),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"observe\"\n[step.expect.n]\ncri = { maybe = 1 }\n", "scenario-bad-expectation", 9),
        // DRA: a `dra_mig` that is neither a geometry nor `partitionable`, a
        // `dra-driver` flag that is not a boolean, the action without its node.
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\ngpu_model = \"NVIDIA H100 80GB HBM3\"\ndra_driver = true\ndra_mig = \"7x1g.5gb\"\n[[step]]\nname = \"x\"\ndo = \"observe\"\n", "scenario-bad-value", 2),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"dra-driver\"\nnode = \"n\"\nrunning = \"no\"\n", "scenario-wrong-type", 9),
        ("title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"dra-driver\"\nregistered = false\n", "scenario-missing-key", 5),
    ];
    for (text, code, line) in cases {
        let errs = parse_str(text).unwrap_err();
        let hit = errs.iter().find(|d| d.code == *code).unwrap_or_else(|| panic!("{code} not in {errs:#?}"));
        assert_eq!(hit.primary.as_ref().unwrap().line, *line, "{code}");
        assert_eq!(hit.primary.as_ref().unwrap().file, SCENARIO_FILE);
    }
}

/// The DRA keys parse into the node and the action; a node without them is as before.
#[test]
fn dra_keys_parse() {
    let text = "title = \"t\"\n[[node]]\nname = \"n\"\ncontainerd = \"1.6.20\"\ndra_driver = true\ndra_mig = \"partitionable\"\n[[node]]\nname = \"m\"\ncontainerd = \"1.6.20\"\n[[step]]\nname = \"x\"\ndo = \"dra-driver\"\nnode = \"n\"\nregistered = false\n";
    let s = parse_str(text).unwrap();
    assert!(s.nodes[0].dra_driver);
    assert_eq!(s.nodes[0].dra_mig.as_deref(), Some("partitionable"));
    assert!(!s.nodes[1].dra_driver);
    assert_eq!(s.nodes[1].dra_mig, None);
    assert_eq!(s.steps[0].action, Action::DraDriver { node: "n".into(), running: None, registered: Some(false) });
}

/// `{{any}}` matches any run of characters, anchored at both ends.
#[test]
fn any_placeholder() {
    let cases = [
        ("a{{any}}c", "abbbc", true),
        ("a{{any}}c", "ac", true),
        ("a{{any}}c", "abd", false),
        ("{{any}}", "", true),
        ("x{{any}}y{{any}}z", "x1y2z", true),
        ("x{{any}}y{{any}}z", "x1z", false),
        ("plain", "plain", true),
        ("ab{{any}}ba", "aba", false),
    ];
    for (p, t, want) in cases {
        assert_eq!(glob(p, t), want, "{p} vs {t}");
    }
}

/// `one_of` and `set` accept what they say and nothing else.
#[test]
fn one_of_and_set() {
    let one_of = Expected::OneOf(vec![Observed::Text("a".into()), Observed::Int(2)]);
    assert!(one_of.matches(&Observed::Text("a".into())));
    assert!(one_of.matches(&Observed::Int(2)));
    assert!(!one_of.matches(&Observed::Text("b".into())));
    let set = Expected::Set(vec!["x".into(), "y".into()]);
    assert!(set.matches(&Observed::List(vec!["y".into(), "x".into()])));
    assert!(!set.matches(&Observed::List(vec!["x".into()])));
}

/// A scenario of one GPU node with a pod bound to it, then `extra` steps.
fn gpu_scenario(extra: &str) -> String {
    format!(
        "title = \"t\"\ncontainerd = \"2.0.11\"\nmanifests = [\"node.yaml\", \"pod.yaml\"]\n[[node]]\nname = \"n1\"\ngpus = 1\ngpu_model = \"NVIDIA A100-SXM4-40GB\"\nfiles = {{ \"/etc/containerd/config.toml\" = \"config.toml\" }}\n{extra}"
    )
}

fn gpu_reader(name: &str) -> Result<String, String> {
    match name {
        "node.yaml" => Ok("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  capacity: {cpu: \"8\", memory: 32Gi, pods: \"110\"}\n  allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\"}\n".into()),
        "pod.yaml" => Ok("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      limits:\n        nvidia.com/gpu: 1\n".into()),
        other => reader(other),
    }
}

/// A setup the model cannot do fails with data: the manifests' findings keep their
/// code, arguments and file:line (the companion words them); JSON keeps a sentence a
/// string, as the record's field always was, and findings an array of diagnostics.
#[test]
fn setup_errors_stay_data() {
    let secret = |name: &str| match name {
        "node.yaml" => Ok("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n---\nkind: Secret\nmetadata: {name: s}\n".to_string()),
        other => gpu_reader(other),
    };
    let s = parse("t", SCENARIO_FILE, &gpu_scenario("[[step]]\nname = \"look\"\ndo = \"observe\"\n"), &secret).unwrap();
    let Some(BackendError::Findings(found)) = run_on_model(&s).setup_error else { panic!("no findings") };
    let found: Vec<_> = found.iter().map(|d| (d.code.as_str(), d.get("kind"), d.primary.as_ref().map(|p| (p.file.as_str(), p.line)))).collect();
    assert_eq!(found, [("k8s-kind-unknown", Some("Secret"), Some(("node.yaml", 6)))]);
    for (e, json) in [
        (BackendError::Message("no DaemonSet".into()), serde_json::json!("no DaemonSet")),
        (BackendError::Findings(vec![crate::Diagnostic::new("k8s-kind-missing", crate::Severity::Error)]), serde_json::json!([{"code": "k8s-kind-missing", "severity": "error"}])),
    ] {
        assert_eq!(serde_json::to_value(&e).unwrap(), json);
        assert_eq!(serde_json::from_value::<BackendError>(json).unwrap(), e);
    }
}

/// `delete` removes a pod (its GPU is free again) and refuses what does not exist or is
/// not modelled; `mig-geometry` fails while a GPU pod is bound and succeeds once it is
/// gone, and the plugin re-advertises the MIG devices under migStrategy none as one GPU.
#[test]
fn delete_and_mig_geometry() {
    let steps = "[[step]]\nname = \"busy\"\ndo = \"mig-geometry\"\nnode = \"n1\"\ngeometry = \"7x1g.5gb\"\n[step.expect.\"node/n1\"]\nmig_config_state = \"failed\"\n[step.expect.\"pod/p\"]\nnode_name = \"n1\"\n\
                 [[step]]\nname = \"evict\"\ndo = \"delete\"\nkind = \"pod\"\nobject = \"p\"\n\
                 [[step]]\nname = \"idle\"\ndo = \"mig-geometry\"\nnode = \"n1\"\ngeometry = \"7x1g.5gb\"\n[step.expect.\"node/n1\"]\nmig_config_state = \"success\"\ngpus = 1\n";
    let s = parse("t", SCENARIO_FILE, &gpu_scenario(steps), &gpu_reader).unwrap();
    let r = run_on_model(&s);
    assert!(r.passed(), "{r:#?}");
    assert_eq!(r.counts(), (4, 0, 0));
    let cases = [
        ("[[step]]\nname = \"x\"\ndo = \"delete\"\nkind = \"pod\"\nobject = \"nope\"\n", "delete pod nope: no such pod"),
        ("[[step]]\nname = \"x\"\ndo = \"delete\"\nkind = \"secret\"\nobject = \"s\"\n", "only pods and RuntimeClasses are modelled"),
    ];
    for (step, error) in cases {
        let s = parse("t", SCENARIO_FILE, &gpu_scenario(step), &gpu_reader).unwrap();
        let r = run_on_model(&s);
        assert!(matches!(&r.steps[0].error, Some(BackendError::Message(e)) if e.contains(error)), "{step}: {:?}", r.steps[0].error);
    }
    let bad = gpu_scenario("[[step]]\nname = \"x\"\ndo = \"mig-geometry\"\nnode = \"n1\"\ngeometry = \"1g.5gb:many\"\n");
    let errs = parse("t", SCENARIO_FILE, &bad, &gpu_reader).unwrap_err();
    assert_eq!((errs[0].code.as_str(), errs[0].primary.as_ref().unwrap().line), ("scenario-bad-value", 9));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text is a parse result or diagnostics, never a panic.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
            let _ = parse_str(&text);
        }

        /// Arbitrary lines spliced into a valid scenario never panic the parser or the run.
        #[test]
        fn spliced_scenarios_never_panic(line in "[a-z_\\.\\[\\]\"= 0-9{}-]{0,40}", at in 0usize..40) {
            let mut lines: Vec<&str> = OK.lines().collect();
            let at = at.min(lines.len());
            lines.insert(at, &line);
            if let Ok(s) = parse_str(&lines.join("\n")) {
                let _ = run_on_model(&s);
            }
        }
    }
}

/// The JSON Schema in docs/ names every field (with its domain) and every action.
#[test]
fn json_schema_is_in_step_with_the_code() {
    let schema: serde_json::Value = serde_json::from_str(include_str!("../../../../docs/scenario.schema.json")).unwrap();
    let fields = &schema["properties"]["step"]["items"]["properties"]["expect"]["additionalProperties"]["properties"];
    for f in Field::ALL {
        let doc = fields[f.name()]["description"].as_str().unwrap_or_else(|| panic!("{} missing", f.name()));
        let domain = match f.domain() {
            Domain::Containerd => "[containerd;",
            Domain::Kubernetes => "[kubernetes;",
        };
        assert!(doc.starts_with(domain), "{}: {doc}", f.name());
    }
    assert_eq!(fields.as_object().unwrap().len(), Field::ALL.len());
    let actions: Vec<&str> = schema["properties"]["step"]["items"]["properties"]["do"]["enum"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(actions, ACTIONS);
}
