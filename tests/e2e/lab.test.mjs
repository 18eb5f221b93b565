// End to end: the release dist/ served on 127.0.0.1 in Debian's Chromium. The page
// shows the eight steps in Korean, switches to English, the iframe page and the
// <gpu-lab> element work from a sub-path, and nothing logs an error.
// Run: DIST=../../dist node --test   (dev.sh test does this after trunk build)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, launch, newCheckedPage, stepTitles, tempDir } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const OUT = path.resolve(process.env.E2E_OUT ?? "../../target/e2e");

let server, browser;

before(async () => {
  mkdirSync(OUT, { recursive: true });
  // Serve dist/ under a sub-path (/course/lab/), as a course site would host it.
  const root = tempDir("gpulab-e2e-");
  mkdirSync(path.join(root, "course"));
  symlinkSync(DIST, path.join(root, "course", "lab"));
  // A course page of the same site that embeds the lab by its loader.
  writeFileSync(path.join(root, "course", "host.html"), `<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>course page</title><link rel="icon" href="data:,"></head>
<body><h1>Week 3</h1><gpu-lab id="el" lang="en" step="7"></gpu-lab><div id="api"></div>
<script type="module" src="lab/gpu-lab.js"></script></body></html>`);
  server = await serve(root);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const titlesOn = (page) => page.locator(".step-title").allTextContents();

test("index.html: eight steps in Korean, then English; screenshots", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}course/lab/`);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  assert.deepEqual(await titlesOn(page), await stepTitles("ko"));
  assert.equal(await page.locator(".gpu-lab").getAttribute("lang"), "ko");
  await page.screenshot({ path: path.join(OUT, "lab-ko.png"), fullPage: true });

  await page.getByRole("button", { name: "English" }).click();
  await page.waitForFunction(() => document.querySelector(".gpu-lab")?.lang === "en");
  assert.deepEqual(await titlesOn(page), await stepTitles("en"));

  // Keyboard: focus step 5 and press Enter.
  await page.locator("[data-step='5']").focus();
  await page.keyboard.press("Enter");
  await page.locator("[data-step='5'][aria-current='step']").waitFor({ timeout: 10000 });
  assert.equal(await page.locator("[data-step='5']").getAttribute("aria-current"), "step");
  assert.equal(await page.locator(".step-heading").textContent(), (await stepTitles("en"))[4]);
  await page.screenshot({ path: path.join(OUT, "lab-en.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("embed.html: options from the query string; resize messages", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}course/lab/embed.html?lang=en&step=3`);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  assert.equal(await page.locator("[data-step='3']").getAttribute("aria-current"), "step");
  assert.deepEqual(await titlesOn(page), await stepTitles("en"));
  assert.deepEqual(errors, []);
  await page.close();
});

test("a host page: <gpu-lab> element and GpuLab.mount, events, destroy", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${server.url}course/host.html`);
  await page.locator("#el .step-title").nth(7).waitFor({ timeout: 20000 });
  assert.equal(await page.locator("#el [data-step='7']").getAttribute("aria-current"), "step");
  const result = await page.evaluate(async () => {
    const root = document.getElementById("api");
    const events = [];
    root.addEventListener("gpulab:statechange", (e) => events.push(e.detail));
    const handle = await window.GpuLab.mount(root, { step: 4 });
    await new Promise((r) => setTimeout(r, 50));
    // English arrives on demand (a file beside the wasm): the switch is announced.
    const switched = new Promise((r) => root.addEventListener("gpulab:statechange", (e) => { if (e.detail.lang === "en") r(); }));
    handle.update({ lang: "en" });
    await Promise.race([switched, new Promise((r) => setTimeout(r, 10000))]);
    const state = handle.state();
    let bad = null;
    try { handle.update({ step: 12 }); } catch (e) { bad = e.message; }
    handle.destroy();
    // Yew unmounts on its scheduler: the root is empty by the next task.
    await new Promise((r) => setTimeout(r, 0));
    return { state, events, bad, emptied: root.childElementCount === 0, version: window.GpuLab.version };
  });
  assert.deepEqual(result.state, { lang: "en", step: 4 });
  assert.deepEqual(result.events.at(-1), { lang: "en", step: 4 });
  assert.equal(result.bad, "gpu-lab: step 12 is not a lab step: use 1 to 8");
  assert.equal(result.emptied, true);
  assert.equal(result.version, 1);
  // Changing the element's attribute updates its lab.
  await page.evaluate(() => document.getElementById("el").setAttribute("lang", "ko"));
  await page.waitForFunction(() => document.querySelector("#el .gpu-lab")?.lang === "ko");
  assert.deepEqual(errors, []);
  await page.close();
});
