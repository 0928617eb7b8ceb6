"""nd.histogram, nd.multi_all_finite, nd.contrib.allclose (values and dtypes equal to MXNet
1.9.1's: tests/data/mxnet/numeric_ops.json by tools/make_numeric_fixtures.py) and the
nd.sample_* operators (MXNet's shapes and dtypes; distributions by moment checks)."""
import json
import os
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError
from mxgrad.test_utils import mean_check, var_check

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                  "numeric_ops.json")))


def _same(got, want):
    assert np.dtype(got.dtype).name == want["dtype"] and list(got.shape) == want["shape"]
    np.testing.assert_allclose(got.asnumpy(), want["value"], rtol=1e-6)


def test_histogram_matches_mxnet():
    x = nd.array(FIX["data"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = {"bins7_range": dict(bins=7, range=(-4, 5)), "bins5_norange": dict(bins=5),
                 "edges": dict(bins=nd.array([-10, -1, 0, 0.5, 3, 10]))}
        for key, kw in cases.items():
            h, e = nd.histogram(x, **kw)
            _same(h, FIX["histogram"][key][0])
            _same(e, FIX["histogram"][key][1])
    with pytest.warns(UserWarning, match="range is not specified"):
        nd.histogram(x, bins=3)
    with pytest.raises(MXNetError):
        nd.histogram(x, bins=3, range=(2, 1))


def test_allclose_and_multi_all_finite_match_mxnet():
    a = nd.array([1.0, 2.0, np.nan])
    cases = {"close": (a, a + 1e-6, {}), "far": (a, a + 1e-3, {}),
             "nan_unequal": (a, a, {"equal_nan": False}), "loose": (a, a + 1e-3, {"rtol": 1e-2})}
    for key, (p, q, kw) in cases.items():
        _same(nd.contrib.allclose(p, q, **kw), FIX["allclose"][key])
    fin, inf = nd.ones((2, 3)), nd.array([1.0, np.inf])
    _same(nd.multi_all_finite(fin, fin, num_arrays=2), FIX["multi_all_finite"]["finite"])
    _same(nd.multi_all_finite(fin, inf, num_arrays=2), FIX["multi_all_finite"]["inf"])
    flag = nd.ones((1,))
    nd.multi_all_finite(fin, out=flag, init_output=False)
    assert flag.asscalar() == 1
    nd.multi_all_finite(inf, out=flag, init_output=False)
    nd.multi_all_finite(fin, out=flag, init_output=False)
    assert flag.asscalar() == 0                     # lowered once, stays lowered
    with pytest.raises(MXNetError, match="num_arrays"):
        nd.multi_all_finite(fin, fin)


SAMPLERS = {"sample_uniform": lambda p: (p, p + 1), "sample_normal": lambda p: (p, p),
            "sample_gamma": lambda p: (p, p), "sample_exponential": lambda p: (p,),
            "sample_poisson": lambda p: (p,),
            "sample_negative_binomial": lambda p: (p + 1, p / 4),
            "sample_generalized_negative_binomial": lambda p: (p, p)}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_sample_ops_shapes_and_dtypes_match_mxnet(name):
    p = nd.array([[0.5, 1.0], [2.0, 3.0]])
    fn, want = getattr(nd, name), FIX["sample"][name]
    args = SAMPLERS[name](p)
    assert list(fn(*args, shape=3).shape) == want["shape3"]
    assert list(fn(*args).shape) == want["shape_none"]
    assert list(fn(*args, shape=(2, 3)).shape) == want["shape23"]
    assert np.dtype(fn(*args).dtype).name == want["dtype"]
    assert np.dtype(fn(*args, dtype="float64").dtype).name == want["dtype64"]


def test_sample_ops_distributions():
    mx.random.seed(0)
    def c(v):
        return nd.array([v])
    draws = {  # (sampler, mean, standard deviation)
        "normal": (lambda n: nd.sample_normal(c(2), c(3), shape=n), 2.0, 3.0),
        "uniform": (lambda n: nd.sample_uniform(c(2), c(4), shape=n), 3.0, 2 / 12 ** 0.5),
        "gamma": (lambda n: nd.sample_gamma(c(2), c(1.5), shape=n), 3.0, 2 ** 0.5 * 1.5),
        "exponential": (lambda n: nd.sample_exponential(c(4), shape=n), 0.25, 0.25),
        "poisson": (lambda n: nd.sample_poisson(c(3), shape=n), 3.0, 3 ** 0.5),
        "negative_binomial": (lambda n: nd.sample_negative_binomial(c(3), c(0.4), shape=n),
                              3 * 0.6 / 0.4, (3 * 0.6) ** 0.5 / 0.4),
        "generalized_negative_binomial": (
            lambda n: nd.sample_generalized_negative_binomial(c(2), c(0.5), shape=n),
            2.0, (2 + 0.5 * 4) ** 0.5),
    }
    for name, (gen, mu, sigma) in draws.items():
        sample = (lambda n, g=gen: g(n).asnumpy().ravel())
        assert mean_check(sample, mu, sigma, nsamples=20000), name
        assert var_check(sample, sigma, nsamples=20000), name
    with pytest.raises(MXNetError, match="one shape"):
        nd.sample_normal(nd.ones((2,)), nd.ones((3,)))
    with pytest.raises(TypeError):
        nd.sample_poisson(3.0)


def test_quantize_dequantize_match_mxnet():
    x = nd.array(FIX["quantize_input"])
    for case in FIX["quantize"]:
        q, lo, hi = nd.contrib.quantize(x, nd.array([case["lo"]]), nd.array([case["hi"]]),
                                        out_type=case["type"])
        _same(q, case["q"])
        _same(lo, case["min"])
        _same(hi, case["max"])
        _same(nd.contrib.dequantize(q, lo, hi), case["deq"])
    with pytest.raises(MXNetError, match="out_type"):
        nd.contrib.quantize(x, nd.array([0.]), nd.array([1.]), out_type="int4")
