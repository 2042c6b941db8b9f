/** What every page shares: the header, element building, the generated data files. */

import "./style.css";

const PAGES: [string, string][] = [
  ["index.html", "Home"],
  ["playground.html", "Playground"],
  ["mandelbrot.html", "Mandelbrot"],
  ["chainer.html", "Chainer"],
  ["benchmarks.html", "Benchmarks"],
  ["conformance.html", "Conformance"],
  ["docs.html", "Docs"],
  ["api.html", "API reference"],
];

type Child = Node | string | null | undefined | false;

/** document.createElement with attributes and children; "class" and data-* are attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | null | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c);
  }
  return node;
}

/** The site header with the page links; returns the slot on its right (device controls). */
export function header(active: string): HTMLElement {
  const nav = el("nav", {}, ...PAGES.map(([href, label]) =>
    el("a", { href, class: href === active ? "active" : null }, label)));
  const slot = el("div", { class: "device" });
  const bar = el("header", { class: "site" }, el("a", { class: "brand", href: "index.html" }, "webarray"), nav, slot);
  document.body.prepend(bar);
  return slot;
}

const cache = new Map<string, Promise<unknown>>();

/** A file of site/.generated/data (written by site/gen_data.py at build time). */
export function loadData<T>(name: string): Promise<T> {
  let p = cache.get(name);
  if (!p) {
    p = fetch(new URL(`data/${name}.json`, document.baseURI)).then((r) => {
      if (!r.ok) throw new Error(`data/${name}.json: HTTP ${r.status} (was the site built with npm run build?)`);
      return r.json();
    });
    cache.set(name, p);
  }
  return p as Promise<T>;
}

export interface BuildInfo {
  webarray_version: string;
  api_version: string;
  git: string | null;
  built: string;
  wheel: string;
  /** Pyodide packages this build serves (none unless a package index was configured) */
  pyodide_packages: string[];
  /** names the memory snapshot of Python with this build's webarray (session.ts) */
  snapshot_key: string;
  /** the Chainer page's pure wheels (Chainer 7.8.1 first, then its dependencies) */
  chainer_wheels: string[];
}

export const buildInfo = (): Promise<BuildInfo> => loadData<BuildInfo>("build");

export function param(name: string): string | null {
  return new URLSearchParams(location.search).get(name);
}

export function intParam(name: string, fallback: number, min: number, max: number): number {
  const v = Number.parseInt(param(name) ?? "", 10);
  return Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback;
}

export function fmtNumber(v: unknown, digits = 3): string {
  if (typeof v !== "number") return v === null || v === undefined ? "" : String(v);
  if (Number.isInteger(v)) return v.toLocaleString("en-US");
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return v.toExponential(2);
  return v.toPrecision(digits);
}

export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`;
}

/** What a page reports to the site test (tests/test_site.py) once its automatic run ends. */
export function reportResult(result: Record<string, unknown>): void {
  (window as unknown as { __siteResult: unknown }).__siteResult = result;
  document.body.dataset.state = String(result.state ?? "done");
}

/** CPU renderers standing in for a GPU (site/gen_data.py has the same list). */
const EMULATED = /llvmpipe|lavapipe|softpipe|swiftshader|warp|software/i;

/** Whether an adapter is a CPU renderer rather than a GPU. */
export function cpuEmulated(adapter: Record<string, string | undefined>): boolean {
  return /cpu/i.test(adapter.adapter_type ?? "") || EMULATED.test(`${adapter.device ?? ""} ${adapter.description ?? ""}`);
}

/** An adapter's name, marked when it is a CPU renderer. */
export function adapterLabel(adapter: Record<string, string | undefined>): string {
  const name = adapter.device || adapter.vendor || adapter.description || "unnamed adapter";
  return cpuEmulated(adapter) ? `${name} (CPU-emulated)` : name;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
