/**
 * The API reference, generated from the namespace at build time (site/gen_api.py): every
 * public name with its signature, category and support per backend (from the package's
 * dtype table and the stored conformance reports), the dtypes per backend, the Array
 * object's methods and the CuPy layer's names.
 */

import { el, errorText, header, loadData, reportResult } from "./common";

type Support = "yes" | "no" | "partial" | "missing";

interface Item {
  name: string;
  qualname: string;
  module: string;
  kind: string;
  category: string;
  signature: string;
  summary: string;
  support: Record<string, Support>;
  why?: Record<string, string>;
  conformance?: Record<string, Record<string, number>>;
}

interface Api {
  api_version: string;
  backends: string[];
  dtypes: Record<string, string[] | null>;
  capabilities: Record<string, unknown>;
  items: Item[];
  array: { name: string; kind: string; signature: string; summary: string }[];
  cupy: { available: boolean; note?: string; items?: { name: string; signature: string; summary: string; alias_of: string | null }[] };
}

const SPEC = "https://data-apis.org/array-api/2025.12/API_specification";
const ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float32", "float64", "complex64", "complex128"];

function specLink(item: Item): string | null {
  if (item.kind !== "function") return null;
  const prefix = item.module === "webarray" ? "" : `${item.module.split(".")[1]}.`;
  return `${SPEC}/generated/array_api.${prefix}${item.name}.html`;
}

const badge = (s: Support, title: string): HTMLElement =>
  el("span", { class: `badge ${s}`, title }, s === "yes" ? "✓" : s === "no" ? "✗" : s === "partial" ? "◐" : "—");

function conformanceText(c: Item["conformance"]): string {
  if (!c) return "";
  return Object.entries(c).map(([target, counts]) =>
    `${target}: ${Object.entries(counts).map(([o, n]) => `${n} ${o}`).join(", ")}`).join("; ");
}

header("api.html");
const main = document.querySelector("main")!;
main.append(el("h1", {}, "API reference"));

loadData<Api & { error?: string }>("api").then((api) => {
  if (api.error) throw new Error(api.error);
  const backends = api.backends;
  main.append(
    el("p", { class: "muted" }, `Generated from webarray (Array API ${api.api_version}) when the site was built. `,
      "A name links to the standard's page; docstrings here only say what the standard does not. ",
      "Support per backend (from the package's dtype table and kernel registries; hover a mark for the reason): ",
      "✓ present, ◐ partly, ✗ not on that device, — backend not built yet. ",
      "Conformance: test cases of the stored array-api-tests reports per target."),
    el("h2", {}, "Data types per backend"),
    el("div", { class: "table-wrap" }, el("table", { id: "dtypes" },
      el("thead", {}, el("tr", {}, el("th", {}, "dtype"), ...backends.map((b) => el("th", {}, b)))),
      el("tbody", {}, ...ALL_DTYPES.map((d) => el("tr", {}, el("td", { class: "mono" }, d),
        ...backends.map((b) => {
          const list = api.dtypes[b];
          return el("td", {}, badge(list === null ? "missing" : list.includes(d) ? "yes" : "no", `${d} on ${b}`));
        })))))),
    el("p", { class: "muted" }, `Capabilities: ${JSON.stringify(api.capabilities)}`),
  );

  const filter = el("input", { type: "search", placeholder: "filter names", "aria-label": "filter names", id: "filter" });
  const body = el("tbody", {});
  const categories = [...new Set(api.items.map((i) => i.category))].sort();
  const catSelect = el("select", { "aria-label": "category" }, el("option", { value: "" }, "all categories"),
    ...categories.map((c) => el("option", { value: c }, c)));
  const renderItems = (): void => {
    const q = filter.value.trim().toLowerCase();
    body.replaceChildren(...api.items
      .filter((i) => (!q || i.qualname.toLowerCase().includes(q)) && (!catSelect.value || i.category === catSelect.value))
      .map((i) => {
        const link = specLink(i);
        return el("tr", { id: i.qualname },
          el("td", { class: "mono" }, link ? el("a", { href: link }, i.qualname) : i.qualname),
          el("td", {}, i.category),
          el("td", { class: "mono" }, i.signature),
          ...backends.map((b) => el("td", {}, badge(i.support[b], i.why?.[b] ?? `${i.name} on ${b}`))),
          el("td", { style: "font-size: 0.85em" }, i.summary,
            ...Object.entries(i.why ?? {}).map(([b, w]) => el("div", { class: "warn" }, `${b}: ${w}`)),
            i.summary && i.conformance ? el("br") : null,
            el("span", { class: "muted" }, conformanceText(i.conformance))));
      }));
  };
  filter.oninput = renderItems;
  catSelect.onchange = renderItems;
  renderItems();
  main.append(
    el("h2", {}, `Namespace (${api.items.length} names)`),
    el("div", { class: "toolbar" }, filter, catSelect),
    el("div", { class: "table-wrap", style: "max-height: 48em" }, el("table", { id: "names" },
      el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "category"), el("th", {}, "signature"),
        ...backends.map((b) => el("th", {}, b)), el("th", {}, "notes"))),
      body)),
    el("h2", {}, "The Array object"),
    el("div", { class: "table-wrap" }, el("table", { id: "array" },
      el("thead", {}, el("tr", {}, el("th", {}, "attribute"), el("th", {}, "kind"), el("th", {}, "signature"), el("th", {}, "notes"))),
      el("tbody", {}, ...api.array.map((m) => el("tr", {}, el("td", { class: "mono" }, m.name), el("td", {}, m.kind),
        el("td", { class: "mono" }, m.signature), el("td", {}, m.summary)))))),
    el("h2", {}, "CuPy layer: webarray.cupy"),
    api.cupy.available && api.cupy.items
      ? el("div", { class: "table-wrap" }, el("table", { id: "cupy" },
        el("thead", {}, el("tr", {}, el("th", {}, "name"), el("th", {}, "signature"), el("th", {}, "notes"))),
        el("tbody", {}, ...api.cupy.items.map((c) => el("tr", {}, el("td", { class: "mono" }, `cupy.${c.name}`),
          el("td", { class: "mono" }, c.signature), el("td", {}, c.alias_of ? `same object as ${c.alias_of}` : c.summary))))))
      : el("p", { class: "muted" }, api.cupy.note ?? "not available"),
  );
  reportResult({ state: "done", items: api.items.length, cupy: api.cupy.available });
}).catch((e: unknown) => {
  main.append(el("p", { class: "bad" }, errorText(e)));
  reportResult({ state: "error", error: errorText(e) });
});
