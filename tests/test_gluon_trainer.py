"""gluon.Trainer: rescaling by batch size, SGD momentum through the Trainer, skipping
'null' parameters, the stale-gradient error, grad_req 'add' accumulation, learning
rate access, state save/load; gluon.utils helpers."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import DTypeError, MXNetError, ShapeError, StateError
from mxgrad.gluon import nn


def linear(w0=(1.0, -2.0), b0=0.5):
    net = nn.Dense(1, in_units=2)
    net.initialize()
    net.weight.set_data(nd.array([list(w0)]))
    net.bias.set_data(nd.array([b0]))
    return net


X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
Y = np.array([[1.0], [0.0], [2.0]])


def grads_np(w, b):
    """Gradient of sum((X w + b - Y)^2) w.r.t. w (2,) and b."""
    r = X @ w + b - Y[:, 0]
    return 2 * X.T @ r, 2 * r.sum()


def backward(net):
    with autograd.record():
        loss = ((net(nd.array(X)) - nd.array(Y)) ** 2).sum()
    loss.backward()


def test_step_rescales_by_batch_size_and_momentum():
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9,
                                                     "wd": 0.01})
    w, b = np.array([1.0, -2.0]), 0.5
    mw, mb = np.zeros(2), 0.0
    for _ in range(3):
        backward(net)
        tr.step(batch_size=3)
        gw, gb = grads_np(w, b)
        mw = 0.9 * mw - 0.1 * (gw / 3 + 0.01 * w)
        mb = 0.9 * mb - 0.1 * (gb / 3 + 0.01 * b)
        w, b = w + mw, b + mb
        np.testing.assert_allclose(net.weight.data().asnumpy()[0], w, rtol=1e-5)
        np.testing.assert_allclose(net.bias.data().asnumpy()[0], b, rtol=1e-5)
    assert tr.optimizer.rescale_grad == pytest.approx(1 / 3)


def test_default_learning_rate_and_set():
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd")
    assert tr.learning_rate == 0.01
    backward(net)
    gw, gb = grads_np(np.array([1.0, -2.0]), 0.5)
    tr.step(1)
    np.testing.assert_allclose(net.weight.data().asnumpy()[0], [1.0, -2.0] - 0.01 * gw,
                               rtol=1e-5)
    tr.set_learning_rate(0.5)
    assert tr.learning_rate == 0.5 and tr.optimizer.lr == 0.5


def test_step_does_not_zero_grads():
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd")
    backward(net)
    g = net.weight.grad().asnumpy().copy()
    tr.step(1)
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), g)


def test_stale_gradient_error_and_ignore():
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    with pytest.raises(UserWarning, match=r"Gradient of Parameter `dense\d+_bias` on "
                                          r"context cpu\(0\) has not been updated by "
                                          r"backward since last `step`"):
        tr.step(1)
    backward(net)
    tr.step(1)
    w = net.weight.data().asnumpy().copy()
    with pytest.raises(MXNetError, match="ignore_stale_grad=True"):
        tr.step(1)                          # no new backward
    np.testing.assert_array_equal(net.weight.data().asnumpy(), w)
    tr.step(1, ignore_stale_grad=True)      # stale parameters are skipped
    np.testing.assert_array_equal(net.weight.data().asnumpy(), w)


def test_partial_use_is_stale():
    a, b = nn.Dense(1, in_units=2), nn.Dense(1, in_units=2)
    a.initialize()
    b.initialize()
    params = a.collect_params()
    params.update(b.collect_params())
    tr = gluon.Trainer(params, "sgd", {"learning_rate": 1.0})
    with autograd.record():
        y = a(nd.ones((1, 2))).sum()
    y.backward()
    wb = b.weight.data().asnumpy().copy()
    wa = a.weight.data().asnumpy().copy()
    with pytest.raises(UserWarning, match=b.bias.name):   # sorted order: bias first (MXNet)
        tr.step(1)
    np.testing.assert_array_equal(a.weight.data().asnumpy(), wa)   # nothing updated
    tr.step(1, ignore_stale_grad=True)
    np.testing.assert_array_equal(b.weight.data().asnumpy(), wb)
    np.testing.assert_allclose(a.weight.data().asnumpy(), wa - 1.0)


def test_null_params_skipped():
    net = linear()
    net.bias.grad_req = "null"
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    backward(net)
    tr.step(3)
    assert net.bias.data().asscalar() == 0.5
    assert not np.allclose(net.weight.data().asnumpy(), [[1.0, -2.0]])


def test_grad_req_add_accumulates():
    net = linear()
    net.collect_params().setattr("grad_req", "add")
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    backward(net)
    backward(net)
    gw, gb = grads_np(np.array([1.0, -2.0]), 0.5)
    np.testing.assert_allclose(net.weight.grad().asnumpy()[0], 2 * gw, rtol=1e-5)
    tr.step(6)
    np.testing.assert_allclose(net.weight.data().asnumpy()[0],
                               np.array([1.0, -2.0]) - 0.1 * 2 * gw / 6, rtol=1e-5)
    # still accumulating until zeroed
    w1 = net.weight.data().asnumpy()[0].astype(float)
    b1 = float(net.bias.data().asscalar())
    backward(net)
    np.testing.assert_allclose(net.weight.grad().asnumpy()[0], 2 * gw + grads_np(w1, b1)[0],
                               rtol=1e-5)
    net.collect_params().zero_grad()
    assert (net.weight.grad().asnumpy() == 0).all()


def test_trainer_params_forms_and_errors():
    net = linear()
    pd = net.collect_params()
    for params in (pd, dict(pd.items()), list(pd.values())):
        tr = gluon.Trainer(params, "adam")
        assert len(tr._params) == 2
    with pytest.raises(DTypeError, match="list or dict of Parameters"):
        gluon.Trainer(net.weight, "sgd")
    with pytest.raises(DTypeError, match="list of"):
        gluon.Trainer([1, 2], "sgd")
    with pytest.raises(StateError, match="optimizer_params must be None"):
        gluon.Trainer(pd, mx.optimizer.SGD(), {"learning_rate": 0.1})
    with pytest.raises(StateError, match="known optimizers"):
        gluon.Trainer(pd, "nope")
    opt = mx.optimizer.Adam(learning_rate=0.2)
    tr = gluon.Trainer(pd, opt)
    assert tr.optimizer is opt and tr.learning_rate == 0.2
    assert opt.param_dict[0] is tr._params[0]


def test_lr_mult_through_trainer():
    net = linear()
    net.bias.lr_mult = 0.0
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    backward(net)
    tr.step(1)
    assert net.bias.data().asscalar() == 0.5


def test_update_and_allreduce():
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    backward(net)
    tr.allreduce_grads()
    tr.update(3)
    gw, _ = grads_np(np.array([1.0, -2.0]), 0.5)
    np.testing.assert_allclose(net.weight.data().asnumpy()[0],
                               np.array([1.0, -2.0]) - 0.1 * gw / 3, rtol=1e-5)


def test_save_load_states(tmp_path):
    f = str(tmp_path / "trainer.states")
    net = linear()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    backward(net)
    tr.step(3)
    tr.save_states(f)
    mom = tr._updaters[0].states[0].asnumpy().copy()
    net2 = linear()
    tr2 = gluon.Trainer(net2.collect_params(), "sgd", {"learning_rate": 0.5})
    tr2.load_states(f)
    assert tr2.learning_rate == 0.1 and tr2.optimizer.momentum == 0.9
    np.testing.assert_array_equal(tr2._updaters[0].states[0].asnumpy(), mom)
    assert tr2.optimizer.param_dict[0] is tr2._params[0]


def test_adam_trainer_with_scheduler():
    net = linear()
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.1)
    tr = gluon.Trainer(net.collect_params(), "sgd", {"lr_scheduler": sched})
    lrs = []
    for _ in range(3):
        backward(net)
        tr.step(3)
        lrs.append(tr.learning_rate)
    assert lrs == [0.1, 0.05, 0.025]


# ------------------------------------------------------------------------ utils
def test_split_and_load():
    data = nd.arange(12).reshape((6, 2))
    parts = gluon.utils.split_and_load(data, [mx.cpu(0), mx.cpu(1), mx.cpu(2)])
    assert [p.shape for p in parts] == [(2, 2)] * 3
    np.testing.assert_array_equal(parts[2].asnumpy(), [[8, 9], [10, 11]])
    with pytest.raises(ShapeError, match="evenly split"):
        gluon.utils.split_and_load(data, [mx.cpu()] * 4)
    # uneven splits as numpy.array_split (MXNet 1.9.1): the larger slices first
    for size, n in [(6, 4), (5, 2), (7, 3), (2, 4), (9, 3)]:
        x = nd.arange(size * 2).reshape((size, 2))
        parts = gluon.utils.split_data(x, n, even_split=False)
        expect = np.array_split(x.asnumpy(), n)
        assert [p.shape for p in parts] == [e.shape for e in expect]
        for p, e in zip(parts, expect):
            np.testing.assert_array_equal(p.asnumpy(), e)
    cols = gluon.utils.split_data(nd.arange(14).reshape((2, 7)), 3, batch_axis=1,
                                  even_split=False)
    assert [p.shape for p in cols] == [(2, 3), (2, 2), (2, 2)]
    along1 = gluon.utils.split_data(nd.ones((2, 6)), 3, batch_axis=1)
    assert [p.shape for p in along1] == [(2, 2)] * 3
    one = gluon.utils.split_and_load(np.ones((3, 1)), mx.cpu())
    assert len(one) == 1 and one[0].shape == (3, 1)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_clip_global_norm():
    a = nd.array([3.0, 4.0])
    b = nd.array([[12.0]])
    norm = gluon.utils.clip_global_norm([a, b], 6.5)
    assert norm == pytest.approx(13.0)
    np.testing.assert_allclose(a.asnumpy(), [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [[6.0]], rtol=1e-6)
    c = nd.array([0.1])
    assert gluon.utils.clip_global_norm([c], 1.0) == pytest.approx(0.1)
    assert c.asscalar() == pytest.approx(0.1)
    with pytest.warns(UserWarning, match="nan or inf"):
        gluon.utils.clip_global_norm([nd.array([np.inf])], 1.0)
