#!/usr/bin/env bash
# Re-records the real control plane's parity runs of each release into the goldens the
# test command replays (issue 15, item 6):
#   scripts/record-kube-versions.sh [VERSION…]   (default: v1.34.0 v1.34.4 v1.35.4 v1.36.3 v1.37.2)
# For each VERSION: the kube-oracle binary (built by scripts/oracle-kube.sh when missing:
# ~15 min of 2 cores each), `gpulab cluster up --k8s-version VERSION` in a private temp
# dir, then `gpulab parity scenarios --backend kube --real-containerd` and the 200
# scenarios `gpulab scenario generate --seed 1` writes (as tests/run-all.sh replays them
# live) with `--record crates/cli/tests/goldens-kube/VERSION.json`; the cluster is
# stopped by PID on every exit. A release whose run differs from the model is printed
# (the recording is still written: the difference is a model bug to fix, and the
# replay in the test command fails until it is).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(v1.34.0 v1.34.4 v1.35.4 v1.36.3 v1.37.2)
out=crates/cli/tests/goldens-kube
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-record.XXXXXX")
# A private copy of the companion: the runs take minutes, the kube backend's
# check-runtime.sh calls back into `$GPULAB cri info`, and a rebuild of target/ meanwhile
# (another checkout sharing CARGO_TARGET_DIR) must not swap the binary under them.
cargo build --locked -q -p gpulab
cp "${CARGO_TARGET_DIR:-target}/debug/gpulab" "$tmp/gpulab"
gl() { "$tmp/gpulab" "$@"; }
down() { if [ -d "$tmp/cluster" ]; then gl cluster down --dir "$tmp/cluster" >/dev/null || true; fi; }
trap 'down; rm -rf "$tmp"' EXIT
gl scenario generate --seed 1 --count 200 --out "$tmp/generated" >/dev/null
rc=0
for v in "${versions[@]}"; do
  scripts/oracle-kube.sh "$v" >/dev/null
  gl cluster up --k8s-version "$v" --dir "$tmp/cluster" > "$tmp/up.txt"
  head -n 1 "$tmp/up.txt"
  ctx=$(sed -n 's/^kubeconfig: .* (context \(.*\))$/\1/p' "$tmp/up.txt")
  mkdir -p "$tmp/tmp"
  rm -f "$out/$v.json"
  for set in scenarios generated; do
    dir=scenarios extra=(--real-containerd) poll=1000
    [ "$set" = generated ] && dir="$tmp/generated" extra=() poll=250
    if GPULAB_KUBECONFIG="$tmp/cluster/kubeconfig" GPULAB_KUBE_POLL_MS=$poll TMPDIR="$tmp/tmp" \
        gl parity "$dir" --backend kube --context "$ctx" "${extra[@]}" --record "$out/$v.json" > "$tmp/parity.txt" 2> "$tmp/parity.err"; then
      echo "$v $set: $(tail -n 1 "$tmp/parity.txt")"
    else
      rc=1
      echo "$v $set: DIFFERS from the model (a model bug to fix):"
      grep -E '^(DIFFER|  error)| differ ' "$tmp/parity.txt" | head -n 40 || true
      tail -n 3 "$tmp/parity.err"
      tail -n 1 "$tmp/parity.txt"
    fi
  done
  down
done
exit $rc
