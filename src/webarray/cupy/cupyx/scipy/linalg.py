"""``cupyx.scipy.linalg``: importable (Chainer imports it at start); its functions are not
offered yet, and raise NotImplementedError naming themselves."""


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=False):
    raise NotImplementedError("cupyx.scipy.linalg.solve_triangular is not available in webarray.cupy")
