"""Operators added for MXNet programs (issue 26): im2col/col2im, contrib box operators,
BilinearResize2D, nd.image.* and GridGenerator/BilinearSampler/SpatialTransformer. Outputs and gradients equal MXNet 1.9.1's (tests/data/mxnet/ops26.npz by
tools/make_op26_fixtures.py, same case names and arguments); gradients also against float64
central differences, first and second order (the op table below)."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import MXNetError
from opcheck import OpCase, op_tests, randn, uniform, check_op_fixture

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "ops26.npz"))

CASES = {
    "im2col_2d": ("im2col", dict(kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1))),
    "col2im_2d": ("col2im", dict(output_size=(6, 7), kernel=(3, 2), stride=(2, 1),
                                 dilate=(1, 2), pad=(1, 1))),
    "box_iou": ("contrib.box_iou", {}),
    "box_iou_center": ("contrib.box_iou", dict(format="center")),
    "box_nms": ("contrib.box_nms", dict(overlap_thresh=0.3)),
    "box_nms_ids": ("contrib.box_nms", dict(overlap_thresh=0.2, id_index=0, valid_thresh=0.1,
                                            topk=8, background_id=2)),
    "box_nms_force_center": ("contrib.box_nms", dict(overlap_thresh=0.2, id_index=0,
                                                     force_suppress=True,
                                                     out_format="center")),
    "box_encode": ("contrib.box_encode", {}),
    "box_decode": ("contrib.box_decode", dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2,
                                              format="corner")),
    "box_decode_clip": ("contrib.box_decode", dict(clip=1.5)),
    "bipartite": ("contrib.bipartite_matching", dict(threshold=0.2)),
    "bipartite_asc_topk": ("contrib.bipartite_matching", dict(threshold=0.8, is_ascend=True,
                                                              topk=1)),
    "resize_up": ("contrib.BilinearResize2D", dict(height=8, width=11)),
    "resize_down_noalign": ("contrib.BilinearResize2D", dict(height=3, width=4,
                                                             align_corners=False)),
    "resize_scale": ("contrib.BilinearResize2D", dict(scale_height=1.6, scale_width=0.5)),
    "resize_odd_scale": ("contrib.BilinearResize2D", dict(mode="odd_scale", scale_height=2.0,
                                                          scale_width=2.0)),
    "resize_to_even_up": ("contrib.BilinearResize2D", dict(mode="to_even_up")),
    "image_to_tensor": ("image.to_tensor", {}),
    "image_to_tensor_batch": ("image.to_tensor", {}),
    "image_normalize": ("image.normalize", dict(mean=(0.1, 0.2, 0.3), std=(0.5, 1.0, 2.0))),
    "image_flip_left_right": ("image.flip_left_right", {}),
    "image_flip_top_bottom": ("image.flip_top_bottom", {}),
    "image_crop": ("image.crop", dict(x=1, y=2, width=3, height=2)),
    "image_adjust_lighting": ("image.adjust_lighting", dict(alpha=(0.1, -0.2, 0.3))),
    "image_resize": ("image.resize", dict(size=(5, 4))),
    "grid_affine": ("GridGenerator", dict(transform_type="affine", target_shape=(4, 5))),
    "grid_warp": ("GridGenerator", dict(transform_type="warp")),
    "bilinear_sampler": ("BilinearSampler", {}),
    "spatial_transformer": ("SpatialTransformer", dict(target_shape=(4, 3),
                                                       transform_type="affine",
                                                       sampler_type="bilinear")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    op, kw = CASES[name]
    check_op_fixture(FIX, name, op, kw, rtol=1e-5, atol=1e-5)


def _ref_im2col(x, k, s, d, p):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            out[:, :, i, j] = xp[:, :, i * d[0]:i * d[0] + (oh - 1) * s[0] + 1:s[0],
                                 j * d[1]:j * d[1] + (ow - 1) * s[1] + 1:s[1]]
    return out.reshape(n, c * k[0] * k[1], oh * ow)


GEOM = dict(kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 0))
X = randn(2, 2, 5, 6, seed=3)
TABLE = [
    OpCase("im2col", lambda x: nd.im2col(x, **GEOM), [X],
           lambda x: _ref_im2col(x, (2, 3), (2, 1), (1, 2), (1, 0))),
    OpCase("im2col_squared", lambda x: nd.im2col(x * x, **GEOM) ** 2, [X],
           lambda x: _ref_im2col(x * x, (2, 3), (2, 1), (1, 2), (1, 0)) ** 2),
    OpCase("col2im_squared", lambda c: nd.col2im(c * c, output_size=(5, 6), **GEOM), [
        randn(2, 12, 6, seed=4)], None),
    OpCase("im2col_3d", lambda x: nd.im2col(x, kernel=(2, 2, 2), pad=(1, 0, 1)) ** 2,
           [randn(1, 2, 3, 3, 3, seed=5)], None),
    OpCase("resize_up_squared", lambda x: nd.contrib.BilinearResize2D(x * x, height=5, width=4),
           [randn(1, 2, 3, 3, seed=6)], None),
    OpCase("resize_noalign", lambda x: nd.contrib.BilinearResize2D(
        x, height=2, width=5, align_corners=False) ** 2, [randn(2, 1, 4, 3, seed=7)], None),
    OpCase("image_flip_crop_squared", lambda x: nd.image.crop(
        nd.image.flip_left_right(nd.image.flip_top_bottom(x)), 1, 0, 2, 2) ** 2,
        [randn(3, 4, 2, seed=8)], lambda x: x[::-1, ::-1][0:2, 1:3] ** 2),
    OpCase("image_normalize", lambda x: nd.image.normalize(x * x, mean=(0.1, 0.2),
                                                           std=(0.5, 2.0)),
           [randn(2, 3, 2, seed=9)],
           lambda x: (x * x - np.array([0.1, 0.2])[:, None, None])
           / np.array([0.5, 2.0])[:, None, None]),
    OpCase("bilinear_sampler", lambda x, g: nd.BilinearSampler(x, g) ** 2,
           [randn(1, 2, 4, 5, seed=10), uniform(-1.2, 1.2, 1, 2, 3, 3, seed=11)], None),
    OpCase("spatial_transformer", lambda x, t: nd.SpatialTransformer(
        x * x, t, target_shape=(3, 4)), [randn(1, 1, 5, 4, seed=12),
                                         [[0.83, 0.11, 0.0713, -0.1309, 0.91, 0.1731]]], None),
    OpCase("grid_warp", lambda f: nd.GridGenerator(f * f, transform_type="warp"),
           [randn(1, 2, 3, 3, seed=13)], None),
    OpCase("box_nms_rows", lambda x: nd.contrib.box_nms(x * 1.0, overlap_thresh=0.3) ** 2,
           [FIX["box_nms_in0"][:1].astype(np.float64)], None, jvp=False),
]
test_table_forward, test_table_grad, test_table_second_order = op_tests(TABLE)


def test_im2col_col2im_are_adjoint():
    rng = np.random.default_rng(0)
    x, c = rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(2, 3 * 4, 16))
    geom = dict(kernel=(2, 2), stride=(2, 1), pad=(1, 0))
    lhs = (nd.im2col(nd.array(x, dtype="float64"), **geom).asnumpy() * c).sum()
    rhs = (x * nd.col2im(nd.array(c, dtype="float64"), output_size=(6, 5), **geom).asnumpy()).sum()
    assert abs(lhs - rhs) < 1e-9


def test_bad_arguments():
    with pytest.raises(MXNetError, match="kernel"):
        nd.im2col(nd.ones((1, 1, 2, 2)), kernel=(3, 3))
    with pytest.raises(MXNetError, match="col2im"):
        nd.col2im(nd.ones((1, 4, 5)), output_size=(3, 3), kernel=(2, 2))
    with pytest.raises(MXNetError, match="mode"):
        nd.contrib.BilinearResize2D(nd.ones((1, 1, 2, 2)), mode="nearest")
    with pytest.raises(MXNetError, match="score_index"):
        nd.contrib.box_nms(nd.ones((3, 6)), score_index=3)
    with pytest.raises(MXNetError, match="corner"):
        nd.contrib.box_iou(nd.ones((1, 4)), nd.ones((1, 4)), format="xywh")


def _hawkes_inputs():
    lags = nd.array([[6, 7, 8, 9, 3, 2, 5, 1, 7], [1, 2, 3, 4, 2, 1, 2, 1, 4]])
    marks = nd.array([[0, 0, 0, 1, 0, 0, 1, 2, 0], [1, 2, 0, 0, 0, 2, 2, 1, 0]], dtype="int32")
    return lags, marks, nd.array([9, 9]), nd.zeros((2, 3)), nd.ones((2,)) * 100.0


def test_hawkesll_values_and_gradients_are_mxnets():
    """MXNet 1.9.1's own expected numbers (its test_contrib_hawkesll)."""
    lags, marks, vlen, states, tmax = _hawkes_inputs()
    mu, alpha, beta = nd.array([1.5, 2.0, 3.0]), nd.array([0.2, 0.3, 0.4]), nd.array([2.0] * 3)
    for v in (mu, alpha, beta):
        v.attach_grad()
    with autograd.record():
        ll, _ = nd.contrib.hawkesll(mu.tile((2, 1)), alpha, beta, states, lags, marks, vlen,
                                    tmax)
    ll.backward()
    np.testing.assert_allclose(mu.grad.asnumpy(), [-193.33987481, -198.0, -198.66828681],
                               rtol=1e-5)
    np.testing.assert_allclose(alpha.grad.asnumpy(), [-9.95093892, -4.0, -3.98784892],
                               rtol=1e-5)
    np.testing.assert_allclose(beta.grad.asnumpy(),
                               [-1.49052169e-02, -5.87469511e-09, -7.29065224e-03],
                               rtol=1e-3, atol=1e-8)
    marks2 = nd.array([[0, 1, 2, 1, 0, 2, 1, 0, 2], [1, 2, 0, 0, 0, 2, 2, 1, 0]], dtype="int32")
    ll2, _ = nd.contrib.hawkesll(nd.array([1.5, 2.0, 3.0]).tile((2, 1)), alpha, beta, states,
                                 lags, marks2, nd.array([7, 9]), tmax)
    np.testing.assert_allclose(ll2.asnumpy(), [-647.01240372, -646.28617272], rtol=1e-6)


def test_hawkesll_gradient_second_order():
    lags, marks, vlen, states, tmax = _hawkes_inputs()
    f64 = dict(dtype="float64")

    def f(mu, alpha, beta):
        ll, st = nd.contrib.hawkesll(mu, alpha, beta, states.astype("float64"),
                                     lags.astype("float64"), marks, vlen, tmax * 0.6)
        return ll.sum() + st.sum()
    from mxgrad.test_utils import check_numeric_gradient, check_second_order
    args = [nd.array([[1.5, 2.0, 3.0]] * 2, **f64), nd.array([0.2, 0.3, 0.4], **f64),
            nd.array([0.7, 1.1, 0.9], **f64)]
    assert check_numeric_gradient(f, args)
    assert check_second_order(f, args)
