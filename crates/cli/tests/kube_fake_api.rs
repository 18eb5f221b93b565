//! The kube backend against a loopback fake API server (a small std `TcpListener`
//! HTTP/1.1 server keeping objects in memory): `gpulab scenario replay --backend kube`
//! refuses a non-lab context before sending anything, creates its namespace and labelled
//! objects, and removes everything it created on success, on a failed setup and on
//! Ctrl-C (SIGINT) — while objects it did not create are left alone.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;

const RUN_LABEL: &str = "gpulab.dev/run";

#[derive(Default)]
struct State {
    objects: BTreeMap<String, Value>,
    log: Vec<(String, String)>,
    rv: u64,
    /// A stand-in scheduler: new pods are bound to this node.
    bind_pods_to: Option<String>,
}

type Shared = Arc<Mutex<State>>;

fn status(code: u16, reason: &str, message: &str) -> (u16, Value) {
    (code, json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}))
}

fn merge(into: &mut Value, patch: &Value) {
    match (into, patch) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

fn json_patch(obj: &mut Value, ops: &Value) {
    for op in ops.as_array().into_iter().flatten() {
        let path: Vec<String> = op["path"].as_str().unwrap_or("").split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
        let (last, parents) = path.split_last().unwrap();
        let mut cur = &mut *obj;
        for p in parents {
            cur = cur.as_object_mut().unwrap().entry(p.clone()).or_insert(json!({}));
        }
        match op["op"].as_str() {
            Some("add") => {
                cur[last.as_str()] = op["value"].clone();
            }
            _ => {
                cur.as_object_mut().unwrap().remove(last);
            }
        }
    }
}

fn children<'a>(s: &'a State, collection: &str) -> Vec<&'a String> {
    s.objects.keys().filter(|k| k.strip_prefix(collection).and_then(|r| r.strip_prefix('/')).is_some_and(|r| !r.contains('/'))).collect()
}

fn handle(state: &Shared, method: &str, uri: &str, content_type: &str, body: &[u8]) -> (u16, Value) {
    let mut s = state.lock().unwrap();
    s.log.push((method.to_string(), uri.to_string()));
    let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
    let query: BTreeMap<String, String> = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.replace("%3D", "=").replace("%2C", ",").replace("%2F", "/")))
        .collect();
    let body: Value = if body.is_empty() { Value::Null } else { serde_json::from_slice(body).unwrap_or(Value::Null) };
    s.rv += 1;
    let rv = s.rv.to_string();
    match method {
        "POST" => {
            let name = body["metadata"]["name"].as_str().unwrap_or("").to_string();
            let key = format!("{path}/{name}");
            if s.objects.contains_key(&key) {
                return status(409, "AlreadyExists", &format!("{name} already exists"));
            }
            let mut obj = body.clone();
            obj["metadata"]["uid"] = json!(format!("uid-{rv}"));
            obj["metadata"]["resourceVersion"] = json!(rv);
            s.objects.insert(key, obj.clone());
            (201, obj)
        }
        "PATCH" => {
            let (key, sub) = match path.strip_suffix("/status") {
                Some(k) => (k.to_string(), true),
                None => (path.to_string(), false),
            };
            let exists = s.objects.contains_key(&key);
            if sub && !exists {
                return status(404, "NotFound", &format!("{key} not found"));
            }
            let bind = s.bind_pods_to.clone().filter(|_| !exists && key.contains("/pods/"));
            let obj = s.objects.entry(key).or_insert_with(|| json!({"metadata": {"uid": format!("uid-{rv}")}}));
            if content_type.starts_with("application/json-patch") {
                json_patch(obj, &body);
            } else {
                merge(obj, &body);
            }
            if let Some(node) = bind {
                obj["spec"]["nodeName"] = json!(node);
            }
            obj["metadata"]["resourceVersion"] = json!(rv);
            (if exists { 200 } else { 201 }, obj.clone())
        }
        "GET" => {
            if let Some(o) = s.objects.get(path) {
                return (200, o.clone());
            }
            let plural = path.rsplit('/').next().unwrap_or("");
            if matches!(plural, "pods" | "events" | "nodes" | "runtimeclasses") {
                let want = query.get("fieldSelector").and_then(|f| f.split(',').find_map(|c| c.strip_prefix("involvedObject.name=")).map(str::to_string));
                let items: Vec<Value> = children(&s, path)
                    .into_iter()
                    .map(|k| s.objects[k].clone())
                    .filter(|o| want.as_ref().is_none_or(|w| o["involvedObject"]["name"].as_str() == Some(w)))
                    .collect();
                return (200, json!({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": items}));
            }
            status(404, "NotFound", &format!("{path} not found"))
        }
        "DELETE" => {
            if let Some(sel) = query.get("labelSelector") {
                let (k, v) = sel.split_once('=').unwrap();
                let gone: Vec<String> = children(&s, path).into_iter().filter(|key| s.objects[*key]["metadata"]["labels"][k].as_str() == Some(v)).cloned().collect();
                for g in &gone {
                    s.objects.remove(g);
                }
                return (200, json!({"kind": "List", "apiVersion": "v1", "metadata": {}, "items": []}));
            }
            match s.objects.remove(path) {
                Some(o) => {
                    if let Some(ns) = path.strip_prefix("/api/v1/namespaces/") {
                        let inside = format!("/namespaces/{ns}/");
                        s.objects.retain(|k, _| !k.contains(&inside));
                    }
                    (200, o)
                }
                None => status(404, "NotFound", &format!("{path} not found")),
            }
        }
        _ => status(405, "MethodNotAllowed", method),
    }
}

fn serve_connection(state: Shared, stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, uri) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
        let mut headers = BTreeMap::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let mut body = Vec::new();
        if let Some(n) = headers.get("content-length").and_then(|n| n.parse::<usize>().ok()) {
            body.resize(n, 0);
            reader.read_exact(&mut body).unwrap();
        } else if headers.get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).unwrap();
                let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                let mut chunk = vec![0; n + 2];
                reader.read_exact(&mut chunk).unwrap();
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
        }
        let ct = headers.get("content-type").cloned().unwrap_or_default();
        let (code, value) = handle(&state, &method, &uri, &ct, &body);
        let text = value.to_string();
        let resp = format!("HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}", text.len());
        if out.write_all(resp.as_bytes()).is_err() {
            return;
        }
    }
}

/// Starts the fake API server; returns its state and port.
fn fake_api(seed: &[(&str, Value)]) -> (Shared, u16) {
    fake_api_binding(seed, None)
}

/// [`fake_api`] whose stand-in scheduler binds every new pod to `node`.
fn fake_api_binding(seed: &[(&str, Value)], node: Option<&str>) -> (Shared, u16) {
    let state: Shared = Arc::new(Mutex::new(State { bind_pods_to: node.map(str::to_string), ..State::default() }));
    for (k, v) in seed {
        state.lock().unwrap().objects.insert(k.to_string(), v.clone());
    }
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let st = state.clone();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let st = st.clone();
            std::thread::spawn(move || serve_connection(st, s));
        }
    });
    (state, port)
}

/// A kubeconfig for the fake server in a private directory, removed when the returned
/// [`support::TempDir`] drops (the test's end).
fn kubeconfig(port: u16, name: &str) -> (support::TempDir, PathBuf) {
    let dir = support::TempDir::new(&format!("kube-{name}"));
    let path = dir.0.join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: http://127.0.0.1:{port}\nusers:\n- name: u\n  user: {{}}\ncontexts:\n- name: kind-fake\n  context: {{cluster: fake, user: u}}\n- name: prod\n  context: {{cluster: fake, user: u}}\ncurrent-context: prod\n"
    );
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/advertisement-layers")
}

fn gpulab(kubeconfig: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpulab"));
    c.args(["scenario", "replay"]).arg(scenario()).args(["--backend", "kube"]).args(args);
    c.env("GPULAB_KUBECONFIG", kubeconfig).env("GPULAB_KUBE_SETTLE_SECONDS", "1").env_remove("KUBECONFIG");
    // No container engine: every node is simulated.
    c.env("PATH", "/usr/bin:/bin");
    c
}

fn labelled(state: &Shared) -> Vec<String> {
    let s = state.lock().unwrap();
    s.objects.iter().filter(|(_, o)| !o["metadata"]["labels"][RUN_LABEL].is_null()).map(|(k, _)| k.clone()).collect()
}

fn log_has(state: &Shared, method: &str, prefix: &str) -> bool {
    state.lock().unwrap().log.iter().any(|(m, u)| m == method && u.starts_with(prefix))
}

fn other_node() -> (&'static str, Value) {
    ("/api/v1/nodes/kind-control-plane", json!({"kind": "Node", "metadata": {"name": "kind-control-plane", "labels": {"kubernetes.io/hostname": "kind-control-plane"}}}))
}

/// A context that is not `kind-…`/`kwok-…`/`gpulab-…` is refused with a clear message, and nothing
/// at all is sent to the API server.
#[test]
fn non_lab_context_is_refused() {
    let (state, port) = fake_api(&[]);
    let (_dir, kc) = kubeconfig(port, "refuse");
    for args in [&[][..], &["--context", "prod"][..]] {
        let out = gpulab(&kc, args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("refusing kubeconfig context \"prod\"") && err.contains("--allow-non-lab-cluster"), "{err}");
    }
    assert!(state.lock().unwrap().log.is_empty(), "requests were sent: {:?}", state.lock().unwrap().log);
}

/// A whole replay on a kind- context: the namespace, the labelled Node and
/// RuntimeClass (server-side apply), the GPU capacity JSON patch and the simulated
/// kubelet (a pod bound to the simulated node gets its status and a `Started` event from
/// the node's simulated containerd); at the end every labelled object and the namespace
/// are gone and the node the run did not create is untouched.
#[test]
fn replay_creates_then_removes_everything() {
    let (state, port) = fake_api_binding(&[other_node()], Some("gpu-node-1"));
    let (_dir, kc) = kubeconfig(port, "replay");
    let out = gpulab(&kc, &["--context", "kind-fake"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("step 8"), "progress on stderr: {stderr}");
    assert!(stdout.contains("on kube") && stdout.contains("simulated kubelet"), "{stdout}");
    assert!(log_has(&state, "POST", "/api/v1/namespaces"));
    assert!(log_has(&state, "PATCH", "/apis/node.k8s.io/v1/runtimeclasses/nvidia?force=true&fieldManager=gpulab"));
    assert!(log_has(&state, "PATCH", "/api/v1/nodes/gpu-node-1?force=true&fieldManager=gpulab"));
    assert!(log_has(&state, "PATCH", "/api/v1/nodes/gpu-node-1/status"));
    assert!(log_has(&state, "PATCH", "/api/v1/namespaces/gpulab-advertisement-layers-"), "the pod is applied into the run's namespace");
    assert!(stdout.contains("ok   pod/gpu-pod.phase = \"Running\"") && stdout.contains("ok   pod/gpu-pod.node_name = \"gpu-node-1\""), "{stdout}");
    assert!(log_has(&state, "DELETE", "/apis/node.k8s.io/v1/runtimeclasses?labelSelector=gpulab.dev%2Frun%3D"));
    assert!(log_has(&state, "DELETE", "/api/v1/nodes?labelSelector=gpulab.dev%2Frun%3D"));
    assert!(log_has(&state, "DELETE", "/api/v1/namespaces/gpulab-advertisement-layers-"));
    assert_eq!(labelled(&state), Vec::<String>::new(), "left behind");
    let s = state.lock().unwrap();
    let writes = |needle: &str| s.log.iter().filter(|(m, u)| m != "GET" && u.contains(needle)).count();
    assert!(writes("/pods/gpu-pod/status") >= 1 && writes("/events") >= 1, "the simulated kubelet wrote nothing: {:?}", s.log);
    assert_eq!(s.objects.keys().collect::<Vec<_>>(), ["/api/v1/nodes/kind-control-plane"]);
    assert!(!s.log.iter().any(|(m, u)| m != "GET" && u.contains("kind-control-plane")), "the run wrote a node it did not create");
}

/// A setup that fails — a RuntimeClass `nvidia` exists and is not the run's — leaves that
/// object alone, says why, and still removes the namespace the run created.
#[test]
fn failure_cleans_up_and_leaves_others_alone() {
    let theirs = json!({"kind": "RuntimeClass", "metadata": {"name": "nvidia"}, "handler": "nvidia"});
    let (state, port) = fake_api(&[("/apis/node.k8s.io/v1/runtimeclasses/nvidia", theirs.clone())]);
    let (_dir, kc) = kubeconfig(port, "failure");
    let out = gpulab(&kc, &["--context", "kind-fake"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("RuntimeClass nvidia already exists and was not created by this run"), "{stdout}");
    assert!(!log_has(&state, "PATCH", "/apis/node.k8s.io/v1/runtimeclasses/nvidia"));
    assert!(log_has(&state, "DELETE", "/api/v1/namespaces/gpulab-advertisement-layers-"));
    assert_eq!(labelled(&state), Vec::<String>::new(), "left behind");
    assert_eq!(state.lock().unwrap().objects["/apis/node.k8s.io/v1/runtimeclasses/nvidia"], theirs);
}

/// Ctrl-C in the middle of a replay: the signal handler removes what the run created so
/// far and the process exits 130.
#[test]
fn ctrl_c_cleans_up() {
    let (state, port) = fake_api(&[other_node()]);
    let (_dir, kc) = kubeconfig(port, "ctrlc");
    let mut child = gpulab(&kc, &["--context", "kind-fake"]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let l2 = lines.clone();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(stderr).lines().map_while(Result::ok) {
            l2.lock().unwrap().push(l);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    while !lines.lock().unwrap().iter().any(|l| l.contains("step 3")) {
        assert!(Instant::now() < deadline, "no progress: {:?}", lines.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!labelled(&state).is_empty(), "the run had created objects before the interrupt");
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let code = child.wait().unwrap().code();
    reader.join().unwrap();
    let lines = lines.lock().unwrap().join("\n");
    assert_eq!(code, Some(130), "{lines}");
    assert!(lines.contains("interrupted: removing what this run created"), "{lines}");
    assert!(!lines.contains("step 8"), "{lines}");
    assert_eq!(labelled(&state), Vec::<String>::new(), "left behind");
    assert!(log_has(&state, "DELETE", "/api/v1/namespaces/gpulab-advertisement-layers-"));
    assert!(state.lock().unwrap().objects.contains_key("/api/v1/nodes/kind-control-plane"));
}

/// On kind a scenario node that exists in the cluster is a real node: its container is
/// entered with `docker exec` (a stand-in `docker` on PATH records the calls) — the
/// original `/etc/containerd` kept, the scenario's files written through stdin,
/// containerd restarted, the steps' restarts done for real — and at the end the original
/// files come back; the Node object itself is never written.
#[test]
fn kind_node_files_written_and_restored() {
    let node = ("/api/v1/nodes/lab-node", json!({"kind": "Node", "metadata": {"name": "lab-node", "labels": {"kubernetes.io/hostname": "lab-node"}}}));
    let (state, port) = fake_api(std::slice::from_ref(&node));
    let (_dir, kc) = kubeconfig(port, "kind-node");
    let dir = kc.parent().unwrap().to_path_buf();
    let log = dir.join("docker.log");
    let docker = dir.join("docker");
    std::fs::write(
        &docker,
        "#!/bin/sh\necho \"$*\" >> \"$GPULAB_FAKE_DOCKER_LOG\"\ncase \"$*\" in\n  *'is-active containerd'*) echo active ;;\n  *'containerd --version'*) echo 'containerd v2.1.1' ;;\nesac\ncat > /dev/null\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(&docker, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/sandbox-runtimeclass");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulab"))
        .args(["scenario", "replay"])
        .arg(scenario)
        .args(["--backend", "kube", "--context", "kind-fake"])
        .env("GPULAB_KUBECONFIG", &kc)
        .env("GPULAB_KUBE_SETTLE_SECONDS", "1")
        .env("GPULAB_FAKE_DOCKER_LOG", &log)
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("lab-node: a real node (lab-node); the scenario says containerd 1.6.20, its container runs `containerd v2.1.1`"), "{stdout}");
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().filter(|l| !l.contains("is-active") && !l.contains(" ctr ") && !l.contains("crictl") && !l.contains("config dump")).collect();
    let want = [
        "exec lab-node sh -c test -e /etc/containerd.gpulab-backup || cp -a /etc/containerd /etc/containerd.gpulab-backup",
        "exec -i lab-node sh -c mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\" sh /etc/containerd/config.toml",
        "exec lab-node systemctl restart containerd",
        "exec lab-node containerd --version",
        "exec -i lab-node sh -c mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\" sh /etc/containerd/config.toml",
        "exec lab-node systemctl restart containerd",
        "exec lab-node sh -c test -e /etc/containerd.gpulab-backup && rm -rf /etc/containerd && mv /etc/containerd.gpulab-backup /etc/containerd && systemctl restart containerd",
    ];
    assert_eq!(calls, want);
    assert_eq!(labelled(&state), Vec::<String>::new(), "left behind");
    let s = state.lock().unwrap();
    assert_eq!(s.objects["/api/v1/nodes/lab-node"], node.1, "the real node was changed");
}
