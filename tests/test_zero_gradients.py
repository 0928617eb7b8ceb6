"""As in MXNet 1.9: comparisons are recorded with a zero gradient, so ``(x > 0).backward()``
gives zeros, and the second derivative of ops whose gradient rule uses a comparison
(relu, clip, abs) is zero rather than "not recorded"."""
import numpy as np
import pytest

from mxgrad import autograd, nd


def test_comparison_backward_gives_zeros():
    for f in (lambda x: x > 0, lambda x: x <= 1, lambda x: nd.equal(x, x),
              lambda x: nd.logical_not(x), lambda x: nd.greater(x, x * 2)):
        x = nd.array([-1.0, 2.0, 3.0])
        x.attach_grad()
        with autograd.record():
            y = f(x)
        y.backward()
        np.testing.assert_array_equal(x.grad.asnumpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("f", [nd.relu, lambda a: nd.clip(a, -2.0, 2.5), nd.abs],
                         ids=["relu", "clip", "abs"])
def test_second_order_of_piecewise_linear_ops_is_zero(f):
    x = nd.array([-1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = f(x)
        g = autograd.grad(y, [x], create_graph=True, retain_graph=True)[0]
    g.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [0.0, 0.0, 0.0])
