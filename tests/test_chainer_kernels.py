"""Every ElementwiseKernel / ReductionKernel body of Chainer 7.8.1, run on webarray.cupy
against Chainer's NumPy path (issue #19).

Collection: Chainer's source is parsed with ``ast`` and every ``cuda.elementwise(...)`` /
``cuda.reduce(...)`` call is found (``cupy.ElementwiseKernel`` / ``cupy.ReductionKernel``
inside ``chainer/backends/cuda.py`` are those two functions themselves); a body built with
``.format`` or by a generator is evaluated for the parameters Chainer's callers use
(``GENERATED``). Cases: each runs the Chainer function, link, optimizer or hook that
launches some of the bodies, forward and backward, once on NumPy and once on webarray,
and compares in float32 tolerances; a fixture records the bodies launched, and the last
test checks that every collected body was launched by some case, except ``LEFT``.
Skipped where Chainer is not installed (``scripts/setup.sh`` installs it).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import itertools
import os

import numpy as np
import pytest

import webarray.cupy

pytestmark = pytest.mark.skipif(importlib.util.find_spec("chainer") is None,
                                reason="Chainer is not installed (scripts/setup.sh installs it)")

webarray.cupy.install()
if importlib.util.find_spec("chainer") is not None:
    import chainer
    import chainer.functions as F
    import chainer.links as L
    from chainer.backends import cuda

cp = webarray.cupy

# parameters of generated bodies, as Chainer's callers pass them (pooling and im2col of
# 2 and 3 dimensions; TreeLSTM of two children)
GENERATED = {"ndim": (2, 3), "n_ary": (2,)}

# bodies that cannot run here, by "file:line" of their call
LEFT = {
    "functions/array/pad_sequence.py:64":
        "reads the input arrays through device pointers (reinterpret_cast<const T*>(ptr)); "
        "WGSL has no pointers to storage buffers as values",
    "training/updaters/multiprocess_parallel_updater.py:300":
        "multi-GPU parameter gather over NCCL, through device pointers",
    "training/updaters/multiprocess_parallel_updater.py:393":
        "multi-GPU parameter scatter over NCCL, through device pointers",
    "functions/normalization/group_normalization.py:114":
        "the cuDNN path of group_normalization (after cudnn.batch_normalization_forward_"
        "training); without cuDNN Chainer computes it with array operations",
    "gradient_check.py:153":
        "numerical_grad accumulates in float64 (xp.zeros(shape, numpy.float64)) through a "
        "kernel with a float64 parameter: user kernels have 32-bit registers only",
    "gradient_check.py:158": "as gradient_check.py:153",
    "functions/pooling/max_pooling_nd.py:371":
        "second derivative of max pooling after cuDNN (it recomputes the indexes cuDNN "
        "did not give); without cuDNN Chainer's own indexes serve (max_pooling_nd.py:340)",
    "optimizer_hooks/gradient_lars.py:103":
        "dead in Chainer: it runs only `if xp is backend.cuda`, a module that xp (cupy) never "
        "is, so real CuPy never launches it either; the hook's array branch runs and is "
        "compared (case gradient_lars)",
}


# -- collection ------------------------------------------------------------------------------

class Site:
    """One call of cuda.elementwise / cuda.reduce: its bodies (one, or one per evaluation
    of a generated body); a body is the operation, or (map, reduce, post-map)."""

    def __init__(self, path: str, line: int, kind: str, bodies: list, literal: bool):
        self.path, self.line, self.kind, self.bodies, self.literal = (
            path, line, kind, bodies, literal)

    @property
    def key(self) -> str:
        return f"{self.path}:{self.line}"


def _kind(call: ast.Call):
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    base = ast.unparse(f)
    if "cuda" not in base and "cupy" not in base:
        return None
    return {"elementwise": "elementwise", "ElementwiseKernel": "elementwise",
            "reduce": "reduce", "ReductionKernel": "reduce"}.get(name)


def _assignments(func, name: str) -> list:
    out = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                names = [t] if isinstance(t, ast.Name) else list(getattr(t, "elts", []))
                if any(isinstance(n, ast.Name) and n.id == name for n in names):
                    out.append(node)
    return out


def _names(expr) -> set:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _evaluate(exprs, func, module) -> list:
    """The values of exprs, once per combination of the assignments in func they depend
    on (an if/else of strings gives two bodies) and of GENERATED's parameters."""
    needed, stmts = [], {}
    todo = set().union(*(_names(e) for e in exprs))
    while todo:
        name = todo.pop()
        if name in needed or name in GENERATED:
            continue
        found = _assignments(func, name)
        if found:
            needed.append(name)
            stmts[name] = found
            for s in found:
                todo |= _names(s.value) - set(needed)
    used = set().union(*(_names(e) for e in exprs), *(
        _names(s.value) for s in itertools.chain(*stmts.values())))
    params = sorted(p for p in used if p in GENERATED)
    values = set()
    for choice in itertools.product(*(stmts[n] for n in needed)):
        for pvals in itertools.product(*(GENERATED[p] for p in params)):
            ns = dict(vars(module))
            ns.update(zip(params, pvals))
            for s in sorted(set(choice), key=lambda s: s.lineno):
                exec(compile(ast.Module([s], []), module.__file__, "exec"), ns)
            values.add(tuple(eval(compile(ast.Expression(e), module.__file__, "eval"), ns)
                             for e in exprs))
    return sorted(values)


def collect() -> list[Site]:
    root = os.path.dirname(chainer.__file__)
    sites = []
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            if not f.endswith(".py") or rel == os.path.join("backends", "cuda.py"):
                continue
            with open(os.path.join(root, rel)) as fh:
                tree = ast.parse(fh.read())
            parents = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
            for node in ast.walk(tree):
                kind = isinstance(node, ast.Call) and _kind(node)
                if not kind:
                    continue
                exprs = node.args[2:3] if kind == "elementwise" else node.args[2:5]
                key = rel.replace(os.sep, "/")
                if all(isinstance(e, ast.Constant) for e in exprs):
                    body = tuple(e.value for e in exprs)
                    sites.append(Site(key, node.lineno, kind, [body], True))
                    continue
                func = node
                while not isinstance(func, ast.FunctionDef):
                    func = parents[func]
                module = importlib.import_module("chainer." + rel[:-3].replace(os.sep, "."))
                sites.append(Site(key, node.lineno, kind, _evaluate(exprs, func, module), False))
    return sites


SITES = collect() if importlib.util.find_spec("chainer") is not None else []


def test_collection_finds_every_kernel_call():
    # 142 calls: 131 with literal bodies and 11 generated (pooling and im2col of N
    # dimensions, TreeLSTM, RMSprop's two denominators)
    assert len(SITES) == 142
    assert sum(s.literal for s in SITES) == 131
    assert sum(s.kind == "reduce" for s in SITES) == 7
    assert sum(len(s.bodies) for s in SITES) == 151
    assert set(LEFT) <= {s.key for s in SITES}


# -- launches --------------------------------------------------------------------------------

LAUNCHED: set = set()


@pytest.fixture(scope="module", autouse=True)
def record_launches():
    """Records each body launched (ElementwiseKernel.__call__, ReductionKernel.__call__)."""
    ek, rk = cp.ElementwiseKernel, cp.ReductionKernel
    e_call, r_call = ek.__call__, rk.__call__

    def e_rec(self, *args, **kw):
        LAUNCHED.add((self.operation,))
        return e_call(self, *args, **kw)

    def r_rec(self, *args, **kw):
        LAUNCHED.add((self.map_expr, self.reduce_expr, self.post_map_expr))
        return r_call(self, *args, **kw)

    ek.__call__, rk.__call__ = e_rec, r_rec
    try:
        yield
    finally:
        ek.__call__, rk.__call__ = e_call, r_call


# -- cases -----------------------------------------------------------------------------------

def _to(xp_gpu: bool, a):
    if a is None or not isinstance(a, np.ndarray):
        return a
    return cuda.to_gpu(a) if xp_gpu else a


def _out(a):
    if isinstance(a, chainer.Variable):
        a = a.array
    return None if a is None else np.asarray(cuda.to_cpu(a))


def fb(fn, *inputs, grads=True, kw=None):
    """A case of a function: forward on the inputs (float arrays become Variables), then
    backward from a fixed random output gradient; the outputs and input gradients."""
    def run(gpu):
        vs = [chainer.Variable(_to(gpu, a)) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
              else _to(gpu, a) for a in inputs]
        ys = fn(*vs, **(kw or {}))
        ys = ys if isinstance(ys, (tuple, list)) else (ys,)
        out = [_out(y) for y in ys]
        if grads:
            rng = np.random.RandomState(7)
            loss = 0
            for y in ys:
                if isinstance(y, chainer.Variable) and y.dtype.kind == "f":
                    g = rng.uniform(-1, 1, y.shape).astype(y.dtype)
                    loss = loss + F.sum(y * _to(gpu, g))
            loss.backward()
            out += [_out(v.grad) for v in vs if isinstance(v, chainer.Variable)]
        return out
    return run


def r(*shape, lo=-1.0, hi=1.0, seed=0):
    return np.random.RandomState(seed + len(shape)).uniform(lo, hi, shape).astype(np.float32)


def away(*shape, seed=0):
    """Values of magnitude in [0.2, 1], random sign: away from kinks at 0."""
    rng = np.random.RandomState(seed)
    return (rng.uniform(0.2, 1, shape) * rng.choice([-1, 1], shape)).astype(np.float32)


def labels(n, k, seed=0, ignore=False):
    t = np.random.RandomState(seed).randint(0, k, n).astype(np.int32)
    if ignore:
        t[::3] = -1
    return t


def optimizer(make, steps=2):
    """A case of an optimizer: a small link, two updates from fixed gradients."""
    def run(gpu):
        np.random.seed(0)
        link = chainer.Sequential(L.Linear(3, 4))
        with link.init_scope():
            pass
        opt = make()
        opt.setup(link)
        if gpu:
            link.to_gpu()
        for k in range(steps):
            link.cleargrads()
            for n, p in enumerate(sorted(link.params(), key=lambda p: p.name)):
                p.grad = _to(gpu, r(*p.shape, seed=10 * k + n))
            opt.update()
        return [_out(p.array) for p in sorted(link.params(), key=lambda p: p.name)]
    return run


def hook(make):
    def run(gpu):
        np.random.seed(0)
        link = chainer.Sequential(L.Linear(3, 4))
        opt = chainer.optimizers.SGD(lr=0.1)
        opt.setup(link)
        opt.add_hook(make())
        if gpu:
            link.to_gpu()
        for k in range(2):
            link.cleargrads()
            for n, p in enumerate(sorted(link.params(), key=lambda p: p.name)):
                p.grad = _to(gpu, r(*p.shape, seed=10 * k + n))
            opt.update()
        return [_out(p.array) for p in sorted(link.params(), key=lambda p: p.name)]
    return run


def fbb(fn, *inputs, out_shape):
    """A case of a second derivative: the input gradients of fn for an output gradient
    gy (the last input), and backward through them to the inputs and gy."""
    def twice(*vs):
        return chainer.grad([fn(*vs[:-1])], list(vs[:-1]), [vs[-1]],
                            enable_double_backprop=True)
    return fb(twice, *inputs, r(*out_shape, seed=3))


def _bn_running(x, g, b):
    """batch_normalization with running statistics, which its kernel updates in place."""
    mean, var = (_xp(x).asarray(r(x.shape[1], lo=0.5, hi=1.5, seed=k)) for k in (0, 1))
    return F.batch_normalization(x, g, b, running_mean=mean, running_var=var), mean, var


def _sampler(x):
    xp = _xp(x)
    return lambda shape: xp.asarray(
        np.random.RandomState(4).randint(0, 5, shape).astype(np.int32))


_TREE = None


def _hsm(x, w, t):
    """BinaryHierarchicalSoftmax over 4 words with the link's tree and W = w."""
    from chainer.links.loss.hierarchical_softmax import BinaryHierarchicalSoftmaxFunction

    tree = L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 4, 1: 3, 2: 2, 3: 1})
    link = L.BinaryHierarchicalSoftmax(4, tree)
    if not isinstance(x.array, np.ndarray):
        link.to_gpu()
    fn = link._func
    assert isinstance(fn, BinaryHierarchicalSoftmaxFunction)
    return fn(x, t, w)


def _sparse(*shape):
    a = r(*shape)
    a[np.abs(a) < 0.4] = 0
    return a


def _coo(d):
    from chainer.utils import sparse

    return sparse.to_coo(d.array, requires_grad=True)


CASES = {
    # activations
    "relu": fb(F.relu, away(3, 4)),
    "leaky_relu": fb(lambda x: F.leaky_relu(x, 0.3), away(3, 4)),
    "clipped_relu": fb(lambda x: F.clipped_relu(x, 0.5), away(3, 4)),
    "elu": fb(F.elu, away(3, 4)),
    "hard_sigmoid": fb(F.hard_sigmoid, r(3, 4, lo=-4, hi=4)),
    "prelu": fb(F.prelu, away(2, 3, 4), r(3)),
    "rrelu": fb(lambda x: F.rrelu(x, r=_xp(x).asarray(r(3, 4, lo=0.125, hi=0.33))), away(3, 4)),
    "sigmoid": fb(F.sigmoid, r(3, 4, lo=-5, hi=5)),
    "softplus": fb(lambda x: F.softplus(x, beta=2.0), r(3, 4, lo=-30, hi=30)),
    "swish": fb(F.swish, r(2, 3, lo=-4, hi=4), r(3)),
    "tanh": fb(F.tanh, r(3, 4, lo=-3, hi=3)),
    # math
    "absolute": fb(F.absolute, away(3, 4)),
    "div": fb(lambda a, b: a / b, r(3, 4), away(3, 4)),
    "rdiv": fb(lambda a: 2.0 / a, away(3, 4)),
    "pow_var_var": fb(lambda a, b: a ** b, r(3, 4, lo=0.5, hi=2), r(3, 4)),
    "pow_var_const": fb(lambda a: a ** 2.5, r(3, 4, lo=0.5, hi=2)),
    "pow_const_var": fb(lambda b: 2.5 ** b, r(3, 4)),
    "sin_cos": fb(lambda a: (F.sin(a), F.cos(a)), r(3, 4, lo=-4, hi=4)),
    "arcsin_arccos_arctan": fb(lambda a: (F.arcsin(a), F.arccos(a), F.arctan(a)),
                               r(3, 4, lo=-0.9, hi=0.9)),
    "arctan2": fb(F.arctan2, r(3, 4), away(3, 4)),
    "batch_l2_norm_squared": fb(F.batch_l2_norm_squared, r(3, 4, 2)),
    "clip": fb(lambda x: F.clip(x, -0.5, 0.5), away(3, 4)),
    "erf_erfc": fb(lambda x: (F.erf(x), F.erfc(x)), r(3, 4, lo=-3, hi=3)),
    "erfcx": fb(F.erfcx, r(3, 4, lo=-2, hi=6)),
    "erfinv": fb(F.erfinv, r(3, 4, lo=-0.99, hi=0.99)),
    "erfcinv": fb(F.erfcinv, r(3, 4, lo=0.01, hi=1.99)),
    "ndtr_log_ndtr": fb(lambda x: (F.ndtr(x), F.log_ndtr(x)), r(3, 4, lo=-6, hi=6)),
    "ndtri": fb(F.ndtri, r(3, 4, lo=0.01, hi=0.99)),
    "linear_interpolate": fb(F.linear_interpolate, r(3, 4, lo=0, hi=1), r(3, 4), r(3, 4)),
    "maximum_minimum": fb(lambda a, b: (F.maximum(a, b), F.minimum(a, b)), r(3, 4), r(3, 4, seed=1)),
    # arrays and connections
    "select_item": fb(F.select_item, r(4, 5), labels(4, 5)),
    "permutate": fb(lambda x: F.permutate(x, _xp(x).asarray(np.array([2, 0, 3, 1], np.int32))),
                    r(4, 3)),
    "resize_images": fb(lambda x: F.resize_images(x, (5, 7)), r(2, 2, 3, 4)),
    "transpose_sequence": fb(lambda a, b, c: F.transpose_sequence([a, b, c]),
                             r(3, 2), r(2, 2), r(1, 2)),
    "embed_id_ignore": fb(lambda w, x: F.embed_id(x, w, ignore_label=-1), r(5, 3),
                   np.array([0, 4, -1, 4, 2], np.int32)),
    "embed_id": fb(lambda w, x: F.embed_id(x, w), r(5, 3), np.array([0, 4, 1, 4, 2], np.int32)),
    "negative_sampling": fb(lambda x, w, t: F.negative_sampling(x, t, w, _sampler(x), 2),
                            r(3, 4), r(5, 4), np.array([0, 4, -1], np.int32)),
    "negative_sampling_no_reduce": fb(lambda x, w, t: F.negative_sampling(
        x, t, w, _sampler(x), 2, reduce="no"), r(3, 4), r(5, 4), np.array([0, 4, 1], np.int32)),
    "hierarchical_softmax": fb(lambda x, w, t: _hsm(x, w, t), r(3, 4), r(3, 4),
                               np.array([0, 3, 1], np.int32)),
    "sparse_matmul": fb(lambda d, b: F.sparse_matmul(_coo(d), b), _sparse(3, 4), r(4, 2)),
    "shift": fb(lambda x: F.shift(x, ksize=3, dilate=1), r(2, 9, 4, 4)),
    "convolution_2d": fb(lambda x, w: F.convolution_2d(x, w, pad=1), r(2, 3, 5, 5), r(4, 3, 3, 3)),
    "deconvolution_2d": fb(lambda x, w: F.deconvolution_2d(x, w, stride=2), r(2, 3, 3, 3), r(3, 2, 3, 3)),
    "convolution_nd_2d": fb(lambda x, w: F.convolution_nd(x, w, pad=1), r(1, 2, 4, 4), r(2, 2, 3, 3)),
    "convolution_nd_3d": fb(lambda x, w: F.convolution_nd(x, w, pad=1), r(1, 2, 3, 4, 4), r(2, 2, 3, 3, 3)),
    # pooling
    "max_pooling_2d": fb(lambda x: F.max_pooling_2d(x, 2), r(2, 2, 4, 6)),
    "max_pooling_3d": fb(lambda x: F.max_pooling_nd(x, 2), r(1, 2, 4, 4, 4)),
    "max_pooling_2d_double_backward": fbb(lambda x: F.max_pooling_2d(x, 2), r(2, 2, 4, 6),
                                          out_shape=(2, 2, 2, 3)),
    "max_pooling_3d_double_backward": fbb(lambda x: F.max_pooling_nd(x, 2), r(1, 2, 4, 4, 4),
                                          out_shape=(1, 2, 2, 2, 2)),
    "average_pooling_2d": fb(lambda x: F.average_pooling_2d(x, 3, 2, 1), r(2, 2, 5, 5)),
    "average_pooling_nd": fb(lambda x: (F.average_pooling_nd(x, 2, pad=1),
                                        F.average_pooling_nd(x, 2, pad=1, pad_value=None)),
                             r(1, 2, 4, 4, 4)),
    "average_pooling_nd_2d": fb(lambda x: F.average_pooling_nd(x, 2, pad=1), r(1, 2, 4, 4)),
    "upsampling_2d": fb(lambda x, y: F.upsampling_2d(
        x, F.max_pooling_2d(y, 2, return_indices=True)[1], 2, outsize=(4, 6)),
        r(2, 2, 2, 3), r(2, 2, 4, 6)),
    "unpooling_2d": fb(lambda x: F.unpooling_2d(x, 2, outsize=(4, 6)), r(2, 2, 2, 3)),
    "roi_pooling_2d": fb(lambda x, rois: F.roi_pooling_2d(x, rois, 2, 2, 1.0),
                         r(2, 2, 6, 6), np.array([[0, 0, 0, 4, 4], [1, 1, 1, 5, 3]], np.float32)),
    "roi_max_pooling_2d": fb(lambda x, rois, idx: F.roi_max_pooling_2d(x, rois, idx, 2, 1.0),
                             r(2, 2, 6, 6), np.array([[0, 0, 4, 4], [1, 1, 5, 3]], np.float32),
                             np.array([0, 1], np.int32)),
    "roi_average_pooling_2d": fb(lambda x, rois, idx: F.roi_average_pooling_2d(
        x, rois, idx, 2, 1.0), r(2, 2, 6, 6), np.array([[0, 0, 4, 4], [1, 1, 5, 3]], np.float32),
        np.array([0, 1], np.int32)),
    "roi_max_align_2d": fb(lambda x, rois, idx: F.roi_max_align_2d(x, rois, idx, 2, 1.0, 2),
                           r(2, 2, 6, 6), np.array([[0.5, 0.2, 4.1, 4.4], [1, 1.5, 5, 3]], np.float32),
                           np.array([0, 1], np.int32)),
    "roi_average_align_2d": fb(lambda x, rois, idx: F.roi_average_align_2d(
        x, rois, idx, 2, 1.0, 2), r(2, 2, 6, 6),
        np.array([[0.5, 0.2, 4.1, 4.4], [1, 1.5, 5, 3]], np.float32), np.array([0, 1], np.int32)),
    # normalization
    "batch_normalization_running": fb(_bn_running, r(4, 3), r(3, lo=0.5, hi=1.5), r(3)),
    "batch_normalization": fb(lambda x, g, b: F.batch_normalization(x, g, b),
                              r(4, 3, 2), r(3, lo=0.5, hi=1.5), r(3)),
    "fixed_batch_normalization": fb(lambda x, g, b, m, v: F.fixed_batch_normalization(x, g, b, m, v),
                                    r(4, 3), r(3, lo=0.5, hi=1.5), r(3), r(3), r(3, lo=0.5, hi=1.5)),
    "batch_renormalization": fb(lambda x, g, b: F.batch_renormalization(
        x, g, b, 2.0, 1.0, running_mean=np.zeros(3, np.float32) if isinstance(x.array, np.ndarray)
        else cp.zeros(3, np.float32), running_var=np.ones(3, np.float32) if isinstance(
            x.array, np.ndarray) else cp.ones(3, np.float32)),
        r(4, 3), r(3, lo=0.5, hi=1.5), r(3)),
    "group_normalization": fb(lambda x, g, b: F.group_normalization(x, 2, g, b),
                              r(2, 4, 3), r(4, lo=0.5, hi=1.5), r(4)),
    "local_response_normalization": fb(F.local_response_normalization, r(2, 7, 3, 2)),
    # losses
    "softmax_cross_entropy": fb(lambda x, t: F.softmax_cross_entropy(x, t), r(6, 5), labels(6, 5, ignore=True)),
    "softmax_cross_entropy_no_reduce": fb(lambda x, t: F.softmax_cross_entropy(
        x, t, reduce="no", enable_double_backprop=False), r(6, 5), labels(6, 5, ignore=True)),
    "softmax_cross_entropy_class_weight": fb(lambda x, t: F.softmax_cross_entropy(
        x, t, class_weight=_cw(x), enable_double_backprop=False), r(6, 5), labels(6, 5)),
    "hinge": fb(lambda x, t: F.hinge(x, t), r(4, 5), labels(4, 5)),
    "ctc": fb(lambda a, b, c, t: F.connectionist_temporal_classification([a, b, c], t, 0),
              r(2, 4), r(2, 4), r(2, 4), np.array([[1, 2], [3, 3]], np.int32)),
    # rnn
    "lstm": fb(F.lstm, r(2, 3), r(2, 12)),
    "slstm": fb(F.slstm, r(2, 3), r(2, 3), r(2, 12), r(2, 12)),
    "tree_lstm": fb(lambda c1, c2, x: F.tree_lstm(c1, c2, x), r(2, 3), r(2, 3), r(2, 15)),
    # noise (their random numbers given)
    "dropout": fb(lambda x: F.dropout(x, 0.5, mask=_mask(x)), r(3, 4)),
    "gaussian": fb(lambda m, v: F.gaussian(m, v, eps=_eps(m)), r(3, 4), r(3, 4)),
    # optimizers
    "sgd": optimizer(lambda: chainer.optimizers.SGD(lr=0.1)),
    "momentum_sgd": optimizer(lambda: chainer.optimizers.MomentumSGD(lr=0.1)),
    "corrected_momentum_sgd": optimizer(lambda: chainer.optimizers.CorrectedMomentumSGD(lr=0.1)),
    "nesterov_ag": optimizer(lambda: chainer.optimizers.NesterovAG(lr=0.1)),
    "ada_grad": optimizer(lambda: chainer.optimizers.AdaGrad(lr=0.1)),
    "ada_delta": optimizer(lambda: chainer.optimizers.AdaDelta()),
    "adam": optimizer(lambda: chainer.optimizers.Adam()),
    "adam_weight_decay": optimizer(lambda: chainer.optimizers.Adam(weight_decay_rate=0.1)),
    "amsgrad": optimizer(lambda: chainer.optimizers.Adam(amsgrad=True)),
    "adabound": optimizer(lambda: chainer.optimizers.AdaBound()),
    "amsbound": optimizer(lambda: chainer.optimizers.AMSBound()),
    "msvag": optimizer(lambda: chainer.optimizers.MSVAG()),
    "rmsprop": optimizer(lambda: chainer.optimizers.RMSprop()),
    "rmsprop_eps_inside_sqrt": optimizer(lambda: chainer.optimizers.RMSprop(eps_inside_sqrt=True)),
    "rmsprop_graves": optimizer(lambda: chainer.optimizers.RMSpropGraves()),
    "smorms3": optimizer(lambda: chainer.optimizers.SMORMS3()),
    # optimizer hooks
    "weight_decay": hook(lambda: chainer.optimizer_hooks.WeightDecay(0.1)),
    "lasso": hook(lambda: chainer.optimizer_hooks.Lasso(0.1)),
    "gradient_noise": hook(lambda: chainer.optimizer_hooks.GradientNoise(
        0.1, noise_func=lambda xp, shape, dtype, hook, rule: xp.asarray(r(*shape, seed=5)))),
    "gradient_lars": hook(lambda: chainer.optimizer_hooks.GradientLARS()),
}
CASES = {k: v for k, v in CASES.items() if v is not None}


def _xp(a):
    return cuda.get_array_module(a.array if isinstance(a, chainer.Variable) else a)


def _cw(x):
    return _xp(x).asarray(np.array([0.5, 1.0, 2.0, 1.5, 1.0], np.float32))


def _mask(x):
    return _xp(x).asarray((np.random.RandomState(3).rand(*x.shape) > 0.5).astype(np.float32) * 2)


def _eps(x):
    return _xp(x).asarray(np.random.RandomState(3).randn(*x.shape).astype(np.float32))


# float32 where CUDA C computes in double: MSVAG's first step has rho = 0.9999, and
# 1.0 - rho in its body is a double in CUDA, float32 here (13 bits lost)
TOLERANCE = {"msvag": (1e-2, 1e-3)}

# cases that stop before their kernels in a part of webarray.cupy outside the kernel
# language, which another change is adding (issue #19): case -> (reason, sites it covers)
# cases that cannot run yet, for want of something outside the kernel language: a strict
# xfail each, so that the day they pass the list must shrink
BLOCKED = {
    "resize_images": ("Chainer casts the indices to numpy.intp (int64), and user kernels take "
                      "32-bit types only: 64-bit lanes in kernels are issue #20's",
                      ["functions/array/resize_images.py:87",
                       "functions/array/resize_images.py:150"]),
}


def _case_param(name):
    if name in BLOCKED:
        return pytest.param(name, marks=pytest.mark.xfail(reason=BLOCKED[name][0], strict=True))
    return name


@pytest.mark.parametrize("case", [_case_param(c) for c in sorted(CASES)])
def test_case_matches_numpy(case):
    want = CASES[case](False)
    got = CASES[case](True)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        if w is None:
            assert g is None, k
            continue
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, w.shape, g.dtype, w.dtype)
        rtol, atol = TOLERANCE.get(case, (2e-5, 2e-6))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"output {k}")


def test_dropout_without_a_mask_draws_one():
    """dropout's own kernel (its mask from cupy.random): the mask is 0 or 1/(1 - ratio),
    about ratio of it 0, and y = x * mask."""
    x = cp.asarray(r(64, 64, lo=0.5, hi=1.5))
    y = F.dropout(x, 0.25)
    mask = y.creator_node.mask if y.creator_node is not None else None
    y, mask = cuda.to_cpu(y.array), cuda.to_cpu(mask)
    assert set(np.unique(mask)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((mask == 0).mean() - 0.25) < 0.03
    np.testing.assert_allclose(y, cuda.to_cpu(x) * mask, rtol=1e-6)


def test_walker_alias_samples_follow_the_probabilities():
    from chainer.utils import WalkerAlias

    probs = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
    sampler = WalkerAlias(probs)
    sampler.to_gpu()
    s = cuda.to_cpu(sampler.sample((20000,)))
    assert s.dtype == np.int32 and s.min() >= 0 and s.max() <= 3
    np.testing.assert_allclose(np.bincount(s, minlength=4) / s.size, probs, atol=0.015)


def test_every_body_was_launched():
    missing = {}
    blocked = {k for _, keys in BLOCKED.values() for k in keys}
    for s in SITES:
        if s.key in LEFT or s.key in blocked:
            continue
        for body in s.bodies:
            if body not in LAUNCHED:
                missing.setdefault(s.key, 0)
                missing[s.key] += 1
    assert not missing, "\n".join(sorted(missing))
