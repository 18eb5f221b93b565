// End to end, the learner's own cluster in steps 6 and 8 (issue 19 item 3): a kubectl
// dump picked, dropped or pasted into the import panel, run by the chunk in a worker.
// The page's text equals the companion's on the same files (`gpulab schedule -f`,
// `gpulab rollout -f`), a bad dump's findings are the companion's at file:line, a
// Secret in the dump never reaches the page or storage, the node table filters and
// pages by keyboard, and Cancel stops a run. The 5,000-node figures are
// `bench/import.test.mjs`'s.
// Needs the native companion: GPULAB=path (default ../../target/debug/gpulab).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { servedLab, newCheckedPage, companion, tempDir, choose } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const GPULAB = path.resolve(process.env.GPULAB ?? "../../target/debug/gpulab");
const GEN = new URL("../../scripts/gen-cluster.sh", import.meta.url).pathname;
const SECRET = "c3VwZXItc2VjcmV0LXRva2Vu";

const lab = servedLab(DIST);

/** A generated cluster of `n` nodes; its dump.yaml with a Secret (and its
 * managedFields) as the first item, the pod with its RuntimeClass in one file. */
function cluster(n) {
  const dir = tempDir("gpulab-import-");
  execFileSync("bash", [GEN, String(n), "1", dir]);
  const secret = `- apiVersion: v1\n  data:\n    token: ${SECRET}\n  kind: Secret\n  metadata:\n    managedFields:\n    - manager: kubectl\n      operation: Update\n    name: registry\n    namespace: default\n  type: Opaque\n`;
  writeFileSync(path.join(dir, "dump-secret.yaml"), readFileSync(path.join(dir, "dump.yaml"), "utf8").replace("items:\n", `items:\n${secret}`));
  writeFileSync(path.join(dir, "pod-rc.yaml"), `${readFileSync(path.join(dir, "pod.yaml"), "utf8")}---\n${readFileSync(path.join(dir, "runtimeclass.yaml"), "utf8")}`);
  return dir;
}

async function open(lang, step) {
  const { page, errors } = await newCheckedPage(lab.browser);
  await page.goto(`${lab.server.url}embed.html?lang=${lang}&step=${step}`);
  await page.locator("gpulab-import .import").waitFor({ timeout: 60000 });
  return { page, errors };
}

/** Runs the panel by keyboard and waits for its answer (or findings). */
async function run(page) {
  await page.locator("gpulab-import .import-run").focus();
  await page.keyboard.press("Enter");
  await page.locator("gpulab-import .import-outcome, gpulab-import .import-problems, gpulab-import .import-unmodelled").waitFor({ timeout: 60000 });
}

const schedule = (dir, dump) => companion(GPULAB, ["schedule", "-f", dump, "--pod", "pod-rc.yaml", "--runtimeclasses", "pod-rc.yaml", "--k8s-version", "1.35"], dir);

test("step 6: a picked dump schedules as `gpulab schedule -f` does; its Secret is never shown or saved; the table filters and pages by keyboard", async () => {
  const dir = cluster(250);
  const { page, errors } = await open("en", 6);
  const panel = page.locator("gpulab-import");
  assert.match(await panel.locator(".import-private").textContent(), /Nothing leaves your browser/);
  await panel.locator(".import-file").setInputFiles(path.join(dir, "dump-secret.yaml"));
  await panel.locator(".import-input").fill(readFileSync(path.join(dir, "pod-rc.yaml"), "utf8"));
  await run(page);
  const cli = schedule(dir, "dump-secret.yaml");
  assert.equal(await panel.locator(".import-text").textContent(), cli);
  assert.equal(await panel.locator(".import-same code").textContent(),
    "gpulab schedule -f dump-secret.yaml --pod pod.yaml --runtimeclasses pod.yaml --k8s-version 1.35");
  assert.match(await panel.locator(".import-status").textContent(), /^250 nodes and 1000 bound pods, answered in \d+ ms\.$/);
  // The Secret's data and the dump's managedFields reach neither the page nor storage.
  const html = await page.content();
  assert.ok(!html.includes(SECRET) && !html.includes("managedFields\n") && !html.includes("registry"), "the Secret is not in the page");
  const stored = await page.evaluate(() => Object.keys(localStorage).map((k) => localStorage.getItem(k)).join("\n"));
  assert.ok(!stored.includes("gpu-node-00001") && !stored.includes(SECRET), "the import is not in the saved work");

  // Filter: the nodes NodeUnschedulable rejected, as many as the table's rows saying so.
  const header = cli.split("\n").findIndex((l) => l.startsWith("NODE "));
  const cordoned = cli.split("\n").slice(header + 1).filter((l) => l.includes("node(s) were unschedulable")).length;
  assert.ok(cordoned > 0, "the generated cluster has cordoned nodes");
  await choose(page, "gpulab-import .import-filter", "NodeUnschedulable");
  const rows = panel.locator(".import-table tbody tr");
  assert.equal(await rows.count(), cordoned);
  for (const row of await rows.all()) assert.equal(await row.locator("td").first().textContent(), "node(s) were unschedulable");
  assert.match(await panel.locator(".import-table caption").textContent(), new RegExp(`rows 1–${cordoned} of ${cordoned}$`));

  // Paging: all 250 nodes, 100 a page, Next and Previous by keyboard.
  await choose(page, "gpulab-import .import-filter", "");
  const caption = () => panel.locator(".import-table caption").textContent();
  assert.match(await caption(), /rows 1–100 of 250$/);
  await panel.locator(".import-next").focus();
  await page.keyboard.press("Enter");
  assert.match(await caption(), /rows 101–200 of 250$/);
  await page.keyboard.press("Enter");
  assert.match(await caption(), /rows 201–250 of 250$/);
  assert.equal(await panel.locator(".import-next").isDisabled(), true);
  await panel.locator(".import-prev").focus();
  await page.keyboard.press("Enter");
  assert.match(await caption(), /rows 101–200 of 250$/);
  assert.equal(await rows.first().locator("th").textContent(), "gpu-node-00101");
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 6: a bad dump pasted is refused at the companion's file:line; a fixed one then runs", async () => {
  const dir = cluster(5);
  const lines = readFileSync(path.join(dir, "dump.yaml"), "utf8").split("\n");
  // A partial dump: cut mid-item, with a bad quantity before the cut.
  const bad = lines.slice(0, 60).join("\n").replace('memory: 500Gi', 'memory: five-hundred') + "\n";
  const cli = spawnSync(GPULAB, ["schedule", "-f", "-", "--pod", "pod-rc.yaml", "--runtimeclasses", "pod-rc.yaml"], { cwd: dir, input: bad, encoding: "utf8" });
  assert.equal(cli.status, 2, cli.stderr);
  const { page, errors } = await open("en", 6);
  const panel = page.locator("gpulab-import");
  await panel.locator(".import-paste").fill(bad);
  await panel.locator(".import-input").fill(readFileSync(path.join(dir, "pod-rc.yaml"), "utf8"));
  await run(page);
  const shown = await panel.locator(".import-problems li").allTextContents();
  assert.deepEqual(shown, cli.stderr.trimEnd().split("\n"));
  assert.ok(shown[0].startsWith("<stdin>:"), shown[0]);
  await panel.locator(".import-paste").fill(readFileSync(path.join(dir, "dump.yaml"), "utf8"));
  await run(page);
  assert.equal(await panel.locator(".import-text").textContent(), schedule(dir, "dump.yaml"));
  assert.match(await panel.locator(".import-same code").textContent(), /^gpulab schedule -f - .* < cluster\.yaml$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 6 in Korean: a dump dropped on the panel runs; the words are Korean, the model's text the companion's", async () => {
  const dir = cluster(30);
  const { page, errors } = await open("ko", 6);
  const panel = page.locator("gpulab-import");
  assert.match(await panel.locator(".import-private").textContent(), /브라우저 밖으로 나가지 않습니다/);
  const drop = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "dump.json", { type: "application/json" }));
    return dt;
  }, readFileSync(path.join(dir, "dump.json"), "utf8"));
  await panel.locator(".import-drop").dispatchEvent("drop", { dataTransfer: drop });
  assert.match(await panel.locator(".import-chosen").textContent(), /^선택한 파일: dump\.json \(\d+바이트\)$/);
  await panel.locator(".import-input").fill(readFileSync(path.join(dir, "pod-rc.yaml"), "utf8"));
  await run(page);
  assert.equal(await panel.locator(".import-text").textContent(), schedule(dir, "dump.json"));
  assert.match(await panel.locator(".import-status").textContent(), /^노드 30대, 바인딩된 Pod 120개\. \d+ms 만에 답했습니다\.$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 8 in Korean: the device plugin's update rolled out on a dump equals `gpulab rollout -f … --lang ko`", async () => {
  const dir = cluster(20);
  const { page, errors } = await open("ko", 8);
  const panel = page.locator("gpulab-import");
  await panel.locator(".import-file").setInputFiles(path.join(dir, "dump.yaml"));
  await run(page);
  writeFileSync(path.join(dir, "daemonset.yaml"), await panel.locator(".import-input").inputValue());
  const cli = companion(GPULAB, ["rollout", "-f", "dump.yaml", "daemonset.yaml", "--lang", "ko"], dir);
  assert.equal(await panel.locator(".import-text").textContent(), cli);
  assert.equal(await panel.locator(".import-same code").textContent(), "gpulab rollout -f dump.yaml daemonset.yaml --lang ko");
  assert.deepEqual(errors, []);
  await page.close();
});

test("Cancel stops a run while the dump is read; the next run reads it again and answers", async () => {
  const dir = cluster(3000);
  const { page, errors } = await open("en", 6);
  const panel = page.locator("gpulab-import");
  await panel.locator(".import-file").setInputFiles(path.join(dir, "dump.yaml"));
  await panel.locator(".import-run").focus();
  await page.keyboard.press("Enter");
  await panel.locator("progress").waitFor({ timeout: 60000 });
  await panel.locator(".import-cancel").focus();
  await page.keyboard.press("Enter");
  assert.equal(await panel.locator(".import-status").textContent(), "Cancelled. Nothing was kept.");
  assert.equal(await panel.locator(".import-outcome").count(), 0);
  assert.equal(await panel.locator(".import-cancel").isHidden(), true);
  // Keyboard focus is back on Run.
  assert.equal(await page.evaluate(() => document.activeElement?.className), "import-run");
  await run(page);
  assert.match(await panel.locator(".import-head").textContent(), /^default\/gpu-test: /);
  assert.deepEqual(errors, []);
  await page.close();
});
