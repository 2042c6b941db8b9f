/**
 * The docs page: the repository's docs/*.md, bundled at build time and rendered here,
 * one at a time (docs.html#NAME). The quick start comes first, then the CuPy migration
 * notes (docs/cupy.md, written with the CuPy layer), then the rest.
 */

import { el, header, reportResult } from "./common";
import { render } from "./markdown";

const files = import.meta.glob("../../docs/*.md", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const docs = new Map(Object.entries(files).map(([path, text]) => [path.split("/").pop()!.replace(/\.md$/, ""), text]));
const ORDER = ["quickstart", "cupy", "site", "browser", "architecture", "accuracy"];
const names = [...docs.keys()].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));

const title = (name: string): string => /^#\s+(.*)$/m.exec(docs.get(name) ?? "")?.[1] ?? name;

header("docs.html");
const main = document.querySelector("main")!;
const tabs = el("nav", { class: "doc-tabs" });
const body = el("article", { class: "doc-body" });
main.append(el("h1", {}, "Docs"), tabs, body);

if (!docs.has("cupy")) {
  docs.set("cupy", "# CuPy migration notes\n\nThe notes come with the CuPy layer (`webarray.cupy`, `docs/cupy.md`), " +
    "which is not in this build yet. Until then: `import webarray as xp` is the strict Array API namespace; see the quick start.");
  names.splice(1, 0, "cupy");
}

tabs.append(...names.map((n) => el("a", { href: `#${n}`, "data-doc": n }, n === "cupy" ? "CuPy migration" : title(n).replace(/^webarray\s*[—:-]?\s*/i, ""))));

function show(): void {
  const wanted = location.hash.slice(1).split("/")[0];
  const name = docs.has(wanted) ? wanted : names[0];
  body.innerHTML = render(docs.get(name)!);
  for (const a of tabs.querySelectorAll("a")) a.classList.toggle("active", a.dataset.doc === name);
  for (const a of tabs.querySelectorAll("a")) a.style.fontWeight = a.dataset.doc === name ? "600" : "";
  document.title = `${title(name)} · webarray`;
}

window.addEventListener("hashchange", show);
show();
reportResult({ state: "done", sections: names.length, names });
