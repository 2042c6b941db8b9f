"""Train a small CNN with Chainer 7.8.1, unchanged, on webarray's GPU through webarray.cupy.

The data is scikit-learn's bundled 8x8 digits (1,797 images, no download): 80% to train,
20% to test. ``webarray.cupy.install()`` before ``import chainer`` is the only change a
CuPy-using program needs; ``--numpy`` runs the same model on Chainer's NumPy path.

    python examples/chainer_cnn.py            # webarray (the GPU)
    python examples/chainer_cnn.py --numpy    # Chainer on NumPy, for comparison
"""

import argparse
import time

import numpy as np

import webarray.cupy

webarray.cupy.install()  # `import cupy` (inside Chainer) now gives webarray.cupy

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
from chainer.backends import cuda  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402


class CNN(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 16, 3, pad=1)
            self.conv2 = L.Convolution2D(16, 32, 3, pad=1)
            self.fc = L.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)
        return self.fc(h)


def digits():
    d = load_digits()
    x = (d.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int32)
    order = np.random.RandomState(0).permutation(len(y))
    n = int(0.8 * len(y))
    return x[order[:n]], y[order[:n]], x[order[n:]], y[order[n:]]


def train(gpu: bool, epochs: int, batch: int = 64, seed: int = 0):
    """(per-step losses, test accuracy, seconds of training)."""
    np.random.seed(seed)  # Chainer's initializers draw from NumPy's generator
    xtr, ytr, xte, yte = digits()
    model = CNN()
    opt = chainer.optimizers.Adam(alpha=0.005)
    opt.setup(model)
    xp = np
    if gpu:
        model.to_gpu()
        xp = cuda.cupy
    rng = np.random.RandomState(seed)
    losses = []
    start = time.perf_counter()
    for _ in range(epochs):
        order = rng.permutation(len(ytr))
        for k in range(0, len(ytr), batch):
            idx = order[k:k + batch]
            loss = F.softmax_cross_entropy(model(xp.asarray(xtr[idx])), xp.asarray(ytr[idx]))
            model.cleargrads()
            loss.backward()
            opt.update()
            losses.append(float(loss.array))
    seconds = time.perf_counter() - start
    with chainer.using_config("train", False), chainer.no_backprop_mode():
        pred = model(xp.asarray(xte)).array.argmax(axis=1)
    accuracy = float((cuda.to_cpu(pred) == yte).mean())
    return losses, accuracy, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--numpy", action="store_true", help="run Chainer on NumPy instead")
    ap.add_argument("--epochs", type=int, default=8)
    args = ap.parse_args()
    losses, accuracy, seconds = train(not args.numpy, args.epochs)
    where = "NumPy" if args.numpy else "webarray"
    print(f"{where}: {len(losses)} steps in {seconds:.1f} s, last loss {losses[-1]:.4f}, "
          f"test accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
