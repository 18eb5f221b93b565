// End to end, the work as a whole: a share link made in one browser profile opens in
// a fresh one; bad, truncated, future-version and foreign links are refused with a
// message and never touch saved work; with saved work of its own the lab asks
// "open shared work" or "keep mine"; a link too big says so; export, import (and a
// refused import that names what was wrong), reset all with confirmation and Undo.
// Run: DIST=../../dist node --test work.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import path from "node:path";
import { serve, launch } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const KEY = "gpu-lab:v1:work";
let server, browser;

before(async () => {
  server = await serve(DIST);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A fresh browser profile (its own localStorage) and a page that records errors. */
async function fresh() {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e}`));
  return { context, page, errors };
}

const labUrl = (query = "lang=en&step=7") => `${server.url}embed.html?${query}`;
async function ready(page) {
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
}
const nodes = (page) => page.locator(".slots-nodes input").inputValue();
async function setNodes(page, n) {
  await page.locator(".slots-nodes input").fill(String(n));
  await page.waitForFunction((n) => localStorage.getItem("gpu-lab:v1:work")?.includes(`"nodes":${n}`), n);
}
const b64url = (buf) => Buffer.from(buf).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

test("a share link opens in a fresh profile; with saved work the learner chooses; Undo", async () => {
  const a = await fresh();
  await a.page.goto(labUrl());
  await ready(a.page);
  await setNodes(a.page, 5);
  await a.page.locator(".work-share").click();
  const url = await a.page.locator(".work-share-url").inputValue();
  assert.match(url, /embed\.html\?lang=en&step=7#gpulab-v1=[A-Za-z0-9_-]+$/);
  assert.match(await a.page.locator(".work-share-note").textContent(), /^The link carries a copy of your work \(\d+ characters\)/);

  // A fresh profile: nothing saved, so the link opens at once.
  const b = await fresh();
  await b.page.goto(url);
  await ready(b.page);
  await b.page.locator(".lab-notice").filter({ hasText: "Opened the work from the share link." }).waitFor();
  assert.equal(await nodes(b.page), "5");
  assert.equal(b.page.url(), url.split("#")[0], "the opened link leaves the address");
  assert.match(await b.page.evaluate((k) => localStorage.getItem(k), KEY), /"nodes":5/);

  // Now B has work of its own: the same link asks, and "keep mine" keeps it.
  await setNodes(b.page, 6);
  await b.page.goto("about:blank");
  await b.page.goto(url);
  await ready(b.page);
  await b.page.locator(".share-keep").waitFor();
  assert.equal(await b.page.locator(".lab-notice .notice-text").textContent(),
    "This page was opened with a share link that carries someone's work, and this browser already holds your own saved work.");
  assert.equal(await nodes(b.page), "6");
  await b.page.locator(".share-keep").click();
  assert.equal(await b.page.locator(".lab-notice").count(), 0);
  assert.match(await b.page.evaluate((k) => localStorage.getItem(k), KEY), /"nodes":6/);
  // The handled link leaves the address, so a reload does not ask again.
  assert.equal(b.page.url(), url.split("#")[0]);
  await b.page.reload();
  await ready(b.page);
  assert.equal(await b.page.locator(".lab-notice").count(), 0);

  // The link again: "open" replaces, and Undo brings B's own work back.
  await b.page.goto("about:blank");
  await b.page.goto(url);
  await ready(b.page);
  await b.page.locator(".share-open").click();
  assert.equal(await nodes(b.page), "5");
  await b.page.locator(".lab-notice .work-undo").click();
  assert.equal(await nodes(b.page), "6");
  await b.page.locator(".lab-notice").filter({ hasText: "Undone" }).waitFor();
  assert.deepEqual([...a.errors, ...b.errors], []);
  await a.context.close();
  await b.context.close();
});

test("a share link pasted into an open tab is read there (hashchange), asking before it replaces work", async () => {
  const a = await fresh();
  await a.page.goto(labUrl());
  await ready(a.page);
  await setNodes(a.page, 5);
  await a.page.locator(".work-share").click();
  const hash = (await a.page.locator(".work-share-url").inputValue()).split("#")[1];

  // B is open with work of its own; the link arrives in the address bar of that tab.
  const b = await fresh();
  await b.page.goto(labUrl());
  await ready(b.page);
  await setNodes(b.page, 6);
  await b.page.evaluate((h) => { location.hash = h; }, hash);
  await b.page.locator(".share-open").waitFor();
  assert.equal(await nodes(b.page), "6", "nothing replaced before the learner chooses");
  await b.page.locator(".share-open").click();
  assert.equal(await nodes(b.page), "5");
  assert.deepEqual([...a.errors, ...b.errors], []);
  await a.context.close();
  await b.context.close();
});

test("bad, truncated, future-version and foreign links are refused and change nothing", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl());
  await ready(page);
  await setNodes(page, 6);
  await page.locator(".work-share").click();
  const good = (await page.locator(".work-share-url").inputValue()).split("#")[1];
  const saved = await page.evaluate((k) => localStorage.getItem(k), KEY);
  const foreign = b64url(deflateRawSync(Buffer.from('{"name":"another app","version":1}')));
  const future = b64url(deflateRawSync(Buffer.from('{"format":"gpu-node-lab/progress","version":2,"work":{}}')));
  const cases = [
    [good.slice(0, Math.floor(good.length / 2)), /its data is cut short or damaged|characters a lab link never has/],
    ["gpulab-v9=" + good.split("=")[1], /made by a newer version of the lab \(format version 9/],
    ["gpulab-v1=" + future, /made by a newer version of the lab \(format version 2/],
    ["gpulab-v1=" + foreign, /not a GPU Node Lab progress file \(no format field\)/],
    ["gpulab-v1=!!not-base64!!", /characters a lab link never has/],
    ["gpulab-v1", /not a complete GPU Node Lab link/],
  ];
  for (const [hash, reason] of cases) {
    await page.goto("about:blank");
    await page.goto(`${labUrl()}#${hash}`);
    await ready(page);
    const alert = page.locator(".lab-notice[role=alert]");
    await alert.waitFor();
    const text = await alert.locator(".notice-text").textContent();
    assert.match(text, /^The share link could not be opened: /, hash);
    assert.match(text, reason, hash);
    assert.match(text, /Your saved work was not changed\.$/, hash);
    assert.equal(await nodes(page), "6", hash);
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), KEY), saved, hash);
  }
  // A hash that is not a share link at all (a host page's anchor) is left alone.
  await page.goto("about:blank");
  await page.goto(`${labUrl()}#section-2`);
  await ready(page);
  assert.equal(await page.locator(".lab-notice").count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test("work too big for a link says so and points to the progress file", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=1"));
  await ready(page);
  // Incompressible text: 12 KB of pseudo-random comment lines.
  let x = 7, text = "";
  while (text.length < 12000) { x = (x * 1103515245 + 12345) % 2147483648; text += `# ${x.toString(36)}${(x * 31).toString(36)}\n`; }
  await page.locator(".ctr-main textarea").fill(text);
  await page.locator(".work-share").click();
  const msg = await page.locator(".work-share-too-big").textContent();
  assert.match(msg, /^Your work is too big for a link \(\d+ characters; the limit is 4000\)\. Export a progress file instead\.$/);
  assert.equal(await page.locator(".work-share-url").count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test("export, import into a fresh profile, a refused import, reset all with confirm and Undo", async () => {
  const a = await fresh();
  await a.page.goto(labUrl());
  await ready(a.page);
  await setNodes(a.page, 5);
  const [download] = await Promise.all([a.page.waitForEvent("download"), a.page.locator(".work-export").click()]);
  assert.equal(download.suggestedFilename(), "gpu-node-lab-progress.json");
  const file = readFileSync(await download.path(), "utf8");
  const json = JSON.parse(file);
  assert.equal(json.format, "gpu-node-lab/progress");
  assert.equal(json.version, 1);
  assert.equal(json.work.slots.nodes, 5);

  // Reset all asks first; Cancel changes nothing; Yes resets; Undo restores.
  await a.page.locator(".work-reset-all").click();
  assert.equal(await a.page.locator(".work-confirm p").textContent(), "Reset every step to its starting files and choices?");
  await a.page.locator(".work-confirm-cancel").click();
  assert.equal(await nodes(a.page), "5");
  await a.page.locator(".work-reset-all").click();
  await a.page.locator(".work-confirm-yes").click();
  assert.equal(await nodes(a.page), "2");
  await a.page.locator(".work-panel .lab-notice").filter({ hasText: "All steps were reset." }).waitFor();
  await a.page.locator(".work-panel .work-undo").click();
  assert.equal(await nodes(a.page), "5");
  // Reset this step, the same way.
  await a.page.locator(".work-reset-step").click();
  assert.equal(await a.page.locator(".work-confirm p").textContent(), "Reset step 7 to its starting files and choices?");
  await a.page.locator(".work-confirm-yes").click();
  assert.equal(await nodes(a.page), "2");

  const b = await fresh();
  await b.page.goto(labUrl());
  await ready(b.page);
  await b.page.locator(".work-import").setInputFiles({ name: "gpu-node-lab-progress.json", mimeType: "application/json", buffer: Buffer.from(file) });
  await b.page.locator(".lab-notice").filter({ hasText: "Imported gpu-node-lab-progress.json" }).waitFor();
  assert.equal(await nodes(b.page), "5");

  const bad = [
    ['{"format":"gpu-node-lab/progress","version":1,"work":{"slots":{"nodez":3}}}', /has a field that is unknown, of the wrong type or out of range: unknown field `nodez`/],
    ['{"format":"gpu-node-lab/progress","version":3}', /made by a newer version of the lab \(format version 3/],
    ["not json", /it is not JSON \(expected a value at line 1 column 1\)/],
    ['{"format":"gpu-node-lab/progress","version":1,"work":{"rollout":{"syncs":999}}}', /work\.rollout\.syncs: expected a whole number from 0 to 60, found 999/],
  ];
  for (const [content, reason] of bad) {
    await b.page.locator(".work-import").setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from(content) });
    const alert = b.page.locator(".work-panel .lab-notice[role=alert]");
    await alert.filter({ hasText: reason }).waitFor();
    assert.match(await alert.textContent(), /^bad\.json was not imported: .* Your work was not changed\./);
    assert.equal(await nodes(b.page), "5");
  }
  assert.deepEqual([...a.errors, ...b.errors], []);
  await a.context.close();
  await b.context.close();
});
