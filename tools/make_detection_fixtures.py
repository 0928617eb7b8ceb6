"""Write tests/data/mxnet/detection.npz: MultiBoxTarget, MultiBoxDetection and ROIPooling
(forward and gradient) computed by real MXNet 1.9.1 on seeded random inputs.

Needs MXNet (not run in CI):  /tmp/mxvenv/bin/python tools/make_detection_fixtures.py
tests/test_detection.py imports ``inputs`` from here to rebuild the same inputs and
compares mxgrad's results.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "detection.npz")
TARGET_KW = [{}, {"negative_mining_ratio": 3, "negative_mining_thresh": 0.5},
             {"overlap_threshold": 0.3}]
DETECT_KW = [{}, {"force_suppress": True, "nms_threshold": 0.3},
             {"threshold": 0.3, "nms_topk": 5}]


def inputs(seed):
    rng = np.random.RandomState(seed)
    a = 40
    c = rng.uniform(0.1, 0.9, (a, 2))
    wh = rng.uniform(0.05, 0.4, (a, 2))
    anchors = np.concatenate([c - wh / 2, c + wh / 2], 1)[None].astype(np.float32)
    lab = -np.ones((2, 3, 5), np.float32)
    for b in range(2):
        k = rng.randint(1, 4)
        gc = rng.uniform(0.2, 0.8, (k, 2))
        gwh = rng.uniform(0.1, 0.5, (k, 2))
        lab[b, :k, 0] = rng.randint(0, 3, k)
        lab[b, :k, 1:3] = gc - gwh / 2
        lab[b, :k, 3:5] = gc + gwh / 2
    pred = rng.standard_normal((2, 4, a)).astype(np.float32)
    prob = rng.dirichlet(np.ones(4), size=(2, a)).transpose(0, 2, 1).astype(np.float32)
    loc = (rng.standard_normal((2, a * 4)) * 0.5).astype(np.float32)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    rois = np.array([[0, 0, 0, 31, 31], [1, 4, 8, 20, 30], [0, 10, 2, 14, 29],
                     [1, 30, 30, 40, 40]], np.float32)
    return anchors, lab, pred, prob, loc, x, rois


def main():
    import mxnet as mx      # only here: the tests import inputs() from this file
    out = {}
    for seed in (0, 1):
        anchors, lab, pred, prob, loc, x, rois = inputs(seed)
        for i, kw in enumerate(TARGET_KW):
            res = mx.nd.contrib.MultiBoxTarget(mx.nd.array(anchors), mx.nd.array(lab),
                                               mx.nd.array(pred), **kw)
            for j, r in enumerate(res):
                out[f"target{seed}_{i}_{j}"] = r.asnumpy()
        for i, kw in enumerate(DETECT_KW):
            out[f"detect{seed}_{i}"] = mx.nd.contrib.MultiBoxDetection(
                mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors), **kw).asnumpy()
        xd = mx.nd.array(x)
        xd.attach_grad()
        with mx.autograd.record():
            y = mx.nd.ROIPooling(xd, mx.nd.array(rois), pooled_size=(3, 2), spatial_scale=0.25)
        y.backward(mx.nd.array(np.arange(y.size, dtype=np.float32).reshape(y.shape)))
        out[f"roi{seed}"] = y.asnumpy()
        out[f"roi_grad{seed}"] = xd.grad.asnumpy()
    np.savez_compressed(OUT, **out)
    print(f"{len(out)} arrays -> {os.path.normpath(OUT)} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
