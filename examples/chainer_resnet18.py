"""Time ResNet-18 training steps with Chainer 7.8.1, unchanged: on webarray (through
webarray.cupy), on NumPy, and on real CuPy where it is installed.

The setting of the paper this project answers: batch 16 of 32x32x3 synthetic images, 10
classes, MomentumSGD. Each backend starts from the same weights and data, and the losses of
the steps are printed side by side (they agree within float32 noise). Reports the host time
per step and, on webarray, the kernel launches per step.

    python examples/chainer_resnet18.py --steps 5
    python examples/chainer_resnet18.py --steps 20 --backends webarray,numpy,cupy

Each backend runs in its own process (``--only BACKEND``), so webarray and a real CuPy
never meet in one interpreter.
"""

import argparse
import importlib.util
import json
import subprocess
import sys
import time

import numpy as np

_ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv[:-1] else None
import webarray.cupy  # noqa: E402

if _ONLY in ("webarray", "numpy") or _ONLY is None and importlib.util.find_spec("cupy") is None:
    webarray.cupy.install(force=True)
else:
    webarray.cupy.chainer_compat()  # Chainer 7.8.1 on NumPy 2, over the real CuPy

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
from chainer.backends import cuda  # noqa: E402


class Block(chainer.Chain):
    def __init__(self, cin, cout, stride):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(cin, cout, 3, stride, 1, nobias=True)
            self.b1 = L.BatchNormalization(cout)
            self.c2 = L.Convolution2D(cout, cout, 3, 1, 1, nobias=True)
            self.b2 = L.BatchNormalization(cout)
            self.projected = stride != 1 or cin != cout
            if self.projected:
                self.short = L.Convolution2D(cin, cout, 1, stride, 0, nobias=True)
                self.bs = L.BatchNormalization(cout)

    def forward(self, x):
        h = F.relu(self.b1(self.c1(x)))
        h = self.b2(self.c2(h))
        s = self.bs(self.short(x)) if self.projected else x
        return F.relu(h + s)


class ResNet18(chainer.Chain):
    def __init__(self, classes=10, width=64):
        super().__init__()
        w = width
        with self.init_scope():
            self.conv = L.Convolution2D(3, w, 3, 1, 1, nobias=True)
            self.bn = L.BatchNormalization(w)
            self.blocks = chainer.ChainList(
                Block(w, w, 1), Block(w, w, 1), Block(w, 2 * w, 2), Block(2 * w, 2 * w, 1),
                Block(2 * w, 4 * w, 2), Block(4 * w, 4 * w, 1), Block(4 * w, 8 * w, 2),
                Block(8 * w, 8 * w, 1))
            self.fc = L.Linear(8 * w, classes)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        for b in self.blocks:
            h = b(h)
        return self.fc(F.average_pooling_2d(h, h.shape[2:]))


def launches(device_fn):
    """Kernel launches counted around ``device_fn`` on webarray (None elsewhere)."""
    try:
        from webarray._core.device import default_device
    except ImportError:
        return None
    ex = default_device().executor
    box = {"n": 0}
    dispatch = ex.dispatch

    def counted(*args, **kwargs):
        box["n"] += 1
        return dispatch(*args, **kwargs)

    ex.dispatch = counted
    try:
        device_fn()
    finally:
        ex.dispatch = dispatch
    return box["n"]


def run(backend: str, steps: int, batch: int, width: int, seed: int = 0):
    """(losses, host seconds per step after the first, launches per step or None)."""
    np.random.seed(seed)
    model = ResNet18(width=width)
    opt = chainer.optimizers.MomentumSGD(lr=0.01)
    opt.setup(model)
    xp = np
    if backend != "numpy":
        model.to_gpu()
        xp = cuda.cupy
    rng = np.random.RandomState(seed)
    xs = rng.rand(steps, batch, 3, 32, 32).astype(np.float32)
    ys = rng.randint(0, 10, (steps, batch)).astype(np.int32)
    losses = []

    def step(k):
        loss = F.softmax_cross_entropy(model(xp.asarray(xs[k])), xp.asarray(ys[k]))
        model.cleargrads()
        loss.backward()
        opt.update()
        losses.append(float(loss.array))  # reads the loss back: the step has finished

    step(0)  # compiles kernels
    per = None
    start = time.perf_counter()
    if backend == "webarray" and steps > 1:
        per = launches(lambda: step(1))
    for k in range(len(losses), steps):
        step(k)
    seconds = (time.perf_counter() - start) / (steps - 1) if steps > 1 else float("nan")
    return losses, seconds, per


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--width", type=int, default=64, help="channels of the first stage (64)")
    ap.add_argument("--backends", default="webarray,numpy")
    ap.add_argument("--only", help="run this one backend here and print its result as JSON")
    ap.add_argument("--json", help="write the results to this file")
    args = ap.parse_args()
    if args.only:
        real_cupy = cuda.available and not cuda.cupy.__name__.startswith("webarray")
        if args.only == "cupy" and not real_cupy:
            print("RESULT " + json.dumps({"error": "real CuPy is not installed or has no GPU"}))
            return
        losses, sec, per = run(args.only, args.steps, args.batch, args.width)
        print("RESULT " + json.dumps({"losses": losses, "seconds_per_step": sec,
                                      "launches_per_step": per}))
        return
    results = {}
    for b in args.backends.split(","):
        cmd = [sys.executable, __file__, "--only", b, "--steps", str(args.steps), "--batch",
               str(args.batch), "--width", str(args.width)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")]
        if r.returncode or not line:
            print(f"{b}: failed (exit {r.returncode})\n{r.stderr[-3000:]}")
            continue
        res = json.loads(line[-1][7:])
        if "error" in res:
            print(f"{b}: not available ({res['error']})")
            continue
        results[b] = res
        per = res["launches_per_step"]
        print(f"{b}: {res['seconds_per_step'] * 1000:.0f} ms per step"
              + (f", {per} launches per step" if per else "")
              + f"; losses {' '.join(f'{v:.5f}' for v in res['losses'])}", flush=True)
    if "numpy" in results:
        base = results["numpy"]
        for b, res in results.items():
            if b != "numpy":
                diff = np.max(np.abs(np.array(res["losses"]) - np.array(base["losses"])))
                res["speedup_vs_numpy"] = base["seconds_per_step"] / res["seconds_per_step"]
                res["largest_loss_difference"] = float(diff)
                print(f"{b} vs numpy: {res['speedup_vs_numpy']:.1f}x faster, "
                      f"largest loss difference {diff:.2e}")
    if "webarray" in results and "cupy" in results:
        ratio = results["cupy"]["seconds_per_step"] / results["webarray"]["seconds_per_step"]
        print(f"webarray runs at {ratio:.0%} of real CuPy's speed")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"steps": args.steps, "batch": args.batch, "width": args.width,
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
