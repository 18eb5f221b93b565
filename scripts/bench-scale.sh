#!/usr/bin/env bash
# The CLI at a real cluster's size (issue 19): `gpulab rollout` and `gpulab schedule`
# on clusters from scripts/gen-cluster.sh, timed as a user runs them (the binary of
# the `native` profile — the release profile at opt-level 3, Cargo.toml — under
# /usr/bin/time -v: wall time, user + system CPU, max RSS).
#
#   scripts/bench-scale.sh [N...]          default: 500 5000 20000
#
# Each command's stdout is checked against scripts/bench-scale.sums (sha256 per case),
# so a faster build that prints anything else fails here; GPULAB_BENCH_RECORD=1 writes
# the sums instead (only when the output is meant to change). The kubectl-style dumps
# (`kind: List`, YAML and JSON, and `-f -` from stdin) must print what the plain files
# print. GPULAB=path uses that binary instead of building one; GPULAB_BENCH_DIR keeps
# the generated files (default target/scale).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(500 5000 20000)
dir=${GPULAB_BENCH_DIR:-target/scale}
sums=scripts/bench-scale.sums
if [ -z "${GPULAB:-}" ]; then
  cargo build --profile native --locked -q -p gpulab
  GPULAB=${CARGO_TARGET_DIR:-target}/native/gpulab
fi
[ -x /usr/bin/time ] || { echo "bench-scale: needs /usr/bin/time (Debian package time)" >&2; exit 2; }

failed=0
record=()

# run NAME OUT CMD...: runs CMD under /usr/bin/time, stdout to OUT; prints one row.
run() {
  local name=$1 out=$2; shift 2
  local t; t=$(mktemp)
  local rc=0
  /usr/bin/time -v -o "$t" "$@" >"$out" 2>"$out.err" || rc=$?
  local wall user sys rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$t")
  user=$(awk -F': ' '/User time/ {print $2}' "$t")
  sys=$(awk -F': ' '/System time/ {print $2}' "$t")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2 / 1024}' "$t")
  rm -f "$t"
  printf '%-34s %10s %8.2f %7s MB  exit %s\n' "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$rss" "$rc"
}

# check NAME OUT: the output's sum against the recorded one.
check() {
  local name=$1 out=$2 sum
  sum=$(sha256sum "$out" | cut -d' ' -f1)
  record+=("$sum  $name")
  [ "${GPULAB_BENCH_RECORD:-}" = 1 ] && return
  local want; want=$(awk -v n="$name" '$2 == n {print $1}' "$sums" 2>/dev/null)
  if [ -z "$want" ]; then
    echo "  $name: no recorded sum in $sums" >&2; failed=1
  elif [ "$sum" != "$want" ]; then
    echo "  $name: output differs from the recorded one ($out)" >&2; failed=1
  fi
}

# same A B: two outputs must be byte-identical.
same() {
  cmp -s "$1" "$2" || { echo "  $2 differs from $1" >&2; failed=1; }
}

# The machine's load goes with the figures (wall time on a shared machine is only
# comparable at a similar load; CPU seconds less so, instructions not at all).
echo "before: $(cut -d' ' -f1-3 /proc/loadavg) (load average 1/5/15 min), $(nproc) cores"
printf '%-34s %10s %8s %10s\n' case wall cpu_s max_rss
for n in "${sizes[@]}"; do
  d=$dir/$n
  scripts/gen-cluster.sh "$n" 1 "$d"
  run "rollout/$n" "$d/rollout.out" "$GPULAB" rollout "$d/nodes.yaml" "$d/v1.yaml" "$d/v2.yaml"
  check "rollout/$n" "$d/rollout.out"
  run "schedule/$n" "$d/schedule.out" "$GPULAB" schedule --nodes "$d/cluster.yaml" --pod "$d/pod.yaml"
  check "schedule/$n" "$d/schedule.out"
  if [ "${GPULAB_BENCH_DUMPS:-1}" = 1 ] && "$GPULAB" schedule --help | grep -q -- '--filename'; then
    # A dump holds no RuntimeClass (`kubectl get nodes,pods`): it comes from its own file.
    rc=$d/runtimeclass.yaml
    run "schedule/$n (dump.yaml)" "$d/schedule-dump-yaml.out" "$GPULAB" schedule -f "$d/dump.yaml" --pod "$d/pod.yaml" --runtimeclasses "$rc"
    same "$d/schedule.out" "$d/schedule-dump-yaml.out"
    # shellcheck disable=SC2016 # the inner script expands its own positional arguments
    run "schedule/$n (dump.json, -f -)" "$d/schedule-dump-json.out" sh -c '"$1" schedule -f - --pod "$3" --runtimeclasses "$4" <"$2"' sh "$GPULAB" "$d/dump.json" "$d/pod.yaml" "$rc"
    same "$d/schedule.out" "$d/schedule-dump-json.out"
    # shellcheck disable=SC2016 # the inner script expands its own positional arguments
    run "rollout/$n (dump.json, -f -)" "$d/rollout-dump.out" sh -c '"$1" rollout -f - -f "$3" "$4" "$5" <"$2"' sh "$GPULAB" "$d/dump.json" "$rc" "$d/v1.yaml" "$d/v2.yaml"
    same "$d/rollout.out" "$d/rollout-dump.out"
  fi
done

echo "after: $(cut -d' ' -f1-3 /proc/loadavg) (load average 1/5/15 min)"

if [ "${GPULAB_BENCH_RECORD:-}" = 1 ]; then
  # Keep the sums of sizes not run this time.
  { for r in "${record[@]}"; do echo "$r"; done
    if [ -f "$sums" ]; then awk 'NR == FNR {seen[$2] = 1; next} !($2 in seen)' <(for r in "${record[@]}"; do echo "$r"; done) "$sums"; fi
  } | sort -k2 -V >"$sums.new"
  mv "$sums.new" "$sums"
  echo "recorded $sums"
fi
exit $failed
