"""MultiBoxPrior/Target/Detection and ROIPooling against real MXNet 1.9.1's results
(tests/data/mxnet/detection.npz, written by tools/make_detection_fixtures.py)."""
import os
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tools"))
from make_detection_fixtures import DETECT_KW, TARGET_KW, inputs  # noqa: E402

REF = np.load(os.path.join(HERE, "data", "mxnet", "detection.npz"))


@pytest.mark.parametrize("seed", [0, 1])
def test_multibox_target_and_detection_match_mxnet(seed):
    anchors, lab, pred, prob, loc, _, _ = inputs(seed)
    for i, kw in enumerate(TARGET_KW):
        res = mx.nd.contrib.MultiBoxTarget(mx.nd.array(anchors), mx.nd.array(lab),
                                           mx.nd.array(pred), **kw)
        for j, r in enumerate(res):
            np.testing.assert_allclose(r.asnumpy(), REF[f"target{seed}_{i}_{j}"], rtol=1e-5,
                                       atol=1e-6, err_msg=f"{kw} output {j}")
    for i, kw in enumerate(DETECT_KW):
        det = mx.contrib.nd.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc),
                                              mx.nd.array(anchors), **kw)
        np.testing.assert_allclose(det.asnumpy(), REF[f"detect{seed}_{i}"], rtol=1e-5,
                                   atol=1e-6, err_msg=str(kw))


@pytest.mark.parametrize("seed", [0, 1])
def test_roi_pooling_and_its_gradient_match_mxnet(seed):
    *_, x, rois = inputs(seed)
    xd = mx.nd.array(x)
    xd.attach_grad()
    with mx.autograd.record():
        y = mx.nd.ROIPooling(xd, mx.nd.array(rois), pooled_size=(3, 2), spatial_scale=0.25)
    y.backward(mx.nd.array(np.arange(y.size, dtype=np.float32).reshape(y.shape)))
    np.testing.assert_allclose(y.asnumpy(), REF[f"roi{seed}"], rtol=1e-6)
    np.testing.assert_allclose(xd.grad.asnumpy(), REF[f"roi_grad{seed}"], rtol=1e-6)


def test_multibox_prior_layout():
    # per pixel: each size with the first ratio, then each further ratio with sizes[0]
    a = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 3, 2, 4)), sizes=[0.5, 0.25],
                                    ratios=[1, 4], steps=(0.5, 0.25), offsets=(0.5, 0.5))
    assert a.shape == (1, 2 * 4 * 3, 4)
    boxes = a.asnumpy()[0].reshape(2, 4, 3, 4)
    h, w = 2, 4
    cy, cx = 0.25, 0.125                          # pixel (0, 0): (0 + 0.5) * step
    half = [(0.5 * h / w / 2, 0.5 / 2), (0.25 * h / w / 2, 0.25 / 2),
            (0.5 * h / w * 2 / 2, 0.5 / 2 / 2)]
    for k, (hw, hh) in enumerate(half):
        np.testing.assert_allclose(boxes[0, 0, k], [cx - hw, cy - hh, cx + hw, cy + hh],
                                   rtol=1e-6)
    clipped = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 1, 1)), sizes=[2.0], clip=True)
    assert clipped.asnumpy().tolist() == [[[0.0, 0.0, 1.0, 1.0]]]


def test_detection_argument_errors():
    with pytest.raises(MXNetError, match="4-D"):
        mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((3, 2, 2)))
    with pytest.raises(MXNetError, match="label"):
        mx.nd.contrib.MultiBoxTarget(mx.nd.zeros((1, 2, 4)), mx.nd.zeros((1, 5)),
                                     mx.nd.zeros((1, 2, 2)))
    with pytest.raises(MXNetError, match="rois"):
        mx.nd.ROIPooling(mx.nd.zeros((1, 1, 4, 4)), mx.nd.zeros((2, 4)), (2, 2), 1.0)
