/**
 * Entry of the Python worker that startWebarray (index.ts) creates: loads Pyodide,
 * installs wheels, connects webarray (bridge.ts) and runs code, streaming
 * stdout/stderr back to the page. Messages are typed in messages.ts.
 *
 * Start-up. Pyodide's own start (the interpreter importing its standard library from
 * source, in freshly compiled WebAssembly) took 10-23 s of the 11-25 s a start cost on
 * the 2-core test machine; resuming from a memory snapshot of a start that had already
 * imported webarray took 0.8-1.1 s. So a start can make a snapshot (init.makeSnapshot:
 * after the wheels are installed and those modules imported) and a later one resume
 * from it. A snapshot holds the WebAssembly memory only, not Pyodide's file system: the
 * wheels are unpacked again after resuming (0.2 s), and the environment is set again.
 * The wheels are fetched while Pyodide starts.
 */

import type { PyodideAPI } from "pyodide";
import { connectWebarray, unpackWheel } from "./bridge";
import type { FromPython, ToPython } from "./messages";

let pyodide: PyodideAPI | null = null;
/** import name -> Pyodide package, for the packages the page serves (init.packages) */
let packages = new Map<string, string>();

const post = (m: FromPython): void => self.postMessage(m);

function streamTo(type: "stdout" | "stderr"): { write: (b: Uint8Array) => number } {
  const decoder = new TextDecoder();
  return {
    write(b: Uint8Array): number {
      post({ type, text: decoder.decode(b, { stream: true }) });
      return b.length;
    },
  };
}

// Runs a file as __main__ and returns its exit status; a traceback starts at the
// script's own frames.
const RUN_SCRIPT = `
def _webarray_run_script(path, argv):
    import runpy, sys, traceback
    sys.argv = [path, *argv]
    try:
        runpy.run_path(path, run_name="__main__")
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException as e:
        if isinstance(e, ModuleNotFoundError) and (e.name or "").split(".")[0] in _WEBARRAY_MISSING:
            e.add_note(_WEBARRAY_MISSING[e.name.split(".")[0]])
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb or e.__traceback__)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


class _WebarrayInterrupt(Exception):
    """KeyboardInterrupt as an Exception: asyncio re-raises a BaseException out of its
    event loop, where it also became an uncaught error of the worker (and the page's
    onerror). Named so that a traceback still ends in "KeyboardInterrupt"."""


_WebarrayInterrupt.__module__ = "builtins"
_WebarrayInterrupt.__name__ = _WebarrayInterrupt.__qualname__ = "KeyboardInterrupt"


async def _webarray_run(source):
    from pyodide.code import eval_code_async
    import __main__
    try:
        return await eval_code_async(source, __main__.__dict__)
    except BaseException as e:
        # the traceback starts at the code run, not in Pyodide's runner (the frame of the
        # raise below is left out of the message by the worker)
        tb = e.__traceback__
        while tb is not None and (tb.tb_frame.f_code is _webarray_run.__code__
                                  or "/_pyodide/" in tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        if isinstance(e, KeyboardInterrupt):
            raise _WebarrayInterrupt(*e.args).with_traceback(tb) from None
        raise e.with_traceback(tb)


def _webarray_imports(source):
    from pyodide.code import find_imports
    try:
        return find_imports(source)
    except SyntaxError:
        return []


_WEBARRAY_MISSING = {"numpy": (
    "NumPy cannot be loaded here: this page's Pyodide has no package index that serves it. "
    "webarray works without it: write cp.float32 (or xp.float32) for np.float32 and x.tolist() "
    "(or x.tobytes()) for cp.asnumpy(x). A site built with WEBARRAY_PYODIDE_INDEX=DIR loads "
    "NumPy when a script imports it (docs/site.md)."
)}
`;

/** The environment a snapshot was made with stays in it: set the page's again. (Only
 * modules the snapshot holds: another import here compiles it from source, 0.3 s.) */
const SET_ENV = "import importlib, os; os.environ.update(_webarray_env); importlib.invalidate_caches()";

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function handle(m: ToPython): Promise<void> {
  switch (m.type) {
    case "init": {
      const t0 = performance.now();
      const wheels = m.wheels.map(fetchBytes); // meanwhile Pyodide starts
      wheels.forEach((w) => w.catch(() => {})); // awaited below; no unhandled rejection meanwhile
      const { loadPyodide } = (await import(/* @vite-ignore */ new URL("pyodide.mjs", m.pyodideUrl).href)) as {
        loadPyodide: (o: object) => Promise<PyodideAPI>;
      };
      post({ type: "progress", stage: "pyodide", fraction: null });
      const options = { indexURL: m.pyodideUrl, env: m.env };
      let py: PyodideAPI | null = null;
      let snapshotError: string | null = null;
      if (m.snapshot) {
        try {
          py = await loadPyodide({ ...options, _loadSnapshot: m.snapshot });
        } catch (e) {
          snapshotError = describe(e);
        }
      }
      const restored = py !== null;
      py ??= await loadPyodide({ ...options, _makeSnapshot: m.makeSnapshot !== null });
      for (const [i, bytes] of wheels.entries()) {
        post({ type: "progress", stage: "wheels", fraction: i / wheels.length });
        unpackWheel(py, await bytes);
      }
      let snapshot: Uint8Array | null = null;
      if (restored) {
        const env = py.toPy(m.env);
        py.globals.set("_webarray_env", env);
        env.destroy();
        py.runPython(SET_ENV);
      } else if (m.makeSnapshot) {
        py.runPython(m.makeSnapshot.map((name) => `import ${name}`).join("\n"));
        snapshot = (py as unknown as { makeMemorySnapshot: () => Uint8Array }).makeMemorySnapshot();
      }
      py.setStdout(streamTo("stdout"));
      py.setStderr(streamTo("stderr"));
      // a 2 written there by the page (Webarray.interrupt) raises KeyboardInterrupt in
      // the running code at its next bytecode; Pyodide clears it
      if (m.interrupt) py.setInterruptBuffer(m.interrupt);
      post({ type: "progress", stage: "device", fraction: null });
      const backend = await connectWebarray(py, m.connection);
      py.runPython(RUN_SCRIPT);
      pyodide = py;
      packages = importNames(py, m.packages);
      py.globals.set("_webarray_served", [...packages.keys()]);
      py.runPython("for _n in _webarray_served: _WEBARRAY_MISSING.pop(_n, None)");
      const ready: FromPython = {
        type: "ready", backend, loadMs: performance.now() - t0, snapshot, restored, snapshotError,
      };
      self.postMessage(ready, { transfer: snapshot ? [snapshot.buffer] : [] });
      return;
    }
    case "run": {
      const py = ready();
      const run = py.globals.get("_webarray_run") as ((code: string) => Promise<unknown>) & { destroy: () => void };
      try {
        const value: unknown = await run(m.code);
        post({ type: "result", id: m.id, ok: true, value: plain(value) });
      } catch (e) {
        post({ type: "result", id: m.id, ok: false, value: describe(e).replace(/^ {2}File "<exec>", line \d+, in _webarray_run\n/m, "") });
      } finally {
        run.destroy();
      }
      return;
    }
    case "script": {
      const py = ready();
      await loadImported(py, m.source);
      py.FS.writeFile(m.path, m.source);
      const globals = py.toPy({ path: m.path, argv: m.argv });
      try {
        const status = (await py.runPythonAsync("_webarray_run_script(path, argv)", {
          globals: py.globals,
          locals: globals,
        })) as number;
        post({ type: "result", id: m.id, ok: true, value: status });
      } finally {
        globals.destroy();
      }
      return;
    }
    case "writeFile": {
      const py = ready();
      const dir = m.path.split("/").slice(0, -1).join("/");
      if (dir) py.FS.mkdirTree(dir);
      py.FS.writeFile(m.path, m.data);
      post({ type: "result", id: m.id, ok: true, value: null });
      return;
    }
  }
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`fetching the wheel ${url} failed: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function importNames(py: PyodideAPI, served: string[]): Map<string, string> {
  const lock = (py as unknown as { lockfile?: { packages: Record<string, { imports?: string[] }> } }).lockfile;
  const names = new Map<string, string>();
  for (const name of served) for (const imp of lock?.packages[name]?.imports ?? [name]) names.set(imp, name);
  return names;
}

/** Loads the served Pyodide packages that source imports and that are not loaded yet. */
async function loadImported(py: PyodideAPI, source: string): Promise<void> {
  if (packages.size === 0) return;
  const find = py.globals.get("_webarray_imports") as (s: string) => { toJs: () => string[]; destroy: () => void };
  const found = find(source);
  const wanted = new Set(found.toJs().map((m) => packages.get(m.split(".")[0])).filter((p) => p !== undefined));
  found.destroy();
  const loaded = py.loadedPackages as Record<string, string>;
  const missing = [...wanted].filter((p) => !(p in loaded));
  if (missing.length) await py.loadPackage(missing, { messageCallback: () => {} });
}

function ready(): PyodideAPI {
  if (!pyodide) throw new Error("the Python worker has not been initialised");
  return pyodide;
}

/** A structured-cloneable form of a Python result. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "object" && "toJs" in value) {
    const proxy = value as { toJs: (o: object) => unknown; toString: () => string; destroy: () => void };
    try {
      const js = proxy.toJs({ dict_converter: Object.fromEntries });
      structuredClone(js);
      return js;
    } catch {
      return proxy.toString();
    } finally {
      proxy.destroy();
    }
  }
  return value;
}

self.onmessage = (ev: MessageEvent<ToPython>) => {
  handle(ev.data).catch((e: unknown) => {
    const id = "id" in ev.data ? ev.data.id : undefined;
    if (id !== undefined) post({ type: "result", id, ok: false, value: describe(e) });
    else post({ type: "fatal", message: e instanceof Error && e.stack ? e.stack : describe(e) });
  });
};
