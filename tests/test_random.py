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


@pytest.mark.parametrize("name, kw, mean, var", [
    ("uniform_like", dict(low=1.0, high=3.0), 2.0, 4.0 / 12),
    ("normal_like", dict(loc=10.0, scale=0.5), 10.0, 0.25),
    ("gamma_like", dict(alpha=9.0, beta=0.5), 4.5, 9.0 * 0.25),
    ("exponential_like", dict(lam=4.0), 0.25, 1 / 16),
    ("poisson_like", dict(lam=4.0), 4.0, 4.0),
    ("negative_binomial_like", dict(k=3, p=0.4), 3 * 0.6 / 0.4, 3 * 0.6 / 0.16),
    ("generalized_negative_binomial_like", dict(mu=2.0, alpha=0.3), 2.0, 2.0 + 0.3 * 4.0),
])
def test_like_samplers_take_shape_and_dtype_of_data(name, kw, mean, var):
    """MXNet's ``*_like`` samplers (nd and sym): ``data``'s shape and dtype, the
    distribution's moments (20,000 draws: 5 standard errors)."""
    data = mx.nd.zeros((100, 200), dtype="float64")
    mx.random.seed(3)
    x = getattr(mx.nd.random, name)(data, **kw)
    assert x.shape == (100, 200) and x.dtype == np.float64
    v = x.asnumpy()
    assert abs(v.mean() - mean) < 5 * np.sqrt(var / v.size)
    assert abs(v.var() - var) < 0.05 * var
    s = getattr(mx.sym.random, name)(mx.sym.var("d"), **kw)
    out = s.eval(d=mx.nd.zeros((3, 4), dtype="float16"))[0]
    assert out.shape == (3, 4) and out.dtype == np.float16


def test_randn_takes_ctx_and_out():
    out = mx.nd.zeros((2, 3))
    r = mx.nd.random.randn(2, 3, loc=1.0, ctx=mx.cpu(), out=out)
    assert r is out and out.asnumpy().std() > 0


def test_unique_zipfian_draws_distinct_classes_and_counts_draws():
    """MXNet's ``_sample_unique_zipfian``: distinct classes per row, the number of draws it
    took (checked against a sequential re-draw with the same generator state), int64."""
    mx.random.seed(11)
    classes, tries = mx.nd._internal._sample_unique_zipfian(1000, shape=(3, 50))
    assert classes.dtype == np.int64 and tries.dtype == np.int64
    c = classes.asnumpy()
    assert all(len(set(row)) == 50 for row in c) and c.min() >= 0 and c.max() < 1000
    mx.random.seed(11)
    gen = mx.random.generator()
    for i in range(3):       # the same draws one at a time: first 50 distinct, and when
        seen, n = [], 0
        while len(seen) < 50:
            chunk = (np.exp(gen.uniform(0.0, np.log(1001.0), size=max(2 * (50 - len(seen)),
                                                                     64))) - 1)
            for v in chunk.astype(np.int64) % 1000:
                n += 1
                if v not in seen:
                    seen.append(v)
                    if len(seen) == 50:
                        break
        assert seen == c[i].tolist() and n == tries.asnumpy()[i]
    s = mx.sym.Group(list(mx.sym._internal._sample_unique_zipfian(range_max=40, shape=(2, 5))))
    assert s.infer_shape()[1] == [(2, 5), (2,)]
    assert s.infer_type()[1] == [np.int64, np.int64]


def test_rand_zipfian_symbol_counts_match_the_distribution():
    """``mx.sym.contrib.rand_zipfian`` as ``mx.nd.contrib.rand_zipfian``: the expected count
    of a class is ``P(c) * num_sampled`` with ``P(c) = log((c + 2) / (c + 1)) / log(R + 1)``."""
    true = mx.nd.array([0, 3, 7])
    out = mx.sym.Group(mx.sym.contrib.rand_zipfian(mx.sym.var("t"), 200, 20))
    sampled, count_true, count_sampled = out.eval(t=true)
    p = lambda c: np.log((c + 2.0) / (c + 1.0)) / np.log(21.0)  # noqa: E731
    assert sampled.dtype == np.int64 and sampled.shape == (200,)
    np.testing.assert_allclose(count_true.asnumpy(), p(np.array([0, 3, 7.])) * 200)
    np.testing.assert_allclose(count_sampled.asnumpy(), p(sampled.asnumpy()) * 200)
    freq = np.bincount(sampled.asnumpy(), minlength=20) / 200.0
    assert abs(freq[0] - p(0.0)) < 0.1
