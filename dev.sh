#!/usr/bin/env bash
# GPU Node Lab developer entry point: `./dev.sh serve` serves the app on
# 127.0.0.1, `./dev.sh test` runs every test tier, `./dev.sh fuzz-k8s` replays fresh
# random scheduling scenarios on the real control plane. All first run `setup`,
# which installs whatever is missing on a fresh Debian 12 machine and skips
# what is already there (idempotent; about 5 s when warm).
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

TRUNK_VERSION=0.22.1            # declares rust-version 1.96.1; builds and runs on 1.95 with --ignore-rust-version
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$ROOT/tests/e2e/node_modules/.bin:$PATH"
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
export TRUNK_SKIP_VERSION_CHECK=true
export TRUNK_OFFLINE=true       # never download tools: a missing one fails at once with its name

step() { echo "== $(date +%T) $*"; }

# The wasm-bindgen version the lockfile resolved; the CLI must match it exactly.
wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock
}

need_apt() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v chromedriver >/dev/null || missing+=(chromium-driver)
  command -v containerd >/dev/null || missing+=(containerd)
  command -v shellcheck >/dev/null || missing+=(shellcheck)
  # a Korean font, so the browser tests' screenshots show Hangul instead of boxes
  [ -d /usr/share/fonts/truetype/nanum ] || missing+=(fonts-nanum)
  if [ ${#missing[@]} -gt 0 ]; then
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    step "apt-get install ${missing[*]}"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
  fi
}

setup() {
  need_apt
  rustup target list --installed | grep -qx wasm32-unknown-unknown || {
    step "rustup target add wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown; }
  if ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
    step "cargo install trunk $TRUNK_VERSION (LTO off: 8.5 min instead of 28 on 2 cores)"
    CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install --locked trunk --version "$TRUNK_VERSION" --ignore-rust-version
  fi
  local wbv; wbv=$(wasm_bindgen_version)
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wbv"; then
    # no --locked: its lockfile pins a webpki-roots the registry here does not serve
    step "cargo install wasm-bindgen-cli $wbv"
    cargo install wasm-bindgen-cli --version "$wbv" --force
  fi
  scripts/oracle-containerd.sh   # real containerd + ctr of each recorded line, built once into the cache
  if [ ! -x tests/e2e/node_modules/.bin/wasm-opt ] || [ ! -d tests/e2e/node_modules/playwright-core ]; then
    step "npm ci (playwright-core; binaryen = the only wasm-opt that reads this wasm)"
    (cd tests/e2e && npm ci --no-audit --no-fund)
  fi
  "$ROOT/scripts/oracle-kube.sh" >/dev/null  # etcd + control plane from upstream source, cached per version (cold: 11.2 min for v1.37.2 on an idle 2-core machine; docs/control-plane.md)
}

case "${1:-}" in
  setup) setup ;;
  serve) setup; shift
         step "trunk serve on http://127.0.0.1:${PORT:-8080}/"
         exec trunk serve --release --address 127.0.0.1 --port "${PORT:-8080}" --disable-address-lookup "$@" ;;
  test)  setup; shift; exec "$ROOT/tests/run-all.sh" "$@" ;;
  fuzz-k8s) setup; shift; exec "$ROOT/scripts/fuzz-k8s.sh" "$@" ;;  # [MINUTES] [FIRST_SEED] [PER_SEED]
  *) echo "usage: ./dev.sh serve | test | setup | fuzz-k8s [MINUTES] [SEED] [PER_SEED]" >&2; exit 2 ;;
esac
