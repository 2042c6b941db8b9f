/**
 * The page's API (main-thread entry).
 *
 *   const wa = await startWebarray({ pyodideUrl: "/pyodide/", wheelUrl: "/webarray-0.1.0-py3-none-any.whl" });
 *   await wa.runPython("import webarray as xp; print(xp.ones(3) * 2)");
 *
 * startWebarray starts a Python worker (Pyodide) with webarray installed and
 * connected to the GPU. startGpuHost alone serves a GPU for a Pyodide worker the
 * page already has (see docs/browser.md, "Using an existing Pyodide worker").
 */

import type { BackendKind } from "./backend";
import { resolveBackend } from "./backends";
import { jspiAvailable, type Connection, type Transport } from "./bridge";
import { serveChannel } from "./host";
import type { FromPython, StartStage, ToPython } from "./messages";
import { type Channel, type ChannelSizes, createChannel, ISOLATION_HELP } from "./ring";

export type { BackendKind } from "./backend";
export type { Connection, Transport } from "./bridge";
export type { Channel, ChannelSizes } from "./ring";
export type { StartStage } from "./messages";
export { ISOLATION_HELP } from "./ring";

export type GpuThread = "worker" | "main";

export interface GpuHostOptions extends ChannelSizes {
  backend?: BackendKind | "auto";
  /** the thread that owns the GPU device: a dedicated worker (default) or this one */
  thread?: GpuThread;
  /** bound on the start-up, default 60 s */
  timeoutMs?: number;
}

export interface GpuHost {
  readonly channel: Channel;
  readonly backend: BackendKind;
  readonly thread: GpuThread;
  terminate(): void;
}

export interface StartOptions extends GpuHostOptions {
  /** folder URL of Pyodide (where pyodide.mjs lives) */
  pyodideUrl: string | URL;
  /** the webarray wheel, and any further pure-Python wheels to install */
  wheelUrl?: string | URL | (string | URL)[];
  /** 'sab' (SharedArrayBuffer ring; needs cross-origin isolation), 'jspi' (device on the
   * Python thread; needs JSPI), or 'auto' (default): sab where isolated, else jspi */
  transport?: Transport | "auto";
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** the Python worker died or reported an error outside any call */
  onFatal?: (message: string) => void;
  /** environment variables of the Python process */
  env?: Record<string, string>;
  /** each step of the start as it begins: loading Pyodide, installing the wheels
   * (fraction: how many are done), connecting the GPU device */
  onProgress?: (stage: StartStage, fraction: number | null) => void;
  /** a memory snapshot that an earlier start made (Webarray.snapshot) with the same
   * Pyodide, wheels and env: the start resumes from it instead of starting Python
   * (about 1 s instead of 10 or more); one that does not fit is ignored
   * (Webarray.snapshotError says why) */
  snapshot?: Uint8Array | ArrayBuffer | PromiseLike<Uint8Array | ArrayBuffer | null> | null;
  /** make a snapshot for later starts (Webarray.snapshot) after installing the wheels and
   * importing these modules (true: webarray and webarray.cupy); ignored with snapshot */
  makeSnapshot?: boolean | string[];
  /** Pyodide packages that pyodideUrl serves (its pyodide-lock.json and their files):
   * runScript loads those that a script imports. A script that imports NumPy where it is
   * not served gets a note saying how to do without. */
  packages?: string[];
}

/** What makeSnapshot: true imports before the snapshot. */
export const SNAPSHOT_MODULES = ["webarray", "webarray.cupy"];

export interface RunScriptOptions {
  /** file name in Pyodide's file system (default "main.py") */
  filename?: string;
  argv?: string[];
}

export interface Webarray {
  readonly backend: BackendKind;
  readonly transport: Transport;
  /** where the GPU device lives */
  readonly gpuThread: GpuThread | "python";
  /** milliseconds from start to ready (Pyodide loaded, wheels installed) */
  readonly startMs: number;
  /** the snapshot this start made (StartOptions.makeSnapshot), or null */
  readonly snapshot: Uint8Array | null;
  /** whether this start resumed from StartOptions.snapshot */
  readonly restored: boolean;
  /** why the snapshot given could not be used, or null */
  readonly snapshotError: string | null;
  /** Runs code with runPythonAsync; resolves to its last expression's value. */
  runPython(code: string): Promise<unknown>;
  /** Runs a script as __main__; resolves to its exit status (1 and a traceback on stderr
   * for an uncaught exception). */
  runScript(source: string, options?: RunScriptOptions): Promise<number>;
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Raises KeyboardInterrupt in the running Python code at its next bytecode (a GPU
   * wait ends first), keeping the worker and its state; runScript then resolves to 1
   * with the traceback on stderr, runPython rejects. false where the page is not
   * cross-origin isolated (no SharedArrayBuffer): terminate() is the way to stop then. */
  interrupt(): boolean;
  terminate(): void;
}

const sibling = (name: string): URL => new URL(name, import.meta.url);

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function startGpuHost(options: GpuHostOptions = {}): Promise<GpuHost> {
  const { host, ready } = await launchGpuHost(options);
  try {
    await ready;
  } catch (e) {
    host.terminate();
    throw e;
  }
  return host;
}

/** The host at once, and the promise of its device (startWebarray starts Python meanwhile). */
async function launchGpuHost(options: GpuHostOptions): Promise<{ host: GpuHost; ready: Promise<void> }> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const backend = await resolveBackend(options.backend ?? "auto");
  const channel = createChannel(backend, options);
  const thread = options.thread ?? "worker";
  if (thread === "main") {
    let stop = (): void => {};
    const ready = withTimeout(serveChannel(channel), timeoutMs, `starting ${backend}`).then((served) => {
      stop = () => served.stop();
      if (served.startError) throw served.startError;
    });
    return { host: { channel, backend, thread, terminate: () => stop() }, ready };
  }
  const worker = new Worker(sibling("gpu-worker.js"), { type: "module", name: "webarray-gpu" });
  const started = new Promise<void>((resolve, reject) => {
    worker.onmessage = (ev: MessageEvent<{ type: string; error: string | null }>) => {
      if (ev.data.error) reject(new Error(ev.data.error));
      else resolve();
    };
    worker.onerror = (ev) => reject(new Error(`the GPU worker failed: ${ev.message || "it could not be loaded"}`));
  });
  worker.postMessage({ channel });
  const ready = withTimeout(started, timeoutMs, `starting ${backend} in the GPU worker`);
  return { host: { channel, backend, thread, terminate: () => worker.terminate() }, ready };
}

function chooseTransport(wanted: Transport | "auto"): Transport {
  if (wanted === "auto") {
    if (globalThis.crossOriginIsolated) return "sab";
    if (jspiAvailable()) return "jspi";
    throw new Error(`${ISOLATION_HELP} (JSPI is not available either)`);
  }
  if (wanted === "sab" && !globalThis.crossOriginIsolated) throw new Error(ISOLATION_HELP);
  return wanted;
}

export async function startWebarray(options: StartOptions): Promise<Webarray> {
  const t0 = performance.now();
  const timeoutMs = options.timeoutMs ?? 120_000;
  const transport = chooseTransport(options.transport ?? "auto");
  let host: GpuHost | null = null;
  let hostReady: Promise<void> = Promise.resolve();
  let connection: Connection;
  if (transport === "sab") {
    // the GPU device starts while Python does
    ({ host, ready: hostReady } = await launchGpuHost({ ...options, timeoutMs }));
    hostReady.catch(() => {}); // awaited below
    connection = { transport, channel: host.channel };
  } else {
    connection = { transport, backend: options.backend ?? "auto" };
  }

  const worker = new Worker(sibling("python-worker.js"), { type: "module", name: "webarray-python" });
  const calls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let dead: string | null = null;
  let onReady: ((m: FromPython & { type: "ready" }) => void) | null = null;
  let onStartFailed: ((e: Error) => void) | null = null;

  const die = (message: string): void => {
    if (dead) return;
    dead = message;
    onStartFailed?.(new Error(message));
    for (const call of calls.values()) call.reject(new Error(message));
    calls.clear();
    options.onFatal?.(message);
  };
  worker.onerror = (ev) => die(`the Python worker failed: ${ev.message || "it could not be loaded"}`);
  worker.onmessageerror = () => die("a message from the Python worker could not be decoded");
  worker.onmessage = (ev: MessageEvent<FromPython>) => {
    const m = ev.data;
    switch (m.type) {
      case "stdout":
        (options.stdout ?? ((t) => console.log(t)))(m.text);
        break;
      case "stderr":
        (options.stderr ?? ((t) => console.error(t)))(m.text);
        break;
      case "ready":
        onReady?.(m);
        break;
      case "progress":
        options.onProgress?.(m.stage, m.fraction);
        break;
      case "result": {
        const call = calls.get(m.id);
        calls.delete(m.id);
        if (m.ok) call?.resolve(m.value);
        else call?.reject(new Error(String(m.value)));
        break;
      }
      case "fatal":
        die(m.message);
        break;
    }
  };

  // Pyodide's interrupt flag: a 2 there raises KeyboardInterrupt (shared memory only)
  const interrupt = globalThis.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
  const wheels = ([] as (string | URL)[]).concat(options.wheelUrl ?? []).map((u) => new URL(u, location.href).href);
  const make = options.makeSnapshot === true ? SNAPSHOT_MODULES : options.makeSnapshot || null;
  let snapshot: Uint8Array | null = null;
  try {
    const bytes = await options.snapshot;
    snapshot = !bytes ? null : ArrayBuffer.isView(bytes) ? bytes : new Uint8Array(bytes);
  } catch {
    // a snapshot that cannot be had is a start without one
  }
  const init: ToPython = {
    type: "init",
    pyodideUrl: new URL(options.pyodideUrl, location.href).href,
    wheels,
    connection,
    env: { HOME: "/home/pyodide", ...options.env },
    interrupt,
    snapshot,
    makeSnapshot: snapshot ? null : make,
    packages: options.packages ?? [],
  };
  let ready: FromPython & { type: "ready" };
  try {
    const python = withTimeout(
      new Promise<FromPython & { type: "ready" }>((resolve, reject) => {
        onReady = resolve;
        onStartFailed = reject;
        worker.postMessage(init); // a copy of the snapshot: the caller keeps its bytes
      }),
      timeoutMs,
      "starting Pyodide with webarray",
    );
    [, ready] = await Promise.all([hostReady, python]);
  } catch (e) {
    worker.terminate();
    host?.terminate();
    throw e;
  }
  onStartFailed = null;

  const call = (m: ToPython & { id: number }, transfer: Transferable[] = []): Promise<unknown> => {
    if (dead) return Promise.reject(new Error(dead));
    if (interrupt) Atomics.store(interrupt, 0, 0); // an interrupt of nothing lapses
    return new Promise((resolve, reject) => {
      calls.set(m.id, { resolve, reject });
      worker.postMessage(m, transfer);
    });
  };

  return {
    backend: ready.backend,
    transport,
    gpuThread: host ? host.thread : "python",
    startMs: performance.now() - t0,
    snapshot: ready.snapshot,
    restored: ready.restored,
    snapshotError: ready.snapshotError,
    runPython: (code) => call({ type: "run", id: nextId++, code }),
    runScript: async (source, o = {}) =>
      (await call({
        type: "script",
        id: nextId++,
        path: o.filename ?? "main.py",
        source,
        argv: o.argv ?? [],
      })) as number,
    writeFile: async (path, data) => {
      const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
      await call({ type: "writeFile", id: nextId++, path, data: bytes });
    },
    interrupt: () => {
      if (!interrupt || dead) return false;
      Atomics.store(interrupt, 0, 2); // SIGINT
      return true;
    },
    terminate: () => {
      die("webarray was terminated");
      worker.terminate();
      host?.terminate();
    },
  };
}
