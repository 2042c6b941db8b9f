"""Volunteer computing: a hyperparameter search whose trials run in the browsers that open
a page. ``python -m webarray.volunteer serve STUDY.py`` holds an Optuna study (its samplers,
pruners and relational storage do the bookkeeping) and hands each browser that joins a
trial; the page trains with webarray on that browser's GPU and reports back.

The modules split by where they run: ``spec``, ``service``, ``app``, ``tls`` and
``__main__`` run on the server (they need the ``volunteer`` extra: Optuna, FastAPI,
uvicorn); ``worker`` and ``checkpoint`` run next to the objective, in Pyodide or in
CPython, and need webarray alone. This package imports none of them, so that Pyodide can
import ``webarray.volunteer.worker`` without Optuna.
"""
