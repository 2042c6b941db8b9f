"""Matrix products' uniform words and launch shape (tile sides, the deepest K one launch
takes), shared by ``webgpu/matmul.py`` and ``webgl2/matmul.py`` and by
``_core/algorithms/matmul.py``,
which launches them (the words are described in ``webgpu/matmul.py``).
"""

from __future__ import annotations

import array

R = 4  # outputs per thread along each axis
THREADS = 16
TILE = THREADS * R
BK = 16
# the most K one launch takes: the K loop (BK or FAST_BK a step) stays far below the
# 2^15 iterations after which lavapipe silently cuts an invocation short; _core/algorithms/matmul.py
# sums the products of longer K in chunks
MAX_K = 8192 * 8
FAST_TILE = 128  # the float32 kernel's tile side
# c + a * b in the accumulator's lane, as every product kernel computes a term (float64:
# one fused multiply-add, one rounding); other lanes: "{c} + {a} * {b}"
MULADD = {"I": "wa_add64({c}, wa_mul64({a}, {b}))", "U": "wa_add64({c}, wa_mul64({a}, {b}))",
          "D": "wa_f64_fma({a}, {b}, {c})",
          "c": "{c} + vec2<f32>({a}.x * {b}.x - {a}.y * {b}.y, {a}.x * {b}.y + {a}.y * {b}.x)"}


def pack_uniforms(m, n, k, zbase, a_view, b_view, batch_shape, a_batch, b_batch, c_view=None) -> bytes:
    """a_view/b_view: (offset, row stride, column stride); *_batch: strides per batch dim;
    c_view: an update's (offset, row stride, matrix stride) of C, after the batch words."""
    words = [m, n, k, zbase, *a_view, *b_view]
    for size, sa, sb in zip(batch_shape, a_batch, b_batch):
        words += [size, sa, sb]
    words += c_view or ()
    return array.array("I", [v & 0xFFFFFFFF for v in words]).tobytes()
