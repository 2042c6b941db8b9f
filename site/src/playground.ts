/**
 * The playground: an editor with examples, run in Pyodide with webarray on the picked
 * backend; stdout and stderr (tracebacks) stream into the output, with the run's time.
 * URL parameters: example=NAME (a file of site/examples), backend=..., autorun=1.
 *
 * Edits are kept per example in localStorage as they are typed: switching examples or
 * reloading loses nothing, and "Reset" (after asking) brings the example back. Edited
 * code runs as playground.py, so its tracebacks do not name an example's file. A script
 * that imports a Pyodide package the build serves (NumPy, with a package index) gets it
 * loaded first (startWebarray's packages).
 */

import { el, fmtMs, header, param, reportResult } from "./common";
import { firstLine, INTERRUPTED, Session, stoppable } from "./session";

const files = import.meta.glob("../examples/*.py", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const examples = new Map(Object.entries(files).map(([path, text]) => [path.split("/").pop()!.replace(/\.py$/, ""), text]));
const ORDER = ["hello", "array_api", "cupy_style", "linalg_fft", "errors", "long_run"];
const names = [...examples.keys()].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
const TITLES: Record<string, string> = {
  hello: "Hello, GPU",
  array_api: "Generic Array API code",
  cupy_style: "CuPy code",
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
const resetButton = el("button", { id: "reset", title: "back to the example as it was (your edits are discarded)", hidden: true }, "Reset example");
const edited = el("span", { class: "muted", id: "edited", hidden: true }, "edited (kept in this browser)");
const timing = el("span", { class: "muted", id: "timing" });
const gutter = el("div", { class: "gutter", "aria-hidden": "true" });
const editor = el("textarea", { id: "code", spellcheck: "false", "aria-label": "Python code" });
const output = el("pre", { class: "output", id: "output", "aria-live": "polite" });

main.append(
  el("h1", {}, "Playground"),
  el("p", { class: "muted" }, "Python runs in a Web Worker (Pyodide) with webarray; arrays live on the GPU backend picked above. ",
    "Ctrl+Enter runs; a traceback appears in red. Each run starts with fresh variables; imports and compiled kernels stay ",
    "in the worker. Your edits are kept in this browser, per example."),
  el("div", { class: "toolbar" }, el("label", {}, "example ", select), runButton, stopButton, clearButton, resetButton, edited, timing),
  el("div", { class: "editor" }, gutter, editor),
  el("h2", {}, "Output"),
  output,
);

function updateGutter(): void {
  const lines = editor.value.split("\n").length;
  gutter.textContent = Array.from({ length: lines }, (_, i) => String(i + 1)).join("\n");
  gutter.scrollTop = editor.scrollTop;
}

const DRAFT = "webarray-playground-draft:";
const LAST = "webarray-playground-example";

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage refused (a sandboxed frame, disabled cookies): edits last for the visit
  }
}

let current = "";

/** Shows an example: the visitor's draft of it where there is one. */
function load(name: string): void {
  current = examples.has(name) ? name : "hello";
  editor.value = storage()?.getItem(DRAFT + current) ?? examples.get(current) ?? "";
  select.value = current;
  storage()?.setItem(LAST, current);
  markEdited();
  updateGutter();
}

const isEdited = (): boolean => editor.value !== (examples.get(current) ?? "");

function markEdited(): void {
  edited.hidden = resetButton.hidden = !isEdited();
}

/** Keeps the editor's text as the draft of the current example (none when unchanged). */
function saveDraft(): void {
  if (isEdited()) storage()?.setItem(DRAFT + current, editor.value);
  else storage()?.removeItem(DRAFT + current);
  markEdited();
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

editor.addEventListener("input", () => {
  updateGutter();
  saveDraft();
});
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
    saveDraft();
  }
});
select.onchange = () => load(select.value);
clearButton.onclick = () => output.replaceChildren();
resetButton.onclick = () => {
  if (!isEdited() || confirm(`Discard your edits of "${TITLES[current] ?? current}" and show the example again?`)) {
    storage()?.removeItem(DRAFT + current);
    load(current);
  }
};
runButton.onclick = () => void run();

async function run(): Promise<void> {
  runButton.disabled = true;
  stdout = "";
  stderr = "";
  output.replaceChildren();
  timing.textContent = "";
  const source = editor.value;
  // an example's own name where it runs as it is; the visitor's code is not that file
  const filename = isEdited() ? "playground.py" : `${current}.py`;
  const outcome = await stoppable(session, stopButton, "run", (wa) => wa.runScript(source, { filename }));
  runButton.disabled = false;
  if (outcome.ok) {
    timing.textContent = `exit status ${outcome.value} · ${fmtMs(outcome.ms)}`;
    timing.className = outcome.value === 0 ? "ok" : "bad";
    if (outcome.value !== 0) session.status.error(`exit status ${outcome.value}: ${firstLine(stderr) || "see the output"}`);
  } else {
    append(`\n${outcome.interrupted ? `${INTERRUPTED}; the next run starts with fresh variables` : outcome.stopped ? "stopped" : outcome.error}\n`, "note");
    timing.textContent = outcome.stopped ? "stopped" : "failed";
    timing.className = "bad";
  }
  reportResult({
    state: outcome.ok ? "done" : "error",
    example: current,
    filename,
    edited: isEdited(),
    status: outcome.ok ? outcome.value : null,
    error: outcome.ok ? null : outcome.error,
    stopped: !outcome.ok && outcome.stopped,
    interrupted: !outcome.ok && outcome.interrupted,
    worker: session.generation,
    stages: session.stages,
    restored: session.restored,
    secure: window.isSecureContext,
    isolated: globalThis.crossOriginIsolated,
    startMs: session.startMs,
    readyAt: session.readyAt,
    header: { text: session.status.node.textContent, error: session.status.node.classList.contains("error") },
    ms: outcome.ms,
    stdout,
    stderr,
    backend: session.device?.backend ?? null,
    adapter: session.device?.adapter ?? null,
  });
}

load(param("example") ?? storage()?.getItem(LAST) ?? "hello");
if (param("autorun") === "1") void run();
else session.get().catch(() => {});
