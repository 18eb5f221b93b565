#!/usr/bin/env bash
# The "real control plane, every scenario" tier of tests/run-all.sh: every scenario
# (`gpulab parity --backend kube --real-containerd`) and the generated scenarios
# (`gpulab scenario generate`, then `gpulab parity --backend kube`) replayed live against
# real control planes of the kube-oracle binary, every expectation compared with the
# model; any difference fails the tier.
#
# The replays spend most of their time waiting for the control plane (the settle loop's
# polls), not computing, so they run side by side on GPULAB_KUBE_CLUSTERS (default 4)
# private clusters, each from `gpulab cluster up` in its own dir: one worker per cluster
# takes the next item from a shared queue (a scenario; or a batch of generated ones) until
# none is left. One cluster per worker, never two replays on one cluster: a scenario's
# nodes are cluster-scoped and the scheduler's texts count every node it sees ("0/3
# nodes are available"), so two replays in separate namespaces of one API server would
# change each other's texts.
#
# Afterwards every cluster is stopped (`gpulab cluster down`, on every exit) and the tier
# fails unless none of the clusters' PIDs is still the kube-oracle binary and no process's
# command line names the private dir (the real containerd daemons run under it).
#
# Usage: tests/kube-every-scenario.sh (gpulab cluster up finds the kube-oracle binary in
# the cache; tests/run-all.sh runs this tier only when it is there).
set -euo pipefail
cd "$(dirname "$0")/.."
clusters=${GPULAB_KUBE_CLUSTERS:-4}
gen_seed=${GPULAB_GENERATE_SEED:-1} gen_count=${GPULAB_GENERATE_COUNT:-200}
gen_batch=10
[[ $clusters =~ ^[1-9][0-9]?$ ]] || { echo "GPULAB_KUBE_CLUSTERS=$clusters: expected 1 to 99" >&2; exit 2; }

cargo build --locked -q -p gpulab
kube_tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpulab-parity.XXXXXX")
# A private copy of the binary: a build in the same target dir during the run cannot
# change what runs (check-runtime.sh calls back into it for `cri info`).
cp "${CARGO_TARGET_DIR:-target}/debug/gpulab" "$kube_tmp/gpulab"
gl() { "$kube_tmp/gpulab" "$@"; }

kube_pids=()
# What still runs of this tier: the clusters' PIDs (still the kube-oracle binary; an
# exited process not yet reaped by init has an empty command line), and any process
# whose command line names the private dir (the real containerd daemons, the clusters).
kube_left() {
  local p cmd
  for p in "${kube_pids[@]}"; do
    cmd=$(tr '\0' ' ' 2>/dev/null < "/proc/$p/cmdline") || continue
    [[ $cmd == *kube-oracle* ]] && echo "pid $p: $cmd"
  done
  for p in /proc/[0-9]*; do
    cmd=$(tr '\0' ' ' 2>/dev/null < "$p/cmdline") || continue
    [[ $cmd == *"$kube_tmp"* ]] && echo "pid ${p#/proc/}: $cmd"
  done
  return 0
}
# The replays still running (a failure or Ctrl-C elsewhere): SIGINT, which makes
# `gpulab parity` undo what it created and exit, then up to 20 s for them to go.
stop_replays() {
  local f pid
  for f in "$kube_tmp"/w*.pid; do
    [ -e "$f" ] || continue
    pid=$(<"$f")
    kill -INT "$pid" 2>/dev/null || true
  done
  for _ in $(seq 200); do
    pid=""
    for f in "$kube_tmp"/w*.pid; do
      [ -e "$f" ] && kill -0 "$(<"$f")" 2>/dev/null && pid=$(<"$f")
    done
    [ -z "$pid" ] && break
    sleep 0.1
  done
  return 0
}
kube_down() {
  local rc=$? c left
  touch "$kube_tmp/failed"  # no worker takes another item
  stop_replays
  for ((c = 1; c <= clusters; c++)); do
    [ -d "$kube_tmp/c$c" ] && { gl cluster down --dir "$kube_tmp/c$c" > /dev/null || rc=1; }
  done
  left=$(kube_left)
  [ -z "$left" ] || { echo "left running after cluster down:" >&2; echo "$left" >&2; rc=1; }
  rm -rf "$kube_tmp"
  return "$rc"
}
trap 'kube_down; exit $?' EXIT

# The queue: every scenario (those with the most steps first: the longest items start
# early), then the generated ones in batches.
gl scenario generate --seed "$gen_seed" --count "$gen_count" --out "$kube_tmp/generated" > /dev/null
queue=$kube_tmp/queue
for d in scenarios/*/; do
  [ -f "$d/scenario.toml" ] && echo "$(grep -c '^\[\[step\]\]' "$d/scenario.toml") S ${d%/}"
done | sort -k1,1nr -k3 | cut -d' ' -f2- > "$queue"
n_scenarios=$(wc -l < "$queue")
mapfile -t generated < <(find "$kube_tmp/generated" -mindepth 1 -maxdepth 1 -type d | sort)
[ "${#generated[@]}" -eq "$gen_count" ] || { echo "scenario generate wrote ${#generated[@]} scenarios, not $gen_count" >&2; exit 1; }
for ((i = 0; i < gen_count; i += gen_batch)); do
  echo "G ${generated[*]:i:gen_batch}" >> "$queue"
done
n_items=$(wc -l < "$queue")
echo 0 > "$kube_tmp/next"

# The clusters, one after the other (each picks free ports as it starts); the first
# worker starts as soon as its cluster is up.
next_item() {
  local i
  {
    flock 9
    i=$(<"$kube_tmp/next")
    echo $((i + 1)) > "$kube_tmp/next"
  } 9> "$kube_tmp/next.lock"
  echo "$i"
}
worker() {
  local w=$1 ctx=$2 i line kind dirs rc t0 items=0
  t0=$(date +%s)
  mkdir -p "$kube_tmp/t$w"
  while [ ! -e "$kube_tmp/failed" ]; do
    i=$(next_item)
    [ "$i" -lt "$n_items" ] || break
    line=$(sed -n "$((i + 1))p" "$queue")
    kind=${line%% *} dirs=${line#* }
    # A scenario with a real containerd daemon per node (under the worker's TMPDIR); the
    # generated ones are pods only, so the settle loop looks every 250 ms.
    # shellcheck disable=SC2086 # the batch's dirs are space-separated paths without spaces
    if [ "$kind" = S ]; then
      GPULAB_KUBECONFIG="$kube_tmp/c$w/kubeconfig" TMPDIR="$kube_tmp/t$w" \
        "$kube_tmp/gpulab" parity $dirs --backend kube --context "$ctx" --real-containerd > "$kube_tmp/out.$i" 2> "$kube_tmp/err.$i" &
    else
      GPULAB_KUBECONFIG="$kube_tmp/c$w/kubeconfig" GPULAB_KUBE_POLL_MS=250 \
        "$kube_tmp/gpulab" parity $dirs --backend kube --context "$ctx" > "$kube_tmp/out.$i" 2> "$kube_tmp/err.$i" &
    fi
    echo $! > "$kube_tmp/w$w.pid"
    rc=0
    wait $! || rc=$?
    rm -f "$kube_tmp/w$w.pid"
    echo "$kind $rc" > "$kube_tmp/rc.$i"
    items=$((items + 1))
    [ "$rc" -eq 0 ] || { touch "$kube_tmp/failed"; break; }
  done
  echo "cluster $w: $items items in $(($(date +%s) - t0)) s" > "$kube_tmp/worker.$w"
}
workers=()
for ((c = 1; c <= clusters; c++)); do
  gl cluster up --dir "$kube_tmp/c$c" > "$kube_tmp/up.$c"
  head -n 1 "$kube_tmp/up.$c"
  mapfile -t pids < <(sed -n 's/.*(pids: \([^)]*\)).*/\1/p' "$kube_tmp/up.$c" | grep -oE '[0-9]+')
  [ "${#pids[@]}" -eq 4 ] || { echo "cluster up named ${#pids[@]} PIDs, not 4" >&2; exit 1; }
  kube_pids+=("${pids[@]}")
  ctx=$(sed -n 's/^kubeconfig: .* (context \(.*\))$/\1/p' "$kube_tmp/up.$c")
  worker "$c" "$ctx" &
  workers+=($!)
done
for p in "${workers[@]}"; do wait "$p"; done
cat "$kube_tmp"/worker.*

# Each kind's results: every item's lines, then what stays uncompared, by reason, and
# the totals (the sums over every item), which must count every scenario.
merge() {
  awk '
    /^not compared, by reason:$/ { r = 1; next }
    r && /^ +[0-9]+  / {
      n = $1; t = $0; sub(/^ +[0-9]+  /, "", t)
      i = index(t, ": "); f = substr(t, 1, i - 1); why = substr(t, i + 2)
      if (!(why in c)) { o[++k] = why; fs[why] = "" }
      c[why] += n
      m = split(f, fl, ", ")
      for (j = 1; j <= m; j++) if (index(", " fs[why] ", ", ", " fl[j] ", ") == 0) fs[why] = fs[why] == "" ? fl[j] : fs[why] ", " fl[j]
      next
    }
    { r = 0 }
    /^[0-9]+ scenarios: [0-9]+ agree, [0-9]+ differ, [0-9]+ not compared$/ { s += $1; a += $3; d += $5; u += $7; next }
    { print }
    END {
      # as the model orders them: most first, then by reason
      for (i = 2; i <= k; i++) for (j = i; j > 1 && (c[o[j]] > c[o[j - 1]] || (c[o[j]] == c[o[j - 1]] && o[j] < o[j - 1])); j--) { x = o[j]; o[j] = o[j - 1]; o[j - 1] = x }
      if (k) { print "not compared, by reason:"; for (i = 1; i <= k; i++) printf "  %4d  %s: %s\n", c[o[i]], fs[o[i]], o[i] }
      printf "%d scenarios: %d agree, %d differ, %d not compared\n", s, a, d, u
    }' "$@"
}
failed=0
for ((i = 0; i < n_items; i++)); do
  line=$(sed -n "$((i + 1))p" "$queue")
  if [ ! -e "$kube_tmp/rc.$i" ]; then
    failed=1
  elif [ "$(cut -d' ' -f2 "$kube_tmp/rc.$i")" != 0 ]; then
    failed=1
    echo "failed: gpulab parity ${line#* } (exit $(cut -d' ' -f2 "$kube_tmp/rc.$i"))"
    grep -E '^(DIFFER|  error)| differ ' "$kube_tmp/out.$i" | head -n 60 || true
    tail -n 5 "$kube_tmp/err.$i"
    tail -n 1 "$kube_tmp/out.$i"
    if [ "${line%% *}" = G ]; then echo "reproduce: gpulab scenario generate --seed $gen_seed --count $gen_count --out DIR" >&2; fi
  fi
done
[ "$failed" = 0 ] || { echo "the tier failed (an item not run was not compared: see the failure above)" >&2; exit 1; }
s_outs=() g_outs=()
for ((i = 0; i < n_items; i++)); do
  case $(cut -d' ' -f1 "$kube_tmp/rc.$i") in
    S) s_outs+=("$kube_tmp/out.$i") ;;
    G) g_outs+=("$kube_tmp/out.$i") ;;
  esac
done
mkdir -p target
merge "${s_outs[@]}" > target/parity-kube.txt
merge "${g_outs[@]}" > target/parity-generated.txt
sed -n '/^not compared, by reason:/,$p' target/parity-kube.txt
tail -n 1 target/parity-generated.txt
s_total=$(tail -n 1 target/parity-kube.txt | cut -d' ' -f1)
g_total=$(tail -n 1 target/parity-generated.txt | cut -d' ' -f1)
if [ "$s_total" != "$n_scenarios" ] || [ "$g_total" != "$gen_count" ]; then
  echo "compared $s_total of $n_scenarios scenarios and $g_total of $gen_count generated" >&2
  exit 1
fi
trap - EXIT
kube_down
echo "stopped: none of the clusters' PIDs (${kube_pids[*]}) nor anything under their private dir runs"
