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


@pytest.mark.parametrize("f", [nd.radians, lambda a: nd.Dropout(a, p=0.5), lambda a: a * 3.0,
                               lambda a: a + 1.0], ids=["radians", "dropout", "scale", "shift"])
def test_second_order_of_linear_ops_is_zero_as_mxnet(f):
    """A first-order gradient made with create_graph=True stays a function of x, so
    differentiating it again gives zeros (MXNet 1.9's test_higher_order_grad)."""
    x = nd.array([-1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = f(x)
        g = autograd.grad(y, [x], create_graph=True, retain_graph=True)[0]
        g2 = autograd.grad(g, [x], create_graph=True, retain_graph=True)[0]
    np.testing.assert_array_equal(g2.asnumpy(), [0.0, 0.0, 0.0])


def test_linked_gradient_keeps_values_and_third_order():
    x = nd.array([0.5, 1.5], dtype="float64")
    x.attach_grad()
    with autograd.record():
        y = x ** 4
        g1 = autograd.grad(y, [x], create_graph=True)[0]
        g2 = autograd.grad(g1, [x], create_graph=True)[0]
        g3 = autograd.grad(g2, [x], create_graph=True)[0]
    xv = x.asnumpy()
    np.testing.assert_allclose(g1.asnumpy(), 4 * xv ** 3)
    np.testing.assert_allclose(g2.asnumpy(), 12 * xv ** 2)
    np.testing.assert_allclose(g3.asnumpy(), 24 * xv)
