"""Neural-network ops: forward vs NumPy references, numerical gradients of first and
second order, tangents (jvp), and the MXNet semantics users rely on (Dropout scaling and
modes, BatchNorm running statistics, numerical stability, errors)."""
import math

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd, autograd
from mxgrad.ops import nn as nnops
from opcheck import OpCase, op_tests, randn, uniform, face_tests

_erf = np.vectorize(math.erf)


def _away(x, d=0.15):
    """Move values away from the kink at 0."""
    return np.where(np.abs(x) < d, np.sign(x + 1e-12) * (d + 0.1), x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1, t=1.0):
    z = x / t
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1, t=1.0):
    z = x / t
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _bshape(ndim, axis, c):
    return (1,) * axis + (c,) + (1,) * (ndim - axis - 1)


def _bn_train_ref(x, g, b, eps=1e-3, axis=1, fix_gamma=False):
    axes = tuple(i for i in range(x.ndim) if i != axis)
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    bs = _bshape(x.ndim, axis, x.shape[axis])
    gg = 1.0 if fix_gamma else g.reshape(bs)
    return (x - m) / np.sqrt(v + eps) * gg + b.reshape(bs)


def _bn_infer_ref(x, g, b, rm, rv, eps=1e-3, axis=1, fix_gamma=False):
    bs = _bshape(x.ndim, axis, x.shape[axis])
    gg = 1.0 if fix_gamma else g.reshape(bs)
    return (x - rm.reshape(bs)) / np.sqrt(rv.reshape(bs) + eps) * gg + b.reshape(bs)


def _ln_ref(x, g, b, axis=-1, eps=1e-5):
    m = x.mean(axis=axis, keepdims=True)
    v = x.var(axis=axis, keepdims=True)
    bs = _bshape(x.ndim, axis % x.ndim, x.shape[axis])
    return (x - m) / np.sqrt(v + eps) * g.reshape(bs) + b.reshape(bs)


def _in_ref(x, g, b, eps=1e-3):
    axes = tuple(range(2, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    v = x.var(axis=axes, keepdims=True)
    bs = _bshape(x.ndim, 1, x.shape[1])
    return (x - m) / np.sqrt(v + eps) * g.reshape(bs) + b.reshape(bs)


def _gn_ref(x, g, b, ng, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.reshape((n, ng, c // ng) + x.shape[2:])
    axes = tuple(range(2, xg.ndim))
    xh = (xg - xg.mean(axis=axes, keepdims=True)) / np.sqrt(xg.var(axis=axes, keepdims=True)
                                                            + eps)
    bs = _bshape(x.ndim, 1, c)
    return xh.reshape(x.shape) * g.reshape(bs) + b.reshape(bs)


def _train(fn):
    def f(*a):
        with autograd.train_mode():
            return fn(*a)
    return f


def _predict(fn):
    def f(*a):
        with autograd.predict_mode():
            return fn(*a)
    return f


def _stats(c, like):
    return (nd.zeros((c,), dtype=like.dtype), nd.ones((c,), dtype=like.dtype))


RM = uniform(-0.5, 0.5, 3, seed=11)
RV = uniform(0.5, 2.0, 3, seed=12)


def _bn_infer(fix_gamma, axis=1):
    def f(x, g, b):
        rm = nd.array(RM, dtype=x.dtype)
        rv = nd.array(RV, dtype=x.dtype)
        return nd.BatchNorm(x, g, b, rm, rv, fix_gamma=fix_gamma, axis=axis)
    return _predict(f)


def _bn_train(fix_gamma, axis=1, eps=1e-3):
    def f(x, g, b):
        rm, rv = _stats(x.shape[axis], x)
        return nd.BatchNorm(x, g, b, rm, rv, fix_gamma=fix_gamma, axis=axis, eps=eps)
    return _train(f)


X = randn(3, 4)
X3 = randn(2, 3, 4, seed=3)
X4 = randn(2, 3, 2, 2, seed=4)
G3, B3 = uniform(0.5, 1.5, 3, seed=5), randn(3, seed=6)
G4, B4 = uniform(0.5, 1.5, 4, seed=7), randn(4, seed=8)
W = randn(5, 12, seed=9)
W4 = randn(5, 4, seed=10)
BIAS = randn(5, seed=13)

NORM_TOL = dict(fwd_rtol=1e-4, fwd_atol=1e-5, atol=1e-5)

CASES = [
    # ---------------------------------------------------------- FullyConnected
    OpCase("fc_flatten", lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=5),
           [X3, W, BIAS], lambda x, w, b: x.reshape(2, -1) @ w.T + b, fwd_rtol=1e-4),
    OpCase("fc_no_flatten", lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=5,
                                                              flatten=False),
           [X3, W4, BIAS], lambda x, w, b: x @ w.T + b, fwd_rtol=1e-4),
    OpCase("fc_no_bias", lambda x, w: nd.FullyConnected(x, w, no_bias=True, num_hidden=5),
           [X, W4], lambda x, w: x @ w.T, fwd_rtol=1e-4),
    OpCase("fc_1d_flatten", lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=5),
           [randn(4, 4, seed=14), W4, BIAS], lambda x, w, b: x @ w.T + b, fwd_rtol=1e-4),
    # ------------------------------------------------------------- activations
    OpCase("act_relu", lambda x: nd.Activation(x, act_type="relu"), [_away(X)],
           lambda x: np.maximum(x, 0)),
    OpCase("act_sigmoid", lambda x: nd.Activation(x, act_type="sigmoid"), [X], _sigmoid),
    OpCase("act_tanh", lambda x: nd.Activation(x, act_type="tanh"), [X], np.tanh),
    OpCase("act_softrelu", lambda x: nd.Activation(x, act_type="softrelu"), [X * 3],
           lambda x: np.log1p(np.exp(x))),
    OpCase("act_softsign", lambda x: nd.Activation(x, act_type="softsign"), [_away(X)],
           lambda x: x / (1 + np.abs(x))),
    OpCase("act_log_sigmoid", lambda x: nd.Activation(x, act_type="log_sigmoid"), [X * 3],
           lambda x: np.log(_sigmoid(x))),
    OpCase("act_mish", lambda x: nd.Activation(x, act_type="mish"), [X],
           lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    OpCase("hard_sigmoid", lambda x: nd.hard_sigmoid(x), [X * 2],
           lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    OpCase("leaky", lambda x: nd.LeakyReLU(x, act_type="leaky", slope=0.1), [_away(X)],
           lambda x: np.where(x > 0, x, 0.1 * x)),
    OpCase("leaky_default", lambda x: nd.LeakyReLU(x), [_away(X)],
           lambda x: np.where(x > 0, x, 0.25 * x)),
    OpCase("elu", lambda x: nd.LeakyReLU(x, act_type="elu", slope=0.7), [_away(X)],
           lambda x: np.where(x > 0, x, 0.7 * (np.exp(x) - 1))),
    OpCase("selu", lambda x: nd.LeakyReLU(x, act_type="selu"), [_away(X)],
           lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 *
                                                   (np.exp(x) - 1))),
    OpCase("gelu", lambda x: nd.LeakyReLU(x, act_type="gelu"), [X],
           lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    OpCase("prelu_channel", lambda x, g: nd.LeakyReLU(x, g, act_type="prelu"),
           [_away(X4), uniform(0.1, 0.5, 3, seed=15)],
           lambda x, g: np.where(x > 0, x, g.reshape(1, 3, 1, 1) * x)),
    OpCase("prelu_scalar", lambda x, g: nd.LeakyReLU(x, g, act_type="prelu"),
           [_away(X), np.array([0.3])], lambda x, g: np.where(x > 0, x, g * x)),
    OpCase("rrelu_predict", _predict(lambda x: nd.LeakyReLU(x, act_type="rrelu")),
           [_away(X)], lambda x: np.where(x > 0, x, (0.125 + 0.334) / 2 * x)),
    # ---------------------------------------------------------------- softmax
    OpCase("softmax", lambda x: nd.softmax(x), [X], _softmax),
    OpCase("softmax_axis0", lambda x: nd.softmax(x, axis=0), [X], lambda x: _softmax(x, 0)),
    OpCase("softmax_axis1_3d", lambda x: nd.softmax(x, axis=1), [X3],
           lambda x: _softmax(x, 1)),
    OpCase("softmax_temp", lambda x: nd.softmax(x, temperature=2.5), [X],
           lambda x: _softmax(x, -1, 2.5)),
    OpCase("softmax_method", lambda x: x.softmax(axis=0), [X], lambda x: _softmax(x, 0)),
    OpCase("softmax_chain", lambda x: nd.softmax(x) * x, [X], lambda x: _softmax(x) * x),
    OpCase("softmax_length",
           lambda x: nd.softmax(x, nd.array([2, 4, 1]), axis=-1, use_length=True), [X],
           lambda x: np.where(np.arange(4) < np.array([2, 4, 1])[:, None],
                              _softmax(np.where(np.arange(4) < np.array([2, 4, 1])[:, None],
                                                x, -np.inf)), 0)),
    OpCase("log_softmax", lambda x: nd.log_softmax(x), [X], _log_softmax),
    OpCase("log_softmax_axis0", lambda x: nd.log_softmax(x, axis=0), [X],
           lambda x: _log_softmax(x, 0)),
    OpCase("log_softmax_axis1_3d", lambda x: nd.log_softmax(x, axis=1), [X3],
           lambda x: _log_softmax(x, 1)),
    OpCase("log_softmax_temp", lambda x: nd.log_softmax(x, temperature=0.5), [X],
           lambda x: _log_softmax(x, -1, 0.5)),
    OpCase("log_softmax_chain", lambda x: nd.log_softmax(x) * x, [X],
           lambda x: _log_softmax(x) * x),
    OpCase("softmin", lambda x: nd.softmin(x), [X], lambda x: _softmax(-x)),
    OpCase("softmin_temp", lambda x: nd.softmin(x, axis=0, temperature=2.), [X],
           lambda x: _softmax(-x, 0, 2.)),
    OpCase("softmax_activation", lambda x: nd.SoftmaxActivation(x), [X3],
           lambda x: _softmax(x.reshape(2, -1)).reshape(x.shape)),
    OpCase("softmax_activation_channel", lambda x: nd.SoftmaxActivation(x, mode="channel"),
           [X3], lambda x: _softmax(x, 1)),
    # -------------------------------------------------------------- BatchNorm
    OpCase("bn_train", _bn_train(False), [X3, G3, B3], _bn_train_ref, **NORM_TOL),
    OpCase("bn_train_fix_gamma", _bn_train(True), [X3, G3, B3],
           lambda x, g, b: _bn_train_ref(x, g, b, fix_gamma=True), **NORM_TOL),
    OpCase("bn_train_4d", _bn_train(False), [X4, G3, B3], _bn_train_ref, **NORM_TOL),
    OpCase("bn_train_2d", _bn_train(False, eps=1e-5), [randn(5, 3, seed=16), G3, B3],
           lambda x, g, b: _bn_train_ref(x, g, b, eps=1e-5), **NORM_TOL),
    OpCase("bn_train_axis_last", _bn_train(False, axis=-1), [X3, G4, B4],
           lambda x, g, b: _bn_train_ref(x, g, b, axis=2), **NORM_TOL),
    OpCase("bn_infer", _bn_infer(False), [X3, G3, B3],
           lambda x, g, b: _bn_infer_ref(x, g, b, RM, RV), **NORM_TOL),
    OpCase("bn_infer_fix_gamma", _bn_infer(True), [X4, G3, B3],
           lambda x, g, b: _bn_infer_ref(x, g, b, RM, RV, fix_gamma=True), **NORM_TOL),
    OpCase("bn_global_stats",
           _train(lambda x, g, b: nd.BatchNorm(x, g, b, nd.array(RM, dtype=x.dtype),
                                               nd.array(RV, dtype=x.dtype), fix_gamma=False,
                                               use_global_stats=True)),
           [X3, G3, B3], lambda x, g, b: _bn_infer_ref(x, g, b, RM, RV), **NORM_TOL),
    OpCase("bn_train_output_mean_var",
           _train(lambda x, g, b: nd.BatchNorm(x, g, b, *_stats(3, x), fix_gamma=False,
                                               output_mean_var=True)),
           [X3, G3, B3],
           lambda x, g, b: (_bn_train_ref(x, g, b), x.mean(axis=(0, 2)),
                            1 / np.sqrt(x.var(axis=(0, 2)) + 1e-3)), **NORM_TOL),
    # ------------------------------------------------- LayerNorm & friends
    OpCase("layernorm", lambda x, g, b: nd.LayerNorm(x, g, b), [X3, G4, B4], _ln_ref,
           **NORM_TOL),
    OpCase("layernorm_axis1", lambda x, g, b: nd.LayerNorm(x, g, b, axis=1, eps=1e-3),
           [X3, G3, B3], lambda x, g, b: _ln_ref(x, g, b, 1, 1e-3), **NORM_TOL),
    OpCase("layernorm_mean_var", lambda x, g, b: nd.LayerNorm(x, g, b, output_mean_var=True),
           [X, G4, B4],
           lambda x, g, b: (_ln_ref(x, g, b), x.mean(-1, keepdims=True),
                            np.sqrt(x.var(-1, keepdims=True) + 1e-5)), **NORM_TOL),
    OpCase("instancenorm", lambda x, g, b: nd.InstanceNorm(x, g, b), [X4, G3, B3], _in_ref,
           **NORM_TOL),
    OpCase("instancenorm_3d", lambda x, g, b: nd.InstanceNorm(x, g, b), [X3, G3, B3],
           _in_ref, **NORM_TOL),
    OpCase("groupnorm", lambda x, g, b: nd.GroupNorm(x, g, b, num_groups=2),
           [randn(2, 4, 3, seed=17), G4, B4], lambda x, g, b: _gn_ref(x, g, b, 2),
           **NORM_TOL),
    # ------------------------------------------------- building blocks directly
    OpCase("_normalize", lambda x: nnops._normalize(x, (0, 2), 1e-3), [X3],
           lambda x: ((x - x.mean((0, 2), keepdims=True)) /
                      np.sqrt(x.var((0, 2), keepdims=True) + 1e-3),
                      x.mean((0, 2), keepdims=True), x.var((0, 2), keepdims=True)),
           **NORM_TOL),
    OpCase("_norm_backward", lambda g, xh, inv: nnops._norm_bwd(g, xh, inv, (0, 2)),
           [X3, randn(2, 3, 4, seed=18), uniform(0.5, 2, 1, 3, 1, seed=19)],
           lambda g, xh, inv: inv * (g - g.mean((0, 2), keepdims=True) -
                                     xh * (g * xh).mean((0, 2), keepdims=True)), **NORM_TOL),
    OpCase("_affine", lambda x, s, t: nnops._affine(x, s, t),
           [X3, randn(1, 3, 1, seed=20), randn(1, 3, 1, seed=21)],
           lambda x, s, t: x * s + t),
    OpCase("_softmax_backward", lambda g, y: nnops._sm_bwd(g, y, 1),
           [X, uniform(0.1, 0.9, 3, 4, seed=22)],
           lambda g, y: y * (g - (g * y).sum(1, keepdims=True))),
    OpCase("_log_softmax_backward", lambda g, y: nnops._lsm_bwd(g, y, 0),
           [X, uniform(-2, -0.1, 3, 4, seed=23)],
           lambda g, y: g - np.exp(y) * g.sum(0, keepdims=True)),
    # ------------------------------------------------------ Embedding, losses
    OpCase("embedding", lambda i, w: nd.Embedding(i, w, input_dim=5, output_dim=3),
           [np.array([[0., 2.], [4., 2.]]), randn(5, 3, seed=24)],
           lambda i, w: w[i.astype(int)], grad_inputs=(1,)),
    OpCase("embedding_chain", lambda i, w: nd.Embedding(i, w, 5, 3) * nd.Embedding(i, w, 5, 3),
           [np.array([1., 1., 3.]), randn(5, 3, seed=25)],
           lambda i, w: w[i.astype(int)] ** 2, grad_inputs=(1,)),
    OpCase("linear_regression_output_fwd", lambda x, l: nd.LinearRegressionOutput(x, l),
           [X, X * 0.5], lambda x, l: x, grad=False),
    OpCase("logistic_regression_output_fwd", lambda x, l: nd.LogisticRegressionOutput(x, l),
           [X, X * 0.5], lambda x, l: _sigmoid(x), grad=False),
    OpCase("softmax_cross_entropy", lambda x, l: nd.softmax_cross_entropy(x, l),
           [X, np.array([0., 3., 1.])],
           lambda x, l: -_log_softmax(x)[np.arange(3), l.astype(int)].sum().reshape(1),
           grad_inputs=(0,)),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


# ------------------------------------------------------------ tangents (jvp)
def _outs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _jvp_check(case, seed=0, eps=1e-6, rtol=1e-5, atol=1e-6):
    rng = np.random.default_rng(seed)
    gi = case.grad_inputs if case.grad_inputs is not None else range(len(case.inputs))
    xs = case.inputs
    ts = [rng.standard_normal(x.shape) if i in gi else None for i, x in enumerate(xs)]
    args = []
    for x, t in zip(xs, ts):
        a = nd.array(x, dtype=x.dtype)
        if t is not None:
            a._tan = nd.array(t, dtype=np.float64)
        args.append(a)
    outs = _outs(case.fn(*args))

    def at(sign):
        return [o.asnumpy() for o in _outs(case.fn(*[
            nd.array(x if t is None else x + sign * eps * t, dtype=x.dtype)
            for x, t in zip(xs, ts)]))]
    plus, minus = at(1), at(-1)
    for o, p, m in zip(outs, plus, minus):
        num = (p - m) / (2 * eps)
        if o._tan is None:
            np.testing.assert_allclose(num, 0, atol=atol)
        else:
            np.testing.assert_allclose(o._tan.asnumpy(), num, rtol=rtol, atol=atol)


JVP_CASES = [c for c in CASES if c.grad]


@pytest.mark.parametrize("case", JVP_CASES, ids=[c.name for c in JVP_CASES])
def test_jvp(case):
    _jvp_check(case)


# ----------------------------------------------------------------- Dropout
def test_dropout_scaling_in_train_mode():
    mx.random.seed(0)
    x = nd.ones((4000,))
    with autograd.train_mode():
        y = nd.Dropout(x, p=0.3)
    vals = y.asnumpy()
    kept = vals[vals != 0]
    np.testing.assert_allclose(kept, 1 / 0.7, rtol=1e-6)
    assert abs((vals == 0).mean() - 0.3) < 0.04
    assert abs(vals.mean() - 1.0) < 0.06
    assert y.dtype == np.float32


def test_dropout_identity_in_predict_mode_and_record_without_training():
    x = nd.array([[1., 2.], [3., 4.]])
    assert nd.Dropout(x, p=0.9).asnumpy().tolist() == x.asnumpy().tolist()
    with autograd.predict_mode():
        assert nd.Dropout(x, p=0.9).asnumpy().tolist() == x.asnumpy().tolist()
    x.attach_grad()
    with autograd.record(train_mode=False):
        y = nd.Dropout(x, p=0.9)
    assert y.asnumpy().tolist() == x.asnumpy().tolist()
    assert y is not x
    y.backward()
    assert x.grad.asnumpy().tolist() == [[1., 1.], [1., 1.]]


def test_dropout_active_under_train_mode_and_pause_train():
    x = nd.ones((500,))
    with autograd.train_mode():
        y = nd.Dropout(x, p=0.5)
    assert (y.asnumpy() == 0).any() and (y.asnumpy() == 2).any()
    with autograd.record():
        with autograd.pause(train_mode=True):
            y2 = nd.Dropout(x, p=0.5)
        with autograd.pause():
            y3 = nd.Dropout(x, p=0.5)
    assert (y2.asnumpy() == 0).any()
    assert (y3.asnumpy() == 1).all()


def test_dropout_active_in_record():
    x = nd.ones((500,))
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
    assert (y.asnumpy() == 0).any()


def test_dropout_always_mode():
    x = nd.ones((500,))
    y = nd.Dropout(x, p=0.5, mode="always")
    assert (y.asnumpy() == 0).any() and (y.asnumpy() == 2).any()


def test_dropout_gradient_is_mask_over_keep():
    mx.random.seed(3)
    x = nd.array(np.random.default_rng(0).uniform(1, 2, (30, 20)))
    x.attach_grad()
    head = nd.array(np.random.default_rng(1).uniform(0.5, 1.5, (30, 20)))
    with autograd.record():
        y = nd.Dropout(x, p=0.4)
    y.backward(head)
    mask = (y.asnumpy() != 0).astype(np.float32)
    np.testing.assert_allclose(y.asnumpy(), x.asnumpy() * mask / 0.6, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), head.asnumpy() * mask / 0.6, rtol=1e-6)


def test_dropout_axes_share_mask():
    mx.random.seed(5)
    x = nd.ones((4, 6, 5))
    with autograd.train_mode():
        y = nd.Dropout(x, p=0.5, axes=(1,)).asnumpy()
    assert (y == y[:, :1, :]).all()
    assert (y == 0).any() and (y == 2).any()
    with autograd.train_mode():
        y = nd.Dropout(x, p=0.5, axes=(0, 2)).asnumpy()
    assert (y == y[:1, :, :1]).all()


def test_dropout_p_edges_and_seed():
    x = nd.ones((10,))
    with autograd.train_mode():
        assert (nd.Dropout(x, p=0.0).asnumpy() == 1).all()
        assert (nd.Dropout(x, p=1.0).asnumpy() == 0).all()
        mx.random.seed(7)
        a = nd.Dropout(nd.ones((50,)), p=0.5).asnumpy()
        mx.random.seed(7)
        b = nd.Dropout(nd.ones((50,)), p=0.5).asnumpy()
    assert (a == b).all()
    with pytest.raises(ValueError):
        nd.Dropout(x, p=1.5)


def test_dropout_float64_and_second_order():
    x = nd.ones((50,), dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
        g = autograd.grad((y * y).sum(), [x], create_graph=True)[0]
        gs = g.sum()
    assert y.dtype == np.float64
    mask = (y.asnumpy() != 0)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy() * mask * 4)
    gs.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), mask * 8.0)


# --------------------------------------------------------------- BatchNorm
def test_batchnorm_updates_running_stats_in_training_forward():
    x = np.random.default_rng(0).standard_normal((8, 3, 2, 2)).astype(np.float32) * 2 + 1
    rm0 = np.array([0.1, -0.2, 0.3], np.float32)
    rv0 = np.array([1.0, 2.0, 0.5], np.float32)
    rm, rv = nd.array(rm0), nd.array(rv0)
    v0 = rm._ver[0]
    with autograd.train_mode():
        nd.BatchNorm(nd.array(x), nd.ones((3,)), nd.zeros((3,)), rm, rv, momentum=0.8)
    bm = x.mean(axis=(0, 2, 3))
    bv = x.var(axis=(0, 2, 3))   # biased
    np.testing.assert_allclose(rm.asnumpy(), 0.8 * rm0 + 0.2 * bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.8 * rv0 + 0.2 * bv, rtol=1e-5, atol=1e-6)
    assert rm._ver[0] > v0
    assert rm.dtype == np.float32


def test_batchnorm_update_inside_record_and_backward_works():
    x = nd.array(np.random.default_rng(1).standard_normal((4, 3)))
    g, b = nd.ones((3,)), nd.zeros((3,))
    for p in (x, g, b):
        p.attach_grad()
    rm, rv = nd.zeros((3,)), nd.ones((3,))
    with autograd.record():
        y = nd.BatchNorm(x, g, b, rm, rv, fix_gamma=False)
    y.backward(nd.array(np.random.default_rng(2).standard_normal((4, 3))))
    np.testing.assert_allclose(rm.asnumpy(), 0.1 * x.asnumpy().mean(0), rtol=1e-5)
    assert np.abs(x.grad.asnumpy().sum(axis=0)).max() < 1e-5   # gradient sums to 0


def test_batchnorm_no_update_in_predict_or_global_stats():
    x = nd.array(np.random.default_rng(0).standard_normal((4, 3)))
    rm, rv = nd.array([0.5, 0.5, 0.5]), nd.array([2., 2., 2.])
    with autograd.predict_mode():
        y = nd.BatchNorm(x, nd.ones((3,)), nd.zeros((3,)), rm, rv)
    assert rm.asnumpy().tolist() == [0.5, 0.5, 0.5]
    np.testing.assert_allclose(y.asnumpy(), (x.asnumpy() - 0.5) / np.sqrt(2 + 1e-3),
                               rtol=1e-5)
    with autograd.train_mode():
        y = nd.BatchNorm(x, nd.ones((3,)), nd.zeros((3,)), rm, rv, use_global_stats=True)
    assert rm.asnumpy().tolist() == [0.5, 0.5, 0.5]
    assert rv.asnumpy().tolist() == [2., 2., 2.]
    np.testing.assert_allclose(y.asnumpy(), (x.asnumpy() - 0.5) / np.sqrt(2 + 1e-3),
                               rtol=1e-5)


def test_batchnorm_fix_gamma_ignores_gamma_and_zero_grad():
    x = nd.array(np.random.default_rng(0).standard_normal((4, 3)))
    g = nd.array([2., 3., 4.]); b = nd.array([1., 1., 1.])
    g.attach_grad(); b.attach_grad()
    for mode in (autograd.train_mode, autograd.predict_mode):
        with autograd.record():
            with mode():
                y = nd.BatchNorm(x, g, b, nd.zeros((3,)), nd.ones((3,)))  # fix_gamma=True
        y.backward()
        assert g.grad.asnumpy().tolist() == [0., 0., 0.]
        assert b.grad.asnumpy().tolist() == [4., 4., 4.]
    with autograd.train_mode():
        y = nd.BatchNorm(x, g, b, nd.zeros((3,)), nd.ones((3,)), eps=0.)
    np.testing.assert_allclose(y.asnumpy().std(axis=0), 1, rtol=1e-4)
    np.testing.assert_allclose(y.asnumpy().mean(axis=0), 1, rtol=1e-5)


def test_batchnorm_output_mean_var_inference():
    x = nd.ones((2, 3))
    rm, rv = nd.array([1., 2., 3.]), nd.array([3., 3., 3.])
    out, m, inv = nd.BatchNorm(x, nd.ones((3,)), nd.zeros((3,)), rm, rv, eps=1.,
                               output_mean_var=True)
    assert m.asnumpy().tolist() == [1., 2., 3.]
    np.testing.assert_allclose(inv.asnumpy(), [0.5, 0.5, 0.5])


def test_batchnorm_shape_errors():
    with pytest.raises(ValueError) as e:
        nd.BatchNorm(nd.ones((2, 3)), nd.ones((4,)), nd.zeros((3,)), nd.zeros((3,)),
                     nd.ones((3,)))
    assert "gamma" in str(e.value) and "(3,)" in str(e.value)
    with pytest.raises(ValueError):
        nd.BatchNorm(nd.ones((3,)), nd.ones((3,)), nd.zeros((3,)), nd.zeros((3,)),
                     nd.ones((3,)))


def test_batchnorm_saved_running_stats_are_snapshots():
    # inference forward, then a training forward mutates the running stats, then the
    # inference graph's backward still uses the values it was computed with
    x = nd.array(np.random.default_rng(0).standard_normal((4, 3)))
    g = nd.array([1., 2., 3.]); g.attach_grad()
    b = nd.zeros((3,))
    rm, rv = nd.zeros((3,)), nd.ones((3,))
    with autograd.record(train_mode=False):
        y = nd.BatchNorm(x, g, b, rm, rv, fix_gamma=False, eps=0.)
    with autograd.train_mode():
        nd.BatchNorm(x * 5, g, b, rm, rv)
    y.backward()
    np.testing.assert_allclose(g.grad.asnumpy(), x.asnumpy().sum(0), rtol=1e-5)


# --------------------------------------------------------- numerical stability
def test_softmax_large_logits_are_stable():
    x = nd.array([[1000., 0., -1000.], [1e30, 1e30, -1e30]])
    y = nd.softmax(x).asnumpy()
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y.sum(axis=1), 1, rtol=1e-6)
    np.testing.assert_allclose(y[0], [1, 0, 0], atol=1e-7)
    np.testing.assert_allclose(y[1], [0.5, 0.5, 0], atol=1e-7)
    ls = nd.log_softmax(nd.array([[1000., 0., -1000.]])).asnumpy()
    assert np.isfinite(ls).all()
    np.testing.assert_allclose(ls, [[0., -1000., -2000.]])
    x = nd.array([[1000., 0., -1000.]]); x.attach_grad()
    with autograd.record():
        z = (nd.log_softmax(x) * nd.array([[0., 1., 0.]])).sum()
    z.backward()
    assert np.isfinite(x.grad.asnumpy()).all()
    np.testing.assert_allclose(x.grad.asnumpy(), [[-1., 1., 0.]], atol=1e-6)


def test_softmax_values_and_dtype():
    y = nd.softmax(nd.array([1., 2., 3.]))
    np.testing.assert_allclose(y.asnumpy(), _softmax(np.array([1., 2., 3.])), rtol=1e-6)
    assert y.dtype == np.float32
    assert nd.softmax(nd.array([1., 2.]), dtype="float64").dtype == np.float64
    assert nd.log_softmax(nd.ones((2,), dtype="float64")).dtype == np.float64


def test_softmax_length_masks_positions():
    x = nd.ones((2, 4))
    y = nd.softmax(x, nd.array([1, 3]), use_length=True).asnumpy()
    np.testing.assert_allclose(y, [[1, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]], rtol=1e-6)


def test_softmax_axis_error():
    with pytest.raises(ValueError):
        nd.softmax(nd.ones((2, 3)), axis=2)


# ---------------------------------------------------------- FullyConnected
def test_fully_connected_errors():
    with pytest.raises(ValueError) as e:
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 5)), nd.ones((4,)), num_hidden=4)
    assert "(4, 5)" in str(e.value) and "(2, 3)" in str(e.value)
    with pytest.raises(ValueError):
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 3)), nd.ones((4,)), num_hidden=5)
    with pytest.raises(ValueError):
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 3)), nd.ones((5,)), num_hidden=4)
    with pytest.raises(TypeError):
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 3), dtype="float64"), no_bias=True)


def test_fully_connected_values_and_grads():
    x = nd.array([[1., 2.], [3., 4.]])
    w = nd.array([[1., 0.], [0., 1.], [1., 1.]])
    b = nd.array([0., 1., 2.])
    for p in (x, w, b):
        p.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(x, w, b, num_hidden=3)
    assert y.asnumpy().tolist() == [[1., 3., 5.], [3., 5., 9.]]
    y.backward()
    assert b.grad.asnumpy().tolist() == [2., 2., 2.]
    assert w.grad.asnumpy().tolist() == [[4., 6.], [4., 6.], [4., 6.]]
    assert x.grad.asnumpy().tolist() == [[2., 2.], [2., 2.]]


# ----------------------------------------------------------- activations
def test_activation_unknown_type():
    with pytest.raises(ValueError) as e:
        nd.Activation(nd.ones((2,)), act_type="swish")
    assert "relu" in str(e.value)
    with pytest.raises(ValueError):
        nd.LeakyReLU(nd.ones((2,)), act_type="bogus")
    with pytest.raises(ValueError):
        nd.LeakyReLU(nd.ones((2,)), act_type="prelu")


def test_relu_and_leaky_gradient_at_zero():
    x = nd.array([0., -1., 2.]); x.attach_grad()
    with autograd.record():
        y = nd.Activation(x, act_type="relu")
    y.backward()
    assert x.grad.asnumpy().tolist() == [0., 0., 1.]
    with autograd.record():
        y = nd.LeakyReLU(x, slope=0.1)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [0.1, 0.1, 1.])


def test_rrelu_training_slopes_in_bounds():
    x = nd.array(-np.ones(1000))
    with autograd.train_mode():
        y = nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.2, upper_bound=0.4).asnumpy()
    assert (-y >= 0.2).all() and (-y < 0.4).all() and len(np.unique(y)) > 10
    x.attach_grad()
    with autograd.record():
        y = nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.2, upper_bound=0.4)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), -y.asnumpy(), rtol=1e-6)


def test_prelu_gamma_gradient_values():
    x = nd.array([[-1., 2.], [-3., -4.]])
    g = nd.array([0.5, 0.25])
    x.attach_grad(); g.attach_grad()
    with autograd.record():
        y = nd.LeakyReLU(x, g, act_type="prelu")
    y.backward()
    assert y.asnumpy().tolist() == [[-0.5, 2.], [-1.5, -1.]]
    assert g.grad.asnumpy().tolist() == [-4., -4.]
    assert x.grad.asnumpy().tolist() == [[0.5, 1.], [0.5, 0.25]]


def test_elu_large_inputs_finite_second_order():
    x = nd.array([100., -100., 0.5], dtype="float64"); x.attach_grad()
    with autograd.record():
        y = nd.LeakyReLU(x, act_type="elu", slope=1.0)
        g = autograd.grad(y.sum(), [x], create_graph=True)[0]
        gs = g.sum()
    gs.backward()
    assert np.isfinite(g.asnumpy()).all() and np.isfinite(x.grad.asnumpy()).all()


# --------------------------------------------------------------- Embedding
def test_embedding_accumulates_repeated_indices():
    w = nd.array(np.arange(12).reshape(4, 3)); w.attach_grad()
    idx = nd.array([[0, 2], [0, 0]])
    with autograd.record():
        y = nd.Embedding(idx, w, input_dim=4, output_dim=3)
    assert y.shape == (2, 2, 3)
    y.backward()
    assert w.grad.asnumpy().tolist() == [[3.] * 3, [0.] * 3, [1.] * 3, [0.] * 3]


def test_embedding_no_gradient_to_data_and_clipping():
    w = nd.array(np.arange(6).reshape(3, 2))
    idx = nd.array([0., 5., -1.])
    idx.attach_grad(); w.attach_grad()
    with autograd.record():
        y = nd.Embedding(idx, w, input_dim=3, output_dim=2)
    assert y.asnumpy().tolist() == [[0., 1.], [4., 5.], [0., 1.]]
    y.backward()
    assert idx.grad.asnumpy().tolist() == [0., 0., 0.]
    with pytest.raises(ValueError):
        nd.Embedding(idx, w, input_dim=4, output_dim=2)


# ------------------------------------------------------------------ losses
def test_softmax_cross_entropy_shape_and_grad():
    x = nd.array([[1., 2., 3.], [1., 1., 1.]]); x.attach_grad()
    lab = nd.array([2, 0])
    with autograd.record():
        loss = nd.softmax_cross_entropy(x, lab)
    assert loss.shape == (1,)
    ref = -(_log_softmax(x.asnumpy())[[0, 1], [2, 0]]).sum()
    np.testing.assert_allclose(loss.asscalar(), ref, rtol=1e-6)
    loss.backward()
    oh = np.eye(3)[[2, 0]]
    np.testing.assert_allclose(x.grad.asnumpy(), _softmax(x.asnumpy()) - oh, rtol=1e-5,
                               atol=1e-7)


def test_softmax_output_gradient():
    x = nd.array([[1., 2., 3.], [1., 1., 1.]]); x.attach_grad()
    lab = nd.array([2, 0])
    with autograd.record():
        y = nd.SoftmaxOutput(x, lab, normalization="batch")
    np.testing.assert_allclose(y.asnumpy(), _softmax(x.asnumpy()), rtol=1e-6)
    y.backward(nd.ones((2, 3)) * 7)   # the head gradient is ignored
    oh = np.eye(3)[[2, 0]]
    np.testing.assert_allclose(x.grad.asnumpy(), (_softmax(x.asnumpy()) - oh) / 2,
                               rtol=1e-5, atol=1e-7)
    with autograd.record():
        y = nd.SoftmaxOutput(x, nd.array([2, -1]), use_ignore=True, ignore_label=-1)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy()[1], 0)
    np.testing.assert_allclose(x.grad.asnumpy()[0], _softmax(x.asnumpy())[0] - oh[0],
                               rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------- misc
def test_layernorm_and_instancenorm_errors():
    with pytest.raises(ValueError):
        nd.LayerNorm(nd.ones((2, 3)), nd.ones((2,)), nd.zeros((3,)))
    with pytest.raises(ValueError):
        nd.InstanceNorm(nd.ones((2, 3)), nd.ones((3,)), nd.zeros((3,)))


def test_norm_zero_variance_with_zero_eps_is_finite():
    y = nd.LayerNorm(nd.ones((2, 3)), nd.ones((3,)), nd.zeros((3,)), eps=0.)
    assert np.isfinite(y.asnumpy()).all()


def test_gluon_facing_names_exist():
    for name in ["FullyConnected", "Activation", "LeakyReLU", "Dropout", "BatchNorm",
                 "LayerNorm", "InstanceNorm", "Embedding", "softmax", "log_softmax"]:
        assert callable(getattr(nd, name))


def test_softmax_int_second_argument_is_axis():
    x = nd.array(np.arange(6.).reshape(2, 3))
    np.testing.assert_allclose(nd.softmax(x, 0).asnumpy(), _softmax(x.asnumpy(), 0),
                               rtol=1e-6)


def test_embedding_backward_large_random_matches_add_at():
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 50, (40, 7)).astype(np.float32)
    w = nd.array(rng.standard_normal((50, 6))); w.attach_grad()
    head = rng.standard_normal((40, 7, 6)).astype(np.float32)
    with autograd.record():
        y = nd.Embedding(nd.array(idx), w, input_dim=50, output_dim=6)
    y.backward(nd.array(head))
    ref = np.zeros((50, 6), np.float64)
    np.add.at(ref, idx.astype(int).reshape(-1), head.reshape(-1, 6))
    np.testing.assert_allclose(w.grad.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_regression_outputs_gradients():
    x = nd.array([[1., -2.], [3., 0.5]]); x.attach_grad()
    lab = nd.array([[0., 1.], [1., 1.]])
    for fn, ref in [
            (nd.LinearRegressionOutput, lambda a, l: (a - l) / 2),
            (nd.LogisticRegressionOutput, lambda a, l: (_sigmoid(a) - l) / 2),
            (nd.MAERegressionOutput, lambda a, l: np.sign(a - l) / 2)]:
        with autograd.record():
            y = fn(x, lab, grad_scale=1.0)
        y.backward(nd.ones((2, 2)) * 3)   # head gradient ignored
        np.testing.assert_allclose(x.grad.asnumpy(), ref(x.asnumpy(), lab.asnumpy()),
                                   rtol=1e-6)
    with pytest.raises(ValueError):
        nd.LinearRegressionOutput(x, nd.ones((3,)))
