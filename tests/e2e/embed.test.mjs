// End to end, embedding: embed.html in cross-origin iframes (the course page on
// 127.0.0.1, the lab on localhost — two origins of one server). Each iframe posts
// its height in three shapes (gpulab:resize, H5P's resize, Canvas's lti.frameResize)
// to an allowed parent; commands from an origin not on its allowlist are ignored;
// several labs on one page stay independent.
// Run: DIST=../../dist node --test embed.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serve, launch, newCheckedPage, tempDir } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
let server, browser, root;

before(async () => {
  root = tempDir("gpulab-embed-");
  mkdirSync(path.join(root, "course"));
  symlinkSync(DIST, path.join(root, "course", "lab"));
  server = await serve(root);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test("iframes: resize messages to allowed parents, origin allowlist, independent labs", async () => {
  const host = server.url.replace(/\/$/, "");                 // http://127.0.0.1:PORT
  const lab = host.replace("127.0.0.1", "localhost") + "/course/lab/embed.html";
  const frames = {
    a: `${lab}?lang=en&step=1&origins=${encodeURIComponent(host)}`,
    b: `${lab}?lang=en&step=7&origins=${encodeURIComponent("https://lms.example.edu, " + host)}`,
    c: `${lab}?lang=en&step=2&origins=${encodeURIComponent("https://lms.example.edu")}`,
    d: `${lab}?lang=en&step=3`,
  };
  writeFileSync(path.join(root, "course", "frames.html"), `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>course page with labs</title><link rel="icon" href="data:,"></head>
<body>${Object.entries(frames).map(([id, src]) => `<iframe id="${id}" title="lab ${id}" src="${src}" style="width:900px;height:300px"></iframe>`).join("\n")}
<script>
  window.messages = [];
  addEventListener("message", (e) => {
    const frame = [...document.querySelectorAll("iframe")].find((f) => f.contentWindow === e.source);
    window.messages.push({ id: frame?.id, origin: e.origin, data: e.data });
    if (e.data?.type === "gpulab:resize") frame.style.height = e.data.height + "px";
  });
</script></body></html>`);
  const { page, errors } = await newCheckedPage(browser);
  await page.goto(`${host}/course/frames.html`);
  for (const id of Object.keys(frames)) {
    await page.frameLocator(`#${id}`).locator(".step-title").nth(7).waitFor({ timeout: 20000 });
  }
  const labOrigin = new URL(lab).origin;
  await page.waitForFunction(() => ["a", "b", "d"].every((id) => window.messages.some((m) => m.id === id && m.data?.type === "gpulab:resize")));
  await page.waitForTimeout(300);
  const messages = await page.evaluate(() => window.messages);
  for (const id of ["a", "b", "d"]) {
    const mine = messages.filter((m) => m.id === id);
    assert.ok(mine.every((m) => m.origin === labOrigin), id);
    const own = mine.findLast((m) => m.data?.type === "gpulab:resize");
    const h5p = mine.findLast((m) => m.data?.context === "h5p" && m.data.action === "resize");
    const canvas = mine.map((m) => (typeof m.data === "string" ? JSON.parse(m.data) : null)).findLast((d) => d?.subject === "lti.frameResize");
    assert.ok(own.data.height > 300, `${id}: height ${own.data.height}`);
    assert.equal(h5p.data.scrollHeight, own.data.height, id);
    assert.equal(canvas.height, own.data.height, id);
  }
  assert.equal(messages.filter((m) => m.id === "c").length, 0, "a parent not on c's allowlist hears nothing");
  // The parent sized each allowed iframe to its content.
  const heights = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll("iframe")].map((f) => [f.id, parseFloat(f.style.height)])));
  assert.ok(heights.a > 300 && heights.b > 300 && heights.c === 300, JSON.stringify(heights));

  const post = (id, data) => page.evaluate(([id, data]) => document.getElementById(id).contentWindow.postMessage(data, "*"), [id, data]);
  const current = (id) => page.frameLocator(`#${id}`).locator("[aria-current=step]").getAttribute("data-step");
  // An allowed parent moves lab a; lab b stays where it is.
  await post("a", { type: "gpulab:update", step: 4, lang: "ko" });
  await page.frameLocator("#a").locator("[data-step='4'][aria-current=step]").waitFor();
  await page.frameLocator("#a").locator(".gpu-lab[lang=ko]").waitFor();
  assert.equal(await current("b"), "7");
  assert.equal(await page.frameLocator("#b").locator(".gpu-lab").getAttribute("lang"), "en");
  // H5P handshake and a state request are answered.
  await post("b", JSON.stringify({ context: "h5p", action: "hello" }));
  await post("b", { type: "gpulab:state" });
  await page.waitForFunction(() => window.messages.some((m) => m.id === "b" && m.data?.type === "gpulab:state"));
  const b = await page.evaluate(() => window.messages.filter((m) => m.id === "b"));
  assert.ok(b.some((m) => m.data?.context === "h5p" && m.data.action === "hello"));
  assert.deepEqual(b.findLast((m) => m.data?.type === "gpulab:state").data.state, { lang: "en", step: 7 });
  // A bad command is answered with its error, not thrown into the page.
  await post("a", { type: "gpulab:update", step: 12 });
  await page.waitForFunction(() => window.messages.some((m) => m.id === "a" && m.data?.type === "gpulab:error"));
  // Parents not on the allowlist (c), or cross-origin without a list (d), are ignored.
  await post("c", { type: "gpulab:update", step: 5 });
  await post("d", { type: "gpulab:update", step: 6 });
  await page.waitForTimeout(300);
  assert.equal(await current("c"), "2");
  assert.equal(await current("d"), "3");
  // Acting inside one lab changes only that lab. Lab a's move to step 4 in Korean
  // resizes its iframe, which moves lab d below it; a mouse click aimed while that
  // resize is still on its way lands beside the button (CI, a loaded 2-core machine,
  // even after the frames had kept their places for half a second). The button is
  // pressed by keyboard (focus, Enter), which no layout shift can miss.
  await page.frameLocator("#d").locator("[data-step='1']").focus();
  await page.keyboard.press("Enter");
  await page.frameLocator("#d").locator("[data-step='1'][aria-current=step]").waitFor();
  assert.equal(await current("d"), "1");
  assert.equal(await current("c"), "2");
  assert.deepEqual(errors, []);
  await page.close();
});
