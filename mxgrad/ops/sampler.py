"""Spatial transformer networks (Jaderberg et al. 2015) as MXNet 1.9's operators:
``nd.GridGenerator`` (sampling grids from affine parameters or an optical flow),
``nd.BilinearSampler`` (bilinear sampling of ``(N, C, H, W)`` data at grid points in
[-1, 1], zero outside) and ``nd.SpatialTransformer`` (the two together).

They are written with mxgrad ops around constant corner indices, so the gradient reaches
both the data and the grid (hence the affine parameters), to any order.

Examples
--------
>>> import mxgrad as mx
>>> theta = mx.nd.array([[1, 0, 0, 0, 1, 0]])                 # identity transform
>>> grid = mx.nd.GridGenerator(theta, transform_type='affine', target_shape=(2, 3))
>>> x = mx.nd.arange(6).reshape((1, 1, 2, 3))
>>> mx.nd.BilinearSampler(x, grid).asnumpy().ravel().tolist()
[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .indexing import take
from .linalg import dot
from .shape import reshape, slice_axis, transpose

__all__ = ["GridGenerator", "BilinearSampler", "SpatialTransformer"]


def _arr(x, op: str, arg: str) -> NDArray:
    if not isinstance(x, NDArray):
        raise DTypeError(f"{op}: {arg} must be an NDArray, got {type(x).__name__}")
    return x


def _target(target_shape, op: str):
    try:
        h, w = (int(v) for v in target_shape)
    except (TypeError, ValueError):
        raise StateError(f"{op}: target_shape must be (height, width), got "
                         f"{target_shape!r}") from None
    if h < 2 or w < 2:
        raise ShapeError(f"{op}: target_shape {(h, w)} needs at least 2 rows and 2 columns "
                         f"(the grid spans [-1, 1])")
    return h, w


def GridGenerator(data: NDArray, transform_type: str = "affine",
                  target_shape: Sequence[int] = (0, 0), **kwargs: Any) -> NDArray:
    """Sampling grid ``(N, 2, H, W)`` (x then y, in [-1, 1] for points inside the source).

    ``affine``: ``data`` ``(N, 6)`` holds each 2x3 matrix mapping target coordinates
    ``(x, y, 1)`` to source coordinates; ``target_shape`` is ``(H, W)``. ``warp``: ``data``
    ``(N, 2, H, W)`` is an optical flow in pixels added to each pixel's position.
    """
    x = _arr(data, "GridGenerator", "data")
    if transform_type == "affine":
        h, w = _target(target_shape, "GridGenerator")
        if x.ndim != 2 or x.shape[1] != 6:
            raise ShapeError(f"GridGenerator: affine data must be (N, 6), got "
                             f"{tuple(x.shape)}")
        idx = np.arange(h * w)
        dst = np.stack([-1.0 + (idx % w) * (2.0 / (w - 1)), -1.0 + (idx // w) * (2.0 / (h - 1)),
                        np.ones(h * w)]).astype(x.dtype)                       # (3, H*W)
        out = dot(reshape(x, (x.shape[0] * 2, 3)), wrap(dst))
        return reshape(out, (x.shape[0], 2, h, w))
    if transform_type == "warp":
        if x.ndim != 4 or x.shape[1] != 2:
            raise ShapeError(f"GridGenerator: warp data must be a flow (N, 2, H, W), got "
                             f"{tuple(x.shape)}")
        h, w = x.shape[2], x.shape[3]
        pos = np.stack([np.tile(np.arange(w), (h, 1)), np.repeat(np.arange(h)[:, None], w, 1)])
        scale = np.array([(w - 1) / 2.0, (h - 1) / 2.0]).reshape(1, 2, 1, 1)
        return (x + wrap(pos[None].astype(x.dtype))) / wrap(scale.astype(x.dtype)) - 1
    raise StateError(f"GridGenerator: transform_type must be 'affine' or 'warp', got "
                     f"{transform_type!r}")


def BilinearSampler(data: NDArray, grid: NDArray, cudnn_off: Optional[bool] = None,
                    **kwargs: Any) -> NDArray:
    """Sample ``data`` ``(N, C, H, W)`` bilinearly at ``grid`` ``(N, 2, Ho, Wo)`` (x then y,
    -1 and 1 the centres of the first and last pixels); corners outside read 0."""
    x, g = _arr(data, "BilinearSampler", "data"), _arr(grid, "BilinearSampler", "grid")
    if x.ndim != 4 or g.ndim != 4 or g.shape[1] != 2 or g.shape[0] != x.shape[0]:
        raise ShapeError(f"BilinearSampler: data must be (N, C, H, W) and grid (N, 2, Ho, "
                         f"Wo), got {tuple(x.shape)} and {tuple(g.shape)}")
    n, c, h, w = x.shape
    ho, wo = g.shape[2], g.shape[3]
    xr = (slice_axis(g, axis=1, begin=0, end=1) + 1) * ((w - 1) / 2)      # (N, 1, Ho, Wo)
    yr = (slice_axis(g, axis=1, begin=1, end=2) + 1) * ((h - 1) / 2)
    x0 = np.floor(xr._data).astype(np.int64)
    y0 = np.floor(yr._data).astype(np.int64)
    wx1 = xr - wrap(x0.astype(x.dtype))
    wy1 = yr - wrap(y0.astype(x.dtype))
    rows = reshape(transpose(reshape(x, (n, c, h * w)), axes=(0, 2, 1)), (n * h * w, c))
    base = (np.arange(n) * h * w).reshape(n, 1, 1, 1)
    out: Any = None
    for dy, wy in ((0, 1 - wy1), (1, wy1)):
        for dx, wx in ((0, 1 - wx1), (1, wx1)):
            yy, xx = y0 + dy, x0 + dx
            inside = (xx >= 0) & (xx <= w - 1) & (yy >= 0) & (yy <= h - 1)
            flat = np.where(inside, base + yy.clip(0, h - 1) * w + xx.clip(0, w - 1), 0)
            vals = take(rows, wrap(flat.reshape(-1)))                        # (N*Ho*Wo, C)
            vals = transpose(reshape(vals, (n, ho, wo, c)), axes=(0, 3, 1, 2))
            term = vals * (wy * wx * wrap(inside.astype(x.dtype)))
            out = term if out is None else out + term
    return out


def SpatialTransformer(data: NDArray, loc: NDArray, target_shape: Sequence[int] = (0, 0),
                       transform_type: str = "affine", sampler_type: str = "bilinear",
                       cudnn_off: Optional[bool] = None, **kwargs: Any) -> NDArray:
    """``BilinearSampler(data, GridGenerator(loc, 'affine', target_shape))``."""
    if transform_type != "affine" or sampler_type != "bilinear":
        raise StateError(f"SpatialTransformer: only transform_type='affine' and "
                         f"sampler_type='bilinear' exist (as in MXNet), got "
                         f"{transform_type!r}, {sampler_type!r}")
    return BilinearSampler(data, GridGenerator(loc, "affine", target_shape))
