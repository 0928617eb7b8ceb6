"""``nd.contrib.DeformableConvolution`` and ``nd.contrib.ModulatedDeformableConvolution``
(issue 26): outputs and the gradients of data, offset, weight and bias equal MXNet 1.9.1's
(tests/data/mxnet/deformable.npz by tools/make_deformable_fixtures.py, same case names and
arguments; MXNet's modulated backward is GPU-only, so its fixtures hold outputs only);
gradients of every input, mask included, against float64 central differences, first and
second order (the op table below)."""
import os

import numpy as np
import pytest

from mxgrad import autograd, nd
from mxgrad.base import MXNetError
from opcheck import OpCase, op_tests, randn, uniform

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "deformable.npz"))

CASES = {
    "deform_basic": ("DeformableConvolution", dict(kernel=(3, 3), pad=(1, 1), num_filter=3)),
    "deform_integer": ("DeformableConvolution", dict(kernel=(3, 3), pad=(1, 1),
                                                     num_filter=2)),
    "deform_groups": ("DeformableConvolution", dict(
        kernel=(3, 2), stride=(1, 2), dilate=(2, 1), pad=(1, 1), num_filter=4, num_group=2,
        num_deformable_group=2)),
    "deform_nobias": ("DeformableConvolution", dict(kernel=(2, 2), stride=(2, 2),
                                                    num_filter=2, no_bias=True)),
    "modulated_basic": ("ModulatedDeformableConvolution", dict(kernel=(3, 3), pad=(1, 1),
                                                               num_filter=3)),
    "modulated_groups": ("ModulatedDeformableConvolution", dict(
        kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 2), num_filter=4, num_group=2,
        num_deformable_group=2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    op, kw = CASES[name]
    ins = [nd.array(FIX[f"{name}_in{i}"], dtype="float64") for i in range(6)
           if f"{name}_in{i}" in FIX]
    for a in ins:
        a.attach_grad()
    with autograd.record():
        y = getattr(nd.contrib, op)(*ins, **kw)
    np.testing.assert_allclose(y.asnumpy(), FIX[f"{name}_out0"], rtol=1e-10, atol=1e-12)
    if f"{name}_head0" in FIX:
        y.backward(nd.array(FIX[f"{name}_head0"], dtype="float64"))
        for i, a in enumerate(ins):
            np.testing.assert_allclose(a.grad.asnumpy(), FIX[f"{name}_grad{i}"],
                                       rtol=1e-9, atol=1e-10, err_msg=f"input {i}")


def test_fixtures_send_taps_past_every_border():
    """The edge rules are exercised: some sampled rows and columns of deform_basic (3x3,
    pad 1, stride 1) fall before 0, some in the last pixel's span, some past the end."""
    x, off = FIX["deform_basic_in0"], FIX["deform_basic_in1"]
    h, w = x.shape[2:]
    off = off.reshape(off.shape[0], 9, 2, h, w)
    i, j = np.divmod(np.arange(9), 3)
    rows = off[:, :, 0] + (i - 1)[:, None, None] + np.arange(h)[:, None]
    cols = off[:, :, 1] + (j - 1)[:, None, None] + np.arange(w)
    for pos, n in ((rows, h), (cols, w)):
        assert (pos < 0).any() and ((pos >= n - 1) & (pos < n)).any() and (pos >= n).any()


def test_zero_offsets_are_a_convolution():
    x, w, b = nd.array(randn(2, 4, 5, 6)), nd.array(randn(6, 2, 3, 2)), nd.array(randn(6))
    kw = dict(kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1), num_filter=6,
              num_group=2)
    ref = nd.Convolution(x, w, b, **kw).asnumpy()
    off = nd.zeros((2, 2 * 2 * 6) + ref.shape[2:])
    y = nd.contrib.DeformableConvolution(x, off, w, b, num_deformable_group=2, **kw)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-5, atol=1e-5)
    mask = nd.ones((2, 6) + ref.shape[2:]) * 0.5
    y = nd.contrib.ModulatedDeformableConvolution(x, off[:, :12], mask, w, b, **kw)
    np.testing.assert_allclose(y.asnumpy(), 0.5 * (ref - b.asnumpy()[:, None, None])
                               + b.asnumpy()[:, None, None], rtol=1e-5, atol=1e-5)


GEOM = dict(kernel=(2, 2), pad=(1, 0), stride=(1, 2), num_filter=2, num_group=1,
            num_deformable_group=2)
X, W, B = randn(1, 2, 3, 4, seed=1), randn(2, 2, 2, 2, seed=2), randn(2, seed=3)
OFF = uniform(-1.7, 1.7, 1, 2 * 2 * 4, 4, 2, seed=4)
MASK = uniform(-0.5, 1.5, 1, 2 * 4, 4, 2, seed=5)
TABLE = [
    OpCase("deformable", lambda x, o, w, b: nd.contrib.DeformableConvolution(
        x, o, w, b, **GEOM) ** 2, [X, OFF, W, B], None, jvp=False),
    OpCase("deformable_grouped", lambda x, o, w: nd.contrib.DeformableConvolution(
        x * x, o, w, kernel=(1, 2), num_filter=2, num_group=2, no_bias=True),
        [X, uniform(-1.7, 1.7, 1, 4, 3, 3, seed=6), randn(2, 1, 1, 2, seed=7)], None,
        jvp=False),
    OpCase("modulated", lambda x, o, m, w, b: nd.contrib.ModulatedDeformableConvolution(
        x, o, m, w, b, **GEOM) ** 2, [X, OFF, MASK, W, B], None, jvp=False),
]
test_table_forward, test_table_grad, test_table_second_order = op_tests(TABLE)


def test_bad_arguments():
    x, w = nd.ones((1, 2, 4, 4)), nd.ones((3, 2, 3, 3))
    with pytest.raises(MXNetError, match="offset must be"):
        nd.contrib.DeformableConvolution(x, nd.zeros((1, 9, 2, 2)), w, kernel=(3, 3),
                                         num_filter=3, no_bias=True)
    with pytest.raises(MXNetError, match="weight must be"):
        nd.contrib.DeformableConvolution(x, nd.zeros((1, 18, 2, 2)), nd.ones((3, 1, 3, 3)),
                                         kernel=(3, 3), num_filter=3, no_bias=True)
    with pytest.raises(MXNetError, match="num_deformable_group"):
        nd.contrib.DeformableConvolution(x, nd.zeros((1, 54, 2, 2)), w, kernel=(3, 3),
                                         num_filter=3, num_deformable_group=3, no_bias=True)
    with pytest.raises(MXNetError, match="bias is required"):
        nd.contrib.DeformableConvolution(x, nd.zeros((1, 18, 2, 2)), w, kernel=(3, 3),
                                         num_filter=3)
    with pytest.raises(MXNetError, match="layout"):
        nd.contrib.DeformableConvolution(x, nd.zeros((1, 18, 2, 2)), w, kernel=(3, 3),
                                         num_filter=3, no_bias=True, layout="NHWC")
    with pytest.raises(MXNetError, match="mask must be"):
        nd.contrib.ModulatedDeformableConvolution(x, nd.zeros((1, 18, 2, 2)),
                                                  nd.ones((1, 9, 3, 3)), w, kernel=(3, 3),
                                                  num_filter=3, no_bias=True)
    with pytest.raises(MXNetError, match="data must be"):
        nd.contrib.DeformableConvolution(nd.ones((2, 4, 4)), nd.zeros((1, 18, 2, 2)), w,
                                         kernel=(3, 3), num_filter=3, no_bias=True)
