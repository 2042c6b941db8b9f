"""scikit-learn with ``array_api_dispatch=True`` on webarray arrays (native device), each
result compared with scikit-learn on NumPy float32 input.

What is tested, and where the list comes from (the installed scikit-learn, not a copy):

- **Estimators**: every estimator of ``sklearn.utils.all_estimators()``, instantiated the
  way scikit-learn's own common tests do (``_construct_instances``, then the per-check
  parameters of ``check_array_api_input``), kept when its ``array_api_support`` tag is
  True: exactly the set on which scikit-learn runs its own array-API estimator check.
  ``DOCUMENTED_CONFIGURATIONS`` adds the parameter settings the user guide names as
  supported (PCA's other solvers, ``CalibratedClassifierCV(method="temperature")``,
  ``GaussianMixture(init_params="random")``); the test asserts their tag is True too.
- **Metrics**: ``array_api_metric_checkers`` of the shipped
  ``sklearn/metrics/tests/test_common.py``: each (metric, checker) pair is run with
  scikit-learn's own checker function, namespace "webarray", dtype float32. The checker
  compares against NumPy itself.
- **Tools**: the user guide's list (``train_test_split``, ``cross_val_predict``,
  ``check_consistent_length``); scikit-learn has no machine-readable list of them.
- **User guide only**: the user guide's list (doc/modules/array_api.rst, not shipped in the
  package) also names estimators whose tag is False in the installed version
  (``USER_GUIDE_ONLY``) and two metrics without a checker (``USER_GUIDE_METRICS``); they
  are tested the same way and counted apart.

The estimator comparison is our own (``check_estimator``, modelled on scikit-learn's
``_check_array_api_core``: it compares every fitted attribute and method with NumPy's);
scikit-learn's own ``check_array_api_input``, which also fits with dispatch *off* on any
input that ``numpy.asarray`` accepts, runs on every tagged estimator as well
(``SKLEARN_OWN_CHECKS``). Data: 30 samples, 6
informative features: full rank, unlike scikit-learn's check data (2 redundant features),
on which PCA's trailing components and GaussianMixture's precisions are not determined
to float32 precision (scikit-learn itself xfails PCA there).

The input is float32; the device also has float64 (``__array_namespace_info__().dtypes()``
lists it), so where scikit-learn computes in the widest float the device offers, or sends a
float64 host result back with ``xp.asarray``, webarray computes in float64 as NumPy does.
Every case that does not work is listed in ``EXPECTED_FAILURES`` with the exception and
message it raises, so a change either way fails a test. ``test_support_table_in_docs``
renders the support table of docs/ecosystem.md from these lists.
"""

from __future__ import annotations

import functools
import os
import re
import warnings
from pathlib import Path
from typing import NamedTuple

# SciPy reads this once, at import; scikit-learn's dispatch refuses to run without it.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest

import webarray as xp

sklearn = pytest.importorskip(
    "sklearn", reason="scikit-learn is not installed (pip install -e '.[ecosystem]')"
)
from scipy._lib._array_api import SCIPY_ARRAY_API  # noqa: E402

if not SCIPY_ARRAY_API:
    pytest.skip("SciPy was imported before SCIPY_ARRAY_API=1 was set", allow_module_level=True)

from sklearn import config_context  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.experimental import enable_halving_search_cv  # noqa: E402,F401
from sklearn.utils import all_estimators  # noqa: E402

with warnings.catch_warnings():
    # scikit-learn's test module marks tests with its own pytest marks
    warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
    from sklearn.metrics.tests.test_common import array_api_metric_checkers  # noqa: E402
from sklearn.utils._tags import get_tags  # noqa: E402
from sklearn.utils._test_common.instance_generator import (  # noqa: E402
    _construct_instances, _get_check_estimator_ids, _yield_instances_for_check,
)
from sklearn.utils.estimator_checks import (  # noqa: E402
    _enforce_estimator_tags_X, _enforce_estimator_tags_y, check_array_api_input,
    set_random_state,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "ecosystem.md"
DEVICE = xp.__array_namespace_info__().default_device()
RTOL = 1e-4
ATOL = float(np.finfo(np.float32).eps) * 1000  # scikit-learn's _atol_for_type(float32)


class Failure(NamedTuple):
    exc: type[BaseException]
    match: str  # regular expression the message must contain
    kind: str  # "webarray: int32 indices" | "scikit-learn" | "webarray bug"
    why: str  # one line for the support table


# -- the lists ---------------------------------------------------------------------------------

def _declared_estimators() -> dict[str, object]:
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, cls in all_estimators():
            try:
                instances = list(_construct_instances(cls))
            except Exception:  # noqa: BLE001 - scikit-learn's SkipTest for FrozenEstimator
                continue
            for inst in instances:
                for est in _yield_instances_for_check(check_array_api_input, inst):
                    if get_tags(est).array_api_support:
                        out[_get_check_estimator_ids(est)] = est
    return out


def _documented_configurations() -> dict[str, object]:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.mixture import GaussianMixture

    ests = [
        PCA(svd_solver="covariance_eigh"),
        PCA(svd_solver="randomized", power_iteration_normalizer="QR", random_state=0),
        PCA(n_components=3, svd_solver="full"),
        Ridge(solver="svd"),
        CalibratedClassifierCV(LogisticRegression(), method="temperature", cv=3),
        GaussianMixture(init_params="random", max_iter=5, random_state=0),
    ]
    return {_get_check_estimator_ids(e): e for e in ests}


def _user_guide_only() -> dict[str, object]:
    """Named in the user guide's list (scikit-learn's doc/modules/array_api.rst on main)
    although their array_api_support tag is False in the installed version."""
    from sklearn.linear_model import Ridge, RidgeClassifier
    from sklearn.model_selection import HalvingGridSearchCV, HalvingRandomSearchCV
    from sklearn.preprocessing import LabelBinarizer, MaxAbsScaler

    search = dict(cv=2, error_score="raise", min_resources=10)
    ests = [
        MaxAbsScaler(), LabelBinarizer(), RidgeClassifier(solver="svd"),
        HalvingGridSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, **search),
        HalvingRandomSearchCV(Ridge(), {"alpha": [0.1, 1.0]}, random_state=0, **search),
    ]
    return {_get_check_estimator_ids(e): e for e in ests}


ESTIMATORS = _declared_estimators()
DOCUMENTED_CONFIGURATIONS = _documented_configurations()
USER_GUIDE_ONLY = _user_guide_only()
ALL_ESTIMATORS = {**ESTIMATORS, **DOCUMENTED_CONFIGURATIONS, **USER_GUIDE_ONLY}


def _metric_name(metric) -> str:
    if isinstance(metric, functools.partial):
        kw = ",".join(f"{k}={v}" for k, v in metric.keywords.items())
        return f"{metric.func.__name__}({kw})"
    return metric.__name__


METRIC_CASES = {
    f"{_metric_name(m)}-{c.__name__.removeprefix('check_array_api_')}": (m, c)
    for m, checkers in array_api_metric_checkers.items() for c in checkers
}
# metrics of the user guide's list that have no checker in array_api_metric_checkers
USER_GUIDE_METRICS = ["precision_recall_fscore_support", "contingency_matrix"]
TOOLS = ["train_test_split", "cross_val_predict", "check_consistent_length"]

EXPECTED_FAILURES: dict[str, Failure] = {
    "CalibratedClassifierCV(cv=3,estimator=LogisticRegression(),method='temperature')": Failure(
        AttributeError, "'Array' object has no attribute 'reshape'", "scikit-learn",
        "_fit_classifier_calibrator_pair reshapes binary decision values with the "
        "non-standard method predictions.reshape(-1, 1) (sklearn/calibration.py)",
    ),
    "contingency_matrix": Failure(
        AssertionError, "contingency_matrix is ndarray, not a webarray array", "scikit-learn",
        "the installed version computes it with NumPy/SciPy sparse and returns a NumPy array",
    ),
}

# Fitted attributes and outputs whose columns have no defined sign: LinearDiscriminantAnalysis
# (solver="svd") takes its scalings from an SVD and, unlike PCA, does not apply svd_flip,
# so LAPACK and webarray's Jacobi SVD may return opposite (equally right) signs.
SIGN_FREE = {"LinearDiscriminantAnalysis": {"scalings_", "transform"}}


# -- the estimator check -----------------------------------------------------------------------

def _data():
    X, y = make_classification(n_samples=30, n_features=6, n_informative=4, n_redundant=0,
                               random_state=42)
    return X.astype(np.float32), y


def _host(a):
    return np.from_dlpack(a) if isinstance(a, xp.Array) else np.asarray(a)


def _align_signs(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """got with each column's sign flipped to match want's (columns: the last axis)."""
    if got.ndim == 0 or got.shape != want.shape:
        return got
    g = got.reshape(-1, got.shape[-1])
    w = want.reshape(-1, want.shape[-1])
    signs = np.where(np.sum(g * w, axis=0) < 0, -1, 1).astype(got.dtype)
    return (g * signs).reshape(got.shape)


def _assert_webarray(value, what: str):
    assert isinstance(value, xp.Array), f"{what} is {type(value).__name__}, not a webarray array"
    assert value.device == DEVICE, f"{what} is on {value.device}"


# results that scikit-learn divides integer counts for (tp_sum / pred_sum): NumPy's
# quotient is float64, webarray's the default float (docs/ecosystem.md, integer division)
INTEGER_QUOTIENTS = {"precision_recall_fscore_support"}


def _compare(got, want, what: str, sign_free: bool):
    got = _host(got)
    if sign_free:
        got = _align_signs(got, want)
    if want.dtype.kind == "f":
        # NumPy's result may be float64 (counts, priors) from float32 input; so is webarray's,
        # but for quotients of integer counts: the default float's (float32) here
        assert got.dtype == want.dtype or (
            what.split("[")[0] in INTEGER_QUOTIENTS and got.dtype == np.float32), (
            what, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_estimator(est):
    """Fit on NumPy float32 (dispatch off) and on webarray (dispatch on); fitted array
    attributes and every prediction/transform method must be webarray arrays on the device
    that agree with NumPy's within float32 tolerance."""
    X, y = _data()
    tags = get_tags(est)
    target_only = not tags.input_tags.two_d_array  # LabelEncoder: fit(y), transform(y)
    X = _enforce_estimator_tags_X(est, X)
    y = _enforce_estimator_tags_y(est, y)
    sign_free = SIGN_FREE.get(type(est).__name__, set())

    est = clone(est)
    set_random_state(est)
    ref = clone(est)
    got = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the 5-iteration solvers
        if target_only:
            ref.fit(y)
        else:
            ref.fit(X, y)
        with config_context(array_api_dispatch=True):
            if target_only:
                got.fit(xp.asarray(y))
            else:
                got.fit(xp.asarray(X), xp.asarray(y))

    for key, want in vars(ref).items():
        if not isinstance(want, np.ndarray) or want.dtype == object:
            continue
        value = getattr(got, key)
        if key != "classes_":
            _assert_webarray(value, key)
        _compare(value, want, key, key in sign_free)

    inputs_np = (y,) if target_only else (X,)
    inputs_wa = tuple(xp.asarray(a) for a in inputs_np)
    for method in ("score", "score_samples", "decision_function", "predict",
                   "predict_log_proba", "predict_proba", "transform"):
        if not hasattr(ref, method):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "score":
                want = ref.score(X, y)
                with config_context(array_api_dispatch=True):
                    value = got.score(xp.asarray(X), xp.asarray(y))
                assert isinstance(value, float), type(value)
                assert abs(value - want) <= ATOL + RTOL * abs(want), (value, want)
                continue
            want = getattr(ref, method)(*inputs_np)
            with config_context(array_api_dispatch=True):
                value = getattr(got, method)(*inputs_wa)
        _assert_webarray(value, method)
        _compare(value, want, method, method in sign_free)
        if method == "transform" and hasattr(ref, "inverse_transform"):
            want_inv = ref.inverse_transform(want)
            with config_context(array_api_dispatch=True):
                inv = got.inverse_transform(value)
            _assert_webarray(inv, "inverse_transform")
            _compare(inv, want_inv, "inverse_transform", False)


def _run(case: str, call):
    failure = EXPECTED_FAILURES.get(case)
    if failure is None:
        call()
        return
    with pytest.raises(failure.exc, match=failure.match):
        call()


# -- the tests ---------------------------------------------------------------------------------

def test_vendored_array_api_compat_finds_webarray():
    from sklearn.utils._array_api import _max_precision_float_dtype, get_namespace

    x = xp.asarray([1.0, 2.0])
    with config_context(array_api_dispatch=True):
        ns, is_array_api = get_namespace(x)
    assert is_array_api and ns.__name__ == "webarray"
    # float64 is on the device: scikit-learn's accumulations use it, as with NumPy
    assert _max_precision_float_dtype(xp, DEVICE) == xp.float64


def test_estimator_list_is_what_sklearn_declares():
    names = {type(e).__name__ for e in ESTIMATORS.values()}
    # a floor that a scikit-learn upgrade may raise, never lower silently
    assert {"PCA", "Ridge", "RidgeCV", "LinearDiscriminantAnalysis", "StandardScaler",
            "MinMaxScaler", "LogisticRegression", "GaussianNB"} <= names, sorted(names)
    for name, est in DOCUMENTED_CONFIGURATIONS.items():
        assert get_tags(est).array_api_support, f"{name}: tag says no array API support"


@pytest.mark.parametrize("case", list(ALL_ESTIMATORS))
def test_estimator(case):
    _run(case, lambda: check_estimator(ALL_ESTIMATORS[case]))


@pytest.mark.parametrize("case", list(METRIC_CASES))
def test_metric(case):
    metric, checker = METRIC_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _run(case, lambda: checker(metric, "webarray", None, "float32"))


@pytest.mark.parametrize("name", ["confusion_matrix", "cohen_kappa_score", "f1_score",
                                  "precision_score", "recall_score", "jaccard_score",
                                  "multilabel_confusion_matrix"])
def test_label_metrics_without_sample_weight(name):
    """The metrics that fail above with float sample weights work without them."""
    from sklearn import metrics

    f = getattr(metrics, name)
    kw = {"average": "macro"} if name.endswith(("f1_score", "precision_score", "recall_score",
                                                 "jaccard_score")) else {}
    y_true, y_pred = np.array([0, 0, 1, 1, 2, 2, 1]), np.array([0, 1, 0, 1, 2, 1, 1])
    want = f(y_true, y_pred, **kw)
    with config_context(array_api_dispatch=True):
        got = f(xp.asarray(y_true), xp.asarray(y_pred), **kw)
    if isinstance(want, np.ndarray):
        _assert_webarray(got, name)
        np.testing.assert_array_equal(_host(got), want)
    else:
        assert isinstance(got, float) and abs(got - want) < ATOL, (got, want)


def _user_guide_metric(name: str):
    from sklearn import metrics

    y_true, y_pred = np.array([0, 0, 1, 1, 2, 2, 1]), np.array([0, 1, 0, 1, 2, 1, 1])
    f = metrics.cluster.contingency_matrix if name == "contingency_matrix" else getattr(metrics, name)
    want = f(y_true, y_pred)
    with config_context(array_api_dispatch=True):
        got = f(xp.asarray(y_true), xp.asarray(y_pred))
    for i, (g, w) in enumerate(zip(got, want) if isinstance(want, tuple) else [(got, want)]):
        _assert_webarray(g, name)
        _compare(g, w, f"{name}[{i}]", False)


@pytest.mark.parametrize("name", USER_GUIDE_METRICS)
def test_user_guide_metric(name):
    _run(name, lambda: _user_guide_metric(name))


def test_expected_failures_name_real_cases():
    known = set(ALL_ESTIMATORS) | set(METRIC_CASES) | set(TOOLS) | set(USER_GUIDE_METRICS)
    assert set(EXPECTED_FAILURES) <= known, sorted(set(EXPECTED_FAILURES) - known)


def test_train_test_split():
    from sklearn.model_selection import train_test_split

    X, y = _data()
    ref = train_test_split(X, y, test_size=0.3, random_state=0)
    with config_context(array_api_dispatch=True):
        got = train_test_split(xp.asarray(X), xp.asarray(y), test_size=0.3, random_state=0)
    for g, w in zip(got, ref, strict=True):
        _assert_webarray(g, "split")
        np.testing.assert_array_equal(_host(g), w)


def test_cross_val_predict():
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import cross_val_predict

    X, y = _data()
    y = y.astype(np.float32)
    want = cross_val_predict(Ridge(solver="svd"), X, y, cv=3)
    with config_context(array_api_dispatch=True):
        got = cross_val_predict(Ridge(solver="svd"), xp.asarray(X), xp.asarray(y), cv=3)
    _assert_webarray(got, "cross_val_predict")
    np.testing.assert_allclose(_host(got), want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("dispatch", [False, True])
def test_copying_estimators_leave_their_input_alone(dispatch):
    """With dispatch off, check_array(copy=True) copies only where
    np.may_share_memory(np.asarray(X), X) says so: True for a webarray X, whose lent copy
    np.asarray gives again. When a second copy said False and the first stayed writable,
    MaxAbsScaler's in-place scaling reached the caller's X (values 2-3x NumPy's on the
    next call)."""
    from sklearn.preprocessing import MaxAbsScaler, StandardScaler

    a = np.random.default_rng(3).standard_normal((30, 4)).astype(np.float32)
    for est in (MaxAbsScaler(), StandardScaler()):
        x = xp.asarray(a)
        with config_context(array_api_dispatch=dispatch):
            first = _host(est.fit(x).transform(x))
            again = _host(est.transform(x))
        np.testing.assert_array_equal(_host(x), a)
        np.testing.assert_array_equal(again, first)
        np.testing.assert_allclose(first, clone(est).fit(a).transform(a), rtol=RTOL, atol=ATOL)


def test_check_consistent_length():
    from sklearn.utils import check_consistent_length

    with config_context(array_api_dispatch=True):
        check_consistent_length(xp.zeros((4, 2)), xp.zeros(4), [1, 2, 3, 4])
        with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[4, 3\]"):
            check_consistent_length(xp.zeros((4, 2)), xp.zeros(3))


# scikit-learn's own check_array_api_input on every tagged estimator, run as scikit-learn
# runs it: besides the dispatch path it fits once with dispatch off on inputs numpy.asarray
# accepts (webarray's are). That path mixes the namespaces: GridSearchCV's _safe_indexing
# indexes the webarray X with a NumPy index array (read as NumPy reads it); RidgeCV casts a
# NumPy array to the input's webarray dtype with NumPy's astype, which NumPy reads through
# the dtype's ``dtype`` attribute (NumPy's dtype of the same name).
# LabelEncoder is fitted on labels alone, which this check does not do.
SKLEARN_OWN_CHECK_FAILURES = {
    "GaussianMixture(init_params='random_from_data',max_iter=5,n_init=2)": Failure(
        AssertionError, "", "webarray: int32 indices",
        "predict's labels (an argmax) have the namespace's default index dtype, int32 on "
        "webarray and int64 on NumPy, and the check compares the dtypes",
    ),
}
SKLEARN_OWN_CHECKS = [c for c in ESTIMATORS if not c.startswith("LabelEncoder(")]


@pytest.mark.parametrize("case", SKLEARN_OWN_CHECKS)
@pytest.mark.filterwarnings("ignore:Using Array API dispatch:UserWarning")
def test_sklearns_own_check(case):
    call = functools.partial(check_array_api_input, case, ESTIMATORS[case],
                             array_namespace="webarray", dtype_name="float32")
    failure = SKLEARN_OWN_CHECK_FAILURES.get(case)
    if failure is None:
        call()
    else:
        with pytest.raises(failure.exc, match=failure.match):
            call()


def test_sklearns_own_check_covers_the_tagged_estimators():
    assert len(SKLEARN_OWN_CHECKS) >= 20
    assert set(SKLEARN_OWN_CHECK_FAILURES) <= set(SKLEARN_OWN_CHECKS)


# -- the support table -------------------------------------------------------------------------

def support_table() -> str:
    def rows(cases):
        for case in cases:
            f = EXPECTED_FAILURES.get(case)
            yield f"| `{case}` | " + ("works |" if f is None else f"fails ({f.kind}): {f.why} |")

    est_ok = sum(c not in EXPECTED_FAILURES for c in ALL_ESTIMATORS)
    metric_ok = sum(c not in EXPECTED_FAILURES for c in METRIC_CASES)
    metrics = {_metric_name(m) for m in array_api_metric_checkers}
    metrics_ok = {_metric_name(m) for m, _ in (METRIC_CASES[c] for c in METRIC_CASES)} - {
        _metric_name(METRIC_CASES[c][0]) for c in EXPECTED_FAILURES if c in METRIC_CASES}
    guide_ok = sum(c not in EXPECTED_FAILURES for c in USER_GUIDE_METRICS)
    lines = [
        f"scikit-learn {sklearn.__version__}: estimators {est_ok}/{len(ALL_ESTIMATORS)} "
        f"({len(ESTIMATORS)} tagged + {len(DOCUMENTED_CONFIGURATIONS)} documented "
        f"configurations + {len(USER_GUIDE_ONLY)} named only in the user guide), metric "
        f"checks {metric_ok}/{len(METRIC_CASES)} (metrics passing every check: "
        f"{len(metrics_ok)}/{len(metrics)}), user-guide metrics without a checker "
        f"{guide_ok}/{len(USER_GUIDE_METRICS)}, tools {len(TOOLS)}/{len(TOOLS)}.",
        "",
        "| estimator | on webarray |",
        "| --- | --- |",
        *rows(ALL_ESTIMATORS),
        "",
        "| metric - scikit-learn checker | on webarray |",
        "| --- | --- |",
        *rows(METRIC_CASES),
        "",
        "| user-guide metric without a checker | on webarray |",
        "| --- | --- |",
        *rows(USER_GUIDE_METRICS),
        "",
        "| tool | on webarray |",
        "| --- | --- |",
        *rows(TOOLS),
    ]
    return "\n".join(lines) + "\n"


def _marked(text: str, name: str) -> str:
    m = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"docs/ecosystem.md has no <!-- {name}:start/end --> markers"
    return m.group(1)


def write_or_check_table(name: str, table: str):
    """WEBARRAY_WRITE_DOCS=1 rewrites the marked table in docs/ecosystem.md."""
    text = DOCS.read_text()
    if os.environ.get("WEBARRAY_WRITE_DOCS") == "1":
        start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
        _marked(text, name)
        head, rest = text.split(start, 1)
        DOCS.write_text(head + start + table + end + rest.split(end, 1)[1])
        return
    assert _marked(text, name) == table, (
        f"docs/ecosystem.md's {name} table is out of date: "
        "WEBARRAY_WRITE_DOCS=1 pytest tests/test_ecosystem_*.py -k support_table")


def test_support_table_in_docs():
    write_or_check_table("sklearn-table", support_table())
