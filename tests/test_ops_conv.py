"""Convolution, Deconvolution and Pooling: forward against naive NumPy loops, first- and
second-order numerical gradients, tangents, MXNet's shape formulas and error messages."""
import itertools
import math

import numpy as np
import pytest

from mxgrad import nd, autograd
from mxgrad.base import MXNetError, ShapeError
from mxgrad.ndarray.ndarray import NDArray
from opcheck import OpCase, op_tests, randn, run_forward, run_grad, run_second, face_tests
import mxgrad.ops.conv as _conv_mod


# ------------------------------------------------------ naive NumPy references
def _tup(v, n, default):
    if v is None or v == ():
        return (default,) * n
    return tuple(v)


def ref_conv(x, w, b=None, stride=(), pad=(), dilate=(), groups=1):
    nd_ = x.ndim - 2
    kernel = w.shape[2:]
    stride, pad, dilate = _tup(stride, nd_, 1), _tup(pad, nd_, 0), _tup(dilate, nd_, 1)
    N, C = x.shape[:2]
    F = w.shape[0]
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    osize = [(xp.shape[2 + i] - dilate[i] * (kernel[i] - 1) - 1) // stride[i] + 1
             for i in range(nd_)]
    out = np.zeros([N, F] + osize, dtype=np.float64)
    cg, fg = C // groups, F // groups
    for n in range(N):
        for f in range(F):
            g = f // fg
            for o in itertools.product(*[range(s) for s in osize]):
                acc = 0.0
                for c in range(cg):
                    for k in itertools.product(*[range(s) for s in kernel]):
                        pos = tuple(o[i] * stride[i] + k[i] * dilate[i] for i in range(nd_))
                        acc += xp[(n, g * cg + c) + pos] * w[(f, c) + k]
                out[(n, f) + o] = acc + (0.0 if b is None else b[f])
    return out.astype(x.dtype)


def ref_deconv(u, w, b=None, stride=(), pad=(), dilate=(), adj=(), groups=1):
    nd_ = u.ndim - 2
    kernel = w.shape[2:]
    stride, pad = _tup(stride, nd_, 1), _tup(pad, nd_, 0)
    dilate, adj = _tup(dilate, nd_, 1), _tup(adj, nd_, 0)
    N, Cin = u.shape[:2]
    fg = w.shape[1]
    F = fg * groups
    cg = Cin // groups
    isize = u.shape[2:]
    full = [stride[i] * (isize[i] - 1) + dilate[i] * (kernel[i] - 1) + 1 + adj[i]
            for i in range(nd_)]
    buf = np.zeros([N, F] + full, dtype=np.float64)
    for n in range(N):
        for c in range(Cin):
            g = c // cg
            for i in itertools.product(*[range(s) for s in isize]):
                for k in itertools.product(*[range(s) for s in kernel]):
                    pos = tuple(i[d] * stride[d] + k[d] * dilate[d] for d in range(nd_))
                    for f in range(fg):
                        buf[(n, g * fg + f) + pos] += u[(n, c) + i] * w[(c, f) + k]
    crop = (slice(None), slice(None)) + tuple(slice(p, full[d] - p) for d, p in
                                              enumerate(pad))
    out = buf[crop]
    if b is not None:
        out = out + b.reshape((1, F) + (1,) * nd_)
    return out.astype(u.dtype)


def ref_pool(x, kernel=(), pool_type="max", stride=(), pad=(), convention="valid",
             include_pad=True, global_pool=False, p_value=2):
    nd_ = x.ndim - 2
    isize = x.shape[2:]
    if global_pool:
        kernel, stride, pad = isize, (1,) * nd_, (0,) * nd_
    stride, pad = _tup(stride, nd_, 1), _tup(pad, nd_, 0)
    if global_pool:
        osize = [1] * nd_
    elif convention == "valid":
        osize = [(isize[i] + 2 * pad[i] - kernel[i]) // stride[i] + 1 for i in range(nd_)]
    elif convention == "full":
        osize = [int(math.ceil((isize[i] + 2 * pad[i] - kernel[i]) / stride[i])) + 1
                 for i in range(nd_)]
    else:
        osize = [int(math.ceil(isize[i] / stride[i])) for i in range(nd_)]
    N, C = x.shape[:2]
    out = np.zeros([N, C] + osize, dtype=np.float64)
    for n in range(N):
        for c in range(C):
            for o in itertools.product(*[range(s) for s in osize]):
                start = [o[i] * stride[i] - pad[i] for i in range(nd_)]
                end = [min(start[i] + kernel[i], isize[i] + pad[i]) for i in range(nd_)]
                lo = [max(s, 0) for s in start]
                hi = [min(e, isize[i]) for i, e in enumerate(end)]
                win = x[(n, c) + tuple(slice(a, b) for a, b in zip(lo, hi))]
                if pool_type == "max":
                    v = win.max()
                elif pool_type == "sum":
                    v = win.sum()
                elif pool_type == "lp":
                    v = np.sum(win ** p_value) ** (1.0 / p_value)
                else:
                    if include_pad:
                        cnt = np.prod([e - s for s, e in zip(start, end)])
                    else:
                        cnt = win.size
                    v = win.sum() / cnt
                out[(n, c) + o] = v
    return out.astype(x.dtype)


# ------------------------------------------------------------------ op table
X2 = randn(2, 3, 5, 5)
X2B = randn(2, 4, 6, 6, seed=1)
X1 = randn(2, 3, 7)
W2 = randn(4, 3, 3, 3, seed=2)
W2G = randn(4, 2, 3, 3, seed=3)        # groups=2 on 4 channels
W1 = randn(4, 3, 3, seed=4)
B4 = randn(4, seed=5)
X3 = randn(1, 2, 4, 4, 4, seed=6)
W3 = randn(3, 2, 2, 2, 2, seed=7)


def conv(**kw):
    def f(x, w, b=None):
        return nd.Convolution(x, w, b, **kw)
    return f


def conv_ref(**kw):
    kw = dict(kw)
    kw.pop("kernel", None)
    kw.pop("num_filter", None)
    groups = kw.pop("num_group", 1)
    kw.pop("no_bias", None)
    return lambda x, w, b=None: ref_conv(x, w, b, groups=groups, **kw)


CONV_CASES = [
    ("conv2d_basic", dict(kernel=(3, 3), num_filter=4), [X2, W2, B4]),
    ("conv2d_stride_pad", dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1)),
     [X2, W2, B4]),
    ("conv2d_asym", dict(kernel=(3, 2), num_filter=4, stride=(1, 2), pad=(0, 1)),
     [X2, randn(4, 3, 3, 2, seed=8), B4]),
    ("conv2d_dilate", dict(kernel=(3, 3), num_filter=4, dilate=(2, 2), pad=(1, 1)),
     [X2, W2, B4]),
    ("conv2d_groups", dict(kernel=(3, 3), num_filter=4, num_group=2, pad=(1, 1)),
     [X2B, W2G, B4]),
    ("conv2d_no_bias", dict(kernel=(3, 3), num_filter=4, no_bias=True, stride=(2, 1)),
     [X2, W2]),
    ("conv2d_1x1", dict(kernel=(1, 1), num_filter=4, no_bias=True), [X2, randn(4, 3, 1, 1)]),
    ("conv2d_depthwise", dict(kernel=(3, 3), num_filter=4, num_group=4, no_bias=True,
                              stride=(2, 2)), [X2B, randn(4, 1, 3, 3, seed=9)]),
    ("conv1d", dict(kernel=(3,), num_filter=4), [X1, W1, B4]),
    ("conv1d_stride_pad_dilate", dict(kernel=(3,), num_filter=4, stride=(2,), pad=(2,),
                                      dilate=(2,)), [X1, W1, B4]),
    ("conv3d", dict(kernel=(2, 2, 2), num_filter=3, stride=(2, 1, 1), pad=(0, 1, 0),
                    no_bias=True), [X3, W3]),
    ("conv3d_s1", dict(kernel=(2, 2, 2), num_filter=3, pad=(1, 0, 1)),
     [X3, W3, randn(3, seed=26)]),
]

CASES = [OpCase(n, conv(**kw), ins, conv_ref(**kw)) for n, kw, ins in CONV_CASES]


def deconv(**kw):
    def f(x, w, b=None):
        return nd.Deconvolution(x, w, b, **kw)
    return f


def deconv_ref(**kw):
    kw = dict(kw)
    for k in ("kernel", "num_filter", "no_bias"):
        kw.pop(k, None)
    groups = kw.pop("num_group", 1)
    return lambda x, w, b=None: ref_deconv(x, w, b, groups=groups, **kw)


U2 = randn(2, 3, 4, 4, seed=10)
WD = randn(3, 2, 3, 3, seed=11)   # (C_in, num_filter/group, kh, kw)
B2 = randn(2, seed=12)
DECONV_CASES = [
    ("deconv2d_basic", dict(kernel=(3, 3), num_filter=2), [U2, WD]),
    ("deconv2d_stride_pad_adj", dict(kernel=(3, 3), num_filter=2, stride=(2, 2),
                                     pad=(1, 1), adj=(1, 0)), [U2, WD]),
    ("deconv2d_bias", dict(kernel=(3, 3), num_filter=2, stride=(2, 1), no_bias=False),
     [U2, WD, B2]),
    ("deconv2d_dilate", dict(kernel=(3, 3), num_filter=2, dilate=(2, 1), pad=(1, 0)),
     [U2, WD]),
    ("deconv2d_groups", dict(kernel=(2, 2), num_filter=4, num_group=2, stride=(2, 2)),
     [randn(2, 4, 3, 3, seed=13), randn(4, 2, 2, 2, seed=14)]),
    ("deconv1d", dict(kernel=(3,), num_filter=2, stride=(3,), pad=(1,), adj=(2,)),
     [randn(2, 3, 4, seed=15), randn(3, 2, 3, seed=16)]),
    ("deconv2d_s1_bias_groups", dict(kernel=(3, 2), num_filter=4, num_group=2, pad=(1, 1),
                                     no_bias=False),
     [randn(2, 4, 3, 4, seed=17), randn(4, 2, 3, 2, seed=18), randn(4, seed=19)]),
]
CASES += [OpCase(n, deconv(**kw), ins, deconv_ref(**kw)) for n, kw, ins in DECONV_CASES]


def pool(**kw):
    return lambda x: nd.Pooling(x, **kw)


def pool_ref(**kw):
    kw = dict(kw)
    conv_ = kw.pop("pooling_convention", "valid")
    inc = kw.pop("count_include_pad", True)
    return lambda x: ref_pool(x, convention=conv_, include_pad=inc, **kw)


# distinct values so max pooling has no ties (numerical gradients need that)
P2 = np.random.default_rng(3).permutation(2 * 3 * 5 * 5).reshape(2, 3, 5, 5) / 10.0 - 7.0
P1 = np.random.default_rng(4).permutation(2 * 3 * 7).reshape(2, 3, 7) / 10.0 - 2.0
POOL_CASES = [
    ("max2d", dict(kernel=(2, 2), stride=(2, 2)), P2),
    ("max2d_overlap", dict(kernel=(3, 3), stride=(1, 1)), P2),
    ("max2d_pad", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)), P2),
    ("max2d_full", dict(kernel=(2, 2), stride=(2, 2), pooling_convention="full"), P2),
    ("max2d_global", dict(global_pool=True), P2),
    ("avg2d", dict(kernel=(2, 2), stride=(2, 2), pool_type="avg"), P2),
    ("avg2d_pad", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"), P2),
    ("avg2d_pad_exclude", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                               count_include_pad=False), P2),
    ("avg2d_full", dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg",
                        pooling_convention="full"), randn(2, 3, 6, 6)),
    ("avg2d_global", dict(global_pool=True, pool_type="avg"), P2),
    ("sum2d", dict(kernel=(2, 3), stride=(1, 2), pool_type="sum"), P2),
    ("sum2d_full_pad", dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1), pool_type="sum",
                            pooling_convention="full"), P2),
    ("max1d", dict(kernel=(3,), stride=(2,)), P1),
    ("max1d_full", dict(kernel=(2,), stride=(2,), pooling_convention="full"), P1),
    ("max1d_same", dict(kernel=(3,), stride=(2,), pooling_convention="same"), P1),
    ("avg1d_pad", dict(kernel=(3,), stride=(2,), pad=(1,), pool_type="avg"), P1),
    ("sum1d_global", dict(global_pool=True, pool_type="sum"), P1),
    ("lp2_2d", dict(kernel=(2, 2), stride=(1, 1), pool_type="lp", p_value=2), P2),
    ("max3d", dict(kernel=(2, 2, 2), stride=(2, 1, 2)), randn(1, 2, 4, 4, 4, seed=20)),
    ("avg3d", dict(kernel=(2, 2, 2), stride=(2, 2, 2), pool_type="avg", pad=(1, 0, 0)),
     randn(1, 2, 4, 4, 4, seed=21)),
    # windows tiling the input exactly (the backward writes each element once)
    ("avg2d_tiled", dict(kernel=(2, 3), stride=(2, 3), pool_type="avg"),
     randn(2, 3, 4, 6, seed=22)),
    ("avg2d_tiled_exclude", dict(kernel=(2, 2), stride=(2, 2), pool_type="avg",
                                 count_include_pad=False), randn(2, 3, 4, 4, seed=23)),
    ("sum1d_tiled", dict(kernel=(2,), stride=(2,), pool_type="sum"),
     randn(2, 3, 8, seed=24)),
    ("avg3d_tiled", dict(kernel=(2, 1, 2), stride=(2, 1, 2), pool_type="avg"),
     randn(1, 2, 4, 3, 4, seed=25)),
]
CASES += [OpCase(n, pool(**kw), [x], pool_ref(**kw)) for n, kw, x in POOL_CASES]

# compositions that make second derivatives non-zero through the linear pooling ops
CASES += [
    OpCase("max2d_overlap_squared",
           lambda x: nd.Pooling(x, kernel=(3, 3), stride=(1, 1)) ** 2, [P2],
           lambda x: ref_pool(x, (3, 3)) ** 2),
    OpCase("avg2d_squared", lambda x: nd.Pooling(x * x, kernel=(2, 2), pool_type="avg",
                                                 pad=(1, 1), stride=(2, 2)) ** 2, [X2],
           lambda x: ref_pool(x * x, (2, 2), "avg", (2, 2), (1, 1)) ** 2),
    OpCase("conv_then_pool",
           lambda x, w: nd.Pooling(nd.Convolution(x, w, kernel=(3, 3), num_filter=4,
                                                  no_bias=True, pad=(1, 1)),
                                   kernel=(2, 2), stride=(2, 2), pool_type="avg"),
           [X2, W2], None),
    OpCase("conv_weight_times_data",
           lambda x, w: nd.Convolution(x * x, w * w, kernel=(3, 3), num_filter=4,
                                       no_bias=True, stride=(2, 2)), [X2, W2], None),
    OpCase("deconv_squared",
           lambda x, w: nd.Deconvolution(x * x, w, kernel=(3, 3), num_filter=2,
                                         stride=(2, 2), pad=(1, 1), adj=(1, 1)) ** 2,
           [U2, WD], None),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


# -------------------------------------------------------------- tangents (jvp)
def _jvp_check(fn, inputs, eps=1e-6):
    xs = [np.asarray(x, dtype=np.float64) for x in inputs]
    rng = np.random.default_rng(7)
    ts = [rng.standard_normal(x.shape) for x in xs]
    args = []
    for x, t in zip(xs, ts):
        a = nd.array(x, dtype=np.float64)
        a._tan = nd.array(t, dtype=np.float64)
        args.append(a)
    out = fn(*args)
    assert out._tan is not None
    plus = fn(*[nd.array(x + eps * t, dtype=np.float64) for x, t in zip(xs, ts)]).asnumpy()
    minus = fn(*[nd.array(x - eps * t, dtype=np.float64) for x, t in zip(xs, ts)]).asnumpy()
    np.testing.assert_allclose(out._tan.asnumpy(), (plus - minus) / (2 * eps), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("case", [c for c in CASES if c.ref is not None],
                         ids=[c.name for c in CASES if c.ref is not None])
def test_tangent(case):
    _jvp_check(case.fn, case.inputs)


def test_tangent_of_gradient_ops():
    # forward mode through the backward ops (deconv as conv's data gradient, _wgrad)
    x = nd.array(X2, dtype=np.float64)
    w = nd.array(W2, dtype=np.float64)

    def g_of_w(w_):
        x_ = nd.array(X2, dtype=np.float64)
        x_.attach_grad()
        with autograd.record():
            y = nd.Convolution(x_, w_, kernel=(3, 3), num_filter=4, no_bias=True,
                               stride=(2, 2), pad=(1, 1))
        return autograd.grad(y, [x_], create_graph=True)[0]
    # the data gradient is linear in w: its tangent is itself at the tangent
    wt = nd.array(np.random.default_rng(1).standard_normal(W2.shape), dtype=np.float64)
    w._tan = wt
    r = g_of_w(w)
    assert r._tan is not None
    np.testing.assert_allclose(r._tan.asnumpy(), g_of_w(wt).asnumpy(), rtol=1e-10)
    del x


# ------------------------------------------------------------- MXNet shapes
def _mx_conv_out(x, k, s, p, d):
    return (x + 2 * p - d * (k - 1) - 1) // s + 1


@pytest.mark.parametrize("h,k,s,p,d", [(28, 5, 1, 0, 1), (7, 3, 2, 1, 1), (10, 3, 3, 2, 2),
                                       (9, 4, 2, 0, 1), (5, 5, 1, 2, 1)])
def test_conv_output_shape(h, k, s, p, d):
    x = nd.zeros((2, 3, h, h + 1))
    w = nd.zeros((6, 3, k, k))
    y = nd.Convolution(x, w, kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d),
                       num_filter=6, no_bias=True)
    assert y.shape == (2, 6, _mx_conv_out(h, k, s, p, d), _mx_conv_out(h + 1, k, s, p, d))
    assert y.dtype == np.float32


@pytest.mark.parametrize("h,k,s,p,d,a", [(4, 3, 2, 1, 1, 1), (5, 4, 2, 1, 1, 0),
                                         (3, 3, 3, 0, 2, 2), (6, 1, 1, 0, 1, 0)])
def test_deconv_output_shape(h, k, s, p, d, a):
    x = nd.zeros((1, 3, h, h))
    w = nd.zeros((3, 5, k, k))
    y = nd.Deconvolution(x, w, kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d),
                         adj=(a, a), num_filter=5)
    o = (h - 1) * s - 2 * p + d * (k - 1) + 1 + a
    assert y.shape == (1, 5, o, o)


def test_deconv_target_shape():
    x = nd.array(randn(1, 2, 4, 4))
    w = nd.array(randn(2, 3, 3, 3, seed=1))
    y = nd.Deconvolution(x, w, kernel=(3, 3), stride=(2, 2), target_shape=(8, 7),
                         num_filter=3)
    assert y.shape == (1, 3, 8, 7)
    # MXNet's rule: total = s*(x-1) + k - target; pad = ceil(total/2); adj = total % 2
    # height: total 1 -> pad 1, adj 1; width: total 2 -> pad 1, adj 0
    ref = ref_deconv(x.asnumpy(), w.asnumpy(), stride=(2, 2), pad=(1, 1), adj=(1, 0))
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-5, atol=1e-5)


def test_deconv_default_no_bias_is_true():
    x = nd.array(randn(1, 2, 3, 3))
    w = nd.array(randn(2, 3, 2, 2, seed=1))
    b = nd.array([100., 200., 300.])
    y0 = nd.Deconvolution(x, w, kernel=(2, 2), num_filter=3)
    y1 = nd.Deconvolution(x, w, b, kernel=(2, 2), num_filter=3)  # bias ignored
    y2 = nd.Deconvolution(x, w, b, kernel=(2, 2), num_filter=3, no_bias=False)
    np.testing.assert_allclose(y0.asnumpy(), y1.asnumpy())
    np.testing.assert_allclose((y2 - y0).asnumpy()[0, :, 0, 0], [100., 200., 300.],
                               rtol=1e-5)


@pytest.mark.parametrize("x,k,s,p", [(5, 2, 2, 0), (6, 3, 2, 1), (7, 3, 3, 0), (28, 2, 2, 0),
                                     (4, 4, 1, 0)])
def test_pool_output_shape(x, k, s, p):
    data = nd.zeros((2, 3, x, x))
    valid = nd.Pooling(data, kernel=(k, k), stride=(s, s), pad=(p, p))
    full = nd.Pooling(data, kernel=(k, k), stride=(s, s), pad=(p, p),
                      pooling_convention="full")
    fv = (x + 2 * p - k) // s + 1
    ff = int(math.ceil((x + 2 * p - k) / s)) + 1
    assert valid.shape == (2, 3, fv, fv)
    assert full.shape == (2, 3, ff, ff)
    assert nd.Pooling(data, global_pool=True, pool_type="avg").shape == (2, 3, 1, 1)


def test_pool_defaults_stride_one():
    x = nd.array(P2)
    y = nd.Pooling(x, kernel=(2, 2))
    assert y.shape == (2, 3, 4, 4)
    np.testing.assert_allclose(y.asnumpy(), ref_pool(P2.astype(np.float32), (2, 2)))


def test_same_convention_1d():
    y = nd.Pooling(nd.array(P1), kernel=(3,), stride=(2,), pooling_convention="same")
    assert y.shape == (2, 3, 4)


# ------------------------------------------------------------ max-pool gradients
def test_maxpool_grad_goes_to_argmax_and_accumulates():
    x = nd.array([[[[1., 2., 0.], [0., 9., 0.], [3., 0., 4.]]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(2, 2), stride=(1, 1))
    y.backward()
    # the centre 9 is the maximum of all four overlapping windows
    np.testing.assert_array_equal(y.asnumpy(), [[[[9., 9.], [9., 9.]]]])
    np.testing.assert_array_equal(x.grad.asnumpy(), [[[[0, 0, 0], [0, 4, 0], [0, 0, 0]]]])


@pytest.mark.parametrize("kw", [dict(kernel=(3, 3), stride=(2, 2)),
                                dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1)),
                                dict(kernel=(3, 2), stride=(2, 1), pad=(1, 0),
                                     pooling_convention="full"),
                                dict(kernel=(3,), stride=(1,), pad=(2,)),
                                dict(kernel=(2, 2, 2), stride=(1, 1, 1))])
def test_overlapping_maxpool_gradient_by_windows_equals_bincount(kw, monkeypatch):
    # overlapping windows scatter the gradient with one strided add per kernel offset;
    # the general bincount scatter over flat positions is the reference
    nd_ = len(kw["kernel"])
    x0 = randn(2, 3, *(7, 6, 5)[:nd_], seed=60)
    x0[0, 0].flat[:4] = 1.0                       # ties: the first maximum takes it
    g0 = randn(*nd.Pooling(nd.array(x0), **kw).shape, seed=61)

    def grad():
        x = nd.array(x0)
        x.attach_grad()
        with autograd.record():
            y = nd.Pooling(x, **kw)
        y.backward(nd.array(g0))
        return x.grad.asnumpy()
    calls = []
    real_windows = _conv_mod._scatter_windows

    def counted(*args):
        calls.append(1)
        return real_windows(*args)
    monkeypatch.setattr(_conv_mod, "_scatter_windows", counted)
    by_windows = grad()
    assert calls                                               # the strided-add path ran
    monkeypatch.setattr(_conv_mod, "_scatter_windows", None)   # not used: must not be
    real_scatter = _conv_mod._scatter_fwd

    def bincount_only(g, idx, valid, ishape, oshape, unique, windows=None):
        return real_scatter(g, idx, valid, ishape, oshape, unique, None)
    monkeypatch.setattr(_conv_mod._SCATTER, "fwd", bincount_only)
    np.testing.assert_allclose(by_windows, grad(), rtol=1e-6, atol=1e-6)
    assert np.abs(by_windows).sum() > 0


def test_maxpool_tie_goes_to_first():
    x = nd.array([[[[5., 5.], [5., 5.]]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(2, 2), stride=(2, 2))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[[[1, 0], [0, 0]]]])


def test_maxpool_ignores_padding():
    x = nd.array([[[-3., -1., -2.]]])
    y = nd.Pooling(x, kernel=(3,), pad=(1,))
    np.testing.assert_array_equal(y.asnumpy(), [[[-1., -1., -1.]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(3,), pad=(1,))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[[0., 3., 0.]]])


def test_maxpool_window_only_padding_gives_lowest():
    x = nd.array([[[1., 2.]]])
    y = nd.Pooling(x, kernel=(1,), pad=(1,))
    v = y.asnumpy()[0, 0]
    assert v.shape == (4,)
    assert v[0] == np.finfo(np.float32).min and v[3] == np.finfo(np.float32).min
    np.testing.assert_array_equal(v[1:3], [1., 2.])


def test_avg_pool_full_divisor_matches_mxnet():
    # 'full' window hanging over the padded input is divided by its clipped size
    x = nd.ones((1, 1, 5, 5))
    y = nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="avg",
                   pooling_convention="full")
    assert y.shape == (1, 1, 3, 3)
    np.testing.assert_allclose(y.asnumpy(), np.ones((1, 1, 3, 3)))
    y = nd.Pooling(x, kernel=(3, 3), pad=(1, 1), pool_type="avg")
    assert y.asnumpy()[0, 0, 0, 0] == pytest.approx(4 / 9)
    y = nd.Pooling(x, kernel=(3, 3), pad=(1, 1), pool_type="avg", count_include_pad=False)
    assert y.asnumpy()[0, 0, 0, 0] == pytest.approx(1.0)


def test_float32_stays_float32():
    x = nd.array(X2)
    w = nd.array(W2)
    assert nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True).dtype == np.float32
    assert nd.Pooling(x, kernel=(2, 2), pool_type="avg").dtype == np.float32
    assert nd.Deconvolution(nd.array(U2), nd.array(WD), kernel=(3, 3),
                            num_filter=2).dtype == np.float32


def test_grad_dtype_float32():
    x = nd.array(X2)
    w = nd.array(W2)
    b = nd.array(B4)
    for a in (x, w, b):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(x, w, b, kernel=(3, 3), num_filter=4, pad=(1, 1))
        z = nd.Pooling(y, kernel=(2, 2), stride=(2, 2))
    z.backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32
    assert b.grad.shape == (4,)


def test_channel_last_layout():
    x = X2.astype(np.float32)
    w = W2.astype(np.float32)
    y = nd.Convolution(nd.array(x.transpose(0, 2, 3, 1)), nd.array(w.transpose(0, 2, 3, 1)),
                       kernel=(3, 3), num_filter=4, no_bias=True, layout="NHWC")
    np.testing.assert_allclose(y.asnumpy().transpose(0, 3, 1, 2), ref_conv(x, w),
                               rtol=1e-5, atol=1e-5)
    p = nd.Pooling(nd.array(x.transpose(0, 2, 3, 1)), kernel=(2, 2), layout="NHWC")
    np.testing.assert_allclose(p.asnumpy().transpose(0, 3, 1, 2), ref_pool(x, (2, 2)))


def test_conv_kernel_and_num_filter_inferred():
    y = nd.Convolution(nd.array(X2), nd.array(W2), no_bias=True)
    np.testing.assert_allclose(y.asnumpy(), ref_conv(X2.astype(np.float32),
                                                     W2.astype(np.float32)),
                               rtol=1e-5, atol=1e-5)


def test_conv_training_step_decreases_loss():
    rng = np.random.default_rng(0)
    x = nd.array(rng.standard_normal((8, 1, 8, 8)))
    target = nd.array(rng.standard_normal((8, 2, 3, 3)))
    w = nd.array(rng.standard_normal((2, 1, 3, 3)) * 0.1)
    b = nd.zeros((2,))
    losses = []
    for _ in range(20):
        w.attach_grad()
        b.attach_grad()
        with autograd.record():
            h = nd.Convolution(x, w, b, kernel=(3, 3), num_filter=2)
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2))
            loss = ((h - target) ** 2).mean()
        loss.backward()
        losses.append(loss.asscalar())
        w = w - 0.5 * w.grad
        b = b - 0.5 * b.grad
    assert losses[-1] < losses[0] * 0.9


# --------------------------------------------------------------------- errors
def test_conv_weight_shape_error_names_op_and_shapes():
    x = nd.zeros((2, 3, 5, 5))
    w = nd.zeros((4, 2, 3, 3))
    with pytest.raises(ShapeError) as err:
        nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
    msg = str(err.value)
    assert "Convolution" in msg and "(4, 2, 3, 3)" in msg and "(4, 3, 3, 3)" in msg
    assert "(2, 3, 5, 5)" in msg
    assert isinstance(err.value, MXNetError) and isinstance(err.value, ValueError)


def test_conv_kernel_mismatch_error():
    with pytest.raises(ShapeError, match=r"Convolution.*\(4, 3, 3, 3\).*\(4, 3, 5, 5\)"):
        nd.Convolution(nd.zeros((2, 3, 7, 7)), nd.zeros((4, 3, 3, 3)), kernel=(5, 5),
                       num_filter=4, no_bias=True)


def test_deconv_weight_shape_error():
    with pytest.raises(ShapeError) as err:
        nd.Deconvolution(nd.zeros((1, 3, 4, 4)), nd.zeros((2, 3, 3, 3)), kernel=(3, 3),
                         num_filter=2)
    msg = str(err.value)
    assert "Deconvolution" in msg and "(2, 3, 3, 3)" in msg and "(3, 2, 3, 3)" in msg


def test_bias_shape_error():
    with pytest.raises(ShapeError, match="Convolution: bias has shape \\(3,\\)"):
        nd.Convolution(nd.zeros((1, 3, 5, 5)), nd.zeros((4, 3, 3, 3)), nd.zeros((3,)),
                       kernel=(3, 3), num_filter=4)


def test_data_ndim_error():
    with pytest.raises(ShapeError, match="Convolution: data of shape \\(3, 5, 5\\) must be 4-D"):
        nd.Convolution(nd.zeros((3, 5, 5)), nd.zeros((4, 3, 3, 3)), kernel=(3, 3),
                       num_filter=4)
    with pytest.raises(ShapeError, match="Pooling"):
        nd.Pooling(nd.zeros((3, 5, 5)), kernel=(2, 2))


def test_groups_error():
    with pytest.raises(ShapeError, match="num_group=2"):
        nd.Convolution(nd.zeros((1, 3, 5, 5)), nd.zeros((4, 1, 3, 3)), kernel=(3, 3),
                       num_filter=4, num_group=2)


def test_kernel_too_big_errors():
    with pytest.raises(ShapeError, match="Convolution"):
        nd.Convolution(nd.zeros((1, 1, 2, 2)), nd.zeros((1, 1, 3, 3)), kernel=(3, 3),
                       num_filter=1)
    with pytest.raises(ShapeError, match="Pooling: kernel \\(5, 5\\) exceeds"):
        nd.Pooling(nd.zeros((1, 1, 3, 3)), kernel=(5, 5))


def test_bad_params():
    with pytest.raises(MXNetError, match="pool_type"):
        nd.Pooling(nd.zeros((1, 1, 4, 4)), kernel=(2, 2), pool_type="median")
    with pytest.raises(MXNetError, match="stride"):
        nd.Convolution(nd.zeros((1, 1, 4, 4)), nd.zeros((1, 1, 2, 2)), kernel=(2, 2),
                       stride=(1, 1, 1), num_filter=1)
    with pytest.raises(MXNetError, match="adj"):
        nd.Deconvolution(nd.zeros((1, 1, 4, 4)), nd.zeros((1, 1, 2, 2)), kernel=(2, 2),
                         adj=(1, 1), num_filter=1)
    with pytest.raises(MXNetError, match="kernel"):
        nd.Pooling(nd.zeros((1, 1, 4, 4)))


def test_no_ndarray_methods():
    assert not hasattr(NDArray, "Convolution")
    assert not hasattr(NDArray, "Pooling")


def test_maxpool_padding_only_windows_get_no_gradient():
    x = nd.array([[[1., 2.]]])
    x.attach_grad()
    with autograd.record():
        y = nd.Pooling(x, kernel=(1,), pad=(1,))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[[1., 1.]]])


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pooling(p):
    x = np.abs(P2) + 0.5
    y = nd.Pooling(nd.array(x), kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=p)
    np.testing.assert_allclose(y.asnumpy(), ref_pool(x.astype(np.float32), (2, 2), "lp",
                                                     (2, 2), p_value=p), rtol=1e-5)


def test_lp_needs_p_value():
    with pytest.raises(MXNetError, match="p_value"):
        nd.Pooling(nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="lp")


def test_out_argument():
    x = nd.array(X2)
    w = nd.array(W2)
    out = nd.zeros((2, 4, 3, 3))
    r = nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True, out=out)
    assert r is out
    np.testing.assert_allclose(out.asnumpy(), ref_conv(X2.astype(np.float32),
                                                       W2.astype(np.float32)),
                               rtol=1e-5, atol=1e-5)
    pout = nd.zeros((2, 3, 2, 2))
    nd.Pooling(x, kernel=(2, 2), stride=(2, 2), out=pout)
    np.testing.assert_allclose(pout.asnumpy(), ref_pool(X2.astype(np.float32), (2, 2),
                                                        stride=(2, 2)))


def test_raw_numpy_inputs_run_raw():
    # the ops also run on NumPy arrays (the engine's fast path for gradient rules)
    y = nd.Convolution(X2, W2, kernel=(3, 3), num_filter=4, no_bias=True)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, ref_conv(X2, W2))
    p = nd.Pooling(P2, kernel=(2, 2))
    assert isinstance(p, np.ndarray)


def test_second_order_through_maxpool_of_conv():
    # d/dw of (d loss / d x) where loss = sum(maxpool(conv(x, w))**2): every rule is
    # recorded, so this is an exact third-order-free second derivative
    x = nd.array(X2, dtype=np.float64)
    w = nd.array(W2, dtype=np.float64)
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = nd.Pooling(nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True,
                                      pad=(1, 1)), kernel=(2, 2), stride=(2, 2))
        loss = (y * y).sum()
        gx = autograd.grad(loss, [x], create_graph=True)[0]
        z = (gx * gx).sum()
    z.backward()
    assert np.abs(w.grad.asnumpy()).sum() > 0

    def gxnorm(wv):
        xx = nd.array(X2, dtype=np.float64)
        xx.attach_grad()
        with autograd.record():
            yy = nd.Pooling(nd.Convolution(xx, nd.array(wv, dtype=np.float64),
                                           kernel=(3, 3), num_filter=4, no_bias=True,
                                           pad=(1, 1)), kernel=(2, 2), stride=(2, 2))
            ll = (yy * yy).sum()
        ll.backward()
        return float((xx.grad.asnumpy() ** 2).sum())
    eps = 1e-6
    e = np.zeros_like(W2)
    e[1, 2, 0, 1] = eps
    num = (gxnorm(W2 + e) - gxnorm(W2 - e)) / (2 * eps)
    assert w.grad.asnumpy()[1, 2, 0, 1] == pytest.approx(num, rel=1e-4)


def test_deconv_channel_last_layout():
    u = randn(2, 3, 4).astype(np.float32)          # NCW
    w = randn(3, 2, 3, seed=1).astype(np.float32)  # (C_in, F, k)
    y = nd.Deconvolution(nd.array(u.transpose(0, 2, 1)), nd.array(w.transpose(0, 2, 1)),
                         kernel=(3,), stride=(2,), num_filter=2, layout="NWC")
    np.testing.assert_allclose(y.asnumpy().transpose(0, 2, 1),
                               ref_deconv(u, w, stride=(2,)), rtol=1e-5, atol=1e-5)


def test_deconv_target_shape_impossible_with_stride_one():
    with pytest.raises(MXNetError, match="target_shape"):
        nd.Deconvolution(nd.ones((1, 1, 4)), nd.ones((1, 1, 3)), kernel=(3,),
                         target_shape=(5,), num_filter=1)


def test_deconv_is_transpose_of_conv():
    # <conv(x, w), u> == <x, deconv(u, w)> for the same stride/pad/dilate/groups
    x = randn(2, 4, 7, 6, seed=30)
    w = randn(6, 2, 3, 2, seed=31)
    kw = dict(kernel=(3, 2), stride=(2, 2), pad=(1, 0), dilate=(1, 2), num_group=2)
    y = nd.Convolution(nd.array(x, dtype=np.float64), nd.array(w, dtype=np.float64),
                       num_filter=6, no_bias=True, **kw).asnumpy()
    u = randn(*y.shape, seed=32)
    adj = (7 + 2 * 1 - 3) % 2, (6 - 3) % 2
    z = nd.Deconvolution(nd.array(u, dtype=np.float64), nd.array(w, dtype=np.float64),
                         num_filter=4, adj=adj, **kw).asnumpy()
    assert z.shape == x.shape
    assert np.sum(y * u) == pytest.approx(np.sum(x * z), rel=1e-10)


# ------------------------------------------------- product layouts (fast paths)
# The convolution picks among equivalent product layouts by shape (one GEMM over the
# batch for the weight gradient, the stride-1 data gradient as a convolution with the
# flipped kernel). The small cases above take one path or the other by their shapes; here
# every conv/deconv case runs forward, first and second order with each path forced.
_LAYOUT_CASES = [c for c in CASES if c.name.startswith(("conv", "deconv"))]
# "kept"/"kept-batch-last": the weight gradient from the forward's kept columns (per
# sample / batch-last); "fast"/"plain": from columns rebuilt in the backward, in one GEMM
# over the batch or per sample, and every product a sample (or a channel) at a time.
_PER_SAMPLE = dict(_BATCH_LAST_WIDTH=0)
_BATCH_LAST = dict(_BATCH_LAST_WIDTH=10 ** 9, _BATCH_LAST_MIN_BATCH=1)
_FORCED = {"kept": dict(_KEEP_COLUMNS_MAX=1 << 40, **_PER_SAMPLE),
           "kept-batch-last": dict(_KEEP_COLUMNS_MAX=1 << 40, **_BATCH_LAST),
           "fast": dict(_SINGLE_GEMM_MIN=1, _GATHER_RATIO=1e9, _KEEP_COLUMNS_MAX=-1,
                        _COLUMNS_CHUNK=1, **_BATCH_LAST),
           "plain": dict(_SINGLE_GEMM_MIN=10 ** 9, _GATHER_RATIO=0.0, _KEEP_COLUMNS_MAX=-1,
                         _COLUMNS_CHUNK=1, **_PER_SAMPLE)}


@pytest.mark.parametrize("paths", sorted(_FORCED))
@pytest.mark.parametrize("case", _LAYOUT_CASES, ids=[c.name for c in _LAYOUT_CASES])
def test_forced_product_layouts(case, paths, monkeypatch):
    for k, v in _FORCED[paths].items():
        monkeypatch.setattr(_conv_mod, k, v)
    run_forward(case)
    run_grad(case)
    run_second(case)


@pytest.mark.parametrize("kw", [dict(kernel=(3, 3), pad=(1, 1)),
                                dict(kernel=(3, 3), pad=(2, 1), dilate=(2, 1)),
                                dict(kernel=(3, 3), pad=(1, 1), num_group=2),
                                dict(kernel=(5,), pad=(2,)),
                                dict(kernel=(2, 3), stride=(2, 1), pad=(1, 1))])
def test_wide_conv_paths_agree(kw, monkeypatch):
    # realistic widths (the defaults take the fast paths and keep the forward's columns):
    # data, weight and bias gradients equal the plain paths' (columns rebuilt) up to
    # float32 rounding, and float64 agrees to 1e-12
    nd_ = len(kw["kernel"])
    G = kw.get("num_group", 1)
    spatial = (9, 8)[:nd_]
    x0 = randn(3, 32, *spatial, seed=40)
    w0 = randn(32, 32 // G, *kw["kernel"], seed=41) * 0.1
    b0 = randn(32, seed=42)

    def grads(dtype):
        x, w, b = (nd.array(a, dtype=dtype) for a in (x0, w0, b0))
        for a in (x, w, b):
            a.attach_grad()
        with autograd.record():
            y = nd.Convolution(x, w, b, num_filter=32, **kw)
            loss = (y * y).sum()
        loss.backward()
        return [a.asnumpy() for a in (y, x.grad, w.grad, b.grad)]

    fast32, fast64 = grads(np.float32), grads(np.float64)
    for k, v in _FORCED["plain"].items():
        monkeypatch.setattr(_conv_mod, k, v)
    plain32, plain64 = grads(np.float32), grads(np.float64)
    for f, p in zip(fast64, plain64):
        np.testing.assert_allclose(f, p, rtol=1e-12, atol=1e-12)
    for f, p in zip(fast32, plain32):
        np.testing.assert_allclose(f, p, rtol=2e-5, atol=2e-5 * np.abs(p).max())


def _recorded_conv(x0, w0, **kw):
    x, w = nd.array(x0, dtype=np.float64), nd.array(w0, dtype=np.float64)
    w.attach_grad()
    with autograd.record():
        y = nd.Convolution(x, w, num_filter=w0.shape[0], no_bias=True, **kw)
        loss = (y * y).sum()
    return y, loss, w


@pytest.mark.parametrize("layout", ["per-sample", "batch-last"])
def test_kept_columns_taken_once_and_freed(layout, monkeypatch):
    # a recorded convolution whose weight needs a gradient keeps its forward's columns
    # in its node; the weight gradient takes them (memory freed as backward goes), and a
    # second backward through the retained graph rebuilds them: same gradient
    for k, v in (_BATCH_LAST if layout == "batch-last" else _PER_SAMPLE).items():
        monkeypatch.setattr(_conv_mod, k, v)
    x0, w0 = randn(3, 2, 6, 5, seed=50), randn(4, 2, 3, 3, seed=51)
    kw = dict(kernel=(3, 3), pad=(1, 1))
    y, loss, w = _recorded_conv(x0, w0, **kw)
    keep = y._node.attrs["keep"]
    assert keep.cols.shape == ((1, 2 * 9, 30 * 3) if layout == "batch-last"
                               else (3, 1, 2 * 9, 30))
    loss.backward(retain_graph=True)
    assert keep.cols is None
    g1 = w.grad.asnumpy().copy()
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), g1, rtol=1e-12)
    # and it is the gradient of sum(y^2): 2 * sum_{n,o} y * xpad-window, by definition
    xp = np.pad(x0, ((0, 0), (0, 0), (1, 1), (1, 1)))
    yv = y.asnumpy()
    want = np.zeros_like(w0)
    for i, j in itertools.product(range(3), range(3)):
        want[:, :, i, j] = 2 * np.einsum("nfhw,nchw->fc", yv, xp[:, :, i:i + 6, j:j + 5])
    np.testing.assert_allclose(g1, want, rtol=1e-10)


def test_columns_not_kept_when_large_or_weight_constant(monkeypatch):
    x0, w0 = randn(2, 3, 5, 5, seed=52), randn(2, 3, 3, 3, seed=53)
    x, w = nd.array(x0), nd.array(w0)     # weight not in a graph: nothing to keep for
    x.attach_grad()
    with autograd.record():
        y = nd.Convolution(x, w, num_filter=2, kernel=(3, 3), no_bias=True)
    assert "keep" not in y._node.attrs
    monkeypatch.setattr(_conv_mod, "_KEEP_COLUMNS_MAX", 2 * 27 * 9 * 8 - 1)  # 1 byte short
    y, _, _ = _recorded_conv(x0, w0, kernel=(3, 3))
    assert "keep" not in y._node.attrs
    monkeypatch.setattr(_conv_mod, "_KEEP_COLUMNS_MAX", 2 * 27 * 9 * 8)
    y, _, _ = _recorded_conv(x0, w0, kernel=(3, 3))
    assert y._node.attrs["keep"].cols.nbytes == 2 * 27 * 9 * 8


def test_keep_columns_limit_from_the_environment(monkeypatch):
    monkeypatch.delenv("MXGRAD_CONV_KEEP_COLUMNS_MB", raising=False)
    assert _conv_mod.keep_columns_limit() == 16 << 20
    monkeypatch.setenv("MXGRAD_CONV_KEEP_COLUMNS_MB", "0")
    assert _conv_mod.keep_columns_limit() == -1     # keeps nothing, not even 0 bytes
    monkeypatch.setenv("MXGRAD_CONV_KEEP_COLUMNS_MB", "1.5")
    assert _conv_mod.keep_columns_limit() == 3 << 19
    monkeypatch.setenv("MXGRAD_CONV_KEEP_COLUMNS_MB", "lots")
    with pytest.raises(MXNetError, match="MXGRAD_CONV_KEEP_COLUMNS_MB='lots'") as err:
        _conv_mod.keep_columns_limit()
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_batchnorm_on_conv_activations(layout):
    # BatchNorm after a convolution (NCHW, per-row dot products for the statistics and
    # gradients; a strided input takes the general reductions): output, running
    # statistics and all three gradients against float64 formulas
    rng = np.random.default_rng(50)
    x0 = rng.standard_normal((4, 16, 6, 5)) * 3 + 1
    if layout == "strided":
        x0 = np.ascontiguousarray(x0.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    g0 = rng.uniform(0.5, 1.5, 16)
    b0 = rng.standard_normal(16)
    dy = rng.standard_normal(x0.shape)
    x = nd.array(x0)
    if layout == "strided":   # keep the strided memory (nd.array copies)
        x._data = np.ascontiguousarray(x0.astype(np.float32).transpose(0, 1, 3, 2)) \
            .transpose(0, 1, 3, 2)
        assert not x._data.flags.c_contiguous
    gamma, beta = nd.array(g0), nd.array(b0)
    rm, rv = nd.zeros((16,)), nd.ones((16,))
    for a in (x, gamma, beta):
        a.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, gamma, beta, rm, rv, fix_gamma=False, eps=1e-5, momentum=0.9)
    y.backward(nd.array(dy))
    ax = (0, 2, 3)
    mean = x0.mean(axis=ax, keepdims=True)
    var = x0.var(axis=ax, keepdims=True)
    inv = 1 / np.sqrt(var + 1e-5)
    xhat = (x0 - mean) * inv
    g4 = g0.reshape(1, -1, 1, 1)
    np.testing.assert_allclose(y.asnumpy(), xhat * g4 + b0.reshape(1, -1, 1, 1),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), 0.1 * mean.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.9 + 0.1 * var.ravel(), rtol=1e-5)
    n = x0.size / 16
    dx = g4 * inv * (dy - dy.mean(axis=ax, keepdims=True)
                     - xhat * (dy * xhat).sum(axis=ax, keepdims=True) / n)
    np.testing.assert_allclose(x.grad.asnumpy(), dx, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gamma.grad.asnumpy(), (dy * xhat).sum(axis=ax), rtol=1e-4,
                               atol=1e-4)
    np.testing.assert_allclose(beta.grad.asnumpy(), dy.sum(axis=ax), rtol=1e-5, atol=1e-4)
