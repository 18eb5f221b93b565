#!/usr/bin/env bash
# Fresh random scheduling scenarios against the real control plane, for as long as
# asked: `./dev.sh fuzz-k8s [MINUTES] [FIRST_SEED] [PER_SEED]` (default 60 minutes,
# seed = the current unix time, 20 scenarios per seed). Each seed's scenarios come from
# `gpulab scenario generate --seed S` and are replayed with `gpulab parity --backend
# kube` on a private `gpulab cluster up` (loopback, its own dir); every seed is printed
# with its result, so a difference reproduces with that seed. The cluster is stopped
# by PID on every exit. Exit 1 when any seed differed.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
seed=${2:-$(date +%s)}
per_seed=${3:-20}
gl() { cargo run --locked -q -p gpulab -- "$@"; }  # the build tests/run-all.sh uses
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-fuzz-k8s.XXXXXX")
down() { gl cluster down --dir "$dir/cluster" >/dev/null || true; rm -rf "$dir"; }
trap down EXIT
gl cluster up --dir "$dir/cluster" > "$dir/up.txt"
head -n 1 "$dir/up.txt"
ctx=$(sed -n 's/^kubeconfig: .* (context \(.*\))$/\1/p' "$dir/up.txt")
deadline=$(( $(date +%s) + minutes * 60 ))
seeds=0 scenarios=0 failed=()
while [ "$(date +%s)" -lt "$deadline" ]; do
  rm -rf "$dir/generated"
  gl scenario generate --seed "$seed" --count "$per_seed" --out "$dir/generated" >/dev/null
  if GPULAB_KUBECONFIG="$dir/cluster/kubeconfig" GPULAB_KUBE_POLL_MS=250 \
      gl parity "$dir/generated" --backend kube --context "$ctx" > "$dir/parity.txt" 2> "$dir/parity.err"; then
    echo "seed $seed: $(tail -n 1 "$dir/parity.txt")"
  else
    echo "seed $seed: DIFFER (reproduce: gpulab scenario generate --seed $seed --count $per_seed --out DIR)"
    grep -E '^(DIFFER|  )' "$dir/parity.txt" | head -n 40 || true
    tail -n 3 "$dir/parity.err"
    failed+=("$seed")
  fi
  seeds=$((seeds + 1)) scenarios=$((scenarios + per_seed)) seed=$((seed + 1))
done
echo "fuzz-k8s: $seeds seeds, $scenarios scenarios in $minutes min; differing seeds: ${failed[*]:-none}"
[ ${#failed[@]} -eq 0 ]
