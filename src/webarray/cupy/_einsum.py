"""``einsum``: NumPy's subscript notation, lowered to the strict namespace's own ops.

Each operand is first reduced alone (a letter repeated in one operand takes the diagonal;
a letter no other operand and not the output names is summed), then operands are
contracted two at a time, left to right: letters both share and something later needs
become the batch of one ``matmul``, letters only they share are summed by it. What
remains is permuted into the output's order. No new kernels: every step is a reshape,
``permute_dims``, ``sum``, a diagonal gather or ``matmul``, so einsum fuses and runs on
every backend that those run on.
"""

from __future__ import annotations

import math
import string

import webarray as _wa
from webarray._array_object import Array

from ._core import operand, result_type, to_array, cast_to, wrap

_LETTERS = set(string.ascii_letters)


def _parse(subscripts: str, operands: list[Array]) -> tuple[list[str], str]:
    """Per-operand letter strings and the output's, with ``...`` spelled out as letters
    no subscript uses (NumPy's rules: broadcast dimensions, right-aligned)."""
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        inputs, out = spec.split("->")
        if "->" in out:
            raise ValueError(f"einsum: {subscripts!r} has more than one '->'")
    else:
        inputs, out = spec, None
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {subscripts!r} names {len(terms)} operand(s), "
                         f"{len(operands)} given")
    for t in terms + ([out] if out is not None else []):
        bad = set(t.replace("...", "")) - _LETTERS
        if bad or t.count("...") > 1:
            raise ValueError(f"einsum: {t!r} in {subscripts!r}: subscripts are letters "
                             "and at most one '...'")
    unused = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in spec]
    ell_nd = 0
    for t, a in zip(terms, operands):
        named = len(t.replace("...", ""))
        if "..." in t:
            ell_nd = max(ell_nd, a.ndim - named)
            if a.ndim < named:
                raise ValueError(f"einsum: operand of shape {a.shape} has fewer "
                                 f"dimensions than {t!r} names")
        elif a.ndim != named:
            raise ValueError(f"einsum: {t!r} names {named} dimension(s), the operand "
                             f"has {a.ndim} (shape {a.shape})")
    ell = "".join(unused[:ell_nd])
    spelled = []
    for t, a in zip(terms, operands):
        if "..." in t:
            k = a.ndim - len(t.replace("...", ""))
            t = t.replace("...", ell[ell_nd - k:])
        spelled.append(t)
    if out is None:
        counts = {c: sum(t.count(c) for t in spelled) for c in set("".join(spelled))}
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        if "..." in out:
            out = out.replace("...", ell)
        elif ell:
            raise ValueError(f"einsum: the operands of {subscripts!r} have {ell_nd} "
                             "dimension(s) under '...' but the output has no '...' for them")
        missing = set(out) - set("".join(spelled))
        if missing:
            raise ValueError(f"einsum: output subscript(s) {''.join(sorted(missing))!r} "
                             f"appear in no operand of {subscripts!r}")
        if len(set(out)) != len(out):
            raise ValueError(f"einsum: output {out!r} repeats a subscript")
    return spelled, out


def _diagonal(a: Array, letters: str) -> tuple[Array, str]:
    """Collapse repeated letters of one operand to their diagonal."""
    while True:
        seen = {}
        rep = None
        for i, c in enumerate(letters):
            if c in seen:
                rep = (seen[c], i)
                break
            seen[c] = i
        if rep is None:
            return a, letters
        i, j = rep
        if a.shape[i] != a.shape[j]:
            raise ValueError(f"einsum: subscript {letters[i]!r} has sizes {a.shape[i]} "
                             f"and {a.shape[j]} in one operand")
        rest = [k for k in range(a.ndim) if k not in (i, j)]
        moved = _wa.permute_dims(a, tuple(rest + [i, j]))
        n = a.shape[i]
        flat = _wa.reshape(moved, tuple(moved.shape[:-2]) + (n * n,))
        idx = _wa.arange(0, n * n, n + 1, dtype=_wa.int32) if n else _wa.zeros(0, dtype=_wa.int32)
        a = _wa.take(flat, idx, axis=flat.ndim - 1)
        letters = "".join(letters[k] for k in rest) + letters[i]


def _sum_out(a: Array, letters: str, keep: set[str]) -> tuple[Array, str]:
    axes = tuple(k for k, c in enumerate(letters) if c not in keep)
    if not axes:
        return a, letters
    return _wa.sum(a, axis=axes, dtype=a.dtype), "".join(c for c in letters if c in keep)


def _contract(a: Array, la: str, b: Array, lb: str, keep: set[str]) -> tuple[Array, str]:
    sizes = {}
    for x, l in ((a, la), (b, lb)):
        for c, n in zip(l, x.shape):
            if c in sizes and n != sizes[c] and 1 not in (n, sizes[c]):
                raise ValueError(f"einsum: subscript {c!r} has sizes {sizes[c]} and {n}")
            sizes[c] = n if c not in sizes or sizes[c] == 1 else sizes[c]
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    only_a = [c for c in la if c not in lb]
    only_b = [c for c in lb if c not in la]

    def arrange(x, l, order):
        x = _wa.permute_dims(x, tuple(l.index(c) for c in order))
        return _wa.broadcast_to(x, tuple(sizes[c] if c in batch or c in summed else
                                         x.shape[k] for k, c in enumerate(order)))

    pa = arrange(a, la, batch + only_a + summed)
    pb = arrange(b, lb, batch + summed + only_b)
    nb = tuple(sizes[c] for c in batch)
    m = math.prod(sizes[c] for c in only_a)
    k = math.prod(sizes[c] for c in summed)
    n = math.prod(sizes[c] for c in only_b)
    prod = _wa.matmul(_wa.reshape(pa, nb + (m, k)), _wa.reshape(pb, nb + (k, n)))
    shape = nb + tuple(sizes[c] for c in only_a) + tuple(sizes[c] for c in only_b)
    return _wa.reshape(prod, shape), "".join(batch + only_a + only_b)


def einsum(subscripts, *operands, dtype=None, optimize=False, out=None, casting="safe"):
    """NumPy's ``einsum`` with explicit subscripts (``'ij,jk->ik'``, ``'...ii->...i'``,
    implicit output ``'ij,jk'``). The sublist form (``einsum(a, [0, 1], b, [1, 2])``) is
    not supported and raises TypeError; ``optimize`` is accepted and ignored (operands
    are contracted left to right)."""
    if not isinstance(subscripts, str):
        raise TypeError("einsum: subscripts must be a string such as 'ij,jk->ik'; the "
                        "sublist form is not supported")
    if not operands:
        raise ValueError("einsum: no operands given")
    arrays = [to_array(operand(x, "einsum")) if not isinstance(x, Array) else x for x in operands]
    d = result_type(*arrays) if dtype is None else result_type(dtype)
    if d.kind == "b":
        raise TypeError("einsum: bool operands are not supported; cast them to an integer "
                        "or float dtype")
    arrays = [cast_to(x, d) for x in arrays]
    terms, target = _parse(subscripts, arrays)
    work = []
    for i, (x, l) in enumerate(zip(arrays, terms)):
        x, l = _diagonal(x, l)
        later = set(target).union(*(set(t) for j, t in enumerate(terms) if j != i))
        x, l = _sum_out(x, l, later)
        work.append((x, l))
    acc, la = work[0]
    for i in range(1, len(work)):
        b, lb = work[i]
        keep = set(target).union(*(set(l) for _, l in work[i + 1:]))
        acc, la = _contract(acc, la, b, lb, keep)
    acc, la = _sum_out(acc, la, set(target))
    res = _wa.permute_dims(acc, tuple(la.index(c) for c in target)) if la != target else acc
    res = wrap(res)
    if out is not None:
        out[...] = res
        return out
    return res
