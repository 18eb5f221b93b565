#!/bin/sh
# check-runtime.sh — judge what containerd LOADED, not what the config file says.
#
# A node post-boot check or CI gate. Its verdict comes from the running daemon (the
# CRI plugin rows of `ctr plugins ls`, the live CRI status with its loaded config)
# and from `containerd config dump` (what the files merge into on the NEXT start),
# never from reading config.toml alone. So it tells the truth whether or not
# containerd was restarted after a drop-in was written.
#
# Checks (each reports what it looked at and what it saw):
#   1 daemon        the daemon answers on its socket (else: not running — e.g. after a
#                   SIGHUP, which terminates containerd; it never reloads)
#   2 cri-plugins   the CRI plugin rows of `ctr plugins ls` are ok (1.x: io.containerd.grpc.v1 cri;
#                   2.x also io.containerd.cri.v1 runtime and images); if not, containerd's reason
#   3 loaded        the loaded CRI config (live CRI status, verbose) has the handler, and its
#                   runtime binary exists
#   4 files         the merged files (`containerd config dump`, 1.x and 2.x formats) have the
#                   handler, define the default runtime, and kept the main config's settings of
#                   the --keep runtime (a drop-in that replaced the CRI table is caught here)
#   5 restart       dump and loaded differ: files changed since containerd started, restart
#                   needed (a restart, not SIGHUP)
#
# Exit codes (for CI gates):
#   0 all good   1 a check failed   2 restart needed   3 containerd not reachable   4 usage error
# Precedence: 3 > 2 > 1. Exit 2 means the running state is stale; it does NOT mean a restart
# is safe: when check 4 failed too, the restart would load a broken config — fix the files first.
#
# Needs: containerd, ctr, awk, sed, grep; for the live CRI view `crictl` or `gpulab cri info`.
# Environment: GPULAB = path of the gpulab binary (used instead of crictl when set);
# LC_ALL / LC_MESSAGES / LANG starting with "ko" = Korean messages.
# Test hook: none needed — tests put stand-in `containerd`, `ctr` and `crictl` first on PATH.

set -u

ADDRESS=/run/containerd/containerd.sock
CONFIG=/etc/containerd/config.toml
HANDLER=nvidia
KEEP=runc
JSON=0
QUIET=0

usage() {
  cat <<'EOF'
Usage: check-runtime.sh [--address PATH] [--config PATH] [--handler NAME] [--keep RUNTIME]
                        [--json] [--quiet] [--help]

Judges what containerd has LOADED (plugin status, live CRI config) and what its files
will load on the next start (containerd config dump); never the file alone.

  --address PATH   containerd socket (default /run/containerd/containerd.sock)
  --config PATH    main config (default /etc/containerd/config.toml)
  --handler NAME   runtime handler that must be loaded (default nvidia)
  --keep RUNTIME   runtime whose main-config settings must survive the merge (default runc)
  --json           print the result as JSON
  --quiet          print only the verdict line
  --help           this text

Exit: 0 all good, 1 a check failed, 2 restart needed, 3 containerd not reachable, 4 usage error.
Live CRI view: $GPULAB cri info if GPULAB is set, else crictl info, else gpulab cri info.
EOF
}

usage_error() {
  printf 'check-runtime.sh: %s\n' "$1" >&2
  printf 'Try: check-runtime.sh --help\n' >&2
  exit 4
}

while [ $# -gt 0 ]; do
  case $1 in
    --address|--config|--handler|--keep)
      [ $# -ge 2 ] || usage_error "$1 needs a value"
      [ -n "$2" ] || usage_error "$1 needs a non-empty value"
      case $1 in
        --address) ADDRESS=$2 ;;
        --config) CONFIG=$2 ;;
        --handler) HANDLER=$2 ;;
        --keep) KEEP=$2 ;;
      esac
      shift 2 ;;
    --address=*) ADDRESS=${1#*=}; shift ;;
    --config=*) CONFIG=${1#*=}; shift ;;
    --handler=*) HANDLER=${1#*=}; shift ;;
    --keep=*) KEEP=${1#*=}; shift ;;
    --json) JSON=1; shift ;;
    --quiet) QUIET=1; shift ;;
    --help|-h) usage; exit 0 ;;
    *) usage_error "unknown option: $1" ;;
  esac
done

LOCALE=${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}
case $LOCALE in ko*) LANGUAGE_KO=1 ;; *) LANGUAGE_KO=0 ;; esac
# Tools below sort and compare bytes, whatever the user's locale: same output everywhere.
LC_ALL=C
export LC_ALL

TMP=$(mktemp -d "${TMPDIR:-/tmp}/check-runtime.XXXXXX") || { echo "check-runtime.sh: cannot create a temp dir" >&2; exit 3; }
trap 'rm -rf "$TMP"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
FINDINGS=$TMP/findings
: >"$FINDINGS"

US=$(printf '\037')

# first_bytes N FILE — at most N bytes (POSIX has no head -c).
first_bytes() { dd if="$2" bs="$1" count=1 2>/dev/null; }

# one-line: newlines and tabs to spaces, so every value is one field of one record.
one_line() { tr '\n\t\037' '   ' | sed 's/  */ /g; s/^ //; s/ $//'; }

# finding CHECK STATUS CODE [key=value ...] — records one finding of a check.
finding() {
  _check=$1 _status=$2 _code=$3
  shift 3
  _args=
  for _kv in "$@"; do
    _kv=$(printf '%s' "$_kv" | one_line)
    if [ -z "$_args" ]; then _args=$_kv; else _args=$_args$US$_kv; fi
  done
  printf '%s\t%s\t%s\t%s\n' "$_check" "$_status" "$_code" "$_args" >>"$FINDINGS"
}

# ---------------------------------------------------------------------------------------
# Parsers (awk). Each prints records "kind<TAB>name<TAB>key<TAB>value".

# CRI runtime tables of a TOML file (a dump or the main config): for every table
#   [plugins.<cri>.containerd.runtimes.<name>] and [... .<name>.options]
# prints "runtime<TAB>name", "opt<TAB>name<TAB>key<TAB>value" (the runtime's runtime_type
# as key "@runtime_type", option keys as they are; other runtime keys differ in name and
# defaults between the dump and the live view, so they are not compared), and "default<TAB><name>" for
# containerd.default_runtime_name. <cri> is cri (v1 short id), io.containerd.grpc.v1.cri
# (v2) or io.containerd.cri.v1.runtime (v3+). Also "version<TAB>N" for the top-level version.
# With an argument, only that plugin id counts.
toml_runtimes() {
  awk -v want="${1:-}" '
  function unquote(s) { gsub(/^["'\'']|["'\'']$/, "", s); return s }
  # split a header/key path into parts (quoted parts may hold dots); returns count
  function split_path(s, parts,    n, c, i, q, cur) {
    n = 0; cur = ""; q = ""
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (q != "") { if (c == q) q = ""; else cur = cur c; continue }
      if (c == "\"" || c == "'\''") { q = c; continue }
      if (c == " " || c == "\t") continue
      if (c == ".") { parts[++n] = cur; cur = ""; continue }
      cur = cur c
    }
    parts[++n] = cur
    return n
  }
  function value(v) {
    sub(/^[ \t]+/, "", v)
    if (v ~ /^"/) { sub(/^"/, "", v); sub(/"[ \t]*(#.*)?$/, "", v); return v }
    if (v ~ /^'\''/) { sub(/^'\''/, "", v); sub(/'\''[ \t]*(#.*)?$/, "", v); return v }
    sub(/[ \t]*#.*$/, "", v); sub(/[ \t]+$/, "", v); return v
  }
  function cri_id(id) {
    if (want != "") return id == want
    return id == "cri" || id == "io.containerd.grpc.v1.cri" || id == "io.containerd.cri.v1.runtime"
  }
  # sets ctx: "" (elsewhere), "C" (the CRI containerd table), "R" (a runtime), "O" (its options)
  function context(p, n) {
    ctx = ""; rt = ""
    if (n < 3 || p[1] != "plugins" || !cri_id(p[2]) || p[3] != "containerd") return
    if (n == 3) { ctx = "C"; return }
    if (p[4] != "runtimes" || n < 5) return
    rt = p[5]
    if (n == 5) { ctx = "R"; print "runtime\t" rt; return }
    if (n == 6 && p[6] == "options") { ctx = "O"; return }
  }
  BEGIN { ctx = ""; top = 1 }
  /^[ \t]*#/ || /^[ \t]*$/ { next }
  /^[ \t]*\[\[/ { ctx = ""; top = 0; next }
  /^[ \t]*\[/ {
    h = $0; sub(/^[ \t]*\[/, "", h); sub(/\][ \t]*(#.*)?$/, "", h)
    n = split_path(h, p); top = 0; context(p, n); next
  }
  /=/ {
    k = $0; sub(/[ \t]*=.*/, "", k); sub(/^[ \t]+/, "", k)
    v = $0; sub(/^[^=]*=/, "", v); v = value(v)
    if (top && k == "version") { print "version\t" v; next }
    # dotted keys below the current table, e.g. options.SystemdCgroup = true
    m = split_path(k, kp)
    if (ctx == "C" && m == 1 && kp[1] == "default_runtime_name") print "default\t" v
    else if (ctx == "R" && m == 1 && kp[1] == "runtime_type") print "opt\t" rt "\t@runtime_type\t" v
    else if (ctx == "R" && m == 2 && kp[1] == "options") print "opt\t" rt "\t" kp[2] "\t" v
    else if (ctx == "O" && m == 1) print "opt\t" rt "\t" kp[1] "\t" v
  }'
}

# The loaded CRI config from CRI status JSON (crictl info / gpulab cri info), any layout:
# a small JSON tokenizer, then the same records as toml_runtimes for
# config.containerd.runtimes.<name>{runtimeType, options.<key>} and defaultRuntimeName.
# Prints "json-error" when the input is not one JSON object.
json_runtimes() {
  awk '
  function emit(path, v,    n, p) {
    n = split(path, p, SUBSEP)
    if (n < 3 || p[1] != "config" || p[2] != "containerd") return
    if (n == 3 && p[3] == "defaultRuntimeName") { print "default\t" v; return }
    if (p[3] != "runtimes" || n < 6) return
    if (n == 6 && p[5] == "options") print "opt\t" p[4] "\t" p[6] "\t" v
  }
  function seen_runtime(path,    n, p) {
    n = split(path, p, SUBSEP)
    if (n == 4 && p[1] == "config" && p[2] == "containerd" && p[3] == "runtimes") print "runtime\t" p[4]
    if (n == 5 && p[1] == "config" && p[2] == "containerd" && p[3] == "runtimes" && p[5] == "runtimeType") return 1
    return 0
  }
  { buf = buf $0 "\n" }
  END {
    i = 1; L = length(buf); depth = 0; bad = 0; expect_key = 0; key = ""; objs = 0
    while (i <= L) {
      c = substr(buf, i, 1)
      if (c ~ /[ \t\r\n]/) { i++; continue }
      if (c == "\"") {
        s = ""; i++
        while (i <= L) {
          c = substr(buf, i, 1)
          if (c == "\\") { d = substr(buf, i + 1, 1); s = s (d == "n" ? " " : (d == "t" ? " " : d)); i += 2; continue }
          if (c == "\"") break
          s = s c; i++
        }
        if (i > L) { bad = 1; break }
        i++
        tok = "s"; val = s
      } else if (c == "{" || c == "[") {
        if (depth == 0 && c == "{") objs++
        if (depth == 0 && c == "[") { bad = 1; break }
        path_here = (depth == 0) ? "" : (kind[depth] == "{" ? pathof[depth] (pathof[depth] == "" ? "" : SUBSEP) key : pathof[depth] (pathof[depth] == "" ? "" : SUBSEP) "#")
        if (depth > 0 && kind[depth] == "{") seen_runtime(path_here)
        depth++; kind[depth] = c; pathof[depth] = path_here; expect_key = (c == "{"); i++; continue
      } else if (c == "}" || c == "]") {
        if (depth == 0) { bad = 1; break }
        depth--; expect_key = 0; i++; continue
      } else if (c == ":") { expect_key = 0; i++; continue
      } else if (c == ",") { if (depth > 0 && kind[depth] == "{") expect_key = 1; i++; continue
      } else {
        s = ""
        while (i <= L && substr(buf, i, 1) !~ /[ \t\r\n,}\]:]/) { s = s substr(buf, i, 1); i++ }
        if (s !~ /^(true|false|null|-?[0-9][0-9.eE+-]*)$/) { bad = 1; break }
        tok = "v"; val = (s == "null") ? "" : s
      }
      if (depth == 0) { bad = 1; break }
      if (kind[depth] == "{" && expect_key) { key = val; expect_key = 0; continue }
      p = pathof[depth] (pathof[depth] == "" ? "" : SUBSEP) (kind[depth] == "{" ? key : "#")
      if (seen_runtime(p)) { split(p, q, SUBSEP); print "opt\t" q[4] "\t@runtime_type\t" val }
      emit(p, val)
    }
    if (bad || depth != 0 || objs != 1) print "json-error"
  }'
}

# field KIND [NAME [KEY]] < records — values of matching records.
names_of() { awk -F '\t' '$1 == "runtime" { print $2 }' "$1" | sort -u | tr '\n' ' ' | sed 's/ $//'; }
default_of() { awk -F '\t' '$1 == "default" { v = $2 } END { print v }' "$1"; }
opt_of() { awk -F '\t' -v n="$2" -v k="$3" '$1 == "opt" && $2 == n && $3 == k { v = $4 } END { print v }' "$1"; }
has_runtime() { awk -F '\t' -v n="$2" '$1 == "runtime" && $2 == n { f = 1 } END { exit !f }' "$1"; }

# Normalised settings of one runtime: "key=value" lines, zero values dropped (0, false, "",
# []) so that a default written out in one view and omitted in the other is no difference.
settings_of() {
  awk -F '\t' -v n="$2" '$1 == "opt" && $2 == n && $4 != "" && $4 != "0" && $4 != "false" && $4 != "[]" { s[$3] = $4 }
    END { for (k in s) print k "=" s[k] }' "$1" | sort
}

# ---------------------------------------------------------------------------------------
# Check 1: the daemon answers on its socket.
DAEMON_OK=0
CTR="ctr --address $ADDRESS --connect-timeout 3s --timeout 10s"
LOOK1="ctr --address $ADDRESS plugins ls"
if [ ! -e "$ADDRESS" ]; then
  finding 1 fail daemon-not-running "address=$ADDRESS" "detail=no socket at $ADDRESS"
elif [ ! -S "$ADDRESS" ]; then
  finding 1 fail daemon-not-containerd "address=$ADDRESS" "detail=$ADDRESS is not a socket"
else
  # shellcheck disable=SC2086 # $CTR is a fixed word list built above
  if $CTR plugins ls >"$TMP/plugins" 2>"$TMP/plugins.err"; then
    if grep -q '^io\.containerd\.' "$TMP/plugins"; then
      DAEMON_OK=1
      finding 1 pass daemon-answers "address=$ADDRESS"
    else
      finding 1 fail daemon-not-containerd "address=$ADDRESS" "detail=$(first_bytes 300 "$TMP/plugins" | one_line)"
    fi
  else
    err=$(one_line <"$TMP/plugins.err")
    case $err in
      *"permission denied"*) finding 1 fail daemon-permission-denied "address=$ADDRESS" "detail=$err" ;;
      *"connection refused"*|*"no such file"*) finding 1 fail daemon-not-running "address=$ADDRESS" "detail=$err" ;;
      *) finding 1 fail daemon-not-containerd "address=$ADDRESS" "detail=$err" ;;
    esac
  fi
fi

# Check 2: CRI plugin rows.
CRI_REASON=
if [ "$DAEMON_OK" = 1 ]; then
  awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" || $1 == "io.containerd.cri.v1" && ($2 == "runtime" || $2 == "images") { print $1 "." $2 "\t" $1 "\t" $2 "\t" $NF }' \
    "$TMP/plugins" >"$TMP/cri-rows"
  if grep -q '^io\.containerd\.cri\.v1\.' "$TMP/cri-rows"; then
    expected="io.containerd.cri.v1.runtime io.containerd.cri.v1.images io.containerd.grpc.v1.cri"
  else
    expected="io.containerd.grpc.v1.cri"
  fi
  rows=; bad=; first_bad=; first_type=; first_id=
  for plugin in $expected; do
    status=$(awk -F '\t' -v p="$plugin" '$1 == p { print $4 }' "$TMP/cri-rows")
    [ -n "$status" ] || status=absent
    rows="${rows:+$rows, }$plugin=$status"
    if [ "$status" != ok ]; then
      bad="${bad:+$bad, }$plugin=$status"
      if [ -z "$first_bad" ]; then
        first_bad=$plugin
        first_type=${plugin%.*}
        first_id=${plugin##*.}
      fi
    fi
  done
  if [ -z "$bad" ]; then
    finding 2 pass cri-plugins-ok "plugins=$rows"
  else
    if [ "$(awk -F '\t' -v p="$first_bad" '$1 == p { print $4 }' "$TMP/cri-rows")" = "" ]; then
      CRI_REASON="not listed (disabled_plugins, or a containerd without CRI)"
    else
      # shellcheck disable=SC2086
      $CTR plugins ls -d "type==$first_type,id==$first_id" >"$TMP/detail" 2>/dev/null
      CRI_REASON=$(sed -n 's/^[[:blank:]]*Message:[[:blank:]]*//p' "$TMP/detail" | head -n 1)
      [ -n "$CRI_REASON" ] || CRI_REASON="(containerd gave no reason)"
    fi
    finding 2 fail cri-plugin-error "plugins=$bad" "reason=$CRI_REASON"
  fi
else
  finding 2 skip skipped-daemon-down
fi

# Check 3: the loaded CRI config (live CRI status).
LOADED_OK=0
if [ "$DAEMON_OK" = 1 ]; then
  if [ -n "${GPULAB:-}" ]; then
    source="$GPULAB cri info"; "$GPULAB" cri info --address "$ADDRESS" >"$TMP/info" 2>"$TMP/info.err"; rc=$?
  elif command -v crictl >/dev/null 2>&1; then
    source="crictl info"; crictl --runtime-endpoint "unix://$ADDRESS" --timeout 10s info >"$TMP/info" 2>"$TMP/info.err"; rc=$?
  elif command -v gpulab >/dev/null 2>&1; then
    source="gpulab cri info"; gpulab cri info --address "$ADDRESS" >"$TMP/info" 2>"$TMP/info.err"; rc=$?
  else
    source="crictl / gpulab"; rc=127; echo "neither crictl nor gpulab is installed" >"$TMP/info.err"
  fi
  if [ "$rc" != 0 ]; then
    finding 3 fail loaded-unavailable "source=$source" "detail=$(first_bytes 400 "$TMP/info.err" | one_line)"
  else
    json_runtimes <"$TMP/info" >"$TMP/loaded"
    if grep -q '^json-error' "$TMP/loaded" || ! grep -q '^default' "$TMP/loaded"; then
      finding 3 fail loaded-unrecognised "source=$source"
    else
      LOADED_OK=1
      if ! has_runtime "$TMP/loaded" "$HANDLER"; then
        finding 3 fail loaded-handler-missing "handler=$HANDLER" "handlers=$(names_of "$TMP/loaded")" "source=$source"
      else
        binary=$(opt_of "$TMP/loaded" "$HANDLER" BinaryName)
        if [ -z "$binary" ]; then
          rtype=$(opt_of "$TMP/loaded" "$HANDLER" @runtime_type)
          # containerd's shim name rule: io.containerd.runc.v2 -> containerd-shim-runc-v2
          binary=$(printf '%s' "$rtype" | awk -F . 'NF >= 4 { print "containerd-shim-" $(NF-1) "-" $NF }')
        fi
        case $binary in
          "") found=0 ;;
          */*) if [ -x "$binary" ] && [ -f "$binary" ]; then found=1; else found=0; fi ;;
          *) if command -v "$binary" >/dev/null 2>&1; then found=1; else found=0; fi ;;
        esac
        if [ "$found" = 1 ]; then
          finding 3 pass loaded-handler-ok "handler=$HANDLER" "binary=$binary" "source=$source"
        else
          finding 3 fail loaded-binary-missing "handler=$HANDLER" "binary=${binary:-(none)}" "source=$source"
        fi
      fi
    fi
  fi
else
  finding 3 skip skipped-daemon-down
fi

# Check 4: the merged files (config dump) — what the next start will load.
DUMP_OK=0
LOOK4="containerd --config $CONFIG config dump"
if containerd --config "$CONFIG" config dump >"$TMP/dump" 2>"$TMP/dump.err"; then
  if ! grep -q '[^[:space:]]' "$TMP/dump"; then
    finding 4 fail dump-empty "config=$CONFIG"
  else
    version=$(toml_runtimes <"$TMP/dump" | awk -F '\t' '$1 == "version" { print $2; exit }')
    case $version in
      1|2) CRI_ID=io.containerd.grpc.v1.cri ;;
      [3-9]) CRI_ID=io.containerd.cri.v1.runtime ;;
      *) CRI_ID= ;;
    esac
    if [ -z "$CRI_ID" ]; then
      finding 4 fail dump-unrecognised "config=$CONFIG" "detail=no top-level version line"
    else
      toml_runtimes "$CRI_ID" <"$TMP/dump" >"$TMP/merged"
      if ! grep -q '^runtime' "$TMP/merged" || ! grep -q '^default' "$TMP/merged"; then
        finding 4 fail dump-unrecognised "config=$CONFIG" "detail=no [plugins.\"$CRI_ID\".containerd.runtimes] table with a default_runtime_name"
      else
        DUMP_OK=1
        ok4=1
        handlers=$(names_of "$TMP/merged")
        if ! has_runtime "$TMP/merged" "$HANDLER"; then
          ok4=0; finding 4 fail dump-handler-missing "handler=$HANDLER" "handlers=$handlers"
        fi
        default=$(default_of "$TMP/merged")
        if ! has_runtime "$TMP/merged" "$default"; then
          ok4=0; finding 4 fail dump-default-undefined "default=$default" "handlers=$handlers"
        fi
        # What the main config itself sets for the --keep runtime must survive the merge.
        if [ -r "$CONFIG" ]; then toml_runtimes <"$CONFIG" >"$TMP/main"; else : >"$TMP/main"; fi
        if ! has_runtime "$TMP/merged" "$KEEP"; then
          lost=$(settings_of "$TMP/main" "$KEEP" | sed 's/^@//' | tr '\n' ' ' | sed 's/ $//')
          ok4=0; finding 4 fail dump-keep-lost "runtime=$KEEP" "lost=${lost:-(the runtime itself)}" "handlers=$handlers"
        else
          settings_of "$TMP/main" "$KEEP" >"$TMP/keep-want"
          settings_of "$TMP/merged" "$KEEP" >"$TMP/keep-have"
          lost=$(awk -F '=' 'FILENAME == ARGV[1] { have[$0] = 1; next } !($0 in have) { sub(/^@/, ""); printf "%s%s", sep, $0; sep = " " }' \
            "$TMP/keep-have" "$TMP/keep-want")
          if [ -n "$lost" ]; then
            ok4=0; finding 4 fail dump-keep-lost "runtime=$KEEP" "lost=$lost" "handlers=$handlers"
          fi
        fi
        if [ "$ok4" = 1 ]; then
          finding 4 pass files-ok "handler=$HANDLER" "runtime=$KEEP" "handlers=$handlers"
        fi
      fi
    fi
  fi
else
  finding 4 fail dump-failed "config=$CONFIG" "detail=$(first_bytes 400 "$TMP/dump.err" | one_line)"
fi

# Check 5: dump vs loaded — files changed since containerd started?
if [ "$DAEMON_OK" != 1 ]; then
  finding 5 skip skipped-daemon-down
elif [ "$DUMP_OK" != 1 ]; then
  finding 5 skip skipped-no-dump
elif [ "$LOADED_OK" = 1 ]; then
  diffs=
  ln=$(names_of "$TMP/loaded"); fn=$(names_of "$TMP/merged")
  [ "$ln" = "$fn" ] || diffs="runtimes: loaded [$ln] files [$fn]"
  ld=$(default_of "$TMP/loaded"); fd=$(default_of "$TMP/merged")
  [ "$ld" = "$fd" ] || diffs="${diffs:+$diffs; }default_runtime_name: loaded $ld files $fd"
  for name in $(printf '%s\n%s\n' "$ln" "$fn" | tr ' ' '\n' | sort | uniq -d); do
    settings_of "$TMP/loaded" "$name" >"$TMP/s-loaded"
    settings_of "$TMP/merged" "$name" >"$TMP/s-files"
    if ! cmp -s "$TMP/s-loaded" "$TMP/s-files"; then
      d=$(awk -F '=' -v n="$name" '
        FILENAME == ARGV[1] { l[$1] = substr($0, length($1) + 2); next }
        { f[$1] = substr($0, length($1) + 2) }
        END {
          for (k in l) if (!(k in f) || f[k] != l[k]) out[k] = 1
          for (k in f) if (!(k in l)) out[k] = 1
          for (k in out) { kk = k; sub(/^@/, "", kk); printf "%s.%s: loaded %s files %s\n", n, kk, (k in l ? l[k] : "-"), (k in f ? f[k] : "-") }
        }' "$TMP/s-loaded" "$TMP/s-files" | sort | tr '\n' ';' | sed 's/;$//; s/;/; /g')
      diffs="${diffs:+$diffs; }$d"
    fi
  done
  if [ -n "$diffs" ]; then
    finding 5 restart restart-needed "differences=$diffs"
  else
    finding 5 pass loaded-matches-files
  fi
else
  # No loaded view (the CRI plugin failed). If it failed because the default runtime was
  # undefined, and the files now define it, the files cannot be what was loaded.
  fd=$(default_of "$TMP/merged")
  case $CRI_REASON in
    *"no corresponding runtime configured"*)
      if has_runtime "$TMP/merged" "$fd"; then
        finding 5 restart restart-needed "differences=loaded CRI failed: $CRI_REASON; files now define default_runtime_name $fd"
      else
        finding 5 skip cannot-compare "reason=$CRI_REASON"
      fi ;;
    *) finding 5 skip cannot-compare "reason=${CRI_REASON:-no loaded CRI config}" ;;
  esac
fi

# ---------------------------------------------------------------------------------------
# Verdict and output.
if grep -q '^1	fail' "$FINDINGS"; then EXIT=3; VERDICT=not-reachable
elif grep -q '	restart	' "$FINDINGS"; then EXIT=2; VERDICT=restart-needed
elif grep -q '	fail	' "$FINDINGS"; then EXIT=1; VERDICT='check-failed'
else EXIT=0; VERDICT=pass
fi

arg() { printf '%s' "$ARGS" | tr "$US" '\n' | sed -n "s/^$1=//p" | head -n 1; }

# message CODE — the human text of a finding (ARGS holds its arguments).
message() {
  if [ "$LANGUAGE_KO" = 1 ]; then
    case $1 in
      daemon-answers) echo "containerd가 $(arg address)에서 응답합니다" ;;
      daemon-not-running) echo "containerd가 실행 중이 아닙니다 ($(arg detail)). SIGHUP은 설정을 다시 읽지 않고 containerd를 종료시킵니다. 재시작하세요" ;;
      daemon-permission-denied) echo "$(arg address)에 접근 권한이 없습니다 ($(arg detail)). root로 실행하세요" ;;
      daemon-not-containerd) echo "$(arg address)에서 containerd가 응답하지 않습니다: $(arg detail)" ;;
      cri-plugins-ok) echo "CRI 플러그인 정상: $(arg plugins)" ;;
      cri-plugin-error) echo "CRI 플러그인 실패: $(arg plugins). containerd가 밝힌 이유: $(arg reason)" ;;
      loaded-unavailable) echo "로드된 CRI 설정을 읽을 수 없습니다 ($(arg source)): $(arg detail)" ;;
      loaded-unrecognised) echo "$(arg source) 출력 형식을 인식할 수 없습니다" ;;
      loaded-handler-missing) echo "로드된 CRI 설정에 없는 핸들러: $(arg handler) (로드된 런타임: $(arg handlers))" ;;
      loaded-binary-missing) echo "핸들러 $(arg handler)의 런타임 바이너리가 없습니다: $(arg binary)" ;;
      loaded-handler-ok) echo "핸들러 $(arg handler) 로드됨, 바이너리 $(arg binary) 있음" ;;
      dump-failed) echo "containerd config dump 실패 (다음 시작도 실패합니다): $(arg detail)" ;;
      dump-empty) echo "containerd config dump 출력이 비어 있습니다" ;;
      dump-unrecognised) echo "config dump 형식을 인식할 수 없습니다: $(arg detail)" ;;
      dump-handler-missing) echo "병합된 파일에 없는 핸들러: $(arg handler) (런타임: $(arg handlers))" ;;
      dump-default-undefined) echo "병합된 파일의 default_runtime_name 값($(arg default))에 해당하는 런타임이 정의되어 있지 않습니다 (런타임: $(arg handlers)). 재시작하면 CRI 플러그인이 실패합니다" ;;
      dump-keep-lost) echo "병합 후 메인 설정의 $(arg runtime) 설정이 사라졌습니다: $(arg lost). 드롭인이 CRI 테이블을 통째로 교체했습니다" ;;
      files-ok) echo "병합된 파일에 핸들러 $(arg handler) 항목이 있고 $(arg runtime) 설정이 유지됩니다 (런타임: $(arg handlers))" ;;
      restart-needed) echo "containerd 시작 후 파일이 바뀌었습니다: 재시작이 필요합니다 (SIGHUP 아님). 차이: $(arg differences)" ;;
      loaded-matches-files) echo "로드된 설정과 파일이 일치합니다" ;;
      cannot-compare) echo "로드된 설정이 없어 비교할 수 없습니다: $(arg reason)" ;;
      skipped-daemon-down) echo "건너뜀: containerd에 연결할 수 없습니다" ;;
      skipped-no-dump) echo "건너뜀: config dump를 사용할 수 없습니다" ;;
      *) echo "$1" ;;
    esac
  else
    case $1 in
      daemon-answers) echo "containerd answers on $(arg address)" ;;
      daemon-not-running) echo "containerd is not running ($(arg detail)). SIGHUP does not reload containerd, it terminates it: restart it" ;;
      daemon-permission-denied) echo "permission denied on $(arg address) ($(arg detail)): run as root" ;;
      daemon-not-containerd) echo "$(arg address) does not answer as containerd: $(arg detail)" ;;
      cri-plugins-ok) echo "CRI plugins ok: $(arg plugins)" ;;
      cri-plugin-error) echo "CRI plugin not ok: $(arg plugins). containerd says: $(arg reason)" ;;
      loaded-unavailable) echo "cannot read the loaded CRI config ($(arg source)): $(arg detail)" ;;
      loaded-unrecognised) echo "unrecognised output from $(arg source)" ;;
      loaded-handler-missing) echo "handler $(arg handler) is not in the loaded CRI config (loaded runtimes: $(arg handlers))" ;;
      loaded-binary-missing) echo "runtime binary $(arg binary) of handler $(arg handler) does not exist" ;;
      loaded-handler-ok) echo "handler $(arg handler) is loaded, binary $(arg binary) exists" ;;
      dump-failed) echo "containerd config dump failed (the next start will fail too): $(arg detail)" ;;
      dump-empty) echo "containerd config dump printed nothing" ;;
      dump-unrecognised) echo "unrecognised config dump: $(arg detail)" ;;
      dump-handler-missing) echo "the merged files lack handler $(arg handler) (runtimes: $(arg handlers))" ;;
      dump-default-undefined) echo "the merged files set default_runtime_name = $(arg default), which is not defined (runtimes: $(arg handlers)): the CRI plugin will fail on the next start" ;;
      dump-keep-lost) echo "the merged files lost the main config's $(arg runtime) settings: $(arg lost). A drop-in replaced the CRI table" ;;
      files-ok) echo "the merged files have $(arg handler) and keep the $(arg runtime) settings (runtimes: $(arg handlers))" ;;
      restart-needed) echo "files changed since containerd started: restart needed (restart, not SIGHUP). Differences: $(arg differences)" ;;
      loaded-matches-files) echo "the loaded config matches the files" ;;
      cannot-compare) echo "no loaded config to compare: $(arg reason)" ;;
      skipped-daemon-down) echo "skipped: containerd is not reachable" ;;
      skipped-no-dump) echo "skipped: no usable config dump" ;;
      *) echo "$1" ;;
    esac
  fi
}

verdict_text() {
  if [ "$LANGUAGE_KO" = 1 ]; then
    case $VERDICT in
      pass) echo "통과: containerd가 로드한 설정에 핸들러 $HANDLER 항목이 있고 파일과 일치합니다" ;;
      check-failed) echo "실패: 위 검사를 확인하세요" ;;
      restart-needed) echo "재시작 필요: 파일이 바뀌었지만 containerd는 이전 설정으로 실행 중입니다" ;;
      not-reachable) echo "containerd에 연결할 수 없습니다" ;;
    esac
  else
    case $VERDICT in
      pass) echo "PASS: containerd loaded $HANDLER and the files agree" ;;
      check-failed) echo "FAIL: see the checks above" ;;
      restart-needed) echo "RESTART NEEDED: the files changed, containerd still runs the old config" ;;
      not-reachable) echo "containerd is not reachable" ;;
    esac
  fi
}

looked_at() {
  case $1 in
    1|2) echo "$LOOK1" ;;
    3) echo "crictl info / gpulab cri info ($ADDRESS)" ;;
    4) echo "$LOOK4" ;;
    5) echo "$LOOK4 vs live CRI status" ;;
  esac
}

check_name() {
  case $1 in 1) echo daemon ;; 2) echo cri-plugins ;; 3) echo loaded ;; 4) echo files ;; 5) echo restart ;; esac
}

json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

if [ "$JSON" = 1 ]; then
  printf '{"verdict":%s,"exit":%s,"message":%s,"findings":[' "$(json_str "$VERDICT")" "$EXIT" "$(json_str "$(verdict_text)")"
  sep=
  while IFS='	' read -r check status code ARGS; do
    printf '%s{"check":%s,"name":%s,"status":%s,"code":%s,"looked_at":%s,"args":{' "$sep" "$check" \
      "$(json_str "$(check_name "$check")")" "$(json_str "$status")" "$(json_str "$code")" "$(json_str "$(looked_at "$check")")"
    asep=
    printf '%s\n' "$ARGS" | tr "$US" '\n' | while IFS= read -r kv; do
      [ -n "$kv" ] || continue
      printf '%s%s:%s' "$asep" "$(json_str "${kv%%=*}")" "$(json_str "${kv#*=}")"
      asep=,
    done
    printf '},"message":%s}' "$(json_str "$(message "$code")")"
    sep=,
  done <"$FINDINGS"
  printf ']}\n'
elif [ "$QUIET" = 1 ]; then
  verdict_text
else
  while IFS='	' read -r check status code ARGS; do
    case $status in pass) mark=ok ;; fail) mark=FAIL ;; restart) mark=RESTART ;; *) mark=skip ;; esac
    printf '[%s] %s %s: %s\n' "$mark" "$check" "$(check_name "$check")" "$(message "$code")"
    printf '      %s\n' "$(looked_at "$check")"
  done <"$FINDINGS"
  verdict_text
fi
exit "$EXIT"
