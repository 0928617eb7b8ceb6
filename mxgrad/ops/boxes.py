"""Bounding-box operators of ``nd.contrib`` (MXNet 1.9's ``box_iou``, ``box_nms``,
``box_encode``, ``box_decode``, ``bipartite_matching``).

``box_nms`` is written with mxgrad ops around a constant selection, so its gradient is
MXNet's: each kept box's gradient goes back to the row it came from, suppressed rows get 0.
``box_iou``, ``box_encode``, ``box_decode`` and ``bipartite_matching`` are constants for
autograd (MXNet back-propagates zeros through them).

Examples
--------
>>> import mxgrad as mx
>>> a = mx.nd.array([[0, 0, 2, 2]]); b = mx.nd.array([[1, 1, 3, 3], [0, 0, 2, 2]])
>>> [round(float(v), 4) for v in mx.nd.contrib.box_iou(a, b).asnumpy()[0]]
[0.1429, 1.0]
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .indexing import take, where
from ._mxnet_op import mxnet_op
from .shape import reshape

__all__ = ["box_iou", "box_nms", "box_non_maximum_suppression", "box_encode", "box_decode",
           "bipartite_matching"]


def _np(x, op: str, arg: str) -> np.ndarray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}")
    return x._data


def _format(v: str, op: str, arg: str) -> str:
    if v not in ("corner", "center"):
        raise StateError(f"{op}: {arg} must be 'corner' or 'center', got {v!r}")
    return v


def _corners(b: np.ndarray, fmt: str) -> np.ndarray:
    if fmt == "corner":
        return b
    half_w, half_h = b[..., 2] / 2, b[..., 3] / 2
    return np.stack([b[..., 0] - half_w, b[..., 1] - half_h, b[..., 0] + half_w,
                     b[..., 1] + half_h], axis=-1)


def _areas(c: np.ndarray) -> np.ndarray:
    w, h = c[..., 2] - c[..., 0], c[..., 3] - c[..., 1]
    return np.where((w < 0) | (h < 0), 0, w * h)


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of corner boxes ``a`` (..., 4) against ``b`` (..., 4), every pair; 0 where they
    do not intersect (MXNet's rule)."""
    a, b = a[:, None, :], b[None, :, :]
    w = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0)
    h = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0)
    inter = w * h
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (_areas(a) + _areas(b) - inter)
    return np.where(inter <= 0, 0, iou)


def box_iou(lhs: NDArray, rhs: NDArray, format: str = "corner", **kwargs: Any) -> NDArray:
    """Intersection over union of every box of ``lhs`` (..., 4) with every box of ``rhs``
    (..., 4): shape ``lhs.shape[:-1] + rhs.shape[:-1]``."""
    a, b = _np(lhs, "box_iou", "lhs"), _np(rhs, "box_iou", "rhs")
    fmt = _format(format, "box_iou", "format")
    if a.shape[-1:] != (4,) or b.shape[-1:] != (4,):
        raise ShapeError(f"box_iou: boxes need 4 coordinates in the last axis, got "
                         f"{a.shape} and {b.shape}")
    out = _iou(_corners(a.reshape(-1, 4), fmt), _corners(b.reshape(-1, 4), fmt))
    return wrap(out.reshape(a.shape[:-1] + b.shape[:-1]).astype(a.dtype))


def _nms_selection(x: np.ndarray, overlap_thresh, valid_thresh, topk, coord_start,
                   score_index, id_index, background_id, force_suppress, in_format):
    """For each batch, the input rows kept (in output order): valid boxes sorted by score
    (stable), the first ``topk`` of them suppressed greedily by IoU."""
    nb, n, _ = x.shape
    keep = []
    k = n if topk < 0 else min(n, topk)
    for b in range(nb):
        rows = x[b]
        scores = rows[:, score_index]
        valid = scores > valid_thresh
        if id_index >= 0:
            valid &= rows[:, id_index] != background_id
        cand = np.flatnonzero(valid)
        cand = cand[np.argsort(-scores[cand], kind="stable")][:k]
        boxes = _corners(rows[cand, coord_start:coord_start + 4], in_format)
        iou = _iou(boxes, boxes) if len(cand) else np.zeros((0, 0))
        alive = np.ones(len(cand), dtype=bool)
        for i in range(len(cand)):
            if not alive[i]:
                continue
            later = np.arange(i + 1, len(cand))
            hit = later[(iou[i, later] > overlap_thresh) & alive[later]]
            if id_index >= 0 and not force_suppress:
                hit = hit[rows[cand[hit], id_index] == rows[cand[i], id_index]]
            alive[hit] = False
        keep.append(cand[alive])
    return keep


def box_nms(data: NDArray, overlap_thresh: float = 0.5, valid_thresh: float = 0,
            topk: int = -1, coord_start: int = 2, score_index: int = 1, id_index: int = -1,
            background_id: int = -1, force_suppress: bool = False, in_format: str = "corner",
            out_format: str = "corner", **kwargs: Any) -> NDArray:
    """Non-maximum suppression of boxes ``[..., n, k]`` (rows ``[id, score, x1, y1, x2, y2,
    ...]`` by default): per batch, the kept boxes sorted by descending score, then rows of
    -1. The gradient of a kept row goes to its input row."""
    x = _np(data, "box_nms", "data")
    _format(in_format, "box_nms", "in_format")
    _format(out_format, "box_nms", "out_format")
    if x.ndim < 2:
        raise ShapeError(f"box_nms: data must be (..., num_boxes, box_width), got {x.shape}")
    width = x.shape[-1]
    if width < (6 if id_index >= 0 else 5) or not 0 <= score_index < width \
            or not 0 <= coord_start <= width - 4 \
            or coord_start <= score_index < coord_start + 4 \
            or (id_index >= 0 and (id_index >= width or id_index == score_index
                                   or coord_start <= id_index < coord_start + 4)):
        raise ShapeError(f"box_nms: rows of width {width} cannot hold score_index="
                         f"{score_index}, coordinates from {coord_start} and id_index="
                         f"{id_index} without overlap")
    flat = x.reshape(-1, x.shape[-2], width)
    nb, n = flat.shape[:2]
    keep = _nms_selection(flat, float(overlap_thresh), float(valid_thresh), int(topk),
                          coord_start, score_index, id_index, background_id,
                          bool(force_suppress), in_format)
    src = np.zeros(nb * n, dtype=np.int64)
    kept = np.zeros(nb * n, dtype=bool)
    for b, rows in enumerate(keep):
        src[b * n:b * n + len(rows)] = b * n + rows
        kept[b * n:b * n + len(rows)] = True
    rows = take(reshape(data, (nb * n, width)), wrap(src))
    out = where(wrap(kept.astype(x.dtype)), rows,
                wrap(np.full((nb * n, width), -1, dtype=x.dtype)))
    if in_format != out_format:
        out = _convert_rows(out, coord_start, out_format)
    return reshape(out, x.shape)


def _convert_rows(out: NDArray, start: int, to: str) -> NDArray:
    """Corner <-> center on the coordinate columns of rows whose first one is >= 0 (MXNet
    leaves the -1 rows, and any box starting left of 0, as they are)."""
    from .shape import concat, slice_axis
    c = [slice_axis(out, axis=1, begin=start + i, end=start + i + 1) for i in range(4)]
    if to == "center":
        new = [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1]]
    else:
        new = [c[0] - c[2] / 2, c[1] - c[3] / 2, c[0] + c[2] / 2, c[1] + c[3] / 2]
    width = out.shape[1]
    conv = concat(*([slice_axis(out, axis=1, begin=0, end=start)] if start else []), *new,
                  *([slice_axis(out, axis=1, begin=start + 4, end=width)]
                    if start + 4 < width else []), dim=1)
    mask = (out._data[:, start] >= 0).astype(out.dtype)
    return where(wrap(mask), conv, out)


box_non_maximum_suppression = box_nms

# a hidden second output (the indices); box_non_maximum_suppression is MXNet's alias
mxnet_op("_contrib_box_nms", nd_name="contrib.box_nms", outputs=2, visible=1,
         aliases=("_contrib_box_non_maximum_suppression",))


def box_encode(samples: NDArray, matches: NDArray, anchors: NDArray, refs: NDArray,
               means: NDArray, stds: NDArray, **kwargs: Any):
    """Training targets of anchors ``(B, N, 4)`` (corners) for their matched reference
    boxes ``refs`` ``(B, M, 4)``: normalised centre offsets and log size ratios, where
    ``samples > 0.5``; returns ``[targets, masks]`` (both ``(B, N, 4)``)."""
    s, m = _np(samples, "box_encode", "samples"), _np(matches, "box_encode", "matches")
    a, r = _np(anchors, "box_encode", "anchors"), _np(refs, "box_encode", "refs")
    mu, sd = _np(means, "box_encode", "means"), _np(stds, "box_encode", "stds")
    if a.ndim != 3 or a.shape[2] != 4 or r.ndim != 3 or r.shape[2] != 4 \
            or s.shape != a.shape[:2] or m.shape != a.shape[:2] or r.shape[0] != a.shape[0] \
            or mu.shape != (4,) or sd.shape != (4,):
        raise ShapeError(f"box_encode: expected samples and matches (B, N), anchors (B, N, "
                         f"4), refs (B, M, 4), means and stds (4,); got {s.shape}, {m.shape}, "
                         f"{a.shape}, {r.shape}, {mu.shape}, {sd.shape}")
    ref = np.take_along_axis(r, m.astype(np.int64)[..., None].clip(0, r.shape[1] - 1), 1)
    rw, rh = ref[..., 2] - ref[..., 0], ref[..., 3] - ref[..., 1]
    aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
    valid = s > 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.stack([((ref[..., 0] + rw * 0.5) - (a[..., 0] + aw * 0.5)) / aw,
                      ((ref[..., 1] + rh * 0.5) - (a[..., 1] + ah * 0.5)) / ah,
                      np.log(rw / aw), np.log(rh / ah)], axis=-1)
        t = (t - mu) / sd
    targets = np.where(valid[..., None], t, 0).astype(a.dtype)
    masks = np.broadcast_to(valid[..., None], a.shape).astype(a.dtype)
    return [wrap(targets), wrap(masks)]


def box_decode(data: NDArray, anchors: NDArray, std0: float = 1.0, std1: float = 1.0,
               std2: float = 1.0, std3: float = 1.0, clip: float = -1.0,
               format: str = "center", **kwargs: Any) -> NDArray:
    """Boxes (corners) from predicted offsets ``data`` ``(B, N, 4)`` relative to
    ``anchors`` ``(1, N, 4)`` in ``format``; ``clip > 0`` caps the log size ratios."""
    x, a = _np(data, "box_decode", "data"), _np(anchors, "box_decode", "anchors")
    fmt = _format(format, "box_decode", "format")
    if x.ndim != 3 or x.shape[2] != 4 or a.ndim < 3 or a.shape[-1] != 4:
        raise ShapeError(f"box_decode: data must be (B, N, 4) and anchors (1, N, 4), got "
                         f"{x.shape} and {a.shape}")
    a = a.reshape(-1, 4)[:x.shape[1]][None]
    ax, ay, aw, ah = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    if fmt == "corner":
        aw, ah = aw - ax, ah - ay
        ax, ay = ax + aw * 0.5, ay + ah * 0.5
    ox = x[..., 0] * std0 * aw + ax
    oy = x[..., 1] * std1 * ah + ay
    dw, dh = x[..., 2] * std2, x[..., 3] * std3
    if clip > 0:
        dw, dh = np.minimum(dw, clip), np.minimum(dh, clip)
    ow, oh = np.exp(dw) * aw * 0.5, np.exp(dh) * ah * 0.5
    return wrap(np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(x.dtype))


def bipartite_matching(data: NDArray, threshold: float, is_ascend: bool = False,
                       topk: int = -1, **kwargs: Any):
    """Greedy matching on scores ``(..., N, M)``: pairs taken best score first while the
    score passes ``threshold`` (``>`` it, or ``<`` with ``is_ascend``). Returns ``[row_match
    (..., N), col_match (..., M)]``, -1 for unmatched (MXNet's rule, including its stop
    after ``topk + 1`` matches)."""
    x = _np(data, "bipartite_matching", "data")
    if x.ndim < 2:
        raise ShapeError(f"bipartite_matching: data must be (..., N, M), got {x.shape}")
    n, m = x.shape[-2:]
    flat = x.reshape(-1, n * m)
    rows = np.full((flat.shape[0], n), -1, dtype=x.dtype)
    cols = np.full((flat.shape[0], m), -1, dtype=x.dtype)
    for b, s in enumerate(flat):
        order = np.argsort(s if is_ascend else -s, kind="stable")
        count = 0
        for idx in order:
            r, c = divmod(int(idx), m)
            if rows[b, r] != -1 or cols[b, c] != -1:
                continue
            if (s[idx] > threshold) if not is_ascend else (s[idx] < threshold):
                rows[b, r], cols[b, c] = c, r
                count += 1
                if 0 < topk < count:
                    break
            else:
                break
    return [wrap(rows.reshape(x.shape[:-1])), wrap(cols.reshape(x.shape[:-2] + (m,)))]


mxnet_op("_contrib_bipartite_matching", nd_name="contrib.bipartite_matching", outputs=2)
