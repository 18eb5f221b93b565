// End to end, the built steps: what the page shows equals what the `gpulab` companion
// prints for the same inputs (one model, two front ends), by keyboard where it matters,
// and the learner's work survives a reload.
// Needs the native companion: GPULAB=path (default ../../target/debug/gpulab, built by
// `cargo build -p gpulab`).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { serve, launch, newCheckedPage } from "./serve.mjs";

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
function gpulab(args, cwd) {
  try {
    return execFileSync(GPULAB, args, { cwd, encoding: "utf8" });
  } catch (e) {
    if (typeof e.stdout === "string" && e.status === 1) return e.stdout;
    throw e;
  }
}

async function open(lang, step) {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}embed.html?lang=${lang}&step=${step}`);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  return { page, errors };
}

test("step 7: the slot table and its export equal `gpulab slots`, in English and Korean", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "gpulab-slots-"));
  for (const lang of ["en", "ko"]) {
    const { page, errors } = await open(lang, 7);
    const config = await page.locator(".slots-config textarea").inputValue();
    writeFileSync(path.join(dir, "config.yaml"), config);
    const cli = (nodes) => gpulab(["--output", "md", "slots", "--gpu-model", "NVIDIA H100 80GB HBM3", "--gpus-per-node", "8",
      "--nodes", String(nodes), "--replicas", "4", "--config", "config.yaml", "--lang", lang], dir);
    assert.equal(await page.locator(".export-preview").textContent(), cli(2));
    // Keyboard: change the node count by typing.
    await page.locator(".slots-nodes input").focus();
    await page.keyboard.press("Control+A");
    await page.keyboard.type("3");
    await page.locator(".export-preview").filter({ hasText: lang === "en" ? "× 3 nodes" : "노드 3대" }).waitFor({ state: "attached" });
    const md = cli(3);
    assert.equal(await page.locator(".export-preview").textContent(), md);
    const headline = md.split("\n").filter((l) => l.startsWith("- **")).map((l) => l.slice(4, -2));
    assert.deepEqual(await page.locator(".slots-headline li").allTextContents(), headline);
    await page.screenshot({ path: path.join(OUT, `step7-${lang}.png`), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("steps 1-2: `config dump` equals `gpulab containerd dump` for the same files and version", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "gpulab-node-"));
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

test("steps 3-4: restart, not SIGHUP — check runs before and after, by keyboard", async () => {
  const { page, errors } = await open("en", 4);
  for (const cls of ["rs-run-check", "rs-write-dropin", "rs-run-check", "rs-restart", "rs-run-check", "rs-sighup", "rs-run-check"]) {
    await page.locator(`.${cls}`).focus();
    await page.keyboard.press("Enter");
  }
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

// Step 8 is in the build only with `--features k8s-steps` (its size is over the budget):
// K8S_STEPS=1 when dist/ was built with it; otherwise the step must be the placeholder.
test("step 8: syncs by keyboard; pods and rollout status equal `gpulab rollout --syncs N`", async () => {
  const { page, errors } = await open("en", 8);
  if (process.env.K8S_STEPS !== "1") {
    assert.equal(await page.locator(".not-built").count(), 1, "without k8s-steps the step is the placeholder");
    assert.equal(await page.locator(".ro-sync").count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
    return;
  }
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
  await page.screenshot({ path: path.join(OUT, "step8-en.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("steps 5-6: the pod's outcome equals `gpulab schedule` for the same manifests", async () => {
  const { page, errors } = await open("en", 6);
  if (process.env.K8S_STEPS !== "1") {
    assert.equal(await page.locator(".not-built").count(), 1, "without k8s-steps the step is the placeholder");
    assert.deepEqual(errors, []);
    await page.close();
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "gpulab-k8s-"));
  for (const f of ["cluster.yaml", "runtimeclass.yaml", "pod.yaml"]) writeFileSync(path.join(dir, f), readFileSync(new URL(f, DATA)));
  const cli = gpulab(["schedule", "--nodes", "cluster.yaml", "--runtimeclasses", "runtimeclass.yaml", "--pod", "pod.yaml", "--k8s-version", "1.36"], dir);
  const shown = [await page.locator(".k8s-verdict").textContent(), await page.locator(".k8s-events").textContent(), await page.locator(".k8s-nodes").textContent()];
  assert.equal(`${shown[0]}\n${shown[1]}\n${shown[2]}`, cli);
  await page.screenshot({ path: path.join(OUT, "step6-en.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});
