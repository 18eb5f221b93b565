//! kubectl's text views of the modelled cluster, in kubectl's shapes: `get nodes`,
//! `get pods -o wide`, `describe pod` (containers, conditions, tolerations, Events),
//! `describe node` (Capacity, Allocatable, Allocated resources) — spec §5. `now` is
//! the lab clock in Unix seconds; ages come from `creationTimestamp`.
//!
//! Sections kubectl prints that the lab has no data for (System Info, Addresses,
//! Lease, volumes of the service-account token) are left out.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Node, Pod, Taint, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::events::{human_duration, Event};
use super::quantity::Quantity;
use super::resources::{
    is_hugepage_resource_name, parse_resource_list, pod_requests, PodResourcesOptions, ResourceList,
};
use super::tabwriter;

fn age(t: Option<&Time>, now: i64) -> String {
    t.map_or("<unknown>".to_string(), |t| human_duration(now.saturating_sub(t.0.as_second())))
}

/// `kubectl describe` Events section (`DescribeEvents`), sorted by last seen.
pub fn describe_events(events: &[Event], now: i64) -> String {
    tabwriter::DESCRIBE.format(&events_text(events, now))
}

/// The `Events:` section un-tabbed (`DescribeEvents`' lines), for a caller whose own
/// `describe` writer aligns it with the rest (`describe ds`, `describe pod`).
pub fn events_text<'a>(events: impl IntoIterator<Item = &'a Event>, now: i64) -> String {
    let mut sorted: Vec<&Event> = events.into_iter().collect();
    if sorted.is_empty() {
        return "Events:\t<none>\n".into();
    }
    sorted.sort_by_key(|e| e.last_timestamp);
    let mut s = String::from("Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n");
    for e in sorted {
        let first = human_duration(now.saturating_sub(e.first_timestamp));
        let interval = if e.count > 1 {
            format!("{} (x{} over {first})", human_duration(now.saturating_sub(e.last_timestamp)), e.count)
        } else {
            first
        };
        s.push_str(&format!("  {}\t{}\t{}\t{}\t{}\n", e.type_, e.reason, interval, e.source, e.message.trim()));
    }
    s
}

/// Node roles from `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels.
fn node_roles(node: &Node) -> Vec<String> {
    let mut roles: Vec<String> = Vec::new();
    for (k, v) in node.metadata.labels.iter().flatten() {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role.to_string());
            }
        } else if k == "kubernetes.io/role" && !v.is_empty() {
            roles.push(v.clone());
        }
    }
    roles.sort();
    roles.dedup();
    roles
}

fn node_status_text(node: &Node) -> String {
    let ready =
        node.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|c| c.iter().find(|c| c.type_ == "Ready"));
    let mut s = match ready.map(|c| c.status.as_str()) {
        Some("True") => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if node.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) {
        s.push_str(",SchedulingDisabled");
    }
    s
}

/// `kubectl get nodes`.
pub fn get_nodes(nodes: &[Node], now: i64) -> String {
    let mut s = String::from("NAME\tSTATUS\tROLES\tAGE\tVERSION\n");
    for n in nodes {
        let roles = node_roles(n);
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            n.metadata.name.as_deref().unwrap_or(""),
            node_status_text(n),
            if roles.is_empty() { "<none>".to_string() } else { roles.join(",") },
            age(n.metadata.creation_timestamp.as_ref(), now),
            n.status.as_ref().and_then(|s| s.node_info.as_ref()).map_or("", |i| i.kubelet_version.as_str()),
        ));
    }
    tabwriter::GET.format(&s)
}

/// One row of `kubectl get pods -o wide`: its cells as kubectl's `printPod`
/// (`pkg/printers/internalversion/printers.go`, v1.34) computes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRow {
    pub name: String,
    /// `READY`: containers ready and running, of the pod's containers.
    pub ready: String,
    /// `STATUS`: the phase or reason, replaced by a container's waiting or terminated
    /// reason; `Terminating` once deleted.
    pub status: String,
    /// `RESTARTS`: `2`, or `2 (5m ago)` with the last termination's time.
    pub restarts: String,
    pub age: String,
    pub ip: String,
    pub node: String,
    pub nominated_node: String,
    pub readiness_gates: String,
}

/// `printPod`'s cells for `pod` at `now`, for what a lab pod holds: init containers
/// (`Init:x/y`, restartable sidecars) are not modelled — no lab pod has one. A pod
/// without a phase prints an empty STATUS, as kubectl does (the API server gives every
/// pod `Pending` on create, so only a hand-made pod has none).
pub fn pod_row(pod: &Pod, now: i64) -> PodRow {
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let phase = status.and_then(|s| s.phase.as_deref()).unwrap_or("");
    let status_reason = status.and_then(|s| s.reason.as_deref()).unwrap_or("");
    let conditions = status.and_then(|s| s.conditions.as_deref()).unwrap_or(&[]);
    let mut reason = if status_reason.is_empty() { phase.to_string() } else { status_reason.to_string() };
    if conditions.iter().any(|c| c.type_ == "PodScheduled" && c.reason.as_deref() == Some("SchedulingGated")) {
        reason = "SchedulingGated".into();
    }
    let (mut ready, mut restarts, mut has_running) = (0, 0, false);
    let mut last_restart: Option<i64> = None;
    for c in status.and_then(|s| s.container_statuses.as_deref()).unwrap_or(&[]).iter().rev() {
        restarts += c.restart_count;
        if let Some(finished) = c.last_state.as_ref().and_then(|s| s.terminated.as_ref()).and_then(|t| t.finished_at.as_ref()) {
            last_restart = last_restart.max(Some(finished.0.as_second()));
        }
        let state = c.state.as_ref();
        let terminated = state.and_then(|s| s.terminated.as_ref());
        if let Some(w) = state.and_then(|s| s.waiting.as_ref()).and_then(|w| w.reason.as_deref()).filter(|r| !r.is_empty()) {
            reason = w.to_string();
        } else if let Some(t) = terminated {
            reason = match (t.reason.as_deref().filter(|r| !r.is_empty()), t.signal.filter(|s| *s != 0)) {
                (Some(r), _) => r.to_string(),
                (None, Some(signal)) => format!("Signal:{signal}"),
                (None, None) => format!("ExitCode:{}", t.exit_code),
            };
        } else if c.ready && state.and_then(|s| s.running.as_ref()).is_some() {
            has_running = true;
            ready += 1;
        }
    }
    if reason == "Completed" && has_running {
        let pod_ready = conditions.iter().any(|c| c.type_ == "Ready" && c.status == "True");
        reason = if pod_ready { "Running" } else { "NotReady" }.into();
    }
    if pod.metadata.deletion_timestamp.is_some() {
        if status_reason == "NodeLost" {
            reason = "Unknown".into();
        } else if !matches!(phase, "Succeeded" | "Failed") {
            reason = "Terminating".into();
        }
    }
    let restarts = match last_restart {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", human_duration(now.saturating_sub(t))),
        _ => restarts.to_string(),
    };
    // The internal type's `PodIPs`, which v1's `podIP` converts into when `podIPs` is empty.
    let ip = status.and_then(|s| s.pod_ips.as_ref()).and_then(|ips| ips.first()).map(|i| i.ip.as_str()).or_else(|| status.and_then(|s| s.pod_ip.as_deref()));
    let gates = spec.and_then(|s| s.readiness_gates.as_deref()).unwrap_or(&[]);
    let readiness_gates = if gates.is_empty() {
        "<none>".to_string()
    } else {
        let holding = gates
            .iter()
            .filter(|g| conditions.iter().find(|c| c.type_ == g.condition_type).is_some_and(|c| c.status == "True"))
            .count();
        format!("{holding}/{}", gates.len())
    };
    let none = |v: Option<&str>| v.filter(|s| !s.is_empty()).unwrap_or("<none>").to_string();
    PodRow {
        name: pod.metadata.name.clone().unwrap_or_default(),
        ready: format!("{ready}/{}", spec.map_or(0, |s| s.containers.len())),
        status: reason,
        restarts,
        age: age(pod.metadata.creation_timestamp.as_ref(), now),
        ip: none(ip),
        node: none(spec.and_then(|s| s.node_name.as_deref())),
        nominated_node: none(status.and_then(|s| s.nominated_node_name.as_deref())),
        readiness_gates,
    }
}

/// `kubectl get pods -o wide`, the pods in the order the API server lists them (by
/// namespace, then name: its storage keys), whatever order they are given in.
pub fn get_pods_wide<'a>(pods: impl IntoIterator<Item = &'a Pod>, now: i64) -> String {
    let mut pods: Vec<&Pod> = pods.into_iter().collect();
    pods.sort_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
    let mut s = String::from("NAME\tREADY\tSTATUS\tRESTARTS\tAGE\tIP\tNODE\tNOMINATED NODE\tREADINESS GATES\n");
    for p in pods {
        let r = pod_row(p, now);
        s.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            r.name, r.ready, r.status, r.restarts, r.age, r.ip, r.node, r.nominated_node, r.readiness_gates
        ));
    }
    tabwriter::GET.format(&s)
}

fn labels_multiline(s: &mut String, title: &str, labels: Option<&BTreeMap<String, String>>) {
    s.push_str(&format!("{title}:\t"));
    match labels.filter(|l| !l.is_empty()) {
        None => s.push_str("<none>\n"),
        Some(l) => {
            for (i, (k, v)) in l.iter().enumerate() {
                if i > 0 {
                    s.push('\t');
                }
                s.push_str(&format!("{k}={v}\n"));
            }
        }
    }
}

/// `Taint.ToString()`: `key=value:effect` or `key:effect`.
pub fn taint_string(t: &Taint) -> String {
    match t.value.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => format!("{}={v}:{}", t.key, t.effect),
        None => format!("{}:{}", t.key, t.effect),
    }
}

fn taints_multiline(s: &mut String, taints: &[Taint]) {
    s.push_str("Taints:\t");
    if taints.is_empty() {
        s.push_str("<none>\n");
        return;
    }
    let mut sorted: Vec<&Taint> = taints.iter().collect();
    sorted.sort_by_key(|t| format!("{},{}", t.effect, t.key));
    for (i, t) in sorted.iter().enumerate() {
        if i > 0 {
            s.push('\t');
        }
        s.push_str(&taint_string(t));
        s.push('\n');
    }
}

/// One toleration as `describe pod` prints it.
pub fn toleration_string(t: &Toleration) -> String {
    let mut s = t.key.clone().unwrap_or_default();
    let value = t.value.as_deref().unwrap_or("");
    if !value.is_empty() {
        s.push_str(&format!("={value}"));
    }
    if let Some(e) = t.effect.as_deref().filter(|e| !e.is_empty()) {
        s.push_str(&format!(":{e}"));
    }
    if t.operator.as_deref() == Some("Exists") && value.is_empty() {
        if s.is_empty() {
            s.push_str("op=Exists");
        } else {
            s.push_str(" op=Exists");
        }
    }
    if let Some(secs) = t.toleration_seconds {
        s.push_str(&format!(" for {secs}s"));
    }
    s
}

fn resource_block(s: &mut String, indent: &str, title: &str, list: &ResourceList) {
    if list.is_empty() {
        return;
    }
    s.push_str(&format!("{indent}{title}:\n"));
    for (k, q) in list {
        s.push_str(&format!("{indent}  {k}:\t{q}\n"));
    }
}

fn describe_container(s: &mut String, c: &Container, status: Option<&ContainerStatus>) {
    s.push_str(&format!("  {}:\n", c.name));
    s.push_str(&format!("    Image:\t{}\n", c.image.as_deref().unwrap_or("")));
    let port = c.ports.iter().flatten().next();
    s.push_str(&format!(
        "    Port:\t{}\n    Host Port:\t{}\n",
        port.map_or("<none>".to_string(), |p| format!(
            "{}/{}",
            p.container_port,
            p.protocol.as_deref().unwrap_or("TCP")
        )),
        port.map_or("<none>".to_string(), |p| format!(
            "{}/{}",
            p.host_port.unwrap_or(0),
            p.protocol.as_deref().unwrap_or("TCP")
        )),
    ));
    if let Some(cs) = status {
        let state = cs.state.as_ref();
        if let Some(w) = state.and_then(|s| s.waiting.as_ref()) {
            s.push_str("    State:\tWaiting\n");
            if let Some(r) = w.reason.as_deref().filter(|r| !r.is_empty()) {
                s.push_str(&format!("      Reason:\t{r}\n"));
            }
        } else if state.and_then(|s| s.running.as_ref()).is_some() {
            s.push_str("    State:\tRunning\n");
        } else if let Some(t) = state.and_then(|s| s.terminated.as_ref()) {
            s.push_str("    State:\tTerminated\n");
            if let Some(r) = t.reason.as_deref() {
                s.push_str(&format!("      Reason:\t{r}\n"));
            }
            s.push_str(&format!("      Exit Code:\t{}\n", t.exit_code));
        }
        s.push_str(&format!("    Ready:\t{}\n", if cs.ready { "True" } else { "False" }));
        s.push_str(&format!("    Restart Count:\t{}\n", cs.restart_count));
    }
    let res = c.resources.as_ref();
    resource_block(s, "    ", "Limits", &parse_resource_list(res.and_then(|r| r.limits.as_ref())));
    resource_block(s, "    ", "Requests", &parse_resource_list(res.and_then(|r| r.requests.as_ref())));
    s.push_str("    Environment:\t<none>\n    Mounts:\t<none>\n");
}

/// `qos.GetPodQOS` over cpu and memory.
pub fn qos_class(pod: &Pod) -> &'static str {
    let Some(spec) = &pod.spec else { return "BestEffort" };
    let mut any = false;
    let mut guaranteed = true;
    for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
        let res = c.resources.as_ref();
        let req = parse_resource_list(res.and_then(|r| r.requests.as_ref()));
        let lim = parse_resource_list(res.and_then(|r| r.limits.as_ref()));
        for name in ["cpu", "memory"] {
            let (r, l) = (req.get(name).filter(|q| !q.is_zero()), lim.get(name).filter(|q| !q.is_zero()));
            any |= r.is_some() || l.is_some();
            match (r, l) {
                (Some(r), Some(l)) if r == l => {}
                (None, Some(_)) => {}
                _ => guaranteed = false,
            }
        }
    }
    match (any, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

/// `kubectl describe pod` with the pod's events.
pub fn describe_pod(pod: &Pod, events: &[Event], now: i64) -> String {
    let spec = pod.spec.clone().unwrap_or_default();
    let status = pod.status.clone().unwrap_or_default();
    let mut s = String::new();
    s.push_str(&format!("Name:\t{}\n", pod.metadata.name.as_deref().unwrap_or("")));
    s.push_str(&format!("Namespace:\t{}\n", pod.metadata.namespace.as_deref().unwrap_or("default")));
    if let Some(p) = spec.priority {
        s.push_str(&format!("Priority:\t{p}\n"));
    }
    if let Some(rc) = spec.runtime_class_name.as_deref().filter(|r| !r.is_empty()) {
        s.push_str(&format!("Runtime Class Name:\t{rc}\n"));
    }
    if let Some(sa) = spec.service_account_name.as_deref().filter(|r| !r.is_empty()) {
        s.push_str(&format!("Service Account:\t{sa}\n"));
    }
    match spec.node_name.as_deref().filter(|n| !n.is_empty()) {
        None => s.push_str("Node:\t<none>\n"),
        Some(n) => s.push_str(&format!("Node:\t{n}/{}\n", status.host_ip.as_deref().unwrap_or(""))),
    }
    labels_multiline(&mut s, "Labels", pod.metadata.labels.as_ref());
    labels_multiline(&mut s, "Annotations", pod.metadata.annotations.as_ref());
    s.push_str(&format!("Status:\t{}\n", status.phase.as_deref().unwrap_or("Pending")));
    s.push_str(&format!("IP:\t{}\n", status.pod_ip.as_deref().unwrap_or("")));
    s.push_str("IPs:\t<none>\n");
    if let Some(owner) = pod.metadata.owner_references.iter().flatten().find(|o| o.controller == Some(true)) {
        s.push_str(&format!("Controlled By:\t{}/{}\n", owner.kind, owner.name));
    }
    if let Some(n) = status.nominated_node_name.as_deref().filter(|n| !n.is_empty()) {
        s.push_str(&format!("NominatedNodeName:\t{n}\n"));
    }
    let statuses = status.container_statuses.clone().unwrap_or_default();
    s.push_str("Containers:\n");
    for c in &spec.containers {
        describe_container(&mut s, c, statuses.iter().find(|cs| cs.name == c.name));
    }
    if let Some(conds) = status.conditions.as_ref().filter(|c| !c.is_empty()) {
        s.push_str("Conditions:\n  Type\tStatus\n");
        for c in conds {
            s.push_str(&format!("  {} \t{} \n", c.type_, c.status));
        }
    }
    s.push_str("Volumes:\t<none>\n");
    s.push_str(&format!("QoS Class:\t{}\n", qos_class(pod)));
    labels_multiline(&mut s, "Node-Selectors", spec.node_selector.as_ref());
    s.push_str("Tolerations:\t");
    let tols = spec.tolerations.unwrap_or_default();
    if tols.is_empty() {
        s.push_str("<none>\n");
    }
    for (i, t) in tols.iter().enumerate() {
        if i > 0 {
            s.push('\t');
        }
        s.push_str(&toleration_string(t));
        s.push('\n');
    }
    s.push_str(&events_text(events, now));
    tabwriter::DESCRIBE.format(&s)
}

fn sum_requests_limits(pods: &[&Pod]) -> (ResourceList, ResourceList) {
    let mut reqs = ResourceList::new();
    let mut lims = ResourceList::new();
    for p in pods {
        let Some(spec) = &p.spec else { continue };
        let r = pod_requests(spec, &PodResourcesOptions::default());
        for (k, v) in r {
            let sum = reqs.get(&k).map_or(v.clone(), |c| c.add(&v));
            reqs.insert(k, sum);
        }
        for c in &spec.containers {
            for (k, v) in parse_resource_list(c.resources.as_ref().and_then(|r| r.limits.as_ref())) {
                let sum = lims.get(&k).map_or(v.clone(), |c| c.add(&v));
                lims.insert(k, sum);
            }
        }
    }
    (reqs, lims)
}

fn percent(part: i64, whole: i64) -> i64 {
    if whole == 0 {
        0
    } else {
        (part as f64 / whole as f64 * 100.0) as i64
    }
}

/// `kubectl describe node` with the pods bound to it and its events.
pub fn describe_node(node: &Node, pods: &[Pod], events: &[Event], now: i64) -> String {
    let name = node.metadata.name.as_deref().unwrap_or("");
    let mut s = format!("Name:\t{name}\n");
    let roles = node_roles(node);
    s.push_str(&format!("Roles:\t{}\n", if roles.is_empty() { "<none>".into() } else { roles.join(",") }));
    labels_multiline(&mut s, "Labels", node.metadata.labels.as_ref());
    labels_multiline(&mut s, "Annotations", node.metadata.annotations.as_ref());
    let spec = node.spec.clone().unwrap_or_default();
    taints_multiline(&mut s, spec.taints.as_deref().unwrap_or(&[]));
    s.push_str(&format!("Unschedulable:\t{}\n", spec.unschedulable.unwrap_or(false)));
    let status = node.status.clone().unwrap_or_default();
    if let Some(conds) = status.conditions.as_ref().filter(|c| !c.is_empty()) {
        s.push_str("Conditions:\n  Type\tStatus\tReason\tMessage\n  ----\t------\t------\t-------\n");
        for c in conds {
            s.push_str(&format!(
                "  {} \t{} \t{} \t{}\n",
                c.type_,
                c.status,
                c.reason.as_deref().unwrap_or(""),
                c.message.as_deref().unwrap_or("")
            ));
        }
    }
    let capacity = parse_resource_list(status.capacity.as_ref());
    let allocatable_list = parse_resource_list(status.allocatable.as_ref());
    if !capacity.is_empty() {
        s.push_str("Capacity:\n");
        for (k, q) in &capacity {
            s.push_str(&format!("  {k}:\t{q}\n"));
        }
    }
    if !allocatable_list.is_empty() {
        s.push_str("Allocatable:\n");
        for (k, q) in &allocatable_list {
            s.push_str(&format!("  {k}:\t{q}\n"));
        }
    }
    let alloc = if allocatable_list.is_empty() { capacity } else { allocatable_list };
    let on_node: Vec<&Pod> = pods
        .iter()
        .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(name))
        .filter(|p| !matches!(p.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed")))
        .collect();
    let zero = Quantity::from_i64(0);
    let get = |l: &ResourceList, k: &str| l.get(k).cloned().unwrap_or_else(|| zero.clone());
    let alloc_cpu = get(&alloc, "cpu").milli_value();
    let alloc_mem = get(&alloc, "memory").value();
    s.push_str(&format!("Non-terminated Pods:\t({} in total)\n", on_node.len()));
    s.push_str("  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    s.push_str("  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    for p in &on_node {
        let (r, l) = sum_requests_limits(&[p]);
        let (cr, cl, mr, ml) = (get(&r, "cpu"), get(&l, "cpu"), get(&r, "memory"), get(&l, "memory"));
        s.push_str(&format!(
            "  {}\t{}\t\t{cr} ({}%)\t{cl} ({}%)\t{mr} ({}%)\t{ml} ({}%)\t{}\n",
            p.metadata.namespace.as_deref().unwrap_or("default"),
            p.metadata.name.as_deref().unwrap_or(""),
            percent(cr.milli_value(), alloc_cpu),
            percent(cl.milli_value(), alloc_cpu),
            percent(mr.value(), alloc_mem),
            percent(ml.value(), alloc_mem),
            age(p.metadata.creation_timestamp.as_ref(), now),
        ));
    }
    let (reqs, lims) = sum_requests_limits(&on_node);
    s.push_str("Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    s.push_str("  Resource\tRequests\tLimits\n  --------\t--------\t------\n");
    for (res, milli) in [("cpu", true), ("memory", false), ("ephemeral-storage", false)] {
        let (r, l, a) = (get(&reqs, res), get(&lims, res), get(&alloc, res));
        let v = |q: &Quantity| if milli { q.milli_value() } else { q.value() };
        s.push_str(&format!("  {res}\t{r} ({}%)\t{l} ({}%)\n", percent(v(&r), v(&a)), percent(v(&l), v(&a))));
    }
    for (k, a) in alloc.iter().filter(|(k, _)| is_hugepage_resource_name(k)) {
        let (r, l) = (get(&reqs, k), get(&lims, k));
        s.push_str(&format!(
            "  {k}\t{r} ({}%)\t{l} ({}%)\n",
            percent(r.value(), a.value()),
            percent(l.value(), a.value())
        ));
    }
    for k in alloc.keys().filter(|k| k.contains('/') && !k.starts_with("kubernetes.io/")) {
        s.push_str(&format!("  {k}\t{}\t{}\n", get(&reqs, k), get(&lims, k)));
    }
    s.push_str(&events_text(events, now));
    tabwriter::DESCRIBE.format(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NVIDIA/k8s-device-plugin#119: the FailedScheduling row as describe prints it.
    #[test]
    fn events_table_device_plugin_119() {
        let mut e = Event::once(
            "Warning",
            "FailedScheduling",
            "default-scheduler",
            "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.",
            0,
        );
        e.repeat(0);
        let got = describe_events(&[e], 40);
        assert_eq!(
            got,
            "Events:\n  Type     Reason            Age                From               Message\n  ----     ------            ----               ----               -------\n  Warning  FailedScheduling  40s (x2 over 40s)  default-scheduler  0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable.\n"
        );
    }

    /// NVIDIA/k8s-device-plugin#220: a device-plugin pod stuck in ContainerCreating.
    #[test]
    fn get_pods_wide_container_creating_220() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "nvidia-device-plugin-daemonset-g2h7g", "namespace": "kube-system"},
            "spec": {"nodeName": "xxx", "containers": [{"name": "nvidia-device-plugin-ctr"}]},
            "status": {"phase": "Pending", "containerStatuses": [{
                "name": "nvidia-device-plugin-ctr", "ready": false, "restartCount": 0, "image": "x", "imageID": "",
                "state": {"waiting": {"reason": "ContainerCreating"}}
            }]}
        }))
        .unwrap();
        let got = get_pods_wide(&[pod], 0);
        let row = got.lines().nth(1).unwrap();
        let cols: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cols,
            [
                "nvidia-device-plugin-daemonset-g2h7g",
                "0/1",
                "ContainerCreating",
                "0",
                "<unknown>",
                "<none>",
                "xxx",
                "<none>",
                "<none>"
            ]
        );
    }

    /// Spec §5.3: extended resources in Allocated resources have no percentage; a node
    /// without a device plugin has no `nvidia.com/gpu` line at all.
    #[test]
    fn describe_node_allocated_gpu() {
        let node: Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "gpu-1"},
            "status": {"capacity": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4", "pods": "110"},
                       "allocatable": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4", "pods": "110"}}
        }))
        .unwrap();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "cuda", "namespace": "default"},
            "spec": {"nodeName": "gpu-1", "containers": [{"name": "c", "resources": {
                "limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1", "cpu": "500m"}}}]}
        }))
        .unwrap();
        let got = describe_node(&node, &[pod], &[], 0);
        assert!(got.contains("\n  cpu                500m (6%)  0 (0%)\n"), "{got}");
        assert!(got.contains("\n  nvidia.com/gpu     1          1\n"), "{got}");
        assert!(got.contains("Capacity:\n  cpu:             8\n"), "{got}");
        assert!(got.ends_with("Events:              <none>\n"), "{got}");
    }
}
