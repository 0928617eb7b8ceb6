"""Object-detection operators of MXNet 1.9.1: ``contrib.MultiBoxPrior``,
``contrib.MultiBoxTarget``, ``contrib.MultiBoxDetection`` (SSD's anchors, training targets
and decoding with non-maximum suppression) and ``ROIPooling`` (Fast R-CNN).

Boxes are ``(xmin, ymin, xmax, ymax)``, relative to the image (0..1) for the MultiBox ops.
The MultiBox ops compute data, not differentiable functions (MXNet gives them no
gradient); ``ROIPooling`` passes its gradient to the element each output took its maximum
from, as MXNet does.

Examples
--------
>>> import mxgrad as mx
>>> anchors = mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 3, 2, 2)), sizes=[0.5],
...                                       ratios=[1, 2])
>>> anchors.shape
(1, 8, 4)
>>> anchors[0, 0].asnumpy().tolist()
[0.0, 0.0, 0.5, 0.5]
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .._check import as_real
from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from ._core import call, defop
from ._mxnet_op import mxnet_op

__all__ = ["MultiBoxPrior", "MultiBoxTarget", "MultiBoxDetection", "ROIPooling"]


def _np(x, what: str, op: str) -> np.ndarray:
    if isinstance(x, NDArray):
        return x._data
    raise DTypeError(f"{op}: {what} must be an NDArray, got {type(x).__name__}")


def _floats(v, n: Optional[int], what: str, op: str):
    vals = [v] if isinstance(v, (int, float)) else list(v)
    if n is not None and len(vals) != n:
        raise StateError(f"{op}: {what} needs {n} values, got {vals}")
    return [float(x) for x in vals]


# ------------------------------------------------------------------ anchors
def MultiBoxPrior(data: NDArray, sizes: Sequence[float] = (1.0,),
                  ratios: Sequence[float] = (1.0,), clip: bool = False,
                  steps: Sequence[float] = (-1.0, -1.0), offsets: Sequence[float] = (0.5, 0.5),
                  out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Anchor boxes centred on every pixel of ``data``'s ``(H, W)`` feature map: per pixel,
    one box per size (with the first ratio) and one per further ratio (with the first
    size), ``len(sizes) + len(ratios) - 1`` in all. Shape ``(1, H*W*that, 4)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((1, 1, 4, 4)), sizes=[0.5, 0.25]).shape
    (1, 32, 4)
    """
    x = _np(data, "data", "MultiBoxPrior")
    if x.ndim != 4:
        raise ShapeError(f"MultiBoxPrior: data must be 4-D (N, C, H, W), got {x.shape}")
    sizes = _floats(sizes, None, "sizes", "MultiBoxPrior")
    ratios = _floats(ratios, None, "ratios", "MultiBoxPrior")
    steps = _floats(steps, 2, "steps", "MultiBoxPrior")
    offsets = _floats(offsets, 2, "offsets", "MultiBoxPrior")
    if not sizes or not ratios or min(sizes) <= 0 or min(ratios) <= 0:
        raise StateError(f"MultiBoxPrior: sizes and ratios must be positive, got {sizes}, "
                         f"{ratios}")
    h, w = x.shape[2], x.shape[3]
    step_y = steps[0] if steps[0] > 0 else 1.0 / h
    step_x = steps[1] if steps[1] > 0 else 1.0 / w
    cy = (np.arange(h, dtype=np.float64) + offsets[0]) * step_y
    cx = (np.arange(w, dtype=np.float64) + offsets[1]) * step_x
    shapes = [(s, np.sqrt(ratios[0])) for s in sizes] + \
             [(sizes[0], np.sqrt(r)) for r in ratios[1:]]
    half = np.array([(s * h / w * r / 2, s / r / 2) for s, r in shapes])      # (A, 2)
    centers = np.stack(np.meshgrid(cx, cy), axis=-1).reshape(-1, 1, 2)        # (HW, 1, 2)
    boxes = np.concatenate([centers - half, centers + half], axis=-1).reshape(1, -1, 4)
    if clip:
        boxes = np.clip(boxes, 0.0, 1.0)
    return _finish(wrap(boxes.astype(x.dtype)), out)


# ------------------------------------------------------------------ training targets
def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection over union of every box of ``a`` (n, 4) with every box of ``b`` (m, 4)."""
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(rb - lt, 0, None), axis=-1)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=-1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=-1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _encode(anchors: np.ndarray, boxes: np.ndarray, var) -> np.ndarray:
    aw, ah = anchors[:, 2] - anchors[:, 0], anchors[:, 3] - anchors[:, 1]
    ax, ay = (anchors[:, 0] + anchors[:, 2]) / 2, (anchors[:, 1] + anchors[:, 3]) / 2
    gw, gh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    gx, gy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    return np.stack([(gx - ax) / aw / var[0], (gy - ay) / ah / var[1],
                     np.log(gw / aw) / var[2], np.log(gh / ah) / var[3]], axis=-1)


def MultiBoxTarget(anchor: NDArray, label: NDArray, cls_pred: NDArray,
                   overlap_threshold: float = 0.5, ignore_label: float = -1.0,
                   negative_mining_ratio: float = -1.0, negative_mining_thresh: float = 0.5,
                   minimum_negative_samples: int = 0,
                   variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
                   out: Optional[NDArray] = None, name: Optional[str] = None):
    """SSD's training targets: ``[loc_target (N, A*4), loc_mask (N, A*4), cls_target
    (N, A)]`` for anchors ``(1, A, 4)``, labels ``(N, M, 5)`` (class, box; rows of -1 pad)
    and class predictions ``(N, classes, A)`` (read for hard negative mining).

    Each ground-truth box first takes the free anchor it overlaps most (greedily, best pair
    first); then every other anchor whose best overlap exceeds ``overlap_threshold`` is
    positive too. Positives get class ``label + 1`` and their box offsets (scaled by
    ``variances``); with ``negative_mining_ratio > 0`` only the ``ratio * positives``
    anchors with the lowest background probability among those overlapping less than
    ``negative_mining_thresh`` are negatives (class 0), the rest ``ignore_label``;
    otherwise every other anchor is a negative.

    Examples
    --------
    >>> import mxgrad as mx
    >>> anchors = mx.nd.array([[[0, 0, .5, .5], [.5, .5, 1, 1]]])
    >>> labels = mx.nd.array([[[2, .5, .5, 1, 1]]])
    >>> loc, mask, cls = mx.nd.contrib.MultiBoxTarget(anchors, labels, mx.nd.zeros((1, 3, 2)))
    >>> cls.asnumpy().tolist(), mask.asnumpy().tolist()
    ([[0.0, 3.0]], [[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]])
    """
    op = "MultiBoxTarget"
    anc = _np(anchor, "anchor", op).reshape(-1, 4).astype(np.float64)
    lab = _np(label, "label", op)
    preds = _np(cls_pred, "cls_pred", op)
    if lab.ndim != 3 or lab.shape[2] < 5:
        raise ShapeError(f"{op}: label must be (N, M, 5), got {lab.shape}")
    n, num_anchors = lab.shape[0], anc.shape[0]
    if preds.ndim != 3 or preds.shape[0] != n or preds.shape[2] != num_anchors:
        raise ShapeError(f"{op}: cls_pred must be (N, classes, {num_anchors}), got "
                         f"{preds.shape}")
    var = _floats(variances, 4, "variances", op)
    dt = preds.dtype
    loc_t = np.zeros((n, num_anchors, 4), dt)
    loc_m = np.zeros((n, num_anchors, 4), dt)
    cls_t = np.full((n, num_anchors), ignore_label, dt)
    for b in range(n):
        rows = lab[b].astype(np.float64)
        valid = 0
        while valid < rows.shape[0] and rows[valid, 0] != -1:
            valid += 1
        if valid == 0:
            continue
        gts = rows[:valid]
        iou = _iou(anc, gts[:, 1:5])                              # (A, G)
        match = np.full(num_anchors, -1)
        best_iou = np.full(num_anchors, -1.0)
        flags = np.full(num_anchors, -1)
        work = iou.copy()
        for _ in range(valid):                                    # greedy bipartite
            j, k = np.unravel_index(np.argmax(work), work.shape)
            if work[j, k] <= 1e-6:
                break
            match[j], best_iou[j], flags[j] = k, work[j, k], 1
            work[j, :] = -1.0
            work[:, k] = -1.0
        num_pos = int((flags == 1).sum())
        rest = flags != 1
        best_k = np.argmax(iou, axis=1)
        best_v = iou[np.arange(num_anchors), best_k]
        if overlap_threshold > 0:
            match[rest], best_iou[rest] = best_k[rest], best_v[rest]
            extra = rest & (best_v > overlap_threshold)
            flags[extra] = 1
            num_pos += int(extra.sum())
        if negative_mining_ratio > 0:
            num_neg = min(int(num_pos * negative_mining_ratio), num_anchors - num_pos)
            if num_neg > 0:
                unset = best_iou < 0
                best_iou[unset] = best_v[unset]
                cand = np.nonzero((flags == -1) & (best_iou < negative_mining_thresh))[0]
                logits = preds[b][:, cand].astype(np.float64)
                e = np.exp(logits - logits.max(axis=0))
                background = e[0] / e.sum(axis=0)
                order = cand[np.argsort(background, kind="stable")]
                flags[order[:num_neg]] = 0
        else:
            flags[flags != 1] = 0
        pos = flags == 1
        cls_t[b, pos] = gts[match[pos], 0] + 1
        loc_m[b, pos] = 1
        loc_t[b, pos] = _encode(anc[pos], gts[match[pos], 1:5], var)
        cls_t[b, flags == 0] = 0
    return [wrap(loc_t.reshape(n, -1)), wrap(loc_m.reshape(n, -1)), wrap(cls_t)]


mxnet_op("_contrib_MultiBoxTarget", ("anchor", "label", "cls_pred"),
         nd_name="contrib.MultiBoxTarget", outputs=3)


# ------------------------------------------------------------------ decoding
def MultiBoxDetection(cls_prob: NDArray, loc_pred: NDArray, anchor: NDArray, clip: bool = True,
                      threshold: float = 0.01, background_id: int = 0,
                      nms_threshold: float = 0.5, force_suppress: bool = False,
                      variances: Sequence[float] = (0.1, 0.1, 0.2, 0.2), nms_topk: int = -1,
                      out: Optional[NDArray] = None, name: Optional[str] = None) -> NDArray:
    """Decode SSD predictions: per image ``(A, 6)`` rows ``[class, score, xmin, ymin, xmax,
    ymax]``, the detections by descending score; a row whose class is -1 is dropped
    (suppressed by non-maximum suppression at ``nms_threshold``, same class only unless
    ``force_suppress``), and rows of all -1 follow (background or below ``threshold``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> anchors = mx.nd.array([[[.1, .1, .5, .5], [.12, .1, .52, .5]]])
    >>> prob = mx.nd.array([[[.1, .2], [.9, .8]]])              # background, class 0
    >>> det = mx.nd.contrib.MultiBoxDetection(prob, mx.nd.zeros((1, 8)), anchors)
    >>> det[0, :, 0].asnumpy().tolist()          # the overlapping second box: suppressed
    [0.0, -1.0]
    """
    op = "MultiBoxDetection"
    prob = _np(cls_prob, "cls_prob", op)
    loc = _np(loc_pred, "loc_pred", op)
    anc = _np(anchor, "anchor", op).reshape(-1, 4).astype(np.float64)
    if prob.ndim != 3 or prob.shape[2] != anc.shape[0]:
        raise ShapeError(f"{op}: cls_prob must be (N, classes, {anc.shape[0]}), got "
                         f"{prob.shape}")
    n, num_classes, num_anchors = prob.shape
    if loc.shape != (n, num_anchors * 4):
        raise ShapeError(f"{op}: loc_pred must be ({n}, {num_anchors * 4}), got {loc.shape}")
    var = _floats(variances, 4, "variances", op)
    nms_threshold = as_real(nms_threshold, f"{op}: nms_threshold")
    result = np.full((n, num_anchors, 6), -1.0, prob.dtype)
    aw, ah = anc[:, 2] - anc[:, 0], anc[:, 3] - anc[:, 1]
    ax, ay = (anc[:, 0] + anc[:, 2]) / 2, (anc[:, 1] + anc[:, 3]) / 2
    for b in range(n):
        p = prob[b]
        fg = p[1:] if num_classes > 1 else np.zeros((0, num_anchors), p.dtype)
        cid = np.argmax(fg, axis=0) + 1 if num_classes > 1 else np.zeros(num_anchors, int)
        score = fg[cid - 1, np.arange(num_anchors)] if num_classes > 1 \
            else np.full(num_anchors, -1.0)
        cid = np.where(score < threshold, 0, cid)
        d = loc[b].reshape(-1, 4).astype(np.float64)
        ox, oy = d[:, 0] * var[0] * aw + ax, d[:, 1] * var[1] * ah + ay
        ow, oh = np.exp(d[:, 2] * var[2]) * aw / 2, np.exp(d[:, 3] * var[3]) * ah / 2
        boxes = np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
        if clip:
            boxes = np.clip(boxes, 0.0, 1.0)
        rows = np.concatenate([(cid - 1)[:, None], score[:, None], boxes], axis=1)
        rows = rows[rows[:, 0] >= 0]
        if len(rows) == 0:
            continue
        if not 0 < nms_threshold <= 1:
            result[b, :len(rows)] = rows
            continue
        keep_n = len(rows) if nms_topk <= 0 else min(nms_topk, len(rows))
        ranked = rows[np.argsort(-rows[:, 1], kind="stable")]
        rows = rows.copy()
        rows[keep_n:, 0] = -1         # past nms_topk: dropped (MXNet leaves them unsorted)
        rows[:keep_n] = ranked[:keep_n]
        for i in range(keep_n):
            if rows[i, 0] < 0:
                continue
            later = np.arange(i + 1, keep_n)
            later = later[rows[later, 0] >= 0]
            if not force_suppress:
                later = later[rows[later, 0] == rows[i, 0]]
            if len(later):
                ious = _iou(rows[i:i + 1, 2:], rows[later, 2:])[0]
                rows[later[ious >= nms_threshold], 0] = -1
        result[b, :len(rows)] = rows
    return _finish(wrap(result), out)


# ------------------------------------------------------------------ ROI pooling
def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _roi_windows(rois, pooled, scale, height, width):
    """Per ROI and output cell, the (batch, h0, h1, w0, w1) window it takes the max of."""
    ph, pw = pooled
    out = []
    for r in rois:
        b = int(r[0])
        x0, y0, x1, y1 = (int(v) for v in _round_half_away(np.asarray(r[1:5]) * scale))
        rh, rw = max(y1 - y0 + 1, 1), max(x1 - x0 + 1, 1)
        bh, bw = rh / ph, rw / pw
        cells = []
        for i in range(ph):
            h0 = min(max(int(np.floor(i * bh)) + y0, 0), height)
            h1 = min(max(int(np.ceil((i + 1) * bh)) + y0, 0), height)
            for j in range(pw):
                w0 = min(max(int(np.floor(j * bw)) + x0, 0), width)
                w1 = min(max(int(np.ceil((j + 1) * bw)) + x0, 0), width)
                cells.append((b, h0, h1, w0, w1))
        out.append(cells)
    return out


def _roi_fwd(x, rois, pooled_size, spatial_scale):
    n, c, h, w = x.shape
    ph, pw = pooled_size
    y = np.zeros((rois.shape[0], c, ph, pw), x.dtype)
    for r, cells in enumerate(_roi_windows(rois, pooled_size, spatial_scale, h, w)):
        for k, (b, h0, h1, w0, w1) in enumerate(cells):
            if 0 <= b < n and h1 > h0 and w1 > w0:
                y[r, :, k // pw, k % pw] = x[b, :, h0:h1, w0:w1].max(axis=(1, 2))
    return y


def _roi_grad(g, y, x, rois, pooled_size, spatial_scale):
    """The output gradient of each cell goes to the element it took its maximum from."""
    gd = g._data if isinstance(g, NDArray) else g
    xd = x._data if isinstance(x, NDArray) else x
    rd = rois._data if isinstance(rois, NDArray) else rois
    n, c, h, w = xd.shape
    pw = pooled_size[1]
    gx = np.zeros_like(xd)
    for r, cells in enumerate(_roi_windows(rd, pooled_size, spatial_scale, h, w)):
        for k, (b, h0, h1, w0, w1) in enumerate(cells):
            if 0 <= b < n and h1 > h0 and w1 > w0:
                win = xd[b, :, h0:h1, w0:w1].reshape(c, -1)
                arg = np.argmax(win, axis=1)
                hh, ww = np.unravel_index(arg, (h1 - h0, w1 - w0))
                np.add.at(gx, (b, np.arange(c), hh + h0, ww + w0), gd[r, :, k // pw, k % pw])
    return wrap(gx) if isinstance(g, NDArray) else gx


_ROI = defop("ROIPooling", _roi_fwd, [_roi_grad, lambda g, y, x, rois, **attrs: None], None,
             save=(0, 1))


def ROIPooling(data: NDArray, rois: NDArray, pooled_size: Sequence[int],
               spatial_scale: float, out: Optional[NDArray] = None,
               name: Optional[str] = None) -> NDArray:
    """Max pooling of each region of interest into ``pooled_size`` cells (Fast R-CNN).

    ``rois`` is ``(R, 5)``: ``[batch_index, x1, y1, x2, y2]`` in input-image coordinates,
    scaled by ``spatial_scale`` onto ``data`` ``(N, C, H, W)``; the result is
    ``(R, C, pooled_h, pooled_w)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> mx.nd.ROIPooling(x, mx.nd.array([[0, 0, 0, 3, 3]]), (2, 2), 1.0).asnumpy().ravel()
    array([ 5.,  7., 13., 15.], dtype=float32)
    """
    x = _np(data, "data", "ROIPooling")
    r = _np(rois, "rois", "ROIPooling")
    if x.ndim != 4:
        raise ShapeError(f"ROIPooling: data must be 4-D (N, C, H, W), got {x.shape}")
    if r.ndim != 2 or r.shape[1] != 5:
        raise ShapeError(f"ROIPooling: rois must be (R, 5) [batch, x1, y1, x2, y2], got "
                         f"{r.shape}")
    size = tuple(int(v) for v in ((pooled_size,) * 2 if isinstance(pooled_size, int)
                                  else pooled_size))
    if len(size) != 2 or min(size) < 1:
        raise StateError(f"ROIPooling: pooled_size must be two positive ints, got "
                         f"{pooled_size!r}")
    attrs = {"pooled_size": size,
             "spatial_scale": as_real(spatial_scale, "ROIPooling: spatial_scale")}
    return _finish(call(_ROI, (data, rois), attrs), out)


def _finish(result, out):
    if out is None:
        return result
    from ._apply import write_out
    return write_out(out, result)
