// Size budget: the release dist/ as a browser first loads it (wasm + js + css,
// gzip -9) must stay within 400 KB; the goal is 300 KB. Prints the figures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import path from "node:path";

const DIST = path.resolve(process.env.DIST ?? "../../dist");
const BUDGET = 400 * 1024;
const GOAL = 300 * 1024;

test("first load is within the 400 KB gzip budget", () => {
  const files = readdirSync(DIST).filter((f) => /\.(wasm|js|css)$/.test(f));
  assert.ok(files.some((f) => f.endsWith(".wasm")), `no .wasm in ${DIST}`);
  let total = 0;
  for (const f of files.sort()) {
    const raw = readFileSync(path.join(DIST, f));
    const gz = gzipSync(raw, { level: 9 }).length;
    total += gz;
    console.log(`size: ${f} ${raw.length} B raw, ${gz} B gzip`);
  }
  console.log(`size: total ${total} B gzip (${(total / 1024).toFixed(1)} KB; budget 400 KB, goal 300 KB${total > GOAL ? ", over the goal" : ""})`);
  assert.ok(total <= BUDGET, `dist is ${total} B gzip, over the ${BUDGET} B budget`);
});
