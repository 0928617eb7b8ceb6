"""mx.random: seeding, shapes, dtypes, ranges and bad parameters."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd


def test_seed_makes_draws_repeatable():
    mx.random.seed(7)
    a = nd.random.uniform(shape=(3, 2)).asnumpy()
    b = nd.random.normal(shape=(4,)).asnumpy()
    mx.random.seed(7)
    np.testing.assert_array_equal(a, nd.random.uniform(shape=(3, 2)).asnumpy())
    np.testing.assert_array_equal(b, nd.random.normal(shape=(4,)).asnumpy())


def test_shapes_dtypes_and_ranges():
    u = nd.random.uniform(-2, 3, shape=(1000,))
    assert u.dtype == np.float32 and u.shape == (1000,)
    assert u.asnumpy().min() >= -2 and u.asnumpy().max() < 3
    n = nd.random.normal(1.0, 0.5, shape=(20000,), dtype="float64")
    assert n.dtype == np.float64
    assert abs(n.asnumpy().mean() - 1.0) < 0.02 and abs(n.asnumpy().std() - 0.5) < 0.02
    r = nd.random.randint(0, 5, shape=(100,))
    assert r.dtype == np.int32 and set(r.asnumpy().tolist()) <= set(range(5))
    s = nd.random.shuffle(nd.arange(10))
    assert sorted(s.asnumpy().tolist()) == list(range(10))
    assert nd.random.uniform().shape == (1,)


def test_array_parameters_broadcast():
    lo = nd.array([0., 10.])
    x = nd.random.uniform(lo, lo + 1, shape=(5,))
    assert x.shape == (2, 5)
    assert (x.asnumpy()[1] >= 10).all()


@pytest.mark.parametrize("call", [
    lambda: nd.random.normal(0, -1, shape=(2,)),
    lambda: nd.random.uniform(2, 1, shape=(2,)),
    lambda: nd.random.poisson(-1, shape=(2,)),
    lambda: nd.random.randint(5, 5, shape=(2,)),
])
def test_bad_parameters_raise_mxnet_errors(call):
    with pytest.raises(ValueError) as e:
        call()
    assert isinstance(e.value, mx.MXNetError)
