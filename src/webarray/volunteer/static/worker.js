// The volunteer worker page: start webarray (Pyodide in a worker, the GPU in another),
// then lease trials from the server and run each with webarray.volunteer.worker in the
// Python worker, until the study is done or the page closes.
//
// The main thread stays free while Python trains, so the heartbeats go from here: a
// long GPU step cannot make the trial look stale. A heartbeat answered 409 with
// "requeued" means the server has re-queued the trial (we were silent too long): Python
// is interrupted and the page leases anew. Closing the page sends a release beacon, so the trial is
// re-queued at once rather than after the grace period.
//
// URL parameters: name (the worker's name on the dashboard), backend (webgpu, webgl2,
// auto), release=0 (send no beacon on close, like a crashed browser; for tests).
// A page driven by webarray.volunteer.pages gets each state change through
// window.__volunteerReport.

import { startWebarray } from "/webarray/index.js";

const query = new URLSearchParams(location.search);
const STUDY_DIR = "/home/pyodide/study";
const PROGRESS = "[volunteer] ";
const state = {
  name: query.get("name") || `volunteer-${Math.random().toString(36).slice(2, 7)}`,
  phase: "starting",
  backend: null,
  trial: null,
  params: null,
  step: null,
  value: null,
  done: 0,
  results: [],
  note: "",
};
let wa = null;
let current = null; // the lease being run
let stopping = false;
let epochs = null;
const logLines = [];

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function update(patch) {
  Object.assign(state, patch);
  $("name").textContent = state.name;
  $("phase").textContent = state.phase;
  $("phase").className = state.phase.startsWith("error") ? "bad" : "";
  $("trial").textContent = state.trial === null ? "–" : String(state.trial);
  $("params").textContent = state.params ? Object.entries(state.params).map(([k, v]) =>
    `${k}=${Number.isInteger(v) || typeof v !== "number" ? v : v.toPrecision(4)}`).join("  ") : "–";
  $("done").textContent = String(state.done);
  $("note").textContent = state.note;
  const step = state.step === null ? 0 : state.step + 1;
  $("progress").max = epochs || Math.max(step, 1);
  $("progress").value = step;
  $("step").textContent = state.step === null ? "" :
    `epoch ${step}${epochs ? ` of ${epochs}` : ""}: ${state.value.toFixed(4)}`;
  window.__volunteerReport?.(structuredClone(state));
}

let partial = ""; // stdout arrives in chunks: a line may span two

function log(text) {
  const lines = (partial + text).split("\n");
  partial = lines.pop();
  for (const line of lines) {
    if (line.startsWith(PROGRESS)) {
      const p = JSON.parse(line.slice(PROGRESS.length));
      if (current && p.trial === current.trial) update({ step: p.step, value: p.value });
      logLines.push(`trial ${p.trial}, epoch ${p.step + 1}: ${p.value.toFixed(4)}${p.prune ? " (pruned)" : ""}`);
      continue;
    }
    if (line) logLines.push(line);
  }
  logLines.splice(0, Math.max(0, logLines.length - 300));
  $("log").textContent = logLines.join("\n");
}

/** A JSON request; a lost connection or a 5xx is retried (the server may be restarting). */
async function api(path, body = undefined) {
  for (let delay = 250; ; delay = Math.min(2 * delay, 5000)) {
    let r;
    try {
      r = await fetch(path, body === undefined ? {} : {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
    } catch {
      update({ note: "the server does not answer; retrying" });
      await sleep(delay);
      continue;
    }
    if (r.status >= 500) {
      await sleep(delay);
      continue;
    }
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(`${path}: HTTP ${r.status}: ${JSON.stringify(data.detail)}`);
    if (state.note) update({ note: "" });
    return data;
  }
}

async function heartbeat(lease) {
  let r;
  try {
    r = await fetch(`/api/trials/${lease.trial}/heartbeat`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: lease.token }),
    });
  } catch {
    return; // the server is restarting; the next beat tries again
  }
  // a 409 also answers a beat that crossed our own tell: stop Python only for a re-queue
  if (r.status === 409 && (await r.json().catch(() => ({}))).requeued && current === lease) {
    update({ note: `trial ${lease.trial} was re-queued by the server; stopping it` });
    wa.interrupt();
  }
}

function release(lease, viaBeacon) {
  const body = JSON.stringify({ token: lease.token });
  const url = `/api/trials/${lease.trial}/release`;
  if (viaBeacon) navigator.sendBeacon(url, new Blob([body], { type: "application/json" }));
  else fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body, keepalive: true });
}

addEventListener("pagehide", () => {
  stopping = true;
  if (current && query.get("release") !== "0") release(current, true);
  wa?.terminate();
});

$("leave").addEventListener("click", () => {
  stopping = true;
  $("leave").disabled = true;
  if (current) {
    release(current, false);
    wa.interrupt();
  }
  update({ phase: "stopping", note: "the running trial goes back to the server" });
});

async function describeDevice(backend) {
  let adapter = "";
  if (backend === "webgpu" && navigator.gpu) {
    const info = (await navigator.gpu.requestAdapter())?.info;
    if (info) adapter = [info.vendor, info.architecture, info.description].filter(Boolean).join(" ");
  }
  return `${backend}${adapter ? ` (${adapter})` : ""}, transport ${wa.transport}`;
}

async function main() {
  update({});
  if (!isSecureContext) {
    throw new Error("this page is not a secure context, so the browser offers neither SharedArrayBuffer nor " +
      "WebGPU: open it over https:// (the server's --self-signed or --certfile), or as http://localhost");
  }
  const cfg = await api("/api/config");
  $("study").textContent = cfg.study;
  epochs = cfg.settings?.epochs ?? null;
  update({ phase: "loading Python and webarray" });
  wa = await startWebarray({
    pyodideUrl: "/pyodide/",
    wheelUrl: cfg.wheels,
    backend: query.get("backend") || "auto",
    stdout: log,
    stderr: log,
    onFatal: (m) => update({ phase: `error: ${m}` }),
    onProgress: (stage) => update({ phase: `starting: ${stage}` }),
  });
  $("device").textContent = await describeDevice(wa.backend);
  update({ backend: wa.backend, phase: "loading the study" });
  for (const pkg of cfg.pyodide_packages) {
    await wa.runPython(`import pyodide_js\nawait pyodide_js.loadPackage(${JSON.stringify(pkg)})`);
  }
  for (const f of cfg.files) {
    const r = await fetch(f.url);
    if (!r.ok) throw new Error(`${f.url}: HTTP ${r.status}`);
    await wa.writeFile(`${STUDY_DIR}/${f.path}`, new Uint8Array(await r.arrayBuffer()));
  }
  await wa.runPython(
    `import os\nos.chdir(${JSON.stringify(STUDY_DIR)})\n` +
      `from webarray.volunteer import worker as _volunteer\n` +
      `_volunteer.page_setup(${JSON.stringify(location.origin)}, ${JSON.stringify(cfg.objective)})`,
  );

  while (!stopping) {
    update({ phase: "asking for a trial", trial: null, params: null, step: null });
    const lease = await api("/api/lease", { worker: state.name });
    if (lease.status === "done") {
      update({ phase: "done: the study is complete", note: lease.reason, trial: null, params: null, step: null });
      break;
    }
    if (lease.status === "wait") {
      update({ phase: "waiting: no trial to give right now", note: lease.reason });
      await sleep(lease.retry_after * 1000);
      continue;
    }
    current = lease;
    const resumed = lease.retry_of !== null ? ` (re-run of trial ${lease.retry_of})` : "";
    update({ phase: `training${resumed}`, trial: lease.trial, params: lease.params, step: null, value: null });
    const beat = setInterval(() => heartbeat(lease), lease.heartbeat_interval * 1000);
    let result;
    try {
      result = await wa.runPython(`_volunteer.page_run(${JSON.stringify(JSON.stringify(lease))})`);
    } catch (e) {
      result = { trial: lease.trial, state: "error", reason: String(e.message ?? e) };
      log(`trial ${lease.trial}: ${result.reason}\n`);
    } finally {
      clearInterval(beat);
      current = null;
    }
    log(`trial ${lease.trial}: ${result.state}${result.value != null ? ` ${result.value}` : ""}\n`);
    update({ done: state.done + (result.state === "COMPLETE" || result.state === "PRUNED" ? 1 : 0),
             results: [...state.results, result], phase: `trial ${lease.trial} ${result.state}`,
             trial: null, params: null });
    if (result.state === "error") await sleep(2000); // e.g. the server lost: do not spin
  }
  if (stopping) update({ phase: "stopped", trial: null, params: null });
}

main().catch((e) => update({ phase: `error: ${e.message ?? e}` }));
