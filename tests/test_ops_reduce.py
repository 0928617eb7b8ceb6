"""Reductions (prod, max, min, norm, nansum, nanprod, aliases) and ordering ops (argmax,
argmin, argsort, sort, topk): forward vs NumPy, first and second order gradients,
tangent (jvp) rules, MXNet semantics (ties, zeros, shapes, dtypes) and errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mxgrad as mx
from mxgrad import nd
from mxgrad.autograd import forward_ad as fwAD
from mxgrad.autograd.functional import hvp
from mxgrad.base import MXNetError, ShapeError, StateError, DTypeError
from opcheck import OpCase, op_tests, randn, uniform, face_tests

X = randn(3, 4, seed=11)
X3 = randn(2, 3, 4, seed=12)
NZ = uniform(0.5, 1.5, 3, 4, seed=13) * np.sign(randn(3, 4, seed=14))  # away from zero
ONE_ZERO = np.array([[0.0, 1.3, -0.7, 1.1], [0.9, 0.0, 1.2, -1.4], [1.5, -0.8, 0.6, 0.0]])
ZEROS_MIX = np.array([[0.0, 0.0, 1.2, -0.9], [0.0, 1.1, 0.0, 0.0], [0.7, -1.3, 0.9, 1.4]])
WITH_NAN = np.array([[1.2, np.nan, -0.7, 1.1], [0.9, 0.8, np.nan, -1.4]])


def _np_norm(x, ord=2, axis=None, keepdims=False):
    if ord == 1:
        r = np.sum(np.abs(x), axis=axis, keepdims=keepdims)
    else:
        r = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
    return np.reshape(r, (1,)) if np.ndim(r) == 0 else r


def _topk_ref(x, axis=-1, k=1, is_ascend=False):
    order = np.argsort(x if is_ascend else -x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


CASES = [
    # prod
    OpCase("prod_all", lambda a: nd.prod(a), [NZ], lambda a: np.prod(a).reshape(1)),
    OpCase("prod_axis", lambda a: nd.prod(a, axis=1), [NZ], lambda a: np.prod(a, axis=1)),
    OpCase("prod_axis_neg", lambda a: a.prod(axis=-1), [X3], lambda a: np.prod(a, axis=-1)),
    OpCase("prod_tuple", lambda a: nd.prod(a, axis=(0, 2)), [X3],
           lambda a: np.prod(a, axis=(0, 2))),
    OpCase("prod_keepdims", lambda a: nd.prod(a, axis=0, keepdims=True), [NZ],
           lambda a: np.prod(a, axis=0, keepdims=True)),
    OpCase("prod_exclude", lambda a: nd.prod(a, axis=1, exclude=True), [X3],
           lambda a: np.prod(a, axis=(0, 2))),
    OpCase("prod_one_zero", lambda a: nd.prod(a, axis=1), [ONE_ZERO],
           lambda a: np.prod(a, axis=1)),
    OpCase("prod_zero_all", lambda a: nd.prod(a), [ONE_ZERO], lambda a: np.prod(a).reshape(1)),
    OpCase("prod_zeros_mix", lambda a: nd.prod(a, axis=1), [ZEROS_MIX],
           lambda a: np.prod(a, axis=1)),
    OpCase("prod_zeros_cols", lambda a: nd.prod(a, axis=0, keepdims=True), [ZEROS_MIX],
           lambda a: np.prod(a, axis=0, keepdims=True)),
    OpCase("prod_chain", lambda a: nd.prod(a * a + 0.5, axis=1), [X],
           lambda a: np.prod(a * a + 0.5, axis=1)),
    # max / min
    OpCase("max_all", lambda a: nd.max(a), [X], lambda a: np.max(a).reshape(1)),
    OpCase("max_axis", lambda a: nd.max(a, axis=1), [X], lambda a: np.max(a, axis=1)),
    OpCase("max_tuple", lambda a: nd.max(a, axis=(0, 2)), [X3], lambda a: np.max(a, axis=(0, 2))),
    OpCase("max_keepdims", lambda a: a.max(axis=0, keepdims=True), [X],
           lambda a: np.max(a, axis=0, keepdims=True)),
    OpCase("max_exclude", lambda a: nd.max(a, axis=(0, 2), exclude=True), [X3],
           lambda a: np.max(a, axis=1)),
    OpCase("max_axis_alias", lambda a: nd.max_axis(a, axis=0), [X], lambda a: np.max(a, axis=0)),
    OpCase("max_chain", lambda a: nd.max(a * a, axis=1) * 2, [X],
           lambda a: np.max(a * a, axis=1) * 2),
    OpCase("min_all", lambda a: a.min(), [X], lambda a: np.min(a).reshape(1)),
    OpCase("min_axis", lambda a: nd.min(a, axis=0), [X], lambda a: np.min(a, axis=0)),
    OpCase("min_tuple_keepdims", lambda a: nd.min(a, axis=(1, 2), keepdims=True), [X3],
           lambda a: np.min(a, axis=(1, 2), keepdims=True)),
    OpCase("min_exclude", lambda a: nd.min(a, axis=1, exclude=True), [X3],
           lambda a: np.min(a, axis=(0, 2))),
    OpCase("min_axis_alias", lambda a: nd.min_axis(a, axis=1), [X], lambda a: np.min(a, axis=1)),
    # norm
    OpCase("norm_all", lambda a: nd.norm(a), [X], lambda a: _np_norm(a)),
    OpCase("norm_method", lambda a: a.norm(), [X3], lambda a: _np_norm(a)),
    OpCase("norm_axis", lambda a: nd.norm(a, axis=1), [X], lambda a: _np_norm(a, axis=1)),
    OpCase("norm_axis_keepdims", lambda a: nd.norm(a, axis=0, keepdims=True), [X],
           lambda a: _np_norm(a, axis=0, keepdims=True)),
    OpCase("norm_tuple", lambda a: nd.norm(a, axis=(1, 2)), [X3],
           lambda a: _np_norm(a, axis=(1, 2))),
    OpCase("norm_exclude", lambda a: nd.norm(a, axis=0, exclude=True), [X3],
           lambda a: _np_norm(a, axis=(1, 2))),
    OpCase("norm_ord1", lambda a: nd.norm(a, ord=1), [X], lambda a: _np_norm(a, 1)),
    OpCase("norm_ord1_axis", lambda a: nd.norm(a, ord=1, axis=1, keepdims=True), [X],
           lambda a: _np_norm(a, 1, axis=1, keepdims=True)),
    OpCase("norm_chain", lambda a: nd.norm(a * a - 0.3, axis=0) ** 2, [X],
           lambda a: _np_norm(a * a - 0.3, axis=0) ** 2),
    # sum alias, nansum, nanprod
    OpCase("sum_axis_alias", lambda a: nd.sum_axis(a, axis=1), [X], lambda a: np.sum(a, axis=1)),
    OpCase("nansum", lambda a: nd.nansum(a, axis=1), [WITH_NAN], lambda a: np.nansum(a, axis=1)),
    OpCase("nansum_all", lambda a: a.nansum(), [WITH_NAN], lambda a: np.nansum(a).reshape(1)),
    OpCase("nanprod", lambda a: nd.nanprod(a, axis=1), [WITH_NAN],
           lambda a: np.nanprod(a, axis=1)),
    OpCase("nanprod_all", lambda a: a.nanprod(), [WITH_NAN],
           lambda a: np.nanprod(a).reshape(1)),
    # sort / topk values
    OpCase("sort", lambda a: nd.sort(a), [X], lambda a: np.sort(a, axis=-1)),
    OpCase("sort_axis0_desc", lambda a: nd.sort(a, axis=0, is_ascend=False), [X],
           lambda a: -np.sort(-a, axis=0)),
    OpCase("sort_flat", lambda a: a.sort(axis=None), [X3], lambda a: np.sort(a, axis=None)),
    OpCase("sort_chain", lambda a: nd.sort(a * a, axis=1) * nd.sort(a, axis=1), [X],
           lambda a: np.sort(a * a, axis=1) * np.sort(a, axis=1)),
    OpCase("topk_value", lambda a: nd.topk(a, k=2, ret_typ="value"), [X],
           lambda a: _topk_ref(a, k=2)[0]),
    OpCase("topk_value_asc_axis0", lambda a: nd.topk(a, axis=0, k=2, ret_typ="value",
                                                     is_ascend=True), [X],
           lambda a: _topk_ref(a, axis=0, k=2, is_ascend=True)[0]),
    OpCase("topk_value_flat", lambda a: a.topk(axis=None, k=5, ret_typ="value"), [X3],
           lambda a: _topk_ref(a.reshape(-1), k=5)[0]),
    OpCase("topk_both_values", lambda a: nd.topk(a, axis=1, k=3, ret_typ="both")[0], [X3],
           lambda a: _topk_ref(a, axis=1, k=3)[0]),
    OpCase("topk_all", lambda a: nd.topk(a, k=0, ret_typ="value"), [X],
           lambda a: -np.sort(-a, axis=-1)),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


# ------------------------------------------------------------------ tangents
def _numeric_jvp(fn, x, t, eps=1e-6):
    def ev(v):
        return fn(nd.array(v, dtype="float64")).asnumpy()
    return (ev(x + eps * t) - ev(x - eps * t)) / (2 * eps)


@pytest.mark.parametrize("case", [c for c in CASES if c.grad], ids=lambda c: c.name)
def test_jvp(case):
    x = case.inputs[0]
    t = np.random.default_rng(5).standard_normal(x.shape)
    with fwAD.dual_level():
        xd = fwAD.make_dual(nd.array(x, dtype="float64"), nd.array(t, dtype="float64"))
        tangent = fwAD.unpack_dual(case.fn(xd)).tangent
        assert tangent is not None, "no tangent reached the output"
        tangent = tangent.asnumpy()
    expected = _numeric_jvp(case.fn, x, t)
    np.testing.assert_allclose(tangent, np.nan_to_num(expected), rtol=1e-4, atol=1e-6)


def test_jvp_agrees_with_vjp_for_ties():
    # max has ties here: the tangent rule is the transpose of the gradient rule
    x = nd.array([[1., 3., 3.], [2., 0., 2.]], dtype="float64")
    t = np.array([[0.5, -1., 2.], [1., 3., -2.]])
    u = np.array([0.7, -1.3])
    with fwAD.dual_level():
        xd = fwAD.make_dual(x, nd.array(t, dtype="float64"))
        jvp = fwAD.unpack_dual(nd.max(xd, axis=1)).tangent.asnumpy()
    x.attach_grad()
    with mx.autograd.record():
        y = nd.max(x, axis=1)
    y.backward(nd.array(u, dtype="float64"))
    assert np.allclose(np.sum(u * jvp), np.sum(x.grad.asnumpy() * t))
    assert jvp.tolist() == [1.0, -1.0]


# --------------------------------------------------------- MXNet semantics
def _grad(fn, x, head=None):
    x = nd.array(x) if not isinstance(x, nd.NDArray) else x
    x.attach_grad()
    with mx.autograd.record():
        y = fn(x)
    y.backward(head)
    return x.grad.asnumpy()


def test_max_ties_give_full_gradient():
    x = [[1., 3., 3.], [2., 2., 2.]]
    assert _grad(lambda a: nd.max(a, axis=1), x).tolist() == [[0, 1, 1], [1, 1, 1]]
    assert _grad(lambda a: a.max(), x).tolist() == [[0, 1, 1], [0, 0, 0]]
    head = nd.array([2., 5.])
    assert _grad(lambda a: nd.max(a, axis=1), x, head).tolist() == [[0, 2, 2], [5, 5, 5]]
    assert _grad(lambda a: nd.max(a, axis=0, keepdims=True), x).tolist() == \
        [[0, 1, 1], [1, 0, 0]]


def test_min_ties_give_full_gradient():
    x = [[1., 1., 3.], [0., 2., 0.]]
    assert _grad(lambda a: nd.min(a, axis=1), x).tolist() == [[1, 1, 0], [1, 0, 1]]
    assert _grad(lambda a: a.min(), x).tolist() == [[0, 0, 0], [1, 0, 1]]


def test_prod_gradient_with_zeros():
    assert _grad(lambda a: a.prod(), [0., 2., 3.]).tolist() == [6, 0, 0]
    assert _grad(lambda a: a.prod(), [0., 0., 3.]).tolist() == [0, 0, 0]
    g = _grad(lambda a: nd.prod(a, axis=1), [[2., 0., 4.], [1., 2., 3.], [0., 0., 5.]])
    assert g.tolist() == [[0, 8, 0], [6, 3, 2], [0, 0, 0]]
    assert not np.isnan(g).any()


def _hessian_row(fn, x, w):
    """Gradient of sum(w * grad(fn)(x)) with create_graph."""
    x = nd.array(x, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = fn(x)
        (g,) = mx.autograd.grad([y], [x], create_graph=True)
        z = (g * nd.array(w, dtype="float64")).sum()
    if z._node is None:  # the gradient does not depend on x at all
        return np.zeros(x.shape)
    z.backward()
    return x.grad.asnumpy()


def test_prod_second_derivative_at_zeros():
    # y = a*b*c; d2y/da db = c etc.; with a = b = 0 only the (a, b) pair survives
    h = _hessian_row(lambda a: a.prod(), [0., 0., 3.], [1., 0., 0.])
    assert h.tolist() == [0, 3, 0]
    h = _hessian_row(lambda a: a.prod(), [0., 2., 3.], [1., 0., 0.])
    assert h.tolist() == [0, 3, 2]
    h = _hessian_row(lambda a: a.prod(), [0., 2., 3.], [0., 1., 0.])
    assert h.tolist() == [3, 0, 0]
    h = _hessian_row(lambda a: a.prod(), [0., 0., 0.], [1., 1., 1.])
    assert h.tolist() == [0, 0, 0]


def test_max_second_derivative_is_zero_and_norm_hessian():
    assert _hessian_row(lambda a: a.max(), [1., 4., 2.], [1., 1., 1.]).tolist() == [0, 0, 0]
    x = np.array([3., 4.])
    # Hessian of |x| is (I - x x^T / |x|^2) / |x|
    h = _hessian_row(lambda a: a.norm(), x, [1., 0.])
    expected = (np.eye(2) - np.outer(x, x) / 25.) / 5.
    np.testing.assert_allclose(h, expected[0], rtol=1e-12)


def test_forward_over_reverse_hvp():
    # Hessian-vector products through the gradient rules (masks carry no tangent)
    v = nd.array([1., 0.5, 0.], dtype="float64")
    cases = [(lambda a: a.prod(), [0., 0., 2.], [1., 2., 0.]),
             (lambda a: a.prod(), [1., 3., 2.], [1., 2., 3.5]),
             (lambda a: a.max(), [1., 3., 2.], [0., 0., 0.]),
             (lambda a: a.norm(), [0., 0., 2.], [0.5, 0.25, 0.]),
             (lambda a: nd.topk(a, k=2, ret_typ="value").prod(), [1., 3., 2.], [0., 0., 0.5])]
    for f, x, expected in cases:
        _, hv = hvp(f, nd.array(x, dtype="float64"), v)
        np.testing.assert_allclose(hv.asnumpy(), expected, rtol=1e-12, atol=1e-12)
    with fwAD.dual_level():
        xd = fwAD.make_dual(nd.array([1., 3., 2.]), nd.array([1., 1., 1.]))
        assert fwAD.unpack_dual(nd.argmax(xd)).tangent is None
        assert fwAD.unpack_dual(nd.topk(xd, k=2)).tangent is None
        assert fwAD.unpack_dual(nd.sort(xd)).tangent.asnumpy().tolist() == [1, 1, 1]


def test_norm_gradient_at_zero_is_zero():
    g = _grad(lambda a: nd.norm(a, axis=1), [[0., 0.], [3., 4.]])
    np.testing.assert_allclose(g, [[0, 0], [0.6, 0.8]], rtol=1e-6)
    assert _grad(lambda a: a.norm(), [0., 0.]).tolist() == [0, 0]
    assert _grad(lambda a: a.norm(ord=1), [-2., 0., 3.]).tolist() == [-1, 0, 1]


def test_norm_doc_example_and_options():
    x = nd.array([[[1, 2], [3, 4]], [[2, 2], [5, 6]]])
    np.testing.assert_allclose(nd.norm(x, ord=2, axis=1).asnumpy(),
                               [[3.1622777, 4.472136], [5.3851647, 6.3245554]], rtol=1e-6)
    assert nd.norm(x, ord=1, axis=1).asnumpy().tolist() == [[4, 6], [7, 8]]
    r = nd.norm(x)
    assert r.shape == (1,) and r.dtype == np.float32
    np.testing.assert_allclose(r.asscalar(), np.sqrt(99.), rtol=1e-6)
    assert nd.norm(x, out_dtype="float64").dtype == np.float64
    assert nd.norm(x, keepdims=True).shape == (1, 1, 1)
    # large and tiny values do not overflow / underflow
    np.testing.assert_allclose(nd.norm(nd.array([3e30, 4e30])).asscalar(), 5e30, rtol=1e-6)
    np.testing.assert_allclose(nd.norm(nd.array([3e-30, 4e-30])).asscalar(), 5e-30, rtol=1e-6)


def test_norm_bad_ord():
    with pytest.raises(StateError, match="ord must be 1 or 2"):
        nd.norm(nd.ones((2,)), ord=3)
    with pytest.raises(ValueError):
        nd.norm(nd.ones((2,)), ord=0)


def test_nan_reductions_gradient():
    x = [1., np.nan, 3.]
    assert _grad(lambda a: nd.nanprod(a), x).tolist() == [3, 0, 1]
    assert _grad(lambda a: nd.nansum(a), x).tolist() == [1, 0, 1]


def test_full_reductions_have_shape_1_and_keepdims():
    x = nd.array(X3)
    for f in (nd.sum, nd.mean, nd.prod, nd.max, nd.min, nd.norm, nd.nansum, nd.nanprod,
              nd.sum_axis, nd.max_axis, nd.min_axis):
        assert f(x).shape == (1,), f.__name__
        assert f(x, keepdims=True).shape == (1, 1, 1), f.__name__
        assert f(x, axis=1).shape == (2, 4), f.__name__
        assert f(x, axis=(0, 2), keepdims=True).shape == (1, 3, 1), f.__name__
        assert f(x, axis=1, exclude=True).shape == (3,), f.__name__
    assert nd.max(nd.array([1., 5., 2.]), axis=0).shape == (1,)
    # as in MXNet, no axis reduces everything even with exclude=True
    assert nd.max(x, exclude=True).shape == (1,)
    assert nd.sum(x, axis=(), exclude=True, keepdims=True).shape == (1, 1, 1)
    assert nd.prod(x, axis=(0, 1, 2), exclude=True).shape == (2, 3, 4)
    assert nd.max(nd.array([1., 5., 2.])).asscalar() == 5.0


def test_reduction_dtypes():
    x = nd.array(X)
    for f in (nd.prod, nd.max, nd.min, nd.norm):
        assert f(x).dtype == np.float32
        assert f(nd.array(X, dtype="float64"), axis=1).dtype == np.float64
    xi = nd.array([[1, 2], [3, 4]], dtype="int32")
    for f, v in ((nd.sum, 10), (nd.prod, 24), (nd.max, 4), (nd.min, 1)):
        r = f(xi)
        assert r.dtype == np.int32 and r.asscalar() == v


def test_reductions_methods_and_out():
    x = nd.array([[1., 5., 2.], [4., 0., 3.]])
    assert x.max().asscalar() == 5.0
    assert x.min().asscalar() == 0.0
    assert x.prod(axis=1).asnumpy().tolist() == [10., 0.]
    np.testing.assert_allclose(x.norm().asscalar(), np.sqrt(55.), rtol=1e-6)
    assert x.max_axis(axis=0).asnumpy().tolist() == [4., 5., 3.]
    out = nd.zeros((2,))
    r = nd.max(x, axis=1, out=out)
    assert r is out and out.asnumpy().tolist() == [5., 4.]


def test_reduction_errors():
    with pytest.raises(ShapeError, match="max: axis 2 is out of range"):
        nd.max(nd.ones((2, 3)), axis=2)
    with pytest.raises(MXNetError):
        nd.prod(nd.ones((2, 3)), axis=-3)
    with pytest.raises(ValueError):
        nd.max(nd.zeros((0, 3)), axis=0)


# ----------------------------------------------------------- argmax/argmin
def test_argmax_argmin_values_shapes_dtypes():
    x = nd.array([[0., 1., 2.], [3., 4., 5.]])
    r = nd.argmax(x, axis=0)
    assert r.dtype == np.float32 and r.asnumpy().tolist() == [1, 1, 1]
    assert nd.argmax(x, axis=1).asnumpy().tolist() == [2, 2]
    assert nd.argmax(x, axis=1, keepdims=True).asnumpy().tolist() == [[2], [2]]
    assert nd.argmax(x, axis=-1).asnumpy().tolist() == [2, 2]
    assert nd.argmin(x, axis=0).asnumpy().tolist() == [0, 0, 0]
    assert nd.argmin(x, axis=1, keepdims=True).shape == (2, 1)
    full = nd.argmax(x)
    assert full.shape == (1,) and full.dtype == np.float32 and full.asscalar() == 5
    assert nd.argmin(x).shape == (1,) and nd.argmin(x).asscalar() == 0
    assert nd.argmax(x, keepdims=True).shape == (1, 1)
    assert nd.argmax(nd.array([3., 9., 1.]), axis=0).shape == (1,)
    assert x.argmax(axis=1).asnumpy().tolist() == [2, 2]
    assert x.argmin().asscalar() == 0
    assert nd.argmax(nd.array(X, dtype="float64"), axis=1).dtype == np.float64
    assert nd.argmax_channel(x).asnumpy().tolist() == [2, 2]


def test_argmax_first_occurrence_and_no_gradient():
    x = nd.array([[1., 7., 7.], [2., 2., 0.]])
    assert nd.argmax(x, axis=1).asnumpy().tolist() == [1, 0]
    assert nd.argmin(x, axis=1).asnumpy().tolist() == [0, 2]
    x.attach_grad()
    with mx.autograd.record():
        i = nd.argmax(x, axis=1)
    assert i._node is None


def test_argmax_nan_like_numpy():
    # MXNet >= 1.6 treats NaN as the maximum, as NumPy does
    x = nd.array([[1., 5., 3.], [np.nan, 2., 6.]])
    assert nd.argmax(x, axis=0).asnumpy().tolist() == [1, 0, 1]
    assert nd.argmax(x, axis=1).asnumpy().tolist() == [1, 0]


def test_arg_errors():
    with pytest.raises(ShapeError, match="argmax: axis 3"):
        nd.argmax(nd.ones((2, 3)), axis=3)


# ---------------------------------------------------------- argsort / sort
def test_argsort_values_and_dtype():
    x = nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])
    r = nd.argsort(x)
    assert r.dtype == np.float32
    assert r.asnumpy().tolist() == [[1, 0, 2], [0, 2, 1]]
    assert nd.argsort(x, axis=0).asnumpy().tolist() == [[1, 0, 1], [0, 1, 0]]
    flat = nd.argsort(x, axis=None)
    assert flat.shape == (6,) and flat.asnumpy().tolist() == [3, 1, 5, 0, 4, 2]
    assert nd.argsort(x, is_ascend=False).asnumpy().tolist() == [[2, 0, 1], [1, 2, 0]]
    r = x.argsort(dtype="int32")
    assert r.dtype == np.int32
    xr = randn(4, 7, seed=3)
    np.testing.assert_array_equal(nd.argsort(nd.array(xr), axis=0).asnumpy(),
                                  np.argsort(xr.astype(np.float32), axis=0))


def test_argsort_ties_keep_order():
    x = nd.array([2., 1., 2., 1.])
    assert nd.argsort(x).asnumpy().tolist() == [1, 3, 0, 2]
    assert nd.argsort(x, is_ascend=False).asnumpy().tolist() == [0, 2, 1, 3]


def test_sort_doc_examples_and_gradient():
    x = nd.array([[1, 4], [3, 1]])
    assert nd.sort(x).asnumpy().tolist() == [[1, 4], [1, 3]]
    assert nd.sort(x, axis=None).asnumpy().tolist() == [1, 1, 3, 4]
    assert nd.sort(x, axis=0).asnumpy().tolist() == [[1, 1], [3, 4]]
    assert nd.sort(x, is_ascend=False).asnumpy().tolist() == [[4, 1], [3, 1]]
    assert nd.sort(nd.array([3, 1], dtype="int32")).dtype == np.int32
    # the gradient of each input is the head gradient at the position it moved to
    head = nd.array([10., 20., 30.])
    assert _grad(lambda a: nd.sort(a), [3., 1., 2.], head).tolist() == [30, 10, 20]
    assert _grad(lambda a: nd.sort(a, is_ascend=False), [3., 1., 2.], head).tolist() == \
        [10, 30, 20]


# -------------------------------------------------------------------- topk
def test_topk_doc_examples():
    x = nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])
    r = nd.topk(x)
    assert r.dtype == np.float32 and r.asnumpy().tolist() == [[2], [1]]
    np.testing.assert_allclose(nd.topk(x, ret_typ="value", k=2).asnumpy(),
                               [[0.4, 0.3], [0.3, 0.2]], rtol=1e-6)
    np.testing.assert_allclose(nd.topk(x, ret_typ="value", k=2, is_ascend=1).asnumpy(),
                               [[0.2, 0.3], [0.1, 0.2]], rtol=1e-6)
    np.testing.assert_allclose(nd.topk(x, axis=0, ret_typ="value", k=2).asnumpy(),
                               [[0.3, 0.3, 0.4], [0.1, 0.2, 0.2]], rtol=1e-6)
    both = nd.topk(x, ret_typ="both", k=2)
    assert isinstance(both, list) and len(both) == 2
    np.testing.assert_allclose(both[0].asnumpy(), [[0.4, 0.3], [0.3, 0.2]], rtol=1e-6)
    assert both[1].asnumpy().tolist() == [[2, 0], [1, 2]]
    assert both[1].dtype == np.float32 and both[0].dtype == np.float32


def test_topk_shapes_dtypes_and_mask():
    x = nd.array(X3)
    assert nd.topk(x, k=2).shape == (2, 3, 2)
    assert nd.topk(x, axis=1, k=2).shape == (2, 2, 4)
    assert nd.topk(x, axis=None, k=3).shape == (3,)
    assert nd.topk(x, axis=None, k=0).shape == (24,)
    assert nd.topk(x, k=-1, ret_typ="value").shape == (2, 3, 4)
    assert nd.topk(x, k=2, dtype="int32").dtype == np.int32
    assert nd.topk(x, k=2, ret_typ="both", dtype="int64")[1].dtype == np.int64
    assert nd.topk(nd.array(X3, dtype="float64"), ret_typ="value").dtype == np.float64
    m = nd.topk(nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]]), k=2, ret_typ="mask")
    assert m.dtype == np.float32 and m.asnumpy().tolist() == [[1, 0, 1], [0, 1, 1]]
    m = nd.topk(x, axis=None, k=5, ret_typ="mask")
    assert m.shape == (2, 3, 4) and m.asnumpy().sum() == 5
    assert (m.asnumpy() * X3).sum() == pytest.approx(np.sort(X3.astype(np.float32),
                                                             axis=None)[-5:].sum(), rel=1e-5)
    idx = nd.topk(x, axis=1, k=3, is_ascend=True).asnumpy()
    np.testing.assert_array_equal(idx, np.argsort(X3.astype(np.float32), axis=1)[:, :3])
    assert x.topk(k=2).shape == (2, 3, 2)


def test_topk_value_gradient():
    head = nd.array([10., 20.])
    assert _grad(lambda a: nd.topk(a, k=2, ret_typ="value"), [1., 5., 3.], head).tolist() == \
        [0, 10, 20]
    assert _grad(lambda a: nd.topk(a, k=2, ret_typ="both")[0], [1., 5., 3.], head).tolist() == \
        [0, 10, 20]
    x = nd.array([1., 5., 3.])
    x.attach_grad()
    with mx.autograd.record():
        i = nd.topk(x, k=2)
        m = nd.topk(x, k=2, ret_typ="mask")
    assert i._node is None and m._node is None


def test_topk_ties_lower_index_first():
    x = nd.array([1., 3., 3., 2.])
    assert nd.topk(x, k=2).asnumpy().tolist() == [1, 2]
    assert nd.topk(x, k=3, is_ascend=True).asnumpy().tolist() == [0, 3, 1]


def test_topk_errors():
    with pytest.raises(ShapeError, match="k=4 is larger than the 3 elements"):
        nd.topk(nd.ones((2, 3)), k=4)
    with pytest.raises(StateError, match="ret_typ"):
        nd.topk(nd.ones((2, 3)), ret_typ="values")
    with pytest.raises(DTypeError, match="uint8"):
        nd.topk(nd.ones((300,)), k=2, dtype="uint8")
    with pytest.raises(ShapeError, match="axis 2"):
        nd.sort(nd.ones((2, 3)), axis=2)


# ------------------------------------------------------------ properties
@st.composite
def _reduce_case(draw):
    ndim = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    axes = draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                          st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                                   unique=True).map(tuple)))
    keepdims = draw(st.booleans())
    exclude = draw(st.booleans())
    seed = draw(st.integers(0, 2 ** 16))
    return shape, axes, keepdims, exclude, seed


def _np_axes(axes, ndim, exclude):
    if axes is None:
        return tuple(range(ndim))
    a = (axes,) if isinstance(axes, int) else axes
    a = tuple(sorted(set(x % ndim for x in a)))
    return tuple(i for i in range(ndim) if i not in a) if exclude else a


@settings(max_examples=60, deadline=None)
@given(_reduce_case(), st.sampled_from(["sum", "mean", "prod", "max", "min", "norm",
                                         "norm1"]))
def test_reductions_match_numpy(case, name):
    shape, axes, keepdims, exclude, seed = case
    x = np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(np.float32)
    ax = _np_axes(axes, len(shape), exclude)
    refs = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
            "norm": lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis=axis,
                                                             keepdims=keepdims)),
            "norm1": lambda a, axis, keepdims: np.sum(np.abs(a), axis=axis, keepdims=keepdims)}
    ref = np.asarray(refs[name](x, axis=ax, keepdims=keepdims))
    if ref.ndim == 0:
        ref = ref.reshape(1)
    if name == "norm1":
        def fn(*a, **k):
            return nd.norm(*a, ord=1, **k)
    else:
        fn = getattr(nd, name)
    out = fn(nd.array(x), axis=axes, keepdims=keepdims, exclude=exclude)
    assert out.shape == ref.shape
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5, atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(_reduce_case(), st.booleans(), st.integers(0, 5))
def test_ordering_matches_numpy(case, is_ascend, k):
    shape, axes, _, _, seed = case
    x = np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape)
    x = x.astype(np.float32)  # distinct values: no ties
    axis = axes if axes is None or isinstance(axes, int) else axes[0]
    flat = x.reshape(-1) if axis is None else x
    a = 0 if axis is None else axis
    order = np.argsort(flat if is_ascend else -flat, axis=a)
    np.testing.assert_array_equal(
        nd.argsort(nd.array(x), axis=axis, is_ascend=is_ascend).asnumpy(), order)
    np.testing.assert_array_equal(nd.sort(nd.array(x), axis=axis, is_ascend=is_ascend)
                                  .asnumpy(), np.take_along_axis(flat, order, a))
    kk = min(k, flat.shape[a]) or flat.shape[a]
    idx = nd.topk(nd.array(x), axis=axis, k=kk, is_ascend=is_ascend).asnumpy()
    np.testing.assert_array_equal(idx, np.take(order, np.arange(kk), axis=a))
    if axis is None:
        ref = np.reshape(np.argmax(x), (1,))
    else:
        ref = np.argmax(x, axis=axis)
        ref = ref.reshape(1) if ref.ndim == 0 else ref
    np.testing.assert_array_equal(nd.argmax(nd.array(x), axis=axis).asnumpy(), ref)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 16), st.integers(1, 3), st.integers(1, 40), st.booleans(),
       st.integers(1, 6), st.sampled_from(["float32", "int32", "uint8"]))
def test_ordering_with_ties_is_stable(seed, rows, n, is_ascend, k, dtype):
    # few distinct values: many ties, in every lane or only some; k small enough for the
    # partition path when n is long
    rng = np.random.default_rng(seed)
    x = rng.integers(0, rng.integers(1, 5), size=(rows, n)).astype(dtype)
    key = x.astype(np.int64) if is_ascend else -x.astype(np.int64)
    ref = np.argsort(key, axis=1, kind="stable")
    got = nd.argsort(nd.array(x, dtype=dtype), is_ascend=is_ascend).asnumpy()
    np.testing.assert_array_equal(got, ref)
    kk = min(k, n)
    got = nd.topk(nd.array(x, dtype=dtype), k=kk, is_ascend=is_ascend).asnumpy()
    np.testing.assert_array_equal(got, ref[:, :kk])
    got = nd.topk(nd.array(x.T.copy(), dtype=dtype), axis=0, k=kk, is_ascend=is_ascend)
    np.testing.assert_array_equal(got.asnumpy(), ref[:, :kk].T)
    # the sorted values are the same with and without a recorded graph
    xv = nd.array(x, dtype="float32")
    plain = nd.sort(xv, is_ascend=is_ascend).asnumpy()
    xv.attach_grad()
    with mx.autograd.record():
        recorded = nd.sort(xv, is_ascend=is_ascend)
    np.testing.assert_array_equal(plain, recorded.asnumpy())
    np.testing.assert_array_equal(plain, np.take_along_axis(x.astype(np.float32), ref, 1))
