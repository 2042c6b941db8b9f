/**
 * The conformance dashboard: the stored reports of `python -m conformance run`
 * (conformance/reports/*.json, committed data, collected at build time): totals per
 * target, per spec category and per function, the failures with their excerpts, the
 * versions and hardware of each run, and published results of other libraries; and the
 * counts of SciPy's and scikit-learn's own array-API tests on webarray next to
 * array_api_strict (`python -m conformance scipy|sklearn`, conformance/reports/ecosystem/).
 */

import { el, errorText, header, loadData, reportResult } from "./common";

type Counts = Partial<Record<Outcome, number>>;
type Outcome = "passed" | "failed" | "xfailed" | "xpassed" | "skipped" | "error";
const OUTCOMES: Outcome[] = ["passed", "failed", "error", "xfailed", "xpassed", "skipped"];

interface TestRow {
  id: string;
  outcome: Outcome;
  duration: number;
  category: string;
  function: string;
  excerpt?: string;
}

interface Report {
  file: string;
  target: string;
  date: string;
  webarray_version: string;
  api_version: string;
  suite_commit: string | null;
  spec_commit: string | null;
  device: { backend: string; adapter: Record<string, string> };
  device_dtypes: string[];
  skipped_dtypes: string[];
  note: string | null;
  max_examples: number;
  xfails: Record<string, string>;
  summary: { totals: Counts; categories: Record<string, Counts>; functions: Record<string, Counts> };
  tests: TestRow[];
}

interface OtherLibraries {
  source: string;
  description: string;
  libraries: { name: string; expected_failures: number; skipped: number; by_module: Record<string, number>; url?: string; note?: string }[];
}

/** One run of `python -m conformance scipy|sklearn` (conformance/reports/ecosystem/). */
interface EcosystemRun {
  file: string;
  suite: string;
  module: string;
  backend: string;
  date: string;
  duration_s: number;
  cut_at_timeout_s: number | null;
  command: string;
  patched: string;
  versions: Record<string, string | null>;
  device?: { backend?: string; adapter?: Record<string, string> };
  totals: Counts;
  failure_groups: { outcome: string; reason: string; count: number; examples: string[] }[];
}

interface Data {
  reports: Report[];
  other_libraries: OtherLibraries | null;
  ecosystem?: EcosystemRun[];
}

header("conformance.html");
const main = document.querySelector("main")!;
main.append(
  el("h1", {}, "Conformance"),
  el("p", { class: "muted" }, "Results of the data-apis ", el("a", { href: "https://github.com/data-apis/array-api-tests" }, "array-api-tests"),
    " suite against webarray, from the reports that python -m conformance run writes to conformance/reports/ ",
    "(committed, so this page needs no rerun). Expected failures, each with its reason, are listed in conformance/xfails.txt."),
);

const total = (c: Counts): number => OUTCOMES.reduce((s, o) => s + (c[o] ?? 0), 0);
const pct = (c: Counts): string => {
  const n = total(c) - (c.skipped ?? 0);
  return n ? `${((100 * ((c.passed ?? 0) + (c.xpassed ?? 0))) / n).toFixed(1)}%` : "–";
};

function bar(c: Counts): HTMLElement {
  const n = total(c) || 1;
  return el("div", { class: "bar", title: OUTCOMES.filter((o) => c[o]).map((o) => `${o} ${c[o]}`).join(", ") },
    ...OUTCOMES.filter((o) => c[o]).map((o) => el("span", { class: o === "error" ? "failed" : o, style: `width: ${(100 * (c[o] ?? 0)) / n}%` })));
}

function countsText(c: Counts | undefined): string {
  if (!c) return "–";
  return OUTCOMES.filter((o) => c[o]).map((o) => `${c[o]} ${o}`).join(", ");
}

function totalsSection(reports: Report[]): HTMLElement {
  return el("section", {}, el("h2", {}, "Totals per target"),
    el("div", { class: "table-wrap" }, el("table", { id: "totals" },
      el("thead", {}, el("tr", {}, el("th", {}, "target"), ...OUTCOMES.map((o) => el("th", { class: "num" }, o)),
        el("th", { class: "num" }, "tests"), el("th", { class: "num" }, "pass rate"), el("th", {}, ""))),
      el("tbody", {}, ...reports.map((r) => el("tr", {},
        el("td", {}, el("b", {}, r.target)),
        ...OUTCOMES.map((o) => el("td", { class: `num ${o === "failed" && r.summary.totals[o] ? "bad" : ""}` }, String(r.summary.totals[o] ?? 0))),
        el("td", { class: "num" }, String(total(r.summary.totals))),
        el("td", { class: "num" }, pct(r.summary.totals)),
        el("td", {}, bar(r.summary.totals))))))),
    el("p", { class: "muted" }, "Pass rate: (passed + xpassed) / (tests − skipped)."));
}

function versionsSection(reports: Report[]): HTMLElement {
  const short = (s: string | null): string => (s ? s.slice(0, 10) : "unknown");
  return el("section", {}, el("h2", {}, "Versions and hardware"),
    el("div", { class: "cards" }, ...reports.map((r) => {
      const a = r.device?.adapter ?? {};
      const facts: [string, string][] = [
        ["date", r.date],
        ["webarray", r.webarray_version],
        ["Array API version", r.api_version],
        ["array-api-tests", short(r.suite_commit)],
        ["spec", short(r.spec_commit)],
        ["device", `${r.device?.backend}: ${a.device ?? ""} (${a.backend ?? ""}, ${a.adapter_type ?? ""})`],
        ["driver", a.description ?? ""],
        ["dtypes tested", r.device_dtypes.join(", ")],
        ["dtypes skipped", r.skipped_dtypes.join(", ") || "none"],
        ["hypothesis examples", String(r.max_examples)],
        ["report", r.file],
      ];
      if (r.note) facts.push(["note", r.note]);
      return el("div", { class: "card" }, el("h3", {}, r.target),
        el("dl", { class: "facts" }, ...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])));
    })));
}

function categoriesSection(reports: Report[]): HTMLElement {
  const cats = [...new Set(reports.flatMap((r) => Object.keys(r.summary.categories)))].sort();
  return el("section", {}, el("h2", {}, "Per spec category"),
    el("div", { class: "table-wrap" }, el("table", { id: "categories" },
      el("thead", {}, el("tr", {}, el("th", {}, "category"), ...reports.flatMap((r) => [el("th", {}, r.target), el("th", {}, "")]))),
      el("tbody", {}, ...cats.map((c) => el("tr", {}, el("td", {}, c), ...reports.flatMap((r) => {
        const counts = r.summary.categories[c];
        return [el("td", {}, countsText(counts)), el("td", {}, counts ? bar(counts) : "")];
      })))))));
}

function functionsSection(reports: Report[], categoryOf: Map<string, string>): HTMLElement {
  const names = [...new Set(reports.flatMap((r) => Object.keys(r.summary.functions)))].sort();
  const filter = el("input", { type: "search", placeholder: "filter functions", "aria-label": "filter functions" });
  const onlyBad = el("input", { type: "checkbox", id: "only-bad" });
  const body = el("tbody", {});
  const render = (): void => {
    const q = filter.value.trim().toLowerCase();
    body.replaceChildren(...names.filter((n) => {
      if (q && !n.toLowerCase().includes(q) && !(categoryOf.get(n) ?? "").includes(q)) return false;
      return !onlyBad.checked || reports.some((r) => {
        const c = r.summary.functions[n];
        return c && (c.failed || c.error || c.xfailed);
      });
    }).map((n) => el("tr", {}, el("td", { class: "mono" }, n), el("td", {}, categoryOf.get(n) ?? ""),
      ...reports.map((r) => {
        const c = r.summary.functions[n];
        return el("td", { class: c?.failed || c?.error ? "bad" : c?.xfailed ? "warn" : "" }, countsText(c));
      }))));
  };
  filter.oninput = render;
  onlyBad.onchange = render;
  render();
  return el("section", {}, el("h2", {}, "Per function"),
    el("p", { class: "muted" }, "Counts of test cases per function (a test of the suite may cover several functions, and special-case tests count once per case)."),
    el("div", { class: "toolbar" }, filter, el("label", {}, onlyBad, " only functions with failures or expected failures")),
    el("div", { class: "table-wrap" }, el("table", { id: "functions" },
      el("thead", {}, el("tr", {}, el("th", {}, "function"), el("th", {}, "category"), ...reports.map((r) => el("th", {}, r.target)))),
      body)));
}

function failuresSection(reports: Report[]): HTMLElement {
  const section = el("section", {}, el("h2", {}, "Failures and expected failures"));
  for (const r of reports) {
    const bad = r.tests.filter((t) => t.outcome === "failed" || t.outcome === "error" || t.outcome === "xfailed");
    section.append(el("h3", {}, `${r.target}: ${bad.length}`));
    if (!bad.length) section.append(el("p", { class: "ok" }, "none"));
    for (const t of bad) {
      const reason = r.xfails[t.id];
      section.append(el("details", { class: "failure" },
        el("summary", {}, el("span", { class: t.outcome === "xfailed" ? "warn" : "bad" }, t.outcome), " ",
          el("span", { class: "mono" }, t.id)),
        reason ? el("p", {}, el("b", {}, "expected, because: "), reason) : null,
        t.excerpt ? el("pre", {}, t.excerpt) : el("p", { class: "muted" }, "no excerpt")));
    }
  }
  return section;
}

function skippedSection(reports: Report[]): HTMLElement {
  const section = el("section", {}, el("h2", {}, "Skipped tests"),
    el("p", { class: "muted" }, "Tests the suite or the runner skipped, grouped by the reason they gave."));
  for (const r of reports) {
    const byReason = new Map<string, string[]>();
    for (const t of r.tests) {
      if (t.outcome !== "skipped") continue;
      const why = t.excerpt || "no reason given";
      byReason.set(why, [...(byReason.get(why) ?? []), t.id]);
    }
    const count = [...byReason.values()].reduce((n, ids) => n + ids.length, 0);
    section.append(el("h3", {}, `${r.target}: ${count}`));
    for (const [why, ids] of [...byReason.entries()].sort((a, b) => b[1].length - a[1].length)) {
      section.append(el("details", { class: "skipped" },
        el("summary", {}, `${ids.length} × ${why}`),
        el("pre", {}, ids.join("\n"))));
    }
  }
  return section;
}

/** SciPy's and scikit-learn's own array-API tests with webarray as the backend, next to
 * array_api_strict's count from the same runner: one row per (suite, module). */
function ecosystemSection(runs: EcosystemRun[]): HTMLElement {
  const section = el("section", {}, el("h2", {}, "SciPy and scikit-learn array-API tests"),
    el("p", { class: "muted" }, "Their own test suites, run by python -m conformance scipy|sklearn with webarray ",
      "registered as an array-API backend (and with array_api_strict, the reference), from the reports in ",
      "conformance/reports/ecosystem/. The aim is webarray within 5% of array_api_strict's passed count per module."));
  if (!runs.length) {
    section.append(el("p", { class: "muted" }, "No reports yet: run python -m conformance scipy."));
    return section;
  }
  const key = (r: EcosystemRun): string => `${r.suite} ${r.module}`;
  const modules = [...new Set(runs.map(key))].sort();
  const find = (m: string, backend: string): EcosystemRun | undefined => runs.find((r) => key(r) === m && r.backend === backend);
  const cell = (r: EcosystemRun | undefined): HTMLElement => {
    if (!r) return el("td", { class: "muted" }, "not run");
    const cut = r.cut_at_timeout_s ? ` (cut at ${r.cut_at_timeout_s} s)` : "";
    return el("td", {}, countsText(r.totals) + cut);
  };
  section.append(el("div", { class: "table-wrap" }, el("table", { id: "ecosystem" },
    el("thead", {}, el("tr", {}, el("th", {}, "suite / module"), el("th", {}, "webarray"), el("th", {}, "array_api_strict"),
      el("th", { class: "num" }, "passed, webarray / strict"), el("th", {}, ""))),
    el("tbody", {}, ...modules.map((m) => {
      const w = find(m, "webarray");
      const s = find(m, "array_api_strict");
      const wp = w?.totals.passed ?? 0;
      const sp = s?.totals.passed ?? 0;
      const ratio = w && s && sp ? wp / sp : null;
      return el("tr", {}, el("td", {}, el("b", {}, m)), cell(w), cell(s),
        el("td", { class: `num ${ratio !== null && ratio < 0.95 ? "bad" : ""}` }, ratio === null ? "–" : `${(100 * ratio).toFixed(1)}%`),
        el("td", {}, w ? bar(w.totals) : ""));
    })))));
  for (const r of runs.filter((x) => x.backend === "webarray")) {
    const groups = r.failure_groups.slice(0, 12);
    section.append(el("details", { class: "ecosystem-failures" },
      el("summary", {}, `${key(r)}: the most common failures (${r.failure_groups.length} groups)`),
      el("p", { class: "muted mono" }, r.command, ` — ${r.date}, ${r.duration_s.toFixed(0)} s, scipy ${r.versions.scipy ?? "?"}, scikit-learn ${r.versions["scikit-learn"] ?? "?"}`),
      ...groups.map((g) => el("p", {}, el("b", {}, `${g.count} × ${g.outcome}: `), g.reason,
        el("br"), el("span", { class: "muted mono" }, g.examples.slice(0, 2).join(", "))))));
  }
  return section;
}

function othersSection(data: Data): HTMLElement {
  const section = el("section", {}, el("h2", {}, "Other libraries"));
  const o = data.other_libraries;
  if (!o) {
    section.append(el("p", { class: "muted" }, "No comparison data in this build (site/other-libraries.json)."));
    return section;
  }
  const modules = (m: Record<string, number>): string =>
    Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k.replace(/^test_/, "")} ${n}`).join(", ");
  const ours = data.reports.map((r) => {
    const bad = r.tests.filter((t) => t.outcome === "failed" || t.outcome === "error" || t.outcome === "xfailed");
    const byModule: Record<string, number> = {};
    for (const t of bad) {
      const m = /array_api_tests\/(test_\w+)\.py/.exec(t.id)?.[1] ?? "other";
      byModule[m] = (byModule[m] ?? 0) + 1;
    }
    return { name: `webarray (${r.target})`, failures: bad.length, byModule };
  });
  section.append(
    el("p", {}, o.description, " Source: ", el("a", { href: o.source }, o.source), "."),
    el("div", { class: "table-wrap" }, el("table", { id: "others" },
      el("thead", {}, el("tr", {}, el("th", {}, "library"), el("th", { class: "num" }, "failing or expected-to-fail tests"), el("th", {}, "by test module"), el("th", {}, "notes"))),
      el("tbody", {},
        ...ours.map((w) => el("tr", {}, el("td", {}, el("b", {}, w.name)), el("td", { class: "num" }, String(w.failures)), el("td", {}, modules(w.byModule)),
          el("td", {}, "this site's report: failed + xfailed"))),
        ...o.libraries.map((l) => el("tr", {},
          el("td", {}, l.url ? el("a", { href: l.url }, l.name) : l.name),
          el("td", { class: "num" }, String(l.expected_failures)),
          el("td", {}, modules(l.by_module)),
          el("td", {}, l.note ?? "")))))),
    el("p", { class: "muted" }, "Not a like-for-like score: the suites' versions, hypothesis settings and dtypes differ ",
      "(the reports named -float64 draw float64 and complex128 cases too; the others ran with WEBARRAY_FLOAT64=0), and a list entry may stand for several cases."));
  return section;
}

loadData<Data>("conformance").then((data) => {
  const reports = data.reports;
  if (!reports.length) {
    main.append(el("p", { class: "warn" }, "No reports in conformance/reports/ yet: run python -m conformance run."));
  } else {
    const categoryOf = new Map<string, string>();
    // a function's own category, not the cross-cutting ones of the suite, where it has one
    const crossCutting = new Set(["special cases", "signatures", "names"]);
    for (const r of reports) {
      for (const t of r.tests) {
        if (!categoryOf.has(t.function) || (crossCutting.has(categoryOf.get(t.function)!) && !crossCutting.has(t.category))) {
          categoryOf.set(t.function, t.category);
        }
      }
    }
    main.append(totalsSection(reports), ecosystemSection(data.ecosystem ?? []), categoriesSection(reports),
      functionsSection(reports, categoryOf), failuresSection(reports), skippedSection(reports),
      versionsSection(reports), othersSection(data));
  }
  reportResult({
    state: "done",
    totals: Object.fromEntries(reports.map((r) => [r.target, r.summary.totals])),
    ecosystem: Object.fromEntries((data.ecosystem ?? []).map((r) => [`${r.suite}-${r.module}-${r.backend}`, r.totals.passed ?? 0])),
    failures: document.querySelectorAll("details.failure").length,
    skipped: [...document.querySelectorAll("details.skipped pre")]
      .reduce((n, e) => n + (e.textContent ?? "").split("\n").length, 0),
  });
}).catch((e: unknown) => {
  main.append(el("p", { class: "bad" }, errorText(e)));
  reportResult({ state: "error", error: errorText(e) });
});
