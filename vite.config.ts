/**
 * Two builds share this file:
 *
 * - `vite build` (npm run build): the JS library, ES modules in dist/webarray_js/:
 *   index.js (the page's API), worker.js (for an existing Pyodide worker), and the
 *   worker entries gpu-worker.js and python-worker.js, which index.js loads from
 *   its own folder; baseline.js is the raw-WebGPU baseline of benchmarks/browser.py.
 * - `vite` / `vite preview` / `vite build --mode site`: the site in site/, whose pages
 *   load /webarray/index.js, /pyodide/ and /wheels/ (mounted below, and copied into
 *   the site's build). Every response is cross-origin isolated (COOP/COEP), which
 *   SharedArrayBuffer needs.
 */

import { cpSync, createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin, type UserConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const libDir = resolve(here, "dist/webarray_js");

export const isolationHeaders: Record<string, string> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** URL prefix -> folder served as is: the built library, Pyodide, the wheels. */
const mounts: Record<string, string> = {
  "/webarray/": libDir,
  "/pyodide/": resolve(here, "node_modules/pyodide"),
  "/wheels/": resolve(here, "dist/wheels"),
};

const contentTypes: Record<string, string> = {
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".map": "application/json",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".whl": "application/zip",
};

function mountFolders(): Plugin {
  const handler = (
    req: { url?: string },
    res: { setHeader(k: string, v: string): void; end(): void } & NodeJS.WritableStream,
    next: () => void,
  ): void => {
    const path = decodeURIComponent((req.url ?? "").split("?")[0]);
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) break;
      for (const [k, v] of Object.entries(isolationHeaders)) res.setHeader(k, v);
      res.setHeader("Content-Type", contentTypes[extname(file)] ?? "application/octet-stream");
      createReadStream(file).pipe(res);
      return;
    }
    next();
  };
  return {
    name: "webarray-mounts",
    configureServer: (server) => void server.middlewares.use(handler),
    configurePreviewServer: (server) => void server.middlewares.use(handler),
  };
}

function copyMountsIntoSite(outDir: string): Plugin {
  return {
    name: "webarray-copy-mounts",
    apply: "build",
    closeBundle() {
      for (const [prefix, dir] of Object.entries(mounts)) {
        if (existsSync(dir)) cpSync(dir, join(outDir, prefix), { recursive: true });
      }
    },
  };
}

const library: UserConfig = {
  publicDir: false,
  build: {
    outDir: libDir,
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
        baseline: resolve(here, "src/webarray_js/baseline.ts"),
      },
      fileName: (_format, name) => `${name}.js`,
    },
  },
};

function site(): UserConfig {
  const outDir = resolve(here, "dist/site");
  return {
    root: resolve(here, "site"),
    server: { headers: isolationHeaders },
    preview: { headers: isolationHeaders },
    plugins: [mountFolders(), copyMountsIntoSite(outDir)],
    build: { outDir, emptyOutDir: true, target: "es2022" },
  };
}

export default defineConfig(({ command, mode }) => (command === "build" && mode !== "site" ? library : site()));
