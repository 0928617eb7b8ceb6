"""``out=`` and NumPy's ufunc keywords of ``mx.np``'s functions, and Python floats meeting
integer arrays, against real MXNet 1.9.1 (``tests/numpy_keyword_cases.py``; fixtures by
``tools/make_numpy_keyword_fixtures.py``)."""
import os

import numpy as onp
import pytest

import mxgrad as mx
from mxgrad import autograd, nd, np, npx
from mxgrad.base import MXNetError

from numpy_keyword_cases import GRAD_CASES, REFUSED_CASES, SETUP, VALUE_CASES

FIX = onp.load(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                            "numpy_keyword_fixtures.npz"))


def _env():
    env = {"np": np, "npx": npx, "nd": nd, "onp": onp}
    exec(SETUP, env)
    return env


def _same(got, want, name):
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    # an SVD is iterative: float32 results of two LAPACK builds differ in the last bits
    tol = 1e-4 if "svd" in name or "norm_2" in name or "nuc" in name else 1e-6
    onp.testing.assert_allclose(got, want, rtol=tol, atol=tol / 10, err_msg=name)


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_value_as_mxnet(name):
    got = eval(VALUE_CASES[name], _env())
    _same(got.asnumpy(), FIX[name], name)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradient_through_out_as_mxnet(name):
    env = _env()
    x = env["X"].copy()
    x.attach_grad()
    with autograd.record():
        y = eval(GRAD_CASES[name], dict(env, X=x))
    y.backward()
    _same(x.grad.asnumpy(), FIX[name], name)


_KINDS = {"NotImplementedError": NotImplementedError, "TypeError": TypeError,
          "ValueError": ValueError, "IndexError": IndexError,
          "MXNetError": MXNetError}


@pytest.mark.parametrize("name", sorted(REFUSED_CASES))
def test_refused_as_mxnet(name):
    expr, word = REFUSED_CASES[name]
    kind = _KINDS[str(FIX["refused_" + name])]
    with pytest.raises(MXNetError) as info:
        eval(expr, _env())
    assert isinstance(info.value, kind), (name, type(info.value).__mro__)
    assert word in str(info.value), (name, str(info.value))


def test_out_is_returned_and_written_in_place():
    x = np.array([1., 2.])
    o = np.zeros(2)
    buf = o._data
    assert np.exp(x, out=o) is o and o._data is buf
    assert np.add(x, x, out=o) is o
    assert np.sum(np.ones((2, 2)), axis=0, out=o) is o
    onp.testing.assert_array_equal(o.asnumpy(), [2., 2.])


def test_out_into_a_view_of_an_nd_array():
    # the refusal's advice works: an mx.nd array viewed as mx.np takes the result
    buf = nd.zeros(2)
    np.multiply(np.array([1., 2.]), 3., out=buf.as_np_ndarray())
    onp.testing.assert_allclose(buf.asnumpy(), [3., 6.])


def test_refusal_messages_say_what_to_do():
    x = np.array([1., 2.])
    with pytest.raises(NotImplementedError, match=r"np\.exp: where=False .*np\.where"):
        np.exp(x, where=False)
    with pytest.raises(TypeError, match=r"np\.add: out= has dtype float64 .*float32"):
        np.add(x, x, out=np.zeros(2, dtype="float64"))
    with pytest.raises(TypeError, match=r"as_np_ndarray"):
        np.exp(x, out=nd.zeros(2))
    with pytest.raises(TypeError, match=r"np\.equal: .*'where'.*x1, x2 and out="):
        np.equal(x, x, where=True)


def test_fallback_ufuncs_check_keywords_and_out():
    a = np.array([6, 4], dtype="int64")
    o = np.zeros(2, dtype="int64")
    assert np.lcm(a, np.array([4, 6], dtype="int64"), out=o) is o
    onp.testing.assert_array_equal(o.asnumpy(), [12, 12])
    with pytest.raises(NotImplementedError, match="np.bitwise_and: where=False"):
        np.bitwise_and(a, a, where=False)


def test_pad_constant_values_as_numpy():
    # a deliberate difference: MXNet 1.9.1's np.pad drops constant_values (its constant
    # branch does not return its result and pads with 0); mxgrad pads with the value, as
    # NumPy and MXNet's documentation say
    x = onp.arange(6.).reshape(2, 3)
    got = np.pad(np.array(x), ((1, 2), (0, 1)), constant_values=5.)
    onp.testing.assert_array_equal(got.asnumpy(), onp.pad(x, ((1, 2), (0, 1)),
                                                          constant_values=5.))


# np.linalg.svd's op: gradients of all three outputs against float64 central differences,
# first and second order (squares, so that the sign-free loss is smooth)
from opcheck import OpCase, op_tests, randn  # noqa: E402
from mxgrad.ops.linalg_factor import gesvd  # noqa: E402

SVD_TABLE = [
    OpCase("gesvd", lambda a: [x ** 2 for x in gesvd(a)], [randn(2, 3, 4, seed=40)], None,
           jvp=False),
    OpCase("gesvd_square", lambda a: [x ** 2 for x in gesvd(a)], [randn(3, 3, seed=41)],
           None, jvp=False),
]
test_svd_forward, test_svd_grad, test_svd_second_order = op_tests(SVD_TABLE)
