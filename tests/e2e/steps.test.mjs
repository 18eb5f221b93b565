// End to end, the built steps: what the page shows equals what the `gpulab` companion
// prints for the same inputs (one model, two front ends), by keyboard where it matters,
// and the learner's work survives a reload.
// Needs the native companion: GPULAB=path (default ../../target/debug/gpulab, built by
// `cargo build -p gpulab`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, launch, newCheckedPage, companion, tempDir, choose } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const OUT = path.resolve(process.env.E2E_OUT ?? "../../target/e2e");
const GPULAB = path.resolve(process.env.GPULAB ?? "../../target/debug/gpulab");
const DATA = new URL("../../src/steps/data/", import.meta.url);

let server, browser;

before(async () => {
  mkdirSync(OUT, { recursive: true });
  server = await serve(DIST);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Runs the companion; returns stdout whatever the exit status (1 = a check failed). */
const gpulab = (args, cwd) => companion(GPULAB, args, cwd);

async function open(lang, step) {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}embed.html?lang=${lang}&step=${step}`);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  return { page, errors };
}

test("step 7: the slot table with its DRA rows and its export equal `gpulab slots`, in English and Korean", async () => {
  const dir = tempDir("gpulab-slots-");
  for (const lang of ["en", "ko"]) {
    const { page, errors } = await open(lang, 7);
    // Step 7 renders from the on-demand chunk, then the DRA module adds the DRA rows
    // and their notes; the editor takes its text in an effect after the first
    // render: read it once it is there.
    await page.locator(".export-preview").waitFor({ state: "attached", timeout: 20000 });
    await page.locator(".slots-notes li").first().waitFor({ state: "attached", timeout: 20000 });
    await page.waitForFunction(() => document.querySelector(".slots-config textarea")?.value.length > 0);
    const config = await page.locator(".slots-config textarea").inputValue();
    writeFileSync(path.join(dir, "config.yaml"), config);
    const cli = (nodes, version = "1.36") => gpulab(["--output", "md", "slots", "--gpu-model", "NVIDIA H100 80GB HBM3", "--gpus-per-node", "8",
      "--nodes", String(nodes), "--replicas", "4", "--config", "config.yaml", "--lang", lang, "--k8s-version", version], dir);
    assert.equal(await page.locator(".export-preview").textContent(), cli(2));
    const rows = await page.locator(".slot-table tbody th").allTextContents();
    assert.ok(rows.includes(lang === "en" ? "DRA: MIG 1g.10gb from counters" : "DRA: 카운터로 나눈 MIG 1g.10gb"), rows.join("\n"));
    assert.ok(rows.some((r) => r.startsWith("DRA: ")), "the DRA rows are in the page's table");
    // Keyboard: change the node count by typing.
    await page.locator(".slots-nodes input").focus();
    await page.keyboard.press("Control+A");
    await page.keyboard.type("3");
    await page.locator(".export-preview").filter({ hasText: lang === "en" ? "× 3 nodes" : "노드 3대" }).waitFor({ state: "attached" });
    const md = cli(3);
    assert.equal(await page.locator(".export-preview").textContent(), md);
    const headline = md.split("\n").filter((l) => l.startsWith("- **")).map((l) => l.slice(4, -2));
    assert.deepEqual(await page.locator(".slots-headline li").allTextContents(), headline);
    const notes = md.split("\n").filter((l) => l.startsWith("- ") && !l.startsWith("- **")).map((l) => l.slice(2));
    assert.deepEqual(await page.locator(".slots-notes li").allTextContents(), notes);
    await page.screenshot({ path: path.join(OUT, `step7-${lang}.png`), fullPage: true });
    // The DRA rows follow step 6's Kubernetes version: on 1.35 the MIG row is static
    // MIG devices and consumable capacity is off — as `gpulab slots --k8s-version 1.35`.
    await page.locator("[data-step='6']").click();
    await page.locator(".k8s-version select").selectOption("1.35");
    await page.locator("[data-step='7']").click();
    await page.locator(".export-preview").filter({ hasText: "Kubernetes 1.35" }).waitFor({ state: "attached", timeout: 20000 });
    assert.equal(await page.locator(".export-preview").textContent(), cli(3, "1.35"));
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("steps 1-2: `config dump` equals `gpulab containerd dump` for the same files and version", async () => {
  const root = tempDir("gpulab-node-");
  mkdirSync(path.join(root, "etc/containerd/conf.d"), { recursive: true });
  writeFileSync(path.join(root, "etc/containerd/config.toml"), readFileSync(new URL("incident-main.toml", DATA)));
  const { page, errors } = await open("en", 1);
  for (const version of ["1.7.34", "2.0.11"]) {
    await page.locator(".ctr-version select").selectOption(version);
    await page.locator("[data-step='1']").click();
    const dump = (v) => gpulab(["containerd", "dump", "--root", root, "--containerd-version", v]);
    assert.equal(await page.locator(".ctr-dump").textContent(), dump(version), `step 1 on ${version}`);
    writeFileSync(path.join(root, "etc/containerd/conf.d/99-nvidia.toml"), readFileSync(new URL("incident-99-nvidia.toml", DATA)));
    await page.locator("[data-step='2']").click();
    assert.equal(await page.locator(".ctr-dump").textContent(), dump(version), `step 2 on ${version}`);
    await page.screenshot({ path: path.join(OUT, `step2-${version}.png`), fullPage: true });
    execFileSync("rm", [path.join(root, "etc/containerd/conf.d/99-nvidia.toml")]);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("steps 1-2: a syntax error is the lab parser's until the chunk is there, then containerd's own text, as `gpulab containerd dump` prints it", async () => {
  // The app leaves go-toml's parsers out of its first load: the chunk words syntax
  // errors. Hold the chunk so the page shows its stand-in first, then let it through.
  const root = tempDir("gpulab-syntax-");
  mkdirSync(path.join(root, "etc/containerd"), { recursive: true });
  const { page, errors } = await newCheckedPage(browser);
  let release;
  const released = new Promise((r) => { release = r; });
  await page.route("**/gpu-node-lab-k8s-*_bg.wasm", async (route) => { await released; await route.continue(); });
  await page.goto(`${server.url}embed.html?lang=en&step=1`);
  await page.locator(".ctr-main textarea").waitFor({ timeout: 20000 });
  // Another version's built-in defaults come with the chunk: the step says it waits.
  await page.locator(".ctr-version select").selectOption("2.3.4");
  const loading = page.locator(".step-containerd .chunk-loading");
  await loading.waitFor({ timeout: 20000 });
  assert.equal(await loading.textContent(), "Loading containerd 2.3.4's built-in defaults…");
  // The default version's are in the first load: its syntax error is the lab parser's
  // meanwhile.
  await page.locator(".ctr-version select").selectOption("1.7.34");
  const cases = [
    ["1.7.34", "version = 2\n[plugins\n"],
    ["2.3.4", "version = 2\nsandbox = runc\n"],
    ["2.0.11", "version = 2\nlist = [1, 2\n"],
  ];
  for (const [i, [version, text]] of cases.entries()) {
    await page.locator(".ctr-version select").selectOption(version);
    await page.locator(".ctr-main textarea").fill(text);
    writeFileSync(path.join(root, "etc/containerd/config.toml"), text);
    const cli = spawnSync(GPULAB, ["containerd", "dump", "--root", root, "--containerd-version", version], { encoding: "utf8" });
    assert.equal(cli.status, 1, cli.stderr);
    if (i === 0) {
      await page.locator(".ctr-syntax-pending").waitFor({ timeout: 20000 });
      assert.notEqual(await page.locator(".ctr-stderr").textContent(), "", "before the chunk: the lab parser's words");
      release();
    }
    await page.locator(".ctr-syntax-pending").waitFor({ state: "detached", timeout: 20000 });
    assert.equal(await page.locator(".ctr-stderr").textContent(), cli.stderr, `stderr on ${version}`);
    const last = cli.stderr.trimEnd().split("\n").at(-1);
    assert.equal(await page.locator(".ctr-daemon-exit").textContent(), last, `daemon exit on ${version}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 1 on another version: its defaults come with the chunk; a failed import says so, and the retry brings them", async () => {
  const root = tempDir("gpulab-defaults-");
  mkdirSync(path.join(root, "etc/containerd"), { recursive: true });
  writeFileSync(path.join(root, "etc/containerd/config.toml"), readFileSync(new URL("incident-main.toml", DATA)));
  const { page, errors } = await newCheckedPage(browser);
  let fail = true;
  await page.route("**/gpu-node-lab-k8s-*_bg.wasm*", async (route) => { if (fail) await route.abort(); else await route.continue(); });
  await page.goto(`${server.url}embed.html?lang=en&step=1`);
  await page.locator(".ctr-main textarea").waitFor({ timeout: 20000 });
  await page.locator(".ctr-version select").selectOption("2.4.2");
  const failed = page.locator(".step-containerd .chunk-failed");
  await failed.waitFor({ timeout: 20000 });
  assert.match(await failed.textContent(), /containerd 2\.4\.2's built-in defaults could not be loaded/);
  fail = false;
  await failed.locator("button.chunk-retry").click();
  await page.locator(".ctr-dump").waitFor({ timeout: 20000 });
  assert.equal(await page.locator(".ctr-dump").textContent(), gpulab(["containerd", "dump", "--root", root, "--containerd-version", "2.4.2"]));
  // Only the import we refused may have failed.
  assert.deepEqual(errors.filter((e) => !/gpu-node-lab-k8s-|Failed to load resource|ERR_FAILED/.test(e)), []);
  await page.close();
});

test("the editor by keyboard: Tab indents, Esc then Tab leaves; work survives a reload", async () => {
  const { page, errors } = await open("en", 2);
  const area = page.locator(".ctr-dropin textarea");
  await area.focus();
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("Tab");
  assert.match(await area.inputValue(), /^ {2}\[plugins/);
  await page.keyboard.press("Escape");
  assert.equal(await page.locator(".ctr-dropin .editor-keys").textContent(), "Esc pressed: Tab now leaves the editor.");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.closest(".ctr-dropin")), null, "focus left the editor");
  assert.match(await area.inputValue(), /^ {2}\[plugins/, "the second Tab inserted nothing");
  await page.reload();
  await page.locator(".ctr-dropin textarea").waitFor({ timeout: 20000 });
  assert.match(await page.locator(".ctr-dropin textarea").inputValue(), /^ {2}\[plugins/, "the edit is restored");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a reload while the chunk is still loading is no error; a request that fails on its own is one", async () => {
  // Hold the chunk's wasm so the reload always lands while it is in flight.
  const { page, errors } = await newCheckedPage(browser);
  let held = 0;
  await page.route("**/gpu-node-lab-k8s-*_bg.wasm", async (route) => {
    held += 1;
    if (held === 1) return; // never answered: the reload cancels it
    await route.continue();
  });
  const asked = page.waitForRequest("**/gpu-node-lab-k8s-*_bg.wasm", { timeout: 20000 });
  await page.goto(`${server.url}embed.html?lang=en&step=3`);
  await asked;
  await page.locator(".chunk-loading").waitFor({ timeout: 20000 });
  assert.equal(held, 1, "step 3 asked for the chunk");
  await page.reload();
  await page.locator(".ck-result .check-output").waitFor({ timeout: 20000 });
  assert.deepEqual(errors, [], "the cancelled request is not an error");
  // The same request failing on its own, with no navigation, is reported.
  await page.unroute("**/gpu-node-lab-k8s-*_bg.wasm");
  await page.route("**/no-such-file.wasm", (route) => route.abort("failed"));
  await page.evaluate(() => fetch("no-such-file.wasm").catch(() => {}));
  // The fetch's rejection can reach the page before the event reaches the test.
  const failed = () => errors.filter((e) => e.startsWith("requestfailed:"));
  for (let i = 0; i < 50 && failed().length === 0; i++) await page.waitForTimeout(20);
  assert.equal(failed().length, 1, errors.join("\n"));
  assert.match(failed()[0], /^requestfailed: .*no-such-file\.wasm \(net::ERR_FAILED\)$/);
  await page.close();
});

test("steps 3-4: restart, not SIGHUP — check runs before and after, by keyboard", async () => {
  const { page, errors } = await open("en", 4);
  for (const cls of ["rs-run-check", "rs-write-dropin", "rs-run-check", "rs-restart", "rs-run-check", "rs-sighup", "rs-run-check"]) {
    await page.locator(`.${cls}`).focus();
    await page.keyboard.press("Enter");
  }
  // The check runs come from the on-demand chunk.
  await page.locator(".rs-run .check-output").nth(3).waitFor({ timeout: 20000 });
  const runs = await page.locator(".rs-run .check-output").allTextContents();
  assert.equal(runs.length, 4);
  const last = (s) => s.trimEnd().split("\n").at(-1);
  assert.notEqual(last(runs[1]), last(runs[2]), "before and after the restart differ");
  assert.equal(last(runs[3]), "containerd is not reachable");
  await page.screenshot({ path: path.join(OUT, "step4-en.png"), fullPage: true });
  await page.locator("[data-step='3']").click();
  assert.equal(await page.locator(".step-check .check-output").textContent(), runs[3], "step 3 checks the node step 4 left");
  await page.screenshot({ path: path.join(OUT, "step3-en.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

// Steps 5, 6 and 8 come from the on-demand Kubernetes chunk: wait for it to load.
async function openChunkStep(lang, step, ready) {
  const opened = await open(lang, step);
  await opened.page.locator(ready).first().waitFor({ timeout: 20000 });
  return opened;
}

test("step 8: syncs by keyboard; pods and rollout status equal `gpulab rollout --syncs N`; the answer and the report", async () => {
  const { page, errors } = await openChunkStep("en", 8, ".ro-sync");
  const syncs = 6;
  for (let i = 0; i < syncs; i++) {
    await page.locator(".ro-sync").focus();
    await page.keyboard.press("Enter");
  }
  await page.locator(".ro-syncs").filter({ hasText: `Syncs so far: ${syncs}` }).waitFor();
  const cli = gpulab(["rollout", "device-plugin-stall", "--syncs", String(syncs)]);
  const pods = cli.split("$ kubectl get pods -o wide -l <selector>\n")[1].split("\nDiagnosis")[0];
  assert.equal(await page.locator(".ro-pods").textContent(), pods);
  const lastSync = cli.split("\n── sync ").at(-1).split("\n$ kubectl get pods")[0];
  const statusLines = lastSync.split("\n").slice(3).join("\n");
  assert.equal((await page.locator(".ro-status").textContent()).trimEnd(), statusLines.trimEnd());
  // Nothing moves without the learner: no sync happens while the page sits.
  await page.waitForTimeout(500);
  await page.locator(".ro-syncs").filter({ hasText: `Syncs so far: ${syncs}` }).waitFor();
  // The learner names a node and a cause by keyboard; the verdict and the model's chain appear.
  const node = (await page.locator(".ro-node option").allTextContents())[1];
  await page.locator(".ro-node select").selectOption(node);
  await page.locator(".ro-cause select").selectOption("daemon-not-restarted");
  await page.locator(".ro-submit").focus();
  await page.keyboard.press("Enter");
  await page.locator(".ro-judge").waitFor();
  assert.ok((await page.locator(".ro-diagnosis li").count()) > 0, "the model's diagnosis is shown");
  // The report downloads as Markdown: the link's data equals the preview.
  const href = await page.locator(".ro-report-md").getAttribute("href");
  const md = decodeURIComponent(href.replace(/^data:text\/markdown;charset=utf-8,/, ""));
  assert.equal(md, await page.locator(".ro-report-text").textContent());
  assert.match(md, /^# /);
  // Step 8 runs on the learner's cluster: the lab's node was never restarted, so the
  // rollout stalls there, and the page says why; "break it again" and back by keyboard.
  assert.match(await page.locator(".ro-ending-text").textContent(), /stalls on gpu-node-2 after \d+ syncs\. Why: /);
  await page.locator(".ro-break").focus();
  await page.keyboard.press("Enter");
  await page.locator(".ro-broken-note").waitFor();
  assert.equal(await page.locator(".ro-break").getAttribute("aria-pressed"), "true");
  await page.locator(".ro-break").focus();
  await page.keyboard.press("Enter");
  await page.locator(".ro-broken-note").waitFor({ state: "detached" });
  await page.screenshot({ path: path.join(OUT, "step8-en.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

const FULL_TABLE = readFileSync(new URL("../../crates/model/src/incident/seed/containerd/99-nvidia-full-table.toml", import.meta.url), "utf8");

// One incident through the steps, walked twice by keyboard: in Korean with the lab's
// drop-in (restarted on it: the CRI table is replaced), in English with the full-table
// drop-in (fixed, restarted). Step 8 runs on the node the learner left, their marked
// cells and own words go into the report, and the page's report equals `gpulab report
// --work` on the progress file the page exports.
test("one incident, walked twice (not fixed in Korean, fixed in English): step 8 and the report follow the learner's node, marks and words", async () => {
  const walks = [
    { lang: "ko", fix: false, ending: "stalled", words: "gpu-node-2: 드롭인이 CRI 표를 바꿈" },
    { lang: "en", fix: true, ending: "completed", words: "gpu-node-2 was fixed: full-table drop-in, restarted" },
  ];
  for (const w of walks) {
    const { page, errors } = await open(w.lang, 2);
    if (w.fix) await page.locator(".ctr-dropin textarea").fill(FULL_TABLE);
    await page.locator("[data-step='4']").click();
    for (const cls of ["rs-write-dropin", "rs-restart", "rs-wait", "rs-run-check"]) {
      await page.locator(`.${cls}`).focus();
      await page.keyboard.press("Enter");
    }
    await page.locator(".rs-run .check-output").first().waitFor({ timeout: 20000 });
    await page.locator("[data-step='8']").click();
    await page.locator(".ro-sync").waitFor({ timeout: 20000 });
    for (let i = 0; i < 12; i++) {
      await page.locator(".ro-sync").focus();
      await page.keyboard.press("Enter");
    }
    await page.waitForFunction(() => document.querySelectorAll(".ro-get-ds button.cell[aria-label^='get ds, 12,']").length > 0);
    await page.locator(`.ro-ending.${w.ending}`).waitFor();
    // Mark two cells by keyboard: the rollout status line (the model reads it too) and
    // get ds row 1's AGE (it does not); a second Enter would unmark.
    const statusCell = page.locator(".ro-status button.cell").first();
    const ageCell = page.locator(".ro-get-ds button.cell[aria-label^='get ds, 1, AGE:']");
    for (const cell of [statusCell, ageCell]) {
      await cell.focus();
      await page.keyboard.press("Enter");
    }
    await page.locator(".ro-get-ds button.cell.marked").waitFor();
    assert.equal(await statusCell.getAttribute("aria-pressed"), "true");
    assert.equal(await ageCell.getAttribute("aria-pressed"), "true");
    await page.locator(".ro-words textarea").fill(w.words);
    await page.locator(".ro-node select").selectOption("gpu-node-2");
    await page.locator(".ro-cause select").selectOption("dropin-replaced-table");
    await page.locator(".ro-submit").focus();
    await page.keyboard.press("Enter");
    await page.locator(".ro-judge").waitFor();
    // Once answered, the model's evidence is outlined: the status line is both.
    await page.locator(".ro-status button.cell.marked.evidence").waitFor();
    assert.equal(await ageCell.getAttribute("class"), "cell marked");
    const md = await page.locator(".ro-report-text").textContent();
    assert.ok(md.includes(w.words.split(":")[0]), "the learner's own words are in the report");
    assert.match(md, w.lang === "en" ? /`get ds, 1, AGE: [^`]+`: marked — the model does not rest on it/ : /`get ds, 1, AGE: [^`]+`: 표시함 — 모델은 이 칸을 근거로 쓰지 않음/);
    assert.match(md, w.lang === "en" ? /`rollout status: [^`]+`: marked — the model rests on it too \(agree\)/ : /`rollout status: [^`]+`: 표시함 — 모델도 이 칸을 근거로 씀 \(일치\)/);
    // The companion prints the same report for the progress file the page exports.
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator(".work-export").click()]);
    const dir = tempDir("gpulab-walk-");
    const file = path.join(dir, "progress.json");
    writeFileSync(file, readFileSync(await download.path()));
    assert.equal(gpulab(["report", "--work", file, "--lang", w.lang]), md);
    await page.screenshot({ path: path.join(OUT, `step8-walk-${w.lang}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

/** `gpulab schedule` on the lab's manifests (cluster text given), Kubernetes `version`. */
function schedule(cluster, version = "1.36") {
  const dir = tempDir("gpulab-k8s-");
  for (const f of ["runtimeclass.yaml", "pod.yaml"]) writeFileSync(path.join(dir, f), readFileSync(new URL(f, DATA)));
  writeFileSync(path.join(dir, "cluster.yaml"), cluster);
  return gpulab(["schedule", "--nodes", "cluster.yaml", "--runtimeclasses", "runtimeclass.yaml", "--pod", "pod.yaml", "--k8s-version", version], dir);
}

async function scheduleShown(page) {
  const [verdict, events, nodes] = await Promise.all([".k8s-verdict", ".k8s-events", ".k8s-nodes"].map((c) => page.locator(c).textContent()));
  return `${verdict}\n${events}\n${nodes}`;
}

test("step 6: the verdict equals `gpulab schedule`; patching node status and the version switch change it as the CLI says", async () => {
  const { page, errors } = await openChunkStep("en", 6, ".k8s-verdict");
  const cluster = readFileSync(new URL("cluster.yaml", DATA), "utf8");
  assert.equal(await scheduleShown(page), schedule(cluster));
  assert.match(await page.locator(".k8s-events").textContent(), /FailedScheduling .*Insufficient nvidia\.com\/gpu/);
  // The version switch, by keyboard focus + selectOption.
  await page.locator(".k8s-version select").selectOption("1.33");
  await page.locator(".k8s-verdict").filter({ hasText: "Kubernetes 1.33" }).waitFor();
  assert.equal(await scheduleShown(page), schedule(cluster, "1.33"));
  await page.locator(".k8s-version select").selectOption("1.36");
  // Advertise one GPU on gpu-node-2 (the device plugin's registration, by hand).
  await page.locator(".k8s-patch-node select").selectOption("gpu-node-2");
  await page.locator(".k8s-patch-apply").focus();
  await page.keyboard.press("Enter");
  await page.locator(".k8s-verdict").filter({ hasText: "Scheduled to gpu-node-2" }).waitFor();
  const patched = cluster.replace(/(name: gpu-node-2[\s\S]*?capacity:\n)([\s\S]*?allocatable:\n)/, '$1    nvidia.com/gpu: "1"\n$2    nvidia.com/gpu: "1"\n');
  assert.notEqual(patched, cluster);
  assert.equal(await scheduleShown(page), schedule(patched));
  const row = page.locator(".k8s-node[data-node='gpu-node-2'] tr", { hasText: "nvidia.com/gpu" });
  assert.deepEqual(await row.locator("th, td").allTextContents(), ["nvidia.com/gpu", "1", "1"]);
  // Bound now: the kubelet on gpu-node-2 cannot start the sandbox before the restart.
  assert.match(await page.locator(".k8s-sandbox.before-restart .k8s-sandbox-pods").textContent(), /ContainerCreating/);
  assert.match(await page.locator(".k8s-sandbox.before-restart .k8s-sandbox-events").textContent(), /FailedCreatePodSandBox/);
  assert.equal(await page.locator(".k8s-outcome pre[lang='en']").count() > 0, true, "upstream texts are marked English");
  await page.screenshot({ path: path.join(OUT, "step6-en.png"), fullPage: true });
  await page.locator(".k8s-patch-clear").click();
  await page.locator(".k8s-verdict").filter({ hasText: "Pending" }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

// Step 6's three paths to the GPU for the same pod on the same cluster: the files
// each path sends (`gpulab schedule`'s arguments beside the cluster and the
// RuntimeClass), and what the page then shows. The extended resource at 1.35 is the
// scheduler's verdict with DRAExtendedResource off (the device plugin's words); at
// 1.36 and 1.37 the claim the scheduler makes for nvidia.com/gpu.
const PATHS = [
  { id: "", pod: "pod.yaml", objects: null, version: "1.36", shown: ".k8s-events", has: /Insufficient nvidia\.com\/gpu/ },
  { id: "dra", pod: "dra-pod.yaml", objects: "dra.yaml", version: "1.36", shown: ".k8s-claims", has: /gpu: gpu\.nvidia\.com gpu-node-2 gpu-0/ },
  { id: "dra-extended", pod: "pod.yaml", objects: "dra-extended.yaml", version: "1.35", shown: ".k8s-verdict", has: /Pending \(Kubernetes 1\.35\)/ },
  { id: "dra-extended", pod: "pod.yaml", objects: "dra-extended.yaml", version: "1.36", shown: ".k8s-claims", has: /container-0-request-0: gpu\.nvidia\.com gpu-node-2 gpu-0/ },
  { id: "dra-extended", pod: "pod.yaml", objects: "dra-extended.yaml", version: "1.37", shown: ".k8s-claims", has: /cuda-vectoradd-extended-resources-/ },
];

/** `gpulab schedule` on the lab's files of one path (stdout, or stderr when it refuses). */
function schedulePath(p) {
  const dir = tempDir("gpulab-path-");
  const files = ["cluster.yaml", "runtimeclass.yaml", p.pod, ...(p.objects ? [p.objects] : [])];
  for (const f of files) writeFileSync(path.join(dir, f), readFileSync(new URL(f, DATA)));
  const args = ["schedule", "--nodes", "cluster.yaml", "--runtimeclasses", "runtimeclass.yaml", "--pod", p.pod, "--k8s-version", p.version];
  if (p.objects) args.push("--objects", p.objects);
  const run = spawnSync(GPULAB, args, { cwd: dir, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

for (const lang of ["en", "ko"]) {
  test(`step 6 (${lang}): the same pod on the three paths, chosen by keyboard; each path's text equals \`gpulab schedule\` on its files`, async () => {
    const { page, errors } = await openChunkStep(lang, 6, ".k8s-verdict");
    for (const p of PATHS) {
      await choose(page, ".k8s-version select", p.version);
      await choose(page, ".k8s-path select", p.id);
      const cli = schedulePath(p);
      await page.locator(p.shown).filter({ hasText: p.has }).waitFor();
      const shown = [await scheduleShown(page)];
      if (await page.locator(".k8s-claims").count()) shown.push(await page.locator(".k8s-claims").textContent());
      assert.equal(shown.join(""), cli.stdout, `${p.id || "device plugin"} ${p.version}`);
      // The editors hold the files the CLI was given.
      assert.equal(await page.locator(".k8s-pod textarea").inputValue(), readFileSync(new URL(p.pod, DATA), "utf8"));
      if (p.objects) assert.equal(await page.locator(".k8s-objects textarea").inputValue(), readFileSync(new URL(p.objects, DATA), "utf8"));
      else assert.equal(await page.locator(".k8s-objects").count(), 0);
      assert.ok((await page.locator(".k8s-path-note").textContent()).length > 0);
    }
    await page.screenshot({ path: path.join(OUT, `step6-paths-${lang}.png`), fullPage: true });
    // The path is the learner's work: it survives a reload.
    await page.reload();
    await page.locator(".k8s-path select").waitFor({ timeout: 20000 });
    assert.equal(await page.locator(".k8s-path select").inputValue(), "dra-extended");
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("step 6: the DRA module is fetched only for a DRA path; a failed import says so in the outcome while the switch and the files stay, and the retry brings the verdict", async () => {
  const { page, errors } = await newCheckedPage(browser);
  let fail = true;
  const asked = [];
  await page.route("**/gpu-node-lab-dra-*", async (route) => {
    asked.push(route.request().url());
    if (fail && route.request().url().includes("_bg.wasm")) await route.abort(); else await route.continue();
  });
  await page.goto(`${server.url}embed.html?lang=en&step=6`);
  await page.locator(".k8s-verdict").waitFor({ timeout: 20000 });
  assert.deepEqual(asked, [], "the device plugin's path does not fetch the DRA module");
  await choose(page, ".k8s-path select", "dra");
  const failed = page.locator(".k8s-outcome .chunk-failed");
  await failed.waitFor({ timeout: 20000 });
  assert.match(await failed.textContent(), /^The DRA model could not be loaded: /);
  assert.equal(await page.locator(".k8s-path select").inputValue(), "dra");
  assert.equal(await page.locator(".k8s-objects textarea").inputValue(), readFileSync(new URL("dra.yaml", DATA), "utf8"));
  assert.equal(await page.locator(".k8s-pod textarea").inputValue(), readFileSync(new URL("dra-pod.yaml", DATA), "utf8"));
  fail = false;
  await failed.locator("button.chunk-retry").click();
  await page.locator(".k8s-claims").filter({ hasText: /gpu: gpu\.nvidia\.com gpu-node-2 gpu-0/ }).waitFor({ timeout: 20000 });
  assert.equal(await page.locator(".k8s-outcome .chunk-failed").count(), 0);
  // Only the import we refused may have failed.
  assert.deepEqual(errors.filter((e) => !/gpu-node-lab-dra-|Failed to load resource|ERR_FAILED/.test(e)), []);
  await page.close();
});

test("step 5: admission and the kubelet's sandbox result on a node without the handler (Korean UI, English upstream text)", async () => {
  const { page, errors } = await openChunkStep("ko", 5, ".k8s-outcome");
  await page.locator(".k8s-sandbox.before-restart").waitFor();
  const events = await page.locator(".k8s-sandbox.before-restart .k8s-sandbox-events").textContent();
  assert.match(events, /FailedCreatePodSandBox +\S+ +kubelet +Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for "nvidia" is configured/);
  assert.match(await page.locator(".k8s-sandbox.before-restart .k8s-sandbox-pods").textContent(), /cuda-vectoradd +0\/1 +ContainerCreating/);
  assert.equal(await page.locator(".k8s-sandbox-events").first().getAttribute("lang"), "en");
  // Without the RuntimeClass, admission refuses the pod: the text `gpulab schedule` prints.
  await page.locator(".k8s-runtimeclass textarea").fill("");
  await page.locator(".k8s-rejected").waitFor();
  const dir = tempDir("gpulab-k8s-");
  for (const f of ["cluster.yaml", "pod.yaml"]) writeFileSync(path.join(dir, f), readFileSync(new URL(f, DATA)));
  writeFileSync(path.join(dir, "runtimeclass.yaml"), "");
  const cli = gpulab(["schedule", "--nodes", "cluster.yaml", "--runtimeclasses", "runtimeclass.yaml", "--pod", "pod.yaml", "--k8s-version", "1.36"], dir);
  assert.equal(`${await page.locator(".k8s-rejected").textContent()}\n`, cli);
  await page.screenshot({ path: path.join(OUT, "step5-ko.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 3: the script download is the real scripts/check-runtime.sh, served beside the bundle", async () => {
  const { page, errors } = await open("en", 3);
  const href = await page.locator(".ck-download").getAttribute("href");
  assert.equal(new URL(href).pathname.endsWith("/check-runtime.sh"), true, href);
  const served = await (await page.request.get(href)).text();
  assert.equal(served, readFileSync(new URL("../../scripts/check-runtime.sh", import.meta.url), "utf8"));
  assert.deepEqual(errors, []);
  await page.close();
});
