// End to end, for course authors: the release dist/ served under a sub-path
// (/course/lab/) in Debian's Chromium. The gallery shows the lab embedded three ways
// and two labs on one page; an author scenario given inline starts the lab from its
// node files; a bad scenario shows its error with file:line in the page; the v1 API
// (update / state / destroy, statechange / error / resize events, scenarioSrc,
// assetsBase) works; and every ```html embed example of the docs loads without errors.
// Run: DIST=../../dist node --test gallery.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, launch, newCheckedPage, stepTitles, tempDir } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const OUT = path.resolve(process.env.E2E_OUT ?? "../../target/e2e");
const REPO = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");

let server, browser, root;

// A small scenario an author would write: one node on 1.6.20 and the runtimes-only drop-in.
const SCENARIO = `title = "my drop-in"
containerd = "1.6.20"

[[node]]
name = "gpu-1"
gpus = 2
gpu_model = "NVIDIA H100 80GB HBM3"
files = { "/etc/containerd/config.toml" = "nodes/config.toml" }

[[step]]
name = "the drop-in lands"
do = "write-file"
node = "gpu-1"
path = "/etc/containerd/conf.d/99-nvidia.toml"
file = "nodes/99-nvidia.toml"
`;
const FILES = {
  "nodes/config.toml": readFileSync(path.join(REPO, "scenarios/dropin-containerd-1.6/nodes/config.toml"), "utf8"),
  "nodes/99-nvidia.toml": readFileSync(path.join(REPO, "scenarios/dropin-containerd-1.6/nodes/99-nvidia.toml"), "utf8"),
};

/** 1-based line of the first line of `text` containing `needle`. */
const lineOf = (text, needle) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** The fenced blocks of a Markdown file whose info string is `info`. */
function blocks(file, info) {
  const text = readFileSync(file, "utf8");
  const out = [];
  const re = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(re)) if (m[1].trim() === info) out.push(m[2]);
  return out;
}

before(async () => {
  mkdirSync(OUT, { recursive: true });
  root = tempDir("gpulab-gallery-");
  mkdirSync(path.join(root, "course"));
  symlinkSync(DIST, path.join(root, "course", "lab"));
  // An author's scenario directory next to the course pages (scenario-src), and a
  // broken one whose drop-in file is missing.
  for (const [dir, scenario, files] of [
    ["my-scenario", SCENARIO, FILES],
    ["broken", SCENARIO, { "nodes/config.toml": FILES["nodes/config.toml"] }],
  ]) {
    mkdirSync(path.join(root, "course", dir, "nodes"), { recursive: true });
    writeFileSync(path.join(root, "course", dir, "scenario.toml"), scenario);
    for (const [p, t] of Object.entries(files)) writeFileSync(path.join(root, "course", dir, p), t);
  }
  const page = (body) => `<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>course page</title>
<link rel="icon" href="data:,"></head><body>${body}</body></html>`;
  writeFileSync(path.join(root, "course", "api.html"), page(`<div id="lab"></div><div id="bad"></div>
<script type="module" src="lab/gpu-lab.js"></script>`));
  writeFileSync(path.join(root, "course", "src.html"), page(`<gpu-lab id="good" lang="en" step="2" scenario-src="my-scenario/scenario.toml"></gpu-lab>
<gpu-lab id="bad" lang="en" scenario-src="broken/scenario.toml"></gpu-lab>
<script type="module" src="lab/gpu-lab.js"></script>`));
  // The loader alone, elsewhere on the host: assetsBase says where the bundle is.
  mkdirSync(path.join(root, "elsewhere"));
  copyFileSync(path.join(DIST, "gpu-lab.js"), path.join(root, "elsewhere", "gpu-lab.js"));
  writeFileSync(path.join(root, "elsewhere", "page.html"), page(`<div id="lab"></div>
<script type="module">import { v1 } from "./gpu-lab.js"; window.lab = await v1.mount(document.getElementById("lab"), { lang: "en", step: 3, assetsBase: "/course/lab/" });</script>`));
  // The docs' HTML examples, as course pages.
  let n = 0;
  for (const doc of ["docs/embedding.md", "docs/ko/embedding.md"]) {
    for (const body of blocks(path.join(REPO, doc), "html embed")) writeFileSync(path.join(root, "course", `doc-${n++}.html`), page(body));
  }
  server = await serve(root);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

test("gallery: iframe, custom element, mount API, two labs, author scenarios", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}course/lab/gallery.html`);
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
  const en = await stepTitles("en");
  const ko = await stepTitles("ko");
  for (const [sel, titles] of [["#element-lab", en], ["#api-lab", ko], ["#two-ko", ko], ["#two-en", en], ["#author-lab", en]]) {
    await page.locator(`${sel} .step-title`).nth(7).waitFor({ timeout: 20000 });
    assert.deepEqual(await page.locator(`${sel} .step-title`).allTextContents(), titles, sel);
  }
  // Two labs on one page keep their own step.
  assert.equal(await page.locator("#two-ko [data-step='3']").getAttribute("aria-current"), "step");
  assert.equal(await page.locator("#two-en [data-step='7']").getAttribute("aria-current"), "step");
  // The iframe: the lab inside, and the frame resized by its gpulab:resize messages.
  const frame = page.frameLocator("#frame");
  await frame.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  await page.waitForFunction(() => document.getElementById("frame").height !== "400", null, { timeout: 10000 });
  // The author scenario: state names it, and the lab starts from its drop-in.
  assert.deepEqual(await page.evaluate(() => window.authorLab.state()), { lang: "en", step: 2, scenario: "The drop-in on containerd 1.6" });
  const texts = await page.locator("#author-lab textarea").evaluateAll((ts) => ts.map((t) => t.value).join("\n"));
  assert.match(texts, /nvidia-container-runtime/);
  // The bad one: its error, with file:line:column, in the page and on the error object.
  const scenarioText = await page.evaluate(() => document.getElementById("demo-scenario").textContent);
  const line = lineOf(scenarioText, 'do = "write-file"');
  const shown = await page.locator("#author-bad .gpu-lab-error").textContent();
  assert.match(shown, new RegExp(`demo/bad\\.toml:${line}:\\d+: error: unknown action \`do = "write-flie"\``));
  assert.match(shown, /\[scenario-unknown-action\]/);
  const diag = await page.evaluate(() => window.authorBad.diagnostics[0]);
  assert.equal(diag.line, line);
  assert.equal(diag.code, "scenario-unknown-action");
  await page.screenshot({ path: path.join(OUT, "gallery.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("v1 API: inline author scenario, update / state / destroy, and the events", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}course/api.html`);
  await page.waitForFunction(() => window.GpuLab?.v1);
  const result = await page.evaluate(async ({ SCENARIO, FILES }) => {
    const v1 = window.GpuLab.v1;
    const root = document.getElementById("lab");
    const seen = { state: [], resize: [], error: [] };
    root.addEventListener(v1.events.state, (e) => seen.state.push(e.detail));
    root.addEventListener(v1.events.resize, (e) => seen.resize.push(e.detail));
    const lab = await v1.mount(root, { lang: "en", step: 1, scenario: SCENARIO, scenarioFiles: FILES });
    await new Promise((r) => setTimeout(r, 100));
    const first = lab.state();
    lab.update({ step: 2 });
    await new Promise((r) => setTimeout(r, 100));
    const second = lab.state();
    const refused = [];
    for (const bad of [{ lang: "fr" }, { step: 0 }, { scenario: SCENARIO }]) {
      try { lab.update(bad); } catch (e) { refused.push(`${e.name}: ${e.message}`); }
    }
    const textareas = [...root.querySelectorAll("textarea")].map((t) => t.value).join("\n");
    lab.destroy();
    lab.destroy();
    await new Promise((r) => setTimeout(r, 0));
    let after = null;
    try { lab.state(); } catch (e) { after = e.message; }
    // A bad scenario: a missing file, reported at the line that names it.
    const bad = document.getElementById("bad");
    bad.addEventListener(v1.events.error, (e) => seen.error.push(e.detail));
    const error = await v1.mount(bad, { lang: "en", scenario: SCENARIO, scenarioFile: "mine.toml", scenarioFiles: { "nodes/config.toml": FILES["nodes/config.toml"] } }).catch((e) => e);
    return {
      first, second, refused, after, textareas, seen,
      emptied: root.childElementCount === 0,
      errorMessage: error.message,
      shown: bad.querySelector(".gpu-lab-error")?.textContent ?? "",
      sameApi: window.GpuLab.mount === v1.mount && window.GpuLab.version === 1,
    };
  }, { SCENARIO, FILES });
  assert.deepEqual(result.first, { lang: "en", step: 1, scenario: "my drop-in" });
  assert.deepEqual(result.second, { lang: "en", step: 2, scenario: "my drop-in" });
  assert.deepEqual(result.seen.state.at(-1), { lang: "en", step: 2, scenario: "my drop-in" });
  assert.ok(result.seen.resize.length > 0 && result.seen.resize[0].height > 0, JSON.stringify(result.seen.resize));
  assert.deepEqual(result.refused, [
    "RangeError: gpu-lab: unknown lang \"fr\": use \"ko\" or \"en\"",
    "RangeError: gpu-lab: step 0 is not a lab step: use 1 to 8",
    "TypeError: gpu-lab: scenario is a mount option: destroy this lab and mount a new one",
  ]);
  assert.match(result.textareas, /nvidia-container-runtime/);
  assert.equal(result.after, "gpu-lab: this lab was destroyed");
  assert.equal(result.emptied, true);
  assert.equal(result.sameApi, true);
  const line = lineOf(SCENARIO, 'file = "nodes/99-nvidia.toml"');
  const expected = `mine.toml:${line}:8: error: cannot read \`nodes/99-nvidia.toml\``;
  assert.ok(result.shown.includes(expected), `${expected} not in ${result.shown}`);
  assert.ok(result.errorMessage.includes(expected), result.errorMessage);
  assert.equal(result.seen.error.length, 1);
  assert.equal(result.seen.error[0].diagnostics[0].line, line);
  assert.deepEqual(errors, []);
  await page.close();
});

test("<gpu-lab scenario-src>: a scenario next to the page, and a broken one", async () => {
  const { page, errors } = await newCheckedPage(browser);
  const errorEvents = [];
  await page.exposeFunction("recordError", (d) => errorEvents.push(d));
  await page.addInitScript(() => document.addEventListener("gpulab:error", (e) => window.recordError(e.detail)));
  await page.goto(`${server.url}course/src.html`);
  await page.locator("#good .step-title").nth(7).waitFor({ timeout: 20000 });
  assert.deepEqual(await page.evaluate(() => document.getElementById("good").lab.state()), { lang: "en", step: 2, scenario: "my drop-in" });
  await page.locator("#bad .gpu-lab-error").waitFor({ timeout: 20000 });
  const line = lineOf(SCENARIO, 'file = "nodes/99-nvidia.toml"');
  assert.match(await page.locator("#bad .gpu-lab-error").textContent(), new RegExp(`broken/scenario\\.toml:${line}:8: error: cannot read`));
  assert.equal(await page.locator("#bad").getAttribute("data-error"), "");
  assert.equal(errorEvents.length, 1);
  assert.equal(errorEvents[0].diagnostics[0].line, line);
  // The missing file's 404, and the element's report on the console (for the author's
  // devtools): nothing else.
  const unexpected = errors.filter((e) => !/broken\/nodes\/99-nvidia\.toml/.test(e) && !/404/.test(e) && !/^console: Error: gpu-lab: the scenario has errors/.test(e));
  assert.deepEqual(unexpected, []);
  assert.ok(errors.some((e) => /^console: Error: gpu-lab: the scenario has errors/.test(e)), errors.join("\n"));
  await page.close();
});

test("assetsBase: the loader alone elsewhere on the host finds the bundle", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}elsewhere/page.html`);
  await page.locator("#lab .step-title").nth(7).waitFor({ timeout: 20000 });
  assert.deepEqual(await page.evaluate(() => window.lab.state()), { lang: "en", step: 3 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("docs: every ```html embed example of docs/embedding.md (en, ko) loads a lab", async () => {
  const count = blocks(path.join(REPO, "docs/embedding.md"), "html embed").length + blocks(path.join(REPO, "docs/ko/embedding.md"), "html embed").length;
  assert.ok(count >= 6, `${count} examples`);
  for (let n = 0; n < count; n++) {
    const { page, errors } = await newCheckedPage(browser);
    await page.goto(`${server.url}course/doc-${n}.html`);
    // A lab in the page or in its iframe.
    await page.waitForFunction(() => {
      const here = document.querySelectorAll(".step-title").length;
      const framed = [...document.querySelectorAll("iframe")].some((f) => f.contentDocument?.querySelectorAll(".step-title").length);
      return here > 0 || framed;
    }, null, { timeout: 20000 });
    assert.equal(await page.locator(".gpu-lab-error").count(), 0, `doc-${n}`);
    assert.deepEqual(errors, [], `doc-${n}`);
    await page.close();
  }
});
