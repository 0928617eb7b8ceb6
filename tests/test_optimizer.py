"""mx.optimizer updates against their formulas written out in NumPy, the registry,
Updater states, and mx.lr_scheduler values."""
import math
import pickle

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import ShapeError, StateError

RNG = np.random.default_rng(0)


def data(shape=(3, 4)):
    w = RNG.standard_normal(shape)
    grads = [RNG.standard_normal(shape) * 3 for _ in range(4)]
    return w, grads


def run(opt, w0, grads, dtype="float64"):
    w = nd.array(w0, dtype=dtype)
    state = opt.create_state(0, w)
    out = []
    for g in grads:
        opt.update(0, w, nd.array(g, dtype=dtype), state)
        out.append(w.asnumpy().copy())
    return out


def clipped(g, c):
    return g if c is None else np.clip(g, -c, c)


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("clip", [None, 0.5])
def test_sgd(momentum, clip):
    w0, grads = data()
    lr, wd, rs = 0.1, 0.01, 0.5
    opt = mx.optimizer.SGD(learning_rate=lr, momentum=momentum, wd=wd, rescale_grad=rs,
                           clip_gradient=clip)
    got = run(opt, w0, grads)
    w, mom = w0.copy(), np.zeros_like(w0)
    for g, out in zip(grads, got):
        g = clipped(rs * g, clip)
        if momentum:
            mom = momentum * mom - lr * (g + wd * w)
            w = w + mom
        else:
            w = w - lr * (g + wd * w)
        np.testing.assert_allclose(out, w, rtol=1e-12)


def test_sgd_default_lr_and_float32():
    opt = mx.optimizer.create("sgd")
    assert opt.learning_rate == 0.01 and opt.momentum == 0.0
    w = nd.array([1.0, 2.0])
    opt.update(0, w, nd.array([1.0, 1.0]), None)
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.asnumpy(), [0.99, 1.99], rtol=1e-6)


@pytest.mark.parametrize("momentum", [0.0, 0.8])
def test_nag(momentum):
    w0, grads = data()
    lr, wd = 0.05, 0.1
    opt = mx.optimizer.NAG(learning_rate=lr, momentum=momentum, wd=wd)
    got = run(opt, w0, grads)
    w, mom = w0.copy(), np.zeros_like(w0)
    for g, out in zip(grads, got):
        g = g + wd * w
        if momentum:
            mom = momentum * mom + g
            w = w - lr * (g + momentum * mom)
        else:
            w = w - lr * g
        np.testing.assert_allclose(out, w, rtol=1e-12)


@pytest.mark.parametrize("clip", [None, 1.0])
def test_adam(clip):
    w0, grads = data()
    lr, b1, b2, eps, wd, rs = 0.01, 0.8, 0.99, 1e-6, 0.05, 0.7
    opt = mx.optimizer.Adam(learning_rate=lr, beta1=b1, beta2=b2, epsilon=eps, wd=wd,
                            rescale_grad=rs, clip_gradient=clip)
    got = run(opt, w0, grads)
    w, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for t, (g, out) in enumerate(zip(grads, got), 1):
        g = clipped(rs * g + wd * w, clip)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (np.sqrt(v) + eps)
        np.testing.assert_allclose(out, w, rtol=1e-12)
    assert mx.optimizer.Adam().learning_rate == 0.001


def test_adamw():
    w0, grads = data()
    lr, b1, b2, eps, wd = 0.01, 0.9, 0.999, 1e-6, 0.1
    opt = mx.optimizer.AdamW(learning_rate=lr, wd=wd)
    got = run(opt, w0, grads)
    w, m, v = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for t, (g, out) in enumerate(zip(grads, got), 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * (m / (np.sqrt(v) + eps) + wd * w)
        np.testing.assert_allclose(out, w, rtol=1e-12)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered):
    w0, grads = data()
    lr, g1, g2, eps, wd, cw = 0.01, 0.9, 0.8, 1e-8, 0.01, 2.0
    opt = mx.optimizer.RMSProp(learning_rate=lr, gamma1=g1, gamma2=g2, epsilon=eps,
                               centered=centered, wd=wd, clip_weights=cw)
    got = run(opt, w0, grads)
    w = w0.copy()
    n, mg, delta = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
    for g, out in zip(grads, got):
        g = g + wd * w
        n = (1 - g1) * g * g + g1 * n
        if centered:
            mg = (1 - g1) * g + g1 * mg
            delta = g2 * delta - lr * g / np.sqrt(n - mg * mg + eps)
            w = w + delta
        else:
            w = w - lr * g / np.sqrt(n + eps)
        w = np.clip(w, -cw, cw)
        np.testing.assert_allclose(out, w, rtol=1e-10)


def test_adagrad():
    w0, grads = data()
    lr, eps, wd = 0.1, 1e-7, 0.01
    opt = mx.optimizer.AdaGrad(learning_rate=lr, eps=eps, wd=wd)
    got = run(opt, w0, grads)
    w, h = w0.copy(), np.zeros_like(w0)
    for g, out in zip(grads, got):
        h = h + g * g
        w = w - lr * (g / np.sqrt(h + eps) + wd * w)
        np.testing.assert_allclose(out, w, rtol=1e-12)


def test_adadelta():
    w0, grads = data()
    rho, eps, wd = 0.9, 1e-5, 0.01
    opt = mx.optimizer.AdaDelta(rho=rho, epsilon=eps, wd=wd)
    got = run(opt, w0, grads)
    w, ag, ad = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for g, out in zip(grads, got):
        ag = rho * ag + (1 - rho) * g * g
        d = np.sqrt(ad + eps) / np.sqrt(ag + eps) * g
        ad = rho * ad + (1 - rho) * d * d
        w = w - (d + wd * w)
        np.testing.assert_allclose(out, w, rtol=1e-12)


def test_adamax_and_signum():
    w0, grads = data()
    lr, b1, b2 = 0.002, 0.9, 0.999
    got = run(mx.optimizer.Adamax(), w0, grads)
    w, m, u = w0.copy(), np.zeros_like(w0), np.zeros_like(w0)
    for t, (g, out) in enumerate(zip(grads, got), 1):
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g))
        w = w - lr / (1 - b1 ** t) * m / u
        np.testing.assert_allclose(out, w, rtol=1e-12)
    got = run(mx.optimizer.Signum(learning_rate=0.1, momentum=0.5), w0, grads)
    w, m = w0.copy(), np.zeros_like(w0)
    for g, out in zip(grads, got):
        m = 0.5 * m + 0.5 * g
        w = w - 0.1 * np.sign(m)
        np.testing.assert_allclose(out, w, rtol=1e-12)


def test_lr_and_wd_mult_from_param_dict():
    p = mx.gluon.Parameter("p_weight", shape=(2,), lr_mult=0.5, wd_mult=0.0)
    opt = mx.optimizer.SGD(learning_rate=1.0, wd=1.0, param_dict={0: p})
    w = nd.array([1.0, 1.0])
    opt.update(0, w, nd.array([1.0, 2.0]), None)
    np.testing.assert_allclose(w.asnumpy(), [0.5, 0.0])
    opt2 = mx.optimizer.SGD(learning_rate=1.0)
    opt2.set_lr_mult({0: 0.1})
    w = nd.array([1.0])
    opt2.update(0, w, nd.array([1.0]), None)
    np.testing.assert_allclose(w.asnumpy(), [0.9], rtol=1e-6)


def test_update_count_and_scheduler():
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5)
    with pytest.warns(UserWarning, match="overwritten"):
        opt = mx.optimizer.SGD(learning_rate=1.0, lr_scheduler=sched)
    assert sched.base_lr == 1.0
    w = nd.array([0.0])
    lrs = []
    for _ in range(5):
        opt.update(0, w, nd.array([-1.0]), None)
        lrs.append(opt.learning_rate)
    assert opt.num_update == 5
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25]
    np.testing.assert_allclose(w.asnumpy(), [1 + 1 + 0.5 + 0.5 + 0.25])
    with pytest.raises(UserWarning, match="LRScheduler"):
        opt.set_learning_rate(0.1)
    # without learning_rate the scheduler's base_lr is kept
    s2 = mx.lr_scheduler.FactorScheduler(step=10, base_lr=0.3)
    assert mx.optimizer.SGD(lr_scheduler=s2).learning_rate == 0.3


def test_set_learning_rate():
    opt = mx.optimizer.create("adam", learning_rate=0.1)
    opt.set_learning_rate(0.2)
    assert opt.learning_rate == 0.2 and opt.lr == 0.2


def test_registry():
    for name, cls in [("sgd", "SGD"), ("SGD", "SGD"), ("adam", "Adam"), ("nag", "NAG"),
                      ("rmsprop", "RMSProp"), ("adagrad", "AdaGrad"),
                      ("adadelta", "AdaDelta"), ("adamw", "AdamW")]:
        assert type(mx.optimizer.create(name)).__name__ == cls
    with pytest.raises(StateError, match="known optimizers: .*sgd"):
        mx.optimizer.create("nosuch")

    @mx.optimizer.register
    class Halve(mx.optimizer.Optimizer):
        def update(self, index, weight, grad, state):
            weight[:] = weight * 0.5

    opt = mx.optimizer.create("halve")
    w = nd.array([4.0])
    opt.update(0, w, nd.array([0.0]), None)
    assert w.asscalar() == 2.0


def test_shape_mismatch_error():
    with pytest.raises(ShapeError, match="does not match weight"):
        mx.optimizer.SGD().update(0, nd.zeros((2,)), nd.zeros((3,)), None)


def test_update_bumps_version_and_refuses_inside_record():
    w = nd.array([1.0, 2.0])
    w.attach_grad()
    with mx.autograd.record():
        y = (w * w).sum()
    mx.optimizer.SGD().update(0, w, nd.ones((2,)), None)
    with pytest.raises(mx.base.InPlaceError):
        y.backward()
    with mx.autograd.record():
        with pytest.raises(mx.base.InPlaceError):
            mx.optimizer.SGD().update(0, w, nd.ones((2,)), None)


def test_updater_states_roundtrip():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    upd = mx.optimizer.get_updater(opt)
    w = nd.array([1.0, 2.0])
    upd(0, nd.array([1.0, 1.0]), w)
    blob = upd.get_states(dump_optimizer=True)
    upd2 = mx.optimizer.get_updater(mx.optimizer.SGD())
    upd2.set_states(blob)
    assert upd2.optimizer.momentum == 0.9
    np.testing.assert_allclose(upd2.states[0].asnumpy(), upd.states[0].asnumpy())
    # the optimizer pickles without its param_dict
    opt.param_dict = {0: mx.gluon.Parameter("x", shape=(1,))}
    assert pickle.loads(pickle.dumps(opt)).param_dict == {}


# ------------------------------------------------------------------ lr_scheduler
def test_factor_scheduler():
    s = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=1.0,
                                        stop_factor_lr=0.2)
    assert [s(t) for t in range(1, 12)] == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25,
                                            0.25, 0.2, 0.2]
    with pytest.raises(StateError):
        mx.lr_scheduler.FactorScheduler(step=0)
    with pytest.raises(StateError):
        mx.lr_scheduler.FactorScheduler(step=2, factor=1.5)


def test_factor_scheduler_warmup():
    s = mx.lr_scheduler.FactorScheduler(step=5, factor=0.1, base_lr=1.0, warmup_steps=4,
                                        warmup_begin_lr=0.2)
    np.testing.assert_allclose([s(t) for t in range(4)], [0.2, 0.4, 0.6, 0.8])
    assert s(4) == 1.0
    c = mx.lr_scheduler.FactorScheduler(step=5, base_lr=1.0, warmup_steps=2,
                                        warmup_begin_lr=0.3, warmup_mode="constant")
    assert [c(0), c(1), c(2)] == [0.3, 0.3, 1.0]


def test_multifactor_scheduler():
    s = mx.lr_scheduler.MultiFactorScheduler(step=[2, 5], factor=0.1, base_lr=1.0)
    np.testing.assert_allclose([s(t) for t in range(1, 8)],
                               [1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01])
    with pytest.raises(StateError):
        mx.lr_scheduler.MultiFactorScheduler(step=[3, 2])


def test_cosine_and_poly_scheduler():
    s = mx.lr_scheduler.CosineScheduler(max_update=100, base_lr=0.5, final_lr=0.1)
    for t in (0, 13, 50, 77, 100):
        expect = 0.1 + 0.4 * (1 + math.cos(math.pi * t / 100)) / 2
        assert s(t) == pytest.approx(expect)
    assert s(150) == pytest.approx(0.1)
    w = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0, warmup_steps=5)
    assert w(0) == 0.0 and w(5) == pytest.approx(1.0)
    assert w(10) == pytest.approx(0.0)
    p = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.0)
    for t in (0, 3, 10):
        assert p(t) == pytest.approx((1 - t / 10) ** 2)


def test_group_adagrad():
    w0, grads = data((3, 4))
    lr, eps, clip = 0.1, 1e-5, 2.0
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=lr, eps=eps, clip_gradient=clip,
                                            rescale_grad=0.5)
    got = run(opt, w0, grads)
    w, h = w0.copy(), np.zeros((3, 1))
    for g, out in zip(grads, got):
        g = np.clip(0.5 * g, -clip, clip)
        h = h + np.mean(g * g, axis=1, keepdims=True)
        w = w - lr * g / np.sqrt(h + eps)
        np.testing.assert_allclose(out, w, rtol=1e-12)
    assert isinstance(mx.optimizer.create("groupadagrad"), mx.optimizer.contrib.GroupAdaGrad)
    with pytest.raises(StateError, match="weight decay"):
        mx.optimizer.contrib.GroupAdaGrad(wd=0.1).update(0, nd.ones((2, 2)), nd.ones((2, 2)),
                                                         nd.zeros((2, 1)))
    with pytest.raises(ShapeError, match="2-D"):
        mx.optimizer.contrib.GroupAdaGrad().create_state(0, nd.ones((3,)))


def _lbsgd_reference(w0, grads, lr, wd, momentum, batch_scale, mult, rescale=1.0):
    """MXNet's LBSGD: gradients summed over batch_scale calls, then sgd(_mom)_update with
    lr * mult(num_cums) on their mean."""
    w, mom, cum, outs = w0.copy(), np.zeros_like(w0), 0.0, []
    for n, g in enumerate(grads, start=1):
        cum = cum + g
        if n % batch_scale == 0:
            gm = cum / batch_scale
            step = (lr * mult(n, w, gm)) * (rescale * gm + wd * w)
            mom = momentum * mom - step
            w = w + mom
            cum = 0.0
        outs.append(w.copy())
    return outs


@pytest.mark.parametrize("strategy", ["linear", "power2", "sqrt", "lars"])
def test_lbsgd(strategy):
    w0, _ = data((3, 4))
    grads = [RNG.standard_normal((3, 4)) for _ in range(8)]
    lr, wd, mom, bs, nwup = 0.1, 0.01, 0.9, 2, 3 * 2
    opt = mx.optimizer.LBSGD(learning_rate=lr, wd=wd, momentum=mom, batch_scale=bs,
                             warmup_strategy=strategy, warmup_epochs=3, updates_per_epoch=2,
                             rescale_grad=0.5)
    got = run(opt, w0, grads)

    def mult(n, w, g):
        if strategy == "lars":
            w2, g2 = (w * w).sum(), (g * g).sum()
            return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)
        if n >= nwup:
            return bs
        frac = {"linear": n / nwup, "power2": (n / nwup) ** 2, "sqrt": math.sqrt(n / nwup)}
        return 1 + (bs - 1) * frac[strategy]
    # MXNet's lars factor uses the averaged gradient before rescale_grad
    ref = _lbsgd_reference(w0, grads, lr, wd, mom, bs, mult, rescale=0.5)
    for out, r in zip(got, ref):
        np.testing.assert_allclose(out, r, rtol=1e-12)
    assert np.array_equal(got[0], w0)          # the first call only accumulates
    assert isinstance(mx.optimizer.create("lbsgd"), mx.optimizer.LBSGD)


def test_multi_adamw_update():
    shapes = [(3, 4), (5,)]
    rng = np.random.default_rng(3)
    w0 = [rng.standard_normal(s) for s in shapes]
    lrs, wds, etas, b1, b2, eps, clip = [0.1, 0.05], [0.01, 0.0], [1.0, 0.5], 0.8, 0.9, 1e-6, 1.5
    ws = [nd.array(w, dtype="float64") for w in w0]
    ms = [nd.zeros(s, dtype="float64") for s in shapes]
    vs = [nd.zeros(s, dtype="float64") for s in shapes]
    rw = [w.copy() for w in w0]
    rm, rv = [np.zeros(s) for s in shapes], [np.zeros(s) for s in shapes]
    for step in range(3):
        gs = [rng.standard_normal(s) * 2 for s in shapes]
        res = nd.contrib.multi_adamw_update(ws, [nd.array(g, dtype="float64") for g in gs], ms,
                                            vs, nd.array([0.5], dtype="float64"), lrs=lrs,
                                            wds=wds, etas=etas, beta1=b1, beta2=b2,
                                            epsilon=eps, clip_gradient=clip, out=ws)
        assert res[0] is ws[0] and len(res) == 2
        for i in range(2):
            g = np.clip(0.5 * gs[i], -clip, clip)
            rm[i] = b1 * rm[i] + (1 - b1) * g
            rv[i] = b2 * rv[i] + (1 - b2) * g * g
            rw[i] = rw[i] - etas[i] * (lrs[i] * rm[i] / (np.sqrt(rv[i]) + eps) + wds[i] * rw[i])
            np.testing.assert_allclose(ws[i].asnumpy(), rw[i], rtol=1e-12)
            np.testing.assert_allclose(ms[i].asnumpy(), rm[i], rtol=1e-12)
    before = ws[0].asnumpy().copy()     # a non-finite rescale_grad skips the step (MXNet)
    nd.contrib.multi_adamw_update(ws, [nd.ones(s, dtype="float64") for s in shapes], ms, vs,
                                  float("nan"), lrs=lrs, wds=wds, etas=etas, out=ws)
    np.testing.assert_array_equal(ws[0].asnumpy(), before)
    with pytest.raises(ShapeError, match="lrs"):
        nd.contrib.multi_adamw_update(ws, ws, ms, vs, 1.0, lrs=[0.1], wds=wds, etas=etas)


def test_group_adagrad_states_round_trip():
    opt = mx.optimizer.contrib.GroupAdaGrad(learning_rate=0.1)
    upd = mx.optimizer.get_updater(opt)
    w = nd.array([[1.0, 2.0], [3.0, 4.0]])
    g = nd.array([[1.0, -1.0], [0.5, 2.0]])
    upd(0, g, w)
    upd2 = mx.optimizer.get_updater(mx.optimizer.contrib.GroupAdaGrad())
    upd2.set_states(upd.get_states(dump_optimizer=True))
    np.testing.assert_allclose(upd2.states[0].asnumpy(), [[1.0], [2.125]])
    w2 = w.copy()
    upd(0, g, w)
    upd2(0, g, w2)
    np.testing.assert_array_equal(w.asnumpy(), w2.asnumpy())


def test_adamw_update_and_mixed_precision():
    rng = np.random.default_rng(4)
    w0, g0 = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    kw = dict(lr=0.1, eta=0.5, wd=0.02, beta1=0.8, beta2=0.9, epsilon=1e-6, clip_gradient=1.0)
    w, m, v = nd.array(w0, dtype="float64"), nd.zeros((3, 4), dtype="float64"), \
        nd.zeros((3, 4), dtype="float64")
    out = nd.contrib.adamw_update(w, nd.array(g0, dtype="float64"), m, v, 2.0, out=w, **kw)
    g = np.clip(2.0 * g0, -1.0, 1.0)
    rm, rv = 0.2 * g, 0.1 * g * g
    ref = w0 - 0.5 * (0.1 * rm / (np.sqrt(rv) + 1e-6) + 0.02 * w0)
    assert out is w
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(v.asnumpy(), rv, rtol=1e-12)
    # float16 weights, float32 master: the gradient is widened before scaling
    w16, master = nd.array(w0, dtype="float16"), nd.array(w0, dtype="float32")
    m, v = nd.zeros((3, 4)), nd.zeros((3, 4))
    g16 = nd.array(g0, dtype="float16")
    nd.contrib.multi_mp_adamw_update([w16], [g16], [m], [v], [master], nd.array([2.0]),
                                     lrs=[0.1], etas=[0.5], wds=[0.02], out=[w16],
                                     beta1=0.8, beta2=0.9, epsilon=1e-6, clip_gradient=1.0)
    g = np.clip(2.0 * g16.asnumpy().astype(np.float32), -1.0, 1.0)
    rm, rv = 0.2 * g, 0.1 * g * g
    ref = w0.astype(np.float32) - 0.5 * (0.1 * rm / (np.sqrt(rv) + 1e-6)
                                         + 0.02 * w0.astype(np.float32))
    np.testing.assert_allclose(master.asnumpy(), ref, rtol=1e-5)
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
