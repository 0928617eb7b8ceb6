"""Region-of-interest feature extraction of MXNet 1.9.1's ``nd.contrib``: ``ROIAlign``
(Mask R-CNN's bilinear sampling, optionally position-sensitive or Detectron2's
``aligned``), ``RROIAlign`` (over rotated boxes) and ``PSROIPooling`` (R-FCN's
position-sensitive average pooling).

All are weighted sums of input pixels whose positions and weights depend only on the
boxes: the positions and weights are computed in NumPy (in the data's precision, as
MXNet), the sum is a ``take`` of rows and a product, so gradients with respect to
``data`` (boxes get none, as in MXNet) are exact and differentiate again.

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
>>> rois = mx.nd.array([[0, 0, 0, 2, 2]])
>>> mx.nd.contrib.ROIAlign(x, rois, pooled_size=(1, 1), spatial_scale=1.0).asnumpy().ravel()
array([5.], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np

from .._check import as_real
from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .indexing import take
from ._apply import write_out
from .reduce import sum as _sum
from .shape import reshape, transpose

__all__ = ["ROIAlign", "RROIAlign", "PSROIPooling"]


def _check(op: str, data: Any, rois: Any, cols: int = 5) -> Tuple[np.ndarray, np.ndarray]:
    for name, v in (("data", data), ("rois", rois)):
        if not isinstance(v, NDArray):
            raise DTypeError(f"{op}: {name} must be an NDArray, got {type(v).__name__}")
    if data.ndim != 4:
        raise ShapeError(f"{op}: data must be (N, C, H, W), got shape {tuple(data.shape)}")
    if rois.ndim != 2 or rois.shape[1] != cols:
        rows = ("[batch_index, x1, y1, x2, y2]" if cols == 5 else
                "[batch_index, center_x, center_y, width, height, angle_degrees]")
        raise ShapeError(f"{op}: rois must be (R, {cols}) rows {rows}, got shape "
                         f"{tuple(rois.shape)}")
    r = rois.asnumpy()
    b = r[:, 0].astype(np.int64)
    if b.size and b.max() >= data.shape[0]:
        raise ShapeError(f"{op}: rois name batch index {int(b.max())} but data has "
                         f"{data.shape[0]} images")
    return r.astype(data.dtype), b


def _pair(v: Union[int, Sequence[int]], op: str, what: str) -> Tuple[int, int]:
    vals = (v, v) if isinstance(v, int) else tuple(int(x) for x in v)
    if len(vals) != 2 or min(vals) < 1:
        raise StateError(f"{op}: {what} must be one or two positive ints, got {v!r}")
    return vals[0], vals[1]


def _gather(data: NDArray, groups: int, batch: np.ndarray, group: np.ndarray,
            pos: np.ndarray, weight: np.ndarray, out_hw: Tuple[int, int]) -> NDArray:
    """``out[r, c, p] = sum_k weight[r, p, k] * data[batch[r], c * groups + group[p],
    pos[r, p, k]]`` shaped ``(R, C, ph, pw)``."""
    n, cin, h, w = data.shape
    c = cin // groups
    R, P, K = pos.shape
    rows = (batch[:, None, None] * groups + group[None, :, None]) * (h * w) + pos
    x = transpose(reshape(data, (n, c, groups, h * w)), (0, 2, 3, 1))
    t = take(reshape(x, (n * groups * h * w, c)), wrap(rows.reshape(-1)))
    t = t * wrap(weight.reshape(-1, 1).astype(data.dtype))
    t = _sum(reshape(t, (R, P, K, c)), axis=2)
    return reshape(transpose(t, (0, 2, 1)), (R, c) + out_hw)


def _out(result: NDArray, out: Optional[NDArray]) -> NDArray:
    return result if out is None else write_out(out, result)


def _bilinear(y: np.ndarray, x: np.ndarray, h: int, w: int):
    """MXNet's ROIAlign corner positions ``(..., 4)`` and weights of sample points."""
    dt = y.dtype.type
    out = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y = np.where(y <= 0, dt(0), y)
    x = np.where(x <= 0, dt(0), x)
    y0, x0 = y.astype(np.int64), x.astype(np.int64)
    ytop, xtop = y0 >= h - 1, x0 >= w - 1
    y0, x0 = np.where(ytop, h - 1, y0), np.where(xtop, w - 1, x0)
    y1, x1 = np.where(ytop, y0, y0 + 1), np.where(xtop, x0, x0 + 1)
    y = np.where(ytop, y0.astype(y.dtype), y)
    x = np.where(xtop, x0.astype(x.dtype), x)
    ly, lx = y - y0.astype(y.dtype), x - x0.astype(x.dtype)
    hy, hx = dt(1) - ly, dt(1) - lx
    pos = np.stack([y0 * w + x0, y0 * w + x1, y1 * w + x0, y1 * w + x1], -1)
    wt = np.stack([hy * hx, hy * lx, ly * hx, ly * lx], -1)
    wt[out] = 0
    pos[out] = 0
    return pos, wt


def _align_weights(y1, x1, bh, bw, gh, gw, pooled, hw, valid, rotation=None):
    """Positions and weights ``(R, P, K)`` of ROIAlign's sample points: per roi, a
    ``gh x gw`` grid in each of the ``pooled`` bins starting at ``(y1, x1)``, each point's
    four bilinear corners, the weights divided by the point count (MXNet's average).
    ``rotation``: per-roi ``(cos, sin, cy, cx)`` turning the grid about the centre
    (RROIAlign; the grid is then relative to the centre)."""
    ph, pw = pooled
    dt = y1.dtype.type
    R, P = len(y1), ph * pw
    K = int(max(int((gh * gw).max()) if R else 1, 1)) * 4
    pos = np.zeros((R, P, K), dtype=np.int64)
    wt = np.zeros((R, P, K), dtype=y1.dtype)
    iph, ipw = np.divmod(np.arange(P), pw)
    fy, fx = iph.astype(y1.dtype)[:, None], ipw.astype(y1.dtype)[:, None]
    for i in range(R):
        if not valid[i]:
            continue
        sy, sx = int(gh[i]), int(gw[i])
        iy = (np.arange(sy) + dt(0.5)).astype(y1.dtype)
        ix = (np.arange(sx) + dt(0.5)).astype(y1.dtype)
        yy = y1[i] + fy * bh[i] + iy[None, :] * bh[i] / dt(sy)
        xx = x1[i] + fx * bw[i] + ix[None, :] * bw[i] / dt(sx)
        Y = np.broadcast_to(yy[:, :, None], (P, sy, sx))
        X = np.broadcast_to(xx[:, None, :], (P, sy, sx))
        if rotation is not None:
            c, sn, cy, cx = (v[i] for v in rotation)
            Y, X = Y * c - X * sn + cy, X * c + Y * sn + cx
        p4, w4 = _bilinear(np.ascontiguousarray(Y), np.ascontiguousarray(X), *hw)
        count = dt(max(sy * sx, 1))
        pos[i, :, :sy * sx * 4] = p4.reshape(P, -1)
        wt[i, :, :sy * sx * 4] = w4.reshape(P, -1) / count
    return pos, wt


def ROIAlign(data: NDArray, rois: NDArray, pooled_size: Sequence[int],
             spatial_scale: float, sample_ratio: int = -1, position_sensitive: bool = False,
             aligned: bool = False, out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """Average of bilinearly sampled points in each of ``pooled_size`` bins of every region
    of interest: ``(R, C, ph, pw)`` (``C / (ph * pw)`` channels when
    ``position_sensitive``, bin ``(i, j)`` reading its own channel group).

    ``rois`` rows are ``[batch_index, x1, y1, x2, y2]`` in image coordinates, scaled by
    ``spatial_scale``; ``sample_ratio`` points per bin side (``-1``: ``ceil`` of the bin
    size); ``aligned`` shifts by half a pixel (Detectron2). Rows with a negative batch
    index give zeros.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.ones((1, 2, 5, 5))
    >>> mx.nd.contrib.ROIAlign(x, mx.nd.array([[0, 1, 1, 3, 4]]), (2, 2), 1.0).shape
    (1, 2, 2, 2)
    """
    op = "ROIAlign"
    r, b = _check(op, data, rois)
    ph, pw = _pair(pooled_size, op, "pooled_size")
    scale = as_real(spatial_scale, f"{op}: spatial_scale")
    n, cin, h, w = data.shape
    groups = ph * pw if position_sensitive else 1
    if cin % groups:
        raise ShapeError(f"{op}: position_sensitive needs channels ({cin}) divisible by "
                         f"ph * pw = {groups}")
    dt = r.dtype.type
    off = dt(0.5) if aligned else dt(0)
    sc = dt(scale)
    x1, y1 = r[:, 1] * sc - off, r[:, 2] * sc - off
    rw, rh = r[:, 3] * sc - off - x1, r[:, 4] * sc - off - y1
    if aligned:
        if np.any(rw <= 0) or np.any(rh <= 0):
            raise ShapeError(f"{op}: with aligned=True every roi needs x2 > x1 and y2 > y1")
    else:
        rw, rh = np.maximum(rw, dt(1)), np.maximum(rh, dt(1))
    bh, bw = rh / dt(ph), rw / dt(pw)
    if sample_ratio > 0:
        gh = np.full(len(r), int(sample_ratio))
        gw = gh
    else:
        gh = np.ceil(rh / dt(ph)).astype(np.int64)
        gw = np.ceil(rw / dt(pw)).astype(np.int64)
    pos, wt = _align_weights(y1, x1, bh, bw, gh, gw, (ph, pw), (h, w), b >= 0)
    P = ph * pw
    group = np.arange(P) if position_sensitive else np.zeros(P, dtype=np.int64)
    return _out(_gather(data, groups, np.maximum(b, 0), group, pos, wt, (ph, pw)), out)


def RROIAlign(data: NDArray, rois: NDArray, pooled_size: Sequence[int],
              spatial_scale: float, sampling_ratio: int = -1,
              out: Optional[NDArray] = None, **kwargs: Any) -> NDArray:
    """ROIAlign over rotated boxes (text detection): ``rois`` rows are ``[batch_index,
    center_x, center_y, width, height, angle]`` (degrees, counter-clockwise), the sample
    grid turned about the centre; ``(R, C, ph, pw)``. MXNet computes no gradient here;
    mxgrad gives the gradient with respect to ``data``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> out = mx.nd.contrib.RROIAlign(x, mx.nd.array([[0, 1.5, 1.5, 2, 2, 90]]), (1, 1), 1.0)
    >>> round(float(out.asscalar()), 4)
    7.5
    """
    op = "RROIAlign"
    r, b = _check(op, data, rois, cols=6)
    ph, pw = _pair(pooled_size, op, "pooled_size")
    sc = r.dtype.type(as_real(spatial_scale, f"{op}: spatial_scale"))
    dt = r.dtype.type
    cx, cy = r[:, 1] * sc, r[:, 2] * sc
    rw, rh = np.maximum(r[:, 3] * sc, dt(1)), np.maximum(r[:, 4] * sc, dt(1))
    theta = (r[:, 5].astype(np.float64) * np.pi / 180.0).astype(r.dtype)
    bh, bw = rh / dt(ph), rw / dt(pw)
    if sampling_ratio > 0:
        gh = gw = np.full(len(r), int(sampling_ratio))
    else:
        gh = np.ceil(rh / dt(ph)).astype(np.int64)
        gw = np.ceil(rw / dt(pw)).astype(np.int64)
    n, c, h, w = data.shape
    pos, wt = _align_weights(-rh / dt(2), -rw / dt(2), bh, bw, gh, gw, (ph, pw), (h, w),
                             np.ones(len(r), dtype=bool),
                             (np.cos(theta), np.sin(theta), cy, cx))
    return _out(_gather(data, 1, b, np.zeros(ph * pw, dtype=np.int64), pos, wt, (ph, pw)), out)


def _cround(v: np.ndarray) -> np.ndarray:
    """C's ``round``: halves away from zero (NumPy's ``round`` takes them to even)."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def PSROIPooling(data: NDArray, rois: NDArray, spatial_scale: float, output_dim: int,
                 pooled_size: int, group_size: int = 0, out: Optional[NDArray] = None,
                 **kwargs: Any) -> NDArray:
    """Position-sensitive average pooling (R-FCN): bin ``(i, j)`` of output channel ``c``
    averages input channel ``(c * group_size + gi) * group_size + gj`` over the bin;
    ``(R, output_dim, pooled_size, pooled_size)``. Boxes are rounded to whole pixels and
    include their end pixel, as MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(16).reshape((1, 1, 4, 4))
    >>> mx.nd.contrib.PSROIPooling(x, mx.nd.array([[0, 0, 0, 3, 3]]), spatial_scale=1.0,
    ...                            output_dim=1, pooled_size=1).asnumpy().ravel()
    array([7.5], dtype=float32)
    """
    op = "PSROIPooling"
    r, b = _check(op, data, rois)
    p = int(pooled_size)
    g = int(group_size) if int(group_size) > 0 else p
    if p < 1 or int(output_dim) < 1:
        raise StateError(f"{op}: pooled_size and output_dim must be positive, got "
                         f"{pooled_size}, {output_dim}")
    n, cin, h, w = data.shape
    if cin != int(output_dim) * g * g:
        raise ShapeError(f"{op}: data has {cin} channels; it needs output_dim * group_size"
                         f"^2 = {int(output_dim) * g * g}")
    dt = r.dtype.type
    sc = dt(as_real(spatial_scale, f"{op}: spatial_scale"))
    x1, y1 = _cround(r[:, 1]) * sc, _cround(r[:, 2]) * sc
    x2, y2 = (_cround(r[:, 3]) + dt(1)) * sc, (_cround(r[:, 4]) + dt(1)) * sc
    rw, rh = np.maximum(x2 - x1, dt(0.1)), np.maximum(y2 - y1, dt(0.1))
    bh, bw = rh / dt(p), rw / dt(p)
    P = p * p
    iph, ipw = np.divmod(np.arange(P), p)
    fy, fx = iph.astype(r.dtype)[None], ipw.astype(r.dtype)[None]   # the data's precision
    hs = np.floor(fy * bh[:, None] + y1[:, None]).astype(np.int64).clip(0, h)
    he = np.ceil((fy + dt(1)) * bh[:, None] + y1[:, None]).astype(np.int64).clip(0, h)
    ws = np.floor(fx * bw[:, None] + x1[:, None]).astype(np.int64).clip(0, w)
    we = np.ceil((fx + dt(1)) * bw[:, None] + x1[:, None]).astype(np.int64).clip(0, w)
    area = np.maximum(he - hs, 0) * np.maximum(we - ws, 0)
    R = len(r)
    K = max(int(area.max()) if R else 1, 1)
    pos = np.zeros((R, P, K), dtype=np.int64)
    wt = np.zeros((R, P, K), dtype=data.dtype)
    for i in range(R):
        for j in range(P):
            if area[i, j] == 0:
                continue
            yy, xx = np.mgrid[hs[i, j]:he[i, j], ws[i, j]:we[i, j]]
            pos[i, j, :area[i, j]] = (yy * w + xx).ravel()
            wt[i, j, :area[i, j]] = dt(1) / dt(area[i, j])
    gh = np.clip(np.floor(iph * g / p).astype(np.int64), 0, g - 1)
    gw = np.clip(np.floor(ipw * g / p).astype(np.int64), 0, g - 1)
    return _out(_gather(data, g * g, b, gh * g + gw, pos, wt, (p, p)), out)
