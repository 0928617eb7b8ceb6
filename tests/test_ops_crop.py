"""MXNet's deprecated ``Crop`` (mxgrad/ops/legacy.py), added as one function and its MXNet
record: values and gradients against MXNet 1.9.1 (tests/data/mxnet/crop.npz, made by
tools/make_crop_fixtures.py), gradients of first and second order by float64 central
differences, the Symbol path (MXNet's JSON, shape inference, bind), argument errors."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import ShapeError
from crop_cases import CASES
from opcheck import OpCase, check_op_fixture, op_tests, randn

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "crop.npz"))
KW = CASES


@pytest.mark.parametrize("name", sorted(KW))
def test_matches_mxnet(name):
    check_op_fixture(FIX, name, "Crop", KW[name])


CASES = [
    OpCase("crop_hw", lambda x: nd.Crop(x, h_w=(2, 3), offset=(1, 1)), [randn(2, 2, 4, 5)],
           lambda x: x[:, :, 1:3, 1:4]),
]
test_forward, test_grad, test_second_order = op_tests(CASES)

MXNET_JSON = """{"nodes": [{"op": "null", "name": "a", "inputs": []},
  {"op": "null", "name": "b", "inputs": []},
  {"op": "Crop", "name": "c", "attrs": {"num_args": "2", "center_crop": "True"},
   "inputs": [[0, 0, 0], [1, 0, 0]]}],
 "arg_nodes": [0, 1], "node_row_ptr": [0, 1, 2, 3], "heads": [[2, 0, 0]],
 "attrs": {"mxnet_version": ["int", 10901]}}"""


def test_symbol_from_mxnet_json():
    s = mx.sym.load_json(MXNET_JSON)
    assert s.infer_shape(a=(2, 3, 6, 7), b=(1, 1, 3, 4))[1] == [(2, 3, 3, 4)]
    x = nd.array(randn(2, 3, 6, 7))
    got = s.eval(a=x, b=nd.zeros((1, 1, 3, 4)))[0]
    np.testing.assert_array_equal(got.asnumpy(), x.asnumpy()[:, :, 1:4, 1:5])
    y = mx.sym.Crop(mx.sym.var("a"), h_w=(2, 2), name="c")
    assert y.infer_shape(a=(1, 3, 5, 5))[1] == [(1, 3, 2, 2)]


@pytest.mark.parametrize("kw, words", [
    (dict(h_w=(7, 3)), "must be positive and fit"),
    (dict(), "must be positive and fit"),
    (dict(h_w=(2, 3), offset=(5, 0)), "offset=.5, 0. leaves no room"),
    (dict(h_w=(2, 2), num_args=2), "num_args=2 but 1 inputs"),
])
def test_bad_arguments(kw, words):
    with pytest.raises(ShapeError, match=words):
        nd.Crop(nd.ones((2, 3, 6, 7)), **kw)
