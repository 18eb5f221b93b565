// Keystroke budget: a 1,000-line containerd config in the step 1 and step 2 editors,
// re-diagnosed on every keystroke in headless Chromium. Prints median and p95 per
// keystroke; the goal (16 ms, one frame) lives in this output, not in a timed
// assertion (shared CI machines are noisy). It fails only when absurdly over (10×).
// Run: cd tests/e2e && DIST=../../dist node --test bench/
//
// What one keystroke costs here: the input event → the reducer → localStorage save →
// the containerd model (load, merge, dump, blame, diagnostics) → Yew's diff and DOM
// patch ("re-diagnosed": the app's own work, from the input event until the app is
// done with it), measured until the next task ("render", which adds the browser's text
// editing), then also forcing style and layout ("to layout"), which is what the
// learner waits for before the next paint. "The browser alone" is the same keystroke
// with the app not listening: most of "to layout" on a 1,000-line textarea here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { serve, launch, newCheckedPage } from "../serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const GOAL_MS = 16;
const KEYSTROKES = Number(process.env.KEYSTROKES ?? 60);

let server, browser;
before(async () => {
  server = await serve(DIST);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** A realistic main config of exactly `lines` lines: CRI runtimes with options and comments. */
function bigConfig(lines = 1000) {
  const out = [
    "version = 2",
    'imports = ["/etc/containerd/conf.d/*.toml"]',
    "",
    "[plugins]",
    '  [plugins."io.containerd.grpc.v1.cri"]',
    '    sandbox_image = "registry.k8s.io/pause:3.9"',
    '    [plugins."io.containerd.grpc.v1.cri".containerd]',
    '      default_runtime_name = "runc"',
    '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]',
  ];
  for (let i = 0; out.length < lines; i++) {
    const name = i === 0 ? "runc" : `runc-${i}`;
    const block = [
      `        # runtime ${i}: a runc variant for tenant ${i % 17}`,
      `        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.${name}]`,
      '          runtime_type = "io.containerd.runc.v2"',
      `          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.${name}.options]`,
      "            SystemdCgroup = true",
      `            BinaryName = "/usr/local/bin/runc-${i}"`,
    ];
    out.push(...block.slice(0, lines - out.length));
  }
  return out.join("\n") + "\n";
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p95: q(0.95), max: s.at(-1) };
}

async function measure(page, selector, count, runtime) {
  return page.evaluate(async ({ selector, count, runtime }) => {
    const area = document.querySelector(selector);
    const nextTask = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
    // Type into a value near the middle of the file, one character at a time, through
    // the browser's editing path (what a real keystroke does to a textarea).
    const marker = `BinaryName = "/usr/local/bin/runc-${runtime}"`;
    if (!area.value.includes(marker)) throw new Error(`no ${marker}`);
    const at = area.value.indexOf(marker) + marker.length - 1;
    area.focus();
    area.setSelectionRange(at, at);
    const render = [], layout = [], app = [];
    // The app's own work per keystroke: from the input event reaching the page
    // (window, capture phase) until the app is done with it: the reducer, the
    // containerd model and Yew's diff and patch, without the browser's text editing
    // and layout. Yew renders in a microtask the input handler queues; a microtask
    // queued once execCommand returns runs after it. A keystroke whose findings do
    // not change the page changes no DOM; when one does, or when Yew finishes its work
    // in a later task (it yields after 16 ms), the last DOM change (a
    // MutationObserver's callback) is later still, and counts.
    let inputAt = 0, lastChange = 0;
    const onInput = () => { inputAt = performance.now(); lastChange = inputAt; };
    window.addEventListener("input", onInput, true);
    const observer = new MutationObserver(() => { lastChange = performance.now(); });
    observer.observe(document.querySelector(".gpu-lab"), { subtree: true, childList: true, characterData: true, attributes: true });
    for (let i = 0; i < count; i++) {
      const ch = i % 2 === 0 ? "x" : "y";
      const t0 = performance.now();
      document.execCommand("insertText", false, ch);
      await Promise.resolve();
      const settled = performance.now();
      await nextTask();
      const t1 = performance.now();
      document.querySelector(".gpu-lab").offsetHeight;
      const t2 = performance.now();
      render.push(t1 - t0);
      layout.push(t2 - t0);
      app.push(Math.max(settled, lastChange) - inputAt);
    }
    observer.disconnect();
    window.removeEventListener("input", onInput, true);
    const browserOnly = [];
    // The browser's own cost of the same keystroke with the app not listening.
    const stop = (e) => e.stopImmediatePropagation();
    area.addEventListener("input", stop, true);
    for (let i = 0; i < Math.min(count, 30); i++) {
      const t0 = performance.now();
      document.execCommand("insertText", false, "z");
      await nextTask();
      document.querySelector(".gpu-lab").offsetHeight;
      browserOnly.push(performance.now() - t0);
    }
    area.removeEventListener("input", stop, true);
    return { render, layout, app, browserOnly, diagnostics: document.querySelectorAll(".diagnostics li").length,
      total: [...document.querySelectorAll(".diag-more")].map((p) => Number(p.textContent.match(/of (\d+) findings/)?.[1] ?? 0)), lines: area.value.split("\n").length };
  }, { selector, count, runtime });
}

for (const step of [1, 2]) {
  test(`keystroke budget: step ${step}, a 1,000-line config re-diagnosed per keystroke`, async () => {
    const { page, errors } = await newCheckedPage(browser);
    await page.goto(`${server.url}embed.html?lang=en&step=${step}`);
    await page.locator(".ctr-main textarea").waitFor({ timeout: 20000 });
    await page.evaluate(() => localStorage.clear());
    const config = bigConfig(1000);
    assert.equal(config.split("\n").length - 1, 1000);
    await page.locator(".ctr-main textarea").fill(config);
    await page.locator(".editor-gutter li").nth(999).waitFor({ state: "attached" });
    if (process.env.BENCH_CSS) await page.addStyleTag({ content: process.env.BENCH_CSS });
    await measure(page, ".ctr-main textarea", 5, 60); // warm-up
    const m = await measure(page, ".ctr-main textarea", KEYSTROKES, 70);
    // The typing kept the config valid: step 2 still shows the drop-in's findings.
    // (The panel lists the first 100 and says how many there are.)
    if (step === 2) assert.ok(m.total.reduce((a, n) => a + n, 0) > 1000, `findings: ${m.total}`);
    const r = stats(m.render), l = stats(m.layout), b = stats(m.browserOnly), a = stats(m.app);
    const f = (x) => x.toFixed(2);
    console.log(`keystroke step ${step}: ${m.lines - 1} lines, ${KEYSTROKES} keystrokes, ${m.diagnostics} findings listed (of ${m.total.join(" + ") || m.diagnostics})`);
    console.log(`keystroke step ${step}: re-diagnosed (the app's own work: input event → the app done with it) median ${f(a.median)} ms, p95 ${f(a.p95)} ms, max ${f(a.max)} ms (goal ${GOAL_MS} ms)${a.median > GOAL_MS ? " — OVER THE GOAL" : ""}`);
    console.log(`keystroke step ${step}: render    median ${f(r.median)} ms, p95 ${f(r.p95)} ms, max ${f(r.max)} ms (goal ${GOAL_MS} ms)`);
    console.log(`keystroke step ${step}: to layout median ${f(l.median)} ms, p95 ${f(l.p95)} ms, max ${f(l.max)} ms (goal ${GOAL_MS} ms)${l.median > GOAL_MS ? " — OVER THE GOAL" : ""}`);
    console.log(`keystroke step ${step}: the browser alone (textarea edit + layout, app not listening) median ${f(b.median)} ms, p95 ${f(b.p95)} ms`);
    console.log(`keystroke step ${step}: the app's share (to layout − browser alone, medians) ${f(l.median - b.median)} ms`);
    assert.ok(l.median < GOAL_MS * 10, `median ${l.median} ms is more than 10× the ${GOAL_MS} ms goal`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
