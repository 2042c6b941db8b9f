// How webarray starts headless Chromium (the flags of DESIGN.md), for the browser runner
// (driver.mjs) and the site test (site/tests/drive.mjs). cfg holds root (the checkout,
// whose node_modules has playwright-core) and chromium (the executable).

import { createRequire } from "node:module";
import { join } from "node:path";

/** Chromium's command line; webgpu: false starts it without WebGPU, like a browser that lacks it. */
export function chromiumFlags({ webgpu = true } = {}) {
  return [
    "--headless",
    "--no-sandbox",
    webgpu ? "--enable-unsafe-webgpu" : "--disable-features=WebGPU",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ];
}

/** A persistent browser context in the profile folder; ignoreHTTPSErrors accepts a
 * self-signed certificate, as a visitor who clicks through the warning does. */
export function launchChromium(cfg, profile, { webgpu = true, ignoreHTTPSErrors = false } = {}) {
  const { chromium } = createRequire(join(cfg.root, "package.json"))("playwright-core");
  return chromium.launchPersistentContext(profile, {
    executablePath: cfg.chromium,
    headless: true,
    args: chromiumFlags({ webgpu }),
    timeout: 60_000,
    ignoreHTTPSErrors,
  });
}
