// Step 6's DRA path at scale: the lab's pod with its claim on a cluster of 125 GPU
// nodes × 8 H100s — 1,000 devices in 125 ResourceSlices, each slice as NVIDIA's DRA
// driver publishes it (`gpulab dra slices`) — re-scheduled by the release DRA module
// in headless Chromium, as every edit of step 6's DRA path does: the module's `kube`
// call, JSON in and out (reading the files the edit changed — the module keeps what it
// read of the others while their text stays —, the claim from its template, one
// scheduling cycle with DynamicResources on every node, the views). An edit of the pod
// is the figure held to the frame; an edit of the objects file (the document it changed
// read and validated again, the others' readings kept, the state rebuilt) is printed
// beside it. Prints the median and p95 per call against a frame (16 ms); like
// the keystroke bench it fails only when absurdly over (10×), since shared machines
// are noisy. The same call for the lab's own two-node cluster is printed beside it.
// Run: cd tests/e2e && DIST=../../dist GPULAB=../../target/debug/gpulab node --test bench/dra.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { servedLab, newCheckedPage, companion, choose } from "../serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const GPULAB = path.resolve(process.env.GPULAB ?? "../../target/debug/gpulab");
const DATA = new URL("../../../src/steps/data/", import.meta.url);
const FRAME_MS = 16;
const RUNS = Number(process.env.RUNS ?? 30);
// Calls made (and printed) before the timed ones, after the first: the engine compiles
// hot wasm functions again, optimized, on background threads while the module runs
// (V8's tier-up from Liftoff to TurboFan), so a learner's first edits after the module
// loads are slower than the later ones — here 5–37 ms for about ten calls, on 2 busy
// cores; the bench prints them apart, as criterion warms up before it measures.
const WARMUP = Number(process.env.WARMUP ?? 15);
const NODES = 125;
const GPUS = 8;

const lab = servedLab(DIST);

const read = (f) => readFileSync(new URL(f, DATA), "utf8");

/** The lab's cluster with `NODES` GPU nodes in place of gpu-node-2 (cpu-node-1 kept). */
function bigCluster() {
  const [gpuNode, rest] = read("cluster.yaml").split("\n---\n");
  const nodes = Array.from({ length: NODES }, (_, i) => gpuNode.replaceAll("gpu-node-2", `gpu-node-${i + 2}`));
  return [...nodes, rest].join("\n---\n");
}

/** dra.yaml with the driver's slices of every GPU node instead of gpu-node-2's. */
function bigObjects() {
  const own = read("dra.yaml");
  const keep = own.slice(0, own.indexOf("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice"));
  const slices = Array.from({ length: NODES }, (_, i) =>
    companion(GPULAB, ["dra", "slices", "--node", `gpu-node-${i + 2}`, "--gpu-model", "NVIDIA H100 80GB HBM3", "--gpus", String(GPUS)])
      .replace(/^---\n/, ""));
  return keep + slices.join("---\n");
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

test(`step 6, DRA path: ${NODES * GPUS} devices on ${NODES} nodes re-scheduled by the DRA module within a frame`, async () => {
  const { page, errors } = await newCheckedPage(lab.browser);
  await page.goto(`${lab.server.url}embed.html?lang=en&step=6`);
  await page.locator(".k8s-verdict").waitFor({ timeout: 30000 });
  // The DRA path, picked as a learner does: the app loads the DRA module.
  await choose(page, ".k8s-path select", "dra");
  await page.locator(".k8s-claims").waitFor({ timeout: 30000 });
  const draJs = (await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name)))
    .find((n) => /gpu-node-lab-dra-[^/]*\.js(\?|$)/.test(n));
  assert.ok(draJs, "the DRA path loaded the DRA module");
  const request = (cluster, objects, pod = "") => JSON.stringify({
    version: "1.36", cluster, runtimeclass: read("runtimeclass.yaml"), pod, patches: [],
    containerd: { version: "1.7.34", main: read("incident-main.toml"), dropin: read("incident-99-nvidia.toml") },
    kubelet_node: "", node_ops: [], by_hand: false, path: "dra", objects,
  });
  // Every call is an edit, as the learner's typing makes them: a comment line added to
  // the pod (the module reads the slices once and keeps them while their text stays),
  // or to the objects file (its last document read and validated again).
  const edited = (text, i) => `${text}# edit ${i}\n`;
  const [cluster, objects, pod] = [bigCluster(), bigObjects(), read("dra-pod.yaml")];
  const cases = {
    small: (i) => request(read("cluster.yaml"), "", edited(pod, i)),
    big: (i) => request(cluster, objects, edited(pod, i)),
    "big, objects edited": (i) => request(cluster, edited(objects, i), pod),
  };
  const requests = Object.fromEntries(Object.entries(cases).map(([name, make]) => [name, Array.from({ length: 1 + WARMUP + RUNS }, (_, i) => make(i))]));
  const timings = await page.evaluate(async ({ url, requests, warmup }) => {
    const m = await import(url);
    const time = (reqs) => {
      const all = [];
      // The first call reads every file (not timed): the state a learner's edit meets.
      let reply = m.kube(reqs[0]);
      for (const req of reqs.slice(1)) {
        const t0 = performance.now();
        reply = m.kube(req);
        all.push(performance.now() - t0);
      }
      return { warm: all.slice(0, warmup), out: all.slice(warmup), reply };
    };
    return Object.fromEntries(Object.entries(requests).map(([name, reqs]) => [name, time(reqs)]));
  }, { url: draJs, requests, warmup: WARMUP });
  for (const [name, { warm, out, reply }] of Object.entries(timings)) {
    const view = JSON.parse(reply).Ok;
    assert.ok(view, reply.slice(0, 500));
    // The big cluster's GPU nodes are alike: gpu-node-2 wins a tie with all of them.
    assert.match(view.outcome.Created.verdict, /^default\/cuda-vectoradd: Scheduled to gpu-node-2($| \(tied with: gpu-node-2, gpu-node-3, )/, name);
    assert.match(view.outcome.Created.claims, /gpu: gpu\.nvidia\.com gpu-node-2 gpu-0/);
    const [median, p95] = [quantile(out, 0.5), quantile(out, 0.95)];
    const what = name === "small" ? "the lab's 2 nodes, 4 devices, the pod edited" : `${NODES} GPU nodes, ${NODES * GPUS} devices, the ${name === "big" ? "pod" : "objects file"} edited`;
    console.log(`dra bench: ${name} (${what}): median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms per re-schedule (${RUNS} runs after ${WARMUP} warm-up calls of ${warm.map((t) => t.toFixed(1)).join(", ")} ms; goal ${FRAME_MS} ms)`);
    if (name === "big") assert.ok(median < 10 * FRAME_MS, `median ${median} ms is over 10× the frame`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
