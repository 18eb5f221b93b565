//! DRA read like the spec: each case is an input and what the API server (or
//! cel-go) says about it, upstream's text verbatim.

use k8s_openapi::api::resource::v1::Device;

use super::cel::{self, CelErrorKind};
use super::validation::{
    validate_device_class, validate_resource_claim, validate_resource_claim_template, validate_resource_slice,
};
use crate::kubernetes::yaml;

/// A file's DRA objects as the two entry points read them: [`yaml::load`], then [`super::read`].
fn load(file: &str, text: &str) -> (super::Objects, Vec<crate::diagnostic::Diagnostic>) {
    let (manifests, mut diags) = yaml::load(file, text);
    let (objects, typed) = super::read(&manifests);
    diags.extend(typed);
    (objects, diags)
}

/// The DeviceClasses kubernetes-sigs/dra-driver-nvidia-gpu installs (the GPU ones
/// from [`super::nvidia::device_classes`], the compute-domain ones here), and the
/// docs' and demos' selectors: all compile, and each gives the expected verdict on an
/// A100 as the driver publishes it (bare attribute names, in the driver's domain).
#[test]
fn upstream_selectors_evaluate_on_an_a100() {
    let cases: &[(&str, bool)] = &[
        ("device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == 'daemon'", false),
        ("device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == 'channel' && device.attributes['compute-domain.nvidia.com'].id == 0", false),
        ("device.driver == \"gpu.intel.com\"", false),
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", true),
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('80Gi')) >= 0", false),
        ("device.capacity['gpu.nvidia.com'].memory.isGreaterThan(quantity('16Gi'))", true),
        ("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA A100-SXM4-40GB'", true),
        ("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA A100')", true),
        ("device.attributes['gpu.nvidia.com'].productName.endsWith('40GB')", true),
        ("device.attributes['gpu.nvidia.com'].productName.lowerAscii().contains('a100')", true),
        ("device.attributes['gpu.nvidia.com'].productName.matches('^NVIDIA A100-(SXM|PCIE)4-[0-9]+GB$')", true),
        ("device.attributes['gpu.nvidia.com'].productName.matches('H100')", false),
        ("device.attributes['gpu.nvidia.com'].architecture == 'Ampere'", true),
        ("device.attributes['gpu.nvidia.com'].driverVersion.compareTo(semver('550.0.0')) >= 0", true),
        ("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('560.0.0'))", false),
        ("device.attributes['gpu.nvidia.com'].cudaComputeCapability.isLessThan(semver('9.0.0'))", true),
        ("isSemver('1.2')", false),
        ("isSemver('v1.2', true)", true),
        ("device.attributes['gpu.nvidia.com'].index in [0, 1]", true),
        ("device.attributes['gpu.nvidia.com'].index < 4 && !(device.attributes['gpu.nvidia.com'].index > 2)", true),
        ("'productName' in device.attributes['gpu.nvidia.com']", true),
        ("has(device.attributes['gpu.nvidia.com'].profile)", false),
        ("cel.bind(g, device.attributes['gpu.nvidia.com'], g.type == 'gpu' && g.index == 0)", true),
        ("device.attributes['gpu.nvidia.com'].profile == '1g.5gb' && false", false),
        ("device.attributes['gpu.nvidia.com'].type == 'mig' || device.attributes['gpu.nvidia.com'].type == 'gpu'", true),
        ("['gpu', 'mig'].exists(t, device.attributes['gpu.nvidia.com'].type == t)", true),
        ("device.allowMultipleAllocations", false),
    ];
    let device = a100();
    let classes = super::nvidia::device_classes();
    let class_cases: Vec<(String, bool)> = classes
        .iter()
        .filter_map(|c| c.spec.selectors.as_ref()?.first()?.cel.as_ref().map(|s| s.expression.clone()))
        .zip([true, false])
        .collect();
    assert_eq!(class_cases.len(), 2);
    let cases = class_cases.iter().map(|(e, w)| (e.as_str(), *w)).chain(cases.iter().copied());
    for (expr, want) in cases {
        let sel = cel::compile(expr).unwrap_or_else(|e| panic!("{expr}: {}", e.detail));
        assert_eq!(sel.matches("gpu.nvidia.com", &device), Ok(want), "{expr}");
    }
}

/// A missing attribute is cel-go's run-time error (an unknown domain is an empty
/// map, so the error is the same), unless another operand decides the result.
#[test]
fn missing_attributes_are_runtime_errors() {
    let cases = [
        ("device.attributes['gpu.nvidia.com'].profile == '1g.5gb'", "no such key: profile"),
        ("device.attributes['mig.example.com'].profile == '1g.5gb'", "no such key: profile"),
        ("device.capacity['gpu.nvidia.com'].cores.compareTo(quantity('1')) > 0", "no such key: cores"),
        ("quantity('lots').isGreaterThan(quantity('1'))", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("semver('1.2') == semver('1.2.0')", "No Major.Minor.Patch elements found"),
    ];
    for (expr, want) in cases {
        let sel = cel::compile(expr).unwrap_or_else(|e| panic!("{expr}: {}", e.detail));
        assert_eq!(sel.matches("gpu.nvidia.com", &a100()), Err(want.to_string()), "{expr}");
    }
}

/// Compile errors carry cel-go's `issues.String()`, column included.
#[test]
fn compile_errors_read_as_cel_go_prints_them() {
    let cases = [
        (
            "device.capacity['gpu.nvidia.com'].memory >= quantity('18Gi')",
            "compilation failed: ERROR: <input>:1:42: found no matching overload for '_>=_' applied to '(kubernetes.Quantity, kubernetes.Quantity)'\n | device.capacity['gpu.nvidia.com'].memory >= quantity('18Gi')\n | .........................................^",
        ),
        ("device.driver", "must evaluate to bool or the unknown type, not string"),
        (
            "gpu.type == 'gpu'",
            "compilation failed: ERROR: <input>:1:1: undeclared reference to 'gpu' (in container '')\n | gpu.type == 'gpu'\n | ^",
        ),
        (
            "device.drivr == 'x'",
            "compilation failed: ERROR: <input>:1:7: undefined field 'drivr'\n | device.drivr == 'x'\n | ......^",
        ),
        (
            "device.driver == 1",
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'\n | device.driver == 1\n | ..............^",
        ),
        (
            "device.driver ==",
            "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | device.driver ==\n | ................^",
        ),
        (
            "device.driver == 'a' )",
            "compilation failed: ERROR: <input>:1:22: Syntax error: extraneous input ')' expecting <EOF>\n | device.driver == 'a' )\n | .....................^",
        ),
    ];
    for (expr, want) in cases {
        let err = cel::compile(expr).err().unwrap_or_else(|| panic!("{expr} compiled"));
        assert_eq!(err.detail, want, "{expr}");
    }
}

/// Real CEL has it, the lab does not: the error says so and names the column.
#[test]
fn unsupported_constructs_are_named_with_their_column() {
    let cases = [
        ("device.attributes['d'].models.map(m, m == 'x')", "the `map` macro", 34),
        ("device.driver.split('.').size() == 3", "the method `split`", 20),
        ("b'abc' == b'abc'", "bytes literals", 1),
        ("device.?driver == 'x'", "optional field selection `.?`", 7),
        ("timestamp('2024-01-01T00:00:00Z') != null", "the function `timestamp`", 10),
    ];
    for (expr, construct, column) in cases {
        let err = cel::compile(expr).err().unwrap_or_else(|| panic!("{expr} compiled"));
        assert_eq!((err.error.kind, err.error.message.as_str(), err.error.column), (CelErrorKind::Unsupported, construct, column), "{expr}");
    }
}

/// Hostile input never overflows the stack: deep nesting is refused, long flat
/// chains are fine, runs of `!` collapse as cel-go collapses them.
#[test]
fn hostile_selectors_do_not_overflow_the_stack() {
    let deep = format!("{}true{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = cel::compile(&deep).err().map(|e| e.error.kind);
    assert_eq!(e, Some(CelErrorKind::Unsupported));
    let sum = format!("1{} == 1", " + 1".repeat(5_000));
    assert_eq!(cel::compile(&sum).err().map(|e| e.error.kind), Some(CelErrorKind::Unsupported));
    let list = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    assert_eq!(cel::compile(&list).err().map(|e| e.error.kind), Some(CelErrorKind::Unsupported));
    let and = vec!["device.driver == 'gpu.nvidia.com'"; 300].join(" && ");
    let sel = cel::compile(&and).unwrap_or_else(|e| panic!("{}", e.detail));
    assert_eq!(sel.matches("gpu.nvidia.com", &a100()), Ok(true));
    let nots = format!("{}true", "!".repeat(10_001));
    assert_eq!(cel::compile(&nots).map(|s| s.matches("d", &a100())).ok(), Some(Ok(false)));
    let regex = format!("device.driver.matches('{}a{}')", "(".repeat(5_000), ")".repeat(5_000));
    let sel = cel::compile(&regex).unwrap_or_else(|e| panic!("{}", e.detail));
    assert!(sel.matches("d", &a100()).is_err());
}

/// `validateDeviceRequest` and friends on a ResourceClaim: one case per rule, the
/// API server's message for it.
#[test]
fn resource_claims_are_validated_as_the_api_server_does() {
    let req = |body: &str| format!("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n    requests:\n{body}");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (req("    - name: gpu\n      exactly:\n        deviceClassName: gpu.nvidia.com\n"), vec![]),
        (req("    - name: gpu\n"), vec!["spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: a}\n      firstAvailable: [{name: b, deviceClassName: b}]\n"),
            vec!["spec.devices.requests[0]: Invalid value: \"null\": exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"],
        ),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com, allocationMode: All, count: 2}\n"),
            vec!["spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"],
        ),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com, count: -1}\n"),
            vec!["spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"],
        ),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: gpu.nvidia.com, allocationMode: Some}\n"),
            vec!["spec.devices.requests[0].exactly.allocationMode: Unsupported value: \"Some\": supported values: \"All\", \"ExactCount\""],
        ),
        (
            req("    - name: GPU\n      exactly: {deviceClassName: gpu.nvidia.com}\n"),
            vec!["spec.devices.requests[0].name: Invalid value: \"GPU\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
        ),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: \"\"}\n"),
            vec!["spec.devices.requests[0].exactly.deviceClassName: Required value"],
        ),
        (
            req("    - name: gpu\n      exactly: {deviceClassName: a}\n    - name: gpu\n      exactly: {deviceClassName: a}\n"),
            vec!["spec.devices.requests[1]: Duplicate value: \"gpu\""],
        ),
        (
            req("    - name: gpu\n      exactly:\n        deviceClassName: a\n        selectors:\n        - cel: {expression: 'device.driver == 1'}\n"),
            vec!["spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: \"device.driver == 1\": compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(string, int)'\n | device.driver == 1\n | ..............^"],
        ),
        (
            req("    - name: gpu\n      exactly:\n        deviceClassName: a\n        selectors:\n        - {}\n"),
            vec!["spec.devices.requests[0].exactly.selectors[0].cel: Required value"],
        ),
        (
            req(&format!("    - name: gpu\n      exactly:\n        deviceClassName: a\n        selectors:\n{}", "        - cel: {expression: 'true'}\n".repeat(33))),
            vec!["spec.devices.requests[0].exactly.selectors: Too many: 33: must have at most 32 items"],
        ),
        (
            req(&format!("    - name: gpu\n      firstAvailable:\n{}", (0..9).map(|i| format!("      - {{name: s{i}, deviceClassName: a}}\n")).collect::<String>())),
            vec!["spec.devices.requests[0].firstAvailable: Too many: 9: must have at most 8 items"],
        ),
        (
            req("    - name: gpu\n      firstAvailable:\n      - {name: big, deviceClassName: a}\n      - {name: big, deviceClassName: a, allocationMode: All}\n"),
            vec!["spec.devices.requests[0].firstAvailable[1]: Duplicate value: \"big\""],
        ),
        (
            format!("{}    constraints:\n    - requests: [gpu, cpu]\n      matchAttribute: gpu.nvidia.com/productName\n    - requests: [gpu]\n", req("    - name: gpu\n      exactly: {deviceClassName: a}\n")),
            vec![
                "spec.devices.constraints[0].requests[1]: Invalid value: \"cpu\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                "spec.devices.constraints[1].matchAttribute: Required value",
            ],
        ),
        (
            format!("{}    constraints:\n    - matchAttribute: productName\n", req("    - name: gpu\n      exactly: {deviceClassName: a}\n")),
            vec!["spec.devices.constraints[0].matchAttribute: Invalid value: \"productName\": a fully qualified name must be a domain and a name separated by a slash"],
        ),
        (
            format!("{}    config:\n    - requests: [gpu]\n      opaque: {{driver: gpu.nvidia.com, parameters: [1]}}\n", req("    - name: gpu\n      exactly: {deviceClassName: a}\n")),
            vec!["spec.devices.config[0].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object"],
        ),
    ];
    for (text, want) in cases {
        let (m, diags) = load("claim.yaml", &text);
        assert!(diags.is_empty(), "{text}\n{diags:?}");
        let claim = &m.resource_claims.first().unwrap_or_else(|| panic!("no claim in {text}")).object;
        let got: Vec<String> = validate_resource_claim(claim).errors.iter().map(ToString::to_string).collect();
        assert_eq!(got, want, "{text}");
    }
}

/// A template's claim spec sits one level deeper: so do its field paths.
#[test]
fn resource_claim_templates_validate_under_spec_spec() {
    let text = "kind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n";
    let (m, _) = load("t.yaml", text);
    let t = &m.resource_claim_templates.first().unwrap_or_else(|| panic!("no template")).object;
    let got: Vec<String> = validate_resource_claim_template(t).errors.iter().map(ToString::to_string).collect();
    assert_eq!(got, ["spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]);
}

/// `ValidateDeviceClass`: the driver's own classes pass; the rules each fail once.
#[test]
fn device_classes_are_validated_as_the_api_server_does() {
    let class = |spec: &str| format!("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.nvidia.com\nspec:\n{spec}");
    let cases: Vec<(String, Vec<&str>)> = vec![
        (class("  selectors:\n  - cel:\n      expression: \"device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'\"\n  extendedResourceName: nvidia.com/gpu\n"), vec![]),
        (class("  extendedResourceName: gpu\n"), vec!["spec.extendedResourceName: Invalid value: \"gpu\": must be a valid extended resource name"]),
        (class("  config:\n  - {}\n"), vec!["spec.config[0].opaque: Required value"]),
        (class("  config:\n  - opaque: {driver: '', parameters: {a: 1}}\n"), vec!["spec.config[0].opaque.driver: Required value"]),
        (
            class("  selectors:\n  - cel: {expression: 'device.attributes[\"gpu.nvidia.com\"].productName'}\n"),
            vec![],
        ),
    ];
    for (text, want) in cases {
        let (m, diags) = load("class.yaml", &text);
        assert!(diags.is_empty(), "{text}\n{diags:?}");
        let c = &m.device_classes.first().unwrap_or_else(|| panic!("no class in {text}")).object;
        let got: Vec<String> = validate_device_class(c).errors.iter().map(ToString::to_string).collect();
        assert_eq!(got, want, "{text}");
    }
}

/// `ValidateResourceSlice`: the node-selection union, pool, device names, keys and
/// values, and the per-slice device limit.
#[test]
fn resource_slices_are_validated_as_the_api_server_does() {
    let slice = |spec: &str| format!("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: node-1-gpu\nspec:\n  driver: gpu.nvidia.com\n  pool: {{name: node-1, generation: 1, resourceSliceCount: 1}}\n{spec}");
    let devices = |n: usize| (0..n).map(|i| format!("  - name: gpu-{i}\n")).collect::<String>();
    let cases: Vec<(String, Vec<&str>)> = vec![
        (slice("  nodeName: node-1\n  devices:\n  - name: gpu-0\n    attributes:\n      productName: {string: NVIDIA A100-SXM4-40GB}\n      driverVersion: {version: 550.54.15}\n    capacity:\n      memory: {value: 40Gi}\n"), vec![]),
        (slice(""), vec!["spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"]),
        (
            slice("  nodeName: node-1\n  allNodes: true\n"),
            vec!["spec: Invalid value: \"{`nodeName`, `allNodes`}\": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set"],
        ),
        (slice("  allNodes: true\n  devices:\n  - name: gpu-0\n  - name: gpu-0\n"), vec!["spec.devices[1]: Duplicate value: \"gpu-0\""]),
        (format!("{}  devices:\n{}", slice("  allNodes: true\n"), devices(129)), vec!["spec.devices: Too many: 129: must have at most 128 items"]),
        (
            slice("  allNodes: true\n  devices:\n  - name: gpu-0\n    attributes:\n      1bad: {int: 1}\n"),
            vec!["spec.devices[0].attributes: Invalid value: \"1bad\": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"],
        ),
        (
            slice("  allNodes: true\n  devices:\n  - name: gpu-0\n    attributes:\n      driverVersion: {version: '550.54'}\n"),
            vec!["spec.devices[0].attributes[driverVersion].version: Invalid value: \"550.54\": must be a string compatible with semver.org spec 2.0.0"],
        ),
        (
            slice("  allNodes: true\n  devices:\n  - name: gpu-0\n    attributes:\n      index: {}\n"),
            vec!["spec.devices[0].attributes[index]: Invalid value: \"\": exactly one value must be specified"],
        ),
        (
            slice("  allNodes: true\n  sharedCounters: [{name: gpu-0-counters, counters: {memory: {value: 40Gi}}}]\n  devices: []\n"),
            vec!["spec: Invalid value: \"\": only one of `sharedCounters` or `devices` is allowed"],
        ),
        // Counter names are DNS labels, reported at the map's path: the real v1.37.2
        // API server refused the lab's first partitionable slices (`memorySlice0`).
        (
            slice("  nodeName: node-1
  sharedCounters: [{name: gpu-0-counter-set, counters: {memorySlice0: {value: '1'}}}]
"),
            vec!["spec.sharedCounters[0].counters: Invalid value: \"memorySlice0\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
        ),
        (
            slice("  nodeName: node-1
  devices:
  - name: gpu-0
    consumesCounters: [{counterSet: Gpu0, counters: {}}]
"),
            vec![
                "spec.devices[0].consumesCounters[0].counterSet: Invalid value: \"Gpu0\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
                "spec.devices[0].consumesCounters[0].counters: Required value",
            ],
        ),
    ];
    for (text, want) in cases {
        let (m, diags) = load("slice.yaml", &text);
        assert!(diags.is_empty(), "{text}\n{diags:?}");
        let s = &m.resource_slices.first().unwrap_or_else(|| panic!("no slice in {text}")).object;
        let got: Vec<String> = validate_resource_slice(s).errors.iter().map(ToString::to_string).collect();
        assert_eq!(got, want, "{text}");
    }
    let zero = "kind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: gpu.nvidia.com\n  allNodes: true\n  pool: {name: p, generation: 0, resourceSliceCount: 0}\n";
    let (m, _) = load("s.yaml", zero);
    let got: Vec<String> = m.resource_slices.iter().flat_map(|s| validate_resource_slice(&s.object).errors).map(|e| e.to_string()).collect();
    assert_eq!(got, ["spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero"]);
}

/// From a real multi-document file to diagnostics at the field's line: a type error
/// from the loader, a bad selector at its `expression:` line, an unsupported one as
/// a warning naming the construct.
#[test]
fn diagnostics_point_at_the_line() {
    let text = "\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.nvidia.com
spec:
  selectors:
  - cel:
      expression: \"device.driver == 'gpu.nvidia.com'\"
  - cel:
      expression: device.attributes['gpu.nvidia.com'].type = 'gpu'
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: t
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.nvidia.com
      - name: mig
        exactly:
          deviceClassName: mig.nvidia.com
          selectors:
          - cel:
              expression: device.attributes['gpu.nvidia.com'].profile.split('.').size() == 2
---
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.nvidia.com
  pool: {name: p, generation: 0, resourceSliceCount: oops}
";
    let (m, diags) = load("dra.yaml", text);
    let loaded: Vec<(&str, Option<u32>)> = diags.iter().map(|d| (d.code.as_str(), d.primary.as_ref().map(|s| s.line))).collect();
    assert_eq!(loaded, [("k8s-object-invalid", Some(34))]);
    let found = super::diagnose(&m);
    let got: Vec<(&str, u32, String)> = found
        .iter()
        .map(|d| {
            let line = d.primary.as_ref().map_or(0, |s| s.line);
            let what = d.args.iter().find(|(k, _)| k == "message" || k == "construct").map(|(_, v)| v.clone()).unwrap_or_default();
            (d.code.as_str(), line, what.lines().next().unwrap_or_default().to_string())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("dra-invalid", 10, "spec.selectors[1].cel.expression: Invalid value: \"device.attributes['gpu.nvidia.com'].type = 'gpu'\": compilation failed: ERROR: <input>:1:42: Syntax error: token recognition error at: '= '".to_string()),
            ("dra-cel-unsupported", 28, "the method `split`".to_string()),
        ]
    );
}

fn a100() -> Device {
    let yaml = "name: gpu-0
attributes:
  type: {string: gpu}
  index: {int: 0}
  productName: {string: NVIDIA A100-SXM4-40GB}
  architecture: {string: Ampere}
  driverVersion: {version: 550.54.15}
  cudaComputeCapability: {version: 8.0.0}
capacity:
  memory: {value: 40Gi}
";
    serde_norway::from_str(yaml).unwrap_or_else(|e| panic!("{e}"))
}

/// The one extended-resource case refused before scheduling: from 1.36 (the gate on),
/// a pod with ResourceClaims of its own asking for a resource a DeviceClass backs —
/// by `extendedResourceName` or by the implicit
/// `deviceclass.resource.kubernetes.io/<name>` — that some node also advertises; at
/// the class, naming the node. Without own claims, with the gate off, with no node
/// advertising it, or for an unbacked resource: nothing refused.
#[test]
fn extended_resource_with_own_claims_on_a_device_plugin_node_is_refused_from_1_36() {
    use super::printed::extended_resource_unmodelled;
    use crate::kubernetes::KubeVersion;
    let classes = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.nvidia.com\nspec:\n  extendedResourceName: nvidia.com/gpu\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: fpga\nspec: {}\n";
    let (objects, diags) = load("classes.yaml", classes);
    assert!(diags.is_empty(), "{diags:?}");
    let pod = |resource: &str, claims: bool| {
        let own = if claims { "  resourceClaims: [{name: x, resourceClaimName: x}]\n" } else { "" };
        let text = format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{own}  containers:\n  - name: c\n    image: i\n    resources:\n      limits:\n        {resource}: 1\n");
        let (m, d) = yaml::load("pod.yaml", &text);
        assert!(d.is_empty(), "{d:?}");
        m.pods.into_iter().next().map(|l| l.object).unwrap_or_else(|| panic!("no pod"))
    };
    let node = |resource: &str| {
        let text = format!("apiVersion: v1\nkind: Node\nmetadata: {{name: gpu-node}}\nstatus: {{allocatable: {{pods: \"110\", {resource}: \"4\"}}}}\n");
        let (m, d) = yaml::load("nodes.yaml", &text);
        assert!(d.is_empty(), "{d:?}");
        m.nodes.into_iter().map(|l| l.object).collect::<Vec<_>>()
    };
    let cases = [
        ("nvidia.com/gpu", true, "nvidia.com/gpu", KubeVersion::V1_35, None),
        ("nvidia.com/gpu", false, "nvidia.com/gpu", KubeVersion::V1_36, None),
        ("nvidia.com/gpu", true, "example.com/other", KubeVersion::V1_36, None),
        ("nvidia.com/gpu", true, "nvidia.com/gpu", KubeVersion::V1_36, Some(("classes.yaml:1:1", "gpu.nvidia.com"))),
        ("nvidia.com/gpu", true, "nvidia.com/gpu", KubeVersion::V1_37, Some(("classes.yaml:1:1", "gpu.nvidia.com"))),
        ("deviceclass.resource.kubernetes.io/fpga", true, "deviceclass.resource.kubernetes.io/fpga", KubeVersion::V1_36, Some(("classes.yaml:8:1", "fpga"))),
        ("example.com/other", true, "example.com/other", KubeVersion::V1_37, None),
    ];
    for (resource, claims, advertised, version, want) in cases {
        let got = extended_resource_unmodelled(&objects.device_classes, &node(advertised), &pod(resource, claims), version);
        let got: Vec<(String, String)> =
            got.iter().map(|d| (d.primary.as_ref().map(ToString::to_string).unwrap_or_default(), d.get("deviceClass").unwrap_or("").to_string())).collect();
        let want: Vec<(String, String)> = want.into_iter().map(|(at, class)| (at.to_string(), class.to_string())).collect();
        assert_eq!(got, want, "{resource} {version}");
    }
}
