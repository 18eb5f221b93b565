// One incident through all eight steps, walked twice by keyboard alone (focus moves
// with Tab or to a control, Enter / Space / arrows / typing act on it; no mouse click):
// once in English fixing gpu-node-2 (step 2's drop-in carries the whole runtimes
// table, step 4 restarts on it), once in Korean leaving the lab's colliding drop-in.
// Each walk writes to steps 1, 2, 3, 5, 6 and 7 and acts on 4 and 8, then checks that
// the rollout of step 8, the page's report and `gpulab report --work progress.json` on
// the exported progress file agree with what the walk did: every step's own artifact
// is in the report, and the page's and the companion's reports are the same bytes.
// Waits for state, never for time: on a loaded 2-core machine the chunk, a render or
// an iframe resize can take seconds.
// Needs the native companion: GPULAB=path (default ../../target/debug/gpulab).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, launch, newCheckedPage, companion, tempDir, choose } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const OUT = path.resolve(process.env.E2E_OUT ?? "../../target/e2e");
const GPULAB = path.resolve(process.env.GPULAB ?? "../../target/debug/gpulab");
const FULL_TABLE = readFileSync(new URL("../../crates/model/src/incident/seed/containerd/99-nvidia-full-table.toml", import.meta.url), "utf8");
const RUNTIMECLASS = readFileSync(new URL("../../src/steps/data/runtimeclass.yaml", import.meta.url), "utf8");
const CHUNK = { timeout: 60000 };

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

/** `gpulab report --work FILE --lang LANG`'s stdout. */
const report = (file, lang) => companion(GPULAB, ["report", "--work", file, "--lang", lang]);

/** Enter on the step's navigation button; resolves once the step is the current one. */
async function goStep(page, n) {
  await page.locator(`[data-step='${n}']`).focus();
  await page.keyboard.press("Enter");
  await page.locator(`[data-step='${n}'][aria-current='step']`).waitFor();
}

/** Focuses `selector` and presses `key` on it. */
async function press(page, selector, key = "Enter") {
  await page.locator(selector).focus();
  await page.keyboard.press(key);
}

/** Replaces an editor's (or a field's) text by keyboard: select all, then type. */
async function retype(page, selector, text) {
  await page.locator(selector).focus();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  if (text) await page.keyboard.insertText(text);
  assert.equal(await page.locator(selector).inputValue(), text, selector);
}

const text = (page, selector) => page.locator(selector).first().textContent();

const walks = [
  {
    lang: "en", fix: true, ending: "completed", comment: "# walked in English: fixed",
    words: "gpu-node-2 was fixed: the drop-in carries the whole runtimes table, then a restart",
  },
  {
    lang: "ko", fix: false, ending: "stalled", comment: "# 한국어로 걸음: 고치지 않음",
    words: "gpu-node-2: 드롭인이 CRI 런타임 표를 통째로 바꿔 runc가 사라짐",
  },
];

for (const w of walks) {
  test(`all eight steps by keyboard (${w.lang}, ${w.fix ? "node fixed" : "node not fixed"}): step 8 ${w.ending}, the page's report = gpulab report --work`, async () => {
    const { page, errors } = await newCheckedPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}?lang=${w.lang}&step=1`);
    await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
    const en = w.lang === "en";

    // Step 1: the main config, a line added at its end by keyboard.
    await goStep(page, 1);
    const main = page.locator(".ctr-main textarea");
    await main.focus();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(`\n${w.comment}`);
    assert.match(await main.inputValue(), new RegExp(`${w.comment}$`));
    await page.locator(".ctr-main .diagnostics").waitFor({ state: "attached" });

    // Step 2: the NVIDIA drop-in replaces the main config's CRI table whole (1.7).
    // Not fixed: the lab's drop-in, and runc's settings are among what is lost; fixed:
    // it carries the whole runtimes table, and only sandbox_image is lost.
    await goStep(page, 2);
    if (w.fix) await retype(page, ".ctr-dropin textarea", FULL_TABLE);
    const lostLines = () => page.locator(".ctr-lost").allTextContents();
    await page.waitForFunction((n) => document.querySelectorAll(".ctr-lost").length === n, w.fix ? 1 : 4, { timeout: 20000 });
    const runcLost = (await lostLines()).filter((l) => l.includes("runtimes.runc."));
    assert.equal(runcLost.length, w.fix ? 0 : 2, `runc's settings lost: ${runcLost}`);

    // Step 3: what the check looks for, typed; its verdict on the node as it is now
    // (the daemon still runs on the main config alone: no nvidia handler).
    await goStep(page, 3);
    await retype(page, ".ck-handler input", "nvidia");
    await retype(page, ".ck-keep input", "runc");
    await page.locator(".ck-exit").waitFor(CHUNK);
    assert.match(await text(page, ".ck-exit"), en ? /^exit status 1 \(/ : /^종료 코드 1 \(/);

    // Step 4: write the drop-in, check (the loaded config is old: FAIL), restart,
    // wait, check again (PASS once fixed; FAIL on the colliding drop-in).
    await goStep(page, 4);
    const ops = ["rs-write-dropin", "rs-run-check", "rs-restart", "rs-wait", "rs-run-check"];
    for (const [i, cls] of ops.entries()) {
      await press(page, `.${cls}`, i % 2 ? "Space" : "Enter");
    }
    await page.locator(".rs-run").nth(1).waitFor(CHUNK);
    assert.equal(await page.locator(".rs-run").count(), 2);
    const runs = await page.locator(".rs-run strong").allTextContents();
    assert.match(runs[0], en ? /^at 0 s: RESTART NEEDED/ : /^0초: 재시작 필요/, "before the restart the loaded config is old");
    if (w.fix) assert.match(runs[1], en ? /^at 5 s: PASS/ : /^5초: 통과/, "after the restart on the fixed drop-in");
    else assert.match(runs[1], en ? /^at 5 s: FAIL/ : /^5초: 실패/, "after the restart on the colliding drop-in");

    // Step 5: the RuntimeClass. Without it admission refuses the pod; registered
    // again by keyboard, the pod is admitted.
    await goStep(page, 5);
    await page.locator(".k8s-outcome").waitFor(CHUNK);
    await retype(page, ".k8s-runtimeclass textarea", "");
    await page.locator(".k8s-rejected").waitFor();
    assert.match(await text(page, ".k8s-rejected"), /RuntimeClass "nvidia" not found/);
    await retype(page, ".k8s-runtimeclass textarea", RUNTIMECLASS);
    await page.locator(".k8s-admitted").waitFor();
    // The kubelet on the node of steps 1–4 (as the lab places it) after step 4's restart.
    const sandbox = page.locator(".k8s-sandbox.from-step-4");
    await sandbox.locator(".k8s-sandbox-pods").waitFor();
    if (w.fix) assert.doesNotMatch(await sandbox.locator(".k8s-sandbox-events").textContent(), /FailedCreatePodSandBox/);
    else assert.match(await sandbox.locator(".k8s-sandbox-events").textContent(), /FailedCreatePodSandBox .*unknown service runtime\.v1\.RuntimeService/);
    // `kubectl get pods` as the kubelet left the pod: Running once its sandbox started
    // (issue 18: it read the API server's Pending), else waiting in ContainerCreating.
    assert.match(
      await sandbox.locator(".k8s-sandbox-pods").textContent(),
      w.fix ? /cuda-vectoradd +1\/1 +Running +0 +1s +10\.244\.0\.3 +gpu-node-2 / : /cuda-vectoradd +0\/1 +ContainerCreating +0 +1s +<none> +gpu-node-2 /,
    );

    // Step 6: advertise one GPU on gpu-node-2 (the node steps 5–6 give the learner's
    // containerd): the scheduler binds the pod there.
    await goStep(page, 6);
    await page.locator(".k8s-verdict").waitFor(CHUNK);
    assert.match(await text(page, ".k8s-verdict"), /Pending/);
    await choose(page, ".k8s-patch-node select", "gpu-node-2");
    await press(page, ".k8s-patch-apply");
    await page.locator(".k8s-verdict").filter({ hasText: "Scheduled to gpu-node-2" }).waitFor();
    assert.equal((await text(page, ".k8s-patches")).trim(), en ? "Patches applied: 1" : "적용한 패치: 1개");

    // Step 7: three nodes at two replicas: 8 GPUs × 2 × 3 = 48 seats.
    await goStep(page, 7);
    await page.locator(".slots-headline li").first().waitFor(CHUNK);
    await retype(page, ".slots-nodes input", "3");
    await retype(page, ".slots-replicas input", "2");
    await page.waitForFunction((s) => document.querySelector(".slots-headline li")?.textContent.trim() === s, en ? "seats: 48" : "좌석: 48");

    // Step 8: every sync the rollout needs, by keyboard, until it ends.
    await goStep(page, 8);
    await page.locator(".ro-sync").waitFor(CHUNK);
    for (let n = 1; n <= 12; n++) {
      await press(page, ".ro-sync", n % 2 ? "Enter" : "Space");
      await page.locator(`.ro-get-ds button.cell[aria-label^='get ds, ${n},']`).first().waitFor();
    }
    await page.locator(`.ro-ending.${w.ending}`).waitFor();
    const ending = await text(page, ".ro-ending-text");
    if (w.fix) assert.match(ending, en ? /rollout completes/ : /롤아웃이 끝납니다/);
    else assert.match(ending, en ? /stalls on gpu-node-2 after \d+ syncs/ : /gpu-node-2 노드에서 멈춥니다/);
    // Mark the rollout status line, write, choose and submit the answer.
    const statusCell = page.locator(".ro-status button.cell").first();
    await statusCell.focus();
    await page.keyboard.press("Enter");
    await page.locator(".ro-status button.cell[aria-pressed='true']").waitFor();
    await page.locator(".ro-words textarea").focus();
    await page.keyboard.insertText(w.words);
    await choose(page, ".ro-node select", "gpu-node-2");
    await choose(page, ".ro-cause select", "dropin-replaced-table");
    await press(page, ".ro-submit");
    await page.locator(".ro-judge").waitFor();

    // The report: the page's Markdown says what each step of this walk did.
    await page.locator(".ro-report-text").filter({ hasText: w.words }).waitFor({ state: "attached" });
    const md = await text(page, ".ro-report-text");
    writeFileSync(path.join(OUT, `incident-${w.lang}.md`), md);
    const has = (needle, what) => assert.ok(md.includes(needle), `the report holds ${what}: ${needle}`);
    has(w.comment, "step 1's typed line");
    if (w.fix) has("[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n          runtime_type", "step 2's full-table drop-in");
    has(en ? "The CRI plugin a start with these files gives: **" + (w.fix ? "ok" : "error") : "이 파일로 시작하면 CRI 플러그인 상태: **" + (w.fix ? "ok" : "error"), "step 2's merge, judged");
    has("`--handler nvidia --keep runc`", "step 3's choices");
    has("write-dropin → run-check → restart → wait → run-check", "step 4's operations in order");
    has(en ? "Check 1 (t=0s): `restart-needed` (exit 2)" : "확인 1 (t=0s): `restart-needed` (종료 코드 2)", "step 4's first check");
    has(en ? `Check 2 (t=5s): ${w.fix ? "`pass` (exit 0)" : "`check-failed` (exit 1)"}` : `확인 2 (t=5s): ${w.fix ? "`pass` (종료 코드 0)" : "`check-failed` (종료 코드 1)"}`, "step 4's check after the restart");
    has(RUNTIMECLASS, "step 5's RuntimeClass");
    has(en ? `The kubelet on gpu-node-2: sandbox ${w.fix ? "started" : "not started"}` : `kubelet: gpu-node-2: 샌드박스 ${w.fix ? "시작됨" : "시작 안 됨"}`, "step 5's sandbox");
    has("kubectl patch node gpu-node-2 --subresource=status (nvidia.com/gpu=1)`: " + (en ? "applied" : "적용됨"), "step 6's patch");
    // The verdict that sent the learner to patch, then the one after the patch.
    has(`\`cuda-vectoradd\` — ${en ? "before the node status patches of step 6" : "6단계 노드 상태 패치 전"}: FailedScheduling (default-scheduler)`, "step 6's verdict before the patch");
    has(`\`cuda-vectoradd\` — ${en ? "after the node status patches of step 6" : "6단계 노드 상태 패치 후"}: Scheduled (default-scheduler)`, "step 6's verdict after the patch");
    assert.ok(!md.includes(en ? "no pod of this run was left Pending" : "Pending으로 남긴 파드 없음"), "a pod that waited is not reported as one that never did");
    has("| nvidia.com/gpu: 16 | 2 | 16 | 48 |", "step 7's slot table: 8 GPUs × 2 replicas × 3 nodes");
    has(w.words, "step 8's own words");
    // Named after a fixed node, the answer is judged wrong: nothing stalls there.
    has(`\`gpu-node-2\`, \`dropin-replaced-table\` → \`${w.fix ? "wrong-node" : "right"}\``, "step 8's answer, judged");
    if (w.fix) assert.match(md, en ? /the rollout completes after \d+ syncs/ : /동기화 \d+번 뒤 롤아웃 완료/);
    else assert.match(md, en ? /the rollout stalls on gpu-node-2 after \d+ syncs/ : /gpu-node-2에서 롤아웃 정지/);

    // The exported progress file, by keyboard; the companion prints the same bytes.
    const [download] = await Promise.all([page.waitForEvent("download"), press(page, ".work-export")]);
    const dir = tempDir("gpulab-incident-");
    const file = path.join(dir, "progress.json");
    writeFileSync(file, readFileSync(await download.path()));
    assert.equal(report(file, w.lang), md);
    await page.screenshot({ path: path.join(OUT, `incident-${w.lang}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
}
