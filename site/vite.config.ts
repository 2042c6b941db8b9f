/**
 * The site (npm run build:site, part of npm run build): a multi-page vite build of site/
 * into site/dist/. The pages load the built JS library (dist/webarray_js) from
 * ./webarray/, Pyodide (node_modules/pyodide) from ./pyodide/ and the webarray wheel from
 * ./wheels/: the build copies them in, the dev server mounts them. site/gen_data.py
 * writes the pages' data (benchmarks, conformance reports, API reference, the wheel) into
 * site/.generated/, vite's public folder, before every build and dev start.
 *
 * Every response of `vite --config site/vite.config.ts` (dev) and `vite preview` is
 * cross-origin isolated (COOP/COEP), which SharedArrayBuffer needs; `python site/serve.py`
 * serves the built site the same way.
 */

import { spawnSync } from "node:child_process";
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = resolve(here, "..");
const outDir = resolve(here, "dist");
const generated = resolve(here, ".generated");

const isolationHeaders: Record<string, string> = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** URL folder -> folder on disk, served by the dev server and copied into the build. */
const mounts: Record<string, string> = {
  "webarray/": resolve(root, "dist/webarray_js"),
  "pyodide/": resolve(root, "node_modules/pyodide"),
};
/** what a page needs of Pyodide's npm package (not its docs, maps and consoles) */
const pyodideFiles = [
  "pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
  "pyodide-lock.json", "package.json",
];
/** A Pyodide package index (lock file + package files, e.g. a full Pyodide distribution)
 * whose present packages (NumPy...) the site serves too; the npm package has none. */
const packageIndex = process.env.WEBARRAY_PYODIDE_INDEX;

const contentTypes: Record<string, string> = {
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".map": "application/json",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".zip": "application/zip",
  ".whl": "application/zip",
};

function python(): string {
  const venv = resolve(root, ".venv/bin/python");
  return existsSync(venv) ? venv : "python3";
}

/** Runs site/gen_data.py: the data and the wheel in site/.generated. */
function generateData(): Plugin {
  const run = (): void => {
    mkdirSync(generated, { recursive: true });
    const r = spawnSync(python(), [resolve(here, "gen_data.py"), generated], { cwd: root, stdio: "inherit" });
    if (r.status !== 0) throw new Error(`site/gen_data.py failed (status ${r.status}); run scripts/setup.sh first`);
  };
  return { name: "webarray-site-data", buildStart: run, configureServer: run };
}

function mountFolders(): Plugin {
  const handler = (
    req: { url?: string },
    res: { setHeader(k: string, v: string): void; end(): void } & NodeJS.WritableStream,
    next: () => void,
  ): void => {
    const path = decodeURIComponent((req.url ?? "").split("?")[0]);
    for (const [prefix, dir] of Object.entries(mounts)) {
      if (!path.startsWith(`/${prefix}`)) continue;
      const file = normalize(join(dir, path.slice(prefix.length + 1)));
      if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) break;
      for (const [k, v] of Object.entries(isolationHeaders)) res.setHeader(k, v);
      res.setHeader("Content-Type", contentTypes[extname(file)] ?? "application/octet-stream");
      createReadStream(file).pipe(res);
      return;
    }
    next();
  };
  return {
    name: "webarray-site-mounts",
    configureServer: (server) => void server.middlewares.use(handler),
  };
}

function copyMounts(): Plugin {
  return {
    name: "webarray-site-copy",
    apply: "build",
    closeBundle() {
      const lib = mounts["webarray/"];
      if (!existsSync(join(lib, "index.js"))) {
        throw new Error(`${lib} has no built library; run the library build (npm run build:lib) first`);
      }
      cpSync(lib, join(outDir, "webarray"), { recursive: true });
      for (const name of pyodideFiles) {
        const file = join(mounts["pyodide/"], name);
        if (existsSync(file)) cpSync(file, join(outDir, "pyodide", name));
      }
      if (packageIndex) {
        const lock = JSON.parse(readFileSync(join(packageIndex, "pyodide-lock.json"), "utf8")) as
          { packages: Record<string, { file_name: string }> };
        cpSync(join(packageIndex, "pyodide-lock.json"), join(outDir, "pyodide", "pyodide-lock.json"));
        for (const p of Object.values(lock.packages)) {
          const file = join(packageIndex, p.file_name);
          if (existsSync(file)) cpSync(file, join(outDir, "pyodide", p.file_name));
        }
      }
    },
  };
}

const pages = ["index", "playground", "mandelbrot", "chainer", "benchmarks", "conformance", "docs", "api"];

export default defineConfig({
  root: here,
  base: "./",
  publicDir: generated,
  server: { headers: isolationHeaders, fs: { allow: [root] } },
  preview: { headers: isolationHeaders },
  plugins: [generateData(), mountFolders(), copyMounts()],
  build: {
    outDir,
    emptyOutDir: true,
    target: "es2022",
    rollupOptions: {
      // gen_data.py (python) dominates the build's time; rolldown's timing report says only that
      checks: { pluginTimings: false },
      input: Object.fromEntries(pages.map((p) => [p, resolve(here, `${p}.html`)])),
    },
  },
});
