"""The digits study: a two-layer perceptron's learning rate, width, batch size and weight
decay, searched by TPE with successive-halving pruning over 40 trials of up to 20 epochs.

    python -m webarray.volunteer serve examples/volunteer/digits_study.py

then open the printed URL in browsers (each tab is a worker). The objective
(digits_mlp.py) runs in the browser with webarray alone.
"""

from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.pruners import SuccessiveHalvingPruner
from optuna.samplers import TPESampler

from webarray.volunteer.spec import StudySpec

SPEC = StudySpec(
    name="digits-mlp",
    objective="digits_mlp.py",
    files=["digits.bin"],
    search_space={
        "lr": FloatDistribution(1e-3, 1.0, log=True),
        "hidden": IntDistribution(16, 128, log=True),
        "batch_size": CategoricalDistribution([16, 32, 64, 128]),
        "weight_decay": FloatDistribution(1e-6, 1e-2, log=True),
    },
    direction="maximize",
    n_trials=40,
    sampler=TPESampler(seed=0, n_startup_trials=8),
    pruner=SuccessiveHalvingPruner(min_resource=2, reduction_factor=3),
    settings={"epochs": 20, "train_size": 1400, "val_size": 397},
)
