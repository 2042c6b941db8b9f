"""The digits search with a Chainer CNN (chainer_cnn.py) instead of the hand-written
perceptron: the same sampler and pruner, plus the number of convolution channels.

The objective needs NumPy and Chainer in each browser's Pyodide. NumPy comes from a
Pyodide distribution that has it (``serve --pyodide DIR``: the npm package has no
packages, and here no package index is reachable); Chainer and the pure-Python wheels it
depends on (filelock, protobuf, six, typing_extensions) from a folder named by
CHAINER_WHEELS (``pip download --only-binary=:all: --platform any ...``, or ``pip wheel``
for Chainer's source release):

    CHAINER_WHEELS=wheels/ python -m webarray.volunteer serve \\
        examples/volunteer/chainer_cnn_study.py --pyodide pyodide-full/
"""

import os
from pathlib import Path

from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.pruners import SuccessiveHalvingPruner
from optuna.samplers import TPESampler

from webarray.volunteer.spec import StudySpec

folder = os.environ.get("CHAINER_WHEELS")
if not folder or not list(Path(folder).glob("chainer-*.whl")):
    raise FileNotFoundError("set CHAINER_WHEELS to a folder with a Chainer wheel and its pure-Python "
                            "dependencies (see this file's docstring)")

SPEC = StudySpec(
    name="digits-cnn-chainer",
    objective="chainer_cnn.py",
    files=["digits.bin"],
    search_space={
        "lr": FloatDistribution(1e-3, 1.0, log=True),
        "channels": IntDistribution(4, 32, log=True),
        "hidden": IntDistribution(16, 128, log=True),
        "batch_size": CategoricalDistribution([16, 32, 64, 128]),
    },
    direction="maximize",
    n_trials=40,
    sampler=TPESampler(seed=0, n_startup_trials=8),
    pruner=SuccessiveHalvingPruner(min_resource=2, reduction_factor=3),
    settings={"epochs": 10, "train_size": 1400},
    pyodide_packages=["numpy"],
    wheels=sorted(Path(folder).resolve().glob("*.whl")),
)
