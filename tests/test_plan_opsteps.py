"""Layers whose ops keep per-call state (max pooling's argmax positions, BatchNorm's
batch statistics or the running statistics it used, Dropout's mask), index by an input
(pick, take, gather_nd, SequenceMask/Last/Reverse, softmax's lengths, edge/reflect pad),
make constants (zeros, ones_like: RNN layers' begin states) or pass no gradient
(stop_gradient, one_hot, argmax) plan to op steps, not node steps
(mxgrad.symbol.plan), and the hybridized block gives the imperative block's outputs,
gradients, running statistics and masks, also when the labels, lengths, running
statistics or inputs change between calls."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.gluon import nn
from mxgrad.gluon import loss as gloss
from mxgrad.gluon._hybrid_plan import NOT_PLANNED
from mxgrad.ops._core import PerCall
from mxgrad.symbol.plan import Plan

_OPSTEP = 0


def _rand(*shape, seed=0):
    return np.random.RandomState(seed + sum(shape)).standard_normal(shape)


class WithLoss(gluon.HybridBlock):
    def __init__(self, body, loss, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body, self.loss = body, loss

    def hybrid_forward(self, F, x, label):
        return self.loss(self.body(x), label)


def _seq(*layers):
    net = nn.HybridSequential()
    net.add(*layers)
    return net


def _lambda(fn):
    return nn.HybridLambda(fn)


# name: (block maker, input shape, label or None, train mode)
CASES = {
    "MaxPool2D": (lambda: _seq(nn.Conv2D(3, 3), nn.MaxPool2D()), (2, 2, 9, 9), None, True),
    "MaxPool2D_overlap_pad": (lambda: _seq(nn.Conv2D(3, 1), nn.MaxPool2D(3, 2, 1)),
                              (2, 2, 8, 8), None, True),
    "MaxPool1D_ceil": (lambda: _seq(nn.Conv1D(2, 1), nn.MaxPool1D(3, 2, 1, ceil_mode=True)),
                       (2, 3, 8), None, True),
    "GlobalMaxPool2D": (lambda: _seq(nn.Conv2D(3, 1), nn.GlobalMaxPool2D()), (2, 2, 5, 5),
                        None, True),
    "BatchNorm_predict": (lambda: _seq(nn.Conv2D(3, 1), nn.BatchNorm(), nn.Activation("relu")),
                          (2, 2, 4, 4), None, False),
    "BatchNorm_no_scale_predict": (lambda: _seq(nn.Dense(4), nn.BatchNorm(scale=False)),
                                   (3, 5), None, False),
    "Dropout": (lambda: _seq(nn.Dense(6), nn.Dropout(0.4), nn.Dense(3)), (4, 5), None, True),
    "Dropout_axes": (lambda: _seq(nn.Conv2D(3, 1), nn.Dropout(0.5, axes=(2,))), (2, 2, 3, 3),
                     None, True),
    "BatchNorm_train": (lambda: _seq(nn.Conv2D(3, 1), nn.BatchNorm(momentum=0.7),
                                     nn.Activation("relu")), (3, 2, 4, 4), None, True),
    "BatchNorm_train_no_scale_2d": (lambda: _seq(nn.Dense(4), nn.BatchNorm(scale=False)),
                                    (5, 3), None, True),
    "BatchNorm_global_stats_train": (lambda: _seq(nn.Conv2D(3, 1),
                                                  nn.BatchNorm(use_global_stats=True)),
                                     (2, 2, 4, 4), None, True),
    "ReflectionPad2D": (lambda: _seq(nn.Conv2D(2, 1), nn.ReflectionPad2D(2)), (2, 2, 4, 5),
                        None, True),
    "pad_edge": (lambda: _seq(nn.Conv2D(2, 1), _lambda(
        lambda F, x: F.pad(x, mode="edge", pad_width=(0, 0, 0, 0, 3, 1, 0, 2)))),
        (2, 2, 3, 3), None, True),
    "SoftmaxCrossEntropyLoss": (lambda: WithLoss(nn.Dense(5), gloss.SoftmaxCrossEntropyLoss()),
                                (4, 3), [0, 4, 2, 2], True),
    "pick_keepdims_wrap": (lambda: WithLoss(nn.Dense(5), _lambda(
        lambda F, x, i: F.pick(x, i, axis=-1, keepdims=True, mode="wrap") * 2)),
        (4, 3), [-1, 7, 2, 0], True),
    "take_repeated_indices": (lambda: WithLoss(nn.Dense(4), _lambda(
        lambda F, x, i: F.take(x, i, axis=0, mode="wrap") * 3)), (4, 3), [1, 1, -1, 6, 1],
        True),
    "gather_nd": (lambda: WithLoss(nn.Dense(4), _lambda(
        lambda F, x, i: F.gather_nd(x, F.reshape(i, shape=(2, 3))))), (4, 3),
        [0, 3, 3, 1, 1, -2], True),
    "softmax_length": (lambda: WithLoss(nn.Dense(5), _lambda(
        lambda F, x, n: F.softmax(x, n, axis=-1, use_length=True, temperature=2.0))), (4, 3),
        [5, 1, 0, 3], True),
    "SequenceMask_axis1": (lambda: WithLoss(nn.Dense(4, flatten=False), _lambda(
        lambda F, x, n: F.SequenceMask(x, n, use_sequence_length=True, value=-7, axis=1))),
        (3, 5, 2), [5, 0, 2], True),
    "SequenceLast": (lambda: WithLoss(nn.Dense(4, flatten=False), _lambda(
        lambda F, x, n: F.SequenceLast(x, n, use_sequence_length=True))), (4, 3, 2),
        [1, 4, 2], True),
    "SequenceReverse": (lambda: WithLoss(nn.Dense(4, flatten=False), _lambda(
        lambda F, x, n: F.SequenceReverse(x, n, use_sequence_length=True))), (4, 3, 2),
        [0, 4, 3], True),
    "LSTM_layer_own_begin_state": (lambda: _seq(gluon.rnn.LSTM(3, input_size=2)), (4, 2, 2),
                                   None, True),
    "zeros_ones_like": (lambda: _seq(nn.Dense(3), _lambda(
        lambda F, x: F.broadcast_add(
            F.Dropout(F.ones_like(x), p=0.5) * x + F.zeros_like(x),
            F.zeros(shape=(3,), dtype="float64") + F.arange(3, dtype="float64"))
    )), (4, 2), None, True),
    "one_hot_loss": (lambda: WithLoss(nn.Dense(5), _lambda(
        lambda F, x, i: -F.sum(F.log_softmax(x) * F.one_hot(i, 5, dtype="float64"),
                               axis=1))), (4, 3),
        [0, 4, 2, 2], True),
    "stop_gradient_argmax": (lambda: _seq(nn.Dense(4), _lambda(
        lambda F, x: F.broadcast_add(x * F.stop_gradient(F.tanh(x)), F.pick(
            x, F.argmax(x, axis=1), axis=1, keepdims=True)))),
        (3, 2), None, True),
    "LRN": (lambda: _seq(nn.Conv2D(5, 1), _lambda(
        lambda F, x: F.LRN(x, nsize=3, alpha=0.1, knorm=1.5))), (2, 2, 3, 3), None, True),
}


def _plans(block):
    return [e.plan for e in (block.__dict__.get("_plans") or {}).values()
            if e is not NOT_PLANNED]


def _twins(make, args):
    nets = []
    for hybrid in (False, True):
        mx.random.seed(0)
        net = make()
        net.initialize(mx.init.Xavier())
        net.cast("float64")
        with autograd.pause():
            net(*args)                   # deferred initialization, imperatively
        nets.append(net)
    a, b = nets
    for p, q in zip(a.collect_params().values(), b.collect_params().values()):
        q.set_data(p.data().copy())
    for p, q in zip(a.collect_params().values(), b.collect_params().values()):
        if p.name.endswith(("running_mean", "running_var")):   # not the initial 0 and 1
            v = np.abs(_rand(*p.shape, seed=5)) + (0.5 if p.name.endswith("var") else 0)
            p.set_data(nd.array(v, dtype="float64"))
            q.set_data(nd.array(v, dtype="float64"))
    b.hybridize()
    return a, b


def _step(net, args, train, weight, seed=0):
    x = args[0].copy()
    x.attach_grad()
    mx.random.seed(seed)                 # the same Dropout masks for both twins
    with autograd.record(train_mode=train):
        out = net(x, *args[1:])
        loss = (out * weight).sum()
    loss.backward()
    params = [p for p in net.collect_params().values() if p.grad_req != "null"]
    return [out.asnumpy(), x.grad.asnumpy()] + [p.grad().asnumpy() for p in params]


def _args(shape, label, seed):
    args = [nd.array(_rand(*shape, seed=seed), dtype="float64")]
    if label is not None:
        args.append(nd.array(label, dtype="float64"))
    return args


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_plans_to_op_steps_and_equals_imperative(name):
    make, shape, label, train = CASES[name]
    a, b = _twins(make, _args(shape, label, 0))
    for call in range(3):             # new inputs (and labels) at every call
        lab = None if label is None else list(np.roll(label, call))
        args = _args(shape, lab, call)
        with autograd.pause():
            w = nd.array(_rand(*a(*args).shape, seed=9), dtype="float64")
        ra, rb = _step(a, args, train, w, call), _step(b, args, train, w, call)
        for what, u, v in zip(["output", "input grad"] + ["param grad"] * 9, ra, rb):
            np.testing.assert_allclose(v, u, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} call {call}: {what}")
    plans = _plans(b)
    assert len(plans) == 1, "the hybridized twin ran imperatively"
    kinds = [(st[0], getattr(st[1], "op", None)) for st in plans[0].steps]
    assert all(k == _OPSTEP for k, _ in kinds), f"node steps: {kinds}"


def test_batchnorm_predict_backward_uses_the_statistics_of_its_forward():
    """A training call between a recorded inference call and its backward updates the
    running statistics; the planned call's gamma gradient still uses the ones its forward
    read (as the imperative call)."""
    def make():
        return _seq(nn.Dense(3), nn.BatchNorm())
    x = nd.array(_rand(4, 2), dtype="float64")
    grads = []
    for net in _twins(make, [x]):
        gamma = [p for n, p in net.collect_params().items() if n.endswith("gamma")][0]
        with autograd.record(train_mode=False):
            y = net(x)
        with autograd.record(train_mode=True):
            net(x * 3)                   # updates the running statistics in place
        y.backward(nd.array(_rand(4, 3, seed=2), dtype="float64"))
        grads.append(gamma.grad().asnumpy())
    assert np.abs(grads[0]).sum() > 0
    np.testing.assert_array_equal(grads[1], grads[0])


def test_retained_graph_backs_up_twice_through_max_pooling():
    a, b = _twins(lambda: _seq(nn.Conv2D(2, 1), nn.MaxPool2D(3, 2, 1)),
                  [nd.array(_rand(1, 2, 6, 6), dtype="float64")])
    res = []
    for net in (a, b):
        x = nd.array(_rand(1, 2, 6, 6, seed=3), dtype="float64")
        x.attach_grad()
        with autograd.record():
            y = (net(x) ** 2).sum()
        y.backward(retain_graph=True)
        first = x.grad.asnumpy().copy()
        y.backward()
        np.testing.assert_array_equal(x.grad.asnumpy(), first)
        res.append(first)
    np.testing.assert_array_equal(res[1], res[0])


def test_plan_keeps_no_per_call_state_of_its_capture():
    """The per-call state a capture's forward filled (argmax positions, statistics,
    convolution columns) is not what the plan stores: its steps hold empty holders,
    and every call gets new ones."""
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    y = mx.sym.Pooling(mx.sym.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True),
                       kernel=(2, 2), stride=(1, 1))
    vals = [nd.array(_rand(2, 1, 6, 6)), nd.array(_rand(2, 1, 3, 3))]
    plan = Plan.build(y, ["x", "w"], vals, training=True)
    held = [v for st in plan.steps if st[0] == _OPSTEP and st[4]
            for v in st[4].values() if isinstance(v, PerCall)]
    assert len(held) == 2                     # the convolution's columns, the positions
    for v in held:
        assert all(getattr(v, s) is None for s in type(v).__slots__ if s != "batch_last")
    outs, call = plan.forward(vals, keep=True, needs=[True, True])
    fresh = [v for v in call[1].values() if isinstance(v, dict)]
    assert fresh and all(u is not v for d in fresh for u in d.values() for v in held)
    g = plan.backward(call, [np.ones_like(outs[0])], (True, True))
    x0, w0 = [v.copy() for v in vals]
    x0.attach_grad()
    w0.attach_grad()
    with autograd.record():
        ref = nd.Pooling(nd.Convolution(x0, w0, kernel=(3, 3), num_filter=2, no_bias=True),
                         kernel=(2, 2), stride=(1, 1))
    ref.backward()
    np.testing.assert_array_equal(outs[0], ref.asnumpy())
    np.testing.assert_array_equal(g[0], x0.grad.asnumpy())
    np.testing.assert_array_equal(g[1], w0.grad.asnumpy())


def test_batchnorm_training_updates_running_statistics_and_their_versions():
    """Training-mode BatchNorm is an op step that updates the running statistics in place:
    after a few calls they equal the imperative twin's, and each call bumps their
    versions as the imperative op does (a graph that saved them sees the write)."""
    def make():
        return _seq(nn.Conv2D(3, 1), nn.BatchNorm(momentum=0.6))
    a, b = _twins(make, [nd.array(_rand(2, 2, 3, 3), dtype="float64")])
    for call in range(3):
        x = nd.array(_rand(2, 2, 3, 3, seed=call), dtype="float64")
        vers = []
        for net in (a, b):
            stats = [p.data() for n, p in net.collect_params().items()
                     if n.endswith(("running_mean", "running_var"))]
            before = [s._ver[0] for s in stats]
            with autograd.record():
                net(x).sum().backward()
            vers.append([s._ver[0] - v for s, v in zip(stats, before)])
        assert vers[1] == vers[0] == [1, 1]
    ra, rb = ([p.data().asnumpy() for n, p in net.collect_params().items()
               if n.endswith(("running_mean", "running_var"))] for net in (a, b))
    for u, v in zip(ra, rb):
        np.testing.assert_array_equal(v, u)
    kinds = [st[0] for st in _plans(b)[0].steps]
    assert kinds == [_OPSTEP] * len(kinds)


def test_batchnorm_writing_a_computed_value_stays_a_node_step():
    """A node that writes in place into a value the graph computes (running statistics
    that are not variables) is not replayed as ops: it runs as a node step, and the
    result equals MXNet's semantics as imperative code gives them."""
    x, g, b = mx.sym.var("x"), mx.sym.var("g"), mx.sym.var("b")
    m, v = mx.sym.var("m"), mx.sym.var("v")
    y = mx.sym.BatchNorm(x, g, b, m * 1, v * 1, fix_gamma=False)
    vals = [nd.array(_rand(4, 3)), nd.ones((3,)), nd.zeros((3,)), nd.zeros((3,)),
            nd.ones((3,))]
    plan = Plan.build(y, ["x", "g", "b", "m", "v"], vals, training=True)
    kinds = [(st[0], getattr(st[1], "op", None)) for st in plan.steps]
    assert (1, "BatchNorm") in kinds
    assert plan.written == ()
    outs, _ = plan.forward(vals, keep=False)
    with autograd.train_mode():
        ref = nd.BatchNorm(vals[0], vals[1], vals[2], vals[3] * 1, vals[4] * 1,
                           fix_gamma=False)
    np.testing.assert_array_equal(outs[0], ref.asnumpy())
    np.testing.assert_array_equal(vals[3].asnumpy(), np.zeros(3))    # not written


def test_dropout_op_step_draws_the_imperative_masks_also_for_create_graph():
    """Dropout draws its mask in its op's forward: the planned call draws what the
    imperative call draws from the same seed (and leaves the generator where it leaves
    it), and a create_graph backward replays the call's masks."""
    def make():
        return _seq(nn.Dense(5), nn.Dropout(0.5), nn.Activation("tanh"), nn.Dropout(0.3))
    x0 = nd.array(_rand(3, 4), dtype="float64")
    res = []
    for net in _twins(make, [x0]):
        x = x0.copy()
        x.attach_grad()
        mx.random.seed(7)
        with autograd.record():
            y = net(x)
            gx = autograd.grad((y ** 3).sum(), [x], create_graph=True)[0]
            z = (gx ** 2).sum()
        z.backward()
        after = mx.nd.random.uniform(shape=(4,)).asnumpy()
        res.append((y.asnumpy(), gx.asnumpy(), x.grad.asnumpy(), after))
    (ya, ga, xa, ra), (yb, gb, xb, rb) = res
    np.testing.assert_array_equal(yb, ya)        # the same masks
    np.testing.assert_array_equal(gb, ga)
    np.testing.assert_array_equal(rb, ra)        # the generator left at the same state
    # (the second order runs the graph again imperatively: sums in another order)
    np.testing.assert_allclose(xb, xa, rtol=1e-12, atol=1e-12)
    assert (ya == 0).any() and np.abs(xa).sum() > 0


def test_constant_steps_give_new_arrays_every_call():
    """Nodes that make constants (zeros, ones_like, arange...) are op steps that copy the
    value made at planning: a caller writing into one call's output does not change the
    next call's."""
    x = mx.sym.var("x")
    y = mx.sym.Group([mx.sym.ones_like(x), mx.sym.arange(3) * 1, x + mx.sym.zeros_like(x)])
    plan = Plan.build(y, ["x"], [nd.array([5.0, 6.0, 7.0])], training=False)
    assert [st[0] for st in plan.steps] == [_OPSTEP] * len(plan.steps)
    first, _ = plan.forward([nd.array([1.0, 2.0, 3.0])], keep=False)
    for o in first:
        o[...] = -1
    again, _ = plan.forward([nd.array([1.0, 2.0, 4.0])], keep=False)
    assert [o.tolist() for o in again] == [[1, 1, 1], [0, 1, 2], [1, 2, 4]]
