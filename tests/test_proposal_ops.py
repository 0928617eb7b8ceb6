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


SBN_CASES = [
    ("sbn_train", dict(fix_gamma=False, eps=1e-3, momentum=0.8), True),
    ("sbn_fixgamma_mv", dict(output_mean_var=True, eps=1e-2), True),
    ("sbn_2d", dict(fix_gamma=False), True),
    ("sbn_4d", dict(fix_gamma=False, momentum=0.5), True),
    ("sbn_global", dict(fix_gamma=False, use_global_stats=True), True),
    ("sbn_infer", dict(fix_gamma=False), False),
]


@pytest.mark.parametrize("name,kw,rec", SBN_CASES, ids=[c[0] for c in SBN_CASES])
def test_sync_batch_norm_matches_mxnet(name, kw, rec):
    x, g, b, mm, mv = [mx.nd.array(FIX[f"{name}_in{i}"]) for i in range(5)]
    for v in (x, g, b):
        v.attach_grad()
    if rec:
        with mx.autograd.record():
            outs = mx.nd.contrib.SyncBatchNorm(x, g, b, mm, mv, key=name, **kw)
            outs = outs if isinstance(outs, list) else [outs]
        outs[0].backward(mx.nd.array(FIX[f"{name}_head"]))
        for i, v in enumerate((x, g, b)):
            np.testing.assert_allclose(v.grad.asnumpy(), FIX[f"{name}_grad{i}"], rtol=1e-4,
                                       atol=1e-5)
    else:
        outs = mx.nd.contrib.SyncBatchNorm(x, g, b, mm, mv, key=name, **kw)
        outs = outs if isinstance(outs, list) else [outs]
    np.testing.assert_allclose(outs[0].asnumpy(), FIX[f"{name}_out0"], rtol=1e-4, atol=1e-5)
    if kw.get("output_mean_var"):
        for j in (1, 2):
            np.testing.assert_allclose(outs[j].asnumpy(), FIX[f"{name}_out{j}"], rtol=1e-5,
                                       atol=1e-6)
    np.testing.assert_allclose(mm.asnumpy(), FIX[f"{name}_mm"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mv.asnumpy(), FIX[f"{name}_mv"], rtol=1e-5, atol=1e-6)


def test_sync_batch_norm_gradient_central_differences():
    rs = np.random.RandomState(3)
    xs, gs, bs = rs.randn(4, 3, 2), rs.rand(3) + 0.5, rs.randn(3)
    head = rs.randn(4, 3, 2)

    def loss(xv, gv, bv):
        with mx.autograd.train_mode():
            y = mx.nd.contrib.SyncBatchNorm(
                mx.nd.array(xv, dtype="float64"), mx.nd.array(gv, dtype="float64"),
                mx.nd.array(bv, dtype="float64"), mx.nd.zeros(3, dtype="float64"),
                mx.nd.ones(3, dtype="float64"), fix_gamma=False, key="cd", ndev=2)
        return float((y.asnumpy() * head).sum())

    x, g, b = (mx.nd.array(v, dtype="float64") for v in (xs, gs, bs))
    for v in (x, g, b):
        v.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.SyncBatchNorm(x, g, b, mx.nd.zeros(3, dtype="float64"),
                                        mx.nd.ones(3, dtype="float64"), fix_gamma=False,
                                        key="cd", ndev=2)
    y.backward(mx.nd.array(head, dtype="float64"))
    args = [xs, gs, bs]
    for k, v in enumerate((x, g, b)):
        num = np.zeros_like(args[k])
        for idx in np.ndindex(*args[k].shape):
            hi = [a.copy() for a in args]
            lo = [a.copy() for a in args]
            hi[k][idx] += 1e-6
            lo[k][idx] -= 1e-6
            num[idx] = (loss(*hi) - loss(*lo)) / 2e-6
        np.testing.assert_allclose(v.grad.asnumpy(), num, rtol=1e-5, atol=1e-7)


def test_sync_batch_norm_refusals():
    args = [mx.nd.ones((2, 2)), mx.nd.ones(2), mx.nd.zeros(2), mx.nd.zeros(2), mx.nd.ones(2)]
    with pytest.raises(ValueError, match="'key' is required"):
        mx.nd.contrib.SyncBatchNorm(*args)
    with pytest.raises(ValueError, match="ndev"):
        mx.nd.contrib.SyncBatchNorm(*args, key="k", ndev=0)
    with pytest.raises(TypeError, match="data"):
        mx.nd.contrib.SyncBatchNorm(np.ones((2, 2)), *args[1:], key="k")
