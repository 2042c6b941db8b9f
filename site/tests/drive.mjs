// Opens the site's pages in headless Chromium for tests/test_site.py.
//
// Usage: node drive.mjs CONFIG_JSON, with root (the checkout, whose node_modules has
// playwright-core), chromium, base (the served site's URL) and visits: [{name, path,
// timeout (s), screenshot (a file path), viewport ({width, height}, default 1280 x 720),
// initScript (JS run before the page's own), base (another server's URL), steps}]. Each visit opens a fresh page
// (dialogs are accepted, a self-signed certificate too), performs its steps in order
// ({wait: JS expression}, {click: selector}, {eval: JS} or {reload: true}), waits until the page has
// set window.__siteResult (pages do when their data is shown or their automatic run has
// ended), takes a screenshot and prints one JSON line: {name, result, results (one per
// wait for __siteResult among the steps), console (errors and warnings), pageErrors,
// failedRequests, timedOut, ms, layout (what sticks out of the viewport)}.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { launchChromium } from "../../src/webarray/browser/chromium.mjs";

const cfg = JSON.parse(process.argv[2]);
const profile = mkdtempSync(join(tmpdir(), "webarray-site-"));
let context = null;

/** In the page: the viewport's width, the document's, and the elements that reach past
 * the viewport's right edge without a scrolling box around them to hold them. */
function layoutProbe() {
  const width = document.documentElement.clientWidth;
  const held = (node) => {
    for (let a = node.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (/(auto|scroll|hidden|clip)/.test(s.overflowX) && a.getBoundingClientRect().right <= width + 1) return true;
    }
    return false;
  };
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.className && typeof e.className === "string" ? `.${e.className.trim().split(/\s+/).join(".")}` : ""}`;
  const out = [];
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 1 || r.left < -1) && !held(e)) out.push(`${name(e)} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
    if (out.length >= 8) break;
  }
  const links = [...document.querySelectorAll("header.site nav a")].map((a) => {
    const r = a.getBoundingClientRect();
    return { text: a.textContent, left: r.left, right: r.right, visible: r.width > 0 && r.left >= 0 && r.right <= width + 1 };
  });
  return { width, scrollWidth: document.documentElement.scrollWidth, overflowing: out, links };
}

async function visit(v) {
  const page = await context.newPage();
  if (v.viewport) await page.setViewportSize(v.viewport);
  if (v.initScript) await page.addInitScript(v.initScript);
  page.on("dialog", (d) => void d.accept().catch(() => {}));
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
    await page.goto(new URL(v.path, v.base ?? cfg.base).href, { timeout: 60_000 });
    for (const step of v.steps ?? []) {
      if (step.wait) {
        await page.waitForFunction(step.wait, null, { timeout: v.timeout * 1000, polling: 200 });
        if (step.wait.includes("__siteResult")) out.results.push(await page.evaluate(() => window.__siteResult));
      }
      if (step.click) await page.click(step.click);
      if (step.eval) await page.evaluate(step.eval);
      if (step.reload) await page.reload({ timeout: 60_000 });
    }
    await page.waitForFunction(() => window.__siteResult !== undefined, null, { timeout: v.timeout * 1000, polling: 200 });
    out.result = await page.evaluate(() => window.__siteResult);
  } catch (e) {
    out.timedOut = /Timeout/i.test(String(e));
    out.pageErrors.push(`driver: ${e.message}`);
    out.result = await page.evaluate(() => window.__siteResult ?? null).catch(() => null);
  }
  out.ms = Date.now() - t0;
  out.layout = await page.evaluate(layoutProbe).catch(() => null);
  if (v.screenshot) await page.screenshot({ path: v.screenshot, fullPage: true }).catch(() => {});
  if (v.palette) out.palette = await page.evaluate((n) => window.__mandelbrotPalette?.(n) ?? null, v.palette).catch(() => null);
  await page.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

try {
  context = await launchChromium(cfg, profile, { ignoreHTTPSErrors: true });
  for (const v of cfg.visits) await visit(v);
} finally {
  await Promise.race([context?.close().catch(() => {}), new Promise((r) => setTimeout(r, 10_000))]);
  rmSync(profile, { recursive: true, force: true });
}
