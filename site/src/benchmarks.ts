/**
 * The benchmarks page: every stored record of benchmarks/results/ as plots and tables
 * (site/gen_data.py turns each record into series), and "run on my machine", a short
 * end-to-end benchmark in this browser on the picked backend.
 */

import benchPy from "./py/bench_run.py?raw";
import { adapterLabel, el, errorText, header, loadData, param, reportResult } from "./common";
import { type Chart, lineChart, table } from "./plot";
import { Session, stoppable } from "./session";

interface BenchFile {
  file: string;
  benchmark: string;
  date: string | null;
  hardware: Record<string, unknown>;
  versions: Record<string, unknown>;
  method: Record<string, unknown> | null;
  skipped_backends: Record<string, string>;
  charts: Chart[];
  tables: { title: string; columns: string[]; rows: unknown[][] }[];
  /** the GPU was a CPU renderer (llvmpipe, SwiftShader): slow for reasons GPUs do not share */
  cpu_emulated: boolean;
  /** a run of the code before a change, kept for comparison */
  baseline: boolean;
  error?: string;
}

const EMULATED_NOTE = "CPU-emulated GPU: a software renderer runs the GPU's work on the CPU, " +
  "so webarray's numbers here say nothing about a real GPU (NumPy on the same CPU wins)";

const session = new Session(header("benchmarks.html"));
const main = document.querySelector("main")!;
main.append(el("h1", {}, "Benchmarks"));

// -- run on my machine ------------------------------------------------------------------------

const ELEMENTWISE = [2 ** 12, 2 ** 14, 2 ** 16, 2 ** 18, 2 ** 20];
const MATMUL = [32, 64, 128, 256];
const runButton = el("button", { class: "primary", id: "run" }, "Run on my machine");
const stopButton = el("button", { id: "stop", disabled: true }, "Stop");
const progress = el("progress", { max: 1, value: 0, style: "width: 12em" });
const log = el("pre", { class: "output", style: "min-height: 3em; max-height: 12em" });
const mine = el("div", { class: "charts" });
main.append(
  el("section", {},
    el("h2", {}, "Run on my machine"),
    el("p", { class: "muted" }, "A short end-to-end benchmark with webarray in this browser, on the backend picked above: ",
      "a * b + c and sum over float32 vectors, and square matmul. Each timed step ends with a one-element readback, ",
      "so it includes every GPU kernel and one round trip to the GPU thread (medians of a few runs)."),
    el("div", { class: "toolbar" }, runButton, stopButton, progress),
    log, mine),
);

async function runMine(): Promise<void> {
  runButton.disabled = true;
  log.textContent = "";
  mine.replaceChildren();
  progress.value = 0;
  const total = ELEMENTWISE.length * 2 + MATMUL.length;
  session.stdout = (t) => {
    log.textContent += t;
    log.scrollTop = log.scrollHeight;
    const m = /\[(\d+)\/(\d+)\]/g;
    let last: RegExpExecArray | null = null;
    for (let r = m.exec(log.textContent ?? ""); r; r = m.exec(log.textContent ?? "")) last = r;
    if (last) progress.value = Number(last[1]) / total;
  };
  session.stderr = (t) => void (log.textContent += t);
  const outcome = await stoppable(session, stopButton, "benchmark", async (wa) => {
    await wa.runPython(benchPy);
    return JSON.parse(String(await wa.runPython(`_site_bench(${JSON.stringify(ELEMENTWISE)}, ${JSON.stringify(MATMUL)})`))) as
      { case: string; n: number; seconds: number; gbps?: number; gflops?: number }[];
  });
  runButton.disabled = false;
  if (autorun) {
    reportResult(outcome.ok ? { state: "done", rows: outcome.value, backend: session.device?.backend }
      : { state: "error", error: outcome.error });
  }
  if (!outcome.ok) {
    log.textContent += `\n${outcome.stopped ? "stopped" : outcome.error}\n`;
    return;
  }
  const rows = outcome.value;
  const who = `this browser (${session.device?.backend ?? "?"}, ${session.device?.adapter.device ?? ""})`;
  const series = (c: string, key: "gbps" | "gflops") =>
    [{ name: "this browser", points: rows.filter((r) => r.case === c).map((r) => [r.n, r[key] ?? 0] as [number, number]) }];
  mine.append(
    lineChart({ title: `a * b + c: ${who}`, xlabel: "elements (float32)", ylabel: "GB/s", xlog: true, ylog: true, series: series("a * b + c", "gbps") }),
    lineChart({ title: `sum: ${who}`, xlabel: "elements (float32)", ylabel: "GB/s", xlog: true, ylog: true, series: series("sum", "gbps") }),
    lineChart({ title: `matmul: ${who}`, xlabel: "n (matrix side)", ylabel: "GFLOP/s", xlog: true, ylog: true, series: series("matmul", "gflops") }),
  );
}
runButton.onclick = () => void runMine();
// autorun=1 runs "run on my machine" at once and reports its rows instead of the page's data
const autorun = param("autorun") === "1";
if (autorun) runButton.click();

// -- stored results ---------------------------------------------------------------------------

function hardwareLine(h: Record<string, unknown>): string {
  const adapter = h.webgpu_adapter as Record<string, string> | undefined;
  const parts = [
    adapter ? `GPU: ${adapterLabel(adapter)} (${adapter.backend}, ${adapter.adapter_type})` : null,
    h.cuda_device ? `CUDA: ${String(h.cuda_device)}` : null,
    h.cpu ? `CPU: ${String(h.cpu)} × ${String(h.cpu_count ?? "?")}` : null,
    h.browser ? `browser: ${String(h.browser)}` : null,
  ];
  return parts.filter(Boolean).join(" · ");
}

function versionsLine(v: Record<string, unknown>): string {
  return Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => `${k} ${String(x)}`).join(" · ");
}

function section(f: BenchFile): HTMLElement {
  if (f.error) return el("section", {}, el("h3", {}, f.file), el("p", { class: "bad" }, f.error));
  const skipped = Object.entries(f.skipped_backends ?? {});
  return el("section", { id: f.file.replace(/\.json$/, "") },
    el("h3", {}, `${f.benchmark} — `, el("span", { class: "mono" }, f.file)),
    f.cpu_emulated ? el("p", { class: "warn", id: "emulated" }, EMULATED_NOTE) : null,
    f.baseline ? el("p", { class: "muted" }, "A baseline: the code before a change, kept to compare with the record without -baseline.") : null,
    el("div", { class: "muted" }, `${f.date ?? ""} · ${hardwareLine(f.hardware ?? {})}`),
    el("div", { class: "muted", style: "font-size: 0.85em" }, versionsLine(f.versions ?? {})),
    skipped.length ? el("div", { class: "muted", style: "font-size: 0.85em" }, `not measured: ${skipped.map(([k, why]) => `${k} (${why})`).join("; ")}`) : null,
    f.method ? el("details", {}, el("summary", {}, "method"), el("pre", {}, JSON.stringify(f.method, null, 1))) : null,
    el("div", { class: "charts" }, ...f.charts.map((c) => lineChart(c))),
    ...f.tables.map((t) => el("div", {}, el("h4", {}, t.title), table(t.columns, t.rows))),
  );
}

const stored = el("section", {}, el("h2", {}, "Recorded results"),
  el("p", { class: "muted" }, "Written by python -m benchmarks.* into benchmarks/results/ and collected when the site is built. ",
    "Pick a record; hover a point for its value."));
main.append(stored);

loadData<{ files: BenchFile[]; default: string | null }>("benchmarks").then((data) => {
  const id = (f: BenchFile): string => f.file.replace(/\.json$/, "");
  const label = (f: BenchFile): string =>
    `${f.benchmark}: ${f.file}${f.cpu_emulated ? " (CPU-emulated GPU)" : ""}${f.baseline ? " (baseline)" : ""}`;
  const picker = el("select", { id: "record", "aria-label": "benchmark record" },
    ...data.files.map((f) => el("option", { value: id(f) }, label(f))));
  const shown = el("div", {});
  const show = (): void => {
    const wanted = location.hash.slice(1);
    const f = data.files.find((x) => id(x) === wanted) ?? data.files.find((x) => x.file === data.default) ?? data.files[0];
    if (!f) return;
    picker.value = id(f);
    shown.replaceChildren(section(f));
  };
  picker.onchange = () => {
    history.replaceState(null, "", `#${picker.value}`);
    show();
  };
  window.addEventListener("hashchange", show);
  stored.append(el("div", { class: "toolbar" }, el("label", {}, "record ", picker)), shown);
  show();
  if (!autorun) reportResult({
    state: "done",
    files: data.files.map((f) => f.file).sort(),
    charts: data.files.reduce((n, f) => n + f.charts.length, 0),
    shown: document.querySelectorAll(".chart svg").length,
    record: picker.value,
    emulatedLabels: [...picker.options].filter((o) => o.text.includes("CPU-emulated")).map((o) => o.value),
  });
}).catch((e: unknown) => {
  stored.append(el("p", { class: "bad" }, errorText(e)));
  reportResult({ state: "error", error: errorText(e) });
});
