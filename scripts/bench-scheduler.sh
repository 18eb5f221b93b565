#!/usr/bin/env bash
# Side by side (issue 15, item 7): the same cluster scheduled by the model and by the
# real kube-scheduler (the cached kube-oracle, `scripts/oracle-kube.sh` builds it), from
# one run: pods per second of each and the ratio. A benchmark, not a test.
#   scripts/bench-scheduler.sh [--nodes 500] [--pods 1000] [--scheduler-qps Q]
# Builds crates/cli/examples/scheduler_side_by_side.rs in the `bench-native` profile
# (the release profile's opt-level "z", no LTO); the control plane runs in a private
# temp dir and is stopped by PID when the run ends.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --locked -q --profile bench-native -p gpulab --example scheduler_side_by_side -- "$@"
