/**
 * The Chainer page: Chainer 7.8.1, unchanged, on webarray through webarray.cupy. It shows
 * examples/chainer_cnn.py (bundled as text, so the page runs exactly that file) and trains
 * it in the browser where the build can: Chainer needs NumPy, and the example's data is
 * scikit-learn's, so Train needs a build that serves both from a Pyodide package index
 * (WEBARRAY_PYODIDE_INDEX) and has Chainer's pure wheels (scripts/setup.sh makes them;
 * site/gen_data.py lists them as build.json's chainer_wheels). Where it cannot, the page
 * says why and how to build one that can, with Train disabled, and Python is not started.
 * Either way it shows the figures measured natively on an H100 (data/chainer.json).
 *
 * Train starts Python on the picked backend, writes the wheels into Pyodide and unzips
 * them into site-packages (this Pyodide has no micropip), then runs the example as a
 * script with --epochs: running it loads NumPy and scikit-learn (the worker loads served
 * packages a script imports), its output streams, and Stop works as on the playground.
 * URL parameters: backend, epochs, autorun=1. The site test reads window.__siteResult.
 */

import installWheels from "./py/install_wheels.py?raw";
import { type BuildInfo, buildInfo, el, errorText, fmtMs, fmtNumber, header, intParam, loadData, param, reportResult } from "./common";
import { table } from "./plot";
import { firstLine, INTERRUPTED, Session, stoppable } from "./session";

const found = import.meta.glob("../../examples/chainer_cnn.py", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const EXAMPLE = Object.values(found)[0] ?? "";

/** What Train needs of the build: the Pyodide packages it serves and Chainer's wheels. */
const PACKAGES = ["numpy", "scikit-learn"];
const WHEELS = ["chainer", "six", "filelock", "typing_extensions"];
export const CANNOT_TRAIN = "no Pyodide package index serving NumPy and scikit-learn in this build";

interface NativeRow {
  backend: string;
  label: string;
  ms_per_step: number;
  launches_per_step: number | null;
  speedup_vs_numpy: number | null;
  largest_loss_difference: number | null;
}

interface NativeFigures {
  error?: string;
  file: string;
  device: string;
  steps: number;
  batch: number;
  width: number;
  backends: NativeRow[];
}

/** Milliseconds as the figures show them: whole ones from 100 up, else three digits. */
const fmtStep = (ms: number): string => (ms >= 100 ? Math.round(ms).toLocaleString("en-US") : ms.toPrecision(3));

/** Why this build cannot train (null: it can). */
function whyNot(info: BuildInfo): string | null {
  const served = new Set(info.pyodide_packages ?? []);
  const reasons: string[] = [];
  if (!PACKAGES.every((p) => served.has(p))) reasons.push(CANNOT_TRAIN);
  const wheels = (info.chainer_wheels ?? []).map((u) => u.split("/").pop()!.split("-")[0].toLowerCase());
  const missing = WHEELS.filter((w) => !wheels.includes(w));
  if (missing.length) reasons.push(`the build has no wheels of ${missing.join(", ")} (scripts/setup.sh puts them in .pyodide-wheels/chainer/)`);
  return reasons.length ? reasons.join("; and ") : null;
}

const session = new Session(header("chainer.html"));
const main = document.querySelector("main")!;
const epochsInput = el("input", { type: "number", id: "epochs", min: 1, max: 50, value: intParam("epochs", 8, 1, 50) });
const trainButton = el("button", { class: "primary", id: "train", disabled: true }, "Train");
const stopButton = el("button", { id: "stop", disabled: true }, "Stop");
const availability = el("div", { id: "availability" }, el("p", { class: "muted" }, "reading what this build serves…"));
const accuracy = el("p", { id: "accuracy", class: "muted", hidden: true });
const output = el("pre", { class: "output", id: "output", "aria-live": "polite", hidden: true });
const figures = el("div", { id: "figures" }, el("p", { class: "muted" }, "loading the figures…"));

main.append(
  el("h1", {}, "Chainer"),
  el("p", {}, "Chainer 7.8.1, its last release, runs unchanged on webarray. ",
    el("code", {}, "webarray.cupy.install()"), " before ", el("code", {}, "import chainer"),
    " makes Chainer's own ", el("code", {}, "import cupy"), " give webarray's CuPy layer, so ",
    el("code", {}, "model.to_gpu()"), " puts the parameters on webarray's GPU: here WebGPU or WebGL2, natively WebGPU through wgpu. ",
    "Nothing of Chainer is changed or forked (", el("a", { href: "docs.html#cupy" }, "docs: CuPy and Chainer"), ")."),
  el("pre", {}, el("code", {}, "import webarray.cupy\nwebarray.cupy.install()   # `import cupy` now gives webarray.cupy\nimport chainer             # chainer.backends.cuda.available is True")),
  el("h2", {}, "Train a CNN in this browser"),
  el("p", {}, el("span", { class: "mono" }, "examples/chainer_cnn.py"),
    ", as it is in the repository: a small CNN (two 3×3 convolutions with ReLU and 2×2 max pooling, then a linear layer) ",
    "trained with Adam on scikit-learn's bundled 8×8 digits (1,797 images, no download: 80% to train, 20% to test). ",
    "It prints the test accuracy: 0.956 after its default 8 epochs, natively on webarray and on NumPy alike."),
  availability,
  el("div", { class: "toolbar" }, el("label", {}, "epochs ", epochsInput), trainButton, stopButton),
  accuracy,
  output,
  el("h2", {}, "Measured natively: ResNet-18 on an H100"),
  figures,
  el("h2", {}, "The example"),
  el("details", { open: true }, el("summary", { class: "mono" }, "examples/chainer_cnn.py"),
    el("pre", { id: "source" }, el("code", {}, EXAMPLE))),
);

function append(text: string, kind: "stdout" | "stderr" | "note"): void {
  const last = output.lastElementChild as HTMLElement | null;
  if (last && last.className === kind) last.textContent += text;
  else output.append(el("span", { class: kind }, text));
  output.scrollTop = output.scrollHeight;
}

let stdout = "";
let stderr = "";
session.stdout = (t) => {
  stdout += t;
  append(t, "stdout");
};
session.stderr = (t) => {
  stderr += t;
  append(t, "stderr");
};

/** The native figures: a bar per backend (ms per step) and the table of the record. */
function showFigures(data: NativeFigures): string[][] {
  if (data.error || !data.backends?.length) {
    figures.replaceChildren(el("p", { class: "bad" }, data.error ?? "the record has no results"));
    return [];
  }
  const by = Object.fromEntries(data.backends.map((r) => [r.backend, r]));
  const slowest = Math.max(...data.backends.map((r) => r.ms_per_step));
  const rows = data.backends.map((r) => [r.label, `${fmtStep(r.ms_per_step)}\u00a0ms`,
    r.speedup_vs_numpy ? `${r.speedup_vs_numpy.toFixed(1)}×` : r.backend === "numpy" ? "1×" : "",
    r.launches_per_step === null ? "" : String(r.launches_per_step),
    r.largest_loss_difference === null ? "" : fmtNumber(r.largest_loss_difference, 2)]);
  const ratio = by.webarray && by.cupy ? by.cupy.ms_per_step / by.webarray.ms_per_step : null;
  figures.replaceChildren(
    el("p", {}, `Chainer training steps of ResNet-18 (batch ${data.batch} of 32×32×3 images, width ${data.width}, MomentumSGD; `,
      `${data.steps} steps, the first, which compiles kernels, left out) on an ${data.device}, `,
      "run by examples/chainer_resnet18.py in CPython (webarray through wgpu, CuPy on CUDA): the same weights and data on each backend, each in its own process. ",
      ratio ? `webarray runs at ${Math.round(ratio * 100)}% of real CuPy's speed, ${by.webarray.speedup_vs_numpy?.toFixed(1)}× NumPy's on the CPU. ` : "",
      "Launches: webarray's kernel launches per step. Loss diff.: the largest difference between a backend's losses and NumPy's over the steps."),
    el("div", { class: "hbars", role: "img", "aria-label": "milliseconds per step" }, ...data.backends.map((r) =>
      el("div", { class: "hbar" }, el("span", { class: "name" }, r.backend),
        el("span", { class: "track" }, el("span", { class: `fill ${r.backend}`, style: `width: ${(100 * r.ms_per_step / slowest).toFixed(1)}%` })),
        el("span", { class: "value" }, `${fmtStep(r.ms_per_step)}\u00a0ms`)))),
    table(["backend", "per step", "vs NumPy", "launches", "loss diff."], rows),
    el("p", { class: "muted" }, `From ${data.file}. In a browser each kernel launch also goes through WebGPU or WebGL2 and the page's `,
      "GPU thread: these figures show what the library does with a GPU, not what this page will show."),
  );
  return rows;
}

let info: BuildInfo | null = null;
let reason: string | null = null;
let shownRows: string[][] = [];
let installed = false;
session.onChange = () => {
  if (!session.running) installed = false;
};

/** What the page reports to the site test, with the training run's fields where one ran. */
function report(extra: Record<string, unknown>): void {
  reportResult({
    state: "done",
    trainable: reason === null,
    why: availability.textContent,
    trainDisabled: trainButton.disabled,
    picked: session.backend,
    header: { text: session.status.node.textContent, error: session.status.node.classList.contains("error") },
    figures: shownRows,
    source: document.querySelector("#source")!.textContent,
    chainerWheels: info?.chainer_wheels ?? [],
    ...extra,
  });
}

/** Writes the wheels into Pyodide and unzips them into site-packages (once per worker). */
async function install(wa: Awaited<ReturnType<Session["get"]>>, wheels: string[]): Promise<void> {
  session.status.elapsed(`installing Chainer and ${wheels.length - 1} wheels of its dependencies…`);
  for (const url of wheels) {
    const r = await fetch(new URL(url, document.baseURI));
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    await wa.writeFile(`/tmp/wheels/${url.split("/").pop()}`, new Uint8Array(await r.arrayBuffer()));
  }
  await wa.runPython(installWheels);
  installed = true;
}

async function train(): Promise<void> {
  if (!info || reason) return;
  const wheels = info.chainer_wheels;
  const epochs = Number(epochsInput.value);
  trainButton.disabled = true;
  stdout = "";
  stderr = "";
  output.replaceChildren();
  output.hidden = false;
  accuracy.hidden = true;
  const outcome = await stoppable(session, stopButton, `training ${epochs} epochs`, async (wa) => {
    if (!installed) await install(wa, wheels);
    // the first run loads NumPy and scikit-learn (the worker loads what the script imports)
    session.status.elapsed(`training ${epochs} epochs (the first run also loads NumPy and scikit-learn)…`);
    return wa.runScript(EXAMPLE, { filename: "chainer_cnn.py", argv: ["--epochs", String(epochs)] });
  }, (status, ms) => (status === 0 ? `trained ${epochs} epochs in ${fmtMs(ms)}` : `exit status ${status}`));
  trainButton.disabled = false;
  accuracy.hidden = false;
  const score = /test accuracy ([0-9.]+)/.exec(stdout);
  const steps = /(\d+) steps in ([0-9.]+) s/.exec(stdout);
  if (outcome.ok && outcome.value === 0 && score) {
    accuracy.className = "ok";
    accuracy.textContent = `test accuracy ${score[1]} after ${epochs} epochs` +
      (steps ? ` (${steps[1]} steps in ${steps[2]} s) on ${session.device?.backend ?? "?"}` : "");
  } else if (outcome.ok) {
    accuracy.className = "bad";
    accuracy.textContent = `the example ended with exit status ${outcome.value}: ${firstLine(stderr) || "see the output"}`;
    session.status.error(accuracy.textContent);
  } else {
    append(`\n${outcome.interrupted ? INTERRUPTED : outcome.stopped ? "stopped" : outcome.error}\n`, "note");
    accuracy.className = "bad";
    accuracy.textContent = outcome.stopped ? "stopped" : `failed: ${firstLine(outcome.error)}`;
  }
  report({
    state: outcome.ok && outcome.value === 0 ? "done" : "error",
    trained: true,
    epochs,
    accuracy: score ? Number(score[1]) : null,
    status: outcome.ok ? outcome.value : null,
    error: outcome.ok ? null : outcome.error,
    stopped: !outcome.ok && outcome.stopped,
    ms: outcome.ms,
    stdout,
    stderr,
    backend: session.device?.backend ?? null,
  });
}

async function open(): Promise<void> {
  const [build, native] = await Promise.all([
    buildInfo(),
    loadData<NativeFigures>("chainer").catch((e: unknown) => ({ error: errorText(e) }) as NativeFigures),
  ]);
  info = build;
  reason = whyNot(build);
  shownRows = showFigures(native);
  if (reason) {
    availability.replaceChildren(
      el("p", { class: "warn", id: "why" }, `Train is off here: ${reason}.`),
      el("p", {}, "Chainer imports NumPy, and the example's data comes from scikit-learn; this site's Pyodide comes from its npm package, ",
        "which has no packages. To train here, build the site with a full Pyodide distribution (its pyodide-lock.json and package files) as the package index: ",
        el("code", {}, "WEBARRAY_PYODIDE_INDEX=DIR npm run build"),
        ". The build then serves the packages present there and this page loads NumPy and scikit-learn when the example imports them. ",
        "The figures measured natively below stand either way."),
    );
    session.status.plain("Python is not started: this build cannot train (see the page)");
    trainButton.title = reason;
  } else {
    availability.replaceChildren(el("p", { class: "muted", id: "why" },
      `This build serves NumPy and scikit-learn and has Chainer's wheels (${build.chainer_wheels.map((u) => u.split("/").pop()).join(", ")}). `,
      "Train starts Python on the backend picked above, installs the wheels, and runs the example; the first run loads NumPy and ",
      "scikit-learn (tens of MB, then from the browser's cache). Each run trains a new model from the same seed."));
    trainButton.disabled = false;
  }
  if (param("autorun") === "1" && !reason) return train();
  report({ trained: false });
  if (!reason) session.get().catch(() => {});
}

trainButton.onclick = () => void train().catch((e: unknown) => report({ state: "error", error: errorText(e) }));
void open().catch((e: unknown) => {
  availability.replaceChildren(el("p", { class: "bad" }, `could not read the build's data: ${errorText(e)}`));
  report({ state: "error", error: errorText(e) });
});
