"""Calls MXNet 1.9.1 refuses are refused here too, and those it accepts give its shapes
(tests/data/mxnet/refusals.json, written by tools/make_refusal_fixtures.py with the same
calls under the same names); ``random.multinomial(get_prob=True)`` returns MXNet's list with
its log-probabilities and gradient."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

import refusal_cases

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet", "refusals.json")))

CALLS = refusal_cases.calls(mx)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_refused_and_accepted_as_mxnet(name):
    want = FIX[name]
    if want["ok"]:
        r = CALLS[name]()
        assert (list(r.shape) if r is not None else None) == want["shape"]
    else:
        with pytest.raises(MXNetError):
            CALLS[name]()


def test_zeros_0d_message_says_what_to_use():
    with pytest.raises(ValueError, match=r"shape \(1,\)"):
        mx.nd.zeros(shape=())
    with pytest.raises(ValueError, match="does not exist"):
        mx.nd.diag(mx.nd.ones((2, 3)), k=4)


def test_negative_seed_is_its_unsigned_32_bit_counterpart():
    mx.random.seed(-1)
    a = mx.nd.random.uniform(shape=(4,)).asnumpy()
    mx.random.seed(2 ** 32 - 1)
    b = mx.nd.random.uniform(shape=(4,)).asnumpy()
    mx.random.seed(1)
    c = mx.nd.random.uniform(shape=(4,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_multinomial_get_prob_is_mxnets_list_with_its_gradient():
    want = FIX["multinomial_get_prob"]
    x = mx.nd.array([[2.0, 0.0], [0.0, 1.0]])
    x.attach_grad()
    with mx.autograd.record():
        res = mx.nd.random.multinomial(x, shape=3, get_prob=True)
    assert type(res).__name__ == want["type"] == "list"
    res[1].backward(mx.nd.array([[1, 2, 3], [1, 1, 1]]))
    assert res[0].asnumpy().tolist() == want["idx"]
    np.testing.assert_allclose(res[1].asnumpy(), want["logp"], rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), want["grad"], rtol=1e-6)


def test_multinomial_log_prob_gradient_is_mxnets_rule_on_random_draws():
    """MXNet's own test_sample_multinomial rule: d(sum 5*logp)/dx[k] = sum over draws of k of
    5 / x[k] (rows summing to one)."""
    mx.random.seed(3)
    x = mx.nd.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]]) / 10.0
    x.attach_grad()
    with mx.autograd.record():
        y, prob = mx.nd.random.multinomial(x, shape=500, get_prob=True)
        (prob * 5).backward()
    y, xn = y.asnumpy().astype(int), x.asnumpy()
    want = np.zeros((2, 5))
    for i in range(2):
        np.add.at(want[i], y[i], 5.0 / xn[i, y[i]])
        np.testing.assert_allclose(prob.asnumpy()[i], np.log(xn[i, y[i]]), rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), want, rtol=1e-5)
