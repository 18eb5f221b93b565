// Test helpers: serve a directory on 127.0.0.1 (python's http.server on a port the
// OS picks) and launch Debian's Chromium with playwright-core (no browser download).
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Serves `dir` (optionally under a sub-path prefix dir); resolves to { url, stop }. */
export async function serve(dir) {
  const server = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Read the port from python's first line without closing its stdout: a closed pipe
  // would kill the server on its next log line.
  server.stderr.resume();
  const port = await new Promise((resolve, reject) => {
    let buf = "";
    const onData = (chunk) => {
      buf += chunk;
      const m = buf.match(/port (\d+)/);
      if (m) {
        server.stdout.off("data", onData);
        server.stdout.resume();
        resolve(m[1]);
      }
    };
    server.stdout.on("data", onData);
    server.once("exit", (code) => reject(new Error(`http.server exited (${code}): ${buf}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    async stop() {
      if (server.exitCode === null) {
        server.kill("SIGTERM");
        await once(server, "exit");
      }
    },
  };
}

const tempDirs = [];

/** Removes every directory `tempDir` made (a symlink inside is removed, not followed). */
export function removeTempDirs() {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * A fresh directory `<tmp>/<prefix>XXXXXX` removed when this test file's process ends
 * (however its tests went): an e2e run leaves nothing in /tmp.
 */
export function tempDir(prefix) {
  if (tempDirs.length === 0) process.once("exit", removeTempDirs);
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

export function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
      "--disable-quic", "--no-first-run", "--no-default-browser-check",
    ],
  });
}

/**
 * A page that records console errors, page errors and failed requests.
 *
 * A reload or `goto` cancels whatever the old document was still fetching
 * (the lab prefetches its chunk when idle), and Chromium reports those as
 * `net::ERR_ABORTED`. Only those, and only while the test itself navigates,
 * are not errors; every other failed request is.
 */
export async function newCheckedPage(browser) {
  const page = await browser.newPage();
  const errors = [];
  let navigating = 0;
  for (const method of ["reload", "goto"]) {
    const original = page[method].bind(page);
    page[method] = async (...args) => {
      navigating += 1;
      try { return await original(...args); } finally { navigating -= 1; }
    };
  }
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e}`));
  page.on("requestfailed", (r) => {
    const reason = r.failure()?.errorText ?? "";
    if (navigating > 0 && reason === "net::ERR_ABORTED") return;
    errors.push(`requestfailed: ${r.url()} (${reason})`);
  });
  page.on("response", (r) => { if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`); });
  return { page, errors };
}

/** The `step-N-title` messages of i18n/<lang>.ftl, in step order. */
export async function stepTitles(lang) {
  const { readFile } = await import("node:fs/promises");
  const text = await readFile(new URL(`../../i18n/${lang}.ftl`, import.meta.url), "utf8");
  const titles = [];
  for (const line of text.split("\n")) {
    const m = line.match(/^step-(\d)-title = (.*)$/);
    if (m) titles[Number(m[1]) - 1] = m[2];
  }
  return titles;
}

/** Runs the native companion `bin` with `args`; returns stdout whatever the exit
 * status when it is 1 (a check failed, a rollout stalled), throws on any other. */
export function companion(bin, args, cwd) {
  try {
    return execFileSync(bin, args, { cwd, encoding: "utf8" });
  } catch (e) {
    if (typeof e.stdout === "string" && e.status === 1) return e.stdout;
    throw e;
  }
}

/** Serves `dir` and launches Chromium for the calling test file (its `before` and
 * `after` hooks); returns an object whose `server` and `browser` are set once they run. */
export function servedLab(dir) {
  const lab = {};
  before(async () => {
    lab.server = await serve(dir);
    lab.browser = await launch();
  });
  after(async () => {
    await lab.browser?.close();
    await lab.server?.stop();
  });
  return lab;
}

/** Moves a closed <select> to `value` with the arrow keys, as a keyboard user does. */
export async function choose(page, selector, value) {
  const select = page.locator(selector);
  await select.focus();
  await page.keyboard.press("Home");
  const options = await select.locator("option").evaluateAll((os) => os.map((o) => o.value));
  assert.ok(options.includes(value), `${selector} offers ${value}: ${options}`);
  for (let i = 0; i < options.length && (await select.inputValue()) !== value; i++) await page.keyboard.press("ArrowDown");
  assert.equal(await select.inputValue(), value, selector);
}
