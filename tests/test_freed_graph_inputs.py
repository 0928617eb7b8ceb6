"""An array whose graph an earlier backward freed is a constant in a new recording, as in
MXNet (d2l's RNN with consecutive sampling carries its hidden state across batches); a second
backward through the freed graph itself still raises."""
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import GraphError


def _run(detach):
    W = nd.array([[0.5, -0.2], [0.1, 0.3]], dtype="float64")
    W.attach_grad()
    s = nd.ones((1, 2), dtype="float64")
    grads = []
    for _ in range(3):
        if detach:
            s = s.detach()
        with autograd.record():
            s = nd.tanh(nd.dot(s, W)) + s * 0.5     # unary and binary uses of the old state
            loss = (s * s).sum()
        loss.backward()
        grads.append(W.grad.asnumpy().copy())
    return grads, loss


def test_carried_state_is_a_constant_like_detach():
    carried, loss = _run(detach=False)
    detached, _ = _run(detach=True)
    for a, b in zip(carried, detached):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    with pytest.raises(GraphError, match="freed"):
        loss.backward()                      # the same freed graph: still an error


def test_debug_mode_warns_about_the_implicit_detach():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 3
        z = y.sum()
    z.backward()
    prev = autograd.set_debug(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with autograd.record():
                w = (y * x).sum()
        assert any("freed" in str(c.message) for c in caught)
    finally:
        autograd.set_debug(prev)
    w.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), y.asnumpy())   # y is a constant here
