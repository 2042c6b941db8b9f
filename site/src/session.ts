/**
 * One Python worker with webarray for a page: the backend picker, start-up with visible
 * progress, and runs that can be stopped.
 *
 * Start-up first downloads Pyodide's large files and the wheel itself, showing the bytes
 * as they arrive; the server lets the browser cache them (revalidated), so the worker that
 * startWebarray then creates reads them from the cache, reporting each step. The first
 * start in this browser makes a memory snapshot of Python with webarray imported and
 * keeps it in the Cache Storage under the build's snapshot_key; later starts, on any page,
 * resume from it (about 1 s instead of 10). Stopping a run interrupts it
 * (KeyboardInterrupt) and keeps the worker, or terminates the worker where that fails;
 * the next run then starts a fresh one.
 */

import type * as WebarrayLib from "../../src/webarray_js/index";
import { adapterLabel, buildInfo, el, errorText, fmtMs, param } from "./common";

type Lib = typeof WebarrayLib;
export type Webarray = WebarrayLib.Webarray;
export type BackendChoice = "auto" | "webgpu" | "webgl2";
const CHOICES: BackendChoice[] = ["auto", "webgpu", "webgl2"];
const STORAGE_KEY = "webarray-site-backend";

export interface DeviceFacts {
  backend: string;
  adapter: Record<string, string>;
  dtypes: string[];
}

const DEVICE_PY = `
import webarray as _xp
_d = _xp.__array_namespace_info__().default_device()
{"backend": _d.backend, "adapter": dict(_d.executor.adapter_info),
 "dtypes": list(_xp.__array_namespace_info__().dtypes())}
`;

let libPromise: Promise<Lib> | null = null;
const loadLib = (): Promise<Lib> =>
  (libPromise ??= import(/* @vite-ignore */ new URL("webarray/index.js", document.baseURI).href) as Promise<Lib>);

let prefetched: Promise<void> | null = null;

/** Where pages keep Python's memory snapshot: Cache Storage (secure contexts only). */
const SNAPSHOTS = "webarray-snapshots";
const snapshotUrl = (key: string): string => new URL(`snapshots/${key}`, document.baseURI).href;

async function cachedSnapshot(key: string): Promise<ArrayBuffer | null> {
  if (!("caches" in globalThis)) return null;
  const hit = await (await caches.open(SNAPSHOTS)).match(snapshotUrl(key));
  return hit ? hit.arrayBuffer() : null;
}

/** Keeps this build's snapshot under key (null: drops it), and drops other builds'. */
async function keepSnapshot(build: string, key: string, bytes: Uint8Array | null): Promise<void> {
  if (!("caches" in globalThis)) return;
  const cache = await caches.open(SNAPSHOTS);
  for (const old of await cache.keys()) {
    if (old.url === snapshotUrl(key) || !old.url.startsWith(snapshotUrl(build))) await cache.delete(old);
  }
  if (bytes) await cache.put(snapshotUrl(key), new Response(bytes as Uint8Array<ArrayBuffer>));
}

/** Downloads the files Pyodide and the wheel install need, reporting bytes. */
async function prefetch(urls: string[], progress: (loaded: number, total: number) => void): Promise<void> {
  const responses = await Promise.all(urls.map((u) => fetch(u)));
  const bad = responses.find((r) => !r.ok);
  if (bad) throw new Error(`${bad.url}: HTTP ${bad.status}`);
  const total = responses.reduce((s, r) => s + Number(r.headers.get("Content-Length") ?? 0), 0);
  let loaded = 0;
  await Promise.all(responses.map(async (r) => {
    const reader = r.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      progress(loaded, total);
    }
  }));
}

export class StatusView {
  readonly node = el("div", { class: "status", role: "status" });
  private timer: ReturnType<typeof setInterval> | undefined;

  private set(kind: string, ...children: (Node | string)[]): void {
    clearInterval(this.timer);
    this.node.className = `status ${kind}`;
    this.node.replaceChildren(...children);
  }

  progress(label: string, fraction: number | null): void {
    const bar = el("progress", { max: 1 });
    if (fraction !== null) bar.value = fraction;
    this.set("busy", bar, label);
  }

  /** An indeterminate bar with the seconds since t0 after the label. */
  elapsed(label: string, t0 = performance.now()): void {
    const text = el("span", {}, label);
    this.set("busy", el("progress", {}), text);
    const tick = (): void => void (text.textContent = `${label} ${fmtMs(performance.now() - t0)}`);
    tick();
    this.timer = setInterval(tick, 100);
  }

  ready(text: string): void {
    this.set("ready", text);
  }

  error(text: string): void {
    this.set("error", text);
  }

  plain(text: string): void {
    this.set("", text);
  }
}

export function initialBackend(): BackendChoice {
  const wanted = param("backend") ?? localStorage.getItem(STORAGE_KEY) ?? "auto";
  return (CHOICES as string[]).includes(wanted) ? (wanted as BackendChoice) : "auto";
}

export class Session {
  readonly status = new StatusView();
  readonly picker: HTMLSelectElement;
  /** where the running code's output goes */
  stdout: (text: string) => void = () => {};
  stderr: (text: string) => void = () => {};
  /** called whenever the worker starts, stops or fails */
  onChange: () => void = () => {};
  device: DeviceFacts | null = null;
  private wa: Webarray | null = null;
  private starting: Promise<Webarray> | null = null;
  /** how many times the worker was stopped (the next run after each starts a new one) */
  generation = 0;
  /** the start-up steps startWebarray reported, in order, for every start */
  readonly stages: string[] = [];
  /** whether the last start resumed from a memory snapshot */
  restored = false;
  /** the last start: how long startWebarray took, and when (since the page's navigation)
   * Python was ready */
  startMs: number | null = null;
  readyAt: number | null = null;

  constructor(slot: HTMLElement) {
    this.picker = el("select", { "aria-label": "GPU backend", id: "backend", title: "auto: WebGPU where the browser has it, else WebGL2" },
      ...CHOICES.map((c) => el("option", { value: c }, c === "auto" ? "auto" : c === "webgpu" ? "WebGPU" : "WebGL2")));
    this.picker.value = initialBackend();
    this.picker.onchange = () => {
      localStorage.setItem(STORAGE_KEY, this.picker.value);
      const url = new URL(location.href);
      url.searchParams.set("backend", this.picker.value);
      history.replaceState(null, "", url);
      this.stop();
      this.status.plain(`backend: ${this.picker.value}; starts with the next run`);
    };
    slot.append(el("label", {}, "backend ", this.picker), this.status.node);
    this.status.plain("Python is not started yet");
  }

  get backend(): BackendChoice {
    return this.picker.value as BackendChoice;
  }

  get running(): Webarray | null {
    return this.wa;
  }

  /** The worker for the picked backend, started (with progress) when there is none. */
  get(): Promise<Webarray> {
    if (this.wa) return Promise.resolve(this.wa);
    this.starting ??= this.start(this.generation).finally(() => (this.starting = null));
    return this.starting;
  }

  private async start(generation: number): Promise<Webarray> {
    const backend = this.backend;
    // a testing aid: ?gpu_timeout=S bounds how long Python waits for a GPU that makes no
    // progress (WEBARRAY_BROWSER_TIMEOUT; the snapshot is kept apart, as it holds the env)
    const timeout = param("gpu_timeout");
    const env = timeout ? { WEBARRAY_BROWSER_TIMEOUT: timeout } : undefined;
    const info = await buildInfo();
    const base = document.baseURI;
    const wheel = new URL(info.wheel, base).href;
    const pyodide = new URL("pyodide/", base).href;
    try {
      prefetched ??= prefetch(
        [new URL("pyodide.asm.wasm", pyodide).href, new URL("python_stdlib.zip", pyodide).href,
         new URL("pyodide.asm.mjs", pyodide).href, wheel],
        (loaded, total) => this.status.progress(
          `downloading Pyodide and webarray: ${(loaded / 2 ** 20).toFixed(1)} of ${(total / 2 ** 20).toFixed(1)} MiB`,
          total ? loaded / total : null),
      ).catch((e: unknown) => {
        prefetched = null;
        throw e;
      });
      await prefetched;
      const lib = await loadLib();
      const key = `${info.snapshot_key}${timeout ? `-timeout-${timeout}` : ""}`;
      const snapshot = await cachedSnapshot(key).catch(() => null);
      this.status.elapsed(snapshot ? `resuming Python and starting the ${backend} device…`
        : `starting Python and the ${backend} device (the first start in this browser takes longest)…`);
      const wa = await lib.startWebarray({
        backend,
        pyodideUrl: pyodide,
        wheelUrl: wheel,
        packages: info.pyodide_packages ?? [],
        snapshot,
        makeSnapshot: true,
        env,
        stdout: (t) => this.stdout(t),
        onProgress: (stage) => this.stages.push(stage) && this.status.elapsed(
          stage === "pyodide" ? (snapshot ? "resuming Python (Pyodide) from its snapshot…" : "starting Python (Pyodide)…") :
            stage === "wheels" ? "installing webarray…" : `connecting the ${backend} device…`),
        stderr: (t) => this.stderr(t),
        onFatal: (message) => {
          if (this.wa !== wa) return;
          this.wa = null;
          this.device = null;
          this.status.error(`the Python worker stopped: ${message}`);
          this.onChange();
        },
      });
      this.restored = wa.restored;
      if (wa.snapshot || wa.snapshotError) void keepSnapshot(info.snapshot_key, key, wa.snapshot).catch(() => {});
      if (generation !== this.generation) {
        wa.terminate();
        throw new Error(STOPPED_STARTING);
      }
      this.device = (await wa.runPython(DEVICE_PY)) as DeviceFacts;
      this.wa = wa;
      this.startMs = wa.startMs;
      this.readyAt = performance.now();
      this.status.ready(`${this.device.backend} · ${adapterLabel(this.device.adapter)} · ready in ${fmtMs(wa.startMs)}` +
        (wa.restored ? " (resumed)" : ""));
      this.onChange();
      return wa;
    } catch (e) {
      this.status.error(errorText(e) === STOPPED_STARTING ? STOPPED_STARTING
        : `could not start webarray on ${backend}: ${errorText(e)}`);
      this.onChange();
      throw e;
    }
  }

  /** Ends the worker (and whatever it runs); the next get() starts a new one. */
  stop(): void {
    this.generation++;
    const wa = this.wa;
    this.wa = null;
    this.device = null;
    wa?.terminate();
    this.onChange();
  }
}

const STOPPED_STARTING = "stopped while Python was starting; the next run starts it again";

export type RunOutcome<T> =
  | { ok: true; value: T; ms: number }
  | { ok: false; stopped: boolean; interrupted: boolean; error: string; ms: number };

/** How long a run may take to end after an interrupt before its worker is terminated. */
const INTERRUPT_GRACE_MS = 5000;

/** What the header says after a run was interrupted: the worker stays, with its imports
 * and compiled kernels (so the next run starts at once), while every run of a script
 * starts with fresh variables (runScript runs it as __main__ anew). */
export const INTERRUPTED =
  "stopped (KeyboardInterrupt); the Python worker stays, with its imports and compiled kernels, so the next run starts at once";

/**
 * Runs fn on the session's worker with the stop button live and the elapsed time shown.
 * A click on stop raises KeyboardInterrupt in the running Python (the worker stays);
 * where that is not possible, or the run does not end within INTERRUPT_GRACE_MS, the
 * worker is terminated and the next run starts a new one. The header ends green with
 * summary(value) (default: the time the run took), or red with the error.
 */
export async function stoppable<T>(
  session: Session,
  stopButton: HTMLButtonElement,
  label: string,
  fn: (wa: Webarray) => Promise<T>,
  summary?: (value: T, ms: number) => string,
): Promise<RunOutcome<T>> {
  let stopped = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const terminate = (): void => {
    session.stop();
    session.status.error("stopped; the next run starts a new Python worker");
  };
  stopButton.disabled = false;
  stopButton.onclick = () => {
    if (stopped) return terminate(); // a second click does not wait
    stopped = true;
    if (session.running?.interrupt()) {
      session.status.plain("interrupting (KeyboardInterrupt)…");
      grace = setTimeout(terminate, INTERRUPT_GRACE_MS);
    } else {
      terminate();
    }
  };
  const t0 = performance.now();
  try {
    const wa = await session.get();
    const t1 = performance.now();
    session.status.elapsed(`${label}…`, t1);
    const value = await fn(wa);
    const ms = performance.now() - t1;
    if (stopped) {
      session.status.error(INTERRUPTED);
      return { ok: false, stopped, interrupted: true, error: "interrupted", ms };
    }
    if (session.device) {
      session.status.ready(`${session.device.backend} · ${adapterLabel(session.device.adapter)} · ` +
        (summary ? summary(value, ms) : `${label}: ${fmtMs(ms)}`));
    }
    return { ok: true, value, ms };
  } catch (e) {
    const interrupted = stopped && session.running !== null;
    if (interrupted) session.status.error(INTERRUPTED);
    else if (!stopped) session.status.error(`${label} failed: ${firstLine(errorText(e))}`);
    return { ok: false, stopped, interrupted, error: errorText(e), ms: performance.now() - t0 };
  } finally {
    clearTimeout(grace);
    stopButton.disabled = true;
    stopButton.onclick = null;
  }
}

/** The line of a Python traceback that names the exception (its last), or the first line. */
export function firstLine(text: string): string {
  const lines = text.trim().split("\n");
  return (lines.length > 1 ? lines.findLast((l) => /^\w[\w.]*(Error|Exception|Lost|Interrupt)\b/.test(l)) : null) ?? lines[0];
}
