"""DLPack interchange. A webarray array lives in GPU memory that no other library can
address, so export always hands out a host copy: consumers that ask for the CPU device
(``numpy.from_dlpack(x)`` does) get one; a request for zero-copy raises BufferError as the
standard says. Import reads any CPU DLPack producer."""

from __future__ import annotations

import ctypes

from . import _dtypes as dt

_KDL_CPU = 1
_KDL_WEBGPU = 15
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [
    ("dl_tensor", _DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _Deleter),
]

_alive: dict[int, tuple] = {}  # address of a DLManagedTensor -> what must outlive it


@_Deleter
def _delete(ptr):
    _alive.pop(ctypes.addressof(ptr.contents), None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # An unconsumed capsule still owns its tensor; a consumed one was renamed.
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype = ctypes.c_int
    is_valid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    if is_valid(capsule, b"dltensor"):
        ptr = ctypes.pythonapi.PyCapsule_GetPointer
        ptr.restype = ctypes.c_void_p
        ptr.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _alive.pop(ptr(capsule, b"dltensor"), None)


def export(x, *, stream=None, max_version=None, dl_device=None, copy=None):
    if stream is not None:
        raise BufferError("webarray has no streams; pass stream=None")
    if dl_device is None or tuple(dl_device) != (_KDL_CPU, 0):
        raise BufferError(
            "webarray arrays live in GPU memory that other libraries cannot address; ask "
            "for a host copy with dl_device=(1, 0) (numpy.from_dlpack does)"
        )
    if copy is False:
        raise BufferError("a host view of a webarray array needs a copy; copy=False is impossible")
    if x.dtype.kind == "b":
        data = bytes(1 if v else 0 for v in x._host_flat())
    else:
        words = x._words()
        width = x.dtype.bits // 8
        if width == 4:
            data = words.tobytes()
        else:
            fmt = {("i", 1): "b", ("i", 2): "h", ("u", 1): "B", ("u", 2): "H"}[x.dtype.kind, width]
            import array

            data = array.array(fmt, words.tolist()).tobytes()
    buf = ctypes.create_string_buffer(data, max(len(data), 1))
    shape = (ctypes.c_int64 * max(x.ndim, 1))(*x.shape)
    mt = _DLManagedTensor()
    mt.dl_tensor.data = ctypes.cast(buf, ctypes.c_void_p)
    mt.dl_tensor.device = _DLDevice(_KDL_CPU, 0)
    mt.dl_tensor.ndim = x.ndim
    mt.dl_tensor.dtype = _DLDataType(_CODES[x.dtype.kind], x.dtype.bits, 1)
    mt.dl_tensor.shape = shape
    mt.dl_tensor.strides = None
    mt.dl_tensor.byte_offset = 0
    mt.deleter = _delete
    addr = ctypes.addressof(mt)
    _alive[addr] = (mt, buf, shape)
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor]
    return new(addr, b"dltensor", _capsule_destructor)


def import_dlpack(obj, *, device=None, copy=None):
    from ._array_object import Array
    from ._creation import asarray

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
