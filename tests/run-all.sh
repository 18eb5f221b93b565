#!/usr/bin/env bash
# Every test tier, in order; the first failure stops the run. Called by
# `./dev.sh test` (after setup) and by .ci/run. Each tier prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARED=${GPULAB_SHARED:-../shared}
# Incremental caches (1.9 GB of a cold run's target/) only pay off while editing.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

t0=$(date +%s)
tier() { echo; echo "== $(date +%T) [$(( $(date +%s) - t0 ))s] $*"; }

# A cold run's target/ grows to about 10 GB (debug test binaries, the wasm and release
# builds) beside the Go caches: say how much room there is, so a full disk is named up
# front instead of surfacing as a linker's "No space left on device" mid-tier.
target_dir=${CARGO_TARGET_DIR:-$PWD/target}
free_gb=$(df -Pk "$(dirname "$target_dir")" | awk 'NR==2 {printf "%d", $4 / 1048576}')
echo "disk: ${free_gb} GB free for $target_dir"
[ "$free_gb" -ge 12 ] || echo "warning: a cold run needs about 12 GB free beside $target_dir; ${free_gb} GB is free, so a build may stop with 'No space left on device'" >&2

tier "fetch (trunk builds --offline)"
cargo fetch --locked

tier "native: model + companion (cargo test), incl. the tidy test"
cargo test --locked --workspace --exclude gpu-node-lab --exclude gpulab-fuzz

tier "fuzz smoke: every committed seed through every fuzz target, then seeded mutations (crates/fuzz; fuzz/README.md)"
cargo test --locked -p gpulab-fuzz --test smoke -- --nocapture --test-threads=1

tier "real containerd: check-runtime.sh against a live daemon (private root/state/socket; needs root)"
cargo test --locked -p gpulab --features real-containerd --test check_runtime_daemon

tier "real containerd, every version: config dump of the model = each real binary's, on every golden input and 264 generated combinations (no daemon; scripts/oracle-containerd.sh builds the binaries)"
cargo test --locked -p gpulab --features real-containerd-dump --test live_config_dump -- --nocapture

tier "scenarios: every scenario on the model (every containerd expectation against real containerd daemons, \`gpulab parity scenarios --backend containerd\`, ran in the native tier: crates/cli/tests/scenarios.rs, which also fails on one left uncompared)"
cargo run --locked -q -p gpulab -- scenario run scenarios | tail -n 1

tier "real control plane: gpulab cluster up/down and its faults on the kube-oracle binary (gated on the binary; scripts/oracle-kube.sh builds it)"
kube_oracle=${GPULAB_CACHE:-$HOME/.cache/gpulab}/kube/v1.37.2/kube-oracle
if [ -x "$kube_oracle" ]; then
  cargo test --locked -p gpulab --features real-kube --test cluster_live --test cluster_faults
  # DRA (issue 17): ResourceSlices, DeviceClasses and claims written through the API;
  # every pod's node, devices and FailedScheduling text vs the model.
  # The summary lines; all of it when the test fails (a panic's message included).
  dra=$(mktemp)
  if cargo test --locked -p gpulab --features real-kube --test dra_live -- --nocapture >"$dra" 2>&1; then
    grep -E "pods agree|fields agree|DIFFER|test result" "$dra"
    rm -f "$dra"
  else
    grep -vE "^\s+(Compiling|Finished|Running)" "$dra" | tail -n 60
    rm -f "$dra"
    exit 1
  fi
else
  echo "skipped: no $kube_oracle (scripts/oracle-kube.sh v1.37.2 builds it)"
fi

tier "real control plane, every scenario: every scenario (--real-containerd) and ${GPULAB_GENERATE_COUNT:-200} generated ones replayed live on ${GPULAB_KUBE_CLUSTERS:-4} private clusters side by side, gpulab cluster down after (gated on the binary; root; tests/kube-every-scenario.sh)"
if [ -x "$kube_oracle" ]; then
  tests/kube-every-scenario.sh
else
  echo "skipped: no $kube_oracle (scripts/oracle-kube.sh v1.37.2 builds it)"
fi

tier "kube: every scenario against a real cluster (gated on GPULAB_KUBECONFIG; needs Docker and a kind cluster)"
if [ -n "${GPULAB_KUBECONFIG:-}" ]; then
  cargo run --locked -q -p gpulab -- parity scenarios --backend kube ${GPULAB_KUBE_CONTEXT:+--context "$GPULAB_KUBE_CONTEXT"} | tail -n 1
else
  echo "skipped: GPULAB_KUBECONFIG not set (needs Docker and a kind cluster)"
fi

tier "native: the app's pure parts (reducer, i18n, options)"
cargo test --locked -p gpu-node-lab --lib

tier "lint: clippy denies unwrap/expect/panic/indexing in the model, the app's Kubernetes chunk and its DRA module"
cargo clippy --locked -p gpulab-model -p gpu-node-lab-k8s -p gpu-node-lab-dra --lib -- -D warnings

tier "the model as the app links it (without go-toml-syntax: syntax errors from the chunk's verdicts; without embedded-defaults: one version's defaults, the others from the chunk): clippy, unit tests"
cargo clippy --locked -p gpulab-model --lib -- -D warnings
cargo clippy --locked -p gpulab-model --lib --no-default-features -- -D warnings
cargo test --locked -p gpulab-model --lib

tier "lint: no native-only dependency reaches the wasm build"
leaks=$(cargo tree --locked -p gpu-node-lab -p gpu-node-lab-k8s -p gpu-node-lab-dra --target wasm32-unknown-unknown -e normal --prefix none \
  | grep -E '^(tokio|mio|clap|kube|kube-client|hyper) ' | sort -u || true)
[ -z "$leaks" ] || { echo "native-only crates in the wasm graph: $leaks" >&2; exit 1; }

tier "lint: shellcheck"
mapfile -t shells < <(find . -name '*.sh' -not -path './target/*' -not -path '*/node_modules/*' | sort)
shellcheck .ci/run scripts/cached/wasm-opt "${shells[@]}"

tier "goldens: gpulab goldens $SHARED/goldens (every area, every case)"
[ -d "$SHARED/goldens" ] || { echo "missing $SHARED/goldens: tests read the goldens from ../shared" >&2; exit 1; }
cargo run --locked -q -p gpulab -- goldens "$SHARED/goldens" > target/goldens.txt || { grep -A3 '^FAIL' target/goldens.txt | head -n 60; tail -n 1 target/goldens.txt; exit 1; }
tail -n 1 target/goldens.txt

tier "wasm: browser tests in headless Chromium (wasm-bindgen-test)"
cargo test --locked -p gpu-node-lab --target wasm32-unknown-unknown

tier "release build: trunk build --release (the app, the on-demand Kubernetes chunk and DRA module; wasm-opt from npm binaryen, its outputs kept by content in target/wasm-opt-kept: scripts/cached/wasm-opt; versioned names)"
PATH="$PWD/scripts/cached:$PATH" GPULAB_WASM_OPT_CACHE="${CARGO_TARGET_DIR:-$PWD/target}/wasm-opt-kept" trunk build --release --locked

tier "end to end + size budget: node --test (playwright-core, Debian chromium)"
(cd tests/e2e && DIST=../../dist node --test)

tier "all tiers passed"
