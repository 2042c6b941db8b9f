"""SciPy (``SCIPY_ARRAY_API=1``) on webarray arrays (native device), each result compared
with SciPy on the same NumPy float32 input.

Where the list comes from: SciPy's own registry of array-API support,
``scipy._lib._array_api.xp_capabilities_table``, filled by the ``@xp_capabilities``
decorator that also writes the support table into each function's docstring. A public
function of scipy.special, stats, fft, signal, ndimage or cluster (.vq, .hierarchy) is
*declared* when it is in that table and is not NumPy-only or out of scope, and
array-api-strict (SciPy's stand-in for "any standard library") is not skipped for it.
``cpu_only`` functions are declared for CPU devices: SciPy converts their input with
``numpy.asarray`` and the result back with ``xp.asarray``; they are counted apart.

Each function is called on small fixed inputs (``CALLS``: one entry per function whose
arguments are not just "one float32 array"), with NumPy arrays for the reference and
webarray arrays for the result; every array in the result must be a webarray array on
the device (unless NumPy's is not an array either) and agree within float32 tolerance.
A function that does not work is listed in ``EXPECTED_FAILURES`` with its exception and
message fragment; the support table in docs/ecosystem.md is rendered from these lists.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import re
import warnings
from pathlib import Path
from typing import NamedTuple

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np
import pytest

import webarray as xp

scipy = pytest.importorskip("scipy", reason="SciPy is not installed (pip install -e '.[ecosystem]')")
from scipy._lib._array_api import SCIPY_ARRAY_API, xp_capabilities_table  # noqa: E402

if not SCIPY_ARRAY_API:
    pytest.skip("SciPy was imported before SCIPY_ARRAY_API=1 was set", allow_module_level=True)

import scipy.cluster.hierarchy  # noqa: E402
import scipy.cluster.vq  # noqa: E402
from scipy.special._support_alternative_backends import _special_funcs  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "ecosystem.md"
DEVICE = xp.__array_namespace_info__().default_device()
RTOL, ATOL = 2e-4, 1e-5
MODULES = {
    "special": ("scipy.special",),
    "stats": ("scipy.stats",),
    "fft": ("scipy.fft",),
    "signal": ("scipy.signal",),
    "ndimage": ("scipy.ndimage",),
    "cluster": ("scipy.cluster.vq", "scipy.cluster.hierarchy"),
}


def _declared() -> dict[str, tuple[object, bool]]:
    """'module.name' -> (function, cpu_only), in module order."""
    out = {}
    for module, subs in MODULES.items():
        for sub in subs:
            mod = importlib.import_module(sub)
            for name in sorted(dir(mod)):
                f = getattr(mod, name)
                if name.startswith("_"):
                    continue
                try:
                    cap = xp_capabilities_table.get(f)
                except TypeError:  # unhashable
                    continue
                if cap is None or cap["out_of_scope"]:
                    continue
                if cap["np_only"] and "array_api_strict" not in cap["exceptions"]:
                    continue
                if any(b == "array_api_strict" for b, _ in [*cap["skip_backends"], *cap["xfail_backends"]]):
                    continue
                out[f"{module}.{name}"] = (f, bool(cap["cpu_only"]))
    return out


DECLARED = _declared()

# -- inputs ------------------------------------------------------------------------------------

_rng = np.random.default_rng(1234)
V1 = _rng.uniform(0.5, 2.0, 16).astype(np.float32)
V2 = _rng.uniform(0.5, 2.5, 16).astype(np.float32)
V3 = _rng.uniform(0.2, 2.2, 16).astype(np.float32)
P = _rng.uniform(0.05, 0.95, 16).astype(np.float32)  # probabilities
M = _rng.uniform(0.5, 2.0, (6, 8)).astype(np.float32)  # a small matrix / image
M16 = _rng.uniform(0.5, 2.0, (16, 16)).astype(np.float32)  # the 2-D splines need 16 x 16
C1 = (V1 + 1j * V2).astype(np.complex64)
ANGLES = _rng.uniform(0.0, 6.0, 16).astype(np.float32)
B_FIR = np.asarray([0.2, 0.5, 0.3], np.float32)
A_IIR = np.asarray([1.0, -0.5, 0.2], np.float32)
SOS = np.asarray([[0.2, 0.4, 0.2, 1.0, -0.3, 0.1]], np.float32)
ZEROS, POLES = np.asarray([-1.0, -1.0], np.float32), np.asarray([0.5, -0.3], np.float32)
OBS = np.concatenate([_rng.normal(0, 0.3, (8, 2)), _rng.normal(3, 0.3, (8, 2))]).astype(np.float32)
# condensed distances of 6 points; a linkage matrix over them (SciPy requires float64
# linkage matrices), its inconsistency matrix and a flat clustering
YDIST = np.asarray([_rng.uniform(1, 2) for _ in range(15)], np.float32)
LINK = scipy.cluster.hierarchy.linkage(YDIST.astype(np.float64))
INCONS = scipy.cluster.hierarchy.inconsistent(LINK)
FLAT = scipy.cluster.hierarchy.fcluster(LINK, 3, criterion="maxclust").astype(np.int32)
IMG = (_rng.uniform(0, 1, (8, 8)) > 0.5).astype(np.float32)
LABELS = np.asarray(_rng.integers(0, 3, (6, 8)), np.int32)


def _special_call(info):
    """SciPy's own test metadata for special functions: n_args arrays, int32 where the
    argument is integral, else values in (0.05, 0.95) (inside every function's domain)."""
    ints = np.asarray([1, 2, 3, 4, 2, 3, 1, 2], np.int32)

    def call(f, A, ns):
        return f(*(A(ints if info.int_only and info.int_only[i] else P[:8])
                   for i in range(info.n_args)))
    return call


def _one(f, A, ns):
    return f(A(V1))


def _two(f, A, ns):
    return f(A(V1), A(V2))


def _three(f, A, ns):
    return f(A(V1), A(V2), A(V3))


CALLS = {
    # stats
    "stats.alexandergovern": _three, "stats.bartlett": _three, "stats.f_oneway": _three,
    "stats.fligner": _three, "stats.friedmanchisquare": _three, "stats.kruskal": _three,
    "stats.levene": _three,
    "stats.ansari": _two, "stats.brunnermunzel": _two, "stats.chatterjeexi": _two,
    "stats.cramervonmises_2samp": _two, "stats.epps_singleton_2samp": _two,
    "stats.mannwhitneyu": _two, "stats.mood": _two, "stats.pearsonr": _two,
    "stats.spearmanrho": _two, "stats.ttest_ind": _two, "stats.ttest_rel": _two,
    "stats.wilcoxon": _two, "stats.zmap": _two,
    "stats.bootstrap": lambda f, A, ns: f((A(V1),), lambda x, axis: ns.mean(x, axis=axis),
                                          n_resamples=99, rng=0),
    "stats.monte_carlo_test": lambda f, A, ns: f(
        A(V1), lambda size: ns.asarray(np.random.default_rng(0).normal(size=size).astype(np.float32)),
        lambda x, axis: ns.mean(x, axis=axis), n_resamples=99),
    "stats.permutation_test": lambda f, A, ns: f(
        (A(V1), A(V2)), lambda x, y, axis: ns.mean(x, axis=axis) - ns.mean(y, axis=axis),
        n_resamples=99, rng=0),
    "stats.power": lambda f, A, ns: f(
        scipy.stats.ttest_ind,
        (lambda size: ns.asarray(np.random.default_rng(0).normal(size=size).astype(np.float32)),) * 2,
        (A(np.asarray([10, 20], np.int32)), A(np.asarray([10, 20], np.int32))), n_resamples=99),
    "stats.boxcox_llf": lambda f, A, ns: f(0.5, A(V1)),
    "stats.yeojohnson_llf": lambda f, A, ns: f(0.5, A(V1)),
    "stats.combine_pvalues": lambda f, A, ns: f(A(P)),
    "stats.false_discovery_control": lambda f, A, ns: f(A(P)),
    "stats.cramervonmises": lambda f, A, ns: f(A(V1), scipy.special.ndtr),
    "stats.ks_1samp": lambda f, A, ns: f(A(V1), scipy.special.ndtr),
    "stats.circmean": lambda f, A, ns: f(A(ANGLES)),
    "stats.circstd": lambda f, A, ns: f(A(ANGLES)),
    "stats.circvar": lambda f, A, ns: f(A(ANGLES)),
    "stats.directional_stats": lambda f, A, ns: f(A(M[:, :3] / np.linalg.norm(M[:, :3], axis=1, keepdims=True))),
    "stats.chisquare": lambda f, A, ns: f(A(V1), A(V2 * (V1.sum() / V2.sum()))),
    "stats.power_divergence": lambda f, A, ns: f(A(V1), A(V2 * (V1.sum() / V2.sum()))),
    "stats.entropy": _two,
    "stats.moment": lambda f, A, ns: f(A(V1), order=3),
    "stats.pmean": lambda f, A, ns: f(A(V1), 1.5),
    "stats.quantile": lambda f, A, ns: f(A(V1), A(np.asarray([0.25, 0.5], np.float32))),
    "stats.trim_mean": lambda f, A, ns: f(A(V1), 0.1),
    "stats.ttest_1samp": lambda f, A, ns: f(A(V1), 1.0),
    "stats.ttest_ind_from_stats": lambda f, A, ns: f(A(V1[:2]), A(V2[:2]), A(np.asarray([10.0, 12.0], np.float32)),
                                                     A(V2[2:4]), A(V1[2:4]), A(np.asarray([11.0, 9.0], np.float32))),
    "stats.lmoment": lambda f, A, ns: f(A(V1)),
    "stats.tmax": lambda f, A, ns: f(A(V1), 1.5),
    "stats.tmin": lambda f, A, ns: f(A(V1), 1.0),
    "stats.tmean": lambda f, A, ns: f(A(V1), (0.7, 1.8)),
    "stats.tvar": lambda f, A, ns: f(A(V1), (0.7, 1.8)),
    "stats.tstd": lambda f, A, ns: f(A(V1), (0.7, 1.8)),
    "stats.tsem": lambda f, A, ns: f(A(V1), (0.7, 1.8)),
    "stats.kstat": lambda f, A, ns: f(A(V1), 3),
    "stats.kstatvar": lambda f, A, ns: f(A(V1), 2),
    # fft
    **{f"fft.{n}": (lambda f, A, ns: f(A(M))) for n in (
        "fft2", "ifft2", "fftn", "ifftn", "rfft2", "rfftn", "ihfft2", "ihfftn", "dctn", "idctn",
        "dstn", "idstn")},
    **{f"fft.{n}": (lambda f, A, ns: f(A((M + 1j * M[::-1]).astype(np.complex64)))) for n in (
        "irfft2", "irfftn", "hfft2", "hfftn")},
    **{f"fft.{n}": (lambda f, A, ns: f(A(C1))) for n in ("irfft", "hfft")},
    "fft.fftfreq": lambda f, A, ns: f(8, 0.5, xp=ns),
    "fft.rfftfreq": lambda f, A, ns: f(8, 0.5, xp=ns),
    "fft.fht": lambda f, A, ns: f(A(V1), 0.1, 0.5),
    "fft.ifht": lambda f, A, ns: f(A(V1), 0.1, 0.5),
    # signal
    "signal.abcd_normalize": lambda f, A, ns: f(A(M[:2, :2]), A(M[:2, 2:3]), A(M[2:3, :2]), A(M[3:4, :1])),
    "signal.bessel": lambda f, A, ns: f(3, A(np.asarray(0.3, np.float32))),
    "signal.butter": lambda f, A, ns: f(3, A(np.asarray(0.3, np.float32))),
    "signal.cheby1": lambda f, A, ns: f(3, 1.0, A(np.asarray(0.3, np.float32))),
    "signal.cheby2": lambda f, A, ns: f(3, 20.0, A(np.asarray(0.3, np.float32))),
    "signal.ellip": lambda f, A, ns: f(3, 1.0, 20.0, A(np.asarray(0.3, np.float32))),
    "signal.iirfilter": lambda f, A, ns: f(3, A(np.asarray([0.2, 0.4], np.float32))),
    "signal.iirdesign": lambda f, A, ns: f(A(np.asarray(0.2, np.float32)), A(np.asarray(0.3, np.float32)), 1, 40),
    "signal.besselap": lambda f, A, ns: f(3, xp=ns),
    "signal.buttap": lambda f, A, ns: f(3, xp=ns),
    "signal.cheb1ap": lambda f, A, ns: f(3, 1.0, xp=ns),
    "signal.cheb2ap": lambda f, A, ns: f(3, 20.0, xp=ns),
    "signal.ellipap": lambda f, A, ns: f(3, 1.0, 20.0, xp=ns),
    "signal.gammatone": lambda f, A, ns: f(440, "fir", fs=16000, numtaps=16, xp=ns),
    "signal.get_window": lambda f, A, ns: f("hann", 8, xp=ns),
    "signal.iircomb": lambda f, A, ns: f(1000.0, 30.0, fs=8000.0, xp=ns),
    "signal.iirnotch": lambda f, A, ns: f(0.3, 30.0, xp=ns),
    "signal.iirpeak": lambda f, A, ns: f(0.3, 30.0, xp=ns),
    "signal.savgol_coeffs": lambda f, A, ns: f(5, 2, xp=ns),
    **{f"signal.{n}": (lambda f, A, ns: f(A(np.asarray(0.2, np.float32)), A(np.asarray(0.3, np.float32)), 1, 40))
       for n in ("buttord", "cheb1ord", "cheb2ord", "ellipord")},
    "signal.bilinear": lambda f, A, ns: f(A(B_FIR), A(A_IIR)),
    "signal.bilinear_zpk": lambda f, A, ns: f(A(ZEROS), A(POLES), 1.0, 2.0),
    "signal.bode": lambda f, A, ns: f((A(B_FIR), A(A_IIR)), n=8),
    "signal.impulse": lambda f, A, ns: f((A(B_FIR[:1]), A(A_IIR)), N=8),
    "signal.choose_conv_method": lambda f, A, ns: f(A(V1), A(B_FIR)),
    **{f"signal.{n}": (lambda f, A, ns: f(A(V1), A(B_FIR))) for n in (
        "convolve", "correlate", "fftconvolve", "oaconvolve", "deconvolve")},
    "signal.convolve2d": lambda f, A, ns: f(A(M), A(M[:2, :3])),
    "signal.correlate2d": lambda f, A, ns: f(A(M), A(M[:2, :3])),
    "signal.cspline1d_eval": lambda f, A, ns: f(A(V1), A(np.linspace(0, 15, 7).astype(np.float32))),
    "signal.qspline1d_eval": lambda f, A, ns: f(A(V1), A(np.linspace(0, 15, 7).astype(np.float32))),
    "signal.cspline2d": lambda f, A, ns: f(A(M16)),
    "signal.envelope": _one,
    "signal.filtfilt": lambda f, A, ns: f(A(B_FIR), A(A_IIR), A(V1)),
    "signal.lfilter": lambda f, A, ns: f(A(B_FIR), A(A_IIR), A(V1)),
    "signal.lfilter_zi": lambda f, A, ns: f(A(B_FIR), A(A_IIR)),
    "signal.lfiltic": lambda f, A, ns: f(A(B_FIR), A(A_IIR), A(V1[:2])),
    "signal.firls": lambda f, A, ns: f(7, A(np.asarray([0, 0.3, 0.5, 1], np.float32)), A(np.asarray([1, 1, 0, 0], np.float32))),
    "signal.firwin": lambda f, A, ns: f(9, A(np.asarray(0.3, np.float32))),
    "signal.firwin2": lambda f, A, ns: f(9, A(np.asarray([0, 0.5, 1], np.float32)), A(np.asarray([1, 1, 0], np.float32))),
    "signal.remez": lambda f, A, ns: f(9, A(np.asarray([0, 0.1, 0.2, 0.5], np.float32)), A(np.asarray([1, 0], np.float32))),
    "signal.freqs": lambda f, A, ns: f(A(B_FIR), A(A_IIR), worN=8),
    "signal.freqz": lambda f, A, ns: f(A(B_FIR), A(A_IIR), worN=8),
    "signal.freqs_zpk": lambda f, A, ns: f(A(ZEROS), A(POLES), 1.0, worN=8),
    "signal.freqz_zpk": lambda f, A, ns: f(A(ZEROS), A(POLES), 1.0, worN=8),
    "signal.freqz_sos": lambda f, A, ns: f(A(SOS), worN=8),
    "signal.sosfreqz": lambda f, A, ns: f(A(SOS), worN=8),
    "signal.group_delay": lambda f, A, ns: f((A(B_FIR), A(A_IIR)), w=8),
    "signal.gauss_spline": lambda f, A, ns: f(A(V1), 3),
    "signal.hilbert2": lambda f, A, ns: f(A(M)),
    **{f"signal.{n}": (lambda f, A, ns: f(A(B_FIR), A(A_IIR))) for n in (
        "lp2bp", "lp2bs", "lp2hp", "lp2lp", "normalize", "tf2sos", "tf2zpk")},
    **{f"signal.{n}": (lambda f, A, ns: f(A(ZEROS), A(POLES), 1.0)) for n in (
        "lp2bp_zpk", "lp2bs_zpk", "lp2hp_zpk", "lp2lp_zpk", "zpk2sos", "zpk2tf")},
    "signal.medfilt2d": lambda f, A, ns: f(A(M)),
    "signal.minimum_phase": lambda f, A, ns: f(A(np.asarray([0.1, 0.3, 0.5, 0.3, 0.1], np.float32))),
    "signal.order_filter": lambda f, A, ns: f(A(V1), A(np.ones(3, np.float32)), 1),
    "signal.place_poles": lambda f, A, ns: f(A(np.asarray([[0, 1], [-2, -3]], np.float32)),
                                             A(np.asarray([[0], [1]], np.float32)),
                                             A(np.asarray([-1.0, -2.0], np.float32))),
    "signal.resample": lambda f, A, ns: f(A(V1), 8),
    "signal.resample_poly": lambda f, A, ns: f(A(V1), 2, 3),
    "signal.savgol_filter": lambda f, A, ns: f(A(V1), 5, 2),
    "signal.sos2tf": lambda f, A, ns: f(A(SOS)),
    "signal.sos2zpk": lambda f, A, ns: f(A(SOS)),
    "signal.sosfilt": lambda f, A, ns: f(A(SOS), A(V1)),
    "signal.sosfiltfilt": lambda f, A, ns: f(A(SOS), A(V1)),
    "signal.sosfilt_zi": lambda f, A, ns: f(A(SOS)),
    "signal.spline_filter": lambda f, A, ns: f(A(M16)),
    "signal.upfirdn": lambda f, A, ns: f(A(B_FIR), A(V1), 2, 1),
    "signal.vectorstrength": lambda f, A, ns: f(A(np.cumsum(V1)), 2.0),
    "signal.wiener": lambda f, A, ns: f(A(M)),
    # ndimage
    **{f"ndimage.{n}": (lambda f, A, ns: f(A(M), 1.0)) for n in (
        "gaussian_filter", "gaussian_filter1d", "gaussian_gradient_magnitude", "gaussian_laplace",
        "fourier_gaussian", "fourier_uniform", "fourier_ellipsoid", "fourier_shift", "shift", "zoom")},
    **{f"ndimage.{n}": (lambda f, A, ns: f(A(M), size=3)) for n in (
        "black_tophat", "white_tophat", "grey_closing", "grey_dilation", "grey_erosion", "grey_opening",
        "maximum_filter", "minimum_filter", "median_filter", "morphological_gradient",
        "morphological_laplace", "uniform_filter")},
    **{f"ndimage.{n}": (lambda f, A, ns: f(A(M), 3)) for n in (
        "maximum_filter1d", "minimum_filter1d", "uniform_filter1d")},
    **{f"ndimage.{n}": (lambda f, A, ns: f(A(IMG))) for n in (
        "binary_closing", "binary_dilation", "binary_erosion", "binary_fill_holes",
        "binary_hit_or_miss", "binary_opening", "distance_transform_bf", "distance_transform_cdt",
        "distance_transform_edt", "label")},
    "ndimage.find_objects": lambda f, A, ns: f(A(LABELS)),
    "ndimage.binary_propagation": lambda f, A, ns: f(A(IMG), mask=A(IMG)),
    **{f"ndimage.{n}": (lambda f, A, ns: f(A(M), A(LABELS), A(np.asarray([1, 2], np.int32)))) for n in (
        "center_of_mass", "extrema", "maximum", "maximum_position", "mean", "median", "minimum",
        "minimum_position", "standard_deviation", "sum", "sum_labels", "variance")},
    "ndimage.convolve": lambda f, A, ns: f(A(M), A(M[:3, :3])),
    "ndimage.correlate": lambda f, A, ns: f(A(M), A(M[:3, :3])),
    "ndimage.convolve1d": lambda f, A, ns: f(A(M), A(B_FIR)),
    "ndimage.correlate1d": lambda f, A, ns: f(A(M), A(B_FIR)),
    "ndimage.affine_transform": lambda f, A, ns: f(A(M), A(np.asarray([[1.0, 0.1], [0.0, 0.9]], np.float32))),
    "ndimage.geometric_transform": lambda f, A, ns: f(A(M), lambda c: (c[0] * 0.9, c[1] * 0.8)),
    "ndimage.map_coordinates": lambda f, A, ns: f(A(M), A(np.asarray([[0.5, 2.0], [1.5, 3.2]], np.float32))),
    "ndimage.rotate": lambda f, A, ns: f(A(M), 30.0),
    "ndimage.generic_filter": lambda f, A, ns: f(A(M), lambda v: v.max(), size=3),
    "ndimage.generic_filter1d": lambda f, A, ns: f(A(M), lambda i, o: o.__setitem__(slice(None), i[1:-1]), 3),
    "ndimage.generic_gradient_magnitude": lambda f, A, ns: f(A(M), scipy.ndimage.sobel),
    "ndimage.generic_laplace": lambda f, A, ns: f(A(M), lambda i, axis, output, mode, cval: scipy.ndimage.correlate1d(i, [1, -2, 1], axis, output, mode, cval)),
    "ndimage.vectorized_filter": lambda f, A, ns: f(A(M), ns.mean, size=3),
    "ndimage.histogram": lambda f, A, ns: f(A(M), 0.5, 2.0, 4),
    "ndimage.iterate_structure": lambda f, A, ns: f(A(np.asarray([[0, 1, 0], [1, 1, 1], [0, 1, 0]], np.int32)), 2),
    "ndimage.labeled_comprehension": lambda f, A, ns: f(A(M), A(LABELS), A(np.asarray([1, 2], np.int32)), np.mean, np.float32, 0.0),
    "ndimage.percentile_filter": lambda f, A, ns: f(A(M), 50, size=3),
    "ndimage.rank_filter": lambda f, A, ns: f(A(M), 1, size=3),
    "ndimage.value_indices": lambda f, A, ns: f(A(LABELS)),
    "ndimage.watershed_ift": lambda f, A, ns: f(A((M * 50).astype(np.uint8)), A((LABELS * (LABELS == 2)).astype(np.int32))),
    # cluster
    "cluster.kmeans": lambda f, A, ns: f(A(OBS), A(OBS[[0, 8]])),
    "cluster.kmeans2": lambda f, A, ns: f(A(OBS), A(OBS[[0, 8]]), minit="matrix"),
    "cluster.vq": lambda f, A, ns: f(A(OBS), A(OBS[[0, 8]])),
    "cluster.whiten": lambda f, A, ns: f(A(OBS)),
    "cluster.cophenet": lambda f, A, ns: f(A(LINK), A(YDIST)),
    "cluster.correspond": lambda f, A, ns: f(A(LINK), A(YDIST)),
    "cluster.dendrogram": lambda f, A, ns: f(A(LINK), no_plot=True),
    "cluster.fcluster": lambda f, A, ns: f(A(LINK), 1.5, criterion="distance"),
    "cluster.fclusterdata": lambda f, A, ns: f(A(OBS), 1.0, criterion="distance"),
    "cluster.from_mlab_linkage": lambda f, A, ns: f(A(np.column_stack([LINK[:, :2] + 1, LINK[:, 2]]).astype(np.float32))),
    "cluster.is_isomorphic": lambda f, A, ns: f(A(np.asarray([1, 1, 2, 2], np.int32)), A(np.asarray([3, 3, 1, 1], np.int32))),
    "cluster.is_valid_im": lambda f, A, ns: f(A(INCONS.astype(np.float32))),
    "cluster.leaders": lambda f, A, ns: f(A(LINK), A(FLAT)),
    "cluster.maxRstat": lambda f, A, ns: f(A(LINK), A(INCONS), 3),
    "cluster.maxinconsts": lambda f, A, ns: f(A(LINK), A(INCONS)),
    "cluster.optimal_leaf_ordering": lambda f, A, ns: f(A(LINK), A(YDIST)),
    "cluster.linkage": lambda f, A, ns: f(A(YDIST)),
    **{f"cluster.{n}": (lambda f, A, ns: f(A(YDIST))) for n in (
        "average", "centroid", "complete", "median", "single", "ward", "weighted")},
    **{f"cluster.{n}": (lambda f, A, ns: f(A(LINK))) for n in (
        "inconsistent", "is_monotonic", "is_valid_linkage", "leaves_list", "maxdists",
        "num_obs_linkage", "to_mlab_linkage", "to_tree")},
}
for _info in _special_funcs:
    CALLS.setdefault(f"special.{_info.name}", _special_call(_info))
CALLS["special.digamma"] = CALLS["special.psi"]
CALLS["special.multigammaln"] = lambda f, A, ns: f(A(V1 + 2), 3)


# -- comparison --------------------------------------------------------------------------------

def _leaves(r, path="result"):
    """(path, value) for every number or array inside a result (tuples, named tuples,
    SciPy's result objects, dicts, lists of arrays)."""
    if isinstance(r, (np.ndarray, np.generic, int, float, complex, bool, str)) or hasattr(
            r, "__array_namespace__"):
        yield path, r
    elif isinstance(r, slice):
        yield path, repr(r)
    elif isinstance(r, dict):
        for k in sorted(r, key=str):
            yield from _leaves(r[k], f"{path}[{k!r}]")
    elif isinstance(r, (tuple, list)):
        for i, v in enumerate(r):
            yield from _leaves(v, f"{path}[{i}]")
    elif dataclasses.is_dataclass(r) or hasattr(r, "__dict__"):
        fields = [f.name for f in dataclasses.fields(r)] if dataclasses.is_dataclass(r) else sorted(vars(r))
        for k in fields:
            if not k.startswith("_"):
                yield from _leaves(getattr(r, k), f"{path}.{k}")


def _compare(got, want, ns=xp):
    g_leaves, w_leaves = list(_leaves(got)), list(_leaves(want))
    assert [p for p, _ in g_leaves] == [p for p, _ in w_leaves], "results differ in structure"
    assert w_leaves, "nothing to compare"
    for (path, g), (_, w) in zip(g_leaves, w_leaves):
        if isinstance(w, np.ndarray):
            assert hasattr(g, "__array_namespace__") and g.__array_namespace__() is ns, (
                f"{path} is {type(g).__module__}.{type(g).__name__}, not a {ns.__name__} array")
            if ns is xp:
                assert g.device == DEVICE
            g = np.from_dlpack(g)
        elif hasattr(g, "__array_namespace__"):
            g = np.from_dlpack(g)
        w = np.asarray(w)
        g = np.asarray(g)
        assert g.shape == w.shape, (path, g.shape, w.shape)
        if w.dtype.kind in "fc" and g.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(g, w, err_msg=path)


def run_case(case: str, ns=xp):
    """Compare ``case`` on namespace ns (webarray; any other standard namespace for a
    control run) with NumPy."""
    f, _ = DECLARED[case]
    call = CALLS.get(case, _one)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = call(f, np.asarray, np)
        except Exception as e:  # the inputs in CALLS are wrong, not webarray
            raise AssertionError(f"{case} fails on NumPy: {type(e).__name__}: {e}") from e
        got = call(f, ns.asarray, ns)
    _compare(got, want, ns)


# -- expectations ------------------------------------------------------------------------------

class Failure(NamedTuple):
    exc: type[BaseException]
    match: str
    kind: str  # "SciPy" | "webarray bug" | "webarray: not implemented"
    why: str


# Found by running each function alone, and checked by test_function (exception type and
# message fragment); the text says why. Since float64 and complex128 are on every device,
# the functions that failed only for want of them (SciPy's own float64 constants and
# results, `xp.asarray` of NumPy float64) run and agree with NumPy.
EXPECTED_FAILURES: dict[str, Failure] = {
    "fft.fht": Failure(
        TypeError, "in-place multiply would change x's dtype from complex64 to complex128", "SciPy",
        "fht (fft/_fftlog_backend.py) updates its complex64 transform in place with the "
        "complex128 coefficients `u` it builds with NumPy (array-api-strict refuses it too)"),
    "fft.ifht": Failure(
        TypeError, "in-place divide would change x's dtype from complex64 to complex128", "SciPy",
        "ifht (fft/_fftlog_backend.py) updates its complex64 transform in place with the "
        "complex128 coefficients `u` it builds with NumPy (array-api-strict refuses it too)"),
    "signal.bode": Failure(
        AssertionError, r"result\[0\] is numpy.ndarray, not a webarray array", "SciPy",
        "returns NumPy arrays for array-API input (the same on array-api-strict)"),
    "signal.impulse": Failure(
        AssertionError, r"result\[0\] is numpy.ndarray, not a webarray array", "SciPy",
        "returns NumPy arrays for array-API input (the same on array-api-strict)"),
    "signal.place_poles": Failure(
        AssertionError, r"result.X is numpy.ndarray, not a webarray array", "SciPy",
        "returns NumPy arrays in its result object (array-api-strict: TypeError)"),
    "signal.cspline2d": Failure(
        AssertionError, "result is numpy.ndarray, not a webarray array", "SciPy",
        "returns a NumPy array for array-API input (the same on array-api-strict)"),
    "signal.minimum_phase": Failure(
        AttributeError, "'Array' object has no attribute 'real'", "SciPy",
        "uses the non-standard attribute `h_temp.real` (the standard has xp.real)"),
    "signal.tf2zpk": Failure(
        AssertionError, "Mismatched elements: 2 / 2", "SciPy",
        "the array-API path (companion-matrix eigvals) returns complex roots in another "
        "order than the NumPy path's real np.roots (the same on array-api-strict)"),
}


# -- the tests ---------------------------------------------------------------------------------

def test_declared_lists_are_not_empty():
    for module in MODULES:
        n = sum(c.startswith(f"{module}.") for c in DECLARED)
        assert n > 0, f"SciPy declares no array-API function in scipy.{module}?"


def test_vendored_array_api_compat_finds_webarray():
    from scipy._lib._array_api import array_namespace, xp_result_type

    x = xp.asarray([1.0, 2.0])
    assert array_namespace(x) is xp
    assert xp_result_type(x, force_floating=True, xp=xp) == xp.float32


@pytest.mark.parametrize("case", list(DECLARED))
def test_function(case):
    failure = EXPECTED_FAILURES.get(case)
    if failure is None:
        run_case(case)
    else:
        with pytest.raises(failure.exc, match=failure.match):
            run_case(case)


def test_expected_failures_name_declared_functions():
    assert set(EXPECTED_FAILURES) <= set(DECLARED), sorted(set(EXPECTED_FAILURES) - set(DECLARED))


# -- the support table -------------------------------------------------------------------------

def support_table() -> str:
    lines = [f"SciPy {scipy.__version__}: functions SciPy declares array-API support for "
             "(CPU-only ones in brackets), and how many work on webarray.", "",
             "| module | declared | works on webarray |", "| --- | --- | --- |"]
    for module in MODULES:
        cases = [c for c in DECLARED if c.startswith(f"{module}.")]
        cpu = [c for c in cases if DECLARED[c][1]]
        ok = [c for c in cases if c not in EXPECTED_FAILURES]
        ok_cpu = [c for c in ok if DECLARED[c][1]]
        lines.append(f"| scipy.{module} | {len(cases)} ({len(cpu)}) | {len(ok)} ({len(ok_cpu)}) |")
    total_ok = sum(c not in EXPECTED_FAILURES for c in DECLARED)
    lines += [f"| all | {len(DECLARED)} | {total_ok} |", "",
              "| function | CPU-only | on webarray |", "| --- | --- | --- |"]
    for case, (_, cpu_only) in DECLARED.items():
        f = EXPECTED_FAILURES.get(case)
        state = "works" if f is None else f"fails ({f.kind}): {f.why}"
        lines.append(f"| `scipy.{case}` | {'yes' if cpu_only else ''} | {state.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def test_support_table_in_docs():
    text = DOCS.read_text()
    name = "scipy-table"
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    m = re.search(rf"{re.escape(start)}(.*?){re.escape(end)}", text, re.S)
    assert m, f"docs/ecosystem.md has no {start.strip()} ... {end} markers"
    if os.environ.get("WEBARRAY_WRITE_DOCS") == "1":
        DOCS.write_text(text[:m.start(1)] + support_table() + text[m.end(1):])
        return
    assert m.group(1) == support_table(), (
        "docs/ecosystem.md's SciPy table is out of date: "
        "WEBARRAY_WRITE_DOCS=1 pytest tests/test_ecosystem_scipy.py -k support_table")
