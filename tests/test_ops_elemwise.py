"""Elementwise ops and basic reductions: forward vs NumPy, numerical gradients of
first and second order."""
import math

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from opcheck import OpCase, op_tests, randn, uniform, face_tests

_erf = np.vectorize(math.erf)
_lgamma = np.vectorize(math.lgamma)
_gamma = np.vectorize(math.gamma)

X = randn(3, 4)
POS = uniform(0.5, 2.0, 3, 4)
UNIT = uniform(-0.8, 0.8, 3, 4)
AWAY = np.where(np.abs(X) < 0.2, 0.55, X)  # away from kinks
STEPS = np.array([[-2.3, -1.2, 0.3, 1.7], [2.2, -0.6, 0.8, 3.1], [-3.4, 1.1, -0.2, 0.4]])

UNARY = [
    ("exp", nd.exp, X, np.exp), ("log", nd.log, POS, np.log), ("log2", nd.log2, POS, np.log2),
    ("log10", nd.log10, POS, np.log10), ("log1p", nd.log1p, POS, np.log1p),
    ("expm1", nd.expm1, X, np.expm1), ("sqrt", nd.sqrt, POS, np.sqrt),
    ("rsqrt", nd.rsqrt, POS, lambda x: 1 / np.sqrt(x)), ("cbrt", nd.cbrt, POS, np.cbrt),
    ("rcbrt", nd.rcbrt, POS, lambda x: 1 / np.cbrt(x)), ("square", nd.square, X, np.square),
    ("reciprocal", nd.reciprocal, POS, lambda x: 1 / x), ("sin", nd.sin, X, np.sin),
    ("cos", nd.cos, X, np.cos), ("tan", nd.tan, UNIT, np.tan),
    ("arcsin", nd.arcsin, UNIT, np.arcsin), ("arccos", nd.arccos, UNIT, np.arccos),
    ("arctan", nd.arctan, X, np.arctan), ("sinh", nd.sinh, X, np.sinh),
    ("cosh", nd.cosh, X, np.cosh), ("tanh", nd.tanh, X, np.tanh),
    ("arcsinh", nd.arcsinh, X, np.arcsinh), ("arccosh", nd.arccosh, POS + 1.0, np.arccosh),
    ("arctanh", nd.arctanh, UNIT, np.arctanh),
    ("sigmoid", nd.sigmoid, X, lambda x: 1 / (1 + np.exp(-x))),
    ("relu", nd.relu, AWAY, lambda x: np.maximum(x, 0)),
    ("softsign", nd.softsign, AWAY, lambda x: x / (1 + np.abs(x))),
    ("erf", nd.erf, X, _erf), ("erfinv", nd.erfinv, UNIT, None),
    ("abs", nd.abs, AWAY, np.abs), ("negative", nd.negative, X, np.negative),
    ("degrees", nd.degrees, X, np.degrees), ("radians", nd.radians, X, np.radians),
    ("gamma", nd.gamma, POS, _gamma), ("gammaln", nd.gammaln, POS, _lgamma),
]

CASES = [OpCase(n, f, [x], r) for n, f, x, r in UNARY]
CASES += [
    OpCase("clip", lambda x: nd.clip(x, -0.7, 0.7), [AWAY], lambda x: np.clip(x, -0.7, 0.7)),
    OpCase("smooth_l1", lambda x: nd.smooth_l1(x, 1.0), [STEPS],
           lambda x: np.where(np.abs(x) < 1, 0.5 * x * x, np.abs(x) - 0.5)),
    OpCase("cast64", lambda x: nd.cast(x, "float64") * 2, [X], None, fwd_dtype="float64"),
]
for name, f, r in [("sign", nd.sign, np.sign), ("floor", nd.floor, np.floor),
                   ("ceil", nd.ceil, np.ceil), ("rint", nd.rint, np.rint),
                   ("fix", nd.fix, np.fix), ("trunc", nd.trunc, np.trunc)]:
    CASES.append(OpCase(name, f, [STEPS], r))

A, B = randn(3, 4, seed=1), randn(4, seed=2)
BP = uniform(0.5, 2.0, 4, seed=3)
CASES += [
    OpCase("add_bcast", nd.add, [A, B], np.add), OpCase("sub_bcast", nd.subtract, [A, B], np.subtract),
    OpCase("mul_bcast", nd.multiply, [A, B], np.multiply),
    OpCase("div_bcast", nd.divide, [A, BP], np.divide),
    OpCase("power", nd.power, [POS, uniform(-1, 2, 3, 4, seed=4)], np.power),
    OpCase("maximum", nd.maximum, [A, randn(3, 1, seed=5)], np.maximum),
    OpCase("minimum", nd.minimum, [A, randn(3, 1, seed=5)], np.minimum),
    OpCase("hypot", nd.hypot, [A, BP], np.hypot),
    OpCase("arctan2", nd.arctan2, [A, BP], np.arctan2),
    OpCase("modulo", nd.modulo, [POS * 3, uniform(0.7, 0.9, 3, 4, seed=6)], np.mod, second=False),
    OpCase("op_add", lambda a, b: a + b, [A, B], np.add),
    OpCase("op_rsub_scalar", lambda a: 2 - a, [A], lambda a: 2 - a),
    OpCase("op_mul_scalar", lambda a: a * 3, [A], lambda a: a * 3),
    OpCase("op_rdiv_scalar", lambda a: 2 / a, [POS], lambda a: 2 / a),
    OpCase("op_div_scalar", lambda a: a / 4, [A], lambda a: a / 4),
    OpCase("op_pow_scalar", lambda a: a ** 3, [A], lambda a: a ** 3),
    OpCase("op_pow_frac", lambda a: a ** 1.5, [POS], lambda a: a ** 1.5),
    OpCase("op_rpow_scalar", lambda a: 2 ** a, [A], lambda a: 2 ** a),
    OpCase("op_neg", lambda a: -a, [A], np.negative),
    OpCase("op_chain", lambda a, b: (a * b - a / (b * b + 1)) ** 2, [A, B], None),
    OpCase("add_n", lambda a, b, c: nd.add_n(a, b, c), [A, A * 2, A * 3], lambda a, b, c: a + b + c),
    OpCase("sum_all", lambda a: nd.sum(a), [A], lambda a: np.sum(a).reshape(1)),
    OpCase("sum_axis", lambda a: nd.sum(a, axis=1), [A], lambda a: a.sum(axis=1)),
    OpCase("sum_keepdims", lambda a: nd.sum(a, axis=0, keepdims=True), [A],
           lambda a: a.sum(axis=0, keepdims=True)),
    OpCase("sum_exclude", lambda a: nd.sum(a, axis=1, exclude=True), [randn(2, 3, 4)],
           lambda a: a.sum(axis=(0, 2))),
    OpCase("mean_axis", lambda a: nd.mean(a, axis=(0, 2)), [randn(2, 3, 4)],
           lambda a: a.mean(axis=(0, 2))),
    OpCase("mean_all", lambda a: a.mean(), [A], lambda a: np.mean(a).reshape(1)),
    OpCase("broadcast_to", lambda a: nd.broadcast_to(a, (2, 3, 4)), [randn(3, 1)],
           lambda a: np.broadcast_to(a, (2, 3, 4))),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


def test_comparisons_return_input_dtype():
    a = nd.array([1, 2, 3])
    for r in (a > 2, a >= 2, a < 2, a <= 2, a == 2, a != 2, nd.greater(a, nd.array([0, 5, 3]))):
        assert r.dtype == np.float32
    assert (a > 1).asnumpy().tolist() == [0.0, 1.0, 1.0]
    assert nd.equal(a, nd.array([1, 0, 3])).asnumpy().tolist() == [1.0, 0.0, 1.0]


def test_ties_give_full_gradient():
    x = nd.array([1., 2.]); y = nd.array([1., 3.])
    x.attach_grad(); y.attach_grad()
    with mx.autograd.record():
        z = nd.maximum(x, y)
    z.backward()
    assert x.grad.asnumpy().tolist() == [1.0, 0.0]
    assert y.grad.asnumpy().tolist() == [1.0, 1.0]


def test_kinks_abs_relu_zero_at_zero_and_clip_boundary():
    x = nd.array([0., -1., 1., 2.]); x.attach_grad()
    with mx.autograd.record():
        y = nd.abs(x) + nd.relu(x) + nd.clip(x, -1, 1)
    y.backward()
    # abs: [0,-1,1,1]; relu: [0,0,1,1]; clip passes on the boundary: [1,1,1,0]
    assert x.grad.asnumpy().tolist() == [1.0, 0.0, 3.0, 2.0]


def test_scalar_ops_keep_dtype():
    a = nd.array([1, 2], dtype="int32")
    assert (a * 2).dtype == np.int32
    assert (a + 1.5).dtype == np.int32
    f = nd.array([1, 2])
    assert (f * np.float64(2)).dtype == np.float32
    assert (2 ** f).dtype == np.float32


def test_broadcast_shape_error_names_shapes():
    with pytest.raises(ValueError) as e:
        nd.ones((2, 3)) + nd.ones((4,))
    assert "(2, 3)" in str(e.value) and "(4,)" in str(e.value)
    assert isinstance(e.value, mx.MXNetError)


def test_inplace_operators():
    a = nd.array([1., 2.])
    b = a
    a += 1
    a *= 3
    a -= nd.array([1., 1.])
    a /= 2
    assert b is a
    assert a.asnumpy().tolist() == [2.5, 4.0]


def test_no_0d_results():
    x = nd.array([[1., 2.], [3., 4.]])
    assert x.sum().shape == (1,)
    assert x.mean().shape == (1,)
    assert x.sum().asscalar() == 10.0


def test_nd_binary_functions_accept_python_scalars_on_either_side():
    x = nd.array([1., -2.]); x.attach_grad()
    with mx.autograd.record():
        y = nd.maximum(x, 0.5) + nd.subtract(3, x) + nd.power(2, x) + nd.multiply(x, 2)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), [1 + 2 + 2 + 2, 0.5 + 5 + 0.25 - 4])
    np.testing.assert_allclose(x.grad.asnumpy(),
                               [1 - 1 + 2 * np.log(2) + 2, 0 - 1 + 0.25 * np.log(2) + 2],
                               rtol=1e-6)
    assert nd.greater(1.0, x).asnumpy().tolist() == [0.0, 1.0]
    assert nd.lesser_equal(x, 1).asnumpy().tolist() == [1.0, 1.0]
    assert nd.minimum(0.0, x).asnumpy().tolist() == [0.0, -2.0]


def test_elemwise_family_requires_equal_shapes_broadcast_family_broadcasts():
    a, b = nd.ones((2, 3)), nd.ones((1, 3))
    assert nd.broadcast_add(a, b).shape == (2, 3)
    with pytest.raises(ValueError, match="same shape"):
        nd.elemwise_add(a, b)
    x = nd.array([1., 2.]); x.attach_grad()
    with mx.autograd.record():
        y = nd.elemwise_mul(x, x) + nd.elemwise_sub(x, x) + nd.elemwise_div(x, x)
    y.backward()
    assert x.grad.asnumpy().tolist() == [2.0, 4.0]


def test_sigmoid_at_the_extremes_and_on_integers():
    """1 / (1 + exp(-x)) without warnings where exp(-x) overflows (the result is 0, as
    MXNet's), relative accuracy for very negative x, and integer input computed in
    float64 (as nd.tanh and nd.exp do)."""
    import warnings
    x = np.array([-1000.0, -100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 1000.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = nd.sigmoid(nd.array(x)).asnumpy()
    ref = 1.0 / (1.0 + np.exp(-x.astype(np.float64).clip(-700, 700)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got[2:], ref[2:], rtol=1e-6)   # 9.4e-14 at -30: relative
    assert got[0] == 0.0 and got[1] == 0.0 and got[-1] == 1.0
    y = nd.sigmoid(nd.array([-1, 0, 2], dtype="int32"))
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.asnumpy(), 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0]))))
