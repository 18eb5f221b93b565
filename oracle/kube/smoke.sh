#!/usr/bin/env bash
# Proves a kube-oracle binary: etcd and kube-apiserver on loopback with throwaway openssl
# certificates in a private temp dir, then /version and /readyz over TLS as a
# system:masters client. Every process is stopped by its PID (a trap covers errors and
# Ctrl-C); the script fails unless they are gone and their ports are free afterwards.
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
start=$SECONDS
until [ "$(get /readyz 2>/dev/null)" = ok ]; do
  for i in "${!pids[@]}"; do
    kill -0 "${pids[$i]}" 2>/dev/null || { echo "smoke: ${names[$i]} exited" >&2; log_tail etcd; log_tail kube-apiserver; exit 1; }
  done
  ((SECONDS - start < 90)) || { echo "smoke: kube-apiserver not ready within 90 s" >&2; get '/readyz?verbose' >&2 || true; log_tail kube-apiserver; exit 1; }
  sleep 0.5
done
echo "smoke: /readyz ok after $((SECONDS - start)) s (etcd :$etcd_client, kube-apiserver :$secure)"
version=$(get /version)
echo "smoke: /version $(tr -d ' \n' <<<"$version")"
grep -q "\"gitVersion\": \"$want\"" <<<"$version" || { echo "smoke: /version does not report $want" >&2; exit 1; }

stop_all
for pid in "${pids[@]}"; do
  ! kill -0 "$pid" 2>/dev/null || { echo "smoke: process $pid still running" >&2; exit 1; }
done
for p in "$etcd_client" "$etcd_peer" "$secure"; do
  [ -z "$(ss -Htln "sport = :$p")" ] || { echo "smoke: port $p still bound" >&2; exit 1; }
done
echo "smoke: ok — ${#pids[@]} processes stopped by PID, ports $etcd_client $etcd_peer $secure free"
