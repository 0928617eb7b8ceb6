"""CTC loss: values and gradients equal MXNet 1.9.1's (fixtures written by
tools/make_ctc_fixtures.py), MXNet's own test values for gluon.loss.CTCLoss, gradients against
central differences in float64 (first and second order), clear errors."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd, autograd
from mxgrad.base import MXNetError
from mxgrad.test_utils import check_numeric_gradient, check_second_order

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "mxnet", "ctc.json")


def _cases():
    with open(FIXTURE) as f:
        return json.load(f)


@pytest.mark.parametrize("i", range(6))
def test_values_and_gradients_match_mxnet(i):
    """Cases 4 and 5 hold NaN (``null``) activations past each sequence's data length, as
    MXNet's own test_ctc_loss_grad does: neither the loss nor the gradient may see them."""
    c = _cases()[i]
    x = nd.array(np.array(c["data"], dtype=float))
    x.attach_grad()
    with autograd.record():
        loss = nd.CTCLoss(x, nd.array(c["label"]), nd.array(c["dl"]), nd.array(c["ll"]),
                          use_data_lengths=c["use_dl"], use_label_lengths=c["use_ll"],
                          blank_label=c["blank"])
    loss.backward(nd.array(c["head"]))
    np.testing.assert_allclose(loss.asnumpy(), c["loss"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), c["grad"], rtol=1e-4, atol=1e-5)


def test_gluon_ctc_loss_matches_mxnets_own_test_values():
    expected = np.array([18.82820702, 16.50581741])
    lab = nd.array([[1, 0, -1, -1], [2, 1, 1, -1]])
    loss = mx.gluon.loss.CTCLoss()
    np.testing.assert_allclose(loss(nd.ones((2, 20, 4)), lab).asnumpy(), expected, rtol=1e-5)
    loss = mx.gluon.loss.CTCLoss(layout="TNC")
    np.testing.assert_allclose(loss(nd.ones((20, 2, 4)), lab).asnumpy(), expected, rtol=1e-5)
    loss = mx.gluon.loss.CTCLoss(layout="TNC", label_layout="TN")
    np.testing.assert_allclose(loss(nd.ones((20, 2, 4)), lab.T).asnumpy(), expected, rtol=1e-5)
    loss = mx.gluon.loss.CTCLoss()
    np.testing.assert_allclose(loss(nd.ones((2, 20, 4)), nd.array([[2, 1, 2, 2], [3, 2, 2, 2]]),
                                    None, nd.array([2, 3])).asnumpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(loss(nd.ones((2, 25, 4)), nd.array([[2, 1, 3, 3], [3, 2, 2, 3]]),
                                    nd.array([20, 20]), nd.array([2, 3])).asnumpy(),
                               expected, rtol=1e-5)


def test_brute_force_path_sum_on_a_tiny_case():
    rng = np.random.default_rng(3)
    T, C = 4, 3
    data = rng.normal(size=(T, 1, C))
    p = np.exp(data[:, 0]) / np.exp(data[:, 0]).sum(-1, keepdims=True)
    label = [1, 2]
    total = 0.0
    import itertools
    for path in itertools.product(range(C), repeat=T):
        collapsed = [k for j, k in enumerate(path) if k != 0 and (j == 0 or path[j - 1] != k)]
        if collapsed == label:
            total += np.prod([p[t, k] for t, k in enumerate(path)])
    got = nd.CTCLoss(nd.array(data, dtype="float64"), nd.array([label])).asnumpy()
    np.testing.assert_allclose(got, [-np.log(total)], rtol=1e-10)


def test_gradients_first_and_second_order_float64():
    rng = np.random.default_rng(4)
    data = rng.normal(size=(5, 2, 4))
    lab = nd.array([[1, 3, 0], [2, 2, 1]])

    def f(x):
        return nd.CTCLoss(x, lab, blank_label="first")
    assert check_numeric_gradient(f, [data], rtol=1e-5, atol=1e-7)
    check_second_order(f, [data])


def test_bad_arguments_raise_clearly():
    x = nd.ones((4, 2, 3))
    with pytest.raises(MXNetError, match="blank_label"):
        nd.CTCLoss(x, nd.array([[1], [2]]), blank_label="middle")
    with pytest.raises(MXNetError, match=r"\(T, N, C\)"):
        nd.CTCLoss(nd.ones((4, 3)), nd.array([[1]]))
    with pytest.raises(MXNetError, match="label must have shape"):
        nd.CTCLoss(x, nd.array([[1], [2], [1]]))
    with pytest.raises(MXNetError, match=r"classes in \[0, 3\)"):
        nd.CTCLoss(x, nd.array([[5], [1]]))
    with pytest.raises(MXNetError, match="data_lengths"):
        nd.CTCLoss(x, nd.array([[1], [2]]), nd.array([9, 1]), use_data_lengths=True)
    with pytest.raises(MXNetError, match="layout"):
        mx.gluon.loss.CTCLoss(layout="NCT")


def test_contrib_aliases_and_label_wider_than_data():
    x, lab = nd.ones((4, 1, 3)), nd.array([[1, 2]])
    np.testing.assert_allclose(mx.nd.contrib.CTCLoss(x, lab).asnumpy(),
                               nd.CTCLoss(x, lab).asnumpy())
    np.testing.assert_allclose(mx.contrib.nd.ctc_loss(x, lab).asnumpy(),
                               nd.CTCLoss(x, lab).asnumpy())
    with pytest.raises(MXNetError, match="label width"):
        nd.CTCLoss(nd.ones((2, 1, 3)), nd.array([[1, 2, 1]]))
