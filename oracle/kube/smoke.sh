#!/usr/bin/env bash
# Proves a kube-oracle binary: etcd and kube-apiserver on loopback with throwaway openssl
# certificates in a private temp dir, then /version and /readyz over TLS as a
# system:masters client; then kube-scheduler and kube-controller-manager, and a pod the
# real scheduler binds to a node the script creates. Every process is stopped by its PID
# (a trap covers errors and Ctrl-C); the script fails unless they are gone and their ports
# are free afterwards.
#   oracle/kube/smoke.sh [PATH-TO-kube-oracle]   (default: scripts/oracle-kube.sh's cache path)
# The product path is `gpulab cluster up`; this only shows the binary works.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-${GPULAB_CACHE:-$HOME/.cache/gpulab}/kube/v1.37.2/kube-oracle}
[ -x "$bin" ] || { echo "smoke: no kube-oracle at $bin (build it: $ROOT/scripts/oracle-kube.sh)" >&2; exit 1; }
want=$("$bin" version | awk '$1 == "kubernetes" {print $2}')

dir=$(mktemp -d "${TMPDIR:-/tmp}/kube-smoke.XXXXXX")
pids=() names=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
on_exit() { stop_all; rm -rf "$dir"; }
trap on_exit EXIT
trap 'exit 130' INT TERM

# Free loopback ports: random, skipping any that something already listens on.
ports=()
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 40000))
    [[ " ${ports[*]} " == *" $p "* ]] && continue
    [ -z "$(ss -Htln "sport = :$p")" ] && { echo "$p"; return; }
  done
}
etcd_client=$(free_port); ports+=("$etcd_client")
etcd_peer=$(free_port); ports+=("$etcd_peer")
secure=$(free_port); ports+=("$secure")

# Throwaway PKI: a CA, the API server's serving cert for 127.0.0.1, an admin client
# cert in system:masters, and the service-account signing key pair.
pki=$dir/pki; mkdir -p "$pki"
cat >"$pki/ca.cnf" <<'EOF'
[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
printf 'keyUsage = critical, digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\nsubjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default.svc\n' >"$pki/serving.ext"
printf 'keyUsage = critical, digitalSignature, keyEncipherment\nextendedKeyUsage = clientAuth\n' >"$pki/client.ext"
ossl() { openssl "$@" 2>>"$pki/openssl.log" >/dev/null || { echo "smoke: openssl $1 failed:" >&2; cat "$pki/openssl.log" >&2; exit 1; }; }
ossl genrsa -out "$pki/ca.key" 2048
ossl req -x509 -new -key "$pki/ca.key" -subj /CN=gpulab-smoke-ca -days 1 -config "$pki/ca.cnf" -extensions ca -out "$pki/ca.crt"
sign() { # sign NAME SUBJECT EXTFILE
  ossl genrsa -out "$pki/$1.key" 2048
  ossl req -new -key "$pki/$1.key" -subj "$2" -config "$pki/ca.cnf" -out "$pki/$1.csr"
  ossl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 1 -extfile "$3" -out "$pki/$1.crt"
}
sign serving /CN=kube-apiserver "$pki/serving.ext"
sign admin "/O=system:masters/CN=gpulab-smoke-admin" "$pki/client.ext"
ossl genrsa -out "$pki/sa.key" 2048
ossl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub"

log_tail() { echo "--- last lines of $1.log:" >&2; tail -n 20 "$dir/$1.log" >&2; }
"$bin" etcd --name smoke --data-dir "$dir/etcd" --unsafe-no-fsync --log-level warn \
  --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
  --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
  --initial-cluster "smoke=http://127.0.0.1:$etcd_peer" >"$dir/etcd.log" 2>&1 &
pids+=($!) names+=(etcd)

"$bin" kube-apiserver \
  --etcd-servers "http://127.0.0.1:$etcd_client" \
  --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$secure" \
  --tls-cert-file "$pki/serving.crt" --tls-private-key-file "$pki/serving.key" \
  --client-ca-file "$pki/ca.crt" --authorization-mode Node,RBAC \
  --service-account-issuer https://kubernetes.default.svc.cluster.local \
  --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
  --service-cluster-ip-range 10.96.0.0/24 --endpoint-reconciler-type none \
  >"$dir/kube-apiserver.log" 2>&1 &
pids+=($!) names+=(kube-apiserver)

get() { curl -sS --max-time 5 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$secure$1"; }
post() { curl -sS --max-time 5 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
  -H 'Content-Type: application/json' --data-binary "$2" -o "$dir/answer" -w '%{http_code}' "https://127.0.0.1:$secure$1"; }
all_tails() { local n; for n in "${names[@]}"; do log_tail "$n"; done; }
# wait_for WHAT SECONDS COMMAND...: polls COMMAND; fails naming WHAT, with every log's
# tail, if it does not succeed in time or a component exits.
wait_for() {
  local what=$1 limit=$2 start=$SECONDS i; shift 2
  until "$@" >/dev/null 2>&1; do
    for i in "${!pids[@]}"; do
      kill -0 "${pids[$i]}" 2>/dev/null && continue
      echo "smoke: ${names[$i]} exited while waiting for $what" >&2; all_tails; exit 1
    done
    ((SECONDS - start < limit)) || { echo "smoke: $what not within $limit s" >&2; all_tails; exit 1; }
    sleep 0.5
  done
  echo "smoke: $what after $((SECONDS - start)) s"
}
readyz() { [ "$(get /readyz)" = ok ]; }
wait_for "kube-apiserver /readyz ok (etcd :$etcd_client, kube-apiserver :$secure)" 90 readyz
version=$(get /version)
echo "smoke: /version $(tr -d ' \n' <<<"$version")"
grep -q "\"gitVersion\": \"$want\"" <<<"$version" || { echo "smoke: /version does not report $want" >&2; exit 1; }

# The scheduler and the controller manager, as the admin (a real cluster gives each its own
# identity); node lifecycle off, as `gpulab cluster up` plays the kubelet.
cat >"$dir/admin.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: smoke, cluster: {server: "https://127.0.0.1:$secure", certificate-authority: "$pki/ca.crt"}}]
users: [{name: admin, user: {client-certificate: "$pki/admin.crt", client-key: "$pki/admin.key"}}]
contexts: [{name: smoke, context: {cluster: smoke, user: admin}}]
current-context: smoke
KUBECONFIG
sched=$(free_port); ports+=("$sched")
kcm=$(free_port); ports+=("$kcm")
"$bin" kube-scheduler --kubeconfig "$dir/admin.kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$sched" >"$dir/kube-scheduler.log" 2>&1 &
pids+=($!) names+=(kube-scheduler)
"$bin" kube-controller-manager --kubeconfig "$dir/admin.kubeconfig" --leader-elect=false \
  --bind-address 127.0.0.1 --secure-port "$kcm" --controllers '*,-node-lifecycle-controller' \
  --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
  --use-service-account-credentials >"$dir/kube-controller-manager.log" 2>&1 &
pids+=($!) names+=(kube-controller-manager)
healthz() { [ "$(curl -sk --max-time 5 "https://127.0.0.1:$1/healthz")" = ok ]; }
wait_for "kube-scheduler /healthz ok (:$sched)" 60 healthz "$sched"
wait_for "kube-controller-manager /healthz ok (:$kcm)" 60 healthz "$kcm"
has_default_sa() { get /api/v1/namespaces/default/serviceaccounts/default | grep -q '"kind": "ServiceAccount"'; }
wait_for "the controller manager's default ServiceAccount" 60 has_default_sa

# One node (status as a kubelet would write it) and one pod: the real scheduler binds it.
code=$(post /api/v1/nodes '{"apiVersion":"v1","kind":"Node","metadata":{"name":"smoke-node"},
  "status":{"capacity":{"cpu":"4","memory":"8Gi","pods":"110"},"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}')
[ "$code" = 201 ] || { echo "smoke: creating the node answered HTTP $code: $(cat "$dir/answer")" >&2; exit 1; }
code=$(post /api/v1/namespaces/default/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"smoke-pod"},
  "spec":{"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"example.invalid/none",
  "resources":{"requests":{"cpu":"1"}}}]}}')
[ "$code" = 201 ] || { echo "smoke: creating the pod answered HTTP $code: $(cat "$dir/answer")" >&2; exit 1; }
bound() { get /api/v1/namespaces/default/pods/smoke-pod | grep -q '"nodeName": "smoke-node"'; }
wait_for "the scheduler binding smoke-pod to smoke-node" 60 bound

stop_all
for pid in "${pids[@]}"; do
  ! kill -0 "$pid" 2>/dev/null || { echo "smoke: process $pid still running" >&2; exit 1; }
done
for p in "${ports[@]}"; do
  [ -z "$(ss -Htln "sport = :$p")" ] || { echo "smoke: port $p still bound" >&2; exit 1; }
done
echo "smoke: ok — ${#pids[@]} processes stopped by PID, ports ${ports[*]} free"
