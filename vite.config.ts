/**
 * The JS library (npm run build:lib, the first half of npm run build): ES modules in
 * dist/webarray_js/: index.js (the page's API), worker.js (for an existing Pyodide
 * worker), and the worker entries gpu-worker.js and python-worker.js, which index.js
 * loads from its own folder.
 *
 * The site (pages that load this library, Pyodide and the wheel, cross-origin isolated)
 * has its own config: site/vite.config.ts (npm run build:site, npm run dev, npm run
 * preview).
 */

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  publicDir: false,
  build: {
    outDir: resolve(here, "dist/webarray_js"),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: true,
    minify: false,
    lib: {
      formats: ["es"],
      entry: {
        index: resolve(here, "src/webarray_js/index.ts"),
        worker: resolve(here, "src/webarray_js/worker.ts"),
        "gpu-worker": resolve(here, "src/webarray_js/gpu-worker.ts"),
        "python-worker": resolve(here, "src/webarray_js/python-worker.ts"),
      },
      fileName: (_format, name) => `${name}.js`,
    },
  },
});
