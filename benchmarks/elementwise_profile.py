"""Where elementwise time goes on the native path: a diagnostic, not a headline benchmark.

    python -m benchmarks.elementwise_profile [--sizes 24,26] [--quick]

1. Kernel variants of ``c = a + b`` (float32, contiguous, vec4) timed on the GPU alone:
   many dispatches recorded in one compute pass, as the executor records them, timed with
   the pass's timestamp queries (and the wall clock around submit and wait). Variants: the
   generator at several workgroup sizes and vec4 words per thread; the same kernel with its
   uniform words in a ``var<uniform>`` buffer; with naga's bounds checks off (a trusted
   module); a minimal hand-written kernel; and ``copy_buffer_to_buffer`` as the ceiling of
   the WebGPU path.
2. The same add through webarray, split into host time (issuing the ops), the submit
   (``flush``) and the wait for the GPU.
3. With CuPy: the same add as an ElementwiseKernel and a device-to-device copy, timed with
   CUDA events, as the references.

Prints tables; writes ``benchmarks/results/elementwise-profile-<gpu>.json``.
"""

from __future__ import annotations

import argparse
import array
import re
import sys
import time

import numpy as np

from . import _common as c


def _wgpu_device():
    import wgpu

    adapter = wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    limits = adapter.limits
    wanted = {k: limits[k] for k in ("max-buffer-size", "max-storage-buffer-binding-size",
                                     "max-compute-invocations-per-workgroup",
                                     "max-compute-workgroup-size-x")}
    features = [f for f in ("timestamp-query",) if f in adapter.features]
    device = adapter.request_device_sync(required_features=features, required_limits=wanted)
    return wgpu, adapter, device, bool(features)


def _trusted_module(device, code: str):
    """A shader module compiled without naga's runtime bounds checks (wgpu-native only)."""
    from wgpu.backends.wgpu_native import _api

    ffi, lib = _api.ffi, _api.lib
    src = _api.new_struct_p("WGPUShaderSourceWGSL *", code=_api.to_c_string_view(code))
    src[0].chain.next = ffi.NULL
    src[0].chain.sType = lib.WGPUSType_ShaderSourceWGSL
    desc = _api.new_struct_p("WGPUShaderModuleDescriptor *",
                             nextInChain=ffi.cast("WGPUChainedStruct *", src),
                             label=_api.to_c_string_view("trusted"))
    mid = lib.wgpuDeviceCreateShaderModuleTrusted(device._internal, desc,
                                                  lib.WGPUShaderRuntimeChecks_None)
    if mid == ffi.NULL:
        raise RuntimeError("trusted shader module creation failed")
    return _api.GPUShaderModule("trusted", mid, device)


def _add_spec(vec4: bool = True):
    from webarray import _dtypes as dt
    from webarray.kernels.expr import Apply, Input
    from webarray.kernels.specs import elementwise as ew

    f32 = dt.float32
    node = Apply("add", (Input(0, f32), Input(1, f32)), f32, f32)
    return ew.ElementwiseSpec(
        inputs=((f32, ew.Operand(1, False)), (f32, ew.Operand(2, False))), scalars=(),
        outputs=((node, ew.Operand(3, False)),), writable=(False, False, True), ndim=1,
        vec4=vec4)


def _generated(n: int, wg: int, per: int, max_dim: int):
    """(source, grid, uniform bytes) of the generator's add kernel at these settings."""
    from webarray.kernels.specs import elementwise as knobs
    from webarray.kernels.webgpu import elementwise as ew

    old = knobs.WORKGROUP, knobs.VEC4_PER_THREAD
    knobs.WORKGROUP, knobs.VEC4_PER_THREAD = wg, per
    try:
        spec = _add_spec()
        src = ew.generate(spec)
        grid = ew.grid_for(n, True, max_dim)
        uni = ew.pack_uniforms(spec, n, (n,), [(0, (1,)), (0, (1,))], [(0, (1,))], [])
    finally:
        knobs.WORKGROUP, knobs.VEC4_PER_THREAD = old
    return src, grid, uni


def _as_uniform(src: str) -> str:
    """The same kernel reading its words from a var<uniform> block instead of storage."""
    src = src.replace("@group(0) @binding(0) var<storage, read> U: array<u32>;",
                      "@group(0) @binding(0) var<uniform> U: array<vec4<u32>, 16>;")
    return re.sub(r"U\[(\d+)\]", lambda m: f"U[{int(m.group(1)) // 4}][{int(m.group(1)) % 4}]",
                  src)


_MINIMAL = """
@group(0) @binding(0) var<storage, read> U: array<u32>;
@group(0) @binding(1) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> C: array<vec4<f32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i < U[0]) { C[i] = A[i] + B[i]; }
}
"""


class KernelBench:
    """Buffers of one size on a raw wgpu device, and a timer for kernel variants."""

    def __init__(self, wgpu, device, timestamps: bool, n: int):
        self.wgpu, self.device, self.timestamps, self.n = wgpu, device, timestamps, n
        rng = np.random.default_rng(n)
        self.a = rng.random(n, dtype=np.float32)
        self.b = rng.random(n, dtype=np.float32)
        usage = wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST
        self.A = device.create_buffer_with_data(data=self.a, usage=usage)
        self.B = device.create_buffer_with_data(data=self.b, usage=usage)
        self.C = [device.create_buffer(size=4 * n, usage=usage) for _ in range(2)]
        self.U = device.create_buffer(size=256, usage=wgpu.BufferUsage.STORAGE
                                      | wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST)
        if timestamps:
            self.qs = device.create_query_set(type=wgpu.QueryType.timestamp, count=2)
            self.qbuf = device.create_buffer(size=16, usage=wgpu.BufferUsage.QUERY_RESOLVE
                                             | wgpu.BufferUsage.COPY_SRC)

    def _wait(self):
        self.device.queue.read_buffer(self.A, 0, 4)  # a blocking read waits for the queue

    def kernel(self, src: str, grid, uniforms: bytes, reps: int, rounds: int,
               trusted: bool = False) -> dict:
        dev = self.device
        module = _trusted_module(dev, src) if trusted else dev.create_shader_module(code=src)
        pipe = dev.create_compute_pipeline(layout="auto",
                                           compute={"module": module, "entry_point": "main"})
        layout = pipe.get_bind_group_layout(0)
        dev.queue.write_buffer(self.U, 0, uniforms + b"\0" * (256 - len(uniforms)))
        groups = [dev.create_bind_group(layout=layout, entries=[
            {"binding": 0, "resource": {"buffer": self.U, "offset": 0, "size": 256}},
            {"binding": 1, "resource": {"buffer": self.A}},
            {"binding": 2, "resource": {"buffer": self.B}},
            {"binding": 3, "resource": {"buffer": cb}}]) for cb in self.C]

        def once(count):
            enc = dev.create_command_encoder()
            kw = {}
            if self.timestamps:
                kw["timestamp_writes"] = {"query_set": self.qs,
                                          "beginning_of_pass_write_index": 0,
                                          "end_of_pass_write_index": 1}
            cp = enc.begin_compute_pass(**kw)
            cp.set_pipeline(pipe)
            for r in range(count):
                cp.set_bind_group(0, groups[r % 2])
                cp.dispatch_workgroups(*grid)
            cp.end()
            if self.timestamps:
                enc.resolve_query_set(self.qs, 0, 2, self.qbuf, 0)
            t0 = time.perf_counter()
            dev.queue.submit([enc.finish()])
            self._wait()
            wall = time.perf_counter() - t0
            gpu = None
            if self.timestamps:
                t = np.frombuffer(dev.queue.read_buffer(self.qbuf, 0, 16), dtype=np.uint64)
                gpu = float(t[1] - t[0]) * 1e-9  # Vulkan on NVIDIA and lavapipe: 1 ns ticks
            return wall, gpu

        once(2)
        walls, gpus = [], []
        for _ in range(rounds):
            w, g = once(reps)
            walls.append(w / reps)
            if g is not None:
                gpus.append(g / reps)
        got = np.frombuffer(dev.queue.read_buffer(self.C[(reps - 1) % 2]), dtype=np.float32)
        ok = bool(np.array_equal(got, self.a + self.b))
        t = c.median(gpus) if gpus else c.median(walls)
        return {"seconds": t, "wall_seconds": c.median(walls),
                "gpu_seconds": c.median(gpus) if gpus else None,
                "gbps": 12 * self.n / t / 1e9, "correct": ok, "grid": list(grid)}

    def copy(self, reps: int, rounds: int) -> dict:
        dev = self.device
        walls = []
        for i in range(rounds + 1):
            enc = dev.create_command_encoder()
            for r in range(reps):
                enc.copy_buffer_to_buffer(self.A, 0, self.C[r % 2], 0, 4 * self.n)
            t0 = time.perf_counter()
            dev.queue.submit([enc.finish()])
            self._wait()
            if i:
                walls.append((time.perf_counter() - t0) / reps)
        t = c.median(walls)
        return {"seconds": t, "gbps": 8 * self.n / t / 1e9}


def kernel_variants(sizes, quick, log) -> list[dict]:
    wgpu, adapter, device, ts = _wgpu_device()
    log(f"adapter: {adapter.info.get('device')} ({adapter.info.get('backend_type')}); "
        f"timestamp queries: {ts}")
    max_dim = int(adapter.limits["max-compute-workgroups-per-dimension"])
    rows = []
    rounds = 3 if quick else 5
    cpu = adapter.info.get("adapter_type", "").upper() == "CPU"
    for n in sizes:
        kb = KernelBench(wgpu, device, ts, n)
        bytes_per = 12 * n
        # about 30 ms of GPU work per round at 2.5 TB/s (fewer on a CPU adapter)
        reps = 4 if cpu else max(8, min(400, int(0.03 * 2.5e12 / bytes_per)))
        wgs = (64, 128, 256, 512) if not quick else (128, 256)
        pers = (1, 2, 4, 8) if not quick else (1, 4)

        def run(label, src, grid, uni, trusted=False, **info):
            try:
                r = kb.kernel(src, grid, uni, reps, rounds, trusted=trusted)
            except Exception as e:  # a variant the device refuses is reported, not fatal
                log(f"  {label}: failed: {type(e).__name__}: {e}")
                return
            r.update(variant=label, n=n, reps=reps, **info)
            rows.append(r)
            log(f"  {c.size_label(n):>5s} {label:34s} {r['gbps']:8.1f} GB/s  "
                f"gpu {1e6 * (r['gpu_seconds'] or 0):8.1f} us  wall {1e6 * r['wall_seconds']:8.1f} us"
                f"  grid {tuple(grid)}{'' if r['correct'] else '  WRONG'}")

        for wg in wgs:
            for per in pers:
                src, grid, uni = _generated(n, wg, per, max_dim)
                run(f"generated wg={wg} per={per}", src, grid, uni, wg=wg, per=per)
        src, grid, uni = _generated(n, 256, 1, max_dim)
        run("generated wg=256 per=1 var<uniform>", _as_uniform(src), grid, uni,
            wg=256, per=1, uniform=True)
        run("generated wg=256 per=1 unchecked", src, grid, uni, trusted=True,
            wg=256, per=1, unchecked=True)
        src4, grid4, uni4 = _generated(n, 256, 4, max_dim)
        run("generated wg=256 per=4 unchecked", src4, grid4, uni4, trusted=True,
            wg=256, per=4, unchecked=True)
        run("generated wg=256 per=4 var<uniform>", _as_uniform(src4), grid4, uni4,
            wg=256, per=4, uniform=True)
        mgroups = -(-(n // 4) // 256)
        mgrid = (min(mgroups, max_dim), -(-mgroups // min(mgroups, max_dim)), 1)
        run("minimal hand-written", _MINIMAL, mgrid,
            array.array("I", [n // 4]).tobytes(), minimal=True)
        cp = kb.copy(reps, rounds)
        cp.update(variant="copy_buffer_to_buffer", n=n, reps=reps)
        rows.append(cp)
        log(f"  {c.size_label(n):>5s} {'copy_buffer_to_buffer (wall)':34s} {cp['gbps']:8.1f} GB/s")
        del kb
    device.destroy()
    return rows


def webarray_split(sizes, quick, log) -> list[dict]:
    """Per add: host time issuing, submit (flush), wait; and the whole. Repeated for several
    values of the executor's submit threshold (bytes bound by recorded dispatches)."""
    import webarray as xp
    from webarray.executors import native

    xp.fusion.set_enabled(False)  # this profiles the eager path: one kernel per add
    dev = xp.__array_namespace_info__().default_device()
    ex = dev.executor
    rows = []
    cpu = ex.adapter_info.get("adapter_type", "").upper() == "CPU"
    default = getattr(native, "_SUBMIT_BYTES", None)
    thresholds = [default] if default is None else [1 << 62, 1 << 30, 1 << 31, 1 << 32]
    for n in sizes:
        rng = np.random.default_rng(1)
        a = xp.asarray(rng.random(n, dtype=np.float32))
        b = xp.asarray(rng.random(n, dtype=np.float32))
        count = 4 if cpu else max(8, min(400, int(0.03 * 2.5e12 / (12 * n))))
        for th in thresholds:
            if th is not None:
                native._SUBMIT_BYTES = th
            r = a + b
            dev.synchronize()
            issue, flush, wait, total = [], [], [], []
            for _ in range(3 if quick else 7):
                dev.synchronize()
                t0 = time.perf_counter()
                for _ in range(count):
                    r = a + b
                t1 = time.perf_counter()
                ex.flush()
                t2 = time.perf_counter()
                dev.synchronize()
                t3 = time.perf_counter()
                issue.append((t1 - t0) / count)
                flush.append((t2 - t1) / count)
                wait.append((t3 - t2) / count)
                total.append((t3 - t0) / count)
            del r
            row = {"n": n, "count": count, "submit_bytes": th,
                   "issue_us": 1e6 * c.median(issue), "flush_us": 1e6 * c.median(flush),
                   "wait_us": 1e6 * c.median(wait), "total_us": 1e6 * c.median(total),
                   "gbps": 12 * n / c.median(total) / 1e9}
            rows.append(row)
            log(f"  webarray add {c.size_label(n):>5s} x{count} submit at {th}: issue "
                f"{row['issue_us']:.1f} us/op, flush {row['flush_us']:.1f}, wait "
                f"{row['wait_us']:.1f}, total {row['total_us']:.1f} ({row['gbps']:.0f} GB/s)")
    if default is not None:
        native._SUBMIT_BYTES = default
    return rows


def cuda_refs(sizes, quick, log) -> list[dict]:
    try:
        import cupy
    except ImportError:
        return []
    if cupy.cuda.runtime.getDeviceCount() < 1:
        return []
    add = cupy.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b", "prof_add")
    rows = []
    for n in sizes:
        a = cupy.random.random(n, dtype=cupy.float32)
        b = cupy.random.random(n, dtype=cupy.float32)
        out = [cupy.empty_like(a), cupy.empty_like(a)]
        reps = max(8, min(400, int(0.03 * 2.5e12 / (12 * n))))
        for label, nbytes, fn in (
            ("cupy ElementwiseKernel add (new output)", 12 * n, lambda i: add(a, b)),
            ("cupy ElementwiseKernel add (out=)", 12 * n, lambda i: add(a, b, out[i % 2])),
            ("cupy copy (cupyx copyto)", 8 * n, lambda i: cupy.copyto(out[i % 2], a)),
        ):
            fn(0)
            cupy.cuda.Device().synchronize()
            times = []
            for _ in range(3 if quick else 5):
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                for i in range(reps):
                    fn(i)
                e1.record()
                e1.synchronize()
                times.append(cupy.cuda.get_elapsed_time(e0, e1) * 1e-3 / reps)
            t = c.median(times)
            rows.append({"variant": label, "n": n, "seconds": t, "gbps": nbytes / t / 1e9})
            log(f"  {c.size_label(n):>5s} {label:40s} {nbytes / t / 1e9:8.1f} GB/s")
    return rows


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.elementwise_profile",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", type=c.parse_sizes, default=None,
                   help="default 24,26 (18,20 on a CPU-only adapter)")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--skip", default="", help="comma-separated parts to skip: kernels, webarray, cuda")
    p.add_argument("--out")
    args = p.parse_args(argv)
    skip = set(args.skip.split(","))

    def log(msg):
        print(msg, flush=True)

    backends, skipped = c.load_backends(["webarray", "cupy"])
    sizes = args.sizes
    if sizes is None:
        info = backends[0].xp.__array_namespace_info__().default_device().executor.adapter_info
        sizes = [1 << 18, 1 << 20] if info.get("adapter_type", "").upper() == "CPU" \
            else [1 << 24, 1 << 26]
    body = {}
    if "cuda" not in skip:
        log("CUDA references (events):")
        body["cuda"] = cuda_refs(sizes, args.quick, log)
    if "kernels" not in skip:
        log("kernel variants, GPU time per dispatch (pass timestamps):")
        body["kernels"] = kernel_variants(sizes, args.quick, log)
    if "webarray" not in skip:
        log("webarray add, host and GPU split:")
        body["webarray"] = webarray_split(sizes, args.quick, log)
    rec = c.record("elementwise-profile", backends, skipped, **body)
    path = c.write_json(rec, args.out)
    log(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
