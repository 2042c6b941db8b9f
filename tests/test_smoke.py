import numpy as np
from hypothesis import given, strategies as st

import webarray as xp
from helpers import NUMERIC_NAMES, assert_equal, views


@given(st.sampled_from(NUMERIC_NAMES).flatmap(lambda n: st.tuples(st.just(n), views(n))))
def test_roundtrip(case):
    name, (a, x) = case
    assert_equal(x, a)


def test_add_broadcast():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([1.5, -2.0, 3.0], dtype=np.float32)
    assert_equal(xp.asarray(a) + xp.asarray(b), a + b)
