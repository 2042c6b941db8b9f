"""The digits search as a grid, the way the paper's experiment ran it: every combination of
four learning rates, three widths and two batch sizes (24 trials), no pruning, so each
trial trains all its epochs. Same objective as digits_study.py.

    python -m webarray.volunteer serve examples/volunteer/digits_grid_study.py
"""

from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.pruners import NopPruner
from optuna.samplers import GridSampler

from webarray.volunteer.spec import StudySpec

GRID = {
    "lr": [0.01, 0.03, 0.1, 0.3],
    "hidden": [16, 32, 64],
    "batch_size": [32, 64],
    "weight_decay": [1e-4],
}

SPEC = StudySpec(
    name="digits-mlp-grid",
    objective="digits_mlp.py",
    files=["digits.bin"],
    search_space={
        "lr": FloatDistribution(1e-3, 1.0, log=True),
        "hidden": IntDistribution(16, 128, log=True),
        "batch_size": CategoricalDistribution([16, 32, 64, 128]),
        "weight_decay": FloatDistribution(1e-6, 1e-2, log=True),
    },
    direction="maximize",
    n_trials=len(GRID["lr"]) * len(GRID["hidden"]) * len(GRID["batch_size"]),
    sampler=GridSampler(GRID, seed=0),
    pruner=NopPruner(),
    settings={"epochs": 10, "train_size": 1400, "val_size": 397},
)
