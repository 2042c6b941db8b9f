/**
 * The playground: an editor with examples, run in Pyodide with webarray on the picked
 * backend; stdout and stderr (tracebacks) stream into the output, with the run's time.
 * URL parameters: example=NAME (a file of site/examples), backend=..., autorun=1.
 */

import { buildInfo, el, fmtMs, header, param, reportResult } from "./common";
import { Session, stoppable } from "./session";

const files = import.meta.glob("../examples/*.py", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const examples = new Map(Object.entries(files).map(([path, text]) => [path.split("/").pop()!.replace(/\.py$/, ""), text]));
const ORDER = ["hello", "array_api", "linalg_fft", "errors", "long_run"];
const names = [...examples.keys()].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
const TITLES: Record<string, string> = {
  hello: "Hello, GPU",
  array_api: "Generic Array API code",
  linalg_fft: "linalg and fft",
  errors: "Errors and tracebacks",
  long_run: "A long run (try Stop)",
};

const session = new Session(header("playground.html"));
const main = document.querySelector("main")!;

const select = el("select", { id: "example", "aria-label": "example" },
  ...names.map((n) => el("option", { value: n }, TITLES[n] ?? n)));
const runButton = el("button", { class: "primary", id: "run", title: "Ctrl+Enter" }, "Run");
const stopButton = el("button", { id: "stop", disabled: true }, "Stop");
const clearButton = el("button", {}, "Clear output");
const timing = el("span", { class: "muted", id: "timing" });
// offered only when the build serves NumPy (a configured Pyodide package index)
const numpyBox = el("input", { type: "checkbox", id: "numpy" });
const numpyLabel = el("label", { hidden: true, title: "pyodide.loadPackage('numpy') before the run" }, numpyBox, " load NumPy");
void buildInfo().then((b) => (numpyLabel.hidden = !b.pyodide_packages?.includes("numpy"))).catch(() => {});
const gutter = el("div", { class: "gutter", "aria-hidden": "true" });
const editor = el("textarea", { id: "code", spellcheck: "false", "aria-label": "Python code" });
const output = el("pre", { class: "output", id: "output", "aria-live": "polite" });

main.append(
  el("h1", {}, "Playground"),
  el("p", { class: "muted" }, "Python runs in a Web Worker (Pyodide) with webarray; arrays live on the GPU backend picked above. ",
    "Ctrl+Enter runs; a traceback appears in red."),
  el("div", { class: "toolbar" }, el("label", {}, "example ", select), runButton, stopButton, clearButton, numpyLabel, timing),
  el("div", { class: "editor" }, gutter, editor),
  el("h2", {}, "Output"),
  output,
);

function updateGutter(): void {
  const lines = editor.value.split("\n").length;
  gutter.textContent = Array.from({ length: lines }, (_, i) => String(i + 1)).join("\n");
  gutter.scrollTop = editor.scrollTop;
}

function load(name: string): void {
  editor.value = examples.get(name) ?? "";
  select.value = name;
  updateGutter();
}

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

editor.addEventListener("input", updateGutter);
editor.addEventListener("scroll", () => (gutter.scrollTop = editor.scrollTop));
editor.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
    ev.preventDefault();
    void run();
  } else if (ev.key === "Tab") {
    ev.preventDefault();
    const { selectionStart: s, selectionEnd: e } = editor;
    editor.setRangeText("    ", s, e, "end");
    updateGutter();
  }
});
select.onchange = () => load(select.value);
clearButton.onclick = () => output.replaceChildren();
runButton.onclick = () => void run();

async function run(): Promise<void> {
  runButton.disabled = true;
  stdout = "";
  stderr = "";
  output.replaceChildren();
  timing.textContent = "";
  const source = editor.value;
  const withNumpy = numpyBox.checked && !numpyLabel.hidden;
  const outcome = await stoppable(session, stopButton, "run", async (wa) => {
    if (withNumpy) await wa.runPython("import pyodide_js\nawait pyodide_js.loadPackage('numpy')");
    return wa.runScript(source, { filename: `${select.value || "main"}.py` });
  });
  runButton.disabled = false;
  if (outcome.ok) {
    timing.textContent = `exit status ${outcome.value} · ${fmtMs(outcome.ms)}`;
    timing.className = outcome.value === 0 ? "ok" : "bad";
  } else {
    append(`\n${outcome.stopped ? "stopped" : outcome.error}\n`, "note");
    timing.textContent = outcome.stopped ? "stopped" : "failed";
    timing.className = "bad";
  }
  reportResult({
    state: outcome.ok ? "done" : "error",
    example: select.value,
    status: outcome.ok ? outcome.value : null,
    error: outcome.ok ? null : outcome.error,
    stopped: !outcome.ok && outcome.stopped,
    interrupted: !outcome.ok && outcome.interrupted,
    worker: session.generation,
    stages: session.stages,
    ms: outcome.ms,
    stdout,
    stderr,
    backend: session.device?.backend ?? null,
    adapter: session.device?.adapter ?? null,
  });
}

load(param("example") ?? "hello");
if (param("autorun") === "1") void run();
else session.get().catch(() => {});
