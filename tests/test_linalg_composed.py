"""The factorizations composed of namespace operations (_linalg_composed.py: what WebGL2
runs, having no compute shaders) on the native device, with its linalg kernels set aside:
test_linalg's float32 factorization tests run again through them, against NumPy."""

import pytest

import test_linalg as base
import webarray as xp
from webarray import _linalg_composed


class _WithoutLinalg:
    """A kernel registry as WebGL2's: the native one without linalg kernels."""

    linalg = linalg_steps = None

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)


@pytest.fixture(autouse=True, scope="module")
def composed_only():
    dev = xp.__array_namespace_info__().default_device()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dev, "kernels", _WithoutLinalg(dev.kernels))
        assert _linalg_composed.available(dev)
        yield


test_cholesky_residual = base.test_cholesky_residual
test_cholesky_not_positive_definite_gives_nan = base.test_cholesky_not_positive_definite_gives_nan
test_inv_residual = base.test_inv_residual
test_solve_residual = base.test_solve_residual
test_det_and_slogdet = base.test_det_and_slogdet
test_singular_matrices = base.test_singular_matrices
test_qr_residual_and_orthogonality = base.test_qr_residual_and_orthogonality
test_qr_errors_and_rank_deficient = base.test_qr_errors_and_rank_deficient
test_eigh_residual = base.test_eigh_residual
test_eigh_repeated_eigenvalues = base.test_eigh_repeated_eigenvalues
test_svd_residual = base.test_svd_residual
test_svd_accuracy_float32 = base.test_svd_accuracy_float32
test_svd_rank_deficient_and_errors = base.test_svd_rank_deficient_and_errors
test_svd_and_eigh_of_huge_and_tiny_matrices = base.test_svd_and_eigh_of_huge_and_tiny_matrices
test_pinv_and_matrix_rank = base.test_pinv_and_matrix_rank
test_matrix_norm_singular_orders = base.test_matrix_norm_singular_orders
# eig and eigvals: on the host's QR iteration (_linalg_impl._eig_host) where no kernels are
test_eig_residual = base.test_eig_residual
test_eig_of_a_real_matrix_gives_exact_conjugate_pairs = base.test_eig_of_a_real_matrix_gives_exact_conjugate_pairs
test_eig_special_matrices = base.test_eig_special_matrices
test_conjugate_pairs_of_a_real_matrix_come_in_lapacks_order = base.test_conjugate_pairs_of_a_real_matrix_come_in_lapacks_order



def test_the_composed_functions_are_the_ones_that_run(monkeypatch):
    import numpy as np

    calls = []
    for name in ("lu", "cholesky", "qr", "jacobi"):
        def spy(*args, _f=getattr(_linalg_composed, name), _name=name):
            calls.append(_name)
            return _f(*args)
        monkeypatch.setattr(_linalg_composed, name, spy)
    a = xp.asarray(np.array([[4.0, 1.0], [1.0, 3.0]], np.float32))
    assert float(xp.linalg.det(a)) == 11.0
    assert float(xp.linalg.cholesky(a)[0, 0]) == 2.0
    xp.linalg.qr(a)
    xp.linalg.svdvals(a)
    assert sorted(set(calls)) == ["cholesky", "jacobi", "lu", "qr"]
