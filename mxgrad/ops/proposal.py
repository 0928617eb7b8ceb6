"""Region-proposal operators of ``nd.contrib`` (MXNet 1.9's ``Proposal`` and
``MultiProposal``, Faster R-CNN's RPN layer).

A proposal op enumerates anchors (``len(ratios) * len(scales)`` per feature-map cell,
``feature_stride`` pixels apart), applies the predicted box deltas, clips the boxes to the
image, marks boxes smaller than ``rpn_min_size * im_info[2]`` (and cells beyond the image's
real size) with score -1, keeps the ``rpn_pre_nms_top_n`` best, and greedily suppresses
overlaps above ``threshold`` (pixel-inclusive boxes: width is ``x2 - x1 + 1``, MXNet's RPN
convention, unlike ``box_nms``). When fewer than ``rpn_post_nms_top_n`` boxes survive, the
kept ones are repeated cyclically, as MXNet does. The outputs are constants for autograd
(MXNet back-propagates zeros).

Examples
--------
>>> import mxgrad as mx
>>> cls = mx.nd.array([[[[0.9]], [[0.1]]]])       # (1, 2 * anchors, H, W): bg, then fg
>>> rois = mx.nd.contrib.Proposal(cls, mx.nd.zeros((1, 4, 1, 1)), mx.nd.array([[16, 16, 1]]),
...                               scales=(1,), ratios=(1,), feature_stride=16,
...                               rpn_post_nms_top_n=2, rpn_min_size=1)
>>> rois.asnumpy().tolist()
[[0.0, 0.0, 0.0, 15.0, 15.0], [0.0, 0.0, 0.0, 15.0, 15.0]]
"""
from __future__ import annotations

from typing import Any, List, Sequence, Union

import numpy as np

from .._check import as_real
from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from ._mxnet_op import mxnet_op

__all__ = ["Proposal", "MultiProposal"]

_f = np.float32


def _np(x: Any, op: str, arg: str) -> np.ndarray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}; wrap data "
                         f"with mx.nd.array(...) first")
    return np.asarray(x._data, dtype=_f)


def _anchors(stride: int, ratios: Sequence[float], scales: Sequence[float]) -> np.ndarray:
    """Base anchors (ratios outer, scales inner) centred on the first ``stride`` cell."""
    size = _f(stride * stride)
    ctr = _f(0.5 * (stride - 1))
    rows = []
    for r in ratios:
        for s in scales:
            w = _f(np.floor(np.sqrt(np.floor(size / _f(r))) + _f(0.5))) * _f(s)
            h = _f(np.floor(w / _f(s) * _f(r) + _f(0.5))) * _f(s)
            rows.append([ctr - _f(0.5) * (w - 1), ctr - _f(0.5) * (h - 1),
                         ctr + _f(0.5) * (w - 1), ctr + _f(0.5) * (h - 1)])
    return np.array(rows, _f)


def _nms_keep(d: np.ndarray, thresh: float, limit: int) -> List[int]:
    """Greedy NMS over score-sorted ``d`` (n, 4), pixel-inclusive areas; at most ``limit``."""
    area = (d[:, 2] - d[:, 0] + 1) * (d[:, 3] - d[:, 1] + 1)
    suppressed = np.zeros(len(d), bool)
    keep: List[int] = []
    for i in range(len(d)):
        if len(keep) >= limit:
            break
        if suppressed[i]:
            continue
        keep.append(i)
        j = np.arange(i + 1, len(d))
        w = np.maximum(_f(0), np.minimum(d[i, 2], d[j, 2]) - np.maximum(d[i, 0], d[j, 0]) + 1)
        h = np.maximum(_f(0), np.minimum(d[i, 3], d[j, 3]) - np.maximum(d[i, 1], d[j, 1]) + 1)
        inter = w * h
        suppressed[j[inter / (area[i] + area[j] - inter) > thresh]] = True
    return keep


def _one_image(fg: np.ndarray, deltas: np.ndarray, info: np.ndarray, base: np.ndarray,
               stride: int, pre: int, post: int, thresh: float, min_size: float,
               iou_loss: bool, op: str):
    a, h, w = fg.shape
    real_h, real_w = int(info[0] / stride), int(info[1] / stride)
    if real_h > h or real_w > w:
        raise ShapeError(f"{op}: im_info {info[:2].tolist()} needs a feature map of at least "
                         f"({real_h}, {real_w}) at feature_stride {stride}, got ({h}, {w})")
    # rows ordered (y, x, anchor), as MXNet
    sy, sx = np.meshgrid(np.arange(h, dtype=_f) * stride, np.arange(w, dtype=_f) * stride,
                         indexing="ij")
    shift = np.stack([sx, sy, sx, sy], -1)[:, :, None, :]
    boxes = (base[None, None] + shift).reshape(-1, 4)
    dl = deltas.reshape(a, 4, h, w).transpose(2, 3, 0, 1).reshape(-1, 4)
    if iou_loss:
        pred = boxes + dl
    else:
        bw = boxes[:, 2] - boxes[:, 0] + 1
        bh = boxes[:, 3] - boxes[:, 1] + 1
        cx, cy = boxes[:, 0] + _f(0.5) * (bw - 1), boxes[:, 1] + _f(0.5) * (bh - 1)
        pcx, pcy = dl[:, 0] * bw + cx, dl[:, 1] * bh + cy
        pw, ph = np.exp(dl[:, 2]) * bw, np.exp(dl[:, 3]) * bh
        pred = np.stack([pcx - _f(0.5) * (pw - 1), pcy - _f(0.5) * (ph - 1),
                         pcx + _f(0.5) * (pw - 1), pcy + _f(0.5) * (ph - 1)], -1)
    lim = np.array([info[1], info[0], info[1], info[0]], _f) - 1
    pred = np.maximum(np.minimum(pred, lim), _f(0)).astype(_f)
    score = fg.transpose(1, 2, 0).reshape(-1).copy()
    yy = np.repeat(np.arange(h), w * a)
    xx = np.tile(np.repeat(np.arange(w), a), h)
    score[(yy >= real_h) | (xx >= real_w)] = -1
    small = ((pred[:, 2] - pred[:, 0] + 1) < min_size) | ((pred[:, 3] - pred[:, 1] + 1) < min_size)
    half = _f(min_size / 2)
    pred[small] += np.array([-half, -half, half, half], _f)     # MXNet widens them too
    score[small] = -1
    order = np.argsort(-score, kind="stable")[:pre]
    dets, sc = pred[order], score[order]
    keep = _nms_keep(dets, thresh, min(post, pre))
    idx = np.array(keep)[np.arange(post) % len(keep)]
    return dets[idx], sc[idx]


def _proposals(cls_prob: NDArray, bbox_pred: NDArray, im_info: NDArray, op: str, one: bool,
               rpn_pre_nms_top_n: int, rpn_post_nms_top_n: int, threshold: float,
               rpn_min_size: int, scales: Sequence[float], ratios: Sequence[float],
               feature_stride: int, output_score: bool, iou_loss: bool
               ) -> Union[NDArray, List[NDArray]]:
    cls = _np(cls_prob, op, "cls_prob")
    deltas = _np(bbox_pred, op, "bbox_pred")
    info = _np(im_info, op, "im_info")
    scales, ratios = [float(v) for v in scales], [float(v) for v in ratios]
    if cls.ndim != 4 or cls.shape[1] % 2:
        raise ShapeError(f"{op}: cls_prob must be (N, 2 * anchors, H, W), got {cls.shape}")
    n, a2, h, w = cls.shape
    a = a2 // 2
    if one and n != 1:
        raise ShapeError(f"{op}: cls_prob holds {n} images; Proposal takes one, use "
                         f"contrib.MultiProposal for a batch")
    if a != len(scales) * len(ratios):
        raise ShapeError(f"{op}: cls_prob has {a} anchors per cell but scales x ratios gives "
                         f"{len(scales) * len(ratios)}")
    if deltas.shape != (n, 4 * a, h, w):
        raise ShapeError(f"{op}: bbox_pred must be {(n, 4 * a, h, w)}, got {deltas.shape}")
    if info.shape != (n, 3):
        raise ShapeError(f"{op}: im_info must be ({n}, 3) rows of (height, width, scale), "
                         f"got {info.shape}")
    post = int(rpn_post_nms_top_n)
    stride = int(feature_stride)
    if post < 1 or stride < 1:
        raise StateError(f"{op}: rpn_post_nms_top_n and feature_stride must be >= 1, got "
                         f"{post} and {stride}")
    count = a * h * w
    pre = int(rpn_pre_nms_top_n)
    pre = min(pre if pre > 0 else count, count)
    thresh = as_real(threshold, f"{op}: threshold")
    base = _anchors(stride, ratios, scales)
    rois = np.zeros((n * post, 5), _f)
    scores = np.zeros((n * post, 1), _f)
    for b in range(n):
        d, s = _one_image(cls[b, a:], deltas[b], info[b], base, stride, pre, post, thresh,
                          float(_f(rpn_min_size) * info[b, 2]), bool(iou_loss), op)
        rois[b * post:(b + 1) * post] = np.concatenate([np.full((post, 1), b, _f), d], 1)
        scores[b * post:(b + 1) * post, 0] = s
    if output_score:
        return [wrap(rois), wrap(scores)]
    return wrap(rois)


def Proposal(cls_prob: NDArray, bbox_pred: NDArray, im_info: NDArray,
             rpn_pre_nms_top_n: int = 6000, rpn_post_nms_top_n: int = 300,
             threshold: float = 0.7, rpn_min_size: int = 16,
             scales: Sequence[float] = (4.0, 8.0, 16.0, 32.0),
             ratios: Sequence[float] = (0.5, 1.0, 2.0), feature_stride: int = 16,
             output_score: bool = False, iou_loss: bool = False, **kwargs: Any
             ) -> Union[NDArray, List[NDArray]]:
    """RPN proposals for one image: ``(rpn_post_nms_top_n, 5)`` rows ``(0, x1, y1, x2, y2)``
    (and, with ``output_score``, their foreground scores ``(rpn_post_nms_top_n, 1)``).

    ``cls_prob`` is ``(1, 2 * A, H, W)`` (background probabilities, then foreground),
    ``bbox_pred`` ``(1, 4 * A, H, W)`` deltas ``(dx, dy, dw, dh)`` per anchor (with
    ``iou_loss``: offsets added to the corners), ``im_info`` ``(1, 3)`` rows of
    ``(height, width, scale)``. See the module docstring for the steps; no gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> rois, score = mx.nd.contrib.Proposal(
    ...     mx.nd.array([[[[0.2]], [[0.8]]]]), mx.nd.zeros((1, 4, 1, 1)),
    ...     mx.nd.array([[8, 8, 1]]), scales=(1,), ratios=(1,), feature_stride=8,
    ...     rpn_post_nms_top_n=1, rpn_min_size=1, output_score=True)
    >>> rois.asnumpy().tolist(), score.asnumpy().tolist()
    ([[0.0, 0.0, 0.0, 7.0, 7.0]], [[0.800000011920929]])
    """
    return _proposals(cls_prob, bbox_pred, im_info, "contrib.Proposal", True,
                      rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size, scales,
                      ratios, feature_stride, output_score, iou_loss)


def _score_outputs(kw):
    """The proposals, and their scores with ``output_score``."""
    return 2 if kw.get("output_score") else 1


mxnet_op("_contrib_Proposal", ("cls_prob", "bbox_pred", "im_info"), nd_name="contrib.Proposal",
         outputs=_score_outputs)


def MultiProposal(cls_prob: NDArray, bbox_pred: NDArray, im_info: NDArray,
                  rpn_pre_nms_top_n: int = 6000, rpn_post_nms_top_n: int = 300,
                  threshold: float = 0.7, rpn_min_size: int = 16,
                  scales: Sequence[float] = (4.0, 8.0, 16.0, 32.0),
                  ratios: Sequence[float] = (0.5, 1.0, 2.0), feature_stride: int = 16,
                  output_score: bool = False, iou_loss: bool = False, **kwargs: Any
                  ) -> Union[NDArray, List[NDArray]]:
    """``Proposal`` for a batch of N images: ``(N * rpn_post_nms_top_n, 5)`` rows
    ``(image index, x1, y1, x2, y2)``, image by image (scores ``(N * post, 1)`` with
    ``output_score``). No gradient.

    Examples
    --------
    >>> import mxgrad as mx
    >>> cls = mx.nd.array([[[[0.3]], [[0.7]]], [[[0.6]], [[0.4]]]])
    >>> rois = mx.nd.contrib.MultiProposal(cls, mx.nd.zeros((2, 4, 1, 1)),
    ...     mx.nd.array([[8, 8, 1], [8, 8, 1]]), scales=(1,), ratios=(1,), feature_stride=8,
    ...     rpn_post_nms_top_n=1, rpn_min_size=1)
    >>> rois[:, 0].asnumpy().tolist()
    [0.0, 1.0]
    """
    return _proposals(cls_prob, bbox_pred, im_info, "contrib.MultiProposal", False,
                      rpn_pre_nms_top_n, rpn_post_nms_top_n, threshold, rpn_min_size, scales,
                      ratios, feature_stride, output_score, iou_loss)


mxnet_op("_contrib_MultiProposal", ("cls_prob", "bbox_pred", "im_info"),
         nd_name="contrib.MultiProposal", outputs=_score_outputs)
