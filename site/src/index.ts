/** The home page: what webarray is, links to every page, and what this build holds. */

import { buildInfo, el, errorText, header, reportResult } from "./common";

header("index.html");
const main = document.querySelector("main")!;

const CARDS: [string, string, string][] = [
  ["playground.html", "Playground", "Edit and run Python with webarray in your browser: examples, a backend picker, output with tracebacks, timing."],
  ["mandelbrot.html", "Mandelbrot", "Plain array code against a custom elementwise kernel, side by side, with their timings."],
  ["benchmarks.html", "Benchmarks", "The recorded benchmark results as plots, and a short benchmark to run on your own machine."],
  ["conformance.html", "Conformance", "The array-api-tests reports: totals, categories, functions, failures, versions and hardware."],
  ["docs.html", "Docs", "Quick start for Python users and for page authors, CuPy migration notes, how it works."],
  ["api.html", "API reference", "Every name of the namespace, generated from the package, with support per backend."],
];

main.append(
  el("h1", {}, "webarray"),
  el("p", {}, "A strict Python ", el("a", { href: "https://data-apis.org/array-api/2025.12/" }, "Array API"),
    " namespace (standard 2025.12) whose arrays live on the browser's GPU: WebGPU first, WebGL2 where WebGPU is missing. ",
    "Python runs in Pyodide in a Web Worker; CuPy-style aliases sit on top, so CuPy code moves to the web."),
  el("pre", {}, el("code", {}, `import webarray as xp

x = xp.linspace(0, 1, 1_000_000)
y = xp.sin(x) ** 2 + xp.cos(x) ** 2      # runs on the GPU
print(y[:4], y.dtype, y.device)`)),
  el("div", { class: "cards" }, ...CARDS.map(([href, title, text]) =>
    el("a", { class: "card", href, style: "text-decoration: none; color: inherit" }, el("h2", {}, title), el("p", {}, text)))),
);

const facts = el("dl", { class: "facts" });
main.append(el("h2", {}, "This build"), facts);
buildInfo().then((b) => {
  const gpu = "gpu" in navigator ? "available" : "not available";
  const rows: [string, string][] = [
    ["webarray", b.webarray_version],
    ["Array API", b.api_version],
    ["git", b.git ?? "unknown"],
    ["built", b.built],
    ["this browser", `WebGPU ${gpu}; cross-origin isolated: ${globalThis.crossOriginIsolated ? "yes" : "no (SharedArrayBuffer is off)"}`],
  ];
  facts.append(...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  reportResult({ state: "done" });
}).catch((e: unknown) => {
  facts.append(el("dd", { class: "bad" }, errorText(e)));
  reportResult({ state: "error", error: errorText(e) });
});
