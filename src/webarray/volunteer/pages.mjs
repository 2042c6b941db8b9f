// Headless worker pages for `python -m webarray.volunteer join`, the tests and the
// benchmark (pages.py starts it): one Chromium, one tab per worker.
//
// Usage: node pages.mjs CONFIG_JSON, where the config holds root (the checkout, whose
// node_modules has playwright-core), chromium, base (the server's URL), insecure (accept
// a self-signed certificate) and webgpu. Commands arrive on stdin, one JSON per line:
//   {"cmd": "open", "name": "w0", "query": "release=0"}   a worker page joins
//   {"cmd": "close", "name": "w0"}                         its tab closes (pagehide runs)
//   {"cmd": "click", "name": "w0", "selector": "#leave"}   a click in its page
//   {"cmd": "quit"}
// Events leave on stdout, one JSON per line: {"event": "status", "name", "status"} on each
// state change of a page, "opened", "closed", "console" (errors), "error", "ready".

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { chromiumFlags } from "../browser/chromium.mjs";

const cfg = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "webarray-volunteer-"));
const pages = new Map(); // name -> page
let context = null;
let quitting = false;

const emit = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);

async function quit(code) {
  if (quitting) return;
  quitting = true;
  await Promise.race([context?.close().catch(() => {}), new Promise((r) => setTimeout(r, 10_000))]);
  rmSync(profile, { recursive: true, force: true });
  process.stdout.write("", () => process.exit(code));
}
process.on("SIGTERM", () => quit(0));
process.on("SIGINT", () => quit(130));

async function open(name, query) {
  const page = await context.newPage();
  pages.set(name, page);
  page.on("console", (m) => {
    if (m.type() === "error") emit({ event: "console", name, text: m.text() });
  });
  page.on("pageerror", (e) => emit({ event: "error", name, message: e.stack || e.message }));
  page.on("crash", () => emit({ event: "error", name, message: "the page crashed" }));
  const q = new URLSearchParams(query || "");
  q.set("name", name);
  await page.goto(`${cfg.base}/?${q}`, { timeout: 60_000 });
  emit({ event: "opened", name });
}

async function close(name) {
  const page = pages.get(name);
  if (!page) return emit({ event: "error", name, message: `no page named ${name}` });
  pages.delete(name);
  await page.close({ runBeforeUnload: true });
  emit({ event: "closed", name });
}

try {
  const { chromium } = createRequire(join(cfg.root, "package.json"))("playwright-core");
  const args = chromiumFlags({ webgpu: cfg.webgpu !== false });
  if (cfg.insecure) args.push("--ignore-certificate-errors");
  context = await chromium.launchPersistentContext(profile, {
    executablePath: cfg.chromium, headless: true, args, timeout: 60_000, ignoreHTTPSErrors: !!cfg.insecure,
  });
  await context.exposeBinding("__volunteerReport", ({ page }, status) => {
    for (const [name, p] of pages) if (p === page) emit({ event: "status", name, status });
  });
  for (const p of context.pages()) await p.close();
  emit({ event: "ready" });
} catch (e) {
  emit({ event: "error", message: `could not start Chromium: ${e.message}` });
  await quit(3);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  try {
    if (m.cmd === "open") await open(m.name, m.query);
    else if (m.cmd === "close") await close(m.name);
    else if (m.cmd === "click") await pages.get(m.name).click(m.selector);
    else if (m.cmd === "quit") break;
  } catch (e) {
    emit({ event: "error", name: m.name, message: e.message });
  }
}
await quit(0);
