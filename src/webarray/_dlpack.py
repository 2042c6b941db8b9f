"""DLPack interchange. A webarray array lives in GPU memory that no other library can
address, so export always hands out a host copy: consumers that ask for the CPU device, or
for no device in particular (``numpy.from_dlpack(x)``), get one; a request for another
device or for zero-copy raises BufferError as the standard says. Import reads any CPU
DLPack producer.

Writes into that copy never reach the array, so unless the consumer asked for a copy
(``copy=True``) a versioned capsule is flagged read-only, and NumPy's result refuses
writes instead of losing them, as ``np.asarray(x)`` does (``Array.__array__``). A legacy
capsule (``max_version`` None or older than 1.0) has no flags to say so (NumPy makes its
array read-only all the same).
"""

from __future__ import annotations

import array
import functools

from ._core import tensor as _tensor
from ._array_object import Array

KDL_CPU = 1
KDL_WEBGPU = 15  # DLPack's device type for WebGPU
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_FLAG_READ_ONLY = 1 << 0
_FLAG_IS_COPIED = 1 << 1
_VERSION = (1, 0)  # the newest DLPack version whose layout and dtype codes this exports

# address of an exported managed tensor -> the ctypes objects that must outlive it
_alive: dict[int, tuple] = {}


@functools.cache
def _capi():
    """The DLPack structs and the capsule functions, built on first export only, so that
    importing webarray (and from_dlpack) needs no ctypes callbacks, which some Python
    builds (WebAssembly ones) may lack."""
    import ctypes
    from types import SimpleNamespace

    class DLDevice(ctypes.Structure):
        _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

    class DLDataType(ctypes.Structure):
        _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                    ("lanes", ctypes.c_uint16)]

    class DLTensor(ctypes.Structure):
        _fields_ = [
            ("data", ctypes.c_void_p),
            ("device", DLDevice),
            ("ndim", ctypes.c_int32),
            ("dtype", DLDataType),
            ("shape", ctypes.POINTER(ctypes.c_int64)),
            ("strides", ctypes.POINTER(ctypes.c_int64)),
            ("byte_offset", ctypes.c_uint64),
        ]

    class DLPackVersion(ctypes.Structure):
        _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]

    # Both deleters take a pointer to their own struct; as a plain address one callback
    # serves both layouts.
    deleter_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

    class DLManagedTensor(ctypes.Structure):
        _fields_ = [
            ("dl_tensor", DLTensor),
            ("manager_ctx", ctypes.c_void_p),
            ("deleter", deleter_type),
        ]

    class DLManagedTensorVersioned(ctypes.Structure):
        _fields_ = [
            ("version", DLPackVersion),
            ("manager_ctx", ctypes.c_void_p),
            ("deleter", deleter_type),
            ("flags", ctypes.c_uint64),
            ("dl_tensor", DLTensor),
        ]

    @deleter_type
    def delete(address):
        _alive.pop(address, None)

    api = ctypes.pythonapi
    destructor_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    capsule_new = ctypes.PYFUNCTYPE(
        ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, destructor_type
    )(("PyCapsule_New", api))
    is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_IsValid", api)
    )
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", api)
    )
    # capsule names must outlive the capsules
    names = (ctypes.c_char_p(b"dltensor"), ctypes.c_char_p(b"dltensor_versioned"))

    @destructor_type
    def capsule_destructor(capsule):
        # A consumer renames the capsule ("used_...") and calls the deleter itself; a
        # capsule that was never consumed still owns its tensor.
        for name in names:
            if is_valid(capsule, name):
                _alive.pop(get_pointer(capsule, name), None)

    return SimpleNamespace(
        ctypes=ctypes, DLDevice=DLDevice, DLDataType=DLDataType, DLPackVersion=DLPackVersion,
        DLManagedTensor=DLManagedTensor, DLManagedTensorVersioned=DLManagedTensorVersioned,
        delete=delete, capsule_new=capsule_new, capsule_destructor=capsule_destructor,
        names=names,
    )


def _host_bytes(x) -> bytes:
    """x's values in C order, packed at the dtype's own width (bool as one byte)."""
    if x.size == 0:
        return b""
    if x.dtype.kind == "b":
        return bytes(1 if v else 0 for v in x._host_flat())
    raw = x._raw()
    width = x.dtype.bits // 8
    if width in (4, 8, 16):
        return raw  # stored at the dtype's own width already (complex64 as 2 x float32)
    fmt = {("i", 1): "b", ("i", 2): "h", ("u", 1): "B", ("u", 2): "H"}[x.dtype.kind, width]
    return array.array(fmt, memoryview(raw).cast("i" if x.dtype.kind == "i" else "I").tolist()).tobytes()


def export(x, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule holding a host copy of x.

    The copy is made for ``dl_device=None`` too, although the standard asks for x's own
    device there: a WebGPU buffer has no address another library could use, and this is
    what lets ``numpy.from_dlpack(x)`` work. ``max_version`` of (1, 0) or newer gives a
    versioned capsule flagged as a copy, and as read-only unless ``copy`` is True; None or
    older gives the legacy one.
    """
    if stream is not None:
        raise BufferError(f"webarray has no streams; pass stream=None, not {stream!r}")
    if dl_device is not None and tuple(dl_device) != (KDL_CPU, 0):
        raise BufferError(
            f"webarray can export to the CPU device (1, 0) only, not {tuple(dl_device)}: a "
            "WebGPU buffer cannot be addressed by other libraries"
        )
    if copy is False:
        raise BufferError(
            "webarray arrays live in GPU memory; a host view needs a copy, so copy=False "
            "is impossible"
        )
    c = _capi()
    ctypes = c.ctypes
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    data = _host_bytes(x)
    buf = ctypes.create_string_buffer(data, max(len(data), 1))
    ndim = x.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*x.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*_tensor.c_strides(x.shape))
    mt = c.DLManagedTensorVersioned() if versioned else c.DLManagedTensor()
    t = mt.dl_tensor
    t.data = ctypes.cast(buf, ctypes.c_void_p)
    t.device = c.DLDevice(KDL_CPU, 0)
    t.ndim = ndim
    t.dtype = c.DLDataType(_CODES[x.dtype.kind], x.dtype.bits, 1)
    t.shape = shape
    t.strides = strides
    t.byte_offset = 0
    mt.deleter = c.delete
    if versioned:
        mt.version = c.DLPackVersion(*_VERSION)
        mt.flags = _FLAG_IS_COPIED | (0 if copy else _FLAG_READ_ONLY)
    address = ctypes.addressof(mt)
    _alive[address] = (mt, buf, shape, strides)
    return c.capsule_new(address, c.names[versioned], c.capsule_destructor)


def import_dlpack(obj, *, device=None, copy=None):
    from ._creation import asarray  # loop: _creation imports _dlpack (from_dlpack)

    if isinstance(obj, Array):
        return asarray(obj, device=device, copy=copy)
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack requires an object with __dlpack__, got {type(obj).__name__}")
    if copy is False:
        raise BufferError("from_dlpack(copy=False): webarray cannot share host memory with the GPU")
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None:
        return asarray(np.from_dlpack(obj), device=device)
    raise BufferError(
        "from_dlpack of a non-webarray object needs NumPy to read the DLPack tensor; "
        "pass a buffer-protocol object to asarray instead"
    )
