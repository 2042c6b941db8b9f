"""The objective of the digits study; it runs in each volunteer's browser (Pyodide) or in
``python -m webarray.volunteer work``. A two-layer perceptron learns the 8 x 8 digits
(digits.bin, exported from scikit-learn) with mini-batch SGD and momentum, written with
webarray's Array API namespace alone: the forward pass, the softmax cross-entropy and its
gradients by hand, no NumPy. Each epoch ends with a checkpoint, then a report of the
validation accuracy, so that a trial whose browser closes resumes elsewhere at the next
epoch, and the pruner sees every epoch.

``trial.settings`` (from the study file) sizes the run: epochs, train_size, val_size.
Everything random (the split, the initial weights, each epoch's batch order) is drawn from
seeded Python generators, so a resumed trial sees the same batches an uninterrupted one
would.
"""

import random

import webarray as xp
from webarray.volunteer.worker import TrialPruned

CLASSES = 10
_data = {}


def load_digits(path="digits.bin"):
    """(images as float32 in [0, 1], labels as int32), read once per worker."""
    if path not in _data:
        raw = open(path, "rb").read()
        rows = xp.reshape(xp.asarray(list(raw), dtype=xp.uint8), (len(raw) // 65, 65))
        images = xp.astype(rows[:, :64], xp.float32) / 16.0
        labels = xp.astype(rows[:, 64], xp.int32)
        _data[path] = images, labels
    return _data[path]


def split(images, labels, train_size, val_size, seed=0):
    order = list(range(images.shape[0]))
    random.Random(seed).shuffle(order)
    train = xp.asarray(order[:train_size], dtype=xp.int32)
    val = xp.asarray(order[train_size:train_size + val_size], dtype=xp.int32)
    return (xp.take(images, train, axis=0), xp.take(labels, train, axis=0),
            xp.take(images, val, axis=0), xp.take(labels, val, axis=0))


def init_weights(hidden, seed):
    rng = random.Random(seed)

    def normal(rows, cols, scale):
        return xp.reshape(xp.asarray([rng.gauss(0.0, scale) for _ in range(rows * cols)],
                                     dtype=xp.float32), (rows, cols))

    return {
        "w1": normal(64, hidden, (2.0 / 64) ** 0.5),
        "b1": xp.zeros(hidden),
        "w2": normal(hidden, CLASSES, (1.0 / hidden) ** 0.5),
        "b2": xp.zeros(CLASSES),
    }


def forward(w, x):
    z1 = x @ w["w1"] + w["b1"]
    h = xp.maximum(z1, 0.0)
    return z1, h, h @ w["w2"] + w["b2"]


def gradients(w, x, onehot, weight_decay):
    """d(mean cross-entropy + weight_decay/2 * |W|^2) / d(each weight)."""
    z1, h, logits = forward(w, x)
    e = xp.exp(logits - xp.max(logits, axis=1, keepdims=True))
    dlogits = (e / xp.sum(e, axis=1, keepdims=True) - onehot) / x.shape[0]
    dh = xp.where(z1 > 0, dlogits @ w["w2"].mT, 0.0)
    return {
        "w1": x.mT @ dh + weight_decay * w["w1"],
        "b1": xp.sum(dh, axis=0),
        "w2": h.mT @ dlogits + weight_decay * w["w2"],
        "b2": xp.sum(dlogits, axis=0),
    }


def accuracy(w, x, labels):
    _, _, logits = forward(w, x)
    return float(xp.mean(xp.astype(xp.argmax(logits, axis=1) == labels, xp.float32)))


def objective(trial):
    lr = trial.suggest_float("lr", 1e-3, 1.0, log=True)
    hidden = trial.suggest_int("hidden", 16, 128, log=True)
    batch = trial.suggest_categorical("batch_size", [16, 32, 64, 128])
    weight_decay = trial.suggest_float("weight_decay", 1e-6, 1e-2, log=True)
    momentum = 0.9
    s = trial.settings
    epochs, train_size, val_size = s.get("epochs", 20), s.get("train_size", 1400), s.get("val_size", 397)
    # every attempt of a trial (a re-queued one too) draws from the first attempt's seed
    first = trial.number if trial.retry_of is None else trial.retry_of
    seed = s.get("seed", 0) * 1_000_003 + first

    images, labels = load_digits()
    x_train, y_train, x_val, y_val = split(images, labels, train_size, val_size)
    onehot = xp.astype(y_train[:, None] == xp.arange(CLASSES, dtype=xp.int32)[None, :], xp.float32)

    resumed = trial.load_checkpoint()
    if resumed is None:
        weights = init_weights(hidden, seed)
        velocity = {k: xp.zeros_like(v) for k, v in weights.items()}
        start = 0
    else:
        arrays, meta = resumed
        weights = {k: arrays[k] for k in ("w1", "b1", "w2", "b2")}
        velocity = {k: arrays["v_" + k] for k in weights}
        start = meta["step"] + 1
    trial.set_user_attr("start_epoch", start)

    acc = None
    for epoch in range(start, epochs):
        order = list(range(train_size))
        random.Random(seed * 7919 + epoch).shuffle(order)
        order = xp.asarray(order, dtype=xp.int32)
        xs, ys = xp.take(x_train, order, axis=0), xp.take(onehot, order, axis=0)
        for i in range(0, train_size - batch + 1, batch):
            g = gradients(weights, xs[i:i + batch], ys[i:i + batch], weight_decay)
            for k in weights:
                velocity[k] = momentum * velocity[k] - lr * g[k]
                weights[k] = weights[k] + velocity[k]
        acc = accuracy(weights, x_val, y_val)
        trial.save_checkpoint({**weights, **{"v_" + k: v for k, v in velocity.items()}},
                              step=epoch)
        trial.report(acc, epoch)
        if trial.should_prune():
            raise TrialPruned()
    if acc is None:  # resumed after the last epoch: its checkpoint holds the result
        acc = accuracy(weights, x_val, y_val)
    return acc
