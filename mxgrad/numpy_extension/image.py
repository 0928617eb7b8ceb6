"""``mx.npx.image``: MXNet's image operators on ``mx.np`` arrays (HWC layout).

Examples
--------
>>> from mxgrad import np, npx
>>> npx.image.to_tensor(np.zeros((4, 4, 3), dtype='uint8')).shape
(3, 4, 4)
"""
from __future__ import annotations

from typing import Any

import numpy as _onp

from .._engine.ndarray import NDArray, wrap
from .._image_resize import imresize_array
from ..numpy.multiarray import ndarray, from_input

__all__ = ["to_tensor", "normalize", "flip_left_right", "flip_top_bottom", "resize"]


def to_tensor(data: Any) -> ndarray:
    """An HWC (or NHWC) uint8 image as CHW (NCHW) float32 in [0, 1]."""
    d = from_input(data)._data
    axes = (2, 0, 1) if d.ndim == 3 else (0, 3, 1, 2)
    return wrap(_onp.ascontiguousarray(_onp.transpose(d, axes)).astype(_onp.float32) / 255.0,
                None, 0, ndarray)


def normalize(data: Any, mean: Any = 0.0, std: Any = 1.0) -> ndarray:
    """``(data - mean) / std`` per channel of a CHW (or NCHW) float array; differentiable."""
    x = from_input(data)
    c = x.shape[0] if x.ndim == 3 else x.shape[1]
    shape = (c, 1, 1) if x.ndim == 3 else (1, c, 1, 1)
    m = wrap(_onp.broadcast_to(_onp.asarray(mean, x._data.dtype), (c,)).reshape(shape).copy(),
             None, 0, ndarray)
    s = wrap(_onp.broadcast_to(_onp.asarray(std, x._data.dtype), (c,)).reshape(shape).copy(),
             None, 0, ndarray)
    return (x - m) / s  # type: ignore[return-value]


def flip_left_right(data: Any) -> ndarray:
    """The HWC image mirrored left-right."""
    d = from_input(data)._data
    return wrap(_onp.ascontiguousarray(d[..., ::-1, :]), None, 0, ndarray)


def flip_top_bottom(data: Any) -> ndarray:
    """The HWC image mirrored top-bottom."""
    d = from_input(data)._data
    return wrap(_onp.ascontiguousarray(d[..., ::-1, :, :]), None, 0, ndarray)


def resize(data: Any, size: Any, keep_ratio: bool = False, interp: int = 1) -> ndarray:
    """The HWC image resized to ``size`` (w, h) as ``mx.image.imresize`` does."""
    d = data if isinstance(data, NDArray) else from_input(data)
    w, h = (size, size) if isinstance(size, int) else size
    return wrap(imresize_array(d.asnumpy(), w, h, interp), None, 0, ndarray)
