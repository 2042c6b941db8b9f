// Raw dawn.node cases, one per process, for what crashed before (PERF_NOTES.md: large
// uploads and readbacks under webgpu 0.6.2), without Pyodide or webarray:
//
//   node benchmarks/dawn/stress.mjs DAWN_PACKAGE_DIR CASE [MiB] [REPEATS]
//
// CASE:
//   info          the adapter Dawn picks (powerPreference high-performance) and its features
//   write         queue.writeBuffer of MiB from an ordinary ArrayBuffer, then copy + mapAsync
//                 readback and a check, REPEATS times
//   write-pieces  the same in 1 MiB writeBuffer calls (what webarray's executor does)
//   write-shared  writeBuffer from a Uint8Array over a whole SharedArrayBuffer
//   write-shared-view  the same from a view at offset 256 of a larger SharedArrayBuffer
//                 (webarray's executor writes from such views of its command ring)
//   mapped        a buffer created mappedAtCreation, filled, unmapped, read back, REPEATS times
//
// Prints one line "STRESS <json>" when the case finished; a crash shows as the process's
// exit signal and its stderr (benchmarks/dawn.py records both).

const [dir, kase, mibArg, repArg] = process.argv.slice(2);
const MiB = Number(mibArg || 64);
const repeats = Number(repArg || 3);
const { create, globals } = await import(new URL(`file://${dir.replace(/\/$/, "")}/index.js`).href);
Object.assign(globalThis, globals);
const flags = (process.env.WEBARRAY_DAWN_FLAGS || "").split(",").filter(Boolean);
const gpu = create(flags);
const adapter = await gpu.requestAdapter({
  powerPreference: "high-performance", ...JSON.parse(process.env.WEBARRAY_DAWN_ADAPTER || "{}"),
});
if (!adapter) {
  console.log("STRESS " + JSON.stringify({ case: kase, error: "no adapter" }));
  process.exit(2);
}
const info = adapter.info;
if (kase === "info") {
  console.log("STRESS " + JSON.stringify({
    case: kase, vendor: info.vendor, architecture: info.architecture, device: info.device,
    description: info.description, features: [...adapter.features].sort(),
    maxBufferSize: adapter.limits.maxBufferSize, maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
  }));
  process.exit(0);
}
const l = adapter.limits;
const device = await adapter.requestDevice({
  requiredLimits: { maxBufferSize: l.maxBufferSize, maxStorageBufferBindingSize: l.maxStorageBufferBindingSize },
});
const n = MiB << 20;
const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

function pattern(bytes, seed) {
  const w = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
  for (let i = 0; i < w.length; i++) w[i] = (i * 2654435761 + seed) >>> 0;
}

async function readBack(buf, seed) {
  const staging = device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const e = device.createCommandEncoder();
  e.copyBufferToBuffer(buf, 0, staging, 0, n);
  device.queue.submit([e.finish()]);
  const t = performance.now();
  await staging.mapAsync(GPUMapMode.READ);
  const ms = performance.now() - t;
  const w = new Uint32Array(staging.getMappedRange());
  let bad = 0;
  for (let i = 0; i < w.length; i++) if (w[i] !== ((i * 2654435761 + seed) >>> 0)) bad++;
  staging.unmap();
  staging.destroy();
  return { bad, mapMs: ms };
}

const rounds = [];
for (let r = 0; r < repeats; r++) {
  const t0 = performance.now();
  let buf;
  if (kase === "mapped") {
    buf = device.createBuffer({ size: n, usage, mappedAtCreation: true });
    pattern(new Uint8Array(buf.getMappedRange()), r);
    buf.unmap();
  } else {
    buf = device.createBuffer({ size: n, usage });
    const src = kase === "write-shared" ? new Uint8Array(new SharedArrayBuffer(n))
      : kase === "write-shared-view" ? new Uint8Array(new SharedArrayBuffer(n + 256), 256, n)
      : new Uint8Array(n);
    pattern(src, r);
    if (kase === "write-pieces") {
      for (let o = 0; o < n; o += 1 << 20) device.queue.writeBuffer(buf, o, src.subarray(o, Math.min(n, o + (1 << 20))));
    } else device.queue.writeBuffer(buf, 0, src);
  }
  const upMs = performance.now() - t0;
  const { bad, mapMs } = await readBack(buf, r);
  buf.destroy();
  rounds.push({ upload_ms: upMs, map_ms: mapMs, wrong_words: bad });
}
console.log("STRESS " + JSON.stringify({ case: kase, MiB, repeats, rounds, ok: rounds.every((x) => x.wrong_words === 0) }));
device.destroy();
process.exit(0);
