#!/usr/bin/env bash
# Generates a GPU cluster of N nodes for the scale benchmarks (issue 19), deterministic
# for a given N and SEED: the same bytes on every machine (Park–Miller in awk, integer
# arithmetic exact in doubles, so mawk and gawk agree).
#
#   scripts/gen-cluster.sh N [SEED] OUTDIR
#
# Writes into OUTDIR:
#   nodes.yaml    N GPU Nodes (4 or 8 GPUs, tainted nvidia.com/gpu:NoSchedule; about 3 %
#                 cordoned, 2 % tainted for maintenance NoExecute) and the nvidia RuntimeClass
#   cluster.yaml  nodes.yaml plus 4 bound GPU pods per node (1 or 2 GPUs each)
#   pod.yaml      a 4-GPU pod to schedule on cluster.yaml
#   v1.yaml, v2.yaml  the lab's device-plugin DaemonSet before and after step 8's
#                 update, with maxUnavailable 10 %
#   dump.yaml, dump.json  cluster.yaml as `kubectl get nodes,pods -A -o yaml|json` prints
#                 it: one `kind: List`, with the server's fields (uid, resourceVersion,
#                 managedFields) that the model ignores, and without the RuntimeClass
#   runtimeclass.yaml  the nvidia RuntimeClass alone (`kubectl get runtimeclass`)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { echo "usage: scripts/gen-cluster.sh N [SEED] OUTDIR" >&2; exit 2; }
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
N=$1
if [ $# -eq 3 ]; then SEED=$2; OUT=$3; else SEED=1; OUT=$2; fi
case "$N$SEED" in *[!0-9]*|'') usage ;; esac
mkdir -p "$OUT"

SEED_DIR=crates/model/src/incident/seed
for v in 1 2; do
  sed 's/^      maxUnavailable: 1$/      maxUnavailable: 10%/' "$SEED_DIR/device-plugin-v$v.yaml" >"$OUT/v$v.yaml"
  grep -q 'maxUnavailable: 10%' "$OUT/v$v.yaml" || { echo "gen-cluster: $SEED_DIR/device-plugin-v$v.yaml changed shape" >&2; exit 1; }
done

# One pass draws every random choice (node shape, then its pods) in a fixed order, and
# writes the plain manifests and the two List dumps side by side.
awk -v n="$N" -v seed="$SEED" -v out="$OUT" '
function rnd(k) { state = (state * 16807) % 2147483647; return state % k }
function node_yaml(f, i) {
  print "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: " name[i] > f
  print "  labels:\n    kubernetes.io/hostname: " name[i] "\n    nvidia.com/gpu.present: \"true\"\n    nvidia.com/gpu.product: " product[i] > f
  print "spec:" (cordoned[i] ? "\n  unschedulable: true" : "") "\n  taints:\n  - key: nvidia.com/gpu\n    effect: NoSchedule" > f
  if (maint[i]) print "  - key: maintenance\n    value: firmware\n    effect: NoExecute" > f
  print "status:\n  capacity: {cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"" gpus[i] "\", pods: \"110\"}" > f
  print "  allocatable: {cpu: \"63\", memory: 500Gi, nvidia.com/gpu: \"" gpus[i] "\", pods: \"110\"}" > f
}
function pod_yaml(f, i, k) {
  print "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " pname[i, k] "\n  namespace: " pns[i, k] "\nspec:\n  nodeName: " name[i] > f
  print "  tolerations:\n  - key: nvidia.com/gpu\n    operator: Exists\n    effect: NoSchedule" > f
  print "  containers:\n  - name: cuda\n    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0" > f
  print "    resources:\n      requests: {cpu: \"4\", memory: 32Gi, nvidia.com/gpu: \"" pgpu[i, k] "\"}\n      limits: {nvidia.com/gpu: \"" pgpu[i, k] "\"}" > f
  print "status:\n  phase: Running" > f
}
# kubectl -o yaml: items at two spaces, server fields included.
function node_dump_yaml(f, i) {
  print "- apiVersion: v1\n  kind: Node\n  metadata:\n    creationTimestamp: \"2026-09-01T00:00:00Z\"" > f
  print "    labels:\n      kubernetes.io/hostname: " name[i] "\n      nvidia.com/gpu.present: \"true\"\n      nvidia.com/gpu.product: " product[i] > f
  print "    managedFields:\n    - apiVersion: v1\n      fieldsType: FieldsV1\n      fieldsV1:\n        f:metadata:\n          f:labels:\n            .: {}\n      manager: kubelet\n      operation: Update\n      time: \"2026-09-01T00:00:00Z\"" > f
  print "    name: " name[i] "\n    resourceVersion: \"" 1000 + i "\"\n    uid: 00000000-0000-4000-8000-" sprintf("%012d", i) > f
  print "  spec:" > f
  print "    taints:\n    - effect: NoSchedule\n      key: nvidia.com/gpu" > f
  if (maint[i]) print "    - effect: NoExecute\n      key: maintenance\n      value: firmware" > f
  if (cordoned[i]) print "    unschedulable: true" > f
  print "  status:\n    allocatable:\n      cpu: \"63\"\n      memory: 500Gi\n      nvidia.com/gpu: \"" gpus[i] "\"\n      pods: \"110\"" > f
  print "    capacity:\n      cpu: \"64\"\n      memory: 512Gi\n      nvidia.com/gpu: \"" gpus[i] "\"\n      pods: \"110\"" > f
}
function pod_dump_yaml(f, i, k) {
  print "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: " pname[i, k] "\n    namespace: " pns[i, k] "\n    uid: 10000000-0000-4000-8000-" sprintf("%08d%04d", i, k) > f
  print "  spec:\n    containers:\n    - image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n      name: cuda" > f
  print "      resources:\n        limits:\n          nvidia.com/gpu: \"" pgpu[i, k] "\"\n        requests:\n          cpu: \"4\"\n          memory: 32Gi\n          nvidia.com/gpu: \"" pgpu[i, k] "\"" > f
  print "    nodeName: " name[i] "\n    tolerations:\n    - effect: NoSchedule\n      key: nvidia.com/gpu\n      operator: Exists" > f
  print "  status:\n    phase: Running" > f
}
function sep(f) { if (first_item) first_item = 0; else printf ",\n" > f }
function node_dump_json(f, i) {
  sep(f)
  printf "    {\n        \"apiVersion\": \"v1\",\n        \"kind\": \"Node\",\n        \"metadata\": {\n" > f
  printf "            \"labels\": {\n                \"kubernetes.io/hostname\": \"%s\",\n                \"nvidia.com/gpu.present\": \"true\",\n                \"nvidia.com/gpu.product\": \"%s\"\n            },\n", name[i], product[i] > f
  printf "            \"managedFields\": [\n                {\n                    \"apiVersion\": \"v1\",\n                    \"fieldsType\": \"FieldsV1\",\n                    \"fieldsV1\": {\"f:metadata\": {\"f:labels\": {\".\": {}}}},\n                    \"manager\": \"kubelet\",\n                    \"operation\": \"Update\"\n                }\n            ],\n" > f
  printf "            \"name\": \"%s\",\n            \"resourceVersion\": \"%d\",\n            \"uid\": \"00000000-0000-4000-8000-%012d\"\n        },\n", name[i], 1000 + i, i > f
  printf "        \"spec\": {\n            \"taints\": [\n                {\"effect\": \"NoSchedule\", \"key\": \"nvidia.com/gpu\"}" > f
  if (maint[i]) printf ",\n                {\"effect\": \"NoExecute\", \"key\": \"maintenance\", \"value\": \"firmware\"}" > f
  printf "\n            ]%s\n        },\n", (cordoned[i] ? ",\n            \"unschedulable\": true" : "") > f
  printf "        \"status\": {\n            \"allocatable\": {\"cpu\": \"63\", \"memory\": \"500Gi\", \"nvidia.com/gpu\": \"%s\", \"pods\": \"110\"},\n", gpus[i] > f
  printf "            \"capacity\": {\"cpu\": \"64\", \"memory\": \"512Gi\", \"nvidia.com/gpu\": \"%s\", \"pods\": \"110\"}\n        }\n    }", gpus[i] > f
}
function pod_dump_json(f, i, k) {
  sep(f)
  printf "    {\n        \"apiVersion\": \"v1\",\n        \"kind\": \"Pod\",\n        \"metadata\": {\"name\": \"%s\", \"namespace\": \"%s\", \"uid\": \"10000000-0000-4000-8000-%08d%04d\"},\n", pname[i, k], pns[i, k], i, k > f
  printf "        \"spec\": {\n            \"containers\": [\n                {\n                    \"image\": \"nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\",\n                    \"name\": \"cuda\",\n" > f
  printf "                    \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"%s\"}, \"requests\": {\"cpu\": \"4\", \"memory\": \"32Gi\", \"nvidia.com/gpu\": \"%s\"}}\n                }\n            ],\n", pgpu[i, k], pgpu[i, k] > f
  printf "            \"nodeName\": \"%s\",\n            \"tolerations\": [{\"effect\": \"NoSchedule\", \"key\": \"nvidia.com/gpu\", \"operator\": \"Exists\"}]\n        },\n", name[i] > f
  printf "        \"status\": {\"phase\": \"Running\"}\n    }" > f
}
BEGIN {
  state = seed % 2147483646 + 1
  split("team-a team-b research", namespaces, " ")
  split("NVIDIA-A100-SXM4-80GB NVIDIA-H100-80GB-HBM3", products, " ")
  for (i = 1; i <= n; i++) {
    name[i] = sprintf("gpu-node-%05d", i)
    gpus[i] = rnd(4) == 0 ? 4 : 8
    product[i] = products[rnd(2) + 1]
    cordoned[i] = rnd(100) < 3
    maint[i] = rnd(100) < 2
    for (k = 0; k < 4; k++) {
      pname[i, k] = sprintf("train-%05d-%d", i, k)
      pns[i, k] = namespaces[rnd(3) + 1]
      pgpu[i, k] = rnd(3) == 0 ? 2 : 1
    }
  }
  nodes = out "/nodes.yaml"; cluster = out "/cluster.yaml"; dy = out "/dump.yaml"; dj = out "/dump.json"
  header = "# Generated by scripts/gen-cluster.sh " n " " seed " (do not edit)."
  print header > nodes; print header > cluster
  rc = "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia"
  for (i = 1; i <= n; i++) { node_yaml(nodes, i); node_yaml(cluster, i) }
  print rc > nodes; print rc > cluster
  for (i = 1; i <= n; i++) for (k = 0; k < 4; k++) pod_yaml(cluster, i, k)
  print "apiVersion: v1\nitems:" > dy
  for (i = 1; i <= n; i++) node_dump_yaml(dy, i)
  for (i = 1; i <= n; i++) for (k = 0; k < 4; k++) pod_dump_yaml(dy, i, k)
  print "kind: List\nmetadata:\n  resourceVersion: \"\"" > dy
  printf "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n" > dj
  first_item = 1
  for (i = 1; i <= n; i++) node_dump_json(dj, i)
  for (i = 1; i <= n; i++) for (k = 0; k < 4; k++) pod_dump_json(dj, i, k)
  printf "\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n" > dj
}'

printf 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: nvidia\nhandler: nvidia\n' >"$OUT/runtimeclass.yaml"

cat >"$OUT/pod.yaml" <<'EOF'
# A 4-GPU training pod under the nvidia RuntimeClass, tolerating the GPU taint.
apiVersion: v1
kind: Pod
metadata:
  name: train-4gpu
  namespace: default
spec:
  runtimeClassName: nvidia
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  containers:
  - name: cuda
    image: nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0
    resources:
      requests: {cpu: "8", memory: 64Gi}
      limits:
        nvidia.com/gpu: 4
EOF
