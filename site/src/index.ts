/** The home page: what webarray is, links to every page, and what this build holds. */

import { adapterLabel, buildInfo, el, errorText, header, reportResult } from "./common";

header("index.html");
const main = document.querySelector("main")!;

const CARDS: [string, string, string][] = [
  ["playground.html", "Playground", "Edit and run Python with webarray in your browser: examples, a backend picker, output with tracebacks, timing."],
  ["mandelbrot.html", "Mandelbrot", "Plain array code against a custom elementwise kernel, side by side, with their timings."],
  ["chainer.html", "Chainer", "Chainer 7.8.1, unchanged, on webarray: a CNN example to train in the browser where the build serves NumPy, and ResNet-18 figures from an H100."],
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
/** What this browser offers webarray: a WebGPU adapter (which), else WebGL2. The API
 * alone (navigator.gpu) says nothing: without an adapter WebGPU cannot run. */
async function webgpuFacts(): Promise<{ text: string; adapter: boolean }> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!window.isSecureContext) return { text: "not here: WebGPU needs a secure context (https, or localhost)", adapter: false };
  if (!gpu) return { text: "no WebGPU in this browser: pages run on WebGL2", adapter: false };
  const adapter = await gpu.requestAdapter().catch(() => null);
  if (!adapter) return { text: "WebGPU is in this browser but offers no GPU adapter: pages run on WebGL2", adapter: false };
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const name = [info.vendor, info.architecture, info.device].filter(Boolean).join(" ");
  return {
    text: `WebGPU adapter: ${adapterLabel({ device: name, description: info.description, adapter_type: info.isFallbackAdapter ? "CPU" : "" })}`,
    adapter: true,
  };
}

function isolation(): string {
  return globalThis.crossOriginIsolated ? "yes" : window.isSecureContext
    ? "no: SharedArrayBuffer is off (the server must send the COOP/COEP headers)"
    : "no: this is not a secure context (open the site over HTTPS or on localhost: ./run.sh --https)";
}

const isolated = isolation();
Promise.all([buildInfo(), webgpuFacts()]).then(([b, gpu]) => {
  const rows: [string, string, string][] = [
    ["webarray", b.webarray_version, "version"],
    ["Array API", b.api_version, "api"],
    ["git", b.git ?? "unknown", "git"],
    ["built", b.built, "built"],
    ["WebGPU", gpu.text, "webgpu"],
    ["cross-origin isolated", isolated, "isolated"],
  ];
  facts.append(...rows.flatMap(([k, v, id]) => [el("dt", {}, k), el("dd", { id: `fact-${id}` }, v)]));
  reportResult({ state: "done", webgpu: gpu.text, adapter: gpu.adapter, isolated });
}).catch((e: unknown) => {
  facts.append(el("dd", { class: "bad" }, errorText(e)));
  reportResult({ state: "error", error: errorText(e) });
});
