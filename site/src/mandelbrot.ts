/**
 * The Mandelbrot demo: the repository's two examples side by side, run in Pyodide on the
 * picked backend. examples/mandelbrot_numpy_style.py (whole-array steps, fused by
 * webarray's lazy graph) and examples/mandelbrot_kernel.py (a cp.ElementwiseKernel with a
 * WGSL body on WebGPU, GLSL on WebGL2) are bundled as text at build time, so the page runs
 * exactly those files: their grid(), mandelbrot() and make_kernel().
 *
 * URL parameters: size, iters, repeat, backend, autorun=1. The site test reads
 * window.__siteResult: the counts and the canvas pixels of each variant.
 */

import harness from "./py/mandelbrot_harness.py?raw";
import { el, errorText, fmtMs, header, intParam, param, reportResult } from "./common";
import { firstLine, Session, stoppable } from "./session";

const found = import.meta.glob("../../examples/mandelbrot_*.py", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const files: Record<string, string> = Object.fromEntries(Object.entries(found).map(([path, text]) => [path.split("/").pop()!, text]));
const PLAIN = "mandelbrot_numpy_style.py";
const KERNEL = "mandelbrot_kernel.py";

interface Variant {
  key: "numpy_style" | "kernel";
  title: string;
  file: string;
  missing: string | null;
}

const variants: Variant[] = [
  {
    key: "numpy_style",
    title: "NumPy style: whole-array steps, fused by the lazy graph",
    file: PLAIN,
    missing: files[PLAIN] ? null : `examples/${PLAIN} is not in this build`,
  },
  {
    key: "kernel",
    title: "Custom kernel: cp.ElementwiseKernel",
    file: KERNEL,
    missing: files[KERNEL] && files[PLAIN] ? null : `examples/${KERNEL} (and ${PLAIN}) are not in this build`,
  },
];

/** RGB per escape count 0..maxIter; points that never escape (maxIter) are black. */
export function palette(maxIter: number): [number, number, number][] {
  const stops: [number, number, number][] = [[9, 1, 47], [4, 4, 73], [0, 7, 100], [12, 44, 138], [24, 82, 177],
    [57, 125, 209], [134, 181, 229], [211, 236, 248], [241, 233, 191], [248, 201, 95], [255, 170, 0], [204, 128, 0]];
  const out: [number, number, number][] = [];
  for (let k = 0; k < maxIter; k++) {
    const t = Math.sqrt(k / Math.max(1, maxIter - 1)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t));
    const f = t - i;
    out.push([0, 1, 2].map((c) => Math.round(stops[i][c] * (1 - f) + stops[i + 1][c] * f)) as [number, number, number]);
  }
  out.push([0, 0, 0]);
  return out;
}
(window as unknown as { __mandelbrotPalette: typeof palette }).__mandelbrotPalette = palette;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

const session = new Session(header("mandelbrot.html"));
const main = document.querySelector("main")!;
const sizeInput = el("input", { type: "number", id: "size", min: 16, max: 2048, value: intParam("size", 320, 16, 2048) });
const itersInput = el("input", { type: "number", id: "iters", min: 1, max: 2000, value: intParam("iters", 80, 1, 2000) });
const repeatInput = el("input", { type: "number", id: "repeat", min: 1, max: 10, value: intParam("repeat", 2, 1, 10) });
const runButton = el("button", { class: "primary", id: "run" }, "Run both");
const stopButton = el("button", { id: "stop", disabled: true }, "Stop");

interface Panel {
  variant: Variant;
  canvas: HTMLCanvasElement;
  timing: HTMLElement;
  /** runs this variant alone */
  run: HTMLButtonElement;
}

const panels: Panel[] = variants.map((v) => ({
  variant: v,
  run: el("button", { id: `run-${v.key}`, disabled: v.missing !== null }, "Run this one"),
  canvas: el("canvas", { class: "mandelbrot", "data-variant": v.key, "data-state": "idle" }),
  timing: el("div", { class: "timing" }, v.missing ? "" : "not run yet"),
}));

main.append(
  el("h1", {}, "Mandelbrot"),
  el("p", { class: "muted" }, "The same escape-time computation twice: once as plain array code, once as a custom ",
    "elementwise kernel, from the repository's examples/. The first run of each includes compiling its kernels; later runs reuse them."),
  el("div", { class: "toolbar" },
    el("label", {}, "size ", sizeInput),
    el("label", {}, "max_iter ", itersInput), el("label", {}, "runs ", repeatInput), runButton, stopButton),
  // each panel has the same five rows, which the grid lines up across the two panels
  el("div", { class: "split" }, ...panels.map((p) => el("section", {},
    el("h2", {}, p.variant.title),
    el("div", { class: "toolbar" }, el("span", { class: "muted mono" }, `examples/${p.variant.file}`), p.run,
      p.variant.missing ? el("p", { class: "warn" }, p.variant.missing) : null),
    p.canvas,
    p.timing,
    files[p.variant.file] ? el("details", {}, el("summary", {}, "source"), el("pre", {}, el("code", {}, files[p.variant.file]))) : el("div"),
  ))),
);

function draw(canvas: HTMLCanvasElement, counts: Int32Array, width: number, height: number, maxIter: number): string {
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
  const image = ctx.createImageData(width, height);
  const colours = palette(maxIter);
  for (let i = 0; i < counts.length; i++) {
    const [r, g, b] = colours[Math.min(maxIter, Math.max(0, counts[i]))];
    image.data.set([r, g, b, 255], i * 4);
  }
  ctx.putImageData(image, 0, 0);
  // what is on the canvas now, for the site test's comparison
  return toBase64(new Uint8Array(ctx.getImageData(0, 0, width, height).data.buffer));
}

/** The times of the runs, as the card and the header both show them (measured in Python:
 * the kernels and the readback of the counts). */
function timings(ms: number[]): string {
  return `first run ${fmtMs(ms[0])}` + (ms.length > 1 ? ` · later runs ${ms.slice(1).map(fmtMs).join(", ")}` : "");
}

/** Whether nothing is drawn on the canvas (what an error leaves). */
function blank(canvas: HTMLCanvasElement): boolean {
  const data = canvas.getContext("2d", { willReadFrequently: true })!.getImageData(0, 0, canvas.width, canvas.height).data;
  return data.every((v) => v === 0);
}

let harnessLoaded = false;

/** Runs the variants (all, or the one of only) one after the other. */
async function run(only: Panel | null = null): Promise<void> {
  const buttons = [runButton, ...panels.map((p) => p.run)];
  for (const b of buttons) b.disabled = true;
  const width = Number(sizeInput.value);
  const height = width;
  const maxIter = Number(itersInput.value);
  const repeat = Number(repeatInput.value);
  const results: Record<string, unknown> = {};
  let failed: string | null = null;
  for (const p of only ? [only] : panels) {
    const v = p.variant;
    if (v.missing) {
      results[v.key] = { state: "missing", error: v.missing };
      p.canvas.dataset.state = "missing";
      continue;
    }
    p.timing.replaceChildren("running…");
    p.timing.className = "timing muted";
    const call = `_site_mandelbrot(${JSON.stringify(files)}, "${v.key}", ${width}, ${maxIter}, ${repeat})`;
    const outcome = await stoppable(session, stopButton, `${v.key} ${width}×${height}×${maxIter}`, async (wa) => {
      if (!harnessLoaded) {
        await wa.runPython(harness);
        harnessLoaded = true;
      }
      return (await wa.runPython(call)) as { counts: Uint8Array; ms: number[]; form: string | null };
    }, (value) => `${v.key} ${width}×${height}×${maxIter}: ${timings(value.ms)}`);
    if (!outcome.ok) {
      failed ??= outcome.stopped ? "stopped" : `${v.key} failed: ${firstLine(outcome.error)}`;
      harnessLoaded = harnessLoaded && !outcome.stopped && session.running !== null;
      // no stale image under an error: the canvas is cleared
      p.canvas.width = width;
      p.canvas.height = height;
      p.canvas.dataset.state = "error";
      p.timing.className = "timing";
      p.timing.replaceChildren(outcome.stopped ? el("span", { class: "bad" }, "stopped")
        : el("pre", { class: "run-error" }, outcome.error));
      results[v.key] = { state: "error", error: outcome.error, stopped: outcome.stopped, blank: blank(p.canvas) };
      if (outcome.stopped || !session.running) break;
      continue;
    }
    const bytes = outcome.value.counts;
    const counts = new Int32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const pixels = draw(p.canvas, counts, width, height, maxIter);
    p.canvas.dataset.state = "done";
    const ms = outcome.value.ms;
    p.timing.className = "timing ok";
    p.timing.replaceChildren(timings(ms) + ` · on ${session.device?.backend ?? "?"}` +
      (outcome.value.form ? ` · ${outcome.value.form.toUpperCase()} kernel body` : ""));
    results[v.key] = {
      state: "done", ms, form: outcome.value.form, counts: toBase64(new Uint8Array(counts.buffer)), pixels,
      card: p.timing.textContent, header: session.status.node.textContent,
    };
  }
  for (const p of panels) p.run.disabled = p.variant.missing !== null;
  runButton.disabled = false;
  // the header says what went wrong, even when a later variant ran
  if (failed && !failed.startsWith("stopped")) session.status.error(failed);
  reportResult({
    state: failed ? "error" : "done",
    width, height, maxIter,
    backend: session.device?.backend ?? null,
    adapter: session.device?.adapter ?? null,
    variants: results,
    status: { text: session.status.node.textContent, error: session.status.node.classList.contains("error") },
    canvases: panels.map((p) => {
      const r = p.canvas.getBoundingClientRect();
      return { top: r.top, left: r.left, width: r.width, height: r.height };
    }),
  });
}

session.onChange = () => {
  if (!session.running) harnessLoaded = false;
};
const start = (only: Panel | null): void =>
  void run(only).catch((e: unknown) => reportResult({ state: "error", error: errorText(e) }));
runButton.onclick = () => start(null);
for (const p of panels) p.run.onclick = () => start(p);
if (param("autorun") === "1") runButton.click();
else session.get().catch(() => {});
