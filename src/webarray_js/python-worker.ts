/**
 * Entry of the Python worker that startWebarray (index.ts) creates: loads Pyodide,
 * installs wheels, connects webarray (bridge.ts) and runs code, streaming
 * stdout/stderr back to the page. Messages are typed in messages.ts.
 */

import type { PyodideAPI } from "pyodide";
import { connectWebarray, installWheel } from "./bridge";
import type { FromPython, ToPython } from "./messages";

let pyodide: PyodideAPI | null = null;

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
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb or e.__traceback__)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function handle(m: ToPython): Promise<void> {
  switch (m.type) {
    case "init": {
      const t0 = performance.now();
      const { loadPyodide } = (await import(/* @vite-ignore */ new URL("pyodide.mjs", m.pyodideUrl).href)) as {
        loadPyodide: (o: object) => Promise<PyodideAPI>;
      };
      post({ type: "progress", stage: "pyodide", fraction: null });
      const py = await loadPyodide({ indexURL: m.pyodideUrl, env: m.env });
      py.setStdout(streamTo("stdout"));
      py.setStderr(streamTo("stderr"));
      // a 2 written there by the page (Webarray.interrupt) raises KeyboardInterrupt in
      // the running code at its next bytecode; Pyodide clears it
      if (m.interrupt) py.setInterruptBuffer(m.interrupt);
      for (const [i, url] of m.wheels.entries()) {
        post({ type: "progress", stage: "wheels", fraction: i / m.wheels.length });
        await installWheel(py, url);
      }
      post({ type: "progress", stage: "device", fraction: null });
      const backend = await connectWebarray(py, m.connection);
      py.runPython(RUN_SCRIPT);
      pyodide = py;
      post({ type: "ready", backend, loadMs: performance.now() - t0 });
      return;
    }
    case "run": {
      const py = ready();
      try {
        const value: unknown = await py.runPythonAsync(m.code);
        post({ type: "result", id: m.id, ok: true, value: plain(value) });
      } catch (e) {
        post({ type: "result", id: m.id, ok: false, value: describe(e) });
      }
      return;
    }
    case "script": {
      const py = ready();
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
