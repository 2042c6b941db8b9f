"""The objective of the Chainer study: a small CNN written in Chainer, trained on the digits
in the browser with webarray's CuPy layer standing in for CuPy. It needs NumPy and Chainer
inside Pyodide (the study file installs them), so it does not run where Pyodide has no
NumPy, as in this repository's CI: it is the hook for the Chainer example of the Chainer
issue, written against Chainer 7's public API and not yet run in a browser.

Checkpoints hold the model and the optimizer (its momentum) as Chainer serializes them.
"""

import random
import sys

import numpy

import webarray
import webarray.cupy

sys.modules.setdefault("cupy", webarray.cupy)  # Chainer looks for its GPU arrays under that name

import chainer  # noqa: E402  (after cupy is in place)
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402

from webarray.volunteer.worker import TrialPruned  # noqa: E402


class CNN(chainer.Chain):
    def __init__(self, channels, hidden):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, channels, ksize=3, pad=1)
            self.conv2 = L.Convolution2D(channels, 2 * channels, ksize=3, pad=1)
            self.fc1 = L.Linear(2 * channels * 2 * 2, hidden)
            self.fc2 = L.Linear(hidden, 10)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.conv1(x)), 2)  # 8 x 8 -> 4 x 4
        h = F.max_pooling_2d(F.relu(self.conv2(h)), 2)  # -> 2 x 2
        return self.fc2(F.relu(self.fc1(h)))


def load_digits(path="digits.bin"):
    rows = numpy.frombuffer(open(path, "rb").read(), dtype=numpy.uint8).reshape(-1, 65)
    return rows[:, :64].reshape(-1, 1, 8, 8).astype(numpy.float32) / 16, rows[:, 64].astype(numpy.int32)


def save(trial, model, optimizer, epoch):
    s = chainer.serializers.DictionarySerializer()
    s["model"].save(model)
    s["optimizer"].save(optimizer)
    trial.save_checkpoint({k: webarray.asarray(numpy.asarray(v)) for k, v in s.target.items()}, step=epoch)


def restore(arrays, model, optimizer):
    values = {k: numpy.asarray(v) for k, v in arrays.items()}
    chainer.serializers.NpzDeserializer(values, path="model/").load(model)
    chainer.serializers.NpzDeserializer(values, path="optimizer/").load(optimizer)


def objective(trial):
    lr = trial.suggest_float("lr", 1e-3, 1.0, log=True)
    channels = trial.suggest_int("channels", 4, 32, log=True)
    hidden = trial.suggest_int("hidden", 16, 128, log=True)
    batch = trial.suggest_categorical("batch_size", [16, 32, 64, 128])
    s = trial.settings
    epochs, train_size = s.get("epochs", 10), s.get("train_size", 1400)
    first = trial.number if trial.retry_of is None else trial.retry_of

    device = chainer.get_device("@cupy:0")
    images, labels = load_digits()
    order = list(range(len(labels)))
    random.Random(0).shuffle(order)
    train, val = order[:train_size], order[train_size:]
    x_val, t_val = device.send(images[val]), device.send(labels[val])

    chainer.global_config.train = True
    numpy.random.seed(first)  # Chainer's initialisers draw from NumPy
    model = CNN(channels, hidden)
    model.to_device(device)
    optimizer = chainer.optimizers.MomentumSGD(lr=lr, momentum=0.9)
    optimizer.setup(model)
    start = 0
    resumed = trial.load_checkpoint()
    if resumed is not None:
        arrays, meta = resumed
        restore(arrays, model, optimizer)
        start = meta["step"] + 1
    trial.set_user_attr("start_epoch", start)

    acc = None
    for epoch in range(start, epochs):
        shuffled = list(train)
        random.Random(first * 7919 + epoch).shuffle(shuffled)
        for i in range(0, train_size - batch + 1, batch):
            idx = shuffled[i:i + batch]
            loss = F.softmax_cross_entropy(model(device.send(images[idx])), device.send(labels[idx]))
            model.cleargrads()
            loss.backward()
            optimizer.update()
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            acc = float(F.accuracy(model(x_val), t_val).array)
        save(trial, model, optimizer, epoch)
        trial.report(acc, epoch)
        if trial.should_prune():
            raise TrialPruned()
    return acc
