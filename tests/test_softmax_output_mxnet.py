"""nd.SoftmaxOutput's outputs and gradients equal MXNet 1.9.1's for every multi_output /
use_ignore / normalization combination (tests/data/mxnet/softmax_output.json by
tools/make_softmax_output_fixtures.py); multi_output without 'valid' normalization also
divides by the number of spatial positions, as MXNet does."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx

CASES = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                    "softmax_output.json")))


@pytest.mark.parametrize("i", range(len(CASES)))
def test_softmax_output_matches_mxnet(i):
    c = CASES[i]
    x = mx.nd.array(c["data"])
    x.attach_grad()
    with mx.autograd.record():
        out = mx.nd.SoftmaxOutput(data=x, label=mx.nd.array(c["label"]), **c["kwargs"])
    out.backward(mx.nd.ones_like(x))
    np.testing.assert_allclose(out.asnumpy(), c["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), c["grad"], rtol=1e-5, atol=1e-6)
