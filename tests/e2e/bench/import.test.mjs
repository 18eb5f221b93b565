// Steps 6 and 8 on a learner's own cluster at Kubernetes' 5,000-node limit: a dump
// as `kubectl get nodes,pods -A -o json|yaml` prints it (`scripts/gen-cluster.sh`:
// 5,000 GPU nodes, 20,000 bound pods, managedFields), picked in the import panel of the
// release dist and run by the chunk in its worker. Prints the time from the click to the
// answer on the page (the panel's own figure, `gpulab-import-done`) and the longest
// gap between two animation frames meanwhile (the page's thread stays free); neither
// is asserted (shared machines are noisy). Asserted: the panel showed its progress,
// and the page's text equals the companion's on the same files — `gpulab schedule`
// (step 6) and `gpulab rollout` (step 8).
// Run: cd tests/e2e && DIST=../../dist GPULAB=../../target/release/gpulab node --test bench/import.test.mjs
// (IMPORT_NODES=N for another size.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { servedLab, newCheckedPage, tempDir } from "../serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const GPULAB = path.resolve(process.env.GPULAB ?? "../../target/debug/gpulab");
const GEN = new URL("../../../scripts/gen-cluster.sh", import.meta.url).pathname;
const NODES = Number(process.env.IMPORT_NODES ?? 5000);

const lab = servedLab(DIST);

/** The companion's stdout (exit 0, or 1: a check failed) — its outputs at this size
 * are over `companion`'s 1 MB buffer. */
function big(args, cwd) {
  const r = spawnSync(GPULAB, args, { cwd, encoding: "utf8", maxBuffer: 1 << 30 });
  assert.ok(r.status === 0 || r.status === 1, `gpulab ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** The generated cluster, once per run. */
let cluster;
function generated() {
  if (!cluster) {
    cluster = tempDir("gpulab-import-bench-");
    execFileSync("bash", [GEN, String(NODES), "1", cluster]);
  }
  return cluster;
}

/** Opens `step`'s import panel in `lang`, gives it `file` and the text of its second
 * field (`input`: the pod or DaemonSet; the panel's own when null), runs it by keyboard
 * and waits for the answer. Returns the page, the panel's time, the longest frame gap
 * and how many progress reports the panel showed. */
async function run(step, lang, file, input) {
  const { page, errors } = await newCheckedPage(lab.browser);
  await page.goto(`${lab.server.url}embed.html?lang=${lang}&step=${step}`);
  const panel = page.locator("gpulab-import .import");
  await panel.waitFor({ timeout: 60000 });
  await page.locator("gpulab-import .import-file").setInputFiles(file);
  if (input !== null) await page.locator("gpulab-import .import-input").fill(input);
  await page.evaluate(() => {
    // The page's thread while the model runs: the longest gap between two frames, and
    // every progress value shown.
    window.__bench = { gap: 0, progress: new Set(), done: null };
    let last = performance.now();
    const frame = (t) => {
      window.__bench.gap = Math.max(window.__bench.gap, t - last);
      last = t;
      const p = document.querySelector("gpulab-import progress");
      if (p) window.__bench.progress.add(p.value);
      if (window.__bench.done === null) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    document.addEventListener("gpulab-import-done", (e) => { window.__bench.done = e.detail.ms; }, { once: true });
  });
  await page.locator("gpulab-import .import-run").focus();
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__bench.done !== null, null, { timeout: 180000, polling: 100 });
  const [ms, gap, progress] = await page.evaluate(() => [window.__bench.done, window.__bench.gap, window.__bench.progress.size]);
  return { page, errors, ms, gap, progress };
}

test(`step 6: a ${NODES}-node dump scheduled in the page equals \`gpulab schedule\``, async () => {
  const dir = generated();
  // The dump holds no RuntimeClass (`kubectl get nodes,pods`): the pod's file carries it.
  const pod = `${readFileSync(path.join(dir, "pod.yaml"), "utf8")}---\n${readFileSync(path.join(dir, "runtimeclass.yaml"), "utf8")}`;
  writeFileSync(path.join(dir, "pod-rc.yaml"), pod);
  for (const dump of ["dump.json", "dump.yaml"]) {
    const { page, errors, ms, gap, progress } = await run(6, "en", path.join(dir, dump), pod);
    console.log(`bench: import step 6, ${NODES} nodes (${dump}): ${ms} ms click to answer; longest frame gap ${gap.toFixed(0)} ms; ${progress} progress values shown`);
    assert.ok(progress >= 2, "the panel showed the reading's progress");
    const cli = big(["schedule", "-f", dump, "--pod", "pod-rc.yaml", "--runtimeclasses", "pod-rc.yaml", "--k8s-version", "1.35"], dir);
    assert.equal(await page.locator("gpulab-import .import-text").textContent(), cli);
    assert.equal(await page.locator("gpulab-import .import-table tbody tr").count(), Math.min(100, NODES));
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test(`step 8: the device plugin's update rolled out on a ${NODES}-node dump equals \`gpulab rollout\``, async () => {
  const dir = generated();
  // The generator's DaemonSet before and after (maxUnavailable 10 %) and the
  // RuntimeClass the update names, which a `nodes,pods` dump lacks: to completion.
  const ds = ["v1.yaml", "v2.yaml", "runtimeclass.yaml"].map((f) => readFileSync(path.join(dir, f), "utf8")).join("---\n");
  writeFileSync(path.join(dir, "daemonset.yaml"), ds);
  const { page, errors, ms, gap } = await run(8, "en", path.join(dir, "dump.json"), ds);
  console.log(`bench: import step 8, ${NODES} nodes (dump.json): ${ms} ms click to answer; longest frame gap ${gap.toFixed(0)} ms`);
  const cli = big(["rollout", "-f", "dump.json", "daemonset.yaml", "--lang", "en"], dir);
  assert.equal(await page.locator("gpulab-import .import-text").textContent(), cli);
  assert.match(cli, /\nDiagnosis: Complete — /);
  assert.deepEqual(errors, []);
  await page.close();
});
