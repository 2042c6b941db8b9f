// webarray's browser path under Node, on Dawn (Chrome's WebGPU) instead of a browser.
//
//   node benchmarks/dawn/run.mjs [options] SCRIPT.py [ARGS...]
//
// What it does, in the browser's shape (src/webarray_js/index.ts with thread: "main"):
// the main thread creates a Dawn GPU with `create(flags)` from the npm package `webgpu`
// (dawn.node), exposes it as navigator.gpu (and Dawn's globals: GPUBufferUsage, ...),
// and serves the SharedArrayBuffer command ring with startGpuHost() from the built JS
// library (dist/webarray_js/index.js): the same executor (webgpu.ts, processor.ts,
// ring.ts) that a page runs. A worker_threads Worker (this file again) loads Pyodide
// from its npm package, unpacks the webarray wheel into site-packages, connects webarray
// with connectWebarray(pyodide, {transport: "sab", channel}) from the library's worker
// entry (dist/webarray_js/worker.js), and runs SCRIPT as __main__ with ARGS in sys.argv.
// Python blocks in Atomics.wait, as in a browser's Python worker. The checkout is
// mounted at /repo in Pyodide's file system (NODEFS), and SCRIPT's folder is put first on
// sys.path. The script's stdout and stderr go to ours; the exit status is the script's
// (1 for an uncaught exception), 3 when the runner itself failed to start, 124 on
// timeout.
//
// With --transport jspi the page's other shape runs instead: Dawn, Pyodide and the script on
// the main thread, connectWebarray(pyodide, {transport: "jspi", backend: "webgpu"}), Python
// waiting for the GPU with pyodide.ffi.run_sync (the script runs through runPythonAsync).
// That needs WebAssembly.Suspending: Node 24 has it (Node 22 with --experimental-wasm-jspi);
// Node 20 has only the older --experimental-wasm-stack-switching API, which bridge.ts does
// not take.
//
// Options (each also an environment variable):
//   --dawn DIR        the webgpu package folder (holds index.js) [WEBARRAY_DAWN;
//                     default .dawn/webgpu; python -m benchmarks.dawn run passes the
//                     folder it unpacked from .dawn/]
//   --flag F          a Dawn flag for create(), repeatable, e.g. backend=vulkan,
//                     backend=opengles, adapter=NAME, enable-dawn-features=... [WEBARRAY_DAWN_FLAGS,
//                     comma-separated]
//   --adapter JSON    options merged into every requestAdapter() call, e.g.
//                     '{"featureLevel":"compatibility"}' for Dawn's GL backend [WEBARRAY_DAWN_ADAPTER]
//   --pyodide DIR     Pyodide's npm package folder [default node_modules/pyodide]
//   --lib DIR         the built JS library [default dist/webarray_js]
//   --wheel FILE      the webarray wheel [default dist/wheels/webarray-*.whl]
//   --timeout S       seconds before the run is stopped (default 600)
//   --verbose         say what is started, and when
//   --transport T     sab (default: the GPU host on the main thread, Python in a worker) or
//                     jspi (everything on the main thread) [WEBARRAY_DAWN_TRANSPORT]
//   --shared-writes   hand writeBuffer the command ring's shared memory as is (dawn.node
//                     0.6.2 segfaults on it; by default the runner copies it first)
//                     [WEBARRAY_DAWN_SHARED_WRITES=1]

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const EXIT_START = 3;
const EXIT_TIMEOUT = 124;

function findWheel(dir) {
  if (!fs.existsSync(dir)) return null;
  const found = fs.readdirSync(dir).filter((f) => /^webarray-.*\.whl$/.test(f)).sort();
  return found.length ? path.join(dir, found[found.length - 1]) : null;
}

function parseArgs(argv) {
  const o = {
    dawn: process.env.WEBARRAY_DAWN || path.join(ROOT, ".dawn", "webgpu"),
    flags: (process.env.WEBARRAY_DAWN_FLAGS || "").split(",").filter(Boolean),
    adapter: JSON.parse(process.env.WEBARRAY_DAWN_ADAPTER || "{}"),
    pyodide: path.join(ROOT, "node_modules", "pyodide"),
    lib: path.join(ROOT, "dist", "webarray_js"),
    wheel: findWheel(path.join(ROOT, "dist", "wheels")),
    timeout: 600,
    verbose: false,
    copyShared: !process.env.WEBARRAY_DAWN_SHARED_WRITES,
    transport: process.env.WEBARRAY_DAWN_TRANSPORT || "sab",
    script: null,
    args: [],
  };
  let i = 0;
  const value = () => {
    if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
    return argv[++i];
  };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--dawn") o.dawn = path.resolve(value());
    else if (a === "--flag") o.flags.push(value());
    else if (a === "--adapter") o.adapter = { ...o.adapter, ...JSON.parse(value()) };
    else if (a === "--pyodide") o.pyodide = path.resolve(value());
    else if (a === "--lib") o.lib = path.resolve(value());
    else if (a === "--wheel") o.wheel = path.resolve(value());
    else if (a === "--timeout") o.timeout = Number(value());
    else if (a === "--verbose") o.verbose = true;
    else if (a === "--shared-writes") o.copyShared = false;
    else if (a === "--transport") o.transport = value();
    else if (a === "-h" || a === "--help") {
      const text = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n\nimport ")[0];
      process.stdout.write(text.replace(/^\/\/ ?/gm, "") + "\n");
      process.exit(0);
    } else if (a.startsWith("--") && o.script === null) throw new Error(`unknown option ${a}`);
    else {
      o.script = path.resolve(a);
      o.args = argv.slice(i + 1);
      break;
    }
  }
  if (!o.script) throw new Error("no script given (node benchmarks/dawn/run.mjs --help)");
  if (o.transport !== "sab" && o.transport !== "jspi") throw new Error(`--transport is sab or jspi, not ${o.transport}`);
  if (o.transport === "jspi" && typeof WebAssembly.Suspending !== "function") {
    throw new Error(`the jspi transport needs WebAssembly.Suspending, which Node ${process.version} lacks ` +
      "(Node 24 has it; Node 22 with --experimental-wasm-jspi)");
  }
  return o;
}

// ---------------------------------------------------------------------------------------
// the main thread: Dawn, navigator.gpu and the GPU host (the page's side)
// ---------------------------------------------------------------------------------------

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
    for (const [what, p] of [["the webgpu package", path.join(o.dawn, "index.js")], ["Pyodide", path.join(o.pyodide, "pyodide.mjs")],
      ["the JS library", path.join(o.lib, "index.js")], ["the webarray wheel", o.wheel], ["the script", o.script]]) {
      if (!p || !fs.existsSync(p)) throw new Error(`${what} is missing: ${p} (python -m benchmarks.dawn prepare)`);
    }
  } catch (e) {
    console.error(`dawn/run.mjs: ${e.message}`);
    process.exit(EXIT_START);
  }
  const t0 = performance.now();
  const say = (m) => o.verbose && console.error(`[dawn/run.mjs ${((performance.now() - t0) / 1000).toFixed(2)} s] ${m}`);
  const timer = setTimeout(() => {
    console.error(`dawn/run.mjs: the run did not finish within ${o.timeout} s; stopping it`);
    process.exit(EXIT_TIMEOUT);
  }, o.timeout * 1000);

  const installDawn = async () => {
    const { create, globals } = await import(pathToFileURL(path.join(o.dawn, "index.js")).href);
    Object.assign(globalThis, globals);
    if (o.copyShared) copySharedWrites(globals.GPUQueue);
    const gpu = create(o.flags);
    if (Object.keys(o.adapter).length) {
      const request = gpu.requestAdapter.bind(gpu);
      gpu.requestAdapter = (options = {}) => request({ ...options, ...o.adapter });
    }
    Object.defineProperty(globalThis, "navigator", { value: { gpu }, configurable: true, writable: true });
    // Node shares memory between threads without COOP/COEP; ring.ts asks for this flag
    globalThis.crossOriginIsolated = true;
    say(`Dawn created (flags ${JSON.stringify(o.flags)}, adapter options ${JSON.stringify(o.adapter)})`);
  };
  if (o.transport === "jspi") {
    // Pyodide first: it does not start once navigator and Dawn's globals are in place
    // ("Failed to import _pyodide_core"); Dawn then, before webarray connects
    const code = await runScript(o, { transport: "jspi", backend: "webgpu" }, say, installDawn);
    clearTimeout(timer);
    say(`script exited with status ${code}`);
    setTimeout(() => process.exit(code), 10); // dawn.node keeps the loop alive
    return;
  }
  let host;
  try {
    await installDawn();
    const lib = await import(pathToFileURL(path.join(o.lib, "index.js")).href);
    host = await lib.startGpuHost({ backend: "webgpu", thread: "main", timeoutMs: 60_000 });
    say("GPU host serving the ring on the main thread");
  } catch (e) {
    console.error(`dawn/run.mjs: the GPU host did not start: ${e && e.stack ? e.stack : e}`);
    process.exit(EXIT_START);
  }

  const worker = new Worker(new URL(import.meta.url), {
    workerData: { channel: host.channel, o, t0Wall: Date.now() - (performance.now() - t0) },
    name: "webarray-python",
  });
  worker.on("message", (m) => {
    if (m.type === "info") say(m.text);
    else if (m.type === "exit") {
      clearTimeout(timer);
      say(`script exited with status ${m.code}`);
      host.terminate();
      // dawn.node keeps the loop alive; exit with the script's status
      setTimeout(() => process.exit(m.code), 10);
    }
  });
  worker.on("error", (e) => {
    console.error(`dawn/run.mjs: the Python worker failed: ${e && e.stack ? e.stack : e}`);
    process.exit(EXIT_START);
  });
  worker.on("exit", (code) => {
    if (code !== 0) {
      console.error(`dawn/run.mjs: the Python worker stopped with status ${code}`);
      process.exit(EXIT_START);
    }
  });
}

/**
 * dawn.node (webgpu 0.6.2 at least) crashes the process (SIGSEGV) in GPUQueue.writeBuffer
 * when the data is a view of a SharedArrayBuffer; browsers take such views. webgpu.ts
 * writes straight from the command ring (shared memory), so the runner copies shared data
 * into an ordinary ArrayBuffer first. --shared-writes turns this off (to show the crash).
 */
function copySharedWrites(GPUQueue) {
  const writeBuffer = GPUQueue.prototype.writeBuffer;
  GPUQueue.prototype.writeBuffer = function (buffer, offset, data, ...rest) {
    if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) data = data.slice();
    else if (data instanceof SharedArrayBuffer) data = new Uint8Array(data).slice().buffer;
    return writeBuffer.call(this, buffer, offset, data, ...rest);
  };
}

// ---------------------------------------------------------------------------------------
// the Python worker: Pyodide, the wheel, connectWebarray, the script
// ---------------------------------------------------------------------------------------

const RUN_SCRIPT = `
def _webarray_run_script(path, argv):
    import os, runpy, sys, traceback
    sys.argv = [path, *argv]
    sys.path.insert(0, os.path.dirname(path))
    try:
        runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException as e:
        traceback.print_exception(e)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

async function pythonWorker() {
  const { channel, o } = workerData;
  const info = (text) => parentPort.postMessage({ type: "info", text });
  const code = await runScript(o, { transport: "sab", channel }, info);
  parentPort.postMessage({ type: "exit", code });
}

/** Pyodide, the wheel, connectWebarray(connection) and the script on this thread: the
 * script's exit status (EXIT_START when the Python side could not start). */
async function runScript(o, connection, info, beforeConnect = async () => {}) {
  const writer = (fd) => ({
    write(bytes) {
      fs.writeSync(fd, bytes);
      return bytes.length;
    },
  });
  try {
    const dir = o.pyodide.endsWith(path.sep) ? o.pyodide : o.pyodide + path.sep;
    const { loadPyodide } = await import(pathToFileURL(path.join(o.pyodide, "pyodide.mjs")).href);
    const py = await loadPyodide({ indexURL: dir, env: { HOME: "/home/pyodide", ...pyEnv() } });
    info(`Pyodide ${py.version} loaded`);
    const site = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
    py.unpackArchive(new Uint8Array(fs.readFileSync(o.wheel)), "wheel", { extractDir: site });
    py.FS.mkdirTree("/repo");
    py.FS.mount(py.FS.filesystems.NODEFS, { root: ROOT }, "/repo");
    py.setStdout(writer(1));
    py.setStderr(writer(2));
    await beforeConnect();
    const { connectWebarray } = await import(pathToFileURL(path.join(o.lib, "worker.js")).href);
    const backend = await connectWebarray(py, connection);
    info(`webarray connected (${backend}, transport ${connection.transport}, GPU on the ` +
      `${connection.transport === "sab" ? "main" : "same"} thread)`);
    py.runPython(RUN_SCRIPT);
    const rel = path.relative(ROOT, o.script);
    let target = o.script;
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) target = "/repo/" + rel.split(path.sep).join("/");
    else {
      target = "/home/pyodide/" + path.basename(o.script);
      py.FS.writeFile(target, new Uint8Array(fs.readFileSync(o.script)));
    }
    let code;
    if (connection.transport === "jspi") {
      // run_sync suspends only under a promising call: the script runs through runPythonAsync
      // (JSON strings are Python string literals)
      code = await py.runPythonAsync(`_webarray_run_script(${JSON.stringify(target)}, ${JSON.stringify(o.args)})`);
    } else {
      const run = py.globals.get("_webarray_run_script");
      code = run(target, py.toPy(o.args));
      run.destroy();
    }
    return typeof code === "number" ? code : 1;
  } catch (e) {
    fs.writeSync(2, `dawn/run.mjs: the Python side failed: ${e && e.stack ? e.stack : e}\n`);
    return EXIT_START;
  }
}

/** Environment variables the script sees: WEBARRAY_* and PYTHON* of ours. */
function pyEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (/^(WEBARRAY_|PYTHON)/.test(k)) env[k] = v;
  return env;
}

if (isMainThread) main();
else pythonWorker();
