// Drives headless Chromium for `python -m webarray.browser run` (runner.py starts it).
//
// Usage: node driver.mjs CONFIG_JSON, where the config holds root (the checkout, whose
// node_modules has playwright-core), chromium, url, timeout (s), verbose and webgpu
// (false: start Chromium without WebGPU, like a browser that lacks it). The page
// reports through window.__webarrayReport({type, ...}): stdout/stderr text is written
// through, "exit" ends the run with the script's status, "fatal" with EXIT_BROWSER.
// Exit statuses: the script's; 3 for a browser-side failure; 124 on timeout.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { launchChromium } from "./chromium.mjs";

const EXIT_BROWSER = 3;
const EXIT_TIMEOUT = 124;
const cfg = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "webarray-chromium-"));
let context = null;
let finishing = false;

const write = (stream, text) => new Promise((resolve) => stream.write(text, () => resolve()));

// Leaving kills Chromium (playwright's exit handler, registered at launch); the profile
// goes in a handler registered after it. Closing Chromium politely took 1-1.5 s a run.
let cleanup = false;
function removeProfileOnExit() {
  if (!cleanup) process.on("exit", () => rmSync(profile, { recursive: true, force: true }));
  cleanup = true;
}

async function finish(code, message) {
  if (finishing) return;
  finishing = true;
  clearTimeout(timer);
  if (message) await write(process.stderr, `webarray.browser: ${message}\n`);
  await write(process.stdout, "");
  process.exit(code);
}

const timer = setTimeout(
  () => finish(EXIT_TIMEOUT, `timed out after ${cfg.timeout} s (raise it with --timeout)`),
  cfg.timeout * 1000,
);
process.on("SIGTERM", () => finish(EXIT_BROWSER, "terminated"));
process.on("SIGINT", () => finish(130, "interrupted"));

function report(m) {
  switch (m.type) {
    case "stdout":
      process.stdout.write(m.text);
      break;
    case "stderr":
      process.stderr.write(m.text);
      break;
    case "info":
      if (cfg.verbose) process.stderr.write(`webarray.browser: ${m.text}\n`);
      break;
    case "exit":
      finish(typeof m.code === "number" ? m.code : 1);
      break;
    case "fatal":
      finish(EXIT_BROWSER, m.message);
      break;
  }
}

try {
  context = await launchChromium(cfg, profile, { webgpu: cfg.webgpu !== false });
  removeProfileOnExit();
  context.on("close", () => finish(EXIT_BROWSER, "the browser closed unexpectedly"));
  const page = context.pages()[0] ?? (await context.newPage());
  await page.exposeFunction("__webarrayReport", report);
  page.on("crash", () => finish(EXIT_BROWSER, "the page crashed (the renderer died, e.g. out of memory)"));
  page.on("pageerror", (e) => finish(EXIT_BROWSER, `uncaught error in the page: ${e.stack || e.message}`));
  if (cfg.verbose) {
    page.on("console", (m) => process.stderr.write(`[console.${m.type()}] ${m.text()}\n`));
    page.on("worker", (w) => process.stderr.write(`[worker started] ${w.url()}\n`));
    page.on("requestfailed", (r) => process.stderr.write(`[request failed] ${r.url()}\n`));
  }
  await page.goto(cfg.url, { timeout: 60_000 });
} catch (e) {
  removeProfileOnExit();
  finish(EXIT_BROWSER, `could not open the page in Chromium: ${e.message}`);
}
