/**
 * One Python worker with webarray for a page: the backend picker, start-up with visible
 * progress, and runs that can be stopped.
 *
 * Start-up first downloads Pyodide's large files and the wheel itself, showing the bytes
 * as they arrive; the server lets the browser cache them (revalidated), so the worker that
 * startWebarray then creates reads them from the cache, reporting each step. Stopping a
 * run interrupts it (KeyboardInterrupt) and keeps the worker, or terminates the worker
 * where that fails; the next run then starts a fresh one.
 */

import type * as WebarrayLib from "../../src/webarray_js/index";
import { buildInfo, el, errorText, fmtMs, param } from "./common";

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
      this.status.elapsed(`starting Python and the ${backend} device…`);
      const lib = await loadLib();
      const wa = await lib.startWebarray({
        backend,
        pyodideUrl: pyodide,
        wheelUrl: wheel,
        stdout: (t) => this.stdout(t),
        onProgress: (stage) => this.stages.push(stage) && this.status.elapsed(
          stage === "pyodide" ? "starting Python (Pyodide)…" :
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
      if (generation !== this.generation) {
        wa.terminate();
        throw new Error("stopped");
      }
      this.device = (await wa.runPython(DEVICE_PY)) as DeviceFacts;
      this.wa = wa;
      const a = this.device.adapter;
      this.status.ready(`${this.device.backend} · ${a.device || a.vendor || "adapter"}` +
        `${a.adapter_type ? ` (${a.adapter_type})` : ""} · ready in ${fmtMs(wa.startMs)}`);
      this.onChange();
      return wa;
    } catch (e) {
      this.status.error(`could not start webarray on ${backend}: ${errorText(e)}`);
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

export type RunOutcome<T> =
  | { ok: true; value: T; ms: number }
  | { ok: false; stopped: boolean; interrupted: boolean; error: string; ms: number };

/** How long a run may take to end after an interrupt before its worker is terminated. */
const INTERRUPT_GRACE_MS = 5000;

/**
 * Runs fn on the session's worker with the stop button live and the elapsed time shown.
 * A click on stop raises KeyboardInterrupt in the running Python (the worker and its
 * state stay); where that is not possible, or the run does not end within
 * INTERRUPT_GRACE_MS, the worker is terminated and the next run starts a new one.
 */
export async function stoppable<T>(
  session: Session,
  stopButton: HTMLButtonElement,
  label: string,
  fn: (wa: Webarray) => Promise<T>,
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
      session.status.error("interrupted; the Python worker and its state are kept");
      return { ok: false, stopped, interrupted: true, error: "interrupted", ms };
    }
    if (session.device) {
      const a = session.device.adapter;
      session.status.ready(`${session.device.backend} · ${a.device || a.vendor} · ${label}: ${fmtMs(ms)}`);
    }
    return { ok: true, value, ms };
  } catch (e) {
    const interrupted = stopped && session.running !== null;
    if (interrupted) session.status.error("interrupted; the Python worker and its state are kept");
    return { ok: false, stopped, interrupted, error: errorText(e), ms: performance.now() - t0 };
  } finally {
    clearTimeout(grace);
    stopButton.disabled = true;
    stopButton.onclick = null;
  }
}
