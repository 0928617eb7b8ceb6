"""contrib.Proposal / MultiProposal / SyncBatchNorm against MXNet 1.9.1 fixtures
(tools/make_proposal_fixtures.py writes tests/data/mxnet/proposal.npz; the cases here use the
same names and keyword arguments)."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "proposal.npz"))

PROPOSAL_CASES = [
    ("prop_small", "Proposal", dict(scales=(2, 4), ratios=(0.5, 1, 2), feature_stride=4,
     rpn_pre_nms_top_n=30, rpn_post_nms_top_n=10, threshold=0.6, rpn_min_size=2,
     output_score=True)),
    ("prop_repeat", "Proposal", dict(scales=(3,), ratios=(1, 2), feature_stride=4,
     rpn_pre_nms_top_n=8, rpn_post_nms_top_n=12, threshold=0.3, rpn_min_size=3,
     output_score=True)),
    ("prop_iou", "Proposal", dict(scales=(2,), ratios=(0.5, 1), feature_stride=4,
     rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=6, threshold=0.5, rpn_min_size=1,
     iou_loss=True, output_score=True)),
    ("prop_default", "Proposal", dict()),
    ("multi", "MultiProposal", dict(scales=(2, 4), ratios=(1, 2), feature_stride=4,
     rpn_pre_nms_top_n=20, rpn_post_nms_top_n=7, threshold=0.5, rpn_min_size=2,
     output_score=True)),
    ("multi_noscore", "MultiProposal", dict(scales=(2,), ratios=(1,), feature_stride=4,
     rpn_pre_nms_top_n=10, rpn_post_nms_top_n=4, threshold=0.7, rpn_min_size=1)),
]


@pytest.mark.parametrize("name,op,kw", PROPOSAL_CASES, ids=[c[0] for c in PROPOSAL_CASES])
def test_proposal_matches_mxnet(name, op, kw):
    ins = [mx.nd.array(FIX[f"{name}_in{i}"]) for i in range(3)]
    outs = getattr(mx.nd.contrib, op)(*ins, **kw)
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == (2 if kw.get("output_score") else 1)
    for j, o in enumerate(outs):
        want = FIX[f"{name}_out{j}"]
        assert o.shape == want.shape and o.dtype == np.float32
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-4)


def test_proposal_is_constant_for_autograd():
    name, op, kw = PROPOSAL_CASES[0]
    cls, bbox, info = [mx.nd.array(FIX[f"{name}_in{i}"]) for i in range(3)]
    cls.attach_grad(); bbox.attach_grad()
    with mx.autograd.record():
        rois, score = mx.nd.contrib.Proposal(cls, bbox, info, **kw)
        loss = (rois.sum() + score.sum()) * mx.nd.sum(cls) + mx.nd.sum(bbox)
    loss.backward()
    np.testing.assert_allclose(cls.grad.asnumpy(),
                               np.full(cls.shape, float((rois.sum() + score.sum()).asscalar())),
                               rtol=1e-5)
    np.testing.assert_array_equal(bbox.grad.asnumpy(), np.ones(bbox.shape, np.float32))


def test_proposal_refusals():
    cls = mx.nd.array(FIX["multi_in0"])
    bbox, info = mx.nd.array(FIX["multi_in1"]), mx.nd.array(FIX["multi_in2"])
    kw = dict(scales=(2, 4), ratios=(1, 2), feature_stride=4)
    with pytest.raises(MXNetError, match="MultiProposal"):
        mx.nd.contrib.Proposal(cls, bbox, info, **kw)          # two images
    with pytest.raises(ValueError, match="anchors per cell"):
        mx.nd.contrib.MultiProposal(cls, bbox, info, scales=(2,), ratios=(1,))
    with pytest.raises(ValueError, match="im_info"):
        mx.nd.contrib.MultiProposal(cls, bbox, info[:1], **kw)
    with pytest.raises(TypeError, match="cls_prob"):
        mx.nd.contrib.MultiProposal(FIX["multi_in0"], bbox, info, **kw)
