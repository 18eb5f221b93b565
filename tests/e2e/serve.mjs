// Test helpers: serve a directory on 127.0.0.1 (python's http.server on a port the
// OS picks) and launch Debian's Chromium with playwright-core (no browser download).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Serves `dir` (optionally under a sub-path prefix dir); resolves to { url, stop }. */
export async function serve(dir) {
  const server = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let buf = "";
  for await (const chunk of server.stdout) {
    buf += chunk;
    const m = buf.match(/port (\d+)/);
    if (m) {
      server.stdout.resume();
      server.stderr.resume();
      return {
        url: `http://127.0.0.1:${m[1]}/`,
        async stop() {
          if (server.exitCode === null) {
            server.kill("SIGTERM");
            await once(server, "exit");
          }
        },
      };
    }
  }
  throw new Error(`http.server did not start: ${buf}`);
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

/** A page that records console errors, page errors and failed requests. */
export async function newCheckedPage(browser) {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e}`));
  page.on("requestfailed", (r) => errors.push(`requestfailed: ${r.url()}`));
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
