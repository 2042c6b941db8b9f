/** Small SVG line charts (log or linear axes), one series per library. */

import { el, fmtNumber } from "./common";

export interface Series {
  name: string;
  points: [number, number][];
}

export interface Chart {
  title: string;
  xlabel: string;
  ylabel: string;
  xlog?: boolean;
  ylog?: boolean;
  higher_is_better?: boolean;
  series: Series[];
}

const COLOURS: Record<string, string> = {
  webarray: "#2457c5", numpy: "#e07b00", cupy: "#1d7a3a", torch: "#b3261e", "this browser": "#7b3fc4",
};
const SPARE = ["#2457c5", "#e07b00", "#1d7a3a", "#b3261e", "#7b3fc4", "#00838f", "#8d6e00", "#c2185b", "#546e7a", "#6d4c41"];
const SVG = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function ticks(lo: number, hi: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    const a = Math.floor(Math.log10(lo));
    const b = Math.ceil(Math.log10(hi));
    const step = Math.max(1, Math.ceil((b - a) / 6));
    for (let e = a; e <= b; e += step) out.push(10 ** e);
    if (out.length < 3) for (const m of [2, 5]) for (let e = a; e <= b; e++) out.push(m * 10 ** e);
    return out.filter((t) => t >= lo * 0.999 && t <= hi * 1.001).sort((x, y) => x - y);
  }
  const span = hi - lo || 1;
  const step = 10 ** Math.floor(Math.log10(span / 5));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 6) ?? step * 10;
  const out: number[] = [];
  for (let t = Math.ceil(lo / nice) * nice; t <= hi + 1e-12; t += nice) out.push(t);
  return out;
}

function label(v: number, log: boolean): string {
  if (log && v >= 1024 && Number.isInteger(Math.log2(v))) return `2^${Math.log2(v)}`;
  if (v >= 1e4 && Number.isInteger(v)) return v.toExponential(0).replace("e+", "e");
  return fmtNumber(v, 2);
}

export function lineChart(chart: Chart, width = 460, height = 280): HTMLElement {
  const m = { l: 58, r: 26, t: 10, b: 40 };
  const pts = chart.series.flatMap((s) => s.points).filter(([x, y]) =>
    Number.isFinite(x) && Number.isFinite(y) && (!chart.xlog || x > 0) && (!chart.ylog || y > 0));
  const box = el("div", { class: "chart" }, el("div", { class: "title" }, chart.title));
  if (!pts.length) {
    box.append(el("p", { class: "muted" }, "no data"));
    return box;
  }
  let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
  let [y0, y1] = [Math.min(...pts.map((p) => p[1])), Math.max(...pts.map((p) => p[1]))];
  if (x0 === x1) [x0, x1] = chart.xlog ? [x0 / 2, x1 * 2] : [x0 - 1, x1 + 1];
  if (y0 === y1) [y0, y1] = chart.ylog ? [y0 / 2, y1 * 2] : [y0 - 1, y1 + 1];
  if (chart.ylog) [y0, y1] = [y0 / 1.3, y1 * 1.3];
  else [y0, y1] = [Math.min(0, y0), y1 * 1.08];
  const f = (v: number, log: boolean | undefined): number => (log ? Math.log10(v) : v);
  const sx = (x: number): number => m.l + ((f(x, chart.xlog) - f(x0, chart.xlog)) / (f(x1, chart.xlog) - f(x0, chart.xlog))) * (width - m.l - m.r);
  const sy = (y: number): number => height - m.b - ((f(y, chart.ylog) - f(y0, chart.ylog)) / (f(y1, chart.ylog) - f(y0, chart.ylog))) * (height - m.t - m.b);

  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": chart.title });
  for (const t of ticks(y0, y1, !!chart.ylog)) {
    root.append(svg("line", { x1: m.l, x2: width - m.r, y1: sy(t), y2: sy(t), stroke: "#e6e9ee" }));
    root.append(svg("text", { x: m.l - 5, y: sy(t) + 4, "text-anchor": "end", "font-size": 10, fill: "#5b6676" }, label(t, false)));
  }
  // sizes that are powers of two get ticks at those powers
  const xs = [...new Set(pts.map((p) => p[0]))].sort((a, b) => a - b);
  const pow2 = chart.xlog && xs.length > 1 && xs.every((x) => Number.isInteger(Math.log2(x)));
  const xticks = pow2 ? xs.filter((_, k) => k % Math.ceil(xs.length / 7) === 0) : ticks(x0, x1, !!chart.xlog);
  for (const t of xticks) {
    root.append(svg("line", { x1: sx(t), x2: sx(t), y1: m.t, y2: height - m.b, stroke: "#f0f2f5" }));
    root.append(svg("text", { x: sx(t), y: height - m.b + 14, "text-anchor": "middle", "font-size": 10, fill: "#5b6676" }, label(t, !!chart.xlog)));
  }
  root.append(svg("line", { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b, stroke: "#8a94a3" }));
  root.append(svg("line", { x1: m.l, x2: m.l, y1: m.t, y2: height - m.b, stroke: "#8a94a3" }));
  root.append(svg("text", { x: (m.l + width - m.r) / 2, y: height - 6, "text-anchor": "middle", "font-size": 11, fill: "#1d2430" }, chart.xlabel));
  root.append(svg("text", { x: 12, y: (m.t + height - m.b) / 2, "text-anchor": "middle", "font-size": 11, fill: "#1d2430",
    transform: `rotate(-90 12 ${(m.t + height - m.b) / 2})` },
    `${chart.ylabel}${chart.higher_is_better === false ? " (lower is better)" : ""}`));

  const legend = el("div", { class: "muted", style: "font-size: 0.8em; margin: 0 0.4em" });
  chart.series.forEach((s, i) => {
    const colour = COLOURS[s.name] ?? SPARE[i % SPARE.length];
    const points = s.points.filter(([x, y]) => pts.some((p) => p[0] === x && p[1] === y));
    if (points.length > 1) {
      root.append(svg("polyline", { points: points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(" "), fill: "none", stroke: colour, "stroke-width": 2 }));
    }
    for (const [x, y] of points) {
      const dot = svg("circle", { cx: sx(x), cy: sy(y), r: 3, fill: colour });
      dot.append(svg("title", {}, `${s.name}: ${chart.xlabel} ${fmtNumber(x)} → ${fmtNumber(y)} ${chart.ylabel}`));
      root.append(dot);
    }
    legend.append(el("span", { style: `color: ${colour}; margin-right: 1em` }, `● ${s.name}`));
  });
  box.append(root, legend);
  return box;
}

/** A table of rows (arrays of cells) with a header. */
export function table(columns: string[], rows: unknown[][], numeric = true): HTMLElement {
  return el("div", { class: "table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", {}, c)))),
    el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((v) =>
      el("td", { class: numeric && typeof v === "number" ? "num" : null }, fmtNumber(v))))))));
}
