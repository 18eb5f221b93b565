// End to end, issue 20's defects as a learner meets them, each in a fresh profile:
// - a 5 MB paste is refused up front (the text before it stays), and a save the
//   browser refuses (the host page filled the quota) says so in Korean and English,
//   keeps the work in the page and exports it; once there is room it saves again;
// - what the lab writes it reads back: a config at the 262,144-byte limit goes
//   through a share link and a progress file into fresh profiles; work over it
//   (saved by an older lab) is refused by the writer, naming the field;
// - a share link with `nodes = 4000000000` is refused with its field named, and the
//   page's own input stops at the same bound;
// - a trap while step 2 (English) or step 1 (Korean) handles an input: the lab is
//   started again on a fresh module, says which step stopped, and discards that
//   step's saved input only (or keeps it);
// - and what a stranger's bytes can do: 10,000 nested tables in a drop-in, binary
//   garbage pasted and imported, a share link of 4,000 random characters, a progress
//   file from a newer lab, a reload in the middle of an edit — the page stays alive
//   with a clear message, and saved work is never overwritten without asking;
// - a share link from a newer lab (en, ko); a link over saved work kept away (not
//   offered again) or opened and undone; a 5 MB progress file; 10,000 nested JSON
//   arrays in a file and in a link.
// Run: DIST=../../dist node --test hostile.test.mjs
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import path from "node:path";
import { serve, launch } from "./serve.mjs";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const KEY = "gpu-lab:v1:work";
const MAX_TEXT = 262144;
let server, browser;

before(async () => {
  server = await serve(DIST);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function fresh(init) {
  const context = await browser.newContext({ acceptDownloads: true });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e}`));
  return { context, page, errors };
}

const labUrl = (query) => `${server.url}embed.html?${query}`;
const ready = (page) => page.locator(".step-title").nth(7).waitFor({ timeout: 20000 });
const saved = (page) => page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? "null"), KEY);
const b64url = (buf) => Buffer.from(buf).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Replaces an editor's whole text the way a paste does (one input event). */
async function paste(page, selector, text) {
  await page.evaluate(([selector, text]) => {
    const area = document.querySelector(selector);
    area.value = text;
    area.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertFromPaste" }));
  }, [selector, text]);
}
const value = (page, selector) => page.locator(selector).evaluate((a) => a.value);

/** A TOML comment block of exactly `n` bytes. */
function comments(n) {
  const line = `# ${"x".repeat(77)}\n`;
  const body = line.repeat(Math.floor(n / line.length));
  return body + "#".repeat(n - body.length);
}

test("a 5 MB paste is refused up front; a failed save says so (ko, en) and loses nothing", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=1"));
  await ready(page);
  const main = ".ctr-main textarea";
  const before = await value(page, main);
  await paste(page, main, "x".repeat(5_000_000));
  assert.equal(await page.locator(".ctr-main .editor-too-long").textContent(),
    `Not changed: the text would be 5000000 bytes, over the ${MAX_TEXT} an editor holds. The text before it is kept.`);
  assert.equal(await value(page, main), before, "the text before the paste stays in the editor");

  for (const [lang, note] of [["en", /^Not saved in this browser \(.+\): a reload would bring back older work\. Export a progress file to keep your changes\.$/],
    ["ko", /^이 브라우저에 저장되지 않았습니다\(.+\)\. 새로 고치면 이전 작업이 돌아옵니다\. 변경을 보관하려면 진행 파일을 내보내세요\.$/]]) {
    await page.goto(labUrl(`lang=${lang}&step=1`));
    await ready(page);
    // The host page fills the origin's storage, so the lab's next write fails.
    await page.evaluate(() => {
      const chunk = "h".repeat(1 << 20);
      try { for (let i = 0; ; i++) localStorage.setItem(`host-${i}`, chunk); } catch { /* full */ }
      try { for (let i = 0; ; i++) localStorage.setItem(`host-small-${i}`, "h".repeat(1024)); } catch { /* full */ }
      // To the last bytes: an edit that grows the saved work by a line must not fit.
      try { for (let i = 0; ; i++) localStorage.setItem(`t${i}`, ""); } catch { /* full */ }
    });
    const edited = `${await value(page, main)}# ${lang}: edited while the quota is full\n`;
    await paste(page, main, edited);
    const alert = page.locator(".lab-not-saved[role=alert]");
    await alert.waitFor();
    assert.match(await alert.textContent(), note);
    assert.match(await page.locator(".work-note").textContent(), note, "the panel no longer says the work is saved");
    assert.equal(await value(page, main), edited, "the work stays in the page");
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator(".work-export").click()]);
    assert.ok(JSON.parse(readFileSync(await download.path(), "utf8")).work.containerd.main.endsWith(`# ${lang}: edited while the quota is full\n`));
    // Room again: the next change is saved and the notice goes.
    await page.evaluate(() => { for (const k of Object.keys(localStorage)) if (k.startsWith("host-")) localStorage.removeItem(k); });
    await paste(page, main, `${edited}# saved\n`);
    await alert.waitFor({ state: "detached" });
    assert.ok((await saved(page)).containerd.main.endsWith("# saved\n"));
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("what the lab writes it reads back: at the limit a link and a file open; over it nothing is written", async () => {
  const a = await fresh();
  await a.page.goto(labUrl("lang=en&step=1"));
  await ready(a.page);
  const main = ".ctr-main textarea";
  const big = comments(MAX_TEXT);
  await paste(a.page, main, big);
  await a.page.waitForFunction((k) => localStorage.getItem(k)?.length > 262144, KEY);
  assert.equal(await a.page.locator(".editor-too-long").count(), 0);
  await a.page.locator(".work-share").click();
  const url = await a.page.locator(".work-share-url").inputValue();
  const [download] = await Promise.all([a.page.waitForEvent("download"), a.page.locator(".work-export").click()]);
  const file = readFileSync(await download.path(), "utf8");

  const b = await fresh();
  await b.page.goto(url);
  await ready(b.page);
  await b.page.locator(".lab-notice").filter({ hasText: "Opened the work from the share link." }).waitFor();
  assert.equal(await value(b.page, main), big, "the link carries the text at the limit");
  const c = await fresh();
  await c.page.goto(labUrl("lang=en&step=1"));
  await ready(c.page);
  await c.page.locator(".work-import").setInputFiles({ name: "gpu-node-lab-progress.json", mimeType: "application/json", buffer: Buffer.from(file) });
  await c.page.locator(".lab-notice").filter({ hasText: "Imported gpu-node-lab-progress.json" }).waitFor();
  assert.equal(await value(c.page, main), big, "the file carries the text at the limit");

  // One byte more is refused by the editor; work over the limit saved by an older
  // lab opens, but neither a link nor a file of it is written.
  await paste(a.page, main, `${big}#`);
  await a.page.locator(".editor-too-long").waitFor();
  assert.equal(await value(a.page, main), big);
  await a.page.evaluate(([k, text]) => localStorage.setItem(k, JSON.stringify({ containerd: { main: text } })), [KEY, comments(300_000)]);
  await a.page.reload();
  await ready(a.page);
  assert.equal((await value(a.page, main)).length, 300_000, "older saved work still opens");
  const reason = "Nothing was written: work.containerd.main is out of range (300000 bytes, at most 262144).";
  await a.page.locator(".work-share").click();
  assert.equal(await a.page.locator(".work-share-refused").textContent(), reason);
  let downloaded = false;
  a.page.on("download", () => { downloaded = true; });
  await a.page.locator(".work-export").click();
  assert.equal(await a.page.locator(".work-panel .lab-notice[role=alert] .notice-text").textContent(), reason);
  await a.page.waitForTimeout(300);
  assert.equal(downloaded, false, "no file was written");
  assert.deepEqual([...a.errors, ...b.errors, ...c.errors], []);
  for (const p of [a, b, c]) await p.context.close();
});

test("a share link with nodes = 4000000000 is refused, naming the field; the input stops at the same bound", async () => {
  const { context, page, errors } = await fresh();
  const envelope = { format: "gpu-node-lab/progress", version: 1, work: { slots: { nodes: 4000000000 } } };
  await page.goto(`${labUrl("lang=en&step=7")}#gpulab-v1=${b64url(deflateRawSync(JSON.stringify(envelope)))}`);
  await ready(page);
  const notice = page.locator(".lab-notice[role=alert] .notice-text");
  await notice.waitFor();
  assert.equal(await notice.textContent(),
    "The share link could not be opened: it has a field that is unknown, of the wrong type or out of range: work.slots.nodes: expected a whole number from 1 to 5000, found 4000000000. Your saved work was not changed.");
  const input = page.locator(".slots-nodes input");
  assert.equal(await input.inputValue(), "2");
  assert.deepEqual([await input.getAttribute("min"), await input.getAttribute("max")], ["1", "5000"]);
  await input.fill("4000000000");
  assert.equal(await input.evaluate((i) => i.validity.rangeOverflow), true, "the browser marks the field");
  await input.fill("7");
  await page.waitForFunction((k) => localStorage.getItem(k)?.includes('"nodes":7'), KEY);
  await input.fill("4000000000");
  await page.waitForTimeout(200);
  assert.equal((await saved(page)).slots.nodes, 7, "a number over the bound is not taken");
  assert.deepEqual(errors, []);
  await context.close();
});

// Makes the next call the module makes into JS while `__gpulabTrap` is set throw a
// WebAssembly.RuntimeError: the wasm frames are abandoned exactly as on a trap (a
// panic aborts into one), without shipping a trap switch in the lab.
function trapSwitch() {
  const wrap = (imports) => {
    for (const ns of Object.values(imports ?? {})) {
      for (const [name, f] of Object.entries(ns)) {
        if (typeof f !== "function" || !/^__wbg_value_/.test(name)) continue;
        ns[name] = function (...args) {
          if (window.__gpulabTrap) {
            window.__gpulabTrap = false;
            throw new WebAssembly.RuntimeError("unreachable (a simulated trap)");
          }
          return f.apply(this, args);
        };
      }
    }
    return imports;
  };
  const { instantiate, instantiateStreaming } = WebAssembly;
  WebAssembly.instantiate = (source, imports) => instantiate(source, wrap(imports));
  WebAssembly.instantiateStreaming = (source, imports) => instantiateStreaming(source, wrap(imports));
}

test("a trap in step 2 (en) or step 1 (ko) is caught and shown; discarding resets that step's input only", async () => {
  const { context, page, errors } = await fresh(trapSwitch);
  await page.goto(labUrl("lang=en&step=2"));
  await ready(page);
  const work = await saved(page);
  const defaults = { main: await value(page, ".ctr-main textarea"), dropin: await value(page, ".ctr-dropin textarea") };
  await page.evaluate(([k, w]) => localStorage.setItem(k, JSON.stringify(w)), [KEY, {
    ...work, containerd: { version: "1.7.34", main: `${defaults.main}# mine\n`, dropin: "# my drop-in\n" }, slots: { nodes: 5 },
  }]);
  await page.reload();
  await ready(page);

  const trap = async () => {
    await page.evaluate(() => { window.__gpulabTrap = true; });
    await paste(page, ".ctr-dropin textarea", "# typed when the module trapped\n");
    const notice = page.locator(".lab-notice[role=alert] .notice-text");
    await notice.waitFor();
    assert.equal(await notice.textContent(),
      "Step 2 stopped on an internal error (unreachable (a simulated trap)); the lab restarted with your other steps as they were. Discard step 2's saved input, or keep it?");
    assert.equal(await page.locator(".step-containerd").count(), 0, "the step is not rendered again before the learner chooses");
  };
  await trap();
  // Keep it: the step opens with the input saved before the trap.
  await page.locator(".trap-retry").click();
  assert.equal(await value(page, ".ctr-dropin textarea"), "# my drop-in\n");
  // Again, and discard: only step 2's drop-in goes back to its default.
  await trap();
  await page.locator(".trap-discard").click();
  await page.locator(".lab-notice").filter({ hasText: "Step 2 was reset." }).waitFor();
  assert.equal(await value(page, ".ctr-dropin textarea"), defaults.dropin);
  await page.waitForFunction(([k, d]) => JSON.parse(localStorage.getItem(k)).containerd.dropin === d, [KEY, defaults.dropin]);
  const after = await saved(page);
  assert.equal(after.containerd.main, `${defaults.main}# mine\n`, "step 1's input is kept");
  assert.equal(after.slots.nodes, 5, "step 7's input is kept");
  // The restarted lab works: an edit is saved, and the page's element is still the lab.
  await paste(page, ".ctr-dropin textarea", "# after the restart\n");
  await page.waitForFunction((k) => JSON.parse(localStorage.getItem(k)).containerd.dropin === "# after the restart\n", KEY);
  assert.equal(await page.locator("#lab > .gpu-lab-host > .gpu-lab").count(), 1);

  // In Korean, a trap in step 1: the notice in Korean, and discarding resets step 1's
  // main config only (step 2's drop-in, typed after the restart, is kept).
  await page.goto(labUrl("lang=ko&step=1"));
  await ready(page);
  await page.evaluate(() => { window.__gpulabTrap = true; });
  await paste(page, ".ctr-main textarea", "# typed when the module trapped\n");
  const notice = page.locator(".lab-notice[role=alert] .notice-text");
  await notice.waitFor();
  assert.equal(await notice.textContent(),
    "1단계에서 내부 오류로 멈춰(unreachable (a simulated trap)) 실습을 다시 시작했습니다. 다른 단계는 그대로입니다. 1단계에 저장된 입력을 버릴까요, 둘까요?");
  assert.equal(await page.locator(".trap-discard").textContent(), "버리기");
  await page.locator(".trap-discard").click();
  await page.waitForFunction(([k, d]) => JSON.parse(localStorage.getItem(k)).containerd.main === d, [KEY, defaults.main]);
  assert.equal((await saved(page)).containerd.dropin, "# after the restart\n", "step 2's input is kept");
  // The only errors are the traps themselves.
  assert.deepEqual(errors.filter((e) => !e.includes("a simulated trap")), []);
  await context.close();
});

/** Random characters of `alphabet`, from a seeded xorshift (the failing link reproduces). */
function randomText(n, alphabet, seed = 20261203) {
  let x = seed >>> 0 || 1;
  let out = "";
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

/** The lab still answers: a normal file typed into the step's editor (`dropin` in
 * step 2, `main` in step 1) is judged and saved. */
async function stillAlive(page, file = "dropin") {
  const line = `# alive ${Date.now()}\n`;
  await paste(page, `.ctr-${file} textarea`, line);
  await page.waitForFunction(([k, f, l]) => JSON.parse(localStorage.getItem(k) ?? "{}").containerd?.[f] === l, [KEY, file, line]);
  await page.locator(".ctr-dump").first().waitFor();
}

test("10,000 nested tables in a drop-in: an error at file:line, no crash, the step answers the next edit", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=2"));
  await ready(page);
  const header = `[${Array(10000).fill("t").join(".")}]\nk = 1\n`;
  const inline = `x = ${"{ t = ".repeat(10000)}1${" }".repeat(10000)}\n`;
  for (const text of [header, inline]) {
    await paste(page, ".ctr-dropin textarea", text);
    const diag = page.locator(".step-containerd .diag-location").first();
    await diag.waitFor();
    assert.match(await diag.textContent(), /99-nvidia\.toml:1(:\d+)?/, "the error names the drop-in and its line");
    assert.equal(await page.locator(".lab-notice[role=alert]").count(), 0, "no trap notice: the model answered");
    await stillAlive(page);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("binary garbage: pasted into step 1 it is judged as text; imported as a progress file it is refused by name", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=1"));
  await ready(page);
  const garbage = randomText(20000, Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join("") + "\ud800\udfff\ufffe");
  await paste(page, ".ctr-main textarea", garbage);
  await page.locator(".step-containerd .diag-location").first().waitFor();
  assert.match(await page.locator(".step-containerd .diag-location").first().textContent(), /config\.toml:\d+/);
  const before = await saved(page);
  const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256));
  await page.locator(".work-import").setInputFiles({ name: "garbage.json", mimeType: "application/json", buffer: bytes });
  const notice = page.locator(".work-panel .lab-notice[role=alert] .notice-text");
  await notice.waitFor();
  assert.match(await notice.textContent(), /^garbage\.json was not imported: .+ Your work was not changed\.$/);
  assert.deepEqual(await saved(page), before, "the saved work is untouched");
  await stillAlive(page, "main");
  assert.deepEqual(errors, []);
  await context.close();
});

/** Step 2 in `page` with the learner's own drop-in ("# mine") typed and saved. */
async function withMine(page) {
  await page.goto(labUrl("lang=en&step=2"));
  await ready(page);
  await paste(page, ".ctr-dropin textarea", "# mine\n");
  await page.waitForFunction((k) => JSON.parse(localStorage.getItem(k) ?? "{}").containerd?.dropin === "# mine\n", KEY);
}

/** Opens step 2 with `hash` in each [lang, text]: refused with exactly `text`, the
 * learner's saved drop-in shown and kept. */
async function linkRefused(page, hash, texts) {
  for (const [lang, text] of texts) {
    await page.goto(`${labUrl(`lang=${lang}&step=2`)}${hash}`);
    await ready(page);
    const notice = page.locator(".lab-notice[role=alert] .notice-text");
    await notice.waitFor();
    assert.equal(await notice.textContent(), text);
    assert.equal(await value(page, ".ctr-dropin textarea"), "# mine\n");
    assert.equal((await saved(page)).containerd.dropin, "# mine\n", "saved work is not overwritten");
  }
}

test("a share link of 4,000 random characters, or from a newer lab, is refused in words (en, ko) and the saved work is kept", async () => {
  const { context, page, errors } = await fresh();
  await withMine(page);
  const junk = randomText(4000, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");
  const newer = { format: "gpu-node-lab/progress", version: 2, work: { containerd: { dropin: "# from a newer lab\n" }, dra: { claims: [] } } };
  // The random one decodes (4,000 base64url characters always do) but does not inflate: damaged.
  for (const [hash, texts] of [
    [`#gpulab-v1=${junk}`, [
      ["en", "The share link could not be opened: its data is cut short or damaged; copy the whole link. Your saved work was not changed."],
      ["ko", "공유 링크를 열 수 없습니다. 이유: 데이터가 잘렸거나 손상되었습니다. 링크 전체를 복사하세요. 저장된 작업은 바뀌지 않았습니다."]]],
    [`#gpulab-v1=${b64url(deflateRawSync(JSON.stringify(newer)))}`, [
      ["en", "The share link could not be opened: it was made by a newer version of the lab (format version 2; this lab reads version 1). Your saved work was not changed."],
      ["ko", "공유 링크를 열 수 없습니다. 이유: 더 새로운 버전의 실습이 만든 링크입니다(형식 버전 2, 이 실습은 버전 1을 읽습니다). 저장된 작업은 바뀌지 않았습니다."]]],
  ]) {
    await linkRefused(page, hash, texts);
  }
  await stillAlive(page);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a progress file from a newer lab is refused, naming the versions; nothing changes", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=7"));
  await ready(page);
  const before = await saved(page);
  const newer = { format: "gpu-node-lab/progress", version: 2, work: { slots: { nodes: 3 }, dra: { claims: [] } } };
  await page.locator(".work-import").setInputFiles({ name: "from-the-future.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(newer)) });
  const notice = page.locator(".work-panel .lab-notice[role=alert] .notice-text");
  await notice.waitFor();
  assert.equal(await notice.textContent(),
    "from-the-future.json was not imported: it was made by a newer version of the lab (format version 2; this lab reads version 1). Your work was not changed.");
  assert.deepEqual(await saved(page), before);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a reload in the middle of an edit keeps the edit; a link over saved work asks first", async () => {
  const { context, page, errors } = await fresh();
  await page.goto(labUrl("lang=en&step=2"));
  await ready(page);
  const area = page.locator(".ctr-dropin textarea");
  await area.click();
  await page.keyboard.press("End");
  await page.keyboard.type("# typed just before the reload");
  await page.reload();
  await ready(page);
  assert.ok((await value(page, ".ctr-dropin textarea")).includes("# typed just before the reload"), "the last keystrokes survive the reload");
  // Someone's link while this browser holds the learner's own work: the lab asks.
  const envelope = { format: "gpu-node-lab/progress", version: 1, work: { containerd: { dropin: "# someone else's\n" } } };
  await page.goto(`${labUrl("lang=en&step=2")}#gpulab-v1=${b64url(deflateRawSync(JSON.stringify(envelope)))}`);
  await ready(page);
  await page.locator(".lab-notice").filter({ hasText: "already holds your own saved work" }).waitFor();
  assert.ok((await saved(page)).containerd.dropin.includes("# typed just before the reload"), "nothing overwritten before the learner answers");
  assert.deepEqual(errors, []);
  await context.close();
});

test("a link over saved work: keep mine keeps it (and the link is not offered again); open takes it, and undo brings mine back", async () => {
  const { context, page, errors } = await fresh();
  await withMine(page);
  const envelope = { format: "gpu-node-lab/progress", version: 1, work: { containerd: { dropin: "# someone else's\n" } } };
  const link = `${labUrl("lang=en&step=2")}#gpulab-v1=${b64url(deflateRawSync(JSON.stringify(envelope)))}`;
  const offer = page.locator(".lab-notice").filter({ hasText: "already holds your own saved work" });

  await page.goto(link);
  await ready(page);
  await offer.waitFor();
  assert.equal(await value(page, ".ctr-dropin textarea"), "# mine\n", "the page shows the learner's work while it asks");
  await page.locator(".share-keep").click();
  await offer.waitFor({ state: "detached" });
  assert.equal((await saved(page)).containerd.dropin, "# mine\n");
  await page.reload();
  await ready(page);
  assert.equal(await offer.count(), 0, "a kept-away link is not offered again on reload");
  assert.equal(await value(page, ".ctr-dropin textarea"), "# mine\n");

  await page.goto(link);
  await ready(page);
  await offer.waitFor();
  await page.locator(".share-open").click();
  await page.locator(".lab-notice").filter({ hasText: "Opened the work from the share link." }).waitFor();
  assert.equal(await value(page, ".ctr-dropin textarea"), "# someone else's\n");
  await page.waitForFunction((k) => JSON.parse(localStorage.getItem(k)).containerd.dropin === "# someone else's\n", KEY);
  await page.locator(".work-undo").click();
  await page.locator(".lab-notice").filter({ hasText: "Undone: your work is as it was before." }).waitFor();
  assert.equal(await value(page, ".ctr-dropin textarea"), "# mine\n");
  await page.waitForFunction((k) => JSON.parse(localStorage.getItem(k)).containerd.dropin === "# mine\n", KEY);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a 5 MB progress file and 10,000 nested arrays in a file or a link are refused by name; nothing changes", async () => {
  const { context, page, errors } = await fresh();
  await withMine(page);
  const before = await saved(page);
  const notice = page.locator(".work-panel .lab-notice[role=alert] .notice-text");
  const big = Buffer.from(JSON.stringify({ format: "gpu-node-lab/progress", version: 1, work: { containerd: { main: "#".repeat(5_000_000 - 100) } } }).padEnd(5_000_000, " "));
  await page.locator(".work-import").setInputFiles({ name: "big.json", mimeType: "application/json", buffer: big });
  await notice.waitFor();
  assert.equal(await notice.textContent(), "big.json was not imported: the file is too large (5000000 bytes; at most 1048576). Your work was not changed.");
  assert.deepEqual(await saved(page), before);

  const deep = `{"format":"gpu-node-lab/progress","version":1,"work":{"containerd":${"[".repeat(10000)}${"]".repeat(10000)}}}`;
  await page.locator(".work-import").setInputFiles({ name: "deep.json", mimeType: "application/json", buffer: Buffer.from(deep) });
  await page.locator(".work-panel .lab-notice[role=alert]").filter({ hasText: "deep.json" }).waitFor();
  assert.match(await notice.textContent(), /^deep\.json was not imported: .+ Your work was not changed\.$/);
  assert.deepEqual(await saved(page), before);

  await page.goto(`${labUrl("lang=en&step=2")}#gpulab-v1=${b64url(deflateRawSync(deep))}`);
  await ready(page);
  const linkNotice = page.locator(".lab-notice[role=alert] .notice-text");
  await linkNotice.waitFor();
  assert.match(await linkNotice.textContent(), /^The share link could not be opened: .+ Your saved work was not changed\.$/);
  assert.deepEqual(await saved(page), before);
  await stillAlive(page);
  assert.deepEqual(errors, []);
  await context.close();
});
