"""``hybridize(static_alloc=True)``: the forward's memory plan (mxgrad.symbol._plan_memory)
gives bit-identical numbers to ``static_alloc=False`` and to the imperative block
(outputs, input and parameter gradients, parameter values after Trainer steps) for
small versions of bench/bench_hybrid.py's networks, Dropout, BatchNorm in training,
grad_req='add', two forwards before one backward and create_graph; it writes in place
and reuses its static buffers from call to call, and never overwrites a value the
caller or a pending backward still holds."""
import threading

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.gluon import nn, rnn
from mxgrad.gluon._hybrid_plan import NOT_PLANNED
from mxgrad.symbol.plan import Plan
from mxgrad.symbol import _plan_memory
from mxgrad.symbol._plan_memory import plan_memory, separate

import test_hybridize_plan as _thp      # (its table of every Gluon layer; tests/ is on the path)


@pytest.fixture(autouse=True)
def _out_for_every_size(monkeypatch):
    """The small test arrays take out= too (by default outputs under 1 KiB do not)."""
    monkeypatch.setattr(_plan_memory, "MIN_OUT_BYTES", 0)


def _rand(*shape, seed=0):
    return np.random.RandomState(seed + sum(shape)).uniform(-1, 1, shape).astype(np.float32)


# ------------------------------------------------------------------ small networks
class Chain(gluon.HybridBlock):
    """bench_hybrid's chain of tiny ops (tanh, * 1.5, + c, sin), 40 ops."""

    def hybrid_forward(self, F, x, c):
        for i in range(40):
            x = (F.tanh(x), x * 1.5, x + c, F.sin(x))[i % 4]
        return x


class LSTM(gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.l0 = rnn.LSTMCell(8, input_size=4)
            self.l1 = rnn.LSTMCell(8, input_size=8)

    def hybrid_forward(self, F, x, h0, c0, h1, c1):
        s0, s1, outs = [h0, c0], [h1, c1], []
        for t in F.split(x, num_outputs=3, axis=0, squeeze_axis=True):
            o, s0 = self.l0(t, s0)
            o, s1 = self.l1(o, s1)
            outs.append(o)
        return F.stack(*outs)


class Encoder(gluon.HybridBlock):
    def __init__(self, d=8, heads=2, **kw):
        super().__init__(**kw)
        self.d, self.h = d, heads
        with self.name_scope():
            self.qkv = nn.Dense(3 * d, flatten=False, in_units=d)
            self.ln = nn.LayerNorm(in_channels=d)
            self.ff1 = nn.Dense(2 * d, flatten=False, activation="relu", in_units=d)
            self.ff2 = nn.Dense(d, flatten=False, in_units=2 * d)

    def hybrid_forward(self, F, x):
        h = self.h
        qkv = F.transpose(F.reshape(self.qkv(x), shape=(0, 0, 3, h, -1)), axes=(2, 0, 3, 1, 4))
        q, k, v = F.split(qkv, num_outputs=3, axis=0, squeeze_axis=True)
        q, k, v = (F.reshape(a, shape=(-3, 0, 0)) for a in (q, k, v))
        att = F.softmax(F.batch_dot(q / 2.0, k, transpose_b=True), axis=-1)
        o = F.reshape(F.batch_dot(att, v), shape=(-4, -1, h, 0, 0))
        x = self.ln(x + F.reshape(F.transpose(o, axes=(0, 2, 1, 3)), shape=(0, 0, -1)))
        return x + self.ff2(self.ff1(x))


class MLPDropout(gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.net = nn.HybridSequential()
            self.net.add(nn.Dense(16, activation="relu", in_units=12), nn.Dropout(0.3),
                         nn.Dense(16, activation="relu", in_units=16), nn.Dropout(0.5),
                         nn.Dense(4, in_units=16))
            self.loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def hybrid_forward(self, F, x, y):
        return self.loss(self.net(x), y)


def _seq(*layers):
    net = nn.HybridSequential()
    net.add(*layers)
    return net


NETS = {
    "chain": (Chain, lambda: [_rand(6), _rand(6, seed=1)], [True, False]),
    "lstm": (LSTM, lambda: [_rand(3, 2, 4)] + [_rand(2, 8, seed=i) for i in range(4)],
             [True] * 5),
    "mlp": (lambda: _seq(nn.Dense(16, activation="relu", in_units=12), nn.Dense(4, in_units=16)),
            lambda: [_rand(5, 12)], [True]),
    "lenet": (lambda: _seq(
        nn.Conv2D(3, kernel_size=3, padding=1, activation="sigmoid", in_channels=1),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Conv2D(4, kernel_size=3, activation="sigmoid", in_channels=3),
        nn.AvgPool2D(pool_size=2, strides=2),
        nn.Dense(8, activation="sigmoid", in_units=4), nn.Dense(3, in_units=8)),
        lambda: [_rand(2, 1, 8, 8)], [True]),
    "encoder": (Encoder, lambda: [_rand(2, 4, 8)], [True]),
    "convbn": (lambda: _seq(
        nn.Conv2D(4, 3, padding=1, in_channels=2), nn.BatchNorm(in_channels=4),
        nn.Activation("relu"), nn.Conv2D(4, 3, padding=1, in_channels=4),
        nn.BatchNorm(in_channels=4), nn.Activation("relu"), nn.GlobalAvgPool2D(),
        nn.Dense(3, in_units=4)), lambda: [_rand(3, 2, 6, 6)], [True]),
    "mlpdrop": (MLPDropout, lambda: [_rand(5, 12), np.array([0, 1, 2, 3, 1], np.float32)],
                [True, False]),
}


def _triplets(name):
    """The network three times with the same parameters: imperative, hybridized,
    hybridized with static_alloc."""
    make, xs, _ = NETS[name]
    xs = [nd.array(x) for x in xs()]
    nets = []
    for variant in range(3):
        mx.random.seed(0)
        net = make()
        net.initialize(mx.init.Xavier())
        with autograd.pause():
            net(*xs)
        if nets:
            for p, q in zip(nets[0].collect_params().values(), net.collect_params().values()):
                q.set_data(p.data().copy())
        if variant:
            net.hybridize(static_alloc=variant == 2, static_shape=variant == 2)
        nets.append(net)
    return nets, xs


def _step(net, trainer, xs, grads, seed):
    ins = [x.copy() for x in xs]
    for x, g in zip(ins, grads):
        if g:
            x.attach_grad()
    mx.random.seed(seed)                # the same Dropout masks for all three
    with autograd.record():
        out = net(*ins)
        loss = (out * out).sum()
    loss.backward()
    trainer.step(1)
    params = list(net.collect_params().values())
    return ([out.asnumpy()] + [x.grad.asnumpy() for x, g in zip(ins, grads) if g]
            + [p.grad().asnumpy() for p in params if p.grad_req != "null"]
            + [p.data().asnumpy() for p in params])


def _plans(net):
    return [e.plan for e in (net.__dict__.get("_plans") or {}).values() if e is not NOT_PLANNED]


@pytest.mark.parametrize("name", sorted(NETS))
def test_static_alloc_bit_identical_after_trainer_steps(name):
    nets, xs = _triplets(name)
    trainers = [gluon.Trainer(n.collect_params(), "sgd", {"learning_rate": 0.05})
                for n in nets]
    grads = NETS[name][2]
    for step in range(3):
        imp, hyb, sta = (_step(n, t, xs, grads, 10 + step) for n, t in zip(nets, trainers))
        for i, (u, v, w) in enumerate(zip(imp, hyb, sta)):
            np.testing.assert_array_equal(w, v, err_msg=f"step {step} value {i}")
            np.testing.assert_array_equal(w, u, err_msg=f"step {step} value {i}")
    plans = _plans(nets[2])
    assert len(plans) == 1 and plans[0].static and not _plans(nets[1])[0].static
    assert plan_memory(plans[0]).how        # (some op writes where the plan says)
    # not recorded (predict mode, a memory plan of its own): the same outputs, and an
    # output held by the caller is not overwritten by the next call
    preds = []
    for net in nets:
        first = net(*xs)
        kept = first.asnumpy().copy()
        second = net(*[x * 0.5 for x in xs[:1]] + xs[1:])
        np.testing.assert_array_equal(first.asnumpy(), kept)
        preds.append([kept, second.asnumpy()])
    for u, v, w in zip(*preds):
        np.testing.assert_array_equal(w, v)
        np.testing.assert_array_equal(w, u)


def test_dense_relu_in_place_and_static_buffers_reused_across_calls():
    x = mx.sym.var("x")
    w, b = mx.sym.var("w"), mx.sym.var("b")
    h = mx.sym.relu(mx.sym.FullyConnected(x, w, b, num_hidden=3))   # Dense + activation
    y = mx.sym.sum(mx.sym.relu(h * 2.0 + 1.0) * 3.0)
    vals = [nd.array(_rand(4, 5)), nd.array(_rand(3, 5, seed=1)), nd.array(_rand(3))]
    plan = Plan.build(y, ["x", "w", "b"], vals, training=True, static_alloc=True)
    names = [s[1].name for s in plan.steps]
    assert names == ["FullyConnected", "relu", "_mul_scalar", "_plus_scalar", "relu",
                     "_mul_scalar", "sum"]
    mem = plan_memory(plan)
    # relu into the product's buffer (its rule reads its output: the pre-activation is
    # not kept); * 2 + 1 in one buffer (the relu output after it is kept); * 3 static
    assert [mem.how[k] for k in range(6)] == [
        ("new", None), ("inplace", plan.steps[0][3][0]), ("new", None),
        ("inplace", plan.steps[2][3][0]), ("inplace", plan.steps[3][3][0]), ("static", 0)]
    ref = Plan.build(y, ["x", "w", "b"], vals, training=True)
    seen = set()
    for seed in range(3):
        xs = [nd.array(_rand(4, 5, seed=seed)), vals[1], vals[2]]
        (o1,), c1 = plan.forward(xs, keep=True, needs=[True, True, True])
        (o2,), c2 = ref.forward(xs, keep=True, needs=[True, True, True])
        np.testing.assert_array_equal(o1, o2)
        g1 = plan.backward(c1, [np.ones(1, np.float32)], (True, True, True))
        g2 = ref.backward(c2, [np.ones(1, np.float32)], (True, True, True))
        for u, v in zip(g1, g2):
            np.testing.assert_array_equal(u, v)
        pool = plan._bwd[("sfwd", True)].__globals__["POOL"]
        assert len(pool) == 1           # one set of static buffers, put back after the call
        seen.add(id(pool[0][0]))
    assert len(seen) == 1               # ... and the same one at every call


def test_outputs_and_saved_values_of_earlier_calls_are_not_overwritten():
    """Two recorded forwards before one backward, outputs held across calls."""
    nets, _ = _triplets("mlp")
    x1, x2 = nd.array(_rand(5, 12, seed=3)), nd.array(_rand(5, 12, seed=4))
    res = []
    for net in nets:
        params = list(net.collect_params().values())
        for p in params:
            p.grad_req = "add"
        with autograd.record():
            y1 = net(x1)
            y2 = net(x2)
            kept = y1.asnumpy().copy()
            loss = (y1 * y1).sum() + (y2 * 3).sum()
        np.testing.assert_array_equal(y1.asnumpy(), kept)
        loss.backward()
        y3 = net(x2)
        np.testing.assert_array_equal(y1.asnumpy(), kept)
        res.append([y1.asnumpy(), y2.asnumpy(), y3.asnumpy()]
                   + [p.grad().asnumpy() for p in params])
    for u, v, w in zip(*res):
        np.testing.assert_array_equal(w, v)
        np.testing.assert_array_equal(w, u)


def test_grad_req_add_and_create_graph_fallback():
    nets, xs = _triplets("mlp")
    res = []
    for net in nets:
        net.collect_params().setattr("grad_req", "add")
        for step in range(3):
            x = xs[0].copy()
            x.attach_grad()
            with autograd.record():
                y = (net(x) ** 2).sum()
                (gx,) = autograd.grad(y, [x], create_graph=True)
                z = (gx * gx).sum()
            z.backward()
        res.append([p.grad().asnumpy() for p in net.collect_params().values()])
    assert np.abs(res[0][0]).max() > 0
    for u, v, w in zip(*res):
        np.testing.assert_array_equal(w, v)
        np.testing.assert_allclose(w, u, rtol=1e-6, atol=1e-7)


def test_dropout_masks_and_batchnorm_statistics_under_static_alloc():
    nets, xs = _triplets("convbn")
    for step in range(2):
        for net in nets:
            mx.random.seed(step)
            with autograd.record():
                net(*xs).sum().backward()
    stats = [[p.data().asnumpy() for n, p in net.collect_params().items() if "running" in n]
             for net in nets]
    assert np.abs(stats[0][0]).max() > 1e-3
    for u, v, w in zip(*stats):
        np.testing.assert_array_equal(w, v)
        np.testing.assert_array_equal(w, u)
    d = _seq(nn.Dropout(0.5))
    d.hybridize(static_alloc=True)
    x = nd.ones((50,))
    masks = []
    for _ in range(2):
        mx.random.seed(5)
        with autograd.record():
            masks.append(d(x).asnumpy())
    assert 0.2 < (masks[0] == 0).mean() < 0.8
    mx.random.seed(5)
    with autograd.record():
        imp = nn.Dropout(0.5)(x).asnumpy()
    np.testing.assert_array_equal(masks[0], imp)
    np.testing.assert_array_equal(masks[1], imp)


def test_concurrent_calls_take_separate_buffers():
    nets, xs = _triplets("chain")
    net = nets[2]
    want = {}
    for seed in range(4):
        x = nd.array(_rand(6, seed=seed))
        want[seed] = net(x, xs[1]).asnumpy()
    got = {}
    errors = []

    def work(seed):
        try:
            for _ in range(30):
                got[seed] = net(nd.array(_rand(6, seed=seed)), xs[1]).asnumpy()
                np.testing.assert_array_equal(got[seed], want[seed])
        except Exception as e:      # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_separate():
    a = np.ones((2, 3))
    assert separate(a + 1, [a]) and separate((a + 1).reshape(6), [a])
    assert not separate(a.T, [a]) and not separate(a, [a]) and not separate(a[0], [a[1]])
    v = np.ones(4)[1:]
    assert separate(np.ones(2), [v, None])



@pytest.mark.parametrize("name", sorted(_thp.LAYERS))
def test_every_layer_under_static_alloc(name, monkeypatch):
    """test_hybridize_plan's check of every Gluon layer (outputs, gradients, parameters
    after Trainer steps equal to the imperative twin's), hybridized with static_alloc."""
    monkeypatch.setitem(_thp.HYBRIDIZE, "static_alloc", True)
    make, xs = _thp.LAYERS[name]
    a, b = _thp.check_twins(make, xs, grad_inputs=[x.dtype.kind == "f"
                                                   for x in map(np.asarray, xs)])
    assert all(e.plan.static for e in b._plans.values() if e is not NOT_PLANNED)
    ins = [nd.array(x, dtype="float64") for x in xs]      # not recorded: its own plan
    for _ in range(2):
        for u, v in zip(_thp._flat(a(*ins)), _thp._flat(b(*ins))):
            np.testing.assert_allclose(v.asnumpy(), u.asnumpy(), **_thp.TOL)


def test_in_place_chains_of_many_ops_bit_identical_on_long_arrays():
    """NumPy's vectorised loops give the same bits in place as into a new array (a
    property static_alloc relies on: checked on arrays long enough for SIMD paths)."""
    x = mx.sym.var("x")
    c = mx.sym.var("c")
    y = x
    for f in (mx.sym.tanh, mx.sym.sin, mx.sym.cos, mx.sym.exp, mx.sym.sigmoid, mx.sym.relu,
              mx.sym.arctan, mx.sym.negative, mx.sym.expm1, mx.sym.abs, mx.sym.square,
              mx.sym.cbrt, lambda v: mx.sym.sqrt(mx.sym.abs(v)),
              lambda v: mx.sym.log1p(mx.sym.abs(v))):
        y = f(y) * c + 0.25
        y = (y - c) / 1.5
    y = mx.sym.sum(mx.sym.maximum(y, c) ** 2.0)
    for dtype in ("float32", "float64"):
        vals = [nd.array(_rand(1003) * 3, dtype=dtype), nd.array(_rand(1003, seed=1),
                                                               dtype=dtype)]
        static = Plan.build(y, ["x", "c"], vals, training=False, static_alloc=True)
        plain = Plan.build(y, ["x", "c"], vals, training=False)
        mem = plan_memory(static, False)
        assert sum(kind == "inplace" for kind, _ in mem.how.values()) > 50
        for seed in range(2):
            ins = [nd.array(_rand(1003, seed=seed + 2) * 3, dtype=dtype), vals[1]]
            np.testing.assert_array_equal(static.forward(ins, keep=False)[0][0],
                                          plain.forward(ins, keep=False)[0][0])


def test_small_outputs_are_left_to_the_op(monkeypatch):
    monkeypatch.setattr(_plan_memory, "MIN_OUT_BYTES", 1024)
    x = mx.sym.var("x")
    y = mx.sym.sum(mx.sym.relu(x * 2.0 + 1.0) * 3.0)
    for n, planned in ((255, 0), (256, 4)):      # float32: 1020 and 1024 bytes
        plan = Plan.build(y, ["x"], [nd.ones((n,))], training=True, static_alloc=True)
        assert len(plan_memory(plan).how) == len(plan_memory(plan, False).how) == planned
