#!/usr/bin/env bash
# Trunk post_build hook (Trunk.toml): puts the crate version into the bundle's file
# names — gpu-node-lab-<version>.js / _bg.wasm, gpu-node-lab-k8s-<version>.js /
# _bg.wasm, gpu-node-lab-dra-<version>.js / _bg.wasm and gpu-node-lab-<version>-en.ftl — and rewrites index.html to match, so
# a course page can pin a version and caches never mix two releases. The version is Cargo.toml's
# [workspace.package] version; the app finds its chunk by the same version
# (env!("CARGO_PKG_VERSION")), and www/gpu-lab.js names it too (a test checks it).
set -euo pipefail
dir=${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}
src=${TRUNK_SOURCE_DIR:-.}
version=$(awk -F'"' '/^\[workspace\.package\]/ {p = 1} p && /^version *=/ {print $2; exit}' "$src/Cargo.toml")
[ -n "$version" ] || { echo "version-bundle: no [workspace.package] version in $src/Cargo.toml" >&2; exit 1; }
for name in gpu-node-lab gpu-node-lab-k8s gpu-node-lab-dra; do
  for suffix in .js _bg.wasm; do
    [ -f "$dir/$name$suffix" ] || { echo "version-bundle: trunk built no $name$suffix" >&2; exit 1; }
    mv "$dir/$name$suffix" "$dir/$name-$version$suffix"
  done
done
# The English messages (copied from i18n/en.ftl), fetched by the app by this name.
[ -f "$dir/en.ftl" ] || { echo "version-bundle: trunk copied no en.ftl" >&2; exit 1; }
mv "$dir/en.ftl" "$dir/gpu-node-lab-$version-en.ftl"
# The loader is copied as written, and a third of it is comments and indentation for
# the readers of www/gpu-lab.js: full-line // comments, /** */ blocks, leading blanks
# and empty lines are left out of dist/ (1,282 B gzip of the first load, measured on
# the loader with the trap restart). Sound for this file only: it has no multi-line
# strings or template literals, and no statement depends on a line's indent.
perl -0pi -e 's{^[ \t]*/\*\*.*?\*/[ \t]*\n}{}gms; s{^[ \t]*//[^\n]*\n}{}gm; s{^[ \t]+}{}gm; s{\n\n+}{\n}g' "$dir/gpu-lab.js"
if command -v node >/dev/null && ! node --check "$dir/gpu-lab.js"; then
  echo "version-bundle: the stripped gpu-lab.js does not parse" >&2; exit 1
fi
# Only index.html is rewritten: the renamed files keep their bytes, so the SRI
# integrity attributes trunk wrote stay valid.
sed -i -e "s#\([\"'/]\)gpu-node-lab\.js#\1gpu-node-lab-$version.js#g" \
       -e "s#\([\"'/]\)gpu-node-lab_bg\.wasm#\1gpu-node-lab-${version}_bg.wasm#g" "$dir/index.html"
if grep -Eq "gpu-node-lab(-k8s|-dra)?(\.js|_bg\.wasm)" "$dir/index.html"; then
  echo "version-bundle: unversioned names left in index.html" >&2; exit 1
fi
echo "version-bundle: gpu-node-lab-$version, gpu-node-lab-k8s-$version, gpu-node-lab-dra-$version"
