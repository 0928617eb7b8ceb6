"""mx.nd.linalg (short names of the flat linalg ops) and mx.nd.contrib (boolean_mask,
arange_like, div_sqrt_dim, isinf/isnan/isfinite, quadratic, gradientmultiplier, index_copy,
index_array, rand_zipfian, and the control-flow operators foreach / while_loop / cond):
values, gradients against central differences, second order, and errors."""

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import DTypeError, ShapeError, StateError
from mxgrad.ndarray import contrib, linalg
from mxgrad.test_utils import check_numeric_gradient, check_second_order

A = nd.array


def f64(x):
    return nd.array(np.asarray(x, dtype=np.float64), dtype="float64")


# ------------------------------------------------------------------ linalg
LINALG = ["gemm", "gemm2", "potrf", "potri", "trmm", "trsm", "sumlogdiag", "extractdiag",
          "makediag", "syrk", "inverse", "det", "slogdet", "extracttrian", "maketrian",
          "gelqf", "syevd"]


@pytest.mark.parametrize("name", LINALG)
def test_linalg_short_names_are_the_flat_ops(name):
    assert getattr(linalg, name) is getattr(nd, "linalg_" + name)
    assert name in linalg.__all__


def test_linalg_all_lists_only_existing_functions():
    assert sorted(linalg.__all__) == sorted(LINALG)
    for name in linalg.__all__:
        assert callable(getattr(linalg, name))


def test_linalg_values_through_the_namespace():
    a = np.array([[4., 2.], [2., 3.]], dtype=np.float32)
    b = np.array([[1., 2., 3.], [4., 5., 6.]], dtype=np.float32)
    np.testing.assert_allclose(linalg.gemm2(A(a), A(b)).asnumpy(), a @ b, rtol=1e-6)
    np.testing.assert_allclose(linalg.gemm(A(a), A(b), A(b), alpha=2., beta=.5).asnumpy(),
                               2 * a @ b + .5 * b, rtol=1e-6)
    L = linalg.potrf(A(a)).asnumpy()
    np.testing.assert_allclose(L, np.linalg.cholesky(a), rtol=1e-6)
    np.testing.assert_allclose(linalg.inverse(A(a)).asnumpy(), np.linalg.inv(a), rtol=1e-5)
    np.testing.assert_allclose(linalg.det(A(a)).asnumpy(), [8.0], rtol=1e-6)
    np.testing.assert_allclose(linalg.sumlogdiag(A(L)).asnumpy(),
                               [np.log(np.diag(L)).sum()], rtol=1e-6)
    np.testing.assert_allclose(linalg.extractdiag(A(a)).asnumpy(), [4., 3.])
    np.testing.assert_allclose(linalg.makediag(A([1., 2.])).asnumpy(), np.diag([1., 2.]))
    np.testing.assert_allclose(linalg.syrk(A(b)).asnumpy(), b @ b.T, rtol=1e-6)


def test_linalg_gradient_through_the_namespace():
    a = np.array([[4., 1.], [1., 3.]])
    check_numeric_gradient(lambda x: linalg.gemm2(x, x, transpose_b=True), [a])
    check_numeric_gradient(lambda x: linalg.det(x), [a])


# ------------------------------------------------------------------ contrib: simple ops
def test_contrib_boolean_mask_is_the_flat_op():
    assert contrib.boolean_mask is nd.boolean_mask
    out = contrib.boolean_mask(A([[1, 2], [3, 4], [5, 6]]), A([0, 1, 1]))
    np.testing.assert_array_equal(out.asnumpy(), [[3, 4], [5, 6]])


def test_arange_like_values():
    x = nd.zeros((2, 3))
    np.testing.assert_array_equal(contrib.arange_like(x).asnumpy(),
                                  np.arange(6).reshape(2, 3))
    out = contrib.arange_like(x, start=1.5, step=-0.5)
    np.testing.assert_allclose(out.asnumpy(), (1.5 - 0.5 * np.arange(6)).reshape(2, 3))
    np.testing.assert_array_equal(contrib.arange_like(x, axis=1).asnumpy(), [0, 1, 2])
    np.testing.assert_array_equal(contrib.arange_like(x, axis=0).asnumpy(), [0, 1])
    np.testing.assert_array_equal(contrib.arange_like(nd.zeros((7,)), repeat=3).asnumpy(),
                                  [0, 0, 0, 1, 1, 1, 2])
    np.testing.assert_array_equal(
        contrib.arange_like(nd.zeros((2, 5)), start=10, step=2, repeat=2, axis=-1).asnumpy(),
        [10, 10, 12, 12, 14])


def test_arange_like_dtype_and_errors():
    assert contrib.arange_like(nd.zeros((3,))).dtype == np.float32
    assert contrib.arange_like(nd.zeros((3,), dtype="float64")).dtype == np.float64
    assert contrib.arange_like(nd.zeros((3,), dtype="int32")).dtype == np.int32
    with pytest.raises(StateError):
        contrib.arange_like(nd.zeros((3,)), repeat=0)
    with pytest.raises(ShapeError):
        contrib.arange_like(nd.zeros((3,)), axis=1)


def test_arange_like_is_a_constant():
    x = nd.ones((3,))
    x.attach_grad()
    with autograd.record():
        y = (x * contrib.arange_like(x)).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0, 1, 2])


def test_div_sqrt_dim_values_and_gradient():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = contrib.div_sqrt_dim(A(x))
    np.testing.assert_allclose(out.asnumpy(), x / 2.0)
    assert out.dtype == np.float32
    rng = np.random.default_rng(0)
    check_numeric_gradient(contrib.div_sqrt_dim, [rng.normal(size=(2, 3, 5))])
    check_second_order(lambda v: contrib.div_sqrt_dim(v) ** 2, [rng.normal(size=(2, 9))])


def test_isinf_isnan_isfinite():
    x = A([np.inf, -np.inf, np.nan, -1.0, 0.0])
    np.testing.assert_array_equal(contrib.isinf(x).asnumpy(), [1, 1, 0, 0, 0])
    np.testing.assert_array_equal(contrib.isnan(x).asnumpy(), [0, 0, 1, 0, 0])
    np.testing.assert_array_equal(contrib.isfinite(x).asnumpy(), [0, 0, 0, 1, 1])
    assert contrib.isnan(x).dtype == np.float32
    assert contrib.isinf(f64([1.0])).dtype == np.float64


def test_quadratic_values_and_gradient():
    out = contrib.quadratic(A([1., 2., -1.]), a=2, b=-3, c=1)
    np.testing.assert_allclose(out.asnumpy(), [0., 3., 6.])
    np.testing.assert_allclose(contrib.quadratic(A([5.])).asnumpy(), [0.])
    check_numeric_gradient(lambda x: contrib.quadratic(x, a=0.5, b=2.0, c=-1.0),
                           [np.array([0.3, -1.2, 2.0])])


def test_gradientmultiplier():
    x = f64([1.0, -2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = contrib.gradientmultiplier(x * x, scalar=-2.0)
    np.testing.assert_array_equal(y.asnumpy(), [1.0, 4.0, 9.0])
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), -2.0 * 2 * np.array([1.0, -2.0, 3.0]))
    # second order: d/dx of the scaled gradient
    with autograd.record():
        g = autograd.grad(contrib.gradientmultiplier(x ** 3, scalar=0.5).sum(), [x],
                          create_graph=True)[0]
        s = g.sum()
    s.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 0.5 * 6 * np.array([1.0, -2.0, 3.0]))


def test_round_and_sign_ste_straight_through():
    x = f64([-2.5, -0.4, 0.5, 1.6, 0.0])
    x.attach_grad()
    with autograd.record():
        r = contrib.round_ste(x)
        s = contrib.sign_ste(x)
        y = (r * f64([1., 2., 3., 4., 5.])).sum() + s.sum()
    np.testing.assert_array_equal(r.asnumpy(), nd.round(x).asnumpy())
    np.testing.assert_array_equal(r.asnumpy(), [-3., -0., 1., 2., 0.])
    np.testing.assert_array_equal(s.asnumpy(), [-1., -1., 1., 1., 0.])
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2., 3., 4., 5., 6.])


def _adaptive_ref(x, oh, ow):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        h0, h1 = (i * h) // oh, -((-(i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -((-(j + 1) * w) // ow)
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


@pytest.mark.parametrize("size,oshape", [((), (1, 1)), (2, (2, 2)), ((3, 2), (3, 2)),
                                         ((5, 7), (5, 7)), ((1,), (1, 1))])
def test_adaptive_avg_pooling_values(size, oshape):
    x = np.random.default_rng(4).normal(size=(2, 3, 5, 7)).astype(np.float32)
    out = contrib.AdaptiveAvgPooling2D(A(x), output_size=size)
    assert out.shape == (2, 3) + oshape and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), _adaptive_ref(x, *oshape), rtol=1e-5, atol=1e-6)


def test_adaptive_avg_pooling_gradient_and_errors():
    x = np.random.default_rng(5).normal(size=(1, 2, 5, 4))
    check_numeric_gradient(lambda v: contrib.AdaptiveAvgPooling2D(v, output_size=(3, 3)), [x])
    check_second_order(lambda v: contrib.AdaptiveAvgPooling2D(v, output_size=2) ** 2, [x])
    with pytest.raises(ShapeError):
        contrib.AdaptiveAvgPooling2D(nd.zeros((2, 3, 4)))
    with pytest.raises(ShapeError):
        contrib.AdaptiveAvgPooling2D(nd.zeros((1, 1, 4, 4)), output_size=(1, 2, 3))


def test_index_copy_values():
    old = A(np.arange(10, dtype=np.float32).reshape(5, 2))
    new = A([[-1., -2.], [-3., -4.]])
    out = contrib.index_copy(old, A([4, 1]), new)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1], [-3, -4], [4, 5], [6, 7], [-1, -2]])
    np.testing.assert_array_equal(old.asnumpy()[1], [2, 3])  # old is not modified


def test_index_copy_gradient():
    rng = np.random.default_rng(1)
    old, new = rng.normal(size=(4, 3)), rng.normal(size=(2, 3))
    idx = A([2, 0])
    check_numeric_gradient(lambda o, n: contrib.index_copy(o, idx, n), [old, new])
    o, n = f64(old), f64(new)
    o.attach_grad()
    n.attach_grad()
    with autograd.record():
        y = contrib.index_copy(o, idx, n)
    y.backward()
    np.testing.assert_array_equal(o.grad.asnumpy(), [[0] * 3, [1] * 3, [0] * 3, [1] * 3])
    np.testing.assert_array_equal(n.grad.asnumpy(), np.ones((2, 3)))


def test_index_copy_errors():
    with pytest.raises(ShapeError):
        contrib.index_copy(nd.zeros((3, 2)), A([0, 1]), nd.zeros((3, 2)))
    with pytest.raises(ShapeError):
        contrib.index_copy(nd.zeros((3, 2)), A([5]), nd.zeros((1, 2)))


def test_index_array():
    out = contrib.index_array(nd.zeros((2, 3)))
    assert out.shape == (2, 3, 2) and out.dtype == np.int64
    np.testing.assert_array_equal(out.asnumpy()[1, 2], [1, 2])
    np.testing.assert_array_equal(out.asnumpy()[..., 1], [[0, 1, 2], [0, 1, 2]])
    out = contrib.index_array(nd.zeros((2, 3, 4)), axes=(-1, 0))
    assert out.shape == (2, 3, 4, 2)
    np.testing.assert_array_equal(out.asnumpy()[1, 2, 3], [3, 1])
    with pytest.raises(ShapeError):
        contrib.index_array(nd.zeros((2,)), axes=(1,))


def test_rand_zipfian_expected_counts():
    mx.random.seed(3)
    samples, ct, cs = contrib.rand_zipfian(A([0, 3]), 6, 5)
    s = samples.asnumpy()
    assert s.shape == (6,) and s.dtype == np.int64 and s.min() >= 0 and s.max() < 5
    prob = lambda c: (np.log(c + 2.0) - np.log(c + 1.0)) / np.log(6.0)
    np.testing.assert_allclose(ct.asnumpy(), prob(np.array([0., 3.])) * 6)
    np.testing.assert_allclose(cs.asnumpy(), prob(s.astype(np.float64)) * 6)


# ------------------------------------------------------------------ foreach
def _cumsum_step(x, states):
    h = states[0] + x
    return h, [h]


def test_foreach_cumulative_sum_values():
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    outs, states = contrib.foreach(_cumsum_step, A(data), [nd.zeros((3,))])
    np.testing.assert_allclose(outs.asnumpy(), np.cumsum(data, axis=0))
    assert isinstance(states, list) and len(states) == 1
    np.testing.assert_allclose(states[0].asnumpy(), data.sum(0))


def test_foreach_rnn_like_gradient():
    rng = np.random.default_rng(0)
    data, h0, w = rng.normal(size=(5, 3)), rng.normal(size=(3,)), rng.normal(size=(3,))

    def rnn(x, h, w):
        def step(xt, states):
            h = nd.tanh(xt + states[0] * w)
            return h, [h]
        outs, states = contrib.foreach(step, x, [h])
        return outs, states[0]

    check_numeric_gradient(rnn, [data, h0, w])
    check_second_order(lambda x, h, w: rnn(x, h, w)[0], [data, h0, w])


def test_foreach_cumulative_sum_gradient_matches_hand():
    x = f64(np.ones((4, 2)))
    x.attach_grad()
    with autograd.record():
        outs, _ = contrib.foreach(_cumsum_step, x, [f64(np.zeros(2))])
        loss = outs.sum()
    loss.backward()
    # element t contributes to outputs t..T-1
    np.testing.assert_allclose(x.grad.asnumpy(), [[4, 4], [3, 3], [2, 2], [1, 1]])


def test_foreach_list_data_nested_outputs_and_plain_state():
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    b = np.arange(3, dtype=np.float32)

    def step(xs, state):
        xa, xb = xs
        assert xa.shape == (2,) and xb.shape == (1,)
        new = state + xa * xb
        return [new, [xa, xb * 2]], new

    outs, state = contrib.foreach(step, [A(a), A(b)], nd.zeros((2,)))
    assert isinstance(outs, list) and isinstance(outs[1], list)
    expect = np.cumsum(a * b[:, None], axis=0)
    np.testing.assert_allclose(outs[0].asnumpy(), expect)
    np.testing.assert_allclose(outs[1][0].asnumpy(), a)
    np.testing.assert_allclose(outs[1][1].asnumpy(), (b * 2).reshape(3, 1))
    assert isinstance(state, nd.NDArray)
    np.testing.assert_allclose(state.asnumpy(), expect[-1])


def test_foreach_single_step_and_errors():
    outs, st = contrib.foreach(_cumsum_step, A([[1., 2.]]), [nd.ones((2,))])
    np.testing.assert_allclose(outs.asnumpy(), [[2., 3.]])
    with pytest.raises(ShapeError):
        contrib.foreach(_cumsum_step, nd.zeros((0, 2)), [nd.zeros((2,))])
    with pytest.raises(ShapeError):
        contrib.foreach(lambda x, s: (x[0], s), [nd.zeros((2, 2)), nd.zeros((3, 2))], [])
    with pytest.raises(DTypeError):
        contrib.foreach(_cumsum_step, [[1.0, 2.0]], [nd.zeros((2,))])
    with pytest.raises(StateError):
        contrib.foreach(lambda x, s: x, nd.zeros((2, 2)), [nd.zeros((2,))])


# ------------------------------------------------------------------ while_loop
def test_while_loop_mxnet_example_padded_to_max_iterations():
    cond = lambda i, s: i <= 5
    func = lambda i, s: ([i + s], [i + 1, s + i])
    outs, states = contrib.while_loop(cond, func, (A([0]), A([1])), max_iterations=10)
    assert isinstance(outs, list) and len(outs) == 1
    assert outs[0].shape == (10, 1)
    np.testing.assert_array_equal(outs[0].asnumpy()[:6, 0], [1, 2, 4, 7, 11, 16])
    np.testing.assert_array_equal(outs[0].asnumpy()[6:, 0], 0)
    assert [s.asscalar() for s in states] == [6.0, 16.0]


def test_while_loop_stops_at_max_iterations_and_single_var():
    outs, state = contrib.while_loop(lambda x: x < 100, lambda x: (x * 2, x * 2), A([1.]),
                                     max_iterations=3)
    assert isinstance(state, nd.NDArray) and state.asscalar() == 8.0
    assert isinstance(outs, nd.NDArray)
    np.testing.assert_array_equal(outs.asnumpy().ravel(), [2., 4., 8.])


def test_while_loop_no_iteration():
    outs, states = contrib.while_loop(lambda x: x > 5, lambda x: (x, [x + 1]), [A([1.])],
                                      max_iterations=4)
    assert outs == [] and states[0].asscalar() == 1.0


def test_while_loop_gradient():
    # three steps of h <- h * w + x, the output of each step stacked
    def loop(h, w, x):
        func = lambda i, h: ([h * w + x], [i + 1, h * w + x])
        outs, (_, hT) = contrib.while_loop(lambda i, h: i < 3, func, [A([0.]), h],
                                           max_iterations=5)
        return outs[0], hT

    rng = np.random.default_rng(2)
    h, w, x = rng.normal(size=(2,)), rng.normal(size=(2,)), rng.normal(size=(2,))
    check_numeric_gradient(loop, [h, w, x])
    hh, ww, xx = f64(h), f64(w), f64(x)
    hh.attach_grad()
    with autograd.record():
        _, hT = loop(hh, ww, xx)
    hT.backward()
    np.testing.assert_allclose(hh.grad.asnumpy(), w ** 3)


def test_while_loop_errors():
    with pytest.raises(StateError, match="max_iterations"):
        contrib.while_loop(lambda x: x < 1, lambda x: (x, [x]), [A([0.])])
    with pytest.raises(StateError, match="loop variables"):
        contrib.while_loop(lambda x: x < 1, lambda x: (x, [x, x]), [A([0.])], max_iterations=2)
    with pytest.raises(StateError, match="scalar"):
        contrib.while_loop(lambda x: x < 1, lambda x: (x, [x]), [A([0., 0.])], max_iterations=2)
    with pytest.raises(ShapeError, match="differ"):
        _shape_changing_loop()


def _shape_changing_loop():
    state = {"n": 0}

    def func(x):
        state["n"] += 1
        return nd.zeros((state["n"],)), [x + 1]

    return contrib.while_loop(lambda x: x < 3, func, [A([0.])], max_iterations=4)


# ------------------------------------------------------------------ cond
def test_cond_values_and_gradient_flows_through_taken_branch():
    a, b = A([1.]), A([2.])
    out = contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    assert out.asscalar() == 42.0
    out = contrib.cond(a * b > 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    assert out.asscalar() == 12.0
    x = f64([3.0])
    x.attach_grad()
    with autograd.record():
        y = contrib.cond(x > 0, lambda: x * x, lambda: -x)
    y.backward()
    assert x.grad.asscalar() == 6.0
    assert contrib.cond(0, lambda: 1, lambda: 2) == 2


def test_cond_needs_scalar_pred():
    with pytest.raises(StateError):
        contrib.cond(A([1., 0.]), lambda: 1, lambda: 2)


def test_cond_inside_foreach_gradient():
    def relu_like(x):
        def step(xt, states):
            y = contrib.cond(xt.sum() > 0, lambda: xt * 2, lambda: xt * 0.5)
            return y, states
        return contrib.foreach(step, x, [])[0]

    check_numeric_gradient(relu_like, [np.array([[1.0, 2.0], [-3.0, 1.0], [-1.0, -2.0]])])
