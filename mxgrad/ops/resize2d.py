"""``nd.contrib.BilinearResize2D``: bilinear resizing of ``(N, C, H, W)`` feature maps as
MXNet 1.9 computes it (float32 source coordinates; ``align_corners=True`` maps corner pixel
centres onto each other). Written as two products with constant interpolation matrices, so
it differentiates to any order (the ``like`` input gets no gradient, as in MXNet).

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.array([[[[0., 1.], [2., 3.]]]])
>>> mx.nd.contrib.BilinearResize2D(x, height=3, width=3).asnumpy()[0, 0].tolist()
[[0.0, 0.5, 1.0], [1.0, 1.5, 2.0], [2.0, 2.5, 3.0]]
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .linalg import dot
from ._mxnet_op import mxnet_op, optional_inputs
from .shape import reshape, swapaxes

__all__ = ["BilinearResize2D"]

_MODES = ("size", "odd_scale", "like", "to_even_down", "to_even_up", "to_odd_down",
          "to_odd_up")


def _weights(isize: int, osize: int, align_corners: bool, dtype) -> np.ndarray:
    """The ``(osize, isize)`` interpolation matrix of one axis (MXNet's kernel: float32
    scale and source index, truncation, the upper neighbour clamped)."""
    w = np.zeros((osize, isize), dtype=np.float64)
    if isize == osize:
        np.fill_diagonal(w, 1.0)
        return w.astype(dtype)
    f32 = np.float32
    if osize > 1:
        scale = f32(isize - 1) / f32(osize - 1) if align_corners else f32(isize) / f32(osize)
    else:
        scale = f32(0)
    for d in range(osize):
        if align_corners:
            src = f32(scale * f32(d))
        else:
            src = f32(scale * f32(d + 0.5) - f32(0.5))
            src = f32(0) if src < 0 else src
        i0 = int(src)
        lam = float(src - f32(i0))
        i1 = i0 + 1 if i0 < isize - 1 else i0
        w[d, i0] += 1.0 - lam
        w[d, i1] += lam
    return w.astype(dtype)


def _out_size(shape, mode, height, width, scale_height, scale_width, like):
    h, w = shape[2], shape[3]
    if mode == "size":
        return (int(scale_height * h) if scale_height is not None else int(height),
                int(scale_width * w) if scale_width is not None else int(width))
    if mode == "odd_scale":
        if scale_height is None or scale_width is None:
            raise StateError("BilinearResize2D: mode='odd_scale' needs scale_height and "
                             "scale_width")
        return (int(h * scale_height) if h % 2 == 0 else int((h - 1) * scale_height) + 1,
                int(w * scale_width) if w % 2 == 0 else int((w - 1) * scale_width) + 1)
    if mode == "like":
        if not isinstance(like, NDArray) or like.ndim != 4:
            raise ShapeError("BilinearResize2D: mode='like' needs like=, an (N, C, H, W) "
                             "NDArray whose H and W are the output size")
        return like.shape[2], like.shape[3]
    even, up = mode.startswith("to_even"), mode.endswith("_up")

    def fix(v):
        if (v % 2 == 0) == even:
            return v
        return v + 1 if up else v - 1
    return fix(h), fix(w)


def BilinearResize2D(data: NDArray, like: Optional[NDArray] = None, height: int = 1,
                     width: int = 1, scale_height: Optional[float] = None,
                     scale_width: Optional[float] = None, mode: str = "size",
                     align_corners: bool = True, **kwargs: Any) -> NDArray:
    """Resize ``data`` ``(N, C, H, W)`` bilinearly to ``(height, width)`` (or ``scale_*``
    times the input size, or ``like``'s size, per ``mode``)."""
    if not isinstance(data, NDArray):
        raise DTypeError(f"BilinearResize2D: data must be an NDArray, got "
                         f"{type(data).__name__}")
    if data.ndim != 4:
        raise ShapeError(f"BilinearResize2D: data must be (N, C, H, W), got "
                         f"{tuple(data.shape)}")
    if mode not in _MODES:
        raise StateError(f"BilinearResize2D: mode must be one of {_MODES}, got {mode!r}")
    oh, ow = _out_size(tuple(data.shape), mode, height, width, scale_height, scale_width,
                       like)
    if oh < 1 or ow < 1:
        raise ShapeError(f"BilinearResize2D: the output size ({oh}, {ow}) must be positive")
    n, c, h, w = data.shape
    wy = wrap(_weights(h, oh, bool(align_corners), data.dtype))          # (oh, h)
    wx = wrap(_weights(w, ow, bool(align_corners), data.dtype).T.copy())  # (w, ow)
    cols = dot(reshape(data, (n * c * h, w)), wx)                          # (n*c*h, ow)
    cols = swapaxes(reshape(cols, (n * c, h, ow)), 1, 2)                   # (n*c, ow, h)
    out = dot(reshape(cols, (n * c * ow, h)), wy.T)                         # (n*c*ow, oh)
    return swapaxes(reshape(out, (n, c, ow, oh)), 2, 3)


mxnet_op("_contrib_BilinearResize2D", ("data", "like"), nd_name="contrib.BilinearResize2D",
         takes=optional_inputs(like=lambda kw: kw.get("mode") == "like"))
