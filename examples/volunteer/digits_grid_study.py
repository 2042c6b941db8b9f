"""The digits search as a grid, the way the paper's experiment ran it: every combination of
four learning rates, three widths and two batch sizes (24 trials), no pruning, so each
trial trains all its epochs. The search space and objective are digits_study.py's.

    python -m webarray.volunteer serve examples/volunteer/digits_grid_study.py
"""

import dataclasses
import runpy
from pathlib import Path

from optuna.pruners import NopPruner
from optuna.samplers import GridSampler

GRID = {
    "lr": [0.01, 0.03, 0.1, 0.3],
    "hidden": [16, 32, 64],
    "batch_size": [32, 64],
    "weight_decay": [1e-4],
}

SPEC = dataclasses.replace(
    runpy.run_path(str(Path(__file__).with_name("digits_study.py")))["SPEC"],
    name="digits-mlp-grid",
    n_trials=len(GRID["lr"]) * len(GRID["hidden"]) * len(GRID["batch_size"]),
    sampler=GridSampler(GRID, seed=0),
    pruner=NopPruner(),
    settings={"epochs": 10, "train_size": 1400, "val_size": 397},
)
