// What a learner hit on the way, in the built page: kubectl output never wraps (a row
// is one line; a wide block scrolls in itself, not the page), Korean table cells keep
// their words whole, a count field says why it ignores `-3`, a refused node patch is
// not counted, and the standalone page keeps the step and language across a reload.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { serve, launch, newCheckedPage } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");

let server, browser;

before(async () => {
  server = await serve(DIST);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(lang, step, width = 1280) {
  const { page, errors } = await newCheckedPage(browser);
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${server.url}embed.html?lang=${lang}&step=${step}`);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  return { page, errors };
}

/** The line boxes each text line of `selector`'s first element takes (1 = not wrapped). */
function lineBoxes(selector) {
  const el = document.querySelector(selector);
  const tops = new Set();
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode()); ) {
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
  }
  return { boxes: tops.size, lines: el.textContent.split("\n").filter((l) => l.trim()).length };
}

test("step 8: `kubectl get ds` rows never wrap; at 320 px the block scrolls, the page does not", async () => {
  for (const width of [1280, 320]) {
    const { page, errors } = await open("en", 8, width);
    await page.locator(".ro-sync").waitFor({ timeout: 20000 });
    for (let i = 0; i < 4; i++) await page.locator(".ro-sync").click();
    await page.waitForFunction(() => document.querySelector(".ro-get-ds")?.textContent.split("\n").filter(Boolean).length >= 5);
    for (const sel of [".ro-get-ds", ".ro-pods", ".ro-status"]) {
      const { boxes, lines } = await page.evaluate(lineBoxes, sel);
      assert.equal(boxes, lines, `${sel} at ${width} px: ${lines} lines took ${boxes} line boxes`);
    }
    const scroll = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      pre: getComputedStyle(document.querySelector(".ro-pods")).whiteSpace,
    }));
    assert.equal(scroll.pre, "pre");
    assert.ok(scroll.page <= 0, `the page scrolls sideways at ${width} px`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("step 7 in Korean: no table cell splits a word; a bad node count is said so; replicas move the headline", async () => {
  const { page, errors } = await open("ko", 7);
  await page.locator(".slot-table td").first().waitFor({ timeout: 20000 });
  const split = await page.evaluate(() => {
    const bad = [];
    for (const cell of document.querySelectorAll(".slot-table th, .slot-table td")) {
      const words = cell.textContent.trim().split(/\s+/).filter(Boolean).length;
      const tops = new Set();
      const range = document.createRange();
      range.selectNodeContents(cell);
      for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
      if (tops.size > Math.max(words, 1)) bad.push(`${cell.textContent.trim()} (${tops.size} lines, ${words} words)`);
    }
    return bad;
  });
  assert.deepEqual(split, [], "cells whose words break across lines");
  const headline = async () => (await page.locator(".slots-headline li").first().textContent()).trim();
  assert.equal(await headline(), "좌석: 64"); // 8 GPUs × 4 replicas × 2 nodes
  await page.locator(".slots-replicas input").fill("10");
  await page.waitForFunction(() => document.querySelector(".slots-headline li")?.textContent.trim() === "좌석: 160");
  assert.match(await page.locator(".slots-config textarea").inputValue(), /replicas: 10\n/);
  for (const bad of ["-3", "2.5", "99999999999", "0", "5001"]) {
    await page.locator(".slots-nodes input").fill(bad);
    const message = (await page.locator(".slots-nodes .field-error").textContent()).trim();
    assert.match(message, /^노드 수: 1부터 5000까지의 정수를 넣으세요/, bad);
    assert.match(message, /: 2\.$/, `${bad}: the message names the value the table keeps`);
    assert.equal(await headline(), "좌석: 160", `${bad} leaves the table as it was`);
  }
  await page.locator(".slots-nodes input").fill("3");
  await page.waitForFunction(() => document.querySelector(".slots-headline li")?.textContent.trim() === "좌석: 240");
  assert.equal(await page.locator(".slots-nodes .field-error").count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("step 6: a refused patch (quantity abc) is not counted, and its error is kubectl's, once", async () => {
  const { page, errors } = await open("en", 6);
  await page.locator(".k8s-patch-apply").waitFor({ timeout: 20000 });
  await page.locator(".k8s-patch-quantity input").fill("abc");
  await page.locator(".k8s-patch-apply").click();
  await page.locator(".k8s-patch-errors").waitFor();
  const error = await page.locator(".k8s-patch-errors").textContent();
  assert.match(error, /^The request is invalid: patch: Invalid value: "map\[status:map\[allocatable:map\[nvidia.com\/gpu:abc\] capacity:map\[nvidia.com\/gpu:abc\]\]\]": quantities must match the regular expression/);
  assert.equal(error.split("regular expression").length, 2, error);
  assert.equal((await page.locator(".k8s-patches").textContent()).trim(), "Patches applied: 0");
  assert.deepEqual(errors, []);
  await page.close();
});

test("no step of the page names a tracker issue (\"issue 5\"), in either language", async () => {
  for (const lang of ["ko", "en"]) {
    const { page, errors } = await open(lang, 1);
    for (let n = 1; n <= 8; n++) {
      await page.locator(`[data-step='${n}']`).click();
      await page.locator(".step-view .hint summary").waitFor({ timeout: 20000 });
      const text = await page.locator(".gpu-lab").textContent();
      assert.doesNotMatch(text, /issue\s*#?\d|이슈\s*#?\d/i, `step ${n} (${lang})`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test("the standalone page keeps the step and language across a reload (query, not the share hash)", async () => {
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(server.url);
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  await page.locator("[data-step='3']").click();
  await page.locator(".lang-switch [data-lang='en']").click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get("step") === "3" && new URLSearchParams(location.search).get("lang") === "en");
  assert.ok(!page.url().includes("#gpulab-v1="));
  await page.reload();
  await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  const state = await page.evaluate(() => ({ lang: document.querySelector(".gpu-lab")?.lang, current: document.querySelector("[data-step][aria-current='step']")?.dataset.step }));
  assert.deepEqual(state, { lang: "en", current: "3" });
  assert.deepEqual(errors, []);
  await page.close();
});
