"""A trial's checkpoint as bytes: named webarray arrays and a little JSON, without NumPy
(Pyodide here has none), so that a re-queued trial resumes in another browser.

Layout: ``WACKPT1\\n``, the header's length (4 bytes, little-endian), the header (JSON:
``meta`` and, per array, its name, dtype, shape and byte range), then the arrays' bytes in
C order as NumPy lays them out. The bytes come from the CuPy layer's ``tobytes``, the one
place that reads an array back as NumPy's bytes without NumPy.
"""

from __future__ import annotations

import json
import struct
import sys
from typing import Any, Mapping

import webarray as xp
import webarray.cupy as cp

MAGIC = b"WACKPT1\n"

# struct codes of the dtypes a checkpoint holds (complex has no memoryview format)
_FORMATS = {
    "bool": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i",
    "uint32": "I", "int64": "q", "uint64": "Q", "float32": "f", "float64": "d",
}


def dumps(arrays: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> bytes:
    """The bytes of ``arrays`` (name -> webarray array) and ``meta`` (plain JSON)."""
    entries, chunks, offset = [], [], 0
    for name, a in arrays.items():
        if not isinstance(a, xp.Array):
            raise TypeError(f"checkpoint array {name!r} must be a webarray array, got {type(a).__name__}")
        if a.dtype.name not in _FORMATS:
            raise TypeError(f"checkpoint array {name!r} has dtype {a.dtype.name}; a checkpoint "
                            f"holds {', '.join(_FORMATS)}")
        raw = cp.asarray(a).tobytes()
        entries.append({"name": name, "dtype": a.dtype.name, "shape": list(a.shape),
                        "offset": offset, "bytes": len(raw)})
        chunks.append(raw)
        offset += len(raw)
    try:
        header = json.dumps({"meta": dict(meta or {}), "arrays": entries}, allow_nan=False).encode()
    except (TypeError, ValueError) as e:
        raise TypeError(f"checkpoint meta must be plain JSON: {e}") from None
    return b"".join([MAGIC, struct.pack("<I", len(header)), header, *chunks])


def loads(data: bytes, *, device=None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arrays, meta) from the bytes of :func:`dumps`; ValueError if they are not such bytes."""
    if sys.byteorder != "little":
        raise ValueError("checkpoints are little-endian; this machine is not")
    data = bytes(data)
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        raise ValueError("not a webarray checkpoint (wrong magic bytes)")
    (size,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4 + size
    try:
        header = json.loads(data[len(MAGIC) + 4:start])
    except ValueError as e:
        raise ValueError(f"the checkpoint's header is damaged: {e}") from None
    payload = memoryview(data)[start:]
    arrays = {}
    for e in header["arrays"]:
        fmt = _FORMATS.get(e["dtype"])
        n = 1
        for d in e["shape"]:
            n *= d
        if fmt is None or e["offset"] + e["bytes"] > len(payload) or e["bytes"] != n * struct.calcsize(fmt):
            raise ValueError(f"the checkpoint's entry for {e['name']!r} is damaged: {e}")
        flat = payload[e["offset"]:e["offset"] + e["bytes"]].cast(fmt).tolist()
        arrays[e["name"]] = xp.reshape(xp.asarray(flat, dtype=getattr(xp, e["dtype"]), device=device),
                                       tuple(e["shape"]))
    return arrays, header["meta"]
