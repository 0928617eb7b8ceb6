"""Write tests/data/mxnet/proposal.npz: MXNet 1.9.1's outputs of ``contrib.Proposal``,
``contrib.MultiProposal`` and ``contrib.SyncBatchNorm`` (with input gradients for a seeded
head gradient and the running statistics after backward) on seeded inputs.
tests/test_proposal_ops.py holds the same cases (names and keyword arguments).

Keys: ``<case>_in<i>`` (inputs), ``<case>_out<j>`` (outputs); SyncBatchNorm cases also
``<case>_head``, ``<case>_grad<i>`` (data, gamma, beta) and ``<case>_mm``/``<case>_mv``
(running mean/var afterwards).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_proposal_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "proposal.npz")


def _softmax_pairs(rs, n, a, h, w):
    """(n, 2a, h, w) probabilities: background in channels [0, a), foreground in [a, 2a)."""
    z = rs.randn(n, 2, a, h, w)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return p.reshape(n, 2 * a, h, w)


def proposal_cases(rs):
    """(name, op, kwargs, num_anchors, n, h, w, im_info rows)"""
    yield ("prop_small", "Proposal", dict(scales=(2, 4), ratios=(0.5, 1, 2), feature_stride=4,
           rpn_pre_nms_top_n=30, rpn_post_nms_top_n=10, threshold=0.6, rpn_min_size=2,
           output_score=True), 6, 1, 5, 5, [[18, 20, 1.0]])
    yield ("prop_repeat", "Proposal", dict(scales=(3,), ratios=(1, 2), feature_stride=4,
           rpn_pre_nms_top_n=8, rpn_post_nms_top_n=12, threshold=0.3, rpn_min_size=3,
           output_score=True), 2, 1, 4, 3, [[16, 12, 1.5]])
    yield ("prop_iou", "Proposal", dict(scales=(2,), ratios=(0.5, 1), feature_stride=4,
           rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=6, threshold=0.5, rpn_min_size=1,
           iou_loss=True, output_score=True), 2, 1, 3, 4, [[12, 16, 1.0]])
    yield ("prop_default", "Proposal", dict(), 12, 1, 3, 3, [[48, 40, 0.5]])
    yield ("multi", "MultiProposal", dict(scales=(2, 4), ratios=(1, 2), feature_stride=4,
           rpn_pre_nms_top_n=20, rpn_post_nms_top_n=7, threshold=0.5, rpn_min_size=2,
           output_score=True), 4, 2, 4, 5, [[16, 20, 1.0], [12, 17, 1.2]])
    yield ("multi_noscore", "MultiProposal", dict(scales=(2,), ratios=(1,), feature_stride=4,
           rpn_pre_nms_top_n=10, rpn_post_nms_top_n=4, threshold=0.7, rpn_min_size=1),
           1, 3, 3, 3, [[12, 12, 1.0], [8, 12, 1.0], [12, 5, 2.0]])


def sbn_cases():
    """(name, data shape, kwargs, recording)"""
    yield "sbn_train", (3, 2, 4), dict(fix_gamma=False, eps=1e-3, momentum=0.8), True
    yield "sbn_fixgamma_mv", (3, 2, 4), dict(output_mean_var=True, eps=1e-2), True
    yield "sbn_2d", (5, 3), dict(fix_gamma=False), True
    yield "sbn_4d", (2, 3, 2, 2), dict(fix_gamma=False, momentum=0.5), True
    yield "sbn_global", (3, 2, 4), dict(fix_gamma=False, use_global_stats=True), True
    yield "sbn_infer", (3, 2, 4), dict(fix_gamma=False), False


def main():
    rs = np.random.RandomState(26)
    res = {}
    for name, op, kw, a, n, h, w, info in proposal_cases(rs):
        cls = _softmax_pairs(rs, n, a, h, w).astype(np.float32)
        bbox = (rs.randn(n, 4 * a, h, w) * (1.0 if kw.get("iou_loss") else 0.3)) \
            .astype(np.float32)
        im_info = np.array(info, np.float32)
        outs = getattr(mx.nd.contrib, op)(mx.nd.array(cls), mx.nd.array(bbox),
                                          mx.nd.array(im_info), **kw)
        outs = outs if isinstance(outs, list) else [outs]
        for i, v in enumerate((cls, bbox, im_info)):
            res[f"{name}_in{i}"] = v
        for j, o in enumerate(outs):
            res[f"{name}_out{j}"] = o.asnumpy()
    for k, (name, shape, kw, rec) in enumerate(sbn_cases()):
        c = shape[1]
        ins = [rs.randn(*shape), rs.rand(c) + 0.5, rs.randn(c), rs.randn(c) * 0.2,
               rs.rand(c) + 0.5]
        ins = [v.astype(np.float32) for v in ins]
        head = rs.randn(*shape).astype(np.float32)
        x, g, b, mm, mv = [mx.nd.array(v) for v in ins]
        for v in (x, g, b):
            v.attach_grad()
        if rec:
            with mx.autograd.record():
                outs = mx.nd.contrib.SyncBatchNorm(x, g, b, mm, mv, key=f"k{k}", **kw)
                outs = outs if isinstance(outs, list) else [outs]
            outs[0].backward(mx.nd.array(head))
            for i, v in enumerate((x, g, b)):
                res[f"{name}_grad{i}"] = v.grad.asnumpy()
        else:
            outs = mx.nd.contrib.SyncBatchNorm(x, g, b, mm, mv, key=f"k{k}", **kw)
            outs = outs if isinstance(outs, list) else [outs]
        for i, v in enumerate(ins):
            res[f"{name}_in{i}"] = v
        res[f"{name}_head"] = head
        res[f"{name}_out0"] = outs[0].asnumpy()
        if kw.get("output_mean_var") and rec:
            res[f"{name}_out1"] = outs[1].asnumpy()
            res[f"{name}_out2"] = outs[2].asnumpy()
        res[f"{name}_mm"] = mm.asnumpy()
        res[f"{name}_mv"] = mv.asnumpy()
    tmp = OUT + ".tmp.npz"
    np.savez_compressed(tmp, **res)
    os.replace(tmp, OUT)
    print("wrote", OUT, len(res), "arrays")


if __name__ == "__main__":
    main()
