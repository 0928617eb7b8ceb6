"""gluon.nn layers: forward against NumPy references, gradients against central
differences (float64), Dropout/BatchNorm in every autograd scope, errors."""
import numpy as np
import pytest
from math import erf

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import ShapeError
from mxgrad.gluon import nn
from mxgrad.test_utils import check_numeric_gradient

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def build(layer, x, dtype="float64", init=None):
    """Initialize (with a random init so biases are non-zero), infer shapes, cast."""
    layer.initialize(init or mx.init.Uniform(0.5))
    layer(nd.array(x, dtype="float32"))
    for p in layer.collect_params().values():
        if p.grad_req != "null" or p.name.endswith(("running_mean", "running_var")):
            if p.name.endswith("running_var"):
                p.set_data(nd.array(RNG.uniform(0.5, 1.5, p.shape)))
            else:
                p.set_data(nd.array(RNG.uniform(-0.5, 0.5, p.shape)))
    layer.cast(dtype)
    return layer


def params_of(layer):
    return {k: p.data().asnumpy() for k, p in layer._reg_params.items() if p is not None}


def check_layer_grad(layer, x, train=False, rtol=1e-4, atol=1e-6):
    """Numerical gradient of the layer w.r.t. its input and its trainable params."""
    names = [k for k, p in layer._reg_params.items() if p is not None and p.grad_req != "null"]
    consts = {k: p.data() for k, p in layer._reg_params.items()
              if p is not None and p.grad_req == "null"}

    def fn(xv, *pv):
        kw = dict(zip(names, pv))
        kw.update(consts)
        with autograd.train_mode() if train else autograd.predict_mode():
            return layer.hybrid_forward(nd, xv, **kw)

    inputs = [x] + [layer._reg_params[k].data().asnumpy() for k in names]
    assert check_numeric_gradient(fn, inputs, rtol=rtol, atol=atol)


def act_ref(name, x):
    return {"relu": np.maximum(x, 0), "sigmoid": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x),
            "softrelu": np.log1p(np.exp(x)), "softsign": x / (1 + np.abs(x))}[name]


# ------------------------------------------------------------------------ Dense
@pytest.mark.parametrize("act", [None, "relu", "tanh", "sigmoid", "softrelu", "softsign"])
def test_dense_forward_and_grad(act):
    x = randn(4, 5)
    d = build(nn.Dense(3, activation=act), x)
    p = params_of(d)
    ref = x @ p["weight"].T + p["bias"]
    if act:
        ref = act_ref(act, ref)
    np.testing.assert_allclose(d(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-10)
    assert d.weight.shape == (3, 5)
    check_layer_grad(d, x)


def test_dense_flatten_and_no_bias():
    x = randn(2, 3, 4)
    d = build(nn.Dense(5, use_bias=False), x)
    assert d.bias is None and d.weight.shape == (5, 12)
    ref = x.reshape(2, 12) @ d.weight.data().asnumpy().T
    np.testing.assert_allclose(d(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-10)
    d2 = build(nn.Dense(5, flatten=False), x)
    assert d2.weight.shape == (5, 4)
    p = params_of(d2)
    out = d2(nd.array(x, dtype="float64"))
    assert out.shape == (2, 3, 5)
    np.testing.assert_allclose(out.asnumpy(), x @ p["weight"].T + p["bias"], rtol=1e-10)
    check_layer_grad(d2, x)


def test_dense_default_dtype_float32():
    d = nn.Dense(2, in_units=2)
    d.initialize()
    assert d.weight.data().dtype == np.float32
    assert d(nd.ones((1, 2))).dtype == np.float32


# ------------------------------------------------------------------ activations
@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "softrelu", "softsign"])
def test_activation(name):
    x = randn(3, 4)
    a = nn.Activation(name)
    np.testing.assert_allclose(a(nd.array(x, dtype="float64")).asnumpy(), act_ref(name, x),
                               rtol=1e-10)
    check_layer_grad(a, x)
    assert repr(a) == f"Activation({name})"


def _selu(x):
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return scale * np.where(x > 0, x, alpha * (np.exp(x) - 1))


@pytest.mark.parametrize("layer,ref", [
    (lambda: nn.LeakyReLU(0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (lambda: nn.ELU(0.7), lambda x: np.where(x > 0, x, 0.7 * (np.exp(x) - 1))),
    (lambda: nn.SELU(), _selu),
    (lambda: nn.GELU(), lambda x: x * 0.5 * (1 + np.vectorize(erf)(x / np.sqrt(2)))),
    (lambda: nn.Swish(1.5), lambda x: x / (1 + np.exp(-1.5 * x))),
    (lambda: nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
], ids=["leaky", "elu", "selu", "gelu", "swish", "silu"])
def test_parametric_free_activations(layer, ref):
    x = randn(3, 5)
    x[np.abs(x) < 1e-3] = 0.5          # keep away from the kink
    blk = layer()
    np.testing.assert_allclose(blk(nd.array(x, dtype="float64")).asnumpy(), ref(x),
                               rtol=1e-6, atol=1e-8)
    check_layer_grad(blk, x)


def test_prelu():
    x = randn(2, 3, 4)
    p = nn.PReLU()
    p.initialize()
    assert p.alpha.data().asnumpy().tolist() == [0.25]
    out = p(nd.array(x)).asnumpy()
    np.testing.assert_allclose(out, np.where(x > 0, x, 0.25 * x), rtol=1e-6)
    pc = build(nn.PReLU(in_channels=3), x)
    a = pc.alpha.data().asnumpy()
    ref = np.where(x > 0, x, a.reshape(1, 3, 1) * x)
    np.testing.assert_allclose(pc(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-10)
    check_layer_grad(pc, x)


# ---------------------------------------------------------------------- Dropout
def dropout_scopes():
    """(name, context factory, expect training, expect recorded)."""
    from contextlib import contextmanager

    @contextmanager
    def nested(outer, inner):
        with outer():
            with inner():
                yield

    return [
        ("none", lambda: nested(lambda: _null(), lambda: _null()), False),
        ("record", lambda: autograd.record(), True),
        ("record_predict", lambda: autograd.record(train_mode=False), False),
        ("pause_train_in_record",
         lambda: nested(autograd.record, lambda: autograd.pause(train_mode=True)), True),
        ("predict_in_record", lambda: nested(autograd.record, autograd.predict_mode), False),
        ("train_mode_only", lambda: autograd.train_mode(), True),
        ("pause_in_record", lambda: nested(autograd.record, autograd.pause), False),
    ]


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


@pytest.mark.parametrize("name,scope,training", dropout_scopes(),
                         ids=[s[0] for s in dropout_scopes()])
def test_dropout_scopes(name, scope, training):
    drop = nn.Dropout(0.4)
    x = nd.ones((200, 50))
    with scope():
        y = drop(x).asnumpy()
    if training:
        vals = set(np.unique(y).astype(float).round(5).tolist())
        assert vals <= {0.0, round(1 / 0.6, 5)}
        frac = (y == 0).mean()
        assert 0.35 < frac < 0.45
    else:
        np.testing.assert_array_equal(y, np.ones((200, 50)))


def test_dropout_gradient_is_mask_over_keep():
    drop = nn.Dropout(0.5)
    x = nd.ones((50, 40))
    x.attach_grad()
    with autograd.record():
        y = drop(x)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), y.asnumpy())   # mask/(1-p) == y here
    assert set(np.unique(x.grad.asnumpy()).tolist()) <= {0.0, 2.0}


def test_dropout_axes_shares_mask():
    drop = nn.Dropout(0.5, axes=(1,))
    with autograd.train_mode():
        y = drop(nd.ones((30, 20))).asnumpy()
    assert (y == y[:, :1]).all()


def test_dropout_zero_rate_identity():
    x = nd.array(randn(3, 3))
    with autograd.record():
        y = nn.Dropout(0.0)(x)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())


# -------------------------------------------------------------------- BatchNorm
def bn_ref(x, gamma, beta, mean, var, eps, axis=1):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = lambda a: a.reshape(shape)
    return r(gamma) * (x - r(mean)) / np.sqrt(r(var) + eps) + r(beta)


def batch_stats(x, axis=1):
    axes = tuple(i for i in range(x.ndim) if i != axis)
    return x.mean(axis=axes), x.var(axis=axes)


@pytest.mark.parametrize("name,scope,training", dropout_scopes(),
                         ids=[s[0] for s in dropout_scopes()])
def test_batchnorm_scopes(name, scope, training):
    x = randn(8, 3, 2, 2) * 2 + 1
    bn = nn.BatchNorm(momentum=0.8, in_channels=3)
    bn.initialize()
    rm0 = RNG.uniform(-1, 1, 3)
    rv0 = RNG.uniform(0.5, 2, 3)
    bn.running_mean.set_data(nd.array(rm0))
    bn.running_var.set_data(nd.array(rv0))
    gamma, beta = bn.gamma.data().asnumpy(), bn.beta.data().asnumpy()
    with scope():
        y = bn(nd.array(x)).asnumpy()
    rm, rv = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
    if training:
        m, v = batch_stats(x)
        np.testing.assert_allclose(y, bn_ref(x, gamma, beta, m, v, 1e-5), rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(rm, 0.8 * rm0 + 0.2 * m, rtol=1e-5)
        np.testing.assert_allclose(rv, 0.8 * rv0 + 0.2 * v, rtol=1e-5)   # biased var
    else:
        np.testing.assert_allclose(y, bn_ref(x, gamma, beta, rm0, rv0, 1e-5), rtol=1e-4,
                                   atol=1e-5)
        np.testing.assert_allclose(rm, rm0, rtol=1e-6)
        np.testing.assert_allclose(rv, rv0, rtol=1e-6)


def test_batchnorm_use_global_stats_always_running():
    x = randn(6, 2)
    bn = nn.BatchNorm(use_global_stats=True, in_channels=2)
    bn.initialize()
    bn.running_mean.set_data(nd.array([0.5, -0.5]))
    bn.running_var.set_data(nd.array([2.0, 0.5]))
    with autograd.record():
        y = bn(nd.array(x))
    np.testing.assert_allclose(y.asnumpy(), bn_ref(x, np.ones(2), np.zeros(2),
                                                   np.array([0.5, -0.5]),
                                                   np.array([2.0, 0.5]), 1e-5), rtol=1e-5)
    np.testing.assert_allclose(bn.running_mean.data().asnumpy(), [0.5, -0.5])


def test_batchnorm_params_and_defaults():
    bn = nn.BatchNorm()
    bn.initialize()
    bn(nd.ones((2, 5, 3)))
    assert bn.gamma.shape == (5,) and bn.running_var.shape == (5,)
    assert bn.running_mean.grad_req == "null" and bn.running_var.grad_req == "null"
    assert bn.gamma.grad_req == "write" and bn.beta.grad_req == "write"
    assert (bn.running_var.data().asnumpy() == 1).all()
    assert (bn.running_mean.data().asnumpy() == 0).all()
    assert (bn.gamma.data().asnumpy() == 1).all()
    noscale = nn.BatchNorm(scale=False, center=False)
    assert noscale.gamma.grad_req == "null" and noscale.beta.grad_req == "null"
    assert noscale._kwargs["fix_gamma"] is True


def test_batchnorm_axis_and_gradients():
    x = randn(4, 3, 5)
    bn = build(nn.BatchNorm(axis=-1), x)
    assert bn.gamma.shape == (5,)
    g, b = bn.gamma.data().asnumpy(), bn.beta.data().asnumpy()
    rm, rv = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
    np.testing.assert_allclose(bn(nd.array(x, dtype="float64")).asnumpy(),
                               bn_ref(x, g, b, rm, rv, 1e-5, axis=2), rtol=1e-10)
    check_layer_grad(bn, x, train=False)
    x2 = randn(6, 3)
    bn2 = build(nn.BatchNorm(), x2)
    check_layer_grad(bn2, x2, train=True, rtol=1e-3)


def test_batchnorm_fix_gamma_ignores_gamma():
    x = randn(5, 2)
    bn = nn.BatchNorm(scale=False, in_channels=2)
    bn.initialize()
    bn.gamma.set_data(nd.array([3.0, 3.0]))
    with autograd.record():
        y = bn(nd.array(x)).asnumpy()
    m, v = batch_stats(x)
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)


# ------------------------------------------------------- LayerNorm / InstanceNorm
def test_layernorm():
    x = randn(3, 4, 6)
    ln = build(nn.LayerNorm(), x)
    g, b = ln.gamma.data().asnumpy(), ln.beta.data().asnumpy()
    m = x.mean(-1, keepdims=True)
    v = x.var(-1, keepdims=True)
    ref = (x - m) / np.sqrt(v + 1e-5) * g + b
    np.testing.assert_allclose(ln(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-8)
    check_layer_grad(ln, x)
    ln1 = build(nn.LayerNorm(axis=1), x)
    assert ln1.gamma.shape == (4,)
    check_layer_grad(ln1, x)


def test_instancenorm():
    x = randn(2, 3, 5)
    inn = build(nn.InstanceNorm(scale=True), x)
    g, b = inn.gamma.data().asnumpy(), inn.beta.data().asnumpy()
    m = x.mean(2, keepdims=True)
    v = x.var(2, keepdims=True)
    ref = (x - m) / np.sqrt(v + 1e-5) * g.reshape(1, 3, 1) + b.reshape(1, 3, 1)
    np.testing.assert_allclose(inn(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-6)
    check_layer_grad(inn, x, rtol=1e-3)
    default = nn.InstanceNorm()
    assert default.gamma.grad_req == "null"          # MXNet's default scale=False


def test_groupnorm():
    x = randn(2, 4, 3)
    gn = build(nn.GroupNorm(num_groups=2), x)
    g, b = gn.gamma.data().asnumpy(), gn.beta.data().asnumpy()
    xg = x.reshape(2, 2, -1)
    xh = ((xg - xg.mean(2, keepdims=True)) / np.sqrt(xg.var(2, keepdims=True) + 1e-5))
    assert g.shape == (2,) and b.shape == (2,)        # one per group, as MXNet 1.9
    ref = (xh * g.reshape(1, 2, 1) + b.reshape(1, 2, 1)).reshape(x.shape)
    np.testing.assert_allclose(gn(nd.array(x, dtype="float64")).asnumpy(), ref, rtol=1e-8)
    check_layer_grad(gn, x, rtol=1e-3)
    # the op also takes per-channel gamma/beta (MXNet 2 / PyTorch layout)
    gc, bc = np.arange(1.0, 5.0), np.arange(4.0)
    out = nd.GroupNorm(nd.array(x, dtype="float64"), nd.array(gc, dtype="float64"),
                       nd.array(bc, dtype="float64"), num_groups=2).asnumpy()
    np.testing.assert_allclose(out, xh.reshape(x.shape) * gc.reshape(1, 4, 1)
                               + bc.reshape(1, 4, 1), rtol=1e-6)


# ---------------------------------------------------------- Embedding / Flatten
def test_embedding():
    emb = nn.Embedding(6, 3)
    emb.initialize()
    idx = np.array([[0, 5, 2], [2, 2, 1]])
    w = emb.weight.data().asnumpy()
    out = emb(nd.array(idx))
    np.testing.assert_array_equal(out.asnumpy(), w[idx])
    with autograd.record():
        y = emb(nd.array(idx)).sum()
    y.backward()
    expect = np.zeros((6, 3))
    np.add.at(expect, idx.ravel(), 1.0)
    np.testing.assert_array_equal(emb.weight.grad().asnumpy(), expect)
    assert repr(emb) == "Embedding(6 -> 3, float32)"


def test_flatten():
    x = randn(2, 3, 4)
    f = nn.Flatten()
    np.testing.assert_array_equal(f(nd.array(x, dtype="float64")).asnumpy(),
                                  x.reshape(2, 12))
    check_layer_grad(f, x)


# ----------------------------------------------------------------- convolutions
def conv_ref(x, w, b, stride, pad, dilate, groups):
    n, c = x.shape[:2]
    nd_ = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    k = w.shape[2:]
    dk = [d * (kk - 1) + 1 for kk, d in zip(k, dilate)]
    osz = [(xp.shape[2 + i] - dk[i]) // stride[i] + 1 for i in range(nd_)]
    o = w.shape[0]
    out = np.zeros((n, o) + tuple(osz))
    cg, og = c // groups, o // groups
    for pos in np.ndindex(*osz):
        sl = tuple(slice(pos[i] * stride[i], pos[i] * stride[i] + dk[i], dilate[i])
                   for i in range(nd_))
        patch = xp[(slice(None), slice(None)) + sl]
        for g in range(groups):
            pg = patch[:, g * cg:(g + 1) * cg]
            wg = w[g * og:(g + 1) * og]
            out[(slice(None), slice(g * og, (g + 1) * og)) + pos] = np.tensordot(
                pg, wg, axes=(list(range(1, nd_ + 2)), list(range(1, nd_ + 2))))
    if b is not None:
        out += b.reshape((1, -1) + (1,) * nd_)
    return out


@pytest.mark.parametrize("kw", [
    dict(kernel_size=3),
    dict(kernel_size=(2, 3), strides=2, padding=1),
    dict(kernel_size=2, dilation=2, padding=(1, 0)),
    dict(kernel_size=3, groups=2, use_bias=False),
])
def test_conv2d(kw):
    x = randn(2, 4, 6, 5)
    conv = build(nn.Conv2D(6, **kw), x)
    w = conv.weight.data().asnumpy()
    b = conv.bias.data().asnumpy() if conv.bias is not None else None
    k = conv._kwargs
    ref = conv_ref(x, w, b, k["stride"], k["pad"], k["dilate"], k["num_group"])
    np.testing.assert_allclose(conv(nd.array(x, dtype="float64")).asnumpy(), ref,
                               rtol=1e-10, atol=1e-12)
    assert w.shape == (6, 4 // k["num_group"]) + k["kernel"]
    check_layer_grad(conv, randn(1, 4, 5, 4))


def test_conv1d_and_activation():
    x = randn(2, 3, 9)
    conv = build(nn.Conv1D(4, 3, strides=2, padding=1, activation="relu"), x)
    w, b = conv.weight.data().asnumpy(), conv.bias.data().asnumpy()
    ref = np.maximum(conv_ref(x, w, b, (2,), (1,), (1,), 1), 0)
    np.testing.assert_allclose(conv(nd.array(x, dtype="float64")).asnumpy(), ref,
                               rtol=1e-10)
    check_layer_grad(conv, x)


def test_conv2d_nhwc():
    x = randn(2, 5, 5, 3)
    conv = build(nn.Conv2D(4, 3, layout="NHWC"), x)
    assert conv.weight.shape == (4, 3, 3, 3)
    w = conv.weight.data().asnumpy()
    ref = conv_ref(x.transpose(0, 3, 1, 2), w.transpose(0, 3, 1, 2),
                   conv.bias.data().asnumpy(), (1, 1), (0, 0), (1, 1), 1)
    np.testing.assert_allclose(conv(nd.array(x, dtype="float64")).asnumpy(),
                               ref.transpose(0, 2, 3, 1), rtol=1e-10)


def deconv_ref(x, w, b, stride, pad, adj):
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    oh = (h - 1) * stride[0] + kh
    ow = (wd - 1) * stride[1] + kw
    full = np.zeros((n, o, oh + adj[0], ow + adj[1]))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw] += \
                np.einsum("nc,cokl->nokl", x[:, :, i, j], w)
    out = full[:, :, pad[0]:full.shape[2] - pad[0], pad[1]:full.shape[3] - pad[1]]
    return out + b.reshape(1, -1, 1, 1)


def test_conv2d_transpose():
    x = randn(2, 3, 4, 3)
    t = build(nn.Conv2DTranspose(5, 3, strides=2, padding=1, output_padding=1), x)
    assert t.weight.shape == (3, 5, 3, 3)
    out = t(nd.array(x, dtype="float64"))
    assert out.shape == (2, 5, 8, 6)
    ref = deconv_ref(x, t.weight.data().asnumpy(), t.bias.data().asnumpy(), (2, 2), (1, 1),
                     (1, 1))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-10)
    check_layer_grad(t, randn(1, 3, 3, 2))
    assert repr(t).startswith("Conv2DTranspose(3 -> 5, kernel_size=(3, 3), stride=(2, 2)")


def pool_ref(x, k, s, p, kind, ceil=False):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, [(0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])], constant_values=fill)
    rnd = np.ceil if ceil else np.floor
    oh = int(rnd((h + 2 * p[0] - k[0]) / s[0])) + 1
    ow = int(rnd((w + 2 * p[1] - k[1]) / s[1])) + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else \
                win.sum(axis=(2, 3)) / (k[0] * k[1])
    return out


@pytest.mark.parametrize("cls,kind", [(nn.MaxPool2D, "max"), (nn.AvgPool2D, "avg")])
@pytest.mark.parametrize("kw", [dict(), dict(pool_size=3, strides=1, padding=1),
                                dict(pool_size=(2, 3), strides=(1, 2))])
def test_pool2d(cls, kind, kw):
    x = randn(2, 3, 6, 7)
    pool = cls(**kw)
    k = pool._kwargs
    ref = pool_ref(x, k["kernel"], k["stride"], k["pad"], kind)
    np.testing.assert_allclose(pool(nd.array(x, dtype="float64")).asnumpy(), ref,
                               rtol=1e-10)
    check_layer_grad(pool, x)


def test_pool_ceil_mode_and_1d_and_global():
    x = randn(1, 2, 5, 5)
    p = nn.MaxPool2D(pool_size=2, strides=2, ceil_mode=True)
    out = p(nd.array(x, dtype="float64"))
    assert out.shape == (1, 2, 3, 3)
    np.testing.assert_allclose(out.asnumpy()[:, :, :2, :2],
                               pool_ref(x, (2, 2), (2, 2), (0, 0), "max")[:, :, :2, :2])
    x1 = randn(2, 3, 8)
    m1 = nn.MaxPool1D()(nd.array(x1, dtype="float64")).asnumpy()
    np.testing.assert_allclose(m1, x1.reshape(2, 3, 4, 2).max(-1))
    a1 = nn.AvgPool1D(pool_size=4)(nd.array(x1, dtype="float64")).asnumpy()
    np.testing.assert_allclose(a1, x1.reshape(2, 3, 2, 4).mean(-1))
    ga = nn.GlobalAvgPool2D()(nd.array(x, dtype="float64")).asnumpy()
    np.testing.assert_allclose(ga, x.mean(axis=(2, 3), keepdims=True))
    gm = nn.GlobalMaxPool2D()(nd.array(x, dtype="float64")).asnumpy()
    np.testing.assert_allclose(gm, x.max(axis=(2, 3), keepdims=True))
    check_layer_grad(nn.GlobalAvgPool2D(), x)
    assert repr(nn.MaxPool2D()) == ("MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), "
                                    "ceil_mode=False, global_pool=False, pool_type=max, "
                                    "layout=NCHW)")


def test_conv_input_errors():
    conv = nn.Conv2D(2, 3, in_channels=3, prefix="c_")
    conv.initialize()
    with pytest.raises(ShapeError, match=r"c \(Conv2D\): Convolution: weight has shape "
                                         r"\(2, 3, 3, 3\), expected \(2, 4, 3, 3\)"):
        conv(nd.ones((1, 4, 5, 5)))
    with pytest.raises(ShapeError, match=r"c \(Conv2D\): Convolution: data of shape "
                                         r"\(1, 3, 5\) must be 4-D"):
        conv(nd.ones((1, 3, 5)))
    with pytest.raises(ShapeError, match="4-D input"):
        nn.MaxPool2D()(nd.ones((2, 3)))


# --------------------------------------------------------------- whole networks
def test_lenet_trains():
    mx.random.seed(0)
    rng = np.random.default_rng(1)
    n = 64
    y = rng.integers(0, 3, n)
    x = rng.standard_normal((n, 1, 12, 12)) * 0.3
    for i in range(n):                   # class-dependent bright square
        r = 2 + 3 * y[i]
        x[i, 0, r:r + 3, r:r + 3] += 2.0
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, activation="relu"), nn.MaxPool2D(2),
            nn.Conv2D(8, 3, activation="relu"), nn.BatchNorm(), nn.Flatten(),
            nn.Dense(16, activation="relu"), nn.Dropout(0.1), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    X, Y = nd.array(x), nd.array(y)
    losses = []
    for epoch in range(25):
        with autograd.record():
            loss = loss_fn(net(X), Y)
        loss.backward()
        trainer.step(n)
        losses.append(float(loss.mean().asscalar()))
    assert losses[-1] < 0.5 * losses[0]
    acc = (net(X).argmax(axis=1).asnumpy() == y).mean()
    assert acc > 0.8


def test_mlp_trains_regression():
    mx.random.seed(0)
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (128, 3))
    y = (np.sin(2 * x[:, :1]) + x[:, 1:2] * x[:, 2:3])
    net = nn.Sequential()
    net.add(nn.Dense(32, activation="tanh"), nn.Dense(32, activation="tanh"), nn.Dense(1))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": 0.1, "momentum": 0.9})
    loss_fn = gluon.loss.L2Loss()
    X, Y = nd.array(x), nd.array(y)
    first = None
    for epoch in range(60):
        for i in range(0, 128, 32):
            with autograd.record():
                loss = loss_fn(net(X[i:i + 32]), Y[i:i + 32])
            loss.backward()
            trainer.step(32)
        full = float(loss_fn(net(X), Y).mean().asscalar())
        first = full if first is None else first
    assert full < 0.2 * first
