#!/usr/bin/env bash
# Builds the real control plane the parity tests run against:
#   scripts/oracle-kube.sh [VERSION]      (default v1.37.2, the newest the module proxy serves)
# One multi-call binary (oracle/kube: etcd, kube-apiserver, kube-scheduler,
# kube-controller-manager) from upstream source at that Kubernetes release, into
#   ${GPULAB_CACHE:-$HOME/.cache/gpulab}/kube/VERSION/kube-oracle
# Built only if missing or built from other sources (a stamp of the inputs sits beside it);
# prints the binary's path on stdout, progress on stderr. The committed go.mod/go.sum
# (oracle/kube) serve their own release without `go mod tidy`; any other release gets a
# go.mod from gen-gomod.sh and is tidied here. Flags as upstream's hack/lib: CGO off,
# -trimpath, -s -w, and the version ldflags so /version reports the release.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/oracle/kube
version=${1:-v1.37.2}
[[ $version =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || { echo "oracle-kube: '$version' is not a release like v1.37.2" >&2; exit 2; }
minor=${BASH_REMATCH[1]}
cache=${GPULAB_CACHE:-$HOME/.cache/gpulab}/kube/$version
bin=$cache/kube-oracle
# The one approved newer toolchain: Go downloads it as a module when a release's go.mod asks.
NEWER_GO=go1.27.3

say() { echo "oracle-kube: $*" >&2; }
# fail STEP LOG: names the step and the release, the modules the proxy refused, the log's tail.
fail() {
  say "FAILED: $1 for k8s.io/kubernetes $version"
  local refused
  refused=$(grep -oE '[A-Za-z0-9._~/-]+@v[^: ]+: (reading|verifying) [^ ]+: [0-9]{3} [A-Za-z ]+' "$2" | sort -u || true)
  if [ -n "$refused" ]; then
    say "the module proxy refused:"
    while read -r line; do say "  $line"; done <<<"$refused"
  fi
  say "last lines of $1:"; tail -n 25 "$2" | sed 's/^/  /' >&2
  exit 1
}

# What the binary is built from: main.go, the build recipe below (bump RECIPE when the flags
# change), and the committed go.mod/go.sum for their release or gen-gomod.sh for any other.
RECIPE=1
committed=$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$SRC/go.mod")
stamp() {
  { echo "recipe $RECIPE $version"; cat "$SRC/main.go"
    if [ "$committed" = "$version" ]; then cat "$SRC/go.mod" "$SRC/go.sum"; else cat "$SRC/gen-gomod.sh"; fi
  } | sha256sum | cut -d' ' -f1
}
want=$(stamp)
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$want" ]; then echo "$bin"; exit 0; fi

command -v go >/dev/null || { say "go is not on PATH (Go >= 1.26 builds the control plane)"; exit 1; }
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # one build per version at a time; a second caller waits, then reuses the first's binary
if [ -x "$bin" ] && [ "$(cat "$bin.stamp" 2>/dev/null)" = "$want" ]; then echo "$bin"; exit 0; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kube-oracle-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM   # so the EXIT trap also runs when stopped
log=$work/log
cp "$SRC/main.go" "$work/"
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0
if [ "$committed" = "$version" ]; then
  cp "$SRC/go.mod" "$SRC/go.sum" "$work/"
else
  "$SRC/gen-gomod.sh" "$version" "$work" >"$log" 2>&1 || fail "gen-gomod.sh (reading the release's go.mod)" "$log"
fi

# The toolchain: the local go unless the release's go.mod needs newer.
need=$(awk '$1 == "go" {print $2; exit}' "$work/go.mod")
have=$(GOTOOLCHAIN=local go env GOVERSION); have=${have#go}
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | tail -n 1)" = "$have" ]; then
  export GOTOOLCHAIN=local
else
  export GOTOOLCHAIN=$NEWER_GO
  say "go.mod needs go $need, have $have: using GOTOOLCHAIN=$GOTOOLCHAIN (downloaded as a module)"
fi

cd "$work"
start=$SECONDS
if [ "$committed" != "$version" ]; then
  say "go mod tidy for $version"
  go mod tidy >"$log" 2>&1 || fail "go mod tidy" "$log"
fi
say "go mod download"
go mod download >"$log" 2>&1 || fail "go mod download" "$log"
fetched=$((SECONDS - start))

# hack/lib/version.sh: the same -X pairs for client-go and component-base. No git tree in a
# module zip, so no gitCommit (version.sh then sets neither commit nor tree state; we say
# "archive", its word for a tree without git). buildDate = the tag's time from the proxy,
# so the build is reproducible.
build_date=$(go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes 2>"$log") || fail "go list -m k8s.io/kubernetes" "$log"
ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=archive -X $pkg.buildDate=$build_date"
done
say "go build -p ${GPULAB_GO_P:-2} kube-oracle $version (cold: about 11 min on an idle 2-core machine, 3 GB peak RSS)"
start=$SECONDS
go build -p "${GPULAB_GO_P:-2}" -trimpath -ldflags "$ldflags" -o "$work/kube-oracle" . >"$log" 2>&1 || fail "go build" "$log"
built=$((SECONDS - start))
"$work/kube-oracle" version >"$log" 2>&1 || fail "kube-oracle version (the built binary does not run)" "$log"
grep -q "^kubernetes $version " "$log" || fail "the version check (ldflags did not take)" "$log"

cp "$work/kube-oracle" "$bin.tmp" && mv "$bin.tmp" "$bin"
echo "$want" >"$bin.stamp"
say "built $bin ($(du -m "$bin" | cut -f1) MiB; download ${fetched}s, build ${built}s): $(head -n 1 "$log")"
echo "$bin"
