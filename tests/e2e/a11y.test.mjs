// End to end, accessibility (WCAG 2.2 AA) on the built dist/: every step walked
// by keyboard alone in Korean and again in English (Tab, Enter, typing; Esc then Tab
// to leave an editor), the work intact after a reload mid-way, a screenshot per step
// (target/e2e/walk/, not committed), and no console error. Then, on every step:
// text contrast ≥ 4.5:1 (3:1 for large text) computed from the rendered colours,
// every interactive element ≥ 24×24 px or spaced as WCAG 2.5.8 allows, tables with captions and header cells,
// upstream texts marked lang="en", and at 320 px one column without horizontal scroll.
// Steps 5, 6 and 8 run on the on-demand Kubernetes chunk: the walk waits for it.
// Run: DIST=../../dist node --test a11y.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { serve, launch } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const OUT = path.resolve(process.env.E2E_OUT ?? "../../target/e2e", "walk");
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

async function fresh(viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e}`));
  return { context, page, errors };
}

const active = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a ? { tag: a.tagName, cls: a.className, step: a.dataset?.step ?? null, lang: a.dataset?.lang ?? null } : null;
});

/** Presses Tab until the focused element matches `selector` (leaving editors with
 * Esc then Tab, as the UI tells learners to); fails if it is never reached. */
async function tabTo(page, selector, max = 400) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    if (await page.evaluate(() => document.activeElement?.tagName === "TEXTAREA")) await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
  }
  assert.fail(`Tab never reached ${selector}; focus is on ${JSON.stringify(await active(page))}`);
}

/** Tabs through the whole step view and returns what it could not reach. */
async function unreachable(page) {
  await page.evaluate(() => {
    const sel = "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";
    document.querySelectorAll(".step-view :is(" + sel + ")").forEach((el, i) => {
      // A radio group is one Tab stop (arrow keys move inside it): one id per group.
      if (el.getClientRects().length && !el.disabled) el.dataset.walk = el.type === "radio" ? `radio:${el.name}` : String(i);
    });
    window.__seen = new Set();
    document.addEventListener("focusin", (e) => { if (e.target.dataset?.walk) window.__seen.add(e.target.dataset.walk); });
  });
  await tabTo(page, "[aria-current=step]");
  await page.evaluate(() => window.__seen.clear());
  let entered = false;
  for (let i = 0; i < 600; i++) {
    if (await page.evaluate(() => document.activeElement?.tagName === "TEXTAREA")) await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    const inside = await page.evaluate(() => !!document.activeElement?.closest(".step-view"));
    const done = await page.evaluate(() => window.__seen.size === new Set([...document.querySelectorAll("[data-walk]")].map((e) => e.dataset.walk)).size);
    if (done || (entered && !inside)) break;
    entered ||= inside;
  }
  return page.evaluate(() => [...document.querySelectorAll("[data-walk]")].filter((e) => !window.__seen.has(e.dataset.walk)).map((e) => `${e.tagName}.${e.className} ${e.outerHTML.slice(0, 80)}`));
}

async function goStep(page, n) {
  await tabTo(page, `[data-step='${n}']`);
  await page.keyboard.press("Enter");
  // The step changes on the app's next render, not within the key press: wait for it
  // (the cold run at load 17 read aria-current before that render and saw null).
  await page.locator(`[data-step='${n}'][aria-current='step']`).waitFor({ timeout: 10000 });
  assert.equal(await page.locator(`[data-step='${n}']`).getAttribute("aria-current"), "step");
}

/** What each built step is, done by keyboard; returns a check to run after a reload. */
const actions = {
  1: async (page) => {
    await tabTo(page, ".ctr-main textarea");
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\n# typed by keyboard");
    await page.locator(".ctr-main .diagnostics").waitFor();
    assert.match(await page.locator(".ctr-main textarea").inputValue(), /# typed by keyboard$/);
  },
  2: async (page) => {
    await tabTo(page, ".ctr-dropin textarea");
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\n# drop-in by keyboard");
    assert.equal(await page.locator(".ctr-blame caption").count(), 1);
  },
  3: async (page) => {
    await page.locator(".check-output").first().waitFor();
  },
  4: async (page) => {
    for (const cls of ["rs-write-dropin", "rs-run-check", "rs-restart", "rs-run-check"]) {
      await tabTo(page, `.${cls}`);
      await page.keyboard.press("Enter");
    }
    // The check runs come from the on-demand chunk.
    await page.locator(".rs-run").nth(1).waitFor({ timeout: 20000 });
    assert.equal(await page.locator(".rs-run").count(), 2);
  },
  5: async (page) => {
    await page.locator(".k8s-outcome").waitFor({ timeout: 20000 });
    await tabTo(page, ".k8s-runtimeclass textarea");
    await page.keyboard.press("Escape");
    assert.ok(await page.locator(".k8s-admitted, .k8s-rejected").count() > 0, "step 5 shows the admission result");
  },
  6: async (page) => {
    await page.locator(".k8s-verdict").waitFor({ timeout: 20000 });
    const before = await page.locator(".k8s-patches").textContent();
    await tabTo(page, ".k8s-patch-apply");
    await page.keyboard.press("Enter");
    await page.waitForFunction((t) => document.querySelector(".k8s-patches")?.textContent !== t, before);
  },
  7: async (page) => {
    await tabTo(page, ".slots-nodes input");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("3");
    await page.waitForFunction(() => document.querySelector(".slots-nodes input").value === "3");
  },
  8: async (page) => {
    await page.locator(".ro-sync").waitFor({ timeout: 20000 });
    const before = await page.locator(".ro-syncs").textContent();
    await tabTo(page, ".ro-sync");
    await page.keyboard.press("Enter");
    await page.waitForFunction((t) => document.querySelector(".ro-syncs")?.textContent !== t, before);
  },
};

for (const lang of ["ko", "en"]) {
  test(`keyboard only, ${lang}: every step, a reload mid-way, screenshots, no console error`, async () => {
    const { context, page, errors } = await fresh();
    await page.goto(server.url);
    await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
    await page.locator("body").focus();
    if (lang === "en") {
      await tabTo(page, "[data-lang=en]");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelector(".gpu-lab")?.lang === "en");
    }
    for (let n = 1; n <= 8; n++) {
      await goStep(page, n);
      await actions[n](page);
      assert.deepEqual(await unreachable(page), [], `step ${n}: controls Tab does not reach`);
      await page.screenshot({ path: path.join(OUT, `${lang}-step${n}.png`), fullPage: true });
      if (n === 4) {
        // Reload mid-way: the language and step belong to the page, the work is kept.
        await page.reload();
        await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
        if (lang === "en") {
          await tabTo(page, "[data-lang=en]");
          await page.keyboard.press("Enter");
        }
        await goStep(page, 1);
        assert.match(await page.locator(".ctr-main textarea").inputValue(), /# typed by keyboard$/);
        await goStep(page, 2);
        assert.match(await page.locator(".ctr-dropin textarea").inputValue(), /# drop-in by keyboard$/);
        await goStep(page, 4);
        await page.locator(".rs-run").nth(1).waitFor({ timeout: 20000 });
        assert.equal(await page.locator(".rs-run").count(), 2, "step 4's runs are restored");
      }
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}

/** Contrast, target size, tables and lang, measured in the page as rendered. */
function audit() {
  const rgba = (c) => {
    const m = c.match(/rgba?\(([^)]+)\)/);
    if (!m) return { r: 0, g: 0, b: 0, a: 0 };
    const [r, g, b, a = 1] = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    return layers.reverse().reduce((acc, l) => over(l, acc), { r: 255, g: 255, b: 255, a: 1 });
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const hidden = (el) => !el.getClientRects().length || el.closest(".visually-hidden") || getComputedStyle(el).visibility === "hidden";
  const name = (el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`;
  const contrast = [];
  let texts = 0, controls = 0;
  for (const el of document.querySelectorAll(".gpu-lab *")) {
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()) || ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName);
    if (!hasText || hidden(el) || el.disabled || (el.tagName === "INPUT" && el.type === "file")) continue;
    const s = getComputedStyle(el);
    const bg = background(el);
    const fg = over(rgba(s.color), bg);
    const size = parseFloat(s.fontSize), bold = Number(s.fontWeight) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    const r = ratio(fg, bg);
    texts++;
    if (r < need) contrast.push(`${name(el)} ${r.toFixed(2)} < ${need} (${s.color} on ${JSON.stringify(bg)})`);
  }
  // WCAG 2.2 SC 2.5.8: a target under 24×24 passes by spacing when a 24 px circle
  // centred on it intersects no other target and no other undersized target's circle
  // (step 8's one-character kubectl cells, three spaces from the next column).
  const targets = [];
  const boxes = [];
  for (const el of document.querySelectorAll(".gpu-lab :is(a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1']))")) {
    if (hidden(el)) continue;
    controls++;
    boxes.push({ el, r: el.getBoundingClientRect() });
  }
  const small = (r) => r.width < 24 || r.height < 24;
  const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];
  const spaced = (a) => {
    const [x, y] = centre(a.r);
    return boxes.every((b) => {
      if (b === a) return true;
      if (small(b.r)) {
        const [u, v] = centre(b.r);
        return Math.hypot(x - u, y - v) >= 24;
      }
      const dx = Math.max(b.r.left - x, 0, x - b.r.right);
      const dy = Math.max(b.r.top - y, 0, y - b.r.bottom);
      return Math.hypot(dx, dy) >= 12;
    });
  };
  for (const a of boxes) {
    if (small(a.r) && !spaced(a)) targets.push(`${name(a.el)} ${a.r.width.toFixed(1)}×${a.r.height.toFixed(1)}`);
  }
  const tables = [...document.querySelectorAll(".gpu-lab table")].filter((t) => !t.querySelector("caption") || !t.querySelector("th")).map(name);
  const upstreamLang = [...document.querySelectorAll(".gpu-lab pre.upstream")].filter((p) => p.closest("[lang]")?.lang !== "en").map(name);
  // Pass/fail and severity are words, not only colours.
  const colourOnly = [...document.querySelectorAll(".gpu-lab .diag")].filter((d) => !d.querySelector(".diag-severity")?.textContent.trim()).map(name);
  return { contrast, targets, tables, upstreamLang, colourOnly, texts, controls, root: document.querySelector(".gpu-lab")?.lang };
}

for (const lang of ["ko", "en"]) {
  test(`WCAG checks on every step, ${lang}: contrast, 24×24 targets, tables, lang, 320 px`, async () => {
    const { context, page, errors } = await fresh();
    await page.goto(`${server.url}embed.html?lang=${lang}`);
    await page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
    for (let n = 1; n <= 8; n++) {
      await page.locator(`[data-step='${n}']`).click();
      await page.locator(".step-view .hint summary").waitFor();
      await page.locator(".hint summary").click(); // open the hint, so its text is checked too
      for (const width of [1280, 320]) {
        await page.setViewportSize({ width, height: 900 });
        const a = await page.evaluate(audit);
        const where = `step ${n} at ${width} px`;
        assert.deepEqual(a.contrast, [], `${where}: contrast`);
        assert.deepEqual(a.targets, [], `${where}: targets under 24×24`);
        assert.deepEqual(a.tables, [], `${where}: tables without caption or header cells`);
        assert.deepEqual(a.upstreamLang, [], `${where}: upstream text not lang=en`);
        assert.deepEqual(a.colourOnly, [], `${where}: a finding without its severity in words`);
        assert.equal(a.root, lang);
        assert.ok(a.texts > 20 && a.controls > 8, `${where}: audited ${a.texts} texts, ${a.controls} controls`);
        if (width === 320) {
          const layout = await page.evaluate(() => {
            const nav = document.querySelector(".step-nav").getBoundingClientRect();
            const main = document.querySelector(".step-view").getBoundingClientRect();
            return { scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, stacked: nav.bottom <= main.top + 1 };
          });
          assert.ok(layout.scroll <= layout.client, `${where}: horizontal scroll (${layout.scroll} > ${layout.client})`);
          assert.ok(layout.stacked, `${where}: navigation and step are not one column`);
          await page.screenshot({ path: path.join(OUT, `${lang}-step${n}-320px.png`), fullPage: true });
        }
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}
