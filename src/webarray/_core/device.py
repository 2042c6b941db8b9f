"""Devices (core layer), and the choice of the default one.

A Device pairs an executor (layer 4) with its buffer pool and its cache of compiled
kernels. Which executor backs the default device: the browser's when running under
Pyodide, else the native wgpu one. ``WEBARRAY_DEVICE`` (``native``, ``webgpu``,
``webgl2``) overrides the choice.
"""

from __future__ import annotations

import os
import sys

from .. import _dtypes as dt
from ..executors.guard import LOCK
from ..executors.pool import BufferPool
from ..executors.protocol import KernelError
from ..kernels import wgsl_f64_hw
from ..kernels.shader.types import (INLINE_LIMIT, INLINE_LIMIT_WEBGL2, compile_refusal,
                                     workgroup_bytes)
from . import launch, lease

# dtypes each backend stores exactly today; the info API and every dtype check read this
_NARROW = (dt.bool, dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32, dt.float32)
# Stored as word pairs (storage.py). WEBARRAY_WIDE_DTYPES=0 (or Device(...,
# wide_dtypes=False)) leaves them out, e.g. to compare with the one-word world.
_WIDE = (dt.int64, dt.uint64, dt.complex64)
# float64 as binary64 on word pairs (kernels/wgsl_f64.py), on every device and backend: the
# whole namespace runs in it. complex128 is two such float64 parts (kernels/wgsl_complex128.py).
# WEBARRAY_FLOAT64=0 (or Device(..., float64=False)) leaves both out, for a device that
# should never compile a float64 kernel (SwiftShader takes minutes for an elementary one).
_F64 = (dt.float64, dt.complex128)
# Which arithmetic float64 kernels use: the software lane everywhere, or the device's own
# 64-bit floats where the executor offers them to shaders (kernels/wgsl_f64_hw.py) and a
# probe finds them correctly rounded. WEBARRAY_FLOAT64_LANE (or Device(..., float64_lane=))
# is auto (the default), software, or hardware (an error where the device cannot).
_LANES = ("auto", "software", "hardware")


def _default_float() -> dt.DType:
    """The default real floating dtype: float32, or float64 with WEBARRAY_DEFAULT_FLOAT=float64
    (which also makes devices offer float64), as SciPy and scikit-learn expect of NumPy-like
    libraries."""
    name = os.environ.get("WEBARRAY_DEFAULT_FLOAT", "float32")
    if name not in ("float32", "float64"):
        raise ValueError(f"WEBARRAY_DEFAULT_FLOAT must be float32 or float64, got {name!r}")
    return getattr(dt, name)


DEFAULT_FLOAT = _default_float()


def _default_int() -> dt.DType:
    """The default integer dtype (of Python ints, ``arange``, and the accumulator of sums and
    products of narrower integers): int32, or int64 with WEBARRAY_DEFAULT_INT=int64, as
    NumPy's on 64-bit platforms (scikit-learn takes ``xp.asarray(0).dtype`` for its
    index dtype). The index dtype follows it (INDEX)."""
    name = os.environ.get("WEBARRAY_DEFAULT_INT", "int32")
    if name not in ("int32", "int64"):
        raise ValueError(f"WEBARRAY_DEFAULT_INT must be int32 or int64, got {name!r}")
    return getattr(dt, name)


DEFAULT_INT = _default_int()
# the default index dtype (argmax, argmin, argsort, nonzero, searchsorted, count_nonzero and
# the unique functions' indices and counts): int32, what the kernels count in, or int64 with
# WEBARRAY_DEFAULT_INT=int64, as NumPy's intp (the int32 results are cast at the end)
INDEX = dt.int64 if DEFAULT_INT is dt.int64 else dt.int32
_SUPPORTED = {"native": _NARROW + _WIDE + _F64, "webgpu": _NARROW + _WIDE + _F64,
              "webgl2": _NARROW + _WIDE + _F64}


def _registry(backend: str):
    """The kernel registry for a backend's shader language: a package whose modules
    ``elementwise``, ``reduction``, ``scan``, ``sort``, ``matmul``, ``linalg``,
    ``linalg_steps``, ``fft`` and ``raw`` are the generators every launch site reaches
    through ``Device.kernels``."""
    # imported on first use: a page on one backend never loads the other's generators
    if backend == "webgl2":
        from ..kernels import webgl2

        return webgl2
    from ..kernels import webgpu  # (imported on first use, as above)
    from ..kernels.webgpu import (elementwise, fft, linalg, linalg_steps, matmul,  # noqa: F401
                                  raw, reduction, scan, sort)

    return webgpu


class Device:
    """A GPU device that arrays live on. Compare devices with ``==``."""

    def __init__(self, executor, wide_dtypes: bool | None = None, float64: bool | None = None,
                 float64_lane: str | None = None):
        self.executor = executor
        self.backend = executor.backend
        self.pool = BufferPool(executor)
        if wide_dtypes is None:
            wide_dtypes = os.environ.get("WEBARRAY_WIDE_DTYPES") != "0"
        if float64 is None:
            float64 = os.environ.get("WEBARRAY_FLOAT64") != "0" or DEFAULT_FLOAT is dt.float64
        self.dtypes = tuple(d for d in _SUPPORTED[executor.backend]
                            if (wide_dtypes or d not in _WIDE) and (float64 or d not in _F64))
        self._kernels: dict = {}
        self.kernels = _registry(self.backend)
        lane = float64_lane or os.environ.get("WEBARRAY_FLOAT64_LANE") or "auto"
        if lane not in _LANES:
            raise ValueError(f"the float64 lane must be one of {', '.join(_LANES)}, got {lane!r}")
        self._f64_wanted = lane
        # "software" or ("hardware", fma variant), chosen at the first float64 kernel
        self._f64_lane = "software" if lane == "software" else None
        self.float64_lane_note = "software binary64 (asked for)" if lane == "software" else None
        # launches by signature: what their kernels and uniforms need (elementwise: launch.py;
        # reductions and fft passes through ``keep_plan``)
        self.plans: dict = {}
        self.grids: dict = {}  # an elementwise launch's grid by (elements, vec4): launch.py
        # a CPU adapter (lavapipe, SwiftShader): plans that keep a GPU busy (split K, radix
        # sort from short rows, registers over memory) lose there
        self.on_cpu = "CPU" in executor.adapter_info.get("adapter_type", "").upper()
        # the WGSL compiler behind the executor ("naga", "tint", ...): kernel shapes that
        # one compiler runs faster than another are picked by it (the float32 matmul's)
        self.wgsl_compiler = getattr(executor, "wgsl_compiler", "unknown")
        # large float64 functions in two or more kernels each (ops.STAGED, launch.py): in a
        # browser, whose SwiftShader does not run their shaders whole (WebGL2: it writes zeros
        # or loses the context; WebGPU: the GPU process crashes); natively one kernel, the
        # same values
        self.staged = executor.backend in ("webgl2", "webgpu")
        # the largest kernel (WGSL characters with every call inlined) sent to a browser's
        # WebGPU on SwiftShader: larger ones crashed its GPU process, which loses the device
        # (docs/float64.md); refused before compiling instead. None: no limit
        # WebGL2 (any adapter: the context does not say which): larger ones lost the context
        # or wrote zeros
        self.inline_limit = (_inline_limit(INLINE_LIMIT) if executor.backend == "webgpu" and self.on_cpu
                             else _inline_limit(INLINE_LIMIT_WEBGL2) if executor.backend == "webgl2"
                             else None)
        # launches binding a larger buffer run in pieces (launch.py)
        self._piece_bytes = launch.piece_bytes(executor)

    def __repr__(self) -> str:
        info = self.executor.adapter_info
        lost = " (lost)" if self.lost else ""
        return f"Device({self.backend!r}, {info.get('device', '')!r}){lost}"

    @property
    def lost(self) -> str | None:
        """Why the GPU device is gone (arrays on it raise DeviceLost), or None."""
        ex = self.executor
        return getattr(ex, "lost", None) or getattr(ex, "_lost", None)

    def kernel(self, key, make_source) -> int:
        """The compiled kernel for a generator key, generating and compiling it once."""
        kid = self._kernels.get(key)
        if kid is None:
            source = make_source()
            if self._f64_lane != "software" and wgsl_f64_hw.uses(source):
                lane = self._f64_lane or self._choose_f64_lane()
                if lane != "software":
                    source = wgsl_f64_hw.lower(source, lane[1])
            limit = self.executor.max_workgroup_storage
            shared = workgroup_bytes(source) if limit else 0
            if shared > limit:
                # (wgpu-native does not check this limit; a browser refuses the kernel)
                raise KernelError(
                    f"kernel {key!r} declares {shared} bytes of workgroup memory, more than "
                    f"the {limit} that this device (and a browser) offers"
                )
            if self.inline_limit:
                refusal = compile_refusal(source, self.backend, self.inline_limit, repr(self))
                if refusal:
                    raise NotImplementedError(refusal)
            kid = self.executor.compile(source)
            self._kernels[key] = kid
        return kid

    @property
    def float64_lane(self) -> str:
        """``hardware`` or ``software``: the arithmetic this device's float64 kernels use
        (chosen, and probed, at the first float64 kernel)."""
        lane = self._f64_lane or self._choose_f64_lane()
        return lane if lane == "software" else "hardware"

    @property
    def float64_fma_fused(self) -> bool:
        """Whether float64 kernels run on the hardware lane with the device's own fused
        multiply-add (not an emulation), so that long chains of them may be written out."""
        return (self._f64_lane or self._choose_f64_lane()) == ("hardware", "fused")

    def _choose_f64_lane(self):
        """The hardware lane where the executor offers 64-bit floats to shaders and the
        probe finds them correctly rounded (with its fma fused or emulated), else software."""
        with LOCK:
            if self._f64_lane is not None:
                return self._f64_lane
            lane, why = "software", "this device has no 64-bit floats in shaders"
            if getattr(self.executor, "shader_f64", False):
                variant, why = self._probe_f64()
                if variant is not None:
                    lane, why = ("hardware", variant), f"the device's 64-bit floats ({variant} fma)"
            if lane == "software" and self._f64_wanted == "hardware":
                raise RuntimeError(f"the hardware float64 lane is not available on {self!r}: {why}")
            self._f64_lane = lane
            self.float64_lane_note = why if lane != "software" else f"software binary64 ({why})"
            return lane

    def _probe_f64(self):
        """Run kernels/wgsl_f64_hw.py's probe: (fma variant or None, why not)."""
        ex = getattr(self.executor, "unwatched", self.executor)  # also while jit records
        cases = wgsl_f64_hw.probe_cases()
        data = wgsl_f64_hw.probe_data(cases)
        try:
            kid = ex.compile(wgsl_f64_hw.lower(wgsl_f64_hw.PROBE_SOURCE, "fused"))
        except Exception as e:  # noqa: BLE001 - any failure means: keep the software lane
            return None, f"the probe kernel did not compile ({str(e).splitlines()[0]})"
        h = ex.alloc(len(data))
        try:
            ex.write(h, 0, data)
            ex.dispatch(kid, [h], len(cases).to_bytes(4, "little"), (-(-len(cases) // 64), 1, 1))
            out = ex.read(h, 0, len(data))
        finally:
            ex.free(h)
        return wgsl_f64_hw.probe_verdict(cases, out)

    def keep_plan(self, sig, plan) -> None:
        """Keep the plan of a launch signature, while fewer than MAX_PLANS are kept."""
        if len(self.plans) < MAX_PLANS:
            self.plans[sig] = plan

    def launch(self, key, make_source, buffers, uniforms: bytes, grid) -> None:
        """Enqueue the kernel of a generator key over Buffer objects (bindings 1..n)."""
        if lease.LEASES:
            lease.settle(buffers=buffers)
        limit = self._piece_bytes
        for b in buffers:
            if b.nbytes > limit:
                launch.pieces(self, key, make_source, buffers, uniforms, grid)
                return
        if launch.recording is not None:
            launch.recording.hold(buffers)
        kid = self._kernels.get(key)
        if kid is None:
            kid = self.kernel(key, make_source)
        self.executor.dispatch(kid, [b.handle for b in buffers], uniforms, grid)

    def check_dtype(self, dtype: dt.DType) -> None:
        if dtype not in self.dtypes:
            names = ", ".join(d.name for d in self.dtypes)
            why = ""
            if dtype in _F64:
                why = " (float64 and complex128 are off: WEBARRAY_FLOAT64=0 or Device(..., float64=False))"
            elif dtype in _WIDE:
                why = " (64-bit and complex dtypes are off: WEBARRAY_WIDE_DTYPES=0)"
            raise TypeError(
                f"{dtype.name} is not supported on {self!r}{why}; this device supports {names}"
            )

    def synchronize(self) -> None:
        """Wait until every queued kernel has finished."""
        self.executor.flush()
        h = self.pool.acquire(4)
        self.executor.read(h.handle, 0, 4)


MAX_PLANS = 1 << 14  # signatures a device keeps plans for (Device.keep_plan)

_default: Device | None = None


def _make_executor(kind: str):
    # imported on first use: the native executor needs wgpu, the browser one Pyodide's js
    if kind == "native":
        from ..executors.native import NativeExecutor

        return NativeExecutor()
    if kind in ("webgpu", "webgl2"):
        from ..executors.browser import BrowserExecutor  # type: ignore[import-not-found]

        return BrowserExecutor(kind)
    raise ValueError(f"unknown device kind {kind!r}; expected 'native', 'webgpu' or 'webgl2'")


def default_device() -> Device:
    """The device new arrays go to; a fresh one replaces a device that was lost (made
    once, also when several threads ask at the same time)."""
    global _default
    device = _default
    if device is None or device.lost:
        with LOCK:
            if _default is None or _default.lost:
                kind = os.environ.get("WEBARRAY_DEVICE")
                if kind is None:
                    kind = "webgpu" if sys.platform == "emscripten" else "native"
                _default = Device(_make_executor(kind))
            device = _default
    return device


def all_devices() -> tuple[Device, ...]:
    return (default_device(),)


def resolve(device) -> Device:
    """The Device for a ``device=`` argument (None means the default)."""
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    if device == "cpu":
        raise ValueError(
            "webarray arrays live on a GPU device; 'cpu' is not one of its devices "
            f"(available: {all_devices()})"
        )
    raise ValueError(f"{device!r} is not a webarray device; available: {all_devices()}")


def _inline_limit(default: int) -> int | None:
    given = os.environ.get("WEBARRAY_INLINE_LIMIT")
    if given is None:
        return default
    try:
        value = int(given)
    except ValueError:
        raise ValueError(f"WEBARRAY_INLINE_LIMIT must be an integer (0: no limit), got {given!r}") from None
    return value or None
