"""Which results share memory with their input, as in MXNet 1.9 (checked on the real wheel):
only ``x.reshape(...)``, ``detach()``, basic slicing on the first axis and
``astype(..., copy=False)`` do; every op returns new memory, so writing to the input later
does not silently change an earlier result."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd

COPIES = {
    "nd.squeeze": lambda a: nd.squeeze(a.reshape((3, 1, 4))),
    "nd.squeeze(axis)": lambda a: nd.squeeze(a.reshape((3, 1, 4)), axis=1),
    "nd.expand_dims": lambda a: nd.expand_dims(a, 0),
    "nd.flatten": lambda a: nd.flatten(a),
    "nd.Flatten": lambda a: nd.Flatten(a),
    "nd.reshape": lambda a: nd.reshape(a, (4, 3)),
    "nd.reshape_like": lambda a: nd.reshape_like(a, nd.zeros((4, 3))),
    "x.reshape_like": lambda a: a.reshape_like(nd.zeros((4, 3))),
    "x.expand_dims": lambda a: a.expand_dims(1),
    "x.flatten": lambda a: a.flatten(),
    "x.squeeze": lambda a: a.reshape((1, 3, 4)).squeeze(),
    "x.astype(same dtype)": lambda a: a.astype("float32"),
    "x.copyto": lambda a: a.copyto(mx.cpu()),
    "x[:, 1:2]": lambda a: a[:, 1:2],
    "nd.stop_gradient": lambda a: nd.stop_gradient(a),
    "nd.BlockGrad": lambda a: nd.BlockGrad(a),
}
SHARES = {
    "x.reshape": lambda a: a.reshape((4, 3)),
    "x.detach": lambda a: a.detach(),
    "x[0]": lambda a: a[0],
    "x[0:2]": lambda a: a[0:2],
    "x.astype(copy=False)": lambda a: a.astype("float32", copy=False),
}


def _changes_with_input(fn):
    x = nd.arange(12).reshape((3, 4))
    y = fn(x)
    before = y.asnumpy().copy()
    x += 1
    return not np.array_equal(before, y.asnumpy())


@pytest.mark.parametrize("name", sorted(COPIES))
def test_ops_return_new_memory(name):
    assert not _changes_with_input(COPIES[name]), f"{name} shares memory with its input"


@pytest.mark.parametrize("name", sorted(SHARES))
def test_views_mxnet_shares_stay_views(name):
    assert _changes_with_input(SHARES[name]), f"{name} should share memory, as in MXNet"


def test_copies_are_still_differentiable_to_second_order():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]], dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = (nd.flatten(nd.expand_dims(x, 0)) ** 3).sum()
        g = mx.autograd.grad(y, x, create_graph=True)[0]
        gs = g.sum()
    gs.backward()
    np.testing.assert_allclose(g.asnumpy(), 3 * x.asnumpy() ** 2)
    np.testing.assert_allclose(x.grad.asnumpy(), 6 * x.asnumpy())


def test_asnumpy_one_element_converts_like_numpy_1():
    loss = nd.array([1.0, 2.0, 4.0]).mean()
    host = loss.asnumpy()
    assert isinstance(host, np.ndarray) and host.shape == (1,) and host.dtype == np.float32
    assert "epoch %d, loss: %f" % (1, host) == "epoch 1, loss: 2.333333"
    assert float(host) == pytest.approx(7 / 3) and int(nd.array([3.0]).asnumpy()) == 3
    assert repr(nd.array([1.0]).asnumpy()) == "array([1.], dtype=float32)"
    assert type(nd.ones((2, 2)).asnumpy().sum()) is np.float32     # reductions give scalars
    with pytest.raises(TypeError):
        float(nd.ones((2,)).asnumpy())                            # as NumPy: only one element


def test_inplace_methods_return_views_as_mxnet():
    # MXNet's NDArray.flatten/squeeze/expand_dims(inplace=True) share memory; the default
    # (and the nd.* functions) compute into new memory
    for make in (lambda t, i: t.flatten(inplace=i), lambda t, i: t.squeeze(axis=0, inplace=i),
                 lambda t, i: t.expand_dims(1, inplace=i)):
        t = mx.nd.ones((1, 3, 2))
        view, copy = make(t, True), make(t, False)
        t[:] = 5
        assert (view.asnumpy() == 5).all() and (copy.asnumpy() == 1).all()
    x = mx.nd.ones((2, 1))
    x.attach_grad()
    with mx.autograd.record():
        y = (x.squeeze(inplace=True) * 3).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[3.0], [3.0]])
