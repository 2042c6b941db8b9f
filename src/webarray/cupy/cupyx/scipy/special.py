"""``cupyx.scipy.special``: importable (Chainer imports it at start); the functions Chainer
calls from it are not offered yet, and raise NotImplementedError naming themselves."""


def _missing(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"cupyx.scipy.special.{name} is not available in webarray.cupy")

    fn.__name__ = name
    return fn


erf = _missing("erf")
erfc = _missing("erfc")
gammaln = _missing("gammaln")
digamma = _missing("digamma")
polygamma = _missing("polygamma")
zeta = _missing("zeta")
