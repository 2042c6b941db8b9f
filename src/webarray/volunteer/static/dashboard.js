// The study's dashboard: GET /api/study every 2 s, drawn as a table of trials.

const $ = (id) => document.getElementById(id);
const fmt = (v) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toPrecision(4)) : String(v));
const params = (p) => Object.entries(p).map(([k, v]) => `${k}=${fmt(v)}`).join(" ");

function cell(row, text, className = "") {
  const td = row.insertCell();
  td.textContent = text;
  if (className) td.className = className;
}

function draw(s) {
  $("study").textContent = `${s.study} (${s.direction})`;
  $("finished").textContent = `${s.finished} of ${s.n_trials}`;
  $("counts").textContent = Object.entries(s.counts).map(([k, n]) => `${n} ${k.toLowerCase()}`).join(", ") || "no trials yet";
  $("best").textContent = s.best ? `trial ${s.best.number}: ${fmt(s.best.value)}  ${params(s.best.params)}` : "–";
  const body = $("trials");
  body.replaceChildren();
  for (const t of [...s.trials].reverse()) {
    const row = body.insertRow();
    cell(row, String(t.number));
    cell(row, t.state, `state-${t.state}`);
    cell(row, t.value === null ? "" : fmt(t.value));
    cell(row, params(t.params), "mono");
    const steps = Object.values(t.intermediate);
    cell(row, steps.length ? `${steps.length}: last ${fmt(steps[steps.length - 1])}` : "");
    cell(row, t.worker ?? "");
    const notes = [];
    if (t.retry_of !== null) notes.push(`re-run of ${t.retry_of}`);
    if (t.resumed_from) {
      const at = t.resumed_from.step === null ? "" : ` after epoch ${t.resumed_from.step + 1}`;
      notes.push(`resumed from trial ${t.resumed_from.trial}'s checkpoint${at}`);
    }
    if (t.released) notes.push("handed back by its page");
    if (t.error) notes.push(t.error.trim().split("\n").pop());
    cell(row, notes.join("; "), t.error ? "bad" : "muted");
  }
}

async function refresh() {
  try {
    const r = await fetch("/api/study");
    if (r.ok) draw(await r.json());
  } catch {
    // the server is restarting; keep the last table
  }
  setTimeout(refresh, 2000);
}

refresh();
