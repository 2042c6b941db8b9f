// Opens the site's pages in headless Chromium for tests/test_site.py.
//
// Usage: node drive.mjs CONFIG_JSON, with root (the checkout, whose node_modules has
// playwright-core), chromium, base (the served site's URL) and visits: [{name, path,
// timeout (s), screenshot (a file path), steps}]. Each visit opens a fresh page, performs
// its steps in order ({wait: JS expression}, {click: selector} or {eval: JS}), waits until
// the page has set window.__siteResult (pages do when their data is shown or their
// automatic run has ended), takes a screenshot and prints one JSON line: {name, result,
// results (one per wait for __siteResult among the steps), console (errors and
// warnings), pageErrors, failedRequests, timedOut, ms}.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { launchChromium } from "../../src/webarray/browser/chromium.mjs";

const cfg = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "webarray-site-"));
let context = null;

async function visit(v) {
  const page = await context.newPage();
  const out = { name: v.name, result: null, results: [], console: [], pageErrors: [], failedRequests: [], timedOut: false, ms: 0 };
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") out.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => out.pageErrors.push(e.stack || e.message));
  page.on("requestfailed", (r) => out.failedRequests.push(`${r.url()}: ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) out.failedRequests.push(`${r.url()}: HTTP ${r.status()}`);
  });
  page.on("worker", (w) => w.on("console", (m) => {
    if (m.type() === "error") out.console.push(`worker error: ${m.text()}`);
  }));
  const t0 = Date.now();
  try {
    await page.goto(new URL(v.path, cfg.base).href, { timeout: 60_000 });
    for (const step of v.steps ?? []) {
      if (step.wait) {
        await page.waitForFunction(step.wait, null, { timeout: v.timeout * 1000, polling: 200 });
        if (step.wait.includes("__siteResult")) out.results.push(await page.evaluate(() => window.__siteResult));
      }
      if (step.click) await page.click(step.click);
      if (step.eval) await page.evaluate(step.eval);
    }
    await page.waitForFunction(() => window.__siteResult !== undefined, null, { timeout: v.timeout * 1000, polling: 200 });
    out.result = await page.evaluate(() => window.__siteResult);
  } catch (e) {
    out.timedOut = /Timeout/i.test(String(e));
    out.pageErrors.push(`driver: ${e.message}`);
    out.result = await page.evaluate(() => window.__siteResult ?? null).catch(() => null);
  }
  out.ms = Date.now() - t0;
  if (v.screenshot) await page.screenshot({ path: v.screenshot, fullPage: true }).catch(() => {});
  if (v.palette) out.palette = await page.evaluate((n) => window.__mandelbrotPalette?.(n) ?? null, v.palette).catch(() => null);
  await page.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

try {
  context = await launchChromium(cfg, profile);
  for (const v of cfg.visits) await visit(v);
} finally {
  await Promise.race([context?.close().catch(() => {}), new Promise((r) => setTimeout(r, 10_000))]);
  rmSync(profile, { recursive: true, force: true });
}
