#!/usr/bin/env bash
# The libFuzzer targets without cargo-fuzz: built by plain cargo with the flags cargo-fuzz
# passes for `cargo fuzz build -s none -a` (SanitizerCoverage, `--cfg fuzzing`, debug
# assertions; no AddressSanitizer — the model is safe Rust, and ASan would need nightly
# flags and halve the rate), then run from the committed seeds.
#   fuzz/run.sh build                 build every target (release + line tables)
#   fuzz/run.sh TARGET [RUNS] [ARGS]  run TARGET for RUNS inputs (default 10,000,000)
# The corpus libFuzzer grows is work/TARGET (git-ignored); a crash goes to artifacts/TARGET/.
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
triple=x86_64-unknown-linux-gnu
case "${1:-}" in
  ""|-h|--help) sed -n '2,8p' "$0"; exit 2 ;;
  build)
    RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing \
-Cllvm-args=-simplifycfg-branch-fold-threshold=0 -Cdebug-assertions" \
      exec cargo build --release --locked --target "$triple" --bins ;;
  *)
    t=$1; runs=${2:-10000000}; shift $(( $# < 2 ? $# : 2 ))
    bin="$CARGO_TARGET_DIR/$triple/release/$t"
    [ -x "$bin" ] || { echo "no $bin: run fuzz/run.sh build first" >&2; exit 1; }
    [ -d "corpus/$t" ] || { echo "no fuzz target $t (corpus/$t missing)" >&2; exit 1; }
    mkdir -p "work/$t" "artifacts/$t"
    exec "$bin" -artifact_prefix="artifacts/$t/" -runs="$runs" -timeout=120 -rss_limit_mb=4096 \
      -print_final_stats=1 "$@" "work/$t" "corpus/$t" ;;
esac
